// SPDX-License-Identifier: Apache-2.0
//
// aten::_native_batch_norm_legit_no_training.out: batch normalization
// with the running statistics (inference), over the channel dim 1:
//
//   alpha = weight / sqrt(running_var + eps)
//   out0 = x * alpha + (bias - running_mean * alpha)
//
// which is how ATen's CPU inference kernel evaluates it (here in double,
// rounded once). weight and bias are optional (1 and 0). out1 and out2
// (the saved mean and inverse std) are empty in inference and are resized
// to [0]. Arguments: (input, weight?, bias?, running_mean, running_var,
// momentum, eps, out0, out1, out2, return slot: a TensorList of the three);
// momentum is unused.
//
// Dtypes: floating input (NotSupported otherwise); out0 has its dtype; the
// parameters and out1/out2 have the parameter dtype of support/norm.h
// (the input's, or Float for a Half/BFloat16 input with Float
// parameters). InvalidArgument for an input of rank < 2, parameters that
// are not 1-D of C elements, and other dtypes. Works for any rank (1-D,
// 2-D, 3-D batch norm) and any layout (channels-last included).
//
// An input without elements is accepted whatever its rank (a 1-D Half[0]
// input, as OpInfo's batch_norm samples have) and whatever the
// parameters' shapes, as in PyTorch, which returns before checking them
// (support/norm.h, etr_batch_norm_check_params); a 1-D input with
// elements is InvalidArgument, as PyTorch's "Dimension out of range".
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/norm.h"
#include "ops_reference/support/shape.h"

// Element c of an optional 1-D parameter, or `fallback` when absent.
static double param_at(const etr_tensor_t *param, int64_t c,
                       double fallback) {
  if (param == NULL) {
    return fallback;
  }
  return etr_load_double(param->dtype,
                         etr_element_at(param, c * param->strides[0]));
}

// aten::_native_batch_norm_legit_no_training.out
etr_error_t etr_ref_native_batch_norm_legit_no_training_out(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *weight = NULL;
  etr_tensor_t *bias = NULL;
  etr_tensor_t *running_mean = NULL;
  etr_tensor_t *running_var = NULL;
  double momentum = 0.0;
  double eps = 0.0;
  etr_tensor_t *outs[3] = {NULL, NULL, NULL};
  ETR_TRY(etr_check_num_args(ctx, num_args, 11));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 1, "weight", &weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "bias", &bias));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "running_mean",
                         &running_mean));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "running_var",
                         &running_var));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 5, "momentum", &momentum));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 6, "eps", &eps));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "out0", &outs[0]));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 8, "out1", &outs[1]));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 9, "out2", &outs[2]));

  const etr_tensor_t *params[4] = {weight, bias, running_mean, running_var};
  etr_scalar_type_t param_dtype;
  ETR_TRY(etr_batch_norm_check_params(ctx, input, params, false,
                                      &param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out0", outs[0]->dtype, input->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out1", outs[1]->dtype, param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out2", outs[2]->dtype, param_dtype));
  ETR_TRY(etr_resize_out_like(ctx, outs[0], input));
  int64_t empty = 0;
  ETR_TRY(etr_resize_out(ctx, outs[1], 1, &empty));
  ETR_TRY(etr_resize_out(ctx, outs[2], 1, &empty));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  // Walk input and out0 together; the channel is the index along dim 1.
  const etr_tensor_t *operands[2] = {input, outs[0]};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, input->dim, input->sizes, operands, 2);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t c = iter.index[1];
    double invstd = 1.0 / sqrt(param_at(running_var, c, 1.0) + eps);
    double alpha = param_at(weight, c, 1.0) * invstd;
    double beta = param_at(bias, c, 0.0) -
                  param_at(running_mean, c, 0.0) * alpha;
    double x = etr_load_double(input->dtype,
                               etr_element_at(input, iter.offsets[0]));
    etr_store_double(outs[0]->dtype, etr_element_at(outs[0], iter.offsets[1]),
                     x * alpha + beta);
  }
  return ETR_OK;
}
