// SPDX-License-Identifier: Apache-2.0
//
// Which kernel calls the loader marks as seeing fixed arguments
// (etr_instruction_t.args_fixed, core/method_fixed_args.c), and that a
// kernel is told so (ctx->args_checked) only from the second successful
// call of such an instruction on, never for the others; that only fixed
// calls get a kernel memo, which lasts while they are vouched for and is
// cleared otherwise; which of a fixed call's arguments are read-only
// constants (constant_args).
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/method.h"
#include "core/method_internal.h"
#include "core/npy.h"
#include "core/program.h"
#include "core/test/all_kernels.h"

typedef struct {
  etr_program_t program;
  etr_method_t method;
} loaded_t;

static void load(loaded_t *loaded, const char *model) {
  memset(loaded, 0, sizeof(*loaded));
  char path[512];
  etr_diag_t diag;
  etr_diag_reset(&diag);
  snprintf(path, sizeof(path), "datasets/models/%s/model.pte", model);
  cr_assert_eq(etr_program_load_file(path, 0, &loaded->program, &diag),
               ETR_OK, "%s: %s", model, diag.message);
  etr_method_config_t config;
  etr_method_config_init(&config, etr_test_all_kernels());
  config.variant = ETR_KERNELS_OPTIMIZED;
  cr_assert_eq(etr_method_load(&loaded->program, "forward", &config,
                               &loaded->method, &diag),
               ETR_OK, "%s: %s", model, diag.message);
}

static void unload(loaded_t *loaded) {
  etr_method_release(&loaded->method);
  etr_program_release(&loaded->program);
}

#define MAX_CALLS 512

// The method's kernel calls, in chain order; their count.
static size_t kernel_calls(etr_method_t *m, etr_instruction_t **calls) {
  size_t n = 0;
  for (uint32_t c = 0; c < m->num_chains; ++c) {
    for (uint32_t i = 0; i < m->chains[c].num_instructions; ++i) {
      etr_instruction_t *in = &m->chains[c].instructions[i];
      if (in->kind == ETR_INSTRUCTION_KERNEL_CALL) {
        cr_assert_lt(n, MAX_CALLS);
        calls[n++] = in;
      }
    }
  }
  return n;
}

static void set_inputs(etr_method_t *m, const char *model,
                       const char *prefix) {
  for (uint32_t i = 0; i < m->num_inputs; ++i) {
    char path[512];
    snprintf(path, sizeof(path), "datasets/models/%s/%sinput_%u.npy", model,
             prefix, i);
    etr_npy_array_t input;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    cr_assert_eq(etr_npy_load_file(path, 0, &input, &diag), ETR_OK, "%s",
                 diag.message);
    cr_assert_eq(etr_method_set_input_tensor(m, i, &input.tensor, &diag),
                 ETR_OK, "%s: %s", model, diag.message);
    etr_npy_array_release(&input);
  }
}

Test(fixed_args, static_models_fix_every_kernel_call) {
  static const char *const kModels[] = {"mlp", "cnn", "mobilenet_v2",
                                        "transformer", "lstm"};
  for (size_t k = 0; k < sizeof(kModels) / sizeof(kModels[0]); ++k) {
    loaded_t loaded;
    load(&loaded, kModels[k]);
    etr_instruction_t *calls[MAX_CALLS];
    size_t n = kernel_calls(&loaded.method, calls);
    size_t fixed = 0;
    for (size_t i = 0; i < n; ++i) {
      fixed += calls[i]->args_fixed;
    }
    cr_expect_gt(n, 0);
    cr_expect_eq(fixed, n, "%s: %zu of %zu kernel calls fixed", kModels[k],
                 fixed, n);
    unload(&loaded);
  }
}

// In `model`, every kernel call `pick` selects (at least one) is not fixed.
static void expect_picked_not_fixed(
    const char *model,
    bool (*pick)(const etr_method_t *, const etr_instruction_t *)) {
  loaded_t loaded;
  load(&loaded, model);
  etr_instruction_t *calls[MAX_CALLS];
  size_t n = kernel_calls(&loaded.method, calls);
  int picked = 0;
  for (size_t i = 0; i < n; ++i) {
    if (pick(&loaded.method, calls[i])) {
      ++picked;
      cr_expect(!calls[i]->args_fixed, "%s: call %zu is fixed", model, i);
    }
  }
  cr_expect_gt(picked, 0, "%s: no call to check", model);
  unload(&loaded);
}

static bool has_dynamic_tensor(const etr_method_t *m,
                               const etr_instruction_t *in) {
  (void)m;
  for (size_t a = 0; a < in->num_args; ++a) {
    if (in->args[a]->tag == ETR_TAG_TENSOR &&
        in->args[a]->u.as_tensor->shape_dynamism != ETR_SHAPE_STATIC) {
      return true;
    }
  }
  return false;
}

