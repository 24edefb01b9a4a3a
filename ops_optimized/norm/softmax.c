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

#include "ops_optimized/norm/norm.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/shape.h"

// One row of n floats, from x into y (y may be x).
static void softmax_row(const etr_norm_kernels_t *k, size_t n,
                        const float *x, bool log, float *y) {
  float m = k->max(n, x);
  if (log) {
    float sum = k->exp_sum_only(n, x, m);
    k->sub2(n, x, m, (float)logf(sum), y);
    return;
  }
  float sum = k->exp_sum(n, x, m, y);
  k->scale(n, y, (float)(1.0 / (double)sum));
}

// Slabs [first, first + count) of the [outer, r, inner] view.
static void softmax_slabs(const etr_norm_kernels_t *k,
                          const etr_reduce_plan_t *plan, const float *x,
                          bool log, float *y, size_t count) {
  size_t r = (size_t)plan->r;
  size_t inner = (size_t)plan->inner;
  size_t slab = r * inner;
  if (inner == 1 && r <= 16 && !log && k->softmax_short_rows != NULL) {
    k->softmax_short_rows(count, r, x, y);
    return;
  }
  for (size_t o = 0; o < count; ++o) {
    if (inner == 1) {
      softmax_row(k, r, x + o * slab, log, y + o * slab);
    } else {
      k->softmax_cols(r, inner, inner, x + o * slab, y + o * slab, log);
    }
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
                  (float *)out->data, outer);
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
    softmax_slabs(k, &plan, scratch, log, scratch, count);
    etr_convert_from_f32(out->dtype, count * slab, scratch,
                         (uint8_t *)out->data + o * slab * element);
  }
  return true;
}
