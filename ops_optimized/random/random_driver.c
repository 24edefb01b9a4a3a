// SPDX-License-Identifier: Apache-2.0
//
// Drivers of the optimized rand, randn and native_dropout kernels (see
// random.h): draws in blocks from the active ISA's kernel, turned into
// values with the reference's transforms (ops_reference/support/
// reduce_random.c) in row-major order; the state advances by one gamma
// per draw, as there.
#include <math.h>

#include "ops_optimized/random/random.h"
#include "ops_reference/support/reduce_random.h"
#include "ops_reference/support/shape.h"

enum { kBlock = 256 };

// Fills `draws` with the next `n` draws (n <= kBlock) and advances the
// state.
static void next_block(const etr_random_kernels_t *k, uint64_t *state,
                       size_t n, uint64_t *draws) {
  k->draws(*state, n, draws);
  *state += (uint64_t)n * ETR_RANDOM_GAMMA;
}

bool etr_random_uniform_run(etr_kernel_context_t *ctx, etr_tensor_t *out) {
  if ((out->dtype != ETR_FLOAT && out->dtype != ETR_DOUBLE) ||
      !etr_tensor_is_contiguous(out)) {
    return false;
  }
  etr_reduce_rng_t rng;
  etr_reduce_rng_init(&rng, ctx);
  const etr_random_kernels_t *k = etr_random_kernels_for(etr_isa_active());
  uint64_t draws[kBlock];
  size_t numel = (size_t)etr_numel(out);
  for (size_t first = 0; first < numel; first += kBlock) {
    size_t count = numel - first < kBlock ? numel - first : kBlock;
    next_block(k, rng.state, count, draws);
    if (out->dtype == ETR_FLOAT) {
      float *y = (float *)out->data + first;
      for (size_t i = 0; i < count; ++i) {
        y[i] = (float)(draws[i] >> 40) * 0x1p-24f;  // exact
      }
    } else {
      double *y = (double *)out->data + first;
      for (size_t i = 0; i < count; ++i) {
        y[i] = (double)(draws[i] >> 11) * 0x1p-53;  // exact
      }
    }
  }
  return true;
}

// randn with the ISA's polar kernels: a block of kBlock draws is
// kBlock / 2 attempts, whose accepted pairs (in order, as the reference
// takes them, one attempt after another until one is accepted) each give
// the next two elements; libm's log of each accepted q, as the
// reference's; the values stored in order. Returns the draws the
// reference would have consumed: through the attempt that gave the last
// element. AMD Zen 5, randn of 64 x 1024 floats (paired bench_server
// rounds, medians of 7): AVX-512 474 -> 168 us, now mostly libm's log;
// AVX2 476 -> 330.
static uint64_t normal_blocks(const etr_random_kernels_t *k, uint64_t start,
                              etr_tensor_t *out) {
  enum { kPairs = kBlock / 2 };
  uint64_t draws[kBlock];
  double u[kPairs], v[kPairs], q[kPairs], lq[kPairs];
  double first[kPairs], second[kPairs];
  uint32_t at[kPairs];
  const size_t numel = (size_t)etr_numel(out);
  uint64_t used = 0;
  size_t i = 0;
  while (i < numel) {
    k->draws(start + used * ETR_RANDOM_GAMMA, kBlock, draws);
    size_t accepted = k->polar_accept(draws, kPairs, u, v, q, at);
    // Only as many as the elements still to fill need.
    size_t needed = (numel - i + 1) / 2;
    size_t count = accepted < needed ? accepted : needed;
    for (size_t j = 0; j < count; ++j) {
      lq[j] = log(q[j]);
    }
    k->polar_finish(count, u, v, q, lq, first, second);
    for (size_t j = 0; j < count; ++j, i += 2) {
      if (out->dtype == ETR_FLOAT) {
        float *y = (float *)out->data;
        y[i] = (float)first[j];
        if (i + 1 < numel) {
          y[i + 1] = (float)second[j];
        }
      } else {
        double *y = (double *)out->data;
        y[i] = first[j];
        if (i + 1 < numel) {
          y[i + 1] = second[j];
        }
      }
    }
    if (i >= numel && count > 0) {
      return used + 2 * ((uint64_t)at[count - 1] + 1);
    }
    used += kBlock;
  }
  return used;
}

