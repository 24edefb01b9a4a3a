// SPDX-License-Identifier: Apache-2.0
//
// The loops behind elementwise kernels: unary (out = f(in)) and binary
// (out = f(a, b) with broadcasting). A kernel decides the dtypes (by
// PyTorch's promotion rules) and supplies one callback per computation
// kind; the loop converts every input element to the compute dtype, calls
// the callback in double/int64/complex, rounds the result to the result
// dtype and stores it in the out tensor's dtype, honouring every operand's
// strides. Kernels never see a stride.
#ifndef ETR_OPS_REFERENCE_SUPPORT_ELEMENTWISE_H
#define ETR_OPS_REFERENCE_SUPPORT_ELEMENTWISE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_reference/support/element.h"

#ifdef __cplusplus
extern "C" {
#endif

// Per-kind callbacks; NULL where the op is not defined for that kind (the
// loop then fails with NotSupported naming the compute dtype). Bool
// operands use on_int with values 0/1.
typedef struct etr_unary_fns {
  int64_t (*on_int)(int64_t value, const void *state);
  double (*on_double)(double value, const void *state);
  etr_complex_t (*on_complex)(etr_complex_t value, const void *state);
} etr_unary_fns_t;

typedef struct etr_binary_fns {
  int64_t (*on_int)(int64_t a, int64_t b, const void *state);
  double (*on_double)(double a, double b, const void *state);
  etr_complex_t (*on_complex)(etr_complex_t a, etr_complex_t b,
                              const void *state);
} etr_binary_fns_t;

typedef struct etr_elementwise_spec {
  // Inputs are converted to this dtype before the callback sees them; its
  // kind picks the callback.
  etr_scalar_type_t compute;
  // The callback's result is rounded to this dtype (usually `compute`;
  // Bool for comparisons) and then stored in the out tensor's dtype.
  etr_scalar_type_t result;
  // PyTorch's mul and div keep a single-element second operand of another
  // dtype in float when computing in Half or BFloat16 (ATen reads it as
  // the op-math type instead of first rounding it to Half); add and sub
  // round it (measured on PyTorch 2.13).
  bool single_element_b_in_opmath;
} etr_elementwise_spec_t;

// Resizes `out` to the shape of `in` and writes f(in) elementwise.
etr_error_t etr_unary_elementwise(etr_kernel_context_t *ctx,
                                  const etr_tensor_t *in, etr_tensor_t *out,
                                  const etr_elementwise_spec_t *spec,
                                  const etr_unary_fns_t *fns,
                                  const void *state);

// Resizes `out` to the broadcast shape of `a` and `b` (InvalidArgument if
// they do not broadcast or out is too small) and writes f(a, b).
etr_error_t etr_binary_elementwise(etr_kernel_context_t *ctx,
                                   const etr_tensor_t *a,
                                   const etr_tensor_t *b, etr_tensor_t *out,
                                   const etr_elementwise_spec_t *spec,
                                   const etr_binary_fns_t *fns,
                                   const void *state);

// The whole of a floating unary kernel (sigmoid, tanh, exp, sqrt, rsqrt):
// reads (self, out, return slot), takes the result dtype from self with
// integral and Bool inputs promoted to Float (PyTorch's
// promote_integer_inputs_to_float), accepts any out dtype the result can
// be cast to (InvalidArgument otherwise), and applies `fns`.
etr_error_t etr_floating_unary_kernel(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args,
                                      const etr_unary_fns_t *fns);

// Converts between etr_complex_t and C99 complex numbers for the complex
// callbacks, which use <complex.h> functions (cexp, ctanh, csqrt).
// CMPLX, not re + im * I: the multiplication turns an infinite imaginary
// part into a NaN real part (exp(-inf + inf i) must be 0, not NaN).
#define ETR_TO_C99_COMPLEX(value) CMPLX((value).real, (value).imag)

// Two's-complement wrapping int64 arithmetic for the on_int callbacks
// (PyTorch's integer ops wrap; signed overflow in C would be undefined).
static inline int64_t etr_wrapping_add(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
static inline int64_t etr_wrapping_sub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline int64_t etr_wrapping_mul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

// A 0-dim tensor holding `scalar` (Long, Double or Bool, as PyTorch wraps
// a Python number) over `storage`, for the Scalar overloads.
void etr_scalar_to_tensor(const etr_scalar_t *scalar, etr_tensor_t *tensor,
                          uint64_t *storage);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_ELEMENTWISE_H
