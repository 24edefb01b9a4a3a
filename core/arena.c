// SPDX-License-Identifier: Apache-2.0
//
// Bump allocators (see arena.h).
#include "core/arena.h"

#include <stdlib.h>
#include <string.h>

struct etr_arena_block {
  etr_arena_block_t *next;
  size_t size;
  // Block memory follows, aligned to max_align_t by the struct layout below.
};

// Header size rounded so the payload starts 64-byte aligned.
#define BLOCK_HEADER_SIZE 64
_Static_assert(sizeof(etr_arena_block_t) <= BLOCK_HEADER_SIZE,
               "arena block header must fit its reserved space");

bool etr_size_align_up(size_t value, size_t alignment, size_t *out) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return false;
  }
  size_t bumped;
  if (!etr_size_add(value, alignment - 1, &bumped)) {
    return false;
  }
  *out = bumped & ~(alignment - 1);
  return true;
}

void etr_arena_init(etr_arena_t *arena, void *buffer, size_t size) {
  memset(arena, 0, sizeof(*arena));
  arena->base = (uint8_t *)buffer;
  arena->size = buffer != NULL ? size : 0;
}

void etr_arena_init_growable(etr_arena_t *arena, size_t block_size,
                             size_t limit) {
  memset(arena, 0, sizeof(*arena));
  arena->block_size = block_size != 0 ? block_size : 4096;
  arena->limit = limit;
}

void etr_arena_destroy(etr_arena_t *arena) {
  etr_arena_block_t *block = arena->blocks;
  while (block != NULL) {
    etr_arena_block_t *next = block->next;
    free(block);
    block = next;
  }
  memset(arena, 0, sizeof(*arena));
}

// Tries to carve the request out of the current block.
static void *take_from_current(etr_arena_t *arena, size_t size,
                               size_t alignment) {
  if (arena->base == NULL) {
    return NULL;
  }
  uintptr_t address = (uintptr_t)arena->base + arena->used;
  size_t padding = (size_t)((alignment - (address & (alignment - 1))) &
                            (alignment - 1));
  size_t needed;
  if (!etr_size_add(padding, size, &needed) ||
      needed > arena->size - arena->used) {
    return NULL;
  }
  void *result = arena->base + arena->used + padding;
  arena->used += needed;
  arena->total_used += needed;
  if (arena->total_used > arena->peak) {
    arena->peak = arena->total_used;
  }
  return result;
}

static bool add_block(etr_arena_t *arena, size_t size, size_t alignment) {
  size_t payload;
  if (!etr_size_add(size, alignment, &payload)) {
    return false;
  }
  if (payload < arena->block_size) {
    payload = arena->block_size;
  }
  size_t total;
  if (!etr_size_add(payload, BLOCK_HEADER_SIZE, &total)) {
    return false;
  }
  size_t new_reserved;
  if (!etr_size_add(arena->reserved, total, &new_reserved) ||
      (arena->limit != 0 && new_reserved > arena->limit)) {
    return false;
  }
  etr_arena_block_t *block = (etr_arena_block_t *)malloc(total);
  if (block == NULL) {
    return false;
  }
  block->next = arena->blocks;
  block->size = payload;
  arena->blocks = block;
  arena->reserved = new_reserved;
  arena->base = (uint8_t *)block + BLOCK_HEADER_SIZE;
  arena->size = payload;
  arena->used = 0;
  return true;
}

void *etr_arena_alloc(etr_arena_t *arena, size_t size, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 ||
      alignment > 4096) {
    return NULL;
  }
  void *result = take_from_current(arena, size, alignment);
  if (result != NULL || arena->block_size == 0) {
    return result;
  }
  if (!add_block(arena, size, alignment)) {
    return NULL;
  }
  return take_from_current(arena, size, alignment);
}

void *etr_arena_calloc(etr_arena_t *arena, size_t count, size_t element_size,
                       size_t alignment) {
  size_t size;
  if (!etr_size_mul(count, element_size, &size)) {
    return NULL;
  }
  void *result = etr_arena_alloc(arena, size, alignment);
  if (result != NULL && size != 0) {
    memset(result, 0, size);
  }
  return result;
}

void etr_arena_reset(etr_arena_t *arena) {
  arena->used = 0;
  arena->total_used = 0;
}

etr_arena_mark_t etr_arena_mark(const etr_arena_t *arena) {
  etr_arena_mark_t mark = {arena->base, arena->used, arena->total_used};
  return mark;
}

void etr_arena_rewind(etr_arena_t *arena, etr_arena_mark_t mark) {
  if (arena->base == mark.base && mark.used <= arena->used &&
      mark.total_used <= arena->total_used) {
    arena->used = mark.used;
    arena->total_used = mark.total_used;
  }
}
