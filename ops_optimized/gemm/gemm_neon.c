// SPDX-License-Identifier: Apache-2.0
//
// fp32 GEMM microkernel, NEON (aarch64): an 8 x 12 tile of C in 24 q
// accumulators; per k step three vectors of B (12 columns), two of packed A
// (8 rows) and 24 FMAs by lane (vfmaq_laneq_f32), 29 of the 32 vector
// registers. A packed B is zero-padded and read at full width; an unpacked
// B at a column edge (nr < 12) is copied row by row into a zero-padded
// stack row first, so nothing past its nr columns is read. C and the bias
// at a column edge go through a stack row the same way. Row edges compute
// on the zero-padded packed A and store only rows < mr.
#include <arm_neon.h>
#include <string.h>

#include "ops_optimized/gemm/gemm.h"

#define MR 8
#define NR 12

#define ROWS(X) X(0, a0, 0) X(1, a0, 1) X(2, a0, 2) X(3, a0, 3) \
  X(4, a1, 0) X(5, a1, 1) X(6, a1, 2) X(7, a1, 3)

#define DECLARE(i, v, lane)                  \
  float32x4_t c##i##a = vdupq_n_f32(0.0f);   \
  float32x4_t c##i##b = vdupq_n_f32(0.0f);   \
  float32x4_t c##i##c = vdupq_n_f32(0.0f);

#define STEP(i, v, lane)                                \
  c##i##a = vfmaq_laneq_f32(c##i##a, b0, v, lane);      \
  c##i##b = vfmaq_laneq_f32(c##i##b, b1, v, lane);      \
  c##i##c = vfmaq_laneq_f32(c##i##c, b2, v, lane);

#define STORE(i, v, lane)                                           \
  if ((i) < mr) {                                                   \
    store_row(c + (ptrdiff_t)(i) * c_stride, nr, flags, epilogue,   \
              (i), c##i##a, c##i##b, c##i##c);                      \
  }

// Stores one row of the tile: C accumulation, alpha, beta * bias.
static inline void store_row(float *row, size_t nr, unsigned flags,
                             const etr_gemm_epilogue_t *epilogue, size_t i,
                             float32x4_t va, float32x4_t vb,
                             float32x4_t vc) {
  float buffer[NR];
  bool full = nr == NR;
  if (flags & ETR_GEMM_ACCUMULATE) {
    const float *old = row;
    if (!full) {
      memset(buffer, 0, sizeof(buffer));
      memcpy(buffer, row, nr * sizeof(float));
      old = buffer;
    }
    va = vaddq_f32(vld1q_f32(old), va);
    vb = vaddq_f32(vld1q_f32(old + 4), vb);
    vc = vaddq_f32(vld1q_f32(old + 8), vc);
  }
  if (flags & ETR_GEMM_EPILOGUE) {
    va = vmulq_n_f32(va, epilogue->alpha);
    vb = vmulq_n_f32(vb, epilogue->alpha);
    vc = vmulq_n_f32(vc, epilogue->alpha);
    if (epilogue->bias != NULL) {
      const float *bias = epilogue->bias +
                          (ptrdiff_t)i * epilogue->bias_row_stride;
      float32x4_t ba;
      float32x4_t bb;
      float32x4_t bc;
      if (epilogue->bias_per_row) {
        ba = bb = bc = vdupq_n_f32(bias[0]);
      } else {
        if (!full) {
          memset(buffer, 0, sizeof(buffer));
          memcpy(buffer, bias, nr * sizeof(float));
          bias = buffer;
        }
        ba = vld1q_f32(bias);
        bb = vld1q_f32(bias + 4);
        bc = vld1q_f32(bias + 8);
      }
      va = vfmaq_n_f32(va, ba, epilogue->beta);
      vb = vfmaq_n_f32(vb, bb, epilogue->beta);
      vc = vfmaq_n_f32(vc, bc, epilogue->beta);
    }
  }
  if (full) {
    vst1q_f32(row, va);
    vst1q_f32(row + 4, vb);
    vst1q_f32(row + 8, vc);
  } else {
    vst1q_f32(buffer, va);
    vst1q_f32(buffer + 4, vb);
    vst1q_f32(buffer + 8, vc);
    memcpy(row, buffer, nr * sizeof(float));
  }
}

void etr_gemm_f32_ukernel_neon(size_t kc, const float *a, const float *b,
                               ptrdiff_t b_stride, float *c,
                               ptrdiff_t c_stride, size_t mr, size_t nr,
                               unsigned flags,
                               const etr_gemm_epilogue_t *epilogue) {
  ROWS(DECLARE)
  if ((flags & ETR_GEMM_B_PACKED) || nr == NR) {
    for (size_t k = 0; k < kc; ++k) {
      const float32x4_t b0 = vld1q_f32(b);
      const float32x4_t b1 = vld1q_f32(b + 4);
      const float32x4_t b2 = vld1q_f32(b + 8);
      const float32x4_t a0 = vld1q_f32(a);
      const float32x4_t a1 = vld1q_f32(a + 4);
      ROWS(STEP)
      a += MR;
      b += b_stride;
    }
  } else {
    float row[NR] = {0.0f};
    for (size_t k = 0; k < kc; ++k) {
      memcpy(row, b, nr * sizeof(float));
      const float32x4_t b0 = vld1q_f32(row);
      const float32x4_t b1 = vld1q_f32(row + 4);
      const float32x4_t b2 = vld1q_f32(row + 8);
      const float32x4_t a0 = vld1q_f32(a);
      const float32x4_t a1 = vld1q_f32(a + 4);
      ROWS(STEP)
      a += MR;
      b += b_stride;
    }
  }
  ROWS(STORE)
}
