// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the movement family's differential tests
// (diff_movement_*_test.c): the dtypes they sweep (one or more of every
// element size), index tensors with chosen values, the case's coverage key
// and a run that also asserts the optimized kernel took its fast path.
#ifndef ETR_OPS_OPTIMIZED_TEST_MOVEMENT_TEST_UTIL_H
#define ETR_OPS_OPTIMIZED_TEST_MOVEMENT_TEST_UTIL_H

#include <stdio.h>

#include "ops_optimized/test/diff.h"

// Every element size: 4, 2, 2, 8, 1, 1, 8, 16, 4, 8, 1, 2.
static const etr_scalar_type_t kMovementDtypes[] = {
    ETR_FLOAT, ETR_HALF,  ETR_BFLOAT16,      ETR_DOUBLE,
    ETR_BYTE,  ETR_BOOL,  ETR_COMPLEX_FLOAT, ETR_COMPLEX_DOUBLE,
    ETR_INT,   ETR_LONG,  ETR_CHAR,          ETR_SHORT};
#define MOVEMENT_NUM_DTYPES \
  (sizeof(kMovementDtypes) / sizeof(kMovementDtypes[0]))

// A few dtypes, one per element size that matters most.
static const etr_scalar_type_t kMovementFewDtypes[] = {
    ETR_FLOAT, ETR_HALF, ETR_LONG, ETR_BOOL, ETR_COMPLEX_DOUBLE};
#define MOVEMENT_NUM_FEW_DTYPES \
  (sizeof(kMovementFewDtypes) / sizeof(kMovementFewDtypes[0]))

// The harness keys coverage by the last etr_diff_input; movement cases add
// index tensors after the data input, so the key is set back to the data.
static inline void mt_key(etr_diff_case_t *c, etr_scalar_type_t dtype,
                          etr_diff_layout_t layout) {
  c->dtype = dtype;
  c->layout = layout;
}

// A Long/Int index tensor of `values` (row-major), laid out as `layout`,
// appended as the next argument.
static inline etr_tensor_t *mt_index(etr_diff_case_t *c,
                                     etr_scalar_type_t dtype, int32_t dim,
                                     const int64_t *sizes,
                                     const int64_t *values,
                                     etr_diff_layout_t layout) {
  etr_tensor_t *tensor = tt_tensor_i64(dtype, dim, sizes, values);
  tensor = tt_relayout(tensor, (tt_layout_t)layout);
  etr_diff_arg(c, tt_ev_tensor(tensor));
  return tensor;
}

// Runs the case; when `fast`, also fails unless every ISA's run took the
// optimized kernel's specialized path (no fallback to the reference).
static inline int mt_run(etr_diff_case_t *c, bool fast) {
  uint64_t runs = etr_diff_stats()->runs;
  uint64_t specialized = etr_diff_stats()->specialized;
  int failures = etr_diff_run(c);
  uint64_t new_runs = etr_diff_stats()->runs - runs;
  uint64_t new_specialized = etr_diff_stats()->specialized - specialized;
  if (fast && new_runs != new_specialized) {
    fprintf(stderr, "NOT SPECIALIZED %s [%s]: %llu of %llu runs fell back\n",
            c->op, c->label,
            (unsigned long long)(new_runs - new_specialized),
            (unsigned long long)new_runs);
    ++failures;
  }
  return failures;
}

// Prints the harness totals of this test (Criterion runs each test in a
// process of its own).
static inline void mt_summary(const char *test) {
  const etr_diff_stats_t *stats = etr_diff_stats();
  fprintf(stderr, "%s: %llu cases, %llu optimized runs, %llu specialized\n",
          test, (unsigned long long)stats->cases,
          (unsigned long long)stats->runs,
          (unsigned long long)stats->specialized);
}

#endif  // ETR_OPS_OPTIMIZED_TEST_MOVEMENT_TEST_UTIL_H