bool etr_random_normal_run(etr_kernel_context_t *ctx, etr_tensor_t *out) {
  if ((out->dtype != ETR_FLOAT && out->dtype != ETR_DOUBLE) ||
      !etr_tensor_is_contiguous(out)) {
    return false;
  }
  etr_reduce_rng_t rng;
  etr_reduce_rng_init(&rng, ctx);
  const etr_random_kernels_t *k = etr_random_kernels_for(etr_isa_active());
  // The polar method takes a variable number of draws: they come a block
  // at a time from the counter-based stream (draw c of the call is
  // mix(start + (c + 1) gamma)), and the state ends after the last one
  // used, as the reference's.
  uint64_t start = *rng.state;
  if (k->polar_accept != NULL && k->polar_finish != NULL) {
    *rng.state = start + normal_blocks(k, start, out) * ETR_RANDOM_GAMMA;
    return true;
  }
  uint64_t used = 0;  // draws consumed
  uint64_t draws[kBlock];
  size_t ready = 0;  // draws[ready..kBlock) not consumed yet
  size_t filled = 0;
  size_t numel = (size_t)etr_numel(out);
  for (size_t i = 0; i < numel; i += 2) {
    double first = 0.0;
    double second = 0.0;
    for (;;) {
      if (filled - ready < 2) {
        k->draws(start + used * ETR_RANDOM_GAMMA, kBlock, draws);
        ready = 0;
        filled = kBlock;
      }
      uint64_t first_draw = draws[ready];
      uint64_t second_draw = draws[ready + 1];
      ready += 2;
      used += 2;
      if (etr_reduce_rng_polar(first_draw, second_draw, &first, &second)) {
        break;
      }
    }
    if (out->dtype == ETR_FLOAT) {
      float *y = (float *)out->data;
      y[i] = (float)first;
      if (i + 1 < numel) {
        y[i + 1] = (float)second;
      }
    } else {
      double *y = (double *)out->data;
      y[i] = first;
      if (i + 1 < numel) {
        y[i + 1] = second;
      }
    }
  }
  *rng.state = start + used * ETR_RANDOM_GAMMA;
  return true;
}

bool etr_random_dropout_run(etr_kernel_context_t *ctx,
                            const etr_tensor_t *input, double p,
                            etr_tensor_t *out, etr_tensor_t *mask) {
  if (input->dtype != ETR_FLOAT || out->dtype != ETR_FLOAT ||
      mask->dtype != ETR_BOOL || !etr_tensor_is_contiguous(input) ||
      !etr_tensor_is_contiguous(out) || !etr_tensor_is_contiguous(mask)) {
    return false;
  }
  etr_reduce_rng_t rng;
  etr_reduce_rng_init(&rng, ctx);
  const etr_random_kernels_t *k = etr_random_kernels_for(etr_isa_active());
  double keep_probability = 1.0 - p;
  double scale = keep_probability == 0.0 ? 0.0 : 1.0 / keep_probability;
  const uint64_t threshold = etr_random_keep_threshold(keep_probability);
  uint64_t draws[kBlock];
  size_t numel = (size_t)etr_numel(input);
  const float *x = (const float *)input->data;
  float *y = (float *)out->data;
  uint8_t *m = (uint8_t *)mask->data;
  for (size_t first = 0; first < numel; first += kBlock) {
    size_t count = numel - first < kBlock ? numel - first : kBlock;
    next_block(k, rng.state, count, draws);
    if (k->dropout != NULL) {
      k->dropout(draws, count, threshold, scale, x + first, y + first,
                 m + first);
      continue;
    }
    for (size_t i = 0; i < count; ++i) {
      double u = (double)(draws[i] >> 11) * 0x1p-53;
      bool keep = u < keep_probability;
      double kept = keep ? 1.0 : 0.0;
      y[first + i] = (float)((double)x[first + i] * kept * scale);
      m[first + i] = keep ? 1 : 0;
    }
  }
  return true;
}
