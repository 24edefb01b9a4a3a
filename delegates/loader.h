// SPDX-License-Identifier: Apache-2.0
//
// Loading delegate libraries: the platform half of core/backend.h's
// shared-library ABI (core/ stays free of dlopen). A library is opened with
// dlopen (RTLD_NOW | RTLD_LOCAL, so every symbol it needs resolves now and
// none of its symbols leak into later libraries), its entry symbol
// ETR_BACKEND_ENTRY_SYMBOL is looked up and called once, the descriptor is
// checked (etr_backend_library_check) and its backends are registered,
// replacing built-in backends with the same id.
//
// Errors, each with a message naming the library:
//   AccessFailed                  the file does not exist or cannot be read
//   DelegateInvalidCompatibility  not a loadable shared object (dlerror's
//                                 text), another ABI version or layout, or
//                                 the entry returned NULL
//   NotFound                      no ETR_BACKEND_ENTRY_SYMBOL in it
//   InvalidArgument               a NULL, id-less or callback-less backend,
//                                 or an id listed twice
//   RegistrationExceedingMaxKernels  the registry is full
// A library that fails is closed again; nothing of it is registered.
#ifndef ETR_DELEGATES_LOADER_H
#define ETR_DELEGATES_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_DELEGATE_PATH_CAPACITY 1024

typedef struct etr_delegate_library {
  void *handle;  // dlopen's; NULL when not open
  char path[ETR_DELEGATE_PATH_CAPACITY];
  const etr_backend_library_t *descriptor;
} etr_delegate_library_t;

// What registering a library did, for the caller to report.
typedef struct etr_delegate_registration {
  uint32_t count;  // backends registered
  const char *ids[ETR_MAX_REGISTERED_BACKENDS];
  bool replaced[ETR_MAX_REGISTERED_BACKENDS];  // an earlier one had its id
} etr_delegate_registration_t;

// Opens the library at `path` and checks its descriptor. A path without a
// '/' names a file in the current directory (never a search of the
// system's library paths). On failure *library is closed and zeroed.
etr_error_t etr_delegate_library_open(const char *path,
                                      etr_delegate_library_t *library,
                                      etr_diag_t *diag);

// Registers every backend of an open library into `registry` (all or
// none: the registry is unchanged on failure). `registration` may be NULL.
etr_error_t etr_delegate_library_register(
    const etr_delegate_library_t *library, etr_backend_registry_t *registry,
    etr_delegate_registration_t *registration, etr_diag_t *diag);

// Closes the library. Only once no method uses its backends any more.
void etr_delegate_library_close(etr_delegate_library_t *library);

#ifdef __cplusplus
}
#endif

#endif  // ETR_DELEGATES_LOADER_H
