// SPDX-License-Identifier: Apache-2.0
//
// The AVX2 3x3 stride-2 depthwise kernel (ops_optimized/conv/
// depthwise3x3_s2_avx2.c: padding 1, input rows read in place and split
// by column parity in registers, two out rows a pass, 8 outputs a block).
//   - Through aten::convolution.out against the reference kernel on every
//     ISA of this machine (conv_test_util.h), after asserting that
//     etr_depthwise_nchw_avx2 picks it: out rows of 8 and more (odd and
//     even input widths, 14, 16, 17, 56 and 113 outputs), fewer than 8
//     channels on narrow rows, channel multipliers of 2 and 3, a batch of
//     2; random floats, exact integers with NaN, +-inf and -0.0 inputs,
//     one inf weight; contiguous, strided and channels-last inputs.
//   - Called directly on out widths 1 to 9, 15 to 17, 23 to 25, 31 to 33
//     and 57 (the 8-output blocks, the carry from block to block and the
//     last partial block), out heights 1 to 5, 8 and 9 (the pairs of rows
//     and the last single row), odd and even input widths and heights,
//     1 and 3 channels, a multiplier of 1 and 2, with input rows, planes,
//     weights and out rows and planes apart by more than their sizes (the
//     out gaps must stay untouched), by conv_test_direct: bit for bit
//     against the scalar kernel on exact data with NaN, +-inf and -0.0
//     inputs (NaN for NaN), against a model of the kernel's two FMA chains
//     (conv.h) on random data, and with a fused post (batch norm and
//     clamp, either alone) against the model followed by the post, bit for
//     bit on random data.
//   - The geometries it declines.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)

// n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
static const conv_case_t kTaken[] = {
    {1, 16, 32, 32, 16, 3, 3, 2, 1, 1, 16, true},    // 16 outputs a row
    {2, 9, 35, 33, 9, 3, 3, 2, 1, 1, 9, false},      // 17, odd, batch 2
    {1, 8, 20, 112, 8, 3, 3, 2, 1, 1, 8, true},      // 56: 7 full blocks
    {1, 4, 9, 225, 4, 3, 3, 2, 1, 1, 4, true},       // 113: a 1-tail
    {1, 3, 16, 16, 3, 3, 3, 2, 1, 1, 3, true},       // 3 channels of 8
    {1, 1, 5, 5, 1, 3, 3, 2, 1, 1, 1, true},         // one channel, 3x3
    {1, 4, 28, 28, 8, 3, 3, 2, 1, 1, 4, true},       // multiplier 2
    {1, 2, 6, 63, 6, 3, 3, 2, 1, 1, 2, false},       // multiplier 3
    {1, 24, 28, 28, 24, 3, 3, 2, 1, 1, 24, true},    // 14 outputs a row
    {1, 72, 16, 16, 72, 3, 3, 2, 1, 1, 72, true},    // mobilenet_v3's 8
};

// Out rows of 7 and 4 with 8 channels or more (the blocked kernel's),
// stride 1, padding 0 and 2, 5x5, dilation 2.
static const conv_case_t kDeclined[] = {
    {1, 576, 14, 14, 576, 3, 3, 2, 1, 1, 576, true},
    {1, 16, 13, 13, 16, 3, 3, 2, 1, 1, 16, true},
    {1, 96, 8, 8, 96, 3, 3, 2, 1, 1, 96, true},
    {1, 4, 32, 32, 4, 3, 3, 1, 1, 1, 4, true},
    {1, 4, 32, 32, 4, 3, 3, 2, 0, 1, 4, true},
    {1, 4, 32, 32, 4, 3, 3, 2, 2, 1, 4, true},
    {1, 4, 32, 32, 4, 5, 5, 2, 1, 1, 4, true},
    {1, 4, 32, 32, 4, 3, 3, 2, 1, 2, 4, true},
};

static bool picked(const conv_case_t *p) {
  etr_conv2d_geometry_t g = conv_case_geometry(p);
  return etr_depthwise3x3_s2_avx2_wins(&g, p->oc, p->oc / p->c);
}

TT_TEST(diff_depthwise3x3_s2_avx2, through_the_op) {
  int failures = 0;
  for (size_t i = 0; i < COUNT(kTaken); ++i) {
    const conv_case_t *p = &kTaken[i];
    cr_assert(picked(p), "case %zu: the kernel is not picked", i);
    failures += run_taken_case(p, true);
  }
  cr_assert_eq(failures, 0, "%d 3x3 stride-2 cases disagree", failures);
}

