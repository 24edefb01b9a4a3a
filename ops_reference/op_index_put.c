// SPDX-License-Identifier: Apache-2.0
//
// aten::index_put.out: out = self, then out[indices] = values (or
// out[indices] += values when `accumulate`), with NumPy/PyTorch advanced
// indexing.
//
// `indices` is a Tensor?[] over self's leading dims: None keeps a dim
// whole, a Long or Int tensor picks positions along one dim (negative
// positions wrap), and a Bool or uint8 mask covers as many dims as it has,
// its shape equal to theirs, standing for the coordinates of its true
// elements in row-major order. The index tensors (a mask counting as a
// 1-D tensor of its true count) broadcast together to a shape B; the
// indexed result has B in place of the indexed dims when those are
// adjacent, and B first otherwise. `values` must broadcast to that result.
// With accumulate, repeated positions add up; without it the last write
// wins, as in PyTorch's deterministic mode.
//
// Dtypes: any real, Bool or complex self (PyTorch refuses uint16/32/64:
// NotSupported); values and out must have self's dtype (PyTorch:
// "Index put requires the source and destination dtypes match"). Index
// dtypes other than Long/Int/Bool/uint8, too many indices, a mask whose
// shape does not match, an index out of bounds, index shapes that do not
// broadcast and values that do not broadcast are InvalidArgument. The
// kernel needs no scratch: a mask's k-th true element is found by a scan.
// A dry run (ctx->dry_run) checks dtypes, index counts and mask shapes and
// resizes out; the value-dependent checks (bounds, mask counts, values'
// shape against a mask) happen only in a real call.
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// How one dim of self is indexed.
typedef struct dim_index {
  const etr_tensor_t *index;  // Long/Int index or mask; NULL: whole dim
  bool is_mask;
  int32_t mask_dim;           // which dim of the mask this self dim is
  int64_t mask_count;         // true elements in the mask
  etr_tensor_t view;          // index broadcast to B (not for masks)
} dim_index_t;

typedef struct index_plan {
  int32_t rank;                       // self's rank
  dim_index_t dims[ETR_MAX_DIMS];
  int32_t b_dim;                      // broadcast index shape B
  int64_t b_sizes[ETR_MAX_DIMS];
  int32_t first_indexed;              // position of B in the result
  int32_t result_dim;
  int64_t result_sizes[ETR_MAX_DIMS];
} index_plan_t;

static int64_t count_true(const etr_tensor_t *mask) {
  int64_t count = 0;
  const etr_tensor_t *operands[1] = {mask};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, mask->dim, mask->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    count += etr_load_bool(mask->dtype, etr_element_at(mask, iter.offsets[0]));
  }
  return count;
}

// Coordinate `mask_dim` of the k-th (0-based) true element of `mask`.
static int64_t mask_coordinate(const etr_tensor_t *mask, int64_t k,
                               int32_t mask_dim) {
  const etr_tensor_t *operands[1] = {mask};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, mask->dim, mask->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    if (etr_load_bool(mask->dtype, etr_element_at(mask, iter.offsets[0])) &&
        k-- == 0) {
      return iter.index[mask_dim];
    }
  }
  return 0;  // unreachable: k < the true count
}

