// SPDX-License-Identifier: Apache-2.0
//
// The convolution's im2col GEMM sources for fp32 inputs, AVX-512 (conv.h;
// Half/BFloat16 and unusual geometries go to the portable packers).
//
// NCHW (B, k = (c, kh, kw) by pixels, panels of 32 pixels): each 16-pixel
// half of a panel is at most two output-row segments; per tap the lanes
// inside the image, and per segment where its first valid input is, are
// worked out once, then every k row is one expand-load per segment
// (stride 1: consecutive inputs into consecutive valid lanes; a masked
// load when the run's lane 0 would not read before the plane), two loads
// and a permute of every other element (stride 2), or a masked gather
// (other strides, rows narrower than 8 pixels). Lanes outside the image or
// past the panel's pixels are zeros. Nothing outside the input is read.
// NHWC (A transposed, k = (kh, kw, c) by pixels, panels of up to 16
// pixels): for 16 k of one tap, the 16 channels of each pixel are one
// masked load (zeros when the tap is outside the image), and a 16 x 16
// register transpose turns them into 16 panel rows.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"
#include "ops_optimized/gemm/transpose_avx512.h"

#define MAX_TAPS 49  // 7 x 7; larger kernels use the portable packer


// How one tap's lanes of a 16-pixel group are read, per output-row
// segment: lanes `part` take inputs from `offset` on (relative to a
// channel's plane): consecutive ones (stride 1: `count` inputs), or every
// other one of `count` (stride 2: picked by `pick`).
typedef struct segment_read {
  __mmask16 part;
  __mmask16 low;   // stride 2: the two loads' masks
  __mmask16 high;
  int64_t offset;
  int64_t lane0;   // stride 1: offset - first lane, the element lane 0
                   // would read (>= 0: one masked load; else an expand)
  __m512i pick;
} segment_read_t;

// Stride 2: the segment's inputs, every other element from its offset in
// `plane`, in the lanes from its first on (lanes outside `part` unused).
static inline __m512 every_other(const segment_read_t *r, const float *plane) {
  const float *from = plane + r->offset;
  return _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(r->low, from), r->pick,
                                _mm512_maskz_loadu_ps(r->high, from + 16));
}

// Writes the k rows of tap `tap` (k = c * taps + tap - k0 within [0, kc))
// of one 16-lane group, each from `read(plane of c)`.
#define FOR_CHANNELS_OF_TAP(body)                                          \
  for (int64_t c = c_first; c <= c_last; ++c) {                            \
    const float *plane = input + c * g->in_stride_c;                       \
    float *row = panel + (size_t)(c * taps + tap - (int64_t)k0) * width +  \
                 half;                                                     \
    body                                                                   \
  }

