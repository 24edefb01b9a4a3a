// SPDX-License-Identifier: Apache-2.0
//
// 1-D pooling on the 2-D drivers (see pool.h): ATen computes avg_pool1d
// and adaptive_avg_pool1d as their 2-D twins over a [.., 1, L] view, and
// so does this file: a contiguous [N, C, L] or [C, L] Float tensor is the
// same memory as a contiguous [N, C, 1, L] or [C, 1, L] one (of any
// dtype the 2-D drivers take), so the views
// cost nothing and the row microkernels vectorize across output positions.
#include <string.h>

#include "ops_optimized/pool/pool.h"

// `tensor` with a size-1 dim inserted before its last one, when it is a
// contiguous 2-D or 3-D tensor (false otherwise).
static bool height_one_view(const etr_tensor_t *tensor, etr_tensor_t *view) {
  if ((tensor->dim != 2 && tensor->dim != 3) ||
      !etr_tensor_is_contiguous(tensor)) {
    return false;
  }
  *view = *tensor;
  view->dim = tensor->dim + 1;
  view->sizes[view->dim - 1] = tensor->sizes[tensor->dim - 1];
  view->sizes[view->dim - 2] = 1;
  view->strides[view->dim - 1] = tensor->strides[tensor->dim - 1];
  view->strides[view->dim - 2] = tensor->strides[tensor->dim - 2];
  for (int32_t d = 0; d < view->dim; ++d) {
    view->dim_order[d] = (uint8_t)d;
  }
  return true;
}

bool etr_avg_pool1d_run(etr_arena_t *temp, const etr_tensor_t *self,
                        int64_t kernel, int64_t stride, int64_t padding,
                        bool ceil_mode,
                        bool count_include_pad, etr_tensor_t *out) {
  etr_tensor_t self_view;
  etr_tensor_t out_view;
  if (!height_one_view(self, &self_view) || !height_one_view(out, &out_view)) {
    return false;
  }
  etr_pool_params_t p = {
      .kernel = {1, kernel},
      .stride = {1, stride},
      .padding = {0, padding},
      .dilation = {1, 1},
      .ceil_mode = ceil_mode,
      .count_include_pad = count_include_pad,
  };
  return etr_avg_pool2d_run(temp, &self_view, &p, &out_view);
}

bool etr_adaptive_avg_pool1d_run(etr_arena_t *temp, const etr_tensor_t *self,
                                 int64_t output_size, etr_tensor_t *out) {
  etr_tensor_t self_view;
  etr_tensor_t out_view;
  if (!height_one_view(self, &self_view) || !height_one_view(out, &out_view)) {
    return false;
  }
  return etr_adaptive_avg_pool2d_run(temp, &self_view, 1, output_size,
                                     &out_view);
}
