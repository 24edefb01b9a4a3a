// SPDX-License-Identifier: Apache-2.0
//
// aten::_embedding_bag.out: sums, means or maxima of bags of embedding rows,
// with PyTorch's four outputs (output, offset2bag, bag_size, max_indices).
//
// Arguments: weight [num_weights, D] (Half, BFloat16, Float or Double;
// NotSupported otherwise), indices [n] and offsets [len] (int32 or int64,
// 1-D), mode 0 = sum, 1 = mean, 2 = max, per_sample_weights (sum only, 1-D,
// n elements, weight's dtype), include_last_offset, padding_idx (an index
// value left out of every bag; negative: none). scale_grad_by_freq and
// sparse only matter for gradients. B = len - include_last_offset bags;
// bag b starts at offsets[b].
//
// Outputs, as PyTorch 2.13's CPU kernel produces them (gen_movement_cases.py
// checks each):
//   out0 [B, D], weight's dtype: the reduction of the rows of bag b; an
//     empty bag gives 0. Sum and mean accumulate in float (double for a
//     Double weight) in index order; mean divides by max(bag_size, 1), the
//     count first converted to the weight dtype, after the sum is rounded
//     to it. Max keeps the first row's value and replaces it only by a
//     strictly greater one (a NaN is kept when first, never taken later).
//   out1 offset2bag [n]: offset2bag[i] = #{b < B : offsets[b] <= i} - 1.
//     For mode sum on the "fast path" (Float/Half/BFloat16 weight and
//     padding_idx < 0) PyTorch skips it and returns [0].
//   out2 bag_size [B]: for mean and max, the bag's length (the last bag
//     runs to n) minus its padding_idx entries; for sum, zeros.
//   out3 max_indices: for max [B, D], the index value (row) chosen per
//     column (0 for an empty bag); for sum and mean a copy of bag_size [B].
// out1..out3 have the index dtype: int64 when indices or offsets is int64,
// else int32. Every out dtype must match (InvalidArgument).
//
// Which positions a bag covers: position i belongs to bag offset2bag[i],
// except for sum and mean on the fast path, where bag b covers
// [offsets[b], offsets[b + 1]) with the last bag ending at n, or at
// offsets[B] with include_last_offset. The two differ only when
// include_last_offset is set and offsets[B] != n (then PyTorch's mean
// also divides by a bag_size running to n); this kernel reproduces both.
//
// Errors (InvalidArgument): a mode other than 0..2; weight not 2-D;
// indices or offsets not 1-D (PyTorch accepts 2-D indices here and returns
// uninitialized or crashing results) or of another dtype; per_sample_weights
// with mode != sum or of the wrong dtype or size; include_last_offset with
// no offsets; and, in a real call, offsets[0] != 0, an offset outside
// [0, n], decreasing offsets on the fast path (PyTorch's fbgemm path
// refuses them), an index outside [0, num_weights) (every index is
// checked, even one past the last bag), and max mode with no bag but some
// indices (PyTorch writes out of bounds there).
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

enum { MODE_SUM = 0, MODE_MEAN = 1, MODE_MAX = 2 };

typedef struct bag_args {
  const etr_tensor_t *weight;
  const etr_tensor_t *indices;
  const etr_tensor_t *offsets;
  const etr_tensor_t *per_sample_weights;  // NULL when absent
  int64_t mode;
  bool include_last_offset;
  int64_t padding_idx;
  int64_t num_bags;
  int64_t n;
  bool fast_path;
} bag_args_t;

static int64_t element_1d(const etr_tensor_t *tensor, int64_t i) {
  return etr_load_int64(tensor->dtype,
                        etr_element_at(tensor, i * tensor->strides[0]));
}

static int64_t index_at(const bag_args_t *a, int64_t i) {
  return element_1d(a->indices, i);
}

static int64_t offset_at(const bag_args_t *a, int64_t b) {
  return element_1d(a->offsets, b);
}

static void store_1d(etr_tensor_t *tensor, int64_t i, int64_t value) {
  etr_store_int64(tensor->dtype,
                  etr_element_at(tensor, i * tensor->strides[0]), value);
}

