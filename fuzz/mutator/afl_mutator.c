// SPDX-License-Identifier: Apache-2.0
//
// The structure-aware .pte/.bpte/.ptd mutator (pte_mutator.h) as an AFL++
// custom mutator library: fuzz/build.sh --engine afl builds it as
// afl_pte_mutator.so and fuzz/campaign loads it with
// AFL_CUSTOM_MUTATOR_LIBRARY for those targets. AFL++ still runs its own
// havoc stages as well (AFL_CUSTOM_MUTATOR_ONLY is not set). Implements the
// documented C API (docs/custom_mutators.md): afl_custom_init,
// afl_custom_fuzz, afl_custom_deinit; the afl_state_t pointer is unused.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/mutator/pte_mutator.h"

typedef struct {
  uint32_t seed;
  uint8_t *buffer;
  size_t capacity;
} afl_mutator_t;

void *afl_custom_init(void *afl, unsigned int seed) {
  (void)afl;
  afl_mutator_t *state = (afl_mutator_t *)calloc(1, sizeof(afl_mutator_t));
  if (state != NULL) {
    state->seed = seed;
  }
  return state;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size,
                       uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size) {
  (void)add_buf;
  (void)add_buf_size;
  afl_mutator_t *state = (afl_mutator_t *)data;
  if (buf_size > state->capacity) {
    uint8_t *grown = (uint8_t *)realloc(state->buffer, buf_size);
    if (grown == NULL) {
      *out_buf = buf;
      return buf_size;
    }
    state->buffer = grown;
    state->capacity = buf_size;
  }
  memcpy(state->buffer, buf, buf_size);
  state->seed = state->seed * 1103515245u + 12345u;
  size_t size = etr_pte_mutate(state->buffer, buf_size, max_size,
                               state->seed);
  if (size == 0 && buf_size > 0) {  // not a FlatBuffer we know: flip a bit
    state->buffer[(state->seed >> 3) % buf_size] ^=
        (uint8_t)(1u << (state->seed & 7));
    size = buf_size;
  }
  *out_buf = state->buffer;
  return size;
}

void afl_custom_deinit(void *data) {
  afl_mutator_t *state = (afl_mutator_t *)data;
  if (state != NULL) {
    free(state->buffer);
    free(state);
  }
}
