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

// One argument of a dtype-sweep case (generated/sweep_cases.h).
typedef enum sweep_kind {
  SW_TENSOR = 0,
  SW_INT = 1,
  SW_DOUBLE = 2,
  SW_BOOL = 3,
  SW_INTS = 4,
  SW_NONE = 5,
  SW_STRING = 6,
  SW_TENSORS = 7,           // Tensor[]
  SW_OPTIONAL_TENSORS = 8,  // Tensor?[]
} sweep_kind_t;

typedef struct sweep_arg {
  sweep_kind_t kind;
  tt_case_tensor_t tensor;
  int64_t int_value;  // SW_INT, SW_BOOL
  double double_value;
  tt_case_ints_t ints;
  const char *string;
  const tt_case_tensor_t *tensors;  // SW_TENSORS, SW_OPTIONAL_TENSORS
  size_t num_tensors;
} sweep_arg_t;

#endif  // ETR_OPS_REFERENCE_TEST_CASE_TYPES_H
