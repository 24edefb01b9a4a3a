// SPDX-License-Identifier: Apache-2.0
//
// fp32 FMA peak, avx2: 24 independent chains of 8-lane FMAs (fma_peak.h).
#define _POSIX_C_SOURCE 200809L  // clock_gettime

#include <immintrin.h>
#include <time.h>

#include "ops_optimized/tools/fma_peak.h"

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double etr_bench_fma_peak_avx2(void) {
  __m256 acc[24];
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  for (int i = 0; i < 24; ++i) {
    acc[i] = _mm256_set1_ps((float)i);
  }
  const long iterations = 20000000;
  double best = 0.0;
  for (int trial = 0; trial < 3; ++trial) {
    double start = cpu_seconds();
    for (long it = 0; it < iterations; ++it) {
#pragma GCC unroll 24
      for (int i = 0; i < 24; ++i) {
        acc[i] = _mm256_fmadd_ps(acc[i], a, b);
      }
    }
    double elapsed = cpu_seconds() - start;
    double gflops = (double)iterations * 24.0 * 2.0 * 8 / elapsed * 1e-9;
    best = gflops > best ? gflops : best;
  }
  // Keep the chains live.
  float sink[8];
  __m256 total = acc[0];
  for (int i = 1; i < 24; ++i) {
    total = _mm256_add_ps(total, acc[i]);
  }
  _mm256_storeu_ps(sink, total);
  return sink[0] == 12345.0f ? best + 1e-9 : best;
}
