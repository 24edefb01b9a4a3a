// SPDX-License-Identifier: Apache-2.0
//
// Fast Fourier transforms for the optimized _fft_r2c and _fft_c2r kernels,
// in float, O(n log n) per signal where the reference evaluates the DFT
// directly in O(n^2) in double. One transformed dim of any length n; the
// signals (any strides) go through in blocks of ETR_FFT_LANES, lane
// l of point t at [t * ETR_FFT_LANES + l], so every step of the transform
// is a loop over lanes that the active ISA's kernels run as vectors.
//
// A real signal of n points is transformed as n/2 complex points (even
// samples real, odd ones imaginary), by radix-2 butterflies (when n/2 is
// not a power of two, by Stockham steps of radix 2 to 5, as for Whisper's
// 400-point frames, or Bluestein's chirp convolution; fft.c), then split
// into the n/2 + 1 outputs of the real transform; c2r merges its
// Hermitian input into n/2 complex points the same way and transforms
// back. An odd n is transformed as n complex points carrying two signals
// a lane (r2c: one as the real parts, one as the imaginary parts, the
// spectra parted by symmetry after; c2r: two Hermitian inputs extended to
// all n points as A + iB), by Stockham steps of radix 3 and 5 or
// Bluestein's. The arithmetic is fp32, as PyTorch's own CPU FFT (pocketfft,
// which ExecuTorch's optimized kernels use too) does for float tensors: results
// differ from the reference's double DFT by the fp32 rounding of O(log n)
// butterfly steps and of the twiddles (rounded from double), within
// (log2 n + 1) n 2^-24 max|x| and in practice far less; the tests state
// the bound. (Double, kept until 2026-12-06, was 2x the work per lane:
// half as many signals per vector and twice the bytes per pass.) Signals
// holding an infinity or NaN are left to the reference (which outputs
// then turn NaN depends on the summation order), and so are those with a
// value large enough that an fp32 sum could overflow (fft.c's
// safe_exponent: 2^118 for 64 points, 2^87 for 1001 points through
// Bluestein's) where the reference's double sums stay finite. Scratch:
// about 8 n (ETR_FFT_LANES + 1) bytes of ctx->temp (without room, the
// caller falls back).
#ifndef ETR_OPS_OPTIMIZED_FFT_FFT_H
#define ETR_OPS_OPTIMIZED_FFT_FFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/isa.h"

// The arithmetic type, and the signals per block: 16 floats, one AVX-512
// register.
typedef float etr_fft_real_t;
#define ETR_FFT_LANES 16

