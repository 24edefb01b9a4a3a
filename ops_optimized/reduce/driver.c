// SPDX-License-Identifier: Apache-2.0
//
// The reduction driver (see reduce.h): plans a checked reduction as
// [outer, r, inner], converts Half/BFloat16 input slabs to fp32 in
// ctx->temp, runs the active ISA's row or column microkernels in blocks of
// at most kBlock outputs, and stores the results in the out dtypes with
// the reference's own conversions (etr_store_double rounds once).
#include <math.h>
#include <string.h>

#include "ops_optimized/binary/integer.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/check.h"
#include "ops_optimized/common/memo.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/reduce.h"
#include "ops_reference/support/shape.h"

enum { kBlock = 256 };  // outputs computed per microkernel call

bool etr_reduce_plan_init(const etr_tensor_t *self, uint32_t mask,
                          bool keepdim, etr_tensor_t *const *outs,
                          size_t num_outs, bool ordered,
                          etr_reduce_plan_t *plan) {
  if (!etr_tensor_is_dense(self) || etr_numel(self) == 0) {
    return false;
  }
  // Groups of same-kind dims in memory order (size-1 dims dropped).
  bool reduced_kind[3];
  int64_t product[3];
  int groups = 0;
  int last_reduced = -1;
  for (int32_t k = 0; k < self->dim; ++k) {
    int32_t d = self->dim_order[k];
    if (self->sizes[d] == 1) {
      continue;
    }
    bool reduced = (mask >> d) & 1u;
    if (reduced && ordered) {
      if (d < last_reduced) {
        return false;
      }
      last_reduced = d;
    }
    if (groups > 0 && reduced_kind[groups - 1] == reduced) {
      product[groups - 1] *= self->sizes[d];
    } else {
      if (groups == 3) {
        return false;
      }
      reduced_kind[groups] = reduced;
      product[groups++] = self->sizes[d];
    }
  }
  etr_reduce_plan_t p = {1, 1, 1};
  int g = 0;
  if (g < groups && !reduced_kind[g]) {
    p.outer = product[g++];
  }
  if (g < groups && reduced_kind[g]) {
    p.r = product[g++];
  }
  if (g < groups && !reduced_kind[g]) {
    p.inner = product[g++];
  }
  if (g != groups) {
    return false;  // K R K R ...: reduced dims not one run
  }
  // Each out must hold output (o, i) at o * inner + i: its kept dims,
  // taken in self's memory order, dense.
  for (size_t t = 0; t < num_outs; ++t) {
    if (outs[t] == NULL) {
      continue;
    }
    etr_tensor_t view;
    etr_reduction_out_view(self, mask, keepdim, outs[t], &view);
    int64_t expected = 1;
    for (int32_t k = self->dim - 1; k >= 0; --k) {
      int32_t d = self->dim_order[k];
      if (self->sizes[d] == 1 || ((mask >> d) & 1u)) {
        continue;
      }
      if (view.strides[d] != expected) {
        return false;
      }
      expected *= self->sizes[d];
    }
  }
  *plan = p;
  return true;
}

typedef double etr_reduce_v4d __attribute__((vector_size(32)));
typedef float etr_reduce_v4f __attribute__((vector_size(16)));

// Results of one block of outputs, then stored.
typedef struct block_results {
  double sums[kBlock];
  double means[kBlock];
  float values[kBlock];
  int64_t indices[kBlock];
  bool any[kBlock];
} block_results_t;

