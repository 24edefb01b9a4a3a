// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the 2-D pooling differential tests (diff_pool2d_test.c,
// diff_pool2x2_test.c, diff_pool1d_test.c): a pooling case's
// specification and its run through the harness (run_pool: inputs, planted
// data, outs shaped as ATen's pooling_output_shape gives them, tolerance),
// the two ops and the windows the sweeps walk.
//
// Tolerance (run_pool): max pooling and its indices exact (NaN placement
// and first-position ties included); averages exact for integer data and
// for the planted patterns other than -inf, else
// |opt - ref| <= 2 gamma_k k max|x| + 2u |ref| with k the window size
// (fp32 window sums in another order than the reference's double sum),
// for Half and BFloat16 one ulp of the dtype more (the fp32 average is
// rounded to it, the reference's double one too).
#ifndef ETR_OPS_OPTIMIZED_TEST_POOL_TEST_UTIL_H
#define ETR_OPS_OPTIMIZED_TEST_POOL_TEST_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "ops_optimized/test/diff.h"

// Data planted over the fill, for the 2x2 kernels' edge cases.
typedef enum pattern {
  PATTERN_NONE,
  PATTERN_NEGATIVE_ZERO,  // all -0.0: the average must be +0.0
  PATTERN_NEGATIVE_INF,   // every other element -inf, some windows all -inf
  PATTERN_HUGE,           // all 3e38: fp32 window sums overflow, doubles not
  PATTERN_TIES,           // 0 0 1 1 2 repeated: ties keep the first index
} pattern_t;

typedef struct pool_spec {
  const char *op;
  etr_scalar_type_t dtype;
  int32_t rank;
  int64_t sizes[4];
  etr_diff_layout_t layout;
  etr_diff_fill_t fill;
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
  bool ceil_mode;
  bool count_include_pad;
  int64_t divisor;  // 0: none
  bool nan_heavy;   // every third element NaN (windows with several NaNs)
  pattern_t pattern;
  // Contiguous outs of the input's rank: 1 already of the result's shape,
  // 2 one output row taller (the kernel must resize them); 0 empty.
  int presized;
} pool_spec_t;

// The largest |x| a fill draws (for the accumulation bounds).
static inline double pool_max_abs_of(etr_diff_fill_t fill) {
  return fill == ETR_FILL_EXACT_INT ? 4.0
         : fill == ETR_FILL_SPECIAL ? 3.0e38
         : fill == ETR_FILL_POSITIVE ? 2.0
                                     : 1.0;
}

// The tolerance of an fp32 average over windows of up to `window`
// elements of `fill` data: 2 gamma_k k max|x| + 2u |ref| (fp32 window sums
// in another order than the reference's double sum). A Half or BFloat16
// case (c->dtype) adds one ulp of its dtype, 2^-10 or 2^-7 |ref| (2^-24
// for Half's subnormals): both results are rounded to the dtype, from
// averages that differ by the bound above.
static inline void pool_average_tolerance(etr_diff_case_t *c, int64_t window,
                                          etr_diff_fill_t fill) {
  etr_diff_tolerance_bound(
      c,
      etr_diff_accumulation_bound(ETR_FLOAT, window, pool_max_abs_of(fill), 1),
      0x1p-23);
  etr_diff_tolerance_add_rounding(c, c->dtype);
}

