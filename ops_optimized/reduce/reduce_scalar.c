// SPDX-License-Identifier: Apache-2.0
//
// Reduction microkernels in portable C (the baseline every machine has and
// the model the SIMD files follow), the helpers the SIMD extremum kernels
// share, and the per-ISA selection of the reduction table.
#include <math.h>
#include <string.h>

#include "ops_optimized/reduce/reduce.h"

static void sum_rows_scalar(size_t rows, size_t n, const float *x,
                            double *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    double acc[4] = {0.0, 0.0, 0.0, 0.0};
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
      for (size_t k = 0; k < 4; ++k) {
        acc[k] += (double)x[j + k];
      }
    }
    for (; j < n; ++j) {
      acc[0] += (double)x[j];
    }
    y[o] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }
}

static void sum_cols_scalar(size_t r, size_t n, size_t stride,
                            const float *x, double *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = 0.0;
  }
  for (size_t j = 0; j < r; ++j) {
    const float *row = x + j * stride;
    for (size_t i = 0; i < n; ++i) {
      y[i] += (double)row[i];
    }
  }
}

static void sumsq_rows_scalar(size_t rows, size_t n, const float *x,
                              const double *mean, double *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    double acc = 0.0;
    for (size_t j = 0; j < n; ++j) {
      double d = (double)x[j] - mean[o];
      acc += d * d;
    }
    y[o] = acc;
  }
}

static void sumsq_cols_scalar(size_t r, size_t n, size_t stride,
                              const float *x, const double *mean,
                              double *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = 0.0;
  }
  for (size_t j = 0; j < r; ++j) {
    const float *row = x + j * stride;
    for (size_t i = 0; i < n; ++i) {
      double d = (double)row[i] - mean[i];
      y[i] += d * d;
    }
  }
}

// True when `candidate` replaces `best` in a sequential scan: a NaN is
// never replaced and replaces anything else; otherwise strictly better.
static inline bool replaces(float candidate, float best, bool is_max) {
  if (isnan(best)) {
    return false;
  }
  if (isnan(candidate)) {
    return true;
  }
  return is_max ? candidate > best : candidate < best;
}

static void extremum_rows_scalar(size_t rows, size_t n, const float *x,
                                 bool is_max, float *values,
                                 int64_t *indices) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    float best = x[0];
    size_t best_index = 0;
    for (size_t j = 1; j < n; ++j) {
      if (replaces(x[j], best, is_max)) {
        best = x[j];
        best_index = j;
      }
    }
    if (values != NULL) {
      values[o] = best;
    }
    if (indices != NULL) {
      indices[o] = (int64_t)best_index;
    }
  }
}

static void extremum_cols_scalar(size_t r, size_t n, size_t stride,
                                 const float *x, bool is_max, float *values,
                                 int64_t *indices) {
  for (size_t i = 0; i < n; ++i) {
    float best = x[i];
    size_t best_index = 0;
    for (size_t j = 1; j < r; ++j) {
      float v = x[j * stride + i];
      if (replaces(v, best, is_max)) {
        best = v;
        best_index = j;
      }
    }
    if (values != NULL) {
      values[i] = best;
    }
    if (indices != NULL) {
      indices[i] = (int64_t)best_index;
    }
  }
}

static void any_rows_scalar(size_t rows, size_t n, const float *x, bool *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    bool any = false;
    for (size_t j = 0; j < n && !any; ++j) {
      any = x[j] != 0.0f;  // true for NaN
    }
    y[o] = any;
  }
}

static void any_cols_scalar(size_t r, size_t n, size_t stride,
                            const float *x, bool *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = false;
  }
  for (size_t j = 0; j < r; ++j) {
    for (size_t i = 0; i < n; ++i) {
      y[i] = y[i] || x[j * stride + i] != 0.0f;
    }
  }
}

static void any_rows_u8_scalar(size_t rows, size_t n, const uint8_t *x,
                               bool *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    bool any = false;
    for (size_t j = 0; j < n && !any; ++j) {
      any = x[j] != 0;
    }
    y[o] = any;
  }
}

static void any_cols_u8_scalar(size_t r, size_t n, size_t stride,
                               const uint8_t *x, bool *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = false;
  }
  for (size_t j = 0; j < r; ++j) {
    for (size_t i = 0; i < n; ++i) {
      y[i] = y[i] || x[j * stride + i] != 0;
    }
  }
}

static size_t topk_first_entering_scalar(size_t first, size_t n,
                                         const float *x, float bound,
                                         bool largest) {
  size_t i = first;
  while (i < n && !etr_topk_enters(x[i], bound, largest)) {
    ++i;
  }
  return i;
}

