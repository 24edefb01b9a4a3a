// SPDX-License-Identifier: Apache-2.0
//
// Bytewise microkernels and their driver, for the ops whose result is a
// bit operation on the operands' storage: bitwise_and/or/xor/not on Bool
// and integer tensors, and logical_and/or/xor/not on Bool tensors. With
// every operand of one dtype, a & b, a | b and a ^ b of the elements are
// the same operations on their bytes (little-endian machines only, which
// every etref target is), whatever the element width; Bool tensors hold
// 0/1 bytes, so logical and/or/xor are the byte and/or/xor and a not is a
// xor with 1. Float, Half and BFloat16 logical ops get their operands'
// truth bytes first (logical.c).
//
// Microkernels take runs of n bytes, one file per ISA (bitwise_<isa>.c):
// vv (two byte arrays) and vp (a byte array and a 64-byte pattern, the
// element repeated: runs start on element boundaries and every vector
// width divides 64, so lane i of a vector always meets pattern byte i).
// Nothing past n is read or written; y may be a or b (in place).
#ifndef ETR_OPS_OPTIMIZED_BITWISE_BITWISE_H
#define ETR_OPS_OPTIMIZED_BITWISE_BITWISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/isa.h"

typedef enum etr_bytes_op {
  ETR_BYTES_AND = 0,
  ETR_BYTES_OR,
  ETR_BYTES_XOR,
  ETR_BYTES_NUM_OPS,
} etr_bytes_op_t;

// Bytes in a pattern (a multiple of every element size and vector width).
#define ETR_BYTES_PATTERN 64

typedef void (*etr_bytes_vv_fn)(size_t n, const uint8_t *a, const uint8_t *b,
                                uint8_t *y);
typedef void (*etr_bytes_vp_fn)(size_t n, const uint8_t *a,
                                const uint8_t *pattern, uint8_t *y);

typedef struct etr_bytes_kernels {
  etr_bytes_vv_fn vv[ETR_BYTES_NUM_OPS];
  etr_bytes_vp_fn vp[ETR_BYTES_NUM_OPS];
} etr_bytes_kernels_t;

extern const etr_bytes_kernels_t etr_bytes_scalar;
extern const etr_bytes_kernels_t etr_bytes_avx2;
extern const etr_bytes_kernels_t etr_bytes_avx512;
extern const etr_bytes_kernels_t etr_bytes_neon;

// The kernels for `isa` (scalar when this build has none for it).
const etr_bytes_kernels_t *etr_bytes_for(etr_isa_t isa);

// ---------------------------------------------------------------------------
// The driver. a, b (when not NULL) and out share one dtype; b NULL means
// every element of the second operand is `value` (its first element-size
// bytes, little-endian).
typedef struct etr_bytes_call {
  etr_bytes_op_t op;
  const etr_tensor_t *a;
  const etr_tensor_t *b;
  uint8_t value[8];
  etr_tensor_t *out;
} etr_bytes_call_t;

// True for Bool and the integer dtypes the byte ops take (uint8, int8,
// int16, int32, int64).
bool etr_bytes_dtype(etr_scalar_type_t dtype);

// Reads (self, other, out, return slot) of a bitwise op (`logical`:
// logical_and/or/xor, Bool only) into `call` (op left to the caller) when
// every tensor has self's dtype and, for a Scalar `other`, when the
// result dtype is self's (the Scalar is then wrapped to it as the
// reference wraps it). False otherwise.
bool etr_bytes_binary_probe(const etr_kernel_context_t *ctx,
                            etr_evalue_t **args, size_t num_args,
                            bool scalar_other, bool logical,
                            etr_bytes_call_t *call);

// Broadcasts, resizes out (returning its error), stops there in a dry run,
// then computes. *handled is false when the operands cannot be planned:
// the caller then runs the reference.
etr_error_t etr_bytes_execute(etr_kernel_context_t *ctx,
                              const etr_bytes_call_t *call, bool *handled);

// How a binary byte op's arguments come: bitwise_* with a Tensor or a
// Scalar other, or logical_* (self, other, out).
typedef enum etr_bytes_form {
  ETR_BYTES_TENSOR = 0,
  ETR_BYTES_SCALAR = 1,
  ETR_BYTES_LOGICAL = 2,
} etr_bytes_form_t;

// One call of such an op (`op`: AND, OR, XOR): etr_bytes_binary_probe,
// then etr_bytes_execute, and for a logical op whose tensors the probe
// does not take, etr_logical_execute. Returns their error;
// *handled is false when none of them took the call: the caller then
// runs the reference.
etr_error_t etr_bytes_binary_op(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args,
                                etr_bytes_op_t op, etr_bytes_form_t form,
                                bool *handled);

// logical_and/or/xor (`op`: AND, OR, XOR) of two Float, Half, BFloat16
// or integer (uint8, int8..int64) tensors of one dtype into a Bool out
// (logical.c): truth bytes (comparison microkernels for the floats, typed
// loops for integers), then `op`. Resizes out (returning its error),
// stops in a dry run. *handled is false when the dtypes are not such a
// case or the layout cannot be planned: the caller runs the reference.
etr_error_t etr_logical_execute(etr_kernel_context_t *ctx,
                                      etr_bytes_op_t op,
                                      const etr_tensor_t *a,
                                      const etr_tensor_t *b,
                                      etr_tensor_t *out, bool *handled);

#endif  // ETR_OPS_OPTIMIZED_BITWISE_BITWISE_H
