// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target pte_execute: the `etref run` pipeline on a .pte. Load, verify
// (nothing runs unless the verifier accepts it), then instantiate each
// method (at most two) with small caps and execute it once with the
// reference kernels, then three times each with the optimized ones
// (calls vouched for from the second run, and never; from the third a
// fused convolution also skips its target's checks, op_convolution.c's
// memo_plan) and with them fused at load
// (ops_optimized/fuse/fuse.h), on an ISA chosen from the input's hash, so
// every ISA gets inputs; inputs set through etr_method_set_input before
// each run and filled with zeros or a small pattern (chosen likewise).
//
// Caps: 16 MiB planned, 32 MiB of method structures, 100k instructions and
// 2 s per execute (fuzz_common.h), so a valid-but-huge program is rejected
// or stopped, not run for an hour.
//
// Faults, beyond crashes and sanitizer reports: a rejection without a
// message; a method the verifier accepted that etr_method_load then refuses
// for any reason but a cap (the verifier must see everything the loader
// checks: TFLite's lesson is that the dangerous files are the structurally
// valid, semantically inconsistent ones); outputs whose bytes lie outside
// memory (ASan sees the reads); fused and unfused optimized runs that both
// succeed with different outputs (NaN payloads aside, see digest_outputs),
// unless the program reads a planned tensor before anything wrote it
// (read_tracker: its bytes are then whatever other values left there, and
// fusion, which leaves absorbed and folded values' planned bytes unwritten,
// legitimately changes them); a second run with calls vouched for that fails,
// succeeds or computes unlike the same run without.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/method.h"
#include "core/program.h"
#include "fuzz/common/fuzz_common.h"
#include "ops_optimized/fuse/fuse.h"
#include "ops_optimized/isa.h"
#include "ops_reference/support/element.h"
#include "verifier/verify.h"

#define TARGET "pte_execute"
#define MAX_METHODS 2
#define MAX_INPUTS 64
#define MAX_INPUT_BYTES ((size_t)16 << 20)
#define TIMED_OUT 2u  // run_method's result for a run past its budget

// A small deterministic value for element i: exercises index-taking ops
// with valid small indices and float ops with ordinary numbers.
static void fill_pattern(etr_tensor_t *tensor, bool zero) {
  size_t element_size = etr_scalar_type_size(tensor->dtype);
  int64_t numel = etr_tensor_numel(tensor);
  if (zero || element_size == 0) {
    return;  // calloc'ed
  }
  bool floating = etr_scalar_type_is_floating(tensor->dtype);
  bool integral = etr_scalar_type_is_integral(tensor->dtype, true);
  for (int64_t i = 0; i < numel; ++i) {
    void *element = (uint8_t *)tensor->data + (size_t)i * element_size;
    if (floating) {
      etr_store_double(tensor->dtype, element, (double)(i % 7 - 3) * 0.25);
    } else if (tensor->dtype == ETR_BOOL) {
      *(uint8_t *)element = (uint8_t)(i & 1);
    } else if (integral) {
      etr_store_int64(tensor->dtype, element, i % 3);
    }
  }
}

// Binds every tensor input to a fresh buffer through etr_method_set_input.
// Returns false (a clean rejection) when an input cannot be set.
static bool set_inputs(etr_method_t *method, bool zero, void **buffers,
                       size_t *num_buffers) {
  size_t total = 0;
  for (uint32_t i = 0; i < method->num_inputs && i < MAX_INPUTS; ++i) {
    const etr_evalue_t *input = etr_method_input(method, i);
    if (input == NULL || input->tag != ETR_TAG_TENSOR) {
      continue;
    }
    const etr_tensor_t *declared = input->u.as_tensor;
    etr_tensor_t tensor = *declared;
    size_t nbytes = etr_tensor_nbytes(declared);
    if (nbytes > MAX_INPUT_BYTES - total) {
      return false;
    }
    total += nbytes;
    void *buffer = calloc(nbytes > 0 ? nbytes : 1, 1);
    if (buffer == NULL) {
      return false;
    }
    buffers[(*num_buffers)++] = buffer;
    tensor.data = buffer;
    tensor.capacity_bytes = nbytes;
    etr_strides_from_dim_order(tensor.sizes, tensor.dim_order, tensor.dim,
                               tensor.strides);
    fill_pattern(&tensor, zero);
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_error_t status = etr_method_set_input_tensor(method, i, &tensor,
                                                     &diag);
    etr_fuzz_check_rejection(TARGET, "etr_method_set_input", status, &diag);
    if (status != ETR_OK) {
      return false;
    }
  }
  return true;
}

