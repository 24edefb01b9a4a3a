// SPDX-License-Identifier: Apache-2.0
//
// Replays one generated case of the binary family (binary_case_t, written
// by gen_binary_cases.py): builds its arguments in a given layout, calls
// the kernel through tt_call (which also checks the dry run), and compares
// the status and, when PyTorch computed a result, the out's dtype, shape
// and values. Header-only so each test binary includes exactly the cases
// it replays.
#ifndef ETR_OPS_REFERENCE_TEST_BINARY_CASE_RUNNER_H
#define ETR_OPS_REFERENCE_TEST_BINARY_CASE_RUNNER_H

#include "ops_reference/test/test_util.h"

static etr_evalue_t *binary_case_arg(const sweep_arg_t *arg,
                                     tt_layout_t layout) {
  switch (arg->kind) {
    case SW_TENSOR:
      return tt_ev_tensor(tt_relayout(tt_case_tensor(&arg->tensor), layout));
    case SW_INT:
      return tt_ev_int(arg->int_value);
    case SW_DOUBLE:
      return tt_ev_double(arg->double_value);
    case SW_BOOL:
      return tt_ev_bool(arg->int_value != 0);
    case SW_STRING:
      return tt_ev_string(arg->string);
    case SW_NONE:
    default:
      return tt_ev_none();
  }
}

// The out: 1-D with spare room (the kernel must resize it); or, when the
// call succeeds, a strided view of the result shape in the non-contiguous
// layout and a channels-last tensor of a rank-4 result in the
// channels-last layout (the kernel must write them in their own layout).
static etr_tensor_t *binary_case_out(const binary_case_t *c,
                                     tt_layout_t layout) {
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  const tt_case_tensor_t *expected = &c->out;
  if (c->status != ETR_OK) {
    return tt_case_out(expected);
  }
  if (layout == TT_NONCONTIGUOUS) {
    return tt_noncontiguous(
        tt_tensor(expected->dtype, expected->dim, expected->sizes, NULL));
  }
  if (layout == TT_CHANNELS_LAST && expected->dim == 4) {
    return tt_out_dim_order(expected->dtype, 4, expected->sizes,
                            kChannelsLast);
  }
  return tt_case_out(expected);
}

static void binary_run_case(const binary_case_t *c, tt_layout_t layout) {
  cr_log_info("case %s (%s, %s)", c->name, c->op, tt_layout_name(layout));
  etr_evalue_t *args[8];
  size_t n = 0;
  for (size_t k = 0; k < c->num_args; ++k) {
    args[n++] = binary_case_arg(&c->args[k], layout);
  }
  etr_tensor_t *out = binary_case_out(c, layout);
  args[n++] = tt_ev_tensor(out);
  args[n++] = tt_ev_tensor(out);  // the return slot
  etr_error_t status = tt_call(c->op, args, n);
  cr_expect_eq(status, c->status, "%s (%s, %s): %s, expected %s: %s",
               c->name, c->op, tt_layout_name(layout), etr_error_name(status),
               etr_error_name(c->status), tt_last_diag()->message);
  if (status == ETR_OK && c->expect_values) {
    tt_expect_case(out, &c->out);
  }
}

#endif  // ETR_OPS_REFERENCE_TEST_BINARY_CASE_RUNNER_H
