// SPDX-License-Identifier: Apache-2.0
//
// fp32 GEMM microkernel, AVX2 + FMA: a 6 x 16 tile of C in 12 ymm
// accumulators; per k step two vectors of B (16 columns), 6 broadcasts of
// packed A, 12 FMAs. Tiles with nr <= 8 run a half-width loop. A packed B
// is zero-padded, so its loads are always full width; an unpacked B with
// nr < 16 is read with lane masks (vmaskmovps never touches masked-out
// lanes), and so are C and the bias at a column edge. Row edges compute on
// the zero-padded packed A and store only rows < mr. A second entry reads
// a row-major A in place (six row pointers). The epilogue applies a fused
// convolution's post in registers (fuses_post, gemm.h).
#include <immintrin.h>
#include <stdint.h>

#include "ops_optimized/gemm/gemm.h"
#include "ops_optimized/gemm/ukernel_avx2.h"

static inline __m256 load_masked(const float *p, __m256i mask, bool full) {
  return full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask);
}

static inline void store_masked(float *p, __m256i mask, bool full,
                                __m256 v) {
  if (full) {
    _mm256_storeu_ps(p, v);
  } else {
    _mm256_maskstore_ps(p, mask, v);
  }
}

#define STORE(i)                                                           \
  if (i < mr) {                                                            \
    float *row = c + (ptrdiff_t)(i) * c_stride;                            \
    __m256 va = c##i##a;                                                   \
    __m256 vb = c##i##b;                                                   \
    if (accumulate) {                                                      \
      va = _mm256_add_ps(load_masked(row, k0, full), va);                  \
      vb = _mm256_add_ps(load_masked(row + 8, k1, full), vb);              \
    }                                                                      \
    if (finish) {                                                          \
      va = _mm256_mul_ps(alpha, va);                                       \
      vb = _mm256_mul_ps(alpha, vb);                                       \
      if (bias != NULL) {                                                  \
        const float *bias_row = bias + (ptrdiff_t)(i) * bias_row_stride;   \
        __m256 ba;                                                         \
        __m256 bb;                                                         \
        if (bias_per_row) {                                                \
          ba = bb = _mm256_broadcast_ss(bias_row);                         \
        } else {                                                           \
          ba = load_masked(bias_row, k0, full);                            \
          bb = load_masked(bias_row + 8, k1, full);                        \
        }                                                                  \
        va = _mm256_fmadd_ps(beta, ba, va);                                \
        vb = _mm256_fmadd_ps(beta, bb, vb);                                \
      }                                                                    \
      if (post_scale != NULL) {                                            \
        const __m256 ps = _mm256_broadcast_ss(post_scale + (i));           \
        const __m256 pt = _mm256_broadcast_ss(post_shift + (i));           \
        va = _mm256_fmadd_ps(va, ps, pt);                                  \
        vb = _mm256_fmadd_ps(vb, ps, pt);                                  \
      }                                                                    \
      if (post_clamp) {                                                    \
        va = _mm256_min_ps(post_high, _mm256_max_ps(post_low, va));        \
        vb = _mm256_min_ps(post_high, _mm256_max_ps(post_low, vb));        \
      }                                                                    \
    }                                                                      \
    store_masked(row, k0, full, va);                                       \
    store_masked(row + 8, k1, full, vb);                                   \
  }

// The microkernel body: A_ROW(i) (defined around each use) is the address
// of A[i][k] for the loop's k step, A_STEP (likewise) advances A one step.
#define UKERNEL_BODY \
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);          \
  const __m256i k0 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)nr),     \
                                        lanes);                             \
  const __m256i k1 = _mm256_cmpgt_epi32(                                    \
      _mm256_set1_epi32((int32_t)nr - 8), lanes);                           \
  const bool full = nr == 16;                                               \
  ROWS(DECLARE)                                                             \
  if ((flags & ETR_GEMM_B_PACKED) || full) {                                \
    if (nr > 8) {                                                           \
      K_LOOP(_mm256_loadu_ps(b), _mm256_loadu_ps(b + 8), STEP_FULL)         \
    } else {                                                                \
      K_LOOP(_mm256_loadu_ps(b), b0, STEP_HALF)                             \
    }                                                                       \
  } else {                                                                  \
    if (nr > 8) {                                                           \
      K_LOOP(_mm256_maskload_ps(b, k0), _mm256_maskload_ps(b + 8, k1),      \
             STEP_FULL)                                                     \
    } else {                                                                \
      K_LOOP(_mm256_maskload_ps(b, k0), b0, STEP_HALF)                      \
    }                                                                       \
  }                                                                         \
  const bool accumulate = (flags & ETR_GEMM_ACCUMULATE) != 0;               \
  const bool finish = (flags & ETR_GEMM_EPILOGUE) != 0;                     \
  const __m256 alpha = _mm256_set1_ps(epilogue->alpha);                     \
  const __m256 beta = _mm256_set1_ps(epilogue->beta);                       \
  const float *bias = epilogue->bias;                                       \
  const ptrdiff_t bias_row_stride = epilogue->bias_row_stride;              \
  const bool bias_per_row = epilogue->bias_per_row;                         \
  const float *post_scale = epilogue->post_scale;                           \
  const float *post_shift = epilogue->post_shift;                           \
  const bool post_clamp = epilogue->post_clamp;                             \
  const __m256 post_low = _mm256_set1_ps(epilogue->post_low);               \
  const __m256 post_high = _mm256_set1_ps(epilogue->post_high);             \
  ROWS(STORE)                                                               \

