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

enum { kFine = 64 };  // the most fine factors of circle()

// exp(-2 pi i k / n) for k = 0..last as (w_re, w_im): each the product
// in double of exp(-2 pi i h b / n) and exp(-2 pi i l / n) for k = h b +
// l, b about sqrt(last + 1) (at most kFine), both from cos and sin of the
// phase reduced exactly (etr_nn_fft_phase), then rounded once to float:
// about 2 sqrt(last) libm calls in place of last + 1 (113 pairs took 1.8
// us of a 64-signal 225-point r2c's 16). The product is within a few
// double ulps of the exact value, so its rounding can differ from that of
// cos itself only where the exact value lies within about 2^-29 float
// ulp of a rounding boundary.
static void circle(int64_t n, int64_t last, etr_fft_real_t *w_re,
                   etr_fft_real_t *w_im) {
  int64_t b = 1;
  while (b < kFine && b * b < last + 1) {
    ++b;
  }
  double fine_re[kFine];
  double fine_im[kFine];
  for (int64_t l = 0; l < b; ++l) {
    double angle = ETR_NN_TWO_PI * etr_nn_fft_phase(l, 1, n);
    fine_re[l] = cos(angle);
    fine_im[l] = -sin(angle);
  }
  for (int64_t h = 0; h * b <= last; ++h) {
    double angle = ETR_NN_TWO_PI * etr_nn_fft_phase(h * b, 1, n);
    double c_re = h == 0 ? 1.0 : cos(angle);
    double c_im = h == 0 ? 0.0 : -sin(angle);
    for (int64_t l = 0; l < b && h * b + l <= last; ++l) {
      int64_t k = h * b + l;
      w_re[k] = (etr_fft_real_t)(c_re * fine_re[l] - c_im * fine_im[l]);
      w_im[k] = (etr_fft_real_t)(c_re * fine_im[l] + c_im * fine_re[l]);
    }
  }
}

