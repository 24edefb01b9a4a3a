// SPDX-License-Identifier: Apache-2.0
//
// Memory per arena of a profiled method (see memory.h), from the method's
// value table, planner/'s lifetime analysis and the tracer's observations.
#include "prof/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lifetime.h"
#include "planner/plan.h"

static uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Peak of aligned bytes live at one position, per pool, from the lifetime
// analysis (what etr_plan_lower_bound sums).
static void pool_peaks(const etr_lifetimes_t *lifetimes,
                       etr_prof_memory_t *memory, uint64_t *live) {
  uint32_t positions = lifetimes->num_positions;
  for (uint32_t p = 0; p < memory->num_pools; ++p) {
    etr_prof_pool_t *pool = &memory->pools[p];
    memset(live, 0, ((size_t)positions + 1) * sizeof(uint64_t));
    for (uint32_t u = 0; u < lifetimes->num_units; ++u) {
      const etr_alloc_unit_t *unit = &lifetimes->units[u];
      if (unit->memory_id != pool->memory_id) {
        continue;
      }
      ++pool->num_storages;
      pool->tensor_bytes += unit->size;
      uint64_t size = align_up(unit->size, ETR_PLAN_DEFAULT_ALIGNMENT);
      for (uint32_t q = unit->start; q <= unit->end && q < positions; ++q) {
        if (etr_unit_occupies(lifetimes, u, q)) {
          live[q] += size;
        }
      }
    }
    for (uint32_t q = 0; q < positions; ++q) {
      if (live[q] > pool->peak_live_bytes) {
        pool->peak_live_bytes = live[q];
        pool->peak_position = q;
      }
    }
  }
}

static void used_bytes(const etr_prof_t *prof,
                       const etr_lifetimes_t *lifetimes,
                       etr_prof_memory_t *memory, uint64_t *unit_used) {
  memset(unit_used, 0, ((size_t)lifetimes->num_units + 1) * sizeof(uint64_t));
  for (uint32_t v = 0; v < lifetimes->num_values; ++v) {
    int32_t unit = lifetimes->unit_of_value[v];
    if (unit >= 0 && prof->value_used_bytes[v] > unit_used[unit]) {
      unit_used[unit] = prof->value_used_bytes[v];
    }
  }
  for (uint32_t u = 0; u < lifetimes->num_units; ++u) {
    for (uint32_t p = 0; p < memory->num_pools; ++p) {
      if (memory->pools[p].memory_id == lifetimes->units[u].memory_id) {
        memory->pools[p].used_bytes += unit_used[u];
      }
    }
  }
}

static void best_fit(const etr_lifetimes_t *lifetimes,
                     etr_prof_memory_t *memory) {
  etr_plan_t plan;
  memset(&plan, 0, sizeof(plan));
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (etr_plan_best_fit(lifetimes, ETR_PLAN_DEFAULT_ALIGNMENT, &plan,
                        &diag) != ETR_OK) {
    snprintf(memory->note, sizeof(memory->note), "best fit failed: %.200s",
             diag.message);
    return;
  }
  for (uint32_t p = 0; p < memory->num_pools; ++p) {
    uint32_t id = memory->pools[p].memory_id;
    if (id >= 1 && id <= plan.num_pools) {
      memory->pools[p].best_fit_bytes = plan.pool_sizes[id - 1];
    }
  }
  memory->best_fit_total = etr_plan_total(&plan);
  etr_plan_release(&plan);
}

