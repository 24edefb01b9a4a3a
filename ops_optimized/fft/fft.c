// SPDX-License-Identifier: Apache-2.0
//
// Drivers of the FFTs (see fft.h): twiddles, bit reversal, the gathers
// of blocks of signals into lanes and the writes back, around the active
// ISA's kernels.
#include "ops_optimized/fft/fft.h"

#include <math.h>
#include <string.h>

#include "core/arena.h"
#include "ops_reference/support/nn_fft.h"
#include "ops_reference/support/shape.h"

// The element gathers (strided signals, partial blocks) are loops for the
// compiler to vectorize, which GCC 12 does at -O2 only without a scalar
// epilogue: ask for it (clang vectorizes at -O2 already).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

enum { kLanes = ETR_FFT_LANES };

static bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// True when log2 m (m a power of two) is odd.
static bool odd_stages(size_t m) {
  int stages = 0;
  while (((size_t)1 << stages) < m) {
    ++stages;
  }
  return stages % 2 == 1;
}

// The forward twiddles exp(-2 pi i k / n), k < n / 2, as (w_re, w_im):
// k <= n/8 from cos and sin of the phase reduced exactly
// (etr_nn_fft_phase), the rest by symmetry (cos and sin of 2 pi k / n
// swap about n/8 and change sign about n/4), which costs an eighth of the
// libm calls (they would take 20 us of a 64-signal 1024-point r2c).
static void twiddles(int64_t n, etr_fft_real_t *w_re,
                     etr_fft_real_t *w_im) {
  int64_t direct = n >= 8 ? n / 8 : n / 2 - 1;
  for (int64_t k = 0; k <= direct; ++k) {
    double angle = ETR_NN_TWO_PI * etr_nn_fft_phase(k, 1, n);
    w_re[k] = (etr_fft_real_t)cos(angle);  // rounded once from double
    w_im[k] = (etr_fft_real_t)-sin(angle);
  }
  if (n < 8) {
    return;
  }
  for (int64_t k = n / 8 + 1; k <= n / 4; ++k) {
    w_re[k] = -w_im[n / 4 - k];  // cos(pi/2 - a) = sin a
    w_im[k] = -w_re[n / 4 - k];
  }
  for (int64_t k = n / 4 + 1; k < n / 2; ++k) {
    w_re[k] = -w_re[n / 2 - k];  // cos(pi - a) = -cos a
    w_im[k] = w_im[n / 2 - k];   // sin(pi - a) = sin a
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

// True when every value the transform reads is finite. With an infinity
// or NaN in a signal, which outputs come out NaN and which infinite
// depends on the order of the sums, so such inputs go to the reference.
static bool all_finite(const etr_fft_kernels_t *k, const float *data,
                       const etr_tensor_t *tensor, int32_t dim, int64_t count,
                       int components) {
  if (count == tensor->sizes[dim] && etr_tensor_is_contiguous(tensor)) {
    // Every value is read: one pass in the ISA's vectors. (A compare per
    // value, scalar, took 10 us of a 64 x 1024-point r2c's 118.)
    return k->all_finite(data, (size_t)(etr_numel(tensor) * components));
  }
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

// Scratch for transforms of n = 2m real points.
typedef struct plan {
  etr_arena_mark_t mark;  // where the arena stood before
  size_t m;
  etr_fft_real_t *w_re, *w_im;    // length-n twiddles, k < m
  etr_fft_real_t *tw_re, *tw_im;  // length-m twiddles, k < m/2 (w at 2k)
  uint32_t *rev;          // bit reversal of m points
  etr_fft_real_t *re, *im;        // m points x lanes
  etr_fft_real_t *xr, *xi;        // m + 1 points x lanes
} plan_t;

// Takes the scratch from `temp` and fills the tables; false, with nothing
// kept, without an arena or room in it (the caller falls back).
static bool plan_begin(etr_arena_t *temp, int64_t n, plan_t *p) {
  if (temp == NULL || n > (INT64_C(1) << 31)) {
    return false;
  }
  p->mark = etr_arena_mark(temp);
  size_t m = (size_t)n / 2;
  size_t half = m / 2 > 0 ? m / 2 : 1;
  p->m = m;
  p->w_re = etr_arena_alloc(temp, m * sizeof(etr_fft_real_t), 64);
  p->w_im = etr_arena_alloc(temp, m * sizeof(etr_fft_real_t), 64);
  p->tw_re = etr_arena_alloc(temp, half * sizeof(etr_fft_real_t), 64);
  p->tw_im = etr_arena_alloc(temp, half * sizeof(etr_fft_real_t), 64);
  p->rev = etr_arena_alloc(temp, m * sizeof(uint32_t), 64);
  p->re = etr_arena_alloc(temp, m * kLanes * sizeof(etr_fft_real_t), 64);
  p->im = etr_arena_alloc(temp, m * kLanes * sizeof(etr_fft_real_t), 64);
  p->xr = etr_arena_alloc(temp, (m + 1) * kLanes * sizeof(etr_fft_real_t), 64);
  p->xi = etr_arena_alloc(temp, (m + 1) * kLanes * sizeof(etr_fft_real_t), 64);
  if (p->xi == NULL || p->xr == NULL || p->im == NULL || p->re == NULL ||
      p->rev == NULL || p->tw_im == NULL || p->tw_re == NULL ||
      p->w_im == NULL || p->w_re == NULL) {
    etr_arena_rewind(temp, p->mark);
    return false;
  }
  twiddles(n, p->w_re, p->w_im);
  for (size_t k = 0; k < m / 2; ++k) {
    p->tw_re[k] = p->w_re[2 * k];
    p->tw_im[k] = p->w_im[2 * k];
  }
  int bits = 0;
  while (((size_t)1 << bits) < m) {
    ++bits;
  }
  // rev[k] is rev[k / 2] shifted right, with k's low bit on top.
  p->rev[0] = 0;
  for (size_t k = 1; k < m; ++k) {
    p->rev[k] = (p->rev[k >> 1] >> 1) | (uint32_t)((k & 1u) << (bits - 1));
  }
  return true;
}

static void plan_end(etr_arena_t *temp, const plan_t *p) {
  etr_arena_rewind(temp, p->mark);
}

// Pair t (t < count) of each of `lanes` signals, (source[l][t * step],
// source[l][t * step + partner]), into row (rev ? rev[t] : t) of (re,
// im); lanes past `lanes` transform zeros. Contiguous pairs of a full
// block take the ISA's block kernel when it has one.
static void gather_pairs(const etr_fft_kernels_t *k, size_t count,
                         const float *const *source, int64_t lanes,
                         int64_t step, int64_t partner, const uint32_t *rev,
                         etr_fft_real_t *re, etr_fft_real_t *im) {
  if (lanes == kLanes && step == 2 && partner == 1 &&
      k->pairs_to_rows != NULL) {
    k->pairs_to_rows(count, source, rev, re, im);
    return;
  }
  for (size_t t = 0; t < count; ++t) {
    etr_fft_real_t *row_re = re + (rev != NULL ? rev[t] : t) * kLanes;
    etr_fft_real_t *row_im = im + (rev != NULL ? rev[t] : t) * kLanes;
    int64_t at = (int64_t)t * step;
    for (int64_t l = 0; l < lanes; ++l) {
      row_re[l] = source[l][at];
      row_im[l] = source[l][at + partner];
    }
    for (int64_t l = lanes; l < kLanes; ++l) {
      row_re[l] = 0.0;
      row_im[l] = 0.0;
    }
  }
}

// The way back: pair t of each of `lanes` targets = row t of (re, im)
// times scale (fp32 products).
static void scatter_pairs(const etr_fft_kernels_t *k, size_t count,
                          const etr_fft_real_t *re, const etr_fft_real_t *im,
                          etr_fft_real_t scale,
                          float *const *target, int64_t lanes, int64_t step,
                          int64_t partner) {
  if (lanes == kLanes && step == 2 && partner == 1 &&
      k->rows_to_pairs != NULL) {
    k->rows_to_pairs(count, re, im, scale, target);
    return;
  }
  for (size_t t = 0; t < count; ++t) {
    const etr_fft_real_t *row_re = re + t * kLanes;
    const etr_fft_real_t *row_im = im + t * kLanes;
    int64_t at = (int64_t)t * step;
    for (int64_t l = 0; l < lanes; ++l) {
      target[l][at] = row_re[l] * scale;
      target[l][at + partner] = row_im[l] * scale;
    }
  }
}

bool etr_fft_r2c_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, double scale, bool onesided,
                     etr_tensor_t *out) {
  const etr_fft_kernels_t *k = etr_fft_kernels_for(etr_isa_active());
  if (self->dtype != ETR_FLOAT || out->dtype != ETR_COMPLEX_FLOAT ||
      !is_power_of_two(self->sizes[dim]) ||
      !all_finite(k, (const float *)self->data, self, dim, self->sizes[dim],
                  1)) {
    return false;
  }
  int64_t n = self->sizes[dim];
  int64_t signals = signal_count(self, dim);
  const float *x = (const float *)self->data;
  float *y = (float *)out->data;  // (re, im) pairs
  int64_t in_step = self->strides[dim];
  int64_t out_step = 2 * out->strides[dim];
  if (n == 1) {
    for (int64_t o = 0; o < signals; ++o) {
      float *target = y + 2 * signal_offset(out, dim, o);
      target[0] = (float)((double)x[signal_offset(self, dim, o)] * scale);
      target[1] = 0.0f;
    }
    return true;
  }
  plan_t p;
  if (!plan_begin(ctx->temp, n, &p)) {
    return false;
  }
  const etr_fft_real_t factor = (etr_fft_real_t)scale;
  size_t m = p.m;
  for (int64_t first = 0; first < signals; first += kLanes) {
    int64_t lanes = signals - first < kLanes ? signals - first : kLanes;
    // Point t of every lane at once (one row of lanes written, each
    // signal read in order); an idle lane transforms zeros.
    const float *source[kLanes];
    for (int64_t l = 0; l < lanes; ++l) {
      source[l] = x + signal_offset(self, dim, first + l);
    }
    // A full block of contiguous signals takes the ISA's fused passes
    // where it has them (fft.h), the same arithmetic in fewer passes.
    bool dense_in = lanes == kLanes && in_step == 1;
    bool dense_out = lanes == kLanes && out_step == 2 && onesided;
    bool staged = dense_in && k->pairs_to_rows_staged != NULL &&
                  odd_stages(m) && m >= 16;
    if (staged) {
      k->pairs_to_rows_staged(m, source, p.rev, p.re, p.im);
    } else {
      gather_pairs(k, m, source, lanes, 2 * in_step, in_step, p.rev, p.re,
                   p.im);
    }
    k->transform(m, p.re, p.im, p.tw_re, p.tw_im, 1.0f, staged);
    float *target[kLanes];
    for (int64_t l = 0; l < lanes; ++l) {
      target[l] = y + 2 * signal_offset(out, dim, first + l);
    }
    if (dense_out && k->split_to_pairs != NULL && m >= 8) {
      k->split_to_pairs(m, p.re, p.im, p.w_re, p.w_im, factor, target);
      continue;
    }
    k->r2c_split(m, p.re, p.im, p.w_re, p.w_im, p.xr, p.xi);
    scatter_pairs(k, m + 1, p.xr, p.xi, factor, target, lanes, out_step, 1);
    for (size_t j = m + 1; !onesided && j < (size_t)n; ++j) {
      // X[n - j] = conj(X[j])
      const etr_fft_real_t *row_re = p.xr + ((size_t)n - j) * kLanes;
      const etr_fft_real_t *row_im = p.xi + ((size_t)n - j) * kLanes;
      int64_t at = (int64_t)j * out_step;
      for (int64_t l = 0; l < lanes; ++l) {
        target[l][at] = row_re[l] * factor;
        target[l][at + 1] = -row_im[l] * factor;
      }
    }
  }
  plan_end(ctx->temp, &p);
  return true;
}

bool etr_fft_c2r_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, double scale, etr_tensor_t *out) {
  const etr_fft_kernels_t *k = etr_fft_kernels_for(etr_isa_active());
  if (self->dtype != ETR_COMPLEX_FLOAT || out->dtype != ETR_FLOAT ||
      !is_power_of_two(out->sizes[dim]) ||
      !all_finite(k, (const float *)self->data, self, dim,
                  out->sizes[dim] / 2 + 1, 2)) {
    return false;
  }
  int64_t n = out->sizes[dim];
  int64_t signals = signal_count(out, dim);
  const float *x = (const float *)self->data;  // (re, im) pairs
  float *y = (float *)out->data;
  int64_t in_step = 2 * self->strides[dim];
  int64_t out_step = out->strides[dim];
  if (n == 1) {
    for (int64_t o = 0; o < signals; ++o) {
      y[signal_offset(out, dim, o)] =
          (float)((double)x[2 * signal_offset(self, dim, o)] * scale);
    }
    return true;
  }
  plan_t p;
  if (!plan_begin(ctx->temp, n, &p)) {
    return false;
  }
  const etr_fft_real_t factor = (etr_fft_real_t)scale;
  size_t m = p.m;
  for (int64_t first = 0; first < signals; first += kLanes) {
    int64_t lanes = signals - first < kLanes ? signals - first : kLanes;
    const float *source[kLanes];
    for (int64_t l = 0; l < lanes; ++l) {
      source[l] = x + 2 * signal_offset(self, dim, first + l);
    }
    gather_pairs(k, m + 1, source, lanes, in_step, 1, NULL, p.xr, p.xi);
    // The imaginary parts of X[0] and X[n/2] are ignored (times 0.0, as
    // the element loop did).
    for (int64_t l = 0; l < kLanes; ++l) {
      p.xi[l] *= 0.0;
      p.xi[m * kLanes + l] *= 0.0;
    }
    k->c2r_merge(m, p.xr, p.xi, p.w_re, p.w_im, p.rev, p.re, p.im);
    k->transform(m, p.re, p.im, p.tw_re, p.tw_im, -1.0f, false);
    float *target[kLanes];
    for (int64_t l = 0; l < lanes; ++l) {
      target[l] = y + signal_offset(out, dim, first + l);
    }
    scatter_pairs(k, m, p.re, p.im, factor, target, lanes, 2 * out_step,
                  out_step);
  }
  plan_end(ctx->temp, &p);
  return true;
}
