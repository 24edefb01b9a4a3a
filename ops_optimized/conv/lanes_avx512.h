// SPDX-License-Identifier: Apache-2.0
//
// Lane masks and lane coordinates shared by the AVX-512 convolution
// kernels (depthwise_avx512.c, im2col_avx512.c, direct_avx512.c, the
// shifted-rows kernels), which
// take 16 output pixels of a flattened plane per vector, and the channel
// loop of the register-plane depthwise kernels; first_lanes also serves
// the bilinear resampling row (resample/resample_avx512.c); fma_into,
// an FMA kept in its accumulating form (shifted_avx512.c); and
// split_parity and parity_masks_t, a row's 32 columns as even and odd
// ones and their masks (the stride-2 wide-row depthwise kernels). Include
// only from *_avx512.c files.
#ifndef ETR_OPS_OPTIMIZED_CONV_LANES_AVX512_H
#define ETR_OPS_OPTIMIZED_CONV_LANES_AVX512_H

#include <immintrin.h>
#include <stdint.h>

// acc + x * y rounded once, as _mm512_fmadd_ps, but always the form that
// accumulates in place (vfmadd231ps). GCC, short of registers in a tile
// of 24 accumulators, picked forms that write the broadcast's register
// and moved the sum back to the accumulator's: a move per 4 FMAs on the
// FMA ports (ResNet's 32x24^2 3x3 layer, shifted rows, 0.972x time; the
// 3x3 stride-2 stem, whose FMAs take memory operands, lost 6% with it).
static inline __attribute__((always_inline)) __m512 fma_into(__m512 acc,
                                                             __m512 x,
                                                             __m512 y) {
  __asm__("vfmadd231ps %2, %1, %0" : "+v"(acc) : "v"(x), "v"(y));
  return acc;
}

static inline __mmask16 first_lanes(int64_t count) {
  return count >= 16 ? (__mmask16)0xffff
                     : (__mmask16)((1u << (count > 0 ? count : 0)) - 1u);
}

static inline __mmask16 lanes_between(int64_t lo, int64_t hi) {
  lo = lo < 0 ? 0 : lo;
  hi = hi > 16 ? 16 : hi;
  if (hi <= lo) {
    return 0;
  }
  return (__mmask16)(((1u << (hi - lo)) - 1u) << lo);
}

// Copies `rows` rows of `columns` floats (src rows src_stride apart) to
// dst rows dst_stride apart in whole vectors: the lanes past a row's last
// column are written as zeros (the zero-padded planes of the shifted-rows
// and band depthwise kernels, whose rows run on into the next row's
// padding, written after).
static inline void copy_rows_zero_tail(const float *src, int64_t rows,
                                       int64_t columns, int64_t src_stride,
                                       float *dst, int64_t dst_stride) {
  for (int64_t r = 0; r < rows; ++r, src += src_stride, dst += dst_stride) {
    for (int64_t j = 0; j < columns; j += 16) {
      _mm512_storeu_ps(dst + j, _mm512_maskz_loadu_ps(
                                    first_lanes(columns - j), src + j));
    }
  }
}

// Lane coordinates (row, column) of output pixels p0 .. p0 + 15 of a plane
// `width` columns wide.
static inline void lane_coordinates(int64_t p0, int64_t width, __m512i *row,
                                    __m512i *column) {
  const __m512i iota =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i w = _mm512_set1_epi32((int32_t)width);
  const __m512i one = _mm512_set1_epi32(1);
  __m512i r = _mm512_set1_epi32((int32_t)(p0 / width));
  __m512i c = _mm512_add_epi32(_mm512_set1_epi32((int32_t)(p0 % width)), iota);
  __mmask16 wrap = _mm512_cmpge_epi32_mask(c, w);
  while (wrap != 0) {
    c = _mm512_mask_sub_epi32(c, wrap, c, w);
    r = _mm512_mask_add_epi32(r, wrap, r, one);
    wrap = _mm512_cmpge_epi32_mask(c, w);
  }
  *row = r;
  *column = c;
}

// Lanes whose coordinate v satisfies 0 <= v < size.
static inline __mmask16 inside(__mmask16 lanes, __m512i v, int64_t size) {
  return _mm512_mask_cmpge_epi32_mask(lanes, v, _mm512_setzero_si512()) &
         _mm512_cmplt_epi32_mask(v, _mm512_set1_epi32((int32_t)size));
}

