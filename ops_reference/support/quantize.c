// SPDX-License-Identifier: Apache-2.0
//
// Affine quantization arithmetic (see quantize.h).
#include "ops_reference/support/quantize.h"

#include <math.h>
#include <string.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

bool etr_quant_dtype_is_supported(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_BYTE:
    case ETR_CHAR:
    case ETR_SHORT:
    case ETR_INT:
    case ETR_UINT16:
    case ETR_BITS16:
      return true;
    default:
      return false;
  }
}

void etr_quant_dtype_range(etr_scalar_type_t dtype, int64_t *lower,
                           int64_t *upper) {
  switch (dtype) {
    case ETR_BYTE:
      *lower = 0;
      *upper = UINT8_MAX;
      return;
    case ETR_CHAR:
      *lower = INT8_MIN;
      *upper = INT8_MAX;
      return;
    case ETR_SHORT:
      *lower = INT16_MIN;
      *upper = INT16_MAX;
      return;
    case ETR_UINT16:
    case ETR_BITS16:
      *lower = 0;
      *upper = UINT16_MAX;
      return;
    case ETR_INT:
    default:
      *lower = INT32_MIN;
      *upper = INT32_MAX;
      return;
  }
}

etr_error_t etr_quant_check_dtype(etr_kernel_context_t *ctx, const char *what,
                                  etr_scalar_type_t dtype) {
  ETR_CHECK(ctx->diag, etr_quant_dtype_is_supported(dtype),
            ETR_ERR_NOT_SUPPORTED,
            "%s: '%s' has dtype %s; quantized values must be Byte, Char, "
            "Short, Int, UInt16 or Bits16",
            etr_op_name(ctx), what, etr_scalar_type_name(dtype));
  return ETR_OK;
}

etr_error_t etr_quant_check_bounds(etr_kernel_context_t *ctx,
                                   etr_scalar_type_t dtype, int64_t quant_min,
                                   int64_t quant_max) {
  int64_t lower = 0;
  int64_t upper = 0;
  etr_quant_dtype_range(dtype, &lower, &upper);
  ETR_CHECK(ctx->diag, quant_min >= lower, ETR_ERR_INVALID_ARGUMENT,
            "%s: quant_min %lld is below %lld, the smallest %s",
            etr_op_name(ctx), (long long)quant_min, (long long)lower,
            etr_scalar_type_name(dtype));
  ETR_CHECK(ctx->diag, quant_max <= upper, ETR_ERR_INVALID_ARGUMENT,
            "%s: quant_max %lld is above %lld, the largest %s",
            etr_op_name(ctx), (long long)quant_max, (long long)upper,
            etr_scalar_type_name(dtype));
  return ETR_OK;
}

etr_error_t etr_quant_check_zero_point(etr_kernel_context_t *ctx,
                                       int64_t zero_point) {
  ETR_CHECK(ctx->diag, zero_point >= INT32_MIN && zero_point <= INT32_MAX,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: zero point %lld does not fit int32", etr_op_name(ctx),
            (long long)zero_point);
  return ETR_OK;
}

etr_error_t etr_quant_arg_scalar_type(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args,
                                      size_t index, const char *what,
                                      etr_scalar_type_t *out) {
  int64_t raw = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, index, what, &raw));
  ETR_CHECK(ctx->diag,
            raw >= 0 && raw < ETR_NUM_SCALAR_TYPES &&
                etr_scalar_type_is_valid((int)raw),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: argument %zu (%s) is %lld, not a ScalarType",
            etr_op_name(ctx), index, what, (long long)raw);
  *out = (etr_scalar_type_t)raw;
  return ETR_OK;
}

float etr_quant_inverse_scale(double scale) { return 1.0f / (float)scale; }

int64_t etr_quantize_value(double value, float inverse_scale,
                           int64_t zero_point, int64_t quant_min,
                           int64_t quant_max) {
  // The double product of a float-representable value and a float is
  // exact, so rounding it once to float equals the float product that
  // ExecuTorch computes for Float/Half inputs; for a Double input it is
  // ExecuTorch's own double product rounded to float.
  float scaled = (float)((double)inverse_scale * value);
  float rounded = nearbyintf(scaled);
  float shifted = (float)zero_point + rounded;
  double q = shifted;
  if (isnan(q)) {
    q = (double)quant_min;
  }
  if (q < (double)quant_min) {
    q = (double)quant_min;
  }
  if (q > (double)quant_max) {
    q = (double)quant_max;
  }
  return (int64_t)q;  // integral and within the bounds' int32 range
}

