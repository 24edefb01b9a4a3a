// SPDX-License-Identifier: Apache-2.0
//
// aten::pow.Tensor_Tensor_out and aten::pow.Scalar_out: out = self **
// exponent with a tensor exponent (pow.Tensor_Scalar_out, the scalar
// exponent, is op_pow.c; this file holds the two overloads whose exponent
// is a tensor, so it can be written without editing that file).
//
// pow.Tensor_Tensor_out: the compute dtype is torch.result_type(self,
// exponent) (an int tensor to a zero-dim Float exponent is Float, Half to
// a zero-dim Double stays Half); every integral, floating and complex
// dtype; Bool and uint16/32/64 are NotSupported ("pow" not implemented
// for 'Bool'). The out may have any dtype the result can be cast to
// (InvalidArgument otherwise). Values:
//   * integers: exact repeated squaring that wraps like the dtype (3 ** 5
//     in int8 is -13). A negative exponent is not an error here (only
//     pow.Tensor_Scalar refuses one): like ATen's powi, 1 ** -n is 1,
//     (-1) ** -n is +-1 by the parity of n, anything else ** -n is 0;
//   * floating: C's pow in double, rounded once (0 ** 0 = 1, 0 ** -1 =
//     inf, a negative base to a fractional power is NaN, 1 ** NaN = 1);
//   * complex: C's cpow, which is what PyTorch's std::pow on c10::complex
//     reaches through libstdc++: 0 ** 0 is NaN+NaNj, 0 ** 2 is 0. For
//     complex64 that is glibc's cpowf in float, whose error can exceed the
//     Float tolerance (a generated 1000 ** z has the real part 11068.6055
//     in PyTorch, 11068.5852 exactly: 1.8e-6 relative), so this kernel
//     calls cpowf too rather than computing in double and agrees with
//     PyTorch bit for bit (1j ** 2 is -1-8.7e-8j in both).
//
// pow.Scalar_out (Scalar self, Tensor exponent): PyTorch's structured
// kernel first short-circuits a base equal to 1 (an Int 1 or a Double
// 1.0, never a Bool): the out is resized to the exponent's shape and
// filled with 1 whatever the out or exponent dtypes (an out of Bool, an
// exponent of uint16: no dtype check at all). Any other base is
// pow.Tensor_Tensor with the base as a wrapped number, so the result dtype
// is torch.result_type(base, exponent): 2 ** int32 is Int32, 2.5 ** int32
// is Float, 2 ** Bool is Long, True ** Bool is Bool (NotSupported); an
// Int base wraps to an integral dtype (1000 ** int8 computes with -24).
#include <complex.h>
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/binary_pointwise.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// ATen's powi: repeated squaring, negative exponents as described above.
static int64_t pow_int(int64_t base, int64_t exponent, const void *state) {
  (void)state;
  if (exponent < 0) {
    if (base == 1) {
      return 1;
    }
    if (base == -1) {
      return exponent % 2 == 0 ? 1 : -1;
    }
    return 0;
  }
  int64_t result = 1;
  for (; exponent > 0; exponent >>= 1) {
    if (exponent & 1) {
      result = etr_wrapping_mul(result, base);
    }
    base = etr_wrapping_mul(base, base);
  }
  return result;
}

static double pow_double(double base, double exponent, const void *state) {
  (void)state;
  return pow(base, exponent);
}

// ComplexFloat computes in float with cpowf, as PyTorch does (see the
// file comment), ComplexDouble with cpow. CMPLX rather than x + y * I,
// which would turn an infinite imaginary part into a NaN real part.
static etr_complex_t pow_complex(etr_complex_t base, etr_complex_t exponent,
                                 const void *state) {
  const etr_binary_pointwise_call_t *call = state;
  etr_complex_t out;
  if (call->compute == ETR_COMPLEX_FLOAT) {
    float _Complex result =
        cpowf(CMPLXF((float)base.real, (float)base.imag),
              CMPLXF((float)exponent.real, (float)exponent.imag));
    out.real = crealf(result);
    out.imag = cimagf(result);
    return out;
  }
  double _Complex result = cpow(CMPLX(base.real, base.imag),
                                CMPLX(exponent.real, exponent.imag));
  out.real = creal(result);
  out.imag = cimag(result);
  return out;
}

static const etr_binary_pointwise_op_t kPow = {
    .compute_dtypes =
        ETR_DTYPES_INTEGRAL | ETR_DTYPES_FLOATING | ETR_DTYPES_COMPLEX,
    .fns = {pow_int, pow_double, pow_complex},
};

// aten::pow.Tensor_Tensor_out
etr_error_t etr_ref_pow_tensor_tensor_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  return etr_binary_pointwise_kernel(ctx, args, num_args, false, &kPow, NULL);
}

// PyTorch's Scalar::equal(1.0): a Bool scalar never equals a number.
static bool scalar_is_one(const etr_scalar_t *scalar) {
  switch (scalar->kind) {
    case ETR_SCALAR_INT:
      return scalar->as_int == 1;
    case ETR_SCALAR_DOUBLE:
      return scalar->as_double == 1.0;
    case ETR_SCALAR_BOOL:
    default:
      return false;
  }
}

// Resizes `out` to `exponent`'s shape and writes 1 everywhere.
static etr_error_t fill_ones(etr_kernel_context_t *ctx,
                             const etr_tensor_t *exponent, etr_tensor_t *out) {
  ETR_TRY(etr_resize_out(ctx, out, exponent->dim, exponent->sizes));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    etr_store_int64(out->dtype, etr_element_at(out, iter.offsets[0]), 1);
  }
  return ETR_OK;
}

// aten::pow.Scalar_out
etr_error_t etr_ref_pow_scalar_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_scalar_t base;
  etr_tensor_t *exponent = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 0, "self", &base));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "exponent", &exponent));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  if (scalar_is_one(&base)) {
    return fill_ones(ctx, exponent, out);
  }
  ETR_TRY(etr_check_dtype(ctx, "exponent", exponent->dtype,
                          ETR_DTYPES_NUMERIC));
  etr_scalar_type_t common;
  ETR_TRY(etr_result_type_tensor_scalar(ctx, exponent, &base, &common));
  etr_tensor_t base_tensor;
  uint64_t base_storage = 0;
  etr_scalar_to_tensor(&base, &base_tensor, &base_storage);
  return etr_binary_pointwise_run(ctx, &base_tensor, exponent, common, out,
                                  &kPow, NULL);
}
