// SPDX-License-Identifier: Apache-2.0
//
// aten::col2im.out (torch.nn.functional.fold): sums sliding blocks back
// into an image. self is [N, C * kh * kw, L] or [C * kh * kw, L], column
// l = bh * nbw + bw holding block (bh, bw) of a grid of nbh x nbw blocks
// (nb = floor((out + 2 pad - dil (k - 1) - 1) / stride) + 1 per dim); tap
// (i, j) of block (bh, bw) lands on image position
// (bh * stride_h - pad_h + i * dil_h, bw * stride_w - pad_w + j * dil_w),
// positions in the padding are dropped and overlapping taps add up:
//
//   out[n, c, y, x] = sum over taps (i, j) and blocks linked to (y, x) of
//                     self[n, (c * kh + i) * kw + j, bh * nbw + bw]
//
// gathered per output element (no scratch), in double (complex: double
// pairs; Bool: OR, as adding bools does) and rounded once.
//
// Arguments: (self, output_size, kernel_size, dilation, padding, stride,
// out, return slot); every list holds exactly two ints. InvalidArgument
// for non-positive kernel, dilation, stride or output size, negative
// padding, a self that is not 2-D/3-D with non-zero dims (the batch may be
// 0), a channel dim not divisible by kh * kw, a block grid that is empty
// or whose nbh * nbw differs from L.
//
// Dtypes: Bool, Half, BFloat16, Float, Double, ComplexFloat,
// ComplexDouble (PyTorch's CPU set; NotSupported otherwise); out has
// self's dtype (InvalidArgument).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/shape.h"

typedef struct fold {
  int64_t output[2];
  int64_t kernel[2];
  int64_t dilation[2];
  int64_t padding[2];
  int64_t stride[2];
  int64_t blocks[2];  // nbh, nbw
} fold_t;

static etr_error_t check_args(etr_kernel_context_t *ctx,
                              const etr_tensor_t *self, fold_t *f) {
  for (int s = 0; s < 2; ++s) {
    ETR_CHECK(ctx->diag, f->kernel[s] > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: kernel size should be greater than zero", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, f->dilation[s] > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: dilation should be greater than zero", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, f->padding[s] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: padding should be non-negative", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, f->stride[s] > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: stride should be greater than zero", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, f->output[s] > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: expected output spatial size to be positive",
              etr_op_name(ctx));
  }
  bool ok = self->dim == 2 || self->dim == 3;
  for (int32_t d = self->dim == 3 ? 1 : 0; ok && d < self->dim; ++d) {
    ok = self->sizes[d] > 0;
  }
  ETR_CHECK(ctx->diag, ok, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a 2D or 3D (batch mode) input with non-zero "
            "dims, got rank %d",
            etr_op_name(ctx), (int)self->dim);
  int64_t taps = 0;
  ETR_CHECK(ctx->diag,
            etr_checked_mul(f->kernel[0], f->kernel[1], &taps) &&
                self->sizes[self->dim - 2] % taps == 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected the channel dim to be divisible by the product of "
            "kernel_size",
            etr_op_name(ctx));
  for (int s = 0; s < 2; ++s) {
    // out + 2 pad - dil (k - 1) - 1, overflow-checked
    int64_t span = 0;
    int64_t numerator = 0;
    bool fits = etr_checked_mul(f->dilation[s], f->kernel[s] - 1, &span) &&
                etr_checked_add(f->output[s], f->padding[s], &numerator) &&
                etr_checked_add(numerator, f->padding[s], &numerator) &&
                etr_checked_add(numerator, -span - 1, &numerator);
    ETR_CHECK(ctx->diag, fits, ETR_ERR_INVALID_ARGUMENT,
              "%s: col2im parameters overflow int64", etr_op_name(ctx));
    f->blocks[s] = etr_nn_floor_div(numerator, f->stride[s]) + 1;
    ETR_CHECK(ctx->diag, f->blocks[s] >= 1, ETR_ERR_INVALID_ARGUMENT,
              "%s: the array of sliding blocks is empty", etr_op_name(ctx));
  }
  int64_t count = 0;
  ETR_CHECK(ctx->diag,
            etr_checked_mul(f->blocks[0], f->blocks[1], &count) &&
                count == self->sizes[self->dim - 1],
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected %lld * %lld sliding blocks, got %lld",
            etr_op_name(ctx), (long long)f->blocks[0],
            (long long)f->blocks[1], (long long)self->sizes[self->dim - 1]);
  return ETR_OK;
}

