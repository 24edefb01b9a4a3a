// SPDX-License-Identifier: Apache-2.0
//
// `etref verify PROGRAM`: runs the verifier (verifier/verify.h) and prints
// its diagnostics. Exit 0 when the program is safe to run, 2 with the
// diagnostics when it is not. `etref run` calls etr_cli_verify first.
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "verifier/verify.h"

static const char kVerifyUsage[] =
    "usage: etref verify PROGRAM [--method NAME] [--data FILE.ptd] [--quiet]\n"
    "\n"
    "Proves PROGRAM (.pte or .bpte) safe to run: structure, data, kernels and\n"
    "backends, the memory plan (no two live tensors sharing bytes) and a\n"
    "shape and dtype dry run of every instruction. Exit 0 when safe, 2 with\n"
    "diagnostics naming method, instruction, operator and values when not.\n";

int etr_cli_verify(const etr_cli_session_t *session, const char *method,
                   bool print_ok, FILE *out) {
  static etr_verify_report_t report;
  etr_verify_config_t config = {
      .kernels = &session->kernels,
      .backends = &session->backends,
      .external_data = session->has_data ? &session->data : NULL,
      .method = method,
  };
  etr_error_t status =
      etr_verify_program(&session->program, &config, &report);
  char line[ETR_DIAG_MESSAGE_CAPACITY + 512];
  for (size_t i = 0; i < report.count; ++i) {
    const etr_diagnostic_t *d = &report.items[i];
    if (d->severity == ETR_SEVERITY_ERROR || print_ok) {
      etr_diagnostic_format(d, line, sizeof(line));
      fprintf(d->severity == ETR_SEVERITY_ERROR ? stderr : out, "%s\n", line);
    }
  }
  if (report.errors > report.count) {
    fprintf(stderr, "(%zu more diagnostics not shown)\n",
            report.errors + report.warnings - report.count);
  }
  if (status == ETR_OK) {
    if (print_ok) {
      fprintf(out, "verified: %u method%s, %zu warning%s\n", report.methods,
              report.methods == 1 ? "" : "s", report.warnings,
              report.warnings == 1 ? "" : "s");
    }
    return ETR_EXIT_OK;
  }
  fprintf(stderr, "etref: the program is not safe to run: %zu error%s\n",
          report.errors, report.errors == 1 ? "" : "s");
  return ETR_EXIT_INVALID;
}

int etr_cli_verify_command(int argc, char **argv) {
  const char *path = NULL;
  const char *method = NULL;
  const char *data_path = NULL;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0) {
      fputs(kVerifyUsage, stdout);
      return ETR_EXIT_OK;
    }
    if (strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    } else if (strcmp(argv[i], "--method") == 0 && i + 1 < argc) {
      method = argv[i + 1];
      ++i;
    } else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
      data_path = argv[i + 1];
      ++i;
    } else if (argv[i][0] == '-' || path != NULL) {
      fprintf(stderr, "etref verify: unexpected argument '%s'\n\n%s", argv[i],
              kVerifyUsage);
      return ETR_EXIT_USAGE;
    } else {
      path = argv[i];
    }
  }
  if (path == NULL) {
    fprintf(stderr, "etref verify: missing PROGRAM\n\n%s", kVerifyUsage);
    return ETR_EXIT_USAGE;
  }
  static etr_cli_session_t session;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  int code = etr_cli_open(&session, path, data_path, &diag);
  if (code == ETR_EXIT_OK) {
    code = etr_cli_verify(&session, method, !quiet, stdout);
  }
  etr_cli_close(&session);
  return code;
}
