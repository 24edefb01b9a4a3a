// SPDX-License-Identifier: Apache-2.0
//
// The tolerance table (see golden_tolerance.h for why each entry is what
// it is).
#include "ops_reference/golden/golden_tolerance.h"

enum { kHalf = 0, kBFloat16 = 1, kFloat = 2, kDouble = 3, kNumFloating = 4 };

// {rtol, atol} per class (DEFAULT .. LOW_PRECISION) and floating dtype.
static const double
    kTable[ETR_GOLDEN_TOL_LOW_PRECISION + 1][kNumFloating][2] = {
    [ETR_GOLDEN_TOL_DEFAULT] = {{1e-3, 1e-5}, {1.6e-2, 1e-5}, {1.3e-6, 1e-5},
                                {1e-7, 1e-7}},
    [ETR_GOLDEN_TOL_TRANSCENDENTAL] = {{2e-3, 1e-5}, {1.6e-2, 1e-5},
                                       {4e-6, 1e-5}, {1e-7, 1e-7}},
    [ETR_GOLDEN_TOL_ACCUMULATION] = {{4e-3, 1e-3}, {3.2e-2, 1e-2},
                                     {1e-5, 1e-5}, {1e-7, 1e-7}},
    [ETR_GOLDEN_TOL_LOW_PRECISION] = {{1e-2, 1e-2}, {8e-2, 5e-2},
                                      {1e-4, 1e-4}, {1e-6, 1e-6}},
};

static int floating_index(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_HALF:
    case ETR_COMPLEX_HALF:
      return kHalf;
    case ETR_BFLOAT16:
      return kBFloat16;
    case ETR_FLOAT:
    case ETR_COMPLEX_FLOAT:
      return kFloat;
    case ETR_DOUBLE:
    case ETR_COMPLEX_DOUBLE:
      return kDouble;
    default:
      return -1;
  }
}

etr_golden_tolerance_t etr_golden_tolerance(
    etr_golden_tolerance_class_t tolerance, etr_scalar_type_t dtype) {
  etr_golden_tolerance_t exact = {0.0, 0.0, true};
  int index = floating_index(dtype);
  if (index < 0 || tolerance < ETR_GOLDEN_TOL_DEFAULT ||
      tolerance > ETR_GOLDEN_TOL_LOW_PRECISION) {
    return exact;
  }
  etr_golden_tolerance_t result = {kTable[tolerance][index][0],
                                   kTable[tolerance][index][1], false};
  return result;
}
