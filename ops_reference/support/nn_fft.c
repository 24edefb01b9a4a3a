// SPDX-License-Identifier: Apache-2.0
//
// FFT argument rules and DFT phases (see nn_fft.h).
#include "ops_reference/support/nn_fft.h"

#include <math.h>

#include "ops_reference/support/dtype.h"

etr_error_t etr_nn_fft_read_dims(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args,
                                 size_t index, const etr_tensor_t *self,
                                 etr_nn_fft_dims_t *out) {
  const int64_t *items = NULL;
  size_t count = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, index, "dim", &items, &count));
  ETR_CHECK(ctx->diag, count >= 1 && count <= (size_t)self->dim,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: dim must list 1 to %d dims, got %zu", etr_op_name(ctx),
            (int)self->dim, count);
  uint32_t seen = 0;
  for (size_t i = 0; i < count; ++i) {
    ETR_CHECK(ctx->diag, items[i] >= 0 && items[i] < self->dim,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: dim %lld is out of range for a tensor of rank %d",
              etr_op_name(ctx), (long long)items[i], (int)self->dim);
    ETR_CHECK(ctx->diag, (seen & (1u << items[i])) == 0,
              ETR_ERR_INVALID_ARGUMENT, "%s: dim %lld appears twice",
              etr_op_name(ctx), (long long)items[i]);
    seen |= 1u << items[i];
    out->dims[i] = (int32_t)items[i];
  }
  out->count = (int32_t)count;
  for (int32_t d = 0; d < self->dim; ++d) {
    ETR_CHECK(ctx->diag, self->sizes[d] > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: empty tensors are not supported (size %lld at dim %d)",
              etr_op_name(ctx), (long long)self->sizes[d], (int)d);
  }
  return ETR_OK;
}

etr_error_t etr_nn_fft_scale(etr_kernel_context_t *ctx, int64_t mode,
                             int64_t n, double *scale_out) {
  ETR_CHECK(ctx->diag, mode >= 0 && mode <= 2, ETR_ERR_INVALID_ARGUMENT,
            "%s: normalization must be 0 (none), 1 (1/sqrt(n)) or 2 (1/n), "
            "got %lld",
            etr_op_name(ctx), (long long)mode);
  *scale_out = mode == 0   ? 1.0
               : mode == 1 ? 1.0 / sqrt((double)n)
                           : 1.0 / (double)n;
  return ETR_OK;
}

double etr_nn_fft_phase(int64_t k, int64_t t, int64_t n) {
  unsigned __int128 product = (unsigned __int128)(uint64_t)k * (uint64_t)t;
  return (double)(int64_t)(product % (uint64_t)n) / (double)n;
}
