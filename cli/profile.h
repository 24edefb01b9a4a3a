// SPDX-License-Identifier: Apache-2.0
//
// Internal to `etref profile` (profile.c, profile_executorch.c): running
// the same program through ExecuTorch's own runtime for the side-by-side
// comparison.
#ifndef ETR_CLI_PROFILE_H
#define ETR_CLI_PROFILE_H

#include <stdint.h>

#include "cli/inputs.h"
#include "prof/report.h"

typedef struct etr_cli_executorch_request {
  const char *python;      // "auto", "off" or an interpreter path
  const char *program;     // the .pte path
  const char *method;
  const char *data_path;   // .ptd or NULL
  const char *const *input_paths;  // .npy files given on the command line
  uint32_t num_input_paths;        // 0: write `inputs` to .npy files
  const etr_cli_inputs_t *inputs;
  uint32_t warmup;
  uint32_t runs;
  const char *keep_etdump;  // where to keep ExecuTorch's .etdp, or NULL
} etr_cli_executorch_request_t;

// Runs the program through ExecuTorch's Python runtime (enable_etdump) in
// a child process and reads its ETDump into report->executorch. Never
// fails the profile: report->has_executorch says whether it worked and
// report->executorch_note says how it ran or why it did not.
void etr_cli_profile_executorch(const etr_cli_executorch_request_t *request,
                                etr_profile_report_t *report);

#endif  // ETR_CLI_PROFILE_H
