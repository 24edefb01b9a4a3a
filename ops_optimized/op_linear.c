// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::linear.out (out = input @ weight^T + bias): Float, Half
// and BFloat16 with a 2-D weight of any strides (the GEMM packs it
// transposed: no transposed copy is made), an input and out whose leading
// dims collapse into one row dim, and an optional bias of one value per
// out feature (or a single value), run the packed GEMM
// (ops_optimized/gemm/gemm.h) with the bias added in the microkernel's
// store; a constant weight is packed once at load (fuse/prepack.c,
// through etr_opt_linear_prepack), as mm's and addmm's are (256 x 1024
// rows by a 1024 x 1024 weight: the packing took 7% of each call).
// Arguments are checked by the reference kernel's dry run; a 1-D
// weight, other bias shapes, leading dims that do not collapse, and outs
// overlapping an input go to the reference kernel
// (ops_reference/op_linear.c).
#include "ops_optimized/common/args.h"
#include "ops_optimized/gemm/gemm_ops.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// The tensor's leading dims (all but the last) as one dim of `rows` rows
// `row_stride` apart; false when their strides do not allow it.
static bool collapse_rows(const etr_tensor_t *t, int64_t *rows,
                          int64_t *row_stride) {
  *rows = 1;
  *row_stride = 0;
  for (int32_t d = t->dim - 2; d >= 0; --d) {
    if (t->sizes[d] == 1) {
      continue;
    }
    if (*rows > 1 && t->strides[d] != *row_stride * *rows) {
      return false;
    }
    if (*rows == 1) {
      *row_stride = t->strides[d];
    }
    *rows *= t->sizes[d];
  }
  return true;
}

// The GEMM problem of an accepted (checked) call, as the call runs it and
// as etr_opt_linear_prepack packs it: false for the calls that go to the
// reference kernel (leading dims that do not collapse, overlaps).
static bool linear_problem(const etr_tensor_t *input,
                           const etr_tensor_t *weight,
                           const etr_tensor_t *bias, const etr_tensor_t *out,
                           etr_gemm_problem_t *problem) {
  int64_t rows = 0;
  int64_t in_stride = 0;
  int64_t out_rows = 0;
  int64_t out_stride = 0;
  bool collapsible = collapse_rows(input, &rows, &in_stride) &&
                     collapse_rows(out, &out_rows, &out_stride);
  int64_t features = weight->sizes[0];
  etr_opt_matrix_t c = {out->data, out->dtype, rows, features, out_stride,
                        out->strides[out->dim - 1]};
  etr_opt_matrix_t a = {input->data, input->dtype, rows,
                        input->sizes[input->dim - 1], in_stride,
                        input->strides[input->dim - 1]};
  // weight^T: element (k, n) is weight[n][k].
  etr_opt_matrix_t b = {weight->data, weight->dtype, weight->sizes[1],
                        features, weight->strides[1], weight->strides[0]};
  etr_opt_matrix_t bias_row = {0};
  if (bias != NULL) {
    int64_t stride = bias->dim == 1 && bias->sizes[0] > 1 ? bias->strides[0]
                                                          : 0;
    bias_row = (etr_opt_matrix_t){bias->data, bias->dtype, rows, features,
                                  0, stride};
  }
  return collapsible && !etr_opt_tensors_overlap(out, input) &&
         !etr_opt_tensors_overlap(out, weight) &&
         (bias == NULL || !etr_opt_tensors_overlap(out, bias)) &&
         etr_opt_matmul_problem(&c, &a, &b, bias != NULL ? &bias_row : NULL,
                                1.0, 1.0, problem);
}

// The argument checks the optimized path makes before the reference's dry
// run (the rest go to the reference kernel).
static bool takes(const etr_tensor_t *input, const etr_tensor_t *weight,
                  const etr_tensor_t *bias, const etr_tensor_t *out) {
  return input != NULL && weight != NULL && out != NULL &&
         etr_opt_gemm_dtype(input->dtype) && weight->dtype == input->dtype &&
         out->dtype == input->dtype && weight->dim == 2 && input->dim >= 1 &&
         (bias == NULL || (bias->dtype == input->dtype && bias->dim <= 1));
}

const etr_gemm_packed_b_t *etr_opt_linear_prepack(const etr_tensor_t *input,
                                                  const etr_tensor_t *weight,
                                                  const etr_tensor_t *bias,
                                                  const etr_tensor_t *out,
                                                  etr_arena_t *arena) {
  etr_gemm_problem_t problem;
  if (!takes(input, weight, bias, out) || weight->data == NULL ||
      !linear_problem(input, weight, bias, out, &problem)) {
    return NULL;
  }
  return etr_gemm_prepack_b(&problem, etr_isa_active(), arena);
}

// aten::linear.out
etr_error_t etr_opt_linear_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *weight = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *bias = etr_opt_tensor_arg(args, num_args, 2);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || !takes(input, weight, bias, out)) {
    return etr_opt_fallback(etr_ref_linear_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_linear_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_gemm_problem_t problem;
  if (!linear_problem(input, weight, bias, out, &problem)) {
    return etr_opt_fallback(etr_ref_linear_out, ctx, args, num_args);
  }
  // ctx->state: the weight packed at load (etr_opt_prepack_method), or
  // NULL.
  problem.b_packed = (const etr_gemm_packed_b_t *)ctx->state;
  etr_gemm(&problem, NULL, ctx->temp, etr_isa_active());
  return ETR_OK;
}
