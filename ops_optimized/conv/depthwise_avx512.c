// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution, AVX-512 (conv.h).
//
// NCHW: the output plane is taken flat, 16 pixels per vector whatever the
// row width (4 x 4 planes fill a whole vector), four channels at a time
// (four independent FMA chains sharing the lane masks). Each tap's lanes
// are those whose input pixel is inside the image, and the FMA is masked
// to them, so taps in the padding are skipped as in the reference. With
// stride 1 and rows as wide as the output's, a tap is a constant shift of
// the flat input plane: one masked load per channel (when the shift would
// start before the plane, a load of the plane's start moved up into its
// lanes by a permute); stride 2 (unit column stride) loads each row
// segment of the block with two masked loads and a permute picking every
// other element; other geometries gather. The out
// plane must be dense (the op checks), indices fit 32 bits (checked too).
// NHWC: 16 channels of four pixels at a time (four chains sharing each
// weight vector), taps outside the image skipped per pixel; the channels'
// weights for every tap are gathered once per channel block into a stack
// table (at most 64 taps: the op checks).
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define MAX_TAPS 64


#define CHANNELS(X) X(0) X(1) X(2) X(3)

// Channel c (of the four) at channel oc0 + c, or the last one past the end.
#define SETUP(c)                                                           \
  const int64_t channel##c =                                               \
      oc0 + (c) < args->channels ? oc0 + (c) : args->channels - 1;         \
  const float *in##c = args->input + channel##c / args->multiplier *       \
                                         g->in_stride_c;                   \
  const float *w##c = args->weight + channel##c * g->w_stride_oc;

#define ZERO(c) __m512 acc##c = _mm512_setzero_ps();

