// SPDX-License-Identifier: Apache-2.0
//
// aten::fmod.Tensor_out and aten::fmod.Scalar_out: C's remainder of a
// truncated division, out = self - trunc(self / other) * other, whose sign
// follows the dividend (remainder, by contrast, follows the divisor:
// fmod(-5, 3) = -2 but remainder(-5, 3) = 1).
//
// Dtypes: the compute dtype is torch.result_type(self, other), a Scalar
// taking part as a Python number (int8 fmod 2.5 is Float; a Bool tensor
// fmod 2 is Long). Every integral and floating dtype; a Bool, complex or
// uint16/32/64 compute dtype is NotSupported ("fmod_cpu not implemented
// for 'Bool'"). The out may have any dtype the result can be cast to
// (InvalidArgument otherwise).
//
// Integers: the divisor is first converted to the compute dtype, as
// PyTorch casts it (int8 fmod 1000 divides by -24, int8 fmod 256 by 0);
// a zero divisor is PyTorch's ZeroDivisionError (InvalidArgument), raised
// only when the result has elements. INT64_MIN fmod -1 is 0.
// Floating values: C's fmod, which is exact, so computing in double and
// rounding to Half/BFloat16/Float gives PyTorch's values bit for bit;
// x fmod 0 and inf fmod y are NaN, x fmod inf is x, signed zeros kept.
// One PyTorch artifact is deliberately not reproduced: on x86 AVX2 and
// AVX-512 builds its contiguous and scalar-broadcast loops run blocks of
// 8 doubles (16 floats) through Sleef's fmod, which returns NaN whenever
// |self / other| overflows the dtype (1.0 fmod 4.9e-324, 1e30f fmod
// 1e-30f), while its scalar tails and strided loops, and
// ATEN_CPU_CAPABILITY=default, return the exact value, as this kernel
// does. Which elements PyTorch computes vectorized depends on the CPU
// capability, the layout, the inner length and (from 32768 elements) the
// thread count, so there is no deterministic PyTorch answer to copy;
// ops_reference/golden/golden_artifacts.h documents the measurements and
// lists the golden cases that record the NaN.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/binary_pointwise.h"

static int64_t fmod_int(int64_t a, int64_t b, const void *state) {
  (void)state;
  // b == 0 was refused before the loop; b == -1 avoids INT64_MIN % -1,
  // which traps.
  if (b == 0 || b == -1) {
    return 0;
  }
  return a % b;
}

static double fmod_double(double a, double b, const void *state) {
  (void)state;
  return fmod(a, b);
}

static const etr_binary_pointwise_op_t kFmod = {
    .compute_dtypes = ETR_DTYPES_REAL,
    .integral_zero_divisor_error = true,
    .fns = {fmod_int, fmod_double, NULL},
};

// aten::fmod.Tensor_out
etr_error_t etr_ref_fmod_tensor_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  return etr_binary_pointwise_kernel(ctx, args, num_args, false, &kFmod,
                                     NULL);
}

// aten::fmod.Scalar_out
etr_error_t etr_ref_fmod_scalar_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  return etr_binary_pointwise_kernel(ctx, args, num_args, true, &kFmod, NULL);
}
