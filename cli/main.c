// SPDX-License-Identifier: Apache-2.0
//
// The `etref` command-line tool: one binary, one subcommand per job.
//   etref run PROGRAM ...   load, verify, run a .pte/.bpte and print outputs
// Later subcommands (verify, profile, compare) plug in here. See cli.h for
// the exit codes.
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/prim_ops.h"
#include "delegates/demo_backend.h"
#include "ops_reference/ops_reference.h"

static const char kUsage[] =
    "usage: etref <command> [options]\n"
    "\n"
    "commands:\n"
    "  run PROGRAM   run a .pte or .bpte program and print its outputs and a\n"
    "                per-operator timing table (etref run --help)\n"
    "  help          print this message\n"
    "\n"
    "exit codes: 0 ok, 1 usage error, 2 invalid or unsupported program or\n"
    "input, 3 numerical check failed\n";

etr_error_t etr_cli_build_kernels(etr_kernel_registry_t *registry,
                                  etr_diag_t *diag) {
  etr_registry_init(registry);
  ETR_TRY(etr_registry_register_table(registry, etr_prim_kernels,
                                      etr_prim_kernel_count,
                                      ETR_KERNELS_REFERENCE, diag));
  return etr_registry_register_table(registry, etr_reference_kernels,
                                     etr_reference_kernel_count,
                                     ETR_KERNELS_REFERENCE, diag);
}

etr_error_t etr_cli_build_backends(etr_backend_registry_t *registry,
                                   etr_diag_t *diag) {
  etr_backend_registry_init(registry);
  return etr_backend_registry_add(registry, etr_demo_backend(), diag);
}

int etr_cli_report(const etr_diag_t *diag, etr_error_t status) {
  const char *message =
      diag != NULL && diag->code != ETR_OK ? diag->message : "failed";
  fprintf(stderr, "etref: error: %s [%s 0x%02x]\n", message,
          etr_error_name(status), (unsigned)status);
  return status == ETR_ERR_ACCESS_FAILED ? ETR_EXIT_USAGE : ETR_EXIT_INVALID;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(kUsage, stderr);
    return ETR_EXIT_USAGE;
  }
  const char *command = argv[1];
  if (strcmp(command, "run") == 0) {
    return etr_cli_run(argc - 1, argv + 1);
  }
  if (strcmp(command, "help") == 0 || strcmp(command, "--help") == 0 ||
      strcmp(command, "-h") == 0) {
    fputs(kUsage, stdout);
    return ETR_EXIT_OK;
  }
  fprintf(stderr, "etref: unknown command '%s'\n\n%s", command, kUsage);
  return ETR_EXIT_USAGE;
}
