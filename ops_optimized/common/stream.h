// SPDX-License-Identifier: Apache-2.0
//
// Non-temporal (streaming) stores for fp32 outputs that will not stay in
// cache. An ordinary store first reads the line it writes ("read for
// ownership"), so an elementwise kernel streaming x into y moves 3 bytes
// for every 2 it needs; a non-temporal store writes the line without
// reading it and without keeping it in cache. A kernel takes them when
// its arrays (inputs and out) reach etr_isa_stream_bytes(): half the
// last-level cache this core reaches, at most 64 MiB (isa.h). Below that
// the out is better left in cache for the next op. Measured on AMD Zen 4
// (32 MiB L3, 2026-12-04; a standalone loop of 15 alternated rounds each
// way):
// relu with outs of 4, 8, 10 and 12 MiB took 1.36, 0.98, 0.81 and 0.58x
// the time with streaming stores, add of two arrays 0.73x at 4 MiB and
// 0.59x at 12; a 4096 x 1024 add of a broadcast row 0.67x. The fixed
// threshold this replaced (outs of 32 MiB, from a Zen 2's L3) left the
// 8-32 MiB range to ordinary stores, where XNNPACK's add ran 1.3x
// etref's. On Zen 2 relu on 16 Mi floats had gone 3.2-3.4 -> 2.6 ms
// (bench_server on relu-DRAM, interleaved).
//
// The stores sit in the kernels' own loops, interleaved with the work: a
// first version that computed L1-sized chunks and streamed each one after
// made relu only half as much faster and tanh and sigmoid 15-40% slower
// (their stores then come in bursts). In the loop itself they cost the
// transcendental ops nothing and give the cheap ones what relu got: on 16
// Mi floats, AVX-512, clamp 33-47 -> 44-51 GB/s and sqrt 41-44 -> 51-57
// (bench_elementwise, old and new binaries alternated, noisy), sigmoid,
// tanh, exp and gelu within the noise (they are bound by their
// polynomials at ~5.5 G elements/s). Only the ISAs with such a store
// (simd_<isa>.h defines ETR_HAVE_VF_STREAM) have them: in relu, the
// unary table (unary_kernels.h) and add/sub/mul/div/maximum/minimum,
// whose broadcast runs are asked for the whole call (binary.h's
// params->stream). The unary table's loop (and relu's) also prefetches x
// a few KiB ahead (ETR_STREAM_PREFETCH_FLOATS): its transcendental ops do
// too much work per line for the hardware prefetchers to stay ahead on
// their own.
#ifndef ETR_OPS_OPTIMIZED_COMMON_STREAM_H
#define ETR_OPS_OPTIMIZED_COMMON_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_optimized/isa.h"

// Whether a kernel whose out of n floats comes with `inputs` more arrays
// of n floats (1 for relu, 2 for add of two vectors) streams its out.
static inline bool etr_stream_out(size_t n, size_t inputs) {
  return n * sizeof(float) * (inputs + 1) >= etr_isa_stream_bytes();
}

// How far ahead of its loads a streaming loop prefetches x: 2 KiB. On
// the Intel Xeon of 2026-11-28 (family 6 model 167) the hardware
// prefetchers alone left tanh, sigmoid and exp on 16 Mi floats waiting on
// memory as long as they computed (tanh 1.3 G elements/s against 2.9 in
// L2); with this, tanh went 10.5-16 -> 19-21 GB/s and sigmoid 11-18 -> 21-23
// (bench_elementwise, binaries alternated; 2 and 8 KiB did about as well).
// relu's own loop (relu_avx512.c) took it on 2026-12-04, when relu-DRAM
// ran at 21.7 GB/s beside hardtanh's 24.7 through the unary table. It
// was 4 KiB until 2026-12-05: on Zen 4 (bench_server, 16 Mi floats,
// builds alternated) 2 KiB ran relu-DRAM, sigmoid-DRAM and exp-DRAM 2-5%
// faster in every round, 1 KiB exp 4% slower than 2, 16 KiB 25% slower;
// the roofline's streaming copy, which prefetches alike
// (ops_optimized/bench/roofline_avx512.c), 3% faster (medians of 8).
#define ETR_STREAM_PREFETCH_FLOATS 512

// The prefetches of one step of a streaming loop over `floats` floats of
// x from x + i (a constant): every 64-byte line of the step,
// ETR_STREAM_PREFETCH_FLOATS ahead, while that lies within the n floats.
// The loops had prefetched one line per step of two vectors, every other
// line on AVX-512: relu on 16 Mi floats ran at 29-36 GB/s beside a
// streaming copy's 42-44, and 46-47 with every line prefetched (Zen 4,
// bench_server, 2026-12-05).
static inline __attribute__((always_inline)) void etr_stream_prefetch(
    const float *x, size_t i, size_t n, size_t floats) {
  if (i + ETR_STREAM_PREFETCH_FLOATS + floats <= n) {
    for (size_t f = 0; f < floats; f += 16) {
      __builtin_prefetch(x + i + ETR_STREAM_PREFETCH_FLOATS + f, 0, 3);
    }
  }
}

// How many floats from y to the next `align`-byte boundary (align a power
// of two; y 4-byte aligned, as every float pointer is).
static inline size_t etr_stream_head(const float *y, size_t align) {
  return (size_t)((align - ((uintptr_t)y & (align - 1))) & (align - 1)) /
         sizeof(float);
}

// Orders a call's streaming stores before whatever follows it, from
// portable code (a driver whose ISA kernels streamed): SFENCE on x86, no
// operation elsewhere (no other ISA here has such stores).
static inline void etr_stream_fence(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence();
#endif
}

#endif  // ETR_OPS_OPTIMIZED_COMMON_STREAM_H
