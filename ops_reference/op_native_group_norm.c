// SPDX-License-Identifier: Apache-2.0
//
// aten::native_group_norm.out: group normalization. The input, read in
// row-major order, is seen as [N, C, HxW] (the three int arguments; only
// their product must equal the input's numel, as in ATen, so the input
// may have any shape); the C channels form `group` groups of D = C/group
// consecutive channels, and each (n, g) block of D * HxW elements is
// normalized with its own statistics:
//
//   mean = E[x], var = E[(x - mean)^2] (biased), rstd = 1/sqrt(var + eps)
//   out0 = (x - mean) * rstd * weight[c] + bias[c]
//   out1 = mean, out2 = rstd            (both [N, group])
//
// An empty block (HxW or D of 0) gives mean 0 and rstd NaN, as PyTorch's
// CPU kernel does. Statistics are computed in double and rounded once.
//
// Arguments: (input, weight?, bias?, N, C, HxW, group, eps, out0, out1,
// out2, return slot: a TensorList of the three). InvalidArgument for
// group <= 0, C not divisible by group, weight/bias that are not 1-D of C
// elements, negative N, C or HxW, N * C * HxW != numel, or an input that
// is not dense in its suggested memory format (row-major or channels-last;
// ATen checks X.is_contiguous(memory_format) and fails otherwise).
// Parameters are read through their strides.
//
// Dtypes: floating input (NotSupported otherwise); out0 has its dtype;
// weight, bias, out1 and out2 have the parameter dtype of support/norm.h
// (the input's, or Float for a Half/BFloat16 input with Float
// parameters); InvalidArgument otherwise.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/norm.h"
#include "ops_reference/support/shape.h"

typedef struct group_norm_args {
  etr_tensor_t *input;
  etr_tensor_t *weight;
  etr_tensor_t *bias;
  int64_t n;
  int64_t c;
  int64_t hxw;
  int64_t group;
  double eps;
  etr_tensor_t *outs[3];
} group_norm_args_t;

static etr_error_t check_args(etr_kernel_context_t *ctx,
                              const group_norm_args_t *a) {
  const etr_tensor_t *params[2] = {a->weight, a->bias};
  etr_scalar_type_t param_dtype;
  ETR_TRY(etr_norm_param_dtype(ctx, a->input, params, 2, &param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out0", a->outs[0]->dtype,
                                a->input->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out1", a->outs[1]->dtype, param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out2", a->outs[2]->dtype, param_dtype));
  ETR_CHECK(ctx->diag, a->group > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected num groups to be greater than 0, got %lld",
            etr_op_name(ctx), (long long)a->group);
  ETR_CHECK(ctx->diag, a->n >= 0 && a->c >= 0 && a->hxw >= 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: N, C and HxW must be non-negative", etr_op_name(ctx));
  ETR_CHECK(ctx->diag, a->c % a->group == 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected number of channels (%lld) to be divisible by "
            "num_groups (%lld)",
            etr_op_name(ctx), (long long)a->c, (long long)a->group);
  static const char *const kNames[2] = {"weight", "bias"};
  for (int i = 0; i < 2; ++i) {
    ETR_CHECK(ctx->diag,
              params[i] == NULL ||
                  (params[i]->dim == 1 && params[i]->sizes[0] == a->c),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: expected %s to be a vector of %lld elements",
              etr_op_name(ctx), kNames[i], (long long)a->c);
  }
  ETR_CHECK(ctx->diag, etr_nn_is_dense_suggested(a->input),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected the input to be contiguous or channels-last",
            etr_op_name(ctx));
  int64_t count = 0;
  bool fits = etr_checked_mul(a->n, a->c, &count) &&
              etr_checked_mul(count, a->hxw, &count);
  ETR_CHECK(ctx->diag, fits && count == etr_numel(a->input),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected input.numel() == N * C * HxW", etr_op_name(ctx));
  return ETR_OK;
}

static double load_flat(const etr_tensor_t *tensor, int64_t flat) {
  return etr_load_double(
      tensor->dtype, etr_element_at(tensor, etr_nn_offset_of(tensor, flat)));
}

static double param_at(const etr_tensor_t *param, int64_t c,
                       double fallback) {
  if (param == NULL) {
    return fallback;
  }
  return etr_load_double(param->dtype,
                         etr_element_at(param, c * param->strides[0]));
}

// aten::native_group_norm.out
etr_error_t etr_ref_native_group_norm_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  group_norm_args_t a = {0};
  ETR_TRY(etr_check_num_args(ctx, num_args, 12));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &a.input));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 1, "weight",
                                  &a.weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "bias", &a.bias));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "N", &a.n));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "C", &a.c));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 5, "HxW", &a.hxw));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 6, "group", &a.group));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 7, "eps", &a.eps));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 8, "out0", &a.outs[0]));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 9, "out1", &a.outs[1]));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 10, "out2", &a.outs[2]));
  ETR_TRY(check_args(ctx, &a));
  int64_t stat_sizes[2] = {a.n, a.group};
  ETR_TRY(etr_resize_out_like(ctx, a.outs[0], a.input));
  ETR_TRY(etr_resize_out(ctx, a.outs[1], 2, stat_sizes));
  ETR_TRY(etr_resize_out(ctx, a.outs[2], 2, stat_sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  int64_t channels_per_group = a.c / a.group;
  int64_t block = channels_per_group * a.hxw;  // fits: <= numel
  for (int64_t n = 0; n < a.n; ++n) {
    for (int64_t g = 0; g < a.group; ++g) {
      int64_t first = (n * a.group + g) * block;
      double mean = 0.0;
      double rstd = NAN;
      if (block > 0) {
        double sum = 0.0;
        for (int64_t i = 0; i < block; ++i) {
          sum += load_flat(a.input, first + i);
        }
        mean = sum / (double)block;
        double squares = 0.0;
        for (int64_t i = 0; i < block; ++i) {
          double d = load_flat(a.input, first + i) - mean;
          squares += d * d;
        }
        rstd = 1.0 / sqrt(squares / (double)block + a.eps);
      }
      for (int64_t i = 0; i < block; ++i) {
        int64_t channel = g * channels_per_group + i / a.hxw;
        double y = (load_flat(a.input, first + i) - mean) * rstd *
                       param_at(a.weight, channel, 1.0) +
                   param_at(a.bias, channel, 0.0);
        etr_store_double(
            a.outs[0]->dtype,
            etr_element_at(a.outs[0], etr_nn_offset_of(a.outs[0], first + i)),
            y);
      }
      int64_t index[2] = {n, g};
      etr_store_double(a.outs[1]->dtype,
                       etr_element_at(a.outs[1],
                                      etr_tensor_offset(a.outs[1], index)),
                       mean);
      etr_store_double(a.outs[2]->dtype,
                       etr_element_at(a.outs[2],
                                      etr_tensor_offset(a.outs[2], index)),
                       rstd);
    }
  }
  return ETR_OK;
}
