// SPDX-License-Identifier: Apache-2.0
//
// The example vendor backend (see example_vendor.h): a delegate whose
// processed blob is an ExecuTorch program of the delegated subgraph, run by
// an inner etref method with the vendor's kernel registry.
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "core/method.h"
#include "core/platform.h"
#include "core/program.h"
#include "delegates/example_vendor/example_vendor.h"
#include "delegates/example_vendor/vendor_kernels.h"
#include "verifier/verify.h"

typedef struct vendor_handle {
  void *blob;  // 64-byte aligned copy of the processed blob
  etr_program_t program;
  etr_kernel_registry_t registry;
  etr_method_t method;
  etr_vendor_state_t state;
  etr_event_tracer_t tracer;  // the inner method's: reports to the outer
  const etr_backend_execute_context_t *outer;  // during execute
  uint64_t instruction_start_ns;
} vendor_handle_t;

// ---- the inner tracer: intermediate outputs and times, to the outer -----

static void inner_begin(void *user, const etr_method_t *method,
                        uint32_t chain, uint32_t instruction) {
  (void)method;
  (void)chain;
  (void)instruction;
  vendor_handle_t *handle = (vendor_handle_t *)user;
  handle->instruction_start_ns = etr_now_ns();
}

static void inner_end(void *user, const etr_method_t *method, uint32_t chain,
                      uint32_t instruction, etr_error_t status) {
  vendor_handle_t *handle = (vendor_handle_t *)user;
  const etr_backend_execute_context_t *outer = handle->outer;
  if (outer == NULL || status != ETR_OK || chain != 0 ||
      instruction >= method->chains[0].num_instructions) {
    return;
  }
  const etr_instruction_t *current =
      &method->chains[0].instructions[instruction];
  if (current->kind != ETR_INSTRUCTION_KERNEL_CALL ||
      current->num_args == 0) {
    return;
  }
  // ExecuTorch's delegates identify sub-steps by a debug id; here it is the
  // inner instruction index, which the AOT side maps to graph nodes.
  const char *name = method->operators[current->callee].name;
  etr_backend_log_event(outer, name, instruction, handle->instruction_start_ns,
                        etr_now_ns());
  etr_backend_log_intermediate(outer, name, instruction,
                               current->args[current->num_args - 1]);
}

// ---- init ------------------------------------------------------------------

static etr_error_t read_fault(const etr_compile_spec_t *specs,
                              size_t num_specs, bool honor_environment,
                              etr_vendor_fault_t *fault, etr_diag_t *diag) {
  const char *text = "none";
  size_t length = 4;
  for (size_t i = 0; i < num_specs; ++i) {
    if (specs[i].key != NULL &&
        strcmp(specs[i].key, ETR_EXAMPLE_VENDOR_FAULT_SPEC) == 0) {
      text = (const char *)specs[i].value;
      length = specs[i].value_size;
    }
  }
  const char *environment =
      honor_environment ? getenv(ETR_EXAMPLE_VENDOR_FAULT_ENV) : NULL;
  if (environment != NULL && environment[0] != '\0') {
    text = environment;
    length = strlen(environment);
  }
  if (length == 0) {
    text = "none";
    length = 4;
  }
  etr_error_t status = etr_vendor_fault_parse(text, length, fault, diag);
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "%s (compile spec '%s' or $%s)",
                    ETR_EXAMPLE_VENDOR_ID, ETR_EXAMPLE_VENDOR_FAULT_SPEC,
                    ETR_EXAMPLE_VENDOR_FAULT_ENV);
  }
  return status;
}

// The first verifier error as the init error.
static etr_error_t verify_inner(vendor_handle_t *handle, etr_diag_t *diag) {
  etr_verify_report_t *report =
      (etr_verify_report_t *)malloc(sizeof(etr_verify_report_t));
  ETR_CHECK(diag, report != NULL, ETR_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED,
            "%s: out of memory verifying the delegate's program",
            ETR_EXAMPLE_VENDOR_ID);
  etr_verify_config_t config = {
      .kernels = &handle->registry,
      .backends = NULL,
      .external_data = NULL,
      .method = NULL,
  };
  etr_error_t status = etr_verify_program(&handle->program, &config, report);
  if (status != ETR_OK) {
    char line[ETR_DIAG_MESSAGE_CAPACITY + 512] = "unknown error";
    for (size_t i = 0; i < report->count; ++i) {
      if (report->items[i].severity == ETR_SEVERITY_ERROR) {
        etr_diagnostic_format(&report->items[i], line, sizeof(line));
        break;
      }
    }
    ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
             "%s: the delegate's program is not safe to run: %s",
             ETR_EXAMPLE_VENDOR_ID, line);
    status = ETR_ERR_INVALID_PROGRAM;
  }
  free(report);
  return status;
}

