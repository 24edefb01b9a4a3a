// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target planner: the memory-planning algorithms (planner/plan.h) on
// lifetime sets decoded from the input, in interval mode (occupancy NULL:
// each unit occupies [start, end]).
//
// Input:
//   byte 0      alignment selector (1, 16, 64, 4096) and padding selector
//               (0, 64) in bits 0-1 and 2
//   bytes 1-2   positions (little-endian, 1 + value % 1024)
//   then 10 bytes per unit (at most 512): memory_id (1 + byte % 3),
//   kind (byte % 4), size u32 and a shift (size << shift % 17, so up to
//   2^48 bytes), start u16, length u16 (both reduced to fit the positions)
//
// Invariants (any failure is a fault):
//   - ExecuTorch's greedy and best fit both succeed, and etr_plan_check
//     accepts each plan they produce;
//   - each plan's total is at least etr_plan_lower_bound, and the bound is
//     at least the largest aligned unit;
//   - etr_plan_check is not a rubber stamp: moving one of two conflicting
//     units onto the other, or shrinking a pool below its top unit, makes
//     it fail;
//   - etr_plan_to_memory_plan places every value at its unit's offset.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/common/fuzz_common.h"
#include "planner/plan.h"

#define TARGET "planner"
#define MAX_UNITS 512
#define UNIT_BYTES 10

static uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