#define TAP_LOAD(c)                                                        \
  acc##c = _mm512_mask3_fmadd_ps(                                          \
      _mm512_set1_ps(w##c[tap]),                                           \
      _mm512_maskz_loadu_ps(valid, in##c + p0 + shift), acc##c, valid);

// The start of the shifted window lies before the plane: load the plane's
// first 16 pixels and move them up into their lanes.
#define TAP_RAISE(c)                                                       \
  acc##c = _mm512_mask3_fmadd_ps(                                          \
      _mm512_set1_ps(w##c[tap]),                                           \
      _mm512_maskz_permutexvar_ps(valid, raise,                            \
                                  _mm512_maskz_loadu_ps(source, in##c)),   \
      acc##c, valid);

// Stride 2: each row segment of the block is two loads of the input row
// and a permute of their even (or odd) elements into the segment's lanes.
#define SEGMENT_LOAD(c)                                                    \
  {                                                                        \
    const float *from = in##c + offset;                                    \
    __m512 high = count > 16 ? _mm512_maskz_loadu_ps(                      \
                                   first_lanes(count - 16), from + 16)     \
                             : _mm512_setzero_ps();                        \
    x##c = _mm512_mask_mov_ps(                                             \
        x##c, part,                                                        \
        _mm512_permutex2var_ps(                                            \
            _mm512_maskz_loadu_ps(first_lanes(count), from), pick, high)); \
  }

#define ZERO_X(c) __m512 x##c = _mm512_setzero_ps();

#define TAP_X(c)                                                           \
  acc##c = _mm512_mask3_fmadd_ps(_mm512_set1_ps(w##c[tap]), x##c, acc##c,  \
                                 valid);

#define TAP_GATHER(c)                                                      \
  acc##c = _mm512_mask3_fmadd_ps(                                          \
      _mm512_set1_ps(w##c[tap]),                                           \
      _mm512_mask_i32gather_ps(_mm512_setzero_ps(), valid, index, in##c,   \
                               4),                                         \
      acc##c, valid);

#define STORE(c)                                                           \
  if (oc0 + (c) < args->channels) {                                        \
    __m512 v = acc##c;                                                     \
    if (args->bias != NULL) {                                              \
      v = _mm512_add_ps(                                                   \
          v, _mm512_set1_ps(args->bias[channel##c * args->bias_stride]));  \
    }                                                                      \
    _mm512_mask_storeu_ps(                                                 \
        args->out + channel##c * args->out_stride_c + p0, lanes, v);       \
  }

#define CHANNELS8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

// The stride-1 case whose taps are constant shifts of the flat plane
// (rows of in and out equally wide, at most 16 kernel columns): eight
// channels at a time, column masks per kw computed once per block, no
// multiplications per tap.
static void nchw_shifted(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t pixels = g->out_h * g->out_w;
  for (int64_t oc0 = 0; oc0 < args->channels; oc0 += 8) {
    CHANNELS8(SETUP)
    for (int64_t p0 = 0; p0 < pixels; p0 += 16) {
      __mmask16 lanes = lanes_between(0, pixels - p0);
      __m512i oh;
      __m512i ow;
      lane_coordinates(p0, g->out_w, &oh, &ow);
      __mmask16 columns[16];
      for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
        int64_t dw = kw * g->dilation_w - g->pad_w;
        columns[kw] = inside(
            lanes, _mm512_add_epi32(ow, _mm512_set1_epi32((int32_t)dw)),
            g->in_w);
      }
      CHANNELS8(ZERO)
      for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
        int64_t dh = kh * g->dilation_h - g->pad_h;
        __mmask16 rows = inside(
            lanes, _mm512_add_epi32(oh, _mm512_set1_epi32((int32_t)dh)),
            g->in_h);
        if (rows == 0) {
          continue;
        }
        for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
          __mmask16 valid = rows & columns[kw];
          if (valid == 0) {
            continue;
          }
          int64_t dw = kw * g->dilation_w - g->pad_w;
          int64_t tap = kh * g->w_stride_h + kw * g->w_stride_w;
          int64_t shift = dh * g->in_w + dw;
          if (p0 + shift >= 0) {
            CHANNELS8(TAP_LOAD)
          } else {  // valid lanes j have p0 + shift + j >= 0
            int64_t start = p0 + shift;
            __mmask16 source = (__mmask16)(valid >> -start);
            __m512i raise = _mm512_add_epi32(
                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                  13, 14, 15),
                _mm512_set1_epi32((int32_t)start));
            CHANNELS8(TAP_RAISE)
          }
        }
      }
      CHANNELS8(STORE)
    }
  }
}

// Stride-2 reads of one row segment for channel c (see nchw_paired).
#define PAIR_LOAD(c)                                                       \
  {                                                                        \
    const float *from = in##c + offset;                                    \
    __m512 high = r->high != 0 ? _mm512_maskz_loadu_ps(r->high, from + 16) \
                               : _mm512_setzero_ps();                      \
    x##c = _mm512_mask_mov_ps(                                             \
        x##c, part,                                                        \
        _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(r->low, from),        \
                               r->pick, high));                            \
  }

// One kernel column's reads of one row segment: lanes `part` take every
// other input from column offset `column` on (two masked loads, `pick`).
typedef struct pair_read {
  __mmask16 part;
  __mmask16 low;
  __mmask16 high;
  int64_t column;
  __m512i pick;
} pair_read_t;

// Stride 2 along rows of unit stride (at most 16 kernel columns; rows of at
// least 4 outputs, so a 16-pixel block has at most 5 row segments): eight
// channels at a time; per block the column reads of every kw and segment are
// worked out once.
static void nchw_paired(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t pixels = g->out_h * g->out_w;
  const __m512i twice_iota = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16,
                                               18, 20, 22, 24, 26, 28, 30);
  int64_t first[16];
  int64_t end[16];
  for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
    etr_conv_valid_range(g->out_w, g->in_w, g->stride_w, g->pad_w,
                         kw * g->dilation_w, &first[kw], &end[kw]);
  }
  for (int64_t oc0 = 0; oc0 < args->channels; oc0 += 8) {
    CHANNELS8(SETUP)
    for (int64_t p0 = 0; p0 < pixels; p0 += 16) {
      __mmask16 lanes = lanes_between(0, pixels - p0);
      int64_t segment_row[5];
      pair_read_t reads[16][5];
      int segments = 0;
      for (int64_t lane = 0, q = p0; q < pixels && lane < 16; ++segments) {
        int64_t column = q % g->out_w;  // of the segment's first lane
        int64_t run = g->out_w - column < 16 - lane ? g->out_w - column
                                                    : 16 - lane;
        segment_row[segments] = q / g->out_w;
        __mmask16 own = lanes & lanes_between(lane, lane + run);
        for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
          pair_read_t *r = &reads[kw][segments];
          // Lane j of the segment has output column column + j - lane.
          r->part = own & lanes_between(first[kw] - column + lane,
                                        end[kw] - column + lane);
          if (r->part == 0) {
            continue;
          }
          int lo = __builtin_ctz(r->part);
          int hi = 32 - __builtin_clz((unsigned)r->part);
          int64_t inputs = 2 * (hi - 1 - lo) + 1;
          r->low = first_lanes(inputs);
          r->high = first_lanes(inputs - 16);
          r->column = (column + lo - lane) * 2 + kw * g->dilation_w -
                      g->pad_w;
          r->pick = _mm512_sub_epi32(twice_iota, _mm512_set1_epi32(2 * lo));
        }
        lane += run;
        q += run;
      }
      CHANNELS8(ZERO)
      for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
        int64_t dh = kh * g->dilation_h - g->pad_h;
        for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
          int64_t tap = kh * g->w_stride_h + kw * g->w_stride_w;
          __mmask16 valid = 0;
          CHANNELS8(ZERO_X)
          for (int sg = 0; sg < segments; ++sg) {
            const pair_read_t *r = &reads[kw][sg];
            int64_t ih = segment_row[sg] * g->stride_h + dh;
            __mmask16 part = r->part;
            if (part == 0 || ih < 0 || ih >= g->in_h) {
              continue;
            }
            valid |= part;
            int64_t offset = ih * g->in_stride_h + r->column;
            CHANNELS8(PAIR_LOAD)
          }
          if (valid != 0) {
            CHANNELS8(TAP_X)
          }
        }
      }
      CHANNELS8(STORE)
    }
  }
}

