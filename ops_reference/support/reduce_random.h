// SPDX-License-Identifier: Apache-2.0
//
// The seeded generator the random reference kernels (rand, randn,
// randperm, native_dropout) draw from, and how a draw becomes a value.
//
// Generator: SplitMix64 (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014) on the single 64-bit
// state ctx->rng_state that a method seeds from its config: every draw adds
// the golden-ratio increment 0x9e3779b97f4a7c15 to the state and returns
// the state passed through the finalizer below. Its period is 2^64 and
// every seed (0 included) gives a full-quality stream. The state lives in
// the method, so consecutive random ops continue one stream. When
// ctx->rng_state is NULL a kernel starts from ETR_REDUCE_RNG_DEFAULT_SEED
// on every call (so such calls repeat the same values). Dry runs never
// draw.
//
// PyTorch's CPU generator is a Mersenne Twister (mt19937) behind its own
// transforms, so no etref stream can reproduce PyTorch's numbers; the tests
// check determinism and distribution properties instead.
//
// From draw to value:
//   uniform [0, 1) in a dtype with b significand bits (Float 24, Double
//     53, Half 11, BFloat16 8): the top b bits of one draw, times 2^-b, so
//     the value is exact in the dtype and never rounds up to 1.0 (the rule
//     of PyTorch's uniform_real_distribution);
//   standard normals, in pairs: Marsaglia's polar method (libstdc++'s
//     normal_distribution's too) on two draws at a time: u and v =
//     2 x (53-bit uniform) - 1, exact, and q = u^2 + v^2; a point with
//     q >= 1 or q = 0 is rejected and two more draws are taken; else
//     f = sqrt(-2 ln(q) / q) and the pair is (u f, v f), each rounded
//     once to the dtype. No trigonometric call, and both values used;
//   integer in [0, bound): rejection sampling: draws below 2^64 mod bound
//     are rejected and the rest reduced modulo bound, so every result is
//     exactly equally likely (PyTorch's randperm takes a plain modulo).
#ifndef ETR_OPS_REFERENCE_SUPPORT_REDUCE_RANDOM_H
#define ETR_OPS_REFERENCE_SUPPORT_REDUCE_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/scalar_type.h"

#ifdef __cplusplus
extern "C" {
#endif

// The state used when ctx->rng_state is NULL (also the CLI's default seed).
#define ETR_REDUCE_RNG_DEFAULT_SEED UINT64_C(0)

typedef struct etr_reduce_rng {
  uint64_t *state;  // ctx->rng_state, or &local
  uint64_t local;
} etr_reduce_rng_t;

// Binds `rng` to ctx->rng_state (or to a local copy of the default seed).
// The struct must stay where it is while it is used.
void etr_reduce_rng_init(etr_reduce_rng_t *rng,
                         const etr_kernel_context_t *ctx);

// The next 64 random bits.
uint64_t etr_reduce_rng_next(etr_reduce_rng_t *rng);

// Significand bits of a floating dtype (Half 11, BFloat16 8, Float 24,
// Double 53; 53 for anything else).
int etr_reduce_rng_uniform_bits(etr_scalar_type_t dtype);

// A uniform value in [0, 1) with `bits` (1..53) random bits.
double etr_reduce_rng_uniform(etr_reduce_rng_t *rng, int bits);

// One attempt of the polar method on two draws (in that order): true and
// the pair in *first, *second when the point lies inside the unit circle
// and not at its centre, false (rejected; nothing written) otherwise.
// Shared with the optimized randn, which feeds it the same draws.
bool etr_reduce_rng_polar(uint64_t first_draw, uint64_t second_draw,
                          double *first, double *second);

// The next pair of independent standard normal values (polar method:
// two draws per attempt, 4/pi attempts on average).
void etr_reduce_rng_normal_pair(etr_reduce_rng_t *rng, double *first,
                                double *second);

// A uniform integer in [0, bound); bound must be at least 1.
uint64_t etr_reduce_rng_below(etr_reduce_rng_t *rng, uint64_t bound);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_REDUCE_RANDOM_H
