// SPDX-License-Identifier: Apache-2.0
//
// Copies and creation: aten::clone, aten::copy.out, aten::copy_,
// aten::_to_copy, dim_order_ops::_to_dim_order_copy and
// dim_order_ops::_clone_dim_order (contiguous <-> channels-last, dtype
// conversions with c10's rules), aten::full and aten::full_like (checked
// fill values); plus the exact error codes.
#include <math.h>

#include "ops_reference/test/test_util.h"

static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};

TT_TEST(clone, values_layouts_and_rules) {
  etr_tensor_t *x = tt_tensor(ETR_BFLOAT16, TT_SIZES(2, 2),
                              TT_VALUES(1, -2, 3.5, 0));
  etr_tensor_t *out = tt_out(ETR_BFLOAT16, TT_SIZES(4), 0);
  tt_expect_status(TT_CALL("aten::clone.out", tt_ev_tensor(tt_noncontiguous(x)),
                           tt_ev_none(), tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_tensor(out, x);
  // Quantized and other non-arithmetic dtypes are copied byte for byte.
  etr_tensor_t *q = tt_tensor(ETR_QINT8, TT_SIZES(3), NULL);
  ((int8_t *)q->data)[2] = -7;
  etr_tensor_t *out_q = tt_out(ETR_QINT8, TT_SIZES(3), 0);
  tt_expect_status(TT_CALL("aten::clone.out", tt_ev_tensor(q), tt_ev_int(0),
                           tt_ev_tensor(out_q), tt_ev_tensor(out_q)),
                   ETR_OK);
  cr_expect_eq(((int8_t *)out_q->data)[2], -7);
  tt_expect_status(TT_CALL("aten::clone.out", tt_ev_tensor(x), tt_ev_int(9),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(4), 0);
  tt_expect_status(TT_CALL("aten::clone.out", tt_ev_tensor(x), tt_ev_none(),
                           tt_ev_tensor(out_f), tt_ev_tensor(out_f)),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(copy, out_and_inplace) {
  etr_tensor_t *self = tt_tensor(ETR_INT, TT_SIZES(2, 3), NULL);
  etr_tensor_t *src =
      tt_tensor(ETR_FLOAT, TT_SIZES(3), TT_VALUES(1.9, -2.9, 3));
  etr_tensor_t *out = tt_out(ETR_INT, TT_SIZES(6), 0);
  tt_expect_status(TT_CALL("aten::copy.out", tt_ev_tensor(self),
                           tt_ev_tensor(src), tt_ev_bool(false),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 3));
  tt_expect_values(out, TT_VALUES(1, -2, 3, 1, -2, 3), 6);
  // copy_ writes into self (as a mutated buffer's write-back) and makes
  // the return slot refer to self.
  etr_tensor_t *buffer = tt_noncontiguous(
      tt_tensor(ETR_FLOAT, TT_SIZES(2, 2), TT_VALUES(0, 0, 0, 0)));
  etr_tensor_t *value = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2),
                                  TT_VALUES(1, 2, 3, 4));
  etr_evalue_t *slot = tt_ev_none();
  tt_expect_status(TT_CALL("aten::copy_", tt_ev_tensor(buffer),
                           tt_ev_tensor(value), tt_ev_bool(false), slot),
                   ETR_OK);
  tt_expect_values(buffer, TT_VALUES(1, 2, 3, 4), 4);
  cr_expect(slot->tag == ETR_TAG_TENSOR && slot->u.as_tensor == buffer);
  etr_tensor_t *wrong = tt_tensor(ETR_FLOAT, TT_SIZES(3), NULL);
  tt_expect_status(TT_CALL("aten::copy_", tt_ev_tensor(buffer),
                           tt_ev_tensor(wrong), tt_ev_bool(false), slot),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
  tt_expect_status(TT_CALL("aten::copy.out", tt_ev_tensor(self),
                           tt_ev_tensor(src), tt_ev_bool(false),
                           tt_ev_tensor(out_f), tt_ev_tensor(out_f)),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(to_copy, conversions) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(5),
                              TT_VALUES(-1, 300.7, NAN, 0.5, -0.0));
  etr_tensor_t *out_u8 = tt_out(ETR_BYTE, TT_SIZES(5), 0);
  tt_expect_status(TT_CALL("aten::_to_copy.out", tt_ev_tensor(x),
                           tt_ev_bool(false), tt_ev_none(),
                           tt_ev_tensor(out_u8), tt_ev_tensor(out_u8)),
                   ETR_OK);
  // c10: -1 -> 255, 300.7 -> 44, NaN -> 0 (INT64_MIN wrapped), 0.5 -> 0.
  tt_expect_values(out_u8, TT_VALUES(255, 44, 0, 0, 0), 5);
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(5), 0);
  tt_expect_status(TT_CALL("aten::_to_copy.out", tt_ev_tensor(x),
                           tt_ev_bool(false), tt_ev_int(1),
                           tt_ev_tensor(out_b), tt_ev_tensor(out_b)),
                   ETR_OK);
  tt_expect_values(out_b, TT_VALUES(1, 1, 1, 1, 0), 5);
  etr_tensor_t *step = tt_tensor(ETR_LONG, TT_SIZES(1), TT_VALUES(6));
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(TT_CALL("dim_order_ops::_to_dim_order_copy.out",
                           tt_ev_tensor(step), tt_ev_bool(false), tt_ev_none(),
                           tt_ev_tensor(out_f), tt_ev_tensor(out_f)),
                   ETR_OK);
  tt_expect_values(out_f, TT_VALUES(6), 1);
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(1), TT_VALUES(2, 5));
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(1), 0);
  tt_expect_status(TT_CALL("aten::_to_copy.out", tt_ev_tensor(z),
                           tt_ev_bool(false), tt_ev_none(),
                           tt_ev_tensor(out_d), tt_ev_tensor(out_d)),
                   ETR_OK);
  tt_expect_values(out_d, TT_VALUES(2), 1);
  tt_expect_status(TT_CALL("aten::_to_copy.out", tt_ev_tensor(x),
                           tt_ev_bool(false), tt_ev_int(-1),
                           tt_ev_tensor(out_b), tt_ev_tensor(out_b)),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(dim_order_ops, contiguous_and_channels_last) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 1, 2),
                              TT_VALUES(1, 2, 3, 4));
  etr_tensor_t *cl = tt_out_dim_order(ETR_FLOAT, TT_SIZES(1, 2, 1, 2),
                                      kChannelsLast);
  tt_expect_status(TT_CALL("dim_order_ops::_clone_dim_order.out",
                           tt_ev_tensor(x), tt_ev_bool(false),
                           TT_EV_INTS(0, 2, 3, 1), tt_ev_tensor(cl),
                           tt_ev_tensor(cl)),
                   ETR_OK);
  tt_expect_values(cl, TT_VALUES(1, 2, 3, 4), 4);
  const float *raw = cl->data;
  cr_expect(raw[0] == 1 && raw[1] == 3 && raw[2] == 2 && raw[3] == 4);
  etr_tensor_t *back = tt_out(ETR_HALF, TT_SIZES(1, 2, 1, 2), 0);
  tt_expect_status(TT_CALL("dim_order_ops::_to_dim_order_copy.out",
                           tt_ev_tensor(cl), tt_ev_bool(false),
                           TT_EV_INTS(0, 1, 2, 3), tt_ev_tensor(back),
                           tt_ev_tensor(back)),
                   ETR_OK);
  tt_expect_values(back, TT_VALUES(1, 2, 3, 4), 4);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  // dim_order must be the out tensor's, of the right length.
  tt_expect_status(TT_CALL("dim_order_ops::_clone_dim_order.out",
                           tt_ev_tensor(x), tt_ev_bool(false),
                           TT_EV_INTS(0, 1, 2, 3), tt_ev_tensor(cl),
                           tt_ev_tensor(cl)),
                   bad);
  tt_expect_status(TT_CALL("dim_order_ops::_to_dim_order_copy.out",
                           tt_ev_tensor(x), tt_ev_bool(false),
                           TT_EV_INTS(0, 1, 2), tt_ev_tensor(back),
                           tt_ev_tensor(back)),
                   bad);
  tt_expect_status(TT_CALL("dim_order_ops::_clone_dim_order.out",
                           tt_ev_tensor(x), tt_ev_bool(false), tt_ev_none(),
                           tt_ev_tensor(back), tt_ev_tensor(back)),
                   bad);  // Half out for a Float clone
}