// Any other geometry: per block of 16 output pixels, the taps as
// gathers, shifted loads or row segments.
static void nchw_general(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t pixels = g->out_h * g->out_w;
  const bool shifted = g->stride_h == 1 && g->stride_w == 1 &&
                       g->in_w == g->out_w && g->in_stride_w == 1 &&
                       g->in_stride_h == g->in_w;
  const __m512i stride_h = _mm512_set1_epi32((int32_t)g->stride_h);
  const __m512i stride_w = _mm512_set1_epi32((int32_t)g->stride_w);
  const __m512i in_stride_h = _mm512_set1_epi32((int32_t)g->in_stride_h);
  const __m512i in_stride_w = _mm512_set1_epi32((int32_t)g->in_stride_w);
  // Stride 2 along rows of unit stride: permutes of row loads, by segment.
  const bool paired = g->stride_w == 2 && g->in_stride_w == 1;
  const __m512i twice_iota = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16,
                                               18, 20, 22, 24, 26, 28, 30);
  for (int64_t oc0 = 0; oc0 < args->channels; oc0 += 4) {
    CHANNELS(SETUP)
    for (int64_t p0 = 0; p0 < pixels; p0 += 16) {
      __mmask16 lanes = lanes_between(0, pixels - p0);
      __m512i oh;
      __m512i ow;
      lane_coordinates(p0, g->out_w, &oh, &ow);
      // The block's row segments: lanes, output row, column of lane 0.
      __mmask16 segment_lanes[16];
      int64_t segment_row[16];
      int64_t segment_column[16];
      int segments = 0;
      for (int64_t lane = 0, p = p0; paired && p < pixels && lane < 16;) {
        int64_t column = p % g->out_w;
        int64_t run = g->out_w - column < 16 - lane ? g->out_w - column
                                                    : 16 - lane;
        segment_lanes[segments] = lanes & lanes_between(lane, lane + run);
        segment_row[segments] = p / g->out_w;
        segment_column[segments] = column - lane;
        ++segments;
        lane += run;
        p += run;
      }
      CHANNELS(ZERO)
      for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
        int64_t dh = kh * g->dilation_h - g->pad_h;
        __m512i ih = _mm512_add_epi32(_mm512_mullo_epi32(oh, stride_h),
                                      _mm512_set1_epi32((int32_t)dh));
        __mmask16 rows = inside(lanes, ih, g->in_h);
        if (rows == 0) {
          continue;
        }
        __m512i row_index = _mm512_mullo_epi32(ih, in_stride_h);
        for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
          int64_t dw = kw * g->dilation_w - g->pad_w;
          __m512i iw = _mm512_add_epi32(_mm512_mullo_epi32(ow, stride_w),
                                        _mm512_set1_epi32((int32_t)dw));
          __mmask16 valid = inside(rows, iw, g->in_w);
          if (valid == 0) {
            continue;
          }
          int64_t tap = kh * g->w_stride_h + kw * g->w_stride_w;
          int64_t shift = dh * g->in_w + dw;
          if (shifted && p0 + shift >= 0) {
            CHANNELS(TAP_LOAD)
          } else if (shifted) {  // valid lanes j have p0 + shift + j >= 0
            int64_t start = p0 + shift;
            __mmask16 source = (__mmask16)(valid >> -start);
            __m512i raise = _mm512_add_epi32(
                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                  13, 14, 15),
                _mm512_set1_epi32((int32_t)start));
            CHANNELS(TAP_RAISE)
          } else if (paired) {
            CHANNELS(ZERO_X)
            for (int sg = 0; sg < segments; ++sg) {
              __mmask16 part = valid & segment_lanes[sg];
              if (part == 0) {
                continue;
              }
              int lo = __builtin_ctz(part);
              int hi = 32 - __builtin_clz((unsigned)part);
              int64_t ih_row = segment_row[sg] * g->stride_h + dh;
              int64_t offset = ih_row * g->in_stride_h +
                               (segment_column[sg] + lo) * 2 + dw;
              int64_t count = 2 * (hi - 1 - lo) + 1;
              __m512i pick = _mm512_sub_epi32(twice_iota,
                                              _mm512_set1_epi32(2 * lo));
              CHANNELS(SEGMENT_LOAD)
            }
            CHANNELS(TAP_X)
          } else {
            __m512i index = _mm512_add_epi32(
                row_index, _mm512_mullo_epi32(iw, in_stride_w));
            CHANNELS(TAP_GATHER)
          }
        }
      }
      CHANNELS(STORE)
    }
  }
}