static void from_lifetimes(const etr_prof_t *prof, const etr_method_t *method,
                           etr_prof_memory_t *memory) {
  // Logical units: each tensor's own storage whatever the program's plan,
  // as `etref plan` uses for re-planning and for its lower bound.
  etr_lifetime_options_t options = {.granularity = ETR_UNITS_LOGICAL};
  etr_lifetimes_t lifetimes;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (etr_lifetimes_compute(method, &options, &lifetimes, &diag) != ETR_OK) {
    snprintf(memory->note, sizeof(memory->note),
             "lifetime analysis failed: %.200s", diag.message);
    return;
  }
  size_t scratch_count = (size_t)lifetimes.num_positions + 1;
  if (lifetimes.num_units + 1 > scratch_count) {
    scratch_count = (size_t)lifetimes.num_units + 1;
  }
  uint64_t *scratch = (uint64_t *)calloc(scratch_count, sizeof(uint64_t));
  if (scratch == NULL) {
    snprintf(memory->note, sizeof(memory->note),
             "out of memory for the lifetime peak");
  } else {
    pool_peaks(&lifetimes, memory, scratch);
    if (prof != NULL && prof->value_used_bytes != NULL &&
        prof->method == method) {
      used_bytes(prof, &lifetimes, memory, scratch);
    }
    free(scratch);
  }
  memory->lower_bound_total =
      etr_plan_lower_bound(&lifetimes, ETR_PLAN_DEFAULT_ALIGNMENT);
  best_fit(&lifetimes, memory);
  etr_lifetimes_release(&lifetimes);
}

// True when an earlier constant value uses the same bytes (programs reuse
// one constant buffer for equal constants).
static bool shares_constant(const etr_method_t *method, uint32_t value) {
  const void *data = method->values[value].u.as_tensor->data;
  for (uint32_t v = 0; v < value && data != NULL; ++v) {
    if (method->values[v].tag == ETR_TAG_TENSOR &&
        method->values[v].u.as_tensor->data == data &&
        (method->value_info[v].storage == ETR_STORAGE_CONSTANT ||
         method->value_info[v].storage == ETR_STORAGE_EXTERNAL)) {
      return true;
    }
  }
  return false;
}

etr_error_t etr_prof_memory_compute(const etr_prof_t *prof,
                                    const etr_method_t *method,
                                    etr_prof_memory_t *memory,
                                    etr_diag_t *diag) {
  memset(memory, 0, sizeof(*memory));
  memory->num_pools = method->num_planned_buffers;
  memory->pools = (etr_prof_pool_t *)calloc(memory->num_pools + 1,
                                            sizeof(etr_prof_pool_t));
  ETR_CHECK(diag, memory->pools != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for the memory summary");
  for (uint32_t p = 0; p < memory->num_pools; ++p) {
    memory->pools[p].memory_id = p + 1;
    memory->pools[p].size = method->planned_sizes[p];
    memory->planned_total += method->planned_sizes[p];
  }
  for (uint32_t v = 0; v < method->num_values; ++v) {
    const etr_value_info_t *info = &method->value_info[v];
    if (method->values[v].tag != ETR_TAG_TENSOR) {
      continue;
    }
    if (info->storage == ETR_STORAGE_PLANNED && info->memory_id >= 1 &&
        info->memory_id <= memory->num_pools) {
      ++memory->pools[info->memory_id - 1].num_tensors;
    } else if (info->storage == ETR_STORAGE_CONSTANT ||
               info->storage == ETR_STORAGE_EXTERNAL) {
      memory->constant_bytes +=
          shares_constant(method, v) ? 0 : info->nbytes;
    }
  }
  from_lifetimes(prof, method, memory);
  for (uint32_t p = 0; p < memory->num_pools; ++p) {
    memory->tensor_total += memory->pools[p].tensor_bytes;
    memory->used_total += memory->pools[p].used_bytes;
  }
  memory->used_observed = prof != NULL && prof->method == method &&
                          prof->num_runs > 0;
  memory->temp_capacity = method->temp.size;
  memory->temp_peak = method->temp.peak;
  if (prof != NULL && prof->temp_peak_seen) {
    memory->temp_peak_known = true;
    memory->temp_peak_chain = prof->temp_peak_chain;
    memory->temp_peak_instruction = prof->temp_peak_instruction;
  }
  memory->method_arena_bytes = method->arena.total_used;
  return ETR_OK;
}

void etr_prof_memory_release(etr_prof_memory_t *memory) {
  free(memory->pools);
  memset(memory, 0, sizeof(*memory));
}
