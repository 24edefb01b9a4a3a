// SPDX-License-Identifier: Apache-2.0
//
// The example vendor's inner kernels (see vendor_kernels.h): its own
// convolution and quantize, and the reduced-precision wrapper.
//
// Each own kernel first runs the reference kernel of the same operator as
// a dry run (ctx->dry_run: argument checks and out resizing, no data
// touched), so every argument the vendor reads has been validated exactly
// as etref validates it; cases the vendor does not accelerate go to the
// reference kernel unchanged.
#include <math.h>
#include <string.h>

#include "core/prim_ops.h"
#include "delegates/example_vendor/vendor_kernels.h"
#include "ops_reference/ops_reference.h"

_Thread_local etr_vendor_state_t *etr_vendor_current;

// The reference kernel of `name` in the inner registry.
static etr_kernel_fn reference_kernel(const char *name) {
  const etr_vendor_state_t *state = etr_vendor_current;
  if (state == NULL || state->registry == NULL) {
    return NULL;
  }
  const etr_kernel_entry_t *entry = etr_registry_find(state->registry, name);
  return entry != NULL ? entry->variants[ETR_KERNELS_REFERENCE] : NULL;
}

static etr_error_t no_reference(etr_kernel_context_t *ctx) {
  return ETR_FAIL(ctx->diag, ETR_ERR_OPERATOR_MISSING,
                  "example vendor: no reference kernel for %s",
                  ctx->op_name != NULL ? ctx->op_name : "?");
}

// Runs the reference kernel as a dry run (checks, resizes the outs).
static etr_error_t check_with_reference(etr_kernel_fn reference,
                                        etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_kernel_context_t dry = *ctx;
  dry.dry_run = true;
  return reference(&dry, args, num_args);
}

// ---- convolution -----------------------------------------------------------

// Direct 2-D convolution, fp32 NCHW (contiguous input, weight and out),
// accumulated in float. With `off_by_one`, the output-column loop stops one
// early (`ow < out_w - 1`): the last column is never written.
static etr_error_t convolution(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args, bool off_by_one) {
  etr_kernel_fn reference = reference_kernel("aten::convolution.out");
  if (reference == NULL) {
    return no_reference(ctx);
  }
  ETR_TRY(check_with_reference(reference, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *input = NULL;
  etr_tensor_t *weight = NULL;
  etr_tensor_t *bias = NULL;
  etr_tensor_t *out = NULL;
  const int64_t *stride = NULL;
  const int64_t *padding = NULL;
  const int64_t *dilation = NULL;
  size_t n_stride = 0, n_padding = 0, n_dilation = 0;
  bool transposed = false;
  int64_t groups = 1;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "weight", &weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "bias", &bias));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 3, "stride", &stride,
                           &n_stride));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 4, "padding", &padding,
                           &n_padding));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 5, "dilation", &dilation,
                           &n_dilation));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 6, "transposed", &transposed));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 8, "groups", &groups));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, num_args - 1, "out", &out));
  bool fast = !transposed && input->dim == 4 && input->dtype == ETR_FLOAT &&
              weight->dtype == ETR_FLOAT && out->dtype == ETR_FLOAT &&
              (bias == NULL || bias->dtype == ETR_FLOAT) &&
              etr_tensor_is_contiguous(input) &&
              etr_tensor_is_contiguous(weight) &&
              etr_tensor_is_contiguous(out) &&
              (bias == NULL || etr_tensor_is_contiguous(bias)) &&
              n_stride >= 1 && n_padding >= 1 && n_dilation >= 1;
  if (!fast) {
    return reference(ctx, args, num_args);
  }
  // The dry run proved the shapes consistent: out is [N, C_out, OH, OW].
  int64_t batch = input->sizes[0], in_c = input->sizes[1];
  int64_t in_h = input->sizes[2], in_w = input->sizes[3];
  int64_t out_c = out->sizes[1], out_h = out->sizes[2], out_w = out->sizes[3];
  int64_t k_h = weight->sizes[2], k_w = weight->sizes[3];
  int64_t group_in = in_c / groups, group_out = out_c / groups;
  int64_t s_h = stride[0], s_w = stride[n_stride > 1 ? 1 : 0];
  int64_t p_h = padding[0], p_w = padding[n_padding > 1 ? 1 : 0];
  int64_t d_h = dilation[0], d_w = dilation[n_dilation > 1 ? 1 : 0];
  const float *x = (const float *)input->data;
  const float *w = (const float *)weight->data;
  const float *b = bias != NULL ? (const float *)bias->data : NULL;
  float *y = (float *)out->data;
  int64_t columns = off_by_one ? out_w - 1 : out_w;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oc = 0; oc < out_c; ++oc) {
      int64_t g = oc / group_out;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        for (int64_t ow = 0; ow < columns; ++ow) {
          float sum = b != NULL ? b[oc] : 0.0f;
          for (int64_t ic = 0; ic < group_in; ++ic) {
            const float *plane = x + ((n * in_c + g * group_in + ic) * in_h) *
                                         in_w;
            const float *kernel = w + ((oc * group_in + ic) * k_h) * k_w;
            for (int64_t kh = 0; kh < k_h; ++kh) {
              int64_t ih = oh * s_h - p_h + kh * d_h;
              if (ih < 0 || ih >= in_h) {
                continue;
              }
              for (int64_t kw = 0; kw < k_w; ++kw) {
                int64_t iw = ow * s_w - p_w + kw * d_w;
                if (iw >= 0 && iw < in_w) {
                  sum += plane[ih * in_w + iw] * kernel[kh * k_w + kw];
                }
              }
            }
          }
          y[((n * out_c + oc) * out_h + oh) * out_w + ow] = sum;
        }
      }
    }
  }
  return ETR_OK;
}

