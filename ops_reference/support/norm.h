// SPDX-License-Identifier: Apache-2.0
//
// Dtype rules shared by the normalization kernels (layer norm, batch
// norm): ATen's CPU kernels take parameters (weight, bias, running stats)
// of the input's dtype, or Float for a Half/BFloat16 input ("mixed dtype
// (CPU): expect parameter to have scalar type of Float"), and their mean /
// rstd outputs take the parameters' dtype.
#ifndef ETR_OPS_REFERENCE_SUPPORT_NORM_H
#define ETR_OPS_REFERENCE_SUPPORT_NORM_H

#include <stddef.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// Picks the parameter dtype from the present parameters (`params` may hold
// NULLs): the input's dtype, or Float when the input is Half/BFloat16 and
// the parameters are Float; every present parameter must have it
// (InvalidArgument otherwise). The input must be floating (NotSupported).
etr_error_t etr_norm_param_dtype(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *input,
                                 const etr_tensor_t *const *params,
                                 size_t count, etr_scalar_type_t *out);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_NORM_H
