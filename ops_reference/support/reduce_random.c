// SPDX-License-Identifier: Apache-2.0
//
// The random ops' generator and value transforms (see reduce_random.h).
#include "ops_reference/support/reduce_random.h"

#include <math.h>

// 2 pi (M_PI is not part of C11).
static const double kTwoPi = 6.28318530717958647692528676655900577;

void etr_reduce_rng_init(etr_reduce_rng_t *rng,
                         const etr_kernel_context_t *ctx) {
  rng->local = ETR_REDUCE_RNG_DEFAULT_SEED;
  rng->state = ctx->rng_state != NULL ? ctx->rng_state : &rng->local;
}

uint64_t etr_reduce_rng_next(etr_reduce_rng_t *rng) {
  // SplitMix64: Weyl sequence step, then the variant-13 finalizer.
  uint64_t z = (*rng->state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

int etr_reduce_rng_uniform_bits(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_HALF:
    case ETR_COMPLEX_HALF:
      return 11;
    case ETR_BFLOAT16:
      return 8;
    case ETR_FLOAT:
    case ETR_COMPLEX_FLOAT:
      return 24;
    default:
      return 53;
  }
}

double etr_reduce_rng_uniform(etr_reduce_rng_t *rng, int bits) {
  if (bits < 1 || bits > 53) {
    bits = 53;
  }
  uint64_t top = etr_reduce_rng_next(rng) >> (64 - bits);
  return ldexp((double)top, -bits);
}

double etr_reduce_rng_normal(etr_reduce_rng_t *rng) {
  double u1 = etr_reduce_rng_uniform(rng, 53);
  double u2 = etr_reduce_rng_uniform(rng, 53);
  double radius = sqrt(-2.0 * log(1.0 - u1));
  return radius * cos(kTwoPi * u2);
}

uint64_t etr_reduce_rng_below(etr_reduce_rng_t *rng, uint64_t bound) {
  if (bound <= 1) {
    return 0;
  }
  // 2^64 mod bound, computed without 128-bit arithmetic.
  uint64_t threshold = (0 - bound) % bound;
  for (;;) {
    uint64_t draw = etr_reduce_rng_next(rng);
    if (draw >= threshold) {
      return draw % bound;
    }
  }
}
