// SPDX-License-Identifier: Apache-2.0
//
// Integer divisions for the op files (fmod, remainder, div's "trunc" and
// "floor" modes), and integer sign, on uint8, int8, int16, int32 and
// int64 tensors of one dtype, in plan.h's layouts: typed loops over the
// planned runs (no ISA has a SIMD integer division, so there are no
// per-ISA microkernels; the gain over the reference is its per-element
// conversions and dispatch). Semantics are the reference's: C's truncating % and / on the
// values, remainder and floor division adjusted toward the divisor's sign,
// x % -1 = 0 and x / -1 = -x wrapped (INT_MIN / -1 is INT_MIN), no
// overflow. A zero divisor anywhere (even with an empty result) makes the
// call not handled, before anything is written: the reference then
// raises PyTorch's ZeroDivisionError, or not, as its op does.
#ifndef ETR_OPS_OPTIMIZED_BINARY_INTEGER_H
#define ETR_OPS_OPTIMIZED_BINARY_INTEGER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

typedef enum etr_int_division {
  ETR_INT_FMOD = 0,
  ETR_INT_REMAINDER,
  ETR_INT_DIV_TRUNC,
  ETR_INT_DIV_FLOOR,
} etr_int_division_t;

typedef struct etr_int_call {
  etr_int_division_t op;
  const etr_tensor_t *a;
  const etr_tensor_t *b;  // NULL: every divisor is `value`
  int64_t value;          // already wrapped to the dtype
  etr_tensor_t *out;
} etr_int_call_t;

// True for the dtypes above.
bool etr_int_division_dtype(etr_scalar_type_t dtype);

// Reads (self, other, ..., out at `out_index`) when self, out and a
// Tensor other share one of those dtypes, or a Scalar other is an
// integer (or Bool) and the result dtype is self's (it is then wrapped
// to it, as the reference casts it). False otherwise.
bool etr_int_division_probe(const etr_kernel_context_t *ctx,
                            etr_evalue_t **args, size_t num_args,
                            bool scalar_other, size_t out_index,
                            etr_int_call_t *call);

// Broadcasts, resizes out (returning its error), stops in a dry run,
// checks the divisors, computes. *handled is false when the layout cannot
// be planned or a divisor is zero.
etr_error_t etr_int_division_execute(etr_kernel_context_t *ctx,
                                     const etr_int_call_t *call,
                                     bool *handled);

// sign on a uint8 or int8..int64 self with an out of its dtype: (0 < x) -
// (x < 0) in typed loops, in the layouts plan.h takes. Resizes out like
// self (returning its error), stops in a dry run. *handled is false for
// other dtypes and unplannable layouts.
etr_error_t etr_int_sign_execute(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *self, etr_tensor_t *out,
                                 bool *handled);

#endif  // ETR_OPS_OPTIMIZED_BINARY_INTEGER_H
