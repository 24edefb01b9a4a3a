// SPDX-License-Identifier: Apache-2.0
//
// What the matmul and convolution kernels share on top of the GEMM driver:
// argument checking through the reference kernel's dry run, and the
// mapping of strided 2-D tensor views onto etr_gemm_problem_t.
#ifndef ETR_OPS_OPTIMIZED_GEMM_GEMM_OPS_H
#define ETR_OPS_OPTIMIZED_GEMM_GEMM_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/common/check.h"
#include "ops_optimized/gemm/gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

// Float, Half and BFloat16: the dtypes the GEMM computes (in fp32).
static inline bool etr_opt_gemm_dtype(etr_scalar_type_t dtype) {
  return dtype == ETR_FLOAT || dtype == ETR_HALF || dtype == ETR_BFLOAT16;
}

// True when the memory spanned by the two tensors may overlap (also when
// a stride is negative, which these kernels do not handle).
bool etr_opt_tensors_overlap(const etr_tensor_t *a, const etr_tensor_t *b);

// A 2-D view of a tensor: element (r, c) at data[r * row_stride + c *
// col_stride] (elements of dtype).
typedef struct etr_opt_matrix {
  void *data;
  etr_scalar_type_t dtype;
  int64_t rows;
  int64_t cols;
  int64_t row_stride;
  int64_t col_stride;
} etr_opt_matrix_t;

// Dims d0 (rows) and d1 (cols) of `tensor`, starting `offset` elements in.
etr_opt_matrix_t etr_opt_matrix_of(const etr_tensor_t *tensor,
                                   int64_t offset, int32_t d0, int32_t d1);

// Describes out = alpha * a @ b + beta * bias (bias NULL or already
// broadcast to out's shape) as a GEMM problem. False when the GEMM does not
// take the case: out's columns are not contiguous (with more than one
// column), or the bias has a column stride other than 0 or 1.
bool etr_opt_matmul_problem(const etr_opt_matrix_t *out,
                            const etr_opt_matrix_t *a,
                            const etr_opt_matrix_t *b,
                            const etr_opt_matrix_t *bias, double alpha,
                            double beta, etr_gemm_problem_t *problem);

// For mm and addmm calls whose dry run accepted them and whose `b` no
// call can change (fuse/fuse.h's etr_opt_prepack_method): `b` packed for
// the product out = a @ b as the call's etr_gemm would pack it, into
// memory from `arena`, for the kernel to set as its problem's b_packed
// (from ctx->state); NULL when the call would not pack B (or no room).
const etr_gemm_packed_b_t *etr_opt_matmul_prepack(const etr_tensor_t *a,
                                                  const etr_tensor_t *b,
                                                  const etr_tensor_t *out,
                                                  etr_arena_t *arena);

// Likewise for linear(input, weight, bias, out) calls whose weight no call
// can change: the weight packed as B = weight^T for the call's product
// (op_linear.c), or NULL.
const etr_gemm_packed_b_t *etr_opt_linear_prepack(const etr_tensor_t *input,
                                                  const etr_tensor_t *weight,
                                                  const etr_tensor_t *bias,
                                                  const etr_tensor_t *out,
                                                  etr_arena_t *arena);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_OPTIMIZED_GEMM_GEMM_OPS_H
