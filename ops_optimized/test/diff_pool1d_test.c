// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized avg_pool1d and adaptive_avg_pool1d
// (ops_optimized/pool/: the 2-D drivers over a [.., 1, L] view) against
// the reference kernels, on every ISA this machine has. Lengths giving
// output lengths over the 8/16-lane edges, every window of kPoolWindows
// (pool_test_util.h) read along L, ceil_mode and count_include_pad both
// ways, 2-D and 3-D inputs, non-contiguous and Double (fallback), special
// and integer data, argument errors; adaptive: global, evenly dividing,
// uneven (fallback) and empty outputs; Half and BFloat16 (staged through
// fp32).
//
// Tolerances: exact for integer data, else
// |opt - ref| <= 2 gamma_k k max|x| + 2u |ref| with k the window length
// (adaptive: L / output_size + 1).
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/test/diff.h"
#include "ops_optimized/test/pool_test_util.h"

static int run_pool1d(etr_scalar_type_t dtype, int32_t rank,
                      const int64_t *sizes, etr_diff_layout_t layout,
                      etr_diff_fill_t fill, int64_t kernel, int64_t stride,
                      int64_t padding, bool ceil_mode, bool include_pad,
                      uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::avg_pool1d.out", seed,
                 "rank %d L %lld k %lld s %lld p %lld%s%s", (int)rank,
                 (long long)sizes[rank - 1], (long long)kernel,
                 (long long)stride, (long long)padding,
                 ceil_mode ? " ceil" : "", include_pad ? " include_pad" : "");
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_int_list(1, &kernel));
  etr_diff_arg(&c, tt_ev_int_list(1, &stride));
  etr_diff_arg(&c, tt_ev_int_list(1, &padding));
  etr_diff_arg(&c, tt_ev_bool(ceil_mode));
  etr_diff_arg(&c, tt_ev_bool(include_pad));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               etr_tensor_numel(self) + 64);
  etr_diff_return(&c, 6);
  if (fill == ETR_FILL_EXACT_INT) {
    etr_diff_tolerance_exact(&c);
  } else {
    pool_average_tolerance(&c, kernel, fill);
  }
  return etr_diff_run(&c);
}

static int run_adaptive1d(etr_scalar_type_t dtype, int32_t rank,
                          const int64_t *sizes, etr_diff_layout_t layout,
                          etr_diff_fill_t fill, int64_t output_size,
                          uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::adaptive_avg_pool1d.out", seed,
                 "rank %d L %lld -> %lld", (int)rank,
                 (long long)sizes[rank - 1], (long long)output_size);
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_int_list(1, &output_size));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               etr_tensor_numel(self) + 64);
  etr_diff_return(&c, 2);
  if (fill == ETR_FILL_EXACT_INT) {
    etr_diff_tolerance_exact(&c);
  } else {
    int64_t k = output_size > 0 ? sizes[rank - 1] / output_size + 1 : 1;
    pool_average_tolerance(&c, k, fill);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_pool1d, pool1d) {
  int failures = 0;
  uint64_t seed = 20000;
  static const int64_t kLengths[] = {1, 2, 7, 15, 16, 17, 33, 34, 35, 67};
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_EXACT_INT};
  for (size_t w = 0; w < POOL_NUM_WINDOWS; ++w) {
    for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
      for (int ceil = 0; ceil < 2; ++ceil) {
        const window_case_t *win = &kPoolWindows[w];
        int32_t rank = (l + w) % 2 ? 3 : 2;
        int64_t sizes[3] = {2, 3, kLengths[l]};
        if (rank == 2) {
          sizes[0] = 5;
          sizes[1] = kLengths[l];
        }
        failures += run_pool1d(ETR_FLOAT, rank, sizes, 0,
                               kFills[(l + (size_t)ceil) % 3], win->kernel[1],
                               win->stride[1], win->padding[1], ceil == 1,
                               l % 2 == 0, seed++);
      }
    }
  }
  // Layouts and dtypes the drivers leave to the reference; errors (padding
  // above half the kernel, a zero stride, two kernel sizes).
  int64_t sizes[3] = {2, 16, 40};
  failures += run_pool1d(ETR_FLOAT, 3, sizes, ETR_DIFF_NONCONTIGUOUS,
                         ETR_FILL_RANDOM, 3, 2, 1, false, true, seed++);
  failures += run_pool1d(ETR_DOUBLE, 3, sizes, 0, ETR_FILL_RANDOM, 3, 2, 1,
                         true, false, seed++);
  failures += run_pool1d(ETR_FLOAT, 3, sizes, 0, ETR_FILL_RANDOM, 2, 1, 2,
                         false, true, seed++);
  failures += run_pool1d(ETR_FLOAT, 3, sizes, 0, ETR_FILL_RANDOM, 2, 0, 0,
                         false, true, seed++);
  // Adaptive: global, evenly dividing, uneven (fallback), empty output.
  static const int64_t kOutputs[] = {1, 2, 5, 8, 7, 0};
  for (size_t o = 0; o < sizeof(kOutputs) / sizeof(kOutputs[0]); ++o) {
    for (int exact = 0; exact < 2; ++exact) {
      failures += run_adaptive1d(
          ETR_FLOAT, 3, sizes, 0, exact ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM,
          kOutputs[o], seed++);
      failures += run_adaptive1d(ETR_FLOAT, 2, sizes + 1,
                                 exact ? ETR_DIFF_NONCONTIGUOUS : 0,
                                 ETR_FILL_SPECIAL, kOutputs[o], seed++);
    }
  }
  failures += run_adaptive1d(ETR_HALF, 3, sizes, 0, ETR_FILL_RANDOM, 4,
                             seed++);
  failures += run_adaptive1d(ETR_BFLOAT16, 3, sizes, 0, ETR_FILL_SPECIAL, 1,
                             seed++);
  failures += run_pool1d(ETR_HALF, 3, sizes, 0, ETR_FILL_RANDOM, 3, 2, 1,
                         true, false, seed++);
  failures += run_pool1d(ETR_BFLOAT16, 2, sizes + 1, 0, ETR_FILL_EXACT_INT, 4,
                         1, 2, false, true, seed++);
  failures += run_adaptive1d(ETR_FLOAT, 3, sizes, 0, ETR_FILL_RANDOM, -1,
                             seed++);
  cr_assert_eq(failures, 0, "%d 1-D pooling cases disagree", failures);
}
