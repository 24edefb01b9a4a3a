// SPDX-License-Identifier: Apache-2.0
//
// The nn family's pooling kernels: aten::avg_pool1d.out, avg_pool3d.out,
// max_pool3d_with_indices.out, adaptive_avg_pool1d.out,
// _adaptive_avg_pool3d.out and the 2-D backward kernels
// _adaptive_avg_pool2d_backward.out, avg_pool2d_backward.grad_input,
// max_pool2d_with_indices_backward.grad_input. PyTorch-generated cases
// (gen_nn_cases.py: every accepted dtype, padding, ceil_mode, dilation,
// count_include_pad, divisor_override, unbatched and empty-batch inputs,
// NaN and -inf windows) replayed in contiguous, non-contiguous and
// channels-last layouts; then the exact error codes of rejected calls,
// hostile parameters, and the index rules of the backward of max pooling.
#include <math.h>

#include "ops_reference/test/generated/nn_pool_backward_cases.h"
#include "ops_reference/test/generated/nn_pool_cases.h"
#include "ops_reference/test/op_nn_case_util.h"
#include "ops_reference/test/test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static const etr_error_t kBad = ETR_ERR_INVALID_ARGUMENT;
static const etr_error_t kUnsupported = ETR_ERR_NOT_SUPPORTED;

static etr_tensor_t *zeros(etr_scalar_type_t dtype, int32_t dim,
                           const int64_t *sizes) {
  return tt_tensor(dtype, dim, sizes, NULL);
}

