// SPDX-License-Identifier: Apache-2.0
//
// Tensor comparison and metrics (see metrics.h).
#include "prof/oracle/metrics.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_reference/support/element.h"

// ---- float dtypes -------------------------------------------------------

double etr_oracle_epsilon(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_FLOAT: return ldexp(1.0, -23);
    case ETR_DOUBLE: return ldexp(1.0, -52);
    case ETR_HALF: return ldexp(1.0, -10);
    case ETR_BFLOAT16: return ldexp(1.0, -7);
    default: return 0;
  }
}

double etr_oracle_min_normal(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_FLOAT: return FLT_MIN;
    case ETR_DOUBLE: return DBL_MIN;
    case ETR_HALF: return ldexp(1.0, -14);
    case ETR_BFLOAT16: return FLT_MIN;
    default: return 0;
  }
}

// Maps a sign-magnitude bit pattern of `bits` width onto an ordered signed
// integer line: +0 and -0 to 0, the next positive value to 1, the next
// negative value to -1, and so on.
static int64_t ordered(uint64_t pattern, int bits) {
  uint64_t sign = 1ull << (bits - 1);
  uint64_t magnitude = pattern & (sign - 1);
  return (pattern & sign) ? -(int64_t)magnitude : (int64_t)magnitude;
}

static bool is_nan_bits(etr_scalar_type_t dtype, uint64_t pattern) {
  switch (dtype) {
    case ETR_FLOAT: return (pattern & 0x7F800000u) == 0x7F800000u &&
                           (pattern & 0x007FFFFFu) != 0;
    case ETR_DOUBLE:
      return (pattern & 0x7FF0000000000000ull) == 0x7FF0000000000000ull &&
             (pattern & 0x000FFFFFFFFFFFFFull) != 0;
    case ETR_HALF: return (pattern & 0x7C00u) == 0x7C00u &&
                          (pattern & 0x03FFu) != 0;
    case ETR_BFLOAT16: return (pattern & 0x7F80u) == 0x7F80u &&
                              (pattern & 0x007Fu) != 0;
    default: return false;
  }
}

static int float_bits(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_FLOAT: return 32;
    case ETR_DOUBLE: return 64;
    case ETR_HALF:
    case ETR_BFLOAT16: return 16;
    default: return 0;
  }
}

static uint64_t load_bits(etr_scalar_type_t dtype, const void *element) {
  uint64_t pattern = 0;
  switch (float_bits(dtype)) {
    case 16: { uint16_t v; memcpy(&v, element, 2); pattern = v; break; }
    case 32: { uint32_t v; memcpy(&v, element, 4); pattern = v; break; }
    case 64: memcpy(&pattern, element, 8); break;
    default: break;
  }
  return pattern;
}

uint64_t etr_oracle_ulp_distance(etr_scalar_type_t dtype, const void *a,
                                 const void *b) {
  int bits = float_bits(dtype);
  if (bits == 0) {
    return UINT64_MAX;
  }
  uint64_t x = load_bits(dtype, a);
  uint64_t y = load_bits(dtype, b);
  if (is_nan_bits(dtype, x) || is_nan_bits(dtype, y)) {
    return UINT64_MAX;
  }
  int64_t ox = ordered(x, bits);
  int64_t oy = ordered(y, bits);
  // |ox - oy| without overflow: both lie within +-(2^63 - 1).
  return ox >= oy ? (uint64_t)ox - (uint64_t)oy : (uint64_t)oy - (uint64_t)ox;
}

double etr_oracle_ulp_of(etr_scalar_type_t dtype, double value) {
  double magnitude = fabs(value);
  if (!isfinite(magnitude)) {
    return INFINITY;
  }
  switch (dtype) {
    case ETR_FLOAT: {
      float v = (float)magnitude;
      if (v >= FLT_MAX) {
        return (double)FLT_MAX - (double)nextafterf(FLT_MAX, 0);
      }
      return (double)nextafterf(v, INFINITY) - (double)v;
    }
    case ETR_DOUBLE:
      if (magnitude >= DBL_MAX) {
        return DBL_MAX - nextafter(DBL_MAX, 0);
      }
      return nextafter(magnitude, INFINITY) - magnitude;
    case ETR_HALF:
    case ETR_BFLOAT16: {
      // Step the 16-bit pattern of the value rounded to the dtype.
      bool half = dtype == ETR_HALF;
      uint16_t pattern = half ? etr_float_to_half((float)magnitude)
                              : etr_float_to_bfloat16((float)magnitude);
      uint16_t top = half ? 0x7BFF : 0x7F7F;  // largest finite
      if (pattern >= top) {
        pattern = top - 1;
      }
      double low = half ? etr_half_to_float(pattern)
                        : etr_bfloat16_to_float(pattern);
      double high = half ? etr_half_to_float((uint16_t)(pattern + 1))
                         : etr_bfloat16_to_float((uint16_t)(pattern + 1));
      return high - low;
    }
    default:
      return 0;
  }
}

