// SPDX-License-Identifier: Apache-2.0
//
// Memory-planning algorithms (see plan.h). Planning runs before a method
// executes, so it may allocate.
#include "planner/plan.h"

#include <stdlib.h>
#include <string.h>

static uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// ExecuTorch's notion of overlap: lifetime intervals intersect.
static bool lifetimes_overlap(const etr_alloc_unit_t *a,
                              const etr_alloc_unit_t *b) {
  return !(a->end < b->start || a->start > b->end);
}

static uint32_t max_pool(const etr_alloc_unit_t *units, uint32_t num_units) {
  uint32_t pools = 0;
  for (uint32_t i = 0; i < num_units; ++i) {
    pools = units[i].memory_id > pools ? units[i].memory_id : pools;
  }
  return pools;
}

static etr_error_t plan_init(etr_plan_t *plan, uint32_t num_pools,
                             uint32_t num_units, etr_diag_t *diag) {
  memset(plan, 0, sizeof(*plan));
  plan->num_pools = num_pools;
  plan->num_units = num_units;
  plan->pool_sizes = (uint64_t *)calloc(num_pools + 1, sizeof(uint64_t));
  plan->offsets = (uint64_t *)calloc(num_units + 1, sizeof(uint64_t));
  if (plan->pool_sizes == NULL || plan->offsets == NULL) {
    etr_plan_release(plan);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory planning %u units", num_units);
  }
  return ETR_OK;
}

void etr_plan_release(etr_plan_t *plan) {
  if (plan != NULL) {
    free(plan->pool_sizes);
    free(plan->offsets);
    memset(plan, 0, sizeof(*plan));
  }
}

uint64_t etr_plan_total(const etr_plan_t *plan) {
  uint64_t total = 0;
  for (uint32_t p = 0; p < plan->num_pools; ++p) {
    total += plan->pool_sizes[p];
  }
  return total;
}

// Units of one pool in the order an algorithm visits them.
typedef struct {
  const etr_alloc_unit_t *units;
  uint64_t alignment;
  // 0: size; 1: lifetime length; 2: start; 3: ExecuTorch's order (size,
  // ties later-collected first: its bisect.insort then reverse)
  int order;
} sort_context_t;

static sort_context_t g_sort;  // qsort has no context argument in C11

static int compare_units(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x;
  uint32_t b = *(const uint32_t *)y;
  const etr_alloc_unit_t *ua = &g_sort.units[a];
  const etr_alloc_unit_t *ub = &g_sort.units[b];
  uint64_t size_a = align_up(ua->size, g_sort.alignment);
  uint64_t size_b = align_up(ub->size, g_sort.alignment);
  uint32_t span_a = ua->end - ua->start;
  uint32_t span_b = ub->end - ub->start;
  if (g_sort.order == 1 && span_a != span_b) {
    return span_a > span_b ? -1 : 1;
  }
  if (g_sort.order == 2 && ua->start != ub->start) {
    return ua->start < ub->start ? -1 : 1;
  }
  if (size_a != size_b) {
    return size_a > size_b ? -1 : 1;
  }
  if (g_sort.order == 3) {
    return a > b ? -1 : a < b;
  }
  if (span_a != span_b) {
    return span_a > span_b ? -1 : 1;
  }
  return a < b ? -1 : a > b;
}

static uint32_t *sorted_units(const etr_alloc_unit_t *units,
                              uint32_t num_units, uint32_t pool,
                              uint64_t alignment, int order,
                              uint32_t *count_out) {
  uint32_t *order_out = (uint32_t *)malloc((num_units + 1) * sizeof(uint32_t));
  if (order_out == NULL) {
    return NULL;
  }
  uint32_t count = 0;
  for (uint32_t i = 0; i < num_units; ++i) {
    if (units[i].memory_id == pool) {
      order_out[count++] = i;
    }
  }
  g_sort = (sort_context_t){units, alignment, order};
  qsort(order_out, count, sizeof(uint32_t), compare_units);
  *count_out = count;
  return order_out;
}

