// SPDX-License-Identifier: Apache-2.0
//
// Internal to `etref compare` (cli/oracle.c): its options and state,
// shared by
//   oracle.c          the command's flow: verify, load, cases, judge, write
//   oracle_options.c  usage and option parsing
//   oracle_sources.c  what it reads: sessions and delegate libraries, the
//                     policy, the map, the candidate's values (a captured
//                     run, .npy outputs, an ETDump)
#ifndef ETR_CLI_ORACLE_H
#define ETR_CLI_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"
#include "cli/inputs.h"
#include "core/method.h"
#include "prof/etdump_reader.h"
#include "prof/oracle/align.h"
#include "prof/oracle/capture.h"
#include "prof/oracle/oracle.h"
#include "prof/oracle/policy.h"
#include "prof/oracle/report.h"
#include "prof/oracle/values.h"

#define MAX_FILES 64
#define MAX_CASES 256

typedef enum {
  CANDIDATE_NONE = 0,
  CANDIDATE_OPTIMIZED,
  CANDIDATE_DELEGATE,
  CANDIDATE_OUTPUTS,
  CANDIDATE_ETDUMP,
} candidate_kind_t;

// "optimized", "delegate", "outputs", "etdump" by candidate_kind_t.
extern const char *const etr_compare_kind_names[];

typedef struct {
  const char *program;
  const char *reference_program;
  const char *data;
  const char *method;
  const char *candidate_text;
  candidate_kind_t kind;
  const char *candidate_source;
  const char *map;
  const char *policy;
  const char *report;
  const char *json;
  const char *debug_buffer;
  const char *inputs[MAX_FILES];
  size_t num_inputs;
  const char *delegates[MAX_FILES];
  size_t num_delegates;
  bool bundled;
  bool all_test_sets;
  long test_set;
  unsigned long long seed;
  bool intermediates;
  bool quiet;
} options_t;

typedef struct {
  etr_cli_session_t candidate_session;  // PROGRAM
  etr_cli_session_t reference_session;  // --reference-program
  bool separate_reference;
  etr_backend_registry_t reference_backends;
  etr_backend_registry_t candidate_backends;
  etr_oracle_policy_t policy;
  etr_oracle_map_t map;
  bool has_map;
  etr_method_t reference;
  etr_method_t candidate;
  bool has_candidate_method;
  etr_oracle_capture_t capture;
  etr_etdump_t etdump;
  void *etdump_bytes;
  void *debug_buffer;
  size_t debug_buffer_size;
  const char *debug_buffer_path;
  char *output_files[MAX_FILES];  // outputs: candidate files (owned)
  size_t num_output_files;
  etr_cli_inputs_t inputs;
  etr_oracle_case_t cases[MAX_CASES];
  etr_oracle_result_t results[MAX_CASES];
  etr_oracle_values_t values[MAX_CASES];
  etr_oracle_alignment_t alignments[MAX_CASES];
  uint32_t num_cases;
  char command[8192];
  char inputs_text[512];
  char notes[ETR_ORACLE_MAX_NOTES][512];
  uint32_t num_notes;
} state_t;

// Usage text on stderr with the error; returns ETR_EXIT_USAGE.
int etr_compare_usage_error(const char *format, const char *detail);
// 0, -1 for --help (printed), or an exit code.
int etr_compare_parse_options(int argc, char **argv, options_t *options);

void etr_compare_add_note(state_t *state, const char *format,
                          const char *detail);
// True when PROGRAM and the reference program hold the same bytes.
bool etr_compare_same_program(const state_t *state);

// Each returns an exit code, having reported any error.
int etr_compare_open_sessions(const options_t *options, state_t *state);
int etr_compare_load_policy(const options_t *options, state_t *state);
int etr_compare_load_map(const options_t *options, state_t *state,
                         const char *method);
int etr_compare_collect_output_files(const options_t *options,
                                     state_t *state);
int etr_compare_load_etdump(const options_t *options, state_t *state);
// The candidate's values for case `index` (test set `test_set`, -1 when
// not from a bundle) into `values`.
int etr_compare_run_candidate(const options_t *options, state_t *state,
                              uint32_t index, int32_t test_set,
                              etr_oracle_values_t *values);

#endif  // ETR_CLI_ORACLE_H
