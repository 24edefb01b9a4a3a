// SPDX-License-Identifier: Apache-2.0
//
// The delegate (backend) interface, mirroring ExecuTorch's BackendInterface
// (runtime/backend/interface.h) in C, and the versioned ABI through which a
// vendor ships a backend as a shared library (`etref run|profile|compare
// --delegate libfoo.so`). This header is the whole contract: a vendor
// builds against it (and the headers it includes) and nothing else.
//
// ---- How a program uses a backend ---------------------------------------
// A program may hand subgraphs to a backend: its ExecutionPlan lists
// BackendDelegates (backend id, a processed blob, compile specs) and
// DelegateCall instructions run them. When a method loads, each delegate's
// backend is looked up by id in a backend registry (a program naming a
// backend that is not registered is rejected at load with NotFound and the
// backend's id), then:
//
//   is_available(self)   may be NULL (= available). False rejects the
//                        program at load with NotFound.
//   init(self, context, processed, processed_size, specs, num_specs,
//        &handle)        once per delegate per method load. `processed` is
//                        the blob the backend's AOT preprocess() wrote; it
//                        is untrusted input (validate every byte you read)
//                        and stays valid, unchanged, until destroy(): it
//                        lives inside the program file, which outlives the
//                        method. It is only 16-byte aligned when the file
//                        put it there; copy it if you need more. `specs`
//                        (keys NUL-terminated, values raw bytes) are valid
//                        for the duration of init only: copy what you keep.
//                        The backend may allocate here (malloc, or
//                        context->method_arena, which lives as long as the
//                        method and is freed with it). Returns ETR_OK and
//                        sets *handle (may be NULL), or an error code after
//                        recording why in context->diag; the method load
//                        then fails with that code and destroy is not
//                        called for this delegate.
//   execute(self, context, handle, args, num_args)
//                        once per DelegateCall. `args` are the call's
//                        EValues, the delegate's inputs followed by its
//                        outputs, in the order the exporter emitted them;
//                        the EValues and tensors belong to the method: read
//                        inputs, write outputs' data in place (an output
//                        tensor may be resized with etr_tensor_resize within
//                        its capacity_bytes), never keep the pointers past
//                        the call. Should not allocate: context->temp is a
//                        scratch arena (may be NULL) reset after the call.
//                        Returns ETR_OK, or an error code with a message in
//                        context->diag; the method's execution stops there.
//   destroy(self, handle) may be NULL. Once per successful init, when the
//                        method is released; frees what init allocated.
//
// Every callback may run again for another method or program; nothing is
// called concurrently on one handle. Callbacks must never abort or exit the
// process: untrusted blobs and arguments get an error code, not a crash.
//
// ---- Shipping a backend as a shared library (ABI version 1) -------------
// The library exports one C symbol, ETR_BACKEND_ENTRY_SYMBOL
// ("etref_backend_entry_v1"), of type etr_backend_entry_fn: it returns a
// pointer to a static etr_backend_library_t (fill it with
// ETR_BACKEND_LIBRARY_INIT so the version and the struct sizes are the ones
// this header was compiled with). etref dlopens the library, calls the entry
// once, and refuses it, with a message and without running any of its
// backends, when:
//   - the file cannot be read (AccessFailed; exit code 1),
//   - it is not a loadable shared object or lacks the entry symbol
//     (DelegateInvalidCompatibility / NotFound; exit 2),
//   - abi_version is not ETR_BACKEND_ABI_VERSION, or a struct size differs
//     from etref's (built against another etref: DelegateInvalidCompatibility;
//     exit 2),
//   - it lists no backend or more than ETR_MAX_REGISTERED_BACKENDS, a
//     backend is NULL, has no id, no init or no execute callback, or two
//     backends share an id (InvalidArgument; exit 2).
// Accepted backends are registered for the session; one whose id equals a
// backend already registered (built into etref, or from an earlier
// --delegate) replaces it, and etref says so. The library stays loaded
// until the process exits: the descriptor, the backends and every string
// they point to must stay valid that long (static storage).
//
// What the ABI fixes: the layout of every struct in this header and in the
// headers it includes (etr_evalue_t, etr_tensor_t, etr_diag_t, etr_arena_t,
// etr_event_tracer_t) and the error codes of core/error.h. A change to any
// of them bumps ETR_BACKEND_ABI_VERSION. A library may link etref's own
// core/ code statically (the example in delegates/example_vendor/ does, to
// run etref kernels inside its delegate); it must then keep those symbols
// local (a version script exporting only the entry symbol), so they never
// interpose the host's copies.
//
// Profiling and debugging from inside a delegate: etr_backend_log_event
// (ExecuTorch's log_profiling_delegate) and etr_backend_log_intermediate
// (log_intermediate_output_delegate) report to the method's tracer, if any;
// both are inline functions of this header, so a library needs no etref
// code for them. A value logged with a debug id lets `etref compare` align
// it with the reference program's op (see README, "etref compare").
#ifndef ETR_CORE_BACKEND_H
#define ETR_CORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/evalue.h"
#include "core/event_tracer.h"

