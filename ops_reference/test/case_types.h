// SPDX-License-Identifier: Apache-2.0
//
// The literal types of the generated golden cases (generated/*_cases.h,
// written by gen_cases.py): a tensor as dtype, shape and row-major values
// (complex values interleaved), and a short int list.
#ifndef ETR_OPS_REFERENCE_TEST_CASE_TYPES_H
#define ETR_OPS_REFERENCE_TEST_CASE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/scalar_type.h"

typedef struct tt_case_tensor {
  bool present;  // false for an absent optional tensor (None)
  etr_scalar_type_t dtype;
  int32_t dim;
  int64_t sizes[6];
  size_t count;  // entries in values (2 per element for complex)
  const double *values;
} tt_case_tensor_t;

typedef struct tt_case_ints {
  size_t count;
  int64_t values[8];
} tt_case_ints_t;

#endif  // ETR_OPS_REFERENCE_TEST_CASE_TYPES_H
