// SPDX-License-Identifier: Apache-2.0
//
// The AVX-512 register-plane depthwise 3x3 kernel (stride 1, padding 1;
// ops_optimized/conv/depthwise3x3_plane_avx512.c) called directly on
// every plane it takes: rows of 2..15, heights up to 64 elements (one to
// four vectors; planes of one vector permute their rows above and below
// from the plane alone), 1..7 channels (pairs and a single), a channel
// multiplier of 1 or 2, the bias folded into the first product (present,
// -0.0, or absent: a zero bias), dense and strided weights. Exact integer
// data must match a scalar sum of the in-image taps bit for bit; NaN and
// +-inf in the input must spread as that sum spreads them. The kernel
// takes finite weights only (it multiplies the zeros around the plane
// by every tap: an inf weight would smear NaN over the image; the op
// sends padded calls with a non-finite weight elsewhere, checked here
// through the op). The out past the last plane must stay untouched.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

enum { kMaxChannels = 14, kPlane = 64, kGuard = 16 };

// The in-image taps of out pixel (oh, ow), from +0.0, bias last.
static float expected(const float *in, const float *w, int64_t w_stride_h,
                      int64_t w_stride_w, const float *bias, int64_t h,
                      int64_t width, int64_t oh, int64_t ow) {
  float sum = 0.0f;
  for (int64_t kh = 0; kh < 3; ++kh) {
    for (int64_t kw = 0; kw < 3; ++kw) {
      const int64_t ih = oh + kh - 1;
      const int64_t iw = ow + kw - 1;
      if (ih >= 0 && ih < h && iw >= 0 && iw < width) {
        sum += w[kh * w_stride_h + kw * w_stride_w] * in[ih * width + iw];
      }
    }
  }
  return bias != NULL ? sum + *bias : sum;
}

static bool same(float got, float want) {
  return got == want || (isnan(got) && isnan(want));
}

typedef struct plane_call {
  int64_t h, width, channels, multiplier;
  bool bias;
  bool strided_weight;  // taps 4 and 1 floats apart become 5 and 2
  int specials;  // 0: none, 1: NaN, inf and -0.0 in the input, 2: -0.0
                 // weights, one times an inf
} plane_call_t;