float etr_dequantize_value(int64_t quantized, int64_t zero_point,
                           float scale) {
  float difference = (float)(quantized - zero_point);
  return difference * scale;
}

int64_t etr_quant_load(etr_scalar_type_t dtype, const void *element) {
  if (dtype == ETR_BITS16) {
    uint16_t raw;
    memcpy(&raw, element, sizeof(raw));
    return raw;
  }
  return etr_load_int64(dtype, element);
}

void etr_quant_store(etr_scalar_type_t dtype, void *element, int64_t value) {
  if (dtype == ETR_BITS16) {
    uint16_t raw = (uint16_t)(uint64_t)value;
    memcpy(element, &raw, sizeof(raw));
    return;
  }
  etr_store_int64(dtype, element, value);
}

static int64_t param_offset(const etr_tensor_t *tensor, int64_t flat) {
  int64_t offset = 0;
  for (int32_t d = tensor->dim - 1; d >= 0; --d) {
    int64_t size = tensor->sizes[d];
    offset += (flat % size) * tensor->strides[d];
    flat /= size;
  }
  return offset;
}

double etr_quant_param_double(const etr_tensor_t *tensor, int64_t flat) {
  return etr_load_double(tensor->dtype,
                         etr_element_at(tensor, param_offset(tensor, flat)));
}

int64_t etr_quant_param_int64(const etr_tensor_t *tensor, int64_t flat) {
  return etr_load_int64(tensor->dtype,
                        etr_element_at(tensor, param_offset(tensor, flat)));
}

etr_error_t etr_quant_check_param(etr_kernel_context_t *ctx, const char *what,
                                  const etr_tensor_t *tensor,
                                  etr_scalar_type_t dtype,
                                  etr_scalar_type_t alternative,
                                  int64_t numel) {
  bool dtype_ok = tensor->dtype == dtype ||
                  (alternative != ETR_NUM_SCALAR_TYPES &&
                   tensor->dtype == alternative);
  ETR_CHECK(ctx->diag, dtype_ok, ETR_ERR_INVALID_ARGUMENT,
            "%s: '%s' has dtype %s, expected %s%s%s", etr_op_name(ctx), what,
            etr_scalar_type_name(tensor->dtype), etr_scalar_type_name(dtype),
            alternative != ETR_NUM_SCALAR_TYPES ? " or " : "",
            alternative != ETR_NUM_SCALAR_TYPES
                ? etr_scalar_type_name(alternative)
                : "");
  int64_t have = etr_numel(tensor);
  ETR_CHECK(ctx->diag, have == numel, ETR_ERR_INVALID_ARGUMENT,
            "%s: '%s' has %lld elements, expected %lld", etr_op_name(ctx),
            what, (long long)have, (long long)numel);
  return ETR_OK;
}

etr_error_t etr_quant_token_count(etr_kernel_context_t *ctx,
                                  const etr_tensor_t *input,
                                  int64_t *tokens_out) {
  ETR_CHECK(ctx->diag, input->dim >= 1, ETR_ERR_INVALID_ARGUMENT,
            "%s: a 0-dim input has no token dim", etr_op_name(ctx));
  int64_t tokens = 1;
  for (int32_t d = 0; d + 1 < input->dim; ++d) {
    ETR_CHECK(ctx->diag, etr_checked_mul(tokens, input->sizes[d], &tokens),
              ETR_ERR_INVALID_ARGUMENT, "%s: the token count overflows",
              etr_op_name(ctx));
  }
  *tokens_out = tokens;
  return ETR_OK;
}

etr_error_t etr_quant_check_floating(etr_kernel_context_t *ctx,
                                     const char *what,
                                     etr_scalar_type_t dtype) {
  ETR_CHECK(ctx->diag,
            dtype == ETR_FLOAT || dtype == ETR_DOUBLE || dtype == ETR_HALF ||
                dtype == ETR_BFLOAT16,
            ETR_ERR_NOT_SUPPORTED,
            "%s: '%s' has dtype %s; expected Float, Double, Half or "
            "BFloat16",
            etr_op_name(ctx), what, etr_scalar_type_name(dtype));
  return ETR_OK;
}

