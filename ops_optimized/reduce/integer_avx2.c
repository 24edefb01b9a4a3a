// SPDX-License-Identifier: Apache-2.0
//
// The integer reductions' loops (integer_loops.h) compiled for AVX2.
#include "ops_optimized/reduce/integer_loops.h"
#include "ops_optimized/reduce/reduce.h"

void etr_reduce_int_block_avx2(etr_scalar_type_t dtype, etr_reduce_op_t op,
                               const void *x, size_t count, size_t r,
                               size_t inner, etr_int_results_t *b) {
  int_block(dtype, op, x, count, r, inner, b);
}
