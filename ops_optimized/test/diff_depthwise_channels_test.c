// SPDX-License-Identifier: Apache-2.0
//
// The channel-vector depthwise kernel, small planes and the ring of rows
// (ops_optimized/conv/depthwise_channels_avx512.c) through
// aten::convolution.out against the reference kernel on every ISA of this
// machine (conv_test_util.h): 5x5 and 7x7 at stride 1 and 2 on out rows
// of 7 to 16 (each row width the kernel compiles, and widths between
// them that run on the next one up), wider rows in segments (equal ones,
// and a partial last one) through the ring of padded rows, planes past
// the small-plane cells, channel counts that are and are not
// multiples of 16 (a last group of 1 to 15 channels), padding 0 to 3,
// non-square planes, a batch of 2. Each case: random floats within the
// accumulation bound, exact small integers with NaN, +-inf and -0.0 in
// the input bit for bit, and one inf weight. On x86 the test first checks
// that the kernel takes each geometry.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)
#define TAKES etr_depthwise_channels_nchw_avx512_applies
#else
#define TAKES NULL
#endif

TT_TEST(diff_depthwise_channels, small_planes) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 32, 12, 14, 32, 5, 5, 1, 2, 1, 32, true},   // 14 wide
      {1, 48, 8, 8, 48, 5, 5, 1, 2, 1, 48, false},    // 8 wide
      {1, 20, 7, 7, 20, 7, 7, 1, 3, 1, 20, true},     // 7x7, 16 + 4
      {1, 17, 10, 10, 17, 5, 5, 1, 2, 1, 17, true},   // 10 on 14, 16 + 1
      {2, 16, 15, 16, 16, 5, 5, 1, 2, 1, 16, true},   // 16 wide, batch 2
      {1, 31, 12, 12, 31, 5, 5, 1, 0, 1, 31, false},  // no padding: 8
      {1, 16, 11, 9, 16, 5, 5, 1, 1, 1, 16, true},    // 9 x 7
      {1, 24, 14, 14, 24, 5, 5, 2, 2, 1, 24, false},  // stride 2: 7
      {1, 16, 13, 13, 16, 7, 7, 2, 3, 1, 16, true},   // 7x7 stride 2: 7
      {1, 40, 15, 15, 40, 5, 5, 2, 2, 1, 40, true},   // 15 -> 8, 16 + 16 + 8
      {1, 16, 12, 30, 16, 5, 5, 2, 1, 1, 16, false},  // 5 x 14
  };
  int failures = run_taken_cases(cases, COUNT(cases), TAKES);
  cr_assert_eq(failures, 0, "%d channel-vector depthwise cases disagree",
               failures);
}

// Rows over 16 pixels and windows past 576 cells: the ring of padded
// rows, out rows in segments of 14 or 16 (the last one partial).
TT_TEST(diff_depthwise_channels, ring_of_rows) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 32, 28, 28, 32, 5, 5, 1, 2, 1, 32, true},   // 14 + 14
      {1, 72, 56, 56, 72, 5, 5, 2, 2, 1, 72, true},   // -> 28, 64 + 8
      {1, 17, 56, 56, 17, 7, 7, 1, 3, 1, 17, false},  // 4 x 14, 16 + 1
      {1, 20, 30, 40, 20, 7, 7, 1, 3, 1, 20, true},   // 14 + 14 + 12
      {1, 16, 33, 33, 16, 5, 5, 2, 1, 1, 16, true},   // 16 wide, 35^2 cells
      {1, 16, 29, 29, 16, 5, 5, 2, 3, 1, 16, false},  // padding 3 at s2
      {1, 24, 40, 37, 24, 5, 5, 1, 0, 1, 24, true},   // no padding: 33
      {2, 33, 30, 45, 33, 5, 5, 2, 2, 1, 33, true},   // 15 x 23, batch 2
      {1, 16, 112, 112, 16, 5, 5, 1, 2, 1, 16, true}, // 7 x 16
      {1, 16, 45, 21, 16, 7, 7, 2, 2, 1, 16, false},  // 22 x 10 rows
  };
  int failures = run_taken_cases(cases, COUNT(cases), TAKES);
  cr_assert_eq(failures, 0, "%d ring depthwise cases disagree", failures);
}

// Left to the other kernels: 3x3, out rows under 7 (4x4 planes), rings
// past 1024 cells, dilation 2, unequal strides.
TT_TEST(diff_depthwise_channels, declines) {
  static const conv_case_t cases[] = {
      {1, 32, 14, 14, 32, 3, 3, 1, 1, 1, 32, true},
      {1, 32, 4, 4, 32, 5, 5, 1, 2, 1, 32, true},
      {1, 32, 8, 8, 32, 5, 5, 2, 2, 1, 32, true},
      {1, 16, 300, 300, 16, 7, 7, 2, 3, 1, 16, true},
      {1, 16, 200, 200, 16, 5, 5, 1, 2, 1, 16, true},
      {1, 32, 14, 14, 32, 5, 5, 1, 4, 2, 32, true},
  };
  check_declined(cases, COUNT(cases), TAKES);
}