// Index of the scale / zero point for the element at `index`.
static int64_t param_index(const etr_quant_params_t *params, int32_t dim,
                           const int64_t *sizes, const int64_t *index) {
  switch (params->granularity) {
    case ETR_QUANT_PER_CHANNEL:
      return index[params->axis];
    case ETR_QUANT_PER_TOKEN: {
      int64_t token = 0;
      for (int32_t d = 0; d + 1 < dim; ++d) {
        token = token * sizes[d] + index[d];
      }
      return token;
    }
    case ETR_QUANT_PER_TENSOR:
    default:
      return 0;
  }
}

static double scale_at(const etr_quant_params_t *params, int64_t i) {
  return params->granularity == ETR_QUANT_PER_TENSOR
             ? params->scale
             : etr_quant_param_double(params->scales, i);
}

static int64_t zero_point_at(const etr_quant_params_t *params, int64_t i) {
  if (params->granularity == ETR_QUANT_PER_TENSOR) {
    return params->zero_point;
  }
  return params->zero_points == NULL
             ? 0
             : etr_quant_param_int64(params->zero_points, i);
}

etr_error_t etr_quant_check_zero_points(etr_kernel_context_t *ctx,
                                        const etr_quant_params_t *params) {
  if (params->granularity == ETR_QUANT_PER_TENSOR) {
    return etr_quant_check_zero_point(ctx, params->zero_point);
  }
  if (params->zero_points == NULL) {
    return ETR_OK;
  }
  int64_t count = etr_numel(params->zero_points);
  for (int64_t i = 0; i < count; ++i) {
    ETR_TRY(etr_quant_check_zero_point(
        ctx, etr_quant_param_int64(params->zero_points, i)));
  }
  return ETR_OK;
}

void etr_quantize_tensor(const etr_tensor_t *input, etr_tensor_t *out,
                         const etr_quant_params_t *params, int64_t quant_min,
                         int64_t quant_max) {
  const etr_tensor_t *operands[2] = {input, out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, input->dim, input->sizes, operands, 2);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t i = param_index(params, input->dim, input->sizes, iter.index);
    double value =
        etr_load_double(input->dtype, etr_element_at(input, iter.offsets[0]));
    int64_t q = etr_quantize_value(value,
                                   etr_quant_inverse_scale(scale_at(params, i)),
                                   zero_point_at(params, i), quant_min,
                                   quant_max);
    etr_quant_store(out->dtype, etr_element_at(out, iter.offsets[1]), q);
  }
}

void etr_dequantize_tensor(const etr_tensor_t *input, etr_tensor_t *out,
                           const etr_quant_params_t *params) {
  const etr_tensor_t *operands[2] = {input, out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, input->dim, input->sizes, operands, 2);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t i = param_index(params, input->dim, input->sizes, iter.index);
    int64_t q =
        etr_quant_load(input->dtype, etr_element_at(input, iter.offsets[0]));
    float value = etr_dequantize_value(q, zero_point_at(params, i),
                                       (float)scale_at(params, i));
    etr_store_double(out->dtype, etr_element_at(out, iter.offsets[1]), value);
  }
}

etr_error_t etr_quant_check_quantize_args(etr_kernel_context_t *ctx,
                                          const etr_tensor_t *input,
                                          int64_t quant_min,
                                          int64_t quant_max,
                                          etr_scalar_type_t dtype,
                                          etr_tensor_t *out) {
  ETR_TRY(etr_quant_check_floating(ctx, "input", input->dtype));
  ETR_TRY(etr_quant_check_dtype(ctx, "dtype", dtype));
  ETR_CHECK(ctx->diag, out->dtype == dtype, ETR_ERR_INVALID_ARGUMENT,
            "%s: out has dtype %s but dtype is %s", etr_op_name(ctx),
            etr_scalar_type_name(out->dtype), etr_scalar_type_name(dtype));
  ETR_TRY(etr_quant_check_bounds(ctx, dtype, quant_min, quant_max));
  return etr_resize_out_like(ctx, out, input);
}

