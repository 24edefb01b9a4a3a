// SPDX-License-Identifier: Apache-2.0
//
// The nn family's gradient and folding kernels:
// aten::convolution_backward.out (1-D/2-D/3-D, plain and transposed,
// groups, every output_mask), embedding_dense_backward.out (padding_idx,
// scale_grad_by_freq, every accepted dtype, out-of-range indices) and
// col2im.out. PyTorch-generated cases (gen_nn_cases.py) in contiguous,
// non-contiguous and channels-last layouts, then the exact error codes of
// rejected calls.
#include <math.h>

#include "ops_reference/test/generated/nn_grad_cases.h"
#include "ops_reference/test/op_nn_case_util.h"
#include "ops_reference/test/test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

TT_TEST(nn_grad, convolution_backward_out_cases) {
  cr_expect_gt(nn_run_cases(kNnGradCases, COUNT(kNnGradCases),
                            "aten::convolution_backward.out"),
               0);
}

TT_TEST(nn_grad, embedding_dense_backward_out_cases) {
  cr_expect_gt(nn_run_cases(kNnGradCases, COUNT(kNnGradCases),
                            "aten::embedding_dense_backward.out"),
               0);
}

TT_TEST(nn_grad, col2im_out_cases) {
  cr_expect_gt(nn_run_cases(kNnGradCases, COUNT(kNnGradCases),
                            "aten::col2im.out"),
               0);
}


static const etr_error_t kBad = ETR_ERR_INVALID_ARGUMENT;

typedef struct conv_call {
  etr_tensor_t *grad;
  etr_tensor_t *input;
  etr_tensor_t *weight;
  etr_evalue_t *stride;
  etr_evalue_t *padding;
  etr_evalue_t *dilation;
  bool transposed;
  etr_evalue_t *output_padding;
  int64_t groups;
  bool mask[3];
  etr_evalue_t *outs[3];
} conv_call_t;

static conv_call_t conv_defaults(etr_scalar_type_t dtype) {
  conv_call_t c;
  c.grad = tt_tensor(dtype, TT_SIZES(1, 3, 3, 3), NULL);
  c.input = tt_tensor(dtype, TT_SIZES(1, 2, 5, 5), NULL);
  c.weight = tt_tensor(dtype, TT_SIZES(3, 2, 3, 3), NULL);
  c.stride = TT_EV_INTS(1);
  c.padding = TT_EV_INTS(0);
  c.dilation = TT_EV_INTS(1);
  c.transposed = false;
  c.output_padding = TT_EV_INTS(0);
  c.groups = 1;
  for (int i = 0; i < 3; ++i) {
    c.mask[i] = true;
  }
  c.outs[0] = tt_ev_tensor(tt_out(dtype, TT_SIZES(50), 0));
  c.outs[1] = tt_ev_tensor(tt_out(dtype, TT_SIZES(54), 0));
  c.outs[2] = tt_ev_tensor(tt_out(dtype, TT_SIZES(3), 0));
  return c;
}

static etr_error_t conv_backward(const conv_call_t *c) {
  etr_tensor_t *list[3];
  for (int i = 0; i < 3; ++i) {
    list[i] =
        c->outs[i]->tag == ETR_TAG_TENSOR ? c->outs[i]->u.as_tensor : NULL;
  }
  return TT_CALL("aten::convolution_backward.out", tt_ev_tensor(c->grad),
                 tt_ev_tensor(c->input), tt_ev_tensor(c->weight),
                 TT_EV_INTS(3), c->stride, c->padding, c->dilation,
                 tt_ev_bool(c->transposed), c->output_padding,
                 tt_ev_int(c->groups), tt_ev_bool_list(3, c->mask), c->outs[0],
                 c->outs[1], c->outs[2],
                 tt_ev_optional_tensor_list(3, list));
}

