// SPDX-License-Identifier: Apache-2.0
//
// Element-wise closeness of two tensors, as torch.allclose and ExecuTorch's
// bundled-program check define it: |actual - expected| <= atol + rtol *
// |expected|, NaN matching NaN, infinities matching only the same infinity.
// Integer and bool tensors compare exactly when rtol = atol = 0.
#ifndef ETR_CLI_COMPARE_H
#define ETR_CLI_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor.h"

typedef struct etr_compare_report {
  bool shapes_match;   // same rank, sizes and dtype
  int64_t numel;
  int64_t mismatches;  // elements outside tolerance
  int64_t first_mismatch;  // flat C-order index, -1 when none
  double first_actual;
  double first_expected;
  double max_abs_error;  // over finite pairs
  double max_rel_error;
} etr_compare_report_t;

// Compares with any strides on either side. Complex values compare their
// real and imaginary parts separately.
void etr_compare_tensors(const etr_tensor_t *actual,
                         const etr_tensor_t *expected, double rtol,
                         double atol, etr_compare_report_t *report);

// True when shapes match and there is no mismatch.
bool etr_compare_passed(const etr_compare_report_t *report);

#endif  // ETR_CLI_COMPARE_H
