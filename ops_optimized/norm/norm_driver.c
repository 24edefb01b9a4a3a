// SPDX-License-Identifier: Apache-2.0
//
// Drivers of the optimized layer norm, inference batch norm and group
// norm (see norm.h). Statistics come from the reduce/ double-accumulating
// kernels; the normalization runs in fp32 with the mean split in two
// floats; rows whose statistics are non-finite or extreme are normalized
// in double exactly like the reference (norm_row_double). Half/BFloat16
// data is converted to fp32 in ctx->temp and rounded once on the way out.
#include <math.h>
#include <string.h>

#include "ops_optimized/common/memo.h"
#include "ops_optimized/common/stream.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/shape.h"

enum { kStackChannels = 1024, kLayerNormRows = 32, kStreamBlock = 16384 };

// True when fp32 normalization is safe for these statistics: finite, and
// (x - mean) * rstd cannot overflow or lose precision in a subnormal rstd.
static bool fast_statistics(double mean, double variance, double rstd) {
  return isfinite(mean) && variance <= 0x1p200 && rstd <= 0x1p100 &&
         rstd >= 0x1p-100;
}

// y = ((x - mean) * rstd) * w + b in double, rounded once to fp32: the
// reference's evaluation, for rows the fp32 path must not take.
static void norm_row_double(size_t n, const float *x, double mean,
                            double rstd, const float *w, const float *b,
                            double w_scalar, double b_scalar, float *y) {
  for (size_t i = 0; i < n; ++i) {
    double v = ((double)x[i] - mean) * rstd;
    v *= w != NULL ? (double)w[i] : w_scalar;
    v += b != NULL ? (double)b[i] : b_scalar;
    y[i] = (float)v;
  }
}

// fp32 copies of optional parameters (NULL stays NULL), from the arena.
static bool stage_param(etr_kernel_context_t *ctx, const etr_tensor_t *param,
                        size_t n, const float **out) {
  *out = NULL;
  if (param == NULL) {
    return true;
  }
  if (param->dtype == ETR_FLOAT) {
    *out = (const float *)param->data;
    return true;
  }
  if (ctx->temp == NULL) {
    return false;
  }
  float *copy = etr_arena_alloc(ctx->temp, n * sizeof(float), 64);
  if (copy == NULL) {
    return false;
  }
  etr_convert_to_f32(param->dtype, n, param->data, copy);
  *out = copy;
  return true;
}

static bool contiguous_of(const etr_tensor_t *t, int64_t numel) {
  return t == NULL ||
         (etr_tensor_is_contiguous(t) && etr_numel(t) == numel &&
          etr_reduce_is_f32_like(t->dtype));
}

// The mean, variance and 1 / sqrt(variance + eps) of `rows` (at most
// kLayerNormRows) rows of n floats, in double: the sums of every row
// first, then the squares about each mean, so the rows' reductions,
// divides and square roots overlap instead of waiting on one another
// (one row at a time, the transformer's 16 x 64 layer norm took 0.8 us).
static void row_statistics(const etr_norm_kernels_t *k,
                           const etr_reduce_kernels_t *r, size_t rows,
                           size_t n, const float *x, double eps, double *mu,
                           double *variance, double *inverse) {
  r->sum_rows(rows, n, x, mu);
  for (size_t o = 0; o < rows; ++o) {
    mu[o] /= (double)n;
  }
  r->sumsq_rows(rows, n, x, mu, variance);
  if (k->ln_rstd != NULL) {
    k->ln_rstd(rows, (double)n, eps, variance, inverse);
    return;
  }
  for (size_t o = 0; o < rows; ++o) {
    variance[o] /= (double)n;
    inverse[o] = 1.0 / sqrt(variance[o] + eps);
  }
}

// One row normalized: fp32 with the mean split in two floats where the
// statistics allow it, else in double as the reference. `stream`: with
// streaming stores (the caller fences).
static void normalize_row(const etr_norm_kernels_t *k, size_t n,
                          const float *x, double mu, double variance,
                          double inverse, const float *w, const float *b,
                          bool stream, float *y) {
  if (fast_statistics(mu, variance, inverse)) {
    float hi = (float)mu;
    (stream ? k->normalize_affine_stream : k->normalize_affine)(
        n, x, hi, (float)(mu - (double)hi), (float)inverse, w, b, y);
  } else {
    norm_row_double(n, x, mu, inverse, w, b, 1.0, 0.0, y);
  }
}

