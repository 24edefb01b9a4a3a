// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::index_put.out for the KV-cache update form: accumulate
// false and one Long/Int index tensor along dim p with every other entry
// None (`cache[:, idx] = values`, `index_copy_`): out = self (skipped when
// out is self), then for each index entry k, in order, the slice of out at
// idx[k] along p = the slice of values (broadcast to the indexed shape
// self[:p] + idx.shape + self[p+1:]) at k -- so repeated entries keep the
// last write, as the reference does. Negative entries wrap. Accumulation,
// masks, several index tensors, entries out of range, values that do not
// broadcast (the reference reports both before writing) and overlaps with
// out go to the reference kernel (ops_reference/op_index_put.c), whose dry
// run also checks the arguments.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// The one index tensor of `list` and its dim (as in op_index.c).
static const etr_tensor_t *single_index(const etr_evalue_t *list,
                                        int32_t *dim_out) {
  if (list == NULL || (list->tag != ETR_TAG_LIST_OPTIONAL_TENSOR &&
                       list->tag != ETR_TAG_LIST_TENSOR)) {
    return NULL;
  }
  const etr_tensor_t *found = NULL;
  for (size_t i = 0; i < list->u.as_tensor_list.length; ++i) {
    const etr_tensor_t *index = etr_tensor_list_get(list, i);
    if (index == NULL) {
      continue;
    }
    if (found != NULL ||
        (index->dtype != ETR_LONG && index->dtype != ETR_INT)) {
      return NULL;
    }
    found = index;
    *dim_out = (int32_t)i;
  }
  return found;
}

// values broadcast to the indexed shape, or false when it does not
// broadcast (or the shape has too many dims).
static bool values_view(const etr_tensor_t *self, int32_t dim,
                        const etr_tensor_t *index,
                        const etr_tensor_t *values, etr_kernel_context_t *ctx,
                        etr_tensor_t *view) {
  if (self->dim - 1 + index->dim > ETR_MAX_DIMS) {
    return false;
  }
  int64_t sizes[ETR_MAX_DIMS];
  int32_t n = 0;
  for (int32_t d = 0; d < self->dim; ++d) {
    if (d != dim) {
      sizes[n++] = self->sizes[d];
      continue;
    }
    for (int32_t j = 0; j < index->dim; ++j) {
      sizes[n++] = index->sizes[j];
    }
  }
  return etr_can_broadcast_to(values, n, sizes) &&
         etr_broadcast_view(ctx, values, n, sizes, view) == ETR_OK;
}

// aten::index_put.out
etr_error_t etr_opt_index_put_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *values = etr_opt_tensor_arg(args, num_args, 2);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  int32_t dim = 0;
  const etr_tensor_t *index =
      num_args == 6 ? single_index(args[1], &dim) : NULL;
  bool accumulate = num_args == 6 && args[3] != NULL &&
                    args[3]->tag == ETR_TAG_BOOL && args[3]->u.as_bool;
  etr_tensor_t view;
  if (index == NULL || accumulate || !etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_index_put_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self) || etr_move_overlaps(out, values)) {
    return etr_opt_fallback(etr_ref_index_put_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t size = self->sizes[dim];
  if (!etr_move_indices_in_range(index, size, true) ||
      !values_view(self, dim, index, values, ctx, &view)) {
    return etr_opt_fallback(etr_ref_index_put_out, ctx, args, num_args);
  }
  etr_move_tensor(out, self);
  // A slice of out (dim removed) and the matching slice of the view (the
  // index's dims removed): both have self's shape without `dim`.
  int64_t sizes[ETR_MAX_DIMS];
  int64_t out_strides[ETR_MAX_DIMS];
  int64_t value_strides[ETR_MAX_DIMS];
  for (int32_t d = 0, n = 0; d < self->dim; ++d) {
    if (d != dim) {
      sizes[n] = self->sizes[d];
      out_strides[n] = out->strides[d];
      value_strides[n] = view.strides[d < dim ? d : d - 1 + index->dim];
      ++n;
    }
  }
  size_t element_size = etr_scalar_type_size(out->dtype);
  int64_t count = etr_numel(index);
  for (int64_t k = 0; k < count; ++k) {
    int64_t position = etr_move_index_at(index, k);
    position += position < 0 ? size : 0;
    int64_t value_offset = 0;  // k unravelled on the view's index dims
    int64_t remaining = k;
    for (int32_t j = index->dim - 1; j >= 0; --j) {
      value_offset += (remaining % index->sizes[j]) * view.strides[dim + j];
      remaining /= index->sizes[j];
    }
    etr_move_strided(
        element_size, self->dim - 1, sizes,
        (char *)out->data + position * out->strides[dim] *
                                (int64_t)element_size,
        out_strides,
        (const char *)view.data + value_offset * (int64_t)element_size,
        value_strides);
  }
  return ETR_OK;
}
