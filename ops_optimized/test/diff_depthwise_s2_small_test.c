// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the small stride-2 3x3 depthwise planes of
// ops_optimized/conv/ against the reference aten::convolution.out on every
// ISA of this machine (diff.h): the 8x8 register plane of
// depthwise3x3_s2_plane_avx512.c, whose dense loop (one out channel per
// input channel, dense weights, two channels per step) and general loop
// (a channel multiplier, strided weights) are both taken, the 16-wide
// rows of depthwise3x3_s2_narrow_avx512.c (a dense unrolled loop and the
// general one) and the 32-wide rows of the plane file.
// Channel counts 1..5 and the layers' own (odd tails of the two-channel
// steps), bias or none, random data (bound tolerance, as in
// diff_conv_test.c) and exact data with NaN, inf and -0.0 inputs and a
// -0.0 bias over an all -0.0 plane (bit for bit). Then the depthwise entry
// point of each ISA (conv.h) on inputs placed at every float offset from a
// 64-byte line (the dense 8x8 loop reads planes 16, 32 or 48 bytes past a
// line as whole lines) against a plain loop, bit for bit on exact data.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

static uint64_t g_seed = 9700;

typedef struct small_case {
  int64_t channels, size, multiplier;
  bool bias;
  etr_diff_layout_t weight_layout;
} small_case_t;

// NaN, +inf, -inf and -0.0 in exact-integer data (sums of integers and
// infinities stay exact in any order), away from channel 0, which is made
// all -0.0 (with a -0.0 bias: -0.0 + -0.0 products must give the
// reference's zero sign).
static void poke_specials(etr_tensor_t *input, int64_t plane) {
  float *data = (float *)input->data;
  const int64_t numel = etr_tensor_numel(input);
  for (int64_t e = 0; e < plane; ++e) {
    data[e] = -0.0f;
  }
  if (numel > plane) {
    data[plane] = NAN;
    data[numel - 1] = -INFINITY;
    data[plane + (numel - plane) / 2] = INFINITY;
    data[plane + (numel - plane) / 3] = -0.0f;
    data[numel - plane / 2] = INFINITY;
  }
}

static int run_small(const small_case_t *p, etr_diff_fill_t fill) {
  const int64_t oc = p->channels * p->multiplier;
  const int64_t out = p->size / 2;
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::convolution.out", g_seed++,
                 "dw s2 small c%lld %lldx%lld x%lld%s w%d f%d",
                 (long long)p->channels, (long long)p->size,
                 (long long)p->size, (long long)p->multiplier,
                 p->bias ? " bias" : "", (int)p->weight_layout, (int)fill);
  etr_tensor_t *input = etr_diff_input(
      &c, ETR_FLOAT, 4, (const int64_t[]){1, p->channels, p->size, p->size},
      ETR_DIFF_CONTIGUOUS, fill);
  if (fill == ETR_FILL_EXACT_INT) {
    poke_specials(input, p->size * p->size);
  }
  etr_diff_input(&c, ETR_FLOAT, 4, (const int64_t[]){oc, 1, 3, 3},
                 p->weight_layout, fill);
  if (p->bias) {
    etr_tensor_t *bias = etr_diff_input(
        &c, ETR_FLOAT, 1, (const int64_t[]){oc}, ETR_DIFF_CONTIGUOUS, fill);
    if (fill == ETR_FILL_EXACT_INT) {
      ((float *)bias->data)[0] = -0.0f;
    }
  } else {
    etr_diff_arg(&c, tt_ev_none());
  }
  etr_diff_arg(&c, TT_EV_INTS(2, 2));
  etr_diff_arg(&c, TT_EV_INTS(1, 1));
  etr_diff_arg(&c, TT_EV_INTS(1, 1));
  etr_diff_arg(&c, tt_ev_bool(false));
  etr_diff_arg(&c, TT_EV_INTS(0, 0));
  etr_diff_arg(&c, tt_ev_int(p->channels));
  etr_diff_out(&c, ETR_FLOAT, 4, (const int64_t[]){1, oc, out, out},
               ETR_DIFF_CONTIGUOUS, 0);
  etr_diff_return(&c, 9);
  c.dtype = ETR_FLOAT;
  if (fill == ETR_FILL_RANDOM) {
    etr_diff_tolerance_bound(
        &c, etr_diff_accumulation_bound(ETR_FLOAT, 10, 1.0, 1.0) + 0x1p-24,
        2.0 * 0x1p-24);
  } else {
    etr_diff_tolerance_exact(&c);
  }
  return etr_diff_run(&c);
}

// Every channel count 1..5 and the layers' on the three kernels, bias or
// none, dense weights (the dense 8x8 and 16x16 loops) and strided ones,
// and a multiplier (the general loops).
TT_TEST(diff_depthwise_s2_small, channels_bias_loops) {
  static const int64_t kChannels[] = {1, 2, 3, 4, 5, 72, 95, 96};
  static const int64_t kSizes[] = {8, 16, 32};
  int failures = 0;
  int run = 0;
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    for (size_t i = 0; i < sizeof(kChannels) / sizeof(kChannels[0]); ++i) {
      for (int variant = 0; variant < 4; ++variant) {
        small_case_t p = {kChannels[i], kSizes[s],
                          variant == 3 && kChannels[i] < 8 ? 2 : 1,
                          variant % 2 == 1,
                          variant == 2 ? ETR_DIFF_NONCONTIGUOUS
                                       : ETR_DIFF_CONTIGUOUS};
        failures += run_small(&p, ETR_FILL_RANDOM);
        failures += run_small(&p, ETR_FILL_EXACT_INT);
        ++run;
      }
    }
  }
  cr_assert_eq(run, 96);
  cr_assert_eq(failures, 0, "%d small stride-2 depthwise cases disagree",
               failures);
}

