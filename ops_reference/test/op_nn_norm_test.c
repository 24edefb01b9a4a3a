// SPDX-License-Identifier: Apache-2.0
//
// The nn family's normalization kernels: aten::_native_batch_norm_legit.out
// and .no_stats_out (training statistics, running-statistic updates,
// evaluation), native_group_norm.out, native_group_norm_backward.out and
// native_layer_norm_backward.out (every output_mask). PyTorch-generated
// cases (gen_nn_cases.py) in contiguous, non-contiguous and channels-last
// layouts, masked-out outs passed as ExecuTorch's placeholder or as None,
// and the exact error codes of rejected calls.
#include <math.h>
#include <string.h>

#include "ops_reference/test/generated/nn_norm_cases.h"
#include "ops_reference/test/op_nn_case_util.h"
#include "ops_reference/test/test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

TT_TEST(nn_norm, native_batch_norm_legit_out_cases) {
  cr_expect_gt(nn_run_cases(kNnNormCases, COUNT(kNnNormCases),
                            "aten::_native_batch_norm_legit.out"),
               0);
}

TT_TEST(nn_norm, native_batch_norm_legit_no_stats_out_cases) {
  cr_expect_gt(nn_run_cases(kNnNormCases, COUNT(kNnNormCases),
                            "aten::_native_batch_norm_legit.no_stats_out"),
               0);
}

// ATen's group norm requires a dense input (row-major or channels-last):
// its cases run in those layouts, and a strided input is rejected.
TT_TEST(nn_norm, native_group_norm_out_cases) {
  size_t ran = 0;
  for (size_t i = 0; i < COUNT(kNnNormCases); ++i) {
    const nn_case_t *c = &kNnNormCases[i];
    if (strcmp(c->op, "aten::native_group_norm.out") != 0) {
      continue;
    }
    cr_log_info("case %s", c->name);
    nn_run_case(c, TT_CONTIGUOUS);
    nn_run_case(c, TT_CHANNELS_LAST);
    ++ran;
  }
  cr_expect_gt(ran, 0);
}

TT_TEST(nn_norm, native_group_norm_backward_out_cases) {
  cr_expect_gt(nn_run_cases(kNnNormCases, COUNT(kNnNormCases),
                            "aten::native_group_norm_backward.out"),
               0);
}

TT_TEST(nn_norm, native_layer_norm_backward_out_cases) {
  cr_expect_gt(nn_run_cases(kNnNormCases, COUNT(kNnNormCases),
                            "aten::native_layer_norm_backward.out"),
               0);
}


static const etr_error_t kBad = ETR_ERR_INVALID_ARGUMENT;

static etr_evalue_t *optional(etr_tensor_t *tensor) {
  return tensor != NULL ? tt_ev_tensor(tensor) : tt_ev_none();
}

static etr_tensor_t *values(etr_scalar_type_t dtype, int32_t dim,
                            const int64_t *sizes) {
  int64_t count = 1;
  for (int32_t d = 0; d < dim; ++d) {
    count *= sizes[d];
  }
  double *data = tt_alloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
  for (int64_t i = 0; i < count; ++i) {
    data[i] = (double)((i * 7) % 11) - 4.5;
  }
  return tt_tensor(dtype, dim, sizes, data);
}

typedef struct bn_call {
  etr_tensor_t *input;
  etr_tensor_t *weight;
  etr_tensor_t *bias;
  etr_tensor_t *running_mean;
  etr_tensor_t *running_var;
  bool training;
  etr_tensor_t *outs[3];
} bn_call_t;

static bn_call_t bn_defaults(etr_scalar_type_t dtype,
                             etr_scalar_type_t param_dtype) {
  bn_call_t c;
  c.input = values(dtype, TT_SIZES(2, 3, 4));
  c.weight = values(param_dtype, TT_SIZES(3));
  c.bias = values(param_dtype, TT_SIZES(3));
  c.running_mean = values(param_dtype, TT_SIZES(3));
  c.running_var = tt_tensor(param_dtype, TT_SIZES(3), TT_VALUES(1, 2, 3));
  c.training = true;
  c.outs[0] = tt_out(dtype, TT_SIZES(24), 0);
  c.outs[1] = tt_out(param_dtype, TT_SIZES(3), 0);
  c.outs[2] = tt_out(param_dtype, TT_SIZES(3), 0);
  return c;
}

