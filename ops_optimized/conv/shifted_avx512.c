// SPDX-License-Identifier: Apache-2.0
//
// Stride-1 NCHW convolution as shifted rows of one zero-padded plane,
// fp32, AVX-512 (conv.h): the im2col row of tap (kh, kw) of input channel
// c is, in the coordinates of a plane P padded to width S, the plane P_c
// itself shifted by kh * dh * S + kw * dw. So the GEMM's B operand needs
// no packing: out[o][q] = sum over (c, kh, kw) of W[o][c][kh][kw] *
// P_c[q + kh * dh * S + kw * dw] for q = oh * S + ow, and the product
// reads P and the weight rows in place. The padded plane is a copy of the
// input in scratch (or the input itself when there is no padding) whose
// rows are S = in_w + pad_w wide: pad_w zeros, then the row; a row's right
// padding is the next row's left one (a tap past the row's end reads
// there). The S - out_w = (kw - 1) dw - pad_w positions past each out row
// (one for a 3x3 with padding 1) are computed and dropped, except in
// packed rows (packed_rows, below): 3x3 padding-1 planes whose row width
// divides a tile's 48 positions have no padding columns, and kernel
// columns 0 and 2 load under masks that zero a row's first and last
// lanes (ResNet's 32x24x24 layer 0.925x the time, 103 -> 95 us, paired.py
// program on Zen 4; 64x12x12, which the pixel tiles took, as fast).
//
// ResNet's 3x3 layers on small planes ran the GEMM at 50-60% of the FMA
// peak, packing an im2col panel of 9 x C rows (written once, read once)
// for every call.
//
// Tiles: 8 out channels by 3 vectors of 16 padded positions (24
// accumulators), all of K (C x taps) before the store, one FMA chain per
// output in (c, kh, kw) order from +0.0, as the GEMM's microkernel over a
// single K block, with the bias added after the sum and the fused post
// applied as the GEMM's epilogue does (gemm/ukernel_avx512.h): the same
// bits as the GEMM path for K up to its block. Each vector's valid lanes
// (ow < out_w) are compressed and stored contiguously: they are
// consecutive out elements. Padding taps multiply the copy's zeros, so an
// inf or NaN weight gives PyTorch's NaN borders without a weight scan.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define ROWS 8
#define VECTORS 3
#define TILE (16 * VECTORS)

typedef etr_conv_padded_t padded_t;

// Packed rows: a 3x3 kernel at stride 1 with padding 1 on rows whose
// width divides a tile's 48 positions (ResNet's 24, 12 and 6). The copy
// then has no padding columns: rows in_w apart, a zero row above and
// below, positions q = oh * in_w + ow all out elements, and the taps of
// kernel columns 0 and 2 masked loads that zero the lanes at a row's
// first and last column (the same lanes in every tile). The padded rows
// (width in_w + 1) computed and dropped one position a row: 4% of
// ResNet's 32x24x24 layers, 8% at 12 wide (which the GEMM took), 14% at
// 6.
static bool packed_rows(const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 1 &&
         g->stride_w == 1 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 1 && g->pad_w == 1 && g->in_w >= 2 &&
         TILE % g->in_w == 0 && g->in_stride_w == 1;
}

// The share of computed positions that are out elements: out_h * out_w
// over the positions the vectors of 16 cover up to the last out element.
static double useful(const etr_conv2d_geometry_t *g) {
  if (packed_rows(g)) {
    const int64_t pixels = g->out_h * g->out_w;
    return (double)pixels / (double)(16 * ((pixels + 15) / 16));
  }
  int64_t end = (g->out_h - 1) * etr_conv_shifted_row_width(g) + g->out_w;
  return (double)(g->out_h * g->out_w) / (double)(16 * ((end + 15) / 16));
}

// Floats of the padded planes one tile reads: TILE positions and the
// taps' reach past them, in every input channel.
static int64_t tile_floats(const etr_conv2d_geometry_t *g) {
  return g->channels *
         (TILE + (g->kernel_h - 1) * g->dilation_h *
                     etr_conv_shifted_row_width(g) +
          (g->kernel_w - 1) * g->dilation_w);
}