static uint32_t load_u16(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t load_u32(const uint8_t *p) {
  return load_u16(p) | load_u16(p + 2) << 16;
}

// Decodes the lifetime set; false when the input has no unit.
static bool decode(const uint8_t *data, size_t size, etr_lifetimes_t *lt,
                   etr_alloc_unit_t *units, int32_t *unit_of_value,
                   uint64_t *alignment, uint64_t *padding) {
  if (size < 3 + UNIT_BYTES) {
    return false;
  }
  static const uint64_t kAlignments[4] = {1, 16, 64, 4096};
  *alignment = kAlignments[data[0] & 3];
  *padding = (data[0] & 4) ? 64 : 0;
  uint32_t positions = 1 + load_u16(data + 1) % 1024;
  uint32_t count = (uint32_t)((size - 3) / UNIT_BYTES);
  count = count > MAX_UNITS ? MAX_UNITS : count;
  for (uint32_t u = 0; u < count; ++u) {
    const uint8_t *p = data + 3 + (size_t)u * UNIT_BYTES;
    uint32_t start = load_u16(p + 6) % positions;
    uint32_t length = load_u16(p + 8) % (positions - start);
    units[u] = (etr_alloc_unit_t){
        .memory_id = 1 + p[0] % 3,
        .size = (uint64_t)load_u32(p + 2) << (p[1] >> 2) % 17,
        .program_offset = 0,
        .start = start,
        .end = start + length,
        .first_value = u,
        .num_values = 1,
        .kind = (etr_unit_kind_t)(p[1] & 3),
    };
    unit_of_value[u] = (int32_t)u;
  }
  *lt = (etr_lifetimes_t){
      .units = units,
      .num_units = count,
      .unit_of_value = unit_of_value,
      .num_values = count,
      .num_positions = positions,
      .occupancy = NULL,
      .words_per_unit = 0,
  };
  return true;
}

// The plan must pass etr_plan_check, respect the lower bound, and the
// checker must notice a corrupted copy of it.
static void check_plan(const etr_lifetimes_t *lt, etr_plan_t *plan,
                       uint64_t alignment, uint64_t lower_bound,
                       const char *algorithm) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (etr_plan_check(lt, plan, alignment, &diag) != ETR_OK) {
    etr_fuzz_fault(TARGET, "%s produced a plan etr_plan_check rejects: %s",
                   algorithm, diag.message);
  }
  uint64_t total = etr_plan_total(plan);
  if (total < lower_bound) {
    etr_fuzz_fault(TARGET, "%s plan uses %llu bytes, below the lower bound "
                   "%llu", algorithm, (unsigned long long)total,
                   (unsigned long long)lower_bound);
  }
  // Corruption 1: the first two conflicting, non-empty units of one pool
  // moved onto the same offset.
  for (uint32_t a = 0; a < lt->num_units; ++a) {
    for (uint32_t b = a + 1; b < lt->num_units; ++b) {
      if (lt->units[a].memory_id != lt->units[b].memory_id ||
          lt->units[a].size == 0 || lt->units[b].size == 0 ||
          !etr_units_conflict(lt, a, b)) {
        continue;
      }
      uint64_t saved = plan->offsets[b];
      plan->offsets[b] = plan->offsets[a];
      etr_diag_reset(&diag);
      etr_error_t status = etr_plan_check(lt, plan, alignment, &diag);
      plan->offsets[b] = saved;
      if (status == ETR_OK) {
        etr_fuzz_fault(TARGET, "etr_plan_check accepted units %u and %u "
                       "(both live) at one offset", a, b);
      }
      a = b = lt->num_units;  // one pair is enough
    }
  }
  // Corruption 2: a pool one byte smaller than its top unit needs.
  for (uint32_t u = 0; u < lt->num_units; ++u) {
    uint32_t pool = lt->units[u].memory_id;
    if (lt->units[u].size == 0 || pool > plan->num_pools) {
      continue;
    }
    uint64_t saved = plan->pool_sizes[pool - 1];
    plan->pool_sizes[pool - 1] = plan->offsets[u] + lt->units[u].size - 1;
    etr_diag_reset(&diag);
    etr_error_t status = etr_plan_check(lt, plan, alignment, &diag);
    plan->pool_sizes[pool - 1] = saved;
    if (status == ETR_OK) {
      etr_fuzz_fault(TARGET, "etr_plan_check accepted unit %u ending past "
                     "its pool", u);
    }
    break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static etr_alloc_unit_t units[MAX_UNITS];
  static int32_t unit_of_value[MAX_UNITS];
  etr_lifetimes_t lt;
  uint64_t alignment = 0;
  uint64_t padding = 0;
  if (!decode(data, size, &lt, units, unit_of_value, &alignment, &padding)) {
    return 0;
  }
  uint64_t lower_bound = etr_plan_lower_bound(&lt, alignment);
  for (uint32_t u = 0; u < lt.num_units; ++u) {
    if (lower_bound < align_up(units[u].size, alignment)) {
      etr_fuzz_fault(TARGET, "lower bound %llu is below unit %u's size %llu",
                     (unsigned long long)lower_bound, u,
                     (unsigned long long)units[u].size);
    }
  }
  etr_plan_t plan;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (etr_plan_executorch_greedy(&lt, alignment, padding, &plan, &diag) !=
      ETR_OK) {
    etr_fuzz_fault(TARGET, "greedy failed: %s", diag.message);
  }
  check_plan(&lt, &plan, alignment, lower_bound, "ExecuTorch's greedy");
  etr_plan_release(&plan);
  etr_diag_reset(&diag);
  if (etr_plan_best_fit(&lt, alignment, &plan, &diag) != ETR_OK) {
    etr_fuzz_fault(TARGET, "best fit failed: %s", diag.message);
  }
  check_plan(&lt, &plan, alignment, lower_bound, "best fit");
  static etr_planned_placement_t placements[MAX_UNITS];
  size_t pool_sizes[8];
  etr_memory_plan_t memory_plan;
  etr_plan_to_memory_plan(&lt, &plan, 3, placements, pool_sizes,
                          &memory_plan);
  for (uint32_t v = 0; v < lt.num_values; ++v) {
    if (placements[v].offset != plan.offsets[v] ||
        placements[v].memory_id != units[v].memory_id) {
      etr_fuzz_fault(TARGET, "memory plan moved value %u", v);
    }
  }
  etr_plan_release(&plan);
  return 0;
}
