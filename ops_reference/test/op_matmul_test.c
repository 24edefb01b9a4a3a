// SPDX-License-Identifier: Apache-2.0
//
// aten::mm.out, aten::bmm.out, aten::addmm.out and aten::linear.out
// against PyTorch-generated cases (Float, Double, Half, BFloat16, int32,
// int8 with wrap-around, complex64; broadcast biases; a 1-D weight), with
// contiguous and non-contiguous (transposed-storage) operands; empty inner
// dims, beta = 0 ignoring NaN, and the exact error codes.
#include <math.h>
#include <string.h>

#include "ops_reference/test/generated/matmul_cases.h"
#include "ops_reference/test/test_util.h"

static etr_evalue_t *scalar_for(etr_scalar_type_t dtype, double value) {
  return etr_scalar_type_is_floating(dtype) ||
                 etr_scalar_type_is_complex(dtype)
             ? tt_ev_double(value)
             : tt_ev_int((int64_t)value);
}

static etr_error_t run_case(const matmul_case_t *c, int layout,
                            etr_tensor_t *out) {
  etr_tensor_t *a = tt_relayout(tt_case_tensor(&c->a), layout);
  etr_tensor_t *b = tt_relayout(tt_case_tensor(&c->b), layout);
  etr_tensor_t *third = tt_relayout(tt_case_tensor(&c->c), layout);
  if (strcmp(c->op, "aten::addmm.out") == 0) {
    return TT_CALL(c->op, tt_ev_tensor(a), tt_ev_tensor(b),
                   tt_ev_tensor(third), scalar_for(c->a.dtype, c->beta),
                   scalar_for(c->a.dtype, c->alpha), tt_ev_tensor(out),
                   tt_ev_tensor(out));
  }
  if (strcmp(c->op, "aten::linear.out") == 0) {
    return TT_CALL(c->op, tt_ev_tensor(a), tt_ev_tensor(b),
                   third != NULL ? tt_ev_tensor(third) : tt_ev_none(),
                   tt_ev_tensor(out), tt_ev_tensor(out));
  }
  return TT_CALL(c->op, tt_ev_tensor(a), tt_ev_tensor(b), tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

TT_TEST(matmul, generated_cases) {
  for (size_t i = 0; i < sizeof(kMatmulCases) / sizeof(kMatmulCases[0]);
       ++i) {
    const matmul_case_t *c = &kMatmulCases[i];
    for (int layout = 0; layout < 2; ++layout) {
      cr_log_info("case %s, %s", c->name, tt_layout_name(layout));
      etr_tensor_t *out = tt_case_out(&c->expected);
      tt_expect_status(run_case(c, layout, out), ETR_OK);
      tt_expect_case(out, &c->expected);
    }
  }
}

TT_TEST(matmul, empty_inner_dim_and_beta_zero) {
  etr_tensor_t *a = tt_tensor(ETR_FLOAT, TT_SIZES(2, 0), NULL);
  etr_tensor_t *b = tt_tensor(ETR_FLOAT, TT_SIZES(0, 2), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2, 2), 0);
  tt_expect_status(TT_CALL("aten::mm.out", tt_ev_tensor(a), tt_ev_tensor(b),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 0, 0, 0), 4);
  // beta = 0 ignores NaN in self (PyTorch: addmm([nan], ..., beta=0) = 2).
  etr_tensor_t *nan = tt_tensor(ETR_FLOAT, TT_SIZES(1), TT_VALUES(NAN));
  etr_tensor_t *ones_a = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2), TT_VALUES(1, 1));
  etr_tensor_t *ones_b = tt_tensor(ETR_FLOAT, TT_SIZES(2, 1), TT_VALUES(1, 1));
  etr_tensor_t *out1 = tt_out(ETR_FLOAT, TT_SIZES(1, 1), 0);
  tt_expect_status(TT_CALL("aten::addmm.out", tt_ev_tensor(nan),
                           tt_ev_tensor(ones_a), tt_ev_tensor(ones_b),
                           tt_ev_int(0), tt_ev_int(1), tt_ev_tensor(out1),
                           tt_ev_tensor(out1)),
                   ETR_OK);
  tt_expect_values(out1, TT_VALUES(2), 1);
}

TT_TEST(matmul, rejects) {
  etr_tensor_t *a = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3), NULL);
  etr_tensor_t *b = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2), NULL);
  etr_tensor_t *bd = tt_tensor(ETR_DOUBLE, TT_SIZES(3, 2), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2, 2), 0);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  tt_expect_status(TT_CALL("aten::mm.out", tt_ev_tensor(a), tt_ev_tensor(b),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
  tt_expect_status(TT_CALL("aten::mm.out", tt_ev_tensor(a), tt_ev_tensor(bd),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
  etr_tensor_t *a3 = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 3), NULL);
  tt_expect_status(TT_CALL("aten::mm.out", tt_ev_tensor(a3), tt_ev_tensor(b),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
  etr_tensor_t *batch = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3, 2), NULL);
  etr_tensor_t *out3 = tt_out(ETR_FLOAT, TT_SIZES(2, 2, 2), 0);
  tt_expect_status(TT_CALL("aten::bmm.out", tt_ev_tensor(a3),
                           tt_ev_tensor(batch), tt_ev_tensor(out3),
                           tt_ev_tensor(out3)),
                   bad);
  etr_tensor_t *bias = tt_tensor(ETR_FLOAT, TT_SIZES(3), NULL);
  etr_tensor_t *b32 = tt_tensor(ETR_FLOAT, TT_SIZES(3, 2), NULL);
  tt_expect_status(TT_CALL("aten::addmm.out", tt_ev_tensor(bias),
                           tt_ev_tensor(a), tt_ev_tensor(b32), tt_ev_int(1),
                           tt_ev_int(1), tt_ev_tensor(out), tt_ev_tensor(out)),
                   bad);
  etr_tensor_t *w = tt_tensor(ETR_FLOAT, TT_SIZES(4, 2), NULL);
  etr_tensor_t *out_l = tt_out(ETR_FLOAT, TT_SIZES(2, 4), 0);
  tt_expect_status(TT_CALL("aten::linear.out", tt_ev_tensor(a),
                           tt_ev_tensor(w), tt_ev_none(), tt_ev_tensor(out_l),
                           tt_ev_tensor(out_l)),
                   bad);
  etr_tensor_t *small = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(TT_CALL("aten::mm.out", tt_ev_tensor(a), tt_ev_tensor(b32),
                           tt_ev_tensor(small), tt_ev_tensor(small)),
                   bad);
  etr_tensor_t *bool_a = tt_tensor(ETR_BOOL, TT_SIZES(2, 2), NULL);
  etr_tensor_t *bool_out = tt_out(ETR_BOOL, TT_SIZES(2, 2), 0);
  tt_expect_status(TT_CALL("aten::mm.out", tt_ev_tensor(bool_a),
                           tt_ev_tensor(bool_a), tt_ev_tensor(bool_out),
                           tt_ev_tensor(bool_out)),
                   ETR_ERR_NOT_SUPPORTED);
}
