// SPDX-License-Identifier: Apache-2.0
//
// fp32 binary microkernels (arithmetic and comparisons), one file per ISA,
// and the driver the op files call.
//
// Microkernels take contiguous runs: vv (both operands vectors), vs
// (second operand one value for the run), sv (first operand one value).
// They are written once in binary_kernels.h over the primitives of
// ../unary/simd_<isa>.h and instantiated by binary_<isa>.c. Nothing past
// n is read or written; y may be a or b (in place).
//
// Each arithmetic op gives the bits the reference gives (it computes in
// double and rounds once; for +, -, *, / of floats that double rounding
// is innocuous, and ADD_SCALED computes in double itself):
//   ADD, SUB, MUL, DIV  IEEE float ops (division by 0 gives +-inf or NaN);
//   MAXIMUM, MINIMUM    NaN if either operand is NaN, else
//                       maximum(a, b) = a < b ? b : a and
//                       minimum(a, b) = b < a ? b : a (so on equal
//                       operands, +0/-0 included, the first one);
//   ADD_SCALED          a + alpha * b in double, rounded once (add/sub
//                       with alpha != 1; sub passes -alpha);
//   FMOD                C's fmod, exact (sign of a; x fmod 0 and inf fmod
//                       y are NaN, x fmod inf is x);
//   REMAINDER           Python's modulus as ATen computes it: m = fmod(a,
//                       b), plus b when m != 0 and its sign is not b's
//                       (that sum rounds innocuously: float, then Half or
//                       BFloat16, gives the reference's double rounding);
//   DIV_TRUNC           trunc(a / b) in float, as ATen's op-math;
//   DIV_FLOOR           ATen's div_floor_floating in float;
//   ATAN2               C's atan2 in double from the floats, rounded once
//                       (../unary/vmath_trig.h; within an ulp, not exact);
//   POW                 C's pow: e^(b ln|a|) with ln and the product in
//                       double (../unary/vmath_explog.h; within an ulp),
//                       signs and special cases as C's.
// Comparisons write 0/1 bytes; NaN compares false except for NE.
#ifndef ETR_OPS_OPTIMIZED_BINARY_BINARY_H
#define ETR_OPS_OPTIMIZED_BINARY_BINARY_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "ops_optimized/isa.h"

typedef enum etr_binary_op {
  ETR_BINARY_ADD = 0,
  ETR_BINARY_SUB,
  ETR_BINARY_MUL,
  ETR_BINARY_DIV,
  ETR_BINARY_MAXIMUM,
  ETR_BINARY_MINIMUM,
  ETR_BINARY_ADD_SCALED,
  ETR_BINARY_FMOD,
  ETR_BINARY_REMAINDER,
  ETR_BINARY_DIV_TRUNC,
  ETR_BINARY_DIV_FLOOR,
  ETR_BINARY_ATAN2,
  ETR_BINARY_POW,
  ETR_BINARY_NUM_OPS,
} etr_binary_op_t;

// A kernel's parameters; NULL for the ops that read none (all but
// ADD_SCALED).
typedef struct etr_binary_params {
  double alpha;  // ADD_SCALED
  // The run belongs to a call whose arrays reach etr_isa_stream_bytes():
  // write it with streaming stores however short it is (common/stream.h;
  // add/sub/mul/div/maximum/minimum). Set by the broadcast driver.
  bool stream;
} etr_binary_params_t;

typedef void (*etr_f32_binary_vv_fn)(size_t n, const float *a,
                                     const float *b, float *y,
                                     const etr_binary_params_t *params);
typedef void (*etr_f32_binary_vs_fn)(size_t n, const float *a, float b,
                                     float *y,
                                     const etr_binary_params_t *params);
typedef void (*etr_f32_binary_sv_fn)(size_t n, float a, const float *b,
                                     float *y,
                                     const etr_binary_params_t *params);

