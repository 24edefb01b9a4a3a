// SPDX-License-Identifier: Apache-2.0
//
// Statistics over what the tracer recorded: per instruction in run order
// (TFLite benchmark_model's "run order" and "top by computation time"),
// per operator type ("summary by node type": count, average, %, cdf %),
// per delegate event, and per whole run, each as count / min / p10 / p50 /
// p90 / max / mean / total. Percentiles interpolate linearly between order
// statistics, as numpy.percentile does for ExecuTorch's Inspector, so a
// p50 here equals the Inspector's p50 of the same ETDump.
//
// Hardware counters come from a separate profiler whose runs counted them
// (counting perturbs timing); per instruction the median delta per call.
// The cost model (prof/cost_model.h) gives FLOPs and bytes per call.
#ifndef ETR_PROF_STATS_H
#define ETR_PROF_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "prof/cost_model.h"
#include "prof/counters.h"
#include "prof/tracer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_prof_samples {
  uint32_t count;
  double min;
  double p10;
  double p50;
  double p90;
  double max;
  double mean;
  double total;
} etr_prof_samples_t;

// Summarizes `count` values (sorted in place).
void etr_prof_summarize(double *values, uint32_t count,
                        etr_prof_samples_t *samples);

// numpy.percentile's linear interpolation over sorted values.
double etr_prof_percentile(const double *sorted, uint32_t count,
                           double percent);

typedef struct etr_prof_row {
  uint32_t chain;
  uint32_t instruction;
  uint32_t position;     // over all chains, in order
  etr_instruction_kind_t kind;
  const char *name;      // etr_prof_instruction_name
  const char *kernel;    // "reference", "optimized", "prim", "delegate", "-"
  uint32_t calls;        // over all recorded runs
  double calls_per_run;
  double first_ns;       // its first call in the first recorded run
  etr_prof_samples_t time;  // ns per call
  double per_run_ns;     // total / runs
  double percent;        // of the instructions' total
  etr_prof_cost_t cost;  // per call
  bool has_counters;
  double counters[ETR_PROF_MAX_COUNTERS];  // median per call
  char shapes[192];
} etr_prof_row_t;

typedef struct etr_prof_type_row {
  const char *name;
  uint32_t instructions;  // distinct instructions of this type
  double calls_per_run;
  double per_run_ns;
  double mean_ns;         // per call
  double percent;
  double cdf_percent;     // running total, slowest type first
  double flops_per_run;
  double bytes_per_run;
  double output_bytes;    // largest output of one call (TFLite's "mem")
} etr_prof_type_row_t;

typedef struct etr_prof_delegate_row {
  uint32_t chain;
  uint32_t instruction;
  int64_t debug_id;
  char name[ETR_PROF_DELEGATE_NAME_CAPACITY];
  etr_prof_samples_t time;
} etr_prof_delegate_row_t;

typedef struct etr_prof_stats {
  uint32_t runs;
  etr_prof_samples_t run_time;  // ns per whole execution
  double instructions_per_run_ns;
  uint32_t median_run;          // the run whose time is the median
  etr_prof_row_t *rows;         // run order
  uint32_t num_rows;
  etr_prof_type_row_t *types;   // slowest first
  uint32_t num_types;
  etr_prof_delegate_row_t *delegates;
  uint32_t num_delegates;
  // Counters: names, and the reason when there are none.
  uint32_t num_counters;
  const char *counter_names[ETR_PROF_MAX_COUNTERS];
  etr_counter_source_t counter_source;
  char counter_note[768];
} etr_prof_stats_t;

// Computes the statistics of `timing`'s recorded runs; `counting` (may be
// NULL, or have no counters) gives the counter medians. Both must be bound
// to the same method. InvalidState when nothing was recorded,
// MemoryAllocationFailed when out of memory.
etr_error_t etr_prof_stats_compute(const etr_prof_t *timing,
                                   const etr_prof_t *counting,
                                   etr_prof_stats_t *stats, etr_diag_t *diag);

void etr_prof_stats_release(etr_prof_stats_t *stats);

// The row of (chain, instruction), or NULL.
const etr_prof_row_t *etr_prof_stats_row(const etr_prof_stats_t *stats,
                                         uint32_t chain,
                                         uint32_t instruction);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_STATS_H