// The forward twiddles exp(-2 pi i k / n), k < n / 2, as (w_re, w_im):
// k <= n/8 by circle(), the rest by symmetry (cos and sin of 2 pi k / n
// swap about n/8 and change sign about n/4) when 8 divides n.
static void twiddles(int64_t n, etr_fft_real_t *w_re,
                     etr_fft_real_t *w_im) {
  bool symmetric = n >= 8 && n % 8 == 0;
  int64_t direct = symmetric ? n / 8 : (n + 1) / 2 - 1;
  circle(n, direct, w_re, w_im);
  if (!symmetric) {
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

// True when every value the transform reads is below 2^exponent in
// magnitude (safe_exponent): finite, and small enough that no sum of the
// fp32 transform overflows where the reference's double sums do not (a
// fuzzed r2c of values near 1e37 gave -inf where the result was
// -2.1e38). With an infinity or NaN in a signal, which outputs come out
// NaN and which infinite depends on the order of the sums; such inputs,
// and those too large, go to the reference.
static bool all_below(const etr_fft_kernels_t *k, const float *data,
                      const etr_tensor_t *tensor, int32_t dim, int64_t count,
                      int components, int exponent) {
  if (count == tensor->sizes[dim] && etr_tensor_is_contiguous(tensor)) {
    // Every value is read: one pass in the ISA's vectors. (A compare per
    // value, scalar, took 10 us of a 64 x 1024-point r2c's 118.)
    return k->all_below(data, (size_t)(etr_numel(tensor) * components),
                        exponent);
  }
  const float limit = ldexpf(1.0f, exponent);  // 2^128: infinity
  int64_t signals = signal_count(tensor, dim);
  for (int64_t o = 0; o < signals; ++o) {
    const float *source = data + components * signal_offset(tensor, dim, o);
    for (int64_t t = 0; t < count; ++t) {
      for (int part = 0; part < components; ++part) {
        // false for a NaN too
        if (!(fabsf(source[components * t * tensor->strides[dim] + part]) <
              limit)) {
          return false;
        }
      }
    }
  }
  return true;
}

// Scratch for transforms of n = 2m real points (n even), or, for n odd,
// of n = m complex points that carry two signals a lane (r2c_odd,
// c2r_odd). The m complex points go through the radix-2 transform when m
// is a power of two, else through Stockham steps of radix 2, 3, 4 and 5
// when those are its only prime factors (m = 200: 4 x 2 x 5 x 5), else
// through Bluestein's:
// Z_k = conj(c_k) sum_j (z_j conj(c_j)) c_{k - j} with the chirp c_j =
// exp(i pi j^2 / m) (the forward transform; the inverse conjugates it), a
// convolution done as transforms of a power of two M >= 2m - 1: three of
// them per block where the radix-2 path takes one, still O(n log n) (the
// reference's direct DFT: O(n^2)).
typedef struct plan {
  etr_arena_mark_t mark;  // where the arena stood before
  int64_t n;
  size_t m;
  size_t size;                    // the radix-2 transform's length: m or M
  bool bluestein;
  // Stockham only: its steps, their twiddles (m - 1 in all) and the work
  // arrays (m x lanes) it ping-pongs through.
  size_t steps;
  uint8_t radices[64];
  etr_fft_real_t *st_re, *st_im;
  etr_fft_real_t *work_re, *work_im;
  bool odd;                       // n odd: m = n complex points
  etr_fft_real_t *w_re, *w_im;    // length-n twiddles, k < m
  etr_fft_real_t *tw_re, *tw_im;  // length-`size` twiddles, k < size / 2
  uint32_t *rev;                  // bit reversal of `size` points
  // Where point t goes before the transform: row order[t], the bit
  // reversal on the radix-2 path; NULL (row t) on the others.
  const uint32_t *order;
  etr_fft_real_t *re, *im;        // m points x lanes
  etr_fft_real_t *xr, *xi;        // m + 1 points x lanes
  // Bluestein only, for the plan's direction: the factors of the three
  // products, conj(c_j) (m), the transform of the chirp sequence (M: c_j
  // at j and M - j, zeros between) and conj(c_j) / M (m); two M x lanes
  // work arrays.
  etr_fft_real_t *in_re, *in_im;
  etr_fft_real_t *mid_re, *mid_im;
  etr_fft_real_t *out_re, *out_im;
  etr_fft_real_t *ar, *ai, *br, *bi;
} plan_t;

static void *take(etr_arena_t *temp, size_t count, size_t size,
                  bool *ok) {
  void *block = etr_arena_alloc(temp, count * size, 64);
  *ok = *ok && block != NULL;
  return block;
}

static void bit_reversal(size_t size, uint32_t *rev) {
  int bits = 0;
  while (((size_t)1 << bits) < size) {
    ++bits;
  }
  // rev[k] is rev[k / 2] shifted right, with k's low bit on top.
  rev[0] = 0;
  for (size_t k = 1; k < size; ++k) {
    rev[k] = (rev[k >> 1] >> 1) | (uint32_t)((k & 1u) << (bits - 1));
  }
}

// The factors of the three products (see plan_t) for `sign` (1: the
// forward chirp, -1: its conjugate), the chirp sequence's transform by
// the lanes' own transform (every lane the same sequence; lane 0 kept).
static void bluestein_tables(const etr_fft_kernels_t *k, plan_t *p,
                             etr_fft_real_t sign) {
  size_t m = p->m;
  size_t big = p->size;
  const double inverse = 1.0 / (double)big;
  memset(p->ar, 0, big * kLanes * sizeof(etr_fft_real_t));
  memset(p->ai, 0, big * kLanes * sizeof(etr_fft_real_t));
  // The 2m-point circle's first half in mid (big >= 2m; its transform
  // comes later): the chirp at j is its point j^2 mod 2m, exact for any m.
  circle(2 * (int64_t)m, (int64_t)m, p->mid_re, p->mid_im);
  for (size_t j = 0; j < m; ++j) {
    size_t q = (size_t)((uint64_t)j * j % (2 * (uint64_t)m));
    bool far = q > m;  // exp(-pi i q / m) = conj of the point at 2m - q
    etr_fft_real_t c_re = far ? p->mid_re[2 * m - q] : p->mid_re[q];
    etr_fft_real_t c_im = far ? p->mid_im[2 * m - q] : -p->mid_im[q];
    c_im *= sign;  // sign * sin(pi q / m)
    p->in_re[j] = c_re;
    p->in_im[j] = -c_im;
    p->out_re[j] = (etr_fft_real_t)(c_re * inverse);  // exact: big = 2^e
    p->out_im[j] = (etr_fft_real_t)(-c_im * inverse);
    size_t at[2] = {j, (big - j) % big};
    for (int side = 0; side < (j == 0 ? 1 : 2); ++side) {
      size_t row = p->rev[at[side]] * kLanes;
      for (int64_t l = 0; l < kLanes; ++l) {
        p->ar[row + l] = (etr_fft_real_t)c_re;
        p->ai[row + l] = (etr_fft_real_t)c_im;
      }
    }
  }
  k->transform(big, p->ar, p->ai, p->tw_re, p->tw_im, 1.0f, false);
  for (size_t j = 0; j < big; ++j) {
    p->mid_re[j] = p->ar[j * kLanes];
    p->mid_im[j] = p->ai[j * kLanes];
  }
}

// m's Stockham steps, radix 4 first, then 2, 3 and 5, into `radices`
// (room for 64: m < 2^28); 0 when m has another prime factor.
static size_t stockham_steps(size_t m, uint8_t *radices) {
  static const uint8_t kRadices[] = {4, 2, 3, 5};
  size_t steps = 0;
  for (size_t r = 0; r < sizeof(kRadices); ++r) {
    for (; m % kRadices[r] == 0; m /= kRadices[r]) {
      radices[steps++] = kRadices[r];
    }
  }
  return m == 1 ? steps : 0;
}

// The complex points an n-point real transform takes: n / 2 for an even
// n, n (two signals a lane) for an odd one.
static size_t complex_points(int64_t n) {
  return n % 2 != 0 ? (size_t)n : (size_t)n / 2;
}

// Whether m complex points go through Bluestein's: not a power of two
// (the radix-2 transform) and not Stockham steps of radix 2, 3, 4 and 5
// (*steps of them, `radices` filled; 0 otherwise).
static bool takes_bluestein(size_t m, uint8_t *radices, size_t *steps) {
  const bool radix2 = is_power_of_two((int64_t)m);
  *steps = radix2 ? 0 : stockham_steps(m, radices);
  return !radix2 && *steps == 0;
}

// Bluestein's convolution length for m points: the least power of two
// M >= 2m - 1.
static size_t convolution_size(size_t m) {
  size_t big = 1;
  while (big < 2 * m - 1) {
    big *= 2;
  }
  return big;
}

// Chooses the path of an n-point transform (see plan_t) into p, its
// scratch not taken yet; false when n is below 2 or above 2^28 (the
// caller falls back).
static bool plan_shape(int64_t n, plan_t *p) {
  if (n < 2 || n > (INT64_C(1) << 28)) {
    return false;
  }
  memset(p, 0, sizeof(*p));
  p->n = n;
  p->odd = n % 2 != 0;
  p->m = complex_points(n);
  p->bluestein = takes_bluestein(p->m, p->radices, &p->steps);
  p->size = p->bluestein ? convolution_size(p->m) : p->m;
  return true;
}

// The binary exponent below which every input value of p's transform
// keeps the fp32 sums finite: a Stockham or radix-2 transform of m points
// and its split grow a component by at most 4m (m sums of values up to
// sqrt(2) A, a twiddle product's sqrt(2), the split's two terms);
// Bluestein's convolution of M points by at most 64 M^2 m (the chirp's
// transform is up to 2m, each transform of M points up to 2M, before the
// division by M). Two bits of margin more; at least 1.
static int safe_exponent(const plan_t *p) {
  const double m = (double)p->m;
  const double big = (double)p->size;
  const double growth =
      p->bluestein ? 64.0 * big * big * m * 4.0 : 4.0 * m * 4.0;
  const int exponent = 127 - (int)ceil(log2(growth));
  return exponent < 1 ? 1 : exponent;
}

// Takes the scratch of p's path (plan_shape) from `temp` and fills the
// tables; false, with nothing kept, without an arena or room in it (the
// caller falls back).
static bool plan_begin(etr_arena_t *temp, const etr_fft_kernels_t *k,
                       etr_fft_real_t sign, plan_t *p) {
  if (temp == NULL) {
    return false;
  }
  p->mark = etr_arena_mark(temp);
  const int64_t n = p->n;
  const size_t m = p->m;
  bool stockham = p->steps > 0;
  bool radix2 = !stockham && !p->bluestein;
  size_t big = p->size;
  size_t half = p->size / 2 > 0 ? p->size / 2 : 1;
  size_t f = sizeof(etr_fft_real_t);
  bool ok = true;
  p->w_re = take(temp, m, f, &ok);
  p->w_im = take(temp, m, f, &ok);
  p->tw_re = take(temp, half, f, &ok);
  p->tw_im = take(temp, half, f, &ok);
  p->rev = take(temp, p->size, sizeof(uint32_t), &ok);
  p->re = take(temp, m * kLanes, f, &ok);
  p->im = take(temp, m * kLanes, f, &ok);
  p->xr = take(temp, (m + 1) * kLanes, f, &ok);
  p->xi = take(temp, (m + 1) * kLanes, f, &ok);
  if (stockham) {
    p->st_re = take(temp, m, f, &ok);
    p->st_im = take(temp, m, f, &ok);
    p->work_re = take(temp, m * kLanes, f, &ok);
    p->work_im = take(temp, m * kLanes, f, &ok);
  }
  if (p->bluestein) {
    p->in_re = take(temp, m, f, &ok);
    p->in_im = take(temp, m, f, &ok);
    p->mid_re = take(temp, big, f, &ok);
    p->mid_im = take(temp, big, f, &ok);
    p->out_re = take(temp, m, f, &ok);
    p->out_im = take(temp, m, f, &ok);
    p->ar = take(temp, big * kLanes, f, &ok);
    p->ai = take(temp, big * kLanes, f, &ok);
    p->br = take(temp, big * kLanes, f, &ok);
    p->bi = take(temp, big * kLanes, f, &ok);
  }
  if (!ok) {
    etr_arena_rewind(temp, p->mark);
    return false;
  }
  twiddles(n, p->w_re, p->w_im);
  for (size_t j = (size_t)n / 2 + 1; p->odd && j < m; ++j) {
    p->w_re[j] = p->w_re[m - j];  // the whole circle: w[n - j] = conj(w[j])
    p->w_im[j] = -p->w_im[m - j];
  }
  // A step's twiddle exp(-2 pi i r k / (span radix)) is the length-n
  // one at j = r k n / (span radix) (< n), -w[j - m] past m when n = 2m:
  // no libm call.
  size_t at = 0;
  size_t span = 1;
  for (size_t step = 0; step < p->steps; ++step) {
    size_t radix = p->radices[step];
    size_t scale = (size_t)n / (span * radix);
    for (size_t k = 0; k < span; ++k) {
      for (size_t r = 1; r < radix; ++r, ++at) {
        size_t j = r * k * scale;
        bool far = j >= m;
        p->st_re[at] = far ? -p->w_re[j - m] : p->w_re[j];
        p->st_im[at] = far ? -p->w_im[j - m] : p->w_im[j];
      }
    }
    span *= radix;
  }
  if (p->bluestein) {
    twiddles((int64_t)big, p->tw_re, p->tw_im);
  } else {
    for (size_t j = 0; j < m / 2; ++j) {
      p->tw_re[j] = p->w_re[2 * j];
      p->tw_im[j] = p->w_im[2 * j];
    }
  }
  bit_reversal(p->size, p->rev);
  p->order = radix2 ? p->rev : NULL;
  if (p->bluestein) {
    bluestein_tables(k, p, sign);
  }
  return true;
}

// Bluestein's transform (see plan_t) of the m points in rows 0..m-1 of
// (re, im), in place, in the plan's direction (the inverse unnormalized).
static void bluestein(const etr_fft_kernels_t *k, const plan_t *p,
                      etr_fft_real_t *re, etr_fft_real_t *im) {
  size_t m = p->m;
  size_t big = p->size;
  // a_j = z_j conj(c_j), into the bit-reversed rows; zeros past m.
  for (size_t j = m; j < big; ++j) {
    memset(p->ar + p->rev[j] * kLanes, 0, kLanes * sizeof(etr_fft_real_t));
    memset(p->ai + p->rev[j] * kLanes, 0, kLanes * sizeof(etr_fft_real_t));
  }
  k->scale_rows(m, re, im, p->in_re, p->in_im, p->rev, p->ar, p->ai);
  k->transform(big, p->ar, p->ai, p->tw_re, p->tw_im, 1.0f, false);
  // Times the chirp sequence's transform, bit-reversed again, and back.
  k->scale_rows(big, p->ar, p->ai, p->mid_re, p->mid_im, p->rev, p->br,
                p->bi);
  k->transform(big, p->br, p->bi, p->tw_re, p->tw_im, -1.0f, false);
  // Z_k = conj(c_k) (the convolution at k) / M.
  k->scale_rows(m, p->br, p->bi, p->out_re, p->out_im, NULL, re, im);
}

// The m points of (p->re, p->im), gathered in p->order, transformed in
// place by the plan's path (sign 1 forward, -1 inverse); `first_done`:
// pairs_to_rows_staged did the radix-2 path's first stage.
static void transform_points(const etr_fft_kernels_t *k, const plan_t *p,
                             etr_fft_real_t sign, bool first_done) {
  if (p->bluestein) {
    bluestein(k, p, p->re, p->im);
  } else if (p->steps > 0) {
    k->stockham(p->m, p->radices, p->steps, p->st_re, p->st_im, sign, p->re,
                p->im, p->work_re, p->work_im);
  } else {
    k->transform(p->m, p->re, p->im, p->tw_re, p->tw_im, sign, first_done);
  }
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

// Odd lengths (plan_t): point t < n of each of `lanes` real signals,
// source[l][t * step], into row t of `rows`; idle lanes zero. A full
// block of contiguous signals goes through the ISA's pair mover (even
// points into e, odd ones into o, then row copies), the last point of an
// odd n (no partner) by the element loop.
static void gather_real_rows(const etr_fft_kernels_t *k, size_t n,
                             const float *const *source, int64_t lanes,
                             int64_t step, etr_fft_real_t *rows,
                             etr_fft_real_t *e, etr_fft_real_t *o) {
  size_t t = 0;
  if (lanes == kLanes && step == 1 && k->pairs_to_rows != NULL) {
    k->pairs_to_rows(n / 2, source, NULL, e, o);
    for (; t + 1 < n; t += 2) {
      memcpy(rows + t * kLanes, e + t / 2 * kLanes, sizeof(*e) * kLanes);
      memcpy(rows + (t + 1) * kLanes, o + t / 2 * kLanes,
             sizeof(*o) * kLanes);
    }
  }
  for (; t < n; ++t) {
    etr_fft_real_t *row = rows + t * kLanes;
    for (int64_t l = 0; l < lanes; ++l) {
      row[l] = source[l][(int64_t)t * step];
    }
    for (int64_t l = lanes; l < kLanes; ++l) {
      row[l] = 0.0;
    }
  }
}

// The way back: point t < n of each of `lanes` real targets = row t of
// `rows` times scale (fp32 products), through the ISA's pair mover for a
// full block of contiguous targets (rows split into e and o first).
static void scatter_real_rows(const etr_fft_kernels_t *k, size_t n,
                              const etr_fft_real_t *rows,
                              etr_fft_real_t scale, float *const *target,
                              int64_t lanes, int64_t step,
                              etr_fft_real_t *e, etr_fft_real_t *o) {
  size_t t = 0;
  if (lanes == kLanes && step == 1 && k->rows_to_pairs != NULL) {
    for (; t + 1 < n; t += 2) {
      memcpy(e + t / 2 * kLanes, rows + t * kLanes, sizeof(*e) * kLanes);
      memcpy(o + t / 2 * kLanes, rows + (t + 1) * kLanes,
             sizeof(*o) * kLanes);
    }
    k->rows_to_pairs(n / 2, e, o, scale, target);
  }
  for (; t < n; ++t) {
    for (int64_t l = 0; l < lanes; ++l) {
      target[l][(int64_t)t * step] = rows[t * kLanes + l] * scale;
    }
  }
}

// out = a + sign b (sign 1 or -1, exact) for rows of kLanes, in 4-float
// vectors: GCC left the element loop scalar ("no vectype"), a quarter of
// a 64 x 225-point r2c's time.
typedef etr_fft_real_t fft_quad_t __attribute__((vector_size(16)));
static void rows_combine(etr_fft_real_t *out, const etr_fft_real_t *a,
                         const etr_fft_real_t *b, etr_fft_real_t sign) {
  for (int64_t l = 0; l < kLanes; l += 4) {
    fft_quad_t x, y;
    memcpy(&x, a + l, sizeof(x));
    memcpy(&y, b + l, sizeof(y));
    x = sign > 0 ? x + y : x - y;
    memcpy(out + l, &x, sizeof(x));
  }
}

// Signals [first, first + 2 lanes) of `signals` as two sides of up to
// kLanes, side 1 empty when they are kLanes or fewer: the sides' sizes.
static void two_sides(int64_t signals, int64_t first, int64_t lanes[2]) {
  int64_t pair = signals - first < 2 * kLanes ? signals - first : 2 * kLanes;
  lanes[0] = pair < kLanes ? pair : kLanes;
  lanes[1] = pair - lanes[0];
}

// Each side's first input and output elements of its signals (o = first
// + side kLanes + l), as floats: `in_floats` and `out_floats` per element
// (1 real, 2 a complex pair).
static void side_signals(const etr_tensor_t *in, const float *x,
                         int64_t in_floats, const etr_tensor_t *out,
                         float *y, int64_t out_floats, int32_t dim,
                         int64_t first, const int64_t lanes[2],
                         const float *source[2][kLanes],
                         float *target[2][kLanes]) {
  for (int side = 0; side < 2; ++side) {
    for (int64_t l = 0; l < lanes[side]; ++l) {
      int64_t o = first + side * kLanes + l;
      source[side][l] = x + in_floats * signal_offset(in, dim, o);
      target[side][l] = y + out_floats * signal_offset(out, dim, o);
    }
  }
}

// Odd lengths, r2c: two real signals a lane, a as the real parts and b as
// the imaginary parts of the n complex points z = a + i b, which one
// transform turns into both spectra by Z's symmetry: A[k] = (Z[k] +
// conj(Z[n - k])) / 2, B[k] = (Z[k] - conj(Z[n - k])) / 2i. Half the
// transforms of one signal a lane.
static void r2c_odd(const etr_fft_kernels_t *k, const plan_t *p,
                    const etr_tensor_t *self, int32_t dim, bool onesided,
                    etr_fft_real_t factor, etr_tensor_t *out) {
  size_t n = p->m;
  int64_t signals = signal_count(self, dim);
  int64_t in_step = self->strides[dim];
  int64_t out_step = 2 * out->strides[dim];
  size_t count = onesided ? n / 2 + 1 : n;
  const etr_fft_real_t half = factor * 0.5f;
  const float *x = (const float *)self->data;
  float *y = (float *)out->data;  // (re, im) pairs
  for (int64_t first = 0; first < signals; first += 2 * kLanes) {
    int64_t lanes[2];
    two_sides(signals, first, lanes);
    const float *source[2][kLanes];
    float *target[2][kLanes];
    side_signals(self, x, 1, out, y, 2, dim, first, lanes, source, target);
    gather_real_rows(k, n, source[0], lanes[0], in_step, p->re, p->xr,
                     p->xi);
    gather_real_rows(k, n, source[1], lanes[1], in_step, p->im, p->xr,
                     p->xi);
    transform_points(k, p, 1.0f, false);
    for (int side = 0; side < 2 && lanes[side] > 0; ++side) {
      // Side 0: (Z[j] + conj Z[n - j]), side 1: -i (Z[j] - conj Z[n - j]),
      // into (xr, xi), then times factor / 2 on the way out.
      for (size_t j = 0; j < count; ++j) {
        size_t mirror = j == 0 ? 0 : n - j;
        const etr_fft_real_t *zr = p->re + j * kLanes;
        const etr_fft_real_t *zi = p->im + j * kLanes;
        const etr_fft_real_t *mr = p->re + mirror * kLanes;
        const etr_fft_real_t *mi = p->im + mirror * kLanes;
        etr_fft_real_t *xr = p->xr + j * kLanes;
        etr_fft_real_t *xi = p->xi + j * kLanes;
        rows_combine(xr, side == 0 ? zr : zi, side == 0 ? mr : mi, 1.0f);
        rows_combine(xi, side == 0 ? zi : mr, side == 0 ? mi : zr, -1.0f);
      }
      scatter_pairs(k, count, p->xr, p->xi, half, target[side], lanes[side],
                    out_step, 1);
    }
  }
}

// Odd lengths, the way back: the Hermitian spectra A and B of two signals
// a lane, extended to n points (X[n - j] = conj(X[j]); X[0]'s imaginary
// part, which the reference ignores, taken as 0: in Z it would land in
// the other signal's outputs), as Z = A + i B, whose inverse transform is
// a + i b.
static void c2r_odd(const etr_fft_kernels_t *k, const plan_t *p,
                    const etr_tensor_t *self, int32_t dim,
                    etr_fft_real_t factor, etr_tensor_t *out) {
  size_t n = p->m;
  int64_t signals = signal_count(out, dim);
  int64_t in_step = 2 * self->strides[dim];
  int64_t out_step = out->strides[dim];
  const float *x = (const float *)self->data;  // (re, im) pairs
  float *y = (float *)out->data;
  for (int64_t first = 0; first < signals; first += 2 * kLanes) {
    int64_t lanes[2];
    two_sides(signals, first, lanes);
    const float *source[2][kLanes];
    float *target[2][kLanes];
    side_signals(self, x, 2, out, y, 1, dim, first, lanes, source, target);
    // A into (xr, xi), B into rows 0 .. n/2 of (re, im), then Z in place.
    gather_pairs(k, n / 2 + 1, source[0], lanes[0], in_step, 1, NULL, p->xr,
                 p->xi);
    gather_pairs(k, n / 2 + 1, source[1], lanes[1], in_step, 1, NULL, p->re,
                 p->im);
    for (int64_t l = 0; l < kLanes; ++l) {  // Z[0] = Re A[0] + i Re B[0]
      p->im[l] = 0.0f + p->re[l];
      p->re[l] = p->xr[l];
    }
    for (size_t j = 1; j <= n / 2; ++j) {
      const etr_fft_real_t *ar = p->xr + j * kLanes;
      const etr_fft_real_t *ai = p->xi + j * kLanes;
      etr_fft_real_t *zr = p->re + j * kLanes;  // holds Re B[j] until set
      etr_fft_real_t *zi = p->im + j * kLanes;  // holds Im B[j] until set
      etr_fft_real_t b_re[kLanes];
      memcpy(b_re, zr, sizeof(b_re));
      rows_combine(p->re + (n - j) * kLanes, ar, zi, 1.0f);
      rows_combine(p->im + (n - j) * kLanes, b_re, ai, -1.0f);
      rows_combine(zr, ar, zi, -1.0f);
      rows_combine(zi, ai, b_re, 1.0f);
    }
    transform_points(k, p, -1.0f, false);
    scatter_real_rows(k, n, p->re, factor, target[0], lanes[0], out_step,
                      p->xr, p->xi);
    scatter_real_rows(k, n, p->im, factor, target[1], lanes[1], out_step,
                      p->xr, p->xi);
  }
}

bool etr_fft_r2c_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, double scale, bool onesided,
                     etr_tensor_t *out) {
  const etr_fft_kernels_t *k = etr_fft_kernels_for(etr_isa_active());
  const int64_t n = self->sizes[dim];
  plan_t p;
  // One point needs no sums: finite input is enough (2^128: infinity).
  if (self->dtype != ETR_FLOAT || out->dtype != ETR_COMPLEX_FLOAT ||
      (n > 1 && !plan_shape(n, &p)) ||
      !all_below(k, (const float *)self->data, self, dim, n, 1,
                 n > 1 ? safe_exponent(&p) : 128)) {
    return false;
  }
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
  if (!plan_begin(ctx->temp, k, 1.0f, &p)) {
    return false;
  }
  const etr_fft_real_t factor = (etr_fft_real_t)scale;
  if (p.odd) {
    r2c_odd(k, &p, self, dim, onesided, factor, out);
    plan_end(ctx->temp, &p);
    return true;
  }
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
    bool dense_in = lanes == kLanes && in_step == 1 && p.order != NULL;
    bool dense_out = lanes == kLanes && out_step == 2 && onesided &&
                     m % 8 == 0;  // Z is in natural order on every path
    bool staged = dense_in && k->pairs_to_rows_staged != NULL &&
                  odd_stages(m) && m >= 16;
    if (staged) {
      k->pairs_to_rows_staged(m, source, p.rev, p.re, p.im);
    } else {
      gather_pairs(k, m, source, lanes, 2 * in_step, in_step, p.order, p.re,
                   p.im);
    }
    transform_points(k, &p, 1.0f, staged);
    float *target[kLanes];
    for (int64_t l = 0; l < lanes; ++l) {
      target[l] = y + 2 * signal_offset(out, dim, first + l);
    }
    if (dense_out && k->split_to_pairs != NULL) {
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
  const int64_t n = out->sizes[dim];
  plan_t p;
  if (self->dtype != ETR_COMPLEX_FLOAT || out->dtype != ETR_FLOAT ||
      (n > 1 && !plan_shape(n, &p)) ||
      !all_below(k, (const float *)self->data, self, dim, n / 2 + 1, 2,
                 n > 1 ? safe_exponent(&p) : 128)) {
    return false;
  }
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
  if (!plan_begin(ctx->temp, k, -1.0f, &p)) {
    return false;
  }
  const etr_fft_real_t factor = (etr_fft_real_t)scale;
  if (p.odd) {
    c2r_odd(k, &p, self, dim, factor, out);
    plan_end(ctx->temp, &p);
    return true;
  }
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
    k->c2r_merge(m, p.xr, p.xi, p.w_re, p.w_im, p.order, p.re, p.im);
    transform_points(k, &p, -1.0f, false);
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
