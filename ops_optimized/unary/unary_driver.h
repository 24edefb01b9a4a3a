// SPDX-License-Identifier: Apache-2.0
//
// The driver of the table-driven unary ops (unary.h) on tensors, for the
// op files (op_exp.c, op_clamp.c, ...): self and out of one dtype, Float,
// Half or BFloat16 (the latter two staged through fp32 a chunk at a time:
// exact conversion in, one rounding out), out resized to self's shape,
// any layout ../binary/plan.h can express (self and out in one dim order,
// including channels-last, or views whose innermost stride is 1).
#ifndef ETR_OPS_OPTIMIZED_UNARY_UNARY_DRIVER_H
#define ETR_OPS_OPTIMIZED_UNARY_UNARY_DRIVER_H

#include <stddef.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/unary/unary.h"

// True when `self` and `out` are a case the driver takes: both of one
// dtype among Float, Half and BFloat16.
bool etr_unary_case(const etr_tensor_t *self, const etr_tensor_t *out);

// out = op(self): resizes out like self (returning its error if that
// fails), stops in a dry run, then computes. *handled is false when the
// layout cannot be planned (only out's shape was touched): the caller
// then runs the reference kernel. The caller has checked etr_unary_case
// and every argument the reference would check.
etr_error_t etr_unary_execute(etr_kernel_context_t *ctx, etr_unary_op_t op,
                              const etr_unary_params_t *params,
                              const etr_tensor_t *self, etr_tensor_t *out,
                              bool *handled);

// etr_unary_execute for an op whose call is that and nothing else
// (clamp, hardtanh, leaky_relu, elu, gelu, and the ops of
// etr_unary_simple with params NULL): a dense Float call keeps its
// op, params (NULL: none) and length in ctx->memo (when there is one),
// which etr_unary_kept_run reuses.
etr_error_t etr_unary_execute_kept(etr_kernel_context_t *ctx,
                                   etr_unary_op_t op,
                                   const etr_unary_params_t *params,
                                   const etr_tensor_t *self, etr_tensor_t *out,
                                   bool *handled);

// On a vouched call (ctx->args_checked) of an instruction whose first call
// etr_unary_execute_kept kept: the same kernel call on self and out
// (args[self_index] and args[out_index]); true, computed. False, nothing
// done, for any other call.
bool etr_unary_kept_run(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                        size_t self_index, size_t out_index);

// The same for an op whose only arguments are (self, out, return slot)
// and whose out has self's dtype (sigmoid, tanh, exp, log, sqrt, rsqrt,
// neg, abs), kept as etr_unary_execute_kept keeps it; *handled is also
// false when the arguments are not such a case.
etr_error_t etr_unary_simple(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args, etr_unary_op_t op,
                             bool *handled);

// The rounding ops (ceil, floor, round, trunc): a uint8 or int8..int64 self
// with an out of its dtype is integral already and is copied (x ^ 0 by
// bitwise/'s byte engine, as the reference copies integers); otherwise as
// etr_unary_simple.
etr_error_t etr_unary_rounding(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args, etr_unary_op_t op,
                               bool *handled);

#endif  // ETR_OPS_OPTIMIZED_UNARY_UNARY_DRIVER_H
