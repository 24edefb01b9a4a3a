// SPDX-License-Identifier: Apache-2.0
//
// aten::_fft_r2c.out: the forward DFT of a real tensor over the dims in
// `dim` (torch.fft.rfft/rfftn/fft of a real input lower to it):
//
//   out[k] = scale * sum over t of x[t] * exp(-2 pi i sum_d k_d t_d / n_d)
//
// over the transformed dims d (sizes n_d), other dims indexing separate
// signals. With onesided, the last dim of `dim` (dim[-1], whatever its
// position in the tensor) keeps only its n/2 + 1 non-negative
// frequencies; otherwise out has self's shape (the full, Hermitian
// spectrum). scale is normalization's (support/nn_fft.h: 0 none, 1
// 1/sqrt(n), 2 1/n, n = the product of the n_d). Computed as a direct DFT
// in double (support/nn_fft.h), rounded once.
//
// Arguments: (self, dim, normalization, onesided, out, return slot).
// Dtypes: Float -> ComplexFloat and Double -> ComplexDouble; Half and
// BFloat16 are NotSupported, as on PyTorch's CPU ("MKL FFT doesn't
// support tensors of type: Half"), like every other dtype. out must have
// the complex dtype (InvalidArgument). dim and normalization rules of
// support/nn_fft.h (InvalidArgument; an empty self too).
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_fft.h"
#include "ops_reference/support/shape.h"

static etr_complex_t dft_one(const etr_tensor_t *self,
                             const etr_nn_fft_dims_t *dims,
                             const int64_t *index, double scale) {
  int64_t t[ETR_MAX_DIMS] = {0};
  int64_t base = 0;
  for (int32_t d = 0; d < self->dim; ++d) {
    base += index[d] * self->strides[d];
  }
  for (int32_t i = 0; i < dims->count; ++i) {
    base -= index[dims->dims[i]] * self->strides[dims->dims[i]];
  }
  etr_complex_t sum = {0.0, 0.0};
  for (;;) {
    int64_t offset = base;
    double phase = 0.0;
    for (int32_t i = 0; i < dims->count; ++i) {
      int32_t d = dims->dims[i];
      offset += t[i] * self->strides[d];
      phase += etr_nn_fft_phase(index[d], t[i], self->sizes[d]);
    }
    double angle = -ETR_NN_TWO_PI * (phase - floor(phase));
    double x = etr_load_double(self->dtype, etr_element_at(self, offset));
    sum.real += x * cos(angle);
    sum.imag += x * sin(angle);
    int32_t i = dims->count - 1;
    while (i >= 0 && ++t[i] == self->sizes[dims->dims[i]]) {
      t[i] = 0;
      --i;
    }
    if (i < 0) {
      break;
    }
  }
  sum.real *= scale;
  sum.imag *= scale;
  return sum;
}

// aten::_fft_r2c.out
etr_error_t etr_ref_fft_r2c_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  etr_nn_fft_dims_t dims;
  int64_t normalization = 0;
  bool onesided = false;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "normalization",
                      &normalization));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 3, "onesided", &onesided));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          ETR_DTYPE_BIT(ETR_FLOAT) |
                              ETR_DTYPE_BIT(ETR_DOUBLE)));
  ETR_TRY(etr_check_dtype_equal(
      ctx, "out", out->dtype,
      self->dtype == ETR_FLOAT ? ETR_COMPLEX_FLOAT : ETR_COMPLEX_DOUBLE));
  ETR_TRY(etr_nn_fft_read_dims(ctx, args, num_args, 1, self, &dims));
  int64_t n = 1;
  for (int32_t i = 0; i < dims.count; ++i) {
    n *= self->sizes[dims.dims[i]];  // <= numel: no overflow
  }
  double scale = 1.0;
  ETR_TRY(etr_nn_fft_scale(ctx, normalization, n, &scale));
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t d = 0; d < self->dim; ++d) {
    sizes[d] = self->sizes[d];
  }
  int32_t last = dims.dims[dims.count - 1];
  if (onesided) {
    sizes[last] = self->sizes[last] / 2 + 1;
  }
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    etr_store_complex(out->dtype, etr_element_at(out, iter.offsets[0]),
                      dft_one(self, &dims, iter.index, scale));
  }
  return ETR_OK;
}
