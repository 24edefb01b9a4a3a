// SPDX-License-Identifier: Apache-2.0
//
// Unary predicates with a Bool out (isnan, isinf, logical_not), for the op
// files: a Float, Half or BFloat16 self is staged through fp32 a chunk at
// a time (exact) and compared with the comparison microkernels of
// ../binary/binary.h (isnan: x != x; isinf: |x| == inf, |x| by the abs
// microkernel of unary.h; is zero: x == 0, -0.0 included, NaN not), which
// store 0/1 bytes. A self of an integer or Bool dtype is never NaN nor
// infinite: the out is zeroed.
#ifndef ETR_OPS_OPTIMIZED_UNARY_PREDICATE_H
#define ETR_OPS_OPTIMIZED_UNARY_PREDICATE_H

#include <stdbool.h>

#include "core/kernel.h"
#include "core/tensor.h"

typedef enum etr_predicate {
  ETR_PREDICATE_ISNAN = 0,
  ETR_PREDICATE_ISINF,
  ETR_PREDICATE_IS_ZERO,
} etr_predicate_t;

// out (Bool) = predicate(self), out resized like self (returning its
// error), nothing else touched in a dry run. *handled is false when the
// case is not one of the above, or the layout cannot be planned
// (../binary/plan.h): the caller then runs the reference kernel.
etr_error_t etr_predicate_execute(etr_kernel_context_t *ctx,
                                  etr_predicate_t predicate,
                                  const etr_tensor_t *self,
                                  etr_tensor_t *out, bool *handled);

#endif  // ETR_OPS_OPTIMIZED_UNARY_PREDICATE_H
