// SPDX-License-Identifier: Apache-2.0
//
// FFT microkernels, NEON (four 128-bit registers of floats per step):
// fft_lanes.h compiled with this file's flags. Semantics in fft.h.
#include "ops_optimized/fft/fft_lanes.h"

const etr_fft_kernels_t etr_fft_kernels_neon = {
    FFT_LANES_KERNELS,
};
