// SPDX-License-Identifier: Apache-2.0
//
// aten::atan2.out: out = atan2(self, other), the angle of the point
// (other, self), elementwise with broadcasting.
//
// Dtypes: the compute dtype is torch.result_type(self, other) with
// integral and Bool results promoted to Float (int32 with int64 is Float;
// int32 with a zero-dim Double is Double; uint16/32/64 are accepted since
// they become Float); complex is NotSupported ("atan2_cpu not implemented
// for 'ComplexFloat'"). The out may have any dtype Float can be cast to
// (InvalidArgument for an integral or Bool out). Values follow C's atan2
// (signed zeros and infinities as IEEE 754 specifies), computed in double
// and rounded once to the compute dtype; PyTorch computes Half and
// BFloat16 through float, which differs by at most one rounding.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/binary_pointwise.h"

static double atan2_double(double a, double b, const void *state) {
  (void)state;
  return atan2(a, b);
}

static const etr_binary_pointwise_op_t kAtan2 = {
    .compute_dtypes = ETR_DTYPES_FLOATING,
    .integral_to_float = true,
    .fns = {NULL, atan2_double, NULL},
};

// aten::atan2.out
etr_error_t etr_ref_atan2_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  return etr_binary_pointwise_kernel(ctx, args, num_args, false, &kAtan2,
                                     NULL);
}
