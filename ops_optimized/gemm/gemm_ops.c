// SPDX-License-Identifier: Apache-2.0
//
// Shared pieces of the matmul and convolution kernels (see gemm_ops.h).
#include "ops_optimized/gemm/gemm_ops.h"

// First and one-past-last byte the tensor's elements occupy; false for a
// negative stride.
static bool byte_span(const etr_tensor_t *t, uintptr_t *first,
                      uintptr_t *end) {
  int64_t last = 0;
  for (int32_t d = 0; d < t->dim; ++d) {
    if (t->sizes[d] == 0) {
      *first = *end = (uintptr_t)t->data;
      return true;
    }
    if (t->strides[d] < 0) {
      return false;
    }
    last += (t->sizes[d] - 1) * t->strides[d];
  }
  size_t element = etr_scalar_type_size(t->dtype);
  *first = (uintptr_t)t->data;
  *end = *first + (uintptr_t)(last + 1) * element;
  return true;
}

bool etr_opt_tensors_overlap(const etr_tensor_t *a, const etr_tensor_t *b) {
  uintptr_t a0 = 0;
  uintptr_t a1 = 0;
  uintptr_t b0 = 0;
  uintptr_t b1 = 0;
  if (!byte_span(a, &a0, &a1) || !byte_span(b, &b0, &b1)) {
    return true;
  }
  return a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1;
}

etr_opt_matrix_t etr_opt_matrix_of(const etr_tensor_t *tensor,
                                   int64_t offset, int32_t d0, int32_t d1) {
  size_t element = etr_scalar_type_size(tensor->dtype);
  etr_opt_matrix_t m = {
      (uint8_t *)tensor->data + offset * (int64_t)element,
      tensor->dtype,
      tensor->sizes[d0],
      tensor->sizes[d1],
      tensor->strides[d0],
      tensor->strides[d1],
  };
  return m;
}

bool etr_opt_matmul_problem(const etr_opt_matrix_t *out,
                            const etr_opt_matrix_t *a,
                            const etr_opt_matrix_t *b,
                            const etr_opt_matrix_t *bias, double alpha,
                            double beta, etr_gemm_problem_t *problem) {
  if (out->cols > 1 && out->col_stride != 1) {
    return false;
  }
  const bool biased = bias != NULL && beta != 0.0;
  const int64_t column_stride =
      biased && out->cols > 1 ? bias->col_stride : 0;
  if (column_stride != 0 && column_stride != 1) {
    return false;
  }
  // Field by field: a compound literal zeroed a stack copy with rep stos
  // and copied it in 16-byte loads that waited for those stores (perf:
  // 7% of the lstm model's execution, whose GEMMs are a few hundred
  // flops). Every field is set.
  problem->m = (size_t)out->rows;
  problem->n = (size_t)out->cols;
  problem->k = (size_t)a->cols;
  // A is seen transposed: K along its columns, M along its rows.
  problem->a = etr_gemm_matrix(a->data, a->dtype, (ptrdiff_t)a->col_stride,
                               (ptrdiff_t)a->row_stride);
  problem->b = etr_gemm_matrix(b->data, b->dtype, (ptrdiff_t)b->row_stride,
                               (ptrdiff_t)b->col_stride);
  // A single column reads as contiguous whatever its stride.
  if (problem->n == 1) {
    problem->b.x_stride = 1;
  }
  problem->c = out->data;
  problem->c_dtype = out->dtype;
  problem->c_row_stride = (ptrdiff_t)out->row_stride;
  problem->alpha = (float)alpha;
  problem->beta = (float)beta;
  problem->bias = biased ? bias->data : NULL;
  problem->bias_row_stride =
      biased && out->rows > 1 ? (ptrdiff_t)bias->row_stride : 0;
  problem->bias_col_stride = (ptrdiff_t)column_stride;
  problem->post = NULL;
  problem->post_row0 = 0;
  problem->b_packed = NULL;
  problem->a_packed = NULL;
  return true;
}

const etr_gemm_packed_b_t *etr_opt_matmul_prepack(const etr_tensor_t *a,
                                                  const etr_tensor_t *b,
                                                  const etr_tensor_t *out,
                                                  etr_arena_t *arena) {
  if (a->dim != 2 || b->dim != 2 || out->dim != 2 || b->data == NULL ||
      !etr_opt_gemm_dtype(b->dtype)) {
    return NULL;
  }
  etr_opt_matrix_t c = etr_opt_matrix_of(out, 0, 0, 1);
  etr_opt_matrix_t am = etr_opt_matrix_of(a, 0, 0, 1);
  etr_opt_matrix_t bm = etr_opt_matrix_of(b, 0, 0, 1);
  etr_gemm_problem_t problem;
  if (!etr_opt_matmul_problem(&c, &am, &bm, NULL, 1.0, 0.0, &problem)) {
    return NULL;
  }
  return etr_gemm_prepack_b(&problem, etr_isa_active(), arena);
}
