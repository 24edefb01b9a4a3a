// SPDX-License-Identifier: Apache-2.0
//
// aten::_fft_c2r.out: the inverse DFT of a Hermitian (one-sided) complex
// tensor to a real one over the dims in `dim` (torch.fft.irfft/irfftn
// lower to it). The last dim of `dim` (dim[-1]) becomes last_dim_size = n
// long and only its first n/2 + 1 entries are read; the other dims keep
// their sizes. As in ATen (a complex inverse over dim[:-1], then a 1-D
// complex-to-real transform over dim[-1]):
//
//   out[t] = scale * sum over k (k_last <= n/2) of
//            c(k_last) * Re(X[k] * exp(+2 pi i sum_d k_d t_d / n_d))
//
// with c = 1 for k_last = 0 and for k_last = n/2 when n is even (their
// imaginary parts do not contribute), c = 2 otherwise (the conjugate
// mirror). scale is normalization's (support/nn_fft.h) with n the product
// of the output sizes over dim. Computed as a direct DFT in double,
// rounded once.
//
// Arguments: (self, dim, normalization, last_dim_size, out, return slot).
// InvalidArgument for last_dim_size < 1 and for an input whose dim[-1]
// size is neither n/2 + 1 nor n (PyTorch fails an internal assert or
// returns garbage there), plus the dim and normalization rules of
// support/nn_fft.h. Dtypes: ComplexFloat -> Float, ComplexDouble -> Double
// (ComplexHalf and real inputs are NotSupported, as on PyTorch's CPU); out
// must have the real dtype (InvalidArgument).
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_fft.h"
#include "ops_reference/support/shape.h"

typedef struct inverse {
  const etr_tensor_t *self;
  etr_nn_fft_dims_t dims;
  int64_t signal[ETR_MAX_DIMS];  // n_d per entry of dims (output sizes)
  int64_t range[ETR_MAX_DIMS];   // input entries read per entry of dims
  double scale;
} inverse_t;

static double idft_one(const inverse_t *v, const int64_t *index) {
  const etr_tensor_t *self = v->self;
  const etr_nn_fft_dims_t *dims = &v->dims;
  int64_t n_last = v->signal[dims->count - 1];
  int64_t k[ETR_MAX_DIMS] = {0};
  int64_t base = 0;
  for (int32_t d = 0; d < self->dim; ++d) {
    base += index[d] * self->strides[d];
  }
  for (int32_t i = 0; i < dims->count; ++i) {
    base -= index[dims->dims[i]] * self->strides[dims->dims[i]];
  }
  double sum = 0.0;
  for (;;) {
    int64_t offset = base;
    double phase = 0.0;
    for (int32_t i = 0; i < dims->count; ++i) {
      int32_t d = dims->dims[i];
      offset += k[i] * self->strides[d];
      phase += etr_nn_fft_phase(k[i], index[d], v->signal[i]);
    }
    int64_t k_last = k[dims->count - 1];
    double weight =
        k_last == 0 || (n_last % 2 == 0 && k_last == n_last / 2) ? 1.0 : 2.0;
    double angle = ETR_NN_TWO_PI * (phase - floor(phase));
    etr_complex_t x = etr_load_complex(self->dtype,
                                       etr_element_at(self, offset));
    sum += weight * (x.real * cos(angle) - x.imag * sin(angle));
    int32_t i = dims->count - 1;
    while (i >= 0 && ++k[i] == v->range[i]) {
      k[i] = 0;
      --i;
    }
    if (i < 0) {
      break;
    }
  }
  return sum * v->scale;
}

// aten::_fft_c2r.out
etr_error_t etr_ref_fft_c2r_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  inverse_t v;
  int64_t normalization = 0;
  int64_t last_dim_size = 0;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "normalization",
                      &normalization));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "last_dim_size",
                      &last_dim_size));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_COMPLEX));
  ETR_TRY(etr_check_dtype_equal(
      ctx, "out", out->dtype,
      self->dtype == ETR_COMPLEX_FLOAT ? ETR_FLOAT : ETR_DOUBLE));
  ETR_TRY(etr_nn_fft_read_dims(ctx, args, num_args, 1, self, &v.dims));
  v.self = self;
  int32_t last = v.dims.dims[v.dims.count - 1];
  ETR_CHECK(ctx->diag, last_dim_size >= 1, ETR_ERR_INVALID_ARGUMENT,
            "%s: last_dim_size must be positive, got %lld", etr_op_name(ctx),
            (long long)last_dim_size);
  int64_t half = last_dim_size / 2 + 1;
  ETR_CHECK(ctx->diag,
            self->sizes[last] == half || self->sizes[last] == last_dim_size,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: dim %d has %lld entries; a signal of %lld needs %lld (or "
            "%lld)",
            etr_op_name(ctx), (int)last, (long long)self->sizes[last],
            (long long)last_dim_size, (long long)half,
            (long long)last_dim_size);
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t d = 0; d < self->dim; ++d) {
    sizes[d] = self->sizes[d];
  }
  sizes[last] = last_dim_size;
  int64_t n = 1;
  for (int32_t i = 0; i < v.dims.count; ++i) {
    int32_t d = v.dims.dims[i];
    v.signal[i] = sizes[d];
    v.range[i] = d == last ? half : sizes[d];
    ETR_CHECK(ctx->diag, etr_checked_mul(n, sizes[d], &n),
              ETR_ERR_INVALID_ARGUMENT, "%s: the signal size overflows int64",
              etr_op_name(ctx));
  }
  ETR_TRY(etr_nn_fft_scale(ctx, normalization, n, &v.scale));
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    etr_store_double(out->dtype, etr_element_at(out, iter.offsets[0]),
                     idft_one(&v, iter.index));
  }
  return ETR_OK;
}