// values[0, count) into the contiguous statistic out at [first, first +
// count), each rounded once (Float directly: the generic store's dtype
// dispatch per row was 8% of layer_norm-4096x768).
static void store_statistics(etr_tensor_t *stat, size_t first, size_t count,
                             const double *values) {
  if (stat->dtype == ETR_FLOAT) {
    float *to = (float *)stat->data + first;
    for (size_t j = 0; j < count; ++j) {
      to[j] = (float)values[j];
    }
    return;
  }
  for (size_t j = 0; j < count; ++j) {
    etr_store_double(stat->dtype, etr_element_at(stat, (int64_t)(first + j)),
                     values[j]);
  }
}

// Float rows, kLayerNormRows at a time (one at a time where y overlaps
// x other than in place: each row's statistics then read x before the
// rows above it are written, as they did).
static void float_layer_norm(const etr_norm_kernels_t *k,
                             const etr_reduce_kernels_t *r, size_t rows,
                             size_t n, const float *x, const float *w,
                             const float *b, double eps, float *y,
                             etr_tensor_t *mean, etr_tensor_t *rstd) {
  double mu[kLayerNormRows];
  double variance[kLayerNormRows];
  double inverse[kLayerNormRows];
  // Each block's statistics pass only loads, so rows that come from
  // memory stall it: when x and y reach the streaming stores' size
  // (common/stream.h), each row normalized prefetches the row a block on,
  // where the next statistics pass finds it (as softmax.c's rows), blocks
  // are about kStreamBlock bytes so that they stay in L1, and y is written
  // with streaming stores where the ISA has them. layer_norm-4096x768
  // (Zen 5, paired bench_server rounds, medians of 15): 0.87 -> 0.80 ms
  // with 32-row blocks prefetched into L2, 0.81 with the stores as well,
  // 0.73 with 8-row blocks prefetched into L1 (5 rows here: 4 ran 0.70).
  const bool prefetch = etr_stream_out(rows * n, 1);
  size_t rows_in_l1 = kStreamBlock / (n * sizeof(float));
  rows_in_l1 = rows_in_l1 < 1                ? 1
               : rows_in_l1 > kLayerNormRows ? kLayerNormRows
                                             : rows_in_l1;
  const size_t bytes = rows * n * sizeof(float);
  const size_t block = x == y || (const char *)x + bytes <= (char *)y ||
                               (const char *)y + bytes <= (const char *)x
                           ? (prefetch ? rows_in_l1 : kLayerNormRows)
                           : 1;
  const bool stream =
      prefetch && block > 1 && k->normalize_affine_stream != NULL;
  for (size_t o0 = 0; o0 < rows; o0 += block) {
    const size_t count = rows - o0 < block ? rows - o0 : block;
    row_statistics(k, r, count, n, x + o0 * n, eps, mu, variance, inverse);
    for (size_t j = 0; j < count; ++j) {
      const size_t o = o0 + j;
      if (prefetch && o + block < rows) {
        const char *next = (const char *)(x + (o + block) * n);
        for (size_t at = 0; at < n * sizeof(float); at += 64) {
          __builtin_prefetch(next + at, 0, 3);
        }
      }
      normalize_row(k, n, x + o * n, mu[j], variance[j], inverse[j], w, b,
                    stream, y + o * n);
    }
    store_statistics(mean, o0, count, mu);
    store_statistics(rstd, o0, count, inverse);
  }
  if (stream) {
    etr_stream_fence();
  }
}

