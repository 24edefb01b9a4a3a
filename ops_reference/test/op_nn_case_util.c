// SPDX-License-Identifier: Apache-2.0
//
// Replaying the nn family's generated cases (see op_nn_case_util.h).
#include "ops_reference/test/op_nn_case_util.h"

#include <string.h>

#define NN_MAX_ARGS 24

etr_tensor_t *nn_placeholder(void) {
  etr_tensor_t *tensor = tt_alloc(sizeof(etr_tensor_t));
  int64_t size = 0;
  cr_assert_eq(etr_tensor_init(tensor, ETR_BYTE, 1, &size, NULL, 0, NULL),
               ETR_OK);
  return tensor;
}

// An out tensor for `expected`: 1-D with spare room (the kernel must
// resize it), or channels-last of the expected shape for a 4-D out in the
// channels-last layout.
static etr_tensor_t *make_out(const tt_case_tensor_t *expected,
                              tt_layout_t layout) {
  if (layout == TT_CHANNELS_LAST && expected->dim == 4) {
    static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
    return tt_out_dim_order(expected->dtype, 4, expected->sizes,
                            kChannelsLast);
  }
  return tt_case_out(expected);
}

void nn_run_case(const nn_case_t *c, tt_layout_t layout) {
  cr_assert(c->num_args + 1 <= NN_MAX_ARGS);
  etr_evalue_t *args[NN_MAX_ARGS];
  etr_tensor_t *tensors[NN_MAX_ARGS];
  etr_tensor_t *outs[NN_MAX_ARGS];
  etr_tensor_t placeholder_before[NN_MAX_ARGS];
  size_t num_outs = 0;
  for (size_t i = 0; i < c->num_args; ++i) {
    const nn_arg_t *a = &c->args[i];
    tensors[i] = NULL;
    switch (a->kind) {
      case NN_TENSOR:
      case NN_INOUT:
        tensors[i] = tt_relayout(tt_case_tensor(&a->tensor), layout);
        args[i] = tt_ev_tensor(tensors[i]);
        break;
      case NN_NONE:
        args[i] = tt_ev_none();
        break;
      case NN_INT:
        args[i] = tt_ev_int(a->int_value);
        break;
      case NN_DOUBLE:
        args[i] = tt_ev_double(a->double_value);
        break;
      case NN_BOOL:
        args[i] = tt_ev_bool(a->int_value != 0);
        break;
      case NN_INTS:
        args[i] = tt_ev_int_list(a->count, a->ints);
        break;
      case NN_DOUBLES:
        args[i] = tt_ev_double_list(a->count, a->doubles);
        break;
      case NN_BOOLS:
        args[i] = tt_ev_bool_list(a->count, a->bools);
        break;
      case NN_OUT:
        tensors[i] = make_out(&a->tensor, layout);
        outs[num_outs++] = tensors[i];
        args[i] = tt_ev_tensor(tensors[i]);
        break;
      case NN_MASKED:
        tensors[i] = nn_placeholder();
        placeholder_before[i] = *tensors[i];
        outs[num_outs++] = tensors[i];
        args[i] = tt_ev_tensor(tensors[i]);
        break;
    }
  }
  args[c->num_args] = num_outs == 1 ? tt_ev_tensor(outs[0])
                                    : tt_ev_tensor_list(num_outs, outs);
  etr_error_t status = tt_call(c->op, args, c->num_args + 1);
  tt_expect_status(status, c->status);
  if (status != ETR_OK || c->status != ETR_OK) {
    return;
  }
  for (size_t i = 0; i < c->num_args; ++i) {
    const nn_arg_t *a = &c->args[i];
    if (a->kind == NN_OUT) {
      cr_log_info("  out argument %zu", i);
      tt_expect_case(tensors[i], &a->tensor);
    } else if (a->kind == NN_INOUT) {
      cr_log_info("  in-place argument %zu", i);
      tt_expect_case(tensors[i], &a->after);
    } else if (a->kind == NN_MASKED) {
      cr_expect(memcmp(&placeholder_before[i], tensors[i],
                       sizeof(etr_tensor_t)) == 0,
                "%s: the masked-out argument %zu was changed", c->op, i);
    }
  }
}

size_t nn_run_cases(const nn_case_t *cases, size_t count, const char *op) {
  size_t ran = 0;
  for (size_t i = 0; i < count; ++i) {
    if (op != NULL && strcmp(cases[i].op, op) != 0) {
      continue;
    }
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      cr_log_info("%s case %s, %s", cases[i].op, cases[i].name,
                  tt_layout_name((tt_layout_t)layout));
      nn_run_case(&cases[i], (tt_layout_t)layout);
    }
    ++ran;
  }
  return ran;
}
