// SPDX-License-Identifier: Apache-2.0
//
// The profile report of `etref profile`: everything measured about one
// program, and the writers that turn it into a self-contained HTML page
// with inline SVG charts, its Markdown twin, CSV and JSON.
//
// Contents: how to regenerate it; the machine, its roofline figures and
// where they come from; hardware counters or why there are none; per
// kernel library (reference, optimized) the whole-run times with their
// noise (min / median / max), a timeline of the median run, the per-op
// table in run order (count, total, mean, p50, p90, min, max, %, FLOPs and
// bytes from prof/cost_model.h, GFLOP/s, GB/s, % of the roofline,
// counters), the top ops by time, the summary by operator type (TFLite's
// count / avg / % / cdf %), a roofline chart, memory per arena against the
// planner's lower bound; reference vs optimized speedup per op; ExecuTorch
// side by side when its ETDump is available; delegate events; and the
// tracer's own overhead, measured.
#ifndef ETR_PROF_REPORT_H
#define ETR_PROF_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/method.h"
#include "prof/executorch_compare.h"
#include "prof/machine.h"
#include "prof/memory.h"
#include "prof/stats.h"
#include "prof/tracer.h"

#ifdef __cplusplus
extern "C" {
#endif

// The tracer's cost: whole executions alternating without and with the
// tracer attached (timing only), three ways: wall time (ns per run; what a
// user waits, but on a shared machine it carries other processes' noise),
// the thread's CPU time (CLOCK_THREAD_CPUTIME_ID: no time spent
// descheduled) and, where counters exist, user-space instructions retired
// (deterministic, the figure to trust on a noisy machine).
typedef struct etr_profile_overhead {
  bool measured;
  uint32_t pairs;
  etr_prof_samples_t plain;
  etr_prof_samples_t traced;
  double percent;          // (traced p50 - plain p50) / plain p50 * 100
  etr_prof_samples_t plain_cpu;
  etr_prof_samples_t traced_cpu;
  double cpu_percent;
  bool has_instructions;
  etr_prof_samples_t plain_instructions;  // counts, not ns
  etr_prof_samples_t traced_instructions;
  double instructions_percent;
  bool outputs_identical;  // bitwise, profiled vs unprofiled
} etr_profile_overhead_t;

typedef struct etr_profile_variant {
  etr_kernel_variant_t variant;
  const etr_method_t *method;
  const etr_prof_t *timing;  // the timed runs
  etr_prof_stats_t stats;
  etr_prof_memory_t memory;
  etr_profile_overhead_t overhead;
} etr_profile_variant_t;

#define ETR_PROFILE_MAX_FILES 8

typedef struct etr_profile_report {
  const char *program;   // path as given
  const char *method;
  const char *command;   // the command that regenerates the report
  const char *inputs;    // where the inputs came from
  uint32_t runs;
  uint32_t warmup;
  uint64_t load_ns;      // etr_method_load of the first variant
  etr_machine_t machine;
  etr_profile_variant_t variants[2];
  uint32_t num_variants;
  bool has_executorch;
  etr_executorch_profile_t executorch;
  char executorch_note[768];  // how ExecuTorch ran, or why it did not
  char fusion_note[512];      // what load-time fusion did ("" : none)
  const char *files[ETR_PROFILE_MAX_FILES];  // other outputs, with a word
  const char *file_notes[ETR_PROFILE_MAX_FILES];
  uint32_t num_files;
} etr_profile_report_t;

// Writes `directory`/report.html and its Markdown twin
// `directory`/README.md with the figures as .svg files beside them.
etr_error_t etr_profile_report_write(const etr_profile_report_t *report,
                                     const char *directory,
                                     etr_diag_t *diag);

// One row per instruction and kernel library (and ExecuTorch), with every
// per-op figure; the counters' note in a column when they are absent.
etr_error_t etr_profile_write_csv(const etr_profile_report_t *report,
                                  const char *path, etr_diag_t *diag);

// Everything in the report, machine-readable.
etr_error_t etr_profile_write_json(const etr_profile_report_t *report,
                                   const char *path, etr_diag_t *diag);

// Prints the per-op table of one variant (slowest first) to `out`: what
// `etref run` and `etref profile` show on the console.
void etr_profile_print_table(const etr_prof_stats_t *stats,
                             const char *variant, FILE *out);

// GFLOP/s, GB/s and % of the roofline of a row (p50 per call).
typedef struct etr_row_rates {
  double gflops;
  double gbs;
  double roof_percent;  // of the attainable (compute or bandwidth)
  bool memory_bound;
  bool has_rate;        // a time and a cost to divide
} etr_row_rates_t;

void etr_profile_row_rates(const etr_machine_t *machine,
                           const etr_prof_row_t *row, etr_row_rates_t *rates);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_REPORT_H
