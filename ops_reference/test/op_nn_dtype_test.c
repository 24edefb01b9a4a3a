// SPDX-License-Identifier: Apache-2.0
//
// Dtype acceptance of every nn family kernel: each op called on the 15
// dtypes etref tests (Bool, the integer types, Half, BFloat16, Float,
// Double, the complex types, uint16/32/64) with small exact inputs. Where
// PyTorch 2.13's CPU kernel computes, the outs must take its values (in
// every layout); where it refuses the dtype ("not implemented for",
// "Only supports floating-point dtypes", "MKL FFT doesn't support"), the
// kernel must return NotSupported. Cases from gen_nn_cases.py.
#include <string.h>

#include "ops_reference/test/generated/nn_dtypes_cases.h"
#include "ops_reference/test/op_nn_case_util.h"
#include "ops_reference/test/test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

TT_TEST(nn_dtype, every_op_every_dtype) {
  size_t accepted = 0;
  for (size_t i = 0; i < COUNT(kNnDtypesCases); ++i) {
    accepted += kNnDtypesCases[i].status == ETR_OK;
  }
  // 21 ops x 15 dtypes; PyTorch accepts about a third of the pairs.
  cr_expect_eq(COUNT(kNnDtypesCases), 21u * 15u);
  cr_expect_gt(accepted, 80u);
  // Group norm refuses strided inputs: its cases run in dense layouts.
  for (size_t i = 0; i < COUNT(kNnDtypesCases); ++i) {
    const nn_case_t *c = &kNnDtypesCases[i];
    bool dense_only = strcmp(c->op, "aten::native_group_norm.out") == 0;
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      if (dense_only && layout == TT_NONCONTIGUOUS) {
        continue;
      }
      cr_log_info("%s %s, %s", c->op, c->name,
                  tt_layout_name((tt_layout_t)layout));
      nn_run_case(c, (tt_layout_t)layout);
    }
  }
}
