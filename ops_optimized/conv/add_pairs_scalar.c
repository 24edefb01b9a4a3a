// SPDX-License-Identifier: Apache-2.0
//
// out[2i] += a[i], out[2i + 1] += b[i] (conv.h, etr_conv_add_pairs_fn)
// and its storing twin etr_conv_put_pairs_fn, portable C, and the per-ISA
// selection: the stride-2 scatter of a transposed convolution, two kernel
// columns at once (conv_transposed.c).
#include "ops_optimized/conv/conv.h"

void etr_conv_add_pairs_scalar(size_t n, const float *a, const float *b,
                               float *out) {
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] += a[i];
    out[2 * i + 1] += b[i];
  }
}

etr_conv_add_pairs_fn etr_conv_add_pairs_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_conv_add_pairs_avx512;
    case ETR_ISA_AVX2:
      return etr_conv_add_pairs_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return etr_conv_add_pairs_neon;
#endif
    default:
      return etr_conv_add_pairs_scalar;
  }
}

etr_conv_add_pair_plane_fn etr_conv_add_pair_plane_for(etr_isa_t isa) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX512) {
    return etr_conv_add_pair_plane_avx512;
  }
#endif
  (void)isa;
  return NULL;
}

void etr_conv_put_pairs_scalar(size_t n, const float *a, const float *b,
                               float bias, float *out) {
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = (a[i] + 0.0f) + bias;
    out[2 * i + 1] = (b[i] + 0.0f) + bias;
  }
}

etr_conv_put_pairs_fn etr_conv_put_pairs_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_conv_put_pairs_avx512;
    case ETR_ISA_AVX2:
      return etr_conv_put_pairs_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return etr_conv_put_pairs_neon;
#endif
    default:
      return etr_conv_put_pairs_scalar;
  }
}

etr_conv_pairs_tile_fn etr_conv_pairs_tile_for(etr_isa_t isa,
                                               const etr_gemm_kernel_t *k) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX512 && k != NULL) {
    if (k->ukernel == etr_gemm_f32_ukernel_avx512) {
      return etr_conv_pairs_tile_12x32_avx512;
    }
    if (k->ukernel == etr_gemm_f32_ukernel_8x32_avx512) {
      return etr_conv_pairs_tile_8x32_avx512;
    }
    if (k->ukernel == etr_gemm_f32_ukernel_8x48_avx512) {
      return etr_conv_pairs_tile_8x48_avx512;
    }
  }
  if (isa == ETR_ISA_AVX2 && k != NULL &&
      k->ukernel == etr_gemm_f32_ukernel_avx2) {
    return etr_conv_pairs_tile_6x16_avx2;
  }
#endif
  (void)isa;
  (void)k;
  return NULL;
}