double etr_oracle_element_bound(const etr_oracle_bound_t *bound,
                                etr_scalar_type_t dtype, double reference,
                                double magnitude) {
  const etr_oracle_tolerance_t *t = bound->tolerance;
  if (t == NULL || t->exact) {
    return 0;
  }
  double eps = etr_oracle_epsilon(dtype);
  double result = t->abs_eps * eps + t->rel_eps * eps * fabs(reference);
  if (t->ulp > 0) {
    result += t->ulp * etr_oracle_ulp_of(dtype, reference);
  }
  if (t->k_aware && bound->magnitude != NULL) {
    double u = eps / 2;
    double ku = (double)bound->k * u;
    double gamma = ku < 1 ? ku / (1 - ku) : INFINITY;
    result += t->k_factor * 2 * gamma * fabs(magnitude);
  }
  if (bound->flush_denormals) {
    result += etr_oracle_min_normal(dtype);
  }
  return result;
}

// ---- comparison ------------------------------------------------------------

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a;
  uint64_t y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

// The k-th smallest of `values` (reorders them).
static uint64_t select_kth(uint64_t *values, size_t count, size_t k) {
  qsort(values, count, sizeof(uint64_t), compare_u64);
  return values[k];
}

static void note_worst(etr_oracle_metrics_t *m, int64_t index, double excess,
                       double *worst_excess, double c, double r,
                       double bound) {
  if (m->worst_index < 0 || excess > *worst_excess) {
    *worst_excess = excess;
    m->worst_index = index;
    m->worst_candidate = c;
    m->worst_reference = r;
    m->worst_bound = bound;
  }
}

static bool comparable_dtype(etr_scalar_type_t dtype) {
  return etr_scalar_type_is_floating(dtype) ||
         etr_scalar_type_is_integral(dtype, true);
}

