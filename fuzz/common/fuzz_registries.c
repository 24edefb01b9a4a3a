// SPDX-License-Identifier: Apache-2.0
//
// The kernel and backend registries of the harnesses that load methods
// (see fuzz_common.h): what `etref run` builds, plus the optimized kernels.
#include <stdbool.h>

#include "cli/cli.h"
#include "fuzz/common/fuzz_common.h"
#include "ops_optimized/ops_optimized.h"

static etr_kernel_registry_t g_kernels;
static etr_backend_registry_t g_backends;
static bool g_built;

static void build_registries(void) {
  if (g_built) {
    return;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (etr_cli_build_kernels(&g_kernels, &diag) != ETR_OK ||
      etr_cli_build_backends(&g_backends, &diag) != ETR_OK) {
    etr_fuzz_fault("setup", "cannot build the registries: %s", diag.message);
  }
  // `etref run --kernels optimized` selects the optimized variant of each
  // entry; register every optimized kernel as that variant. One the CLI
  // already registered (RegistrationAlreadyRegistered) is left as it is.
  for (size_t i = 0; i < etr_optimized_kernel_count; ++i) {
    etr_diag_reset(&diag);
    etr_error_t status = etr_registry_register(
        &g_kernels, etr_optimized_kernels[i].name, ETR_KERNELS_OPTIMIZED,
        etr_optimized_kernels[i].fn, &diag);
    if (status != ETR_OK &&
        status != ETR_ERR_REGISTRATION_ALREADY_REGISTERED) {
      etr_fuzz_fault("setup", "cannot register %s: %s",
                     etr_optimized_kernels[i].name, diag.message);
    }
  }
  g_built = true;
}

const etr_kernel_registry_t *etr_fuzz_kernels(void) {
  build_registries();
  return &g_kernels;
}

const etr_backend_registry_t *etr_fuzz_backends(void) {
  build_registries();
  return &g_backends;
}

