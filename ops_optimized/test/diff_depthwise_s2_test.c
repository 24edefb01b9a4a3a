// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the stride-2 3x3 depthwise kernels of
// ops_optimized/conv/ (depthwise3x3_s2_wide_avx512.c, rows of 33 or more
// inputs; depthwise3x3_s2_narrow_avx512.c, rows of at most 16; the
// 17..32-input row kernel and the register planes, 8x8 among them, of
// depthwise3x3_s2_plane_avx512.c; the two-rows kernel of
// depthwise3x3_plane_avx512.c for other padding) against the reference
// aten::convolution.out on every ISA of this machine (diff.h): row widths
// around the vector edges (1, 7, 8, 15..17, 31..33, 63..65, 112, 113,
// 1024, 1025), heights 1..9 odd and even, padding 0 and 1, bias or none,
// a channel multiplier, random data (bound tolerance, as in
// diff_conv_test.c) and exact data with NaN, inf and -0.0 inputs (bit for
// bit); then the fused epilogue (batch norm scale/shift and a clamp,
// etr_conv_run_fused) on the same kernels against the unfused op followed
// by the same arithmetic.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

static uint64_t g_seed = 9100;

typedef struct s2_case {
  int64_t n, channels, h, w, multiplier, pad;
  bool bias;
} s2_case_t;

static int64_t out_size(int64_t in, int64_t pad) {
  return (in + 2 * pad - 3) / 2 + 1;
}

// Puts NaN, +inf, -inf and -0.0 into exact-integer data (sums of
// integers and infinities stay exact in any order).
static void poke_specials(etr_tensor_t *input) {
  float *data = (float *)input->data;
  int64_t numel = etr_tensor_numel(input);
  data[0] = NAN;
  data[numel / 2] = INFINITY;
  data[numel - 1] = -INFINITY;
  data[(numel * 3) / 4] = INFINITY;
  data[numel / 3] = -INFINITY;
  data[numel / 5] = -0.0f;
  data[numel / 7] = NAN;
}

// The convolution's arguments after the input: weight, bias, stride 2,
// padding, dilation 1, not transposed, no output padding, groups.
static void add_arguments(etr_diff_case_t *c, const s2_case_t *p,
                          etr_diff_fill_t fill) {
  const int64_t oc = p->channels * p->multiplier;
  etr_diff_input(c, ETR_FLOAT, 4, (const int64_t[]){oc, 1, 3, 3},
                 ETR_DIFF_CONTIGUOUS, fill);
  if (p->bias) {
    etr_diff_input(c, ETR_FLOAT, 1, (const int64_t[]){oc},
                   ETR_DIFF_CONTIGUOUS, fill);
  } else {
    etr_diff_arg(c, tt_ev_none());
  }
  etr_diff_arg(c, TT_EV_INTS(2, 2));
  etr_diff_arg(c, tt_ev_int_list(2, (const int64_t[]){p->pad, p->pad}));
  etr_diff_arg(c, TT_EV_INTS(1, 1));
  etr_diff_arg(c, tt_ev_bool(false));
  etr_diff_arg(c, TT_EV_INTS(0, 0));
  etr_diff_arg(c, tt_ev_int(p->channels));
}

static int run_s2(const s2_case_t *p, etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::convolution.out", g_seed++,
                 "dw s2 in [%lld,%lld,%lld,%lld] x%lld p%lld%s f%d",
                 (long long)p->n, (long long)p->channels, (long long)p->h,
                 (long long)p->w, (long long)p->multiplier,
                 (long long)p->pad, p->bias ? " bias" : "", (int)fill);
  etr_tensor_t *input = etr_diff_input(
      &c, ETR_FLOAT, 4, (const int64_t[]){p->n, p->channels, p->h, p->w},
      ETR_DIFF_CONTIGUOUS, fill);
  if (fill == ETR_FILL_EXACT_INT) {
    poke_specials(input);
  }
  add_arguments(&c, p, fill);
  etr_diff_out(&c, ETR_FLOAT, 4,
               (const int64_t[]){p->n, p->channels * p->multiplier,
                                 out_size(p->h, p->pad),
                                 out_size(p->w, p->pad)},
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

// Widths around the vector edges of the parity split (16 outputs, 32
// inputs per block) and the kernels' bounds (8 for the 8x8 plane, 16 for
// the two-rows kernel, 17 and 32 for the row kernel, 33 for the wide one,
// which takes any width above it).
static const int64_t kWidths[] = {1,   2,   7,   8,   15,  16,   17,
                                  31,  32,  33,  34,  47,  48,   63,
                                  64,  65,  66,  95,  96,  97,   111,
                                  112, 113, 127, 128, 129, 1024, 1025};

TT_TEST(diff_depthwise_s2, row_widths_heights_padding) {
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < sizeof(kWidths) / sizeof(kWidths[0]); ++i) {
    const int64_t w = kWidths[i];
    const bool wide = w > 200;
    for (int64_t h = 1; h <= (wide ? 3 : 9); h += 1 + (h >= 4 && w % 2)) {
      for (int64_t pad = 0; pad <= 1; ++pad) {
        if (w + 2 * pad < 3 || h + 2 * pad < 3) {
          continue;
        }
        ++run;
        const bool multiplied = run % 3 == 0;
        s2_case_t p = {1 + (run % 11 == 0), multiplied ? 2 : 5, h, w,
                       multiplied ? 3 : 1, pad, run % 2 == 0};
        failures += run_s2(&p, ETR_FILL_RANDOM);
        failures += run_s2(&p, ETR_FILL_EXACT_INT);
      }
    }
  }
  cr_assert_gt(run, 250);
  cr_assert_eq(failures, 0, "%d stride-2 depthwise cases disagree",
               failures);
}