Test(fixed_args, dynamic_shapes_are_not_fixed) {
  expect_picked_not_fixed("dynamic_shape", has_dynamic_tensor);
}

static bool is_copy_(const etr_method_t *m, const etr_instruction_t *in) {
  return strncmp(m->operators[in->callee].name, "aten::copy_", 11) == 0;
}

// The mutable buffer's update is an in-place aten::copy_, which stores
// `self` in its return slot: that slot is rebound, so the copy is not
// fixed.
Test(fixed_args, in_place_return_slots_are_not_fixed) {
  expect_picked_not_fixed("mutable_buffer", is_copy_);
}

// A tensor without memory of its own gets a data pointer at run time (from
// et_view, a move or an input): the calls that take it are not fixed.
Test(fixed_args, tensors_bound_at_run_time_are_not_fixed) {
  loaded_t loaded;
  load(&loaded, "cnn");
  etr_method_t *m = &loaded.method;
  etr_instruction_t *calls[MAX_CALLS];
  size_t n = kernel_calls(m, calls);
  cr_assert_gt(n, 1);
  uint32_t v = calls[1]->arg_indices[0];  // the second call's input
  cr_assert_eq(m->value_info[v].storage, ETR_STORAGE_PLANNED);
  m->value_info[v].storage = ETR_STORAGE_UNBOUND;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_method_mark_fixed_args(m, &diag), ETR_OK);
  size_t users = 0;
  for (size_t i = 0; i < n; ++i) {
    bool uses = false;
    for (size_t a = 0; a < calls[i]->num_args; ++a) {
      uses = uses || calls[i]->arg_indices[a] == v;
    }
    users += uses;
    cr_expect_eq(calls[i]->args_fixed, !uses, "call %zu", i);
  }
  cr_expect_geq(users, 2, "the producer and the consumer");
  unload(&loaded);
}

// A kernel that records what it was told, then runs the real one.
static etr_kernel_fn g_wrapped;
static int g_calls;
static int g_checked_calls;
static int g_memo_calls;  // calls with a memo
static int g_memo_kept;   // calls that found the spy's mark in it

static etr_error_t spy(etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args) {
  ++g_calls;
  g_checked_calls += ctx->args_checked;
  etr_error_t status = g_wrapped(ctx, args, num_args);
  if (ctx->memo != NULL) {  // after the real kernel, which may use it too
    unsigned char *last = (unsigned char *)ctx->memo +
                          ETR_KERNEL_MEMO_BYTES - 1;
    ++g_memo_calls;
    g_memo_kept += *last == 0xab;
    *last = 0xab;
  }
  return status;
}

// Wraps the first kernel call whose args_fixed is `fixed`; NULL for none.
static etr_instruction_t *wrap_first(etr_method_t *m, bool fixed) {
  etr_instruction_t *calls[MAX_CALLS];
  size_t n = kernel_calls(m, calls);
  for (size_t i = 0; i < n; ++i) {
    if (calls[i]->kernel != NULL && calls[i]->args_fixed == fixed) {
      g_wrapped = calls[i]->kernel;
      calls[i]->kernel = spy;
      g_calls = 0;
      g_checked_calls = 0;
      g_memo_calls = 0;
      g_memo_kept = 0;
      return calls[i];
    }
  }
  return NULL;
}

static void execute(etr_method_t *m) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_method_execute(m, &diag), ETR_OK, "%s", diag.message);
}

Test(fixed_args, checked_from_the_second_call_of_a_fixed_instruction) {
  loaded_t loaded;
  load(&loaded, "cnn");
  etr_instruction_t *in = wrap_first(&loaded.method, true);
  cr_assert_not_null(in);
  set_inputs(&loaded.method, "cnn", "");
  execute(&loaded.method);
  cr_expect_eq(g_calls, 1);
  cr_expect_eq(g_checked_calls, 0, "the first call cannot be vouched for");
  cr_expect(in->args_checked);
  execute(&loaded.method);
  execute(&loaded.method);
  cr_expect_eq(g_calls, 3);
  cr_expect_eq(g_checked_calls, 2);
  cr_expect_eq(g_memo_calls, 3, "a fixed call has a memo");
  cr_expect_eq(g_memo_kept, 2, "the memo lasts while the call is vouched");
  unload(&loaded);
}