bool etr_layer_norm_run(etr_kernel_context_t *ctx, const etr_tensor_t *input,
                        int32_t axis, const etr_tensor_t *weight,
                        const etr_tensor_t *bias, double eps,
                        etr_tensor_t *out, etr_tensor_t *mean,
                        etr_tensor_t *rstd) {
  int64_t numel = etr_numel(input);
  int64_t n = 1;
  for (int32_t d = axis; d < input->dim; ++d) {
    n *= input->sizes[d];
  }
  if (numel == 0 || !etr_reduce_is_f32_like(input->dtype) ||
      !etr_tensor_is_contiguous(input) || !contiguous_of(out, numel) ||
      !contiguous_of(weight, n) || !contiguous_of(bias, n) ||
      !contiguous_of(mean, numel / n) || !contiguous_of(rstd, numel / n)) {
    return false;
  }
  const float *w = NULL;
  const float *b = NULL;
  if (!stage_param(ctx, weight, (size_t)n, &w) ||
      !stage_param(ctx, bias, (size_t)n, &b)) {
    return false;
  }
  bool staged = input->dtype != ETR_FLOAT;
  float *row = NULL;
  if (staged) {
    row = ctx->temp != NULL
              ? etr_arena_alloc(ctx->temp, (size_t)n * sizeof(float), 64)
              : NULL;
    if (row == NULL) {
      return false;
    }
  }
  const etr_norm_kernels_t *k = etr_norm_kernels_for(etr_isa_active());
  const etr_reduce_kernels_t *r = etr_reduce_kernels_for(etr_isa_active());
  size_t rows = (size_t)(numel / n);
  size_t element = etr_scalar_type_size(input->dtype);
  if (!staged) {
    float_layer_norm(k, r, rows, (size_t)n, (const float *)input->data, w,
                     b, eps, (float *)out->data, mean, rstd);
    return true;
  }
  for (size_t o = 0; o < rows; ++o) {
    etr_convert_to_f32(input->dtype, (size_t)n,
                       (const uint8_t *)input->data + o * n * element, row);
    double mu = 0.0;
    double variance = 0.0;
    double inverse = 0.0;
    row_statistics(k, r, 1, (size_t)n, row, eps, &mu, &variance, &inverse);
    normalize_row(k, (size_t)n, row, mu, variance, inverse, w, b, false,
                  row);
    etr_convert_from_f32(out->dtype, (size_t)n, row,
                         (uint8_t *)out->data + o * n * element);
    etr_store_double(mean->dtype, etr_element_at(mean, (int64_t)o), mu);
    etr_store_double(rstd->dtype, etr_element_at(rstd, (int64_t)o), inverse);
  }
  return true;
}

// Element c of an optional 1-D parameter, or `fallback`.
static double param_at(const etr_tensor_t *param, int64_t c,
                       double fallback) {
  if (param == NULL) {
    return fallback;
  }
  return etr_load_double(param->dtype,
                         etr_element_at(param, c * param->strides[0]));
}

// A Float parameter of unit stride, or none.
static bool float_vector(const etr_tensor_t *param) {
  return param == NULL ||
         (param->dtype == ETR_FLOAT &&
          (param->sizes[0] <= 1 || param->strides[0] == 1));
}

static const float *float_data(const etr_tensor_t *param) {
  return param != NULL ? (const float *)param->data : NULL;
}

bool etr_batch_norm_float_params(size_t channels, const etr_tensor_t *weight,
                                 const etr_tensor_t *bias,
                                 const etr_tensor_t *running_mean,
                                 const etr_tensor_t *running_var, double eps,
                                 float *alpha, float *beta) {
  const etr_tensor_t *params[4] = {weight, bias, running_mean, running_var};
  for (int i = 0; i < 4; ++i) {
    if (!float_vector(params[i]) ||
        (params[i] != NULL &&
         (params[i]->dim != 1 || params[i]->sizes[0] != (int64_t)channels ||
          (channels > 0 && params[i]->data == NULL)))) {
      return false;
    }
  }
  etr_norm_bn_params_scalar(channels, float_data(weight), float_data(bias),
                            float_data(running_mean),
                            float_data(running_var), eps, alpha, beta);
  return true;
}

// Batch norm's memory order [outer, C, inner] (contiguous: (N, C,
// spatial), channels-last: (N * H * W, C, 1)), for the inputs
// etr_batch_norm_run takes; false for any other.
typedef struct bn_layout {
  size_t outer;
  size_t channels;
  size_t inner;
} bn_layout_t;

