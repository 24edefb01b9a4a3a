// SPDX-License-Identifier: Apache-2.0
//
// Field mutations for the structure-aware mutator (see pte_mutator.h).
#include "fuzz/mutator/pte_mutator.h"

#include <stdbool.h>
#include <string.h>

#include "fuzz/mutator/fb_schema.h"

// Scratch for one call: fuzzers call the mutator from one thread.
static etr_fb_location_t g_locations[ETR_FB_MAX_LOCATIONS];

typedef struct {
  uint64_t state;
} rng_t;

static uint64_t next(rng_t *r) {  // SplitMix64
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t below(rng_t *r, uint64_t bound) {
  return bound == 0 ? 0 : next(r) % bound;
}

static uint64_t load(const uint8_t *data, const etr_fb_location_t *l) {
  uint64_t value = 0;
  for (unsigned i = 0; i < l->width; ++i) {
    value |= (uint64_t)data[l->offset + i] << (8 * i);
  }
  return value;
}

static void store(uint8_t *data, const etr_fb_location_t *l, uint64_t value) {
  for (unsigned i = 0; i < l->width; ++i) {
    data[l->offset + i] = (uint8_t)(value >> (8 * i));
  }
}

// Structural roles (mutating them mostly breaks parsing): picked 1 time in 4.
static bool structural(uint8_t role) {
  return role == ETR_ROLE_UOFFSET || role == ETR_ROLE_LENGTH ||
         role == ETR_ROLE_VTABLE;
}

static size_t pick(rng_t *r, size_t count) {
  size_t index = (size_t)below(r, count);
  for (int tries = 0; tries < 4 && structural(g_locations[index].role) &&
                      below(r, 4) != 0;
       ++tries) {
    index = (size_t)below(r, count);
  }
  return index;
}

// An index into a table of `length` entries: mostly valid, sometimes the
// first invalid one, -1, or huge.
static uint64_t index_value(rng_t *r, uint32_t length) {
  switch (below(r, 8)) {
    case 0:
      return length;
    case 1:
      return (uint64_t)-1;
    case 2:
      return (uint64_t)length + 1 + below(r, 16);
    case 3:
      return 0x7fffffff;
    default:
      return below(r, length > 0 ? length : 1);
  }
}

static uint64_t interesting(rng_t *r, unsigned width) {
  uint64_t top = width >= 8 ? ~0ull : (1ull << (8 * width)) - 1;
  static const uint64_t kValues[] = {0,          1,          2,
                                     16,         64,         127,
                                     128,        255,        256,
                                     4096,       65535,      65536,
                                     0x7fffffff, 0x80000000, 0xffffffff,
                                     1ull << 32, 1ull << 48,
                                     0x7fffffffffffffffull};
  switch (below(r, 4)) {
    case 0:
      return top;                   // -1
    case 1:
      return top >> 1;              // signed max
    case 2:
      return (top >> 1) + 1;        // signed min
    default:
      return kValues[below(r, sizeof(kValues) / sizeof(kValues[0]))] & top;
  }
}

static uint64_t role_value(rng_t *r, const etr_fb_location_t *l,
                           uint64_t old, const etr_fb_hints_t *h,
                           size_t size) {
  switch (l->role) {
    case ETR_ROLE_VALUE_INDEX:
      return index_value(r, h->values);
    case ETR_ROLE_OP_INDEX:
      return index_value(r, h->operators);
    case ETR_ROLE_DELEGATE_INDEX:
      return index_value(r, h->delegates);
    case ETR_ROLE_INSTRUCTION:
      return index_value(r, h->instructions + 1);
    case ETR_ROLE_BUFFER_INDEX:
      return index_value(r, h->buffers);
    case ETR_ROLE_SEGMENT_INDEX:
      return index_value(r, h->segments);
    case ETR_ROLE_DATA_INDEX:
      return index_value(r, 4);
    case ETR_ROLE_TENSOR_SIZE: {
      static const uint64_t kSizes[] = {
          0,  1,   2,   3,   4,    7,    8,     15,         16,
          17, 31,  32,  63,  64,   127,  128,   255,        1000,
          1024, 4096, 65536, 1u << 20, 1u << 24, 0x7fffffff, 0xffffffff};
      return below(r, 3) == 0 ? old * 2 + below(r, 2)
                              : kSizes[below(r, sizeof(kSizes) / 8)];
    }
    case ETR_ROLE_DIM_ORDER:
      return below(r, 18);
    case ETR_ROLE_ENUM:
      return below(r, 4) == 0 ? below(r, 256) : below(r, 32);
    case ETR_ROLE_UNION_TAG:
      return below(r, 4) == 0 ? below(r, 256) : below(r, 13);
    case ETR_ROLE_MEMORY_ID:
      return below(r, 5);
    case ETR_ROLE_MEMORY_OFFSET: {
      uint64_t slots = h->pool_bytes / 16 + 2;
      switch (below(r, 6)) {
        case 0:
          return old + 1 + below(r, 15);  // misaligned
        case 1:
          return h->pool_bytes;
        case 2:
          return h->pool_bytes > 0 ? h->pool_bytes - 16 : 0;
        default:
          return below(r, slots) * 16;
      }
    }
    case ETR_ROLE_POOL_SIZE:
      switch (below(r, 5)) {
        case 0:
          return old / 2;
        case 1:
          return old * 2;
        case 2:
          return old >= 16 ? old - 16 : 0;
        case 3:
          return 0;
        default:
          return interesting(r, l->width);
      }
    case ETR_ROLE_FILE_OFFSET:
      switch (below(r, 6)) {
        case 0:
          return size;
        case 1:
          return size - 1;
        case 2:
          return old + 16 * (1 + below(r, 8));
        case 3:
          return old >= 16 ? old - 16 * (1 + below(r, old / 16 < 8 ? old / 16
                                                                    : 8))
                           : 0;
        default:
          return interesting(r, l->width);
      }
    case ETR_ROLE_UOFFSET:
      return below(r, 2) ? old + 4 * (1 + below(r, 4))
                         : old - 4 * (1 + below(r, 4));
    case ETR_ROLE_LENGTH:
      switch (below(r, 4)) {
        case 0:
          return old + 1;
        case 1:
          return old - 1;
        case 2:
          return old * 2;
        default:
          return interesting(r, l->width);
      }
    case ETR_ROLE_VTABLE:
      return below(r, 2) ? 0 : old + (below(r, 2) ? 2 : -2);
    default:
      return interesting(r, l->width);
  }
}

// Another location of the same role and width (for copies and swaps), or
// `index` itself when there is none among a few tries.
static size_t partner(rng_t *r, size_t count, size_t index) {
  for (int tries = 0; tries < 16; ++tries) {
    size_t other = (size_t)below(r, count);
    if (other != index && g_locations[other].role == g_locations[index].role &&
        g_locations[other].width == g_locations[index].width) {
      return other;
    }
  }
  return index;
}

size_t etr_pte_mutate(uint8_t *data, size_t size, size_t max_size,
                      uint32_t seed) {
  (void)max_size;
  etr_fb_hints_t hints;
  size_t count = etr_fb_collect(data, size, g_locations,
                                ETR_FB_MAX_LOCATIONS, &hints);
  if (count == 0) {
    return 0;
  }
  rng_t r = {seed * 0x9e3779b97f4a7c15ull + 1};
  unsigned mutations = 1 + (unsigned)(below(&r, 4) == 0 ? below(&r, 3) : 0);
  for (unsigned m = 0; m < mutations; ++m) {
    size_t index = pick(&r, count);
    const etr_fb_location_t *l = &g_locations[index];
    uint64_t old = load(data, l);
    uint64_t value;
    switch (below(&r, 10)) {
      case 0:
        value = old + 1 + below(&r, 4);
        break;
      case 1:
        value = old - 1 - below(&r, 4);
        break;
      case 2:
        value = interesting(&r, l->width);
        break;
      case 3: {  // copy from a field of the same role
        size_t other = partner(&r, count, index);
        value = load(data, &g_locations[other]);
        break;
      }
      case 4: {  // swap with a field of the same role
        size_t other = partner(&r, count, index);
        value = load(data, &g_locations[other]);
        store(data, &g_locations[other], old);
        break;
      }
      default:
        value = role_value(&r, l, old, &hints, size);
        break;
    }
    if (value == old) {
      value = old ^ (1ull << below(&r, 8u * l->width));
    }
    store(data, l, value);
  }
  return size;
}