// ExecuTorch's greedy, one pool: units (largest first) go into "shared
// objects"; see plan.h. A single pass over the units already placed finds,
// per object, whether any member overlaps u in time and the top of the
// members that do.
static etr_error_t greedy_pool(const etr_alloc_unit_t *units,
                               const uint32_t *order, uint32_t count,
                               uint64_t alignment, uint64_t *offsets,
                               uint64_t *pool_size, uint32_t *object_of,
                               uint64_t *object_size, bool *overlaps,
                               uint64_t *top) {
  uint32_t num_objects = 0;
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t u = order[k];
    uint64_t size = align_up(units[u].size, alignment);
    for (uint32_t o = 0; o < num_objects; ++o) {
      overlaps[o] = false;
      top[o] = 0;
    }
    for (uint32_t j = 0; j < k; ++j) {
      uint32_t m = order[j];
      if (lifetimes_overlap(&units[m], &units[u])) {
        uint32_t o = object_of[m];
        overlaps[o] = true;
        uint64_t end = offsets[m] + align_up(units[m].size, alignment);
        top[o] = end > top[o] ? end : top[o];
      }
    }
    uint32_t chosen = num_objects;
    uint64_t local = 0;
    for (uint32_t o = 0; o < num_objects && chosen == num_objects; ++o) {
      if (!overlaps[o]) {
        chosen = o;  // sizes are sorted, so it fits at offset 0
      }
    }
    for (uint32_t o = 0; o < num_objects && chosen == num_objects; ++o) {
      if (top[o] > 0 && top[o] + size <= object_size[o]) {
        chosen = o;
        local = top[o];
      }
    }
    if (chosen == num_objects) {
      object_size[num_objects++] = size;
    }
    object_of[u] = chosen;
    offsets[u] = local;  // inside the object for now
  }
  // Lay the objects out back to back, in creation order.
  uint64_t *base = top;  // reuse: per-object offset in the pool
  uint64_t total = 0;
  for (uint32_t o = 0; o < num_objects; ++o) {
    base[o] = total;
    total += object_size[o];
  }
  for (uint32_t k = 0; k < count; ++k) {
    offsets[order[k]] += base[object_of[order[k]]];
  }
  *pool_size = total;
  return ETR_OK;
}

etr_error_t etr_plan_executorch_greedy(const etr_lifetimes_t *lifetimes,
                                       uint64_t alignment,
                                       uint64_t extra_padding,
                                       etr_plan_t *plan, etr_diag_t *diag) {
  const etr_alloc_unit_t *units = lifetimes->units;
  uint32_t num_units = lifetimes->num_units;
  ETR_CHECK(diag, alignment > 0 && (alignment & (alignment - 1)) == 0,
            ETR_ERR_INVALID_ARGUMENT, "alignment %llu is not a power of two",
            (unsigned long long)alignment);
  ETR_TRY(plan_init(plan, max_pool(units, num_units), num_units, diag));
  size_t slots = (size_t)num_units + 1;
  uint32_t *object_of = (uint32_t *)calloc(slots, sizeof(uint32_t));
  uint64_t *object_size = (uint64_t *)calloc(slots, sizeof(uint64_t));
  bool *overlaps = (bool *)calloc(slots, sizeof(bool));
  uint64_t *top = (uint64_t *)calloc(slots, sizeof(uint64_t));
  etr_error_t status = ETR_OK;
  if (object_of == NULL || object_size == NULL || overlaps == NULL ||
      top == NULL) {
    status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                      "out of memory planning %u units", num_units);
  }
  for (uint32_t pool = 1; status == ETR_OK && pool <= plan->num_pools;
       ++pool) {
    uint32_t count = 0;
    uint32_t *order =
        sorted_units(units, num_units, pool, alignment, 3, &count);
    if (order == NULL) {
      status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                        "out of memory planning pool %u", pool);
      break;
    }
    greedy_pool(units, order, count, alignment, plan->offsets,
                &plan->pool_sizes[pool - 1], object_of, object_size, overlaps,
                top);
    if (count > 0) {
      plan->pool_sizes[pool - 1] += extra_padding;
    }
    free(order);
  }
  free(object_of);
  free(object_size);
  free(overlaps);
  free(top);
  if (status != ETR_OK) {
    etr_plan_release(plan);
  }
  return status;
}

// Best fit for one pool in one order: each unit at the lowest gap among the
// already placed units that are live at the same time.
static uint64_t best_fit_pool(const etr_lifetimes_t *lifetimes,
                              const uint32_t *order, uint32_t count,
                              uint64_t alignment, uint64_t *offsets,
                              uint32_t *conflicts) {
  const etr_alloc_unit_t *units = lifetimes->units;
  uint64_t total = 0;
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t u = order[k];
    uint64_t size = align_up(units[u].size, alignment);
    uint32_t num_conflicts = 0;
    for (uint32_t j = 0; j < k; ++j) {
      if (etr_units_conflict(lifetimes, order[j], u)) {
        conflicts[num_conflicts++] = order[j];
      }
    }
    // Sort the conflicting units by offset (insertion sort: few of them).
    for (uint32_t a = 1; a < num_conflicts; ++a) {
      uint32_t key = conflicts[a];
      uint32_t b = a;
      while (b > 0 && offsets[conflicts[b - 1]] > offsets[key]) {
        conflicts[b] = conflicts[b - 1];
        --b;
      }
      conflicts[b] = key;
    }
    uint64_t candidate = 0;
    for (uint32_t c = 0; c < num_conflicts; ++c) {
      uint32_t m = conflicts[c];
      if (offsets[m] >= candidate + size) {
        break;  // the gap before m holds u
      }
      uint64_t end = offsets[m] + align_up(units[m].size, alignment);
      candidate = end > candidate ? end : candidate;
    }
    offsets[u] = candidate;
    total = candidate + size > total ? candidate + size : total;
  }
  return total;
}

