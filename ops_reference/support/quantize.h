// SPDX-License-Identifier: Apache-2.0
//
// The affine quantization arithmetic of the quantized_decomposed kernels
// (op_quantize_*.c, op_dequantize_*.c, op_choose_qparams.c), written once.
//
// The out-variant kernels of these ops exist only in ExecuTorch
// (kernels/quantized/quantized.yaml); PyTorch has the functional ops, as
// Python decompositions (torch/ao/quantization/fx/_decomposed.py). etref
// computes what ExecuTorch 1.5's runtime kernels (kernels/quantized/cpu)
// compute, which for finite inputs is also what PyTorch's decompositions
// compute, element for element:
//
//   quantize:   q = clamp(nearbyint(x * inv_scale) + zero_point,
//                         quant_min, quant_max)
//               with inv_scale = 1.0f / (float)scale, the product rounded
//               to float (a Double x is multiplied in double first, as
//               ExecuTorch does), nearbyint in the default rounding mode
//               (round half to even) and the zero point added in float.
//               Values past the range saturate (+inf -> quant_max,
//               -inf -> quant_min, as PyTorch's clamp); NaN gives
//               quant_min (ExecuTorch's result on x86, where the undefined
//               float-to-int64 conversion yields INT64_MIN; PyTorch's
//               result is unspecified). When quant_min > quant_max every
//               value is quant_max (clamp's order, in both).
//   dequantize: x = (float)(q - zero_point) * (float)scale, the difference
//               exact in integers, the product in float, then rounded to
//               the out dtype (Double out: the float product widened, as
//               ExecuTorch's per-tensor kernel; Half/BFloat16: rounded from
//               the float product).
//
// Quantized dtypes and their ranges: Byte [0, 255], Char [-128, 127],
// Short [-32768, 32767], UInt16 and Bits16 [0, 65535], Int [-2^31,
// 2^31-1] (ExecuTorch's list; Long and the q* types are NotSupported).
// Zero points must fit int32 (ExecuTorch truncates larger ones, PyTorch
// computes with them in float): InvalidArgument otherwise.
#ifndef ETR_OPS_REFERENCE_SUPPORT_QUANTIZE_H
#define ETR_OPS_REFERENCE_SUPPORT_QUANTIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// The dtypes a quantized tensor may have (see above).
bool etr_quant_dtype_is_supported(etr_scalar_type_t dtype);

// [lower, upper] of a supported quantized dtype.
void etr_quant_dtype_range(etr_scalar_type_t dtype, int64_t *lower,
                           int64_t *upper);

// NotSupported unless `dtype` is a supported quantized dtype.
etr_error_t etr_quant_check_dtype(etr_kernel_context_t *ctx, const char *what,
                                  etr_scalar_type_t dtype);

// quant_min >= the dtype's lower bound and quant_max <= its upper bound
// (ExecuTorch's and PyTorch's check for quantize); InvalidArgument
// otherwise.
etr_error_t etr_quant_check_bounds(etr_kernel_context_t *ctx,
                                   etr_scalar_type_t dtype, int64_t quant_min,
                                   int64_t quant_max);

// InvalidArgument unless the zero point fits int32.
etr_error_t etr_quant_check_zero_point(etr_kernel_context_t *ctx,
                                       int64_t zero_point);

// A required `ScalarType` argument (boxed as Int): InvalidArgument when the
// number names no ScalarType.
etr_error_t etr_quant_arg_scalar_type(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args,
                                      size_t index, const char *what,
                                      etr_scalar_type_t *out);

// 1.0f / (float)scale, the reciprocal every quantize kernel multiplies by.
float etr_quant_inverse_scale(double scale);

// One quantized value (see above): `value` is the input element read as
// double (exact for every floating dtype).
int64_t etr_quantize_value(double value, float inverse_scale,
                           int64_t zero_point, int64_t quant_min,
                           int64_t quant_max);

// One dequantized value in float (see above).
float etr_dequantize_value(int64_t quantized, int64_t zero_point,
                           float scale);

// Reads / writes one element of a quantized dtype (Bits16 included).
int64_t etr_quant_load(etr_scalar_type_t dtype, const void *element);
void etr_quant_store(etr_scalar_type_t dtype, void *element, int64_t value);

// Element `flat` (row-major over the tensor's sizes) of a quantization
// parameter tensor, honouring its strides: as double (Double or Float
// tensors) or as int64 (Long or Int tensors).
double etr_quant_param_double(const etr_tensor_t *tensor, int64_t flat);
int64_t etr_quant_param_int64(const etr_tensor_t *tensor, int64_t flat);

// InvalidArgument unless `tensor` has dtype `dtype` (or `alternative`, when
// that is not ETR_NUM_SCALAR_TYPES) and exactly `numel` elements. `what`
// names the argument.
etr_error_t etr_quant_check_param(etr_kernel_context_t *ctx, const char *what,
                                  const etr_tensor_t *tensor,
                                  etr_scalar_type_t dtype,
                                  etr_scalar_type_t alternative,
                                  int64_t numel);