static etr_error_t avg_pool1d(etr_tensor_t *x, etr_evalue_t *kernel,
                              etr_evalue_t *stride, etr_evalue_t *padding,
                              etr_tensor_t *out) {
  return TT_CALL("aten::avg_pool1d.out", tt_ev_tensor(x), kernel, stride,
                 padding, tt_ev_bool(false), tt_ev_bool(true),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

static etr_error_t avg_pool3d(etr_tensor_t *x, etr_evalue_t *kernel,
                              etr_evalue_t *stride, etr_evalue_t *padding,
                              etr_evalue_t *divisor, etr_tensor_t *out) {
  return TT_CALL("aten::avg_pool3d.out", tt_ev_tensor(x), kernel, stride,
                 padding, tt_ev_bool(false), tt_ev_bool(true), divisor,
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

static etr_error_t max_pool3d(etr_tensor_t *x, etr_evalue_t *kernel,
                              etr_evalue_t *stride, etr_evalue_t *padding,
                              etr_evalue_t *dilation, etr_tensor_t *out,
                              etr_tensor_t *indices) {
  etr_tensor_t *outs[2] = {out, indices};
  return TT_CALL("aten::max_pool3d_with_indices.out", tt_ev_tensor(x), kernel,
                 stride, padding, dilation, tt_ev_bool(false),
                 tt_ev_tensor(out), tt_ev_tensor(indices),
                 tt_ev_tensor_list(2, outs));
}

static etr_error_t adaptive(const char *op, etr_tensor_t *x,
                            etr_evalue_t *size, etr_tensor_t *out) {
  return TT_CALL(op, tt_ev_tensor(x), size, tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

TT_TEST(nn_pool, avg_pool1d_cases) {
  cr_expect_gt(nn_run_cases(kNnPoolCases, COUNT(kNnPoolCases),
                            "aten::avg_pool1d.out"),
               0);
}

TT_TEST(nn_pool, avg_pool3d_cases) {
  cr_expect_gt(nn_run_cases(kNnPoolCases, COUNT(kNnPoolCases),
                            "aten::avg_pool3d.out"),
               0);
}

TT_TEST(nn_pool, max_pool3d_with_indices_cases) {
  cr_expect_gt(nn_run_cases(kNnPoolCases, COUNT(kNnPoolCases),
                            "aten::max_pool3d_with_indices.out"),
               0);
}

TT_TEST(nn_pool, adaptive_avg_pool1d_cases) {
  cr_expect_gt(nn_run_cases(kNnPoolCases, COUNT(kNnPoolCases),
                            "aten::adaptive_avg_pool1d.out"),
               0);
}

TT_TEST(nn_pool, adaptive_avg_pool3d_cases) {
  cr_expect_gt(nn_run_cases(kNnPoolCases, COUNT(kNnPoolCases),
                            "aten::_adaptive_avg_pool3d.out"),
               0);
}

TT_TEST(nn_pool, adaptive_avg_pool2d_backward_cases) {
  cr_expect_gt(nn_run_cases(kNnPoolBackwardCases, COUNT(kNnPoolBackwardCases),
                            "aten::_adaptive_avg_pool2d_backward.out"),
               0);
}

TT_TEST(nn_pool, avg_pool2d_backward_cases) {
  cr_expect_gt(nn_run_cases(kNnPoolBackwardCases, COUNT(kNnPoolBackwardCases),
                            "aten::avg_pool2d_backward.grad_input"),
               0);
}

TT_TEST(nn_pool, max_pool2d_with_indices_backward_cases) {
  cr_expect_gt(
      nn_run_cases(kNnPoolBackwardCases, COUNT(kNnPoolBackwardCases),
                   "aten::max_pool2d_with_indices_backward.grad_input"),
      0);
}

TT_TEST(nn_pool, avg_pool1d_rejects) {
  etr_tensor_t *x = zeros(ETR_FLOAT, TT_SIZES(1, 2, 6));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 2, 3), 0);
  // kernel_size, stride and padding take exactly one int (stride: or none).
  tt_expect_status(avg_pool1d(x, TT_EV_INTS(2, 2), TT_EV_NO_INTS,
                              TT_EV_INTS(0), out),
                   kBad);
  tt_expect_status(avg_pool1d(x, TT_EV_INTS(2), TT_EV_INTS(2, 2),
                              TT_EV_INTS(0), out),
                   kBad);
  tt_expect_status(avg_pool1d(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_NO_INTS,
                              out),
                   kBad);
  // Rank 1 and 4, an empty channel dim of a 2-D input, an empty length.
  tt_expect_status(avg_pool1d(zeros(ETR_FLOAT, TT_SIZES(6)), TT_EV_INTS(2),
                              TT_EV_NO_INTS, TT_EV_INTS(0), out),
                   kBad);
  tt_expect_status(avg_pool1d(zeros(ETR_FLOAT, TT_SIZES(1, 1, 2, 6)),
                              TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0), out),
                   kBad);
  tt_expect_status(avg_pool1d(zeros(ETR_FLOAT, TT_SIZES(0, 6)), TT_EV_INTS(2),
                              TT_EV_NO_INTS, TT_EV_INTS(0), out),
                   kBad);
  tt_expect_status(avg_pool1d(zeros(ETR_FLOAT, TT_SIZES(1, 2, 0)),
                              TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0), out),
                   kBad);
  // Padding above half the kernel, a window longer than the input, stride 0.
  tt_expect_status(avg_pool1d(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(2),
                              out),
                   kBad);
  tt_expect_status(avg_pool1d(x, TT_EV_INTS(7), TT_EV_NO_INTS, TT_EV_INTS(0),
                              out),
                   kBad);
  tt_expect_status(avg_pool1d(x, TT_EV_INTS(2), TT_EV_INTS(0), TT_EV_INTS(0),
                              out),
                   kBad);
  // Hostile sizes overflow nothing.
  tt_expect_status(avg_pool1d(x, TT_EV_INTS(INT64_MAX), TT_EV_INTS(INT64_MAX),
                              TT_EV_INTS(INT64_MAX / 2), out),
                   kBad);
  tt_expect_status(avg_pool1d(x, TT_EV_INTS(2), TT_EV_INTS(INT64_MAX),
                              TT_EV_INTS(1), out),
                   ETR_OK);
  // Int is not supported; the out must match self and be large enough.
  etr_tensor_t *xi = zeros(ETR_INT, TT_SIZES(1, 2, 6));
  tt_expect_status(avg_pool1d(xi, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              tt_out(ETR_INT, TT_SIZES(1, 2, 3), 0)),
                   kUnsupported);
  tt_expect_status(avg_pool1d(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              tt_out(ETR_DOUBLE, TT_SIZES(1, 2, 3), 0)),
                   kBad);
  tt_expect_status(avg_pool1d(x, TT_EV_INTS(1), TT_EV_NO_INTS, TT_EV_INTS(0),
                              tt_out(ETR_FLOAT, TT_SIZES(1, 2, 3), 0)),
                   kBad);
  // Argument count and tags.
  tt_expect_status(TT_CALL("aten::avg_pool1d.out", tt_ev_tensor(x),
                           TT_EV_INTS(2), tt_ev_tensor(out)),
                   ETR_ERR_INVALID_PROGRAM);
  tt_expect_status(TT_CALL("aten::avg_pool1d.out", tt_ev_int(1), TT_EV_INTS(2),
                           TT_EV_NO_INTS, TT_EV_INTS(0), tt_ev_bool(false),
                           tt_ev_bool(true), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_TYPE);
}

TT_TEST(nn_pool, avg_pool3d_rejects) {
  etr_tensor_t *x = zeros(ETR_FLOAT, TT_SIZES(1, 1, 4, 4, 4));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 1, 2, 2, 2), 0);
  tt_expect_status(avg_pool3d(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              tt_ev_int(0), out),
                   kBad);
  tt_expect_status(avg_pool3d(x, TT_EV_INTS(2, 2), TT_EV_NO_INTS,
                              TT_EV_INTS(0), tt_ev_none(), out),
                   kBad);
  tt_expect_status(avg_pool3d(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_NO_INTS,
                              tt_ev_none(), out),
                   kBad);
  tt_expect_status(avg_pool3d(zeros(ETR_FLOAT, TT_SIZES(1, 0, 4, 4, 4)),
                              TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              tt_ev_none(), out),
                   kBad);
  tt_expect_status(avg_pool3d(zeros(ETR_FLOAT, TT_SIZES(0, 4, 4, 4)),
                              TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              tt_ev_none(), out),
                   kBad);
  tt_expect_status(avg_pool3d(zeros(ETR_FLOAT, TT_SIZES(4, 4, 4)),
                              TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              tt_ev_none(), out),
                   kBad);
  // PyTorch's CPU avg_pool3d has no Half or BFloat16 kernel.
  tt_expect_status(avg_pool3d(zeros(ETR_HALF, TT_SIZES(1, 1, 4, 4, 4)),
                              TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              tt_ev_none(),
                              tt_out(ETR_HALF, TT_SIZES(1, 1, 2, 2, 2), 0)),
                   kUnsupported);
  tt_expect_status(avg_pool3d(zeros(ETR_CHAR, TT_SIZES(1, 1, 4, 4, 4)),
                              TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              tt_ev_none(),
                              tt_out(ETR_CHAR, TT_SIZES(1, 1, 2, 2, 2), 0)),
                   kUnsupported);
}

TT_TEST(nn_pool, avg_pool3d_long_divisor_minus_one) {
  // INT64_MIN / -1 wraps instead of trapping.
  etr_tensor_t *x = tt_tensor_i64(ETR_LONG, TT_SIZES(1, 1, 1, 1, 1),
                                  (const int64_t[]){INT64_MIN});
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(1, 1, 1, 1, 1), 0);
  tt_expect_status(avg_pool3d(x, TT_EV_INTS(1), TT_EV_NO_INTS, TT_EV_INTS(0),
                              tt_ev_int(-1), out),
                   ETR_OK);
  cr_expect_eq(tt_get_i64(out, 0), INT64_MIN);
}

