// SPDX-License-Identifier: Apache-2.0
//
// Roofline loops: dispatch to the widest ISA, and the plain-C versions for
// CPUs without AVX2 (see roofline.h).
#include "ops_optimized/bench/roofline.h"

#include "ops_optimized/isa.h"

double etr_bench_pattern_bytes(etr_bench_pattern_t pattern) {
  switch (pattern) {
    case ETR_BENCH_READ:
      return 4.0;
    case ETR_BENCH_COPY:
    case ETR_BENCH_COPY_STREAM:
      return 8.0;
    case ETR_BENCH_TRIAD:
    case ETR_BENCH_TRIAD_STREAM:
      return 12.0;
  }
  return 0.0;
}

static float pass_scalar(etr_bench_pattern_t pattern, float *a, float *b,
                         const float *c, size_t count) {
  float sums[8] = {0};
  switch (pattern) {
    case ETR_BENCH_READ:
      for (size_t i = 0; i < count; i += 8) {
        for (size_t j = 0; j < 8; ++j) {
          sums[j] += a[i + j];
        }
      }
      return sums[0] + sums[1] + sums[2] + sums[3] + sums[4] + sums[5] +
             sums[6] + sums[7];
    case ETR_BENCH_COPY:
    case ETR_BENCH_COPY_STREAM:
      for (size_t i = 0; i < count; ++i) {
        b[i] = a[i];
      }
      return b[count / 2];
    case ETR_BENCH_TRIAD:
    case ETR_BENCH_TRIAD_STREAM:
      for (size_t i = 0; i < count; ++i) {
        a[i] = b[i] + 0.5f * c[i];
      }
      return a[count / 2];
  }
  return 0.0f;
}

static double fma_chains_scalar(long iterations, float *sink) {
  float acc[24];
  for (int i = 0; i < 24; ++i) {
    acc[i] = (float)i;
  }
  for (long it = 0; it < iterations; ++it) {
    for (int i = 0; i < 24; ++i) {
      acc[i] = acc[i] * 0.999999f + 1e-7f;
    }
  }
  float total = 0.0f;
  for (int i = 0; i < 24; ++i) {
    total += acc[i];
  }
  *sink = total;
  return (double)iterations * 24.0 * 2.0;
}

etr_bench_pass_fn etr_bench_pass(const char **isa_name) {
#if defined(__x86_64__)
  if (etr_isa_available(ETR_ISA_AVX512)) {
    *isa_name = "avx512";
    return etr_bench_pass_avx512;
  }
  if (etr_isa_available(ETR_ISA_AVX2)) {
    *isa_name = "avx2";
    return etr_bench_pass_avx2;
  }
#endif
  *isa_name = "scalar";
  return pass_scalar;
}

double etr_bench_fma_chains(long iterations, float *sink) {
#if defined(__x86_64__)
  if (etr_isa_available(ETR_ISA_AVX512)) {
    return etr_bench_fma_chains_avx512(iterations, sink);
  }
  if (etr_isa_available(ETR_ISA_AVX2)) {
    return etr_bench_fma_chains_avx2(iterations, sink);
  }
#endif
  return fma_chains_scalar(iterations, sink);
}
