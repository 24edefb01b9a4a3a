// SPDX-License-Identifier: Apache-2.0
//
// This machine's roofline, measured by the benchmark in the same run as the
// kernels it judges (ops_optimized/bench/run.sh): the fp32 FMA throughput
// of one core, and the bandwidth of one core for three access patterns at
// a working set of any size (so each cache level and DRAM can be measured
// with the pattern an operator uses):
//   read   s += a[i]              4 bytes per element (reductions)
//   copy   b[i] = a[i]            8 bytes per element (unary, movement)
//   triad  a[i] = b[i] + s * c[i] 12 bytes per element (binary)
// and copy and triad again with non-temporal (streaming) stores, which
// write a line without first reading it: the most a kernel writing an
// out larger than the caches can get (ops_optimized/common/stream.h), as
// an ordinary store also reads the line it writes (the streaming copy
// also prefetches what it reads, as the unary kernels' streaming loops
// do). Where the CPU has no such store (plain C) they are the ordinary
// loops.
// Bytes are counted as the cost model counts an operator's (prof/
// cost_model.h): each array read once, each written once, no
// write-allocate traffic, as STREAM does. Each loop uses the widest vectors
// the CPU has (AVX-512, AVX2, else plain C); one ISA per file.
#ifndef ETR_OPS_OPTIMIZED_BENCH_ROOFLINE_H
#define ETR_OPS_OPTIMIZED_BENCH_ROOFLINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_bench_pattern {
  ETR_BENCH_READ = 0,
  ETR_BENCH_COPY = 1,
  ETR_BENCH_TRIAD = 2,
  ETR_BENCH_COPY_STREAM = 3,
  ETR_BENCH_TRIAD_STREAM = 4,
} etr_bench_pattern_t;

// Bytes one element of `pattern` counts (4, 8 or 12; streaming stores
// count as their ordinary twin).
double etr_bench_pattern_bytes(etr_bench_pattern_t pattern);

// One pass of `pattern` over `count` floats (a multiple of 64) of the
// 64-byte aligned arrays a, b, c (b and c unused by some patterns). Returns
// a value that depends on the data so the pass cannot be optimized away.
typedef float (*etr_bench_pass_fn)(etr_bench_pattern_t pattern, float *a,
                                   float *b, const float *c, size_t count);

// The pass for the widest ISA this CPU has, and that ISA's name.
etr_bench_pass_fn etr_bench_pass(const char **isa_name);

// `iterations` x 24 independent chains of fused multiply-adds of the
// widest vector; returns the FLOPs done (the caller times it).
double etr_bench_fma_chains(long iterations, float *sink);

// Per ISA (the dispatchers above pick one).
float etr_bench_pass_avx512(etr_bench_pattern_t pattern, float *a, float *b,
                            const float *c, size_t count);
float etr_bench_pass_avx2(etr_bench_pattern_t pattern, float *a, float *b,
                          const float *c, size_t count);
double etr_bench_fma_chains_avx512(long iterations, float *sink);
double etr_bench_fma_chains_avx2(long iterations, float *sink);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_OPTIMIZED_BENCH_ROOFLINE_H
