// SPDX-License-Identifier: Apache-2.0
//
// ETDump out: what the tracer recorded (prof/tracer.h) as an ExecuTorch
// ETDump file (`.etdp`), which ExecuTorch's devtools Inspector opens.
//
// Format (devtools/etdump/etdump_schema_flatcc.fbs, namespace etdump): a
// size-prefixed FlatBuffer (bytes 0..3 the length of the rest, 4..7 the
// root offset, 8..11 the identifier "ED00") whose root ETDump{version 0,
// run_data} holds one RunData per event block, as ExecuTorch's ETDumpGen
// writes them (devtools/etdump/etdump_flatcc.cpp, runtime/executor/
// method.cpp, codegen/gen.py):
//   - optionally a "Default" block with "Method::init" and
//     "Program::load_method" (chain -1, instruction 0) when the caller timed
//     the load;
//   - one "Execute" block per recorded run, events in ExecuTorch's order:
//     per KernelCall "native_call_<name>.<overload>" (operator name without
//     its namespace; prim ops such as aten::sym_size.int or
//     executorch_prim::et_view.default have none, as in ExecuTorch) then
//     "OPERATOR_CALL"; per DelegateCall the delegate's own events (no name,
//     delegate_debug_id_int = the id it reported, or delegate_debug_id_str =
//     its name when it gave no id) then "DELEGATE_CALL"; "MOVE_CALL",
//     "JF_CALL", "FREE_CALL"; all with chain_index and instruction_id (the
//     instruction's index in its chain); then "Method::execute" (chain -1,
//     instruction 0). Times are etr_now_ns() values (monotonic ns, the
//     Inspector's default TimeScale.NS).
// etref times the whole instruction once, so native_call_* and
// OPERATOR_CALL carry the same interval (ExecuTorch's native_call excludes
// the argument unboxing that OPERATOR_CALL includes; etref has no separate
// kernel hook).
//
// With capture on, DebugEvents follow ExecuTorch's too: the values each
// kernel writes (one per tensor of its return slot), every argument after a
// DelegateCall, and the program outputs after Method::execute (chain
// 2^64-1, instruction 0, Value.output = true). Tensor data goes into the
// debug buffer file at 64-byte aligned offsets (Tensor.offset), as
// ExecuTorch's BufferDataSink lays it out; pass that file to the
// Inspector's debug_buffer_path. Dtypes ExecuTorch cannot log (Half,
// BFloat16, complex, ...) are left out and counted.
#ifndef ETR_PROF_ETDUMP_H
#define ETR_PROF_ETDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "prof/flatbuffer_builder.h"
#include "prof/tracer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_etdump_options {
  // A "Default" block is written when load_end_ns > load_start_ns.
  uint64_t load_start_ns;  // Program::load_method
  uint64_t load_end_ns;
  uint64_t init_start_ns;  // Method::init (inside the load)
  uint64_t init_end_ns;
  bool debug_events;             // DebugEvents for captured values
  int32_t bundled_input_index;   // RunData.bundled_input_index; -1 = none
} etr_etdump_options_t;

void etr_etdump_options_init(etr_etdump_options_t *options);

typedef struct etr_etdump_summary {
  uint32_t blocks;
  uint32_t profile_events;
  uint32_t debug_events;
  uint32_t skipped_values;  // captured values ETDump cannot hold
} etr_etdump_summary_t;

// Builds the ETDump of the recorded runs of `count` profilers (one
// "Execute" block per run, in order: e.g. the timed runs, then a capture
// run) into `fbb` (initialized by the caller); *data/*size point into it.
// At most one of them may have captured values (debug events point into
// its capture buffer): InvalidArgument otherwise. `summary` may be NULL.
etr_error_t etr_etdump_build(const etr_prof_t *const *profs, uint32_t count,
                             const etr_etdump_options_t *options,
                             etr_fbb_t *fbb, const uint8_t **data,
                             size_t *size, etr_etdump_summary_t *summary,
                             etr_diag_t *diag);

// Writes that ETDump to `path` and, when `debug_buffer_path` is not NULL,
// the capturing profiler's bytes to it (an empty file when none captured).
// AccessFailed when a file cannot be written.
etr_error_t etr_etdump_write(const etr_prof_t *const *profs, uint32_t count,
                             const etr_etdump_options_t *options,
                             const char *path, const char *debug_buffer_path,
                             etr_etdump_summary_t *summary, etr_diag_t *diag);

// The ExecuTorch name of an operator's kernel event ("native_call_" + the
// name without namespace), or false for prim ops, which have none.
bool etr_etdump_native_call_name(const char *operator_name, char *name,
                                 size_t capacity);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ETDUMP_H