static void touch_outputs(const etr_method_t *method) {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < method->num_outputs; ++i) {
    const etr_evalue_t *output = etr_method_output(method, i);
    if (output != NULL && output->tag == ETR_TAG_TENSOR &&
        output->u.as_tensor->data != NULL) {
      sum += etr_fuzz_touch(output->u.as_tensor->data,
                            etr_tensor_nbytes(output->u.as_tensor));
    }
  }
  if (sum == 1) {
    fputc(' ', stderr);
  }
}

// A digest of every output's shape and bytes (0 when the run failed),
// every NaN of a floating dtype counted as one value: which NaN an fma of
// several NaN operands returns depends on the instruction form the
// compiler picked, so payloads are not part of "the same result".
static uint64_t digest_outputs(const etr_method_t *method) {
  uint64_t digest = 1469598103934665603ull;
  for (uint32_t i = 0; i < method->num_outputs; ++i) {
    const etr_evalue_t *output = etr_method_output(method, i);
    if (output == NULL || output->tag != ETR_TAG_TENSOR) {
      continue;
    }
    const etr_tensor_t *t = output->u.as_tensor;
    digest ^= etr_fuzz_hash((const uint8_t *)t->sizes,
                            (size_t)t->dim * sizeof(t->sizes[0]));
    if (t->data == NULL) {
      continue;
    }
    size_t element = etr_scalar_type_size(t->dtype);
    bool floating = etr_scalar_type_is_floating(t->dtype) &&
                    !etr_scalar_type_is_complex(t->dtype);
    const uint8_t *bytes = (const uint8_t *)t->data;
    int64_t numel = etr_tensor_numel(t);
    for (int64_t e = 0; e < numel; ++e) {
      const uint8_t *at = bytes + (size_t)e * element;
      bool nan = floating && isnan(etr_load_double(t->dtype, at));
      static const uint8_t kNan[1] = {0xa5};
      digest = digest * 1099511628211ull ^
               (nan ? etr_fuzz_hash(kNan, 1) : etr_fuzz_hash(at, element));
    }
  }
  return digest | 1;
}

// Which planned tensors a run reads before anything wrote them, seen
// through the executor's tracer: a kernel call writes the tensors its
// return slot names (the out, or each out of a list) and reads its other
// tensor arguments (list elements too); inputs, constants and mutable
// buffers count as written, and so does a view in its written base's
// bytes. Delegate calls are assumed to write what they
// take. MoveCalls rebind values to tensors already tracked.
typedef struct tracked_tensor {
  const etr_tensor_t *tensor;
  uint32_t memory_id;  // its planned bytes
  uint64_t offset;
  size_t nbytes;
  bool written;
} tracked_tensor_t;

typedef struct read_tracker {
  tracked_tensor_t *tensors;  // planned tensors, sorted by address
  size_t count;
  bool read_unwritten;
} read_tracker_t;

static int by_address(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const tracked_tensor_t *)a)->tensor;
  uintptr_t y = (uintptr_t)((const tracked_tensor_t *)b)->tensor;
  return x < y ? -1 : x > y;
}

static tracked_tensor_t *tracked(read_tracker_t *t, const etr_tensor_t *x) {
  tracked_tensor_t key = {.tensor = x};
  return x == NULL ? NULL
                   : bsearch(&key, t->tensors, t->count, sizeof(key),
                             by_address);
}

static void track_begin(void *user, const etr_method_t *method) {
  read_tracker_t *t = user;
  t->count = 0;
  for (uint32_t v = 0; v < method->num_values; ++v) {
    const etr_value_info_t *info = &method->value_info[v];
    if (method->values[v].tag == ETR_TAG_TENSOR &&
        info->storage == ETR_STORAGE_PLANNED) {
      // Initialized or named (mutable) buffers hold state between runs.
      bool state = info->data_buffer_index != 0 ||
                   info->fully_qualified_name != NULL;
      t->tensors[t->count++] = (tracked_tensor_t){
          method->values[v].u.as_tensor, info->memory_id,
          info->memory_offset, info->nbytes, state};
    }
  }
  qsort(t->tensors, t->count, sizeof(*t->tensors), by_address);
  for (uint32_t i = 0; i < method->num_inputs; ++i) {
    const etr_evalue_t *input = &method->values[method->inputs[i]];
    tracked_tensor_t *x = input->tag == ETR_TAG_TENSOR
                              ? tracked(t, input->u.as_tensor)
                              : NULL;
    if (x != NULL) {
      x->written = true;
    }
  }
}

// Whether a written tensor starts where `x` does and covers it: the
// exporter's planner gives a view (flatten's view_copy, removed) its
// base's bytes, so the base's out wrote it.
static bool written_alias(const read_tracker_t *t, const tracked_tensor_t *x) {
  for (size_t i = 0; i < t->count; ++i) {
    const tracked_tensor_t *y = &t->tensors[i];
    if (y->written && y->memory_id == x->memory_id &&
        y->offset == x->offset && y->nbytes >= x->nbytes) {
      return true;
    }
  }
  return false;
}

