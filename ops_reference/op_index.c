// SPDX-License-Identifier: Apache-2.0
//
// aten::index.Tensor_out: out = self[indices] with NumPy/PyTorch advanced
// indexing.
//
// `indices` is a Tensor?[] over self's leading dims: None keeps a dim
// whole; an int64/int32 tensor picks positions along one dim (negative
// positions wrap; outside [-size, size) is InvalidArgument, checked before
// anything is written); a Bool or uint8 mask covers as many dims as it has,
// its shape equal to theirs, and stands for one int64 index per covered
// dim: the coordinates of its true elements in row-major order (so it is
// a 1-D index of the true count). The index tensors broadcast together to
// a shape B (InvalidArgument if they do not). The result has B in place of
// the indexed dims when those are adjacent ([N, B..., C]), and B first
// otherwise ([B..., other dims]), which is PyTorch's rule for
// non-adjacent advanced indices: self[i, :, j] has shape B + [size(1)].
//
// Also InvalidArgument, as PyTorch refuses them: an empty list ("at least
// one index must be provided"), only None entries and 0-dim masks (both an
// internal assert in ATen), more indices than self has dims (any index on
// a 0-dim self), a mask whose shape does not match, index dtypes other
// than int64/int32/Bool/uint8, and a result of more than ETR_MAX_DIMS
// dims. Any self dtype; the out dtype must equal self's.
//
// A dry run cannot know how many elements a mask selects, so with a mask
// it checks everything the shapes decide and leaves out's shape alone;
// without masks it resizes out as a real call does. No scratch memory: the
// k-th true element of a mask is found by a cursor that restarts only when
// k goes back.
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// Where the k-th true element of a mask is: restarted when asked for an
// earlier one.
typedef struct mask_cursor {
  int64_t k;  // -1 before the first true element
  int64_t coordinates[ETR_MAX_DIMS];
  bool started;
} mask_cursor_t;

// How one dim of self is indexed.
typedef struct dim_index {
  const etr_tensor_t *index;  // NULL: the whole dim
  bool is_mask;
  int32_t mask_dim;    // which dim of the mask this is
  int32_t entry;       // the list entry (mask cursor) it comes from
  etr_tensor_t view;   // an int index broadcast to B
} dim_index_t;

typedef struct index_plan {
  int32_t rank;
  dim_index_t dims[ETR_MAX_DIMS];
  int64_t mask_counts[ETR_MAX_DIMS];  // per entry
  mask_cursor_t cursors[ETR_MAX_DIMS];
  bool has_mask;
  int32_t b_dim;
  int64_t b_sizes[ETR_MAX_DIMS];
  int32_t first_indexed;  // where B goes in the result
  int32_t result_dim;
  int64_t result_sizes[ETR_MAX_DIMS];
} index_plan_t;

static bool mask_true(const etr_tensor_t *mask, const int64_t *coordinates) {
  return etr_load_bool(mask->dtype,
                       etr_element_at(mask, etr_tensor_offset(mask,
                                                              coordinates)));
}

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

// Moves the cursor to the k-th true element (k < the true count).
static const int64_t *mask_find(mask_cursor_t *cursor,
                                const etr_tensor_t *mask, int64_t k) {
  if (!cursor->started || k < cursor->k) {
    memset(cursor->coordinates, 0, sizeof(cursor->coordinates));
    cursor->k = mask_true(mask, cursor->coordinates) ? 0 : -1;
    cursor->started = true;
  }
  while (cursor->k < k &&
         etr_index_next(cursor->coordinates, mask->sizes, mask->dim)) {
    cursor->k += mask_true(mask, cursor->coordinates);
  }
  return cursor->coordinates;
}

