// SPDX-License-Identifier: Apache-2.0
//
// Hand-written tests of the movement family: what the generated cases
// (op_movement_cases_test.c) cannot express. aten::resize_ (in place,
// capacity, static shapes, memory formats) and
// dim_order_ops::_empty_dim_order (an ExecuTorch op PyTorch does not
// have); outs in other layouts; dry runs; hostile int64 arguments; the
// documented departures from PyTorch. Expected values are hand-computed
// and agree with PyTorch 2.13 where PyTorch defines them.
#include <math.h>
#include <string.h>

#include "ops_reference/test/test_util.h"

static const etr_error_t kBad = ETR_ERR_INVALID_ARGUMENT;

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

// ---------------------------------------------------------------------------
// aten::resize_

TT_TEST(resize_, shrinks_and_grows_within_capacity) {
  etr_tensor_t *self = tt_out(ETR_FLOAT, TT_SIZES(2, 3), 8);
  float *data = self->data;
  for (int i = 0; i < 8; ++i) {
    data[i] = (float)i;
  }
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(self),
                           TT_EV_INTS(4), tt_ev_none(), tt_ev_tensor(self)),
                   ETR_OK);
  tt_expect_shape(self, TT_SIZES(4));
  // The memory is kept: the first elements in memory order.
  tt_expect_values(self, TT_VALUES(0, 1, 2, 3), 4);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(self),
                           TT_EV_INTS(2, 2, 2), tt_ev_none(),
                           tt_ev_tensor(self)),
                   ETR_OK);
  tt_expect_shape(self, TT_SIZES(2, 2, 2));
  tt_expect_values(self, TT_VALUES(0, 1, 2, 3, 4, 5, 6, 7), 8);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(self), TT_EV_NO_INTS,
                           tt_ev_none(), tt_ev_tensor(self)),
                   ETR_OK);
  cr_expect_eq(self->dim, 0);
  tt_expect_values(self, TT_VALUES(0), 1);
  // Past the capacity, negative sizes, too many dims.
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(self),
                           TT_EV_INTS(3, 3), tt_ev_none(), tt_ev_tensor(self)),
                   kBad);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(self),
                           TT_EV_INTS(-1), tt_ev_none(), tt_ev_tensor(self)),
                   kBad);
  tt_expect_status(
      TT_CALL("aten::resize_", tt_ev_tensor(self),
              TT_EV_INTS(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1),
              tt_ev_none(), tt_ev_tensor(self)),
      kBad);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(self),
                           TT_EV_INTS(INT64_MAX, 2), tt_ev_none(),
                           tt_ev_tensor(self)),
                   kBad);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(self),
                           TT_EV_INTS(0, INT64_MAX, 4), tt_ev_none(),
                           tt_ev_tensor(self)),
                   kBad);
  cr_expect_eq(self->dim, 0);  // failures leave self alone
}

TT_TEST(resize_, same_sizes_keep_strides_and_memory_formats) {
  // A transposed view resized to its own sizes stays as it is (PyTorch's
  // resize_impl returns early).
  etr_tensor_t *base = tt_out(ETR_FLOAT, TT_SIZES(2, 3), 0);
  etr_tensor_t *view = tt_alloc(sizeof(etr_tensor_t));
  *view = *base;
  view->sizes[0] = 3;
  view->sizes[1] = 2;
  view->strides[0] = 1;
  view->strides[1] = 3;
  view->dim_order[0] = 1;
  view->dim_order[1] = 0;
  view->shape_dynamism = ETR_SHAPE_DYNAMIC_BOUND;
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(view),
                           TT_EV_INTS(3, 2), tt_ev_none(), tt_ev_tensor(view)),
                   ETR_OK);
  cr_expect_eq(view->strides[0], 1);
  cr_expect_eq(view->strides[1], 3);
  // Other sizes make it contiguous.
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(view),
                           TT_EV_INTS(2, 3), tt_ev_none(), tt_ev_tensor(view)),
                   ETR_OK);
  cr_expect_eq(view->strides[0], 3);
  cr_expect_eq(view->strides[1], 1);

  // memory_format: channels-last (2) on rank 4, channels-last-3d (3) on
  // rank 5, contiguous (0); preserve (1) and mismatched ranks refused.
  etr_tensor_t *t = tt_out(ETR_FLOAT, TT_SIZES(24), 0);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(t),
                           TT_EV_INTS(1, 2, 3, 4), tt_ev_int(2),
                           tt_ev_tensor(t)),
                   ETR_OK);
  tt_expect_shape(t, TT_SIZES(1, 2, 3, 4));
  cr_expect_eq(t->strides[0], 24);  // PyTorch: (24, 1, 8, 2)
  cr_expect_eq(t->strides[1], 1);
  cr_expect_eq(t->strides[2], 8);
  cr_expect_eq(t->strides[3], 2);
  cr_expect(etr_dim_order_is_channels_last(t->dim_order, 4));
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(t),
                           TT_EV_INTS(1, 2, 3, 4), tt_ev_int(0),
                           tt_ev_tensor(t)),
                   ETR_OK);
  cr_expect_eq(t->strides[1], 12);
  cr_expect(etr_dim_order_is_contiguous(t->dim_order, 4));
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(t),
                           TT_EV_INTS(1, 2, 3, 4, 1), tt_ev_int(3),
                           tt_ev_tensor(t)),
                   ETR_OK);
  cr_expect_eq(t->strides[1], 1);  // PyTorch: (24, 1, 8, 2, 2)
  cr_expect_eq(t->strides[4], 2);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(t),
                           TT_EV_INTS(2, 3, 4), tt_ev_int(2), tt_ev_tensor(t)),
                   kBad);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(t),
                           TT_EV_INTS(2, 3, 4), tt_ev_int(1), tt_ev_tensor(t)),
                   kBad);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(t),
                           TT_EV_INTS(2, 3, 4), tt_ev_int(7), tt_ev_tensor(t)),
                   kBad);
}