Test(fixed_args, never_checked_for_a_call_that_is_not_fixed) {
  static const char *const kPrefixes[] = {"case0_", "case1_", "case2_"};
  loaded_t loaded;
  load(&loaded, "dynamic_shape");
  etr_instruction_t *in = wrap_first(&loaded.method, false);
  cr_assert_not_null(in);
  for (size_t k = 0; k < sizeof(kPrefixes) / sizeof(kPrefixes[0]); ++k) {
    set_inputs(&loaded.method, "dynamic_shape", kPrefixes[k]);
    execute(&loaded.method);
  }
  cr_expect_eq(g_calls, 3);
  cr_expect_eq(g_checked_calls, 0);
  cr_expect_eq(g_memo_calls, 0, "only fixed calls have a memo");
  cr_expect(!in->args_checked);
  unload(&loaded);
}

// A fixed call's constant_args has a bit for exactly its arguments that
// are tensors in read-only constant memory: in the cnn, each convolution's
// weight and bias (arguments 1 and 2), never its input or out; calls
// without a memo have none.
Test(fixed_args, constant_args_mark_the_read_only_tensors) {
  loaded_t loaded;
  load(&loaded, "cnn");
  etr_method_t *m = &loaded.method;
  etr_instruction_t *calls[MAX_CALLS];
  size_t n = kernel_calls(m, calls);
  int convolutions = 0;
  for (size_t i = 0; i < n; ++i) {
    etr_instruction_t *in = calls[i];
    uint64_t want = 0;
    for (size_t a = 0; a < in->num_args && a < 64; ++a) {
      uint32_t v = in->arg_indices[a];
      if (m->values[v].tag == ETR_TAG_TENSOR &&
          (m->value_info[v].storage == ETR_STORAGE_CONSTANT ||
           m->value_info[v].storage == ETR_STORAGE_EXTERNAL)) {
        want |= (uint64_t)1 << a;
      }
    }
    cr_expect_eq(in->constant_args, in->memo != NULL ? want : 0,
                 "call %zu: constant_args %#llx", i,
                 (unsigned long long)in->constant_args);
    if (strcmp(m->operators[in->callee].name, "aten::convolution.out") == 0) {
      ++convolutions;
      cr_expect_eq(in->constant_args & 0x207, 0x6,
                   "convolution %zu: weight and bias, not input or out", i);
    }
  }
  cr_expect_gt(convolutions, 0);
  unload(&loaded);
}

// Runs that skip the checks compute what the first run did, bit for bit.
Test(fixed_args, later_runs_match_the_first) {
  static const char *const kModels[] = {"mlp", "cnn", "mobilenet_v2",
                                        "transformer", "lstm"};
  for (size_t k = 0; k < sizeof(kModels) / sizeof(kModels[0]); ++k) {
    loaded_t loaded;
    load(&loaded, kModels[k]);
    etr_method_t *m = &loaded.method;
    set_inputs(m, kModels[k], "");
    execute(m);
    const etr_evalue_t *output = etr_method_output(m, 0);
    cr_assert(output != NULL && output->tag == ETR_TAG_TENSOR);
    const etr_tensor_t *t = output->u.as_tensor;
    size_t bytes = etr_tensor_nbytes(t);
    void *first = malloc(bytes + 1);
    cr_assert_not_null(first);
    memcpy(first, t->data, bytes);
    for (int run = 0; run < 2; ++run) {  // inputs may share planned memory
      set_inputs(m, kModels[k], "");
      execute(m);
    }
    cr_expect_eq(memcmp(first, output->u.as_tensor->data, bytes), 0,
                 "%s: the third run's output differs from the first's",
                 kModels[k]);
    free(first);
    unload(&loaded);
  }
}

// A failed call leaves the instruction unvouched: its kernel is told
// nothing on the next call.
static etr_error_t failing(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args) {
  (void)args;
  (void)num_args;
  ++g_calls;
  g_checked_calls += ctx->args_checked;
  return ETR_FAIL(ctx->diag, ETR_ERR_INVALID_ARGUMENT, "planted failure");
}

Test(fixed_args, a_failed_call_is_not_vouched_for) {
  loaded_t loaded;
  load(&loaded, "cnn");
  etr_instruction_t *in = wrap_first(&loaded.method, true);
  cr_assert_not_null(in);
  set_inputs(&loaded.method, "cnn", "");
  execute(&loaded.method);
  cr_expect(in->args_checked);
  in->kernel = failing;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_expect_neq(etr_method_execute(&loaded.method, &diag), ETR_OK);
  cr_expect(!in->args_checked);
  in->kernel = spy;
  g_calls = 0;
  g_checked_calls = 0;
  g_memo_kept = 0;
  execute(&loaded.method);
  cr_expect_eq(g_calls, 1);
  cr_expect_eq(g_checked_calls, 0);
  cr_expect_eq(g_memo_kept, 0, "the memo is cleared for an unvouched call");
  unload(&loaded);
}
