// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::_fft_c2r.out: a ComplexFloat self inverse-transformed
// over one dim to last_dim_size n runs an FFT in fp32, as PyTorch's
// does, on its first n/2 + 1 entries (fft/fft.h: merged into n/2 complex
// points for an even n, extended to n for an odd one, 16 signals at a
// time; the imaginary parts of entry 0 and, n even, n/2 ignored, as in the
// reference), O(n log n) instead of the reference's direct O(n^2) sum in
// double; results agree within the fp32 FFT's error bound (the tests
// state it). Several transformed dims, ComplexDouble, no scratch and
// argument errors go to the reference kernel (ops_reference/
// op_fft_c2r.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/fft/fft.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/nn_fft.h"

// aten::_fft_c2r.out
etr_error_t etr_opt_fft_c2r_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (num_args != 6 || self == NULL || out == NULL ||
      self->dtype != ETR_COMPLEX_FLOAT) {
    return etr_opt_fallback(etr_ref_fft_c2r_out, ctx, args, num_args);
  }
  ETR_TRY(
      etr_opt_check(etr_ref_fft_c2r_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_nn_fft_dims_t dims;
  int64_t mode = 0;
  int64_t last_dim_size = 0;
  double scale = 1.0;
  ETR_TRY(etr_nn_fft_read_dims(ctx, args, num_args, 1, self, &dims));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "normalization", &mode));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "last_dim_size",
                      &last_dim_size));
  if (dims.count != 1) {
    return etr_opt_fallback(etr_ref_fft_c2r_out, ctx, args, num_args);
  }
  ETR_TRY(etr_nn_fft_scale(ctx, mode, last_dim_size, &scale));
  if (!etr_fft_c2r_run(ctx, self, dims.dims[0], scale, out)) {
    return etr_opt_fallback(etr_ref_fft_c2r_out, ctx, args, num_args);
  }
  return ETR_OK;
}
