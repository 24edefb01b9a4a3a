// SPDX-License-Identifier: Apache-2.0
//
// Memory of a profiled method, per arena: what the program's plan reserves,
// what its tensors need, what they used, and what no plan can go below.
//
// For each planned pool (memory_id): its size in the plan the method runs
// with; the bytes of its tensors (each distinct storage once, at the planned
// upper-bound shape: what a plan without any reuse would take); the bytes
// the same tensors held at the shapes a run actually left them in (from the
// tracer, max over runs; below the planned bytes only for dynamic shapes);
// the peak of bytes live at one instruction from planner/'s lifetime
// analysis (sizes aligned to 16 as ExecuTorch's), which is the planner's
// lower bound, and where that peak is; and etref's best-fit plan for
// comparison. Then the temp (kernel scratch) arena: capacity, peak and the
// instruction that first reached the peak (from the tracer), and the
// load-time arena of the method's own structures.
#ifndef ETR_PROF_MEMORY_H
#define ETR_PROF_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/method.h"
#include "prof/tracer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_prof_pool {
  uint32_t memory_id;        // 1-based, as in the program
  uint64_t size;             // bytes the plan reserves
  uint64_t tensor_bytes;     // its tensors' storage, each once, planned shapes
  uint64_t used_bytes;       // same, at the shapes observed in runs
  uint64_t peak_live_bytes;  // lower bound: aligned bytes live at once
  uint32_t peak_position;    // instruction position of that peak
  uint64_t best_fit_bytes;   // etref's best-fit plan for this pool
  uint32_t num_tensors;      // planned tensor values placed in it
  uint32_t num_storages;     // distinct storages (allocation units)
} etr_prof_pool_t;

typedef struct etr_prof_memory {
  etr_prof_pool_t *pools;
  uint32_t num_pools;
  uint64_t planned_total;      // sum of pool sizes
  uint64_t tensor_total;
  uint64_t used_total;
  uint64_t lower_bound_total;  // etr_plan_lower_bound
  uint64_t best_fit_total;
  bool used_observed;          // a tracer recorded at least one run
  size_t temp_capacity;
  size_t temp_peak;
  bool temp_peak_known;        // some instruction used the temp arena
  uint32_t temp_peak_chain;
  uint32_t temp_peak_instruction;
  size_t method_arena_bytes;   // load-time structures (method arena)
  uint64_t constant_bytes;     // constant tensors (in the program or .ptd)
  char note[256];              // what could not be computed, or ""
} etr_prof_memory_t;

// Fills *memory for `method`; `prof` (may be NULL) supplies the observed
// bytes and the temp arena's peak. Lifetime analysis failures are not
// errors: the fields stay 0 and `note` says why. MemoryAllocationFailed
// only when the pool table cannot be allocated.
etr_error_t etr_prof_memory_compute(const etr_prof_t *prof,
                                    const etr_method_t *method,
                                    etr_prof_memory_t *memory,
                                    etr_diag_t *diag);

void etr_prof_memory_release(etr_prof_memory_t *memory);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_MEMORY_H