bool etr_conv_shifted_nchw_avx512_applies(const etr_conv2d_geometry_t *g) {
  int64_t taps = g->kernel_h * g->kernel_w;
  int64_t pixels = g->out_h * g->out_w;
  // The GEMM computes whole vectors of out pixels and packs an im2col
  // panel first; this kernel packs nothing but computes the dropped
  // positions too. Measured (fastest of 8 alternating runs): 32x24x24 ->
  // 32, 95% of positions useful, 17% faster than the GEMM; 128x6x6, 75%
  // as the GEMM's, 5% faster; 64x12x12, 90% against the GEMM's 100%, 6%
  // slower (packed rows now compute 100%: as fast as the pixel tiles).
  double gemm = (double)pixels / (double)(16 * ((pixels + 15) / 16));
  // Not 1x1 kernels: with one tap the GEMM's im2col panel is the input
  // itself and its packed 8x48 tiles won on every 1x1 layer tried (etref
  // run, paired.py, AVX-512 Xeon; layers past the pointwise kernel's 32
  // KiB of weights and the pixel tiles' 784 pixels): 64x56x56 -> 256 769
  // -> 601 us, 32x56x56 -> 512 0.75x, 40x56x56 -> 240 0.76x, 128x56x56 ->
  // 256 0.75x, 96x56x56 -> 384 0.81x, 32x112x112 -> 384 0.71x.
  return taps > 1 && g->stride_h == 1 && g->stride_w == 1 &&
         !g->channels_last &&
         g->in_stride_w == 1 && taps <= ETR_CONV_SHIFTED_MAX_TAPS &&
         g->w_stride_w == 1 &&
         (g->kernel_h == 1 || g->w_stride_h == g->kernel_w) &&
         (g->channels == 1 || g->w_stride_c == taps) &&
         g->channels * taps >= 32 &&
         // a tap past a row's end reads the next row's left padding
         (etr_conv_shifted_reads_in_place(g) ||
          (g->kernel_w - 1) * g->dilation_w >= g->pad_w) &&
         useful(g) >= 0.92 * gemm &&
         // One tile's rows of every input channel stay in L1 (48 KiB on
         // the machines measured) beside the weight rows: with more, as
         // 128 channels of 28x28, the loads from L2 made it 10% slower
         // than the GEMM.
         tile_floats(g) * (int64_t)sizeof(float) <= 32 * 1024 &&
         etr_conv_shifted_scratch_floats(g) <=
             ETR_CONV_SHIFTED_MAX_SCRATCH_FLOATS;
}

// Zeros n floats at dst.
static inline void zero_floats(float *dst, int64_t n) {
  for (int64_t j = 0; j < n; j += 16) {
    _mm512_mask_storeu_ps(dst + j, first_lanes(n - j), _mm512_setzero_ps());
  }
}

// Vector copies and masked stores that write exactly the plane (libc's
// memcpy/memset per row of 6-24 floats were 7% of ResNet's run).
etr_conv_padded_t etr_conv_pad_planes(const etr_conv2d_geometry_t *g,
                                      const float *input, float *scratch) {
  if (etr_conv_shifted_reads_in_place(g)) {
    return (padded_t){input, g->in_stride_h, g->in_stride_c};
  }
  const int64_t width = etr_conv_shifted_row_width(g);
  const int64_t plane = etr_conv_shifted_plane_floats(g);
  const int64_t pad = g->pad_w;
  const int64_t in_w = g->in_w;
  for (int64_t c = 0; c < g->channels; ++c) {
    const float *src = input + c * g->in_stride_c;
    float *dst = scratch + c * plane;
    zero_floats(dst, g->pad_h * width + pad);
    dst += g->pad_h * width + pad;
    // Each row, then its right padding (the next row's left one).
    for (int64_t r = 0; r < g->in_h; ++r, dst += width) {
      const float *row = src + r * g->in_stride_h;
      for (int64_t j = 0; j < width; j += 16) {
        _mm512_mask_storeu_ps(
            dst + j, first_lanes(width - j),
            _mm512_maskz_loadu_ps(first_lanes(in_w - j), row + j));
      }
    }
    // dst is at the row below the image, past its left padding.
    zero_floats(dst, g->pad_h * width);
  }
  return (padded_t){scratch, width, plane};
}

// The packed-rows copy (packed_rows): per channel a float of slack, a
// zero row, the input's rows in_w apart, a zero row and a float of slack
// ((in_h + 2) in_w + 2 floats, within etr_conv_shifted_plane_floats's
// (in_h + 2)(in_w + 1) + 1). base is row 0, column 0 of channel 0.
static padded_t pack_rows(const etr_conv2d_geometry_t *g,
                          const float *input, float *scratch) {
  const int64_t in_w = g->in_w;
  const int64_t plane = (g->in_h + 2) * in_w + 2;
  for (int64_t c = 0; c < g->channels; ++c) {
    const float *src = input + c * g->in_stride_c;
    float *dst = scratch + c * plane;
    zero_floats(dst, 1 + in_w);
    dst += 1 + in_w;
    for (int64_t r = 0; r < g->in_h; ++r, dst += in_w) {
      const float *row = src + r * g->in_stride_h;
      for (int64_t j = 0; j < in_w; j += 16) {
        const __mmask16 m = first_lanes(in_w - j);
        _mm512_mask_storeu_ps(dst + j, m, _mm512_maskz_loadu_ps(m, row + j));
      }
    }
    zero_floats(dst, in_w + 1);
  }
  return (padded_t){scratch + 1 + in_w, in_w, plane};
}

