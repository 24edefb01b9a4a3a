// SPDX-License-Identifier: Apache-2.0
//
// The random ops' generator, vectorized (one table per ISA), and the
// drivers of the optimized rand, randn and native_dropout kernels.
//
// The reference draws from SplitMix64 (ops_reference/support/
// reduce_random.h): draw k of a call starting at state s is
// mix(s + (k + 1) * 0x9e3779b97f4a7c15), and the state ends at
// s + n * 0x9e3779b97f4a7c15 after n draws. That is a counter-based
// stream, so a block of draws is independent lanes of 64-bit adds,
// shifts, xors and multiplies: the `draws` microkernel computes them
// several at a time (AVX-512 VPMULLQ; AVX2 and NEON build the 64-bit
// product from 32-bit ones). The drivers turn draws into values with the
// reference's transforms in the reference's element order, so every value
// and the final state are the reference's, bit for bit.
#ifndef ETR_OPS_OPTIMIZED_RANDOM_RANDOM_H
#define ETR_OPS_OPTIMIZED_RANDOM_RANDOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/isa.h"

#define ETR_RANDOM_GAMMA UINT64_C(0x9e3779b97f4a7c15)

typedef struct etr_random_kernels {
  // out[k] = mix(state + (k + 1) * gamma) for k < n (SplitMix64's
  // variant-13 finalizer).
  void (*draws)(uint64_t state, size_t n, uint64_t *out);
  // native_dropout's step on n elements: with k = draws[i] >> 11, kept
  // when k < threshold (u = k 2^-53 < 1 - p: threshold is
  // etr_random_keep_threshold(1 - p)); y[i] = (float)((double)x[i] *
  // kept * scale) (kept 1.0 or 0.0, in that order), m[i] = kept. NULL in
  // a table without it (the driver loops).
  void (*dropout)(const uint64_t *draws, size_t n, uint64_t threshold,
                  double scale, const float *x, float *y, uint8_t *m);
  // The polar method's attempts on the pairs (draws[2 j], draws[2 j + 1]),
  // j < pairs: u, v and q = u u + v v as etr_reduce_rng_polar computes
  // them, the accepted ones (0 < q < 1), in order, to u[], v[], q[] and
  // their j to at[]; returns how many. NULL in a table without it (the
  // driver takes the reference's function an attempt at a time).
  size_t (*polar_accept)(const uint64_t *draws, size_t pairs, double *u,
                         double *v, double *q, uint32_t *at);
  // Its finish for n accepted pairs, given lq[i] = log(q[i]) (libm's, as
  // the reference): f = sqrt(-2 lq / q); first = u f, second = v f.
  void (*polar_finish)(size_t n, const double *u, const double *v,
                       const double *q, const double *lq, double *first,
                       double *second);
} etr_random_kernels_t;

// The count of 53-bit draws k with k 2^-53 < keep: ceil(keep 2^53), for
// 0 <= keep <= 1 (k 2^-53 is exact, and so is keep 2^53).
static inline uint64_t etr_random_keep_threshold(double keep) {
  double t = keep * 0x1p53;
  uint64_t whole = (uint64_t)t;
  return (double)whole < t ? whole + 1 : whole;
}

extern const etr_random_kernels_t etr_random_kernels_scalar;
extern const etr_random_kernels_t etr_random_kernels_avx2;
extern const etr_random_kernels_t etr_random_kernels_avx512;
extern const etr_random_kernels_t etr_random_kernels_neon;

// The table for `isa` (scalar when that ISA is not built in).
const etr_random_kernels_t *etr_random_kernels_for(etr_isa_t isa);

// Drivers: a checked call (the reference's dry run validated it and
// resized the outs); they draw from ctx->rng_state (or the default seed
// when it is NULL) and advance it as the reference does. False, having
// drawn nothing, for cases they do not handle.

// rand.out into a contiguous Float or Double out.
bool etr_random_uniform_run(etr_kernel_context_t *ctx, etr_tensor_t *out);
// randn.out into a contiguous Float or Double out (pairs of values by
// the polar method, the reference's own etr_reduce_rng_polar on the same
// draws).
bool etr_random_normal_run(etr_kernel_context_t *ctx, etr_tensor_t *out);
// native_dropout.out, training, on a contiguous Float input, out and Bool
// mask with 0 <= p <= 1 (checked by the reference).
bool etr_random_dropout_run(etr_kernel_context_t *ctx,
                            const etr_tensor_t *input, double p,
                            etr_tensor_t *out, etr_tensor_t *mask);

#endif  // ETR_OPS_OPTIMIZED_RANDOM_RANDOM_H
