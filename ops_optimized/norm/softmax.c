// SPDX-License-Identifier: Apache-2.0
//
// The softmax driver (see norm.h): a dense self and its out (same dim
// order, possibly the same tensor) seen as [outer, r, inner] with r the
// softmax dim; rows (inner == 1) run max / exp_sum / scale (or sub2 for
// log-softmax), columns run softmax_cols on each [r, inner] slab.
// Half/BFloat16 slabs are converted to fp32 in ctx->temp, computed in
// place there and rounded once into out.
#include <math.h>
#include <string.h>

#include "ops_optimized/common/stream.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/shape.h"

// One row of n floats, from x into y (y may be x). With `row` (n floats
// of scratch), softmax's exponentials go there and the scaled row to y
// with streaming stores: y is then written once, not read for ownership
// by exp_sum's stores and written again by scale's.
static void softmax_row(const etr_norm_kernels_t *k, size_t n,
                        const float *x, bool log, float *y, float *row) {
  float m = k->max(n, x);
  if (log) {
    float sum = k->exp_sum_only(n, x, m);
    k->sub2(n, x, m, (float)logf(sum), y);
    return;
  }
  if (row != NULL) {
    float sum = k->exp_sum(n, x, m, row);
    k->scale_stream(n, row, (float)(1.0 / (double)sum), y);
    return;
  }
  float sum = k->exp_sum(n, x, m, y);
  k->scale(n, y, (float)(1.0 / (double)sum));
}

enum { kPrefetchRow = 16384 };

// Slabs [first, first + count) of the [outer, r, inner] view. `temp`
// (may be NULL) lends the streaming rows their scratch.
static void softmax_slabs(const etr_norm_kernels_t *k,
                          const etr_reduce_plan_t *plan, const float *x,
                          bool log, float *y, size_t count,
                          etr_arena_t *temp) {
  size_t r = (size_t)plan->r;
  size_t inner = (size_t)plan->inner;
  size_t slab = r * inner;
  if (inner == 1 && r <= 16 && !log && k->softmax_short_rows != NULL) {
    k->softmax_short_rows(count, r, x, y);
    return;
  }
  // A row's first pass (max) only loads, so a row that comes from memory
  // stalls it while the ALUs idle; prefetching the next row while this
  // one computes overlaps the two. Rows up to kPrefetchRow bytes (longer
  // ones stream within the row), when self and out reach the streaming
  // stores' size (common/stream.h: half the last-level cache; in cache
  // the prefetches only take load slots: softmax-64x1024 and
  // softmax-attn-8x128x128 ran 5-7% slower with them). softmax-4096x1024
  // (16 MiB, Zen 5, paired bench_server rounds, medians of 11): 1.61 ->
  // 1.03 ms; prefetching the out's next row for writing as well gained
  // less (1.37 ms), the row after next into L2 nothing (1.78).
  bool prefetch = slab * sizeof(float) <= kPrefetchRow &&
                  etr_stream_out(count * slab, 1);
  // Those rows' outs go out with streaming stores (softmax_row) where the
  // ISA has them: softmax-4096x1024 0.96 -> 0.93 ms (both changes, in
  // another paired run: 1.52 -> 0.94 ms; exp_sum's polynomial is now half
  // the time).
  etr_arena_mark_t mark = {0};
  float *row = NULL;
  if (prefetch && inner == 1 && !log && k->scale_stream != NULL &&
      temp != NULL) {
    mark = etr_arena_mark(temp);
    row = etr_arena_alloc(temp, slab * sizeof(float), 64);
  }
  for (size_t o = 0; o < count; ++o) {
    if (inner == 1) {
      if (prefetch && o + 1 < count) {
        const char *next = (const char *)(x + (o + 1) * slab);
        for (size_t b = 0; b < slab * sizeof(float); b += 64) {
          __builtin_prefetch(next + b, 0, 3);
        }
      }
      softmax_row(k, r, x + o * slab, log, y + o * slab, row);
    } else {
      k->softmax_cols(r, inner, inner, x + o * slab, y + o * slab, log);
    }
  }
  if (row != NULL) {
    etr_stream_fence();
    etr_arena_rewind(temp, mark);
  }
}

bool etr_softmax_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, bool log, etr_tensor_t *out) {
  uint32_t mask = self->dim > 0 ? 1u << dim : 0u;
  etr_reduce_plan_t plan;
  if (!etr_reduce_plan_init(self, mask, true, NULL, 0, false, &plan) ||
      !etr_reduce_is_f32_like(self->dtype) || out->dtype != self->dtype ||
      !etr_tensor_is_dense(out) ||
      memcmp(out->dim_order, self->dim_order, (size_t)self->dim) != 0) {
    return false;
  }
  const etr_norm_kernels_t *k = etr_norm_kernels_for(etr_isa_active());
  size_t outer = (size_t)plan.outer;
  size_t slab = (size_t)plan.r * (size_t)plan.inner;
  if (self->dtype == ETR_FLOAT) {
    softmax_slabs(k, &plan, (const float *)self->data, log,
                  (float *)out->data, outer, ctx->temp);
    return true;
  }
  if (ctx->temp == NULL) {
    return false;
  }
  size_t block = outer;
  float *scratch =
      etr_arena_alloc(ctx->temp, outer * slab * sizeof(float), 64);
  if (scratch == NULL) {
    block = 1;
    scratch = etr_arena_alloc(ctx->temp, slab * sizeof(float), 64);
  }
  if (scratch == NULL) {
    return false;
  }
  size_t element = etr_scalar_type_size(self->dtype);
  for (size_t o = 0; o < outer; o += block) {
    size_t count = outer - o < block ? outer - o : block;
    etr_convert_to_f32(self->dtype, count * slab,
                       (const uint8_t *)self->data + o * slab * element,
                       scratch);
    softmax_slabs(k, &plan, scratch, log, scratch, count, NULL);
    etr_convert_from_f32(out->dtype, count * slab, scratch,
                         (uint8_t *)out->data + o * slab * element);
  }
  return true;
}
