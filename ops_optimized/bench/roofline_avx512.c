// SPDX-License-Identifier: Apache-2.0
//
// Roofline loops, AVX-512 (see roofline.h): 64 floats per step in four
// independent vectors, aligned loads and stores
// (streaming stores for the _STREAM patterns, fenced at the end). The
// streaming copy also prefetches every line it reads ROOF_PREFETCH_FLOATS
// ahead, as the unary kernels' streaming loops do
// (ops_optimized/common/stream.h): on Zen 4 (2026-12-05, 16 Mi floats)
// 37-41 -> 44-46 GB/s, where relu, prefetching so, had run at 46-47
// beside the copy's 42-44. The streaming triad did no better with it
// (28-36 against 31-36 GB/s), nor do the binary kernels prefetch.
#include <immintrin.h>

#include "ops_optimized/bench/roofline.h"

// ops_optimized/common/stream.h's ETR_STREAM_PREFETCH_FLOATS (2 KiB).
#define ROOF_PREFETCH_FLOATS 512

// The lines of 64 floats from p, ROOF_PREFETCH_FLOATS ahead.
static inline void prefetch_step(const float *p) {
  for (int f = 0; f < 64; f += 16) {
    _mm_prefetch((const char *)(p + ROOF_PREFETCH_FLOATS + f), _MM_HINT_T0);
  }
}

float etr_bench_pass_avx512(etr_bench_pattern_t pattern, float *a, float *b,
                            const float *c, size_t count) {
  const __m512 half = _mm512_set1_ps(0.5f);
  switch (pattern) {
    case ETR_BENCH_READ: {
      __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
      for (size_t i = 0; i < count; i += 64) {
        s0 = _mm512_add_ps(s0, _mm512_load_ps(a + i));
        s1 = _mm512_add_ps(s1, _mm512_load_ps(a + i + 16));
        s2 = _mm512_add_ps(s2, _mm512_load_ps(a + i + 32));
        s3 = _mm512_add_ps(s3, _mm512_load_ps(a + i + 48));
      }
      return _mm512_reduce_add_ps(
          _mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    }
    case ETR_BENCH_COPY:
      for (size_t i = 0; i < count; i += 64) {
        __m512 x0 = _mm512_load_ps(a + i);
        __m512 x1 = _mm512_load_ps(a + i + 16);
        __m512 x2 = _mm512_load_ps(a + i + 32);
        __m512 x3 = _mm512_load_ps(a + i + 48);
        _mm512_store_ps(b + i, x0);
        _mm512_store_ps(b + i + 16, x1);
        _mm512_store_ps(b + i + 32, x2);
        _mm512_store_ps(b + i + 48, x3);
      }
      return b[count / 2];
    case ETR_BENCH_TRIAD:
      for (size_t i = 0; i < count; i += 64) {
        for (size_t j = 0; j < 64; j += 16) {
          _mm512_store_ps(a + i + j,
                          _mm512_fmadd_ps(half, _mm512_load_ps(c + i + j),
                                          _mm512_load_ps(b + i + j)));
        }
      }
      return a[count / 2];
    case ETR_BENCH_COPY_STREAM:
      for (size_t i = 0; i < count; i += 64) {
        if (i + ROOF_PREFETCH_FLOATS + 64 <= count) {
          prefetch_step(a + i);
        }
        for (size_t j = 0; j < 64; j += 16) {
          _mm512_stream_ps(b + i + j, _mm512_load_ps(a + i + j));
        }
      }
      _mm_sfence();
      return b[count / 2];
    case ETR_BENCH_TRIAD_STREAM:
      for (size_t i = 0; i < count; i += 64) {
        for (size_t j = 0; j < 64; j += 16) {
          _mm512_stream_ps(a + i + j,
                          _mm512_fmadd_ps(half, _mm512_load_ps(c + i + j),
                                          _mm512_load_ps(b + i + j)));
        }
      }
      _mm_sfence();
      return a[count / 2];
  }
  return 0.0f;
}

double etr_bench_fma_chains_avx512(long iterations, float *sink) {
  __m512 acc[24];
  const __m512 scale = _mm512_set1_ps(0.999999f);
  const __m512 offset = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < 24; ++i) {
    acc[i] = _mm512_set1_ps((float)i);
  }
  for (long it = 0; it < iterations; ++it) {
#pragma GCC unroll 24
    for (int i = 0; i < 24; ++i) {
      acc[i] = _mm512_fmadd_ps(acc[i], scale, offset);
    }
  }
  __m512 total = acc[0];
  for (int i = 1; i < 24; ++i) {
    total = _mm512_add_ps(total, acc[i]);
  }
  *sink = _mm512_reduce_add_ps(total);
  return (double)iterations * 24.0 * 2.0 * 16.0;
}
