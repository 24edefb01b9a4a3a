// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::index.Tensor_out for its common form, one Long/Int index
// tensor along dim p with every other entry None (`x[idx]`, `x[:, idx]`):
// out = self[:p] + idx.shape + self[p+1:], gathered by
// etr_move_index_select (memcpy per row when self and out are dense).
// Negative entries wrap. Other forms (masks, several index tensors), an
// out that cannot be read as [.., numel(idx), ..] (strided, with a
// multi-dim index), entries out of range (reported by the reference before
// anything is written) and an out overlapping self go to the reference
// kernel (ops_reference/op_index.c), whose dry run also checks the
// arguments.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// The one index tensor of `list` and its dim, or NULL when the list is not
// of the form [None, ..., None, idx, None, ...] with a Long/Int idx.
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

// aten::index.Tensor_out
etr_error_t etr_opt_index_tensor_out(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  int32_t dim = 0;
  const etr_tensor_t *index =
      num_args == 4 ? single_index(args[1], &dim) : NULL;
  if (index == NULL || !etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_index_tensor_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_index_tensor_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  // out as self's shape with dim `dim` of size numel(index).
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  for (int32_t d = 0; d < self->dim; ++d) {
    sizes[d] = d == dim ? etr_numel(index) : self->sizes[d];
  }
  if (!etr_move_indices_in_range(index, self->sizes[dim], true) ||
      !etr_move_reshape_strides(out, self->dim, sizes, strides)) {
    return etr_opt_fallback(etr_ref_index_tensor_out, ctx, args, num_args);
  }
  etr_tensor_t view;
  etr_make_view(out, 0, self->dim, sizes, strides, &view);
  etr_move_index_select(&view, self, dim, index, true);
  return ETR_OK;
}