TT_TEST(full, values_and_checked_conversion) {
  etr_tensor_t *out = tt_out(ETR_INT, TT_SIZES(1), 8);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2, 3),
                           tt_ev_double(1.5), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 3));
  tt_expect_values(out, TT_VALUES(1, 1, 1, 1, 1, 1), 6);
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2), tt_ev_int(2),
                           tt_ev_tensor(out_b), tt_ev_tensor(out_b)),
                   ETR_OK);
  tt_expect_values(out_b, TT_VALUES(1, 1), 2);
  etr_tensor_t *out_u8 = tt_out(ETR_BYTE, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2), tt_ev_int(-1),
                           tt_ev_tensor(out_u8), tt_ev_tensor(out_u8)),
                   ETR_OK);
  tt_expect_values(out_u8, TT_VALUES(255, 255), 2);
  etr_tensor_t *self = tt_channels_last(
      tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 1, 1), NULL));
  etr_tensor_t *like = tt_out_dim_order(ETR_HALF, TT_SIZES(1, 2, 1, 1),
                                        kChannelsLast);
  tt_expect_status(TT_CALL("aten::full_like.out", tt_ev_tensor(self),
                           tt_ev_double(-0.5), tt_ev_int(1),
                           tt_ev_tensor(like), tt_ev_tensor(like)),
                   ETR_OK);
  tt_expect_values(like, TT_VALUES(-0.5, -0.5), 2);
  etr_tensor_t *empty = tt_out(ETR_FLOAT, TT_SIZES(3), 0);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(0, 4), tt_ev_int(1),
                           tt_ev_tensor(empty), tt_ev_tensor(empty)),
                   ETR_OK);
  tt_expect_shape(empty, TT_SIZES(0, 4));
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2), tt_ev_int(300),
                           tt_ev_tensor(out_u8), tt_ev_tensor(out_u8)),
                   bad);
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2),
                           tt_ev_double(1e40), tt_ev_tensor(out_f),
                           tt_ev_tensor(out_f)),
                   bad);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(-2), tt_ev_int(1),
                           tt_ev_tensor(out_f), tt_ev_tensor(out_f)),
                   bad);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(3), tt_ev_int(1),
                           tt_ev_tensor(out_f), tt_ev_tensor(out_f)),
                   bad);  // out holds 2 elements
}

