// SPDX-License-Identifier: Apache-2.0
//
// Softmax and normalization microkernels (fp32, one table per ISA) and the
// drivers of the optimized _softmax, _log_softmax, native_layer_norm,
// _native_batch_norm_legit_no_training and native_group_norm kernels.
//
// Numerics (the reference evaluates everything in double and rounds once):
//   softmax      m = max (NaN if any NaN); e = exp(x - m) in fp32 (a
//                Cephes-style polynomial, <= 2 ulp; results below 2^-126
//                flush to 0, except on AVX-512, whose vscalefps rounds
//                them to subnormals); s = sum e in fp32 vector
//                accumulators;
//                y = e * (1/s). Each output is within a few ulp of the
//                largest output of its row (the tests state the bound);
//   log_softmax  y = (x - m) - log(s), same s;
//   layer/group  statistics in double (reduce/ kernels), y = ((x - m_hi) -
//   norm         m_lo) * rstd * w + b in fp32 with the mean split into two
//                floats, so cancellation against the mean costs nothing;
//                rows whose statistics are non-finite or extreme
//                (var > 2^200, rstd > 2^100) are computed in double
//                exactly like the reference;
//   batch norm   alpha = w / sqrt(var + eps), beta = b - mean * alpha in
//                double, rounded to fp32; y = fma(x, alpha, beta).
// All kernels accept y == x (in place). Tails are masked or scalar:
// nothing past n (or a column block) is touched.
#ifndef ETR_OPS_OPTIMIZED_NORM_NORM_H
#define ETR_OPS_OPTIMIZED_NORM_NORM_H

#include <stdbool.h>
#include <stddef.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/isa.h"

typedef struct etr_norm_kernels {
  // max of x[0..n) (n >= 1), NaN when any element is NaN.
  float (*max)(size_t n, const float *x);
  // y = exp(x - m); returns the fp32 sum of y.
  float (*exp_sum)(size_t n, const float *x, float m, float *y);
  // sum of exp(x - m), nothing stored.
  float (*exp_sum_only)(size_t n, const float *x, float m);
  // y *= s.
  void (*scale)(size_t n, float *y, float s);
  // y = (x - a) - b.
  void (*sub2)(size_t n, const float *x, float a, float b, float *y);
  // Softmax of `rows` rows of n <= 16 floats (row o at x + o * n, y + o *
  // n; y may be x), the bits of max, exp_sum and scale by (float)(1 /
  // (double)sum) row by row, without their calls and reloads, so the
  // rows' reductions overlap. NULL where an ISA has none.
  void (*softmax_short_rows)(size_t rows, size_t n, const float *x,
                             float *y);
  // Softmax (or log-softmax) of each of n columns of an [r, n] slab whose
  // rows are `stride` floats apart, down the column (r >= 1).
  void (*softmax_cols)(size_t r, size_t n, size_t stride, const float *x,
                       float *y, bool log);
  // y = fma((x - mean_hi) - mean_lo, scale, shift).
  void (*normalize)(size_t n, const float *x, float mean_hi, float mean_lo,
                    float scale, float shift, float *y);
  // y = ((x - mean_hi) - mean_lo) * rstd * w[i] + b[i] (w, b may be NULL:
  // 1 and 0).
  void (*normalize_affine)(size_t n, const float *x, float mean_hi,
                           float mean_lo, float rstd, const float *w,
                           const float *b, float *y);
  // y = x * s (x may be y) and normalize_affine, each y element the
  // same bits, with non-temporal stores (common/stream.h) where y is
  // aligned for them, for outs that will not stay in cache: the drivers
  // take them when self and out reach etr_stream_out's size and end the
  // call with etr_stream_fence(). NULL where an ISA has none.
  void (*scale_stream)(size_t n, const float *x, float s, float *y);
  void (*normalize_affine_stream)(size_t n, const float *x, float mean_hi,
                                  float mean_lo, float rstd, const float *w,
                                  const float *b, float *y);
  // y = fma(x, alpha, beta).
  void (*affine)(size_t n, const float *x, float alpha, float beta,
                 float *y);
  // y[p * c + k] = fma(x[p * c + k], alpha[k], beta[k]) for p < pixels.
  void (*affine_channels)(size_t pixels, size_t c, const float *x,
                          const float *alpha, const float *beta, float *y);
  // y[k * inner + i] = fma(x[k * inner + i], alpha[k], beta[k]) for
  // k < c, i < inner: every plane of an NCHW image in one call.
  void (*affine_planes)(size_t c, size_t inner, const float *x,
                        const float *alpha, const float *beta, float *y);
  // Batch norm's alpha[k] = (float)(w[k] / sqrt(v[k] + eps)) and
  // beta[k] = (float)(b[k] - m[k] * (w[k] / sqrt(v[k] + eps))), in double
  // with a separate multiply and subtract (no fma), so every ISA rounds
  // exactly as the portable C does; NULL parameters read as w = 1, b = 0,
  // m = 0, v = 1.
  void (*bn_params)(size_t c, const float *w, const float *b,
                    const float *m, const float *v, double eps, float *alpha,
                    float *beta);
  // native_layer_norm_backward, each step the reference's double
  // arithmetic in its order (bit-exact). For `rows` rows of n (row r at
  // dy + r * n and x + r * n): ds[r] = sum of g x and db[r] = sum of g, in
  // index order, with g = dy gamma (dy when gamma is NULL).
  void (*ln_backward_sums)(size_t rows, size_t n, const float *dy,
                           const float *x, const float *gamma, double *ds,
                           double *db);
  // One row: dx = (s gamma) dy + b x + c (gamma 1 when NULL).
  void (*ln_backward_dx)(size_t n, const float *dy, const float *x,
                         const float *gamma, double s, double b, double c,
                         float *dx);
  // One row into the column sums: dweight += dy (x - m) s, dbias += dy.
  void (*ln_backward_columns)(size_t n, const float *dy, const float *x,
                              double m, double s, double *dweight,
                              double *dbias);
  // Layer norm's statistics of `count` rows of n: variance[o] /= n, then
  // inverse[o] = 1 / sqrt(variance[o] + eps), each step correctly rounded
  // in double (the portable loop's bits). NULL: the driver's loop.
  void (*ln_rstd)(size_t count, double n, double eps, double *variance,
                  double *inverse);
} etr_norm_kernels_t;

