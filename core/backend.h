// SPDX-License-Identifier: Apache-2.0
//
// The delegate (backend) interface, mirroring ExecuTorch's BackendInterface
// (runtime/backend/interface.h) in C.
//
// A program may hand subgraphs to a backend: its ExecutionPlan lists
// BackendDelegates (backend id, a processed blob, compile specs) and
// DelegateCall instructions run them. When a method loads, each delegate's
// backend is looked up by id in a backend registry; is_available() must
// return true; init() receives the processed blob (valid as long as the
// program) and the compile specs and returns an opaque handle. execute()
// receives the handle and the DelegateCall's arguments (inputs and outputs
// mixed, in the order the exporter emitted them). destroy() runs when the
// method is released. A program naming a backend that is not registered is
// rejected at load with NotFound and the backend's id.
//
// Backends may allocate in init (load time) but should not in execute; the
// execute context offers the method's scratch arena.
#ifndef ETR_CORE_BACKEND_H
#define ETR_CORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/evalue.h"

#ifdef __cplusplus
extern "C" {
#endif

struct etr_program;

typedef struct etr_compile_spec {
  const char *key;
  const uint8_t *value;
  size_t value_size;
} etr_compile_spec_t;

typedef struct etr_backend_init_context {
  const char *method_name;
  const struct etr_program *program;  // for named data (etr_program_named_data)
  etr_arena_t *method_arena;          // lives as long as the method
  etr_diag_t *diag;
} etr_backend_init_context_t;

struct etr_event_tracer;
struct etr_method;

typedef struct etr_backend_execute_context {
  const char *method_name;
  etr_arena_t *temp;  // scratch, reset after the instruction; may be NULL
  etr_diag_t *diag;
  // For profiling: the method's tracer (may be NULL) and which delegate
  // this is. Report sub-steps with etr_backend_log_event.
  const struct etr_event_tracer *tracer;
  const struct etr_method *method;
  uint32_t delegate_index;
} etr_backend_execute_context_t;

// Reports a profiling event inside a delegate to the method's tracer (if
// any and if it listens); times from etr_now_ns().
void etr_backend_log_event(const etr_backend_execute_context_t *context,
                           const char *name, int64_t debug_id,
                           uint64_t start_ns, uint64_t end_ns);

typedef struct etr_backend etr_backend_t;

struct etr_backend {
  const char *id;  // the BackendDelegate.id it serves ("XnnpackBackend")
  void *user;      // backend-wide state, passed back through `self`
  bool (*is_available)(const etr_backend_t *self);
  etr_error_t (*init)(const etr_backend_t *self,
                      etr_backend_init_context_t *context,
                      const uint8_t *processed, size_t processed_size,
                      const etr_compile_spec_t *specs, size_t num_specs,
                      void **handle_out);
  etr_error_t (*execute)(const etr_backend_t *self,
                         etr_backend_execute_context_t *context, void *handle,
                         etr_evalue_t **args, size_t num_args);
  void (*destroy)(const etr_backend_t *self, void *handle);  // may be NULL
};

#define ETR_MAX_REGISTERED_BACKENDS 16

typedef struct etr_backend_registry {
  const etr_backend_t *backends[ETR_MAX_REGISTERED_BACKENDS];
  size_t count;
} etr_backend_registry_t;

void etr_backend_registry_init(etr_backend_registry_t *registry);

// RegistrationAlreadyRegistered for a duplicate id,
// RegistrationExceedingMaxKernels when full, InvalidArgument for a backend
// without id, init or execute.
etr_error_t etr_backend_registry_add(etr_backend_registry_t *registry,
                                     const etr_backend_t *backend,
                                     etr_diag_t *diag);

// The backend serving `id`, or NULL.
const etr_backend_t *etr_backend_registry_find(
    const etr_backend_registry_t *registry, const char *id);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_BACKEND_H