// Number of "tokens" of a per-token op: the product of every size but the
// last. InvalidArgument for a 0-dim input (it has no token dim).
etr_error_t etr_quant_token_count(etr_kernel_context_t *ctx,
                                  const etr_tensor_t *input,
                                  int64_t *tokens_out);

// The floating dtypes a quantize kernel reads (Float, Double, Half,
// BFloat16) and a dequantize kernel writes; NotSupported otherwise.
etr_error_t etr_quant_check_floating(etr_kernel_context_t *ctx,
                                     const char *what,
                                     etr_scalar_type_t dtype);

// Where the quantization parameters of an element come from.
typedef enum etr_quant_granularity {
  ETR_QUANT_PER_TENSOR = 0,   // `scale` and `zero_point`
  ETR_QUANT_PER_CHANNEL = 1,  // scales[i], zero_points[i], i the index
                              // along `axis`
  ETR_QUANT_PER_TOKEN = 2,    // scales[t], zero_points[t], t the row-major
                              // index over every dim but the last
} etr_quant_granularity_t;

typedef struct etr_quant_params {
  etr_quant_granularity_t granularity;
  double scale;                     // per tensor
  int64_t zero_point;               // per tensor
  int32_t axis;                     // per channel (normalized)
  const etr_tensor_t *scales;       // per channel / token: Double or Float
  const etr_tensor_t *zero_points;  // per channel / token: Long or Int;
                                    // NULL means 0
} etr_quant_params_t;

// InvalidArgument unless every zero point of `params` fits int32 (reads the
// zero_points tensor: call after the dry-run return).
etr_error_t etr_quant_check_zero_points(etr_kernel_context_t *ctx,
                                        const etr_quant_params_t *params);

// out[i] = etr_quantize_value(input[i], ...) for every element, each
// tensor read and written through its own strides (out has input's shape).
void etr_quantize_tensor(const etr_tensor_t *input, etr_tensor_t *out,
                         const etr_quant_params_t *params, int64_t quant_min,
                         int64_t quant_max);

// out[i] = etr_dequantize_value(input[i], ...) rounded to out's dtype.
void etr_dequantize_tensor(const etr_tensor_t *input, etr_tensor_t *out,
                           const etr_quant_params_t *params);

// The argument checks every quantize kernel makes, as ExecuTorch's
// check_quantize_per_tensor_args: input floating (NotSupported), dtype a
// quantized dtype (NotSupported) equal to out's (InvalidArgument),
// quant_min/quant_max inside its range (InvalidArgument); then out is
// resized to input's shape.
etr_error_t etr_quant_check_quantize_args(etr_kernel_context_t *ctx,
                                          const etr_tensor_t *input,
                                          int64_t quant_min,
                                          int64_t quant_max,
                                          etr_scalar_type_t dtype,
                                          etr_tensor_t *out);

// The trailing arguments every dequantize kernel has, read from index
// `first`: quant_min, quant_max, dtype, out_dtype (ScalarType?), out; and
// ExecuTorch's check_dequantize_per_tensor_args: input a quantized dtype
// (NotSupported) equal to dtype (InvalidArgument), out's dtype equal to
// out_dtype when given (InvalidArgument) and floating (NotSupported),
// quant_min <= quant_max (InvalidArgument). out is resized to input's
// shape and returned in *out_out.
etr_error_t etr_quant_check_dequantize_args(etr_kernel_context_t *ctx,
                                            etr_evalue_t **args,
                                            size_t num_args, size_t first,
                                            const etr_tensor_t *input,
                                            etr_tensor_t **out_out);

// ExecuTorch's calculate_scale_and_zero_point (kernels/quantized/cpu/
// op_choose_qparams.cpp), which both choose_qparams kernels use: the range
// [min, max] widened to hold 0; scale = (max - min) / (qmax - qmin) in
// double; 0.1 when that is 0 in float or its float reciprocal is infinite;
// scales below 6.1e-5f raised to it (and min/max stretched to match); the
// zero point from whichever end gives the smaller error, clamped to
// [qmin, qmax] or rounded half to even in float. This is not PyTorch's
// determine_qparams (which honours eps, keeps a float32 scale and rounds
// differently); programs run by ExecuTorch get these values. InvalidArgument
// where ExecuTorch aborts or converts NaN to an integer: a range that is
// NaN or infinite (NaN or infinite inputs).
etr_error_t etr_quant_choose_params(etr_kernel_context_t *ctx, float min,
                                    float max, int64_t quant_min,
                                    int64_t quant_max, double *scale_out,
                                    int64_t *zero_point_out);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_QUANTIZE_H
