// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::mm.out: Float, Half and BFloat16 matrices with any
// strides (packing reads them; Half/BFloat16 are converted to fp32 while
// packing and rounded once at the end) and an out whose rows are
// contiguous run the packed GEMM (ops_optimized/gemm/gemm.h). Arguments
// are checked by the reference kernel's dry run, so errors are its own;
// other dtypes, outs with strided columns and outs overlapping an input go
// to the reference kernel (ops_reference/op_mm.c).
#include "ops_optimized/common/args.h"
#include "ops_optimized/gemm/gemm_ops.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// aten::mm.out
etr_error_t etr_opt_mm_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *mat2 = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (num_args != 4 || self == NULL || mat2 == NULL || out == NULL ||
      !etr_opt_gemm_dtype(self->dtype) || mat2->dtype != self->dtype ||
      out->dtype != self->dtype || self->dim != 2 || mat2->dim != 2) {
    return etr_opt_fallback(etr_ref_mm_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_mm_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_opt_matrix_t c = etr_opt_matrix_of(out, 0, 0, 1);
  etr_opt_matrix_t a = etr_opt_matrix_of(self, 0, 0, 1);
  etr_opt_matrix_t b = etr_opt_matrix_of(mat2, 0, 0, 1);
  etr_gemm_problem_t problem;
  if (etr_opt_tensors_overlap(out, self) ||
      etr_opt_tensors_overlap(out, mat2) ||
      !etr_opt_matmul_problem(&c, &a, &b, NULL, 1.0, 0.0, &problem)) {
    return etr_opt_fallback(etr_ref_mm_out, ctx, args, num_args);
  }
  // ctx->state: mat2 packed at load (etr_opt_prepack_method), or NULL.
  problem.b_packed = (const etr_gemm_packed_b_t *)ctx->state;
  etr_gemm(&problem, NULL, ctx->temp, etr_isa_active());
  return ETR_OK;
}