// Runs one call; returns the number of wrong floats.
static int run_call(const plane_call_t *p, uint64_t seed) {
  static float input[kMaxChannels * kPlane];
  static float weight[kMaxChannels * 16];
  static float bias[kMaxChannels];
  static float out[kMaxChannels * kPlane + kGuard];
  const int64_t pixels = p->h * p->width;
  const int64_t in_channels = p->channels;
  const int64_t out_channels = p->channels * p->multiplier;
  const int64_t w_stride_h = p->strided_weight ? 4 : 3;
  const int64_t w_stride_w = 1;
  const int64_t w_stride_oc = p->strided_weight ? 16 : 9;
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < in_channels * pixels; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    input[i] = (float)((int64_t)(state >> 60) - 8);  // -8 .. 7
  }
  for (int64_t i = 0; i < out_channels * w_stride_oc; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    weight[i] = (float)((int64_t)(state >> 61) - 4);  // -4 .. 3
  }
  for (int64_t i = 0; i < out_channels; ++i) {
    bias[i] = i % 3 == 0 ? -0.0f : (float)i - 5.0f;
  }
  if (p->specials == 1) {
    input[pixels / 2] = NAN;
    input[in_channels * pixels - 1] = INFINITY;
    input[(in_channels - 1) * pixels + p->width] = -INFINITY;
    input[0] = -0.0f;
  } else if (p->specials == 2) {  // finite weights only (see the top)
    weight[4] = -0.0f;
    weight[(out_channels - 1) * w_stride_oc] = -0.0f;  // the top-left tap
    input[(in_channels - 1) * pixels] = INFINITY;  // times it, in the image
  }
  for (int64_t i = 0; i < kMaxChannels * kPlane + kGuard; ++i) {
    out[i] = 12345.0f;
  }
  etr_conv2d_geometry_t g = {
      .channels = 1, .in_h = p->h, .in_w = p->width, .out_h = p->h,
      .out_w = p->width, .kernel_h = 3, .kernel_w = 3, .stride_h = 1,
      .stride_w = 1, .pad_h = 1, .pad_w = 1, .dilation_h = 1,
      .dilation_w = 1, .in_stride_c = pixels, .in_stride_h = p->width,
      .in_stride_w = 1, .w_stride_oc = w_stride_oc, .w_stride_c = 9,
      .w_stride_h = w_stride_h, .w_stride_w = w_stride_w};
  etr_depthwise_args_t a = {
      .geometry = &g, .input = input, .weight = weight,
      .bias = p->bias ? bias : NULL, .bias_stride = 1, .out = out,
      .out_stride_c = pixels, .out_stride_h = p->width, .out_stride_w = 1,
      .channels = out_channels, .multiplier = p->multiplier};
  // etr_depthwise_nchw_avx512 asks the plane kernel first: every plane
  // here is its (the ISA's symbols are not called by name, so that the
  // aarch64 build of these tests links).
  etr_depthwise_for(ETR_ISA_AVX512, false)(&a);
  int wrong = 0;
  for (int64_t c = 0; c < out_channels; ++c) {
    for (int64_t oh = 0; oh < p->h; ++oh) {
      for (int64_t ow = 0; ow < p->width; ++ow) {
        const float got = out[c * pixels + oh * p->width + ow];
        const float want = expected(
            input + (c / p->multiplier) * pixels, weight + c * w_stride_oc,
            w_stride_h, w_stride_w, p->bias ? bias + c : NULL, p->h,
            p->width, oh, ow);
        if (!same(got, want)) {
          if (wrong++ < 3) {
            cr_log_error("%lldx%lld c%lld x%lld%s%s s%d: channel %lld at "
                         "(%lld, %lld): %g vs %g",
                         (long long)p->h, (long long)p->width,
                         (long long)p->channels, (long long)p->multiplier,
                         p->bias ? " bias" : "",
                         p->strided_weight ? " strided" : "", p->specials,
                         (long long)c, (long long)oh, (long long)ow,
                         (double)got, (double)want);
          }
        }
      }
    }
  }
  for (int64_t i = out_channels * pixels; i < kMaxChannels * kPlane + kGuard;
       ++i) {
    if (out[i] != 12345.0f) {
      ++wrong;
      cr_log_error("%lldx%lld: wrote past the last plane at %lld",
                   (long long)p->h, (long long)p->width, (long long)i);
      break;
    }
  }
  return wrong;
}

// Every plane the kernel takes, each way of calling it.
TT_TEST(diff_depthwise_plane, every_plane_exact) {
  if (!etr_isa_available(ETR_ISA_AVX512)) {
    return;  // the kernel's ISA only
  }
  int wrong = 0;
  int calls = 0;
  for (int64_t width = 2; width <= 15; ++width) {
    for (int64_t h = 1; h * width <= kPlane; ++h) {
      for (int variant = 0; variant < 12; ++variant) {
        plane_call_t p = {
            .h = h,
            .width = width,
            .channels = 1 + (variant * 3 + h) % 7,
            .multiplier = variant % 4 == 3 ? 2 : 1,
            .bias = variant % 2 == 0,
            .strided_weight = variant % 6 == 5,
            .specials = variant / 4,
        };
        wrong += run_call(&p, (uint64_t)(calls++));
      }
    }
  }
  cr_assert_eq(wrong, 0, "%d wrong floats in %d calls", wrong, calls);
}

// The mobilenet_v2 planes (4x4 and 8x8, whole vectors) with many
// channels, even and odd, with and without bias.
TT_TEST(diff_depthwise_plane, whole_planes_many_channels) {
  if (!etr_isa_available(ETR_ISA_AVX512)) {
    return;  // the kernel's ISA only
  }
  static const int64_t shapes[][2] = {{4, 4}, {8, 8}, {2, 8}, {8, 2}};
  int wrong = 0;
  int calls = 0;
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    for (int64_t channels = 1; channels <= kMaxChannels; ++channels) {
      for (int variant = 0; variant < 6; ++variant) {
        plane_call_t p = {.h = shapes[s][0],
                          .width = shapes[s][1],
                          .channels = channels,
                          .multiplier = 1,
                          .bias = variant % 2 == 0,
                          .strided_weight = false,
                          .specials = variant / 2};
        wrong += run_call(&p, (uint64_t)(1000 + calls++));
      }
    }
  }
  cr_assert_eq(wrong, 0, "%d wrong floats in %d calls", wrong, calls);
}

