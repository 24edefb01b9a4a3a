// SPDX-License-Identifier: Apache-2.0
//
// aten::max_pool2d_with_indices.out: the maximum of each (dilated) window
// of a [N, C, H, W] or [C, H, W] input, and its flat index h * W + w in
// the input plane.
//
// Arguments: (self, kernel_size, stride, padding, dilation, ceil_mode,
// out, indices, return slot: a TensorList [out, indices]). Lists take one
// or two values; an empty stride means the kernel size. Padding acts as
// -inf: padded positions never win. Output sizes follow
// pooling_output_shape, ceil_mode included (support/pool.h).
//
// Which element wins is ATen's cpu_max_pool rule: walking the in-bounds
// window positions in row-major order, a value replaces the current one
// when it is greater or is NaN. So ties keep the first maximum and the
// LAST NaN of a window wins: [[1, nan], [3, nan]] pooled whole gives nan
// at index 3 (PyTorch 2.13, the same for Float, Double, Half and BFloat16
// in the contiguous and channels-last layouts, whose vectorized kernel
// uses the same "greater or NaN" mask; checked on random inputs with 30%
// NaN). A dilated window can miss the input entirely (kernel 2, dilation
// 3, padding 1 on a 2x2 input): ATen then leaves its initial values, the
// dtype's lowest value (-inf, INT8_MIN.., 0 for Byte) and the flat index
// of the window's first tap at or after 0 in each dim (6 there, outside
// the plane), and so does this kernel.
//
// Dtypes: every real dtype except Bool (as PyTorch's CPU kernel); out has
// self's dtype and indices is Long (InvalidArgument otherwise). Shape
// rules of support/pool.h (InvalidArgument). Any layout in and out.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/pool.h"
#include "ops_reference/support/shape.h"

// Max of the window of batched out position (n, c, oh, ow) into out and
// indices.
static void pool_one(const etr_tensor_t *in, const etr_nn_pool_t *pool,
                     const int64_t *index, etr_tensor_t *out,
                     int64_t out_offset, etr_tensor_t *indices,
                     int64_t index_offset) {
  bool floating = etr_dtype_kind(in->dtype) == ETR_KIND_FLOATING;
  int64_t height = in->sizes[2];
  int64_t width = in->sizes[3];
  int64_t first[2];
  int64_t taps[2];
  etr_nn_max_window(pool, 0, index[2], height, &first[0], &taps[0]);
  etr_nn_max_window(pool, 1, index[3], width, &first[1], &taps[1]);
  int64_t base = index[0] * in->strides[0] + index[1] * in->strides[1];
  // ATen's initial values: the lowest value and the first tap at or after
  // 0 in each dim, kept when the window misses the input.
  double best = -INFINITY;
  int64_t best_int = etr_nn_integer_lowest(in->dtype);
  // ATen's int64 arithmetic; unsigned here so that huge dilations wrap
  // instead of overflowing.
  int64_t best_index =
      (int64_t)((uint64_t)first[0] * (uint64_t)width + (uint64_t)first[1]);
  bool found = false;
  for (int64_t th = 0; th < taps[0]; ++th) {
    int64_t h = first[0] + th * pool->dilation[0];
    for (int64_t tw = 0; tw < taps[1]; ++tw) {
      int64_t w = first[1] + tw * pool->dilation[1];
      const void *element =
          etr_element_at(in, base + h * in->strides[2] + w * in->strides[3]);
      bool better = false;
      if (floating) {
        // Every NaN replaces the current value: the last NaN wins.
        double value = etr_load_double(in->dtype, element);
        better = !found || value > best || isnan(value);
        best = better ? value : best;
      } else {
        int64_t value = etr_load_int64(in->dtype, element);
        better = !found || value > best_int;
        best_int = better ? value : best_int;
      }
      if (better) {
        best_index = h * width + w;
        found = true;
      }
    }
  }
  void *target = etr_element_at(out, out_offset);
  if (floating) {
    etr_store_double(out->dtype, target, best);
  } else {
    etr_store_int64(out->dtype, target, best_int);
  }
  etr_store_int64(ETR_LONG, etr_element_at(indices, index_offset), best_index);
}

// aten::max_pool2d_with_indices.out
etr_error_t etr_ref_max_pool2d_with_indices_out(etr_kernel_context_t *ctx,
                                                etr_evalue_t **args,
                                                size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_pool2d_params_t p;
  etr_tensor_t *out = NULL;
  etr_tensor_t *indices = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 9));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_pool2d_read_window(ctx, args, num_args, 1, p.kernel, p.stride,
                                 p.padding));
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, 4, "dilation", NULL,
                               p.dilation));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "ceil_mode", &p.ceil_mode));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "indices", &indices));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "indices", indices->dtype, ETR_LONG));
  int64_t sizes[4];
  ETR_TRY(etr_pool2d_out_shape(ctx, self, &p, sizes));
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  ETR_TRY(etr_resize_out(ctx, indices, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t in_view;
  etr_tensor_t out_view;
  etr_tensor_t indices_view;
  etr_pool2d_batched_view(self, &in_view);
  etr_pool2d_batched_view(out, &out_view);
  etr_pool2d_batched_view(indices, &indices_view);
  etr_nn_pool_t pool = {.spatial = 2, .ceil_mode = p.ceil_mode};
  for (int32_t s = 0; s < 2; ++s) {
    pool.kernel[s] = p.kernel[s];
    pool.stride[s] = p.stride[s];
    pool.padding[s] = p.padding[s];
    pool.dilation[s] = p.dilation[s];
  }
  const etr_tensor_t *operands[2] = {&out_view, &indices_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 4, out_view.sizes, operands, 2);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    pool_one(&in_view, &pool, iter.index, &out_view, iter.offsets[0],
             &indices_view, iter.offsets[1]);
  }
  return ETR_OK;
}