static etr_error_t vendor_convolution(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  bool faulty = !ctx->dry_run &&
                etr_vendor_fault_hits(ctx->op_name,
                                      ETR_VENDOR_FAULT_OFF_BY_ONE);
  return convolution(ctx, args, num_args, faulty);
}

// ---- quantize_per_tensor ------------------------------------------------

typedef enum { ROUND_HALF_EVEN, ROUND_TRUNCATE, ROUND_HALF_AWAY } rounding_t;

// quantized_decomposed::quantize_per_tensor.out(input, scale, zero_point,
// quant_min, quant_max, dtype, *, out) for a Float input: q =
// clamp(round(x * (1.0f / (float)scale)) + zero_point, quant_min,
// quant_max), the product in float, NaN to quant_min, as ExecuTorch's
// runtime; only the rounding varies with the fault.
static etr_error_t quantize(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args, rounding_t rounding) {
  etr_kernel_fn reference = reference_kernel(ctx->op_name);
  if (reference == NULL) {
    return no_reference(ctx);
  }
  ETR_TRY(check_with_reference(reference, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *input = NULL;
  etr_tensor_t *out = NULL;
  double scale = 0;
  int64_t zero_point = 0, quant_min = 0, quant_max = 0;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 1, "scale", &scale));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "zero_point", &zero_point));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "quant_min", &quant_min));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "quant_max", &quant_max));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, num_args - 1, "out", &out));
  bool fast = input->dtype == ETR_FLOAT &&
              (out->dtype == ETR_CHAR || out->dtype == ETR_BYTE) &&
              etr_tensor_is_contiguous(input) &&
              etr_tensor_is_contiguous(out);
  if (!fast) {
    return reference(ctx, args, num_args);
  }
  float inverse_scale = 1.0f / (float)scale;
  int64_t numel = etr_tensor_numel(input);
  const float *x = (const float *)input->data;
  for (int64_t i = 0; i < numel; ++i) {
    float scaled = x[i] * inverse_scale;
    float rounded = rounding == ROUND_TRUNCATE    ? truncf(scaled)
                    : rounding == ROUND_HALF_AWAY ? roundf(scaled)
                                                  : nearbyintf(scaled);
    float shifted = rounded + (float)zero_point;
    int64_t q;
    if (isnan(shifted)) {
      q = quant_min;
    } else if (shifted <= (float)quant_min) {
      q = quant_min;
    } else if (shifted >= (float)quant_max) {
      q = quant_max;
    } else {
      q = (int64_t)shifted;
    }
    if (out->dtype == ETR_CHAR) {
      ((int8_t *)out->data)[i] = (int8_t)q;
    } else {
      ((uint8_t *)out->data)[i] = (uint8_t)q;
    }
  }
  return ETR_OK;
}

static etr_error_t vendor_quantize(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  rounding_t rounding = ROUND_HALF_EVEN;
  if (!ctx->dry_run) {
    // One count per call: which fault mode it is decides the rounding.
    etr_vendor_state_t *state = etr_vendor_current;
    etr_vendor_fault_mode_t mode =
        state != NULL ? state->fault.mode : ETR_VENDOR_FAULT_NONE;
    if ((mode == ETR_VENDOR_FAULT_REQUANT_TRUNC ||
         mode == ETR_VENDOR_FAULT_REQUANT_HALF_AWAY) &&
        etr_vendor_fault_hits(ctx->op_name, mode)) {
      rounding = mode == ETR_VENDOR_FAULT_REQUANT_TRUNC ? ROUND_TRUNCATE
                                                        : ROUND_HALF_AWAY;
    }
  }
  return quantize(ctx, args, num_args, rounding);
}

// ---- reduced precision ----------------------------------------------------

