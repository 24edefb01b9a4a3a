// SPDX-License-Identifier: Apache-2.0
//
// Delegate libraries through dlopen (see loader.h).
#define _POSIX_C_SOURCE 200809L
#include "delegates/loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

etr_error_t etr_delegate_library_open(const char *path,
                                      etr_delegate_library_t *library,
                                      etr_diag_t *diag) {
  memset(library, 0, sizeof(*library));
  ETR_CHECK(diag, path != NULL && path[0] != '\0', ETR_ERR_INVALID_ARGUMENT,
            "no delegate library path");
  // dlopen searches the system's library paths for a bare name; a user
  // naming a file means that file.
  int written = snprintf(library->path, sizeof(library->path), "%s%s",
                         strchr(path, '/') == NULL ? "./" : "", path);
  ETR_CHECK(diag, written > 0 && (size_t)written < sizeof(library->path),
            ETR_ERR_INVALID_ARGUMENT, "delegate library path is too long");
  struct stat info;
  if (stat(library->path, &info) != 0) {
    return ETR_FAIL(diag, ETR_ERR_ACCESS_FAILED,
                    "cannot read delegate library %s: %s", path,
                    strerror(errno));
  }
  ETR_CHECK(diag, S_ISREG(info.st_mode), ETR_ERR_ACCESS_FAILED,
            "cannot read delegate library %s: not a regular file", path);
  dlerror();  // clear
  library->handle = dlopen(library->path, RTLD_NOW | RTLD_LOCAL);
  if (library->handle == NULL) {
    const char *why = dlerror();
    return ETR_FAIL(diag, ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
                    "cannot load delegate library %s: %s", path,
                    why != NULL ? why : "dlopen failed");
  }
  dlerror();
  void *symbol = dlsym(library->handle, ETR_BACKEND_ENTRY_SYMBOL);
  if (symbol == NULL) {
    etr_delegate_library_close(library);
    return ETR_FAIL(diag, ETR_ERR_NOT_FOUND,
                    "delegate library %s does not export %s (see "
                    "core/backend.h: an etref delegate library exports that "
                    "one C function)",
                    path, ETR_BACKEND_ENTRY_SYMBOL);
  }
  // POSIX guarantees a function pointer round-trips through dlsym's void*.
  etr_backend_entry_fn entry;
  memcpy(&entry, &symbol, sizeof(entry));
  library->descriptor = entry();
  etr_error_t status =
      etr_backend_library_check(library->descriptor, path, diag);
  if (status != ETR_OK) {
    etr_delegate_library_close(library);
  }
  return status;
}

etr_error_t etr_delegate_library_register(
    const etr_delegate_library_t *library, etr_backend_registry_t *registry,
    etr_delegate_registration_t *registration, etr_diag_t *diag) {
  ETR_CHECK(diag, library->handle != NULL && library->descriptor != NULL,
            ETR_ERR_INVALID_STATE, "delegate library is not open");
  const etr_backend_library_t *descriptor = library->descriptor;
  // All or none: register into a copy, commit when every backend fits.
  etr_backend_registry_t updated = *registry;
  etr_delegate_registration_t done;
  memset(&done, 0, sizeof(done));
  for (uint32_t i = 0; i < descriptor->num_backends; ++i) {
    const etr_backend_t *replaced = NULL;
    etr_error_t status = etr_backend_registry_set(
        &updated, descriptor->backends[i], &replaced, diag);
    if (status != ETR_OK) {
      etr_diag_prefix(diag, "delegate library %s", library->path);
      return status;
    }
    done.ids[done.count] = descriptor->backends[i]->id;
    done.replaced[done.count] = replaced != NULL;
    ++done.count;
  }
  *registry = updated;
  if (registration != NULL) {
    *registration = done;
  }
  return ETR_OK;
}

void etr_delegate_library_close(etr_delegate_library_t *library) {
  if (library->handle != NULL) {
    dlclose(library->handle);
  }
  memset(library, 0, sizeof(*library));
}
