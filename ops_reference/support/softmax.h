// SPDX-License-Identifier: Apache-2.0
//
// aten::_softmax.out and aten::_log_softmax.out differ only in their last
// step, so one function implements both and op_softmax.c /
// op_log_softmax.c name the variant.
//
// Along `dim` (wrapped; a 0-dim self accepts -1 and 0), per row:
//   m = max(x); s = sum(exp(x - m));
//   softmax = exp(x - m) / s;  log_softmax = x - m - log(s)
// evaluated in double (ATen subtracts the max the same way and computes
// Half/BFloat16 in float) and rounded to self's dtype. A row of -inf gives
// NaN, as in PyTorch. Dtypes: Half, BFloat16, Float, Double
// (NotSupported otherwise); the out dtype must equal self's; half_to_float
// is NotSupported (PyTorch: "softmax with half to float conversion is not
// supported on CPU"). The kernel reads each row three times instead of
// keeping scratch, so it never allocates.
#ifndef ETR_OPS_REFERENCE_SUPPORT_SOFTMAX_H
#define ETR_OPS_REFERENCE_SUPPORT_SOFTMAX_H

#include <stdbool.h>
#include <stddef.h>

#include "core/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

// A whole softmax kernel: args are (self, dim, half_to_float, out, return
// slot).
etr_error_t etr_softmax_kernel(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args, bool log_variant);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_SOFTMAX_H
