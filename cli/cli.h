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

#include <stdbool.h>
#include <stdio.h>

#include "core/backend.h"
#include "core/bundled_program.h"
#include "core/data_map.h"
#include "core/error.h"
#include "core/kernel.h"
#include "core/program.h"

enum {
  ETR_EXIT_OK = 0,
  ETR_EXIT_USAGE = 1,
  ETR_EXIT_INVALID = 2,
  ETR_EXIT_MISMATCH = 3,
};

// Registers the prim ops, the reference kernels and the optimized kernels.
etr_error_t etr_cli_build_kernels(etr_kernel_registry_t *registry,
                                  etr_diag_t *diag);

// Registers the backends linked into etref (ExecuTorch's demo delegate and
// the example vendor delegate).
etr_error_t etr_cli_build_backends(etr_backend_registry_t *registry,
                                   etr_diag_t *diag);

// Loads delegate libraries (`--delegate LIB.so`, core/backend.h's ABI) and
// registers their backends into `backends`, a backend with an id already
// registered replacing it (said on stderr unless `quiet`). Returns an exit
// code, having reported any error: 1 when a file cannot be read, 2 for a
// library that is not a valid etref delegate library.
int etr_cli_load_delegates(etr_backend_registry_t *backends,
                           const char *const *paths, size_t count,
                           bool quiet);

// Prints "etref: error: <message> [<ErrorName> 0x..]" to stderr and returns
// the exit code for the error: 1 for AccessFailed (a path on the command
// line), 2 for everything else.
int etr_cli_report(const etr_diag_t *diag, etr_error_t status);

// What a subcommand works on. Large (the registries): keep it static.
typedef struct etr_cli_session {
  etr_program_t program;
  etr_bundled_program_t bundle;  // when the file is a .bpte
  bool is_bundle;
  etr_data_map_t data;           // when a .ptd was given
  bool has_data;
  etr_kernel_registry_t kernels;
  etr_backend_registry_t backends;
} etr_cli_session_t;

// Reads `path` (a .pte or .bpte), loads its program, the optional .ptd at
// `data_path`, and builds the registries. Returns an exit code, having
// reported any error.
int etr_cli_open(etr_cli_session_t *session, const char *path,
                 const char *data_path, etr_diag_t *diag);
void etr_cli_close(etr_cli_session_t *session);

// Verifies the session's program (one method, or all when NULL), printing
// errors to stderr (and warnings and a summary to `out` when print_ok).
// Returns ETR_EXIT_OK or ETR_EXIT_INVALID.
int etr_cli_verify(const etr_cli_session_t *session, const char *method,
                   bool print_ok, FILE *out);

// Subcommands; argv[0] is the subcommand's name.
int etr_cli_run(int argc, char **argv);
int etr_cli_inspect(int argc, char **argv);
int etr_cli_verify_command(int argc, char **argv);
int etr_cli_plan(int argc, char **argv);
int etr_cli_profile(int argc, char **argv);
int etr_cli_compare(int argc, char **argv);

#endif  // ETR_CLI_CLI_H
