// SPDX-License-Identifier: Apache-2.0
//
// The argument check of an optimized kernel: its reference twin's own.
#ifndef ETR_OPS_OPTIMIZED_COMMON_CHECK_H
#define ETR_OPS_OPTIMIZED_COMMON_CHECK_H

#include <stddef.h>

#include "core/kernel.h"

// Runs `reference` as a dry run (ctx->dry_run set on a copy of ctx): it
// checks every argument and resizes the outs exactly as the reference
// kernel does, touching no data, so a kernel that calls this first reports
// exactly the errors its reference twin reports and then reads its (now
// valid) arguments. A call the executor vouches for (ctx->args_checked: the
// same arguments passed this check on an earlier call of the instruction)
// is not checked again.
static inline etr_error_t etr_opt_check(
    etr_kernel_fn reference, etr_kernel_context_t *ctx, etr_evalue_t **args,
    size_t num_args) {
  if (ctx->args_checked && !ctx->dry_run) {
    return ETR_OK;
  }
  etr_kernel_context_t dry = *ctx;
  dry.dry_run = true;
  return reference(&dry, args, num_args);
}

#endif  // ETR_OPS_OPTIMIZED_COMMON_CHECK_H
