// SPDX-License-Identifier: Apache-2.0
//
// The portable 4 x 8 fp32 GEMM microkernel (no intrinsics; what every machine
// has; sums in double) and the per-ISA table of microkernels and block sizes.
//
// Block sizes: KC keeps an MR x KC micro-panel of A in L1 while KC x NR
// panels of B stream from L2; MC x KC (packed A) is the block reused across
// all of N, KC x NC (packed B) the one reused by every row panel; with the
// AVX-512 numbers they take 672 KiB + 256 KiB of the 1 MiB scratch arena
// (ETR_GEMM_PREFERRED_SCRATCH_BYTES), the A block from L3 (each micro-panel
// is used for NC / NR tiles once fetched, as BLIS's B block), the B block
// in L2. The larger MC, the fewer times B is packed: 12 x 56 rows rather
// than 12 x 28 ran 1024-cubed products 3-5% faster on an Intel Xeon.
#include "ops_optimized/gemm/gemm.h"

#define MR 4
#define NR 8

void etr_gemm_f32_ukernel_scalar(size_t kc, const float *a, const float *b,
                                 ptrdiff_t b_stride, float *c,
                                 ptrdiff_t c_stride, size_t mr, size_t nr,
                                 unsigned flags,
                                 const etr_gemm_epilogue_t *epilogue) {
  // Double sums (products of floats are exact in double): without a
  // hardware FMA this is what rounds like the SIMD kernels' fused
  // multiply-adds, tiny products that underflow included.
  double acc[MR][NR] = {{0.0}};
  for (size_t k = 0; k < kc; ++k) {
    const float *row = b + (ptrdiff_t)k * b_stride;
    for (size_t i = 0; i < MR; ++i) {
      double x = a[k * MR + i];
      for (size_t j = 0; j < nr; ++j) {
        acc[i][j] += x * row[j];
      }
    }
  }
  for (size_t i = 0; i < mr; ++i) {
    float *out = c + (ptrdiff_t)i * c_stride;
    for (size_t j = 0; j < nr; ++j) {
      double value = acc[i][j];
      if (flags & ETR_GEMM_ACCUMULATE) {
        value = (double)out[j] + value;
      }
      if (flags & ETR_GEMM_EPILOGUE) {
        value = (double)epilogue->alpha * value;
        if (epilogue->bias != NULL) {
          const float *bias =
              epilogue->bias + (ptrdiff_t)i * epilogue->bias_row_stride;
          value += (double)epilogue->beta *
                   (double)bias[epilogue->bias_per_row ? 0 : j];
        }
      }
      out[j] = (float)value;
    }
  }
}

static const etr_gemm_kernel_t kScalar = {
    .ukernel = etr_gemm_f32_ukernel_scalar,
    .pack_rows = etr_gemm_pack_rows_f32_scalar,
    .pack_columns = etr_gemm_pack_columns_f32_scalar,
    .mr = MR,
    .nr = NR,
    .kc = 256,
    .mc = 128,
    .nc = 256,
    .direct_b_max_m = MR,
};

#if defined(__x86_64__)
static const etr_gemm_kernel_t kAvx2 = {
    .ukernel = etr_gemm_f32_ukernel_avx2,
    .ukernel_direct_a = etr_gemm_f32_ukernel_direct_a_avx2,
    .gemv = etr_gemm_f32_gemv_avx2,
    .pack_rows = etr_gemm_pack_rows_f32_avx2,
    .pack_columns = etr_gemm_pack_columns_f32_scalar,
    .mr = 6,
    .nr = 16,
    .kc = 256,
    .mc = 6 * 48,
    .nc = 256,
    .direct_b_max_m = 12,
    .fuses_post = true,
};
// K blocks of 512 for the 8 x 48 tile: each block after the first reads
// and writes all of C again, which past L2 (mm 1024^3: C is 4 MiB) is
// memory traffic. The A micro-panel (8 x 512, 16 KiB) still stays in L1
// while B's panels stream from L2. Paired runs on the Intel Xeon of
// 2026-12-04: mm 1024^3 as a program 0.946x time (gemm_bench +5.9%),
// 512^3 +4.1%, 2048^3 +4.8%, linear 512 +4.3%, the convolutions 1.00x;
// K blocks of 384 lost 3-4% against 512, of 1024 gained 0-3% more
// (0.99x as a program) for twice the scratch.
static const etr_gemm_kernel_t kAvx512NarrowWide = {
    .ukernel = etr_gemm_f32_ukernel_8x48_avx512,
    .ukernel_direct_a = etr_gemm_f32_ukernel_8x48_direct_a_avx512,
    .ukernel_pack_b = etr_gemm_f32_ukernel_8x48_pack_b_avx512,
    .gemv = etr_gemm_f32_gemv_avx512,
    .pack_rows = etr_gemm_pack_rows_f32_avx512,
    .pack_columns = etr_gemm_pack_columns_f32_avx512,
    .mr = 8,
    .nr = 48,
    .kc = 512,
    .mc = 8 * 40,
    .nc = 240,
    .direct_b_max_m = 24,
    .fuses_post = true,
};
static const etr_gemm_kernel_t kAvx512Narrow = {
    .ukernel = etr_gemm_f32_ukernel_8x32_avx512,
    .ukernel_direct_a = etr_gemm_f32_ukernel_8x32_direct_a_avx512,
    .ukernel_pack_b = etr_gemm_f32_ukernel_8x32_pack_b_avx512,
    .gemv = etr_gemm_f32_gemv_avx512,
    .pack_rows = etr_gemm_pack_rows_f32_avx512,
    .pack_columns = etr_gemm_pack_columns_f32_avx512,
    .mr = 8,
    .nr = 32,
    .kc = 512,
    .mc = 8 * 40,
    .nc = 256,
    .direct_b_max_m = 24,
    .wide = &kAvx512NarrowWide,
    .fuses_post = true,
};
static const etr_gemm_kernel_t kAvx512 = {
    .ukernel = etr_gemm_f32_ukernel_avx512,
    .ukernel_direct_a = etr_gemm_f32_ukernel_direct_a_avx512,
    .ukernel_pack_b = etr_gemm_f32_ukernel_pack_b_avx512,
    .gemv = etr_gemm_f32_gemv_avx512,
    .pack_rows = etr_gemm_pack_rows_f32_avx512,
    .pack_columns = etr_gemm_pack_columns_f32_avx512,
    .mr = 12,
    .nr = 32,
    .kc = 512,
    .mc = 12 * 56,
    .nc = 256,
    .direct_b_max_m = 24,
    .narrow = &kAvx512Narrow,
    .fuses_post = true,
};
#endif
#if defined(__aarch64__)
static const etr_gemm_kernel_t kNeon = {
    .ukernel = etr_gemm_f32_ukernel_neon,
    .pack_rows = etr_gemm_pack_rows_f32_scalar,
    .pack_columns = etr_gemm_pack_columns_f32_scalar,
    .mr = 8,
    .nr = 12,
    .kc = 256,
    .mc = 8 * 40,
    .nc = 240,
    .direct_b_max_m = 16,
};
#endif

const etr_gemm_kernel_t *etr_gemm_kernel_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &kAvx512;
    case ETR_ISA_AVX2:
      return &kAvx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &kNeon;
#endif
    default:
      return &kScalar;
  }
}