// The block index along dim s whose tap `k` lands on image position `y`,
// or -1.
static int64_t block_of(const fold_t *f, int s, int64_t y, int64_t k) {
  int64_t t = y + f->padding[s] - k * f->dilation[s];
  if (t < 0 || t % f->stride[s] != 0 || t / f->stride[s] >= f->blocks[s]) {
    return -1;
  }
  return t / f->stride[s];
}

static void fold_one(const etr_tensor_t *in, const fold_t *f,
                     const int64_t *index, etr_tensor_t *out,
                     int64_t out_offset) {
  etr_scalar_type_t dtype = in->dtype;
  etr_dtype_kind_t kind = etr_dtype_kind(dtype);
  etr_complex_t sum = {0.0, 0.0};
  bool any = false;
  for (int64_t i = 0; i < f->kernel[0]; ++i) {
    int64_t bh = block_of(f, 0, index[2], i);
    for (int64_t j = 0; bh >= 0 && j < f->kernel[1]; ++j) {
      int64_t bw = block_of(f, 1, index[3], j);
      if (bw < 0) {
        continue;
      }
      int64_t row = (index[1] * f->kernel[0] + i) * f->kernel[1] + j;
      const void *element = etr_element_at(
          in, index[0] * in->strides[0] + row * in->strides[1] +
                  (bh * f->blocks[1] + bw) * in->strides[2]);
      if (kind == ETR_KIND_COMPLEX) {
        etr_complex_t value = etr_load_complex(dtype, element);
        sum.real += value.real;
        sum.imag += value.imag;
      } else if (kind == ETR_KIND_BOOL) {
        any = any || etr_load_bool(dtype, element);
      } else {
        sum.real += etr_load_double(dtype, element);
      }
    }
  }
  void *target = etr_element_at(out, out_offset);
  if (kind == ETR_KIND_COMPLEX) {
    etr_store_complex(dtype, target, sum);
  } else if (kind == ETR_KIND_BOOL) {
    etr_store_int64(dtype, target, any ? 1 : 0);
  } else {
    etr_store_double(dtype, target, sum.real);
  }
}

// aten::col2im.out
etr_error_t etr_ref_col2im_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  fold_t f;
  ETR_TRY(etr_check_num_args(ctx, num_args, 8));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "output_size", 2, false,
                           NULL, f.output));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 2, "kernel_size", 2, false,
                           NULL, f.kernel));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 3, "dilation", 2, false, NULL,
                           f.dilation));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 4, "padding", 2, false, NULL,
                           f.padding));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 5, "stride", 2, false, NULL,
                           f.stride));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          ETR_DTYPES_FLOATING | ETR_DTYPES_COMPLEX |
                              ETR_DTYPES_BOOL));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(check_args(ctx, self, &f));
  int64_t taps = f.kernel[0] * f.kernel[1];
  int64_t sizes[4];
  int32_t rank = self->dim + 1;
  if (rank == 4) {
    sizes[0] = self->sizes[0];
  }
  sizes[rank - 3] = self->sizes[self->dim - 2] / taps;
  sizes[rank - 2] = f.output[0];
  sizes[rank - 1] = f.output[1];
  ETR_TRY(etr_resize_out(ctx, out, rank, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t in_view;
  etr_tensor_t out_view;
  etr_nn_batched_view(self, 3, &in_view);
  etr_nn_batched_view(out, 4, &out_view);
  const etr_tensor_t *operands[1] = {&out_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 4, out_view.sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    fold_one(&in_view, &f, iter.index, &out_view, iter.offsets[0]);
  }
  return ETR_OK;
}
