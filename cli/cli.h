// SPDX-License-Identifier: Apache-2.0
//
// Shared pieces of the `etref` command-line tool: its exit codes, and the
// kernel and backend registries every subcommand builds.
//
// Exit codes (documented in README.md; no other exit path, never a signal):
//   0  success
//   1  usage error: unknown flag, missing argument, a file named on the
//      command line that cannot be read, an output that cannot be written
//   2  the program or an input is invalid or unsupported (clean rejection)
//   3  a numerical check failed (bundled test sets, --expected, compare)
#ifndef ETR_CLI_CLI_H
#define ETR_CLI_CLI_H

#include "core/backend.h"
#include "core/error.h"
#include "core/kernel.h"

enum {
  ETR_EXIT_OK = 0,
  ETR_EXIT_USAGE = 1,
  ETR_EXIT_INVALID = 2,
  ETR_EXIT_MISMATCH = 3,
};

// Registers the prim ops, the reference kernels and the optimized kernels.
etr_error_t etr_cli_build_kernels(etr_kernel_registry_t *registry,
                                  etr_diag_t *diag);

// Registers the backends linked into etref (the demo delegate).
etr_error_t etr_cli_build_backends(etr_backend_registry_t *registry,
                                   etr_diag_t *diag);

// Prints "etref: error: <message> [<ErrorName> 0x..]" to stderr and returns
// the exit code for the error: 1 for AccessFailed (a path on the command
// line), 2 for everything else.
int etr_cli_report(const etr_diag_t *diag, etr_error_t status);

// `etref run ...`; argv[0] is "run".
int etr_cli_run(int argc, char **argv);

#endif  // ETR_CLI_CLI_H
