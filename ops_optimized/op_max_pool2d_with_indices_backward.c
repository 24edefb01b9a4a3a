// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::max_pool2d_with_indices_backward.grad_input: contiguous
// Float grad_output, Long indices and grad_input ([N, C, H, W] or
// [C, H, W]): each plane of grad_input zeroed, then its gradients added
// at their flat indices in row-major output order, in fp32 (the reference
// rounds to the dtype after every add, in this same order): bit-exact,
// with no per-element dtype dispatch or index arithmetic through strides. An
// index outside [0, H * W) other than -1 (the reference's InvalidArgument),
// other dtypes and layouts and argument errors go to the reference kernel
// (ops_reference/op_max_pool2d_with_indices_backward.c), whose dry run
// checks and resizes first.
#include <string.h>

#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
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
  // Plane by plane: zeroed just before its gradients land (it is then in
  // cache), each index checked as it is used. An index outside the plane
  // leaves the whole call to the reference, which rewrites every element.
  for (int64_t p = 0; p < planes; ++p) {
    float *target = gi + p * plane;
    const int64_t *plane_index = index + p * out_plane;
    const float *plane_go = go + p * out_plane;
    memset(target, 0, (size_t)plane * sizeof(float));
    for (int64_t k = 0; k < out_plane; ++k) {
      int64_t at = plane_index[k];
      if ((uint64_t)at < (uint64_t)plane) {
        target[at] += plane_go[k];
      } else if (at != -1) {
        return etr_opt_fallback(reference, ctx, args, num_args);
      }
    }
  }
  return ETR_OK;
}