// The kernel etr_depthwise_nchw_avx512 runs for `args` (its geometry,
// channels and out layout).
static etr_depthwise_fn nchw_kernel(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  // Whole vectors of channels for depthwise_channels_avx512.c.
  const bool channels_fit = args->multiplier == 1 && args->channels >= 16 &&
                            args->out_stride_w == 1;
  // 3x3: stride-1 planes of at most 64 elements held in registers
  // (depthwise3x3_plane_avx512.c), stride-2 padding-1 planes of even
  // sizes split by parity (depthwise3x3_s2_plane_avx512.c), stride-1
  // padding-1 rows of 8..16 one vector each
  // (depthwise3x3_row_vector_avx512.c) and stride-2
  // rows of 17..32 inputs split by parity (the s2 plane file) and of 33
  // or more (depthwise3x3_s2_wide_avx512.c), other planes
  // of at most 64 inputs and 16 outputs in registers, stride 2 to rows of
  // at most 8 two rows per vector (padding 1: split by parity,
  // depthwise3x3_s2_narrow_avx512.c; else the plane file), small stride-1
  // planes taken flat, stride-1 padding-1 rows wider than 16 row by row
  // (depthwise3x3_s1_rows_avx512.c), then rows of 8 or more outputs:
  // weights in registers, no masks or index arithmetic per tap
  // (depthwise3x3_avx512.c).
  if (etr_depthwise3x3_plane_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_plane_nchw_avx512;
  }
  if (etr_depthwise3x3_s2_plane_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_s2_plane_nchw_avx512;
  }
  if (etr_depthwise3x3_row_vector_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_row_vector_nchw_avx512;
  }
  if (etr_depthwise3x3_s2_row_vector_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_s2_row_vector_nchw_avx512;
  }
  if (etr_depthwise3x3_s2_wide_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_s2_wide_nchw_avx512;
  }
  if (etr_depthwise3x3_tiny_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_tiny_nchw_avx512;
  }
  if (etr_depthwise3x3_s2_narrow_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_s2_narrow_nchw_avx512;
  }
  if (etr_depthwise3x3_s2_rows_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_s2_rows_nchw_avx512;
  }
  if (etr_depthwise3x3_small_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_small_nchw_avx512;
  }
  if (etr_depthwise3x3_s1_rows_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_s1_rows_nchw_avx512;
  }
  if (etr_depthwise3x3_nchw_avx512_applies(g)) {
    return etr_depthwise3x3_nchw_avx512;
  }
  // 5x5 stride-2 padding-2 planes of at most 64 elements, one vector of
  // outputs, split by parity (depthwise5x5_s2_plane_avx512.c;
  // conv_kernel_bench on Zen 4, paired: 96x8x8 1.51x the 16-channel
  // planes below, 96x6x6 2.59x and 96x4x4 1.60x the other kernels).
  if (etr_depthwise5x5_s2_plane_nchw_avx512_applies(g)) {
    return etr_depthwise5x5_s2_plane_nchw_avx512;
  }
  // 5x5 planes of 16 outputs whose shape has a compiled kernel (4x4 at
  // stride 1), 16 channels a vector (depthwise_channel_planes_avx512.c;
  // conv_kernel_bench on Zen 4: 120x4x4 1.74x the tiny kernel below).
  if (channels_fit && args->out_stride_h == g->out_w &&
      etr_depthwise_channel_planes_nchw_avx512_applies(g)) {
    return etr_depthwise_channel_planes_nchw_avx512;
  }
  // 5x5 stride-1 padding-2 square planes of 12 to 16: a vector per out
  // row, all rows at once (depthwise5x5_same_avx512.c; paired
  // conv_kernel_bench rounds on the Intel Xeon against the 16-channel
  // kernel below: 672x14x14 1.08-1.15x, 256x16x16 1.10-1.20x, 320x12x12
  // 1.10-1.26x, 8x13x13 1.19-1.43x).
  if (etr_depthwise5x5_same_nchw_avx512_applies(g)) {
    return etr_depthwise5x5_same_nchw_avx512;
  }
  // 5x5 stride 2 on rows of 17 or more inputs: row by row, split by
  // column parity (depthwise5x5_s2_wide_avx512.c; conv_kernel_bench on
  // Zen 4: 72x56x56 53 -> 64 GFLOP/s against the channel vectors below,
  // 82 with both blocks of a row of at most 64 inputs at once).
  if (etr_depthwise5x5_s2_wide_nchw_avx512_applies(g)) {
    return etr_depthwise5x5_s2_wide_nchw_avx512;
  }
  // Other kernels: 5x5 and 7x7 with out rows of 7 or more on at least
  // 16 channels, 16 channels a vector (depthwise_channels_avx512.c: the
  // cells of a small plane, or a ring of rows), except 5x5 at stride 1
  // on rows of 17 to 47 where bands take the plane: their whole vectors
  // of out columns beat the ring there (paired conv_kernel_bench rounds,
  // Intel Xeon: 0.89x on 64x32x32, 0.95-0.99x on 120 and 240x28x28;
  // 1.07x on 32x56x56, 7x7 1.07-1.15x, 5x5 stride 2 1.02-1.19x); at
  // stride 1 on planes of more than 16 outputs: 5 or 7
  // rows in bands of out rows (depthwise_bands_avx512.c) where rows fill
  // at least half a vector, else shifted rows of one zero-padded plane
  // (depthwise_shifted_avx512.c); planes of at most 16 outputs from at
  // most 64 inputs: one vector, each tap a permutation of the plane in
  // registers (depthwise_tiny_avx512.c); other small planes (5x5, 7x7 at
  // stride 2): from zero-padded phase planes (depthwise_padded_avx512.c).
  const bool bands_first = g->kernel_h == 5 && g->stride_h == 1 &&
                           g->out_w > 16 && g->out_w < 48 &&
                           etr_depthwise_bands_nchw_avx512_applies(g);
  if (channels_fit && !bands_first &&
      etr_depthwise_channels_nchw_avx512_applies(g)) {
    return etr_depthwise_channels_nchw_avx512;
  }
  if (etr_depthwise_bands_nchw_avx512_applies(g)) {
    return etr_depthwise_bands_nchw_avx512;
  }
  if (etr_depthwise_shifted_nchw_avx512_applies(g)) {
    return etr_depthwise_shifted_nchw_avx512;
  }
  if (etr_depthwise_tiny_nchw_avx512_applies(g)) {
    return etr_depthwise_tiny_nchw_avx512;
  }
  if (etr_depthwise_padded_nchw_avx512_applies(g)) {
    return etr_depthwise_padded_nchw_avx512;
  }
  // Stride 1 with out and in rows of one width: every tap is one constant
  // shift of the flattened plane.
  const bool shifted = g->stride_h == 1 && g->stride_w == 1 &&
                       g->in_w == g->out_w && g->in_stride_w == 1 &&
                       g->in_stride_h == g->in_w;
  if (shifted && g->kernel_w <= 16) {
    return nchw_shifted;
  }
  // Stride 2 by row segments: at most 5 per 16-pixel block.
  if (g->stride_w == 2 && g->in_stride_w == 1 && g->kernel_w <= 16 &&
      g->out_w >= 4) {
    return nchw_paired;
  }
  return nchw_general;
}