// Reads (checking each was written) or writes every tensor of `value`.
static void track_value(read_tracker_t *t, const etr_evalue_t *value,
                        bool reading) {
  size_t count = 1;
  bool list = value->tag == ETR_TAG_LIST_TENSOR ||
              value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR;
  if (list) {
    count = value->u.as_tensor_list.length;
  } else if (value->tag != ETR_TAG_TENSOR) {
    return;
  }
  for (size_t k = 0; k < count; ++k) {
    tracked_tensor_t *entry = tracked(
        t, list ? etr_tensor_list_get(value, k) : value->u.as_tensor);
    if (entry == NULL) {
      continue;
    }
    if (reading) {
      entry->written = entry->written || written_alias(t, entry);
      t->read_unwritten = t->read_unwritten || !entry->written;
    } else {
      entry->written = true;
    }
  }
}

static void track_instruction(void *user, const etr_method_t *method,
                              uint32_t chain, uint32_t index) {
  read_tracker_t *t = user;
  const etr_instruction_t *in = &method->chains[chain].instructions[index];
  if (in->num_args == 0 || (in->kind != ETR_INSTRUCTION_KERNEL_CALL &&
                            in->kind != ETR_INSTRUCTION_DELEGATE_CALL)) {
    return;
  }
  if (in->kind == ETR_INSTRUCTION_DELEGATE_CALL) {
    for (size_t a = 0; a < in->num_args; ++a) {
      track_value(t, in->args[a], false);
    }
    return;
  }
  // The out arguments sit right before the return slot: one for a tensor,
  // one per element for a list (max_pool2d_with_indices' out, indices).
  const etr_evalue_t *outs = in->args[in->num_args - 1];
  size_t num_outs = outs->tag == ETR_TAG_LIST_TENSOR
                        ? outs->u.as_tensor_list.length
                        : 1;
  size_t reads = in->num_args - 1 > num_outs ? in->num_args - 1 - num_outs : 0;
  for (size_t a = 0; a < reads; ++a) {  // in place: self is read, then out
    track_value(t, in->args[a], true);
  }
  track_value(t, outs, false);
}

// Clears every instruction's args_fixed, so the executor never tells a
// kernel its arguments were checked before (core/method_fixed_args.c).
static void never_vouch(etr_method_t *method) {
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    for (uint32_t i = 0; i < method->chains[c].num_instructions; ++i) {
      method->chains[c].instructions[i].args_fixed = false;
    }
  }
}

