// SPDX-License-Identifier: Apache-2.0
//
// Contiguous fp32 unary microkernels, one file per ISA. Each maps n floats
// from x to y (which may be the same array); no reads or writes past n
// (tails use masked loads/stores or a scalar loop).
//
// relu has hand-written kernels (relu_<isa>.c). The other ops are written
// once in unary_kernels.h on top of the primitives of simd_<isa>.h and
// the math of vmath.h, and instantiated per ISA by unary_<isa>.c; a table
// per ISA maps etr_unary_op_t to its kernel. fp32 <-> Half/BFloat16
// conversions (convert_<isa>.c) let the op files compute those dtypes in
// fp32 and round once.
#ifndef ETR_OPS_OPTIMIZED_UNARY_UNARY_H
#define ETR_OPS_OPTIMIZED_UNARY_UNARY_H

#include <stddef.h>
#include <stdint.h>

#include "ops_optimized/isa.h"

typedef void (*etr_f32_unary_fn)(size_t n, const float *x, float *y);

// relu: x < 0 ? 0 : x, so NaN and -0.0 pass through as in PyTorch.
void etr_f32_relu_scalar(size_t n, const float *x, float *y);
void etr_f32_relu_avx2(size_t n, const float *x, float *y);
void etr_f32_relu_avx512(size_t n, const float *x, float *y);
void etr_f32_relu_neon(size_t n, const float *x, float *y);

// The relu microkernel for `isa`.
etr_f32_unary_fn etr_f32_relu_for(etr_isa_t isa);

// relu of n Half (infinity 0x7c00) or BFloat16 (0x7f80) values as bits:
// negative values below -0.0 become +0, NaN and -0.0 pass through, as the
// fp32 relu (portable C the compiler vectorizes; y may be x).
void etr_relu_16bit(size_t n, const uint16_t *x, uint16_t *y,
                    uint16_t infinity);

// ---------------------------------------------------------------------------
// The table-driven unary ops. Exact ops give the reference's bits (its
// double evaluation rounds to the same float); the others state their
// accuracy in vmath.h, and the differential tests the bound they meet.
typedef enum etr_unary_op {
  ETR_UNARY_NEG = 0,         // -x (exact)
  ETR_UNARY_ABS,             // |x| (exact)
  ETR_UNARY_SQRT,            // sqrt x (exact: correctly rounded)
  ETR_UNARY_RSQRT,           // 1 / sqrt x in double, then rounded (exact)
  ETR_UNARY_EXP,
  ETR_UNARY_LOG,
  ETR_UNARY_SIGMOID,
  ETR_UNARY_TANH,
  ETR_UNARY_GELU_ERF,        // gelu, approximate="none"
  ETR_UNARY_GELU_TANH,       // gelu, approximate="tanh"
  ETR_UNARY_ELU,             // x < 0 ? expm1(x input_scale) negcoef
                             //       : x poscoef
  ETR_UNARY_LEAKY_RELU,      // x > 0 ? x : x slope (exact)
  ETR_UNARY_CLAMP,           // x < low -> low, then > high -> high; NaN x
                             // kept, NaN bounds ignored (exact)
  ETR_UNARY_POW_0,           // 1 (NaN too, as C's pow)
  ETR_UNARY_POW_1,           // x
  ETR_UNARY_POW_2,           // x * x (exact)
  ETR_UNARY_POW_3,           // x^3 in double, rounded once
  ETR_UNARY_POW_MINUS_1,     // 1 / x (exact)
  ETR_UNARY_POW_MINUS_2,     // 1 / x^2 in double, rounded once
  ETR_UNARY_POW_HALF,        // pow(x, 0.5): sqrt, with pow's +0 for -0
                             // and +inf for -inf (exact)
  ETR_UNARY_POW_MINUS_HALF,  // pow(x, -0.5): 1 / sqrt x in double, with
                             // pow's +inf for -0 and +0 for -inf
  ETR_UNARY_CEIL,            // rounding to an integral value: exact,
  ETR_UNARY_FLOOR,           // -0.0, +-inf and NaN kept
  ETR_UNARY_ROUND,           // (ROUND: to nearest, ties to even)
  ETR_UNARY_TRUNC,
  ETR_UNARY_SIGN,            // (0 < x) - (x < 0): NaN -> +0, -0.0 -> +0
  ETR_UNARY_EXPM1,           // vmath.h, vmath_explog.h, vmath_trig.h:
  ETR_UNARY_LOG2,            // about an ulp each (the bounds measured
  ETR_UNARY_LOG10,           // are in diff_elementwise_transcendental_
  ETR_UNARY_LOG1P,           // test.c)
  ETR_UNARY_SINH,
  ETR_UNARY_COSH,
  ETR_UNARY_ASINH,
  ETR_UNARY_ACOSH,
  ETR_UNARY_ATANH,
  ETR_UNARY_ERF,
  ETR_UNARY_SIN,
  ETR_UNARY_COS,
  ETR_UNARY_TAN,
  ETR_UNARY_ASIN,
  ETR_UNARY_ACOS,
  ETR_UNARY_ATAN,
  ETR_UNARY_EXP_SCALED,      // e^(x log_base) (pow with a Scalar base)
  ETR_UNARY_POW_SCALAR,      // C's pow(x, exponent) for a finite, non-zero
                             // exponent (vmath_explog.h's vf_pow_const)
  ETR_UNARY_NUM_OPS,
} etr_unary_op_t;

