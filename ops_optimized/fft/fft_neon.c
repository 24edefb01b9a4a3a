// SPDX-License-Identifier: Apache-2.0
//
// FFT microkernels, NEON (a row of 16 lanes in four 128-bit parts):
// fft_lanes.h compiled with this file's flags. Semantics in fft.h.
#define FFT_VECTOR_LANES 4
#include "ops_optimized/fft/fft_lanes.h"

const etr_fft_kernels_t etr_fft_kernels_neon = {
    FFT_LANES_KERNELS,
};