static bool bn_layout(const etr_tensor_t *input, const etr_tensor_t *out,
                      bn_layout_t *layout) {
  if (input->dim < 2 || etr_numel(input) == 0 ||
      !etr_reduce_is_f32_like(input->dtype) || out->dtype != input->dtype ||
      !etr_tensor_is_dense(input) || !etr_tensor_is_dense(out) ||
      memcmp(out->dim_order, input->dim_order, (size_t)input->dim) != 0) {
    return false;
  }
  bool channels_last = etr_dim_order_is_channels_last(input->dim_order,
                                                      input->dim);
  if (!channels_last &&
      !etr_dim_order_is_contiguous(input->dim_order, input->dim)) {
    return false;
  }
  size_t channels = (size_t)input->sizes[1];
  size_t spatial = (size_t)(etr_numel(input) / input->sizes[0]) / channels;
  layout->channels = channels;
  layout->outer = channels_last ? (size_t)input->sizes[0] * spatial
                                : (size_t)input->sizes[0];
  layout->inner = channels_last ? 1 : spatial;
  return true;
}

// y = fma(x, alpha[c], beta[c]) over `layout` in fp32: one [C, inner]
// slab per outer index, or the channels of every pixel.
static void bn_apply_f32(const bn_layout_t *layout, const float *alpha,
                         const float *beta, const float *x, float *y) {
  const etr_norm_kernels_t *k = etr_norm_kernels_for(etr_isa_active());
  if (layout->inner == 1) {
    k->affine_channels(layout->outer, layout->channels, x, alpha, beta, y);
    return;
  }
  const size_t slab = layout->channels * layout->inner;
  for (size_t o = 0; o < layout->outer; ++o) {
    k->affine_planes(layout->channels, layout->inner, x + o * slab, alpha,
                     beta, y + o * slab);
  }
}

// The same for the input's dtype: Half and BFloat16 through an fp32
// scratch, all of it at once or one outer index at a time.
static bool bn_apply(etr_kernel_context_t *ctx, const etr_tensor_t *input,
                     const bn_layout_t *layout, const float *alpha,
                     const float *beta, etr_tensor_t *out) {
  if (input->dtype == ETR_FLOAT) {
    bn_apply_f32(layout, alpha, beta, (const float *)input->data,
                 (float *)out->data);
    return true;
  }
  if (ctx->temp == NULL) {
    return false;
  }
  const size_t slab = layout->channels * layout->inner;
  size_t block = layout->outer;
  float *scratch =
      etr_arena_alloc(ctx->temp, block * slab * sizeof(float), 64);
  if (scratch == NULL) {
    block = 1;
    scratch = etr_arena_alloc(ctx->temp, slab * sizeof(float), 64);
  }
  if (scratch == NULL) {
    return false;
  }
  const size_t element = etr_scalar_type_size(input->dtype);
  for (size_t o0 = 0; o0 < layout->outer; o0 += block) {
    const size_t count =
        layout->outer - o0 < block ? layout->outer - o0 : block;
    const bn_layout_t part = {
        .outer = count, .channels = layout->channels, .inner = layout->inner};
    etr_convert_to_f32(input->dtype, count * slab,
                       (const uint8_t *)input->data + o0 * slab * element,
                       scratch);
    bn_apply_f32(&part, alpha, beta, scratch, scratch);
    etr_convert_from_f32(out->dtype, count * slab, scratch,
                         (uint8_t *)out->data + o0 * slab * element);
  }
  return true;
}