// The parameters of the ops that have some (others ignore them).
typedef struct etr_unary_params {
  float low;          // CLAMP (-inf for none)
  float high;         // CLAMP (+inf for none)
  float slope;        // LEAKY_RELU
  float negcoef;      // ELU: alpha * scale
  float poscoef;      // ELU: scale
  float input_scale;  // ELU
  double log_base;    // EXP_SCALED
  double exponent;    // POW_SCALAR
} etr_unary_params_t;

typedef void (*etr_f32_unary_op_fn)(size_t n, const float *x, float *y,
                                    const etr_unary_params_t *params);

extern const etr_f32_unary_op_fn etr_f32_unary_ops_scalar[ETR_UNARY_NUM_OPS];
extern const etr_f32_unary_op_fn etr_f32_unary_ops_avx2[ETR_UNARY_NUM_OPS];
extern const etr_f32_unary_op_fn etr_f32_unary_ops_avx512[ETR_UNARY_NUM_OPS];
extern const etr_f32_unary_op_fn etr_f32_unary_ops_neon[ETR_UNARY_NUM_OPS];

// AVX-512's gelu none and gelu tanh on the narrow tables (vmath.h's
// vf_gelu_rows), which etr_f32_unary_op_for takes where
// etr_isa_narrow_lookups (isa.h) says so.
extern const etr_f32_unary_op_fn etr_f32_gelu_narrow_avx512[2];

// The microkernel of `op` for `isa` (the scalar one when the ISA has no
// table in this build).
etr_f32_unary_op_fn etr_f32_unary_op_for(etr_unary_op_t op, etr_isa_t isa);

// ---------------------------------------------------------------------------
// fp32 <-> Half / BFloat16, bit-identical to core/scalar_type.h's
// etr_half_to_float, etr_float_to_half (round to nearest even, overflow to
// inf, NaN kept quiet), etr_bfloat16_to_float and etr_float_to_bfloat16.
typedef struct etr_f32_convert_kernels {
  void (*from_f16)(size_t n, const uint16_t *x, float *y);
  void (*from_bf16)(size_t n, const uint16_t *x, float *y);
  void (*to_f16)(size_t n, const float *x, uint16_t *y);
  void (*to_bf16)(size_t n, const float *x, uint16_t *y);
} etr_f32_convert_kernels_t;

extern const etr_f32_convert_kernels_t etr_f32_convert_scalar;
extern const etr_f32_convert_kernels_t etr_f32_convert_avx2;
extern const etr_f32_convert_kernels_t etr_f32_convert_avx512;
extern const etr_f32_convert_kernels_t etr_f32_convert_neon;
// ETR_ISA_AVX512 on a CPU with AVX512_BF16 (etr_isa_has_avx512_bf16): the
// AVX-512 table with etr_f32_to_bf16_avx512_bf16 (convert_bf16_avx512.c).
extern const etr_f32_convert_kernels_t etr_f32_convert_avx512_bf16;
void etr_f32_to_bf16_avx512_bf16(size_t n, const float *x, uint16_t *y);

// The table for `isa` (for ETR_ISA_AVX512, the AVX512_BF16 one where the
// CPU has that extension).
const etr_f32_convert_kernels_t *etr_f32_convert_for(etr_isa_t isa);

#endif  // ETR_OPS_OPTIMIZED_UNARY_UNARY_H
