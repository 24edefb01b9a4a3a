// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized col2im kernel (ops_optimized/fold/)
// against the reference kernel, on every ISA this machine has. The
// optimized kernel adds each output's taps in the reference's order in
// double, so every case must match bit for bit, random data included.
//
// Sweeps: kernels 1x1 to 3x3 and 2x3, strides 1-3, dilations 1-2,
// paddings 0-2 (taps that land in the padding dropped, overlapping taps
// adding up), output sizes not multiples of the stride, batched and
// unbatched inputs; special values; Double and non-contiguous inputs
// (fallback); argument errors (a channel dim the kernel does not divide,
// a block count that does not match L).
#include <criterion/criterion.h>

#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 60000;

typedef struct fold_case {
  int64_t output[2];
  int64_t kernel[2];
  int64_t dilation[2];
  int64_t padding[2];
  int64_t stride[2];
} fold_case_t;

static int64_t blocks_of(const fold_case_t *f, int s) {
  return (f->output[s] + 2 * f->padding[s] -
          f->dilation[s] * (f->kernel[s] - 1) - 1) /
             f->stride[s] +
         1;
}

static int run_fold(const fold_case_t *f, etr_scalar_type_t dtype,
                    bool batched, int64_t channels, etr_diff_layout_t layout,
                    etr_diff_fill_t fill, int64_t extra_columns) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::col2im.out", g_seed++,
                 "%s out %lldx%lld k %lldx%lld d %lld p %lld s %lld,%lld",
                 etr_scalar_type_name(dtype), (long long)f->output[0],
                 (long long)f->output[1], (long long)f->kernel[0],
                 (long long)f->kernel[1], (long long)f->dilation[0],
                 (long long)f->padding[0], (long long)f->stride[0],
                 (long long)f->stride[1]);
  int64_t columns = blocks_of(f, 0) * blocks_of(f, 1) + extra_columns;
  int64_t rows = channels * f->kernel[0] * f->kernel[1];
  int64_t sizes[3] = {2, rows, columns};
  etr_diff_input(&c, dtype, batched ? 3 : 2, batched ? sizes : sizes + 1,
                 layout, fill);
  etr_diff_arg(&c, tt_ev_int_list(2, f->output));
  etr_diff_arg(&c, tt_ev_int_list(2, f->kernel));
  etr_diff_arg(&c, tt_ev_int_list(2, f->dilation));
  etr_diff_arg(&c, tt_ev_int_list(2, f->padding));
  etr_diff_arg(&c, tt_ev_int_list(2, f->stride));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               2 * channels * f->output[0] * f->output[1] + 8);
  etr_diff_return(&c, 6);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_fold, col2im) {
  int failures = 0;
  static const fold_case_t kCases[] = {
      {{4, 5}, {1, 1}, {1, 1}, {0, 0}, {1, 1}},
      {{6, 7}, {2, 2}, {1, 1}, {0, 0}, {1, 1}},
      {{6, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {{9, 8}, {3, 3}, {1, 1}, {1, 1}, {2, 2}},
      {{9, 10}, {2, 3}, {2, 1}, {2, 0}, {3, 2}},
      {{7, 7}, {3, 2}, {2, 2}, {2, 1}, {1, 3}},
      {{16, 17}, {4, 4}, {1, 1}, {0, 0}, {4, 4}},
      {{5, 33}, {1, 3}, {1, 1}, {0, 1}, {1, 1}},
  };
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_EXACT_INT};
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) {
    for (int batched = 0; batched < 2; ++batched) {
      failures += run_fold(&kCases[k], ETR_FLOAT, batched == 1,
                           1 + (int64_t)k % 3, 0,
                           kFills[(k + (size_t)batched) % 3], 0);
    }
  }
  // Fallbacks and errors.
  failures += run_fold(&kCases[2], ETR_DOUBLE, true, 2, 0, ETR_FILL_RANDOM, 0);
  failures += run_fold(&kCases[2], ETR_FLOAT, true, 2,
                       ETR_DIFF_NONCONTIGUOUS, ETR_FILL_RANDOM, 0);
  failures += run_fold(&kCases[3], ETR_FLOAT, true, 2, 0, ETR_FILL_RANDOM, 1);
  cr_assert_eq(failures, 0, "%d col2im cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}
