// SPDX-License-Identifier: Apache-2.0
//
// 2-D upsampling output sizes (see nn_upsample.h).
#include "ops_reference/support/nn_upsample.h"

#include <math.h>

#include "ops_reference/support/dtype.h"

etr_error_t etr_nn_upsample_prepare(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t size_index, size_t scale_index,
                                    const etr_tensor_t *input,
                                    etr_nn_upsample_t *up,
                                    int64_t *sizes_out) {
  bool has_size = false;
  const int64_t *sizes = NULL;
  size_t size_count = 0;
  const double *scales = NULL;
  size_t scale_count = 0;
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, size_index,
                                    "output_size", &has_size, &sizes,
                                    &size_count));
  ETR_TRY(etr_arg_optional_double_list(ctx, args, num_args, scale_index,
                                       "scale_factors", &up->has_scale,
                                       &scales, &scale_count));
  ETR_CHECK(ctx->diag, has_size != up->has_scale, ETR_ERR_INVALID_ARGUMENT,
            "%s: must specify exactly one of output_size and scale_factors",
            etr_op_name(ctx));
  ETR_CHECK(ctx->diag,
            input->dim == 4 && (has_size ? size_count : scale_count) == 2,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a 4-D input and 2 output sizes or scale factors",
            etr_op_name(ctx));
  for (int s = 0; s < 2; ++s) {
    up->in[s] = input->sizes[2 + s];
    if (has_size) {
      up->out[s] = sizes[s];
      up->scale[s] = 0.0;
      continue;
    }
    up->scale[s] = scales[s];
    double size = (double)up->in[s] * scales[s];
    ETR_CHECK(ctx->diag, size > -9.2e18 && size < 9.2e18,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: scale factor %g gives an invalid output size",
              etr_op_name(ctx), scales[s]);
    up->out[s] = (int64_t)size;
  }
  ETR_CHECK(ctx->diag,
            up->in[0] > 0 && up->in[1] > 0 && up->out[0] > 0 &&
                up->out[1] > 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: input and output sizes should be greater than 0, got input "
            "(H: %lld, W: %lld) output (H: %lld, W: %lld)",
            etr_op_name(ctx), (long long)up->in[0], (long long)up->in[1],
            (long long)up->out[0], (long long)up->out[1]);
  ETR_CHECK(ctx->diag, input->sizes[1] > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: non-empty 4D data tensor expected", etr_op_name(ctx));
  sizes_out[0] = input->sizes[0];
  sizes_out[1] = input->sizes[1];
  sizes_out[2] = up->out[0];
  sizes_out[3] = up->out[1];
  return ETR_OK;
}