static etr_error_t batch_norm(const bn_call_t *c) {
  return TT_CALL("aten::_native_batch_norm_legit.out", tt_ev_tensor(c->input),
                 optional(c->weight), optional(c->bias),
                 optional(c->running_mean), optional(c->running_var),
                 tt_ev_bool(c->training), tt_ev_double(0.1),
                 tt_ev_double(1e-5), tt_ev_tensor(c->outs[0]),
                 tt_ev_tensor(c->outs[1]), tt_ev_tensor(c->outs[2]),
                 tt_ev_tensor_list(3, c->outs));
}

static etr_error_t batch_norm_no_stats(const bn_call_t *c) {
  return TT_CALL("aten::_native_batch_norm_legit.no_stats_out",
                 tt_ev_tensor(c->input), optional(c->weight),
                 optional(c->bias), tt_ev_bool(c->training),
                 tt_ev_double(0.1), tt_ev_double(1e-5),
                 tt_ev_tensor(c->outs[0]), tt_ev_tensor(c->outs[1]),
                 tt_ev_tensor(c->outs[2]), tt_ev_tensor_list(3, c->outs));
}

TT_TEST(nn_norm, batch_norm_legit_rejects) {
  bn_call_t ok = bn_defaults(ETR_FLOAT, ETR_FLOAT);
  tt_expect_status(batch_norm(&ok), ETR_OK);
  tt_expect_status(batch_norm_no_stats(&ok), ETR_OK);
  // Without running statistics there is nothing to evaluate with (PyTorch
  // 2.13 crashes); .out needs its running statistics.
  bn_call_t c = bn_defaults(ETR_FLOAT, ETR_FLOAT);
  c.training = false;
  tt_expect_status(batch_norm_no_stats(&c), kBad);
  c = bn_defaults(ETR_FLOAT, ETR_FLOAT);
  c.running_var = NULL;
  tt_expect_status(batch_norm(&c), ETR_ERR_INVALID_TYPE);
  // Training needs elements; evaluation does not.
  c = bn_defaults(ETR_FLOAT, ETR_FLOAT);
  c.input = tt_tensor(ETR_FLOAT, TT_SIZES(0, 3, 4), NULL);
  tt_expect_status(batch_norm(&c), kBad);
  tt_expect_status(batch_norm_no_stats(&c), kBad);
  c.training = false;
  tt_expect_status(batch_norm(&c), ETR_OK);
  tt_expect_shape(c.outs[1], TT_SIZES(0));
  // Rank 1; parameters of the wrong size (PyTorch reads past them).
  c = bn_defaults(ETR_FLOAT, ETR_FLOAT);
  c.input = values(ETR_FLOAT, TT_SIZES(3));
  tt_expect_status(batch_norm(&c), kBad);
  c = bn_defaults(ETR_FLOAT, ETR_FLOAT);
  c.weight = values(ETR_FLOAT, TT_SIZES(4));
  tt_expect_status(batch_norm(&c), kBad);
  c = bn_defaults(ETR_FLOAT, ETR_FLOAT);
  c.running_mean = values(ETR_FLOAT, TT_SIZES(1, 3));
  tt_expect_status(batch_norm(&c), kBad);
  // Mixed dtypes: Half input with Float parameters only all together.
  c = bn_defaults(ETR_HALF, ETR_FLOAT);
  tt_expect_status(batch_norm(&c), ETR_OK);
  c.weight = tt_cast(c.weight, ETR_HALF);
  tt_expect_status(batch_norm(&c), kBad);
  c = bn_defaults(ETR_FLOAT, ETR_DOUBLE);
  tt_expect_status(batch_norm(&c), kBad);
  c = bn_defaults(ETR_FLOAT, ETR_FLOAT);
  c.outs[1] = tt_out(ETR_DOUBLE, TT_SIZES(3), 0);
  tt_expect_status(batch_norm(&c), kBad);
  c = bn_defaults(ETR_LONG, ETR_LONG);
  tt_expect_status(batch_norm(&c), ETR_ERR_NOT_SUPPORTED);
}