// Runs one pooling case: max_pool2d_with_indices or avg_pool2d per s->op.
static inline int run_pool(const pool_spec_t *s, uint64_t seed) {
  bool is_max = strstr(s->op, "max") != NULL;
  etr_diff_case_t c;
  etr_diff_begin(&c, s->op, seed,
                 "[%lld %lld %lld %lld] k %lldx%lld s %lld,%lld p %lld,%lld "
                 "d %lld%s%s",
                 (long long)s->sizes[0], (long long)s->sizes[1],
                 (long long)s->sizes[2], (long long)s->sizes[3],
                 (long long)s->kernel[0], (long long)s->kernel[1],
                 (long long)s->stride[0], (long long)s->stride[1],
                 (long long)s->padding[0], (long long)s->padding[1],
                 (long long)s->dilation[0], s->ceil_mode ? " ceil" : "",
                 s->count_include_pad ? " include_pad" : "");
  etr_tensor_t *self = etr_diff_input(&c, s->dtype, s->rank, s->sizes,
                                      s->layout, s->fill);
  if (s->nan_heavy && s->dtype == ETR_FLOAT) {
    float *data = (float *)self->data;
    for (int64_t i = 0; i < etr_tensor_numel(self); i += 3) {
      data[i] = NAN;
    }
  }
  if (s->pattern != PATTERN_NONE && s->dtype == ETR_FLOAT) {
    float *data = (float *)self->data;
    for (int64_t i = 0; i < etr_tensor_numel(self); ++i) {
      switch (s->pattern) {
        case PATTERN_NEGATIVE_ZERO: data[i] = -0.0f; break;
        case PATTERN_NEGATIVE_INF:
          data[i] = i % 2 == 0 || i % 7 == 1 ? -INFINITY : data[i];
          break;
        case PATTERN_HUGE: data[i] = 3.0e38f; break;
        case PATTERN_TIES: data[i] = (float)((i % 5) / 2); break;
        default: break;
      }
    }
  }
  etr_diff_arg(&c, tt_ev_int_list(2, s->kernel));
  etr_diff_arg(&c, tt_ev_int_list(2, s->stride));
  etr_diff_arg(&c, tt_ev_int_list(2, s->padding));
  if (is_max) {
    etr_diff_arg(&c, tt_ev_int_list(2, s->dilation));
    etr_diff_arg(&c, tt_ev_bool(s->ceil_mode));
  } else {
    etr_diff_arg(&c, tt_ev_bool(s->ceil_mode));
    etr_diff_arg(&c, tt_ev_bool(s->count_include_pad));
    etr_diff_arg(&c, s->divisor != 0 ? tt_ev_int(s->divisor) : tt_ev_none());
  }
  // Outs: channels-last when the input is (their sizes are the result's,
  // computed here as ATen's pooling_output_shape does).
  size_t first_out = c.num_args;
  int64_t out_sizes[4];
  memcpy(out_sizes, s->sizes, sizeof(out_sizes));
  for (int d = 0; d < 2; ++d) {
    int64_t in = s->sizes[s->rank - 2 + d];
    int64_t span = s->dilation[d] * (s->kernel[d] - 1) + 1;
    int64_t numerator = in + 2 * s->padding[d] - span +
                        (s->ceil_mode ? s->stride[d] - 1 : 0);
    int64_t stride = s->stride[d] > 0 ? s->stride[d] : 1;  // 0: an error
    int64_t size = (numerator >= 0 ? numerator / stride : -1) + 1;
    if (s->ceil_mode && (size - 1) * stride >= in + s->padding[d]) {
      --size;
    }
    out_sizes[s->rank - 2 + d] = size > 0 ? size : 1;
  }
  bool nhwc = s->layout == ETR_DIFF_CHANNELS_LAST && s->rank == 4;
  int64_t spare = etr_tensor_numel(self) + 64;
  for (int k = 0; k < (is_max ? 2 : 1); ++k) {
    etr_scalar_type_t dtype = k == 0 ? s->dtype : ETR_LONG;
    if (nhwc) {
      etr_diff_out(&c, dtype, 4, out_sizes, ETR_DIFF_CHANNELS_LAST, 0);
    } else if (s->presized != 0) {
      int64_t sizes[4];
      memcpy(sizes, out_sizes, sizeof(sizes));
      sizes[s->rank - 2] += s->presized == 2 ? 1 : 0;
      etr_diff_out(&c, dtype, s->rank, sizes, 0, 0);
    } else {
      etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, spare);
    }
  }
  if (is_max) {
    size_t outs[2] = {first_out, first_out + 1};
    etr_diff_out_list(&c, 2, outs);
  } else {
    etr_diff_return(&c, first_out);
  }
  c.dtype = s->dtype;
  // Planted patterns other than -inf are exact for averages too (the sign
  // of a zero average is checked).
  bool exact_data = s->pattern != PATTERN_NONE &&
                    s->pattern != PATTERN_NEGATIVE_INF && !s->nan_heavy;
  if (is_max || s->fill == ETR_FILL_EXACT_INT || exact_data) {
    etr_diff_tolerance_exact(&c);
  } else {
    int64_t k = s->kernel[0] * s->kernel[1];
    pool_average_tolerance(&c, k, s->fill);
  }
  return etr_diff_run(&c);
}

// The two ops the 2-D sweeps run: index 0 is max, 1 average.
static const char *const kPoolOps[] = {"aten::max_pool2d_with_indices.out",
                                       "aten::avg_pool2d.out"};

// The window shapes, strides and paddings swept.
typedef struct window_case {
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
} window_case_t;

static const window_case_t kPoolWindows[] = {
    {{2, 2}, {2, 2}, {0, 0}, {1, 1}}, {{3, 3}, {2, 2}, {1, 1}, {1, 1}},
    {{3, 3}, {1, 1}, {1, 1}, {1, 1}}, {{2, 2}, {1, 1}, {0, 0}, {1, 1}},
    {{1, 3}, {1, 3}, {0, 1}, {1, 1}}, {{3, 2}, {2, 1}, {1, 0}, {2, 2}},
    {{1, 1}, {1, 1}, {0, 0}, {1, 1}},
};
#define POOL_NUM_WINDOWS (sizeof(kPoolWindows) / sizeof(kPoolWindows[0]))

#endif  // ETR_OPS_OPTIMIZED_TEST_POOL_TEST_UTIL_H
