// SPDX-License-Identifier: Apache-2.0
//
// Replays the PyTorch-generated cases of the reduce family
// (generated/reduce_family_cases.h, from gen_reduce_cases.py): amax, amin,
// argmax, argmin, max.dim, min.dim, any.dims/any.out, mean.dtype_out,
// prod, var, cumsum, sort, topk, _cdist_forward, _pdist_forward, nonzero,
// native_dropout and the shapes and refusals of rand, randn and randperm,
// over every dtype PyTorch has. Each case runs with its tensor inputs
// contiguous, non-contiguous (strided, transposed, poisoned gaps) and
// channels-last (rank-4 inputs), and once more with channels-last outs
// where an out has rank 4. Statuses must equal the code the case names;
// values use test_util.h's tolerances (integers, Bool and indices exact).
#include <string.h>

#include "core/arena.h"
#include "ops_reference/test/generated/reduce_family_cases.h"
#include "ops_reference/test/test_util.h"

static etr_evalue_t *make_arg(const sweep_arg_t *arg, tt_layout_t layout) {
  switch (arg->kind) {
    case SW_TENSOR:
      return tt_ev_tensor(tt_relayout(tt_case_tensor(&arg->tensor), layout));
    case SW_INT:
      return tt_ev_int(arg->int_value);
    case SW_DOUBLE:
      return tt_ev_double(arg->double_value);
    case SW_BOOL:
      return tt_ev_bool(arg->int_value != 0);
    case SW_INTS:
      return tt_ev_case_ints(&arg->ints);
    case SW_NONE:
    default:
      return tt_ev_none();
  }
}

// The tensors an argument list refers to (Tensor and Tensor[] EValues),
// each once.
static size_t collect_tensors(etr_evalue_t **args, size_t n,
                              etr_tensor_t **tensors, size_t capacity) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    size_t items = args[i]->tag == ETR_TAG_LIST_TENSOR
                       ? args[i]->u.as_tensor_list.length
                       : (args[i]->tag == ETR_TAG_TENSOR ? 1 : 0);
    for (size_t j = 0; j < items; ++j) {
      etr_tensor_t *tensor = args[i]->tag == ETR_TAG_TENSOR
                                 ? args[i]->u.as_tensor
                                 : etr_tensor_list_get(args[i], j);
      bool seen = tensor == NULL;
      for (size_t k = 0; k < count && !seen; ++k) {
        seen = tensors[k] == tensor;
      }
      if (!seen && count < capacity) {
        tensors[count++] = tensor;
      }
    }
  }
  return count;
}

// tt_call's protocol (a dry run with every data pointer NULL, then the
// real call; same status unless the failure depends on values, same out
// shapes) with a scratch arena in ctx->temp, which topk's nth_element
// route needs. nonzero's out shape depends on the data, which a dry run
// cannot see (op_nonzero.c), so its shapes are not compared.
static etr_error_t call_case(const char *op, etr_evalue_t **args, size_t n) {
  static uint8_t scratch[1 << 16];
  etr_arena_t temp;
  etr_arena_init(&temp, scratch, sizeof(scratch));
  etr_diag_t diag;
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &diag;
  ctx.op_name = op;
  ctx.temp = &temp;
  etr_kernel_fn fn = tt_find_kernel(op);
  cr_assert_not_null(fn, "%s is not registered", op);
  etr_tensor_t *tensors[8];
  etr_tensor_t saved[8];
  etr_tensor_t dry[8];
  size_t count = collect_tensors(args, n, tensors, 8);
  for (size_t i = 0; i < count; ++i) {
    saved[i] = *tensors[i];
    tensors[i]->data = NULL;
  }
  etr_diag_reset(&diag);
  ctx.dry_run = true;
  etr_error_t dry_status = fn(&ctx, args, n);
  for (size_t i = 0; i < count; ++i) {
    dry[i] = *tensors[i];
    *tensors[i] = saved[i];
  }
  etr_diag_reset(&diag);
  ctx.dry_run = false;
  etr_error_t status = fn(&ctx, args, n);
  if (status != ETR_OK) {
    cr_log_info("%s -> %s: %s", op, etr_error_name(status), diag.message);
    cr_expect_eq(diag.code, status, "%s: the diag holds the failure", op);
  }
  cr_expect(dry_status == status || dry_status == ETR_OK,
            "%s: dry run %s, call %s", op, etr_error_name(dry_status),
            etr_error_name(status));
  if (status == ETR_OK && strcmp(op, "aten::nonzero.out") != 0) {
    for (size_t i = 0; i < count; ++i) {
      cr_expect(etr_tensor_same_shape(&dry[i], tensors[i]),
                "%s: tensor %zu has another shape after the dry run", op, i);
    }
  }
  return status;
}

