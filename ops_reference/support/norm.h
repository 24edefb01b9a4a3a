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

// The input and parameter rules batch norm's kernels share
// (_native_batch_norm_legit_no_training, _native_batch_norm_legit and its
// no_stats form). `params` holds weight, bias, running_mean, running_var
// (any may be NULL). Training needs an input of rank >= 2 (PyTorch:
// "Dimension out of range") and parameters that are 1-D of C = size(1)
// elements (PyTorch does not check them and reads out of bounds), and
// *param_dtype_out is etr_norm_param_dtype's. Evaluation of an input
// without elements is what ATen returns early from (checked on PyTorch
// 2.13): any rank (a 1-D Half[0] input is fine) and parameters of any
// shape are accepted, and only the mixed-dtype check on the first present
// parameter remains: when it has the input's dtype the others are not
// looked at (an empty Half input with a Half weight and Float running
// statistics passes there, and fails with elements). InvalidArgument and
// NotSupported as etr_norm_param_dtype; InvalidArgument for the rank and
// sizes.
etr_error_t etr_batch_norm_check_params(etr_kernel_context_t *ctx,
                                        const etr_tensor_t *input,
                                        const etr_tensor_t *const *params,
                                        bool training,
                                        etr_scalar_type_t *param_dtype_out);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_NORM_H