TT_TEST(nn_grad, convolution_backward_rejects) {
  conv_call_t c = conv_defaults(ETR_FLOAT);
  tt_expect_status(conv_backward(&c), ETR_OK);
  // Masked-out outs may be None (or anything that is not read).
  c.mask[1] = false;
  c.mask[2] = false;
  c.outs[1] = tt_ev_none();
  c.outs[2] = tt_ev_tensor(tt_tensor(ETR_INT, TT_SIZES(1), NULL));
  tt_expect_status(conv_backward(&c), ETR_OK);
  cr_expect_eq(c.outs[2]->u.as_tensor->sizes[0], 1);
  // grad_output of another shape; an unbatched input; mismatched ranks.
  c = conv_defaults(ETR_FLOAT);
  c.grad = tt_tensor(ETR_FLOAT, TT_SIZES(1, 3, 4, 4), NULL);
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.input = tt_tensor(ETR_FLOAT, TT_SIZES(2, 5, 5), NULL);
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.weight = tt_tensor(ETR_FLOAT, TT_SIZES(3, 2, 3), NULL);
  tt_expect_status(conv_backward(&c), kBad);
  // Parameter lists: three values for 2-D, output_padding empty or non-zero
  // for a plain convolution, negative padding, zero stride or dilation.
  c = conv_defaults(ETR_FLOAT);
  c.stride = TT_EV_INTS(1, 1, 1);
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.output_padding = TT_EV_NO_INTS;
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.output_padding = TT_EV_INTS(1, 1);
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.padding = TT_EV_INTS(-1, 0);
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.dilation = TT_EV_INTS(0);
  tt_expect_status(conv_backward(&c), kBad);
  // Channels and groups; an empty weight; a kernel larger than the input.
  c = conv_defaults(ETR_FLOAT);
  c.groups = 2;
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.groups = 0;
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.weight = tt_tensor(ETR_FLOAT, TT_SIZES(0, 2, 3, 3), NULL);
  c.grad = tt_tensor(ETR_FLOAT, TT_SIZES(1, 0, 3, 3), NULL);
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.weight = tt_tensor(ETR_FLOAT, TT_SIZES(3, 2, 6, 6), NULL);
  tt_expect_status(conv_backward(&c), kBad);
  // Transposed: output_padding below stride or dilation.
  c = conv_defaults(ETR_FLOAT);
  c.transposed = true;
  c.weight = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3, 3, 3), NULL);
  c.grad = tt_tensor(ETR_FLOAT, TT_SIZES(1, 3, 8, 8), NULL);
  c.output_padding = TT_EV_INTS(1);
  tt_expect_status(conv_backward(&c), kBad);
  c.stride = TT_EV_INTS(2);
  c.grad = tt_tensor(ETR_FLOAT, TT_SIZES(1, 3, 12, 12), NULL);
  c.outs[1] = tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(54), 0));
  tt_expect_status(conv_backward(&c), ETR_OK);
  // Hostile parameters overflow nothing.
  c = conv_defaults(ETR_FLOAT);
  c.dilation = TT_EV_INTS(INT64_MAX);
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.padding = TT_EV_INTS(INT64_MAX);
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.groups = INT64_MAX;
  tt_expect_status(conv_backward(&c), kBad);
  // Dtypes: one floating dtype throughout; integers are unsupported.
  c = conv_defaults(ETR_FLOAT);
  c.grad = tt_cast(c.grad, ETR_DOUBLE);
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_FLOAT);
  c.outs[2] = tt_ev_tensor(tt_out(ETR_HALF, TT_SIZES(3), 0));
  tt_expect_status(conv_backward(&c), kBad);
  c = conv_defaults(ETR_LONG);
  tt_expect_status(conv_backward(&c), ETR_ERR_NOT_SUPPORTED);
  // Outs too small.
  c = conv_defaults(ETR_FLOAT);
  c.outs[1] = tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(53), 0));
  tt_expect_status(conv_backward(&c), kBad);
}

