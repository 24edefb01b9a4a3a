// SPDX-License-Identifier: Apache-2.0
//
// What `etref compare` writes: a JSON document (schema "etref-compare",
// version 1, described in README.md), a self-contained HTML report and its
// Markdown twin (prof/report_doc.h: inline SVG, no script, no network), and
// a console summary. Every report states the tolerance model it judged by
// and the command that regenerates it.
#ifndef ETR_PROF_ORACLE_REPORT_H
#define ETR_PROF_ORACLE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "prof/oracle/align.h"
#include "prof/oracle/oracle.h"
#include "prof/oracle/policy.h"
#include "prof/oracle/values.h"
#include "prof/text.h"

#ifdef __cplusplus
extern "C" {
#endif

// One comparison: one set of inputs.
typedef struct etr_oracle_case {
  char name[160];            // "bundled test set 1", "seeded random inputs"
  int32_t bundled_test_set;  // -1 when not from a bundle
  const etr_oracle_result_t *result;
  const etr_oracle_values_t *candidate;
  const etr_oracle_alignment_t *alignment;
  char candidate_failure[ETR_DIAG_MESSAGE_CAPACITY + 64];  // "" when none
  uint64_t candidate_ns;     // the candidate run, when etref ran it
} etr_oracle_case_t;

#define ETR_ORACLE_MAX_NOTES 8

typedef struct etr_oracle_report {
  const char *command;  // the command line that produced it
  const char *program;
  const char *reference_program;
  const char *method;
  const char *candidate_kind;    // optimized, delegate, outputs, etdump
  const char *candidate_source;  // library, files, ETDump path
  const char *map_path;          // may be NULL
  const char *inputs;            // how the inputs were chosen
  const etr_oracle_map_t *map;   // may be NULL
  const etr_oracle_policy_t *policy;
  bool intermediates;
  const etr_oracle_case_t *cases;
  uint32_t num_cases;
  const char *notes[ETR_ORACLE_MAX_NOTES];
  uint32_t num_notes;
  etr_oracle_verdict_t verdict;  // over all cases
  int exit_code;
} etr_oracle_report_t;

// The verdict over all cases: DIVERGE when any diverges, NOT_COMPARED when
// none compared anything, else AGREE.
etr_oracle_verdict_t etr_oracle_report_verdict(const etr_oracle_case_t *cases,
                                               uint32_t count);

void etr_oracle_report_json(const etr_oracle_report_t *report,
                            etr_text_t *out);

// Writes the JSON to `path`. AccessFailed when it cannot be written.
etr_error_t etr_oracle_write_json(const etr_oracle_report_t *report,
                                  const char *path, etr_diag_t *diag);

// Writes DIR/compare.html and DIR/compare.md (+ its .svg figures),
// creating DIR. AccessFailed when they cannot be written.
etr_error_t etr_oracle_write_report(const etr_oracle_report_t *report,
                                    const char *directory, etr_diag_t *diag);

// A table of the ops and outputs, per case, and the verdict line.
void etr_oracle_print_summary(const etr_oracle_report_t *report, FILE *out);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ORACLE_REPORT_H
