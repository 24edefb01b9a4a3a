// SPDX-License-Identifier: Apache-2.0
//
// The profiler's event tracer: what etref records while a method executes,
// for the ETDump writer (prof/etdump.h), the statistics (prof/stats.h) and
// the reports.
//
// Attach `&prof->tracer` to etr_method_config_t.tracer before loading the
// method, then call etr_prof_bind with the loaded method: bind allocates
// every buffer the tracer will use (events for `max_runs` runs of
// `events_per_run` instructions, delegate events, counter samples, the
// capture buffer), so nothing is allocated while the method runs. A method
// without a tracer pays one NULL check per instruction; to profile some
// executions and not others, set method->config.tracer between them.
//
// Per recorded run: its start and end (etr_now_ns, monotonic ns) and
// status; per instruction executed: chain, instruction index (ExecuTorch's
// instruction_id), kind, start and end; per delegate event (a backend's
// etr_backend_log_event): name, debug id, times, and the instruction it ran
// in; optionally hardware counter deltas per instruction (prof/counters.h)
// and copies of intermediate outputs (the values each KernelCall writes
// through its return slot, every argument of a DelegateCall as ExecuTorch
// logs them, and the program outputs after the run) into a preallocated
// capture buffer, for the oracle and for ETDump debug events.
//
// Memory observations: the temp (scratch) arena's peak and the instruction
// that first reached it, and, per value, the largest number of bytes a
// planned tensor occupied at the end of a run (its actual shape, which can
// be below the planned upper bound for dynamic shapes).
//
// Timestamps come from the platform clock (etr_now_ns) or, where it is
// invariant, the CPU's time-stamp counter calibrated to it (see use_tsc).
//
// When a buffer is full the tracer drops what does not fit and counts it;
// every output prints those counts. Runs past `max_runs` are not recorded.
#ifndef ETR_PROF_TRACER_H
#define ETR_PROF_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/event_tracer.h"
#include "core/method.h"
#include "prof/counters.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_prof_config {
  uint32_t max_runs;         // runs recorded; 0 = 1
  uint32_t events_per_run;   // 0 = the method's instruction count
  uint32_t delegate_events_per_run;  // 0 = 256 per DelegateCall instruction
  etr_counter_request_t counters;    // default ETR_COUNTERS_OFF
  size_t capture_bytes;      // intermediate-output buffer; 0 = no capture
  uint32_t capture_records;  // 0 = 4 per instruction + outputs, per run
  bool platform_clock;       // always etr_now_ns, never the TSC
} etr_prof_config_t;

void etr_prof_config_init(etr_prof_config_t *config);

typedef struct etr_prof_event {
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t chain;
  uint32_t instruction;
  uint32_t run;
  uint16_t kind;    // etr_instruction_kind_t
  uint16_t status;  // etr_error_t
} etr_prof_event_t;

#define ETR_PROF_DELEGATE_NAME_CAPACITY 40

typedef struct etr_prof_delegate_event {
  uint64_t start_ns;
  uint64_t end_ns;
  int64_t debug_id;  // -1 when the delegate gave none
  uint32_t run;
  uint32_t chain;
  uint32_t instruction;
  uint32_t delegate_index;
  char name[ETR_PROF_DELEGATE_NAME_CAPACITY];  // copied, truncated
} etr_prof_delegate_event_t;

// A captured value. Tensors keep their shape and strides; their bytes are
// at `offset` in the capture buffer (64-byte aligned, as ExecuTorch's debug
// buffer), or were not stored (`stored` false) when the buffer was full.
typedef struct etr_prof_capture {
  uint32_t run;
  uint32_t chain;
  uint32_t instruction;
  uint32_t value_index;  // the method value
  int32_t list_index;    // element of a TensorList, else -1
  bool is_output;        // a program output, logged after the run
  bool stored;
  etr_tag_t tag;         // TENSOR, INT, DOUBLE or BOOL
  etr_scalar_type_t dtype;
  int32_t dim;
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  uint64_t offset;
  uint64_t nbytes;
  int64_t int_value;
  double double_value;
  bool bool_value;
} etr_prof_capture_t;