// Through the op against the reference: a padded call whose weight holds
// inf or NaN must give the reference's NaN border (it leaves the plane
// kernel), with and without bias, exact data.
static int run_op(int64_t channels, int64_t h, bool bias, float special,
                  uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::convolution.out", seed,
                 "plane dw3x3 [1,%lld,%lld,%lld]%s special %g",
                 (long long)channels, (long long)h, (long long)h,
                 bias ? " bias" : "", (double)special);
  etr_diff_input(&c, ETR_FLOAT, 4, (const int64_t[]){1, channels, h, h},
                 ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT);
  etr_tensor_t *w =
      etr_diff_input(&c, ETR_FLOAT, 4, (const int64_t[]){channels, 1, 3, 3},
                     ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT);
  if (special != 0.0f) {
    ((float *)w->data)[9 * (channels / 2)] = special;
  }
  if (bias) {
    etr_diff_input(&c, ETR_FLOAT, 1, (const int64_t[]){channels},
                   ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT);
  } else {
    etr_diff_arg(&c, tt_ev_none());
  }
  c.dtype = ETR_FLOAT;
  etr_diff_arg(&c, TT_EV_INTS(1, 1));
  etr_diff_arg(&c, TT_EV_INTS(1, 1));
  etr_diff_arg(&c, TT_EV_INTS(1, 1));
  etr_diff_arg(&c, tt_ev_bool(false));
  etr_diff_arg(&c, TT_EV_INTS(0, 0));
  etr_diff_arg(&c, tt_ev_int(channels));
  etr_diff_out(&c, ETR_FLOAT, 4, (const int64_t[]){1, channels, h, h},
               ETR_DIFF_CONTIGUOUS, 0);
  etr_diff_return(&c, 9);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_depthwise_plane, op_nonfinite_weights) {
  static const float specials[] = {0.0f, INFINITY, -INFINITY, NAN};
  int failures = 0;
  uint64_t seed = 93000;
  for (int64_t h = 4; h <= 8; h += 4) {
    for (size_t s = 0; s < sizeof(specials) / sizeof(specials[0]); ++s) {
      failures += run_op(h == 4 ? 144 : 96, h, s % 2 == 0, specials[s],
                         seed++);
      failures += run_op(3, h, s % 2 == 1, specials[s], seed++);
    }
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

// The padding-tap weight scan (conv.h) from each of the 16 float offsets
// of a 64-byte line (its masked head, aligned blocks of 64 and tail):
// counts 0..200 with one inf or NaN at every position, and NaN just
// before the start and just past the end, which must not be read.
TT_TEST(diff_depthwise_plane, nonfinite_scan_offsets) {
  static _Alignas(64) float buffer[16 + 200 + 16];
  const float specials[] = {INFINITY, -INFINITY, NAN, -NAN};
  int checked = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    etr_conv_nonfinite_fn scan =
        etr_isa_available((etr_isa_t)isa)
            ? etr_conv_any_nonfinite_for((etr_isa_t)isa)
            : NULL;
    if (scan == NULL) {
      continue;
    }
    for (int64_t offset = 1; offset <= 16; ++offset) {
      float *data = buffer + offset;
      for (int64_t count = 0; count <= 200; ++count) {
        for (int64_t i = 0; i < 16 + 200 + 16; ++i) {
          buffer[i] = NAN;
        }
        for (int64_t i = 0; i < count; ++i) {
          data[i] = i % 3 == 0 ? -0x1.fffffep127f : (float)i;
        }
        cr_expect(!scan(data, count), "offset %lld count %lld: finite",
                  (long long)offset, (long long)count);
        for (int64_t at = 0; at < count; ++at) {
          const float kept = data[at];
          data[at] = specials[(count + at) % 4];
          cr_expect(scan(data, count), "offset %lld count %lld at %lld",
                    (long long)offset, (long long)count, (long long)at);
          data[at] = kept;
          ++checked;
        }
      }
    }
  }
  if (etr_isa_available(ETR_ISA_AVX512)) {
    cr_assert_gt(checked, 0);
  }
}

// Vouched calls through the op with a plan memo (the weight's element
// count and density are kept there, the scan is still made on every
// call): a weight that turns non-finite between calls, first, in the
// middle or last of the weight, still sends the padded 4x4 layer to the
// GEMM, whose out the reference's bits match (NaN where it has NaN).
TT_TEST(diff_depthwise_plane, vouched_calls_scan_every_weight) {
  enum { kChannels = 21 };
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, 4,
                              (const int64_t[]){1, kChannels, 4, 4}, NULL);
  etr_tensor_t *w = tt_tensor(ETR_FLOAT, 4,
                              (const int64_t[]){kChannels, 1, 3, 3}, NULL);
  etr_tensor_t *out =
      tt_out(ETR_FLOAT, 4, (const int64_t[]){1, kChannels, 4, 4}, 0);
  etr_tensor_t *want =
      tt_out(ETR_FLOAT, 4, (const int64_t[]){1, kChannels, 4, 4}, 0);
  for (int64_t i = 0; i < kChannels * 16; ++i) {
    ((float *)x->data)[i] = (float)(i * 5 % 11) - 5.0f;
  }
  for (int64_t i = 0; i < kChannels * 9; ++i) {
    ((float *)w->data)[i] = (float)(i * 3 % 7) - 3.0f;
  }
  etr_evalue_t *args[11] = {tt_ev_tensor(x),     tt_ev_tensor(w),
                            tt_ev_none(),        TT_EV_INTS(1, 1),
                            TT_EV_INTS(1, 1),    TT_EV_INTS(1, 1),
                            tt_ev_bool(false),   TT_EV_INTS(0, 0),
                            tt_ev_int(kChannels), tt_ev_tensor(out),
                            NULL};
  args[10] = args[9];
  etr_evalue_t *ref_args[11];
  memcpy(ref_args, args, sizeof(args));
  ref_args[9] = ref_args[10] = tt_ev_tensor(want);
  _Alignas(16) unsigned char memo[ETR_KERNEL_MEMO_BYTES] = {0};
  const int64_t positions[] = {-1, 0, kChannels * 9 / 2, kChannels * 9 - 1};
  for (size_t p = 0; p < sizeof(positions) / sizeof(positions[0]); ++p) {
    if (positions[p] >= 0) {
      ((float *)w->data)[positions[p]] = p % 2 == 0 ? NAN : -INFINITY;
    }
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_kernel_context_t ref_ctx = {.diag = &diag};
    cr_assert_eq(etr_ref_convolution_out(&ref_ctx, ref_args, 11), ETR_OK);
    etr_kernel_context_t ctx = {
        .diag = &diag, .args_checked = p > 0, .memo = memo};
    cr_assert_eq(etr_opt_convolution_out(&ctx, args, 11), ETR_OK, "%s",
                 diag.message);
    int nans = 0;
    for (int64_t i = 0; i < kChannels * 16; ++i) {
      const float got = ((const float *)out->data)[i];
      const float expect = ((const float *)want->data)[i];
      nans += isnan(expect);
      cr_assert(isnan(expect) ? isnan(got)
                              : memcmp(&got, &expect, sizeof got) == 0,
                "weight %lld non-finite: element %lld is %g, the "
                "reference's %g",
                (long long)positions[p], (long long)i, (double)got,
                (double)expect);
    }
    cr_assert_eq(nans > 0, positions[p] >= 0, "weight %lld: %d NaN",
                 (long long)positions[p], nans);
    if (positions[p] >= 0) {
      ((float *)w->data)[positions[p]] = 1.0f;
    }
  }
}
