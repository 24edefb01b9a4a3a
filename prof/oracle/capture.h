// SPDX-License-Identifier: Apache-2.0
//
// The oracle's capturing tracer: attached to a method (as its
// etr_method_config_t.tracer) it copies, during each execution, what
// ExecuTorch's ETDump debug events would hold: every KernelCall's return
// slot and every DelegateCall argument (INSTRUCTION keys), the values
// delegates report from inside their subgraphs (DELEGATE keys), and the
// program outputs after the run (OUTPUT keys), into an etr_oracle_values_t.
//
// Unlike prof/'s tracer it allocates while the method runs (the copies go
// into the value set's growable arena): it measures no time, and keeping
// every intermediate of a model is the point. A copy that cannot be made
// stops the capture and is reported by etr_oracle_capture_status.
#ifndef ETR_PROF_ORACLE_CAPTURE_H
#define ETR_PROF_ORACLE_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/event_tracer.h"
#include "core/method.h"
#include "prof/oracle/values.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_ORACLE_MAX_DEBUG_GROUPS 64

typedef struct etr_oracle_capture {
  etr_event_tracer_t tracer;  // attach before loading the method
  etr_oracle_values_t *values;
  const etr_method_t *method;
  bool intermediates;  // false: program outputs only
  uint32_t *occurrences;     // per instruction of every chain
  uint32_t *chain_offsets;   // first counter of each chain
  uint32_t chain;            // instruction in progress
  uint32_t instruction;
  uint32_t occurrence;
  // Positions of the values a delegate reported, per debug id or name,
  // within the instruction in progress.
  struct {
    int64_t debug_id;
    const char *debug_name;
    uint32_t count;
  } groups[ETR_ORACLE_MAX_DEBUG_GROUPS];
  uint32_t num_groups;
  etr_error_t status;  // first failure
  etr_diag_t diag;
} etr_oracle_capture_t;

// Sets the hooks; values go into `values` (which must outlive the capture).
void etr_oracle_capture_init(etr_oracle_capture_t *capture,
                             etr_oracle_values_t *values, bool intermediates);

// Sizes the occurrence counters for `method` (loaded with this tracer).
etr_error_t etr_oracle_capture_bind(etr_oracle_capture_t *capture,
                                    const etr_method_t *method,
                                    etr_diag_t *diag);

void etr_oracle_capture_release(etr_oracle_capture_t *capture);

// ETR_OK, or the first copy that failed (with its message in *diag).
etr_error_t etr_oracle_capture_status(const etr_oracle_capture_t *capture,
                                      etr_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ORACLE_CAPTURE_H
