// SPDX-License-Identifier: Apache-2.0
//
// aten::_native_batch_norm_legit.out and .no_stats_out: batch
// normalization over the channel dim 1 of an input of rank >= 2.
//
// Training (training = true) normalizes with the batch statistics of each
// channel c (over N and every spatial position, n of them):
//
//   mean = E[x], var = E[(x - mean)^2] (biased), invstd = 1/sqrt(var + eps)
//   out = (x - mean) * invstd * weight + bias
//   save_mean = mean, save_invstd = invstd                 (both [C])
//
// and .out then updates its running statistics in place, as ATen does:
//
//   running_mean = (1 - momentum) * running_mean + momentum * mean
//   running_var  = (1 - momentum) * running_var
//                  + momentum * var * n / (n - 1)          (unbiased)
//
// (n = 1 makes the unbiased variance 0/0 = NaN, as in PyTorch). An input
// without elements is InvalidArgument in training ("input tensor must
// have at least one element"). Evaluation (.out with training = false)
// normalizes with running_mean/running_var like
// _native_batch_norm_legit_no_training, leaves them alone and resizes
// save_mean/save_invstd to [0]. .no_stats_out has no running statistics
// and so only trains: training = false is InvalidArgument (PyTorch 2.13
// crashes there). momentum is unused outside the .out training update.
//
// Arguments: .out (input, weight?, bias?, running_mean, running_var,
// training, momentum, eps, out, save_mean, save_invstd, return slot);
// .no_stats_out (input, weight?, bias?, training, momentum, eps, out,
// save_mean, save_invstd, return slot). Statistics are computed in double
// and rounded once.
//
// Dtypes: floating input (NotSupported otherwise); out has its dtype;
// weight, bias, the running statistics, save_mean and save_invstd have the
// parameter dtype of support/norm.h (the input's, or Float for a
// Half/BFloat16 input with Float parameters). InvalidArgument for an input
// of rank < 2, parameters that are not 1-D of C elements (PyTorch does not
// check them and reads out of bounds), and other dtypes. Any layout.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/norm.h"
#include "ops_reference/support/shape.h"

typedef struct batch_norm_args {
  etr_tensor_t *input;
  etr_tensor_t *weight;
  etr_tensor_t *bias;
  etr_tensor_t *running_mean;  // NULL for .no_stats_out
  etr_tensor_t *running_var;
  bool training;
  double momentum;
  double eps;
  etr_tensor_t *outs[3];  // out, save_mean, save_invstd
} batch_norm_args_t;

static double param_at(const etr_tensor_t *param, int64_t c,
                       double fallback) {
  if (param == NULL) {
    return fallback;
  }
  return etr_load_double(param->dtype,
                         etr_element_at(param, c * param->strides[0]));
}

static void store_param(etr_tensor_t *param, int64_t c, double value) {
  etr_store_double(param->dtype, etr_element_at(param, c * param->strides[0]),
                   value);
}

static etr_error_t check_args(etr_kernel_context_t *ctx,
                              const batch_norm_args_t *a) {
  const etr_tensor_t *params[4] = {a->weight, a->bias, a->running_mean,
                                   a->running_var};
  etr_scalar_type_t param_dtype;
  ETR_TRY(etr_batch_norm_check_params(ctx, a->input, params, a->training,
                                      &param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", a->outs[0]->dtype,
                                a->input->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "save_mean", a->outs[1]->dtype,
                                param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "save_invstd", a->outs[2]->dtype,
                                param_dtype));
  ETR_CHECK(ctx->diag, !a->training || etr_numel(a->input) > 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: input tensor must have at least one element in training",
            etr_op_name(ctx));
  return ETR_OK;
}

// Normalizes every element of channel c as x * alpha + beta.
static void apply(const etr_dim_split_t *split, const etr_tensor_t *input,
                  etr_tensor_t *out, int64_t c, double alpha, double beta) {
  int64_t in_base = etr_dim_split_outer(split, 0, c);
  int64_t out_base = etr_dim_split_outer(split, 1, c);
  for (int64_t i = 0; i < split->inner_count; ++i) {
    double x = etr_load_double(
        input->dtype,
        etr_element_at(input, in_base + etr_dim_split_inner(split, 0, i)));
    etr_store_double(
        out->dtype,
        etr_element_at(out, out_base + etr_dim_split_inner(split, 1, i)),
        x * alpha + beta);
  }
}

