// SPDX-License-Identifier: Apache-2.0
//
// Radix-2 FFTs in double (see fft.h).
#include "ops_optimized/fft/fft.h"

#include <math.h>
#include <string.h>

#include "core/arena.h"
#include "ops_reference/support/nn_fft.h"
#include "ops_reference/support/shape.h"

typedef struct complex_d {
  double re;
  double im;
} complex_d;

static bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// The forward twiddles exp(-2 pi i k / n), k < n / 2, with the phase
// reduced exactly (etr_nn_fft_phase) before the one multiplication.
static void twiddles(int64_t n, complex_d *w) {
  for (int64_t k = 0; k < n / 2; ++k) {
    double angle = ETR_NN_TWO_PI * etr_nn_fft_phase(k, 1, n);
    w[k].re = cos(angle);
    w[k].im = -sin(angle);
  }
}

// In-place iterative FFT of a[0..n); `inverse` conjugates the twiddles.
static void transform(complex_d *a, int64_t n, const complex_d *w,
                      bool inverse) {
  for (int64_t i = 1, j = 0; i < n; ++i) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) {
      j ^= bit;
    }
    j ^= bit;
    if (i < j) {
      complex_d t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (int64_t length = 2; length <= n; length <<= 1) {
    int64_t step = n / length;
    for (int64_t start = 0; start < n; start += length) {
      for (int64_t k = 0; k < length / 2; ++k) {
        complex_d twiddle = w[k * step];
        if (inverse) {
          twiddle.im = -twiddle.im;
        }
        complex_d u = a[start + k];
        complex_d v = a[start + k + length / 2];
        complex_d t = {v.re * twiddle.re - v.im * twiddle.im,
                       v.re * twiddle.im + v.im * twiddle.re};
        a[start + k].re = u.re + t.re;
        a[start + k].im = u.im + t.im;
        a[start + k + length / 2].re = u.re - t.re;
        a[start + k + length / 2].im = u.im - t.im;
      }
    }
  }
}

// Offsets of signal o's first element in `tensor` (all dims but `dim`, in
// row-major order).
static int64_t signal_offset(const etr_tensor_t *tensor, int32_t dim,
                             int64_t o) {
  int64_t offset = 0;
  for (int32_t d = tensor->dim - 1; d >= 0; --d) {
    if (d == dim) {
      continue;
    }
    offset += (o % tensor->sizes[d]) * tensor->strides[d];
    o /= tensor->sizes[d];
  }
  return offset;
}

static int64_t signal_count(const etr_tensor_t *tensor, int32_t dim) {
  int64_t count = 1;
  for (int32_t d = 0; d < tensor->dim; ++d) {
    count *= d == dim ? 1 : tensor->sizes[d];
  }
  return count;
}

static complex_d *scratch(etr_kernel_context_t *ctx, int64_t n,
                          complex_d **w) {
  if (ctx->temp == NULL) {
    return NULL;
  }
  complex_d *a = etr_arena_alloc(ctx->temp, (size_t)n * sizeof(complex_d), 64);
  *w = etr_arena_alloc(ctx->temp, (size_t)(n / 2 + 1) * sizeof(complex_d),
                       64);
  return *w != NULL ? a : NULL;
}

// True when every value the transform reads is finite. With an infinity
// or NaN in a signal, which outputs come out NaN and which infinite
// depends on the order of the sums, so such inputs go to the reference.
static bool all_finite(const float *data, const etr_tensor_t *tensor,
                       int32_t dim, int64_t count, int components) {
  int64_t signals = signal_count(tensor, dim);
  for (int64_t o = 0; o < signals; ++o) {
    const float *source = data + components * signal_offset(tensor, dim, o);
    for (int64_t t = 0; t < count; ++t) {
      for (int part = 0; part < components; ++part) {
        if (!isfinite(source[components * t * tensor->strides[dim] + part])) {
          return false;
        }
      }
    }
  }
  return true;
}

bool etr_fft_r2c_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, double scale, bool onesided,
                     etr_tensor_t *out) {
  if (self->dtype != ETR_FLOAT || out->dtype != ETR_COMPLEX_FLOAT ||
      !is_power_of_two(self->sizes[dim]) ||
      !all_finite((const float *)self->data, self, dim, self->sizes[dim],
                  1)) {
    return false;
  }
  int64_t n = self->sizes[dim];
  complex_d *w = NULL;
  complex_d *a = scratch(ctx, n, &w);
  if (a == NULL) {
    return false;
  }
  twiddles(n, w);
  int64_t kept = onesided ? n / 2 + 1 : n;
  int64_t signals = signal_count(self, dim);
  const float *x = (const float *)self->data;
  float *y = (float *)out->data;  // (re, im) pairs
  for (int64_t o = 0; o < signals; ++o) {
    const float *source = x + signal_offset(self, dim, o);
    for (int64_t t = 0; t < n; ++t) {
      a[t].re = (double)source[t * self->strides[dim]];
      a[t].im = 0.0;
    }
    transform(a, n, w, false);
    float *target = y + 2 * signal_offset(out, dim, o);
    for (int64_t k = 0; k < kept; ++k) {
      float *element = target + 2 * k * out->strides[dim];
      element[0] = (float)(a[k].re * scale);
      element[1] = (float)(a[k].im * scale);
    }
  }
  return true;
}

bool etr_fft_c2r_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, double scale, etr_tensor_t *out) {
  if (self->dtype != ETR_COMPLEX_FLOAT || out->dtype != ETR_FLOAT ||
      !is_power_of_two(out->sizes[dim]) ||
      !all_finite((const float *)self->data, self, dim,
                  out->sizes[dim] / 2 + 1, 2)) {
    return false;
  }
  int64_t n = out->sizes[dim];
  complex_d *w = NULL;
  complex_d *a = scratch(ctx, n, &w);
  if (a == NULL) {
    return false;
  }
  twiddles(n, w);
  int64_t signals = signal_count(out, dim);
  const float *x = (const float *)self->data;
  float *y = (float *)out->data;
  for (int64_t o = 0; o < signals; ++o) {
    const float *source = x + 2 * signal_offset(self, dim, o);
    for (int64_t k = 0; k <= n / 2; ++k) {
      const float *element = source + 2 * k * self->strides[dim];
      a[k].re = (double)element[0];
      a[k].im = (k == 0 || 2 * k == n) ? 0.0 : (double)element[1];
    }
    for (int64_t k = n / 2 + 1; k < n; ++k) {
      a[k].re = a[n - k].re;
      a[k].im = -a[n - k].im;
    }
    transform(a, n, w, true);
    float *target = y + signal_offset(out, dim, o);
    for (int64_t t = 0; t < n; ++t) {
      target[t * out->strides[dim]] = (float)(a[t].re * scale);
    }
  }
  return true;
}
