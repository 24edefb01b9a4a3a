// SPDX-License-Identifier: Apache-2.0
//
// aten::max_pool3d_with_indices.out: the maximum of each (dilated) window
// of a [N, C, D, H, W] or [C, D, H, W] input, and its flat index
// (d * H + h) * W + w within the input volume.
//
// Arguments: (self, kernel_size, stride, padding, dilation, ceil_mode,
// out, indices, return slot: a TensorList [out, indices]). kernel_size,
// padding and dilation hold one or three ints; stride one, three or none
// (the kernel size). Output sizes, ceil_mode and the parameter and shape
// rules (InvalidArgument) are those of support/nn_pool.h.
//
// Which element wins is ATen's cpu_max_pool rule: walking the in-bounds
// window positions in row-major order, a value replaces the current one
// when it is greater or is NaN. So the first maximum wins ties, and the
// LAST NaN of a window wins (PyTorch 2.13: [1, nan, 3, nan] pooled whole
// gives nan at index 3, checked for the contiguous and channels-last
// layouts alike). Padding never wins; a window of -inf (or of an integer
// type's lowest value) gives its first in-bounds position. With dilation a
// window can miss the input entirely (kernel 2, dilation 3, padding 1 on
// 2 elements): ATen then leaves its initial values, the dtype's lowest
// value (-inf, or INT_MIN, or 0 for Byte) and the flat index of the
// window's first tap at or after 0 in each dim, which lies outside the
// input (14 for a 2x2x2 input there), and so does this kernel.
//
// Dtypes: every real dtype but Bool, uint16/32/64 (as PyTorch's CPU
// kernel; NotSupported otherwise); out has self's dtype and indices is
// Long (InvalidArgument otherwise). Any layout in and out.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/shape.h"

// The maximum of the window of batched out position `index` (n, c, od,
// oh, ow) into out and indices.
static void pool_one(const etr_tensor_t *in, const etr_nn_pool_t *pool,
                     const int64_t *index, etr_tensor_t *out,
                     int64_t out_offset, etr_tensor_t *indices,
                     int64_t index_offset) {
  bool floating = etr_dtype_kind(in->dtype) == ETR_KIND_FLOATING;
  int64_t first[3];
  int64_t taps[3];
  for (int32_t s = 0; s < 3; ++s) {
    etr_nn_max_window(pool, s, index[2 + s], in->sizes[2 + s], &first[s],
                      &taps[s]);
  }
  int64_t base = index[0] * in->strides[0] + index[1] * in->strides[1];
  bool found = false;
  double best = 0.0;
  int64_t best_int = 0;
  int64_t best_index = 0;
  for (int64_t td = 0; td < taps[0]; ++td) {
    int64_t d = first[0] + td * pool->dilation[0];
    for (int64_t th = 0; th < taps[1]; ++th) {
      int64_t h = first[1] + th * pool->dilation[1];
      for (int64_t tw = 0; tw < taps[2]; ++tw) {
        int64_t w = first[2] + tw * pool->dilation[2];
        const void *element = etr_element_at(
            in, base + d * in->strides[2] + h * in->strides[3] +
                    w * in->strides[4]);
        bool better = false;
        if (floating) {
          double value = etr_load_double(in->dtype, element);
          better = !found || value > best || isnan(value);
          best = better ? value : best;
        } else {
          int64_t value = etr_load_int64(in->dtype, element);
          better = !found || value > best_int;
          best_int = better ? value : best_int;
        }
        if (better) {
          best_index = (d * in->sizes[3] + h) * in->sizes[4] + w;
          found = true;
        }
      }
    }
  }
  if (!found) {  // a dilated window that misses the input
    best = -INFINITY;
    best_int = etr_nn_integer_lowest(in->dtype);
    // ATen's int64 arithmetic; unsigned here so huge dilations wrap
    // instead of overflowing.
    best_index = (int64_t)(((uint64_t)first[0] * (uint64_t)in->sizes[3] +
                            (uint64_t)first[1]) *
                               (uint64_t)in->sizes[4] +
                           (uint64_t)first[2]);
  }
  void *target = etr_element_at(out, out_offset);
  if (floating) {
    etr_store_double(out->dtype, target, best);
  } else {
    etr_store_int64(out->dtype, target, best_int);
  }
  etr_store_int64(ETR_LONG, etr_element_at(indices, index_offset), best_index);
}

// aten::max_pool3d_with_indices.out
etr_error_t etr_ref_max_pool3d_with_indices_out(etr_kernel_context_t *ctx,
                                                etr_evalue_t **args,
                                                size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  etr_tensor_t *indices = NULL;
  etr_nn_pool_t pool = {.spatial = 3};
  ETR_TRY(etr_check_num_args(ctx, num_args, 9));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "kernel_size", 3, true,
                           NULL, pool.kernel));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 2, "stride", 3, true,
                           pool.kernel, pool.stride));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 3, "padding", 3, true, NULL,
                           pool.padding));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 4, "dilation", 3, true, NULL,
                           pool.dilation));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "ceil_mode", &pool.ceil_mode));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "indices", &indices));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "indices", indices->dtype, ETR_LONG));
  int64_t sizes[5];
  ETR_TRY(etr_nn_pool_out_shape(ctx, self, &pool, sizes));
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  ETR_TRY(etr_resize_out(ctx, indices, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t in_view;
  etr_tensor_t out_view;
  etr_tensor_t indices_view;
  etr_nn_batched_view(self, 5, &in_view);
  etr_nn_batched_view(out, 5, &out_view);
  etr_nn_batched_view(indices, 5, &indices_view);
  const etr_tensor_t *operands[2] = {&out_view, &indices_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 5, out_view.sizes, operands, 2);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    pool_one(&in_view, &pool, iter.index, &out_view, iter.offsets[0],
             &indices_view, iter.offsets[1]);
  }
  return ETR_OK;
}
