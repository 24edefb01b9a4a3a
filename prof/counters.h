// SPDX-License-Identifier: Apache-2.0
//
// Hardware performance counters for the profiler: cycles, instructions,
// cache misses and branch misses around each instruction, where the machine
// lets a process count them.
//
// Two sources, tried in order:
//   1. PAPI, loaded at run time with dlopen (libpapi.so.7.0 / libpapi.so),
//      so etref builds and runs without it. Its preset events PAPI_TOT_CYC,
//      PAPI_TOT_INS, PAPI_L3_TCM (else PAPI_L2_TCM) and PAPI_BR_MSP.
//   2. Linux perf_event_open(2) directly, with the generic hardware events
//      (CPU_CYCLES, INSTRUCTIONS, CACHE_MISSES, BRANCH_MISSES) read as one
//      group, user space only. PAPI sits on the same kernel interface; this
//      path covers machines where PAPI is missing or its event library
//      (libpfm4) does not know the CPU.
// When neither can count, `reason` says why in words taken from PAPI
// (PAPI_strerror, the perf_event component's disabled_reason) and from the
// kernel (errno of perf_event_open, perf_event_paranoid), and every output
// of the profiler prints it instead of counts. Counts are never invented:
// an absent counter is absent, not zero.
//
// Reading costs a system call (or a PAPI_read) per sample, so the profiler
// counts in runs of their own, separate from the timed runs.
#ifndef ETR_PROF_COUNTERS_H
#define ETR_PROF_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_PROF_MAX_COUNTERS 4

typedef enum etr_counter_source {
  ETR_COUNTERS_NONE = 0,
  ETR_COUNTERS_PAPI = 1,
  ETR_COUNTERS_PERF_EVENT = 2,
} etr_counter_source_t;

// Which sources etr_counters_open may use.
typedef enum etr_counter_request {
  ETR_COUNTERS_AUTO = 0,       // PAPI, else perf_event
  ETR_COUNTERS_ONLY_PAPI = 1,  // PAPI or nothing
  ETR_COUNTERS_ONLY_PERF = 2,  // perf_event or nothing
  ETR_COUNTERS_OFF = 3,        // nothing ("counters not requested")
} etr_counter_request_t;

typedef struct etr_counters {
  etr_counter_source_t source;
  uint32_t num_counters;  // 0 when source is NONE
  // Short names: "cycles", "instructions", "cache-misses", "branch-misses".
  const char *names[ETR_PROF_MAX_COUNTERS];
  // Why counting is impossible (source NONE), or what was tried before the
  // source that works and which events it lacks. Always NUL-terminated.
  char reason[768];
  // PAPI (through dlopen).
  void *papi_library;
  int papi_event_set;
  int (*papi_read)(int event_set, long long *values);
  int (*papi_stop)(int event_set, long long *values);
  int (*papi_cleanup_eventset)(int event_set);
  int (*papi_destroy_eventset)(int *event_set);
  // perf_event: one fd per counter, fds[0] the group leader.
  int fds[ETR_PROF_MAX_COUNTERS];
  uint64_t ids[ETR_PROF_MAX_COUNTERS];
} etr_counters_t;

// Opens and starts the counters. Never fails: when nothing can count, the
// source is NONE and `reason` explains. Returns the source.
etr_counter_source_t etr_counters_open(etr_counters_t *counters,
                                       etr_counter_request_t request);

// Current values of the open counters (num_counters of them, in `names`
// order) into values[]. Does not allocate. False when the read failed (the
// sample is then unusable) or nothing is open.
bool etr_counters_read(etr_counters_t *counters,
                       uint64_t values[ETR_PROF_MAX_COUNTERS]);

// Stops counting and closes everything; the reason string stays.
void etr_counters_close(etr_counters_t *counters);

// "PAPI", "perf_event" or "none".
const char *etr_counter_source_name(etr_counter_source_t source);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_COUNTERS_H