static void round_tensor(etr_tensor_t *tensor, etr_vendor_fault_mode_t mode) {
  if (tensor == NULL || tensor->data == NULL ||
      (tensor->dtype != ETR_FLOAT && tensor->dtype != ETR_DOUBLE)) {
    return;
  }
  int64_t numel = etr_tensor_numel(tensor);
  if (numel == 0) {
    return;
  }
  int64_t index[ETR_MAX_DIMS] = {0};
  do {
    int64_t offset = etr_tensor_offset(tensor, index);
    double value = tensor->dtype == ETR_FLOAT
                       ? ((float *)tensor->data)[offset]
                       : ((double *)tensor->data)[offset];
    float narrow = (float)value;
    narrow = mode == ETR_VENDOR_FAULT_FP16
                 ? etr_half_to_float(etr_float_to_half(narrow))
                 : etr_bfloat16_to_float(etr_float_to_bfloat16(narrow));
    if (tensor->dtype == ETR_FLOAT) {
      ((float *)tensor->data)[offset] = narrow;
    } else {
      ((double *)tensor->data)[offset] = narrow;
    }
  } while (etr_index_next(index, tensor->sizes, tensor->dim));
}

// The kernel the wrapper wraps: the vendor's own, else the reference.
static etr_error_t inner_kernel(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args) {
  if (strcmp(ctx->op_name, "aten::convolution.out") == 0) {
    return convolution(ctx, args, num_args, false);
  }
  etr_kernel_fn reference = reference_kernel(ctx->op_name);
  return reference != NULL ? reference(ctx, args, num_args)
                           : no_reference(ctx);
}

// fp16 / bf16: the op computes as usual, then its float outputs are stored
// at reduced precision (as a vendor keeping activations in half would).
static etr_error_t reduced_precision(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  etr_vendor_state_t *state = etr_vendor_current;
  etr_vendor_fault_mode_t mode =
      state != NULL ? state->fault.mode : ETR_VENDOR_FAULT_NONE;
  bool faulty = !ctx->dry_run && etr_vendor_fault_hits(ctx->op_name, mode);
  ETR_TRY(inner_kernel(ctx, args, num_args));
  if (!faulty || num_args == 0) {
    return ETR_OK;
  }
  etr_evalue_t *result = args[num_args - 1];
  if (result->tag == ETR_TAG_TENSOR) {
    round_tensor(result->u.as_tensor, mode);
  } else if (result->tag == ETR_TAG_LIST_TENSOR) {
    for (size_t k = 0; k < result->u.as_tensor_list.length; ++k) {
      round_tensor(etr_tensor_list_get(result, k), mode);
    }
  }
  return ETR_OK;
}

// ---- the registry ----------------------------------------------------------

static bool is_quantize_op(const char *name) {
  return strcmp(name, "quantized_decomposed::quantize_per_tensor.out") == 0;
}

etr_error_t etr_vendor_build_registry(etr_kernel_registry_t *registry,
                                      const etr_vendor_fault_t *fault,
                                      etr_diag_t *diag) {
  etr_registry_init(registry);
  ETR_TRY(etr_registry_register_table(registry, etr_prim_kernels,
                                      etr_prim_kernel_count,
                                      ETR_KERNELS_REFERENCE, diag));
  ETR_TRY(etr_registry_register_table(registry, etr_reference_kernels,
                                      etr_reference_kernel_count,
                                      ETR_KERNELS_REFERENCE, diag));
  bool reduced = fault->mode == ETR_VENDOR_FAULT_FP16 ||
                 fault->mode == ETR_VENDOR_FAULT_BF16;
  uint32_t targets = 0;
  size_t count = registry->count;
  for (size_t i = 0; i < count; ++i) {
    const char *name = registry->entries[i].name;
    bool target = etr_vendor_fault_matches(fault, name);
    etr_kernel_fn fn = NULL;
    if (target && reduced) {
      fn = reduced_precision;
    } else if (strcmp(name, "aten::convolution.out") == 0) {
      fn = vendor_convolution;
    } else if (is_quantize_op(name)) {
      fn = vendor_quantize;
    }
    if (target) {
      // A name may match several overloads (quantize_per_tensor.out and
      // .tensor_out); the fault needs at least one it can apply to.
      bool applies =
          reduced ||
          (fault->mode == ETR_VENDOR_FAULT_OFF_BY_ONE &&
           fn == vendor_convolution) ||
          ((fault->mode == ETR_VENDOR_FAULT_REQUANT_TRUNC ||
            fault->mode == ETR_VENDOR_FAULT_REQUANT_HALF_AWAY) &&
           fn == vendor_quantize);
      targets += applies;
    }
    if (fn != NULL) {
      ETR_TRY(etr_registry_register(registry, name, ETR_KERNELS_OPTIMIZED, fn,
                                    diag));
    }
  }
  ETR_CHECK(diag, fault->mode == ETR_VENDOR_FAULT_NONE || targets > 0,
            ETR_ERR_INVALID_ARGUMENT,
            "example vendor: the fault cannot apply to operator '%s' (fp16 "
            "and bf16 apply to any operator with a kernel, off_by_one to "
            "aten::convolution.out, requant_* to "
            "quantized_decomposed::quantize_per_tensor.out)",
            fault->op);
  return ETR_OK;
}