void etr_gemm_f32_ukernel_avx2(size_t kc, const float *a, const float *b,
                               ptrdiff_t b_stride, float *c,
                               ptrdiff_t c_stride, size_t mr, size_t nr,
                               unsigned flags,
                               const etr_gemm_epilogue_t *epilogue) {
#define A_ROW(i) (a + (i))
#define A_STEP a += MR
  UKERNEL_BODY
#undef A_STEP
#undef A_ROW
}

// Row i of A read in place (rows past mr repeat row mr - 1, so nothing
// outside A is read; their sums are not stored).
#define ROW_POINTER(i)                                                      \
  const float *a##i = a + (ptrdiff_t)((i) < mr ? (i) : mr - 1) * a_stride;

// A read in place: row pointers a0.. and the k index `step`, under the
// ROWS in force where it is expanded.
#define A_ROW(i) (a##i + step)
#define A_STEP ++step
#define DIRECT_A_BODY \
  ROWS(ROW_POINTER)   \
  size_t step = 0;    \
  UKERNEL_BODY

// At most 4 rows run a 4-row body (the full tile computed all 6, the
// rows past mr repeating the last: a third of an MLP's 4-row product).
// ROWS, which the body and K_LOOP expand, is that of 4 rows for it.
static void direct_a_rows4(size_t kc, const float *a, ptrdiff_t a_stride,
                           const float *b, ptrdiff_t b_stride, float *c,
                           ptrdiff_t c_stride, size_t mr, size_t nr,
                           unsigned flags,
                           const etr_gemm_epilogue_t *epilogue) {
#undef ROWS
#define ROWS(X) X(0) X(1) X(2) X(3)
  DIRECT_A_BODY
#undef ROWS
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
}

void etr_gemm_f32_ukernel_direct_a_avx2(
    size_t kc, const float *a, ptrdiff_t a_stride, const float *b,
    ptrdiff_t b_stride, float *c, ptrdiff_t c_stride, size_t mr, size_t nr,
    unsigned flags, const etr_gemm_epilogue_t *epilogue) {
  if (mr <= 4) {
    direct_a_rows4(kc, a, a_stride, b, b_stride, c, c_stride, mr, nr, flags,
                   epilogue);
    return;
  }
  DIRECT_A_BODY
}
#undef DIRECT_A_BODY
#undef A_STEP
#undef A_ROW

// y = alpha * a^T B + beta * bias for one row a (M = 1), as
// etr_gemm_f32_gemv_avx512: 16 columns at a time in two vectors, K split
// over four independent pairs of accumulators (the microkernel's single
// chain per column waited out the FMA latency every k: the cnn model's
// [1, 2048] x [2048, 10] head took 4.0 us, 0.87 with AVX-512's GEMV),
// summed at the end. Columns past n are neither read nor written (lane
// masks at the edge).
void etr_gemm_f32_gemv_avx2(size_t kc, size_t n, const float *a,
                            ptrdiff_t a_stride, const float *b,
                            ptrdiff_t b_stride, float *c,
                            const etr_gemm_epilogue_t *epilogue) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (size_t j = 0; j < n; j += 16) {
    const size_t nr = n - j < 16 ? n - j : 16;
    const bool full = nr == 16;
    const bool two = nr > 8;
    const __m256i m0 =
        _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)nr), lane);
    const __m256i m1 =
        _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)nr - 8), lane);
    const float *column = b + j;
    __m256 s0a = _mm256_setzero_ps();
    __m256 s0b = _mm256_setzero_ps();
    __m256 s1a = _mm256_setzero_ps();
    __m256 s1b = _mm256_setzero_ps();
    __m256 s2a = _mm256_setzero_ps();
    __m256 s2b = _mm256_setzero_ps();
    __m256 s3a = _mm256_setzero_ps();
    __m256 s3b = _mm256_setzero_ps();
#define GEMV_STEP(r)                                                        \
  {                                                                         \
    const __m256 x = _mm256_set1_ps(a[(ptrdiff_t)(k + (r)) * a_stride]);    \
    const float *row = column + (ptrdiff_t)(k + (r)) * b_stride;            \
    s##r##a = _mm256_fmadd_ps(x, load_masked(row, m0, full || two),         \
                              s##r##a);                                     \
    if (two) {                                                              \
      s##r##b = _mm256_fmadd_ps(x, load_masked(row + 8, m1, full),          \
                                s##r##b);                                   \
    }                                                                       \
  }
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) {
      GEMV_STEP(0)
      GEMV_STEP(1)
      GEMV_STEP(2)
      GEMV_STEP(3)
    }
    for (; k < kc; ++k) {
      GEMV_STEP(0)
    }
#undef GEMV_STEP
    __m256 va = _mm256_add_ps(_mm256_add_ps(s0a, s1a),
                              _mm256_add_ps(s2a, s3a));
    __m256 vb = _mm256_add_ps(_mm256_add_ps(s0b, s1b),
                              _mm256_add_ps(s2b, s3b));
    const __m256 alpha = _mm256_set1_ps(epilogue->alpha);
    va = _mm256_mul_ps(alpha, va);
    vb = _mm256_mul_ps(alpha, vb);
    if (epilogue->bias != NULL) {
      const __m256 beta = _mm256_set1_ps(epilogue->beta);
      __m256 ba;
      __m256 bb;
      if (epilogue->bias_per_row) {
        ba = bb = _mm256_set1_ps(epilogue->bias[0]);
      } else {
        ba = load_masked(epilogue->bias + j, m0, full || two);
        bb = two ? load_masked(epilogue->bias + j + 8, m1, full)
                 : _mm256_setzero_ps();
      }
      va = _mm256_fmadd_ps(beta, ba, va);
      vb = _mm256_fmadd_ps(beta, bb, vb);
    }
    store_masked(c + j, m0, full || two, va);
    if (two) {
      store_masked(c + j + 8, m1, full, vb);
    }
  }
}