TT_TEST(nn_pool, max_pool3d_rejects) {
  etr_tensor_t *x = zeros(ETR_FLOAT, TT_SIZES(1, 1, 4, 4, 4));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 1, 2, 2, 2), 0);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1, 1, 2, 2, 2), 0);
  tt_expect_status(max_pool3d(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              TT_EV_INTS(0), out, indices),
                   kBad);
  tt_expect_status(max_pool3d(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              TT_EV_NO_INTS, out, indices),
                   kBad);
  tt_expect_status(max_pool3d(x, TT_EV_INTS(3), TT_EV_NO_INTS, TT_EV_INTS(2),
                              TT_EV_INTS(2), out, indices),
                   kBad);
  tt_expect_status(max_pool3d(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              TT_EV_INTS(1), out,
                              tt_out(ETR_INT, TT_SIZES(1, 1, 2, 2, 2), 0)),
                   kBad);
  tt_expect_status(max_pool3d(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              TT_EV_INTS(1),
                              tt_out(ETR_HALF, TT_SIZES(1, 1, 2, 2, 2), 0),
                              indices),
                   kBad);
  tt_expect_status(max_pool3d(zeros(ETR_BOOL, TT_SIZES(1, 1, 4, 4, 4)),
                              TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              TT_EV_INTS(1),
                              tt_out(ETR_BOOL, TT_SIZES(1, 1, 2, 2, 2), 0),
                              indices),
                   kUnsupported);
  tt_expect_status(max_pool3d(zeros(ETR_UINT16, TT_SIZES(1, 1, 4, 4, 4)),
                              TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                              TT_EV_INTS(1),
                              tt_out(ETR_UINT16, TT_SIZES(1, 1, 2, 2, 2), 0),
                              indices),
                   kUnsupported);
  tt_expect_status(max_pool3d(x, TT_EV_INTS(INT64_MAX), TT_EV_INTS(1),
                              TT_EV_INTS(INT64_MAX / 2), TT_EV_INTS(INT64_MAX),
                              out, indices),
                   kBad);
}

