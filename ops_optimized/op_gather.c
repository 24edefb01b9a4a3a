// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::gather.out: out[i][j][k] = self[i][index[i][j][k]][k]
// (for dim 1; likewise for other dims), walked over index's outer dims
// with running offsets into out, index and self (any strides), the
// innermost dim one typed loop (etr_move_gather_elements), instead of the
// reference's per-element offset arithmetic. Every dtype the reference
// accepts; arguments are checked by the reference kernel's dry run
// (ops_reference/op_gather.c).
// 0-dim self or index (ATen's "nonempty" views), entries out of range
// (reported by the reference before anything is written) and an out
// overlapping self go to the reference.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// Gathers along `dim`; every entry of index is in range.
static void gather(etr_tensor_t *out, const etr_tensor_t *self, int32_t dim,
                   const etr_tensor_t *index) {
  size_t element_size = etr_scalar_type_size(self->dtype);
  int64_t bytes = (int64_t)element_size;
  int32_t last = index->dim - 1;
  int64_t inner = index->sizes[last];
  // Element steps along the innermost dim; self's dim `dim` moves by the
  // index entry.
  int64_t self_step = last == dim ? 0 : self->strides[last];
  size_t index_size = etr_scalar_type_size(index->dtype);
  int64_t position[ETR_MAX_DIMS] = {0};
  char *out_row = (char *)out->data;
  const char *self_row = (const char *)self->data;
  int64_t index_row = 0;
  for (;;) {
    etr_move_gather_elements(
        element_size, index->dtype, inner, out_row, out->strides[last],
        self_row, self_step, self->strides[dim],
        (const char *)index->data + (size_t)index_row * index_size,
        index->strides[last], 0);
    int32_t d = last - 1;  // odometer over the outer dims
    for (; d >= 0; --d) {
      int64_t self_stride = d == dim ? 0 : self->strides[d] * bytes;
      if (++position[d] < index->sizes[d]) {
        out_row += out->strides[d] * bytes;
        self_row += self_stride;
        index_row += index->strides[d];
        break;
      }
      position[d] = 0;
      out_row -= out->strides[d] * bytes * (index->sizes[d] - 1);
      self_row -= self_stride * (index->sizes[d] - 1);
      index_row -= index->strides[d] * (index->sizes[d] - 1);
    }
    if (d < 0) {
      return;
    }
  }
}

// aten::gather.out
etr_error_t etr_opt_gather_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *index = etr_opt_tensor_arg(args, num_args, 2);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (!etr_move_same_dtype(self, out) || index == NULL ||
      self->dim == 0 || index->dim == 0 ||
      etr_opt_check(etr_ref_gather_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_gather_out, ctx, args, num_args);
  }
  if (ctx->dry_run || etr_numel(index) == 0) {
    return ETR_OK;  // an empty index is not checked (as in ATen)
  }
  int64_t dim_arg = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  if (!etr_move_indices_in_range(index, self->sizes[dim], false)) {
    return etr_opt_fallback(etr_ref_gather_out, ctx, args, num_args);
  }
  gather(out, self, dim, index);
  return ETR_OK;
}