#ifdef __cplusplus
extern "C" {
#endif

struct etr_program;

typedef struct etr_compile_spec {
  const char *key;       // NUL-terminated
  const uint8_t *value;  // value_size raw bytes (not NUL-terminated)
  size_t value_size;
} etr_compile_spec_t;

typedef struct etr_backend_init_context etr_backend_init_context_t;

struct etr_backend_init_context {
  const char *method_name;
  // Opaque to shared-library backends (its layout is not part of the ABI);
  // use named_data below. In-tree backends may call etr_program_named_data.
  const struct etr_program *program;
  etr_arena_t *method_arena;  // lives as long as the method
  etr_diag_t *diag;           // where init records why it failed
  // The program's named data (Program.named_data, e.g. weights a delegate
  // shares) by key: sets *data/*size (valid as long as the program) or
  // returns NotFound. Never NULL when etref calls init.
  etr_error_t (*named_data)(const etr_backend_init_context_t *context,
                            const char *key, const uint8_t **data,
                            size_t *size);
};

struct etr_method;

typedef struct etr_backend_execute_context {
  const char *method_name;
  etr_arena_t *temp;  // scratch, reset after the instruction; may be NULL
  etr_diag_t *diag;   // where execute records why it failed
  // For profiling and debugging: the method's tracer (may be NULL), the
  // method (opaque) and which of its delegates this is. Use them only
  // through etr_backend_log_event and etr_backend_log_intermediate.
  const etr_event_tracer_t *tracer;
  const struct etr_method *method;
  uint32_t delegate_index;
} etr_backend_execute_context_t;

// Reports a profiling event inside a delegate to the method's tracer (if
// any and if it listens); times from etr_now_ns() (monotonic ns).
static inline void etr_backend_log_event(
    const etr_backend_execute_context_t *context, const char *name,
    int64_t debug_id, uint64_t start_ns, uint64_t end_ns) {
  const etr_event_tracer_t *tracer = context->tracer;
  if (tracer != NULL && tracer->delegate_event != NULL) {
    tracer->delegate_event(tracer->user, context->method,
                           context->delegate_index, name, debug_id, start_ns,
                           end_ns);
  }
}

// Reports a value the delegate computed inside its subgraph (an
// intermediate output) to the method's tracer. `debug_id` (>= 0) or `name`
// (may be NULL) identifies it within the delegate, as ExecuTorch's
// delegate_debug_id_int / _str; the delegate's AOT side says which graph
// node each id stands for. The value (a Tensor, TensorList, Int, Double or
// Bool) is only read during the call: the tracer copies what it keeps.
static inline void etr_backend_log_intermediate(
    const etr_backend_execute_context_t *context, const char *name,
    int64_t debug_id, const etr_evalue_t *value) {
  const etr_event_tracer_t *tracer = context->tracer;
  if (tracer != NULL && tracer->delegate_intermediate != NULL) {
    tracer->delegate_intermediate(tracer->user, context->method,
                                  context->delegate_index, name, debug_id,
                                  value);
  }
}

// True when some tracer listens for intermediate outputs (so a delegate can
// skip preparing them otherwise).
static inline bool etr_backend_wants_intermediates(
    const etr_backend_execute_context_t *context) {
  return context->tracer != NULL &&
         context->tracer->delegate_intermediate != NULL;
}

typedef struct etr_backend etr_backend_t;

struct etr_backend {
  const char *id;  // the BackendDelegate.id it serves ("XnnpackBackend")
  void *user;      // backend-wide state, passed back through `self`
  bool (*is_available)(const etr_backend_t *self);  // may be NULL
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

// ---- The shared-library ABI ----------------------------------------------

#define ETR_BACKEND_ABI_VERSION 1u
#define ETR_BACKEND_ENTRY_SYMBOL "etref_backend_entry_v1"

// What a delegate library's entry returns. The sizes let etref refuse a
// library compiled against another layout instead of misreading it.
typedef struct etr_backend_library {
  uint32_t abi_version;  // ETR_BACKEND_ABI_VERSION
  uint32_t sizeof_library;  // sizeof(etr_backend_library_t)
  uint32_t sizeof_backend;  // sizeof(etr_backend_t)
  uint32_t sizeof_init_context;
  uint32_t sizeof_execute_context;
  uint32_t sizeof_evalue;
  uint32_t sizeof_tensor;
  uint32_t sizeof_event_tracer;
  const char *name;  // for messages ("Example vendor delegate 1.0")
  const etr_backend_t *const *backends;
  uint32_t num_backends;
} etr_backend_library_t;

// The fixed part of an etr_backend_library_t initializer:
//   static const etr_backend_library_t library = {
//       ETR_BACKEND_LIBRARY_INIT, .name = "...", .backends = list,
//       .num_backends = 1};
#define ETR_BACKEND_LIBRARY_INIT                                        \
  .abi_version = ETR_BACKEND_ABI_VERSION,                               \
  .sizeof_library = (uint32_t)sizeof(etr_backend_library_t),            \
  .sizeof_backend = (uint32_t)sizeof(etr_backend_t),                    \
  .sizeof_init_context = (uint32_t)sizeof(etr_backend_init_context_t),  \
  .sizeof_execute_context =                                             \
      (uint32_t)sizeof(etr_backend_execute_context_t),                  \
  .sizeof_evalue = (uint32_t)sizeof(etr_evalue_t),                      \
  .sizeof_tensor = (uint32_t)sizeof(etr_tensor_t),                      \
  .sizeof_event_tracer = (uint32_t)sizeof(etr_event_tracer_t)

// The entry symbol's type. Called once, with no arguments; returns NULL
// only when the library cannot serve (etref then refuses it).
typedef const etr_backend_library_t *(*etr_backend_entry_fn)(void);

// Checks a library descriptor as the loader does (version, sizes, backend
// list, callbacks); `origin` names the library in messages. Platform-free,
// so it is testable without dlopen. DelegateInvalidCompatibility or
// InvalidArgument with a message.
etr_error_t etr_backend_library_check(const etr_backend_library_t *library,
                                      const char *origin, etr_diag_t *diag);

// ---- The registry --------------------------------------------------------

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

// Like add, but a backend with the same id is replaced (in its slot);
// *replaced_out (may be NULL) receives it, or NULL when the id was new.
etr_error_t etr_backend_registry_set(etr_backend_registry_t *registry,
                                     const etr_backend_t *backend,
                                     const etr_backend_t **replaced_out,
                                     etr_diag_t *diag);

// The backend serving `id`, or NULL.
const etr_backend_t *etr_backend_registry_find(
    const etr_backend_registry_t *registry, const char *id);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_BACKEND_H