// Fills plan->dims from `indices` and checks dtypes and mask shapes.
static etr_error_t parse_indices(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *self,
                                 const etr_evalue_t *list, size_t count,
                                 index_plan_t *plan) {
  int32_t dim = 0;
  for (size_t i = 0; i < count; ++i) {
    const etr_tensor_t *index = etr_tensor_list_get(list, i);
    bool is_mask = index != NULL &&
                   (index->dtype == ETR_BOOL || index->dtype == ETR_BYTE);
    ETR_CHECK(ctx->diag, !is_mask || index->dim > 0, ETR_ERR_NOT_SUPPORTED,
              "%s: a 0-dim boolean index is not supported",
              etr_op_name(ctx));
    int32_t covers = is_mask ? index->dim : 1;
    ETR_CHECK(ctx->diag, dim + covers <= self->dim, ETR_ERR_INVALID_ARGUMENT,
              "%s: too many indices for tensor of dimension %d",
              etr_op_name(ctx), (int)self->dim);
    if (index != NULL && !is_mask) {
      ETR_CHECK(ctx->diag,
                index->dtype == ETR_LONG || index->dtype == ETR_INT,
                ETR_ERR_INVALID_ARGUMENT,
                "%s: tensors used as indices must be long, int, byte or "
                "bool tensors, not %s",
                etr_op_name(ctx), etr_scalar_type_name(index->dtype));
    }
    // A mask's true count is data; a dry run never reads it.
    int64_t mask_count = is_mask && !ctx->dry_run ? count_true(index) : 0;
    for (int32_t j = 0; j < covers; ++j, ++dim) {
      if (is_mask) {
        ETR_CHECK(ctx->diag, index->sizes[j] == self->sizes[dim],
                  ETR_ERR_INVALID_ARGUMENT,
                  "%s: the shape of the mask at index %d does not match the "
                  "shape of the indexed tensor at index %d",
                  etr_op_name(ctx), (int)j, (int)dim);
      }
      plan->dims[dim].index = index;
      plan->dims[dim].is_mask = is_mask;
      plan->dims[dim].mask_dim = j;
      plan->dims[dim].mask_count = mask_count;
    }
  }
  return ETR_OK;
}

// Computes B, the result shape and each index's broadcast view.
static etr_error_t plan_shapes(etr_kernel_context_t *ctx,
                               const etr_tensor_t *self, index_plan_t *plan) {
  plan->b_dim = 0;
  int32_t first = -1;
  int32_t last = -1;
  for (int32_t d = 0; d < self->dim; ++d) {
    const dim_index_t *entry = &plan->dims[d];
    if (entry->index == NULL) {
      continue;
    }
    first = first < 0 ? d : first;
    last = d;
    int64_t mask_shape = entry->mask_count;
    ETR_TRY(etr_broadcast_shapes(
        ctx, plan->b_dim, plan->b_sizes, entry->is_mask ? 1 : entry->index->dim,
        entry->is_mask ? &mask_shape : entry->index->sizes, &plan->b_dim,
        plan->b_sizes));
  }
  bool adjacent = true;
  for (int32_t d = first; d >= 0 && d <= last; ++d) {
    adjacent = adjacent && plan->dims[d].index != NULL;
  }
  plan->first_indexed = adjacent && first >= 0 ? first : 0;
  int32_t n = 0;
  for (int32_t d = 0; d < self->dim; ++d) {
    if (d == plan->first_indexed) {
      for (int32_t k = 0; k < plan->b_dim; ++k) {
        plan->result_sizes[n++] = plan->b_sizes[k];
      }
    }
    if (plan->dims[d].index == NULL) {
      plan->result_sizes[n++] = self->sizes[d];
    }
  }
  ETR_CHECK(ctx->diag, n <= ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "%s: the indexing result has more than %d dims", etr_op_name(ctx),
            ETR_MAX_DIMS);
  plan->result_dim = n;
  for (int32_t d = 0; d < self->dim; ++d) {
    dim_index_t *entry = &plan->dims[d];
    if (entry->index != NULL && !entry->is_mask) {
      ETR_TRY(etr_broadcast_view(ctx, entry->index, plan->b_dim,
                                 plan->b_sizes, &entry->view));
    }
  }
  return ETR_OK;
}

