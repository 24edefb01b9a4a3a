// SPDX-License-Identifier: Apache-2.0
//
// Total orders and in-place heapsort for sort and topk (see reduce_sort.h).
#include "ops_reference/support/reduce_sort.h"

#include <math.h>
#include <string.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"

etr_sort_key_t etr_sort_load_key(etr_scalar_type_t dtype, const void *element,
                                 int64_t index) {
  etr_sort_key_t key = {0.0, 0, 0, index};
  if (dtype == ETR_UINT64) {
    memcpy(&key.unsigned64, element, sizeof(key.unsigned64));
  } else if (etr_dtype_kind(dtype) == ETR_KIND_FLOATING) {
    key.floating = etr_load_double(dtype, element);
  } else {
    key.integer = etr_load_int64(dtype, element);
  }
  return key;
}

// -1, 0 or 1 as a's value is smaller than, equal to or larger than b's,
// with NaN larger than everything and equal to NaN.
static int compare_values(etr_scalar_type_t dtype, const etr_sort_key_t *a,
                          const etr_sort_key_t *b) {
  if (dtype == ETR_UINT64) {
    return a->unsigned64 < b->unsigned64 ? -1 : a->unsigned64 > b->unsigned64;
  }
  if (etr_dtype_kind(dtype) == ETR_KIND_FLOATING) {
    bool a_nan = isnan(a->floating);
    bool b_nan = isnan(b->floating);
    if (a_nan || b_nan) {
      return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
    }
    return a->floating < b->floating ? -1 : a->floating > b->floating;
  }
  return a->integer < b->integer ? -1 : a->integer > b->integer;
}

bool etr_sort_key_before(etr_scalar_type_t dtype, bool descending,
                         const etr_sort_key_t *a, const etr_sort_key_t *b) {
  int order = compare_values(dtype, a, b);
  if (order != 0) {
    return descending ? order > 0 : order < 0;
  }
  return a->index < b->index;
}

static void *value_slot(const etr_sort_slots_t *slots, int64_t slot) {
  return slots->values + slot * slots->value_stride *
                             (int64_t)etr_scalar_type_size(slots->dtype);
}

static void *index_slot(const etr_sort_slots_t *slots, int64_t slot) {
  return slots->indices + slot * slots->index_stride * (int64_t)sizeof(int64_t);
}

etr_sort_key_t etr_sort_slot_key(const etr_sort_slots_t *slots, int64_t slot) {
  int64_t index = etr_load_int64(ETR_LONG, index_slot(slots, slot));
  return etr_sort_load_key(slots->dtype, value_slot(slots, slot), index);
}

void etr_sort_slot_set(const etr_sort_slots_t *slots, int64_t slot,
                       const void *element, int64_t index) {
  memcpy(value_slot(slots, slot), element,
         etr_scalar_type_size(slots->dtype));
  etr_store_int64(ETR_LONG, index_slot(slots, slot), index);
}

static void swap_slots(const etr_sort_slots_t *slots, int64_t a, int64_t b) {
  uint8_t value[16];
  size_t size = etr_scalar_type_size(slots->dtype);
  memcpy(value, value_slot(slots, a), size);
  memcpy(value_slot(slots, a), value_slot(slots, b), size);
  memcpy(value_slot(slots, b), value, size);
  int64_t index_a = etr_load_int64(ETR_LONG, index_slot(slots, a));
  int64_t index_b = etr_load_int64(ETR_LONG, index_slot(slots, b));
  etr_store_int64(ETR_LONG, index_slot(slots, a), index_b);
  etr_store_int64(ETR_LONG, index_slot(slots, b), index_a);
}

void etr_sort_sift_down(const etr_sort_slots_t *slots, int64_t slot,
                        int64_t count) {
  for (;;) {
    // The child that comes last in the order moves up.
    int64_t largest = slot;
    etr_sort_key_t largest_key = etr_sort_slot_key(slots, slot);
    for (int64_t child = 2 * slot + 1; child <= 2 * slot + 2; ++child) {
      if (child >= count) {
        break;
      }
      etr_sort_key_t child_key = etr_sort_slot_key(slots, child);
      if (etr_sort_key_before(slots->dtype, slots->descending, &largest_key,
                              &child_key)) {
        largest = child;
        largest_key = child_key;
      }
    }
    if (largest == slot) {
      return;
    }
    swap_slots(slots, slot, largest);
    slot = largest;
  }
}

void etr_sort_slots(const etr_sort_slots_t *slots, int64_t count) {
  for (int64_t slot = count / 2 - 1; slot >= 0; --slot) {
    etr_sort_sift_down(slots, slot, count);
  }
  for (int64_t end = count - 1; end > 0; --end) {
    swap_slots(slots, 0, end);
    etr_sort_sift_down(slots, 0, end);
  }
}
