// SPDX-License-Identifier: Apache-2.0
//
// Integer reductions (see reduce.h's etr_reduce_run_integer): sums, any
// and extrema of uint8 and int8..int64 inputs on the driver's [outer, r,
// inner] plan, a block of outputs at a time through the active ISA's
// int_block (integer_loops.h), whose results this stores to the outs (a
// sum wrapped to the out dtype). The scalar int_block is defined here.
#include <stdint.h>

#include "core/scalar_type.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/reduce/integer_loops.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/element.h"

void etr_reduce_int_block_scalar(etr_scalar_type_t dtype, etr_reduce_op_t op,
                                 const void *x, size_t count, size_t r,
                                 size_t inner, etr_int_results_t *b) {
  int_block(dtype, op, x, count, r, inner, b);
}

// Stores outputs [first, first + count) of a block (each at its flat
// position in the outs, as the plan lays them out).
static void store_block(const etr_reduce_request_t *q, size_t first,
                        size_t count, const etr_int_results_t *b) {
  for (size_t k = 0; k < count; ++k) {
    int64_t at = (int64_t)(first + k);
    if (q->op == ETR_REDUCE_SUM) {
      etr_store_int64(q->values->dtype, etr_element_at(q->values, at),
                      (int64_t)b->sums[k]);
      continue;
    }
    if (q->op == ETR_REDUCE_ANY) {
      ((uint8_t *)q->values->data)[at] = b->sums[k] != 0;
      continue;
    }
    if (q->values != NULL) {
      etr_store_int64(q->values->dtype, etr_element_at(q->values, at),
                      b->values[k]);
    }
    if (q->indices != NULL) {
      ((int64_t *)q->indices->data)[at] = b->indices[k];
    }
  }
}

bool etr_reduce_run_integer(const etr_reduce_request_t *q) {
  const etr_tensor_t *self = q->self;
  bool any = q->op == ETR_REDUCE_ANY;
  bool sum = q->op == ETR_REDUCE_SUM || any;
  bool extremum = q->op == ETR_REDUCE_MAX || q->op == ETR_REDUCE_MIN;
  if (!etr_int_dtype(self->dtype) || (!sum && !extremum) ||
      (q->op == ETR_REDUCE_SUM &&
       (q->values == NULL || !etr_int_dtype(q->values->dtype))) ||
      (any && (q->values == NULL || q->values->dtype != ETR_BOOL)) ||
      (extremum && q->values != NULL && q->values->dtype != self->dtype) ||
      (q->indices != NULL && q->indices->dtype != ETR_LONG)) {
    return false;
  }
  etr_tensor_t *outs[2] = {q->values, q->indices};
  etr_reduce_plan_t plan;
  if (!etr_reduce_plan_init(self, q->mask, q->keepdim, outs, 2, extremum,
                            &plan)) {
    return false;
  }
  size_t r = (size_t)plan.r;
  size_t inner = (size_t)plan.inner;
  size_t element = etr_scalar_type_size(self->dtype);
  const etr_reduce_kernels_t *k = etr_reduce_kernels_for(etr_isa_active());
  etr_int_results_t b;
  for (size_t o = 0; o < (size_t)plan.outer;) {
    const uint8_t *slab = (const uint8_t *)self->data + o * r * inner * element;
    if (inner == 1) {
      size_t rows = (size_t)plan.outer - o;
      rows = rows < ETR_REDUCE_INT_BLOCK ? rows : ETR_REDUCE_INT_BLOCK;
      k->int_block(self->dtype, q->op, slab, rows, r, 1, &b);
      store_block(q, o, rows, &b);
      o += rows;
      continue;
    }
    for (size_t i = 0; i < inner; i += ETR_REDUCE_INT_BLOCK) {
      size_t count = inner - i;
      count = count < ETR_REDUCE_INT_BLOCK ? count : ETR_REDUCE_INT_BLOCK;
      k->int_block(self->dtype, q->op, slab + i * element, count, r, inner,
                   &b);
      store_block(q, o * inner + i, count, &b);
    }
    ++o;
  }
  return true;
}
