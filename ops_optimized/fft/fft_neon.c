// SPDX-License-Identifier: Apache-2.0
//
// FFT microkernels, NEON (four 128-bit registers of doubles per step):
// fft_lanes.h compiled with this file's flags. Semantics in fft.h.
#include "ops_optimized/fft/fft_lanes.h"

const etr_fft_kernels_t etr_fft_kernels_neon = {
    .transform = fft_lanes_transform,
    .r2c_split = fft_lanes_r2c_split,
    .c2r_merge = fft_lanes_c2r_merge,
    .all_finite = fft_lanes_all_finite,
    .scale_rows = fft_lanes_scale_rows,
    .stockham = fft_lanes_stockham,
};
