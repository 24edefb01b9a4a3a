// SPDX-License-Identifier: Apache-2.0
//
// FFT microkernels, portable C (the baseline of every machine; SSE2 on
// x86-64, a row of 16 lanes in four 128-bit parts):
// fft_lanes.h compiled with this file's flags. Semantics in fft.h.
#define FFT_VECTOR_LANES 4
#include "ops_optimized/fft/fft_lanes.h"

const etr_fft_kernels_t etr_fft_kernels_scalar = {
    FFT_LANES_KERNELS,
};

const etr_fft_kernels_t *etr_fft_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_fft_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_fft_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_fft_kernels_neon;
#endif
    default:
      return &etr_fft_kernels_scalar;
  }
}
