// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::_embedding_bag.out for the case models run: a contiguous
// Float, Half or BFloat16 weight, mode sum or mean, no padding_idx
// (PyTorch's fast path): each bag adds its rows straight into its output
// row, index by index in fp32 (per-sample weights multiplied in first,
// each step rounded to float as the reference does), the mean divided
// once by the bag size -- O(n D) against the reference's O(B D n),
// bit-exact. A Half or BFloat16 bag sums into an fp32 row in ctx->temp
// (its weight rows widened exactly), rounded to the dtype once; its mean
// divides that rounded sum by the count rounded to the dtype, as ATen
// does. offset2bag (mean),
// bag_size and max_indices follow the reference's rules (ops_reference/
// op_embedding_bag.c explains them). Max mode, padding_idx, other dtypes
// and layouts, and every value the reference refuses in a real call
// (offsets[0] != 0, offsets outside [0, n] or decreasing, an index out of
// range) go to the reference kernel, whose dry run checks and resizes
// first.
#include <string.h>

#include "core/scalar_type.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/shape.h"

enum { kModeSum = 0, kModeMean = 1 };

static int64_t load_1d(const etr_tensor_t *tensor, int64_t i) {
  const char *at = (const char *)tensor->data +
                   i * tensor->strides[0] *
                       (int64_t)etr_scalar_type_size(tensor->dtype);
  if (tensor->dtype == ETR_LONG) {
    int64_t value;
    memcpy(&value, at, 8);
    return value;
  }
  int32_t value;
  memcpy(&value, at, 4);
  return value;
}

static void store_1d(etr_tensor_t *tensor, int64_t i, int64_t value) {
  char *at = (char *)tensor->data +
             i * tensor->strides[0] *
                 (int64_t)etr_scalar_type_size(tensor->dtype);
  if (tensor->dtype == ETR_LONG) {
    memcpy(at, &value, 8);
  } else {
    int32_t narrow = (int32_t)value;
    memcpy(at, &narrow, 4);
  }
}

// The reference's real-call checks, as a yes/no: offsets start at 0, lie
// in [0, n] and never decrease; every index is a row of weight.
static bool values_valid(const etr_tensor_t *indices,
                         const etr_tensor_t *offsets, int64_t n,
                         int64_t rows) {
  int64_t count = offsets->sizes[0];
  int64_t previous = 0;
  for (int64_t b = 0; b < count; ++b) {
    int64_t offset = load_1d(offsets, b);
    if ((b == 0 && offset != 0) || offset < previous || offset > n) {
      return false;
    }
    previous = offset;
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t index = load_1d(indices, i);
    if (index < 0 || index >= rows) {
      return false;
    }
  }
  return true;
}