static void store_results(const etr_reduce_request_t *q,
                          const etr_reduce_plan_t *plan, size_t first,
                          size_t count, const block_results_t *b) {
  etr_tensor_t *values = q->values;
  double r = (double)plan->r;
  if ((q->op == ETR_REDUCE_SUM || q->op == ETR_REDUCE_MEAN) &&
      values->dtype == ETR_FLOAT) {
    // The common case, a Float sum or mean divided in double and rounded
    // once, four at a time in generic vectors: -O2 left the plain loop
    // scalar, about 18 ns of a 96 x 4x4 mean's 125.
    float *y = (float *)values->data + first;
    const double *sums = b->sums;
    double divisor = q->op == ETR_REDUCE_MEAN ? r : 1.0;
    // A power of two (4x4 and 8x8 planes): the product by its exact
    // reciprocal is the same correctly rounded quotient, without a
    // divide per output (a quarter of a 96 x 4x4 mean's time).
    const bool power = (plan->r & (plan->r - 1)) == 0;
    const double scale = 1.0 / divisor;
    size_t k = 0;
    for (; k + 4 <= count; k += 4) {
      etr_reduce_v4d s;
      memcpy(&s, sums + k, sizeof(s));
      const etr_reduce_v4f f = __builtin_convertvector(
          power ? s * scale : s / divisor, etr_reduce_v4f);
      memcpy(y + k, &f, sizeof(f));
    }
    for (; k < count; ++k) {
      y[k] = (float)(power ? sums[k] * scale : sums[k] / divisor);
    }
    return;
  }
  for (size_t k = 0; k < count; ++k) {
    size_t at = first + k;
    double result = 0.0;
    switch (q->op) {
      case ETR_REDUCE_SUM:
        result = b->sums[k];
        break;
      case ETR_REDUCE_MEAN:
        result = b->sums[k] / r;
        break;
      case ETR_REDUCE_VAR: {
        double divisor = r - q->correction > 0.0 ? r - q->correction : 0.0;
        result = b->sums[k] / divisor;
        break;
      }
      case ETR_REDUCE_MAX:
      case ETR_REDUCE_MIN:
        if (q->indices != NULL) {
          ((int64_t *)q->indices->data)[at] = b->indices[k];
        }
        if (values == NULL) {
          continue;
        }
        if (values->dtype == ETR_FLOAT) {
          ((float *)values->data)[at] = b->values[k];
          continue;
        }
        result = (double)b->values[k];  // exact: a Half/BFloat16 element
        break;
      case ETR_REDUCE_ANY:
        ((bool *)values->data)[at] = b->any[k];
        continue;
    }
    if (values->dtype == ETR_FLOAT) {
      ((float *)values->data)[at] = (float)result;
    } else {
      etr_store_double(values->dtype,
                       etr_element_at(values, (int64_t)at), result);
    }
  }
}

// Outputs [first, first + count) of a rows plan (inner == 1), from rows
// that start at x.
static void run_rows(const etr_reduce_kernels_t *k,
                     const etr_reduce_request_t *q,
                     const etr_reduce_plan_t *plan, const void *x,
                     size_t first, size_t count, block_results_t *b) {
  size_t n = (size_t)plan->r;
  const float *f = (const float *)x;
  switch (q->op) {
    case ETR_REDUCE_SUM:
    case ETR_REDUCE_MEAN:
      k->sum_rows(count, n, f, b->sums);
      break;
    case ETR_REDUCE_VAR:
      k->sum_rows(count, n, f, b->means);
      for (size_t i = 0; i < count; ++i) {
        b->means[i] /= (double)n;
      }
      k->sumsq_rows(count, n, f, b->means, b->sums);
      break;
    case ETR_REDUCE_MAX:
    case ETR_REDUCE_MIN:
      k->extremum_rows(count, n, f, q->op == ETR_REDUCE_MAX,
                       q->values != NULL ? b->values : NULL,
                       q->indices != NULL ? b->indices : NULL);
      break;
    case ETR_REDUCE_ANY:
      if (q->self->dtype == ETR_BOOL) {
        k->any_rows_u8(count, n, (const uint8_t *)x, b->any);
      } else {
        k->any_rows(count, n, f, b->any);
      }
      break;
  }
  store_results(q, plan, first, count, b);
}

