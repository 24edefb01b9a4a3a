// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::max_pool2d_with_indices_backward.grad_input: contiguous
// Float grad_output, Long indices and grad_input ([N, C, H, W] or
// [C, H, W]): each plane of grad_input zeroed, then its gradients added
// at their flat indices in row-major output order, in fp32 (the reference
// rounds to the dtype after every add, in this same order): bit-exact,
// with no per-element dtype dispatch or index arithmetic through strides.
// The zeroing runs just ahead of the gradients, a window row at a time
// (see below); the adds are the pooling table's add_at (pool/pool.h),
// which on x86 keeps two neighbours landing on one element in a register.
// An index outside [0, H * W) other than -1 (the reference's
// InvalidArgument), other dtypes and layouts and argument errors go to the
// reference kernel (ops_reference/op_max_pool2d_with_indices_backward.c),
// whose dry run checks and resizes first.
#include <string.h>

#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/pool.h"
#include "ops_reference/support/shape.h"

// aten::max_pool2d_with_indices_backward.grad_input
etr_error_t etr_opt_max_pool2d_with_indices_backward_grad_input(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  etr_kernel_fn reference = etr_ref_max_pool2d_with_indices_backward_grad_input;
  etr_tensor_t *grad_output = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *indices = etr_opt_tensor_arg(args, num_args, 7);
  etr_tensor_t *grad_input = etr_opt_tensor_arg(args, num_args, 8);
  if (num_args != 10 || grad_output == NULL || self == NULL ||
      indices == NULL || grad_input == NULL || self->dtype != ETR_FLOAT) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(reference, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  if (!etr_opt_is_contiguous_f32(grad_output) ||
      !etr_opt_is_contiguous_f32(grad_input) ||
      !etr_tensor_is_contiguous(indices)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  int64_t plane = self->sizes[self->dim - 2] * self->sizes[self->dim - 1];
  int64_t planes = plane > 0 ? etr_numel(grad_input) / plane : 0;
  int64_t out_plane =
      grad_output->sizes[grad_output->dim - 2] *
      grad_output->sizes[grad_output->dim - 1];
  const int64_t *index = (const int64_t *)indices->data;
  float *gi = (float *)grad_input->data;
  const float *go = (const float *)grad_output->data;
  // The forward's indices for window row oh lie in its rows, the last
  // oh * stride - padding + (kernel - 1) * dilation: each window row first
  // zeroes the plane to the end of that row, so its gradients are added
  // to lines just zeroed, still in L1 (a 112 x 112 plane zeroed whole
  // spills it). An index past the zeroed rows (not the forward's) zeroes
  // the rest of the plane first. AMD Zen 4, 3x3 stride-2 windows over
  // 64 planes of 112 x 112 with the forward's indices, medians of 21
  // alternated runs (twice) on a shared host: 173-175 us zeroing whole
  // planes, 162 with add_at's pairs, 154-158 zeroing by rows as well (by
  // rows with one add at a time: 143 us quiet, 250 beside a busy
  // neighbour).
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  ETR_TRY(etr_pool2d_read_window(ctx, args, num_args, 2, kernel, stride,
                                 padding));
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, 5, "dilation", NULL,
                               dilation));
  // In rows, clipped to the plane's height (no overflow whatever the
  // window arguments).
  const int64_t width = self->sizes[self->dim - 1];
  const int64_t height = plane > 0 ? plane / width : 0;
  const int64_t out_width = grad_output->sizes[grad_output->dim - 1];
  const int64_t span = kernel[0] - 1 <= height / dilation[0]
                           ? (kernel[0] - 1) * dilation[0]
                           : height;
  int64_t (*add_at)(float *, const int64_t *, const float *, int64_t,
                    int64_t, int64_t) =
      etr_pool_kernels_for(etr_isa_active())->add_at;
  for (int64_t p = 0; p < planes; ++p) {
    float *target = gi + p * plane;
    const int64_t *plane_index = index + p * out_plane;
    const float *plane_go = go + p * out_plane;
    int64_t zeroed = 0;
    int64_t end_row = span - padding[0] + 1; // past window row 0's last
    for (int64_t row = 0; row < out_plane; row += out_width) {
      int64_t end = (end_row < height ? end_row : height) * width;
      if (end > zeroed) {
        memset(target + zeroed, 0, (size_t)(end - zeroed) * sizeof(float));
        zeroed = end;
      }
      end_row = end_row >= height || stride[0] >= height ? height
                                                         : end_row + stride[0];
      int64_t k = row;
      while ((k = add_at(target, plane_index, plane_go, k, row + out_width,
                         zeroed)) < row + out_width) {
        int64_t at = plane_index[k];
        if ((uint64_t)at < (uint64_t)plane) {
          memset(target + zeroed, 0,
                 (size_t)(plane - zeroed) * sizeof(float));
          zeroed = plane;
        } else if (at == -1) {
          ++k;
        } else {
          return etr_opt_fallback(reference, ctx, args, num_args);
        }
      }
    }
    memset(target + zeroed, 0, (size_t)(plane - zeroed) * sizeof(float));
  }
  return ETR_OK;
}