TT_TEST(nn_pool, adaptive_rejects) {
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(8), 0);
  const char *op1 = "aten::adaptive_avg_pool1d.out";
  const char *op3 = "aten::_adaptive_avg_pool3d.out";
  etr_tensor_t *x1 = zeros(ETR_FLOAT, TT_SIZES(1, 2, 5));
  tt_expect_status(adaptive(op1, x1, TT_EV_INTS(2, 2), out), kBad);
  tt_expect_status(adaptive(op1, x1, TT_EV_INTS(-1), out), kBad);
  tt_expect_status(adaptive(op1, zeros(ETR_FLOAT, TT_SIZES(1, 2, 0)),
                            TT_EV_INTS(2), out),
                   kBad);
  tt_expect_status(adaptive(op1, zeros(ETR_FLOAT, TT_SIZES(1, 1, 2, 5)),
                            TT_EV_INTS(2), out),
                   kBad);
  tt_expect_status(adaptive(op1, zeros(ETR_LONG, TT_SIZES(1, 2, 5)),
                            TT_EV_INTS(2), tt_out(ETR_LONG, TT_SIZES(8), 0)),
                   kUnsupported);
  etr_tensor_t *x3 = zeros(ETR_FLOAT, TT_SIZES(1, 1, 2, 3, 4));
  tt_expect_status(adaptive(op3, x3, TT_EV_INTS(2, 2), out), kBad);
  tt_expect_status(adaptive(op3, x3, TT_EV_INTS(2), out), kBad);
  tt_expect_status(adaptive(op3, x3, TT_EV_INTS(2, -1, 2), out), kBad);
  tt_expect_status(adaptive(op3, zeros(ETR_FLOAT, TT_SIZES(1, 0, 2, 3, 4)),
                            TT_EV_INTS(1, 1, 1), out),
                   kBad);
  tt_expect_status(adaptive(op3, zeros(ETR_FLOAT, TT_SIZES(2, 3, 4)),
                            TT_EV_INTS(1, 1, 1), out),
                   kBad);
  tt_expect_status(adaptive(op3, x3, TT_EV_INTS(3, 3, 3), out), kBad);
  tt_expect_status(adaptive(op3, x3, TT_EV_INTS(1, 1, 1),
                            tt_out(ETR_DOUBLE, TT_SIZES(8), 0)),
                   kBad);
}