typedef struct etr_fft_kernels {
  // In-place radix-2 transform of m points (a power of two) of every lane,
  // the points already in bit-reversed order: twiddle k of a stage of
  // length 2h is (w_re[k m / 2h], sign * w_im[k m / 2h]) (sign 1: forward,
  // -1: inverse, unnormalized). With `first_done`, the first stage (of
  // length 2) is taken as done when log2 m is odd (pairs_to_rows_staged).
  void (*transform)(size_t m, etr_fft_real_t *re, etr_fft_real_t *im,
                    const etr_fft_real_t *w_re, const etr_fft_real_t *w_im,
                    etr_fft_real_t sign, bool first_done);
  // The real transform X[0..m] (xr, xi: m + 1 points) of the 2m real
  // samples whose half-length transform Z is (re, im), with w = (w_re,
  // w_im) the forward twiddles of length 2m (k < m).
  void (*r2c_split)(size_t m, const etr_fft_real_t *re,
                    const etr_fft_real_t *im, const etr_fft_real_t *w_re,
                    const etr_fft_real_t *w_im, etr_fft_real_t *xr,
                    etr_fft_real_t *xi);
  // The inverse of r2c_split, unnormalized and times 2: from a Hermitian
  // X[0..m] (xi[0] and xi[m] must be 0) the m points whose inverse
  // transform interleaves the 2m real samples, point k written at
  // position rev[k] (bit-reversed, ready for `transform`; k when rev is
  // NULL).
  void (*c2r_merge)(size_t m, const etr_fft_real_t *xr,
                    const etr_fft_real_t *xi, const etr_fft_real_t *w_re,
                    const etr_fft_real_t *w_im, const uint32_t *rev,
                    etr_fft_real_t *re, etr_fft_real_t *im);
  // Moves between ETR_FFT_LANES signals of interleaved float pairs
  // (source[l][2 t], source[l][2 t + 1]: a real signal's even and odd
  // samples, or a complex signal's real and imaginary parts, contiguous)
  // and rows of lanes. NULL where the ISA has none: the driver's element
  // loops do the same. pairs_to_rows: row (rev ? rev[t] : t) of (re, im)
  // = the pair t of each signal, t < count.
  void (*pairs_to_rows)(size_t count, const float *const *source,
                        const uint32_t *rev, etr_fft_real_t *re,
                        etr_fft_real_t *im);
  // rows_to_pairs: pair t of each target = (re row t * scale, im row t *
  // scale), t < count, in fp32.
  void (*rows_to_pairs)(size_t count, const etr_fft_real_t *re,
                        const etr_fft_real_t *im, etr_fft_real_t scale,
                        float *const *target);
  // Optional fusions of the r2c passes (NULL: the separate ones), each
  // the same arithmetic: pairs_to_rows_staged is pairs_to_rows of all m
  // points (rev given) and then the transform's first stage, for log2 m
  // odd and m >= 16; split_to_pairs is r2c_split and then rows_to_pairs
  // of its m + 1 rows, for m a multiple of 8, writing no (xr, xi).
  void (*pairs_to_rows_staged)(size_t m, const float *const *source,
                               const uint32_t *rev, etr_fft_real_t *re,
                               etr_fft_real_t *im);
  // The transform of m points in natural order by Stockham steps of
  // radix 2, 3, 4 or 5 (`radices`, product m), through (work_re,
  // work_im), the result in (re, im): tw per step, for k < span (the
  // product of the steps before) and r < radix - 1, exp(-2 pi i (r + 1) k
  // / (span radix)); sign 1 forward, -1 inverse (unnormalized).
  void (*stockham)(size_t m, const uint8_t *radices, size_t steps,
                   const etr_fft_real_t *tw_re, const etr_fft_real_t *tw_im,
                   etr_fft_real_t sign, etr_fft_real_t *re,
                   etr_fft_real_t *im, etr_fft_real_t *work_re,
                   etr_fft_real_t *work_im);
  // Row j < count of in times (f_re[j] + i f_im[j]), into row (rev ?
  // rev[j] : j) of out (not overlapping in).
  void (*scale_rows)(size_t count, const etr_fft_real_t *in_re,
                     const etr_fft_real_t *in_im, const etr_fft_real_t *f_re,
                     const etr_fft_real_t *f_im, const uint32_t *rev,
                     etr_fft_real_t *out_re, etr_fft_real_t *out_im);
  // True when each of `count` floats is below 2^exponent in magnitude
  // (exponent 1 to 128; 128: finite, no NaN).
  bool (*all_below)(const float *values, size_t count, int exponent);
  void (*split_to_pairs)(size_t m, const etr_fft_real_t *re,
                         const etr_fft_real_t *im,
                         const etr_fft_real_t *w_re,
                         const etr_fft_real_t *w_im, etr_fft_real_t scale,
                         float *const *target);
} etr_fft_kernels_t;

extern const etr_fft_kernels_t etr_fft_kernels_scalar;
extern const etr_fft_kernels_t etr_fft_kernels_avx2;
extern const etr_fft_kernels_t etr_fft_kernels_avx512;
extern const etr_fft_kernels_t etr_fft_kernels_neon;

// The table for `isa` (scalar when that ISA is not built in).
const etr_fft_kernels_t *etr_fft_kernels_for(etr_isa_t isa);

// r2c of Float self along `dim` (n = self.sizes[dim]) into
// ComplexFloat out (n/2 + 1 or n entries along dim), times `scale`.
bool etr_fft_r2c_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, double scale, bool onesided,
                     etr_tensor_t *out);
// c2r of ComplexFloat self along `dim` into Float out with n =
// out.sizes[dim] entries: the Hermitian extension of the first n/2 + 1
// inputs (the imaginary parts of entry 0 and, n even, n/2 ignored),
// inverse transformed, real part times `scale`.
bool etr_fft_c2r_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, double scale, etr_tensor_t *out);

#endif  // ETR_OPS_OPTIMIZED_FFT_FFT_H