etr_error_t etr_plan_best_fit(const etr_lifetimes_t *lifetimes,
                              uint64_t alignment, etr_plan_t *plan,
                              etr_diag_t *diag) {
  const etr_alloc_unit_t *units = lifetimes->units;
  uint32_t num_units = lifetimes->num_units;
  ETR_CHECK(diag, alignment > 0 && (alignment & (alignment - 1)) == 0,
            ETR_ERR_INVALID_ARGUMENT, "alignment %llu is not a power of two",
            (unsigned long long)alignment);
  ETR_TRY(plan_init(plan, max_pool(units, num_units), num_units, diag));
  size_t slots = (size_t)num_units + 1;
  uint64_t *trial = (uint64_t *)calloc(slots, sizeof(uint64_t));
  uint32_t *conflicts = (uint32_t *)calloc(slots, sizeof(uint32_t));
  etr_error_t status = ETR_OK;
  if (trial == NULL || conflicts == NULL) {
    status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                      "out of memory planning %u units", num_units);
  }
  for (uint32_t pool = 1; status == ETR_OK && pool <= plan->num_pools;
       ++pool) {
    uint64_t best = UINT64_MAX;
    for (int order_kind = 0; order_kind < 3 && status == ETR_OK;
         ++order_kind) {
      uint32_t count = 0;
      uint32_t *order = sorted_units(units, num_units, pool, alignment,
                                     order_kind, &count);
      if (order == NULL) {
        status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                          "out of memory planning pool %u", pool);
        break;
      }
      uint64_t total = best_fit_pool(lifetimes, order, count, alignment,
                                     trial, conflicts);
      if (total < best) {
        best = total;
        for (uint32_t k = 0; k < count; ++k) {
          plan->offsets[order[k]] = trial[order[k]];
        }
      }
      free(order);
    }
    plan->pool_sizes[pool - 1] = best == UINT64_MAX ? 0 : best;
  }
  free(trial);
  free(conflicts);
  if (status != ETR_OK) {
    etr_plan_release(plan);
  }
  return status;
}

etr_error_t etr_plan_from_program(const etr_method_t *method,
                                  const etr_lifetimes_t *lifetimes,
                                  etr_plan_t *plan, etr_diag_t *diag) {
  ETR_TRY(plan_init(plan, method->num_planned_buffers, lifetimes->num_units,
                    diag));
  for (uint32_t p = 0; p < method->num_planned_buffers; ++p) {
    plan->pool_sizes[p] = method->planned_sizes[p];
  }
  for (uint32_t u = 0; u < lifetimes->num_units; ++u) {
    plan->offsets[u] = lifetimes->units[u].program_offset;
  }
  return ETR_OK;
}

uint64_t etr_plan_lower_bound(const etr_lifetimes_t *lifetimes,
                              uint64_t alignment) {
  const etr_alloc_unit_t *units = lifetimes->units;
  uint32_t num_units = lifetimes->num_units;
  uint32_t pools = max_pool(units, num_units);
  uint32_t positions = lifetimes->num_positions;
  uint64_t *live = (uint64_t *)calloc((size_t)positions + 1, sizeof(uint64_t));
  if (live == NULL) {
    return 0;
  }
  uint64_t total = 0;
  for (uint32_t pool = 1; pool <= pools; ++pool) {
    memset(live, 0, ((size_t)positions + 1) * sizeof(uint64_t));
    for (uint32_t u = 0; u < num_units; ++u) {
      if (units[u].memory_id != pool) {
        continue;
      }
      uint64_t size = align_up(units[u].size, alignment);
      for (uint32_t p = units[u].start; p <= units[u].end && p < positions;
           ++p) {
        if (etr_unit_occupies(lifetimes, u, p)) {
          live[p] += size;
        }
      }
    }
    uint64_t peak = 0;
    for (uint32_t p = 0; p < positions; ++p) {
      peak = live[p] > peak ? live[p] : peak;
    }
    total += peak;
  }
  free(live);
  return total;
}