// The bench's 112x112 -> 56x56 layer and the mobilenet_v2 stride-2
// layers, random and exact data.
TT_TEST(diff_depthwise_s2, layer_shapes) {
  static const s2_case_t layers[] = {
      {1, 96, 112, 112, 1, 1, false},
      {1, 48, 32, 32, 1, 1, false},
      {1, 72, 16, 16, 1, 1, true},
      {1, 96, 8, 8, 1, 1, false},
  };
  int failures = 0;
  for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); ++i) {
    failures += run_s2(&layers[i], ETR_FILL_RANDOM);
    failures += run_s2(&layers[i], ETR_FILL_EXACT_INT);
  }
  cr_assert_eq(failures, 0, "%d layers disagree", failures);
}

// The fused epilogue on the stride-2 kernels: etr_conv_run_fused with a
// batch norm's scale and shift and a clamp to [0, 6] against
// etr_opt_convolution_out followed by the same fma and clamp, bit for bit,
// on every ISA.
TT_TEST(diff_depthwise_s2, fused_post) {
  static const s2_case_t cases[] = {
      {1, 3, 7, 112, 1, 1, true},  {1, 2, 6, 113, 3, 1, false},
      {1, 4, 5, 33, 1, 1, true},   {1, 5, 16, 16, 1, 1, false},
      {1, 6, 8, 8, 1, 1, true},    {1, 3, 9, 40, 1, 0, true},
  };
  int failures = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_isa_force((etr_isa_t)isa);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
      const s2_case_t *p = &cases[i];
      const int64_t oc = p->channels * p->multiplier;
      const int64_t oh = out_size(p->h, p->pad);
      const int64_t ow = out_size(p->w, p->pad);
      etr_diff_case_t c;
      etr_diff_begin(&c, "aten::convolution.out", g_seed++, "fused");
      etr_diff_input(&c, ETR_FLOAT, 4,
                     (const int64_t[]){p->n, p->channels, p->h, p->w},
                     ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
      add_arguments(&c, p, ETR_FILL_RANDOM);
      const int64_t sizes[4] = {p->n, oc, oh, ow};
      etr_tensor_t *plain = tt_out(ETR_FLOAT, 4, sizes, 0);
      etr_tensor_t *fused = tt_out(ETR_FLOAT, 4, sizes, 0);
      float scale[64];
      float shift[64];
      for (int64_t k = 0; k < oc; ++k) {
        scale[k] = 0.5f + 0.25f * (float)(k % 5);
        shift[k] = -0.125f * (float)(k % 3);
      }
      etr_conv_post_t post = {.scale = scale, .shift = shift, .low = 0.0f,
                              .high = 6.0f};
      post.rows = etr_conv_post_rows_for(etr_isa_active());
      post.gemm = (etr_gemm_post_t){post.scale, post.shift, post.low,
                                    post.high, etr_conv_post_gemm, &post};
      c.args[c.num_args++] = tt_ev_tensor(plain);
      c.args[c.num_args] = c.args[c.num_args - 1];  // the returned out
      ++c.num_args;
      etr_arena_t arena;
      static unsigned char buffer[1 << 20];
      etr_diag_t diag;
      etr_kernel_context_t ctx = {.diag = &diag, .temp = &arena};
      etr_arena_init(&arena, buffer, sizeof(buffer));
      cr_assert_eq(etr_opt_convolution_out(&ctx, c.args, c.num_args),
                   ETR_OK, "%s", diag.message);
      bool done = false;
      bool staged = false;
      etr_arena_init(&arena, buffer, sizeof(buffer));
      cr_assert_eq(etr_conv_run_fused(&ctx, c.args, c.num_args, fused,
                                      &post, &done, &staged),
                   ETR_OK);
      cr_assert(done, "the fused path took case %zu", i);
      const float *want = (const float *)plain->data;
      const float *got = (const float *)fused->data;
      const int64_t plane = oh * ow;
      for (int64_t e = 0; e < p->n * oc * plane; ++e) {
        const int64_t channel = e / plane % oc;
        float v = fmaf(want[e], scale[channel], shift[channel]);
        v = v < post.low ? post.low : v;
        v = v > post.high ? post.high : v;
        if (memcmp(&v, &got[e], sizeof(v)) != 0) {
          ++failures;
          cr_log_error("isa %d case %zu element %lld: %a != %a", isa, i,
                       (long long)e, (double)got[e], (double)v);
          break;
        }
      }
    }
  }
  etr_isa_reset();
  cr_assert_eq(failures, 0, "%d fused cases disagree", failures);
}
