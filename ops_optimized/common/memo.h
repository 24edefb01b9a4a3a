// SPDX-License-Identifier: Apache-2.0
//
// Kernel memos (etr_kernel_context_t.memo): what a kernel concluded from
// an instruction's fixed arguments on its first call (a dense path's
// length, a copy's geometry), kept for the vouched calls after it, which
// then skip the checks that concluded it. Every record begins with a
// uint32_t mark naming its kind; the executor zeroes the memo before each
// call it does not vouch for, so a mark found on a vouched call was
// written on these same arguments.
#ifndef ETR_OPS_OPTIMIZED_COMMON_MEMO_H
#define ETR_OPS_OPTIMIZED_COMMON_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"

// The memo of a vouched call (ctx->args_checked) whose record begins with
// `mark`; NULL for any other call.
static inline void *etr_opt_vouched_memo(const etr_kernel_context_t *ctx,
                                         uint32_t mark) {
  return ctx->args_checked && ctx->memo != NULL &&
                 *(const uint32_t *)ctx->memo == mark
             ? ctx->memo
             : NULL;
}

#endif  // ETR_OPS_OPTIMIZED_COMMON_MEMO_H
