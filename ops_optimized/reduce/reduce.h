// SPDX-License-Identifier: Apache-2.0
//
// Reduction microkernels (sum, mean, var, max/min with their indices, any)
// and the driver the optimized reduction kernels share.
//
// Every reduction the models use, once the size-1 dims are dropped and
// adjacent dims of the same kind are merged in memory order, is one of two
// shapes over a dense input seen as [outer, r, inner] (r reduced):
//   rows    inner == 1: each output reduces r contiguous floats
//           (mean over H,W of NCHW, softmax/layer-norm rows, dim=None);
//   columns inner > 1: each outer slab [r, inner] reduces its r rows into
//           inner outputs, vectorized across the kept inner dim (sum over
//           dim 1 of [B, T, C], mean over H,W of channels-last).
// Other patterns (reduced dims separated by a kept one in memory) go to the
// reference kernel.
//
// Numerics, per kernel below:
//   * sums and sums of squared deviations accumulate fp32 inputs in double
//     (several vector accumulators), so the result differs from the
//     reference's sequential double sum by at most gamma_n(double) * sum|x|
//     before the single rounding to the out dtype: the same value, or one
//     float ulp apart when the two doubles straddle a rounding boundary;
//     fp32 overflow of partial sums cannot happen;
//   * max/min and their indices are exact and follow PyTorch's CPU rules
//     (support/reduce_extrema.h): NaN wins and the first NaN is reported,
//     ties keep the first element in row-major order (so the sign of a zero
//     result is that of the first zero), the value is the element itself.
// Tails use masked loads or scalar loops: nothing past a row or column
// block is read. Index kernels need r < 2^31 (the driver checks).
#ifndef ETR_OPS_OPTIMIZED_REDUCE_REDUCE_H
#define ETR_OPS_OPTIMIZED_REDUCE_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/common/check.h"
#include "ops_optimized/isa.h"

// The reductions the driver runs (integer blocks take SUM, ANY, MAX, MIN).
typedef enum etr_reduce_op {
  ETR_REDUCE_SUM = 0,
  ETR_REDUCE_MEAN = 1,
  ETR_REDUCE_VAR = 2,
  ETR_REDUCE_MAX = 3,
  ETR_REDUCE_MIN = 4,
  ETR_REDUCE_ANY = 5,
} etr_reduce_op_t;

// One block of an integer reduction's results (reduce/integer_loops.h):
// up to ETR_REDUCE_INT_BLOCK sums (any: 0 or 1), or extrema and the first
// position along r of each.
enum { ETR_REDUCE_INT_BLOCK = 256 };
typedef struct etr_int_results {
  uint64_t sums[ETR_REDUCE_INT_BLOCK];
  int64_t values[ETR_REDUCE_INT_BLOCK];
  int64_t indices[ETR_REDUCE_INT_BLOCK];
} etr_int_results_t;

