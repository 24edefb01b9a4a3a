// SPDX-License-Identifier: Apache-2.0
//
// The shared body of the "binary" family's promoted pointwise kernels
// (atan2, bitwise_and/or/xor, fmod, logical_and/or/xor, maximum, minimum,
// pow.Tensor_Tensor, pow.Scalar): they differ only in the dtypes they are
// defined for, in whether integral inputs compute in Float, in whether the
// result is Bool, and in their per-element callbacks, so each op file
// describes its op with an etr_binary_pointwise_op_t and calls one function.
//
// Semantics (PyTorch's TensorIterator binary ops, checked against 2.13),
// in PyTorch's order, which decides the code when a call has two faults:
//   0. the shapes broadcast (InvalidArgument otherwise);
//   1. the operands promote to torch.result_type(self, other), a Scalar
//      `other` taking part as a Python number (int8[2] & 1000 stays Int8;
//      int8[2] fmod 2.5 is Float); a refused promotion (uint16 with int32)
//      is InvalidArgument;
//   2. the compute dtype is that promoted dtype, or Float when the op
//      promotes integral and Bool inputs to floating (atan2); a compute
//      dtype outside the op's set is NotSupported (PyTorch's
//      "fmod_cpu not implemented for 'Bool'");
//   3. both operands are converted to the compute dtype (so a Scalar wraps:
//      int8 & 1000 is int8 & -24, exactly as PyTorch casts the wrapped
//      number) and the callback runs elementwise with broadcasting;
//   4. the result is the compute dtype, written into any out dtype it can
//      be cast to (InvalidArgument otherwise, checked before step 2's
//      NotSupported, as TensorIterator does); ops with a Bool result
//      (logical_*) accept every out dtype.
// Integral division ops (fmod) refuse a divisor that is 0 after the
// conversion of step 3 with InvalidArgument (PyTorch's ZeroDivisionError),
// but only when the broadcast result has elements (PyTorch never runs the
// loop otherwise); the scan is skipped in a dry run.
#ifndef ETR_OPS_REFERENCE_SUPPORT_BINARY_POINTWISE_H
#define ETR_OPS_REFERENCE_SUPPORT_BINARY_POINTWISE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_binary_pointwise_op {
  // Compute dtypes the op is defined for (NotSupported otherwise).
  etr_dtype_set_t compute_dtypes;
  // A complex tensor operand is NotSupported before any promotion
  // (maximum/minimum check this first: complex64 with uint16 is "not
  // implemented for complex tensors", not a refused promotion).
  bool complex_operands_refused;
  // Integral and Bool promoted dtypes compute in Float (atan2).
  bool integral_to_float;
  // The result is Bool and may be stored in any out dtype (logical ops).
  bool bool_result;
  // Integral compute dtypes refuse a zero divisor `other` (fmod).
  bool integral_zero_divisor_error;
  // Called with a `const etr_binary_pointwise_call_t *` as their state.
  etr_binary_fns_t fns;
} etr_binary_pointwise_op_t;

// The state every callback receives: the op file's own state and the
// compute dtype (pow computes ComplexFloat in float, as PyTorch does).
typedef struct etr_binary_pointwise_call {
  const void *op_state;
  etr_scalar_type_t compute;
} etr_binary_pointwise_call_t;

// Steps 0 and 2-4 above for operands already read: `common` is their
// torch.result_type (the caller promotes after checking the shapes). `a` and
// `b` may be 0-dim tensors standing for Scalars (etr_scalar_to_tensor). Resizes
// `out` to the broadcast shape. `state` reaches the callbacks as
// etr_binary_pointwise_call_t.op_state.
etr_error_t etr_binary_pointwise_run(etr_kernel_context_t *ctx,
                                     const etr_tensor_t *a,
                                     const etr_tensor_t *b,
                                     etr_scalar_type_t common,
                                     etr_tensor_t *out,
                                     const etr_binary_pointwise_op_t *op,
                                     const void *state);

// A whole kernel: args are (self, other, out, return slot), `other` a
// Tensor or, when `scalar_other`, a Scalar. InvalidProgram for a wrong
// argument count, InvalidType for a wrong EValue tag, then as above.
etr_error_t etr_binary_pointwise_kernel(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args, size_t num_args,
                                        bool scalar_other,
                                        const etr_binary_pointwise_op_t *op,
                                        const void *state);

// InvalidArgument ("ZeroDivisionError") when an element of `divisor`,
// converted to the integral or Bool dtype `compute`, is 0. Reads data:
// callers skip it in a dry run and when the result has no elements.
etr_error_t etr_check_integral_divisor(etr_kernel_context_t *ctx,
                                       const etr_tensor_t *divisor,
                                       etr_scalar_type_t compute);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_BINARY_POINTWISE_H
