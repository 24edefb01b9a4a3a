// SPDX-License-Identifier: Apache-2.0
//
// ExecuTorch's own ETDump of the same program, summarized per instruction
// so a report can put ExecuTorch's runtime beside etref's: per instruction
// id (chain, instruction) the OPERATOR_CALL / DELEGATE_CALL durations over
// the "Execute" blocks (after skipping the warm-up ones), the kernel event's
// name (native_call_*), and Method::execute per run. Aligning with etref is
// by (chain, instruction id), which both runtimes number the same way (the
// instruction's index in its chain).
#ifndef ETR_PROF_EXECUTORCH_COMPARE_H
#define ETR_PROF_EXECUTORCH_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "prof/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_executorch_row {
  int64_t chain;
  int32_t instruction;
  char name[96];              // native_call_* / OPERATOR_CALL / DELEGATE_CALL
  etr_prof_samples_t time;    // ns per call
  double per_run_ns;
} etr_executorch_row_t;

typedef struct etr_executorch_profile {
  uint32_t runs;              // Execute blocks used
  uint32_t skipped;           // warm-up blocks skipped
  etr_prof_samples_t execute; // Method::execute, ns per run
  etr_executorch_row_t *rows;
  uint32_t num_rows;
} etr_executorch_profile_t;

// Summarizes the ETDump in `data` (ExecuTorch's), skipping the first
// `warmup` Execute blocks. InvalidProgram for a malformed file or one with
// no Execute block past the warm-up.
etr_error_t etr_executorch_profile_read(const uint8_t *data, size_t size,
                                        uint32_t warmup,
                                        etr_executorch_profile_t *profile,
                                        etr_diag_t *diag);

void etr_executorch_profile_release(etr_executorch_profile_t *profile);

// The row of (chain, instruction), or NULL.
const etr_executorch_row_t *etr_executorch_profile_row(
    const etr_executorch_profile_t *profile, uint32_t chain,
    uint32_t instruction);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_EXECUTORCH_COMPARE_H