// One ISA's reduction microkernels. `rows` kernels read `rows` rows of n
// contiguous floats (row o at x + o * n) and write one result per row;
// `cols` kernels read one slab of r rows of n floats, `stride` floats
// apart, and write n results (column i reduces x[j * stride + i], j < r).
typedef struct etr_reduce_kernels {
  // y[o] = sum of row o, in double.
  void (*sum_rows)(size_t rows, size_t n, const float *x, double *y);
  void (*sum_cols)(size_t r, size_t n, size_t stride, const float *x,
                   double *y);
  // y[o] = sum of (x - mean[o])^2 over row o, in double.
  void (*sumsq_rows)(size_t rows, size_t n, const float *x,
                     const double *mean, double *y);
  void (*sumsq_cols)(size_t r, size_t n, size_t stride, const float *x,
                     const double *mean, double *y);
  // Maximum (is_max) or minimum of each row (n >= 1) into values and/or its
  // index into indices (either may be NULL, not both).
  void (*extremum_rows)(size_t rows, size_t n, const float *x, bool is_max,
                        float *values, int64_t *indices);
  // Same down the columns of a slab (r >= 1).
  void (*extremum_cols)(size_t r, size_t n, size_t stride, const float *x,
                        bool is_max, float *values, int64_t *indices);
  // y = any element != 0 (NaN counts), for fp32 and for Bool bytes.
  void (*any_rows)(size_t rows, size_t n, const float *x, bool *y);
  void (*any_cols)(size_t r, size_t n, size_t stride, const float *x,
                   bool *y);
  void (*any_rows_u8)(size_t rows, size_t n, const uint8_t *x, bool *y);
  void (*any_cols_u8)(size_t r, size_t n, size_t stride, const uint8_t *x,
                      bool *y);
  // The first i in [first, n) where x[i] enters topk's heap, whose worst
  // element is `bound` (etr_topk_enters); n when none does.
  size_t (*topk_first_entering)(size_t first, size_t n, const float *x,
                                float bound, bool largest);
  // nonzero: how many of x[0, n) are not +-0 (NaN counts), and their
  // positions j, as int64, to y[0, count) in order; returns the count.
  size_t (*count_nonzero)(size_t n, const float *x);
  size_t (*nonzero_positions)(size_t n, const float *x, int64_t *y);
  // The same for bytes (Bool, Byte): the ones that are not 0.
  size_t (*count_nonzero_u8)(size_t n, const uint8_t *x);
  size_t (*nonzero_positions_u8)(size_t n, const uint8_t *x, int64_t *y);
  // Double accumulator planes (col2im): y[i] += (double)x[i], each add
  // rounded once as in C; and their rounding, z[i] = (float)y[i].
  void (*accumulate_f64)(size_t n, const float *x, double *y);
  void (*round_f64)(size_t n, const double *y, float *z);
  // sort's slices of distinct numbers (sort/sort_avx512.c): x[0, n),
  // 8 <= n <= ETR_SORT_DISTINCT_MAX, sorted into values[0, n) and their
  // positions into indices, descending or not, as every correct sort
  // orders them, when no value is NaN and no two are equal (-0.0 and 0.0
  // count as equal); false, with nothing written, when one is. scratch:
  // 2 n uint64. sort_u64 is its sorting network: x[0, n) ascending, n a
  // power of two from 8 to ETR_SORT_DISTINCT_MAX. Both NULL where the ISA
  // has none (the driver then takes sort_f32.c's radix sort).
  bool (*sort_distinct)(const float *x, size_t n, bool descending,
                        uint64_t *scratch, float *values, int64_t *indices);
  void (*sort_u64)(uint64_t *x, size_t n);
  // One block of an integer reduction (`op` SUM, ANY, MAX or MIN) of a
  // dense uint8 or int8..int64 x: with inner == 1, `count` rows of r
  // elements each; else `count` columns of one [r, inner] slab (column i
  // reduces x[j * inner + i], j < r). count <= ETR_REDUCE_INT_BLOCK.
  void (*int_block)(etr_scalar_type_t dtype, etr_reduce_op_t op,
                    const void *x, size_t count, size_t r, size_t inner,
                    etr_int_results_t *b);
} etr_reduce_kernels_t;

enum { ETR_SORT_DISTINCT_MAX = 4096 };

bool etr_sort_distinct_avx512(const float *x, size_t n, bool descending,
                              uint64_t *scratch, float *values,
                              int64_t *indices);
void etr_sort_u64_avx512(uint64_t *x, size_t n);

// partial_sort's test in topk (ATen's order, NaN largest): whether x
// displaces `bound`, the worst of the k kept. Largest: x > bound, or x is
// NaN and bound is not; smallest: x < bound, or bound is NaN and x is not.
static inline bool etr_topk_enters(float x, float bound, bool largest) {
  if (largest) {
    return (x != x && bound == bound) || x > bound;
  }
  return (x == x && bound != bound) || x < bound;
}

// How the SIMD kernels test a vector against `bound` (-1: nothing enters).
enum {
  ETR_TOPK_ABOVE = 0,    // largest, bound a number: !(x <= bound)
  ETR_TOPK_BELOW = 1,    // smallest, bound a number: x < bound
  ETR_TOPK_NUMBERS = 2,  // smallest, bound NaN: x == x
};
static inline int etr_topk_test(float bound, bool largest) {
  if (bound != bound) {
    return largest ? -1 : ETR_TOPK_NUMBERS;
  }
  return largest ? ETR_TOPK_ABOVE : ETR_TOPK_BELOW;
}

extern const etr_reduce_kernels_t etr_reduce_kernels_scalar;
extern const etr_reduce_kernels_t etr_reduce_kernels_avx2;
extern const etr_reduce_kernels_t etr_reduce_kernels_avx512;
extern const etr_reduce_kernels_t etr_reduce_kernels_neon;

// sum_rows for rows of n <= 16 floats, eight rows at a time
// (reduce/sum_rows_short_avx512.c): the sums of the first 8 * (rows / 8)
// rows; returns how many it wrote (the caller sums the rest).
size_t etr_reduce_sum_short_rows_avx512(size_t rows, size_t n,
                                        const float *x, double *y);

// int_block per ISA: the same portable loops (reduce/integer_loops.h),
// compiled with each ISA's flags; NEON's table takes the scalar one, which
// aarch64's baseline vectorizes.
void etr_reduce_int_block_scalar(etr_scalar_type_t dtype, etr_reduce_op_t op,
                                 const void *x, size_t count, size_t r,
                                 size_t inner, etr_int_results_t *b);
