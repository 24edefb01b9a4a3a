// SPDX-License-Identifier: Apache-2.0
//
// The pointwise NCHW kernels (conv.h, etr_conv_pointwise_args_t;
// pointwise_avx512.c, pointwise_avx2.c) at their tile edges, in two ways:
//   * called directly on every ISA that has one, against the contract
//     conv.h states: one fp32 FMA chain per output in channel order from
//     bias + 0.0 (on one pixel: 4, 2 or 1 chains by the out channels,
//     summed pairwise), then the fused post (batch-norm fma, clamp) as
//     post_scalar.c computes it. That is bit for bit on any data, NaN
//     compared as NaN. Row strides are padded past the row, the out's
//     padding and the rows past out_channels hold a canary that must
//     survive, and the post reads its channels from post_channel0;
//   * through aten::convolution.out against the reference kernel
//     (diff.h): exact small integers bit for bit with NaN and inf poked
//     into the input, random data within the accumulation bound.
// Out channels cover each tile height's edges (AVX-512: the 4x4-image
// tiles of 8, 12, 16 and 24 rows, the larger images' 6 x 4, 8 x 3, 8 x 2
// and 12 x 2 tiles, each width's edges too; AVX2: 4
// and 6 rows and their remainders; one pixel: 8 out channels per vector),
// input channels every count up to 17 and the 4- and 8-channel steps'
// edges, pixels 1..16 (one vector: a 4x4 image) and the edges of 16, 32
// and 64 (AVX2: of 8, 16 and 24, and 256), one pixel with the weight as
// columns (every vector count), images of 512 pixels or more
// with the input at each offset in a cache line, and (AVX2) inputs large
// enough to go in chunks of pixels.
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

static const float kCanary = -1234.5f;

// Deterministic values: small integers (exact sums), or fractions whose
// products and sums round (so that only the contract's order gives its
// bits) with NaN, inf and -0.0 mixed in when `specials` is set.
static float value_at(uint64_t *state, bool specials) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  uint32_t bits = (uint32_t)(*state >> 33);
  if (specials) {
    switch (bits % 23) {
      case 0:
        return NAN;
      case 1:
        return INFINITY;
      case 2:
        return -INFINITY;
      case 3:
        return -0.0f;
      default:  // 21 significant bits: products and sums round
        return (float)((int32_t)(bits % 2000001) - 1000000) / 262144.0f;
    }
  }
  return (float)((int32_t)(bits % 9) - 4);
}

