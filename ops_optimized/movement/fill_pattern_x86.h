// SPDX-License-Identifier: Apache-2.0
//
// The 16-byte pattern of the x86 fill kernels: `element` (1, 2, 4, 8 or 16
// bytes) repeated, built in a register. Not by writing the copies to a
// stack buffer and loading it: that 16-byte load spans several smaller
// stores still in the store buffer, which the core cannot forward (a stall
// of ~20 cycles, most of a small fill's time: full.out [1,1,16] took 28.7 ns
// per execute() before, perf annotate on bench_server).
#ifndef ETREF_OPS_OPTIMIZED_MOVEMENT_FILL_PATTERN_X86_H_
#define ETREF_OPS_OPTIMIZED_MOVEMENT_FILL_PATTERN_X86_H_

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

static inline __m128i etr_move_pattern128(const void *element,
                                          size_t element_size) {
  switch (element_size) {
    case 1: {
      uint8_t v;
      memcpy(&v, element, 1);
      return _mm_set1_epi8((char)v);
    }
    case 2: {
      uint16_t v;
      memcpy(&v, element, 2);
      return _mm_set1_epi16((short)v);
    }
    case 4: {
      uint32_t v;
      memcpy(&v, element, 4);
      return _mm_set1_epi32((int)v);
    }
    case 8: {
      uint64_t v;
      memcpy(&v, element, 8);
      return _mm_set1_epi64x((long long)v);
    }
    default:  // 16
      return _mm_loadu_si128((const __m128i *)element);
  }
}

#endif  // ETREF_OPS_OPTIMIZED_MOVEMENT_FILL_PATTERN_X86_H_