// The portable bn_params (NEON's table uses it too).
void etr_norm_bn_params_scalar(size_t c, const float *w, const float *b,
                               const float *m, const float *v, double eps,
                               float *alpha, float *beta);

// The portable layer norm backward kernels (the AVX2 and NEON tables use
// them too; AVX-512's finish its tails with them).
void etr_norm_ln_backward_sums_scalar(size_t rows, size_t n, const float *dy,
                                      const float *x, const float *gamma,
                                      double *ds, double *db);
void etr_norm_ln_backward_dx_scalar(size_t n, const float *dy,
                                    const float *x, const float *gamma,
                                    double s, double b, double c, float *dx);
void etr_norm_ln_backward_columns_scalar(size_t n, const float *dy,
                                         const float *x, double m, double s,
                                         double *dweight, double *dbias);

extern const etr_norm_kernels_t etr_norm_kernels_scalar;
extern const etr_norm_kernels_t etr_norm_kernels_avx2;
extern const etr_norm_kernels_t etr_norm_kernels_avx512;
extern const etr_norm_kernels_t etr_norm_kernels_neon;

// The table for `isa` (scalar when that ISA is not built in).
const etr_norm_kernels_t *etr_norm_kernels_for(etr_isa_t isa);

// ---------------------------------------------------------------------------
// Drivers. Each computes an already checked call (the reference's dry run
// validated the arguments and resized the outs) and returns false, having
// written nothing, when the case is not one it handles; the caller then
// falls back to the reference kernel. Half and BFloat16 tensors are
// converted to fp32 in ctx->temp, a block at a time (scratch noted per
// driver).

// Softmax or log-softmax of dense Float/Half/BFloat16 self along `dim`
// into out (same dtype, same dim order; may be self). Scratch for
// Half/BFloat16: one [r, inner] slab of fp32 (r = size along dim).
bool etr_softmax_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, bool log, etr_tensor_t *out);

// Layer norm of contiguous input over its last dims from `axis` on; weight
// and bias (either may be NULL) contiguous of the normalized shape; outs
// contiguous. Scratch for Half/BFloat16: one row plus the parameters, in
// fp32.
bool etr_layer_norm_run(etr_kernel_context_t *ctx, const etr_tensor_t *input,
                        int32_t axis, const etr_tensor_t *weight,
                        const etr_tensor_t *bias, double eps,
                        etr_tensor_t *out, etr_tensor_t *mean,
                        etr_tensor_t *rstd);

