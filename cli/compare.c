// SPDX-License-Identifier: Apache-2.0
//
// Tensor comparison (see compare.h).
#include "cli/compare.h"

#include <math.h>
#include <string.h>

#include "ops_reference/support/element.h"

static bool close_enough(double actual, double expected, double rtol,
                         double atol) {
  if (isnan(actual) || isnan(expected)) {
    return isnan(actual) && isnan(expected);
  }
  if (isinf(actual) || isinf(expected)) {
    return actual == expected;
  }
  return fabs(actual - expected) <= atol + rtol * fabs(expected);
}

static void note(etr_compare_report_t *report, int64_t flat, double actual,
                 double expected, double rtol, double atol) {
  if (!isnan(actual) && !isnan(expected) && !isinf(actual) &&
      !isinf(expected)) {
    double error = fabs(actual - expected);
    if (error > report->max_abs_error) {
      report->max_abs_error = error;
    }
    if (expected != 0 && error / fabs(expected) > report->max_rel_error) {
      report->max_rel_error = error / fabs(expected);
    }
  }
  if (!close_enough(actual, expected, rtol, atol)) {
    if (report->mismatches == 0) {
      report->first_mismatch = flat;
      report->first_actual = actual;
      report->first_expected = expected;
    }
    ++report->mismatches;
  }
}

void etr_compare_tensors(const etr_tensor_t *actual,
                         const etr_tensor_t *expected, double rtol,
                         double atol, etr_compare_report_t *report) {
  memset(report, 0, sizeof(*report));
  report->first_mismatch = -1;
  report->shapes_match = actual->dtype == expected->dtype &&
                         etr_tensor_same_shape(actual, expected);
  if (!report->shapes_match) {
    return;
  }
  report->numel = etr_tensor_numel(actual);
  if (report->numel == 0) {
    return;
  }
  bool complex = etr_scalar_type_is_complex(actual->dtype);
  int64_t index[ETR_MAX_DIMS] = {0};
  int64_t flat = 0;
  do {
    const void *a = etr_element_at(actual, etr_tensor_offset(actual, index));
    const void *e =
        etr_element_at(expected, etr_tensor_offset(expected, index));
    if (complex) {
      etr_complex_t ac = etr_load_complex(actual->dtype, a);
      etr_complex_t ec = etr_load_complex(expected->dtype, e);
      note(report, flat, ac.real, ec.real, rtol, atol);
      note(report, flat, ac.imag, ec.imag, rtol, atol);
    } else {
      note(report, flat, etr_load_double(actual->dtype, a),
           etr_load_double(expected->dtype, e), rtol, atol);
    }
    ++flat;
  } while (etr_index_next(index, actual->sizes, actual->dim));
}

bool etr_compare_passed(const etr_compare_report_t *report) {
  return report->shapes_match && report->mismatches == 0;
}