bool etr_batch_norm_run(etr_kernel_context_t *ctx, const etr_tensor_t *input,
                        const etr_tensor_t *weight, const etr_tensor_t *bias,
                        const etr_tensor_t *running_mean,
                        const etr_tensor_t *running_var, double eps,
                        etr_tensor_t *out) {
  bn_layout_t layout;
  if (!bn_layout(input, out, &layout)) {
    return false;
  }
  size_t channels = layout.channels;
  float stack_params[2 * kStackChannels];
  float *alpha = stack_params;
  if (channels > kStackChannels) {
    alpha = ctx->temp != NULL ? etr_arena_alloc(ctx->temp,
                                                2 * channels * sizeof(float),
                                                64)
                              : NULL;
    if (alpha == NULL) {
      return false;
    }
  }
  float *beta = alpha + channels;
  if (float_vector(weight) && float_vector(bias) &&
      float_vector(running_mean) && float_vector(running_var)) {
    // The same arithmetic without a dtype switch and an address
    // computation per parameter, vectorized in double per ISA (at 4x4
    // planes the per-channel sqrt and divide were most of the op).
    etr_norm_kernels_for(etr_isa_active())
        ->bn_params(channels, float_data(weight), float_data(bias),
                    float_data(running_mean), float_data(running_var), eps,
                    alpha, beta);
  } else {
    for (size_t c = 0; c < channels; ++c) {
      double invstd =
          1.0 / sqrt(param_at(running_var, (int64_t)c, 1.0) + eps);
      double a = param_at(weight, (int64_t)c, 1.0) * invstd;
      alpha[c] = (float)a;
      beta[c] = (float)(param_at(bias, (int64_t)c, 0.0) -
                        param_at(running_mean, (int64_t)c, 0.0) * a);
    }
  }
  return bn_apply(ctx, input, &layout, alpha, beta, out);
}

const etr_bn_packed_t *etr_batch_norm_prepack(
    size_t channels, const etr_tensor_t *weight, const etr_tensor_t *bias,
    const etr_tensor_t *running_mean, const etr_tensor_t *running_var,
    double eps, etr_arena_t *arena) {
  if (channels == 0 || running_mean == NULL || running_var == NULL) {
    return NULL;
  }
  etr_bn_packed_t *packed = etr_arena_alloc(arena, sizeof(*packed), 64);
  float *alpha = etr_arena_alloc(arena, 2 * channels * sizeof(float), 64);
  if (packed == NULL || alpha == NULL ||
      !etr_batch_norm_float_params(channels, weight, bias, running_mean,
                                   running_var, eps, alpha,
                                   alpha + channels)) {
    return NULL;
  }
  *packed = (etr_bn_packed_t){
      .channels = channels, .alpha = alpha, .beta = alpha + channels};
  return packed;
}

// What etr_batch_norm_run_packed concluded on an instruction's fixed
// arguments, kept in ctx->memo for a Float input: the layout and the
// packed parameters, which a vouched call applies straight away (a
// 24-channel 4x4 call spent most of its ~140 ns on its checks, argument
// reads and layout).
typedef struct bn_kept {
  uint32_t mark;  // BN_KEPT_MARK once written
  bn_layout_t layout;
  const float *alpha;
  const float *beta;
} bn_kept_t;

enum { BN_KEPT_MARK = 0x626e6b31 };  // "bnk1"

_Static_assert(sizeof(bn_kept_t) <= ETR_KERNEL_MEMO_BYTES,
               "bn_kept_t must fit a kernel memo");

bool etr_batch_norm_run_packed(etr_kernel_context_t *ctx,
                               const etr_tensor_t *input,
                               const etr_bn_packed_t *packed,
                               etr_tensor_t *out) {
  bn_layout_t layout;
  if (!bn_layout(input, out, &layout) ||
      layout.channels != packed->channels ||
      !bn_apply(ctx, input, &layout, packed->alpha, packed->beta, out)) {
    return false;
  }
  if (ctx->memo != NULL && !ctx->dry_run && input->dtype == ETR_FLOAT) {
    *(bn_kept_t *)ctx->memo = (bn_kept_t){.mark = BN_KEPT_MARK,
                                          .layout = layout,
                                          .alpha = packed->alpha,
                                          .beta = packed->beta};
  }
  return true;
}

bool etr_batch_norm_kept_run(const etr_kernel_context_t *ctx,
                             etr_evalue_t **args, size_t input_index,
                             size_t out_index) {
  const bn_kept_t *kept = etr_opt_vouched_memo(ctx, BN_KEPT_MARK);
  if (kept == NULL) {
    return false;
  }
  bn_apply_f32(&kept->layout, kept->alpha, kept->beta,
               (const float *)args[input_index]->u.as_tensor->data,
               (float *)args[out_index]->u.as_tensor->data);
  return true;
}

