// SPDX-License-Identifier: Apache-2.0
//
// Pieces shared by the unary family's kernels (abs, ceil/floor/trunc/round,
// sign, bitwise_not, logical_not, isinf/isnan, elu, leaky_relu and the
// floating functions acos..tan), beside support/elementwise.h which does
// the loops:
//   * the dtype rules of ATen's "same dtype" unary ops (out dtype must equal
//     self's, as TensorIterator::unary_op's check_all_same_dtype demands),
//     with PyTorch's order of checks;
//   * the whole kernel for those ops and for Bool-valued predicates;
//   * complex helpers that follow c10's algorithms (c10/util/complex.h and
//     complex_math.h) where C99 has no equivalent: numpy-style division,
//     log1p, expm1.
#ifndef ETR_OPS_REFERENCE_SUPPORT_UNARY_COMMON_H
#define ETR_OPS_REFERENCE_SUPPORT_UNARY_COMMON_H

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

// How an op with out dtype == self dtype checks its dtypes.
typedef struct etr_unary_same_dtype_rule {
  // The self dtypes the op implements (NotSupported otherwise).
  etr_dtype_set_t dtypes;
  // True when PyTorch refuses a complex self before looking at the out
  // (ceil, floor, trunc, sign: an explicit TORCH_CHECK_NOT_IMPLEMENTED in
  // the op's meta function); otherwise the out dtype is checked first and
  // an unsupported self dtype is reported only when the out matches.
  bool complex_refused_first;
} etr_unary_same_dtype_rule_t;

// Checks self and out dtypes by `rule`: NotSupported for a self dtype the
// op does not implement, InvalidArgument when out's dtype differs from
// self's, in PyTorch's order.
etr_error_t etr_unary_check_same_dtype(etr_kernel_context_t *ctx,
                                       const etr_tensor_t *self,
                                       const etr_tensor_t *out,
                                       const etr_unary_same_dtype_rule_t *rule);

// A whole `op.out(Tensor self, *, Tensor(a!) out)` kernel whose out dtype
// equals self's: reads (self, out, return slot), checks `rule`, resizes out
// to self's shape and applies `fns` computing in self's dtype.
etr_error_t etr_unary_same_dtype_kernel(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args,
    const etr_unary_same_dtype_rule_t *rule, const etr_unary_fns_t *fns,
    const void *state);

// A whole predicate kernel (isinf, isnan): reads (self, out, return slot),
// requires a Bool out (InvalidArgument otherwise, as ATen's "Expected out
// tensor to have dtype bool"), accepts every dtype in ETR_DTYPES_NUMERIC
// (NotSupported otherwise) and writes fns(self) != 0. The callbacks return
// 0 or 1 (the complex one in its real part).
etr_error_t etr_unary_predicate_kernel(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args,
                                       const etr_unary_fns_t *fns);

// C99 complex <-> etr_complex_t. CMPLX builds the value part by part:
// elementwise.h's ETR_TO_C99_COMPLEX computes re + im * I, which turns an
// infinite or NaN imaginary part into a NaN real part (inf * I is
// (inf * 0) + inf i), so casinh(0 + inf i) would see NaN + inf i.
static inline double _Complex etr_unary_to_c99(etr_complex_t value) {
  return CMPLX(value.real, value.imag);
}

static inline etr_complex_t etr_unary_from_c99(double _Complex value) {
  etr_complex_t result = {creal(value), cimag(value)};
  return result;
}

// a / b as c10::complex's operator/ computes it (numpy's scaled
// division): a zero divisor gives (a.real / 0, a.imag / 0) component-wise,
// so 1 / (0 + 0i) is inf + nan i, as PyTorch's reciprocal returns.
etr_complex_t etr_unary_complex_divide(etr_complex_t a, etr_complex_t b);

// c10_complex_math::log1p on CPU: with u = 1 + z, z itself when u == 1,
// log(u) when u - 1 == z, else log(u) * (z / (u - 1)), which keeps
// precision for small |z|.
etr_complex_t etr_unary_complex_log1p(etr_complex_t z);

// c10_complex_math::expm1: real part expm1(x) cos(y) - 2 sin(y/2)^2,
// imaginary part exp(x) sin(y).
etr_complex_t etr_unary_complex_expm1(etr_complex_t z);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_UNARY_COMMON_H
