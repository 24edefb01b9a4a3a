// SPDX-License-Identifier: Apache-2.0
//
// The comparison kernels (eq, ne, lt, le, gt, ge; Tensor and Scalar
// overloads) differ only in their predicate, so one function implements
// them all and each op_<name>.c names its predicate.
//
// Semantics (PyTorch's comparison ops): both operands are converted to
// torch.result_type(self, other) (a Scalar takes part as a Python number,
// so int > 2.5 compares in Float and a Half tensor == 1.0001 compares
// 1.0001 rounded to Half), compared, and the Bool result is stored in the
// out tensor's dtype (any dtype; False/True become 0/1). Every real dtype
// and Bool; complex (ComplexHalf included: a Half tensor next to a complex
// zero-dim tensor compares in ComplexHalf) and uint16/32/64 only for eq
// and ne (NotSupported otherwise, as in PyTorch).
// Broadcasting as usual. Errors in TensorIterator's order: shapes that do
// not broadcast (InvalidArgument), then a refused promotion
// (InvalidArgument), then a dtype the op does not implement
// (NotSupported).
#ifndef ETR_OPS_REFERENCE_SUPPORT_COMPARE_H
#define ETR_OPS_REFERENCE_SUPPORT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_comparison {
  ETR_COMPARE_EQ = 0,
  ETR_COMPARE_NE = 1,
  ETR_COMPARE_LT = 2,
  ETR_COMPARE_LE = 3,
  ETR_COMPARE_GT = 4,
  ETR_COMPARE_GE = 5,
} etr_comparison_t;

// A whole comparison kernel: args are (self, other, out, return slot),
// `other` a Tensor or, when `scalar_other`, a Scalar.
etr_error_t etr_comparison_kernel(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args,
                                  bool scalar_other,
                                  etr_comparison_t comparison);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_COMPARE_H
