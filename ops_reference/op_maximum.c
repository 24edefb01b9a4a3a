// SPDX-License-Identifier: Apache-2.0
//
// aten::maximum.out: out = the larger of self and other, elementwise with
// broadcasting, propagating NaN.
//
// Dtypes: the compute dtype is torch.result_type(self, other) (int8 with
// a Float tensor is Float, with a zero-dim Double it is Double; Half with
// BFloat16 is Float); Bool (where maximum is logical or), integral and
// floating. Complex is NotSupported ("maximum not implemented for complex
// tensors"), as is a uint16/32/64 compute dtype ("maximum_cpu not
// implemented for 'UInt16'"). The out may have any dtype the result can be
// cast to (InvalidArgument otherwise).
//
// Floating values: NaN when either operand is NaN (unlike fmax/fmin);
// otherwise std::max(a, b), which returns `a` when the two compare
// equal, so maximum(-0.0, 0.0) is -0.0 and maximum(0.0, -0.0) is 0.0.
// PyTorch's vectorized loop returns `b` for equal operands instead (x86
// maxps), so on long contiguous inputs PyTorch's own sign of a zero
// result depends on the element's position; the scalar rule is the one
// PyTorch applies to short and strided inputs, and the zeros compare equal.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/binary_pointwise.h"

static int64_t maximum_int(int64_t a, int64_t b, const void *state) {
  (void)state;
  return a < b ? b : a;
}

static double maximum_double(double a, double b, const void *state) {
  (void)state;
  if (isnan(a) || isnan(b)) {
    return NAN;
  }
  return a < b ? b : a;
}

static const etr_binary_pointwise_op_t kMaximum = {
    .compute_dtypes = ETR_DTYPES_REAL_AND_BOOL,
    .complex_operands_refused = true,
    .fns = {maximum_int, maximum_double, NULL},
};

// aten::maximum.out
etr_error_t etr_ref_maximum_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  return etr_binary_pointwise_kernel(ctx, args, num_args, false, &kMaximum,
                                     NULL);
}