// Whether `t` is a dense channels-last 4-D tensor of `numel` elements.
static bool channels_last_of(const etr_tensor_t *t, int64_t numel) {
  return t->dim == 4 && etr_dim_order_is_channels_last(t->dim_order, 4) &&
         etr_tensor_is_dense(t) && etr_numel(t) == numel &&
         etr_reduce_is_f32_like(t->dtype);
}

enum { kGroupColumns = 256 };  // channels of a group summed per call

// Group g of a channels-last image normalized in double (the reference's
// evaluation, norm_row_double), pixel by pixel.
static void group_norm_double(size_t hxw, size_t c, size_t per_group,
                              size_t g, const float *w, const float *b,
                              double mu, double inverse, const float *x,
                              float *y) {
  for (size_t p = 0; p < hxw; ++p) {
    size_t at = p * c + g * per_group;
    norm_row_double(per_group, x + at, mu, inverse,
                    w != NULL ? w + g * per_group : NULL,
                    b != NULL ? b + g * per_group : NULL, 1.0, 0.0, y + at);
  }
}

// Group norm of one channels-last image x [hxw, c] (fp32) into y (may be x),
// `group` groups, parameters w and b (fp32, may be NULL); the statistics of
// group g into mu[g], inverse[g] and variance[g]. `channel_scratch` holds 4 c
// floats. Each group's sums run down the columns of its channels (in double,
// chunks of kGroupColumns), then every pixel's c channels are normalized in one
// pass, ((x - hi) - lo) * scale + shift with the per-channel hi, lo (the
// group's mean split in two floats), scale (rstd w) and shift (b). A group with
// extreme statistics is computed in double, as the reference computes it: after
// the fp32 pass from x, or, when y is x, before it, its channels then passing
// the fp32 pass unchanged (hi = lo = 0, scale 1, shift -0.0: exact for every
// value).
static void group_norm_image(const etr_reduce_kernels_t *r, size_t hxw,
                             size_t c, size_t group, const float *w,
                             const float *b, double eps, const float *x,
                             float *y, double *mu, double *inverse,
                             double *variance, float *channel_scratch) {
  size_t per_group = c / group;
  double block = (double)(hxw * per_group);
  double sums[kGroupColumns];
  double means[kGroupColumns];
  float *hi = channel_scratch;
  float *lo = hi + c;
  float *scale = lo + c;
  float *shift = scale + c;
  for (size_t g = 0; g < group; ++g) {
    const float *xg = x + g * per_group;
    double total = 0.0;
    for (size_t k0 = 0; k0 < per_group; k0 += kGroupColumns) {
      size_t count = per_group - k0 < kGroupColumns ? per_group - k0
                                                    : kGroupColumns;
      r->sum_cols(hxw, count, c, xg + k0, sums);
      for (size_t k = 0; k < count; ++k) {
        total += sums[k];
      }
    }
    mu[g] = total / block;
    double squares = 0.0;
    for (size_t k = 0; k < kGroupColumns; ++k) {
      means[k] = mu[g];
    }
    for (size_t k0 = 0; k0 < per_group; k0 += kGroupColumns) {
      size_t count = per_group - k0 < kGroupColumns ? per_group - k0
                                                    : kGroupColumns;
      r->sumsq_cols(hxw, count, c, xg + k0, means, sums);
      for (size_t k = 0; k < count; ++k) {
        squares += sums[k];
      }
    }
    variance[g] = squares / block;
    inverse[g] = 1.0 / sqrt(variance[g] + eps);
    bool fast = fast_statistics(mu[g], variance[g], inverse[g]);
    bool identity = !fast && x == y;
    if (identity) {
      group_norm_double(hxw, c, per_group, g, w, b, mu[g], inverse[g], x,
                        y);
    }
    float mean_hi = identity ? 0.0f : (float)mu[g];
    float mean_lo = identity ? 0.0f : (float)(mu[g] - (double)mean_hi);
    for (size_t k = g * per_group; k < (g + 1) * per_group; ++k) {
      hi[k] = mean_hi;
      lo[k] = mean_lo;
      scale[k] = identity ? 1.0f
                          : (float)(inverse[g] *
                                    (w != NULL ? (double)w[k] : 1.0));
      shift[k] = identity ? -0.0f : b != NULL ? b[k] : 0.0f;
    }
  }
  for (size_t p = 0; p < hxw; ++p) {
    const float *xp = x + p * c;
    float *yp = y + p * c;
    for (size_t k = 0; k < c; ++k) {
      yp[k] = ((xp[k] - hi[k]) - lo[k]) * scale[k] + shift[k];
    }
  }
  for (size_t g = 0; g < group && x != y; ++g) {
    if (!fast_statistics(mu[g], variance[g], inverse[g])) {
      group_norm_double(hxw, c, per_group, g, w, b, mu[g], inverse[g], x,
                        y);
    }
  }
}