// Runs CALL(oc, ic) for the out channels oc = 0 .. channels - 1 in order,
// ic = oc / multiplier its input channel, counted along (a division per
// channel took as long as a 4x4 plane's FMAs). Without a multiplier two
// channels go per iteration: the compiler interleaves their chains (8x8
// planes measured 20% faster so). For a CALL inlined with all its
// per-call values in locals.
#define DEPTHWISE_CHANNELS(channels, multiplier, CALL)          \
  do {                                                          \
    int64_t ic_ = 0;                                            \
    int64_t repeat_ = 0; /* out channels so far of ic_ */       \
    int64_t oc_ = 0;                                            \
    if ((multiplier) == 1) {                                    \
      for (; oc_ + 1 < (channels); oc_ += 2) {                  \
        CALL(oc_, oc_);                                         \
        CALL(oc_ + 1, oc_ + 1);                                 \
      }                                                         \
      ic_ = oc_;                                                \
    }                                                           \
    for (; oc_ < (channels); ++oc_) {                           \
      CALL(oc_, ic_);                                           \
      if (++repeat_ == (multiplier)) {                          \
        repeat_ = 0;                                            \
        ++ic_;                                                  \
      }                                                         \
    }                                                           \
  } while (0)

// The nine weights of a 3x3 kernel at `w` (row stride `stride_h`, column
// stride `stride_w`), each broadcast to every lane, row-major in `taps`.
static inline __attribute__((always_inline)) void broadcast_taps3x3(
    const float *w, int64_t stride_h, int64_t stride_w, __m512 *taps) {
#pragma GCC unroll 9
  for (int t = 0; t < 9; ++t) {
    taps[t] = _mm512_set1_ps(w[(t / 3) * stride_h + (t % 3) * stride_w]);
  }
}

// The shifted-rows kernels (shifted_avx512.c, depthwise_shifted_avx512.c)
// compute positions q = oh * stride + ow of a padded plane, vectors of 16
// from q0: where one vector lands in the dense out plane, its lanes with
// ow < out_w (and before `end`), stored compressed from out element
// `dest` (they are consecutive out elements).
typedef struct shifted_lanes {
  __mmask16 valid;
  __mmask16 packed;  // the first popcount(valid) lanes
  int64_t dest;
} shifted_lanes_t;

static inline shifted_lanes_t shifted_lanes(int64_t q0, int64_t end,
                                            int64_t stride, int64_t out_w) {
  shifted_lanes_t l = {0, 0, 0};
  int count = 0;
  int64_t row = q0 / stride;
  int64_t col = q0 - row * stride;
  for (int lane = 0; lane < 16 && q0 + lane < end; ++lane) {
    if (col < out_w) {
      if (count++ == 0) {
        l.dest = row * out_w + col;
      }
      l.valid |= (__mmask16)(1u << lane);
    }
    if (++col == stride) {
      col = 0;
      ++row;
    }
  }
  l.packed = (__mmask16)((1u << count) - 1u);
  return l;
}

// The stride-2 wide-row depthwise kernels' input (depthwise3x3_s2_wide,
// depthwise5x5_s2_wide): columns [0, 32) of `row`, zeros outside `low`
// and `high` (the two loads' lanes), split into the even columns and the
// odd ones by two in-lane shuffles (vshufps), in their scrambled order:
// lane 4 k + j holds column pair 2 k + j for j < 2, 8 + 2 k + j - 2 else.
static inline __attribute__((always_inline)) void split_parity(
    const float *row, __mmask16 low, __mmask16 high, __m512 *even,
    __m512 *odd) {
  const __m512 a = _mm512_maskz_loadu_ps(low, row);
  const __m512 b = _mm512_maskz_loadu_ps(high, row + 16);
  *even = _mm512_shuffle_ps(a, b, 0x88);
  *odd = _mm512_shuffle_ps(a, b, 0xdd);
}

// The masks of a block of 32 input columns (split_parity's two loads,
// `low` and `high`) and its 16 outputs; parity_tail_masks gives those of
// a row's last block of `rest` (1..31) columns, whose outputs are the
// ceil(rest / 2) that read them.
typedef struct parity_masks {
  __mmask16 low;
  __mmask16 high;
  __mmask16 out;
} parity_masks_t;

static inline parity_masks_t parity_tail_masks(int64_t rest) {
  return (parity_masks_t){first_lanes(rest), first_lanes(rest - 16),
                          first_lanes((rest + 1) / 2)};
}

#endif  // ETR_OPS_OPTIMIZED_CONV_LANES_AVX512_H
