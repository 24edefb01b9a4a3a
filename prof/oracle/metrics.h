// SPDX-License-Identifier: Apache-2.0
//
// Element-level comparison of a candidate tensor with a reference tensor
// under a tolerance (policy.h), and the metrics the oracle reports for it.
//
// Metrics over the pairs where both values are finite: max |c - r|, max
// |c - r| / |r| (pairs with r != 0), max and 99th-percentile ULP distance
// (float dtypes: the distance between the two values' positions in the
// ordered sequence of the dtype's representable numbers, so -0 and +0 are
// 0 apart, the smallest subnormals of opposite sign 2, and adjacent floats
// 1), cosine similarity (1 when both are all zeros, 0 when only one is),
// SQNR = 10 log10(sum r^2 / sum (c - r)^2) dB (+inf when identical, -inf
// when the reference is all zeros and the candidate is not). Pairs with a
// non-finite value agree only when both are NaN, or the same infinity;
// otherwise they count as NaN or inf pattern mismatches. Integer and Bool
// tensors compare exactly, or in quantization steps (|c - r|) when judged
// as quantized. Dtypes and shapes must match; when they do not, nothing is
// compared and the metrics say which differs.
#ifndef ETR_PROF_ORACLE_METRICS_H
#define ETR_PROF_ORACLE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/tensor.h"
#include "prof/oracle/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_oracle_bound {
  const etr_oracle_tolerance_t *tolerance;
  bool quantized;      // judge in steps
  int64_t steps;       // allowed steps when quantized
  bool flush_denormals;
  // K-aware classes: the accumulation length and the magnitude M per
  // element (C order of the reference's logical shape), or NULL.
  int64_t k;
  const double *magnitude;
} etr_oracle_bound_t;

typedef struct etr_oracle_metrics {
  bool compared;  // same dtype and shape, both with data
  bool dtype_match;
  bool shape_match;
  bool unsupported_dtype;  // complex and bit-packed dtypes
  int64_t numel;
  int64_t finite_pairs;
  double max_abs_error;
  double max_rel_error;
  uint64_t max_ulp;
  uint64_t p99_ulp;
  bool has_ulp;  // float dtype with finite pairs
  double cosine;
  double sqnr_db;
  int64_t mismatches;  // outside tolerance, non-finite mismatches included
  double mismatch_fraction;
  // ||c - r||_2 / ||r||_2 over finite pairs (NaN when ||r|| is 0), and the
  // norm check's bound (0 when the tolerance has none).
  double relative_l2;
  double relative_l2_bound;
  bool norm_failed;
  int64_t nan_mismatches;
  int64_t inf_mismatches;
  bool quantized;
  int64_t max_steps;  // integer dtypes: max |c - r|
  // The element most outside its bound (or -1): C-order index, values, and
  // the bound it was held to.
  int64_t worst_index;
  double worst_candidate;
  double worst_reference;
  double worst_bound;
  bool passed;  // compared, mismatches within max_mismatch_fraction and
                // the norm check (if any) passed
} etr_oracle_metrics_t;

// Compares through both tensors' strides. MemoryAllocationFailed when the
// percentile buffer cannot be had; any other outcome is in `metrics`.
etr_error_t etr_oracle_compare(const etr_tensor_t *candidate,
                               const etr_tensor_t *reference,
                               const etr_oracle_bound_t *bound,
                               etr_oracle_metrics_t *metrics,
                               etr_diag_t *diag);

// Building blocks, exposed for tests.

// ULP distance between two values of a float dtype (raw element bytes);
// UINT64_MAX when either is NaN.
uint64_t etr_oracle_ulp_distance(etr_scalar_type_t dtype, const void *a,
                                 const void *b);

// Machine epsilon of a float dtype (2^-23 for Float), 0 for others.
double etr_oracle_epsilon(etr_scalar_type_t dtype);

// The spacing of a float dtype at |value| (the gap to the next larger
// representable magnitude; at the largest finite value, the gap below).
double etr_oracle_ulp_of(etr_scalar_type_t dtype, double value);

// Smallest positive normal number of a float dtype.
double etr_oracle_min_normal(etr_scalar_type_t dtype);

// The bound for one element: see policy.h.
double etr_oracle_element_bound(const etr_oracle_bound_t *bound,
                                etr_scalar_type_t dtype, double reference,
                                double magnitude);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ORACLE_METRICS_H