TT_TEST(resize_, static_tensors_keep_their_shape) {
  etr_tensor_t *t = arange(ETR_LONG, TT_SIZES(2, 3));
  t->shape_dynamism = ETR_SHAPE_STATIC;
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(t), TT_EV_INTS(2, 3),
                           tt_ev_none(), tt_ev_tensor(t)),
                   ETR_OK);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(t), TT_EV_INTS(6),
                           tt_ev_none(), tt_ev_tensor(t)),
                   kBad);
  tt_expect_shape(t, TT_SIZES(2, 3));
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(t), TT_EV_INTS(2),
                           tt_ev_none()),
                   ETR_ERR_INVALID_PROGRAM);
  tt_expect_status(TT_CALL("aten::resize_", tt_ev_tensor(t), tt_ev_int(2),
                           tt_ev_none(), tt_ev_tensor(t)),
                   ETR_ERR_INVALID_TYPE);
}

// ---------------------------------------------------------------------------
// dim_order_ops::_empty_dim_order

TT_TEST(empty_dim_order, dim_order_must_match_the_out) {
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  etr_tensor_t *out = tt_out_dim_order(ETR_HALF, TT_SIZES(1, 3, 2, 2),
                                       kChannelsLast);
  memset(out->data, 0x5a, out->capacity_bytes);
  tt_expect_status(TT_CALL("dim_order_ops::_empty_dim_order.out",
                           TT_EV_INTS(1, 3, 2, 2), TT_EV_INTS(0, 2, 3, 1),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(1, 3, 2, 2));
  tt_expect_values(out, TT_VALUES(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 12);
  // Contiguous order for a channels-last out, a permutation that is
  // neither, wrong lengths, no dim_order for a channels-last out.
  tt_expect_status(TT_CALL("dim_order_ops::_empty_dim_order.out",
                           TT_EV_INTS(1, 3, 2, 2), TT_EV_INTS(0, 1, 2, 3),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   kBad);
  tt_expect_status(TT_CALL("dim_order_ops::_empty_dim_order.out",
                           TT_EV_INTS(1, 3, 2, 2), TT_EV_INTS(0, 3, 2, 1),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   kBad);
  tt_expect_status(TT_CALL("dim_order_ops::_empty_dim_order.out",
                           TT_EV_INTS(1, 3, 2, 2), TT_EV_INTS(0, 2, 3),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   kBad);
  tt_expect_status(TT_CALL("dim_order_ops::_empty_dim_order.out",
                           TT_EV_INTS(1, 3, 2, 2), TT_EV_INTS(0, 2, 3, 9),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   kBad);
  tt_expect_status(TT_CALL("dim_order_ops::_empty_dim_order.out",
                           TT_EV_INTS(1, 3, 2, 2), tt_ev_none(),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   kBad);
  // A contiguous out, with and without dim_order, resized.
  etr_tensor_t *flat = tt_out(ETR_LONG, TT_SIZES(2), 12);
  memset(flat->data, 0x5a, flat->capacity_bytes);
  tt_expect_status(TT_CALL("dim_order_ops::_empty_dim_order.out",
                           TT_EV_INTS(3, 4), tt_ev_none(), tt_ev_tensor(flat),
                           tt_ev_tensor(flat)),
                   ETR_OK);
  tt_expect_shape(flat, TT_SIZES(3, 4));
  tt_expect_values(flat, TT_VALUES(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 12);
  tt_expect_status(TT_CALL("dim_order_ops::_empty_dim_order.out",
                           TT_EV_INTS(2, 2), TT_EV_INTS(0, 1),
                           tt_ev_tensor(flat), tt_ev_tensor(flat)),
                   ETR_OK);
  tt_expect_status(TT_CALL("dim_order_ops::_empty_dim_order.out",
                           TT_EV_INTS(2, -2), tt_ev_none(), tt_ev_tensor(flat),
                           tt_ev_tensor(flat)),
                   kBad);
  tt_expect_status(TT_CALL("dim_order_ops::_empty_dim_order.out",
                           TT_EV_INTS(4, 4), tt_ev_none(), tt_ev_tensor(flat),
                           tt_ev_tensor(flat)),
                   kBad);  // past the capacity
}

// ---------------------------------------------------------------------------
// Outs keep their own layout: the same call into a contiguous out and into
// a channels-last (or transposed) out gives the same logical values.

static const uint8_t kChannelsLast4[4] = {0, 2, 3, 1};

static void expect_same_in_channels_last_out(const char *op,
                                             etr_evalue_t **inputs,
                                             size_t num_inputs,
                                             etr_scalar_type_t dtype,
                                             int32_t dim,
                                             const int64_t *sizes) {
  etr_tensor_t *plain = tt_out(dtype, dim, sizes, 0);
  etr_tensor_t *last = tt_out_dim_order(dtype, dim, sizes, kChannelsLast4);
  etr_evalue_t *args[12];
  for (size_t i = 0; i < num_inputs; ++i) {
    args[i] = inputs[i];
  }
  args[num_inputs] = tt_ev_tensor(plain);
  args[num_inputs + 1] = tt_ev_tensor(plain);
  tt_expect_status(tt_call(op, args, num_inputs + 2), ETR_OK);
  args[num_inputs] = tt_ev_tensor(last);
  args[num_inputs + 1] = tt_ev_tensor(last);
  tt_expect_status(tt_call(op, args, num_inputs + 2), ETR_OK);
  cr_expect(etr_dim_order_is_channels_last(last->dim_order, 4), "%s", op);
  tt_expect_tensor(last, plain);
}

#define SAME_IN_CHANNELS_LAST(op, dtype, sizes_macro, ...)                 \
  expect_same_in_channels_last_out(                                        \
      op, (etr_evalue_t *[]){__VA_ARGS__},                                 \
      sizeof((etr_evalue_t *[]){__VA_ARGS__}) / sizeof(etr_evalue_t *),    \
      dtype, sizes_macro)

TT_TEST(movement_layouts, channels_last_outs) {
  etr_tensor_t *x = arange(ETR_FLOAT, TT_SIZES(1, 3, 2, 4));
  etr_tensor_t *xl = tt_channels_last(x);
  SAME_IN_CHANNELS_LAST("aten::constant_pad_nd.out", ETR_FLOAT,
                        TT_SIZES(1, 3, 5, 5), tt_ev_tensor(xl),
                        TT_EV_INTS(-1, 2, 1, 2), tt_ev_double(-7.5));
  SAME_IN_CHANNELS_LAST("aten::reflection_pad2d.out", ETR_FLOAT,
                        TT_SIZES(1, 3, 3, 7), tt_ev_tensor(xl),
                        TT_EV_INTS(2, 1, 0, 1));
  SAME_IN_CHANNELS_LAST("aten::replication_pad2d.out", ETR_FLOAT,
                        TT_SIZES(1, 3, 5, 3), tt_ev_tensor(xl),
                        TT_EV_INTS(0, -1, 3, 0));
  SAME_IN_CHANNELS_LAST("aten::flip.out", ETR_FLOAT, TT_SIZES(1, 3, 2, 4),
                        tt_ev_tensor(xl), TT_EV_INTS(1, 3));
  SAME_IN_CHANNELS_LAST("aten::repeat.out", ETR_FLOAT, TT_SIZES(2, 3, 2, 8),
                        tt_ev_tensor(xl), TT_EV_INTS(2, 1, 1, 2));
  SAME_IN_CHANNELS_LAST("aten::alias_copy.out", ETR_FLOAT,
                        TT_SIZES(1, 3, 2, 4), tt_ev_tensor(xl));
  SAME_IN_CHANNELS_LAST("aten::fill.Scalar_out", ETR_FLOAT,
                        TT_SIZES(1, 3, 2, 4), tt_ev_tensor(xl),
                        tt_ev_double(2.5));
  etr_tensor_t *index = tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(3, 0));
  SAME_IN_CHANNELS_LAST("aten::index_select.out", ETR_FLOAT,
                        TT_SIZES(1, 3, 2, 2), tt_ev_tensor(xl), tt_ev_int(-1),
                        tt_ev_tensor(index));
  etr_tensor_t *gather_index = tt_channels_last(
      tt_tensor(ETR_LONG, TT_SIZES(1, 2, 2, 2),
                TT_VALUES(0, 2, 1, 1, 2, 2, 0, 1)));
  SAME_IN_CHANNELS_LAST("aten::gather.out", ETR_FLOAT, TT_SIZES(1, 2, 2, 2),
                        tt_ev_tensor(xl), tt_ev_int(1),
                        tt_ev_tensor(gather_index), tt_ev_bool(false));
  SAME_IN_CHANNELS_LAST("aten::scatter_add.out", ETR_FLOAT,
                        TT_SIZES(1, 3, 2, 4), tt_ev_tensor(xl), tt_ev_int(1),
                        tt_ev_tensor(gather_index), tt_ev_tensor(xl));
  SAME_IN_CHANNELS_LAST("aten::scatter_reduce.two_out", ETR_FLOAT,
                        TT_SIZES(1, 3, 2, 4), tt_ev_tensor(xl), tt_ev_int(1),
                        tt_ev_tensor(gather_index), tt_ev_tensor(xl),
                        tt_ev_string("amax"), tt_ev_bool(false));
  etr_tensor_t *src = arange(ETR_FLOAT, TT_SIZES(1, 2, 4));
  SAME_IN_CHANNELS_LAST("aten::select_scatter.out", ETR_FLOAT,
                        TT_SIZES(1, 3, 2, 4), tt_ev_tensor(xl),
                        tt_ev_tensor(src), tt_ev_int(1), tt_ev_int(-1));
  etr_tensor_t *long_index = tt_tensor(ETR_LONG, TT_SIZES(1), TT_VALUES(1));
  SAME_IN_CHANNELS_LAST(
      "aten::index.Tensor_out", ETR_FLOAT, TT_SIZES(1, 3, 1, 4),
      tt_ev_tensor(xl),
      tt_ev_optional_tensor_list(TT_TENSORS(NULL, NULL, long_index)));
  SAME_IN_CHANNELS_LAST("aten::as_strided_copy.out", ETR_FLOAT,
                        TT_SIZES(1, 2, 2, 2), tt_ev_tensor(x),
                        TT_EV_INTS(1, 2, 2, 2), TT_EV_INTS(0, 1, 8, 2),
                        tt_ev_int(3));
}

TT_TEST(movement_layouts, transposed_outs_and_inputs) {
  static const uint8_t kTransposed[2] = {1, 0};
  etr_tensor_t *x = arange(ETR_DOUBLE, TT_SIZES(3, 4));
  etr_tensor_t *plain = tt_out(ETR_DOUBLE, TT_SIZES(3, 4), 0);
  etr_tensor_t *weight = arange(ETR_DOUBLE, TT_SIZES(5, 3));
  etr_tensor_t *idx = tt_tensor(ETR_INT, TT_SIZES(4), TT_VALUES(4, 0, 2, 4));
  etr_tensor_t *emb = tt_out_dim_order(ETR_DOUBLE, TT_SIZES(4, 3), kTransposed);
  tt_expect_status(TT_CALL("aten::embedding.out", tt_ev_tensor(weight),
                           tt_ev_tensor(idx), tt_ev_int(-1), tt_ev_bool(false),
                           tt_ev_bool(false), tt_ev_tensor(emb),
                           tt_ev_tensor(emb)),
                   ETR_OK);
  tt_expect_values(emb, TT_VALUES(12, 13, 14, 0, 1, 2, 6, 7, 8, 12, 13, 14),
                   12);
  tt_expect_status(TT_CALL("aten::diagonal_copy.out",
                           tt_ev_tensor(tt_noncontiguous(x)), tt_ev_int(1),
                           tt_ev_int(0), tt_ev_int(1), tt_ev_tensor(plain),
                           tt_ev_tensor(plain)),
                   ETR_OK);
  tt_expect_values(plain, TT_VALUES(1, 6, 11), 3);
}

// ---------------------------------------------------------------------------
// Documented behaviours the generated cases cannot show.

TT_TEST(movement_rules, arange_keeps_an_out_of_the_right_size) {
  // PyTorch resizes only when the element count differs.
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2, 3), 0);
  tt_expect_status(TT_CALL("aten::arange.start_out", tt_ev_int(0),
                           tt_ev_int(6), tt_ev_int(1), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 3));
  tt_expect_values(out, TT_VALUES(0, 1, 2, 3, 4, 5), 6);
  etr_tensor_t *scalar = tt_out(ETR_LONG, 0, NULL, 4);
  tt_expect_status(TT_CALL("aten::arange.start_out", tt_ev_int(7),
                           tt_ev_int(8), tt_ev_int(5), tt_ev_tensor(scalar),
                           tt_ev_tensor(scalar)),
                   ETR_OK);
  cr_expect_eq(scalar->dim, 0);
  tt_expect_values(scalar, TT_VALUES(7), 1);
  tt_expect_status(TT_CALL("aten::arange.start_out", tt_ev_int(7),
                           tt_ev_int(10), tt_ev_int(1), tt_ev_tensor(scalar),
                           tt_ev_tensor(scalar)),
                   ETR_OK);
  tt_expect_shape(scalar, TT_SIZES(3));
  tt_expect_values(scalar, TT_VALUES(7, 8, 9), 3);
  // Too large for the out's memory; a size beyond int64; a float size
  // that rounds to 2^63.
  tt_expect_status(TT_CALL("aten::arange.start_out", tt_ev_int(0),
                           tt_ev_int(100), tt_ev_int(1), tt_ev_tensor(scalar),
                           tt_ev_tensor(scalar)),
                   kBad);
  tt_expect_status(TT_CALL("aten::arange.start_out", tt_ev_int(INT64_MIN),
                           tt_ev_int(INT64_MAX), tt_ev_int(1),
                           tt_ev_tensor(scalar), tt_ev_tensor(scalar)),
                   kBad);
  etr_tensor_t *f = tt_out(ETR_DOUBLE, TT_SIZES(1), 0);
  tt_expect_status(TT_CALL("aten::arange.start_out", tt_ev_double(-1e300),
                           tt_ev_double(1e300), tt_ev_double(1e-300),
                           tt_ev_tensor(f), tt_ev_tensor(f)),
                   kBad);
  tt_expect_status(TT_CALL("aten::arange.start_out", tt_ev_double(0),
                           tt_ev_double(9.3e18), tt_ev_double(1),
                           tt_ev_tensor(f), tt_ev_tensor(f)),
                   kBad);
}

TT_TEST(movement_rules, index_with_a_mask_on_strided_inputs) {
  // x[mask, idx] with a non-contiguous mask: rows 0 and 2, columns 3 and 1.
  etr_tensor_t *x = arange(ETR_INT, TT_SIZES(3, 4));
  etr_tensor_t *mask = tt_noncontiguous(
      tt_tensor(ETR_BOOL, TT_SIZES(3), TT_VALUES(1, 0, 1)));
  etr_tensor_t *columns = tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(3, -3));
  etr_tensor_t *out = tt_out(ETR_INT, TT_SIZES(1), 8);
  etr_kernel_fn fn = tt_find_kernel("aten::index.Tensor_out");
  cr_assert_not_null(fn);
  etr_evalue_t *args[4] = {
      tt_ev_tensor(tt_noncontiguous(x)),
      tt_ev_optional_tensor_list(TT_TENSORS(mask, columns)),
      tt_ev_tensor(out), tt_ev_tensor(out)};
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &diag;
  ctx.op_name = "aten::index.Tensor_out";
  // A dry run cannot count the mask: it succeeds and leaves out alone.
  ctx.dry_run = true;
  void *saved = mask->data;
  mask->data = NULL;
  cr_expect_eq(fn(&ctx, args, 4), ETR_OK, "%s", diag.message);
  mask->data = saved;
  tt_expect_shape(out, TT_SIZES(1));
  ctx.dry_run = false;
  cr_expect_eq(fn(&ctx, args, 4), ETR_OK, "%s", diag.message);
  tt_expect_shape(out, TT_SIZES(2));
  tt_expect_values(out, TT_VALUES(3, 9), 2);
  // A mask whose true count does not broadcast with the other index.
  etr_tensor_t *three = tt_tensor(ETR_LONG, TT_SIZES(3), TT_VALUES(0, 1, 2));
  args[1] = tt_ev_optional_tensor_list(TT_TENSORS(mask, three));
  cr_expect_eq(fn(&ctx, args, 4), kBad);
}

TT_TEST(movement_rules, values_are_checked_before_anything_is_written) {
  // An out-of-range index late in the list fails the call and leaves the
  // out untouched (checked up front, never read).
  etr_tensor_t *w = arange(ETR_FLOAT, TT_SIZES(4, 2));
  etr_tensor_t *idx = tt_tensor(ETR_LONG, TT_SIZES(3), TT_VALUES(0, 1, 4));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(3, 2), 0);
  float *data = out->data;
  for (int i = 0; i < 6; ++i) {
    data[i] = -1.0f;
  }
  tt_expect_status(TT_CALL("aten::embedding.out", tt_ev_tensor(w),
                           tt_ev_tensor(idx), tt_ev_int(-1), tt_ev_bool(false),
                           tt_ev_bool(false), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   kBad);
  tt_expect_values(out, TT_VALUES(-1, -1, -1, -1, -1, -1), 6);
  etr_tensor_t *g = tt_tensor(ETR_LONG, TT_SIZES(3, 1), TT_VALUES(1, 0, -1));
  etr_tensor_t *gout = tt_out(ETR_FLOAT, TT_SIZES(3, 1), 0);
  tt_expect_status(TT_CALL("aten::gather.out", tt_ev_tensor(w), tt_ev_int(1),
                           tt_ev_tensor(g), tt_ev_bool(false),
                           tt_ev_tensor(gout), tt_ev_tensor(gout)),
                   kBad);
  etr_tensor_t *sout = tt_out(ETR_FLOAT, TT_SIZES(4, 2), 0);
  tt_expect_status(TT_CALL("aten::scatter.src_out", tt_ev_tensor(w),
                           tt_ev_int(1), tt_ev_tensor(g), tt_ev_tensor(w),
                           tt_ev_tensor(sout), tt_ev_tensor(sout)),
                   kBad);
  tt_expect_values(sout, TT_VALUES(0, 0, 0, 0, 0, 0, 0, 0), 8);
  // An index of INT64_MIN or INT64_MAX is just out of range.
  etr_tensor_t *huge =
      tt_tensor_i64(ETR_LONG, TT_SIZES(2), (const int64_t[]){INT64_MIN,
                                                            INT64_MAX});
  tt_expect_status(TT_CALL("aten::index_select.out", tt_ev_tensor(w),
                           tt_ev_int(0), tt_ev_tensor(huge), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   kBad);
  tt_expect_status(TT_CALL("aten::index.Tensor_out", tt_ev_tensor(w),
                           tt_ev_optional_tensor_list(TT_TENSORS(huge)),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   kBad);
}

TT_TEST(movement_rules, outs_may_alias_self) {
  // scatter_add with out == self (an in-place plan) still reads every
  // original value before it is replaced.
  etr_tensor_t *x = arange(ETR_LONG, TT_SIZES(2, 3));
  etr_tensor_t *index =
      tt_tensor(ETR_LONG, TT_SIZES(2, 3), TT_VALUES(2, 2, 0, 1, 0, 0));
  etr_tensor_t *src = tt_tensor(ETR_LONG, TT_SIZES(2, 3),
                                TT_VALUES(10, 20, 30, 40, 50, 60));
  tt_expect_status(TT_CALL("aten::scatter_add.out", tt_ev_tensor(x),
                           tt_ev_int(1), tt_ev_tensor(index), tt_ev_tensor(src),
                           tt_ev_tensor(x), tt_ev_tensor(x)),
                   ETR_OK);
  tt_expect_values(x, TT_VALUES(30, 1, 32, 113, 44, 5), 6);
}

TT_TEST(movement_rules, embedding_bag_outs_and_return_list) {
  etr_tensor_t *w = arange(ETR_FLOAT, TT_SIZES(4, 2));
  etr_tensor_t *idx = tt_tensor(ETR_INT, TT_SIZES(4), TT_VALUES(3, 1, 1, 0));
  etr_tensor_t *off = tt_tensor(ETR_INT, TT_SIZES(2), TT_VALUES(0, 3));
  etr_tensor_t *outs[4] = {
      tt_out(ETR_FLOAT, TT_SIZES(1), 8), tt_out(ETR_INT, TT_SIZES(1), 8),
      tt_out(ETR_INT, TT_SIZES(1), 8), tt_out(ETR_INT, TT_SIZES(1), 8)};
  etr_evalue_t *args[14] = {
      tt_ev_tensor(w), tt_ev_tensor(idx), tt_ev_tensor(off), tt_ev_bool(false),
      tt_ev_int(2), tt_ev_bool(false), tt_ev_none(), tt_ev_bool(false),
      tt_ev_int(-1), tt_ev_tensor(outs[0]), tt_ev_tensor(outs[1]),
      tt_ev_tensor(outs[2]), tt_ev_tensor(outs[3]),
      tt_ev_tensor_list(4, outs)};
  tt_expect_status(tt_call("aten::_embedding_bag.out", args, 14), ETR_OK);
  tt_expect_shape(outs[0], TT_SIZES(2, 2));
  tt_expect_values(outs[0], TT_VALUES(6, 7, 0, 1), 4);  // max of rows 3,1,1
  tt_expect_values(outs[1], TT_VALUES(0, 0, 0, 1), 4);  // offset2bag
  tt_expect_values(outs[2], TT_VALUES(3, 1), 2);        // bag_size
  tt_expect_shape(outs[3], TT_SIZES(2, 2));
  tt_expect_values(outs[3], TT_VALUES(3, 3, 0, 0), 4);  // rows chosen
  // The index outs must have the index dtype; a wrong argument count.
  outs[2] = tt_out(ETR_LONG, TT_SIZES(1), 8);
  args[11] = tt_ev_tensor(outs[2]);
  tt_expect_status(tt_call("aten::_embedding_bag.out", args, 14), kBad);
  tt_expect_status(tt_call("aten::_embedding_bag.out", args, 13),
                   ETR_ERR_INVALID_PROGRAM);
  // Hostile mode and padding_idx values.
  outs[2] = tt_out(ETR_INT, TT_SIZES(1), 8);
  args[11] = tt_ev_tensor(outs[2]);
  args[4] = tt_ev_int(INT64_MIN);
  tt_expect_status(tt_call("aten::_embedding_bag.out", args, 14), kBad);
  args[4] = tt_ev_int(1);
  args[8] = tt_ev_int(INT64_MAX);
  tt_expect_status(tt_call("aten::_embedding_bag.out", args, 14), ETR_OK);
  tt_expect_values(outs[0], TT_VALUES(10.0 / 3, 13.0 / 3, 0, 1), 4);  // mean
}

// ---------------------------------------------------------------------------
// Hostile int64 arguments: refused with InvalidArgument (or accepted where
// PyTorch accepts them), never undefined behaviour (this suite also runs
// under ASan + UBSan).

typedef struct hostile_case {
  const char *op;
  etr_error_t status;
  size_t num_args;
  etr_evalue_t *args[8];
} hostile_case_t;

#define HOSTILE(op, status, ...)                                            \
  {op, status, sizeof((etr_evalue_t *[]){__VA_ARGS__}) /                    \
                   sizeof(etr_evalue_t *),                                  \
   {__VA_ARGS__}}

TT_TEST(movement_rules, hostile_int64_arguments) {
  const int64_t kMax = INT64_MAX;
  const int64_t kMin = INT64_MIN;
  etr_tensor_t *x = arange(ETR_FLOAT, TT_SIZES(2, 3));
  etr_tensor_t *x3 = arange(ETR_FLOAT, TT_SIZES(1, 2, 3));
  etr_tensor_t *x4 = arange(ETR_FLOAT, TT_SIZES(1, 1, 2, 3));
  etr_tensor_t *i8 = arange(ETR_CHAR, TT_SIZES(2));
  etr_tensor_t *index = tt_tensor(ETR_LONG, TT_SIZES(1, 1), TT_VALUES(0));
  etr_evalue_t *o = tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(1), 64));
  etr_evalue_t *o8 = tt_ev_tensor(tt_out(ETR_CHAR, TT_SIZES(1), 8));
  etr_evalue_t *X = tt_ev_tensor(x);
  const hostile_case_t cases[] = {
      HOSTILE("aten::as_strided_copy.out", kBad, X, TT_EV_INTS(kMax),
              TT_EV_INTS(1), tt_ev_none(), o, o),
      HOSTILE("aten::as_strided_copy.out", kBad, X, TT_EV_INTS(2, kMax),
              TT_EV_INTS(kMax, 1), tt_ev_none(), o, o),
      HOSTILE("aten::as_strided_copy.out", kBad, X, TT_EV_INTS(2),
              TT_EV_INTS(1), tt_ev_int(kMax), o, o),
      HOSTILE("aten::as_strided_copy.out", kBad, X, TT_EV_INTS(3),
              TT_EV_INTS(kMax / 2 + 1), tt_ev_int(0), o, o),
      HOSTILE("aten::as_strided_copy.out", ETR_OK, X, TT_EV_INTS(0, kMax),
              TT_EV_INTS(kMax, kMax), tt_ev_int(kMax), o, o),
      HOSTILE("aten::constant_pad_nd.out", kBad, X, TT_EV_INTS(kMax, kMax),
              tt_ev_int(0), o, o),
      HOSTILE("aten::constant_pad_nd.out", kBad, X, TT_EV_INTS(kMin, 0),
              tt_ev_int(0), o, o),
      HOSTILE("aten::constant_pad_nd.out", kBad, X, TT_EV_INTS(0, kMin),
              tt_ev_int(0), o, o),
      HOSTILE("aten::constant_pad_nd.out", kBad, X,
              TT_EV_INTS(kMax, kMin + 1), tt_ev_int(0), o, o),
      HOSTILE("aten::reflection_pad1d.out", kBad, tt_ev_tensor(x3),
              TT_EV_INTS(kMin, 0), o, o),
      HOSTILE("aten::reflection_pad1d.out", kBad, tt_ev_tensor(x3),
              TT_EV_INTS(kMin, kMin), o, o),
      HOSTILE("aten::reflection_pad2d.out", kBad, tt_ev_tensor(x4),
              TT_EV_INTS(0, 0, kMax, 0), o, o),
      HOSTILE("aten::replication_pad2d.out", kBad, tt_ev_tensor(x4),
              TT_EV_INTS(kMax, kMax, 0, 0), o, o),
      HOSTILE("aten::replication_pad2d.out", kBad, tt_ev_tensor(x4),
              TT_EV_INTS(kMax, kMin, 0, 0), o, o),
      // 1 + INT64_MIN + INT64_MAX is 0 without overflowing: a valid crop.
      HOSTILE("aten::replication_pad3d.out", ETR_OK, tt_ev_tensor(x4),
              TT_EV_INTS(0, 0, 0, 0, kMin, kMax), o, o),
      HOSTILE("aten::replication_pad3d.out", kBad, tt_ev_tensor(x4),
              TT_EV_INTS(0, 0, 0, 0, kMax, kMax), o, o),
      HOSTILE("aten::repeat.out", kBad, X, TT_EV_INTS(kMax, 2), o, o),
      HOSTILE("aten::repeat.out", kBad, X, TT_EV_INTS(3, kMax / 2), o, o),
      HOSTILE("aten::repeat.out", kBad, X, TT_EV_INTS(kMin, 1), o, o),
      HOSTILE("aten::diagonal_copy.out", ETR_OK, X, tt_ev_int(kMin),
              tt_ev_int(0), tt_ev_int(1), o, o),
      HOSTILE("aten::diagonal_copy.out", kBad, X, tt_ev_int(0),
              tt_ev_int(kMin), tt_ev_int(1), o, o),
      HOSTILE("aten::empty.out", kBad, TT_EV_INTS(kMax), tt_ev_none(), o, o),
      HOSTILE("aten::empty.out", kBad, TT_EV_INTS(kMax, kMax, 0),
              tt_ev_none(), o, o),
      HOSTILE("aten::empty_strided.out", kBad, TT_EV_INTS(3, 3),
              TT_EV_INTS(kMax, kMax), o, o),
      HOSTILE("aten::empty_strided.out", ETR_OK, TT_EV_INTS(1, 0),
              TT_EV_INTS(kMax, kMax), o, o),
      HOSTILE("aten::flip.out", kBad, X, TT_EV_INTS(kMin), o, o),
      HOSTILE("aten::gather.out", kBad, X, tt_ev_int(kMax),
              tt_ev_tensor(index), tt_ev_bool(false), o, o),
      HOSTILE("aten::scatter.value_out", kBad, X, tt_ev_int(kMin),
              tt_ev_tensor(index), tt_ev_int(1), o, o),
      HOSTILE("aten::select_scatter.out", kBad, X, tt_ev_tensor(x),
              tt_ev_int(0), tt_ev_int(kMin), o, o),
      HOSTILE("aten::squeeze_copy.dim_out", kBad, X, tt_ev_int(kMin), o, o),
      HOSTILE("aten::index_select.out", kBad, X, tt_ev_int(kMax),
              tt_ev_tensor(index), o, o),
      HOSTILE("aten::embedding.out", ETR_OK, X, tt_ev_tensor(index),
              tt_ev_int(kMin), tt_ev_bool(true), tt_ev_bool(true), o, o),
      HOSTILE("aten::fill.Scalar_out", kBad, tt_ev_tensor(i8), tt_ev_int(kMin),
              o8, o8),
      HOSTILE("aten::fill.Scalar_out", kBad, tt_ev_tensor(i8),
              tt_ev_double(-INFINITY), o8, o8),
      HOSTILE("aten::scalar_tensor.out", kBad, tt_ev_double(NAN), o8, o8),
      HOSTILE("aten::arange.start_out", kBad, tt_ev_double(0),
              tt_ev_double(1e300), tt_ev_double(1e-300), o, o),
      HOSTILE("aten::resize_", kBad, tt_ev_tensor(tt_out(ETR_FLOAT,
                                                         TT_SIZES(2), 2)),
              TT_EV_INTS(kMax, kMax), tt_ev_none(), o),
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const hostile_case_t *c = &cases[i];
    etr_evalue_t *args[8];
    memcpy(args, c->args, sizeof(args));
    if (strcmp(c->op, "aten::resize_") == 0) {
      args[3] = args[0];  // the return slot is self
    }
    etr_error_t status = tt_call(c->op, args, c->num_args);
    cr_expect_eq(status, c->status, "hostile case %zu (%s): %s, expected %s",
                 i, c->op, etr_error_name(status), etr_error_name(c->status));
  }
}

// ---------------------------------------------------------------------------
// Calling-convention errors: a wrong argument count is InvalidProgram, an
// argument of the wrong tag InvalidType, an out of another dtype
// InvalidArgument.

typedef struct call_case {
  const char *op;
  bool out_dtype_free;  // the out's dtype is the result's (arange, empty...)
  size_t num_args;      // schema arguments, out included, no return slot
  etr_evalue_t *args[10];
} call_case_t;

#define CALL(op, free, ...)                                                  \
  {op, free, sizeof((etr_evalue_t *[]){__VA_ARGS__}) / sizeof(etr_evalue_t *), \
   {__VA_ARGS__}}

TT_TEST(movement_rules, calling_convention_errors) {
  etr_tensor_t *x = arange(ETR_FLOAT, TT_SIZES(2, 3));
  etr_tensor_t *x4 = arange(ETR_FLOAT, TT_SIZES(1, 2, 2, 3));
  etr_tensor_t *index = tt_tensor(ETR_LONG, TT_SIZES(1, 1), TT_VALUES(1));
  etr_tensor_t *flat_index = tt_tensor(ETR_LONG, TT_SIZES(1), TT_VALUES(1));
  etr_tensor_t *row = arange(ETR_FLOAT, TT_SIZES(3));
  etr_evalue_t *X = tt_ev_tensor(x);
  etr_evalue_t *X3 = tt_ev_tensor(arange(ETR_FLOAT, TT_SIZES(1, 2, 3)));
  etr_evalue_t *X4 = tt_ev_tensor(x4);
  etr_evalue_t *X5 = tt_ev_tensor(arange(ETR_FLOAT, TT_SIZES(1, 1, 2, 2, 3)));
  const call_case_t cases[] = {
      CALL("aten::alias_copy.out", false, X, NULL),
      CALL("aten::as_strided_copy.out", false, X, TT_EV_INTS(2),
           TT_EV_INTS(1), tt_ev_none(), NULL),
      CALL("aten::arange.start_out", true, tt_ev_int(0), tt_ev_int(3),
           tt_ev_int(1), NULL),
      CALL("aten::constant_pad_nd.out", false, X, TT_EV_INTS(1, 1),
           tt_ev_int(0), NULL),
      CALL("aten::diagonal_copy.out", false, X, tt_ev_int(0), tt_ev_int(0),
           tt_ev_int(1), NULL),
      CALL("aten::embedding.out", false, X, tt_ev_tensor(flat_index),
           tt_ev_int(-1), tt_ev_bool(false), tt_ev_bool(false), NULL),
      CALL("aten::empty.out", true, TT_EV_INTS(2), tt_ev_none(), NULL),
      CALL("aten::empty_strided.out", true, TT_EV_INTS(2), TT_EV_INTS(1),
           NULL),
      CALL("dim_order_ops::_empty_dim_order.out", true, TT_EV_INTS(2),
           tt_ev_none(), NULL),
      CALL("aten::fill.Scalar_out", false, X, tt_ev_int(1), NULL),
      CALL("aten::flip.out", false, X, TT_EV_INTS(0), NULL),
      CALL("aten::gather.out", false, X, tt_ev_int(1), tt_ev_tensor(index),
           tt_ev_bool(false), NULL),
      CALL("aten::index.Tensor_out", false, X,
           tt_ev_optional_tensor_list(TT_TENSORS(flat_index)), NULL),
      CALL("aten::index_select.out", false, X, tt_ev_int(0),
           tt_ev_tensor(flat_index), NULL),
      CALL("aten::reflection_pad1d.out", false, X3, TT_EV_INTS(1, 1), NULL),
      CALL("aten::reflection_pad2d.out", false, X4, TT_EV_INTS(1, 1, 1, 1),
           NULL),
      CALL("aten::reflection_pad3d.out", false, X5,
           TT_EV_INTS(1, 1, 1, 1, 0, 0), NULL),
      CALL("aten::replication_pad2d.out", false, X4, TT_EV_INTS(1, 1, 1, 1),
           NULL),
      CALL("aten::replication_pad3d.out", false, X5,
           TT_EV_INTS(1, 1, 1, 1, 1, 1), NULL),
      CALL("aten::repeat.out", false, X, TT_EV_INTS(1, 2), NULL),
      CALL("aten::scalar_tensor.out", true, tt_ev_int(1), NULL),
      CALL("aten::scatter.src_out", false, X, tt_ev_int(1),
           tt_ev_tensor(index), X, NULL),
      CALL("aten::scatter.value_out", false, X, tt_ev_int(1),
           tt_ev_tensor(index), tt_ev_int(1), NULL),
      CALL("aten::scatter_add.out", false, X, tt_ev_int(1),
           tt_ev_tensor(index), X, NULL),
      CALL("aten::scatter_reduce.two_out", false, X, tt_ev_int(1),
           tt_ev_tensor(index), X, tt_ev_string("sum"), tt_ev_bool(true),
           NULL),
      CALL("aten::select_scatter.out", false, X, tt_ev_tensor(row),
           tt_ev_int(0), tt_ev_int(1), NULL),
      CALL("aten::squeeze_copy.dim_out", false, X, tt_ev_int(0), NULL),
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const call_case_t *c = &cases[i];
    size_t n = c->num_args;  // the last one is the out (NULL above)
    etr_evalue_t *args[12];
    memcpy(args, c->args, sizeof(etr_evalue_t *) * n);
    etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1), 256);
    args[n - 1] = tt_ev_tensor(out);
    args[n] = args[n - 1];
    etr_error_t status = tt_call(c->op, args, n + 1);
    cr_expect_eq(status, ETR_OK, "%s: %s", c->op, etr_error_name(status));
    status = tt_call(c->op, args, n);
    cr_expect_eq(status, ETR_ERR_INVALID_PROGRAM, "%s with %zu args: %s",
                 c->op, n, etr_error_name(status));
    etr_evalue_t *first = args[0];
    args[0] = tt_ev_string("nonsense");
    status = tt_call(c->op, args, n + 1);
    cr_expect_eq(status, ETR_ERR_INVALID_TYPE, "%s with a string: %s", c->op,
                 etr_error_name(status));
    args[0] = first;
    if (!c->out_dtype_free) {
      etr_tensor_t *wrong = tt_out(ETR_DOUBLE, TT_SIZES(1), 256);
      args[n - 1] = tt_ev_tensor(wrong);
      args[n] = args[n - 1];
      status = tt_call(c->op, args, n + 1);
      cr_expect_eq(status, kBad, "%s into a Double out: %s", c->op,
                   etr_error_name(status));
    }
  }
}
