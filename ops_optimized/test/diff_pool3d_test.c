// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized 3-D pooling kernels (avg_pool3d,
// max_pool3d_with_indices, _adaptive_avg_pool3d; ops_optimized/pool/
// pool3d.c) against the reference kernels, on every ISA this machine has.
// The driver walks each window in the reference's order on the same
// values, so every case must match bit for bit, random data included.
//
// Sweeps: kernels 1 to 3 per dim (mixed), strides 1 to 3, padding up to
// half the kernel, dilation 1 and 2 (max), ceil_mode, count_include_pad
// and divisor_override (avg), batched and unbatched inputs, odd sizes;
// random, special (NaN, +-inf, -0.0) and integer data; adaptive output
// sizes that divide the input and that do not; Double and non-contiguous
// inputs (fallback); argument errors (padding above half the kernel, a
// zero stride, a zero divisor).
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 80000;

typedef struct pool3d_case {
  int64_t kernel[3];
  int64_t stride[3];
  int64_t padding[3];
  int64_t dilation[3];
} pool3d_case_t;

static const pool3d_case_t kWindows[] = {
    {{1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
    {{2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {{3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {{2, 3, 1}, {1, 2, 3}, {1, 1, 0}, {2, 1, 1}},
    {{3, 2, 3}, {2, 1, 2}, {0, 1, 1}, {1, 2, 2}},
};

static int run_pool3d(bool is_max, const pool3d_case_t *w,
                      etr_scalar_type_t dtype, int32_t rank,
                      const int64_t *sizes, etr_diff_layout_t layout,
                      etr_diff_fill_t fill, bool ceil_mode, bool include_pad,
                      int64_t divisor) {
  etr_diff_case_t c;
  etr_diff_begin(&c,
                 is_max ? "aten::max_pool3d_with_indices.out"
                        : "aten::avg_pool3d.out",
                 g_seed++, "%s rank %d k %lld%lld%lld s %lld%lld%lld%s%s",
                 etr_scalar_type_name(dtype), (int)rank,
                 (long long)w->kernel[0], (long long)w->kernel[1],
                 (long long)w->kernel[2], (long long)w->stride[0],
                 (long long)w->stride[1], (long long)w->stride[2],
                 ceil_mode ? " ceil" : "", include_pad ? " include_pad" : "");
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  if (fill == ETR_FILL_ZERO && dtype == ETR_FLOAT) {
    // Every element -0.0: a window's double sum from +0.0 is +0.0.
    for (int64_t i = 0; i < etr_tensor_numel(self); ++i) {
      ((float *)self->data)[i] = -0.0f;
    }
  }
  etr_diff_arg(&c, tt_ev_int_list(3, w->kernel));
  etr_diff_arg(&c, tt_ev_int_list(3, w->stride));
  etr_diff_arg(&c, tt_ev_int_list(3, w->padding));
  if (is_max) {
    etr_diff_arg(&c, tt_ev_int_list(3, w->dilation));
    etr_diff_arg(&c, tt_ev_bool(ceil_mode));
  } else {
    etr_diff_arg(&c, tt_ev_bool(ceil_mode));
    etr_diff_arg(&c, tt_ev_bool(include_pad));
    etr_diff_arg(&c, divisor != 0 ? tt_ev_int(divisor) : tt_ev_none());
  }
  size_t first_out = c.num_args;
  int64_t capacity = etr_tensor_numel(self) * 2 + 64;
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, capacity);
  if (is_max) {
    etr_diff_out(&c, ETR_LONG, 1, (const int64_t[]){0}, 0, capacity);
    size_t outs[2] = {first_out, first_out + 1};
    etr_diff_out_list(&c, 2, outs);
  } else {
    etr_diff_return(&c, first_out);
  }
  c.dtype = dtype;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

static int run_adaptive3d(etr_scalar_type_t dtype, int32_t rank,
                          const int64_t *sizes, const int64_t *output,
                          etr_diff_layout_t layout, etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::_adaptive_avg_pool3d.out", g_seed++,
                 "%s rank %d -> %lldx%lldx%lld", etr_scalar_type_name(dtype),
                 (int)rank, (long long)output[0], (long long)output[1],
                 (long long)output[2]);
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_int_list(3, output));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               etr_tensor_numel(self) * 4 + 64);
  etr_diff_return(&c, 2);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_pool3d, windows) {
  int failures = 0;
  static const int64_t kSizes[][5] = {
      {2, 3, 4, 5, 6}, {1, 2, 7, 3, 9}, {2, 1, 5, 5, 17}};
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_EXACT_INT};
  for (size_t w = 0; w < sizeof(kWindows) / sizeof(kWindows[0]); ++w) {
    for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
      for (int ceil = 0; ceil < 2; ++ceil) {
        etr_diff_fill_t fill = kFills[(w + s + (size_t)ceil) % 3];
        int32_t rank = (w + s) % 2 ? 4 : 5;
        const int64_t *sizes = kSizes[s] + (5 - rank);
        failures += run_pool3d(true, &kWindows[w], ETR_FLOAT, rank, sizes, 0,
                               fill, ceil == 1, false, 0);
        pool3d_case_t avg = kWindows[w];
        memcpy(avg.dilation, (const int64_t[]){1, 1, 1}, sizeof(avg.dilation));
        failures += run_pool3d(false, &avg, ETR_FLOAT, rank, sizes, 0, fill,
                               ceil == 1, (w + s) % 2 == 0,
                               w == 2 && ceil == 1 ? 7 : 0);
      }
    }
  }
  // A window that misses the input (max), fallbacks, errors.
  int64_t small[5] = {1, 2, 2, 2, 2};
  pool3d_case_t miss = {{2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {3, 3, 3}};
  failures += run_pool3d(true, &miss, ETR_FLOAT, 5, small, 0, ETR_FILL_RANDOM,
                         false, false, 0);
  int64_t sizes[5] = {2, 3, 4, 5, 6};
  for (int is_max = 0; is_max < 2; ++is_max) {
    failures += run_pool3d(is_max == 1, &kWindows[2], ETR_DOUBLE, 5, sizes, 0,
                           ETR_FILL_RANDOM, false, true, 0);
    failures += run_pool3d(is_max == 1, &kWindows[2], ETR_FLOAT, 5, sizes,
                           ETR_DIFF_NONCONTIGUOUS, ETR_FILL_RANDOM, false,
                           true, 0);
    pool3d_case_t bad = kWindows[1];
    bad.padding[0] = 2;
    failures += run_pool3d(is_max == 1, &bad, ETR_FLOAT, 5, sizes, 0,
                           ETR_FILL_RANDOM, false, true, 0);
    bad = kWindows[1];
    bad.stride[1] = 0;
    failures += run_pool3d(is_max == 1, &bad, ETR_FLOAT, 5, sizes, 0,
                           ETR_FILL_RANDOM, false, true, 0);
  }
  pool3d_case_t avg = kWindows[1];
  failures += run_pool3d(false, &avg, ETR_FLOAT, 5, sizes, 0,
                         ETR_FILL_RANDOM, false, true, 0);
  cr_assert_eq(failures, 0, "%d 3-D pooling cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// max_pool3d's 2x2x2 stride-2 path: two 2-D 2x2 stride-2 slices merged
// (pool3d.c). Widths over the 2-D kernels' vector steps, odd sizes (the
// last row or column unpooled), NaN-rich data (a NaN in either slice or
// both: the last NaN wins), ceil_mode on even sizes (every window inside),
// and a plane of more than 4096 outputs (the general walk).
TT_TEST(diff_pool3d, max_2x2x2_stride_2) {
  static const int64_t kSizes[][5] = {{1, 3, 4, 10, 34}, {2, 2, 5, 7, 33},
                                      {1, 1, 2, 2, 2},   {1, 2, 2, 6, 64},
                                      {1, 1, 2, 3, 97},  {1, 1, 2, 130, 130}};
  static const etr_diff_fill_t kFills[] = {ETR_FILL_SPECIAL, ETR_FILL_RANDOM,
                                           ETR_FILL_EXACT_INT};
  const pool3d_case_t *w = &kWindows[1];
  int failures = 0;
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    for (size_t f = 0; f < 3; ++f) {
      int32_t rank = s % 2 ? 4 : 5;
      failures += run_pool3d(true, w, ETR_FLOAT, rank, kSizes[s] + (5 - rank),
                             0, kFills[f], f == 2, false, 0);
    }
  }
  cr_assert_eq(failures, 0, "%d 2x2x2 max pooling cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// avg_pool3d's 2x2x2 stride-2 path: the table's double sums eight or four
// windows a step (pool3d_<isa>.c). Widths past the AVX-512 and AVX2 steps,
// odd sizes (the last row or column unpooled), extreme data (the special
// fill) and -0.0 everywhere (ETR_FILL_ZERO here: the sums start from
// +0.0), ceil_mode on even sizes, and divisor_override by a
// power of two (the inverse), by others (the division) and negative.
TT_TEST(diff_pool3d, avg_2x2x2_stride_2) {
  static const int64_t kSizes[][5] = {{1, 3, 4, 10, 34}, {2, 2, 5, 7, 33},
                                      {1, 1, 2, 2, 2},   {1, 2, 2, 6, 64},
                                      {1, 1, 2, 3, 97},  {1, 1, 4, 6, 18}};
  static const etr_diff_fill_t kFills[] = {ETR_FILL_SPECIAL, ETR_FILL_RANDOM,
                                           ETR_FILL_EXACT_INT, ETR_FILL_ZERO};
  static const int64_t kDivisors[] = {0, 3, 4, -2};
  const pool3d_case_t *w = &kWindows[1];
  int failures = 0;
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    for (size_t f = 0; f < 4; ++f) {
      int32_t rank = s % 2 ? 4 : 5;
      failures += run_pool3d(false, w, ETR_FLOAT, rank, kSizes[s] + (5 - rank),
                             0, kFills[f], f == 2, (s + f) % 2 == 0,
                             kDivisors[(s + f) % 4]);
    }
  }
  cr_assert_eq(failures, 0, "%d 2x2x2 average pooling cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_pool3d, adaptive) {
  int failures = 0;
  static const int64_t kOutputs[][3] = {
      {1, 1, 1}, {2, 5, 3}, {3, 2, 4}, {4, 5, 6}, {5, 7, 9}};
  int64_t sizes[5] = {2, 3, 4, 5, 6};
  for (size_t o = 0; o < sizeof(kOutputs) / sizeof(kOutputs[0]); ++o) {
    for (int rank = 4; rank <= 5; ++rank) {
      failures += run_adaptive3d(ETR_FLOAT, rank, sizes + (5 - rank),
                                 kOutputs[o], 0,
                                 o % 2 ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM);
    }
  }
  // Outputs that divide the input (the uniform-window kernel,
  // adaptive_uniform): output counts around its 16-lane vectors and
  // 64-output steps (30, 64, 384, 1000), windows of 1 to 8192 elements.
  static const int64_t kUniform[][8] = {
      {5, 1, 6, 6, 6, 3, 2, 1},      {1, 4, 16, 8, 8, 4, 2, 2},
      {2, 3, 8, 16, 16, 4, 4, 4},    {1, 1, 8, 32, 32, 1, 1, 1},
      {1, 10, 5, 10, 20, 5, 5, 4}};
  static const etr_diff_fill_t kUniformFills[] = {
      ETR_FILL_RANDOM, ETR_FILL_SPECIAL, ETR_FILL_EXACT_INT};
  for (size_t u = 0; u < sizeof(kUniform) / sizeof(kUniform[0]); ++u) {
    for (size_t f = 0; f < 3; ++f) {
      failures += run_adaptive3d(ETR_FLOAT, 5, kUniform[u], kUniform[u] + 5,
                                 0, kUniformFills[f]);
    }
  }
  failures += run_adaptive3d(ETR_DOUBLE, 5, sizes, kOutputs[1], 0,
                             ETR_FILL_RANDOM);
  failures += run_adaptive3d(ETR_FLOAT, 5, sizes, kOutputs[1],
                             ETR_DIFF_NONCONTIGUOUS, ETR_FILL_RANDOM);
  cr_assert_eq(failures, 0, "%d adaptive 3-D pooling cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}