static etr_error_t check_arguments(etr_kernel_context_t *ctx,
                                   const bag_args_t *a) {
  ETR_CHECK(ctx->diag, a->mode >= MODE_SUM && a->mode <= MODE_MAX,
            ETR_ERR_INVALID_ARGUMENT, "%s: `mode` must be sum, mean, or max",
            etr_op_name(ctx));
  ETR_TRY(etr_check_dtype(ctx, "weight", a->weight->dtype,
                          ETR_DTYPES_FLOATING));
  ETR_TRY(etr_movement_check_index_dtype(ctx, "indices", a->indices));
  ETR_TRY(etr_movement_check_index_dtype(ctx, "offsets", a->offsets));
  ETR_TRY(etr_check_rank(ctx, "weight", a->weight, 2));
  ETR_TRY(etr_check_rank(ctx, "indices", a->indices, 1));
  ETR_TRY(etr_check_rank(ctx, "offsets", a->offsets, 1));
  const etr_tensor_t *psw = a->per_sample_weights;
  if (psw != NULL) {
    ETR_CHECK(ctx->diag, a->mode == MODE_SUM, ETR_ERR_INVALID_ARGUMENT,
              "%s: per_sample_weights only supported with mode='sum'",
              etr_op_name(ctx));
    ETR_TRY(etr_check_dtype_equal(ctx, "per_sample_weights", psw->dtype,
                                  a->weight->dtype));
    ETR_TRY(etr_check_rank(ctx, "per_sample_weights", psw, 1));
    ETR_CHECK(ctx->diag, psw->sizes[0] == a->n, ETR_ERR_INVALID_ARGUMENT,
              "%s: per_sample_weights has %lld elements for %lld indices",
              etr_op_name(ctx), (long long)psw->sizes[0], (long long)a->n);
  }
  ETR_CHECK(ctx->diag, !a->include_last_offset || a->offsets->sizes[0] >= 1,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: include_last_offset: number of offset should be at least 1",
            etr_op_name(ctx));
  return ETR_OK;
}

