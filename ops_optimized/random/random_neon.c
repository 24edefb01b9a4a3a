// SPDX-License-Identifier: Apache-2.0
//
// SplitMix64 draws, NEON (aarch64 Advanced SIMD): 2 counters per vector,
// two vectors per step; NEON has no 64-bit multiply, so each product is
// lo*lo + ((lo*hi + hi*lo) << 32) from UMULL/UMLAL on 32-bit halves (the
// low 64 bits, exactly). Tails through a stack buffer. Semantics in
// random.h.
#include <arm_neon.h>
#include <string.h>

#include "ops_optimized/random/random.h"

static inline uint64x2_t mullo64(uint64x2_t a, uint32x2_t b_lo,
                                 uint32x2_t b_hi) {
  uint32x2_t a_lo = vmovn_u64(a);
  uint32x2_t a_hi = vshrn_n_u64(a, 32);
  uint64x2_t cross = vmull_u32(a_lo, b_hi);
  cross = vmlal_u32(cross, a_hi, b_lo);
  return vmlal_u32(vshlq_n_u64(cross, 32), a_lo, b_lo);
}

static void draws_neon(uint64_t state, size_t n, uint64_t *out) {
  const uint64_t k1 = UINT64_C(0xbf58476d1ce4e5b9);
  const uint64_t k2 = UINT64_C(0x94d049bb133111eb);
  const uint32x2_t m1_lo = vdup_n_u32((uint32_t)k1);
  const uint32x2_t m1_hi = vdup_n_u32((uint32_t)(k1 >> 32));
  const uint32x2_t m2_lo = vdup_n_u32((uint32_t)k2);
  const uint32x2_t m2_hi = vdup_n_u32((uint32_t)(k2 >> 32));
  const uint64x2_t step = vdupq_n_u64(ETR_RANDOM_GAMMA * 2);
  uint64_t first[2] = {state + 1 * ETR_RANDOM_GAMMA,
                       state + 2 * ETR_RANDOM_GAMMA};
  uint64x2_t z0 = vld1q_u64(first);
  for (size_t k = 0; k < n; k += 2) {
    uint64x2_t z = z0;
    z = mullo64(veorq_u64(z, vshrq_n_u64(z, 30)), m1_lo, m1_hi);
    z = mullo64(veorq_u64(z, vshrq_n_u64(z, 27)), m2_lo, m2_hi);
    z = veorq_u64(z, vshrq_n_u64(z, 31));
    if (n - k >= 2) {
      vst1q_u64(out + k, z);
    } else {
      out[k] = vgetq_lane_u64(z, 0);
    }
    z0 = vaddq_u64(z0, step);
  }
}

const etr_random_kernels_t etr_random_kernels_neon = {
    .draws = draws_neon,
};
