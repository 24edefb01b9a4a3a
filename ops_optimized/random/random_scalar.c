// SPDX-License-Identifier: Apache-2.0
//
// SplitMix64 draws, portable C (the baseline and the model of the SIMD
// files), and the table selection. Semantics in random.h.
#include "ops_optimized/random/random.h"

static void draws_scalar(uint64_t state, size_t n, uint64_t *out) {
  for (size_t k = 0; k < n; ++k) {
    uint64_t z = state + (uint64_t)(k + 1) * ETR_RANDOM_GAMMA;
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    out[k] = z ^ (z >> 31);
  }
}

const etr_random_kernels_t etr_random_kernels_scalar = {
    .draws = draws_scalar,
};

const etr_random_kernels_t *etr_random_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_random_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_random_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_random_kernels_neon;
#endif
    default:
      return &etr_random_kernels_scalar;
  }
}
