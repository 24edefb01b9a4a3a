// SPDX-License-Identifier: Apache-2.0
//
// Liveness of a loaded method's memory-planned storage.
//
// Units: planned tensor values with the same pool, offset and size use the
// same bytes; each distinct placement is one allocation unit (so a static
// view, which the exporter plans at its base's placement, is its base's
// unit, and so are in-place results).
//
// Positions: instruction indices over all chains in order (chain 0 first),
// plus one virtual position at the end where the method's outputs are read.
//
// The analysis follows the control flow (JumpFalseCall edges, chains in
// sequence) with two dataflow passes over bitsets:
//   1. Forward, which units each aliasing value may point to: a MoveCall
//      makes its target hold the source's tensor, executorch_prim::et_view
//      makes its output use its input's memory. A value nothing aliases
//      points to its own unit.
//   2. Backward liveness: an instruction reads the units its arguments may
//      point to and writes those of its return slot (a DelegateCall may write
//      any argument); a write through a value that can only point to one
//      unit kills it. Outputs are read at the end.
// A unit occupies a position when it is live there or written there. Two
// units conflict when they occupy a common position. Units live at the
// start that no input defines are state (mutable buffers, whose values must
// survive between executions; also reads of never-written memory): they,
// and units with an initial value from the program, occupy every position.
// Inputs are written before the first position.
//
// This is what lets torch.cond outputs stay alive after the MoveCall that
// carries them out of a branch (pytorch/executorch#21490), and two
// branches that never run together share memory.
//
// When the bitsets would exceed a cap (hostile or enormous programs), the
// analysis falls back to intervals: each unit occupies every position from
// the first to the last use of anything that may alias it (extended over
// loops), which is conservative.
#ifndef ETR_PLANNER_LIFETIME_H
#define ETR_PLANNER_LIFETIME_H

#include <stdbool.h>
#include <stdint.h>

#include "core/method.h"

#ifdef __cplusplus
extern "C" {
#endif

// What a unit is. PHYSICAL: the bytes of one placement in the program's own
// plan (what verifying that plan needs). LOGICAL: one tensor's storage
// whatever the program's plan (what re-planning needs): every planned value
// is its own unit, except values that must share memory: an in-place op's
// result and the argument it overwrites (same placement, same
// instruction), and a static view (a planned value nothing writes, placed
// by the exporter at its base's placement) with the value that last wrote
// that placement before the view is first read, and the tensors moved into
// one value (torch.cond branch outputs) with each other.
typedef enum etr_unit_granularity {
  ETR_UNITS_PHYSICAL = 0,
  ETR_UNITS_LOGICAL = 1,
} etr_unit_granularity_t;

typedef struct etr_lifetime_options {
  etr_unit_granularity_t granularity;
  // ExecuTorch lets an input's memory be reused after its last use (so a
  // method must get fresh inputs before every execution); set this to keep
  // inputs intact for the whole method instead.
  bool inputs_live_whole_method;
  // Largest bitset memory the exact analysis may use, in bytes (0 = 64 MiB).
  uint64_t max_bitset_bytes;
} etr_lifetime_options_t;

typedef enum etr_unit_kind {
  ETR_UNIT_TEMPORARY = 0,
  ETR_UNIT_INPUT = 1,
  ETR_UNIT_OUTPUT = 2,
  ETR_UNIT_STATE = 3,
} etr_unit_kind_t;

typedef struct etr_alloc_unit {
  uint32_t memory_id;       // 1-based pool, as in the program
  uint64_t size;            // bytes at the upper-bound shape
  uint64_t program_offset;  // where the program's own plan puts it
  uint32_t start;           // first occupied position
  uint32_t end;             // last occupied position (inclusive)
  uint32_t first_value;     // lowest member value index
  uint32_t num_values;      // member values
  etr_unit_kind_t kind;
} etr_alloc_unit_t;

typedef struct etr_lifetimes {
  etr_alloc_unit_t *units;
  uint32_t num_units;
  int32_t *unit_of_value;  // per value: its unit, or -1 when not planned
  uint32_t num_values;
  uint32_t num_positions;  // instructions + 1 (the end)
  // Exact occupancy: num_units rows of words_per_unit 64-bit words, bit p of
  // row u set when unit u occupies position p. NULL in interval mode (then
  // [start, end] is the occupancy).
  uint64_t *occupancy;
  uint32_t words_per_unit;
} etr_lifetimes_t;

// Analyses `method` (loaded with etr_method_load). MemoryAllocationFailed
// when out of memory. Release with etr_lifetimes_release.
etr_error_t etr_lifetimes_compute(const etr_method_t *method,
                                  const etr_lifetime_options_t *options,
                                  etr_lifetimes_t *lifetimes,
                                  etr_diag_t *diag);

void etr_lifetimes_release(etr_lifetimes_t *lifetimes);

// True when units a and b occupy a common position.
bool etr_units_conflict(const etr_lifetimes_t *lifetimes, uint32_t a,
                        uint32_t b);

// True when unit u occupies position p.
bool etr_unit_occupies(const etr_lifetimes_t *lifetimes, uint32_t u,
                       uint32_t position);

// Position of chain `chain`, instruction `index`.
uint32_t etr_lifetime_position(const etr_method_t *method, uint32_t chain,
                               uint32_t index);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PLANNER_LIFETIME_H