etr_error_t etr_oracle_compare(const etr_tensor_t *candidate,
                               const etr_tensor_t *reference,
                               const etr_oracle_bound_t *bound,
                               etr_oracle_metrics_t *m, etr_diag_t *diag) {
  memset(m, 0, sizeof(*m));
  m->worst_index = -1;
  m->cosine = NAN;
  m->sqnr_db = NAN;
  m->dtype_match = candidate->dtype == reference->dtype;
  m->shape_match = candidate->dim == reference->dim;
  for (int32_t d = 0; m->shape_match && d < reference->dim; ++d) {
    m->shape_match = candidate->sizes[d] == reference->sizes[d];
  }
  m->numel = etr_tensor_numel(reference);
  m->unsupported_dtype = !comparable_dtype(reference->dtype);
  if (!m->dtype_match || !m->shape_match || m->unsupported_dtype ||
      (m->numel > 0 &&
       (candidate->data == NULL || reference->data == NULL))) {
    return ETR_OK;
  }
  m->compared = true;
  etr_scalar_type_t dtype = reference->dtype;
  bool floating = etr_scalar_type_is_floating(dtype);
  m->quantized = !floating && bound->quantized;
  uint64_t *ulps = NULL;
  if (floating && m->numel > 0) {
    ulps = (uint64_t *)malloc((size_t)m->numel * sizeof(uint64_t));
    ETR_CHECK(diag, ulps != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
              "out of memory comparing %lld elements", (long long)m->numel);
  }
  size_t num_ulps = 0;
  double dot = 0, norm_c = 0, norm_r = 0, noise = 0;
  double worst_excess = 0;
  int64_t index[ETR_MAX_DIMS] = {0};
  const etr_oracle_tolerance_t *t = bound->tolerance;
  for (int64_t flat = 0; flat < m->numel; ++flat) {
    const void *ce = etr_element_at(candidate,
                                    etr_tensor_offset(candidate, index));
    const void *re = etr_element_at(reference,
                                    etr_tensor_offset(reference, index));
    if (!floating) {
      int64_t c = etr_load_int64(dtype, ce);
      int64_t r = etr_load_int64(dtype, re);
      // |c - r| saturating: integers of any width fit after widening,
      // except extreme int64 pairs.
      int64_t diff = 0;
      if (__builtin_sub_overflow(c, r, &diff)) {
        diff = INT64_MAX;
      }
      int64_t steps = diff < 0 ? (diff == INT64_MIN ? INT64_MAX : -diff)
                               : diff;
      m->max_steps = steps > m->max_steps ? steps : m->max_steps;
      double error = (double)steps;
      m->max_abs_error = error > m->max_abs_error ? error : m->max_abs_error;
      if (r != 0) {
        double rel = error / fabs((double)r);
        m->max_rel_error = rel > m->max_rel_error ? rel : m->max_rel_error;
      }
      int64_t allowed = m->quantized ? bound->steps : 0;
      dot += (double)c * (double)r;
      norm_c += (double)c * (double)c;
      norm_r += (double)r * (double)r;
      noise += error * error;
      ++m->finite_pairs;
      if (steps > allowed) {
        ++m->mismatches;
        note_worst(m, flat, (double)(steps - allowed), &worst_excess,
                   (double)c, (double)r, (double)allowed);
      }
    } else {
      double c = etr_load_double(dtype, ce);
      double r = etr_load_double(dtype, re);
      if (!isfinite(c) || !isfinite(r)) {
        bool same = (isnan(c) && isnan(r)) ||
                    (isinf(c) && isinf(r) && (c > 0) == (r > 0));
        if (!same) {
          ++m->mismatches;
          if (isnan(c) != isnan(r)) {
            ++m->nan_mismatches;
          } else {
            ++m->inf_mismatches;
          }
          note_worst(m, flat, INFINITY, &worst_excess, c, r, 0);
        }
      } else {
        ++m->finite_pairs;
        double error = fabs(c - r);
        m->max_abs_error =
            error > m->max_abs_error ? error : m->max_abs_error;
        if (r != 0) {
          double rel = error / fabs(r);
          m->max_rel_error = rel > m->max_rel_error ? rel : m->max_rel_error;
        }
        uint64_t ulp = etr_oracle_ulp_distance(dtype, ce, re);
        ulps[num_ulps++] = ulp;
        m->max_ulp = ulp > m->max_ulp ? ulp : m->max_ulp;
        dot += c * r;
        norm_c += c * c;
        norm_r += r * r;
        noise += (c - r) * (c - r);
        double magnitude =
            bound->magnitude != NULL ? bound->magnitude[flat] : 0;
        bool within;
        double limit = 0;
        if (t == NULL || t->exact) {
          within = c == r;  // -0 equals +0
        } else {
          limit = etr_oracle_element_bound(bound, dtype, r, magnitude);
          within = error <= limit;
        }
        if (!within) {
          ++m->mismatches;
          note_worst(m, flat, limit > 0 ? error / limit : INFINITY,
                     &worst_excess, c, r, limit);
        }
      }
    }
    etr_index_next(index, reference->sizes, reference->dim);
  }
  if (num_ulps > 0) {
    m->has_ulp = true;
    size_t k = (size_t)ceil(0.99 * (double)num_ulps);
    m->p99_ulp = select_kth(ulps, num_ulps, k > 0 ? k - 1 : 0);
  }
  free(ulps);
  if (norm_c == 0 && norm_r == 0) {
    m->cosine = m->finite_pairs > 0 ? 1.0 : NAN;
  } else if (norm_c == 0 || norm_r == 0) {
    m->cosine = 0.0;
  } else if (noise == 0) {
    m->cosine = 1.0;  // identical: exactly 1, not 1 within rounding
  } else {
    double cosine = dot / (sqrt(norm_c) * sqrt(norm_r));
    m->cosine = cosine > 1 ? 1 : cosine < -1 ? -1 : cosine;
  }
  if (m->finite_pairs > 0) {
    m->sqnr_db = noise == 0    ? INFINITY
                 : norm_r == 0 ? -INFINITY
                               : 10.0 * log10(norm_r / noise);
  }
  m->mismatch_fraction =
      m->numel > 0 ? (double)m->mismatches / (double)m->numel : 0;
  m->relative_l2 = norm_r > 0 ? sqrt(noise) / sqrt(norm_r) : NAN;
  if (floating && t != NULL && !t->exact && t->norm_eps > 0 && norm_r > 0) {
    double scale = t->k_aware && bound->k > 1 ? sqrt((double)bound->k) : 1;
    m->relative_l2_bound = t->norm_eps * etr_oracle_epsilon(dtype) * scale;
    m->norm_failed = m->relative_l2 > m->relative_l2_bound;
  }
  double allowed = t != NULL ? t->max_mismatch_fraction : 0;
  m->passed = (m->mismatches == 0 || m->mismatch_fraction <= allowed) &&
              !m->norm_failed;
  return ETR_OK;
}
