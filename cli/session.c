// SPDX-License-Identifier: Apache-2.0
//
// Opening what a subcommand works on (see cli.h): the program file (a
// .pte, or the program embedded in a .bpte), an optional .ptd, and the
// kernel and backend registries.
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/file.h"
#include "core/prim_ops.h"
#include "delegates/demo_backend.h"
#include "delegates/example_vendor/example_vendor.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

etr_error_t etr_cli_build_kernels(etr_kernel_registry_t *registry,
                                  etr_diag_t *diag) {
  etr_registry_init(registry);
  ETR_TRY(etr_registry_register_table(registry, etr_prim_kernels,
                                      etr_prim_kernel_count,
                                      ETR_KERNELS_REFERENCE, diag));
  ETR_TRY(etr_registry_register_table(registry, etr_reference_kernels,
                                      etr_reference_kernel_count,
                                      ETR_KERNELS_REFERENCE, diag));
  // The optimized twins; operators without one run their reference kernel
  // under --kernels optimized (etr_registry_select).
  return etr_registry_register_table(registry, etr_optimized_kernels,
                                     etr_optimized_kernel_count,
                                     ETR_KERNELS_OPTIMIZED, diag);
}

etr_error_t etr_cli_build_backends(etr_backend_registry_t *registry,
                                   etr_diag_t *diag) {
  etr_backend_registry_init(registry);
  ETR_TRY(etr_backend_registry_add(registry, etr_demo_backend(), diag));
  // The example vendor delegate, fault-free (faults come only from a
  // program's compile spec here; --delegate libetref_example_vendor.so
  // loads the copy that also honours $ETREF_EXAMPLE_FAULT).
  return etr_backend_registry_add(registry, etr_example_vendor_backend(),
                                  diag);
}

int etr_cli_report(const etr_diag_t *diag, etr_error_t status) {
  const char *message =
      diag != NULL && diag->code != ETR_OK ? diag->message : "failed";
  fprintf(stderr, "etref: error: %s [%s 0x%02x]\n", message,
          etr_error_name(status), (unsigned)status);
  return status == ETR_ERR_ACCESS_FAILED ? ETR_EXIT_USAGE : ETR_EXIT_INVALID;
}

int etr_cli_open(etr_cli_session_t *session, const char *path,
                 const char *data_path, etr_diag_t *diag) {
  memset(session, 0, sizeof(*session));
  void *bytes = NULL;
  size_t size = 0;
  etr_error_t status = etr_read_file(path, 0, &bytes, &size, diag);
  if (status != ETR_OK) {
    return etr_cli_report(diag, status);
  }
  if (etr_is_bundled_program(bytes, size)) {
    session->is_bundle = true;
    status = etr_bundled_program_load(bytes, size, &session->bundle, diag);
    session->bundle.owned_data = bytes;
    if (status == ETR_OK) {
      status = etr_program_load(session->bundle.program_data,
                                session->bundle.program_size,
                                &session->program, diag);
    }
  } else {
    status = etr_program_load(bytes, size, &session->program, diag);
    session->program.owned_data = bytes;
  }
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "%s", path);
    return etr_cli_report(diag, status);
  }
  if (data_path != NULL) {
    status = etr_data_map_load_file(data_path, 0, &session->data, diag);
    if (status != ETR_OK) {
      return etr_cli_report(diag, status);
    }
    session->has_data = true;
  }
  status = etr_cli_build_kernels(&session->kernels, diag);
  if (status == ETR_OK) {
    status = etr_cli_build_backends(&session->backends, diag);
  }
  if (status != ETR_OK) {
    return etr_cli_report(diag, status);
  }
  return ETR_EXIT_OK;
}

void etr_cli_close(etr_cli_session_t *session) {
  etr_data_map_release(&session->data);
  etr_program_release(&session->program);
  etr_bundled_program_release(&session->bundle);
}