void etr_depthwise_nchw_avx512(const etr_depthwise_args_t *args) {
  nchw_kernel(args)(args);
}

etr_depthwise_fn etr_depthwise_nchw_avx512_kernel(
    const etr_depthwise_args_t *args) {
  return nchw_kernel(args);
}

bool etr_depthwise_nchw_avx512_reads_taps(const etr_depthwise_args_t *args) {
  const etr_depthwise_fn kernel = nchw_kernel(args);
  return kernel == etr_depthwise_channel_planes_nchw_avx512 ||
         kernel == etr_depthwise_channels_nchw_avx512;
}

void etr_depthwise_nhwc_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  int64_t taps = g->kernel_h * g->kernel_w;
  _Alignas(64) float weights[MAX_TAPS * 16];
  _Alignas(64) float biases[16];
  for (int64_t c0 = 0; c0 < args->channels; c0 += 16) {
    int64_t count = args->channels - c0 < 16 ? args->channels - c0 : 16;
    __mmask16 lanes = lanes_between(0, count);
    for (int64_t t = 0; t < taps && t < MAX_TAPS; ++t) {
      int64_t offset = t / g->kernel_w * g->w_stride_h +
                       t % g->kernel_w * g->w_stride_w;
      for (int64_t j = 0; j < 16; ++j) {
        weights[t * 16 + j] =
            j < count ? args->weight[(c0 + j) * g->w_stride_oc + offset]
                      : 0.0f;
      }
    }
    for (int64_t j = 0; j < 16; ++j) {
      biases[j] = args->bias != NULL && j < count
                      ? args->bias[(c0 + j) * args->bias_stride]
                      : 0.0f;
    }
    const __m512 bias = _mm512_load_ps(biases);
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      // Four pixels of the row at a time: four independent sums.
      for (int64_t ow0 = 0; ow0 < g->out_w; ow0 += 4) {
        int64_t n = g->out_w - ow0 < 4 ? g->out_w - ow0 : 4;
        __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(),
                         _mm512_setzero_ps(), _mm512_setzero_ps()};
        for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
          int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
          if (ih < 0 || ih >= g->in_h) {
            continue;
          }
          const float *row = args->input + ih * g->in_stride_h + c0;
          for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
            const __m512 wv =
                _mm512_load_ps(weights + (kh * g->kernel_w + kw) * 16);
            int64_t iw0 = ow0 * g->stride_w - g->pad_w + kw * g->dilation_w;
#pragma GCC unroll 4
            for (int64_t j = 0; j < 4; ++j) {
              int64_t iw = iw0 + j * g->stride_w;
              if (j < n && iw >= 0 && iw < g->in_w) {
                acc[j] = _mm512_fmadd_ps(
                    wv, _mm512_maskz_loadu_ps(lanes, row + iw * g->in_stride_w),
                    acc[j]);
              }
            }
          }
        }
        float *pixel = args->out + oh * args->out_stride_h + c0;
        for (int64_t j = 0; j < n; ++j) {
          __m512 v = args->bias != NULL ? _mm512_add_ps(acc[j], bias) : acc[j];
          _mm512_mask_storeu_ps(pixel + (ow0 + j) * args->out_stride_w, lanes,
                                v);
        }
      }
    }
  }
}

