// SPDX-License-Identifier: Apache-2.0
//
// Bump allocators and overflow-checked size arithmetic.
//
// An arena hands out aligned slices of memory and frees them all at once.
// A fixed arena works inside a caller-provided buffer and never calls malloc
// (what a method uses while it executes, and what an embedded caller gives
// etref). A growable arena takes further blocks from malloc when the current
// one is full; methods use one only while loading.
//
// Every size and alignment computation is checked: a request whose rounded
// size overflows size_t fails instead of wrapping (the class of bug behind
// several ExecuTorch allocator advisories).
#ifndef ETR_CORE_ARENA_H
#define ETR_CORE_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_arena_block etr_arena_block_t;

typedef struct etr_arena {
  uint8_t *base;       // current block
  size_t size;         // bytes in the current block
  size_t used;         // bytes handed out from the current block
  size_t total_used;   // bytes handed out over all blocks (incl. padding)
  size_t peak;         // largest total_used seen since init
  size_t limit;        // growable: total bytes the arena may take; 0 = none
  size_t block_size;   // growable: minimum size of a new block; 0 = fixed
  size_t reserved;     // growable: bytes taken from malloc so far
  etr_arena_block_t *blocks;  // growable: owned blocks, newest first
} etr_arena_t;

// a + b and a * b without wrapping; false on overflow.
static inline bool etr_size_add(size_t a, size_t b, size_t *out) {
  return !__builtin_add_overflow(a, b, out);
}
static inline bool etr_size_mul(size_t a, size_t b, size_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}
// Rounds `value` up to a multiple of `alignment` (a power of two); false on
// overflow or when alignment is not a power of two.
bool etr_size_align_up(size_t value, size_t alignment, size_t *out);

// A fixed arena over [buffer, buffer + size). Never calls malloc.
void etr_arena_init(etr_arena_t *arena, void *buffer, size_t size);

// A growable arena: blocks of at least `block_size` bytes from malloc, at
// most `limit` bytes in all (0 = no limit). Release with etr_arena_destroy.
void etr_arena_init_growable(etr_arena_t *arena, size_t block_size,
                             size_t limit);

// Frees the blocks of a growable arena (no-op for a fixed one).
void etr_arena_destroy(etr_arena_t *arena);

// `size` bytes aligned to `alignment` (a power of two, at most 4096), or NULL
// when the arena is exhausted or the request overflows. Zero-size requests
// return a valid, unique-enough pointer inside the arena.
void *etr_arena_alloc(etr_arena_t *arena, size_t size, size_t alignment);

// `count` elements of `element_size` bytes, zero-filled; NULL on overflow.
void *etr_arena_calloc(etr_arena_t *arena, size_t count, size_t element_size,
                       size_t alignment);

// Where a fixed arena's allocations stand, for etr_arena_rewind.
typedef struct etr_arena_mark {
  const uint8_t *base;
  size_t used;
  size_t total_used;
} etr_arena_mark_t;

etr_arena_mark_t etr_arena_mark(const etr_arena_t *arena);

// Forgets the allocations made since `mark` was taken (a kernel that calls
// a scratch-taking helper once per block of its work hands the same bytes
// to every call). Does nothing when the arena has moved to another block
// or was reset below the mark since (a growable arena keeps what it took).
void etr_arena_rewind(etr_arena_t *arena, etr_arena_mark_t mark);

// Forgets every allocation of a fixed arena (growable arenas keep their
// blocks and restart in the newest one). Peak usage is kept.
void etr_arena_reset(etr_arena_t *arena);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_ARENA_H