// Group norm of a channels-last [N, C, H, W] input into an out laid out
// alike: one image at a time (staged through fp32 in ctx->temp for Half
// and BFloat16). False, with nothing written, without room there.
static bool group_norm_channels_last(etr_kernel_context_t *ctx,
                                     const etr_tensor_t *input,
                                     const float *w, const float *b,
                                     size_t n, size_t c, size_t hxw,
                                     size_t group, double eps,
                                     etr_tensor_t *out, etr_tensor_t *mean,
                                     etr_tensor_t *rstd) {
  if (ctx->temp == NULL || group > 4096) {
    return false;
  }
  bool staged = input->dtype != ETR_FLOAT;
  size_t image = hxw * c;
  const etr_arena_mark_t mark = etr_arena_mark(ctx->temp);
  float *channels = (float *)etr_arena_alloc(ctx->temp,
                                             4 * c * sizeof(float), 64);
  double *stats = (double *)etr_arena_alloc(ctx->temp,
                                            3 * group * sizeof(double), 64);
  float *scratch =
      staged ? (float *)etr_arena_alloc(ctx->temp, image * sizeof(float), 64)
             : NULL;
  if (channels == NULL || stats == NULL || (staged && scratch == NULL)) {
    etr_arena_rewind(ctx->temp, mark);
    return false;
  }
  const etr_reduce_kernels_t *r = etr_reduce_kernels_for(etr_isa_active());
  size_t element = etr_scalar_type_size(input->dtype);
  for (size_t i = 0; i < n; ++i) {
    const float *x = (const float *)input->data + i * image;
    float *y = (float *)out->data + i * image;
    if (staged) {
      etr_convert_to_f32(input->dtype, image,
                         (const uint8_t *)input->data + i * image * element,
                         scratch);
      x = scratch;
      y = scratch;
    }
    group_norm_image(r, hxw, c, group, w, b, eps, x, y, stats,
                     stats + group, stats + 2 * group, channels);
    if (staged) {
      etr_convert_from_f32(out->dtype, image, scratch,
                           (uint8_t *)out->data + i * image * element);
    }
    for (size_t g = 0; g < group; ++g) {
      int64_t at = (int64_t)(i * group + g);
      etr_store_double(mean->dtype, etr_element_at(mean, at), stats[g]);
      etr_store_double(rstd->dtype, etr_element_at(rstd, at),
                       stats[group + g]);
    }
  }
  etr_arena_rewind(ctx->temp, mark);
  return true;
}