TT_TEST(diff_depthwise3x3_s2_avx2, declines) {
  for (size_t i = 0; i < COUNT(kDeclined); ++i) {
    cr_assert(!picked(&kDeclined[i]), "case %zu is picked", i);
  }
  etr_conv2d_geometry_t g = conv_case_geometry(&kTaken[0]);
  cr_assert(etr_depthwise3x3_s2_avx2_wins(&g, 16, 1));
  g.stride_w = 1;  // unequal strides
  cr_assert(!etr_depthwise3x3_s2_avx2_wins(&g, 16, 1));
  g = conv_case_geometry(&kTaken[0]);
  g.in_stride_w = 2;
  cr_assert(!etr_depthwise3x3_s2_avx2_wins(&g, 16, 1));
  g = conv_case_geometry(&kTaken[0]);
  g.pad_w = 0;
  cr_assert(!etr_depthwise3x3_s2_avx2_wins(&g, 16, 1));
}

enum {
  kRowGap = 3,     // input rows in_w + kRowGap apart
  kPlaneGap = 5,   // and planes a further kPlaneGap
  kWeightGap = 2,  // weight planes 9 + kWeightGap apart
};

static const int64_t kWidths[] = {1,  2,  3,  4,  5,  6,  7,  8,  9, 15,
                                  16, 17, 23, 24, 25, 31, 32, 33, 57};
static const int64_t kHeights[] = {1, 2, 3, 4, 5, 8, 9};

// What the kernel computes (conv.h, depthwise3x3_s2_avx2.c): per output,
// mid = one FMA chain from +0.0 over kernel columns 1 and 2 of rows 0, 1,
// 2 and lead one over column 0, padding taps as zeros; (mid + lead) +
// bias; `a->out` written at its strides, nothing else.
static void model(const etr_depthwise_args_t *a) {
  const etr_conv2d_geometry_t *g = a->geometry;
  for (int64_t oc = 0; oc < a->channels; ++oc) {
    const float *in = a->input + oc / a->multiplier * g->in_stride_c;
    const float *w = a->weight + oc * g->w_stride_oc;
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      for (int64_t ow = 0; ow < g->out_w; ++ow) {
        float x[3][3];
        for (int64_t kh = 0; kh < 3; ++kh) {
          for (int64_t kw = 0; kw < 3; ++kw) {
            const int64_t ih = 2 * oh - 1 + kh;
            const int64_t iw = 2 * ow - 1 + kw;
            x[kh][kw] = ih >= 0 && ih < g->in_h && iw >= 0 && iw < g->in_w
                            ? in[ih * g->in_stride_h + iw]
                            : 0.0f;
          }
        }
        float mid = 0.0f;
        float lead = 0.0f;
        for (int64_t kh = 0; kh < 3; ++kh) {
          const float *wr = w + kh * g->w_stride_h;
          mid = fmaf(wr[g->w_stride_w], x[kh][1], mid);
          mid = fmaf(wr[2 * g->w_stride_w], x[kh][2], mid);
          lead = fmaf(wr[0], x[kh][0], lead);
        }
        float sum = mid + lead;
        if (a->bias != NULL) {
          sum += a->bias[oc * a->bias_stride];
        }
        a->out[oc * a->out_stride_c + oh * a->out_stride_h + ow] = sum;
      }
    }
  }
}

TT_TEST(diff_depthwise3x3_s2_avx2, block_and_row_edges) {
  if (!etr_isa_available(ETR_ISA_AVX2)) {
    cr_log_warn("no AVX2 on this machine: the kernel is not run");
    return;
  }
  int bad = 0;
  uint32_t seed = 1;
  for (size_t wi = 0; wi < COUNT(kWidths); ++wi) {
    for (size_t hi = 0; hi < COUNT(kHeights); ++hi) {
      // Out size kHeights[hi] x kWidths[wi]: the input is 2 out - 1 or
      // 2 out wide and high (the two parities, in turn).
      for (int even = 0; even < 2; ++even) {
        const int64_t in_h = 2 * kHeights[hi] - ((even + (int)wi) & 1);
        const int64_t in_w = 2 * kWidths[wi] - even;
        etr_conv2d_geometry_t g = conv_test_gapped_geometry(
            1, in_h, in_w, 3, 2, 1, 1, kRowGap, kPlaneGap, kWeightGap);
        cr_assert(g.out_h == kHeights[hi] && g.out_w == kWidths[wi]);
        for (int64_t multiplier = 1; multiplier <= 2; ++multiplier) {
          for (int64_t channels = multiplier; channels <= 3 * multiplier;
               channels += 2 * multiplier) {
            bad += conv_test_direct(etr_depthwise3x3_s2_nchw_avx2, model,
                                    etr_conv_post_rows_avx2, &g, channels,
                                    multiplier, seed++);
          }
        }
      }
    }
  }
  cr_assert_eq(bad, 0, "%d outputs differ", bad);
}

#else

TT_TEST(diff_depthwise3x3_s2_avx2, not_x86) {
  cr_log_info("the 3x3 stride-2 AVX2 depthwise kernel is x86 only");
}

#endif
