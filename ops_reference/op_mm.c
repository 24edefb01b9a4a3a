// SPDX-License-Identifier: Apache-2.0
//
// aten::mm.out: out = self @ mat2, self [n, k] and mat2 [k, m] giving
// [n, m].
//
// Dtypes: every real dtype except Bool, and complex (PyTorch's CPU mm);
// self, mat2 and out must share one dtype (InvalidArgument: "expected m1
// and m2 to have the same dtype"). Both inputs must be matrices with
// matching inner sizes (InvalidArgument). An inner size of 0 gives zeros.
// The product is support/matmul.h's, which reads any strides.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/matmul.h"
#include "ops_reference/support/shape.h"

// aten::mm.out
etr_error_t etr_ref_mm_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *mat2 = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "mat2", &mat2));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          ETR_DTYPES_REAL | ETR_DTYPES_COMPLEX));
  ETR_TRY(etr_check_dtype_equal(ctx, "mat2", mat2->dtype, self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_rank(ctx, "self", self, 2));
  ETR_TRY(etr_check_rank(ctx, "mat2", mat2, 2));
  ETR_CHECK(ctx->diag, self->sizes[1] == mat2->sizes[0],
            ETR_ERR_INVALID_ARGUMENT,
            "%s: mat1 and mat2 shapes cannot be multiplied (%lldx%lld and "
            "%lldx%lld)",
            etr_op_name(ctx), (long long)self->sizes[0],
            (long long)self->sizes[1], (long long)mat2->sizes[0],
            (long long)mat2->sizes[1]);
  int64_t sizes[2] = {self->sizes[0], mat2->sizes[1]};
  ETR_TRY(etr_resize_out(ctx, out, 2, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_scalar_t one = {ETR_SCALAR_INT, 1, 1.0};
  etr_scalar_t zero = {ETR_SCALAR_INT, 0, 0.0};
  etr_matmul(out, self, mat2, NULL, &one, &zero);
  return ETR_OK;
}
