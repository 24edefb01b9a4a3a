// SPDX-License-Identifier: Apache-2.0
//
// What the elementwise op files (op_add.c ... op_where.c) share: their
// operands, the probes that decide whether a call is a case they
// specialize, Half/BFloat16 staging through fp32, and the binary driver.
//
// The specialized cases: every tensor operand and the out have one dtype
// D in {Float, Half, BFloat16}, which is also the op's result dtype; an
// operand of another dtype may take part when it holds one element (a
// 0-dim tensor, or a Scalar argument): it becomes a constant converted as
// the reference converts it. Layouts are whatever etr_plan_init (plan.h)
// can express. Half and BFloat16 are staged through fp32 a chunk at a
// time (exact conversions in, one rounding out), which gives the
// reference's bits whenever the fp32 result is the reference's double
// result rounded to float, as it is for every exact op here.
//
// A driver checks, resizes the out, honours ctx->dry_run and plans; when
// planning fails it reports the call as not handled (having touched
// nothing but out's shape) and the op file calls the reference kernel
// (counted as a fallback), which then redoes the whole call.
#ifndef ETR_OPS_OPTIMIZED_BINARY_ELEMENTWISE_H
#define ETR_OPS_OPTIMIZED_BINARY_ELEMENTWISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/binary/binary.h"
#include "ops_optimized/binary/plan.h"

// Elements staged through fp32 at a time (three such buffers live on the
// stack).
#define ETR_EW_CHUNK 256

// An input operand.
typedef struct etr_ew_operand {
  // The tensor, for its shape; its data is read only when running. A
  // Scalar argument is represented by a 0-dim tensor without data.
  const etr_tensor_t *tensor;
  etr_tensor_t scalar_shape;  // the 0-dim tensor of a Scalar operand
  bool constant;              // one value, `value`, for every element
  bool value_ready;           // `value` set (Scalars at once, 0-dim
                              // tensors when running)
  etr_scalar_type_t round_to;  // the dtype a constant is rounded to
  float value;
} etr_ew_operand_t;

// True for Float, Half and BFloat16.
bool etr_ew_is_float_like(etr_scalar_type_t dtype);

// `tensor` as an operand of an op computing in `dtype` (Float, Half or
// BFloat16): itself when of that dtype, a constant rounded to `round_to`
// when it holds one element of another real non-Bool dtype. False when
// neither (the caller falls back).
bool etr_ew_operand_tensor(etr_ew_operand_t *operand,
                           const etr_tensor_t *tensor,
                           etr_scalar_type_t dtype,
                           etr_scalar_type_t round_to);

// A Scalar argument as a constant rounded to `round_to`, as the
// reference wraps it in a 0-dim tensor and converts it. Bool Scalars are
// refused (several ops treat them specially).
bool etr_ew_operand_scalar(etr_ew_operand_t *operand,
                           const etr_scalar_t *scalar,
                           etr_scalar_type_t round_to);

// A context for probing: the same op name, no diagnostic, so the core
// argument readers and support's promotion functions can be asked without
// recording anything.
etr_kernel_context_t etr_ew_probe_context(const etr_kernel_context_t *ctx);

// Argument `index` as a Scalar, or false.
bool etr_ew_scalar_arg(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args, size_t index, etr_scalar_t *out);

// n elements of a Float, Half or BFloat16 buffer as fp32 (exact), and n
// fp32 values into one (rounded once), with the active ISA's kernels.
void etr_ew_to_f32(etr_scalar_type_t dtype, size_t n, const void *x,
                   float *y);
void etr_ew_from_f32(etr_scalar_type_t dtype, size_t n, const float *x,
                     void *y);

// Element `offset` of Float/Half/BFloat16 `tensor` as fp32.
float etr_ew_load_f32(const etr_tensor_t *tensor, int64_t offset);

// Sets a constant operand's value from its data (when running).
void etr_ew_operand_prepare(etr_ew_operand_t *operand);

// A binary op: out (of dtype `dtype`, or Bool for comparisons) = a op b.
typedef struct etr_binary_call {
  etr_scalar_type_t dtype;  // Float, Half or BFloat16
  bool compare;             // comparison (Bool out) or arithmetic
  etr_binary_op_t op;
  etr_compare_op_t compare_op;
  etr_binary_params_t params;
  etr_ew_operand_t a;
  etr_ew_operand_t b;
  etr_tensor_t *out;
} etr_binary_call_t;

// Reads (self, other, ..., out at `out_index`) of a binary op and fills
// `call` (op left to the caller) when the call is a specialized case:
// `other` a Tensor or, with `scalar_other`, a Scalar; the result dtype
// (torch.result_type) Float, Half or BFloat16 and every tensor operand of
// it or a one-element constant; out of that dtype, or Bool with `compare`.
// With `other_in_opmath` (mul, div) a one-element `other` of another dtype
// is rounded to Float rather than to a Half/BFloat16 result dtype, as the
// reference does. False when the call is not such a case.
bool etr_binary_probe(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                      size_t num_args, bool scalar_other,
                      bool other_in_opmath, bool compare, size_t out_index,
                      etr_binary_call_t *call);

// add/sub's alpha (argument 2): the op, ADD/SUB when alpha rounds to 1
// in float, else ADD_SCALED with alpha (negated for sub) in the params.
// False for a Bool alpha or one that is not a Scalar.
bool etr_binary_alpha(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                      size_t num_args, bool subtract,
                      etr_binary_call_t *call);

// Broadcasts, resizes out (returning its error), stops there in a dry
// run, then computes. *handled is false when the operands cannot be
// planned (or are both constants): the caller then runs the reference.
etr_error_t etr_binary_execute(etr_kernel_context_t *ctx,
                               etr_binary_call_t *call, bool *handled);

// Runs the one rows-kernel call that etr_binary_execute kept in
// ctx->memo on this instruction's first call ([C, H, W] op [C, 1, 1] on
// two tensors, say) when this call is vouched for (ctx->args_checked):
// true, out computed. False, nothing done, for any other call. add, sub,
// mul and div (etr_binary_dense asks it first), maximum and minimum
// (.out) ask it before anything else.
bool etr_binary_rows_memo_run(const etr_kernel_context_t *ctx);

// The dense fast path of add.out, sub.out (op ADD, SUB; args self, other,
// alpha, out, return), mul.out and div.out (op MUL, DIV; self, other, out,
// return) (binary/dense.c): true, with out computed unless ctx->dry_run,
// for a call valid by construction: Float tensors (Long for ADD and SUB),
// alpha the Int 1, out already of the broadcast shape, every tensor dense
// row-major, each input of out's shape (or out itself, in place) or one
// element that does not overlap out. False, with nothing written, for
// anything else. A call's decision is kept in ctx->memo (when there is
// one) for the vouched calls after it.
bool etr_binary_dense(etr_kernel_context_t *ctx, etr_evalue_t **args,
                      size_t num_args, etr_binary_op_t op);

// The same for a comparison with a Scalar (args self, other, out,
// return): a dense Float self, an Int or Double other, a dense Bool out
// already of self's shape and not overlapping it.
bool etr_compare_dense_scalar(etr_evalue_t **args, size_t num_args,
                              etr_compare_op_t op, bool dry_run);

#endif  // ETR_OPS_OPTIMIZED_BINARY_ELEMENTWISE_H
