// SPDX-License-Identifier: Apache-2.0
//
// The dtype sweep: every reference kernel against every dtype PyTorch has
// (Bool, uint8 and the signed integer types, Half, BFloat16, Float,
// Double, ComplexFloat, ComplexDouble, uint16/32/64), on small integer inputs
// every dtype holds exactly (generated/sweep_cases.h). Where PyTorch computes a
// result the kernel must produce it (values, shape and out dtype from PyTorch);
// where PyTorch refuses the dtype the kernel must fail with the code the case
// names (NotSupported unless gen_cases.py's SWEEP_ERRORS says otherwise);
// dtypes PyTorch accepts but etref does not implement are listed in
// gen_cases.py's SWEEP_NOT_IMPLEMENTED and expected as NotSupported.
#include <string.h>

#include "ops_reference/test/generated/sweep_cases.h"
#include "ops_reference/test/test_util.h"

static etr_evalue_t *make_arg(const sweep_arg_t *arg) {
  switch (arg->kind) {
    case SW_TENSOR:
      return tt_ev_tensor(tt_case_tensor(&arg->tensor));
    case SW_INT:
      return tt_ev_int(arg->int_value);
    case SW_DOUBLE:
      return tt_ev_double(arg->double_value);
    case SW_BOOL:
      return tt_ev_bool(arg->int_value != 0);
    case SW_INTS:
      return tt_ev_case_ints(&arg->ints);
    case SW_STRING:
      return tt_ev_string(arg->string);
    case SW_TENSORS:
    case SW_OPTIONAL_TENSORS: {
      etr_tensor_t **tensors =
          tt_alloc(sizeof(etr_tensor_t *) * (arg->num_tensors + 1));
      for (size_t i = 0; i < arg->num_tensors; ++i) {
        tensors[i] = tt_case_tensor(&arg->tensors[i]);
      }
      return arg->kind == SW_TENSORS
                 ? tt_ev_tensor_list(arg->num_tensors, tensors)
                 : tt_ev_optional_tensor_list(arg->num_tensors, tensors);
    }
    case SW_NONE:
    default:
      return tt_ev_none();
  }
}

TT_TEST(dtype_sweep, every_kernel_every_dtype) {
  size_t count = sizeof(kSweepCases) / sizeof(kSweepCases[0]);
  for (size_t i = 0; i < count; ++i) {
    const sweep_case_t *c = &kSweepCases[i];
    cr_log_info("case %s (%s)", c->name, c->op);
    etr_evalue_t *args[16];
    size_t n = 0;
    for (size_t k = 0; k < c->num_args; ++k) {
      args[n++] = make_arg(&c->args[k]);
    }
    etr_tensor_t *outs[3] = {NULL, NULL, NULL};
    for (size_t k = 0; k < c->num_outs; ++k) {
      outs[k] = tt_case_out(&c->outs[k]);
    }
    if (strcmp(c->op, "aten::split_with_sizes_copy.out") == 0) {
      // The outs are the Tensor[] argument; the return slot repeats them.
      etr_evalue_t *list = tt_ev_tensor_list(c->num_outs, outs);
      args[n++] = list;
      args[n++] = list;
    } else {
      for (size_t k = 0; k < c->num_outs; ++k) {
        args[n++] = tt_ev_tensor(outs[k]);
      }
      args[n++] = c->num_outs == 1 ? tt_ev_tensor(outs[0])
                                   : tt_ev_tensor_list(c->num_outs, outs);
    }
    etr_error_t status = tt_call(c->op, args, n);
    cr_expect_eq(status, c->status, "%s: %s, expected %s", c->name,
                 etr_error_name(status), etr_error_name(c->status));
    if (c->expect_values && status == ETR_OK) {
      for (size_t k = 0; k < c->num_outs; ++k) {
        tt_expect_case(outs[k], &c->outs[k]);
      }
    }
  }
}