// One tile: out channels o0 .. o0 + rows - 1 (rows <= ROWS; the missing
// rows repeat the last one's weights and are not stored) by the padded
// positions q0 .. q0 + 47 (`load` masks the positions past the plane's
// last out position). TAPS is the kernel's tap count when known at
// compile time (9: the loop over taps unrolls), else 0 and `taps` holds
// it.
static inline __attribute__((always_inline)) void tile(
    const etr_conv_shifted_args_t *a, const padded_t *p,
    const int64_t *offsets, int64_t taps, int TAPS, int V, int64_t o0,
    int64_t rows, int64_t q0, const __mmask16 *load,
    const shifted_lanes_t *lanes, const __mmask16 *columns) {
  const etr_conv2d_geometry_t *g = a->g;
  const int64_t k_taps = TAPS > 0 ? TAPS : taps;
  const float *w[ROWS];
#pragma GCC unroll 8
  for (int r = 0; r < ROWS; ++r) {
    int64_t o = o0 + (r < rows ? r : rows - 1);
    w[r] = a->weight + o * a->weight_stride;
  }
  // V == 4: three vectors wholly inside the plane (plain loads).
  const int NV = V == 4 ? 3 : V;
  __m512 acc[ROWS][VECTORS];
#pragma GCC unroll 8
  for (int r = 0; r < ROWS; ++r) {
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v) {
      acc[r][v] = _mm512_setzero_ps();
    }
  }
  const float *x = p->base + q0;
  const int64_t plane = p->plane;
  const __mmask16 m0 = load[0], m1 = load[1], m2 = load[2];
  for (int64_t c = 0; c < g->channels; ++c, x += plane) {
#pragma GCC unroll 9
    for (int64_t t = 0; t < k_taps; ++t) {
      const float *b = x + offsets[t];
      __m512 b0, b1, b2;
      // Packed rows (TAPS 9): kernel columns 0 and 2 load under the
      // tile's column masks (`load` within them).
      const int kw = (int)(t % 3);
      if (columns != NULL && kw != 1) {
        const __mmask16 *m = columns + (kw == 0 ? 0 : VECTORS);
        b0 = _mm512_maskz_loadu_ps(m[0], b);
        b1 = NV > 1 ? _mm512_maskz_loadu_ps(m[1], b + 16) : b0;
        b2 = NV > 2 ? _mm512_maskz_loadu_ps(m[2], b + 32) : b0;
      } else {
        b0 = V == 4 ? _mm512_loadu_ps(b) : _mm512_maskz_loadu_ps(m0, b);
        b1 = V == 4   ? _mm512_loadu_ps(b + 16)
             : V > 1 ? _mm512_maskz_loadu_ps(m1, b + 16)
                     : b0;
        b2 = V == 4   ? _mm512_loadu_ps(b + 32)
             : V > 2 ? _mm512_maskz_loadu_ps(m2, b + 32)
                     : b0;
      }
#pragma GCC unroll 8
      for (int r = 0; r < ROWS; ++r) {
        const __m512 wv = _mm512_set1_ps(w[r][t]);
        acc[r][0] = fma_into(acc[r][0], wv, b0);
        if (NV > 1) {
          acc[r][1] = fma_into(acc[r][1], wv, b1);
        }
        if (NV > 2) {
          acc[r][2] = fma_into(acc[r][2], wv, b2);
        }
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; ++r) {
      w[r] += k_taps;
    }
  }
  // The epilogue of the GEMM microkernels (alpha 1, beta 1): the bias
  // added to the sum, then the post's affine step and clamp.
  const etr_conv_post_t *post = a->post;
  const float *scale = post != NULL ? post->scale : NULL;
  const float *shift = post != NULL ? post->shift : NULL;
  const __m512 low = _mm512_set1_ps(post != NULL ? post->low : 0.0f);
  const __m512 high = _mm512_set1_ps(post != NULL ? post->high : 0.0f);
  const int64_t channel = a->post_channel0 + o0;
#pragma GCC unroll 8
  for (int r = 0; r < ROWS; ++r) {
    if (r >= rows) {
      break;
    }
    float *out = a->out + (o0 + r) * a->out_stride;
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v) {
      __m512 value = acc[r][v];
      if (a->bias != NULL) {
        value = _mm512_add_ps(
            value, _mm512_set1_ps(a->bias[(o0 + r) * a->bias_stride]));
      }
      if (post != NULL) {
        if (scale != NULL) {
          value = _mm512_fmadd_ps(value, _mm512_set1_ps(scale[channel + r]),
                                  _mm512_set1_ps(shift[channel + r]));
        }
        value = _mm512_min_ps(high, _mm512_max_ps(low, value));
      }
      if (lanes[v].valid != 0) {
        _mm512_mask_storeu_ps(
            out + lanes[v].dest, lanes[v].packed,
            _mm512_maskz_compress_ps(lanes[v].valid, value));
      }
    }
  }
}

