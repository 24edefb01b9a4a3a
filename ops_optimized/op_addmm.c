// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::addmm.out (out = beta * self + alpha * mat1 @ mat2, how
// nn.Linear exports): Float, Half and BFloat16 matrices with any strides,
// an out whose rows are contiguous and a bias (self) broadcast as a row
// vector [n], a column [m, 1], a scalar or a full [m, n] matrix (any row
// stride, column stride 0 or 1) run the packed GEMM
// (ops_optimized/gemm/gemm.h) with alpha and beta * bias applied in the
// microkernel's store. beta == 0 leaves the bias unread (NaN in it does
// not propagate), as the reference. Arguments are checked by the
// reference kernel's dry run; other dtypes, other bias layouts and outs
// overlapping an input (in-place addmm included) go to the reference
// kernel (ops_reference/op_addmm.c).
#include "ops_optimized/common/args.h"
#include "ops_optimized/gemm/gemm_ops.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::addmm.out
etr_error_t etr_opt_addmm_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *mat1 = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *mat2 = etr_opt_tensor_arg(args, num_args, 2);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 5);
  if (num_args != 7 || self == NULL || mat1 == NULL || mat2 == NULL ||
      out == NULL || !etr_opt_gemm_dtype(mat1->dtype) ||
      mat2->dtype != mat1->dtype || self->dtype != mat1->dtype ||
      out->dtype != mat1->dtype || mat1->dim != 2 || mat2->dim != 2) {
    return etr_opt_fallback(etr_ref_addmm_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check_with_reference(etr_ref_addmm_out, ctx, args,
                                       num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_scalar_t beta;
  etr_scalar_t alpha;
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 3, "beta", &beta));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 4, "alpha", &alpha));
  etr_tensor_t bias_view;
  ETR_TRY(etr_broadcast_view(ctx, self, 2, out->sizes, &bias_view));
  etr_opt_matrix_t c = etr_opt_matrix_of(out, 0, 0, 1);
  etr_opt_matrix_t a = etr_opt_matrix_of(mat1, 0, 0, 1);
  etr_opt_matrix_t b = etr_opt_matrix_of(mat2, 0, 0, 1);
  etr_opt_matrix_t bias = etr_opt_matrix_of(&bias_view, 0, 0, 1);
  etr_gemm_problem_t problem;
  if (etr_opt_tensors_overlap(out, mat1) ||
      etr_opt_tensors_overlap(out, mat2) ||
      (beta.as_double != 0.0 && etr_opt_tensors_overlap(out, self)) ||
      !etr_opt_matmul_problem(&c, &a, &b, &bias, alpha.as_double,
                              beta.as_double, &problem)) {
    return etr_opt_fallback(etr_ref_addmm_out, ctx, args, num_args);
  }
  etr_gemm(&problem, NULL, ctx->temp, etr_isa_active());
  return ETR_OK;
}
