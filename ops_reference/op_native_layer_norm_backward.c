// SPDX-License-Identifier: Apache-2.0
//
// aten::native_layer_norm_backward.out: the gradients of native_layer_norm
// with respect to its input (out0), weight (out1) and bias (out2), using
// the saved mean and rstd (one value per row; a row is one position of
// input's leading dims, the normalized trailing dims hold its N elements).
// With gamma = weight (1 when absent), ATen's formulas per row:
//
//   ds = sum_j gamma_j dY_j x_j,  db = sum_j gamma_j dY_j
//   b = (db * mean - ds) * rstd^3 / N,  c = -b * mean - db * rstd / N
//   dX_j = rstd * gamma_j * dY_j + b * x_j + c
//
//   dweight_j = sum_rows dY_j * (x_j - mean) * rstd,  dbias_j = sum_rows dY_j
//
// evaluated in double and rounded once (no rows: zero gradients).
//
// output_mask selects the outs computed; a masked-out out is not touched
// (it may be None or ExecuTorch's placeholder tensor, support/nn_util.h).
// out0 takes input's shape, out1 weight's and out2 bias's.
//
// Arguments: (grad_out, input, normalized_shape, mean, rstd, weight?,
// bias?, output_mask, out0, out1, out2, return slot). InvalidArgument
// when normalized_shape is empty or is not input's trailing shape, weight
// or bias has another shape, grad_out is not input's shape or mean/rstd
// do not hold one value per row (PyTorch does not check these two and
// reads out of bounds), or output_mask[1] (resp. [2]) is set without a
// weight (bias), which PyTorch rejects too.
//
// Dtypes: floating input (NotSupported otherwise); grad_out and out0 have
// its dtype; weight, bias, out1, out2, mean and rstd the parameter dtype
// of support/norm.h, chosen by weight and bias (Float for a
// Half/BFloat16 input only with Float parameters: a Half input without
// parameters needs Half mean/rstd, as in PyTorch); InvalidArgument
// otherwise.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/norm.h"
#include "ops_reference/support/shape.h"

typedef struct layer_norm_grad_args {
  etr_tensor_t *grad_out;
  etr_tensor_t *input;
  etr_tensor_t *mean;
  etr_tensor_t *rstd;
  etr_tensor_t *weight;
  etr_tensor_t *bias;
  bool mask[3];
  etr_tensor_t *outs[3];  // NULL where masked out
  int64_t rows;
  int64_t n;  // elements per row
} layer_norm_grad_args_t;

static double load_flat(const etr_tensor_t *tensor, int64_t flat) {
  return etr_load_double(
      tensor->dtype, etr_element_at(tensor, etr_nn_offset_of(tensor, flat)));
}

static void store_flat(etr_tensor_t *tensor, int64_t flat, double value) {
  etr_store_double(tensor->dtype,
                   etr_element_at(tensor, etr_nn_offset_of(tensor, flat)),
                   value);
}

static etr_error_t check_args(etr_kernel_context_t *ctx,
                              layer_norm_grad_args_t *a,
                              const int64_t *shape, size_t count) {
  const etr_tensor_t *params[2] = {a->weight, a->bias};
  etr_scalar_type_t param_dtype;
  ETR_TRY(etr_norm_param_dtype(ctx, a->input, params, 2, &param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "grad_out", a->grad_out->dtype,
                                a->input->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "mean", a->mean->dtype, param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "rstd", a->rstd->dtype, param_dtype));
  static const char *const kOuts[3] = {"out0", "out1", "out2"};
  for (int i = 0; i < 3; ++i) {
    if (a->outs[i] != NULL) {
      ETR_TRY(etr_check_dtype_equal(ctx, kOuts[i], a->outs[i]->dtype,
                                    i == 0 ? a->input->dtype : param_dtype));
    }
  }
  int32_t axis = a->input->dim - (int32_t)count;
  bool matches = count >= 1 && axis >= 0;
  for (size_t i = 0; matches && i < count; ++i) {
    matches = a->input->sizes[axis + (int32_t)i] == shape[i];
  }
  ETR_CHECK(ctx->diag, matches, ETR_ERR_INVALID_ARGUMENT,
            "%s: normalized_shape (%zu dims) must be non-empty and equal "
            "the input's trailing sizes",
            etr_op_name(ctx), count);
  if (a->weight != NULL) {
    ETR_TRY(etr_nn_check_shape(ctx, "weight", a->weight, (int32_t)count,
                               shape));
  }
  if (a->bias != NULL) {
    ETR_TRY(etr_nn_check_shape(ctx, "bias", a->bias, (int32_t)count, shape));
  }
  ETR_TRY(etr_nn_check_shape(ctx, "grad_out", a->grad_out, a->input->dim,
                             a->input->sizes));
  a->rows = 1;
  a->n = 1;
  for (int32_t d = 0; d < a->input->dim; ++d) {
    if (d < axis) {
      a->rows = etr_saturating_mul(a->rows, a->input->sizes[d]);
    } else {
      a->n = etr_saturating_mul(a->n, a->input->sizes[d]);
    }
  }
  ETR_CHECK(ctx->diag,
            etr_numel(a->mean) == a->rows && etr_numel(a->rstd) == a->rows,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: mean and rstd must hold one value per row (%lld)",
            etr_op_name(ctx), (long long)a->rows);
  ETR_CHECK(ctx->diag, a->weight != NULL || !a->mask[1],
            ETR_ERR_INVALID_ARGUMENT,
            "%s: the weight gradient needs a weight", etr_op_name(ctx));
  ETR_CHECK(ctx->diag, a->bias != NULL || !a->mask[2],
            ETR_ERR_INVALID_ARGUMENT, "%s: the bias gradient needs a bias",
            etr_op_name(ctx));
  return ETR_OK;
}

