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