// |v| >= inf as unsigned bits (the sign cleared) for some v: four running
// maxima, so the loop runs at the loads' rate (1296 weights of a 144
// channel layer in about 15 ns; the op's portable loop took 60). The
// loads start at a 64-byte boundary after a masked head: weights 16 bytes
// aligned split every load across two cache lines, which took 1728
// floats from 15 ns to 27.
bool etr_conv_any_nonfinite_avx512(const float *data, int64_t count) {
  const __m512i magnitude = _mm512_set1_epi32(0x7fffffff);
  __m512i top[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(),
                    _mm512_setzero_si512(), _mm512_setzero_si512()};
  // Floats before the first 64-byte boundary (0 when data is on one; a
  // float pointer is 4-byte aligned).
  int64_t i = (int64_t)((64 - ((uintptr_t)data & 63)) & 63) / 4;
  i = i < count ? i : count;
  top[1] = _mm512_maskz_and_epi32(
      first_lanes(i), _mm512_maskz_loadu_epi32(first_lanes(i), data),
      magnitude);
  for (; i + 64 <= count; i += 64) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      top[k] = _mm512_max_epu32(
          top[k], _mm512_and_si512(_mm512_load_si512(data + i + 16 * k),
                                   magnitude));
    }
  }
  for (; i < count; i += 16) {
    const __mmask16 lanes = first_lanes(count - i);
    top[0] = _mm512_max_epu32(
        top[0], _mm512_maskz_and_epi32(
                    lanes, _mm512_maskz_loadu_epi32(lanes, data + i),
                    magnitude));
  }
  const __m512i all = _mm512_max_epu32(_mm512_max_epu32(top[0], top[1]),
                                       _mm512_max_epu32(top[2], top[3]));
  return _mm512_cmpge_epu32_mask(all, _mm512_set1_epi32(0x7f800000)) != 0;
}
