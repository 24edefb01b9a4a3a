// SPDX-License-Identifier: Apache-2.0
//
// Kernels receive their arguments from untrusted programs (the verifier
// dry-runs them before a program runs), so absurd values must give a clean
// InvalidArgument, never undefined behaviour: int64 extremes as strides,
// paddings, kernel sizes, dilations, groups, dims, indices, slice bounds,
// split sizes and shapes. Run under --config=asan, UBSan turns any
// overflow into a test crash.
#include <stdint.h>

#include "ops_reference/test/kernel_table.h"
#include "ops_reference/test/test_util.h"

#define BIG INT64_MAX
#define SMALL INT64_MIN

static etr_error_t conv(etr_evalue_t *stride, etr_evalue_t *padding,
                        etr_evalue_t *dilation, bool transposed,
                        etr_evalue_t *output_padding, int64_t groups) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 4, 4), NULL);
  etr_tensor_t *w = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2, 3, 3), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 2, 2, 2), 0);
  return TT_CALL("aten::convolution.out", tt_ev_tensor(x), tt_ev_tensor(w),
                 tt_ev_none(), stride, padding, dilation,
                 tt_ev_bool(transposed), output_padding, tt_ev_int(groups),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(hostile, convolution_parameters) {
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  tt_expect_status(conv(TT_EV_INTS(BIG), TT_EV_INTS(0), TT_EV_INTS(1), false,
                        TT_EV_INTS(0), 1),
                   ETR_OK);  // a stride past the input: one output position
  tt_expect_status(conv(TT_EV_INTS(1), TT_EV_INTS(BIG), TT_EV_INTS(1), false,
                        TT_EV_INTS(0), 1),
                   bad);
  tt_expect_status(conv(TT_EV_INTS(1), TT_EV_INTS(0), TT_EV_INTS(BIG), false,
                        TT_EV_INTS(0), 1),
                   bad);
  tt_expect_status(conv(TT_EV_INTS(BIG), TT_EV_INTS(0), TT_EV_INTS(1), true,
                        TT_EV_INTS(0), 1),
                   bad);
  tt_expect_status(conv(TT_EV_INTS(2), TT_EV_INTS(0), TT_EV_INTS(BIG), true,
                        TT_EV_INTS(1), 1),
                   bad);
  tt_expect_status(conv(TT_EV_INTS(1), TT_EV_INTS(SMALL), TT_EV_INTS(1),
                        false, TT_EV_INTS(0), 1),
                   bad);
  tt_expect_status(conv(TT_EV_INTS(1), TT_EV_INTS(0), TT_EV_INTS(1), false,
                        TT_EV_INTS(0), BIG),
                   bad);
  tt_expect_status(conv(TT_EV_INTS(1), TT_EV_INTS(0), TT_EV_INTS(1), false,
                        TT_EV_INTS(0), SMALL),
                   bad);
}

TT_TEST(hostile, pooling_parameters) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 4, 4), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 1, 2, 2), 0);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1, 1, 2, 2), 0);
  etr_tensor_t *outs[2] = {out, indices};
  int64_t values[] = {BIG, SMALL, BIG / 2, 0};
  for (size_t i = 0; i < 4; ++i) {
    for (size_t j = 0; j < 4; ++j) {
      etr_evalue_t *kernel = tt_ev_int_list(1, &values[i]);
      etr_evalue_t *padding = tt_ev_int_list(1, &values[j]);
      etr_error_t max_status = TT_CALL(
          "aten::max_pool2d_with_indices.out", tt_ev_tensor(x), kernel,
          TT_EV_INTS(1), padding, tt_ev_int_list(1, &values[i]),
          tt_ev_bool(true), tt_ev_tensor(out), tt_ev_tensor(indices),
          tt_ev_tensor_list(2, outs));
      cr_expect_eq(max_status, ETR_ERR_INVALID_ARGUMENT, "%zu %zu", i, j);
      etr_error_t avg_status = TT_CALL(
          "aten::avg_pool2d.out", tt_ev_tensor(x), kernel,
          tt_ev_int_list(1, &values[j]), padding, tt_ev_bool(true),
          tt_ev_bool(false), tt_ev_int(SMALL), tt_ev_tensor(out),
          tt_ev_tensor(out));
      cr_expect_eq(avg_status, ETR_ERR_INVALID_ARGUMENT, "%zu %zu", i, j);
    }
  }
  tt_expect_status(TT_CALL("aten::_adaptive_avg_pool2d.out", tt_ev_tensor(x),
                           TT_EV_INTS(BIG, BIG), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(hostile, dims_indices_and_shapes) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  tt_expect_status(TT_CALL("aten::select_copy.int_out", tt_ev_tensor(x),
                           tt_ev_int(SMALL), tt_ev_int(0), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::select_copy.int_out", tt_ev_tensor(x),
                           tt_ev_int(0), tt_ev_int(SMALL), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::unsqueeze_copy.out", tt_ev_tensor(x),
                           tt_ev_int(BIG), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  // Slices with extreme bounds and steps are fine (clamped), not errors.
  tt_expect_status(TT_CALL("aten::slice_copy.Tensor_out", tt_ev_tensor(x),
                           tt_ev_int(1), tt_ev_int(SMALL), tt_ev_int(BIG),
                           tt_ev_int(BIG), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 1));
  tt_expect_status(TT_CALL("aten::slice_scatter.out", tt_ev_tensor(x),
                           tt_ev_tensor(tt_tensor(ETR_FLOAT, TT_SIZES(2, 0),
                                                  NULL)),
                           tt_ev_int(1), tt_ev_int(BIG), tt_ev_int(SMALL),
                           tt_ev_int(BIG), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_status(TT_CALL("aten::view_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(BIG, BIG), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::view_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(SMALL, -1), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::expand_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(BIG, 2, 3), tt_ev_bool(false),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(BIG, BIG),
                           tt_ev_int(0), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  etr_evalue_t *outs = tt_ev_tensor_list(TT_TENSORS(out, out));
  tt_expect_status(TT_CALL("aten::split_with_sizes_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(1, BIG), tt_ev_int(0), outs, outs),
                   bad);
  tt_expect_status(TT_CALL("aten::split_with_sizes_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(BIG, SMALL), tt_ev_int(1), outs, outs),
                   bad);
  tt_expect_status(TT_CALL("aten::permute_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(SMALL, BIG), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::sum.IntList_out", tt_ev_tensor(x),
                           TT_EV_INTS(SMALL), tt_ev_bool(false), tt_ev_none(),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::_softmax.out", tt_ev_tensor(x),
                           tt_ev_int(BIG), tt_ev_bool(false),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
  etr_tensor_t *index = tt_tensor_i64(ETR_LONG, TT_SIZES(1),
                                      (const int64_t[]){SMALL});
  tt_expect_status(TT_CALL("aten::index_put.out", tt_ev_tensor(x),
                           tt_ev_optional_tensor_list(1, &index),
                           tt_ev_tensor(tt_scalar_tensor(ETR_FLOAT, 1)),
                           tt_ev_bool(false), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::clamp.out", tt_ev_tensor(x),
                           tt_ev_int(SMALL), tt_ev_int(BIG),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_status(TT_CALL("aten::pow.Tensor_Scalar_out",
                           tt_ev_tensor(tt_tensor(ETR_LONG, TT_SIZES(1),
                                                  TT_VALUES(3))),
                           tt_ev_int(BIG),
                           tt_ev_tensor(tt_out(ETR_LONG, TT_SIZES(1), 0)),
                           tt_ev_tensor(tt_out(ETR_LONG, TT_SIZES(1), 0))),
                   ETR_OK);
}

TT_TEST(hostile, wrong_tags_and_arity_everywhere) {
  // Every registered kernel refuses an empty argument list and a list of
  // None arguments cleanly (InvalidProgram or InvalidType).
  size_t count = 0;
  const etr_kernel_registration_t *table = tt_kernel_table(&count);
  for (size_t i = 0; i < count; ++i) {
    etr_error_t status = tt_call(table[i].name, NULL, 0);
    cr_expect_eq(status, ETR_ERR_INVALID_PROGRAM, "%s", table[i].name);
    for (size_t n = 1; n <= 12; ++n) {
      etr_evalue_t *args[12];
      for (size_t k = 0; k < n; ++k) {
        args[k] = tt_ev_none();
      }
      status = tt_call(table[i].name, args, n);
      cr_expect(status == ETR_ERR_INVALID_PROGRAM ||
                    status == ETR_ERR_INVALID_TYPE,
                "%s with %zu None arguments: %s", table[i].name, n,
                etr_error_name(status));
    }
  }
}