// Stride 2, padding 1, 3x3 over `channels` planes of size x size: the sum
// from +0.0 in kernel order, the bias (if any) last, as the kernels' sums
// come out for exact data.
static void plain_depthwise_s2(const float *input, const float *weight,
                               const float *bias, int64_t channels,
                               int64_t size, float *out) {
  const int64_t out_size = size / 2;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t oh = 0; oh < out_size; ++oh) {
      for (int64_t ow = 0; ow < out_size; ++ow) {
        float sum = 0.0f;
        for (int64_t kh = 0; kh < 3; ++kh) {
          for (int64_t kw = 0; kw < 3; ++kw) {
            const int64_t ih = 2 * oh - 1 + kh;
            const int64_t iw = 2 * ow - 1 + kw;
            if (ih >= 0 && ih < size && iw >= 0 && iw < size) {
              sum += input[(c * size + ih) * size + iw] *
                     weight[c * 9 + kh * 3 + kw];
            }
          }
        }
        out[(c * out_size + oh) * out_size + ow] =
            bias != NULL ? sum + bias[c] : sum;
      }
    }
  }
}

// Every float offset 0..16 from a line, 1..5 and 8 channels, 8x8, 16x16
// and 32x32, bias (channel 0's -0.0) or none; exact data with NaN, inf
// and an all -0.0 channel 0. The floats around the input are NaN: a kernel that
// reads them shows it.
TT_TEST(diff_depthwise_s2_small, plane_offsets) {
  enum { kMaxChannels = 8, kMaxPlane = 32 * 32, kSlack = 64 };
  static _Alignas(64) float buffer[kMaxChannels * kMaxPlane + 2 * kSlack];
  static float weight[kMaxChannels * 9];
  static float bias[kMaxChannels];
  static float got[kMaxChannels * kMaxPlane / 4 + 16];
  static float want[kMaxChannels * kMaxPlane / 4];
  static const int64_t kChannels[] = {1, 2, 3, 4, 5, 8};
  for (int64_t i = 0; i < kMaxChannels * 9; ++i) {
    weight[i] = (float)((i * 31) % 9) - 4.0f;
  }
  for (int64_t i = 0; i < kMaxChannels; ++i) {
    bias[i] = i == 0 ? -0.0f : (float)i - 3.0f;
  }
  int checked = 0;
  int failures = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_depthwise_fn kernel = etr_depthwise_for((etr_isa_t)isa, false);
    for (int64_t size = 8; size <= 32; size *= 2) {
      const int64_t plane = size * size;
      const int64_t out_plane = plane / 4;
      for (size_t n = 0; n < sizeof(kChannels) / sizeof(kChannels[0]);
           ++n) {
        const int64_t channels = kChannels[n];
        for (int64_t offset = 0; offset <= 16; ++offset) {
          for (int with_bias = 0; with_bias <= 1; ++with_bias) {
            for (size_t e = 0; e < sizeof(buffer) / sizeof(buffer[0]);
                 ++e) {
              buffer[e] = NAN;
            }
            float *input = buffer + kSlack + offset;
            for (int64_t e = 0; e < channels * plane; ++e) {
              input[e] = e < plane ? -0.0f
                                   : (float)((e * 7919 + offset) % 9) - 4.0f;
            }
            if (channels > 1) {
              input[plane + 3] = NAN;
              input[channels * plane - 1] = INFINITY;
              input[plane + plane / 2] = -INFINITY;
            }
            const float *b = with_bias ? bias : NULL;
            etr_conv2d_geometry_t g = {
                .channels = 1, .in_h = size, .in_w = size,
                .out_h = size / 2, .out_w = size / 2, .kernel_h = 3,
                .kernel_w = 3, .stride_h = 2, .stride_w = 2, .pad_h = 1,
                .pad_w = 1, .dilation_h = 1, .dilation_w = 1,
                .in_stride_c = plane, .in_stride_h = size, .in_stride_w = 1,
                .w_stride_oc = 9, .w_stride_c = 9, .w_stride_h = 3,
                .w_stride_w = 1};
            for (size_t e = 0; e < sizeof(got) / sizeof(got[0]); ++e) {
              got[e] = 12345.0f;
            }
            etr_depthwise_args_t a = {
                .geometry = &g, .input = input, .weight = weight,
                .bias = b, .bias_stride = 1, .out = got,
                .out_stride_c = out_plane, .out_stride_h = size / 2,
                .out_stride_w = 1, .channels = channels, .multiplier = 1};
            kernel(&a);
            plain_depthwise_s2(input, weight, b, channels, size, want);
            for (int64_t e = 0; e < channels * out_plane + 16; ++e) {
              const float w = e < channels * out_plane ? want[e] : 12345.0f;
              const bool same = (isnan(w) && isnan(got[e])) ||
                                memcmp(&w, &got[e], sizeof w) == 0;
              if (!same) {
                ++failures;
                cr_log_error(
                    "isa %d %lldx%lld c%lld offset %lld bias %d at %lld: "
                    "%a != %a",
                    isa, (long long)size, (long long)size,
                    (long long)channels, (long long)offset, with_bias,
                    (long long)e, (double)got[e], (double)w);
                break;
              }
              ++checked;
            }
          }
        }
      }
    }
  }
  cr_assert_gt(checked, 0);
  cr_assert_eq(failures, 0, "%d offset cases disagree", failures);
}
