// SPDX-License-Identifier: Apache-2.0
//
// Data-movement kernels: permute_copy, view_copy, expand_copy,
// unsqueeze_copy, squeeze_copy.dims, slice_copy.Tensor, select_copy.int,
// split_with_sizes_copy, cat and slice_scatter. Values are hand-computed
// from arange inputs (and agree with PyTorch 2.13); every kernel is run on
// several dtypes, on strided and channels-last inputs, on empty tensors,
// and with the out starting in another shape; plus the exact error codes.
#include "ops_reference/test/test_util.h"

static etr_tensor_t *arange(etr_scalar_type_t dtype, int32_t dim,
                            const int64_t *sizes) {
  etr_tensor_t *t = tt_tensor(dtype, dim, sizes, NULL);
  int64_t numel = etr_tensor_numel(t);
  double *values = tt_alloc(sizeof(double) * (size_t)(numel + 1));
  for (int64_t i = 0; i < numel; ++i) {
    values[i] = (double)i;
  }
  return tt_tensor(dtype, dim, sizes, values);
}

static const etr_scalar_type_t kTypes[] = {ETR_BOOL, ETR_BYTE, ETR_LONG,
                                           ETR_HALF, ETR_FLOAT, ETR_DOUBLE};
#define NUM_TYPES (sizeof(kTypes) / sizeof(kTypes[0]))

// Expected values for Bool are "value != 0".
static void expect_values(const etr_tensor_t *t, const double *values,
                          size_t count) {
  double *adjusted = tt_alloc(sizeof(double) * (count + 1));
  for (size_t i = 0; i < count; ++i) {
    adjusted[i] = t->dtype == ETR_BOOL ? (values[i] != 0.0) : values[i];
  }
  tt_expect_values(t, adjusted, count);
}

TT_TEST(permute_copy, values_layouts_and_rules) {
  for (size_t k = 0; k < NUM_TYPES; ++k) {
    etr_tensor_t *x = arange(kTypes[k], TT_SIZES(2, 3, 2));
    etr_tensor_t *out = tt_out(kTypes[k], TT_SIZES(12), 0);
    tt_expect_status(TT_CALL("aten::permute_copy.out",
                             tt_ev_tensor(tt_noncontiguous(x)),
                             TT_EV_INTS(2, 0, -2), tt_ev_tensor(out),
                             tt_ev_tensor(out)),
                     ETR_OK);
    tt_expect_shape(out, TT_SIZES(2, 2, 3));
    expect_values(out, TT_VALUES(0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11), 12);
  }
  // NCHW -> NHWC of a channels-last tensor is its memory order.
  etr_tensor_t *x = tt_channels_last(arange(ETR_FLOAT, TT_SIZES(1, 2, 2, 2)));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 2, 2, 2), 0);
  tt_expect_status(TT_CALL("aten::permute_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(0, 2, 3, 1), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 4, 1, 5, 2, 6, 3, 7), 8);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  tt_expect_status(TT_CALL("aten::permute_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(0, 1, 1, 2), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::permute_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(0, 1, 2), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(1, 2, 2, 2), 0);
  tt_expect_status(TT_CALL("aten::permute_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(0, 1, 2, 3), tt_ev_tensor(out_d),
                           tt_ev_tensor(out_d)),
                   bad);
}

