// SPDX-License-Identifier: Apache-2.0
//
// Backend registry and the delegate-library descriptor check (see
// backend.h). Nothing here touches the platform: loading a library
// (dlopen) lives in delegates/loader.c.
#include "core/backend.h"

#include <string.h>

void etr_backend_registry_init(etr_backend_registry_t *registry) {
  memset(registry, 0, sizeof(*registry));
}

static size_t registry_slot(const etr_backend_registry_t *registry,
                            const char *id) {
  for (size_t i = 0; i < registry->count; ++i) {
    if (strcmp(registry->backends[i]->id, id) == 0) {
      return i;
    }
  }
  return registry->count;
}

const etr_backend_t *etr_backend_registry_find(
    const etr_backend_registry_t *registry, const char *id) {
  if (registry == NULL || id == NULL) {
    return NULL;
  }
  size_t slot = registry_slot(registry, id);
  return slot < registry->count ? registry->backends[slot] : NULL;
}

static etr_error_t check_backend(const etr_backend_t *backend,
                                 etr_diag_t *diag) {
  ETR_CHECK(diag,
            backend != NULL && backend->id != NULL &&
                backend->id[0] != '\0' && backend->init != NULL &&
                backend->execute != NULL,
            ETR_ERR_INVALID_ARGUMENT,
            "a backend needs an id, init and execute");
  return ETR_OK;
}

etr_error_t etr_backend_registry_add(etr_backend_registry_t *registry,
                                     const etr_backend_t *backend,
                                     etr_diag_t *diag) {
  ETR_TRY(check_backend(backend, diag));
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

etr_error_t etr_backend_registry_set(etr_backend_registry_t *registry,
                                     const etr_backend_t *backend,
                                     const etr_backend_t **replaced_out,
                                     etr_diag_t *diag) {
  if (replaced_out != NULL) {
    *replaced_out = NULL;
  }
  ETR_TRY(check_backend(backend, diag));
  size_t slot = registry_slot(registry, backend->id);
  if (slot == registry->count) {
    return etr_backend_registry_add(registry, backend, diag);
  }
  if (replaced_out != NULL) {
    *replaced_out = registry->backends[slot];
  }
  registry->backends[slot] = backend;
  return ETR_OK;
}

// A size field of the descriptor against etref's own.
static etr_error_t check_size(const char *origin, const char *what,
                              uint32_t theirs, size_t ours,
                              etr_diag_t *diag) {
  ETR_CHECK(diag, theirs == ours, ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
            "delegate library %s was built against another etref: its %s is "
            "%u bytes, etref's is %zu (rebuild it against this etref's "
            "core/backend.h)",
            origin, what, theirs, ours);
  return ETR_OK;
}

etr_error_t etr_backend_library_check(const etr_backend_library_t *library,
                                      const char *origin, etr_diag_t *diag) {
  ETR_CHECK(diag, library != NULL, ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
            "delegate library %s: its entry %s returned NULL", origin,
            ETR_BACKEND_ENTRY_SYMBOL);
  // The version comes first: every other field is read only when the
  // library speaks this ABI.
  ETR_CHECK(diag, library->abi_version == ETR_BACKEND_ABI_VERSION,
            ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
            "delegate library %s speaks etref delegate ABI version %u; this "
            "etref speaks version %u",
            origin, library->abi_version, ETR_BACKEND_ABI_VERSION);
  ETR_TRY(check_size(origin, "etr_backend_library_t",
                     library->sizeof_library, sizeof(etr_backend_library_t),
                     diag));
  ETR_TRY(check_size(origin, "etr_backend_t", library->sizeof_backend,
                     sizeof(etr_backend_t), diag));
  ETR_TRY(check_size(origin, "etr_backend_init_context_t",
                     library->sizeof_init_context,
                     sizeof(etr_backend_init_context_t), diag));
  ETR_TRY(check_size(origin, "etr_backend_execute_context_t",
                     library->sizeof_execute_context,
                     sizeof(etr_backend_execute_context_t), diag));
  ETR_TRY(check_size(origin, "etr_evalue_t", library->sizeof_evalue,
                     sizeof(etr_evalue_t), diag));
  ETR_TRY(check_size(origin, "etr_tensor_t", library->sizeof_tensor,
                     sizeof(etr_tensor_t), diag));
  ETR_TRY(check_size(origin, "etr_event_tracer_t",
                     library->sizeof_event_tracer, sizeof(etr_event_tracer_t),
                     diag));
  ETR_CHECK(diag,
            library->backends != NULL && library->num_backends > 0 &&
                library->num_backends <= ETR_MAX_REGISTERED_BACKENDS,
            ETR_ERR_INVALID_ARGUMENT,
            "delegate library %s lists %u backends (1 to %d expected)",
            origin, library->backends != NULL ? library->num_backends : 0,
            ETR_MAX_REGISTERED_BACKENDS);
  for (uint32_t i = 0; i < library->num_backends; ++i) {
    const etr_backend_t *backend = library->backends[i];
    ETR_CHECK(diag, backend != NULL, ETR_ERR_INVALID_ARGUMENT,
              "delegate library %s: backend %u is NULL", origin, i);
    ETR_CHECK(diag, backend->id != NULL && backend->id[0] != '\0',
              ETR_ERR_INVALID_ARGUMENT,
              "delegate library %s: backend %u has no id", origin, i);
    ETR_CHECK(diag, backend->init != NULL, ETR_ERR_INVALID_ARGUMENT,
              "delegate library %s: backend '%s' has no init callback",
              origin, backend->id);
    ETR_CHECK(diag, backend->execute != NULL, ETR_ERR_INVALID_ARGUMENT,
              "delegate library %s: backend '%s' has no execute callback",
              origin, backend->id);
    for (uint32_t j = 0; j < i; ++j) {
      ETR_CHECK(diag, strcmp(library->backends[j]->id, backend->id) != 0,
                ETR_ERR_INVALID_ARGUMENT,
                "delegate library %s lists backend '%s' twice", origin,
                backend->id);
    }
  }
  return ETR_OK;
}