// Inference batch norm of a dense input (contiguous or channels-last; out
// laid out the same) with 1-D parameters (weight, bias may be NULL).
// Scratch: 2 * C floats (on the stack up to 1024 channels), plus one
// [C, inner] fp32 slab for Half/BFloat16.
bool etr_batch_norm_run(etr_kernel_context_t *ctx, const etr_tensor_t *input,
                        const etr_tensor_t *weight, const etr_tensor_t *bias,
                        const etr_tensor_t *running_mean,
                        const etr_tensor_t *running_var, double eps,
                        etr_tensor_t *out);

// The per-channel alpha and beta etr_batch_norm_run computes for Float 1-D
// parameters of `channels` unit-stride entries (any may be NULL), for a
// caller that applies y = fma(x, alpha, beta) itself (a fused
// convolution, fuse/fuse.c). False when a parameter is not such a vector.
bool etr_batch_norm_float_params(size_t channels, const etr_tensor_t *weight,
                                 const etr_tensor_t *bias,
                                 const etr_tensor_t *running_mean,
                                 const etr_tensor_t *running_var, double eps,
                                 float *alpha, float *beta);

// Inference batch norm's per-channel alpha and beta worked out once, at
// load, for an instruction whose parameters are constants
// (fuse/prepack.c), and bound to it as its kernel state (ctx->state).
typedef struct etr_bn_packed {
  size_t channels;
  const float *alpha;  // [channels]
  const float *beta;   // [channels]
} etr_bn_packed_t;

// etr_batch_norm_float_params of these parameters into `arena` (running
// mean and variance required, weight and bias may be NULL), or NULL (a
// parameter not such a vector, or no room).
const etr_bn_packed_t *etr_batch_norm_prepack(
    size_t channels, const etr_tensor_t *weight, const etr_tensor_t *bias,
    const etr_tensor_t *running_mean, const etr_tensor_t *running_var,
    double eps, etr_arena_t *arena);

// etr_batch_norm_run with the packed alpha and beta: the same bits; false
// where etr_batch_norm_run would be, or when the input's channels are not
// the packed ones. A Float call keeps its layout and parameters in
// ctx->memo (when there is one) for etr_batch_norm_kept_run.
bool etr_batch_norm_run_packed(etr_kernel_context_t *ctx,
                               const etr_tensor_t *input,
                               const etr_bn_packed_t *packed,
                               etr_tensor_t *out);

// On a vouched call (ctx->args_checked) of an instruction whose first call
// etr_batch_norm_run_packed kept: the same pass over args[input_index]
// into args[out_index]; true, computed. False, nothing done, otherwise.
bool etr_batch_norm_kept_run(const etr_kernel_context_t *ctx,
                             etr_evalue_t **args, size_t input_index,
                             size_t out_index);

// Group norm of a contiguous input seen as [N, C, HxW] (weight, bias may be
// NULL), contiguous outs, or of a channels-last [N, C, H, W] input into an
// out laid out alike. Scratch: for Half/BFloat16 one group block (NCHW) or
// one image (NHWC) of fp32; NHWC also 4 C floats and 3 doubles a group.
bool etr_group_norm_run(etr_kernel_context_t *ctx, const etr_tensor_t *input,
                        const etr_tensor_t *weight, const etr_tensor_t *bias,
                        int64_t n, int64_t c, int64_t hxw, int64_t group,
                        double eps, etr_tensor_t *out, etr_tensor_t *mean,
                        etr_tensor_t *rstd);

// Training batch norm (norm/batch_norm_train.c) of a dense Float input
// (contiguous or channels-last; out laid out the same) with Float 1-D
// parameters of C <= 1024 entries (weight, bias, running_mean and
// running_var may be NULL; the running statistics, when given, are
// updated in place with `momentum`): batch statistics in double, then
// etr_batch_norm_run's affine pass; save_mean and save_invstd [C]. No
// scratch beyond etr_batch_norm_run's.
bool etr_batch_norm_train_run(etr_kernel_context_t *ctx,
                              const etr_tensor_t *input,
                              const etr_tensor_t *weight,
                              const etr_tensor_t *bias,
                              etr_tensor_t *running_mean,
                              etr_tensor_t *running_var, double momentum,
                              double eps, etr_tensor_t *out,
                              etr_tensor_t *save_mean,
                              etr_tensor_t *save_invstd);

#endif  // ETR_OPS_OPTIMIZED_NORM_NORM_H