// Review fix: evaluation of an input without elements accepts any rank
// and parameters of any size, as PyTorch 2.13 does (it returns before
// looking at them); training still needs rank >= 2 and elements.
TT_TEST(nn_norm, batch_norm_legit_empty_input_in_evaluation) {
  bn_call_t c = bn_defaults(ETR_HALF, ETR_HALF);
  c.input = tt_tensor(ETR_HALF, TT_SIZES(0), NULL);
  c.weight = NULL;
  c.bias = NULL;
  c.running_mean = tt_tensor(ETR_HALF, TT_SIZES(5), NULL);
  c.running_var = tt_tensor(ETR_HALF, TT_SIZES(5), NULL);
  c.training = false;
  tt_expect_status(batch_norm(&c), ETR_OK);
  tt_expect_shape(c.outs[0], TT_SIZES(0));
  tt_expect_shape(c.outs[1], TT_SIZES(0));
  tt_expect_shape(c.outs[2], TT_SIZES(0));
  // Rank 3 without elements and statistics of another size: fine too
  // (and never read).
  c.input = tt_tensor(ETR_HALF, TT_SIZES(0, 3, 2), NULL);
  c.running_mean = tt_tensor(ETR_HALF, TT_SIZES(1), NULL);
  c.running_var = tt_tensor(ETR_HALF, TT_SIZES(1), NULL);
  tt_expect_status(batch_norm(&c), ETR_OK);
  tt_expect_shape(c.outs[0], TT_SIZES(0, 3, 2));
  c.input = tt_tensor(ETR_HALF, TT_SIZES(0), NULL);
  c.training = true;
  tt_expect_status(batch_norm(&c), kBad);
  tt_expect_status(batch_norm_no_stats(&c), kBad);
}

TT_TEST(nn_norm, batch_norm_legit_updates_running_stats_in_place) {
  // One channel of 4 values: mean 2.5, biased var 1.25, unbiased 5/3.
  bn_call_t c = bn_defaults(ETR_DOUBLE, ETR_DOUBLE);
  c.input = tt_tensor(ETR_DOUBLE, TT_SIZES(4, 1), TT_VALUES(1, 2, 3, 4));
  c.weight = NULL;
  c.bias = NULL;
  c.running_mean = tt_tensor(ETR_DOUBLE, TT_SIZES(1), TT_VALUES(1));
  c.running_var = tt_tensor(ETR_DOUBLE, TT_SIZES(1), TT_VALUES(3));
  tt_expect_status(batch_norm(&c), ETR_OK);
  tt_expect_values(c.running_mean, TT_VALUES(0.9 * 1 + 0.1 * 2.5), 1);
  tt_expect_values(c.running_var, TT_VALUES(0.9 * 3 + 0.1 * 5.0 / 3.0), 1);
  tt_expect_values(c.outs[1], TT_VALUES(2.5), 1);
  tt_expect_values(c.outs[2], TT_VALUES(1.0 / sqrt(1.25 + 1e-5)), 1);
}

static etr_error_t group_norm(etr_tensor_t *input, etr_tensor_t *weight,
                              int64_t n, int64_t c, int64_t hxw, int64_t group,
                              etr_tensor_t *const *outs) {
  return TT_CALL("aten::native_group_norm.out", tt_ev_tensor(input),
                 optional(weight), tt_ev_none(), tt_ev_int(n), tt_ev_int(c),
                 tt_ev_int(hxw), tt_ev_int(group), tt_ev_double(1e-5),
                 tt_ev_tensor(outs[0]), tt_ev_tensor(outs[1]),
                 tt_ev_tensor(outs[2]),
                 tt_ev_tensor_list(3, (etr_tensor_t **)outs));
}