void etr_conv_pack_im2col_avx512(const etr_gemm_source_t *source, size_t k0,
                                 size_t kc, size_t x0, size_t xc,
                                 size_t width, float *dst) {
  const etr_conv2d_geometry_t *g =
      (const etr_conv2d_geometry_t *)source->generator;
  int64_t taps = g->kernel_h * g->kernel_w;
  if (source->dtype != ETR_FLOAT || width % 16 != 0 || taps > MAX_TAPS ||
      kc == 0) {
    etr_conv_pack_im2col(source, k0, kc, x0, xc, width, dst);
    return;
  }
  const float *input = (const float *)source->data;
  // 1: stride 1, 2: stride 2 (unit column stride, reads by row segment),
  // 0: gathers.
  int mode = g->in_stride_w != 1 ? 0 : g->stride_w == 1 ? 1
             : g->stride_w == 2                         ? 2
                                                        : 0;
  int64_t first[MAX_TAPS];
  int64_t end[MAX_TAPS];
  for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
    etr_conv_valid_range(g->out_w, g->in_w, g->stride_w, g->pad_w,
                         kw * g->dilation_w, &first[kw], &end[kw]);
  }
  // Channels whose k row of each tap is in [k0, k0 + kc) (c_last < c_first:
  // none), once per call: two divisions per (tap, 16 pixels) were a fifth
  // of a 3x3 convolution's packing.
  int64_t tap_c_first[MAX_TAPS];
  int64_t tap_c_last[MAX_TAPS];
  for (int64_t tap = 0; tap < taps; ++tap) {
    int64_t last = (int64_t)(k0 + kc) - 1 - tap;
    tap_c_first[tap] = ((int64_t)k0 - tap + taps - 1) / taps;
    tap_c_last[tap] = last < 0 ? -1 : last / taps;
  }
  const __m512i twice_iota = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16,
                                               18, 20, 22, 24, 26, 28, 30);
  size_t panels = (xc + width - 1) / width;
  for (size_t p = 0; p < panels; ++p) {
    float *panel = dst + p * kc * width;
    for (size_t half = 0; half < width; half += 16) {
      int64_t q0 = (int64_t)(x0 + p * width + half);
      int64_t count = (int64_t)(x0 + xc) - q0;
      count = count > 16 ? 16 : count;
      if (count <= 0) {
        for (size_t k = 0; k < kc; ++k) {
          _mm512_storeu_ps(panel + k * width + half, _mm512_setzero_ps());
        }
        continue;
      }
      __mmask16 lanes = lanes_between(0, count);
      // The group's output-row segments (at most two read by loads).
      int64_t row[2] = {q0 / g->out_w, q0 / g->out_w + 1};
      int64_t column[2] = {q0 % g->out_w, 0};  // column of lane 0
      int64_t run = g->out_w - column[0] < count ? g->out_w - column[0]
                                                 : count;
      __mmask16 segment_lanes[2] = {lanes_between(0, run),
                                    lanes_between(run, count)};
      column[1] = -run;
      int group_mode = count - run > g->out_w ? 0 : mode;
      __m512i oh;
      __m512i ow;
      lane_coordinates(q0, g->out_w, &oh, &ow);
      for (int64_t tap = 0; tap < taps; ++tap) {
        int64_t kh = tap / g->kernel_w;
        int64_t kw = tap % g->kernel_w;
        int64_t dh = kh * g->dilation_h - g->pad_h;
        int64_t dw = kw * g->dilation_w - g->pad_w;
        const int64_t c_first = tap_c_first[tap];
        const int64_t c_last = tap_c_last[tap];
        if (c_last < 0) {
          continue;
        }
        if (group_mode == 0) {
          __m512i ih = _mm512_add_epi32(
              _mm512_mullo_epi32(oh, _mm512_set1_epi32((int32_t)g->stride_h)),
              _mm512_set1_epi32((int32_t)dh));
          __m512i iw = _mm512_add_epi32(
              _mm512_mullo_epi32(ow, _mm512_set1_epi32((int32_t)g->stride_w)),
              _mm512_set1_epi32((int32_t)dw));
          __mmask16 valid = inside(inside(lanes, ih, g->in_h), iw, g->in_w);
          __m512i index = _mm512_add_epi32(
              _mm512_mullo_epi32(ih,
                                 _mm512_set1_epi32((int32_t)g->in_stride_h)),
              _mm512_mullo_epi32(iw,
                                 _mm512_set1_epi32((int32_t)g->in_stride_w)));
          FOR_CHANNELS_OF_TAP(_mm512_storeu_ps(
              row, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), valid,
                                            index, plane, 4));)
          continue;
        }
        segment_read_t reads[2];
        int segments = 0;
        for (int s = 0; s < 2; ++s) {
          int64_t ih = row[s] * g->stride_h + dh;
          __mmask16 part = segment_lanes[s] &
                           lanes_between(first[kw] - column[s],
                                         end[kw] - column[s]);
          if (part == 0 || ih < 0 || ih >= g->in_h) {
            continue;
          }
          int lo = __builtin_ctz(part);
          int hi = 32 - __builtin_clz((unsigned)part);
          segment_read_t *r = &reads[segments++];
          r->part = part;
          r->offset = ih * g->in_stride_h + (column[s] + lo) * g->stride_w +
                      dw;
          r->lane0 = r->offset - lo;
          int64_t inputs = 2 * (hi - 1 - lo) + 1;  // stride 2
          r->low = first_lanes(inputs);
          r->high = first_lanes(inputs - 16);
          r->pick = _mm512_sub_epi32(twice_iota, _mm512_set1_epi32(2 * lo));
        }
        if (segments == 0) {
          FOR_CHANNELS_OF_TAP((void)plane;
                              _mm512_storeu_ps(row, _mm512_setzero_ps());)
        } else if (group_mode == 1 && segments == 1 && reads[0].lane0 >= 0) {
          // A masked load: an expand from memory measured about 5 cycles
          // per vector here (half of a 3x3 convolution's packing).
          const __mmask16 part = reads[0].part;
          const int64_t lane0 = reads[0].lane0;
          FOR_CHANNELS_OF_TAP(_mm512_storeu_ps(
              row, _mm512_maskz_loadu_ps(part, plane + lane0));)
        } else if (group_mode == 1 && segments == 2 && reads[0].lane0 >= 0 &&
                   reads[1].lane0 >= 0) {
          FOR_CHANNELS_OF_TAP(
              __m512 x = _mm512_maskz_loadu_ps(reads[0].part,
                                               plane + reads[0].lane0);
              x = _mm512_mask_loadu_ps(x, reads[1].part,
                                       plane + reads[1].lane0);
              _mm512_storeu_ps(row, x);)
        } else if (group_mode == 1 && segments == 1) {
          const __mmask16 part = reads[0].part;
          const int64_t offset = reads[0].offset;
          FOR_CHANNELS_OF_TAP(_mm512_storeu_ps(
              row, _mm512_maskz_expandloadu_ps(part, plane + offset));)
        } else if (group_mode == 1) {
          FOR_CHANNELS_OF_TAP(
              __m512 x = _mm512_maskz_expandloadu_ps(reads[0].part,
                                                     plane + reads[0].offset);
              x = _mm512_mask_expandloadu_ps(x, reads[1].part,
                                             plane + reads[1].offset);
              _mm512_storeu_ps(row, x);)
        } else if (segments == 1) {
          // Stride 2, one or two segments, their masks and permutes in
          // registers: a loop over `reads` per channel reloaded them for
          // every row (conv nchw 128x56^2 k3 s2 ran 6% slower so: paired
          // gemm_bench runs, Intel Xeon).
          const segment_read_t r0 = reads[0];
          FOR_CHANNELS_OF_TAP(_mm512_storeu_ps(
              row, _mm512_maskz_mov_ps(r0.part, every_other(&r0, plane)));)
        } else {
          const segment_read_t r0 = reads[0];
          const segment_read_t r1 = reads[1];
          FOR_CHANNELS_OF_TAP(_mm512_storeu_ps(
              row, _mm512_mask_mov_ps(
                       _mm512_maskz_mov_ps(r0.part, every_other(&r0, plane)),
                       r1.part, every_other(&r1, plane)));)
        }
      }
    }
  }
}