// The value-dependent checks of a real call.
static etr_error_t check_values(etr_kernel_context_t *ctx,
                                const bag_args_t *a) {
  int64_t count = a->offsets->sizes[0];
  for (int64_t b = 0; b < count; ++b) {
    int64_t offset = offset_at(a, b);
    ETR_CHECK(ctx->diag, b > 0 || offset == 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: offsets[0] has to be 0, not %lld", etr_op_name(ctx),
              (long long)offset);
    ETR_CHECK(ctx->diag, offset >= 0 && offset <= a->n,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: offsets[%lld] = %lld is outside [0, %lld] (the number of "
              "indices)",
              etr_op_name(ctx), (long long)b, (long long)offset,
              (long long)a->n);
    ETR_CHECK(ctx->diag,
              !a->fast_path || b == 0 || offset >= offset_at(a, b - 1),
              ETR_ERR_INVALID_ARGUMENT, "%s: offsets must not decrease",
              etr_op_name(ctx));
  }
  int64_t rows = a->weight->sizes[0];
  for (int64_t i = 0; i < a->n; ++i) {
    int64_t index = index_at(a, i);
    ETR_CHECK(ctx->diag, index >= 0 && index < rows, ETR_ERR_INVALID_ARGUMENT,
              "%s: index %lld of input takes value %lld which is not in the "
              "valid range [0, %lld)",
              etr_op_name(ctx), (long long)i, (long long)index,
              (long long)rows);
  }
  ETR_CHECK(ctx->diag, a->mode != MODE_MAX || a->num_bags > 0 || a->n == 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: max mode needs at least one bag for %lld indices",
            etr_op_name(ctx), (long long)a->n);
  return ETR_OK;
}

// Bag of position i: #{b < B : offsets[b] <= i} - 1.
static int64_t bag_of(const bag_args_t *a, int64_t i) {
  int64_t count = 0;
  for (int64_t b = 0; b < a->num_bags; ++b) {
    count += offset_at(a, b) <= i;
  }
  return count - 1;
}

// Whether position i contributes to bag b's sum/mean (see the header).
static bool in_sum_bag(const bag_args_t *a, etr_tensor_t *offset2bag,
                       int64_t b, int64_t i) {
  if (a->fast_path) {
    int64_t end = b + 1 < a->offsets->sizes[0] ? offset_at(a, b + 1) : a->n;
    return i >= offset_at(a, b) && i < end;
  }
  return element_1d(offset2bag, i) == b;
}

static double weight_at(const bag_args_t *a, int64_t row, int64_t column) {
  const etr_tensor_t *w = a->weight;
  return etr_load_double(
      w->dtype, etr_element_at(w, row * w->strides[0] +
                                      column * w->strides[1]));
}

// out0 for sum and mean; bag_size already holds the counts.
static void reduce_sum(const bag_args_t *a, etr_tensor_t *output,
                       etr_tensor_t *offset2bag, etr_tensor_t *bag_size) {
  etr_scalar_type_t dtype = a->weight->dtype;
  // PyTorch accumulates in float except for Double weights.
  etr_scalar_type_t acc = dtype == ETR_DOUBLE ? ETR_DOUBLE : ETR_FLOAT;
  int64_t columns = a->weight->sizes[1];
  for (int64_t b = 0; b < a->num_bags; ++b) {
    for (int64_t d = 0; d < columns; ++d) {
      double sum = 0.0;
      for (int64_t i = 0; i < a->n; ++i) {
        int64_t index = index_at(a, i);
        if (index == a->padding_idx || !in_sum_bag(a, offset2bag, b, i)) {
          continue;
        }
        double value = weight_at(a, index, d);
        if (a->per_sample_weights != NULL) {
          const etr_tensor_t *psw = a->per_sample_weights;
          double scale = etr_load_double(
              psw->dtype, etr_element_at(psw, i * psw->strides[0]));
          value = etr_round_double(acc, value * scale);
        }
        sum = etr_round_double(acc, sum + value);
      }
      void *target = etr_element_at(
          output, b * output->strides[0] + d * output->strides[1]);
      etr_store_double(dtype, target, sum);
      if (a->mode == MODE_MEAN) {
        int64_t count = element_1d(bag_size, b);
        double divisor = etr_round_double(dtype, (double)(count > 1 ? count
                                                                    : 1));
        double mean = etr_round_double(
            acc, etr_load_double(dtype, target) / divisor);
        etr_store_double(dtype, target, mean);
      }
    }
  }
}

// out0 and max_indices for max.
static void reduce_max(const bag_args_t *a, etr_tensor_t *output,
                       etr_tensor_t *offset2bag, etr_tensor_t *max_indices) {
  etr_scalar_type_t dtype = a->weight->dtype;
  int64_t columns = a->weight->sizes[1];
  for (int64_t b = 0; b < a->num_bags; ++b) {
    for (int64_t d = 0; d < columns; ++d) {
      bool empty = true;
      double best = 0.0;
      int64_t best_index = 0;
      for (int64_t i = 0; i < a->n; ++i) {
        int64_t index = index_at(a, i);
        if (index == a->padding_idx || element_1d(offset2bag, i) != b) {
          continue;
        }
        double value = weight_at(a, index, d);
        if (empty || value > best) {
          best = value;
          best_index = index;
          empty = false;
        }
      }
      etr_store_double(dtype,
                       etr_element_at(output, b * output->strides[0] +
                                                  d * output->strides[1]),
                       best);
      etr_store_int64(max_indices->dtype,
                      etr_element_at(max_indices,
                                     b * max_indices->strides[0] +
                                         d * max_indices->strides[1]),
                      best_index);
    }
  }
}

static etr_error_t compute(etr_kernel_context_t *ctx, const bag_args_t *a,
                           etr_tensor_t *const *outs) {
  ETR_TRY(check_values(ctx, a));
  etr_tensor_t *output = outs[0];
  etr_tensor_t *offset2bag = outs[1];
  etr_tensor_t *bag_size = outs[2];
  etr_tensor_t *max_indices = outs[3];
  bool has_offset2bag = offset2bag->sizes[0] == a->n;
  if (has_offset2bag) {
    for (int64_t i = 0; i < a->n; ++i) {
      store_1d(offset2bag, i, bag_of(a, i));
    }
  }
  for (int64_t b = 0; b < a->num_bags; ++b) {
    int64_t count = 0;
    if (a->mode != MODE_SUM) {
      int64_t end = b + 1 < a->num_bags ? offset_at(a, b + 1) : a->n;
      count = end - offset_at(a, b);
      for (int64_t i = 0; i < a->n; ++i) {
        count -= index_at(a, i) == a->padding_idx &&
                 element_1d(offset2bag, i) == b;
      }
    }
    store_1d(bag_size, b, count);
    if (a->mode != MODE_MAX) {
      store_1d(max_indices, b, count);
    }
  }
  if (a->mode == MODE_MAX) {
    reduce_max(a, output, offset2bag, max_indices);
  } else {
    reduce_sum(a, output, offset2bag, bag_size);
  }
  return ETR_OK;
}

// aten::_embedding_bag.out
etr_error_t etr_ref_embedding_bag_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  bag_args_t a;
  memset(&a, 0, sizeof(a));
  etr_tensor_t *weight = NULL;
  etr_tensor_t *indices = NULL;
  etr_tensor_t *offsets = NULL;
  etr_tensor_t *psw = NULL;
  bool scale_grad_by_freq = false;
  bool sparse = false;
  etr_tensor_t *outs[4] = {NULL, NULL, NULL, NULL};
  ETR_TRY(etr_check_num_args(ctx, num_args, 14));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "weight", &weight));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "indices", &indices));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "offsets", &offsets));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 3, "scale_grad_by_freq",
                       &scale_grad_by_freq));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "mode", &a.mode));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "sparse", &sparse));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 6,
                                  "per_sample_weights", &psw));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 7, "include_last_offset",
                       &a.include_last_offset));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 8, "padding_idx", &a.padding_idx));
  static const char *const kOutNames[4] = {"out0", "out1", "out2", "out3"};
  for (size_t k = 0; k < 4; ++k) {
    ETR_TRY(etr_arg_tensor(ctx, args, num_args, 9 + k, kOutNames[k],
                           &outs[k]));
  }
  a.weight = weight;
  a.indices = indices;
  a.offsets = offsets;
  a.per_sample_weights = psw;
  a.n = indices->dim == 1 ? indices->sizes[0] : 0;
  ETR_TRY(check_arguments(ctx, &a));
  a.num_bags = offsets->sizes[0] - (a.include_last_offset ? 1 : 0);
  etr_scalar_type_t dtype = weight->dtype;
  a.fast_path = a.mode != MODE_MAX && a.padding_idx < 0 &&
                (dtype == ETR_FLOAT || dtype == ETR_HALF ||
                 dtype == ETR_BFLOAT16);
  etr_scalar_type_t index_dtype =
      indices->dtype == ETR_LONG || offsets->dtype == ETR_LONG ? ETR_LONG
                                                               : ETR_INT;
  ETR_TRY(etr_check_dtype_equal(ctx, "out0", outs[0]->dtype, dtype));
  for (size_t k = 1; k < 4; ++k) {
    ETR_TRY(etr_check_dtype_equal(ctx, kOutNames[k], outs[k]->dtype,
                                  index_dtype));
  }

  int64_t columns = weight->sizes[1];
  int64_t output_sizes[2] = {a.num_bags, columns};
  int64_t offset2bag_size = a.mode == MODE_SUM && a.fast_path ? 0 : a.n;
  ETR_TRY(etr_resize_out(ctx, outs[0], 2, output_sizes));
  ETR_TRY(etr_resize_out(ctx, outs[1], 1, &offset2bag_size));
  ETR_TRY(etr_resize_out(ctx, outs[2], 1, &a.num_bags));
  ETR_TRY(etr_resize_out(ctx, outs[3], a.mode == MODE_MAX ? 2 : 1,
                         output_sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  return compute(ctx, &a, outs);
}
