// SPDX-License-Identifier: Apache-2.0
//
// Test fixture: delegate libraries that fail the loader's checks, one per
// build (the BUILD file defines which): another ABI version, a backend
// without execute, an entry returning NULL.
#include <stddef.h>

#include "core/backend.h"

const etr_backend_library_t *etref_backend_entry_v1(void);

static etr_error_t init(const etr_backend_t *self,
                        etr_backend_init_context_t *context,
                        const uint8_t *processed, size_t processed_size,
                        const etr_compile_spec_t *specs, size_t num_specs,
                        void **handle_out) {
  (void)self;
  (void)context;
  (void)processed;
  (void)processed_size;
  (void)specs;
  (void)num_specs;
  *handle_out = NULL;
  return ETR_OK;
}

static const etr_backend_t kBackend = {
    .id = "FixtureBackend",
    .init = init,
    .execute = NULL,  // FIXTURE_NULL_EXECUTE keeps it NULL
};

static const etr_backend_t *const kBackends[1] = {&kBackend};

const etr_backend_library_t *etref_backend_entry_v1(void) {
#if defined(FIXTURE_NULL_ENTRY)
  return NULL;
#else
  static etr_backend_library_t library = {
      ETR_BACKEND_LIBRARY_INIT,
      .name = "fixture",
      .backends = kBackends,
      .num_backends = 1,
  };
#if defined(FIXTURE_BAD_VERSION)
  library.abi_version = 99;
#endif
  return &library;
#endif
}
