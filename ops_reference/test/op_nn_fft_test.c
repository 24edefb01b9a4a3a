// SPDX-License-Identifier: Apache-2.0
//
// The nn family's FFT kernels: aten::_fft_r2c.out (one-sided and full
// spectra, several dims in any order, every normalization) and
// _fft_c2r.out (even and odd lengths, non-Hermitian inputs whose zero and
// Nyquist imaginary parts must be ignored, full-length inputs).
// PyTorch-generated cases (gen_nn_cases.py) in contiguous, non-contiguous
// and channels-last layouts, a direct check of a small transform, and the
// exact error codes of rejected calls.
#include <math.h>

#include "ops_reference/test/generated/nn_fft_cases.h"
#include "ops_reference/test/op_nn_case_util.h"
#include "ops_reference/test/test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

TT_TEST(nn_fft, fft_r2c_out_cases) {
  cr_expect_gt(nn_run_cases(kNnFftCases, COUNT(kNnFftCases),
                            "aten::_fft_r2c.out"),
               0);
}

TT_TEST(nn_fft, fft_c2r_out_cases) {
  cr_expect_gt(nn_run_cases(kNnFftCases, COUNT(kNnFftCases),
                            "aten::_fft_c2r.out"),
               0);
}


static const etr_error_t kBad = ETR_ERR_INVALID_ARGUMENT;

static etr_error_t r2c(etr_tensor_t *x, etr_evalue_t *dims, int64_t norm,
                       bool onesided, etr_tensor_t *out) {
  return TT_CALL("aten::_fft_r2c.out", tt_ev_tensor(x), dims, tt_ev_int(norm),
                 tt_ev_bool(onesided), tt_ev_tensor(out), tt_ev_tensor(out));
}