// Outputs [first, first + count) of one outer slab of a columns plan:
// columns starting at x (rows `inner` elements apart).
static void run_cols(const etr_reduce_kernels_t *k,
                     const etr_reduce_request_t *q,
                     const etr_reduce_plan_t *plan, const void *x,
                     size_t first, size_t count, block_results_t *b) {
  size_t r = (size_t)plan->r;
  size_t stride = (size_t)plan->inner;
  const float *f = (const float *)x;
  switch (q->op) {
    case ETR_REDUCE_SUM:
    case ETR_REDUCE_MEAN:
      k->sum_cols(r, count, stride, f, b->sums);
      break;
    case ETR_REDUCE_VAR:
      k->sum_cols(r, count, stride, f, b->means);
      for (size_t i = 0; i < count; ++i) {
        b->means[i] /= (double)r;
      }
      k->sumsq_cols(r, count, stride, f, b->means, b->sums);
      break;
    case ETR_REDUCE_MAX:
    case ETR_REDUCE_MIN:
      k->extremum_cols(r, count, stride, f, q->op == ETR_REDUCE_MAX,
                       q->values != NULL ? b->values : NULL,
                       q->indices != NULL ? b->indices : NULL);
      break;
    case ETR_REDUCE_ANY:
      if (q->self->dtype == ETR_BOOL) {
        k->any_cols_u8(r, count, stride, (const uint8_t *)x, b->any);
      } else {
        k->any_cols(r, count, stride, f, b->any);
      }
      break;
  }
  store_results(q, plan, first, count, b);
}

// A floating-point reduction's plan, kept in ctx->memo by its first call:
// the vouched calls after it (the same tensors at the same addresses, the
// same dims) run it without the checks, argument reads and planning
// (mobilenet_v3's [1, 96, 4, 4] spatial means spent about 120 of their
// 280 ns there).
typedef struct reduce_memo {
  uint32_t mark;  // REDUCE_MEMO_MARK once kept
  etr_reduce_op_t op;
  double correction;
  etr_reduce_plan_t plan;
  bool values;   // the call had a values out
  bool indices;  // and an indices out
} reduce_memo_t;

enum { REDUCE_MEMO_MARK = 0x72656431 };  // "red1"

_Static_assert(sizeof(reduce_memo_t) <= ETR_KERNEL_MEMO_BYTES,
               "reduce_memo_t must fit a kernel memo");

// Computes a planned floating-point reduction; false, touching nothing,
// when there is no scratch for a Half/BFloat16 input.
static bool execute(etr_kernel_context_t *ctx, const etr_reduce_request_t *q,
                    etr_reduce_plan_t plan) {
  const etr_tensor_t *self = q->self;
  size_t slab = (size_t)plan.r * (size_t)plan.inner;
  size_t outer = (size_t)plan.outer;
  size_t block = outer;  // slabs per conversion block
  float *scratch = NULL;
  bool staged = self->dtype == ETR_HALF || self->dtype == ETR_BFLOAT16;
  if (staged) {
    if (ctx->temp == NULL) {
      return false;
    }
    // All slabs at once when they fit, else one at a time.
    scratch = etr_arena_alloc(ctx->temp, outer * slab * sizeof(float), 64);
    if (scratch == NULL) {
      block = 1;
      scratch = etr_arena_alloc(ctx->temp, slab * sizeof(float), 64);
    }
    if (scratch == NULL) {
      return false;
    }
  }
  const etr_reduce_kernels_t *k = etr_reduce_kernels_for(etr_isa_active());
  size_t element = etr_scalar_type_size(self->dtype);
  block_results_t results;
  for (size_t o0 = 0; o0 < outer; o0 += block) {
    size_t count = outer - o0 < block ? outer - o0 : block;
    const uint8_t *source = (const uint8_t *)self->data + o0 * slab * element;
    const void *x = source;
    if (staged) {
      etr_convert_to_f32(self->dtype, count * slab, source, scratch);
      x = scratch;
      element = sizeof(float);
    }
    for (size_t o = 0; o < count; o += (plan.inner == 1 ? kBlock : 1)) {
      if (plan.inner == 1) {
        size_t rows = count - o < kBlock ? count - o : kBlock;
        run_rows(k, q, &plan, (const uint8_t *)x + o * slab * element,
                 o0 + o, rows, &results);
        continue;
      }
      const uint8_t *base = (const uint8_t *)x + o * slab * element;
      for (size_t i = 0; i < (size_t)plan.inner; i += kBlock) {
        size_t columns = (size_t)plan.inner - i;
        columns = columns < kBlock ? columns : kBlock;
        run_cols(k, q, &plan, base + i * element,
                 (o0 + o) * (size_t)plan.inner + i, columns, &results);
      }
    }
    if (staged) {
      element = etr_scalar_type_size(self->dtype);
    }
  }
  return true;
}