void etr_conv_shifted_nchw_avx512(const etr_conv_shifted_args_t *a) {
  const etr_conv2d_geometry_t *g = a->g;
  const bool packed = packed_rows(g);
  padded_t p = packed ? pack_rows(g, a->input, a->scratch)
                      : etr_conv_pad_planes(g, a->input, a->scratch);
  int64_t offsets[ETR_CONV_SHIFTED_MAX_TAPS];
  int64_t taps = 0;
  for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
    for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
      // Packed rows: base is the image's first element, the taps reach
      // one row and one column back.
      offsets[taps++] = packed ? (kh - 1) * p.stride + kw - 1
                               : kh * g->dilation_h * p.stride +
                                     kw * g->dilation_w;
    }
  }
  // Padded positions up to the last out element; no tap reads past the
  // plane from there.
  const int64_t end = (g->out_h - 1) * p.stride + g->out_w;
  const bool three = taps == 9;
  for (int64_t q0 = 0; q0 < end; q0 += TILE) {
    __mmask16 load[VECTORS];
    shifted_lanes_t lanes[VECTORS];
    // Packed rows: kernel column 0's lanes (not at a row's first column)
    // and column 2's (not at its last), within `load`.
    __mmask16 columns[2 * VECTORS];
    for (int v = 0; v < VECTORS; ++v) {
      int64_t left = end - (q0 + 16 * v);
      load[v] = left >= 16  ? (__mmask16)0xffff
                : left <= 0 ? (__mmask16)0
                            : (__mmask16)((1u << left) - 1u);
      lanes[v] = shifted_lanes(q0 + 16 * v, end, p.stride, g->out_w);
      columns[v] = load[v];
      columns[VECTORS + v] = load[v];
      for (int lane = 0; packed && lane < 16; ++lane) {
        const int64_t ow = (q0 + 16 * v + lane) % g->in_w;
        if (ow == 0) {
          columns[v] &= (__mmask16)~(1u << lane);
        }
        if (ow == g->in_w - 1) {
          columns[VECTORS + v] &= (__mmask16)~(1u << lane);
        }
      }
    }
    for (int64_t o0 = 0; o0 < a->out_channels; o0 += ROWS) {
      int64_t rows = a->out_channels - o0 < ROWS ? a->out_channels - o0
                                                 : ROWS;
      int64_t vectors = (end - q0 + 15) / 16;
      if (packed && q0 + TILE <= end) {
        tile(a, &p, offsets, 9, 9, 4, o0, rows, q0, load, lanes, columns);
      } else if (packed && vectors >= 3) {
        tile(a, &p, offsets, 9, 9, 3, o0, rows, q0, load, lanes, columns);
      } else if (packed && vectors == 2) {
        tile(a, &p, offsets, 9, 9, 2, o0, rows, q0, load, lanes, columns);
      } else if (packed) {
        tile(a, &p, offsets, 9, 9, 1, o0, rows, q0, load, lanes, columns);
      } else if (three && q0 + TILE <= end) {
        tile(a, &p, offsets, 9, 9, 4, o0, rows, q0, load, lanes, NULL);
      } else if (three && vectors >= 3) {
        tile(a, &p, offsets, 9, 9, 3, o0, rows, q0, load, lanes, NULL);
      } else if (three && vectors == 2) {
        tile(a, &p, offsets, 9, 9, 2, o0, rows, q0, load, lanes, NULL);
      } else if (three) {
        tile(a, &p, offsets, 9, 9, 1, o0, rows, q0, load, lanes, NULL);
      } else if (vectors >= 3) {
        tile(a, &p, offsets, taps, 0, 3, o0, rows, q0, load, lanes, NULL);
      } else if (vectors == 2) {
        tile(a, &p, offsets, taps, 0, 2, o0, rows, q0, load, lanes, NULL);
      } else {
        tile(a, &p, offsets, taps, 0, 1, o0, rows, q0, load, lanes, NULL);
      }
    }
  }
}
