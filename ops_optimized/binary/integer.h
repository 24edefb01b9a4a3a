// SPDX-License-Identifier: Apache-2.0
//
// Integer elementwise arithmetic for the op files -- add, sub (with
// alpha), mul, maximum, minimum, the six comparisons (into a Bool out),
// and the divisions (fmod, remainder, div's "trunc" and "floor" modes) --
// and integer sign, on uint8, int8, int16,
// int32 and int64 tensors of one dtype, in plan.h's layouts: typed loops
// over the planned runs (the compiler vectorizes the add, sub, mul and
// extremum loops; no ISA has a SIMD integer division, so there are no
// per-ISA microkernels; the gain over the reference is its per-element
// conversions and dispatch). Semantics are the reference's: add, sub and
// mul in wrapping int64 op-math (a + alpha b), the result wrapped to the
// dtype; comparisons of the values (a Scalar wrapped to the dtype first,
// as the reference converts it); C's truncating % and / on the values,
// remainder and floor division adjusted toward the divisor's sign,
// x % -1 = 0 and x / -1 = -x wrapped (INT_MIN / -1 is INT_MIN), no
// overflow. A zero divisor anywhere (even with an empty result) makes a
// division call not handled, before anything is written: the reference
// then raises PyTorch's ZeroDivisionError, or not, as its op does.
#ifndef ETR_OPS_OPTIMIZED_BINARY_INTEGER_H
#define ETR_OPS_OPTIMIZED_BINARY_INTEGER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/binary/binary.h"

typedef enum etr_int_op {
  ETR_INT_FMOD = 0,
  ETR_INT_REMAINDER,
  ETR_INT_DIV_TRUNC,
  ETR_INT_DIV_FLOOR,
  ETR_INT_ADD,  // a + alpha b
  ETR_INT_SUB,  // a - alpha b
  ETR_INT_MUL,
  ETR_INT_MAXIMUM,
  ETR_INT_MINIMUM,
  ETR_INT_COMPARE,  // call->compare, into a Bool out
} etr_int_op_t;

typedef struct etr_int_call {
  etr_int_op_t op;
  const etr_tensor_t *a;
  const etr_tensor_t *b;  // NULL: every b is `value`
  int64_t value;          // already wrapped to the dtype
  int64_t alpha;          // ADD and SUB (the probe sets 1)
  etr_compare_op_t compare;  // COMPARE
  etr_tensor_t *out;
} etr_int_call_t;

// True for the dtypes above.
bool etr_int_dtype(etr_scalar_type_t dtype);

// Reads (self, other, ..., out at `out_index`) when self, out and a
// Tensor other share one of those dtypes, or a Scalar other is an
// integer (or Bool) and the result dtype is self's (it is then wrapped
// to it, as the reference casts it). False otherwise.
bool etr_int_probe(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                   size_t num_args, bool scalar_other, size_t out_index,
                   etr_int_call_t *call);

// The probe for add and sub (self, other, alpha, out): as above, and
// alpha an integer Scalar (call->alpha). A Bool or floating alpha is the
// reference's to judge (false).
bool etr_int_probe_alpha(const etr_kernel_context_t *ctx,
                         etr_evalue_t **args, size_t num_args,
                         bool scalar_other, etr_int_call_t *call);

// The integer path of add, sub, mul, maximum and minimum (`op`; .out or,
// with scalar_other, .Scalar_out: (self, other[, alpha], out, ...)): the
// probe, then etr_int_execute. *handled is false when the call is not an
// integer one of these layouts (nothing written; the caller goes on).
etr_error_t etr_int_arith(etr_kernel_context_t *ctx, etr_evalue_t **args,
                          size_t num_args, etr_int_op_t op,
                          bool scalar_other, bool *handled);

// The integer path of the comparison ops' .Tensor_out and .Scalar_out
// (self, other, out, ...) into a Bool out; *handled as above.
etr_error_t etr_int_compare(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args, etr_compare_op_t compare,
                            bool scalar_other, bool *handled);

// Broadcasts, resizes out (returning its error), stops in a dry run,
// checks a division's divisors, computes. *handled is false when the
// shapes do not broadcast, the layout cannot be planned or a divisor is
// zero.
etr_error_t etr_int_execute(etr_kernel_context_t *ctx,
                            const etr_int_call_t *call, bool *handled);

// sign on a uint8 or int8..int64 self with an out of its dtype: (0 < x) -
// (x < 0) in typed loops, in the layouts plan.h takes. Resizes out like
// self (returning its error), stops in a dry run. *handled is false for
// other dtypes and unplannable layouts.
etr_error_t etr_int_sign_execute(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *self, etr_tensor_t *out,
                                 bool *handled);

#endif  // ETR_OPS_OPTIMIZED_BINARY_INTEGER_H
