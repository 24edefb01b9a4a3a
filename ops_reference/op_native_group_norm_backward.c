// SPDX-License-Identifier: Apache-2.0
//
// aten::native_group_norm_backward.out: the gradients of native_group_norm
// with respect to its input (out0), weight (out1) and bias (out2), using
// the saved mean and rstd ([N, group] values, read in row-major order).
// input and grad_out are read in row-major order as [N, C, HxW], groups of
// D = C/group channels (see op_native_group_norm.c). With
// ds[n,c] = sum_hw dY * X, db[n,c] = sum_hw dY and gamma = weight (1 when
// absent), ATen's formulas:
//
//   per (n, g):  s = 1 / (D * HxW)
//                dsg = sum_{c in g} ds[n,c] gamma[c],  dbg likewise
//                c2 = (dbg * mean - dsg) * rstd^3 * s
//                c3 = -c2 * mean - dbg * rstd * s
//   dX = rstd * gamma[c] * dY + c2 * X + c3
//   dweight[c] = sum_n (ds[n,c] - db[n,c] * mean[n,g]) * rstd[n,g]
//   dbias[c]   = sum_n db[n,c]
//
// evaluated in double (no scratch: sums are recomputed where needed) and
// rounded once.
//
// output_mask selects the outs computed; a masked-out out is not touched
// (it may be None or ExecuTorch's placeholder tensor, support/nn_util.h).
// out0 takes input's shape, out1/out2 weight's shape.
//
// Arguments: (grad_out, input, mean, rstd, weight?, N, C, HxW, group,
// output_mask, out0, out1, out2, return slot). InvalidArgument for
// group <= 0, C not divisible by group, negative N, C or HxW, input or
// grad_out without N * C * HxW elements, mean or rstd without N * group,
// a weight without C, and output_mask[1] or [2] without a weight
// (PyTorch fails there too).
//
// Dtypes: floating input (NotSupported otherwise); grad_out and out0 have
// its dtype; mean, rstd, weight, out1 and out2 the parameter dtype of
// support/norm.h (the input's, or Float for a Half/BFloat16 input with
// Float statistics); InvalidArgument otherwise.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/norm.h"
#include "ops_reference/support/shape.h"

typedef struct group_norm_grad_args {
  etr_tensor_t *grad_out;
  etr_tensor_t *input;
  etr_tensor_t *mean;
  etr_tensor_t *rstd;
  etr_tensor_t *weight;
  int64_t n;
  int64_t c;
  int64_t hxw;
  int64_t group;
  bool mask[3];
  etr_tensor_t *outs[3];  // NULL where masked out
} group_norm_grad_args_t;

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
                              const group_norm_grad_args_t *a) {
  const etr_tensor_t *params[3] = {a->mean, a->rstd, a->weight};
  etr_scalar_type_t param_dtype;
  ETR_TRY(etr_norm_param_dtype(ctx, a->input, params, 3, &param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "grad_out", a->grad_out->dtype,
                                a->input->dtype));
  static const char *const kOuts[3] = {"out0", "out1", "out2"};
  for (int i = 0; i < 3; ++i) {
    if (a->outs[i] != NULL) {
      ETR_TRY(etr_check_dtype_equal(ctx, kOuts[i], a->outs[i]->dtype,
                                    i == 0 ? a->input->dtype : param_dtype));
    }
  }
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
  int64_t count = 0;
  int64_t stats = 0;
  bool fits = etr_checked_mul(a->n, a->c, &count) &&
              etr_checked_mul(count, a->hxw, &count) &&
              etr_checked_mul(a->n, a->group, &stats);
  ETR_CHECK(ctx->diag,
            fits && count == etr_numel(a->input) &&
                count == etr_numel(a->grad_out),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected input and grad_out to have N * C * HxW elements",
            etr_op_name(ctx));
  ETR_CHECK(ctx->diag,
            stats == etr_numel(a->mean) && stats == etr_numel(a->rstd),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected mean and rstd to have N * group elements",
            etr_op_name(ctx));
  ETR_CHECK(ctx->diag, a->weight == NULL || etr_numel(a->weight) == a->c,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected weight to have C (%lld) elements",
            etr_op_name(ctx), (long long)a->c);
  ETR_CHECK(ctx->diag, a->weight != NULL || (!a->mask[1] && !a->mask[2]),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: the weight and bias gradients need a weight",
            etr_op_name(ctx));
  return ETR_OK;
}