// The element offset in `out` of result position `result_index`.
static etr_error_t target_offset(etr_kernel_context_t *ctx,
                                 const index_plan_t *plan,
                                 const etr_tensor_t *out,
                                 const int64_t *result_index,
                                 int64_t *offset_out) {
  const int64_t *b_index = result_index + plan->first_indexed;
  int32_t next_plain = 0;  // next result position of a whole dim
  int64_t offset = 0;
  for (int32_t d = 0; d < plan->rank; ++d) {
    const dim_index_t *entry = &plan->dims[d];
    int64_t position = 0;
    if (entry->index == NULL) {
      if (next_plain == plan->first_indexed) {
        next_plain += plan->b_dim;
      }
      position = result_index[next_plain++];
    } else if (entry->is_mask) {
      int64_t k = entry->mask_count == 1 || plan->b_dim == 0
                      ? 0
                      : b_index[plan->b_dim - 1];
      position = mask_coordinate(entry->index, k, entry->mask_dim);
    } else {
      position = etr_load_int64(
          entry->view.dtype,
          etr_element_at(&entry->view, etr_tensor_offset(&entry->view,
                                                         b_index)));
      int64_t size = out->sizes[d];
      ETR_CHECK(ctx->diag, position >= -size && position < size,
                ETR_ERR_INVALID_ARGUMENT,
                "%s: index %lld is out of bounds for dimension %d with size "
                "%lld",
                etr_op_name(ctx), (long long)position, (int)d,
                (long long)size);
      position = position < 0 ? position + size : position;
    }
    offset += position * out->strides[d];
  }
  *offset_out = offset;
  return ETR_OK;
}

// out[offset] (+)= value, in out's dtype.
static void put(etr_tensor_t *out, int64_t offset, const void *value,
                etr_scalar_type_t value_dtype, bool accumulate) {
  void *target = etr_element_at(out, offset);
  if (!accumulate) {
    etr_convert_element(out->dtype, target, value_dtype, value);
    return;
  }
  switch (etr_dtype_kind(out->dtype)) {
    case ETR_KIND_COMPLEX: {
      etr_complex_t a = etr_load_complex(out->dtype, target);
      etr_complex_t b = etr_load_complex(value_dtype, value);
      etr_complex_t sum = {a.real + b.real, a.imag + b.imag};
      etr_store_complex(out->dtype, target, sum);
      return;
    }
    case ETR_KIND_FLOATING:
      etr_store_double(out->dtype, target,
                       etr_load_double(out->dtype, target) +
                           etr_load_double(value_dtype, value));
      return;
    default:
      etr_store_int64(out->dtype, target,
                      (int64_t)((uint64_t)etr_load_int64(out->dtype, target) +
                                (uint64_t)etr_load_int64(value_dtype, value)));
      return;
  }
}

// aten::index_put.out
etr_error_t etr_ref_index_put_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_evalue_t *indices = NULL;
  size_t count = 0;
  etr_tensor_t *values = NULL;
  bool accumulate = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_tensor_list(ctx, args, num_args, 1, "indices",
                                       &indices, &count));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "values", &values));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 3, "accumulate", &accumulate));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "values", values->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_ALL));

  index_plan_t plan;
  memset(&plan, 0, sizeof(plan));
  plan.rank = self->dim;
  ETR_TRY(parse_indices(ctx, self, indices, count, &plan));
  if (ctx->dry_run) {
    // The result shape of the indexing depends on mask contents, so a dry
    // run checks only what the shapes and dtypes decide.
    return etr_resize_out_like(ctx, out, self);
  }
  ETR_TRY(plan_shapes(ctx, self, &plan));
  etr_tensor_t values_view;
  ETR_TRY(etr_broadcast_view(ctx, values, plan.result_dim, plan.result_sizes,
                             &values_view));

  ETR_TRY(etr_resize_out_like(ctx, out, self));
  etr_copy_strided(out, self);
  const etr_tensor_t *operands[1] = {&values_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, plan.result_dim, plan.result_sizes, operands,
                        1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t offset = 0;
    ETR_TRY(target_offset(ctx, &plan, out, iter.index, &offset));
    put(out, offset, etr_element_at(&values_view, iter.offsets[0]),
        values->dtype, accumulate);
  }
  return ETR_OK;
}
