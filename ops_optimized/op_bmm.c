// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::bmm.out: Float, Half and BFloat16 batches of matrices
// with any strides and an out whose rows are contiguous run the packed GEMM
// once per batch (ops_optimized/gemm/gemm.h), with one scratch for all of
// them; contiguous Float batches of products at most 16 columns wide
// (k <= 128, m <= 256) take the small-product kernel on AVX-512 instead
// (gemm_small_avx512.c: the transformer's [4, 16, 16] attention products
// 400 -> 193 ns, bench_server, builds alternated, 7 rounds). Arguments
// are checked by the reference kernel's dry run; other dtypes, outs with
// strided columns and outs overlapping an input go to the reference
// kernel (ops_reference/op_bmm.c).
#include "ops_optimized/common/args.h"
#include "ops_optimized/gemm/gemm_ops.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// aten::bmm.out
etr_error_t etr_opt_bmm_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *mat2 = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (num_args != 4 || self == NULL || mat2 == NULL || out == NULL ||
      !etr_opt_gemm_dtype(self->dtype) || mat2->dtype != self->dtype ||
      out->dtype != self->dtype || self->dim != 3 || mat2->dim != 3) {
    return etr_opt_fallback(etr_ref_bmm_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_bmm_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
#if defined(__x86_64__)
  // Small Float products with rows of C one vector: no driver
  // (gemm_small_avx512.c).
  const int64_t m = out->sizes[1];
  const int64_t n = out->sizes[2];
  const int64_t k = self->sizes[2];
  if (self->dtype == ETR_FLOAT && etr_isa_active() == ETR_ISA_AVX512 &&
      n >= 1 && n <= 16 && k <= 128 && m <= 256 && out->sizes[0] > 0 &&
      etr_tensor_is_contiguous(self) && etr_tensor_is_contiguous(mat2) &&
      etr_tensor_is_contiguous(out) && !etr_opt_tensors_overlap(out, self) &&
      !etr_opt_tensors_overlap(out, mat2)) {
    etr_gemm_small_f32_avx512((size_t)out->sizes[0], (size_t)m, (size_t)n,
                              (size_t)k, (const float *)self->data,
                              (const float *)mat2->data, (float *)out->data);
    return ETR_OK;
  }
#endif
  etr_opt_matrix_t c = etr_opt_matrix_of(out, 0, 1, 2);
  etr_opt_matrix_t a = etr_opt_matrix_of(self, 0, 1, 2);
  etr_opt_matrix_t b = etr_opt_matrix_of(mat2, 0, 1, 2);
  etr_gemm_problem_t problem;
  if (etr_opt_tensors_overlap(out, self) ||
      etr_opt_tensors_overlap(out, mat2) ||
      !etr_opt_matmul_problem(&c, &a, &b, NULL, 1.0, 0.0, &problem)) {
    return etr_opt_fallback(etr_ref_bmm_out, ctx, args, num_args);
  }
  etr_gemm_batch_t batch = {
      .count = {(size_t)out->sizes[0], 1},
      .a = {(ptrdiff_t)self->strides[0], 0},
      .b = {(ptrdiff_t)mat2->strides[0], 0},
      .c = {(ptrdiff_t)out->strides[0], 0},
  };
  etr_gemm(&problem, &batch, ctx->temp, etr_isa_active());
  return ETR_OK;
}
