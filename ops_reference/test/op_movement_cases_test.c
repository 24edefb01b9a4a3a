// SPDX-License-Identifier: Apache-2.0
//
// The generated cases of the movement family (data movement, indexing,
// padding and tensor creation): generated/movement_cases.h, written by
// gen_movement_cases.py with PyTorch 2.13 as the oracle. Every case runs
// with contiguous inputs; cases whose op reads through strides (all but
// as_strided_copy, which addresses raw memory) run again with
// non-contiguous inputs and, when some input has rank 4, channels-last
// ones. Outs start 1-D with spare room, so every kernel must resize them.
// Each case expects PyTorch's status (OK, NotSupported for refused dtypes,
// InvalidArgument otherwise) and, when OK, PyTorch's outs within
// torch.testing.assert_close's default tolerances (integers exact).
//
// Cases whose out shape depends on tensor values (index.Tensor with
// boolean masks) are called directly instead of through tt_call: their dry
// run cannot know the shape, so it must succeed and leave out alone.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_reference/support/element.h"
#include "ops_reference/test/generated/movement_cases.h"
#include "ops_reference/test/test_util.h"

#define NUM_CASES (sizeof(kMovementCases) / sizeof(kMovementCases[0]))

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
    case SW_STRING:
      return tt_ev_string(arg->string);
    case SW_TENSORS:
    case SW_OPTIONAL_TENSORS: {
      etr_tensor_t **tensors =
          tt_alloc(sizeof(etr_tensor_t *) * (arg->num_tensors + 1));
      for (size_t i = 0; i < arg->num_tensors; ++i) {
        tensors[i] = tt_relayout(tt_case_tensor(&arg->tensors[i]), layout);
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

// True when `actual` matches the expectation (shape, dtype, values within
// tolerance; NaN matches NaN).
static bool matches(const etr_tensor_t *actual,
                    const tt_case_tensor_t *expected) {
  if (actual->dtype != expected->dtype || actual->dim != expected->dim) {
    return false;
  }
  int64_t numel = 1;
  for (int32_t d = 0; d < actual->dim; ++d) {
    if (actual->sizes[d] != expected->sizes[d]) {
      return false;
    }
    numel *= actual->sizes[d];
  }
  if (numel == 0) {
    return true;
  }
  bool complex = etr_scalar_type_is_complex(actual->dtype);
  double rtol = 0.0;
  double atol = 0.0;
  tt_tolerance(actual->dtype, &rtol, &atol);
  for (int64_t i = 0; i < numel; ++i) {
    for (int part = 0; part < (complex ? 2 : 1); ++part) {
      double want = expected->values[complex ? 2 * i + part : i];
      double got = part == 0 ? tt_get(actual, i) : tt_get_imag(actual, i);
      if (isnan(want) || isnan(got)) {
        if (isnan(want) != isnan(got)) {
          return false;
        }
        continue;
      }
      if (isinf(want) || isinf(got)) {
        if (want != got) {
          return false;
        }
        continue;
      }
      if (fabs(got - want) > atol + rtol * fabs(want)) {
        return false;
      }
    }
  }
  return true;
}

// The call of a data-dependent case: a dry run with every data pointer
// NULL must succeed (or fail as the call does), then the real call.
static etr_error_t call_direct(const char *op, etr_evalue_t **args,
                               size_t num_args, etr_tensor_t *const *outs,
                               size_t num_outs) {
  etr_kernel_fn fn = tt_find_kernel(op);
  cr_assert_not_null(fn, "no kernel for %s", op);
  etr_diag_t diag;
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &diag;
  ctx.op_name = op;
  // Every tensor's data is hidden during the dry run, as tt_call does.
  void *saved[16];
  etr_tensor_t *tensors[16];
  size_t count = 0;
  for (size_t i = 0; i < num_args; ++i) {
    etr_evalue_t *value = args[i];
    bool is_list = value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR ||
                   value->tag == ETR_TAG_LIST_TENSOR;
    size_t items = is_list ? value->u.as_tensor_list.length
                           : value->tag == ETR_TAG_TENSOR;
    for (size_t j = 0; j < items; ++j) {
      etr_tensor_t *t =
          is_list ? etr_tensor_list_get(value, j) : value->u.as_tensor;
      bool seen = t == NULL;
      for (size_t k = 0; k < count && !seen; ++k) {
        seen = tensors[k] == t;  // the return slot repeats the out
      }
      if (!seen && count < 16) {
        tensors[count++] = t;
      }
    }
  }
  etr_tensor_t before[4];
  for (size_t k = 0; k < num_outs; ++k) {
    before[k] = *outs[k];
  }
  for (size_t i = 0; i < count; ++i) {
    saved[i] = tensors[i]->data;
    tensors[i]->data = NULL;
  }
  etr_diag_reset(&diag);
  ctx.dry_run = true;
  etr_error_t dry = fn(&ctx, args, num_args);
  for (size_t i = 0; i < count; ++i) {
    tensors[i]->data = saved[i];
  }
  for (size_t k = 0; k < num_outs; ++k) {
    cr_expect(etr_tensor_same_shape(&before[k], outs[k]),
              "%s: a data-dependent dry run changed the out shape", op);
  }
  etr_diag_reset(&diag);
  ctx.dry_run = false;
  etr_error_t status = fn(&ctx, args, num_args);
  cr_expect(dry == ETR_OK || dry == status, "%s: dry run %s, call %s", op,
            etr_error_name(dry), etr_error_name(status));
  return status;
}

static bool has_rank4_tensor(const movement_case_t *c) {
  for (size_t k = 0; k < c->num_args; ++k) {
    const sweep_arg_t *arg = &c->args[k];
    if (arg->kind == SW_TENSOR && arg->tensor.dim == 4) {
      return true;
    }
    for (size_t i = 0; arg->kind == SW_OPTIONAL_TENSORS && i < arg->num_tensors;
         ++i) {
      if (arg->tensors[i].present && arg->tensors[i].dim == 4) {
        return true;
      }
    }
  }
  return false;
}

static void run_case(const movement_case_t *c, tt_layout_t layout) {
  etr_evalue_t *args[16];
  size_t n = 0;
  for (size_t k = 0; k < c->num_args; ++k) {
    args[n++] = make_arg(&c->args[k], layout);
  }
  etr_tensor_t *outs[4] = {NULL, NULL, NULL, NULL};
  for (size_t k = 0; k < c->num_outs; ++k) {
    outs[k] = tt_case_out(&c->outs[k]);
    args[n++] = tt_ev_tensor(outs[k]);
  }
  args[n++] = c->num_outs == 1 ? tt_ev_tensor(outs[0])
                               : tt_ev_tensor_list(c->num_outs, outs);
  etr_error_t status = c->data_dependent
                           ? call_direct(c->op, args, n, outs, c->num_outs)
                           : tt_call(c->op, args, n);
  cr_expect_eq(status, c->status, "%s (%s): %s, expected %s: %s", c->name,
               tt_layout_name(layout), etr_error_name(status),
               etr_error_name(c->status), tt_last_diag()->message);
  if (c->expect_values && status == ETR_OK) {
    for (size_t k = 0; k < c->num_outs; ++k) {
      if (!matches(outs[k], &c->outs[k])) {
        cr_expect(false, "%s (%s): out %zu differs from PyTorch", c->name,
                  tt_layout_name(layout), k);
        tt_expect_case(outs[k], &c->outs[k]);
      }
    }
  }
}

static void run_all(tt_layout_t layout) {
  // MOVEMENT_TRACE=1 names every case on stderr (to find a crashing one).
  bool trace = getenv("MOVEMENT_TRACE") != NULL;
  size_t ran = 0;
  for (size_t i = 0; i < NUM_CASES; ++i) {
    const movement_case_t *c = &kMovementCases[i];
    if (layout != TT_CONTIGUOUS &&
        (!c->layouts || (layout == TT_CHANNELS_LAST && !has_rank4_tensor(c)))) {
      continue;
    }
    if (trace) {
      fprintf(stderr, "case %s (%s)\n", c->name, tt_layout_name(layout));
    }
    run_case(c, layout);
    ++ran;
  }
  cr_expect_gt(ran, 0);
}

TT_TEST(movement_cases, contiguous) { run_all(TT_CONTIGUOUS); }

TT_TEST(movement_cases, noncontiguous) { run_all(TT_NONCONTIGUOUS); }

TT_TEST(movement_cases, channels_last) { run_all(TT_CHANNELS_LAST); }
