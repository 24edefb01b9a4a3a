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
// kernel (ops_reference/op_addmm.c). Dense row-major Float operands with
// an out already [m, n] skip the dry run and the bias view (addmm_dense).
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/common/memo.h"
#include "ops_optimized/gemm/gemm_ops.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// args[index] as a Double or Int Scalar's value; false otherwise.
static bool number_arg(etr_evalue_t **args, size_t index, double *value) {
  const etr_evalue_t *arg = args[index];
  if (arg != NULL && arg->tag == ETR_TAG_INT) {
    *value = (double)arg->u.as_int;
    return true;
  }
  if (arg != NULL && arg->tag == ETR_TAG_DOUBLE) {
    *value = arg->u.as_double;
    return true;
  }
  return false;
}

// The GEMM problem addmm_dense built, kept in ctx->memo on an
// instruction's fixed arguments: a vouched call (ctx->args_checked: the
// same tensors, shapes, data pointers and scalars) runs it again with no
// checks and no rebuilding.
typedef struct addmm_memo {
  uint32_t mark;  // ADDMM_MEMO_MARK once kept
  etr_gemm_problem_t problem;
} addmm_memo_t;

enum { ADDMM_MEMO_MARK = 0x61646d31 };  // "adm1"

_Static_assert(sizeof(addmm_memo_t) <= ETR_KERNEL_MEMO_BYTES,
               "addmm_memo_t must fit a kernel memo");

// The fast path: valid by construction when it returns true (common/
// dense.h): Float mat1 [m, k] and mat2 [k, n], a bias of rank <= 2 whose
// dims are 1 or out's, an out already [m, n], Int or Double beta and
// alpha, every tensor dense row-major and non-empty, out overlapping
// none. The same GEMM problem as the general path builds (the bias as a
// matrix with stride 0 along its broadcast dims), so the same result.
// False leaves the call, untouched, to the general path.
static bool addmm_dense(etr_kernel_context_t *ctx, etr_evalue_t **args,
                        size_t num_args) {
  addmm_memo_t *kept = etr_opt_vouched_memo(ctx, ADDMM_MEMO_MARK);
  if (kept != NULL) {
    // ctx->state: mat2 packed at load (etr_opt_prepack_method), or NULL.
    kept->problem.b_packed = (const etr_gemm_packed_b_t *)ctx->state;
    etr_gemm(&kept->problem, NULL, ctx->temp, etr_isa_active());
    return true;
  }
  if (num_args != 7) {
    return false;
  }
  const etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  const etr_tensor_t *mat1 = etr_dense_tensor_arg(args, 1);
  const etr_tensor_t *mat2 = etr_dense_tensor_arg(args, 2);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 5);
  double beta = 0.0;
  double alpha = 0.0;
  if (self == NULL || mat1 == NULL || mat2 == NULL || out == NULL ||
      self->dtype != ETR_FLOAT || mat1->dtype != ETR_FLOAT ||
      mat2->dtype != ETR_FLOAT || out->dtype != ETR_FLOAT ||
      mat1->dim != 2 || mat2->dim != 2 || out->dim != 2 || self->dim > 2 ||
      !number_arg(args, 3, &beta) || !number_arg(args, 4, &alpha)) {
    return false;
  }
  int64_t m = mat1->sizes[0];
  int64_t k = mat1->sizes[1];
  int64_t n = mat2->sizes[1];
  int64_t bias_rows = self->dim == 2 ? self->sizes[0] : 1;
  int64_t bias_cols = self->dim >= 1 ? self->sizes[self->dim - 1] : 1;
  int64_t numel[4] = {0, 0, 0, 0};
  if (mat2->sizes[0] != k || out->sizes[0] != m || out->sizes[1] != n ||
      (bias_rows != 1 && bias_rows != m) ||
      (bias_cols != 1 && bias_cols != n) ||
      !etr_dense_row_major(mat1, &numel[0]) ||
      !etr_dense_row_major(mat2, &numel[1]) ||
      !etr_dense_row_major(self, &numel[2]) ||
      !etr_dense_row_major(out, &numel[3])) {
    return false;
  }
  size_t out_bytes = (size_t)numel[3] * sizeof(float);
  if (!etr_dense_disjoint(out->data, out_bytes, mat1->data,
                          (size_t)numel[0] * sizeof(float)) ||
      !etr_dense_disjoint(out->data, out_bytes, mat2->data,
                          (size_t)numel[1] * sizeof(float)) ||
      !etr_dense_disjoint(out->data, out_bytes, self->data,
                          (size_t)numel[2] * sizeof(float))) {
    return false;
  }
  etr_opt_matrix_t c = {out->data, ETR_FLOAT, m, n, n, 1};
  etr_opt_matrix_t a = {mat1->data, ETR_FLOAT, m, k, k, 1};
  etr_opt_matrix_t b = {mat2->data, ETR_FLOAT, k, n, n, 1};
  etr_opt_matrix_t bias = {self->data, ETR_FLOAT, m, n,
                           bias_rows == 1 ? 0 : bias_cols,
                           bias_cols == 1 ? 0 : 1};
  etr_gemm_problem_t problem;
  if (!etr_opt_matmul_problem(&c, &a, &b, &bias, alpha, beta, &problem)) {
    return false;
  }
  if (!ctx->dry_run) {
    // ctx->state: mat2 packed at load (etr_opt_prepack_method), or NULL.
    problem.b_packed = (const etr_gemm_packed_b_t *)ctx->state;
    etr_gemm(&problem, NULL, ctx->temp, etr_isa_active());
    if (ctx->memo != NULL) {
      addmm_memo_t *memo = (addmm_memo_t *)ctx->memo;
      memo->mark = ADDMM_MEMO_MARK;
      memo->problem = problem;
    }
  }
  return true;
}

// aten::addmm.out
etr_error_t etr_opt_addmm_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  if (addmm_dense(ctx, args, num_args)) {
    return ETR_OK;
  }
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
  ETR_TRY(etr_opt_check(etr_ref_addmm_out, ctx, args, num_args));
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
  problem.b_packed = (const etr_gemm_packed_b_t *)ctx->state;
  etr_gemm(&problem, NULL, ctx->temp, etr_isa_active());
  return ETR_OK;
}