void etr_reduce_int_block_avx2(etr_scalar_type_t dtype, etr_reduce_op_t op,
                               const void *x, size_t count, size_t r,
                               size_t inner, etr_int_results_t *b);
void etr_reduce_int_block_avx512(etr_scalar_type_t dtype, etr_reduce_op_t op,
                                 const void *x, size_t count, size_t r,
                                 size_t inner, etr_int_results_t *b);

// The scalar accumulator kernels (NEON's table uses them too).
void etr_reduce_accumulate_f64_scalar(size_t n, const float *x, double *y);
void etr_reduce_round_f64_scalar(size_t n, const double *y, float *z);

// The scalar nonzero kernels, which the SIMD ones finish tails with.
size_t etr_reduce_count_nonzero_scalar(size_t n, const float *x);
size_t etr_reduce_nonzero_positions_scalar(size_t n, const float *x,
                                           int64_t *y);
// Bytes eight at a time in a uint64_t (NEON's table uses them too).
size_t etr_reduce_count_nonzero_u8_scalar(size_t n, const uint8_t *x);
size_t etr_reduce_nonzero_positions_u8_scalar(size_t n, const uint8_t *x,
                                              int64_t *y);

// The table for `isa` (scalar when that ISA is not built in).
const etr_reduce_kernels_t *etr_reduce_kernels_for(etr_isa_t isa);

// The pooling backwards' lone terms (windows or bins that do not overlap):
// grad / divisor as the reference's double sum from +0.0 holds it (-0.0
// becomes +0.0), rounded. `inverse` is etr_reduce_exact_inverse(divisor):
// 1 / divisor when that is exact (a power of two; the product is then the
// quotient's double), else 0 (divided).
static inline double etr_reduce_exact_inverse(int64_t divisor) {
  return divisor > 0 && (divisor & (divisor - 1)) == 0
             ? 1.0 / (double)divisor
             : 0.0;
}
static inline float etr_reduce_lone_quotient(float grad, int64_t divisor,
                                             double inverse) {
  double term = inverse != 0.0 ? (double)grad * inverse
                               : (double)grad / (double)divisor;
  return (float)(0.0 + term);
}

// Shared by the SIMD extremum kernels: the winner of row x[0..n) once the
// vector pass found `result` (and whether it saw a NaN): the first NaN
// when there is one, the first zero when the result is a zero (its sign),
// else `result`.
float etr_reduce_extremum_fixup(size_t n, const float *x, float result,
                                bool saw_nan);

// Merges candidate (value, index) pairs of one row, each the first
// occurrence of its lane's winner, into the row's winner by the rules
// above. count >= 1.
void etr_reduce_merge_candidates(size_t count, const float *values,
                                 const int32_t *indices, bool is_max,
                                 float *value_out, int64_t *index_out);

// fp32 <-> Half/BFloat16 conversion microkernels (round to nearest even,
// NaN kept quiet, exactly as core/scalar_type.h's etr_float_to_half and
// etr_float_to_bfloat16).
typedef struct etr_convert_kernels {
  void (*f16_to_f32)(size_t n, const uint16_t *x, float *y);
  void (*bf16_to_f32)(size_t n, const uint16_t *x, float *y);
  void (*f32_to_f16)(size_t n, const float *x, uint16_t *y);
  void (*f32_to_bf16)(size_t n, const float *x, uint16_t *y);
} etr_convert_kernels_t;

extern const etr_convert_kernels_t etr_convert_kernels_scalar;
extern const etr_convert_kernels_t etr_convert_kernels_avx2;
extern const etr_convert_kernels_t etr_convert_kernels_avx512;
extern const etr_convert_kernels_t etr_convert_kernels_neon;
const etr_convert_kernels_t *etr_convert_kernels_for(etr_isa_t isa);

// n elements of a Float, Half or BFloat16 buffer as fp32 into y (Float is
// copied); and back, rounding once.
void etr_convert_to_f32(etr_scalar_type_t dtype, size_t n, const void *x,
                        float *y);
void etr_convert_from_f32(etr_scalar_type_t dtype, size_t n, const float *x,
                          void *y);

// Runs a Float computation on Half or BFloat16 data: `units` units of
// `in_unit` elements at x into units of `out_unit` elements at y (both of
// `dtype`), a chunk of units at a time converted to fp32 in `temp` (256
// KiB of in and out a chunk, or one unit when that is larger), `fn` on
// the chunk's fp32 copies (units first .. first + count - 1), its results
// converted back. `fn` returns false to stop, before the chunk is written
// back. False without room in `temp` for one unit (nothing written) or
// when `fn` stopped; an `fn` that decides on what every chunk shares
// stops at the first one, with nothing written.
typedef bool (*etr_stage_fn_t)(void *state, size_t first, size_t count,
                               const float *x, float *y);
