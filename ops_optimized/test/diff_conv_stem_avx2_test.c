// SPDX-License-Identifier: Apache-2.0
//
// AVX2's stem kernel (ops_optimized/conv/stem_avx2.c: tiles of 3 out rows
// x 8 columns x 4 out channels from a zero-padded band of CHUNK = 128
// columns). The op-level sweeps of diff_conv_stem_test.c reach it through
// aten::convolution.out on an AVX2 machine; here it is called directly:
//   - against a plain loop, bit for bit on exact data with NaN, +-inf and
//     -0.0 in the input, with input rows and planes and out rows and
//     planes apart by more than their sizes (the gaps must stay
//     untouched): the mobilenet stem, rows split in two and three chunks
//     (tails of 6 and 4 columns), out-channel tails of 1 and of a
//     second weight block (33), out rows past a tile, 5x5 on 2 channels,
//     ResNet's 7x7, 2x2 without padding, padding past the kernel;
//   - with a fused post (batch norm and clamp, either alone) against the
//     kernel followed by post_avx2.c's rows, bit for bit on random data;
//   - the geometries etr_conv_direct_takes declines on AVX2.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)

enum {
  kRowGap = 5,     // floats between input rows
  kPlaneGap = 11,  // and after each input plane
  kOutRowGap = 3,
  kOutGap = 7,
  kMaxIn = 3 * (64 * (150 + kRowGap) + kPlaneGap),
  kMaxOut = 33 * (32 * (150 + kOutRowGap) + kOutGap),
  kMaxWeight = 33 * 3 * 49,
};
static const float kSentinel = 12345.0f;

typedef struct stem_case {
  int64_t channels, in_h, in_w, k, stride, pad, out_channels;
} stem_case_t;

static const stem_case_t kCases[] = {
    {3, 64, 64, 3, 2, 1, 16},   // mobilenet_v2's stem
    {3, 13, 150, 3, 1, 1, 5},   // chunks of 128, 22; 13 rows; 4 + 1 outs
    {3, 5, 300, 3, 1, 1, 5},    // chunks of 128, 128, 44
    {2, 17, 40, 5, 2, 2, 9},    // 5x5 s2, 20 columns (a tail of 4)
    {3, 40, 40, 7, 2, 3, 33},   // ResNet's 7x7 s2, a second weight block
    {1, 10, 9, 2, 1, 0, 3},     // 2x2, no padding, rows of exactly 8
    {3, 9, 23, 4, 2, 5, 6},     // padding past the kernel
    {3, 6, 139, 3, 2, 0, 4},    // s2, 69 columns: a tail of 5
};

// The case's geometry, with the gaps above between input rows and planes.
static etr_conv2d_geometry_t geometry(const stem_case_t *s) {
  return conv_test_gapped_geometry(s->channels, s->in_h, s->in_w, s->k,
                                   s->stride, s->pad, 1, kRowGap, kPlaneGap,
                                   0);
}

// The convolution as a plain loop: bias + the taps inside the image.
static void plain(const etr_depthwise_args_t *a) {
  const etr_conv2d_geometry_t *g = a->geometry;
  for (int64_t oc = 0; oc < a->channels; ++oc) {
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      for (int64_t ow = 0; ow < g->out_w; ++ow) {
        float sum = 0.0f;
        for (int64_t c = 0; c < g->channels; ++c) {
          for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
            for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
              int64_t ih = oh * g->stride_h - g->pad_h + kh;
              int64_t iw = ow * g->stride_w - g->pad_w + kw;
              if (ih < 0 || ih >= g->in_h || iw < 0 || iw >= g->in_w) {
                continue;
              }
              sum += a->input[c * g->in_stride_c + ih * g->in_stride_h + iw] *
                     a->weight[oc * g->w_stride_oc + c * g->w_stride_c +
                               kh * g->w_stride_h + kw];
            }
          }
        }
        a->out[oc * a->out_stride_c + oh * a->out_stride_h + ow] =
            sum + a->bias[oc];
      }
    }
  }
}