// Review fix: fill_value goes through c10's checked conversion, which
// refuses every negative Double into an unsigned dtype (PyTorch 2.13:
// full([2], -2.5, uint8) "cannot be converted to type uint8_t without
// overflow") while a negative Int wraps (-255 into uint8 is 1); and since
// ATen's full is empty + fill_, a one-element Half/BFloat16 out takes
// fill_'s unchecked path (full([1], 1e40) in Half is inf, full([2], 1e40)
// is refused).
TT_TEST(full, fill_value_checked_as_pytorch) {
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  static const etr_scalar_type_t kUnsigned[] = {ETR_BYTE, ETR_UINT16,
                                                ETR_UINT32, ETR_UINT64};
  for (size_t i = 0; i < sizeof(kUnsigned) / sizeof(kUnsigned[0]); ++i) {
    etr_tensor_t *out = tt_out(kUnsigned[i], TT_SIZES(2), 0);
    tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2),
                             tt_ev_double(-2.5), tt_ev_tensor(out),
                             tt_ev_tensor(out)),
                     bad);
    tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(1),
                             tt_ev_double(-0.5), tt_ev_tensor(out),
                             tt_ev_tensor(out)),
                     bad);
    tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(0),
                             tt_ev_double(-1.0), tt_ev_tensor(out),
                             tt_ev_tensor(out)),
                     bad);
    tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2),
                             tt_ev_double(-0.0), tt_ev_tensor(out),
                             tt_ev_tensor(out)),
                     ETR_OK);
    tt_expect_values(out, TT_VALUES(0, 0), 2);
  }
  etr_tensor_t *u8 = tt_out(ETR_BYTE, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2), tt_ev_int(-255),
                           tt_ev_tensor(u8), tt_ev_tensor(u8)),
                   ETR_OK);
  tt_expect_values(u8, TT_VALUES(1, 1), 2);
  tt_expect_status(TT_CALL("aten::full_like.out", tt_ev_tensor(u8),
                           tt_ev_double(-2.5), tt_ev_none(), tt_ev_tensor(u8),
                           tt_ev_tensor(u8)),
                   bad);
  etr_tensor_t *i8 = tt_out(ETR_CHAR, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2), tt_ev_double(-2.5),
                           tt_ev_tensor(i8), tt_ev_tensor(i8)),
                   ETR_OK);
  tt_expect_values(i8, TT_VALUES(-2, -2), 2);
  etr_tensor_t *half = tt_out(ETR_HALF, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(1, 1),
                           tt_ev_double(1e40), tt_ev_tensor(half),
                           tt_ev_tensor(half)),
                   ETR_OK);
  tt_expect_values(half, TT_VALUES(INFINITY), 1);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2),
                           tt_ev_double(70000.0), tt_ev_tensor(half),
                           tt_ev_tensor(half)),
                   bad);
  etr_tensor_t *bf16 = tt_out(ETR_BFLOAT16, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_NO_INTS,
                           tt_ev_double(1e40), tt_ev_tensor(bf16),
                           tt_ev_tensor(bf16)),
                   ETR_OK);
  tt_expect_values(bf16, TT_VALUES(INFINITY), 1);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(2),
                           tt_ev_double(1e40), tt_ev_tensor(bf16),
                           tt_ev_tensor(bf16)),
                   bad);
  etr_tensor_t *f32 = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::full.out", TT_EV_INTS(1),
                           tt_ev_double(1e40), tt_ev_tensor(f32),
                           tt_ev_tensor(f32)),
                   bad);
}
