// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized training-only backward kernels
// against the reference kernels, on every ISA this machine has:
// max_pool2d_with_indices_backward (gradients added at the forward's flat
// indices, in the reference's order in fp32: bit-exact) and
// avg_pool2d_backward (see its test).
//
// Sweeps: batched and unbatched planes, pooled shapes from 1x1 up, index
// maps with repeats (several outputs routing to one input), -1 entries
// (skipped) and, as a refusal, an index past the plane; special gradient
// values; Double and non-contiguous inputs (fallback).
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 140000;

static int run_max_backward(etr_scalar_type_t dtype, int32_t rank,
                            const int64_t *in_sizes, int64_t kernel,
                            etr_diff_layout_t layout, int64_t bad_index) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::max_pool2d_with_indices_backward.grad_input",
                 g_seed++, "%s rank %d %lldx%lld k %lld bad %lld",
                 etr_scalar_type_name(dtype), (int)rank,
                 (long long)in_sizes[rank - 2], (long long)in_sizes[rank - 1],
                 (long long)kernel, (long long)bad_index);
  int64_t out_sizes[4];
  memcpy(out_sizes, in_sizes, sizeof(out_sizes));
  out_sizes[rank - 2] = in_sizes[rank - 2] / kernel;
  out_sizes[rank - 1] = in_sizes[rank - 1] / kernel;
  etr_diff_input(&c, dtype, rank, out_sizes, layout, ETR_FILL_SPECIAL);
  etr_diff_input(&c, dtype, rank, in_sizes, layout, ETR_FILL_RANDOM);
  int64_t k2[2] = {kernel, kernel};
  etr_diff_arg(&c, tt_ev_int_list(2, k2));
  etr_diff_arg(&c, tt_ev_int_list(2, k2));
  etr_diff_arg(&c, tt_ev_int_list(2, (const int64_t[]){0, 0}));
  etr_diff_arg(&c, tt_ev_int_list(2, (const int64_t[]){1, 1}));
  etr_diff_arg(&c, tt_ev_bool(false));
  int64_t count = 1;
  for (int32_t d = 0; d < rank; ++d) {
    count *= out_sizes[d];
  }
  int64_t plane = in_sizes[rank - 2] * in_sizes[rank - 1];
  int64_t *values = tt_alloc((size_t)(count > 0 ? count : 1) * 8);
  for (int64_t k = 0; k < count; ++k) {
    // Mostly in the plane, with repeats; some -1.
    values[k] = k % 7 == 3 ? -1 : etr_diff_range(&c, 0, plane - 1);
  }
  if (bad_index != 0 && count > 0) {
    values[count - 1] = bad_index;
  }
  etr_tensor_t *indices = tt_tensor_i64(ETR_LONG, rank, out_sizes, values);
  etr_diff_arg(&c, tt_ev_tensor(tt_relayout(indices, (tt_layout_t)layout)));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, plane * 64 + 8);
  etr_diff_return(&c, 8);
  c.dtype = dtype;
  c.layout = layout;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_backward, max_pool2d_with_indices_backward) {
  int failures = 0;
  static const int64_t kSizes[][4] = {
      {2, 3, 4, 4}, {1, 5, 8, 6}, {2, 1, 9, 17}, {1, 1, 2, 2}};
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    for (int64_t kernel = 1; kernel <= 2; ++kernel) {
      failures += run_max_backward(ETR_FLOAT, 4, kSizes[s], kernel, 0, 0);
      failures +=
          run_max_backward(ETR_FLOAT, 3, kSizes[s] + 1, kernel, 0, 0);
    }
  }
  failures += run_max_backward(ETR_FLOAT, 4, kSizes[0], 2, 0, 16);
  failures += run_max_backward(ETR_FLOAT, 4, kSizes[0], 2, 0, -2);
  failures += run_max_backward(ETR_DOUBLE, 4, kSizes[0], 2, 0, 0);
  failures += run_max_backward(ETR_FLOAT, 4, kSizes[0], 2,
                               ETR_DIFF_NONCONTIGUOUS, 0);
  cr_assert_eq(failures, 0, "%d max_pool2d backward cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// avg_pool2d_backward: each cell's grad / divisor spread over its window
// into a double plane, in the reference's order per input position:
// bit-exact. Windows with padding, ceil_mode overhang, count_include_pad
// and divisor_override; Double and non-contiguous (fallback).
static int run_avg_backward(etr_scalar_type_t dtype, int32_t rank,
                            const int64_t *in_sizes, const int64_t *kernel,
                            const int64_t *stride, const int64_t *padding,
                            bool ceil_mode, bool include_pad,
                            int64_t divisor, etr_diff_layout_t layout) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::avg_pool2d_backward.grad_input", g_seed++,
                 "%s %lldx%lld k %lldx%lld s %lld p %lld%s%s div %lld",
                 etr_scalar_type_name(dtype), (long long)in_sizes[rank - 2],
                 (long long)in_sizes[rank - 1], (long long)kernel[0],
                 (long long)kernel[1], (long long)stride[0],
                 (long long)padding[0], ceil_mode ? " ceil" : "",
                 include_pad ? " include_pad" : "", (long long)divisor);
  int64_t out_sizes[4];
  memcpy(out_sizes, in_sizes, sizeof(out_sizes));
  for (int s = 0; s < 2; ++s) {
    int64_t in = in_sizes[rank - 2 + s];
    int64_t numerator = in + 2 * padding[s] - kernel[s] +
                        (ceil_mode ? stride[s] - 1 : 0);
    int64_t size = numerator / stride[s] + 1;
    if (ceil_mode && (size - 1) * stride[s] >= in + padding[s]) {
      --size;
    }
    out_sizes[rank - 2 + s] = size;
  }
  etr_diff_input(&c, dtype, rank, out_sizes, layout, ETR_FILL_SPECIAL);
  etr_tensor_t *self =
      etr_diff_input(&c, dtype, rank, in_sizes, layout, ETR_FILL_RANDOM);
  etr_diff_arg(&c, tt_ev_int_list(2, kernel));
  etr_diff_arg(&c, tt_ev_int_list(2, stride));
  etr_diff_arg(&c, tt_ev_int_list(2, padding));
  etr_diff_arg(&c, tt_ev_bool(ceil_mode));
  etr_diff_arg(&c, tt_ev_bool(include_pad));
  etr_diff_arg(&c, divisor != 0 ? tt_ev_int(divisor) : tt_ev_none());
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               etr_tensor_numel(self) + 8);
  etr_diff_return(&c, 8);
  c.dtype = dtype;
  c.layout = layout;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_backward, avg_pool2d_backward) {
  int failures = 0;
  static const int64_t kSizes[][4] = {
      {2, 3, 4, 4}, {1, 5, 8, 7}, {2, 1, 9, 17}, {1, 1, 1, 1}};
  static const struct {
    int64_t kernel[2];
    int64_t stride[2];
    int64_t padding[2];
  } kWindows[] = {
      {{2, 2}, {2, 2}, {0, 0}}, {{3, 3}, {2, 2}, {1, 1}},
      {{3, 2}, {1, 2}, {1, 0}}, {{1, 1}, {1, 1}, {0, 0}},
  };
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    for (size_t w = 0; w < sizeof(kWindows) / sizeof(kWindows[0]); ++w) {
      if (kSizes[s][3] < kWindows[w].kernel[1] ||
          kSizes[s][2] < kWindows[w].kernel[0]) {
        continue;
      }
      for (int ceil = 0; ceil < 2; ++ceil) {
        int32_t rank = (s + w) % 2 ? 3 : 4;
        failures += run_avg_backward(
            ETR_FLOAT, rank, kSizes[s] + (4 - rank), kWindows[w].kernel,
            kWindows[w].stride, kWindows[w].padding, ceil == 1,
            (s + w + (size_t)ceil) % 2 == 0, w == 1 && ceil ? 5 : 0, 0);
      }
    }
  }
  failures += run_avg_backward(ETR_DOUBLE, 4, kSizes[0], kWindows[1].kernel,
                               kWindows[1].stride, kWindows[1].padding,
                               false, true, 0, 0);
  failures += run_avg_backward(ETR_FLOAT, 4, kSizes[0], kWindows[1].kernel,
                               kWindows[1].stride, kWindows[1].padding,
                               false, true, 0, ETR_DIFF_NONCONTIGUOUS);
  cr_assert_eq(failures, 0, "%d avg_pool2d backward cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}
