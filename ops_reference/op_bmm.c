// SPDX-License-Identifier: Apache-2.0
//
// aten::bmm.out: out[b] = self[b] @ mat2[b], self [B, n, k] and mat2
// [B, k, m] giving [B, n, m].
//
// Dtypes as aten::mm: every real dtype except Bool, and complex; self,
// mat2 and out share one dtype (InvalidArgument otherwise). Both inputs
// must be 3-D with equal batch sizes and matching inner sizes
// (InvalidArgument). Each batch is one etr_matmul over 2-D views.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/matmul.h"
#include "ops_reference/support/shape.h"

// The 2-D view of batch `index` of a 3-D tensor.
static void batch_view(const etr_tensor_t *tensor, int64_t index,
                       etr_tensor_t *view) {
  etr_make_view(tensor, index * tensor->strides[0], 2, tensor->sizes + 1,
                tensor->strides + 1, view);
}

// aten::bmm.out
etr_error_t etr_ref_bmm_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
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
  ETR_TRY(etr_check_rank(ctx, "self", self, 3));
  ETR_TRY(etr_check_rank(ctx, "mat2", mat2, 3));
  ETR_CHECK(ctx->diag,
            self->sizes[0] == mat2->sizes[0] &&
                self->sizes[2] == mat2->sizes[1],
            ETR_ERR_INVALID_ARGUMENT,
            "%s: batch1 [%lld, %lld, %lld] and batch2 [%lld, %lld, %lld] "
            "cannot be multiplied",
            etr_op_name(ctx), (long long)self->sizes[0],
            (long long)self->sizes[1], (long long)self->sizes[2],
            (long long)mat2->sizes[0], (long long)mat2->sizes[1],
            (long long)mat2->sizes[2]);
  int64_t sizes[3] = {self->sizes[0], self->sizes[1], mat2->sizes[2]};
  ETR_TRY(etr_resize_out(ctx, out, 3, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_scalar_t one = {ETR_SCALAR_INT, 1, 1.0};
  etr_scalar_t zero = {ETR_SCALAR_INT, 0, 0.0};
  for (int64_t b = 0; b < sizes[0]; ++b) {
    etr_tensor_t a_view;
    etr_tensor_t b_view;
    etr_tensor_t out_view;
    batch_view(self, b, &a_view);
    batch_view(mat2, b, &b_view);
    batch_view(out, b, &out_view);
    etr_matmul(&out_view, &a_view, &b_view, NULL, &one, &zero);
  }
  return ETR_OK;
}