// The weight packed at load as 16-channel tap vectors (conv.h's
// etr_depthwise_taps_pack, args->taps), which both 16-channel kernels
// read instead of transposing each group's taps per call: the AVX-512
// NCHW kernel reads them exactly where it runs one of those kernels
// (etr_depthwise_reads_taps), they give the bits of the per-call
// transposition, random data and a last group of 1 to 15 channels
// included (the bias on and off), and zeroed they change the output
// (the kernel does read them).
TT_TEST(diff_depthwise_channels, taps_packed_at_load) {
#if defined(__x86_64__)
  if (!etr_isa_available(ETR_ISA_AVX512)) {
    return;
  }
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias; whether
  // a 16-channel kernel takes it.
  static const struct {
    conv_case_t c;
    bool reads;
  } cases[] = {
      {{1, 120, 4, 4, 120, 5, 5, 1, 2, 1, 120, false}, true},  // planes
      {{1, 17, 4, 4, 17, 5, 5, 1, 2, 1, 17, true}, true},
      {{1, 32, 12, 14, 32, 5, 5, 1, 2, 1, 32, true}, true},  // cells
      {{1, 40, 15, 15, 40, 5, 5, 2, 2, 1, 40, true}, true},
      {{1, 20, 7, 7, 20, 7, 7, 1, 3, 1, 20, false}, true},
      {{1, 20, 30, 40, 20, 7, 7, 1, 3, 1, 20, true}, true},  // ring
      {{1, 17, 56, 56, 17, 7, 7, 1, 3, 1, 17, false}, true},
      {{1, 16, 45, 21, 16, 7, 7, 2, 2, 1, 16, false}, true},
      {{1, 33, 30, 45, 33, 5, 5, 2, 2, 1, 33, true}, false},  // s2 rows
      {{1, 32, 14, 14, 32, 3, 3, 1, 1, 1, 32, true}, false},  // 3x3
      {{1, 96, 8, 8, 96, 5, 5, 2, 2, 1, 96, true}, false},    // parity
      {{1, 8, 14, 14, 8, 5, 5, 1, 2, 1, 8, true}, false},     // 8 channels
  };
  int failures = 0;
  for (size_t i = 0; i < COUNT(cases); ++i) {
    const conv_case_t *p = &cases[i].c;
    const etr_conv2d_geometry_t g = conv_case_geometry(p);
    const int64_t in_n = p->c * p->h * p->w;
    const int64_t out_n = p->oc * g.out_h * g.out_w;
    const int64_t w_n = p->oc * p->kh * p->kw;
    const size_t taps_n = etr_depthwise_taps_floats(&g, p->oc);
    float *input = malloc((size_t)in_n * sizeof(float));
    float *weight = malloc((size_t)w_n * sizeof(float));
    float *bias = malloc((size_t)p->oc * sizeof(float));
    float *plain = malloc((size_t)out_n * sizeof(float));
    float *packed = malloc((size_t)out_n * sizeof(float));
    float *taps = aligned_alloc(64, (taps_n * sizeof(float) + 63) / 64 * 64);
    cr_assert(input && weight && bias && plain && packed && taps);
    conv_test_fill(input, in_n, false, (uint32_t)(31 * i + 1));
    conv_test_fill(weight, w_n, false, (uint32_t)(31 * i + 2));
    conv_test_fill(bias, p->oc, false, (uint32_t)(31 * i + 3));
    etr_depthwise_taps_pack(weight, &g, p->oc, taps);
    etr_depthwise_args_t a = {
        .geometry = &g,
        .input = input,
        .weight = weight,
        .bias = p->bias ? bias : NULL,
        .bias_stride = 1,
        .out = plain,
        .out_stride_c = g.out_h * g.out_w,
        .out_stride_h = g.out_w,
        .out_stride_w = 1,
        .channels = p->oc,
        .multiplier = 1,
    };
    if (etr_depthwise_reads_taps(ETR_ISA_AVX512, &a) != cases[i].reads) {
      fprintf(stderr, "case %zu: reads taps %d, expected %d\n", i,
              !cases[i].reads, cases[i].reads);
      ++failures;
    }
    memset(plain, 0, (size_t)out_n * sizeof(float));
    etr_depthwise_nchw_avx512(&a);
    a.out = packed;
    a.taps = taps;
    memset(packed, 0, (size_t)out_n * sizeof(float));
    etr_depthwise_nchw_avx512(&a);
    if (memcmp(plain, packed, (size_t)out_n * sizeof(float)) != 0) {
      fprintf(stderr, "case %zu: packed taps change the output\n", i);
      ++failures;
    }
    memset(taps, 0, taps_n * sizeof(float));
    etr_depthwise_nchw_avx512(&a);
    if (cases[i].reads &&
        memcmp(plain, packed, (size_t)out_n * sizeof(float)) == 0) {
      fprintf(stderr, "case %zu: zeroed taps left the output as it was\n",
              i);
      ++failures;
    }
    free(input);
    free(weight);
    free(bias);
    free(plain);
    free(packed);
    free(taps);
  }
  cr_assert_eq(failures, 0, "%d packed-tap cases wrong", failures);
#endif
}
