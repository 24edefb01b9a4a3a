// SPDX-License-Identifier: Apache-2.0
//
// Memory-planning algorithms over allocation units (planner/lifetime.h),
// per pool (memory_id), with offsets aligned to `alignment` and sizes
// rounded up to it as ExecuTorch does (TensorSpec.allocated_memory):
//
//   - etr_plan_executorch_greedy: ExecuTorch's default greedy algorithm
//     (exir/memory_planning.py, greedy + pick_shared_obj) on lifetime
//     intervals, as ExecuTorch uses them: units sorted by size, largest
//     first; each goes into the first "shared object" none of whose
//     allocations it overlaps in time (at offset 0), else on top of the
//     allocations it does overlap inside the first shared object where it
//     still fits, else into a new shared object of its own size; shared
//     objects are laid out back to back, plus `extra_padding` per pool (64
//     when the program has an XNNPACK delegate, as ExecuTorch adds).
//   - etr_plan_best_fit: each unit, largest first, at the lowest offset
//     where it shares no byte with an already placed unit it conflicts with
//     (exact occupancy: two branches of a torch.cond never conflict),
//     trying several orders (size, then lifetime length, then start) and
//     keeping the smallest pool. The strip-packing heuristic of TFLite's
//     arena planner.
//   - etr_plan_lower_bound: no plan can use less than the largest total of
//     aligned bytes occupied at one position.
//   - etr_plan_check: proves a plan safe: every unit inside its pool and
//     aligned, no two conflicting units sharing a byte.
#ifndef ETR_PLANNER_PLAN_H
#define ETR_PLANNER_PLAN_H

#include <stdint.h>

#include "core/error.h"
#include "planner/lifetime.h"

#ifdef __cplusplus
extern "C" {
#endif

// ExecuTorch's default alignment (exir/tensor.py ALIGNMENT) and the padding
// it adds to each pool when an XNNPACK delegate is present.
#define ETR_PLAN_DEFAULT_ALIGNMENT 16
#define ETR_PLAN_XNNPACK_PADDING 64

typedef struct etr_plan {
  uint32_t num_pools;     // pools 1..num_pools
  uint64_t *pool_sizes;   // [num_pools]
  uint64_t *offsets;      // [num_units]
  uint32_t num_units;
} etr_plan_t;

etr_error_t etr_plan_executorch_greedy(const etr_lifetimes_t *lifetimes,
                                       uint64_t alignment,
                                       uint64_t extra_padding,
                                       etr_plan_t *plan, etr_diag_t *diag);

etr_error_t etr_plan_best_fit(const etr_lifetimes_t *lifetimes,
                              uint64_t alignment, etr_plan_t *plan,
                              etr_diag_t *diag);

// The program's own plan (offsets and pool sizes from the program).
etr_error_t etr_plan_from_program(const etr_method_t *method,
                                  const etr_lifetimes_t *lifetimes,
                                  etr_plan_t *plan, etr_diag_t *diag);

// Sum over pools of the largest total of aligned sizes occupying one
// position.
uint64_t etr_plan_lower_bound(const etr_lifetimes_t *lifetimes,
                              uint64_t alignment);

// Total bytes over all pools.
uint64_t etr_plan_total(const etr_plan_t *plan);

// InvalidProgram naming the first two conflicting units that share bytes
// (by their first value and positions), or a unit outside its pool or
// misaligned (`alignment` 1 skips the alignment check).
etr_error_t etr_plan_check(const etr_lifetimes_t *lifetimes,
                           const etr_plan_t *plan, uint64_t alignment,
                           etr_diag_t *diag);

void etr_plan_release(etr_plan_t *plan);

// Turns a plan into a replacement for the program's (core/method.h):
// placements for every value (planned values at their unit's offset) and
// `num_pools` pool sizes (at least plan->num_pools; pools the plan does not
// use get 0 bytes). `placements` has lifetimes->num_values entries.
void etr_plan_to_memory_plan(const etr_lifetimes_t *lifetimes,
                             const etr_plan_t *plan, uint32_t num_pools,
                             etr_planned_placement_t *placements,
                             size_t *pool_sizes, etr_memory_plan_t *out);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PLANNER_PLAN_H