etr_error_t etr_quant_check_dequantize_args(etr_kernel_context_t *ctx,
                                            etr_evalue_t **args,
                                            size_t num_args, size_t first,
                                            const etr_tensor_t *input,
                                            etr_tensor_t **out_out) {
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  etr_scalar_type_t dtype = ETR_CHAR;
  bool has_out_dtype = false;
  etr_scalar_type_t out_dtype = ETR_FLOAT;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_arg_int(ctx, args, num_args, first, "quant_min", &quant_min));
  ETR_TRY(etr_arg_int(ctx, args, num_args, first + 1, "quant_max",
                      &quant_max));
  ETR_TRY(etr_quant_arg_scalar_type(ctx, args, num_args, first + 2, "dtype",
                                    &dtype));
  ETR_TRY(etr_arg_optional_scalar_type(ctx, args, num_args, first + 3,
                                       "out_dtype", &has_out_dtype,
                                       &out_dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, first + 4, "out", &out));
  ETR_TRY(etr_quant_check_dtype(ctx, "input", input->dtype));
  ETR_CHECK(ctx->diag, input->dtype == dtype, ETR_ERR_INVALID_ARGUMENT,
            "%s: input has dtype %s but dtype is %s", etr_op_name(ctx),
            etr_scalar_type_name(input->dtype), etr_scalar_type_name(dtype));
  ETR_CHECK(ctx->diag, !has_out_dtype || out->dtype == out_dtype,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: out has dtype %s but out_dtype is %s", etr_op_name(ctx),
            etr_scalar_type_name(out->dtype),
            etr_scalar_type_name(out_dtype));
  ETR_TRY(etr_quant_check_floating(ctx, "out", out->dtype));
  ETR_CHECK(ctx->diag, quant_min <= quant_max, ETR_ERR_INVALID_ARGUMENT,
            "%s: quant_min %lld is greater than quant_max %lld",
            etr_op_name(ctx), (long long)quant_min, (long long)quant_max);
  ETR_TRY(etr_resize_out_like(ctx, out, input));
  *out_out = out;
  return ETR_OK;
}

etr_error_t etr_quant_choose_params(etr_kernel_context_t *ctx, float min,
                                    float max, int64_t quant_min,
                                    int64_t quant_max, double *scale_out,
                                    int64_t *zero_point_out) {
  // ExecuTorch's SMALL_SCALE_THRESHOLD, a float.
  const float small_scale = 6.1e-5f;
  min = 0.0f < min ? 0.0f : min;  // std::min(min, 0.f)
  max = max < 0.0f ? 0.0f : max;  // std::max(max, 0.f)
  double levels = (double)(quant_max - quant_min);
  double scale = ((double)max - (double)min) / levels;
  if ((float)scale == 0.0f || isinf(1.0f / (float)scale)) {
    scale = 0.1;
  }
  ETR_CHECK(ctx->diag, scale > 0 && isfinite(scale), ETR_ERR_INVALID_ARGUMENT,
            "%s: the input range [%g, %g] gives no finite positive scale "
            "(NaN or infinite inputs)",
            etr_op_name(ctx), (double)min, (double)max);
  if (scale < (double)small_scale) {
    float original = (float)scale;
    scale = (double)small_scale;
    float span = (float)(quant_max - quant_min);
    if (min == 0.0f) {
      max = small_scale * span;
    } else if (max == 0.0f) {
      min = -small_scale * span;
    } else {
      float amplifier = small_scale / original;
      min *= amplifier;
      max *= amplifier;
    }
  }
  double min_scaled = (double)min / scale;
  double max_scaled = (double)max / scale;
  double from_min = (double)quant_min - min_scaled;
  double from_max = (double)quant_max - max_scaled;
  double from_min_error =
      (double)(quant_min < 0 ? -quant_min : quant_min) - fabs(min_scaled);
  double from_max_error =
      (double)(quant_max < 0 ? -quant_max : quant_max) - fabs(max_scaled);
  double initial = from_min_error < from_max_error ? from_min : from_max;
  int64_t zero_point = 0;
  if (initial < (double)quant_min) {
    zero_point = quant_min;
  } else if (initial > (double)quant_max) {
    zero_point = quant_max;
  } else {
    // Rounding to float may step just past a bound near 2^31; keep it in.
    double rounded = nearbyintf((float)initial);
    zero_point = rounded < (double)quant_min   ? quant_min
                 : rounded > (double)quant_max ? quant_max
                                               : (int64_t)rounded;
  }
  *scale_out = scale;
  *zero_point_out = zero_point;
  return ETR_OK;
}