// Runs method `name` `runs` times, inputs set before each; with `fuse`,
// the optimized kernels fused at load (ops_optimized/fuse/fuse.h); with
// `vouch` false, no call is ever vouched for. Returns the last run's
// outputs' digest (odd), 0 when a run failed, TIMED_OUT when one ran past
// its time budget.
static uint64_t run_method(const etr_program_t *program, const char *name,
                           etr_kernel_variant_t variant, bool zero,
                           bool fuse, int runs, bool vouch,
                           bool *read_unwritten) {
  etr_method_config_t config;
  etr_method_config_init(&config, etr_fuzz_kernels());
  config.variant = variant;
  config.backends = etr_fuzz_backends();
  config.max_planned_bytes = ETR_FUZZ_MAX_PLANNED_BYTES;
  config.max_method_bytes = ETR_FUZZ_MAX_METHOD_BYTES;
  config.max_instructions = ETR_FUZZ_MAX_INSTRUCTIONS;
  config.max_execute_ns = ETR_FUZZ_MAX_EXECUTE_NS;
  config.seed = 1;
  etr_method_t method;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_method_load(program, name, &config, &method, &diag);
  etr_fuzz_check_rejection(TARGET, "etr_method_load", status, &diag);
  if (status != ETR_OK) {
    if (status != ETR_ERR_MEMORY_ALLOCATION_FAILED &&
        status != ETR_ERR_OUT_OF_RESOURCES) {
      etr_fuzz_fault(TARGET,
                     "the verifier accepted method '%s' but etr_method_load "
                     "rejects it: %s [%s]",
                     name, diag.message, etr_error_name(status));
    }
    return 0;
  }
  if (fuse) {
    etr_diag_reset(&diag);
    status = etr_opt_fuse_method(&method, NULL, &diag);
    etr_fuzz_check_rejection(TARGET, "etr_opt_fuse_method", status, &diag);
    if (status != ETR_OK) {
      etr_method_release(&method);
      return 0;
    }
  } else if (vouch && variant == ETR_KERNELS_OPTIMIZED) {
    // The vouched run also has its constant weights packed at load
    // (convolutions, mm/addmm, linear, batch norms' alpha and beta):
    // compared with the unvouched one, that never changes a bit.
    etr_opt_prepack_method(&method);
  }
  if (!vouch) {
    never_vouch(&method);
  }
  read_tracker_t tracker = {0};
  etr_event_tracer_t tracer = {.user = &tracker,
                               .begin_execute = track_begin,
                               .begin_instruction = track_instruction};
  if (read_unwritten != NULL) {
    tracker.tensors = calloc(method.num_values + 1, sizeof(*tracker.tensors));
    if (tracker.tensors == NULL) {
      etr_method_release(&method);
      return 0;
    }
    method.config.tracer = &tracer;
  }
  uint64_t digest = 0;
  void *buffers[2 * MAX_INPUTS];
  size_t num_buffers = 0;
  for (int run = 0; run < runs && run < 3; ++run) {
    digest = 0;
    if (!set_inputs(&method, zero, buffers, &num_buffers)) {
      break;
    }
    etr_diag_reset(&diag);
    status = etr_method_execute(&method, &diag);
    etr_fuzz_check_rejection(TARGET, "etr_method_execute", status, &diag);
    if (status != ETR_OK) {
      digest = status == ETR_ERR_OUT_OF_RESOURCES ? TIMED_OUT : 0;
      break;
    }
    touch_outputs(&method);
    digest = digest_outputs(&method);
  }
  etr_method_release(&method);
  for (size_t i = 0; i < num_buffers; ++i) {
    free(buffers[i]);
  }
  if (read_unwritten != NULL) {
    *read_unwritten = tracker.read_unwritten;
    free(tracker.tensors);
  }
  return digest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > ETR_FUZZ_MAX_INPUT_BYTES) {
    return 0;
  }
  const etr_kernel_registry_t *kernels = etr_fuzz_kernels();
  uint64_t hash = etr_fuzz_hash(data, size);
  uint8_t *copy = etr_fuzz_copy(data, size);
  etr_program_t program;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_program_load(copy, size, &program, &diag);
  etr_fuzz_check_rejection(TARGET, "etr_program_load", status, &diag);
  if (status == ETR_OK) {
    static etr_verify_report_t report;
    etr_verify_config_t verify = {.kernels = kernels,
                                  .backends = etr_fuzz_backends()};
    status = etr_verify_program(&program, &verify, &report);
  }
  if (status == ETR_OK) {
    uint32_t methods = etr_program_method_count(&program);
    for (uint32_t m = 0; m < methods && m < MAX_METHODS; ++m) {
      etr_fb_string_t name;
      etr_diag_reset(&diag);
      if (etr_program_method_name(&program, m, &name, &diag) != ETR_OK) {
        etr_fuzz_fault(TARGET, "verified program lost method %u's name", m);
      }
      bool zero = (hash & 1) != 0;
      run_method(&program, name.chars, ETR_KERNELS_REFERENCE, zero, false, 1,
                 true, NULL);
      etr_isa_force((etr_isa_t)((hash >> 1) % ETR_NUM_ISAS));
      // Each optimized method runs three times: from the second run the
      // executor vouches for the calls whose arguments cannot have
      // changed, and the kernels skip their checks (fused convolutions
      // those of their target too from the third); with vouching off, the
      // same three runs must end the same way with the same outputs.
      bool read_unwritten = false;
      uint64_t plain = run_method(&program, name.chars, ETR_KERNELS_OPTIMIZED,
                                  zero, false, 3, true, NULL);
      uint64_t unvouched = run_method(&program, name.chars,
                                      ETR_KERNELS_OPTIMIZED, zero, false, 3,
                                      false, &read_unwritten);
      if (plain != unvouched && plain != TIMED_OUT &&
          unvouched != TIMED_OUT) {
        etr_fuzz_fault(TARGET,
                       "method '%s': a second run with calls vouched for "
                       "(ctx->args_checked) and weights packed at load %s "
                       "one without",
                       name.chars,
                       plain == 0 || unvouched == 0 ? "ends unlike"
                                                    : "computes unlike");
      }
      // Fusion never changes a bit: when both runs succeed, the outputs
      // are the same (for a program that reads only what it wrote; the
      // unvouched runs, traced, tell).
      uint64_t fused = run_method(&program, name.chars, ETR_KERNELS_OPTIMIZED,
                                  zero, true, 3, true, NULL);
      if (!read_unwritten && plain != 0 && fused != 0 &&
          plain != TIMED_OUT &&
          fused != TIMED_OUT && plain != fused) {
        etr_fuzz_fault(TARGET,
                       "method '%s': outputs with the optimized kernels "
                       "fused differ from unfused",
                       name.chars);
      }
      etr_isa_reset();
    }
  }
  etr_program_release(&program);
  free(copy);
  return 0;
}