TT_TEST(nn_norm, group_norm_rejects) {
  etr_tensor_t *x = values(ETR_FLOAT, TT_SIZES(2, 4, 3));
  etr_tensor_t *outs[3] = {tt_out(ETR_FLOAT, TT_SIZES(24), 0),
                           tt_out(ETR_FLOAT, TT_SIZES(8), 0),
                           tt_out(ETR_FLOAT, TT_SIZES(8), 0)};
  tt_expect_status(group_norm(x, NULL, 2, 4, 3, 2, outs), ETR_OK);
  tt_expect_status(group_norm(x, NULL, 2, 4, 3, 0, outs), kBad);
  tt_expect_status(group_norm(x, NULL, 2, 4, 3, 3, outs), kBad);
  tt_expect_status(group_norm(x, NULL, 2, 4, 4, 2, outs), kBad);
  tt_expect_status(group_norm(x, NULL, -2, -4, 3, 2, outs), kBad);
  tt_expect_status(group_norm(x, NULL, INT64_MAX, INT64_MAX, 3, 1, outs),
                   kBad);
  tt_expect_status(group_norm(x, values(ETR_FLOAT, TT_SIZES(3)), 2, 4, 3, 2,
                              outs),
                   kBad);
  tt_expect_status(group_norm(x, values(ETR_FLOAT, TT_SIZES(1, 4)), 2, 4, 3, 2,
                              outs),
                   kBad);
  // A strided input: ATen checks X.is_contiguous(memory_format).
  tt_expect_status(group_norm(tt_noncontiguous(x), NULL, 2, 4, 3, 2, outs),
                   kBad);
  etr_tensor_t *x4 = values(ETR_FLOAT, TT_SIZES(2, 4, 3, 3));
  etr_tensor_t *outs4[3] = {tt_out(ETR_FLOAT, TT_SIZES(72), 0),
                            tt_out(ETR_FLOAT, TT_SIZES(8), 0),
                            tt_out(ETR_FLOAT, TT_SIZES(8), 0)};
  tt_expect_status(group_norm(tt_channels_last(x4), NULL, 2, 4, 9, 2, outs4),
                   ETR_OK);
  // Half input: Float weight makes Float statistics; Long is unsupported.
  etr_tensor_t *xh = tt_cast(x, ETR_HALF);
  etr_tensor_t *outs_h[3] = {tt_out(ETR_HALF, TT_SIZES(24), 0),
                             tt_out(ETR_HALF, TT_SIZES(8), 0),
                             tt_out(ETR_HALF, TT_SIZES(8), 0)};
  tt_expect_status(group_norm(xh, NULL, 2, 4, 3, 2, outs_h), ETR_OK);
  tt_expect_status(group_norm(xh, values(ETR_FLOAT, TT_SIZES(4)), 2, 4, 3, 2,
                              outs_h),
                   kBad);
  etr_tensor_t *xl = tt_cast(x, ETR_LONG);
  etr_tensor_t *outs_l[3] = {tt_out(ETR_LONG, TT_SIZES(24), 0),
                             tt_out(ETR_LONG, TT_SIZES(8), 0),
                             tt_out(ETR_LONG, TT_SIZES(8), 0)};
  tt_expect_status(group_norm(xl, NULL, 2, 4, 3, 2, outs_l),
                   ETR_ERR_NOT_SUPPORTED);
}

static etr_error_t group_norm_backward(etr_tensor_t *grad, etr_tensor_t *x,
                                       etr_tensor_t *mean, etr_tensor_t *rstd,
                                       etr_tensor_t *weight, int64_t group,
                                       etr_evalue_t *mask,
                                       etr_evalue_t *const *outs) {
  etr_tensor_t *list[3];
  for (int i = 0; i < 3; ++i) {
    list[i] = outs[i]->tag == ETR_TAG_TENSOR ? outs[i]->u.as_tensor : NULL;
  }
  return TT_CALL("aten::native_group_norm_backward.out", tt_ev_tensor(grad),
                 tt_ev_tensor(x), tt_ev_tensor(mean), tt_ev_tensor(rstd),
                 optional(weight), tt_ev_int(2), tt_ev_int(4), tt_ev_int(3),
                 tt_ev_int(group), mask, outs[0], outs[1], outs[2],
                 tt_ev_optional_tensor_list(3, list));
}