TT_TEST(view_copy, values_and_rules) {
  for (size_t k = 0; k < NUM_TYPES; ++k) {
    etr_tensor_t *x = tt_noncontiguous(arange(kTypes[k], TT_SIZES(2, 3)));
    etr_tensor_t *out = tt_out(kTypes[k], TT_SIZES(6), 0);
    tt_expect_status(TT_CALL("aten::view_copy.out", tt_ev_tensor(x),
                             TT_EV_INTS(3, -1), tt_ev_tensor(out),
                             tt_ev_tensor(out)),
                     ETR_OK);
    tt_expect_shape(out, TT_SIZES(3, 2));
    expect_values(out, TT_VALUES(0, 1, 2, 3, 4, 5), 6);
  }
  // Flatten a channels-last tensor: logical order, not memory order.
  etr_tensor_t *x = tt_channels_last(arange(ETR_FLOAT, TT_SIZES(1, 2, 1, 2)));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 4), 0);
  tt_expect_status(TT_CALL("aten::view_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(1, 4), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 1, 2, 3), 4);
  // Zero-size and to zero-dim.
  etr_tensor_t *empty = tt_tensor(ETR_FLOAT, TT_SIZES(2, 0), NULL);
  etr_tensor_t *out_e = tt_out(ETR_FLOAT, TT_SIZES(0), 0);
  tt_expect_status(TT_CALL("aten::view_copy.out", tt_ev_tensor(empty),
                           TT_EV_INTS(0, 5), tt_ev_tensor(out_e),
                           tt_ev_tensor(out_e)),
                   ETR_OK);
  tt_expect_shape(out_e, TT_SIZES(0, 5));
  etr_tensor_t *one = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1), TT_VALUES(7));
  etr_tensor_t *out0 = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(TT_CALL("aten::view_copy.out", tt_ev_tensor(one),
                           TT_EV_NO_INTS, tt_ev_tensor(out0),
                           tt_ev_tensor(out0)),
                   ETR_OK);
  cr_expect_eq(out0->dim, 0);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  etr_tensor_t *six = arange(ETR_FLOAT, TT_SIZES(6));
  etr_tensor_t *out6 = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
  tt_expect_status(TT_CALL("aten::view_copy.out", tt_ev_tensor(six),
                           TT_EV_INTS(4, -1), tt_ev_tensor(out6),
                           tt_ev_tensor(out6)),
                   bad);
  tt_expect_status(TT_CALL("aten::view_copy.out", tt_ev_tensor(six),
                           TT_EV_INTS(-1, -1), tt_ev_tensor(out6),
                           tt_ev_tensor(out6)),
                   bad);
  tt_expect_status(TT_CALL("aten::view_copy.out", tt_ev_tensor(six),
                           TT_EV_INTS(2, 4), tt_ev_tensor(out6),
                           tt_ev_tensor(out6)),
                   bad);
  tt_expect_status(TT_CALL("aten::view_copy.out", tt_ev_tensor(empty),
                           TT_EV_INTS(-1, 0), tt_ev_tensor(out_e),
                           tt_ev_tensor(out_e)),
                   bad);
}

