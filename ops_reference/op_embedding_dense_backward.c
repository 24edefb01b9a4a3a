// SPDX-License-Identifier: Apache-2.0
//
// aten::embedding_dense_backward.out: the gradient of embedding with
// respect to its [num_weights, D] weight. grad_output, read in row-major
// order, is seen as [numel(indices), D] (D = its last size; only the
// element count must agree, as in ATen's view); row k of the result is
//
//   out[k] = sum over positions i with indices[i] == k of
//            grad_output[i] * scale(k),   0 for k == padding_idx,
//
// with scale(k) = 1 / count(k) (count(k) = how often k occurs) when
// scale_grad_by_freq, else 1. As in ATen's CPU kernel, the scale is an
// add_ alpha converted to the result dtype: integral results use
// int64(1.0 / count), i.e. 1 for a single occurrence and 0 otherwise, Bool
// results OR their terms; floating and complex sums are computed in double
// and rounded once (integers wrap). Indices outside [0, num_weights) are
// skipped, as PyTorch skips them (its frequency count writes out of
// bounds there; here they are not counted). padding_idx is compared as
// given (-1 or any other value matching no index disables it).
//
// Arguments: (grad_output, indices, num_weights, padding_idx,
// scale_grad_by_freq, out, return slot). InvalidArgument for indices that
// are not Int or Long, a 0-dim grad_output, a negative num_weights, or a
// grad_output without numel(indices) * D elements; out is
// [num_weights, D] of grad_output's dtype (InvalidArgument otherwise).
//
// Dtypes: every dtype but uint16/32/64 (PyTorch's add kernel set, Bool and
// complex included; NotSupported otherwise).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/shape.h"

typedef struct embedding_grad {
  const etr_tensor_t *grad;
  const etr_tensor_t *indices;
  int64_t count;  // numel(indices)
  int64_t width;  // D
  int64_t num_weights;
  int64_t padding_idx;
  bool scale_by_freq;
} embedding_grad_t;

static int64_t index_at(const embedding_grad_t *e, int64_t i) {
  return etr_load_int64(
      e->indices->dtype,
      etr_element_at(e->indices, etr_nn_offset_of(e->indices, i)));
}

static const void *grad_at(const embedding_grad_t *e, int64_t i, int64_t d) {
  return etr_element_at(e->grad, etr_nn_offset_of(e->grad, i * e->width + d));
}

// Row k of the result into out.
static void row(const embedding_grad_t *e, int64_t k, etr_tensor_t *out) {
  etr_scalar_type_t dtype = out->dtype;
  etr_dtype_kind_t kind = etr_dtype_kind(dtype);
  int64_t occurrences = 0;
  for (int64_t i = 0; i < e->count; ++i) {
    occurrences += index_at(e, i) == k;
  }
  bool skip = k == e->padding_idx || occurrences == 0;
  double scale = e->scale_by_freq && occurrences > 0
                     ? 1.0 / (double)occurrences
                     : 1.0;
  int64_t int_scale = etr_double_to_int64(scale);
  for (int64_t d = 0; d < e->width; ++d) {
    void *target =
        etr_element_at(out, k * out->strides[0] + d * out->strides[1]);
    etr_complex_t sum = {0.0, 0.0};
    uint64_t int_sum = 0;
    for (int64_t i = 0; !skip && i < e->count; ++i) {
      if (index_at(e, i) != k) {
        continue;
      }
      const void *g = grad_at(e, i, d);
      if (kind == ETR_KIND_COMPLEX) {
        etr_complex_t value = etr_load_complex(dtype, g);
        sum.real += value.real * scale;
        sum.imag += value.imag * scale;
      } else if (kind == ETR_KIND_FLOATING) {
        sum.real += etr_load_double(dtype, g) * scale;
      } else if (kind == ETR_KIND_BOOL) {
        int_sum |= (uint64_t)etr_load_bool(dtype, g);
      } else {
        int_sum += (uint64_t)etr_load_int64(dtype, g) * (uint64_t)int_scale;
      }
    }
    if (kind == ETR_KIND_COMPLEX) {
      etr_store_complex(dtype, target, sum);
    } else if (kind == ETR_KIND_FLOATING) {
      etr_store_double(dtype, target, sum.real);
    } else {
      etr_store_int64(dtype, target, (int64_t)int_sum);
    }
  }
}

// aten::embedding_dense_backward.out
etr_error_t etr_ref_embedding_dense_backward_out(etr_kernel_context_t *ctx,
                                                 etr_evalue_t **args,
                                                 size_t num_args) {
  etr_tensor_t *grad = NULL;
  etr_tensor_t *indices = NULL;
  etr_tensor_t *out = NULL;
  embedding_grad_t e = {0};
  ETR_TRY(etr_check_num_args(ctx, num_args, 7));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "grad_output", &grad));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "indices", &indices));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "num_weights",
                      &e.num_weights));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "padding_idx", &e.padding_idx));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "scale_grad_by_freq",
                       &e.scale_by_freq));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 5, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "grad_output", grad->dtype, ETR_DTYPES_ALL));
  ETR_CHECK(ctx->diag, indices->dtype == ETR_LONG || indices->dtype == ETR_INT,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: indices must be Long or Int, got %s", etr_op_name(ctx),
            etr_scalar_type_name(indices->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, grad->dtype));
  ETR_CHECK(ctx->diag, grad->dim >= 1, ETR_ERR_INVALID_ARGUMENT,
            "%s: grad_output must have at least one dim", etr_op_name(ctx));
  ETR_CHECK(ctx->diag, e.num_weights >= 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: num_weights must be non-negative, got %lld",
            etr_op_name(ctx), (long long)e.num_weights);
  e.grad = grad;
  e.indices = indices;
  e.count = etr_numel(indices);
  e.width = grad->sizes[grad->dim - 1];
  int64_t expected = 0;
  ETR_CHECK(ctx->diag,
            etr_checked_mul(e.count, e.width, &expected) &&
                expected == etr_numel(grad),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: grad_output must hold numel(indices) * %lld elements",
            etr_op_name(ctx), (long long)e.width);
  int64_t sizes[2] = {e.num_weights, e.width};
  ETR_TRY(etr_resize_out(ctx, out, 2, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  for (int64_t k = 0; e.width > 0 && k < e.num_weights; ++k) {
    row(&e, k, out);
  }
  return ETR_OK;
}
