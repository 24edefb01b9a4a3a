// SPDX-License-Identifier: Apache-2.0
//
// Backend registry (see backend.h).
#include "core/backend.h"

#include <string.h>

#include "core/event_tracer.h"

void etr_backend_registry_init(etr_backend_registry_t *registry) {
  memset(registry, 0, sizeof(*registry));
}

const etr_backend_t *etr_backend_registry_find(
    const etr_backend_registry_t *registry, const char *id) {
  if (registry == NULL || id == NULL) {
    return NULL;
  }
  for (size_t i = 0; i < registry->count; ++i) {
    if (strcmp(registry->backends[i]->id, id) == 0) {
      return registry->backends[i];
    }
  }
  return NULL;
}

etr_error_t etr_backend_registry_add(etr_backend_registry_t *registry,
                                     const etr_backend_t *backend,
                                     etr_diag_t *diag) {
  ETR_CHECK(diag,
            backend != NULL && backend->id != NULL && backend->init != NULL &&
                backend->execute != NULL,
            ETR_ERR_INVALID_ARGUMENT,
            "a backend needs an id, init and execute");
  ETR_CHECK(diag, etr_backend_registry_find(registry, backend->id) == NULL,
            ETR_ERR_REGISTRATION_ALREADY_REGISTERED,
            "backend '%s' is already registered", backend->id);
  ETR_CHECK(diag, registry->count < ETR_MAX_REGISTERED_BACKENDS,
            ETR_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS,
            "cannot register backend '%s': %d are already registered",
            backend->id, ETR_MAX_REGISTERED_BACKENDS);
  registry->backends[registry->count++] = backend;
  return ETR_OK;
}

void etr_backend_log_event(const etr_backend_execute_context_t *context,
                           const char *name, int64_t debug_id,
                           uint64_t start_ns, uint64_t end_ns) {
  const etr_event_tracer_t *tracer = context->tracer;
  if (tracer != NULL && tracer->delegate_event != NULL) {
    tracer->delegate_event(tracer->user, context->method,
                           context->delegate_index, name, debug_id, start_ns,
                           end_ns);
  }
}
