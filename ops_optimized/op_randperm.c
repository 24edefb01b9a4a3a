// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::randperm.out into a contiguous Long out: the identity
// written as int64, then the reference's Fisher-Yates pass (slot i swaps
// with i + a uniform draw below n - i, by the reference's rejection rule)
// on typed elements, its draws taken in order from blocks the active
// ISA's SplitMix64 kernel computes in parallel lanes (random/random.h).
// The permutation and the generator's final state (one gamma per draw
// consumed, rejected ones included) are exactly the reference's. Other
// dtypes and layouts and argument errors go to the reference kernel
// (ops_reference/op_randperm.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/random/random.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/reduce_random.h"

enum { kBlock = 256 };

typedef struct draw_stream {
  const etr_random_kernels_t *kernels;
  uint64_t start;     // the state before the first draw
  uint64_t consumed;  // draws handed out
  uint64_t block[kBlock];
  size_t next;        // index into block
} draw_stream_t;

static uint64_t next_draw(draw_stream_t *s) {
  if (s->next == kBlock) {
    s->kernels->draws(s->start + s->consumed * ETR_RANDOM_GAMMA, kBlock,
                      s->block);
    s->next = 0;
  }
  ++s->consumed;
  return s->block[s->next++];
}

// etr_reduce_rng_below on the stream.
static uint64_t below(draw_stream_t *s, uint64_t bound) {
  if (bound <= 1) {
    return 0;
  }
  // The reference's rejection: a draw below 2^64 mod bound is drawn
  // again. That threshold is below bound, so a draw of at least bound
  // (all but about bound / 2^64 of them) passes without the division
  // that computes it: one 64-bit division an element instead of two
  // (the bench's randperm of 64 Ki, AMD Zen 5: 352-382 -> 204-208 us).
  for (;;) {
    uint64_t draw = next_draw(s);
    if (draw >= bound || draw >= (0 - bound) % bound) {
      return draw % bound;
    }
  }
}

// aten::randperm.out
etr_error_t etr_opt_randperm_out(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  if (num_args != 3 || out == NULL || out->dtype != ETR_LONG) {
    return etr_opt_fallback(etr_ref_randperm_out, ctx, args, num_args);
  }
  ETR_TRY(
      etr_opt_check(etr_ref_randperm_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  if (!etr_tensor_is_contiguous(out)) {
    return etr_opt_fallback(etr_ref_randperm_out, ctx, args, num_args);
  }
  int64_t n = out->sizes[0];
  int64_t *y = (int64_t *)out->data;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = i;
  }
  etr_reduce_rng_t rng;
  etr_reduce_rng_init(&rng, ctx);
  static _Thread_local draw_stream_t stream;
  stream.kernels = etr_random_kernels_for(etr_isa_active());
  stream.start = *rng.state;
  stream.consumed = 0;
  stream.next = kBlock;
  for (int64_t i = 0; i + 1 < n; ++i) {
    int64_t j = i + (int64_t)below(&stream, (uint64_t)(n - i));
    int64_t held = y[i];
    y[i] = y[j];
    y[j] = held;
  }
  *rng.state = stream.start + stream.consumed * ETR_RANDOM_GAMMA;
  return ETR_OK;
}