bool etr_group_norm_run(etr_kernel_context_t *ctx, const etr_tensor_t *input,
                        const etr_tensor_t *weight, const etr_tensor_t *bias,
                        int64_t n, int64_t c, int64_t hxw, int64_t group,
                        double eps, etr_tensor_t *out, etr_tensor_t *mean,
                        etr_tensor_t *rstd) {
  int64_t numel = etr_numel(input);
  bool channels_last =
      numel > 0 && !etr_tensor_is_contiguous(input) &&
      channels_last_of(input, numel) && out->dtype == input->dtype &&
      channels_last_of(out, numel) &&
      memcmp(out->strides, input->strides, 4 * sizeof(int64_t)) == 0;
  if (channels_last) {
    const float *w = NULL;
    const float *b = NULL;
    if (hxw == 0 || !contiguous_of(mean, n * group) ||
        !contiguous_of(rstd, n * group) ||
        (weight != NULL && (weight->dim != 1 || !contiguous_of(weight, c))) ||
        (bias != NULL && (bias->dim != 1 || !contiguous_of(bias, c))) ||
        !stage_param(ctx, weight, (size_t)c, &w) ||
        !stage_param(ctx, bias, (size_t)c, &b)) {
      return false;
    }
    return group_norm_channels_last(ctx, input, w, b, (size_t)n, (size_t)c,
                                    (size_t)hxw, (size_t)group, eps, out,
                                    mean, rstd);
  }
  if (numel == 0 || hxw == 0 || !etr_reduce_is_f32_like(input->dtype) ||
      !etr_tensor_is_contiguous(input) || !contiguous_of(out, numel) ||
      !contiguous_of(mean, n * group) || !contiguous_of(rstd, n * group) ||
      (weight != NULL && (weight->dim != 1 || !contiguous_of(weight, c))) ||
      (bias != NULL && (bias->dim != 1 || !contiguous_of(bias, c)))) {
    return false;
  }
  const float *w = NULL;
  const float *b = NULL;
  if (!stage_param(ctx, weight, (size_t)c, &w) ||
      !stage_param(ctx, bias, (size_t)c, &b)) {
    return false;
  }
  size_t per_group = (size_t)(c / group);
  size_t block = per_group * (size_t)hxw;
  bool staged = input->dtype != ETR_FLOAT;
  float *scratch = NULL;
  if (staged) {
    scratch = ctx->temp != NULL
                  ? etr_arena_alloc(ctx->temp, block * sizeof(float), 64)
                  : NULL;
    if (scratch == NULL) {
      return false;
    }
  }
  const etr_norm_kernels_t *k = etr_norm_kernels_for(etr_isa_active());
  const etr_reduce_kernels_t *r = etr_reduce_kernels_for(etr_isa_active());
  size_t element = etr_scalar_type_size(input->dtype);
  for (size_t s = 0; s < (size_t)(n * group); ++s) {
    size_t first = s * block;
    const float *x = (const float *)input->data + first;
    float *y = (float *)out->data + first;
    if (staged) {
      etr_convert_to_f32(input->dtype, block,
                         (const uint8_t *)input->data + first * element,
                         scratch);
      x = scratch;
      y = scratch;
    }
    double sum = 0.0;
    double squares = 0.0;
    r->sum_rows(1, block, x, &sum);
    double mu = sum / (double)block;
    r->sumsq_rows(1, block, x, &mu, &squares);
    double variance = squares / (double)block;
    double inverse = 1.0 / sqrt(variance + eps);
    bool fast = fast_statistics(mu, variance, inverse);
    float hi = (float)mu;
    float lo = (float)(mu - (double)hi);
    size_t first_channel = (s % (size_t)group) * per_group;
    for (size_t ch = 0; ch < per_group; ++ch) {
      size_t channel = first_channel + ch;
      double weight_value = w != NULL ? (double)w[channel] : 1.0;
      double bias_value = b != NULL ? (double)b[channel] : 0.0;
      size_t at = ch * (size_t)hxw;
      if (fast) {
        k->normalize((size_t)hxw, x + at, hi, lo,
                     (float)(inverse * weight_value), (float)bias_value,
                     y + at);
      } else {
        norm_row_double((size_t)hxw, x + at, mu, inverse, NULL, NULL,
                        weight_value, bias_value, y + at);
      }
    }
    if (staged) {
      etr_convert_from_f32(out->dtype, block, scratch,
                           (uint8_t *)out->data + first * element);
    }
    etr_store_double(mean->dtype, etr_element_at(mean, (int64_t)s), mu);
    etr_store_double(rstd->dtype, etr_element_at(rstd, (int64_t)s), inverse);
  }
  return true;
}
