// SPDX-License-Identifier: Apache-2.0
//
// Reduction shapes and views (see reduce.h).
#include "ops_reference/support/reduce.h"

#include "ops_reference/support/shape.h"

void etr_reduction_shape(const etr_tensor_t *input, uint32_t mask,
                         bool keepdim, int32_t *dim_out, int64_t *sizes_out) {
  int32_t dim = 0;
  for (int32_t d = 0; d < input->dim; ++d) {
    if ((mask >> d) & 1u) {
      if (keepdim) {
        sizes_out[dim++] = 1;
      }
    } else {
      sizes_out[dim++] = input->sizes[d];
    }
  }
  *dim_out = dim;
}

etr_error_t etr_reduction_prepare(etr_kernel_context_t *ctx,
                                  const etr_tensor_t *input,
                                  const int64_t *dims, size_t num_dims,
                                  bool dims_present, bool keepdim,
                                  etr_tensor_t *out, uint32_t *mask_out) {
  uint32_t mask = 0;
  ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, dims_present, input->dim,
                            &mask));
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  etr_reduction_shape(input, mask, keepdim, &dim, sizes);
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  *mask_out = mask;
  return ETR_OK;
}

void etr_reduction_out_view(const etr_tensor_t *input, uint32_t mask,
                            bool keepdim, const etr_tensor_t *out,
                            etr_tensor_t *view) {
  int64_t strides[ETR_MAX_DIMS];
  int32_t out_dim = 0;
  for (int32_t d = 0; d < input->dim; ++d) {
    if ((mask >> d) & 1u) {
      strides[d] = 0;
      out_dim += keepdim ? 1 : 0;
    } else {
      strides[d] = out->strides[out_dim++];
    }
  }
  etr_make_view(out, 0, input->dim, input->sizes, strides, view);
}