bool etr_stage_through_f32(etr_arena_t *temp, etr_scalar_type_t dtype,
                           size_t units, size_t in_unit, size_t out_unit,
                           const void *x, void *y, etr_stage_fn_t fn,
                           void *state);

// True for Float, Half and BFloat16.
static inline bool etr_reduce_is_f32_like(etr_scalar_type_t dtype) {
  return dtype == ETR_FLOAT || dtype == ETR_HALF || dtype == ETR_BFLOAT16;
}

// ---------------------------------------------------------------------------
// The [outer, r, inner] view of a reduction.

typedef struct etr_reduce_plan {
  int64_t outer;
  int64_t r;
  int64_t inner;
} etr_reduce_plan_t;

// Plans reducing dense `self` over the dims in `mask` into `outs` (already
// resized to the reduced shape with `keepdim`; NULL entries skipped).
// False when self is not dense or empty, when the reduced dims are not one
// run in memory order between the kept ones, when `ordered` is asked and
// the reduced dims do not appear in memory in their logical order (max/min
// ties and flat indices follow the logical order), or when an out is not
// laid out as [outer, inner] in self's memory order.
bool etr_reduce_plan_init(const etr_tensor_t *self, uint32_t mask,
                          bool keepdim, etr_tensor_t *const *outs,
                          size_t num_outs, bool ordered,
                          etr_reduce_plan_t *plan);

// ---------------------------------------------------------------------------
// The driver.


typedef struct etr_reduce_request {
  etr_reduce_op_t op;
  const etr_tensor_t *self;  // Float, Half or BFloat16 (Bool for any)
  uint32_t mask;             // reduced dims
  bool keepdim;
  etr_tensor_t *values;   // Float/Half/BFloat16 (Bool for any), or NULL
  etr_tensor_t *indices;  // Long (max/min only), or NULL
  double correction;      // var: divisor max(N - correction, 0)
} etr_reduce_request_t;

// Computes an already checked reduction (the reference kernel's dry run
// validated the arguments and resized the outs). Half/BFloat16 inputs are
// converted to fp32 a slab at a time in ctx->temp (scratch: r * inner * 4
// bytes per outer slab). Returns false, touching nothing, when the case is
// not one it handles (layout, scratch, sizes); the caller then falls back.
bool etr_reduce_run(etr_kernel_context_t *ctx,
                    const etr_reduce_request_t *request);

// A floating-point reduction that etr_reduce_run computed keeps its plan
// in ctx->memo (when there is one). On a vouched call of the same
// instruction (ctx->args_checked) this runs it again on the call's self
// and outs (NULL where the op has none): true, computed. False, nothing
// done, for any other call (the caller then takes its usual path).
bool etr_reduce_memo_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                         etr_tensor_t *values, etr_tensor_t *indices);

// The same reductions of a uint8 or int8..int64 self (reduce/integer.c):
// SUM into an integer out (a wrapping int64 sum wrapped to the out
// dtype), ANY into a Bool out, MAX and MIN into values of self's dtype
// and/or Long indices (the first position of the extremum). Same contract as
// etr_reduce_run (an already checked call; false, touching nothing, for other
// dtypes, ops and layouts); no scratch.
bool etr_reduce_run_integer(const etr_reduce_request_t *request);

// The extremum ops' calls, as their argument lists lay them out:
typedef enum etr_reduce_form {
  // amax/amin.out (self, dim[], keepdim, out): values of self's dtype.
  ETR_REDUCE_FORM_VALUES = 0,
  // argmax/argmin.out (self, dim?, keepdim, out): Long indices; no dim
  // reduces the whole (row-major) self.
  ETR_REDUCE_FORM_INDICES = 1,
  // max/min.dim_max/dim_min (self, dim, keepdim, values, indices).
  ETR_REDUCE_FORM_BOTH = 2,
} etr_reduce_form_t;

// Runs such a call (`op`: max or min) of a Float, Half or BFloat16 self
// through etr_reduce_run after `reference`'s dry run has checked the
// arguments and resized the outs (etr_opt_check), returning that check's
// error. *handled is false when the call is not one this takes (other
// dtypes, argument counts or layouts): the caller then runs the reference.
etr_error_t etr_reduce_extremum_call(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args,
                                     etr_reduce_op_t op,
                                     etr_reduce_form_t form,
                                     etr_kernel_fn reference,
                                     bool *handled);

#endif  // ETR_OPS_OPTIMIZED_REDUCE_REDUCE_H