bool etr_reduce_run(etr_kernel_context_t *ctx,
                    const etr_reduce_request_t *q) {
  const etr_tensor_t *self = q->self;
  if (etr_int_dtype(self->dtype)) {
    return etr_reduce_run_integer(q);
  }
  bool extremum = q->op == ETR_REDUCE_MAX || q->op == ETR_REDUCE_MIN;
  etr_tensor_t *outs[2] = {q->values, q->indices};
  etr_reduce_plan_t plan;
  if (!etr_reduce_plan_init(self, q->mask, q->keepdim, outs, 2, extremum,
                            &plan) ||
      (extremum && plan.r > INT32_MAX) || !execute(ctx, q, plan)) {
    return false;
  }
  if (ctx->memo != NULL) {
    *(reduce_memo_t *)ctx->memo = (reduce_memo_t){
        .mark = REDUCE_MEMO_MARK,
        .op = q->op,
        .correction = q->correction,
        .plan = plan,
        .values = q->values != NULL,
        .indices = q->indices != NULL,
    };
  }
  return true;
}

bool etr_reduce_memo_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                         etr_tensor_t *values, etr_tensor_t *indices) {
  const reduce_memo_t *kept = etr_opt_vouched_memo(ctx, REDUCE_MEMO_MARK);
  if (kept == NULL || self == NULL || kept->values != (values != NULL) ||
      kept->indices != (indices != NULL)) {
    return false;
  }
  const etr_reduce_request_t request = {.op = kept->op,
                                        .self = self,
                                        .values = values,
                                        .indices = indices,
                                        .correction = kept->correction};
  return execute(ctx, &request, kept->plan);
}

etr_error_t etr_reduce_extremum_call(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args,
                                     etr_reduce_op_t op,
                                     etr_reduce_form_t form,
                                     etr_kernel_fn reference,
                                     bool *handled) {
  *handled = false;
  const bool both = form == ETR_REDUCE_FORM_BOTH;
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *values = form != ETR_REDUCE_FORM_INDICES
                             ? etr_opt_tensor_arg(args, num_args, 3)
                             : NULL;
  etr_tensor_t *indices =
      form != ETR_REDUCE_FORM_VALUES
          ? etr_opt_tensor_arg(args, num_args, both ? 4 : 3)
          : NULL;
  if (etr_reduce_memo_run(ctx, self, values, indices)) {
    *handled = true;
    return ETR_OK;
  }
  if (num_args != (both ? 6u : 5u) || self == NULL ||
      !(etr_reduce_is_f32_like(self->dtype) ||
        etr_int_dtype(self->dtype)) ||
      (form != ETR_REDUCE_FORM_INDICES &&
       (values == NULL || values->dtype != self->dtype)) ||
      (form != ETR_REDUCE_FORM_VALUES &&
       (indices == NULL || indices->dtype != ETR_LONG))) {
    return ETR_OK;
  }
  *handled = true;
  ETR_TRY(etr_opt_check(reference, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const int64_t *dims = NULL;
  size_t num_dims = 1;
  int64_t dim = 0;
  bool has_dim = true;
  if (form == ETR_REDUCE_FORM_VALUES) {
    ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "dim", &dims,
                             &num_dims));
  } else if (form == ETR_REDUCE_FORM_INDICES) {
    ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 1, "dim", &has_dim,
                                 &dim));
    dims = &dim;
  } else {
    ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim));
    dims = &dim;
  }
  bool keepdim = false;
  uint32_t mask = 0;
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, has_dim, self->dim, &mask));
  etr_reduce_request_t request = {.op = op, .self = self, .mask = mask,
                                  .keepdim = keepdim, .values = values,
                                  .indices = indices};
  *handled = etr_reduce_run(ctx, &request);
  return ETR_OK;
}