TT_TEST(nn_norm, group_norm_backward_masks_and_rejects) {
  etr_tensor_t *x = values(ETR_FLOAT, TT_SIZES(2, 4, 3));
  etr_tensor_t *grad = values(ETR_FLOAT, TT_SIZES(2, 4, 3));
  etr_tensor_t *mean = values(ETR_FLOAT, TT_SIZES(2, 2));
  etr_tensor_t *rstd = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2),
                                 TT_VALUES(1, 2, 0.5, 1.5));
  etr_tensor_t *weight = values(ETR_FLOAT, TT_SIZES(4));
  bool all[3] = {true, true, true};
  bool input_only[3] = {true, false, false};
  etr_evalue_t *outs[3] = {tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(24), 0)),
                           tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(4), 0)),
                           tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(4), 0))};
  tt_expect_status(group_norm_backward(grad, x, mean, rstd, weight, 2,
                                       tt_ev_bool_list(3, all), outs),
                   ETR_OK);
  // Masked-out outs may be None.
  etr_evalue_t *with_none[3] = {outs[0], tt_ev_none(), tt_ev_none()};
  tt_expect_status(group_norm_backward(grad, x, mean, rstd, NULL, 2,
                                       tt_ev_bool_list(3, input_only),
                                       with_none),
                   ETR_OK);
  // The parameter gradients need a weight; a wanted out must be a tensor.
  tt_expect_status(group_norm_backward(grad, x, mean, rstd, NULL, 2,
                                       tt_ev_bool_list(3, all), outs),
                   kBad);
  tt_expect_status(group_norm_backward(grad, x, mean, rstd, weight, 2,
                                       tt_ev_bool_list(3, all), with_none),
                   ETR_ERR_INVALID_TYPE);
  tt_expect_status(group_norm_backward(grad, x, mean, rstd, weight, 2,
                                       tt_ev_bool_list(2, all), outs),
                   kBad);
  tt_expect_status(group_norm_backward(grad, x, mean, rstd, weight, 3,
                                       tt_ev_bool_list(3, all), outs),
                   kBad);
  tt_expect_status(group_norm_backward(grad, x, values(ETR_FLOAT, TT_SIZES(3)),
                                       rstd, weight, 2, tt_ev_bool_list(3, all),
                                       outs),
                   kBad);
  tt_expect_status(group_norm_backward(values(ETR_FLOAT, TT_SIZES(2, 4, 2)), x,
                                       mean, rstd, weight, 2,
                                       tt_ev_bool_list(3, all), outs),
                   kBad);
  tt_expect_status(group_norm_backward(tt_cast(grad, ETR_DOUBLE), x, mean,
                                       rstd, weight, 2, tt_ev_bool_list(3, all),
                                       outs),
                   kBad);
  tt_expect_status(group_norm_backward(grad, x, mean, rstd,
                                       values(ETR_FLOAT, TT_SIZES(5)), 2,
                                       tt_ev_bool_list(3, all), outs),
                   kBad);
}

static etr_error_t layer_norm_backward(etr_tensor_t *grad, etr_tensor_t *x,
                                       etr_evalue_t *shape, etr_tensor_t *mean,
                                       etr_tensor_t *rstd, etr_tensor_t *weight,
                                       etr_tensor_t *bias, const bool *mask,
                                       etr_evalue_t *const *outs) {
  etr_tensor_t *list[3];
  for (int i = 0; i < 3; ++i) {
    list[i] = outs[i]->tag == ETR_TAG_TENSOR ? outs[i]->u.as_tensor : NULL;
  }
  return TT_CALL("aten::native_layer_norm_backward.out", tt_ev_tensor(grad),
                 tt_ev_tensor(x), shape, tt_ev_tensor(mean),
                 tt_ev_tensor(rstd), optional(weight), optional(bias),
                 tt_ev_bool_list(3, mask), outs[0], outs[1], outs[2],
                 tt_ev_optional_tensor_list(3, list));
}