static etr_error_t parse_indices(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *self,
                                 const etr_evalue_t *list, size_t count,
                                 index_plan_t *plan) {
  ETR_CHECK(ctx->diag, count > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: at least one index must be provided", etr_op_name(ctx));
  int32_t dim = 0;
  bool any = false;
  for (size_t i = 0; i < count; ++i) {
    const etr_tensor_t *index = etr_tensor_list_get(list, i);
    bool is_mask = index != NULL &&
                   (index->dtype == ETR_BOOL || index->dtype == ETR_BYTE);
    if (index != NULL && !is_mask) {
      ETR_TRY(etr_movement_check_index_dtype(ctx, "an index", index));
    }
    ETR_CHECK(ctx->diag, !is_mask || index->dim > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: a 0-dim boolean index is refused (PyTorch asserts)",
              etr_op_name(ctx));
    int32_t covers = is_mask ? index->dim : 1;
    ETR_CHECK(ctx->diag, (int64_t)dim + covers <= self->dim,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: too many indices for tensor of dimension %d",
              etr_op_name(ctx), (int)self->dim);
    any = any || index != NULL;
    plan->mask_counts[i] = is_mask && !ctx->dry_run ? count_true(index) : 0;
    for (int32_t j = 0; j < covers; ++j, ++dim) {
      ETR_CHECK(ctx->diag, !is_mask || index->sizes[j] == self->sizes[dim],
                ETR_ERR_INVALID_ARGUMENT,
                "%s: the shape of the mask at index %d does not match the "
                "shape of the indexed tensor at index %d",
                etr_op_name(ctx), (int)j, (int)dim);
      plan->dims[dim].index = index;
      plan->dims[dim].is_mask = is_mask;
      plan->dims[dim].mask_dim = j;
      plan->dims[dim].entry = (int32_t)i;
    }
    plan->has_mask = plan->has_mask || is_mask;
  }
  ETR_CHECK(ctx->diag, any, ETR_ERR_INVALID_ARGUMENT,
            "%s: every index is None (PyTorch asserts)", etr_op_name(ctx));
  return ETR_OK;
}

// B, the result shape and each int index's view broadcast to B.
static etr_error_t plan_shapes(etr_kernel_context_t *ctx,
                               const etr_tensor_t *self, index_plan_t *plan) {
  int32_t first = -1;
  int32_t last = -1;
  for (int32_t d = 0; d < self->dim; ++d) {
    const dim_index_t *entry = &plan->dims[d];
    if (entry->index == NULL) {
      continue;
    }
    first = first < 0 ? d : first;
    last = d;
    if (entry->is_mask && entry->mask_dim > 0) {
      continue;  // a mask takes part once, as [count]
    }
    const int64_t *count = &plan->mask_counts[entry->entry];
    ETR_TRY(etr_broadcast_shapes(
        ctx, plan->b_dim, plan->b_sizes, entry->is_mask ? 1 : entry->index->dim,
        entry->is_mask ? count : entry->index->sizes, &plan->b_dim,
        plan->b_sizes));
  }
  bool adjacent = true;
  for (int32_t d = first; d <= last; ++d) {
    adjacent = adjacent && plan->dims[d].index != NULL;
  }
  plan->first_indexed = adjacent ? first : 0;
  int32_t n = 0;
  for (int32_t d = 0; d <= self->dim; ++d) {
    if (d == plan->first_indexed) {
      ETR_CHECK(ctx->diag, n + plan->b_dim <= ETR_MAX_DIMS,
                ETR_ERR_INVALID_ARGUMENT,
                "%s: the indexing result has more than %d dims",
                etr_op_name(ctx), ETR_MAX_DIMS);
      for (int32_t k = 0; k < plan->b_dim; ++k) {
        plan->result_sizes[n++] = plan->b_sizes[k];
      }
    }
    if (d < self->dim && plan->dims[d].index == NULL) {
      ETR_CHECK(ctx->diag, n < ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
                "%s: the indexing result has more than %d dims",
                etr_op_name(ctx), ETR_MAX_DIMS);
      plan->result_sizes[n++] = self->sizes[d];
    }
  }
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

// Offset in self of result position `result_index`; wraps and checks int
// indices.
static etr_error_t source_offset(etr_kernel_context_t *ctx,
                                 index_plan_t *plan, const etr_tensor_t *self,
                                 const int64_t *result_index,
                                 int64_t *offset_out) {
  const int64_t *b_index = result_index + plan->first_indexed;
  int32_t next_plain = 0;  // result position of the next whole dim
  int64_t offset = 0;
  for (int32_t d = 0; d < plan->rank; ++d) {
    dim_index_t *entry = &plan->dims[d];
    int64_t position = 0;
    if (entry->index == NULL) {
      if (next_plain == plan->first_indexed) {
        next_plain += plan->b_dim;
      }
      position = result_index[next_plain++];
    } else if (entry->is_mask) {
      int64_t count = plan->mask_counts[entry->entry];
      int64_t k = count == 1 ? 0 : b_index[plan->b_dim - 1];
      position = mask_find(&plan->cursors[entry->entry], entry->index,
                           k)[entry->mask_dim];
    } else {
      const etr_tensor_t *view = &entry->view;
      position = etr_movement_load_index(view,
                                         etr_tensor_offset(view, b_index));
      int64_t size = self->sizes[d];
      ETR_CHECK(ctx->diag, position >= -size && position < size,
                ETR_ERR_INVALID_ARGUMENT,
                "%s: index %lld is out of bounds for dimension %d with size "
                "%lld",
                etr_op_name(ctx), (long long)position, (int)d,
                (long long)size);
      position = position < 0 ? position + size : position;
    }
    offset += position * self->strides[d];
  }
  *offset_out = offset;
  return ETR_OK;
}

// Checks every int index against its dim before anything is written.
static etr_error_t check_bounds(etr_kernel_context_t *ctx,
                                const index_plan_t *plan,
                                const etr_tensor_t *self) {
  for (int32_t d = 0; d < plan->rank; ++d) {
    const dim_index_t *entry = &plan->dims[d];
    if (entry->index == NULL || entry->is_mask) {
      continue;
    }
    const etr_tensor_t *index = entry->index;
    const etr_tensor_t *operands[1] = {index};
    etr_strided_iter_t iter;
    etr_strided_iter_init(&iter, index->dim, index->sizes, operands, 1);
    int64_t size = self->sizes[d];
    for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
      int64_t position = etr_movement_load_index(index, iter.offsets[0]);
      ETR_CHECK(ctx->diag, position >= -size && position < size,
                ETR_ERR_INVALID_ARGUMENT,
                "%s: index %lld is out of bounds for dimension %d with size "
                "%lld",
                etr_op_name(ctx), (long long)position, (int)d,
                (long long)size);
    }
  }
  return ETR_OK;
}

// aten::index.Tensor_out
etr_error_t etr_ref_index_tensor_out(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_evalue_t *indices = NULL;
  size_t count = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_tensor_list(ctx, args, num_args, 1, "indices",
                                       &indices, &count));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));

  index_plan_t plan;
  memset(&plan, 0, sizeof(plan));
  plan.rank = self->dim;
  ETR_TRY(parse_indices(ctx, self, indices, count, &plan));
  if (ctx->dry_run && plan.has_mask) {
    return ETR_OK;  // the result shape depends on the masks' contents
  }
  ETR_TRY(plan_shapes(ctx, self, &plan));
  ETR_TRY(etr_resize_out(ctx, out, plan.result_dim, plan.result_sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  if (etr_numel(out) == 0) {
    return ETR_OK;
  }
  ETR_TRY(check_bounds(ctx, &plan, self));
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t source = 0;
    ETR_TRY(source_offset(ctx, &plan, self, iter.index, &source));
    etr_convert_element(out->dtype, etr_element_at(out, iter.offsets[0]),
                        self->dtype, etr_element_at(self, source));
  }
  return ETR_OK;
}