static const char *inner_method_name(const etr_program_t *program) {
  etr_fb_string_t name;
  uint32_t count = etr_program_method_count(program);
  for (uint32_t i = 0; i < count; ++i) {
    if (etr_program_method_name(program, i, &name, NULL) == ETR_OK &&
        strcmp(name.chars, "forward") == 0) {
      return name.chars;
    }
  }
  return count > 0 && etr_program_method_name(program, 0, &name, NULL) ==
                          ETR_OK
             ? name.chars
             : "forward";
}

static void release_handle(vendor_handle_t *handle) {
  if (handle == NULL) {
    return;
  }
  etr_method_release(&handle->method);
  etr_program_release(&handle->program);
  free(handle->blob);
  free(handle);
}

static etr_error_t vendor_init(const etr_backend_t *self,
                               etr_backend_init_context_t *context,
                               const uint8_t *processed,
                               size_t processed_size,
                               const etr_compile_spec_t *specs,
                               size_t num_specs, void **handle_out) {
  etr_diag_t *diag = context->diag;
  *handle_out = NULL;
  ETR_CHECK(diag, processed != NULL && processed_size >= 8,
            ETR_ERR_INVALID_PROGRAM,
            "%s: the processed blob (%zu bytes) is not a program",
            ETR_EXAMPLE_VENDOR_ID, processed_size);
  vendor_handle_t *handle = (vendor_handle_t *)calloc(1, sizeof(*handle));
  ETR_CHECK(diag, handle != NULL, ETR_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED,
            "%s: out of memory", ETR_EXAMPLE_VENDOR_ID);
  etr_error_t status = read_fault(specs, num_specs, self->user != NULL,
                                  &handle->state.fault, diag);
  // Programs want 16-byte aligned bytes; the copy also keeps the inner
  // program independent of where the outer file put the blob.
  if (status == ETR_OK) {
    handle->blob = aligned_alloc(64, (processed_size + 63) / 64 * 64);
    status = handle->blob != NULL
                 ? ETR_OK
                 : ETR_FAIL(diag, ETR_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED,
                            "%s: out of memory for a %zu-byte blob",
                            ETR_EXAMPLE_VENDOR_ID, processed_size);
  }
  if (status == ETR_OK) {
    memcpy(handle->blob, processed, processed_size);
    status = etr_program_load(handle->blob, processed_size, &handle->program,
                              diag);
    if (status != ETR_OK) {
      etr_diag_prefix(diag, "%s: the processed blob", ETR_EXAMPLE_VENDOR_ID);
    }
  }
  if (status == ETR_OK) {
    status = etr_vendor_build_registry(&handle->registry,
                                       &handle->state.fault, diag);
  }
  if (status == ETR_OK) {
    status = verify_inner(handle, diag);
  }
  if (status == ETR_OK) {
    handle->state.registry = &handle->registry;
    handle->tracer.user = handle;
    handle->tracer.begin_instruction = inner_begin;
    handle->tracer.end_instruction = inner_end;
    etr_method_config_t config;
    etr_method_config_init(&config, &handle->registry);
    config.variant = ETR_KERNELS_OPTIMIZED;  // the vendor's kernels
    config.tracer = &handle->tracer;
    status = etr_method_load(&handle->program,
                             inner_method_name(&handle->program), &config,
                             &handle->method, diag);
    if (status != ETR_OK) {
      etr_diag_prefix(diag, "%s: the delegate's program",
                      ETR_EXAMPLE_VENDOR_ID);
    }
  }
  if (status != ETR_OK) {
    release_handle(handle);
    return status;
  }
  *handle_out = handle;
  return ETR_OK;
}

// ---- execute -------------------------------------------------------------

