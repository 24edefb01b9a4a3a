// SPDX-License-Identifier: Apache-2.0
//
// aten::cat.out: out = the tensors joined along `dim`.
//
// As PyTorch: 1-D tensors of size 0 are skipped (legacy behaviour); all
// other tensors must have the same rank and the same sizes except at
// `dim`, which is normalized against them (InvalidArgument otherwise, and
// for an empty list). The result dtype is torch.result_type over all the
// tensors (an int32 and an int8 tensor give int32) and the out dtype must
// be one it can be cast to (InvalidArgument). Every input is converted
// into the out dtype while copied, whatever its layout.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// PyTorch skips 1-D empty tensors whatever the other tensors' shapes.
static bool is_skipped(const etr_tensor_t *tensor) {
  return tensor->dim == 1 && tensor->sizes[0] == 0;
}

// aten::cat.out
etr_error_t etr_ref_cat_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_evalue_t *list = NULL;
  size_t count = 0;
  int64_t dim_arg = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor_list(ctx, args, num_args, 0, "tensors", &list,
                              &count));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_CHECK(ctx->diag, count > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a non-empty list of Tensors", etr_op_name(ctx));

  etr_result_type_t promotion;
  etr_result_type_init(&promotion);
  const etr_tensor_t *shape = NULL;  // first tensor that is not skipped
  for (size_t i = 0; i < count; ++i) {
    const etr_tensor_t *tensor = etr_tensor_list_get(list, i);
    ETR_TRY(etr_check_dtype(ctx, "tensors", tensor->dtype, ETR_DTYPES_NUMERIC));
    etr_result_type_add_tensor(&promotion, tensor);
    if (shape == NULL && !is_skipped(tensor)) {
      shape = tensor;
    }
  }
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_get(ctx, &promotion, &result));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  ETR_CHECK(ctx->diag, etr_can_cast(result, out->dtype),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: input types can't be cast to the desired output type %s",
            etr_op_name(ctx), etr_scalar_type_name(out->dtype));
  if (shape == NULL) {
    // Every input is a skipped empty 1-D tensor: the result is one too.
    int64_t empty = 0;
    return etr_resize_out(ctx, out, 1, &empty);
  }

  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, shape->dim, &dim));
  ETR_CHECK(ctx->diag, shape->dim > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: zero-dimensional tensor cannot be concatenated",
            etr_op_name(ctx));
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t d = 0; d < shape->dim; ++d) {
    sizes[d] = shape->sizes[d];
  }
  sizes[dim] = 0;
  for (size_t i = 0; i < count; ++i) {
    const etr_tensor_t *tensor = etr_tensor_list_get(list, i);
    if (is_skipped(tensor)) {
      continue;
    }
    ETR_CHECK(ctx->diag, tensor->dim == shape->dim, ETR_ERR_INVALID_ARGUMENT,
              "%s: tensors must have same number of dimensions: got %d and "
              "%d",
              etr_op_name(ctx), (int)shape->dim, (int)tensor->dim);
    for (int32_t d = 0; d < shape->dim; ++d) {
      ETR_CHECK(ctx->diag, d == dim || tensor->sizes[d] == shape->sizes[d],
                ETR_ERR_INVALID_ARGUMENT,
                "%s: sizes of tensors must match except in dimension %d; "
                "expected size %lld but got size %lld for tensor number %zu",
                etr_op_name(ctx), (int)dim, (long long)shape->sizes[d],
                (long long)tensor->sizes[d], i);
    }
    sizes[dim] += tensor->sizes[dim];
  }
  ETR_TRY(etr_resize_out(ctx, out, shape->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  int64_t start = 0;
  for (size_t i = 0; i < count; ++i) {
    const etr_tensor_t *tensor = etr_tensor_list_get(list, i);
    if (is_skipped(tensor)) {
      continue;
    }
    etr_tensor_t target;
    etr_slice_view(out, dim, start, tensor->sizes[dim], 1, &target);
    etr_copy_strided(&target, tensor);
    start += tensor->sizes[dim];
  }
  return ETR_OK;
}