TT_TEST(diff_conv_stem_avx2, against_a_plain_loop_and_with_a_post) {
  if (!etr_isa_available(ETR_ISA_AVX2)) {
    cr_log_warn("no AVX2 on this machine: the AVX2 stem kernel is not run");
    return;
  }
  static float input[kMaxIn];
  static float weight[kMaxWeight];
  static float bias[33];
  static float scale[33];
  static float shift[33];
  static float want[kMaxOut];
  static float got[kMaxOut];
  static float post_want[kMaxOut];
  int bad = 0;
  for (size_t i = 0; i < COUNT(kCases); ++i) {
    const stem_case_t *s = &kCases[i];
    etr_conv2d_geometry_t g = geometry(s);
    cr_assert(etr_conv_direct_takes(ETR_ISA_AVX2, &g), "case %zu declined",
              i);
    const int64_t out_stride_h = g.out_w + kOutRowGap;
    const int64_t out_stride_c = g.out_h * out_stride_h + kOutGap;
    const int64_t out_numel = s->out_channels * out_stride_c;
    cr_assert(out_numel <= kMaxOut && s->channels * g.in_stride_c <= kMaxIn);
    etr_depthwise_args_t a = {
        .geometry = &g, .input = input, .weight = weight, .bias = bias,
        .bias_stride = 1, .out = got, .out_stride_c = out_stride_c,
        .out_stride_h = out_stride_h, .out_stride_w = 1,
        .channels = s->out_channels, .multiplier = 1};
    etr_depthwise_args_t w = a;
    w.out = want;
    for (int exact = 1; exact >= 0; --exact) {
      const int64_t in_numel = s->channels * g.in_stride_c;
      // At most 147 products per output (7x7 on 3 channels): exact data
      // stays exact in fp32.
      conv_test_fill(input, in_numel, exact, (uint32_t)i);
      conv_test_fill(weight, s->out_channels * g.w_stride_oc, exact,
                     (uint32_t)i + 100);
      conv_test_fill(bias, s->out_channels, exact, (uint32_t)i + 200);
      conv_test_fill(scale, s->out_channels, false, (uint32_t)i + 300);
      conv_test_fill(shift, s->out_channels, false, (uint32_t)i + 400);
      if (exact) {
        input[in_numel / 2] = INFINITY;
        input[in_numel / 3] = NAN;
        input[in_numel / 5] = -0.0f;
        input[in_numel - g.in_stride_c / 2] = -INFINITY;
        bias[0] = -0.0f;
      }
      for (int64_t e = 0; e < out_numel; ++e) {
        got[e] = kSentinel;
        want[e] = kSentinel;
      }
      etr_conv_stem_nchw_avx2(&a);
      if (exact) {
        plain(&w);
        bad += conv_test_compare_outs(got, want, out_numel, true,
                                      "no post vs loop, case %zu", i);
      } else {
        memcpy(want, got, (size_t)out_numel * sizeof(float));
      }
      // Each post against the kernel's outs followed by the post.
      for (int kind = 0; kind < 3; ++kind) {
        const etr_conv_post_t post =
            conv_test_post(kind, scale, shift, etr_conv_post_rows_avx2);
        memcpy(post_want, want, (size_t)out_numel * sizeof(float));
        conv_test_apply_post(&post, post_want, s->out_channels, g.out_h,
                             g.out_w, out_stride_c, out_stride_h);
        for (int64_t e = 0; e < out_numel; ++e) {
          got[e] = kSentinel;
        }
        etr_conv_stem_nchw_avx2_post(&a, &post);
        bad += conv_test_compare_outs(
            got, post_want, out_numel, true, "%s, case %zu",
            exact ? "post, exact data" : "post, random data", i);
      }
    }
  }
  cr_assert_eq(bad, 0, "%d outputs differ", bad);
}

TT_TEST(diff_conv_stem_avx2, declines) {
  // 4 channels, dilation 2, rows of 7, stride 3, 8x8, 3x5, mixed strides,
  // a column stride of 2.
  etr_conv2d_geometry_t g = geometry(&(stem_case_t){4, 32, 32, 3, 2, 1, 8});
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 3, 1, 1, 8});
  cr_expect(etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g.dilation_h = g.dilation_w = 2;
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 7, 7, 3, 1, 1, 8});
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 3, 3, 1, 8});
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 8, 1, 1, 8});
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 3, 1, 1, 8});
  g.kernel_w = 5;
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 3, 1, 1, 8});
  g.stride_h = 2;
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 3, 1, 1, 8});
  g.in_stride_w = 2;
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
}

#else

TT_TEST(diff_conv_stem_avx2, not_x86) {
  cr_log_info("the AVX2 stem kernel is x86 only");
}

#endif