static etr_error_t c2r(etr_tensor_t *x, etr_evalue_t *dims, int64_t norm,
                       int64_t n, etr_tensor_t *out) {
  return TT_CALL("aten::_fft_c2r.out", tt_ev_tensor(x), dims, tt_ev_int(norm),
                 tt_ev_int(n), tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(nn_fft, r2c_small_transform) {
  // rfft([1, 2, 3, 4]) = [10, -2 + 2i, -2]; by 1/n: [2.5, -0.5 + 0.5i, -0.5].
  etr_tensor_t *x = tt_tensor(ETR_DOUBLE, TT_SIZES(4), TT_VALUES(1, 2, 3, 4));
  etr_tensor_t *out = tt_out(ETR_COMPLEX_DOUBLE, TT_SIZES(8), 0);
  tt_expect_status(r2c(x, TT_EV_INTS(0), 2, true, out), ETR_OK);
  tt_expect_shape(out, TT_SIZES(3));
  tt_expect_values(out, TT_VALUES(2.5, 0, -0.5, 0.5, -0.5, 0), 6);
  // And back: irfft of the unscaled spectrum by 1/n gives the signal.
  etr_tensor_t *spectrum = tt_tensor(ETR_COMPLEX_DOUBLE, TT_SIZES(3),
                                     TT_VALUES(10, 0, -2, 2, -2, 0));
  etr_tensor_t *signal = tt_out(ETR_DOUBLE, TT_SIZES(8), 0);
  tt_expect_status(c2r(spectrum, TT_EV_INTS(0), 2, 4, signal), ETR_OK);
  tt_expect_values(signal, TT_VALUES(1, 2, 3, 4), 4);
}

TT_TEST(nn_fft, r2c_rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(3, 4), NULL);
  etr_tensor_t *out = tt_out(ETR_COMPLEX_FLOAT, TT_SIZES(12), 0);
  tt_expect_status(r2c(x, TT_EV_INTS(1, 0), 1, true, out), ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 4));
  // dims: none, negative (ATen's kernels take wrapped dims), out of range,
  // repeated.
  tt_expect_status(r2c(x, TT_EV_NO_INTS, 0, true, out), kBad);
  tt_expect_status(r2c(x, TT_EV_INTS(-1), 0, true, out), kBad);
  tt_expect_status(r2c(x, TT_EV_INTS(2), 0, true, out), kBad);
  tt_expect_status(r2c(x, TT_EV_INTS(1, 1), 0, true, out), kBad);
  tt_expect_status(r2c(tt_scalar_tensor(ETR_FLOAT, 1), TT_EV_INTS(0), 0, true,
                       out),
                   kBad);
  // normalization outside fft_norm_mode.
  tt_expect_status(r2c(x, TT_EV_INTS(1), 3, true, out), kBad);
  tt_expect_status(r2c(x, TT_EV_INTS(1), -1, true, out), kBad);
  // Empty inputs fail in PyTorch's MKL build.
  tt_expect_status(r2c(tt_tensor(ETR_FLOAT, TT_SIZES(0, 4), NULL),
                       TT_EV_INTS(1), 0, true, out),
                   kBad);
  // Dtypes: Float/Double in, the matching complex dtype out.
  tt_expect_status(r2c(x, TT_EV_INTS(1), 0, true,
                       tt_out(ETR_COMPLEX_DOUBLE, TT_SIZES(12), 0)),
                   kBad);
  tt_expect_status(r2c(x, TT_EV_INTS(1), 0, true,
                       tt_out(ETR_FLOAT, TT_SIZES(12), 0)),
                   kBad);
  tt_expect_status(r2c(tt_cast(x, ETR_HALF), TT_EV_INTS(1), 0, true,
                       tt_out(ETR_COMPLEX_HALF, TT_SIZES(12), 0)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(r2c(tt_cast(x, ETR_LONG), TT_EV_INTS(1), 0, true, out),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(r2c(tt_cast(x, ETR_COMPLEX_FLOAT), TT_EV_INTS(1), 0, true,
                       out),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(r2c(x, TT_EV_INTS(1), 0, false,
                       tt_out(ETR_COMPLEX_FLOAT, TT_SIZES(11), 0)),
                   kBad);
}

TT_TEST(nn_fft, c2r_rejects) {
  etr_tensor_t *x = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(2, 3), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(10), 0);
  tt_expect_status(c2r(x, TT_EV_INTS(1), 0, 4, out), ETR_OK);
  tt_expect_status(c2r(x, TT_EV_INTS(1), 0, 5, out), ETR_OK);
  tt_expect_status(c2r(x, TT_EV_INTS(1), 0, 3, out), ETR_OK);  // full length
  // The input must hold n/2 + 1 (or n) entries along dim[-1].
  tt_expect_status(c2r(x, TT_EV_INTS(1), 0, 8, out), kBad);
  tt_expect_status(c2r(x, TT_EV_INTS(1), 0, 2, out), kBad);
  tt_expect_status(c2r(x, TT_EV_INTS(1), 0, 0, out), kBad);
  tt_expect_status(c2r(x, TT_EV_INTS(1), 0, -4, out), kBad);
  tt_expect_status(c2r(x, TT_EV_INTS(1), 0, INT64_MAX, out), kBad);
  tt_expect_status(c2r(x, TT_EV_NO_INTS, 0, 4, out), kBad);
  tt_expect_status(c2r(x, TT_EV_INTS(0, 0), 0, 4, out), kBad);
  tt_expect_status(c2r(x, TT_EV_INTS(1), 5, 4, out), kBad);
  tt_expect_status(c2r(x, TT_EV_INTS(1), 0, 4,
                       tt_out(ETR_DOUBLE, TT_SIZES(10), 0)),
                   kBad);
  tt_expect_status(c2r(x, TT_EV_INTS(1), 0, 4,
                       tt_out(ETR_FLOAT, TT_SIZES(7), 0)),
                   kBad);
  tt_expect_status(c2r(tt_cast(x, ETR_FLOAT), TT_EV_INTS(1), 0, 4, out),
                   ETR_ERR_NOT_SUPPORTED);
}
