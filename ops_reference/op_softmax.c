// SPDX-License-Identifier: Apache-2.0
//
// aten::_softmax.out: softmax of self along `dim`.
//
// The kernel is etr_softmax_kernel (support/softmax.h), shared with
// aten::_log_softmax.out, which documents the numerics (max subtracted,
// double evaluation), the dtypes (floating only, out dtype equal to self's)
// and the error codes. This file only selects the variant, so it is
// shorter than the usual op file on purpose.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/softmax.h"

// aten::_softmax.out
etr_error_t etr_ref_softmax_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  return etr_softmax_kernel(ctx, args, num_args, false);
}