// Copies `source` into `target` (same dtype; target resized to the
// source's shape within its capacity), element by element through both
// tensors' strides.
static etr_error_t copy_output(etr_tensor_t *target,
                               const etr_tensor_t *source, uint32_t index,
                               etr_diag_t *diag) {
  ETR_CHECK(diag, target->dtype == source->dtype, ETR_ERR_INVALID_ARGUMENT,
            "%s: output %u is %s, the delegate computed %s",
            ETR_EXAMPLE_VENDOR_ID, index, etr_scalar_type_name(target->dtype),
            etr_scalar_type_name(source->dtype));
  etr_error_t status =
      etr_tensor_resize(target, source->dim, source->sizes, diag);
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "%s: output %u", ETR_EXAMPLE_VENDOR_ID, index);
    return status;
  }
  int64_t numel = etr_tensor_numel(source);
  if (numel == 0) {
    return ETR_OK;
  }
  ETR_CHECK(diag, target->data != NULL && source->data != NULL,
            ETR_ERR_INVALID_ARGUMENT, "%s: output %u has no memory",
            ETR_EXAMPLE_VENDOR_ID, index);
  size_t element = etr_scalar_type_size(source->dtype);
  int64_t position[ETR_MAX_DIMS] = {0};
  do {
    memcpy((uint8_t *)target->data +
               (size_t)etr_tensor_offset(target, position) * element,
           (const uint8_t *)source->data +
               (size_t)etr_tensor_offset(source, position) * element,
           element);
  } while (etr_index_next(position, source->sizes, source->dim));
  return ETR_OK;
}

static etr_error_t vendor_execute(const etr_backend_t *self,
                                  etr_backend_execute_context_t *context,
                                  void *opaque, etr_evalue_t **args,
                                  size_t num_args) {
  (void)self;
  etr_diag_t *diag = context->diag;
  vendor_handle_t *handle = (vendor_handle_t *)opaque;
  ETR_CHECK(diag, handle != NULL, ETR_ERR_DELEGATE_INVALID_HANDLE,
            "%s: no handle", ETR_EXAMPLE_VENDOR_ID);
  etr_method_t *method = &handle->method;
  size_t inputs = method->num_inputs;
  size_t outputs = method->num_outputs;
  ETR_CHECK(diag, num_args == inputs + outputs, ETR_ERR_INVALID_ARGUMENT,
            "%s: the delegate takes %zu inputs and %zu outputs, the call "
            "passes %zu arguments",
            ETR_EXAMPLE_VENDOR_ID, inputs, outputs, num_args);
  for (size_t i = 0; i < inputs; ++i) {
    etr_error_t status =
        etr_method_set_input(method, (uint32_t)i, args[i], diag);
    if (status != ETR_OK) {
      etr_diag_prefix(diag, "%s", ETR_EXAMPLE_VENDOR_ID);
      return status;
    }
  }
  handle->state.delegate_index = context->delegate_index;
  handle->state.target_calls = 0;
  handle->outer = context;
  etr_vendor_current = &handle->state;
  etr_error_t status = etr_method_execute(method, diag);
  etr_vendor_current = NULL;
  handle->outer = NULL;
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "%s", ETR_EXAMPLE_VENDOR_ID);
    return status;
  }
  for (size_t k = 0; k < outputs; ++k) {
    const etr_evalue_t *result = etr_method_output(method, (uint32_t)k);
    etr_evalue_t *target = args[inputs + k];
    if (result->tag != ETR_TAG_TENSOR) {
      ETR_CHECK(diag, target->tag == result->tag, ETR_ERR_INVALID_ARGUMENT,
                "%s: output %zu is %s, the delegate computed %s",
                ETR_EXAMPLE_VENDOR_ID, k, etr_tag_name(target->tag),
                etr_tag_name(result->tag));
      target->u = result->u;
      continue;
    }
    ETR_CHECK(diag, target->tag == ETR_TAG_TENSOR, ETR_ERR_INVALID_ARGUMENT,
              "%s: output %zu is %s, not a tensor", ETR_EXAMPLE_VENDOR_ID, k,
              etr_tag_name(target->tag));
    ETR_TRY(copy_output(target->u.as_tensor, result->u.as_tensor,
                        (uint32_t)k, diag));
  }
  return ETR_OK;
}

static void vendor_destroy(const etr_backend_t *self, void *opaque) {
  (void)self;
  release_handle((vendor_handle_t *)opaque);
}

// `user` non-NULL: honour the environment.
static const int kHonorEnvironment = 1;

static const etr_backend_t kBackend = {
    .id = ETR_EXAMPLE_VENDOR_ID,
    .user = NULL,
    .is_available = NULL,
    .init = vendor_init,
    .execute = vendor_execute,
    .destroy = vendor_destroy,
};

static const etr_backend_t kBackendFromEnvironment = {
    .id = ETR_EXAMPLE_VENDOR_ID,
    .user = (void *)&kHonorEnvironment,
    .is_available = NULL,
    .init = vendor_init,
    .execute = vendor_execute,
    .destroy = vendor_destroy,
};

const etr_backend_t *etr_example_vendor_backend(void) { return &kBackend; }

const etr_backend_t *etr_example_vendor_backend_from_environment(void) {
  return &kBackendFromEnvironment;
}