// Unit index and its byte range, for the conflict check.
typedef struct {
  uint32_t unit;
  uint64_t begin;
  uint64_t end;
} range_t;

static int by_begin(const void *x, const void *y) {
  const range_t *a = (const range_t *)x;
  const range_t *b = (const range_t *)y;
  if (a->begin != b->begin) {
    return a->begin < b->begin ? -1 : 1;
  }
  return a->unit < b->unit ? -1 : a->unit > b->unit;
}

etr_error_t etr_plan_check(const etr_lifetimes_t *lifetimes,
                           const etr_plan_t *plan, uint64_t alignment,
                           etr_diag_t *diag) {
  const etr_alloc_unit_t *units = lifetimes->units;
  uint32_t num_units = lifetimes->num_units;
  ETR_CHECK(diag, plan->num_units == num_units, ETR_ERR_INVALID_ARGUMENT,
            "plan has %u units, the lifetimes %u", plan->num_units,
            num_units);
  range_t *ranges = (range_t *)malloc(((size_t)num_units + 1) *
                                      sizeof(range_t));
  ETR_CHECK(diag, ranges != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory checking a plan");
  etr_error_t status = ETR_OK;
  for (uint32_t pool = 1; status == ETR_OK && pool <= plan->num_pools;
       ++pool) {
    size_t count = 0;
    for (uint32_t u = 0; u < num_units && status == ETR_OK; ++u) {
      if (units[u].memory_id != pool) {
        continue;
      }
      uint64_t offset = plan->offsets[u];
      uint64_t end = 0;
      if (__builtin_add_overflow(offset, units[u].size, &end) ||
          end > plan->pool_sizes[pool - 1]) {
        status = ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                          "value %u (%llu bytes at offset %llu) lies outside "
                          "planned buffer %u of %llu bytes",
                          units[u].first_value,
                          (unsigned long long)units[u].size,
                          (unsigned long long)offset, pool,
                          (unsigned long long)plan->pool_sizes[pool - 1]);
      } else if (alignment > 1 && offset % alignment != 0) {
        status = ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                          "value %u at offset %llu in planned buffer %u is "
                          "not aligned to %llu bytes",
                          units[u].first_value, (unsigned long long)offset,
                          pool, (unsigned long long)alignment);
      } else if (units[u].size > 0) {
        ranges[count++] = (range_t){u, offset, end};
      }
    }
    if (status != ETR_OK) {
      break;
    }
    // Sorted by first byte, a unit can only collide with the units after it
    // that begin before it ends.
    qsort(ranges, count, sizeof(range_t), by_begin);
    for (size_t i = 0; i < count && status == ETR_OK; ++i) {
      for (size_t j = i + 1; j < count && ranges[j].begin < ranges[i].end;
           ++j) {
        const etr_alloc_unit_t *a = &units[ranges[i].unit];
        const etr_alloc_unit_t *b = &units[ranges[j].unit];
        if (etr_units_conflict(lifetimes, ranges[i].unit, ranges[j].unit)) {
          status = ETR_FAIL(
              diag, ETR_ERR_INVALID_PROGRAM,
              "values %u (bytes %llu..%llu, live within positions "
              "%u..%u) and %u (bytes %llu..%llu, live within %u..%u) share "
              "memory in planned buffer %u while both are live",
              a->first_value, (unsigned long long)ranges[i].begin,
              (unsigned long long)ranges[i].end - 1, a->start, a->end,
              b->first_value, (unsigned long long)ranges[j].begin,
              (unsigned long long)ranges[j].end - 1, b->start, b->end, pool);
          break;
        }
      }
    }
  }
  free(ranges);
  return status;
}

void etr_plan_to_memory_plan(const etr_lifetimes_t *lifetimes,
                             const etr_plan_t *plan, uint32_t num_pools,
                             etr_planned_placement_t *placements,
                             size_t *pool_sizes, etr_memory_plan_t *out) {
  for (uint32_t v = 0; v < lifetimes->num_values; ++v) {
    int32_t unit = lifetimes->unit_of_value[v];
    placements[v].memory_id =
        unit >= 0 ? lifetimes->units[unit].memory_id : 0;
    placements[v].offset = unit >= 0 ? plan->offsets[unit] : 0;
  }
  if (num_pools < plan->num_pools) {
    num_pools = plan->num_pools;
  }
  for (uint32_t p = 0; p < num_pools; ++p) {
    pool_sizes[p] = p < plan->num_pools ? (size_t)plan->pool_sizes[p] : 0;
  }
  out->pool_sizes = pool_sizes;
  out->num_pools = num_pools;
  out->placements = placements;
  out->num_values = lifetimes->num_values;
}