typedef struct etr_prof_run {
  uint64_t start_ns;
  uint64_t end_ns;
  etr_error_t status;
  uint32_t first_event;
  uint32_t num_events;
  uint32_t first_delegate_event;
  uint32_t num_delegate_events;
  uint32_t first_capture;
  uint32_t num_captures;
} etr_prof_run_t;

typedef struct etr_prof {
  etr_event_tracer_t tracer;  // attach to etr_method_config_t.tracer
  etr_prof_config_t config;
  const etr_method_t *method;

  etr_prof_run_t *runs;
  uint32_t num_runs;  // recorded
  uint32_t max_runs;
  etr_prof_event_t *events;
  uint32_t num_events;
  uint32_t event_capacity;
  etr_prof_delegate_event_t *delegate_events;
  uint32_t num_delegate_events;
  uint32_t delegate_event_capacity;

  // Hardware counters: per event, num_counters deltas (UINT64_MAX when that
  // sample failed). NULL when no counters are open.
  etr_counters_t counters;
  uint64_t *counter_deltas;

  // Capture.
  etr_prof_capture_t *captures;
  uint32_t num_captures;
  uint32_t capture_capacity;
  uint8_t *capture_buffer;
  size_t capture_used;

  // What did not fit.
  uint64_t unrecorded_runs;
  uint64_t dropped_events;
  uint64_t dropped_delegate_events;
  uint64_t dropped_captures;     // no record left
  uint64_t unstored_capture_bytes;  // records kept, bytes did not fit

  // Memory observations.
  size_t temp_peak;
  bool temp_peak_seen;
  uint32_t temp_peak_chain;
  uint32_t temp_peak_instruction;
  uint64_t *value_used_bytes;  // per value; 0 for values never planned
  uint32_t *dynamic_values;    // planned tensors whose shape can change
  uint32_t num_dynamic_values;

  // Timestamps. Where the CPU has an invariant TSC (x86-64 with
  // constant_tsc and nonstop_tsc) and the method has no delegates (whose
  // events arrive in etr_now_ns), instructions are stamped with the TSC (a
  // few instructions instead of a clock_gettime) and converted to
  // etr_now_ns nanoseconds when the run ends, at a rate calibrated against
  // etr_now_ns since bind. Every recorded time is in etr_now_ns ns.
  bool use_tsc;
  uint64_t calibration_ns;
  uint64_t calibration_tick;
  double ns_per_tick;
  uint64_t run_start_tick;

  // State of the run in progress.
  bool recording;
  uint32_t chain;
  uint32_t instruction;
  uint64_t instruction_start_ns;
  uint64_t counter_start[ETR_PROF_MAX_COUNTERS];
  bool counter_start_ok;
} etr_prof_t;

// Sets the hooks and opens the counters the config asks for (never fails
// for lack of counters: prof->counters.reason says why). Call before the
// method is loaded; the config is copied.
void etr_prof_init(etr_prof_t *prof, const etr_prof_config_t *config);

// Sizes and allocates every buffer for `method` (loaded with this tracer).
// MemoryAllocationFailed when a buffer cannot be had. May be called again
// for another method (earlier records are dropped).
etr_error_t etr_prof_bind(etr_prof_t *prof, const etr_method_t *method,
                          etr_diag_t *diag);

// Forgets every recorded run (after warm-up runs); keeps the buffers and
// the memory observations.
void etr_prof_reset(etr_prof_t *prof);

// Frees the buffers and closes the counters.
void etr_prof_release(etr_prof_t *prof);

// The name ExecuTorch's tools know an instruction by: the operator
// ("aten::convolution.out") for a KernelCall, the backend id for a
// DelegateCall, else the kind ("MoveCall"). Never NULL.
const char *etr_prof_instruction_name(const etr_method_t *method,
                                      uint32_t chain, uint32_t instruction);

// The instruction at (chain, index), or NULL when out of range.
const etr_instruction_t *etr_prof_instruction(const etr_method_t *method,
                                              uint32_t chain, uint32_t index);

// Counter delta `counter` of event `event`, or false when absent (no
// counters, or that sample failed).
bool etr_prof_event_counter(const etr_prof_t *prof, uint32_t event,
                            uint32_t counter, uint64_t *value);

// One line for reports: "no events dropped" or what was dropped and why.
void etr_prof_describe_drops(const etr_prof_t *prof, char *text,
                             size_t capacity);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_TRACER_H