TT_TEST(expand_copy, values_and_rules) {
  etr_tensor_t *x = arange(ETR_INT, TT_SIZES(3, 1));
  etr_tensor_t *out = tt_out(ETR_INT, TT_SIZES(12), 0);
  tt_expect_status(TT_CALL("aten::expand_copy.out",
                           tt_ev_tensor(tt_noncontiguous(x)),
                           TT_EV_INTS(2, -1, 2), tt_ev_bool(false),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 3, 2));
  tt_expect_values(out, TT_VALUES(0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2), 12);
  etr_tensor_t *s = tt_scalar_tensor(ETR_HALF, 1.5);
  etr_tensor_t *out_h = tt_out(ETR_HALF, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::expand_copy.out", tt_ev_tensor(s),
                           TT_EV_INTS(2), tt_ev_bool(true),
                           tt_ev_tensor(out_h), tt_ev_tensor(out_h)),
                   ETR_OK);
  tt_expect_values(out_h, TT_VALUES(1.5, 1.5), 2);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  tt_expect_status(TT_CALL("aten::expand_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(-1, 3, 2), tt_ev_bool(false),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::expand_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(2, 2), tt_ev_bool(false),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::expand_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(2), tt_ev_bool(false),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::expand_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(3, 100), tt_ev_bool(false),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
}

TT_TEST(squeeze_unsqueeze, values_and_rules) {
  etr_tensor_t *x = arange(ETR_LONG, TT_SIZES(1, 3, 1));
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(3), 0);
  tt_expect_status(TT_CALL("aten::squeeze_copy.dims_out", tt_ev_tensor(x),
                           TT_EV_INTS(0, -1, 1), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(3));
  tt_expect_values(out, TT_VALUES(0, 1, 2), 3);
  tt_expect_status(TT_CALL("aten::squeeze_copy.dims_out", tt_ev_tensor(x),
                           TT_EV_NO_INTS, tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(1, 3, 1));
  etr_tensor_t *scalar = tt_scalar_tensor(ETR_FLOAT, 2);
  etr_tensor_t *out0 = tt_out(ETR_FLOAT, 0, NULL, 0);
  tt_expect_status(TT_CALL("aten::squeeze_copy.dims_out", tt_ev_tensor(scalar),
                           TT_EV_INTS(0), tt_ev_tensor(out0),
                           tt_ev_tensor(out0)),
                   ETR_OK);
  cr_expect_eq(out0->dim, 0);
  etr_tensor_t *out4 = tt_out(ETR_LONG, TT_SIZES(1, 1, 3, 1), 0);
  tt_expect_status(TT_CALL("aten::unsqueeze_copy.out",
                           tt_ev_tensor(tt_noncontiguous(x)), tt_ev_int(-4),
                           tt_ev_tensor(out4), tt_ev_tensor(out4)),
                   ETR_OK);
  tt_expect_shape(out4, TT_SIZES(1, 1, 3, 1));
  tt_expect_values(out4, TT_VALUES(0, 1, 2), 3);
  etr_tensor_t *out1 = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(TT_CALL("aten::unsqueeze_copy.out", tt_ev_tensor(scalar),
                           tt_ev_int(-1), tt_ev_tensor(out1),
                           tt_ev_tensor(out1)),
                   ETR_OK);
  tt_expect_shape(out1, TT_SIZES(1));
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  tt_expect_status(TT_CALL("aten::unsqueeze_copy.out", tt_ev_tensor(x),
                           tt_ev_int(4), tt_ev_tensor(out4),
                           tt_ev_tensor(out4)),
                   bad);
  tt_expect_status(TT_CALL("aten::squeeze_copy.dims_out", tt_ev_tensor(x),
                           TT_EV_INTS(0, 0), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::squeeze_copy.dims_out", tt_ev_tensor(x),
                           TT_EV_INTS(3), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   bad);
}

static etr_error_t slice(etr_tensor_t *x, int64_t dim, etr_evalue_t *start,
                         etr_evalue_t *end, int64_t step, etr_tensor_t *out) {
  return TT_CALL("aten::slice_copy.Tensor_out", tt_ev_tensor(x),
                 tt_ev_int(dim), start, end, tt_ev_int(step),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(slice_select, values_and_rules) {
  for (size_t k = 0; k < NUM_TYPES; ++k) {
    etr_tensor_t *x = tt_noncontiguous(arange(kTypes[k], TT_SIZES(2, 5)));
    etr_tensor_t *out = tt_out(kTypes[k], TT_SIZES(10), 0);
    tt_expect_status(slice(x, 1, tt_ev_int(-100), tt_ev_int(100), 2, out),
                     ETR_OK);
    tt_expect_shape(out, TT_SIZES(2, 3));
    expect_values(out, TT_VALUES(0, 2, 4, 5, 7, 9), 6);
  }
  etr_tensor_t *x = arange(ETR_FLOAT, TT_SIZES(2, 5));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(10), 0);
  tt_expect_status(slice(x, -1, tt_ev_int(3), tt_ev_none(), 1, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(3, 4, 8, 9), 4);
  tt_expect_status(slice(x, 1, tt_ev_int(4), tt_ev_int(1), 1, out), ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 0));
  etr_tensor_t *row = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::select_copy.int_out", tt_ev_tensor(x),
                           tt_ev_int(1), tt_ev_int(-2), tt_ev_tensor(row),
                           tt_ev_tensor(row)),
                   ETR_OK);
  tt_expect_values(row, TT_VALUES(3, 8), 2);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  tt_expect_status(slice(x, 1, tt_ev_none(), tt_ev_none(), 0, out), bad);
  tt_expect_status(slice(x, 2, tt_ev_none(), tt_ev_none(), 1, out), bad);
  tt_expect_status(slice(tt_scalar_tensor(ETR_FLOAT, 1), 0, tt_ev_none(),
                         tt_ev_none(), 1, out),
                   bad);
  tt_expect_status(TT_CALL("aten::select_copy.int_out", tt_ev_tensor(x),
                           tt_ev_int(0), tt_ev_int(2), tt_ev_tensor(row),
                           tt_ev_tensor(row)),
                   bad);
  etr_tensor_t *small = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(slice(x, 1, tt_ev_none(), tt_ev_none(), 1, small), bad);
}

TT_TEST(split_with_sizes_copy, values_and_rules) {
  etr_tensor_t *x = tt_channels_last(arange(ETR_FLOAT, TT_SIZES(1, 4, 1, 2)));
  etr_tensor_t *a = tt_out(ETR_FLOAT, TT_SIZES(8), 0);
  etr_tensor_t *b = tt_out(ETR_FLOAT, TT_SIZES(8), 0);
  etr_tensor_t *c = tt_out(ETR_FLOAT, TT_SIZES(8), 0);
  etr_evalue_t *outs = tt_ev_tensor_list(TT_TENSORS(a, b, c));
  tt_expect_status(TT_CALL("aten::split_with_sizes_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(1, 0, 3), tt_ev_int(1), outs, outs),
                   ETR_OK);
  tt_expect_shape(a, TT_SIZES(1, 1, 1, 2));
  tt_expect_shape(b, TT_SIZES(1, 0, 1, 2));
  tt_expect_shape(c, TT_SIZES(1, 3, 1, 2));
  tt_expect_values(a, TT_VALUES(0, 1), 2);
  tt_expect_values(c, TT_VALUES(2, 3, 4, 5, 6, 7), 6);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  tt_expect_status(TT_CALL("aten::split_with_sizes_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(1, 1, 1), tt_ev_int(1), outs, outs),
                   bad);
  tt_expect_status(TT_CALL("aten::split_with_sizes_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(2, 2), tt_ev_int(1), outs, outs),
                   bad);
  tt_expect_status(TT_CALL("aten::split_with_sizes_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(5, -1, 0), tt_ev_int(1), outs, outs),
                   bad);
  etr_tensor_t *d = tt_out(ETR_DOUBLE, TT_SIZES(8), 0);
  etr_evalue_t *mixed = tt_ev_tensor_list(TT_TENSORS(a, b, d));
  tt_expect_status(TT_CALL("aten::split_with_sizes_copy.out", tt_ev_tensor(x),
                           TT_EV_INTS(1, 0, 3), tt_ev_int(1), mixed, mixed),
                   bad);
}

TT_TEST(cat, values_promotion_and_rules) {
  etr_tensor_t *a = arange(ETR_INT, TT_SIZES(2, 1));
  etr_tensor_t *b = tt_noncontiguous(arange(ETR_CHAR, TT_SIZES(2, 2)));
  etr_tensor_t *skipped = tt_tensor(ETR_DOUBLE, TT_SIZES(0), NULL);
  etr_tensor_t *out = tt_out(ETR_DOUBLE, TT_SIZES(6), 0);
  // int32 and int8 promote to int32, which casts into a Double out; the
  // empty 1-D Double tensor is skipped but still takes part in promotion.
  etr_evalue_t *list = tt_ev_tensor_list(TT_TENSORS(a, skipped, b));
  tt_expect_status(TT_CALL("aten::cat.out", list, tt_ev_int(-1),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 3));
  tt_expect_values(out, TT_VALUES(0, 0, 1, 1, 2, 3), 6);
  etr_tensor_t *out_i = tt_out(ETR_INT, TT_SIZES(6), 0);
  tt_expect_status(TT_CALL("aten::cat.out", list, tt_ev_int(1),
                           tt_ev_tensor(out_i), tt_ev_tensor(out_i)),
                   ETR_ERR_INVALID_ARGUMENT);  // Double result into Int
  etr_evalue_t *ints = tt_ev_tensor_list(TT_TENSORS(a, b));
  tt_expect_status(TT_CALL("aten::cat.out", ints, tt_ev_int(1),
                           tt_ev_tensor(out_i), tt_ev_tensor(out_i)),
                   ETR_OK);
  tt_expect_values(out_i, TT_VALUES(0, 0, 1, 1, 2, 3), 6);
  // Along dim 0 with channels-last inputs.
  etr_tensor_t *x = tt_channels_last(arange(ETR_FLOAT, TT_SIZES(1, 2, 1, 2)));
  etr_tensor_t *out4 = tt_out(ETR_FLOAT, TT_SIZES(2, 2, 1, 2), 0);
  tt_expect_status(TT_CALL("aten::cat.out",
                           tt_ev_tensor_list(TT_TENSORS(x, x)), tt_ev_int(0),
                           tt_ev_tensor(out4), tt_ev_tensor(out4)),
                   ETR_OK);
  tt_expect_values(out4, TT_VALUES(0, 1, 2, 3, 0, 1, 2, 3), 8);
  // Only skipped tensors give an empty 1-D result.
  etr_tensor_t *out_e = tt_out(ETR_DOUBLE, TT_SIZES(3), 0);
  tt_expect_status(TT_CALL("aten::cat.out",
                           tt_ev_tensor_list(TT_TENSORS(skipped, skipped)),
                           tt_ev_int(0), tt_ev_tensor(out_e),
                           tt_ev_tensor(out_e)),
                   ETR_OK);
  tt_expect_shape(out_e, TT_SIZES(0));
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  etr_tensor_t *c = arange(ETR_INT, TT_SIZES(3, 1));
  tt_expect_status(TT_CALL("aten::cat.out", tt_ev_tensor_list(TT_TENSORS(a, c)),
                           tt_ev_int(1), tt_ev_tensor(out_i),
                           tt_ev_tensor(out_i)),
                   bad);
  tt_expect_status(TT_CALL("aten::cat.out", tt_ev_tensor_list(0, NULL),
                           tt_ev_int(0), tt_ev_tensor(out_i),
                           tt_ev_tensor(out_i)),
                   bad);
  tt_expect_status(TT_CALL("aten::cat.out", ints, tt_ev_int(2),
                           tt_ev_tensor(out_i), tt_ev_tensor(out_i)),
                   bad);
  etr_tensor_t *three_d = arange(ETR_INT, TT_SIZES(2, 1, 1));
  tt_expect_status(TT_CALL("aten::cat.out",
                           tt_ev_tensor_list(TT_TENSORS(a, three_d)),
                           tt_ev_int(0), tt_ev_tensor(out_i),
                           tt_ev_tensor(out_i)),
                   bad);
}

TT_TEST(slice_scatter, values_and_rules) {
  etr_tensor_t *self = arange(ETR_FLOAT, TT_SIZES(2, 4));
  etr_tensor_t *src = tt_tensor(ETR_LONG, TT_SIZES(2, 2),
                                TT_VALUES(-1, -2, -3, -4));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(8), 0);
  tt_expect_status(TT_CALL("aten::slice_scatter.out",
                           tt_ev_tensor(tt_noncontiguous(self)),
                           tt_ev_tensor(src), tt_ev_int(1), tt_ev_int(1),
                           tt_ev_none(), tt_ev_int(2), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, -1, 2, -2, 4, -3, 6, -4), 8);
  etr_tensor_t *wrong = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3), NULL);
  tt_expect_status(TT_CALL("aten::slice_scatter.out", tt_ev_tensor(self),
                           tt_ev_tensor(wrong), tt_ev_int(1), tt_ev_int(1),
                           tt_ev_none(), tt_ev_int(2), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(8), 0);
  tt_expect_status(TT_CALL("aten::slice_scatter.out", tt_ev_tensor(self),
                           tt_ev_tensor(src), tt_ev_int(1), tt_ev_int(1),
                           tt_ev_none(), tt_ev_int(2), tt_ev_tensor(out_d),
                           tt_ev_tensor(out_d)),
                   ETR_ERR_INVALID_ARGUMENT);
}