TT_TEST(nn_norm, layer_norm_backward_masks_and_rejects) {
  etr_tensor_t *x = values(ETR_FLOAT, TT_SIZES(2, 3));
  etr_tensor_t *grad = values(ETR_FLOAT, TT_SIZES(2, 3));
  etr_tensor_t *mean = values(ETR_FLOAT, TT_SIZES(2, 1));
  etr_tensor_t *rstd = tt_tensor(ETR_FLOAT, TT_SIZES(2, 1), TT_VALUES(1, 2));
  etr_tensor_t *weight = values(ETR_FLOAT, TT_SIZES(3));
  etr_tensor_t *bias = values(ETR_FLOAT, TT_SIZES(3));
  const bool all[3] = {true, true, true};
  const bool input_only[3] = {true, false, false};
  const bool bias_only[3] = {false, false, true};
  etr_evalue_t *outs[3] = {tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(6), 0)),
                           tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(3), 0)),
                           tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(3), 0))};
  etr_evalue_t *shape = TT_EV_INTS(3);
  tt_expect_status(layer_norm_backward(grad, x, shape, mean, rstd, weight, bias,
                                       all, outs),
                   ETR_OK);
  etr_evalue_t *with_none[3] = {outs[0], tt_ev_none(), tt_ev_none()};
  tt_expect_status(layer_norm_backward(grad, x, shape, mean, rstd, NULL, NULL,
                                       input_only, with_none),
                   ETR_OK);
  etr_evalue_t *bias_none[3] = {tt_ev_none(), tt_ev_none(), outs[2]};
  tt_expect_status(layer_norm_backward(grad, x, shape, mean, rstd, NULL, bias,
                                       bias_only, bias_none),
                   ETR_OK);
  // The weight gradient needs a weight, the bias gradient a bias.
  tt_expect_status(layer_norm_backward(grad, x, shape, mean, rstd, NULL, bias,
                                       all, outs),
                   kBad);
  tt_expect_status(layer_norm_backward(grad, x, shape, mean, rstd, weight,
                                       NULL, all, outs),
                   kBad);
  // normalized_shape empty or not the trailing shape; params of another
  // shape; grad_out of another shape and too few statistics (PyTorch does
  // not check those two).
  tt_expect_status(layer_norm_backward(grad, x, TT_EV_NO_INTS, mean, rstd,
                                       weight, bias, all, outs),
                   kBad);
  tt_expect_status(layer_norm_backward(grad, x, TT_EV_INTS(2), mean, rstd,
                                       weight, bias, all, outs),
                   kBad);
  tt_expect_status(layer_norm_backward(grad, x, shape, mean, rstd,
                                       values(ETR_FLOAT, TT_SIZES(1, 3)), bias,
                                       all, outs),
                   kBad);
  tt_expect_status(layer_norm_backward(values(ETR_FLOAT, TT_SIZES(2, 2)), x,
                                       shape, mean, rstd, weight, bias, all,
                                       outs),
                   kBad);
  tt_expect_status(layer_norm_backward(grad, x, shape,
                                       values(ETR_FLOAT, TT_SIZES(1)), rstd,
                                       weight, bias, all, outs),
                   kBad);
  // A Half input without parameters needs Half statistics (as PyTorch).
  etr_evalue_t *half_outs[3] = {tt_ev_tensor(tt_out(ETR_HALF, TT_SIZES(6), 0)),
                                tt_ev_none(), tt_ev_none()};
  tt_expect_status(layer_norm_backward(tt_cast(grad, ETR_HALF),
                                       tt_cast(x, ETR_HALF), shape, mean, rstd,
                                       NULL, NULL, input_only, half_outs),
                   kBad);
  tt_expect_status(layer_norm_backward(tt_cast(grad, ETR_HALF),
                                       tt_cast(x, ETR_HALF), shape,
                                       tt_cast(mean, ETR_HALF),
                                       tt_cast(rstd, ETR_HALF), NULL, NULL,
                                       input_only, half_outs),
                   ETR_OK);
  tt_expect_status(layer_norm_backward(grad, x, shape, mean, rstd,
                                       tt_cast(weight, ETR_DOUBLE), bias, all,
                                       outs),
                   kBad);
}