static double gamma_at(const layer_norm_grad_args_t *a, int64_t j) {
  return a->weight != NULL ? load_flat(a->weight, j) : 1.0;
}

static void input_grad(const layer_norm_grad_args_t *a) {
  double scale = 1.0 / (double)a->n;
  for (int64_t r = 0; r < a->rows; ++r) {
    double mean = load_flat(a->mean, r);
    double rstd = load_flat(a->rstd, r);
    double ds = 0.0;
    double db = 0.0;
    for (int64_t j = 0; j < a->n; ++j) {
      double dy = load_flat(a->grad_out, r * a->n + j) * gamma_at(a, j);
      ds += dy * load_flat(a->input, r * a->n + j);
      db += dy;
    }
    double b = (db * mean - ds) * rstd * rstd * rstd * scale;
    double c = -b * mean - db * rstd * scale;
    for (int64_t j = 0; j < a->n; ++j) {
      double dy = load_flat(a->grad_out, r * a->n + j);
      double x = load_flat(a->input, r * a->n + j);
      store_flat(a->outs[0], r * a->n + j,
                 rstd * gamma_at(a, j) * dy + b * x + c);
    }
  }
}

static void param_grads(const layer_norm_grad_args_t *a) {
  for (int64_t j = 0; j < a->n; ++j) {
    double dweight = 0.0;
    double dbias = 0.0;
    for (int64_t r = 0; r < a->rows; ++r) {
      double dy = load_flat(a->grad_out, r * a->n + j);
      double x = load_flat(a->input, r * a->n + j);
      dweight += dy * (x - load_flat(a->mean, r)) * load_flat(a->rstd, r);
      dbias += dy;
    }
    if (a->outs[1] != NULL) {
      store_flat(a->outs[1], j, dweight);
    }
    if (a->outs[2] != NULL) {
      store_flat(a->outs[2], j, dbias);
    }
  }
}

// aten::native_layer_norm_backward.out
etr_error_t etr_ref_native_layer_norm_backward_out(etr_kernel_context_t *ctx,
                                                   etr_evalue_t **args,
                                                   size_t num_args) {
  layer_norm_grad_args_t a = {0};
  const int64_t *shape = NULL;
  size_t count = 0;
  ETR_TRY(etr_check_num_args(ctx, num_args, 12));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "grad_out", &a.grad_out));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "input", &a.input));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 2, "normalized_shape", &shape,
                           &count));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "mean", &a.mean));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "rstd", &a.rstd));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 5, "weight",
                                  &a.weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 6, "bias", &a.bias));
  ETR_TRY(etr_nn_read_output_mask(ctx, args, num_args, 7, a.mask));
  static const char *const kOuts[3] = {"out0", "out1", "out2"};
  for (int i = 0; i < 3; ++i) {
    ETR_TRY(etr_nn_arg_grad_out(ctx, args, num_args, 8 + (size_t)i, kOuts[i],
                                a.mask[i], &a.outs[i]));
  }
  ETR_TRY(check_args(ctx, &a, shape, count));
  if (a.outs[0] != NULL) {
    ETR_TRY(etr_resize_out_like(ctx, a.outs[0], a.input));
  }
  if (a.outs[1] != NULL) {
    ETR_TRY(etr_resize_out_like(ctx, a.outs[1], a.weight));
  }
  if (a.outs[2] != NULL) {
    ETR_TRY(etr_resize_out_like(ctx, a.outs[2], a.bias));
  }
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  if (a.outs[0] != NULL && a.n > 0) {
    input_grad(&a);
  }
  if (a.outs[1] != NULL || a.outs[2] != NULL) {
    param_grads(&a);
  }
  return ETR_OK;
}