// Found while fixing _adaptive_avg_pool2d: adaptive_avg_pool1d is ATen's
// 2-D kernel over a [.., 1, L] view, which dispatches on the dtype only
// when the out has elements: PyTorch 2.13 accepts an Int or complex input
// with C = 0 or output_size 0, and refuses an Int input with elements
// (NotSupported) before an out of the wrong dtype.
TT_TEST(nn_pool, adaptive_avg_pool1d_empty_out_any_dtype) {
  const char *op1 = "aten::adaptive_avg_pool1d.out";
  etr_tensor_t *out = tt_out(ETR_INT, TT_SIZES(8), 0);
  tt_expect_status(adaptive(op1, zeros(ETR_INT, TT_SIZES(1, 0, 4)),
                            TT_EV_INTS(2), out),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(1, 0, 2));
  tt_expect_status(adaptive(op1, zeros(ETR_INT, TT_SIZES(1, 3, 4)),
                            TT_EV_INTS(0), out),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(1, 3, 0));
  etr_tensor_t *complex_out = tt_out(ETR_COMPLEX_FLOAT, TT_SIZES(8), 0);
  tt_expect_status(adaptive(op1, zeros(ETR_COMPLEX_FLOAT, TT_SIZES(1, 0, 4)),
                            TT_EV_INTS(2), complex_out),
                   ETR_OK);
  tt_expect_status(adaptive(op1, zeros(ETR_INT, TT_SIZES(1, 3, 4)),
                            TT_EV_INTS(2), tt_out(ETR_DOUBLE, TT_SIZES(8), 0)),
                   kUnsupported);
  tt_expect_status(adaptive(op1, zeros(ETR_FLOAT, TT_SIZES(1, 0, 4)),
                            TT_EV_INTS(2), tt_out(ETR_DOUBLE, TT_SIZES(8), 0)),
                   kBad);
  tt_expect_status(adaptive(op1, zeros(ETR_INT, TT_SIZES(4)), TT_EV_INTS(2),
                            out),
                   kBad);
}