static bool has_rank4_out(const reduce_family_case_t *c) {
  for (size_t k = 0; k < c->num_outs; ++k) {
    if (c->outs[k].dim == 4) {
      return true;
    }
  }
  return false;
}

// Runs case `c` with inputs in `layout`; channels-last outs when
// `channels_last_outs` (rank-4 outs only).
static void run_case(const reduce_family_case_t *c, tt_layout_t layout,
                     bool channels_last_outs) {
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  cr_log_info("case %s (%s), inputs %s%s", c->name, c->op,
              tt_layout_name(layout),
              channels_last_outs ? ", channels-last outs" : "");
  etr_evalue_t *args[8];
  size_t n = 0;
  for (size_t k = 0; k < c->num_args; ++k) {
    args[n++] = make_arg(&c->args[k], layout);
  }
  etr_tensor_t *outs[2] = {NULL, NULL};
  for (size_t k = 0; k < c->num_outs; ++k) {
    const tt_case_tensor_t *expected = &c->outs[k];
    outs[k] = channels_last_outs && expected->dim == 4
                  ? tt_out_dim_order(expected->dtype, 4, expected->sizes,
                                     kChannelsLast)
                  : tt_case_out(expected);
    args[n++] = tt_ev_tensor(outs[k]);
  }
  args[n++] = c->num_outs == 1 ? tt_ev_tensor(outs[0])
                               : tt_ev_tensor_list(c->num_outs, outs);
  etr_error_t status = call_case(c->op, args, n);
  cr_expect_eq(status, c->status, "%s: %s, expected %s", c->name,
               etr_error_name(status), etr_error_name(c->status));
  if (status != ETR_OK || c->status != ETR_OK) {
    return;
  }
  for (size_t k = 0; k < c->num_outs; ++k) {
    if (c->expect_values) {
      tt_expect_case(outs[k], &c->outs[k]);
    } else {
      cr_expect_eq(outs[k]->dtype, c->outs[k].dtype, "%s: out dtype",
                   c->name);
      tt_expect_shape(outs[k], c->outs[k].dim, c->outs[k].sizes);
    }
  }
}

TT_TEST(reduce_family, generated_cases_every_layout) {
  size_t count = sizeof(kReduceFamilyCases) / sizeof(kReduceFamilyCases[0]);
  for (size_t i = 0; i < count; ++i) {
    const reduce_family_case_t *c = &kReduceFamilyCases[i];
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      run_case(c, (tt_layout_t)layout, false);
    }
    if (has_rank4_out(c)) {
      run_case(c, TT_CONTIGUOUS, true);
    }
  }
}

// The generator must cover every kernel of the family, so a new overload
// cannot go untested.
TT_TEST(reduce_family, covers_every_kernel) {
  static const char *const kOps[] = {
      "aten::amax.out",          "aten::amin.out",
      "aten::any.dims_out",      "aten::any.out",
      "aten::argmax.out",        "aten::argmin.out",
      "aten::max.dim_max",       "aten::min.dim_min",
      "aten::mean.dtype_out",    "aten::prod.int_out",
      "aten::prod.out",          "aten::var.correction_out",
      "aten::var.out",           "aten::cumsum.out",
      "aten::sort.values",       "aten::topk.values",
      "aten::_cdist_forward.out", "aten::_pdist_forward.out",
      "aten::nonzero.out",       "aten::rand.out",
      "aten::randn.out",         "aten::randperm.out",
      "aten::native_dropout.out",
  };
  size_t count = sizeof(kReduceFamilyCases) / sizeof(kReduceFamilyCases[0]);
  for (size_t k = 0; k < sizeof(kOps) / sizeof(kOps[0]); ++k) {
    cr_expect_not_null(tt_find_kernel(kOps[k]), "%s is not registered",
                       kOps[k]);
    size_t ok = 0;
    size_t refused = 0;
    for (size_t i = 0; i < count; ++i) {
      if (strcmp(kReduceFamilyCases[i].op, kOps[k]) == 0) {
        ok += kReduceFamilyCases[i].status == ETR_OK;
        refused += kReduceFamilyCases[i].status != ETR_OK;
      }
    }
    cr_expect(ok > 0 && refused > 0, "%s: %zu OK and %zu refused cases",
              kOps[k], ok, refused);
  }
}