// Runs of n elements, `rows` of them: row r reads a + r a_stride and b +
// r b_stride (whole runs where `*_vector`, else the one value there) and
// writes y + r y_stride (strides in elements). The per-channel broadcasts
// ([C, H, W] op [C, 1, 1], a bias row added to each row) as one call
// instead of one a run: small runs (mobilenet_v3's 96 x 4x4 scale) spent
// most of their time in the driver between them. Rows of at least four
// vectors stream where params->stream asks, one fence for the call.
typedef struct etr_binary_rows {
  size_t rows;
  size_t n;
  const float *a;
  ptrdiff_t a_stride;
  bool a_vector;
  const float *b;
  ptrdiff_t b_stride;
  bool b_vector;
  float *y;
  ptrdiff_t y_stride;
} etr_binary_rows_t;
typedef void (*etr_f32_binary_rows_fn)(const etr_binary_rows_t *rows,
                                       const etr_binary_params_t *params);

typedef enum etr_compare_op {
  ETR_COMPARE_OP_EQ = 0,
  ETR_COMPARE_OP_NE,
  ETR_COMPARE_OP_LT,
  ETR_COMPARE_OP_LE,
  ETR_COMPARE_OP_GT,
  ETR_COMPARE_OP_GE,
  ETR_COMPARE_NUM_OPS,
} etr_compare_op_t;

// a op b for the vectors a and b; a op b with one value b. (s op v is v
// op' s with op' the mirrored predicate: etr_compare_mirror.)
typedef void (*etr_f32_compare_vv_fn)(size_t n, const float *a,
                                      const float *b, uint8_t *y);
typedef void (*etr_f32_compare_vs_fn)(size_t n, const float *a, float b,
                                      uint8_t *y);

// hardswish and hardsigmoid as to_edge writes them, fused
// (ops_optimized/fuse/fuse_chain.c): y = clamp(x + add, low, high) /
// divisor, with times_x clamp(...) * x (x_first: x * clamp(...)) before
// the division; each step the op of its unfused kernel (add.Tensor by a
// value, the unary CLAMP kernel, mul, div by a value: FMA steps where
// etr_isa_slow_divide, else the divide), so the bits are the unfused
// chain's.
typedef struct etr_f32_hard_params {
  float add;
  float low;
  float high;
  float divisor;
  bool times_x;
  bool x_first;
} etr_f32_hard_params_t;
typedef void (*etr_f32_hard_fn)(size_t n, const float *x, float *y,
                                const etr_f32_hard_params_t *params);

typedef struct etr_f32_binary_kernels {
  etr_f32_binary_vv_fn vv[ETR_BINARY_NUM_OPS];
  etr_f32_binary_vs_fn vs[ETR_BINARY_NUM_OPS];
  etr_f32_binary_sv_fn sv[ETR_BINARY_NUM_OPS];
  // add, sub, mul, div, maximum and minimum; NULL for the others.
  etr_f32_binary_rows_fn rows[ETR_BINARY_NUM_OPS];
  etr_f32_compare_vv_fn compare_vv[ETR_COMPARE_NUM_OPS];
  etr_f32_compare_vs_fn compare_vs[ETR_COMPARE_NUM_OPS];
  etr_f32_hard_fn hard;
} etr_f32_binary_kernels_t;

extern const etr_f32_binary_kernels_t etr_f32_binary_scalar;
extern const etr_f32_binary_kernels_t etr_f32_binary_avx2;
extern const etr_f32_binary_kernels_t etr_f32_binary_avx512;
extern const etr_f32_binary_kernels_t etr_f32_binary_neon;
// etr_f32_binary_avx512 with div (vector by vector, and a value by a
// vector) dividing one 16-lane vector of each pair as two 8-lane halves
// and the other by Newton steps on the FMA pipes (binary_kernels.h): what
// etr_f32_binary_for gives for AVX-512 on the CPUs of
// etr_isa_split_wide_divide (the results are the same bits).
extern const etr_f32_binary_kernels_t etr_f32_binary_avx512_split_divide;

// The kernels for `isa` (scalar when this build has none for it).
const etr_f32_binary_kernels_t *etr_f32_binary_for(etr_isa_t isa);

// b op a for a op b: LT <-> GT, LE <-> GE, EQ and NE unchanged.
etr_compare_op_t etr_compare_mirror(etr_compare_op_t op);

#endif  // ETR_OPS_OPTIMIZED_BINARY_BINARY_H