TT_TEST(nn_pool, adaptive_avg_pool2d_backward_rejects) {
  const char *op = "aten::_adaptive_avg_pool2d_backward.out";
  etr_tensor_t *self = zeros(ETR_FLOAT, TT_SIZES(1, 2, 4, 4));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 2, 4, 4), 0);
  etr_tensor_t *grads[] = {
      zeros(ETR_FLOAT, TT_SIZES(2, 2)),         // rank
      zeros(ETR_FLOAT, TT_SIZES(1, 3, 2, 2)),   // channels (PyTorch crashes)
      zeros(ETR_FLOAT, TT_SIZES(2, 2, 2, 2)),   // batch
      zeros(ETR_FLOAT, TT_SIZES(1, 2, 0, 2)),   // empty output grid
  };
  for (size_t i = 0; i < COUNT(grads); ++i) {
    tt_expect_status(TT_CALL(op, tt_ev_tensor(grads[i]), tt_ev_tensor(self),
                             tt_ev_tensor(out), tt_ev_tensor(out)),
                     kBad);
  }
  etr_tensor_t *grad = zeros(ETR_FLOAT, TT_SIZES(1, 2, 2, 2));
  // An empty input plane (PyTorch crashes).
  tt_expect_status(TT_CALL(op, tt_ev_tensor(grad),
                           tt_ev_tensor(zeros(ETR_FLOAT, TT_SIZES(1, 2, 0, 4))),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   kBad);
  tt_expect_status(TT_CALL(op, tt_ev_tensor(tt_cast(grad, ETR_DOUBLE)),
                           tt_ev_tensor(self), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   kBad);
  etr_tensor_t *out_small = tt_out(ETR_FLOAT, TT_SIZES(1, 2, 4, 3), 0);
  tt_expect_status(TT_CALL(op, tt_ev_tensor(grad), tt_ev_tensor(self),
                           tt_ev_tensor(out_small), tt_ev_tensor(out_small)),
                   kBad);
  tt_expect_status(TT_CALL(op, tt_ev_tensor(tt_cast(grad, ETR_LONG)),
                           tt_ev_tensor(tt_cast(self, ETR_LONG)),
                           tt_ev_tensor(tt_out(ETR_LONG, TT_SIZES(32), 0)),
                           tt_ev_tensor(out)),
                   kUnsupported);
}

static etr_error_t avg_pool2d_backward(etr_tensor_t *grad, etr_tensor_t *self,
                                       etr_evalue_t *divisor,
                                       etr_tensor_t *out) {
  return TT_CALL("aten::avg_pool2d_backward.grad_input", tt_ev_tensor(grad),
                 tt_ev_tensor(self), TT_EV_INTS(2, 2), TT_EV_INTS(2, 2),
                 TT_EV_INTS(0, 0), tt_ev_bool(false), tt_ev_bool(true),
                 divisor, tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(nn_pool, avg_pool2d_backward_rejects) {
  etr_tensor_t *self = zeros(ETR_FLOAT, TT_SIZES(1, 2, 4, 4));
  etr_tensor_t *grad = zeros(ETR_FLOAT, TT_SIZES(1, 2, 2, 2));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(32), 0);
  tt_expect_status(avg_pool2d_backward(grad, self, tt_ev_none(), out), ETR_OK);
  tt_expect_status(avg_pool2d_backward(grad, self, tt_ev_int(0), out), kBad);
  tt_expect_status(avg_pool2d_backward(zeros(ETR_FLOAT, TT_SIZES(1, 2, 3, 2)),
                                       self, tt_ev_none(), out),
                   kBad);
  tt_expect_status(avg_pool2d_backward(zeros(ETR_FLOAT, TT_SIZES(2, 2, 2)),
                                       self, tt_ev_none(), out),
                   kBad);
  tt_expect_status(avg_pool2d_backward(tt_cast(grad, ETR_DOUBLE), self,
                                       tt_ev_none(), out),
                   kBad);
  tt_expect_status(avg_pool2d_backward(grad, self, tt_ev_none(),
                                       tt_out(ETR_DOUBLE, TT_SIZES(32), 0)),
                   kBad);
  tt_expect_status(avg_pool2d_backward(tt_cast(grad, ETR_INT),
                                       tt_cast(self, ETR_INT), tt_ev_none(),
                                       tt_out(ETR_INT, TT_SIZES(32), 0)),
                   kUnsupported);
}

// avg_pool2d_backward with a kernel of 2^40 (padded counts of 2^80).
static etr_error_t avg_pool2d_backward_huge(void) {
  int64_t big = (int64_t)1 << 40;
  etr_tensor_t *self = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 1, 1), NULL);
  etr_tensor_t *grad = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 1, 1),
                                 TT_VALUES(1));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  return TT_CALL("aten::avg_pool2d_backward.grad_input", tt_ev_tensor(grad),
                 tt_ev_tensor(self), TT_EV_INTS(big), TT_EV_INTS(big),
                 TT_EV_INTS(big / 2), tt_ev_bool(false), tt_ev_bool(true),
                 tt_ev_none(), tt_ev_tensor(out), tt_ev_tensor(out));
}