static etr_error_t embedding_backward(etr_tensor_t *grad, etr_tensor_t *indices,
                                      int64_t num_weights, bool freq,
                                      etr_tensor_t *out) {
  return TT_CALL("aten::embedding_dense_backward.out", tt_ev_tensor(grad),
                 tt_ev_tensor(indices), tt_ev_int(num_weights), tt_ev_int(-1),
                 tt_ev_bool(freq), tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(nn_grad, embedding_dense_backward_rejects) {
  etr_tensor_t *grad = tt_tensor(ETR_FLOAT, TT_SIZES(3, 2), NULL);
  etr_tensor_t *indices = tt_tensor(ETR_LONG, TT_SIZES(3), TT_VALUES(0, 1, 2));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(8), 0);
  tt_expect_status(embedding_backward(grad, indices, 4, false, out), ETR_OK);
  tt_expect_status(embedding_backward(grad, tt_cast(indices, ETR_SHORT), 4,
                                      false, out),
                   kBad);
  tt_expect_status(embedding_backward(grad, tt_cast(indices, ETR_FLOAT), 4,
                                      false, out),
                   kBad);
  tt_expect_status(embedding_backward(grad, indices, -1, false, out), kBad);
  tt_expect_status(embedding_backward(tt_scalar_tensor(ETR_FLOAT, 1), indices,
                                      4, false, out),
                   kBad);
  // grad_output must hold numel(indices) rows of its last size.
  tt_expect_status(embedding_backward(tt_tensor(ETR_FLOAT, TT_SIZES(6), NULL),
                                      indices, 4, false, out),
                   kBad);
  tt_expect_status(embedding_backward(grad, indices, 4, false,
                                      tt_out(ETR_DOUBLE, TT_SIZES(8), 0)),
                   kBad);
  tt_expect_status(embedding_backward(grad, indices, 5, false, out), kBad);
  tt_expect_status(embedding_backward(tt_cast(grad, ETR_UINT32), indices, 4,
                                      false,
                                      tt_out(ETR_UINT32, TT_SIZES(8), 0)),
                   ETR_ERR_NOT_SUPPORTED);
  // A huge num_weights of empty rows computes nothing.
  etr_tensor_t *empty_grad = tt_tensor(ETR_FLOAT, TT_SIZES(3, 0), NULL);
  tt_expect_status(embedding_backward(empty_grad, indices, (int64_t)1 << 40,
                                      true, out),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES((int64_t)1 << 40, 0));
}

static etr_error_t col2im(etr_tensor_t *x, etr_evalue_t *size,
                          etr_evalue_t *kernel, etr_evalue_t *dilation,
                          etr_evalue_t *padding, etr_evalue_t *stride,
                          etr_tensor_t *out) {
  return TT_CALL("aten::col2im.out", tt_ev_tensor(x), size, kernel, dilation,
                 padding, stride, tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(nn_grad, col2im_rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 8, 6), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(24), 0);
  etr_evalue_t *one = TT_EV_INTS(1, 1);
  etr_evalue_t *zero = TT_EV_INTS(0, 0);
  tt_expect_status(col2im(x, TT_EV_INTS(3, 4), TT_EV_INTS(2, 2), one, zero, one,
                          out),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(1, 2, 3, 4));
  // Block count (L) mismatch, channels not divisible by the kernel area.
  tt_expect_status(col2im(x, TT_EV_INTS(3, 5), TT_EV_INTS(2, 2), one, zero, one,
                          out),
                   kBad);
  tt_expect_status(col2im(tt_tensor(ETR_FLOAT, TT_SIZES(1, 7, 6), NULL),
                          TT_EV_INTS(3, 4), TT_EV_INTS(2, 2), one, zero, one,
                          out),
                   kBad);
  // Lists of one value; zero or negative parameters; an empty grid.
  tt_expect_status(col2im(x, TT_EV_INTS(3, 4), TT_EV_INTS(2), one, zero, one,
                          out),
                   kBad);
  tt_expect_status(col2im(x, TT_EV_INTS(3, 4), TT_EV_INTS(0, 2), one, zero, one,
                          out),
                   kBad);
  tt_expect_status(col2im(x, TT_EV_INTS(3, 4), TT_EV_INTS(2, 2), zero, zero,
                          one, out),
                   kBad);
  tt_expect_status(col2im(x, TT_EV_INTS(3, 4), TT_EV_INTS(2, 2), one,
                          TT_EV_INTS(-1, 0), one, out),
                   kBad);
  tt_expect_status(col2im(x, TT_EV_INTS(3, 4), TT_EV_INTS(2, 2), one, zero,
                          zero, out),
                   kBad);
  tt_expect_status(col2im(x, TT_EV_INTS(0, 4), TT_EV_INTS(2, 2), one,
                          TT_EV_INTS(1, 0), one, out),
                   kBad);
  tt_expect_status(col2im(x, TT_EV_INTS(1, 1), TT_EV_INTS(2, 2), one, zero, one,
                          out),
                   kBad);
  tt_expect_status(col2im(x, TT_EV_INTS(3, 4), TT_EV_INTS(2, 2),
                          TT_EV_INTS(INT64_MAX, 1), TT_EV_INTS(INT64_MAX, 0),
                          one, out),
                   kBad);
  // Ranks: empty non-batch dims, 4-D.
  tt_expect_status(col2im(tt_tensor(ETR_FLOAT, TT_SIZES(1, 8, 0), NULL),
                          TT_EV_INTS(3, 4), TT_EV_INTS(2, 2), one, zero, one,
                          out),
                   kBad);
  tt_expect_status(col2im(tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 8, 6), NULL),
                          TT_EV_INTS(3, 4), TT_EV_INTS(2, 2), one, zero, one,
                          out),
                   kBad);
  // Integers are not supported; the out keeps self's dtype.
  tt_expect_status(col2im(tt_cast(x, ETR_LONG), TT_EV_INTS(3, 4),
                          TT_EV_INTS(2, 2), one, zero, one,
                          tt_out(ETR_LONG, TT_SIZES(24), 0)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(col2im(x, TT_EV_INTS(3, 4), TT_EV_INTS(2, 2), one, zero, one,
                          tt_out(ETR_BOOL, TT_SIZES(24), 0)),
                   kBad);
}
