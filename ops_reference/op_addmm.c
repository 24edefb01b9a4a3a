// SPDX-License-Identifier: Apache-2.0
//
// aten::addmm.out: out = beta * self + alpha * (mat1 @ mat2), with self
// broadcast to the [n, m] product (nn.Linear exports as addmm of the bias,
// the input and the transposed weight).
//
// Dtypes as aten::mm: every real dtype except Bool, and complex; self,
// mat1, mat2 and out share one dtype (InvalidArgument otherwise). alpha
// and beta are truncated to integers for integral dtypes (ATen converts
// them to the tensor dtype); with beta == 0 self is not read, so NaN in it
// does not propagate. mat1/mat2 must be matrices with matching inner sizes
// and self must broadcast to the product (InvalidArgument).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/matmul.h"
#include "ops_reference/support/shape.h"

// aten::addmm.out
etr_error_t etr_ref_addmm_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *mat1 = NULL;
  etr_tensor_t *mat2 = NULL;
  etr_scalar_t beta;
  etr_scalar_t alpha;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 7));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "mat1", &mat1));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "mat2", &mat2));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 3, "beta", &beta));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 4, "alpha", &alpha));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 5, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "mat1", mat1->dtype,
                          ETR_DTYPES_REAL | ETR_DTYPES_COMPLEX));
  ETR_TRY(etr_check_dtype_equal(ctx, "mat2", mat2->dtype, mat1->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "self", self->dtype, mat1->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, mat1->dtype));
  ETR_TRY(etr_check_rank(ctx, "mat1", mat1, 2));
  ETR_TRY(etr_check_rank(ctx, "mat2", mat2, 2));
  ETR_CHECK(ctx->diag, mat1->sizes[1] == mat2->sizes[0],
            ETR_ERR_INVALID_ARGUMENT,
            "%s: mat1 and mat2 shapes cannot be multiplied (%lldx%lld and "
            "%lldx%lld)",
            etr_op_name(ctx), (long long)mat1->sizes[0],
            (long long)mat1->sizes[1], (long long)mat2->sizes[0],
            (long long)mat2->sizes[1]);
  int64_t sizes[2] = {mat1->sizes[0], mat2->sizes[1]};
  etr_tensor_t bias;
  ETR_TRY(etr_broadcast_view(ctx, self, 2, sizes, &bias));
  ETR_TRY(etr_resize_out(ctx, out, 2, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_matmul(out, mat1, mat2, &bias, &alpha, &beta);
  return ETR_OK;
}