// ds[n, c] and db[n, c].
static void channel_sums(const group_norm_grad_args_t *a, int64_t n,
                         int64_t c, double *ds, double *db) {
  int64_t first = (n * a->c + c) * a->hxw;
  *ds = 0.0;
  *db = 0.0;
  for (int64_t i = 0; i < a->hxw; ++i) {
    double dy = load_flat(a->grad_out, first + i);
    *ds += dy * load_flat(a->input, first + i);
    *db += dy;
  }
}

static double gamma_at(const group_norm_grad_args_t *a, int64_t c) {
  return a->weight != NULL ? load_flat(a->weight, c) : 1.0;
}

static void input_grad(const group_norm_grad_args_t *a) {
  int64_t d = a->c / a->group;
  double s = 1.0 / (double)(d * a->hxw);
  for (int64_t n = 0; n < a->n; ++n) {
    for (int64_t g = 0; g < a->group; ++g) {
      double mean = load_flat(a->mean, n * a->group + g);
      double rstd = load_flat(a->rstd, n * a->group + g);
      double dsg = 0.0;
      double dbg = 0.0;
      for (int64_t c = g * d; c < (g + 1) * d; ++c) {
        double ds = 0.0;
        double db = 0.0;
        channel_sums(a, n, c, &ds, &db);
        dsg += ds * gamma_at(a, c);
        dbg += db * gamma_at(a, c);
      }
      double c2 = (dbg * mean - dsg) * rstd * rstd * rstd * s;
      double c3 = -c2 * mean - dbg * rstd * s;
      for (int64_t c = g * d; c < (g + 1) * d; ++c) {
        double c1 = rstd * gamma_at(a, c);
        int64_t first = (n * a->c + c) * a->hxw;
        for (int64_t i = 0; i < a->hxw; ++i) {
          double dy = load_flat(a->grad_out, first + i);
          double x = load_flat(a->input, first + i);
          store_flat(a->outs[0], first + i, c1 * dy + c2 * x + c3);
        }
      }
    }
  }
}

static void param_grads(const group_norm_grad_args_t *a) {
  int64_t d = a->c / a->group;
  for (int64_t c = 0; c < a->c; ++c) {
    double dweight = 0.0;
    double dbias = 0.0;
    for (int64_t n = 0; n < a->n; ++n) {
      int64_t stat = n * a->group + c / d;
      double ds = 0.0;
      double db = 0.0;
      channel_sums(a, n, c, &ds, &db);
      dweight += (ds - db * load_flat(a->mean, stat)) *
                 load_flat(a->rstd, stat);
      dbias += db;
    }
    if (a->outs[1] != NULL) {
      store_flat(a->outs[1], c, dweight);
    }
    if (a->outs[2] != NULL) {
      store_flat(a->outs[2], c, dbias);
    }
  }
}

// aten::native_group_norm_backward.out
etr_error_t etr_ref_native_group_norm_backward_out(etr_kernel_context_t *ctx,
                                                   etr_evalue_t **args,
                                                   size_t num_args) {
  group_norm_grad_args_t a = {0};
  ETR_TRY(etr_check_num_args(ctx, num_args, 14));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "grad_out", &a.grad_out));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "input", &a.input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "mean", &a.mean));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "rstd", &a.rstd));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 4, "weight",
                                  &a.weight));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 5, "N", &a.n));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 6, "C", &a.c));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 7, "HxW", &a.hxw));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 8, "group", &a.group));
  ETR_TRY(etr_nn_read_output_mask(ctx, args, num_args, 9, a.mask));
  static const char *const kOuts[3] = {"out0", "out1", "out2"};
  for (int i = 0; i < 3; ++i) {
    ETR_TRY(etr_nn_arg_grad_out(ctx, args, num_args, 10 + (size_t)i,
                                kOuts[i], a.mask[i], &a.outs[i]));
  }
  ETR_TRY(check_args(ctx, &a));
  if (a.outs[0] != NULL) {
    ETR_TRY(etr_resize_out_like(ctx, a.outs[0], a.input));
  }
  for (int i = 1; i < 3; ++i) {
    if (a.outs[i] != NULL) {
      ETR_TRY(etr_resize_out_like(ctx, a.outs[i], a.weight));
    }
  }
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  if (a.outs[0] != NULL) {
    input_grad(&a);
  }
  if (a.outs[1] != NULL || a.outs[2] != NULL) {
    param_grads(&a);
  }
  return ETR_OK;
}
