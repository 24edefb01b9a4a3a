// SPDX-License-Identifier: Apache-2.0
//
// aten::topk.values: the k largest (or, when not `largest`, smallest)
// elements of self along `dim` and their indices.
//
// Arguments: (self, k, dim, largest, sorted, values, indices, return slot:
// a TensorList [values, indices]).
//
// NaN counts as the largest value. Which of several equal values are
// taken, and in what order, is what PyTorch 2.13's CPU kernel gives,
// reproduced exactly (support/reduce_sort.h): for each slice of n values,
// libstdc++'s std::partial_sort of the (value, index) pairs when
// k * 64 <= n, else std::nth_element at k - 1 followed, when `sorted`, by
// std::sort of the first k - 1 (with sorted=False the result is then in
// nth_element's order, as in PyTorch). k must lie in [0, size of dim]
// (InvalidArgument, "selected index k out of range"); a 0-dim self counts
// as size 1 and gives itself and index 0 for k 0 or 1, as PyTorch does.
// Outs have self's shape with dim of size k. Bad dims and outs too small
// are InvalidArgument.
//
// Scratch: the partial_sort route works in the outs; the nth_element
// route needs the whole slice, 16 * n bytes of ctx->temp (n < 64 k), and
// fails with MemoryAllocationFailed when ctx->temp is missing or too
// small (a dry run does not check).
//
// Dtypes: every real dtype; Bool, complex and uint16/32/64 are
// NotSupported ("topk does not support bool dtypes on CPU"). values must
// have self's dtype and indices must be Long (InvalidArgument). Any layout
// in and out.
#include <string.h>

#include "core/arena.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce_sort.h"
#include "ops_reference/support/shape.h"

// aten::topk.values
etr_error_t etr_ref_topk_values(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t k = 0;
  int64_t dim_arg = -1;
  bool largest = true;
  bool sorted = true;
  etr_tensor_t *values = NULL;
  etr_tensor_t *indices = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 8));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "k", &k));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "dim", &dim_arg));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 3, "largest", &largest));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "sorted", &sorted));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 5, "values", &values));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "indices", &indices));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL));
  ETR_TRY(etr_check_dtype_equal(ctx, "values", values->dtype, self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "indices", indices->dtype, ETR_LONG));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t size = self->dim > 0 ? self->sizes[dim] : 1;
  ETR_CHECK(ctx->diag, k >= 0 && k <= size, ETR_ERR_INVALID_ARGUMENT,
            "%s: selected index k out of range (k = %lld, dim size %lld)",
            etr_op_name(ctx), (long long)k, (long long)size);
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t d = 0; d < self->dim; ++d) {
    sizes[d] = d == dim ? k : self->sizes[d];
  }
  ETR_TRY(etr_resize_out(ctx, values, self->dim, sizes));
  ETR_TRY(etr_resize_out(ctx, indices, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  size_t element_size = etr_scalar_type_size(self->dtype);
  if (self->dim == 0) {
    memcpy(values->data, self->data, element_size);
    etr_store_int64(ETR_LONG, indices->data, 0);
    return ETR_OK;
  }
  if (k == 0 || etr_numel(values) == 0) {
    return ETR_OK;
  }
  bool partial = k <= size / 64;  // ATen: k * 64 <= n
  etr_sort_pair_t *scratch = NULL;
  if (!partial) {
    size_t bytes = 0;
    ETR_CHECK(ctx->diag,
              etr_size_mul((size_t)size, sizeof(etr_sort_pair_t), &bytes) &&
                  ctx->temp != NULL &&
                  (scratch = etr_arena_alloc(ctx->temp, bytes, 8)) != NULL,
              ETR_ERR_MEMORY_ALLOCATION_FAILED,
              "%s: needs %lld bytes of scratch (ctx->temp) for a slice of "
              "%lld",
              etr_op_name(ctx), (long long)size * (long long)sizeof(*scratch),
              (long long)size);
  }

  // self and the outs share their outer dims; each is split on its own.
  uint32_t mask = 1u << dim;
  const etr_tensor_t *in_operands[1] = {self};
  const etr_tensor_t *out_operands[2] = {values, indices};
  etr_dim_split_t in_split;
  etr_dim_split_t out_split;
  etr_dim_split_init(&in_split, mask, in_operands, 1);
  etr_dim_split_init(&out_split, mask, out_operands, 2);
  for (int64_t o = 0; o < out_split.outer_count; ++o) {
    etr_sort_array_t outs = {
        .dtype = self->dtype,
        .descending = largest,
        .stored = k,
        .values = etr_element_at(values, etr_dim_split_outer(&out_split, 0, o)),
        .value_stride = out_split.inner_strides[0][0],
        .indices =
            etr_element_at(indices, etr_dim_split_outer(&out_split, 1, o)),
        .index_stride = out_split.inner_strides[1][0],
        .source = etr_element_at(self, etr_dim_split_outer(&in_split, 0, o)),
        .source_stride = in_split.inner_strides[0][0],
    };
    if (partial) {
      // The first k pairs start in the outs; the rest are read from self.
      for (int64_t i = 0; i < k; ++i) {
        etr_sort_pair_t pair = {{0}, i};
        memcpy(pair.raw, outs.source + i * outs.source_stride *
                                           (int64_t)element_size,
               element_size);
        etr_sort_set(&outs, i, &pair);
      }
      etr_sort_partial_sort(&outs, 0, k, size);
      continue;
    }
    etr_sort_array_t queue = outs;
    queue.stored = size;
    queue.scratch = scratch;
    for (int64_t i = 0; i < size; ++i) {
      etr_sort_pair_t pair = {{0}, i};
      memcpy(pair.raw,
             outs.source + i * outs.source_stride * (int64_t)element_size,
             element_size);
      etr_sort_set(&queue, i, &pair);
    }
    etr_sort_nth_element(&queue, 0, k - 1, size);
    if (sorted) {
      etr_sort_std_sort(&queue, 0, k - 1);
    }
    for (int64_t i = 0; i < k; ++i) {
      etr_sort_pair_t pair = etr_sort_get(&queue, i);
      etr_sort_set(&outs, i, &pair);
    }
  }
  return ETR_OK;
}