static etr_error_t max_pool2d_backward(etr_tensor_t *grad, etr_tensor_t *self,
                                       etr_tensor_t *indices,
                                       etr_tensor_t *out) {
  return TT_CALL("aten::max_pool2d_with_indices_backward.grad_input",
                 tt_ev_tensor(grad), tt_ev_tensor(self), TT_EV_INTS(2),
                 TT_EV_INTS(2), TT_EV_INTS(0), TT_EV_INTS(1),
                 tt_ev_bool(false), tt_ev_tensor(indices), tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

TT_TEST(nn_pool, max_pool2d_with_indices_backward_rejects) {
  etr_tensor_t *self = zeros(ETR_FLOAT, TT_SIZES(1, 1, 4, 4));
  etr_tensor_t *grad = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 2, 2),
                                 TT_VALUES(1, 2, 3, 4));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(16), 0);
  // Index 16 is past the plane, -2 before it (PyTorch writes out of
  // bounds or crashes); -1 is skipped.
  tt_expect_status(
      max_pool2d_backward(grad, self,
                          tt_tensor(ETR_LONG, TT_SIZES(1, 1, 2, 2),
                                    TT_VALUES(5, 7, 13, 16)),
                          out),
      kBad);
  tt_expect_status(
      max_pool2d_backward(grad, self,
                          tt_tensor(ETR_LONG, TT_SIZES(1, 1, 2, 2),
                                    TT_VALUES(5, 7, 13, -2)),
                          out),
      kBad);
  tt_expect_status(
      max_pool2d_backward(grad, self,
                          tt_tensor(ETR_LONG, TT_SIZES(1, 1, 2, 2),
                                    TT_VALUES(-1, -1, 0, 0)),
                          out),
      ETR_OK);
  tt_expect_values(out, TT_VALUES(7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0),
                   16);
  etr_tensor_t *indices = tt_tensor(ETR_LONG, TT_SIZES(1, 1, 2, 2), NULL);
  tt_expect_status(max_pool2d_backward(grad, self, tt_cast(indices, ETR_INT),
                                       out),
                   kBad);
  tt_expect_status(max_pool2d_backward(grad, self,
                                       zeros(ETR_LONG, TT_SIZES(1, 1, 2, 3)),
                                       out),
                   kBad);
  tt_expect_status(max_pool2d_backward(zeros(ETR_FLOAT, TT_SIZES(1, 1, 3, 2)),
                                       self, indices, out),
                   kBad);
  tt_expect_status(max_pool2d_backward(tt_cast(grad, ETR_HALF), self, indices,
                                       out),
                   kBad);
  tt_expect_status(max_pool2d_backward(tt_cast(grad, ETR_LONG),
                                       tt_cast(self, ETR_LONG), indices,
                                       tt_out(ETR_LONG, TT_SIZES(16), 0)),
                   kUnsupported);
}

TT_TEST(nn_pool, hostile_windows_overflow_nothing) {
  // Kernels of 2^40 with padding 2^39 pass the shape checks (one output
  // per dim); their padded counts (2^120 in all) must not overflow.
  int64_t big = (int64_t)1 << 40;
  etr_tensor_t *x = tt_tensor(ETR_DOUBLE, TT_SIZES(1, 1, 1, 1, 1),
                              TT_VALUES(3));
  etr_tensor_t *out = tt_out(ETR_DOUBLE, TT_SIZES(1), 0);
  tt_expect_status(avg_pool3d(x, TT_EV_INTS(big), TT_EV_INTS(big),
                              TT_EV_INTS(big / 2), tt_ev_none(), out),
                   ETR_OK);
  cr_expect(tt_get(out, 0) >= 0.0 && tt_get(out, 0) < 1e-10);
  etr_tensor_t *xl = tt_tensor(ETR_LONG, TT_SIZES(1, 1, 1, 1, 1),
                               TT_VALUES(3));
  etr_tensor_t *outl = tt_out(ETR_LONG, TT_SIZES(1), 0);
  tt_expect_status(avg_pool3d(xl, TT_EV_INTS(big), TT_EV_INTS(big),
                              TT_EV_INTS(big / 2), tt_ev_none(), outl),
                   ETR_OK);
  cr_expect_eq(tt_get_i64(outl, 0), 0);
  // A dilation near INT64_MAX with a stride as large (ceil_mode keeps one
  // window): the window misses the input and its index wraps like ATen's.
  etr_tensor_t *x2 = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 2, 2, 2), NULL);
  etr_tensor_t *out2 = tt_out(ETR_FLOAT, TT_SIZES(8), 0);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(8), 0);
  etr_tensor_t *outs[2] = {out2, indices};
  tt_expect_status(
      TT_CALL("aten::max_pool3d_with_indices.out", tt_ev_tensor(x2),
              TT_EV_INTS(2), TT_EV_INTS(INT64_MAX), TT_EV_INTS(1),
              TT_EV_INTS(INT64_MAX - 1), tt_ev_bool(true), tt_ev_tensor(out2),
              tt_ev_tensor(indices), tt_ev_tensor_list(2, outs)),
      ETR_OK);
  tt_expect_shape(out2, TT_SIZES(1, 1, 1, 1, 1));
  cr_expect(isinf(tt_get(out2, 0)) && tt_get(out2, 0) < 0);
  tt_expect_status(avg_pool2d_backward_huge(), ETR_OK);
}
