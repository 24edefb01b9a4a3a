// SPDX-License-Identifier: Apache-2.0
//
// The random ops' generator and value transforms (see reduce_random.h).
#include "ops_reference/support/reduce_random.h"

#include <math.h>

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

bool etr_reduce_rng_polar(uint64_t first_draw, uint64_t second_draw,
                          double *first, double *second) {
  // (d >> 11) 2^-52 - 1: 2 x a 53-bit uniform - 1, exact, in [-1, 1)
  // (a product by a power of two, not an ldexp call per value).
  double u = (double)(first_draw >> 11) * 0x1p-52 - 1.0;
  double v = (double)(second_draw >> 11) * 0x1p-52 - 1.0;
  double q = u * u + v * v;
  if (q >= 1.0 || q == 0.0) {
    return false;
  }
  double factor = sqrt(-2.0 * log(q) / q);
  *first = u * factor;
  *second = v * factor;
  return true;
}

void etr_reduce_rng_normal_pair(etr_reduce_rng_t *rng, double *first,
                                double *second) {
  for (;;) {
    uint64_t first_draw = etr_reduce_rng_next(rng);
    uint64_t second_draw = etr_reduce_rng_next(rng);
    if (etr_reduce_rng_polar(first_draw, second_draw, first, second)) {
      return;
    }
  }
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