size_t etr_reduce_count_nonzero_scalar(size_t n, const float *x) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    count += x[i] != 0.0f;
  }
  return count;
}

size_t etr_reduce_nonzero_positions_scalar(size_t n, const float *x,
                                           int64_t *y) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (x[i] != 0.0f) {
      y[count++] = (int64_t)i;
    }
  }
  return count;
}

// Bit 8 k + 7 set where byte k of the eight at x is not 0: the low seven
// bits plus 0x7f carry into bit 7 unless they are all 0.
static inline uint64_t nonzero_bytes(const uint8_t *x) {
  const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
  uint64_t v;
  memcpy(&v, x, sizeof(v));
  return (((v & low7) + low7) | v) & ~low7;
}

size_t etr_reduce_count_nonzero_u8_scalar(size_t n, const uint8_t *x) {
  size_t count = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    count += (size_t)__builtin_popcountll(nonzero_bytes(x + i));
  }
  for (; i < n; ++i) {
    count += x[i] != 0;
  }
  return count;
}

// Each eight bytes' set bits, lowest first (bit 8 k + 7 is byte k).
size_t etr_reduce_nonzero_positions_u8_scalar(size_t n, const uint8_t *x,
                                              int64_t *y) {
  size_t count = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (uint64_t m = nonzero_bytes(x + i); m != 0; m &= m - 1) {
      y[count++] = (int64_t)(i + (size_t)__builtin_ctzll(m) / 8);
    }
  }
  for (; i < n; ++i) {
    if (x[i] != 0) {
      y[count++] = (int64_t)i;
    }
  }
  return count;
}

void etr_reduce_accumulate_f64_scalar(size_t n, const float *x, double *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] += (double)x[i];
  }
}

void etr_reduce_round_f64_scalar(size_t n, const double *y, float *z) {
  for (size_t i = 0; i < n; ++i) {
    z[i] = (float)y[i];
  }
}

const etr_reduce_kernels_t etr_reduce_kernels_scalar = {
    .sum_rows = sum_rows_scalar,
    .sum_cols = sum_cols_scalar,
    .sumsq_rows = sumsq_rows_scalar,
    .sumsq_cols = sumsq_cols_scalar,
    .extremum_rows = extremum_rows_scalar,
    .extremum_cols = extremum_cols_scalar,
    .any_rows = any_rows_scalar,
    .any_cols = any_cols_scalar,
    .any_rows_u8 = any_rows_u8_scalar,
    .any_cols_u8 = any_cols_u8_scalar,
    .topk_first_entering = topk_first_entering_scalar,
    .count_nonzero = etr_reduce_count_nonzero_scalar,
    .nonzero_positions = etr_reduce_nonzero_positions_scalar,
    .count_nonzero_u8 = etr_reduce_count_nonzero_u8_scalar,
    .nonzero_positions_u8 = etr_reduce_nonzero_positions_u8_scalar,
    .accumulate_f64 = etr_reduce_accumulate_f64_scalar,
    .round_f64 = etr_reduce_round_f64_scalar,
    .int_block = etr_reduce_int_block_scalar,
};

const etr_reduce_kernels_t *etr_reduce_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_reduce_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_reduce_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_reduce_kernels_neon;
#endif
    default:
      return &etr_reduce_kernels_scalar;
  }
}

float etr_reduce_extremum_fixup(size_t n, const float *x, float result,
                                bool saw_nan) {
  if (saw_nan) {
    for (size_t j = 0; j < n; ++j) {
      if (isnan(x[j])) {
        return x[j];  // the first NaN, its payload kept
      }
    }
  }
  if (result == 0.0f) {
    for (size_t j = 0; j < n; ++j) {
      if (x[j] == 0.0f) {
        return x[j];  // the first zero decides the sign
      }
    }
  }
  return result;
}

void etr_reduce_merge_candidates(size_t count, const float *values,
                                 const int32_t *indices, bool is_max,
                                 float *value_out, int64_t *index_out) {
  float best = values[0];
  int32_t best_index = indices[0];
  for (size_t k = 1; k < count; ++k) {
    float v = values[k];
    int32_t i = indices[k];
    bool v_nan = isnan(v);
    bool best_nan = isnan(best);
    bool better;
    if (v_nan || best_nan) {
      better = v_nan && (!best_nan || i < best_index);
    } else if (v == best) {
      better = i < best_index;
    } else {
      better = is_max ? v > best : v < best;
    }
    if (better) {
      best = v;
      best_index = i;
    }
  }
  *value_out = best;
  *index_out = best_index;
}