static etr_error_t batch_norm(etr_kernel_context_t *ctx,
                              const batch_norm_args_t *a) {
  ETR_TRY(check_args(ctx, a));
  // Training checked rank >= 2; evaluation may see a rank-1 empty input.
  int64_t channels = a->input->dim >= 2 ? a->input->sizes[1] : 0;
  int64_t stat_size = a->training ? channels : 0;
  ETR_TRY(etr_resize_out_like(ctx, a->outs[0], a->input));
  ETR_TRY(etr_resize_out(ctx, a->outs[1], 1, &stat_size));
  ETR_TRY(etr_resize_out(ctx, a->outs[2], 1, &stat_size));
  if (ctx->dry_run || etr_numel(a->input) == 0) {
    // Nothing more to do; an empty input in evaluation may come with
    // parameters of any size, which must not be read.
    return ETR_OK;
  }

  // Outer dim: the channel; inner dims: everything else.
  uint32_t inner_mask = ((1u << (uint32_t)a->input->dim) - 1u) & ~2u;
  const etr_tensor_t *operands[2] = {a->input, a->outs[0]};
  etr_dim_split_t split;
  etr_dim_split_init(&split, inner_mask, operands, 2);
  int64_t n = split.inner_count;
  for (int64_t c = 0; c < channels; ++c) {
    double weight = param_at(a->weight, c, 1.0);
    double bias = param_at(a->bias, c, 0.0);
    if (!a->training) {
      double invstd = 1.0 / sqrt(param_at(a->running_var, c, 1.0) + a->eps);
      double alpha = weight * invstd;
      apply(&split, a->input, a->outs[0], c,
            alpha, bias - param_at(a->running_mean, c, 0.0) * alpha);
      continue;
    }
    int64_t base = etr_dim_split_outer(&split, 0, c);
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      sum += etr_load_double(
          a->input->dtype,
          etr_element_at(a->input, base + etr_dim_split_inner(&split, 0, i)));
    }
    double mean = sum / (double)n;
    double squares = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      double x = etr_load_double(
          a->input->dtype,
          etr_element_at(a->input, base + etr_dim_split_inner(&split, 0, i)));
      squares += (x - mean) * (x - mean);
    }
    double invstd = 1.0 / sqrt(squares / (double)n + a->eps);
    double alpha = weight * invstd;
    apply(&split, a->input, a->outs[0], c, alpha, bias - mean * alpha);
    store_param(a->outs[1], c, mean);
    store_param(a->outs[2], c, invstd);
    if (a->running_mean != NULL) {
      double momentum = a->momentum;
      store_param(a->running_mean, c,
                  (1.0 - momentum) * param_at(a->running_mean, c, 0.0) +
                      momentum * mean);
      store_param(a->running_var, c,
                  (1.0 - momentum) * param_at(a->running_var, c, 0.0) +
                      momentum * (squares / (double)(n - 1)));
    }
  }
  return ETR_OK;
}

static etr_error_t read_outs(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args, size_t first,
                             batch_norm_args_t *a) {
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, first, "out", &a->outs[0]));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, first + 1, "save_mean",
                         &a->outs[1]));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, first + 2, "save_invstd",
                         &a->outs[2]));
  return ETR_OK;
}

// aten::_native_batch_norm_legit.out
etr_error_t etr_ref_native_batch_norm_legit_out(etr_kernel_context_t *ctx,
                                                etr_evalue_t **args,
                                                size_t num_args) {
  batch_norm_args_t a = {0};
  ETR_TRY(etr_check_num_args(ctx, num_args, 12));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &a.input));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 1, "weight",
                                  &a.weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "bias", &a.bias));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "running_mean",
                         &a.running_mean));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "running_var",
                         &a.running_var));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "training", &a.training));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 6, "momentum", &a.momentum));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 7, "eps", &a.eps));
  ETR_TRY(read_outs(ctx, args, num_args, 8, &a));
  return batch_norm(ctx, &a);
}

// aten::_native_batch_norm_legit.no_stats_out
etr_error_t etr_ref_native_batch_norm_legit_no_stats_out(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  batch_norm_args_t a = {0};
  ETR_TRY(etr_check_num_args(ctx, num_args, 10));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &a.input));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 1, "weight",
                                  &a.weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "bias", &a.bias));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 3, "training", &a.training));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 4, "momentum", &a.momentum));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 5, "eps", &a.eps));
  ETR_TRY(read_outs(ctx, args, num_args, 6, &a));
  ETR_CHECK(ctx->diag, a.training, ETR_ERR_INVALID_ARGUMENT,
            "%s: without running statistics only training is possible",
            etr_op_name(ctx));
  return batch_norm(ctx, &a);
}