// The contract's value of out[oc][p]: one chain, or on one pixel S chains
// (chain j the input channels k = j mod S) summed pairwise.
static float model_output(etr_isa_t isa, const etr_conv_pointwise_args_t *a,
                          int64_t oc, int64_t p) {
  const int chains =
      a->pixels == 1 ? etr_conv_one_pixel_chains(isa, a->out_channels) : 1;
  float chain[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  chain[0] = a->bias != NULL ? a->bias[oc * a->bias_stride] + 0.0f : 0.0f;
  for (int64_t k = 0; k < a->in_channels; ++k) {
    float *acc = &chain[k % chains];
    *acc = fmaf(a->weight[oc * a->weight_stride + k],
                a->input[k * a->input_stride + p], *acc);
  }
  float acc = chains == 4   ? (chain[0] + chain[1]) + (chain[2] + chain[3])
              : chains == 2 ? chain[0] + chain[1]
                            : chain[0];
  const etr_conv_post_t *post = a->post;
  if (post != NULL) {
    int64_t channel = a->post_channel0 + oc;
    if (post->scale != NULL) {
      acc = fmaf(acc, post->scale[channel], post->shift[channel]);
    }
    acc = acc < post->low ? post->low : acc;
    acc = acc > post->high ? post->high : acc;
  }
  return acc;
}

static bool same_float(float a, float b) {
  if (isnan(a) || isnan(b)) {
    return isnan(a) && isnan(b);
  }
  return memcmp(&a, &b, sizeof a) == 0;
}

typedef struct kernel_case {
  int64_t out_channels, in_channels, pixels;
  int bias;  // 0 none, 1 one per channel, 2 one shared (stride 0)
  int post;  // 0 none, 1 clamp, 2 batch norm and clamp
  bool specials;
  int shift;  // -1: input rows n + 3 apart; else rows a multiple of 16
              // floats apart starting `shift` floats past a cache line
  bool columns;    // the weight also as columns (etr_conv_columns_pack)
  bool dense_out;  // out rows n apart (else n + 5)
} kernel_case_t;

// Runs one case on `kernel`; returns the number of wrong floats.
static int run_kernel_case(etr_isa_t isa, etr_conv_pointwise_fn kernel,
                           const kernel_case_t *c, uint64_t seed) {
  const int64_t m = c->out_channels;
  const int64_t k = c->in_channels;
  const int64_t n = c->pixels;
  // Padded strides: a kernel that assumed dense rows reads or writes the
  // wrong elements.
  const int64_t input_stride = c->shift < 0 ? n + 3 : (n + 15) / 16 * 16;
  const int64_t weight_stride = k + 1;
  const int64_t out_stride = c->dense_out ? n : n + 5;
  const int64_t extra_rows = 2;  // canary rows past the last out channel
  // tt_alloc's payload is 16-byte aligned: round up to a line, then shift.
  const int64_t lead = c->shift < 0 ? 0 : c->shift;
  char *input_block =
      tt_alloc(sizeof(float) * (size_t)(k * input_stride + lead) + 64);
  float *input = (float *)(input_block + (64 - (uintptr_t)input_block % 64)) +
                 lead;
  float *weight = tt_alloc(sizeof(float) * (size_t)(m * weight_stride));
  float *bias = tt_alloc(sizeof(float) * (size_t)m);
  float *out = tt_alloc(sizeof(float) *
                        (size_t)((m + extra_rows) * out_stride));
  float *scale = tt_alloc(sizeof(float) * (size_t)(m + 3));
  float *shift = tt_alloc(sizeof(float) * (size_t)(m + 3));
  uint64_t state = seed;
  for (int64_t i = 0; i < k * input_stride; ++i) {
    input[i] = value_at(&state, c->specials);
  }
  for (int64_t i = 0; i < m * weight_stride; ++i) {
    weight[i] = value_at(&state, c->specials);
  }
  for (int64_t i = 0; i < m; ++i) {
    bias[i] = value_at(&state, c->specials);
  }
  for (int64_t i = 0; i < m + 3; ++i) {
    scale[i] = value_at(&state, false) / 2.0f;
    shift[i] = value_at(&state, false);
  }
  for (int64_t i = 0; i < (m + extra_rows) * out_stride; ++i) {
    out[i] = kCanary;
  }
  etr_conv_post_t post = {
      .scale = c->post == 2 ? scale : NULL,
      .shift = c->post == 2 ? shift : NULL,
      .low = c->post == 2 ? -6.0f : 0.0f,
      .high = c->post == 2 ? 6.0f : INFINITY,
  };
  etr_conv_pointwise_args_t a = {
      .input = input,
      .input_stride = input_stride,
      .weight = weight,
      .weight_stride = weight_stride,
      .bias = c->bias != 0 ? bias : NULL,
      .bias_stride = c->bias == 1 ? 1 : 0,
      .out = out,
      .out_stride = out_stride,
      .out_channels = m,
      .in_channels = k,
      .pixels = n,
      .post = c->post != 0 ? &post : NULL,
      .post_channel0 = c->post != 0 ? 3 : 0,
  };
  if (c->columns) {
    float *columns = tt_alloc(sizeof(float) *
                              (size_t)(etr_conv_columns_pitch(m) * k));
    etr_conv_columns_pack(weight, weight_stride, m, k, columns);
    a.columns = columns;
  }
  kernel(&a);
  int wrong = 0;
  for (int64_t oc = 0; oc < m + extra_rows; ++oc) {
    for (int64_t p = 0; p < out_stride; ++p) {
      float want = oc < m && p < n ? model_output(isa, &a, oc, p) : kCanary;
      float got = out[oc * out_stride + p];
      if (!same_float(got, want)) {
        if (wrong < 3) {
          cr_log_error("pointwise m %lld k %lld n %lld bias %d post %d%s: "
                       "out[%lld][%lld] = %a, want %a",
                       (long long)m, (long long)k, (long long)n, c->bias,
                       c->post, c->specials ? " specials" : "",
                       (long long)oc, (long long)p, (double)got,
                       (double)want);
        }
        ++wrong;
      }
    }
  }
  return wrong;
}

static const int64_t kOuts[] = {1,  3,  4,  5,  7,  8,  9,  11, 12, 13,
                                15, 16, 17, 20, 23, 24, 25, 28, 31, 32,
                                33, 36, 40, 47, 48, 49, 72, 144};
static const int64_t kIns[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                               12, 13, 15, 16, 17, 23, 24, 25, 32, 33, 96};
static const int64_t kPixels[] = {1,  2,  7,  15, 16, 17, 31, 32,
                                  33, 48, 63, 64, 65, 100, 129};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

TT_TEST(diff_pointwise, kernel_against_fma_chain) {
  int wrong = 0;
  int cases = 0;
  for (int i_isa = 0; i_isa < ETR_NUM_ISAS; ++i_isa) {
    const etr_isa_t isa = (etr_isa_t)i_isa;
    etr_conv_pointwise_fn kernel =
        etr_isa_available(isa) ? etr_conv_pointwise_for(isa) : NULL;
    if (kernel == NULL) {
      continue;
    }
    uint64_t seed = 77;
    for (size_t i = 0; i < COUNT(kOuts); ++i) {
      for (size_t j = 0; j < COUNT(kIns); ++j) {
        // Every (out, in) pair at 16 pixels (a 4x4 image) and at one
        // rotating pixel count, with the bias, post and data kinds
        // rotating too.
        int64_t pixels[2] = {16, kPixels[(i * 7 + j) % COUNT(kPixels)]};
        for (int t = 0; t < 2; ++t) {
          ++seed;
          kernel_case_t c = {kOuts[i], kIns[j], pixels[t],
                             (int)(seed % 3), (int)((seed / 3) % 3),
                             seed % 4 == 0, -1, false, false};
          wrong += run_kernel_case(isa, kernel, &c, seed);
          ++cases;
        }
      }
    }
    // Every pixel count of one vector, every post and bias kind.
    for (int64_t n = 1; n <= 17; ++n) {
      for (int kind = 0; kind < 9; ++kind) {
        kernel_case_t c = {16 + kind % 3 * 4, 9, n, kind % 3, kind / 3,
                           n % 2 == 0, -1, false, false};
        wrong += run_kernel_case(isa, kernel, &c, 1000 + (uint64_t)n);
        ++cases;
      }
    }
    // One pixel (AVX2: pointwise_avx2.c's one_pixel, 8 out channels per
    // vector, 1 to 4 vectors at a time): every out and in count, the
    // bias, post and data kinds rotating; the out rows are n + 5 = 6
    // floats apart (strided stores) and the input rows n + 3.
    for (size_t i = 0; i < COUNT(kOuts); ++i) {
      for (size_t j = 0; j < COUNT(kIns); ++j) {
        ++seed;
        kernel_case_t c = {kOuts[i], kIns[j], 1, (int)(seed % 3),
                           (int)((seed / 3) % 3), seed % 4 == 0, -1, false,
                           false};
        wrong += run_kernel_case(isa, kernel, &c, seed);
        ++cases;
      }
    }
    // The same with the weight also as columns, which AVX-512 and AVX2
    // read for one pixel (column_blocks: 1 to 8 vectors of 16 or 8 out
    // channels at a time), the out rows dense (one store per vector) or
    // 6 floats apart.
    if (isa == ETR_ISA_AVX512 || isa == ETR_ISA_AVX2) {
      static const int64_t wide[] = {96, 112, 120, 127, 128, 129, 130, 160};
      for (size_t i = 0; i < COUNT(kOuts) + COUNT(wide); ++i) {
        for (size_t j = 0; j < COUNT(kIns); ++j) {
          ++seed;
          kernel_case_t c = {
              i < COUNT(kOuts) ? kOuts[i] : wide[i - COUNT(kOuts)],
              kIns[j], 1, (int)(seed % 3), (int)((seed / 3) % 3),
              seed % 4 == 0, -1, true, seed % 5 < 3};
          wrong += run_kernel_case(isa, kernel, &c, seed);
          ++cases;
        }
      }
    }
    // Images of 512 pixels or more, input rows equally aligned: the pixel
    // blocks start at the input's cache line, every offset in it.
    static const int64_t large[] = {511, 512, 513, 1024, 1041};
    for (size_t l = 0; l < COUNT(large); ++l) {
      for (int shift = 0; shift < 16; shift += 1 + (int)l) {
        kernel_case_t c = {shift % 2 == 0 ? 8 : 13, 3 + shift % 4, large[l],
                           shift % 3, (shift / 3) % 3, shift % 5 == 0,
                           shift, false, false};
        wrong += run_kernel_case(isa, kernel, &c, 2000 + (uint64_t)shift);
        ++cases;
      }
    }
    // AVX-512's tiles past 16 pixels (pointwise_avx512.c, tile_shape):
    // 6 x 4, 8 x 3, 8 x 2 and 12 x 2 rows x vectors, each chosen by the
    // out and pixel counts below (6 x 4 for 18 or 72 out channels on 64
    // or 256 pixels, 8 x 3 for 64 on 144, 8 x 2 for 16 on 64, 12 x 2
    // for 9..12), the rows and pixels around their multiples: on each
    // shape the last block ends in each of its vectors with one lane,
    // some and all 16 (197..260 for 8 x 3), and its rows end short; the
    // input channels rotate.
    static const int64_t tile_outs[] = {9,  11, 12, 16, 17, 18, 23, 24,
                                        25, 30, 40, 47, 64, 72, 88};
    static const int64_t tile_pixels[] = {
        17,  32,  33,  47,  48,  49,  63,  64,  65,  95,  96,  97,  127,
        128, 129, 143, 144, 145, 191, 192, 193, 197, 208, 224, 239, 240,
        256, 260, 576};
    static const int64_t tile_ins[] = {1, 3, 8, 12, 17};
    for (size_t p = 0; p < COUNT(tile_pixels); ++p) {
      for (size_t o = 0; o < COUNT(tile_outs); ++o) {
        ++seed;
        kernel_case_t c = {tile_outs[o], tile_ins[(p + o) % COUNT(tile_ins)],
                           tile_pixels[p], (int)(seed % 3),
                           (int)((seed / 3) % 3), seed % 4 == 0, -1, false,
                           false};
        wrong += run_kernel_case(isa, kernel, &c, seed);
        ++cases;
      }
    }
    // And from 512 pixels with equally aligned input rows (the first
    // block starting at the input's cache line) on the 24-accumulator
    // tiles: 6 x 4 (48 out channels), 8 x 3 (40 on 528 pixels).
    for (int shift = 0; shift < 16; shift += 5) {
      kernel_case_t c = {shift % 2 == 0 ? 48 : 40, 5,
                         shift % 2 == 0 ? 1024 : 528, shift % 3,
                         (shift / 3) % 3, shift == 10, shift, false, false};
      wrong += run_kernel_case(isa, kernel, &c, 2500 + (uint64_t)shift);
      ++cases;
    }
    // AVX2's tiles (pointwise_avx2.c): 4 rows x 3 vectors of 8 pixels and
    // 6 x 2, the 6-row blocks on images under 256 pixels or from 32 input
    // channels; past them 4 x 3 blocks (a remainder of 1 or 2 rows joins
    // the last 6 block as 4 + 3 or 4 + 4 from 24 pixels on), then 5 x 2
    // or 1-3 x 3; the last 1-24 pixels in one tile with its last vector
    // masked. Each pixel count against every out count, the input
    // channels rotating through both sides of 32.
    static const int64_t avx2_pixels[] = {1,  7,  8,  9,  15,  16,  17,
                                          23, 24, 25, 31,  32,  33,  40,
                                          47, 48, 49, 255, 256, 257, 281};
    static const int64_t avx2_outs[] = {1, 2,  3,  4,  5,  6,  7,  8, 9,
                                        10, 11, 12, 13, 14, 17, 19, 20};
    static const int64_t avx2_ins[] = {3, 17, 32, 33};
    for (size_t p = 0; p < COUNT(avx2_pixels); ++p) {
      for (size_t o = 0; o < COUNT(avx2_outs); ++o) {
        ++seed;
        kernel_case_t c = {avx2_outs[o], avx2_ins[(p + o) % COUNT(avx2_ins)],
                           avx2_pixels[p], (int)(seed % 3),
                           (int)((seed / 3) % 3), seed % 4 == 0, -1, false,
                           false};
        wrong += run_kernel_case(isa, kernel, &c, seed);
        ++cases;
      }
    }
    // AVX2 from 512 pixels with equally aligned input rows: the first
    // tile starts at the line before the input (its lanes before the row
    // masked off; 1-15 of them, over one or both vectors of a 6 x 2 tile),
    // on both tile shapes. Inputs of 128 Ki floats or more go in chunks of
    // 16 Ki floats (a multiple of 48 pixels each): 64 x 2100 and 48 x
    // 2731 are 9 chunks each, aligned or not (-1: rows n + 3 apart).
    static const int shifts[] = {0, 1, 4, 7, 8, 9, 12, 15};
    for (size_t t = 0; t < COUNT(shifts); ++t) {
      kernel_case_t c = {t % 4 < 2 ? 14 : 11, t % 2 == 0 ? 5 : 40,
                         t % 3 == 0 ? 512 : 777, (int)(t % 3),
                         (int)((t / 2) % 3), t % 3 == 1, shifts[t], false,
                         false};
      wrong += run_kernel_case(isa, kernel, &c, 3000 + (uint64_t)t);
      ++cases;
    }
    static const kernel_case_t chunked[] = {
        {7, 64, 2100, 1, 2, false, 4, false, false},
        {13, 48, 2731, 2, 1, true, -1, false, false},
        {6, 64, 2100, 0, 2, false, 9, false, false},
    };
    for (size_t t = 0; t < COUNT(chunked); ++t) {
      wrong += run_kernel_case(isa, kernel, &chunked[t], 4000 + (uint64_t)t);
      ++cases;
    }
  }
  cr_log_info("%d pointwise kernel cases", cases);
  cr_assert(cases > 0 || !etr_isa_available(ETR_ISA_AVX2),
            "no ISA's pointwise kernel ran");
  cr_assert_eq(wrong, 0, "%d wrong floats", wrong);
}

// One pointwise convolution through the op against the reference.
static int run_op(int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc,
                  bool bias, etr_diff_fill_t fill, bool poke) {
  static uint64_t seed = 9100;
  etr_diff_case_t d;
  etr_diff_begin(&d, "aten::convolution.out", seed++,
                 "pointwise [%lld,%lld,%lld,%lld] -> %lld%s f%d%s",
                 (long long)n, (long long)c, (long long)h, (long long)w,
                 (long long)oc, bias ? " bias" : "", (int)fill,
                 poke ? " poked" : "");
  etr_tensor_t *input = etr_diff_input(&d, ETR_FLOAT, 4,
                                       (const int64_t[]){n, c, h, w},
                                       ETR_DIFF_CONTIGUOUS, fill);
  if (poke) {  // exact sums stay exact with inf and NaN in any order
    float *data = (float *)input->data;
    int64_t numel = etr_tensor_numel(input);
    data[numel / 2] = INFINITY;
    data[numel - 1] = -INFINITY;
    data[numel / 3] = NAN;
    data[numel / 5] = -0.0f;
  }
  etr_diff_input(&d, ETR_FLOAT, 4, (const int64_t[]){oc, c, 1, 1},
                 ETR_DIFF_CONTIGUOUS, fill);
  if (bias) {
    etr_diff_input(&d, ETR_FLOAT, 1, (const int64_t[]){oc},
                   ETR_DIFF_CONTIGUOUS, fill);
  } else {
    etr_diff_arg(&d, tt_ev_none());
  }
  d.layout = ETR_DIFF_CONTIGUOUS;
  d.dtype = ETR_FLOAT;
  etr_diff_arg(&d, TT_EV_INTS(1, 1));
  etr_diff_arg(&d, TT_EV_INTS(0, 0));
  etr_diff_arg(&d, TT_EV_INTS(1, 1));
  etr_diff_arg(&d, tt_ev_bool(false));
  etr_diff_arg(&d, TT_EV_INTS(0, 0));
  etr_diff_arg(&d, tt_ev_int(1));
  etr_diff_out(&d, ETR_FLOAT, 4, (const int64_t[]){n, oc, h, w},
               ETR_DIFF_CONTIGUOUS, 0);
  etr_diff_return(&d, 9);
  if (fill == ETR_FILL_RANDOM) {
    etr_diff_tolerance_bound(
        &d, etr_diff_accumulation_bound(ETR_FLOAT, c + 1, 1.0, 1.0) + 0x1p-24,
        2.0 * 0x1p-24);
  } else {
    etr_diff_tolerance_exact(&d);
  }
  return etr_diff_run(&d);
}

// The op on the tiles' shapes: 4x4 images (and smaller) with out channels
// around 8, 12, 16 and 24, 32x32 images with few out channels, and 16x16
// and 17x19 images with 33 or 40 input channels.
TT_TEST(diff_pointwise, op_tile_shapes) {
  static const int64_t outs[] = {7, 8, 9, 12, 15, 16, 17, 24, 25, 47, 48,
                                 144};
  static const int64_t ins[] = {1, 3, 8, 9, 24, 33};
  static const int64_t planes[][2] = {{4, 4}, {3, 5}, {2, 8}, {1, 1}};
  int failures = 0;
  int run = 0;
  for (size_t o = 0; o < COUNT(outs); ++o) {
    for (size_t i = 0; i < COUNT(ins); ++i) {
      const int64_t *plane = planes[run % 4];
      ++run;
      failures += run_op(1 + (run % 7 == 0), ins[i], plane[0], plane[1],
                         outs[o], run % 2 == 0, ETR_FILL_EXACT_INT, true);
      failures += run_op(1, ins[i], plane[0], plane[1], outs[o],
                         run % 2 == 1, ETR_FILL_RANDOM, false);
    }
  }
  static const int64_t small_outs[] = {1, 3, 4, 5, 8, 11};
  for (size_t o = 0; o < COUNT(small_outs); ++o) {
    failures += run_op(1, 16, 32, 32, small_outs[o], o % 2 == 0,
                       ETR_FILL_EXACT_INT, true);
    failures += run_op(1, 5, 9, 11, small_outs[o], o % 2 == 1,
                       ETR_FILL_RANDOM, false);
  }
  // AVX2's 6 x 2 blocks from 32 input channels on images of 256 pixels
  // or more, and the 4 x 3, 5 x 2 and 1-3 x 3 blocks past them.
  static const int64_t wide_outs[] = {5, 11, 13, 14, 20};
  for (size_t o = 0; o < COUNT(wide_outs); ++o) {
    failures += run_op(1, 40, 16, 16, wide_outs[o], o % 2 == 0,
                       ETR_FILL_EXACT_INT, true);
    failures += run_op(1, 33, 17, 19, wide_outs[o], o % 2 == 1,
                       ETR_FILL_RANDOM, false);
  }
  cr_assert_eq(failures, 0, "%d pointwise cases disagree", failures);
}
