// SPDX-License-Identifier: Apache-2.0
//
// `--delegate LIB.so` for every subcommand that runs programs: loads
// delegate libraries (delegates/loader.h) into a session's backend
// registry, saying when a library's backend replaces one already there.
// The libraries stay loaded until the process exits (their backends' code
// must outlive every method that uses them).
#include <stdio.h>

#include "cli/cli.h"
#include "delegates/loader.h"

#define MAX_LIBRARIES 16

static etr_delegate_library_t g_libraries[MAX_LIBRARIES];
static size_t g_library_count;

int etr_cli_load_delegates(etr_backend_registry_t *backends,
                           const char *const *paths, size_t count,
                           bool quiet) {
  for (size_t i = 0; i < count; ++i) {
    if (g_library_count == MAX_LIBRARIES) {
      fprintf(stderr, "etref: error: at most %d delegate libraries\n",
              MAX_LIBRARIES);
      return ETR_EXIT_USAGE;
    }
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_delegate_library_t *library = &g_libraries[g_library_count];
    etr_error_t status = etr_delegate_library_open(paths[i], library, &diag);
    if (status != ETR_OK) {
      return etr_cli_report(&diag, status);
    }
    ++g_library_count;
    etr_delegate_registration_t registration;
    status = etr_delegate_library_register(library, backends, &registration,
                                           &diag);
    if (status != ETR_OK) {
      return etr_cli_report(&diag, status);
    }
    for (uint32_t b = 0; b < registration.count && !quiet; ++b) {
      fprintf(stderr, "etref: delegate library %s: backend '%s'%s\n",
              paths[i], registration.ids[b],
              registration.replaced[b]
                  ? " replaces the one already registered for this session"
                  : " registered");
    }
  }
  return ETR_EXIT_OK;
}