// aten::_embedding_bag.out
etr_error_t etr_opt_embedding_bag_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *weight = etr_opt_tensor_arg(args, num_args, 0);
  if (num_args != 14 || weight == NULL ||
      !etr_reduce_is_f32_like(weight->dtype) ||
      etr_opt_check(etr_ref_embedding_bag_out, ctx, args, num_args) != ETR_OK) {
    return etr_opt_fallback(etr_ref_embedding_bag_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *indices = NULL;
  etr_tensor_t *offsets = NULL;
  etr_tensor_t *psw = NULL;
  int64_t mode = 0;
  bool include_last_offset = false;
  int64_t padding_idx = 0;
  etr_tensor_t *outs[4];
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "indices", &indices));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "offsets", &offsets));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "mode", &mode));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 6,
                                  "per_sample_weights", &psw));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 7, "include_last_offset",
                       &include_last_offset));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 8, "padding_idx", &padding_idx));
  for (size_t k = 0; k < 4; ++k) {
    ETR_TRY(etr_arg_tensor(ctx, args, num_args, 9 + k, "out", &outs[k]));
  }
  int64_t n = indices->sizes[0];
  int64_t rows = weight->sizes[0];
  int64_t columns = weight->sizes[1];
  int64_t num_offsets = offsets->sizes[0];
  int64_t num_bags = num_offsets - (include_last_offset ? 1 : 0);
  if ((mode != kModeSum && mode != kModeMean) || padding_idx >= 0 ||
      !etr_tensor_is_contiguous(weight) ||
      !etr_tensor_is_contiguous(outs[0]) ||
      !values_valid(indices, offsets, n, rows)) {
    return etr_opt_fallback(etr_ref_embedding_bag_out, ctx, args, num_args);
  }
  // Half/BFloat16: a bag's fp32 sum and one weight row widened, in
  // ctx->temp (taken before anything is written).
  etr_scalar_type_t dtype = weight->dtype;
  bool narrow = dtype != ETR_FLOAT;
  float *narrow_sum = NULL;
  float *wide_row = NULL;
  if (narrow) {
    narrow_sum = ctx->temp == NULL
                     ? NULL
                     : (float *)etr_arena_alloc(
                           ctx->temp, 2 * (size_t)columns * sizeof(float), 64);
    if (narrow_sum == NULL) {
      return etr_opt_fallback(etr_ref_embedding_bag_out, ctx, args,
                              num_args);
    }
    wide_row = narrow_sum + columns;
  }
  // offset2bag (mean only; sum's fast path leaves it [0]): the bag of
  // position i is #{b < B : offsets[b] <= i} - 1, a sweep since offsets
  // do not decrease.
  if (outs[1]->sizes[0] == n) {
    int64_t b = 0;
    for (int64_t i = 0; i < n; ++i) {
      while (b < num_bags && load_1d(offsets, b) <= i) {
        ++b;
      }
      store_1d(outs[1], i, b - 1);
    }
  }
  const float *w = (const float *)weight->data;
  float *y = (float *)outs[0]->data;
  size_t element = etr_scalar_type_size(dtype);
  for (int64_t b = 0; b < num_bags; ++b) {
    int64_t start = load_1d(offsets, b);
    // The sum covers [offsets[b], offsets[b + 1]) (the last offset with
    // include_last_offset), the bag size runs to the next bag or to n.
    int64_t end = b + 1 < num_offsets ? load_1d(offsets, b + 1) : n;
    int64_t count = 0;
    if (mode == kModeMean) {
      count = (b + 1 < num_bags ? load_1d(offsets, b + 1) : n) - start;
    }
    store_1d(outs[2], b, count);
    store_1d(outs[3], b, count);
    float *acc = narrow ? narrow_sum : y + b * columns;
    memset(acc, 0, (size_t)columns * sizeof(float));
    for (int64_t i = start; i < end; ++i) {
      int64_t index = load_1d(indices, i);
      const float *row = w + index * columns;
      if (narrow) {
        etr_convert_to_f32(dtype, (size_t)columns,
                           (const char *)weight->data +
                               (size_t)(index * columns) * element,
                           wide_row);
        row = wide_row;
      }
      if (psw != NULL) {
        float scale = (float)etr_load_double(
            dtype, etr_element_at(psw, i * psw->strides[0]));
        for (int64_t d = 0; d < columns; ++d) {
          acc[d] += row[d] * scale;
        }
      } else {
        for (int64_t d = 0; d < columns; ++d) {
          acc[d] += row[d];
        }
      }
    }
    if (narrow) {
      // Rounded to the dtype; a mean divides that by the count rounded to
      // the dtype, in fp32, and rounds again.
      void *target = (char *)outs[0]->data + (size_t)(b * columns) * element;
      etr_convert_from_f32(dtype, (size_t)columns, acc, target);
      if (mode != kModeMean) {
        continue;
      }
      etr_convert_to_f32(dtype, (size_t)columns, target, acc);
    }
    if (mode == kModeMean) {
      float divisor = (float)etr_round_double(
          dtype, (double)(count > 1 ? count : 1));
      for (int64_t d = 0; d < columns; ++d) {
        acc[d] = acc[d] / divisor;
      }
      if (narrow) {
        etr_convert_from_f32(dtype, (size_t)columns, acc,
                             (char *)outs[0]->data +
                                 (size_t)(b * columns) * element);
      }
    }
  }
  return ETR_OK;
}