void etr_conv_pack_im2col_nhwc_avx512(const etr_gemm_source_t *source,
                                      size_t k0, size_t kc, size_t x0,
                                      size_t xc, size_t width, float *dst) {
  const etr_conv2d_geometry_t *g =
      (const etr_conv2d_geometry_t *)source->generator;
  if (source->dtype != ETR_FLOAT || width > 16 || g->in_stride_c != 1) {
    etr_conv_pack_im2col_nhwc(source, k0, kc, x0, xc, width, dst);
    return;
  }
  const float *input = (const float *)source->data;
  int64_t channels = g->channels;
  __mmask16 store = first_lanes((int64_t)width);
  for (size_t p = 0; p * width < xc; ++p) {
    float *panel = dst + p * kc * width;
    size_t columns = xc - p * width < width ? xc - p * width : width;
    int64_t oh[16];
    int64_t ow[16];
    for (size_t x = 0; x < columns; ++x) {
      int64_t pixel = (int64_t)(x0 + p * width + x);
      oh[x] = pixel / g->out_w;
      ow[x] = pixel % g->out_w;
    }
    size_t k = 0;
    while (k < kc) {  // up to 16 k of one tap
      int64_t kk = (int64_t)(k0 + k);
      int64_t tap = kk / channels;
      int64_t c = kk % channels;
      int64_t depth = channels - c;
      depth = depth < (int64_t)(kc - k) ? depth : (int64_t)(kc - k);
      depth = depth < 16 ? depth : 16;
      int64_t dh = tap / g->kernel_w * g->dilation_h - g->pad_h;
      int64_t dw = tap % g->kernel_w * g->dilation_w - g->pad_w;
      __mmask16 load = first_lanes(depth);
      __m512 r[16];
#pragma GCC unroll 16
      for (size_t x = 0; x < 16; ++x) {
        r[x] = _mm512_setzero_ps();
        if (x < columns) {
          int64_t ih = oh[x] * g->stride_h + dh;
          int64_t iw = ow[x] * g->stride_w + dw;
          if (ih >= 0 && ih < g->in_h && iw >= 0 && iw < g->in_w) {
            r[x] = _mm512_maskz_loadu_ps(
                load, input + ih * g->in_stride_h + iw * g->in_stride_w + c);
          }
        }
      }
      etr_transpose16x16_avx512(r);
      float *out = panel + k * width;
      if (depth == 16) {
#pragma GCC unroll 16
        for (size_t t = 0; t < 16; ++t) {
          _mm512_mask_storeu_ps(out + t * width, store, r[t]);
        }
      } else {
        for (int64_t t = 0; t < depth; ++t) {
          _mm512_mask_storeu_ps(out + t * width, store, r[t]);
        }
      }
      k += (size_t)depth;
    }
  }
}
