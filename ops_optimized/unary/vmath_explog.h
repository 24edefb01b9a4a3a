// SPDX-License-Identifier: Apache-2.0
//
// Vectorized fp32 functions built on vmath.h's exp, expm1 and log
// polynomials (include a simd_<isa>.h first): log2, log10, log1p, sinh,
// cosh, asinh, acosh, atanh, erf, and e^z for a double z (pow with a
// Scalar base). The steps that would cancel or lose the float argument's
// precision are taken in double and rounded once at the end; the float
// transcendental inside keeps its own error (about an ulp). The bounds
// the differential tests measure against the reference (libm in double,
// rounded once) are in ops_optimized/test/
// diff_elementwise_transcendental_test.c.
#ifndef ETR_OPS_OPTIMIZED_UNARY_VMATH_EXPLOG_H
#define ETR_OPS_OPTIMIZED_UNARY_VMATH_EXPLOG_H

#include <math.h>

#include "ops_optimized/unary/vmath.h"

// ln x = exponent ln 2 + ln m for finite x > 0: returns ln m (vf_log's
// polynomial, about an ulp of ln m) and writes the exponent.
static inline etr_vf vf_log_mantissa(etr_vf x, etr_vf *exponent) {
  const etr_vf one = vf_set1(1.0f);
  etr_vf m = vf_split_mantissa(x, exponent);
  etr_vf f = vf_sub(m, one);  // exact
  etr_vf z = vf_mul(f, f);
  etr_vf y = vf_mul(vf_mul(f, z), vf_poly(f, kLogP, 8));
  y = vf_fnma(vf_set1(0.5f), z, y);
  return vf_add(f, y);
}

// log_b x = exponent log_b 2 + ln m / ln b in double, one rounding: exact
// at powers of two for log2. `inverse_ln_b` = 1 / ln b. Specials as ln:
// log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, NaN kept.
static inline etr_vf vf_log_base(etr_vf x, double inverse_ln_b) {
  etr_vf exponent;
  etr_vf ln_m = vf_log_mantissa(x, &exponent);
  etr_vd2 result = vd2_fma(vf_to_vd2(exponent),
                           vd2_set1(0.69314718055994530942 * inverse_ln_b),
                           vd2_mul(vf_to_vd2(ln_m), vd2_set1(inverse_ln_b)));
  etr_vf y = vd2_to_vf(result);
  y = vf_select(vf_eq(x, vf_zero()), vf_set1(-INFINITY), y);
  y = vf_select(vf_lt(x, vf_zero()), vf_set1(NAN), y);
  y = vf_select(vf_eq(x, vf_set1(INFINITY)), x, y);
  return vf_select(vf_isnan(x), x, y);
}

// A double 0 or 1 per lane of m.
static inline etr_vd2 vd2_from_mask(etr_vm m) {
  return vf_to_vd2(vf_select(m, vf_set1(1.0f), vf_zero()));
}
// m ? a : b for finite a and b, exactly: m a + (1 - m) b.
static inline etr_vd2 vd2_choose(etr_vd2 m, etr_vd2 a, etr_vd2 b) {
  return vd2_add(vd2_mul(m, a), vd2_mul(vd2_sub(vd2_set1(1.0), m), b));
}

// ln(1 + t) for a double t > -1 (Goldberg): u = 1 + t rounded to float,
// ln(1 + t) = ln u * t / (u - 1) (u - 1 exact in double), or t where u
// is 1. In double; t = -1 gives -inf, t < -1 NaN, t = +inf NaN (callers
// handle it).
static inline etr_vd2 vd2_log1p(etr_vd2 t) {
  const etr_vd2 one = vd2_set1(1.0);
  etr_vf u = vd2_to_vf(vd2_add(one, t));
  etr_vd2 unit = vd2_from_mask(vf_eq(u, vf_set1(1.0f)));
  // Where u is 1 the denominator becomes 1 (ln u is 0 there).
  etr_vd2 scale = vd2_div(t, vd2_add(vd2_sub(vf_to_vd2(u), one), unit));
  return vd2_fma(unit, t, vd2_mul(vf_to_vd2(vf_log(u)), scale));
}

// log1p x; +inf stays, -1 gives -inf, below it NaN, -0.0 kept.
static inline etr_vf vf_log1p(etr_vf x) {
  etr_vf y = vd2_to_vf(vd2_log1p(vf_to_vd2(x)));
  y = vf_select(vf_eq(x, vf_set1(INFINITY)), x, y);
  return vf_select(vm_or(vf_isnan(x), vf_eq(x, vf_zero())), x, y);
}

// sinh and cosh on a = |x|. Below 88, sinh a = (m + m / (m + 1)) / 2 with
// m = expm1(a) and cosh a = (e + 1 / e) / 2 with e = e^a, in double;
// from 88, where e^a overflows a float but the results may not, both are
// h * h / 2 with h = e^(a/2). sinh keeps x's sign (and -0.0); NaN kept.
static inline etr_vf vf_sinh(etr_vf x) {
  etr_vf a = vf_abs(x);
  etr_vd2 m = vf_to_vd2(vf_expm1(vf_min_num(a, vf_set1(88.0f))));
  etr_vd2 small = vd2_mul(vd2_set1(0.5),
                          vd2_add(m, vd2_div(m, vd2_add(m, vd2_set1(1.0)))));
  etr_vd2 h = vf_to_vd2(vf_exp(vf_mul(vf_min_num(a, vf_set1(100.0f)),
                                      vf_set1(0.5f))));
  etr_vf large = vd2_to_vf(vd2_mul(vd2_mul(h, h), vd2_set1(0.5)));
  etr_vf y = vf_select(vf_lt(a, vf_set1(88.0f)), vd2_to_vf(small), large);
  y = vf_copysign(y, x);
  return vf_select(vf_isnan(x), x, y);
}

static inline etr_vf vf_cosh(etr_vf x) {
  etr_vf a = vf_abs(x);
  etr_vd2 e = vf_to_vd2(vf_exp(vf_min_num(a, vf_set1(88.0f))));
  etr_vd2 small = vd2_mul(vd2_set1(0.5), vd2_add(e, vd2_div(vd2_set1(1.0),
                                                            e)));
  etr_vd2 h = vf_to_vd2(vf_exp(vf_mul(vf_min_num(a, vf_set1(100.0f)),
                                      vf_set1(0.5f))));
  etr_vf large = vd2_to_vf(vd2_mul(vd2_mul(h, h), vd2_set1(0.5)));
  etr_vf y = vf_select(vf_lt(a, vf_set1(88.0f)), vd2_to_vf(small), large);
  return vf_select(vf_isnan(x), x, y);
}

// ln(2 a) for a > 2^64 in double: exponent ln 2 + ln m + ln 2.
static inline etr_vd2 vd2_log_twice(etr_vf a) {
  etr_vf exponent;
  etr_vf ln_m = vf_log_mantissa(a, &exponent);
  etr_vd2 e1 = vd2_add(vf_to_vd2(exponent), vd2_set1(1.0));
  return vd2_fma(e1, vd2_set1(0.69314718055994530942), vf_to_vd2(ln_m));
}

// asinh x = sign * ln(1 + t), t = a + a^2 / (1 + sqrt(1 + a^2)) in double
// (no cancellation); ln(2a) beyond 2^64. -0.0, +-inf and NaN kept.
static inline etr_vf vf_asinh(etr_vf x) {
  const etr_vf limit = vf_set1(1.8446744e19f);  // 2^64
  etr_vf a = vf_abs(x);
  etr_vd2 ad = vf_to_vd2(vf_min_num(a, limit));
  etr_vd2 a2 = vd2_mul(ad, ad);
  etr_vd2 t = vd2_add(ad, vd2_div(a2, vd2_add(vd2_set1(1.0),
                                              vd2_sqrt(vd2_add(
                                                  vd2_set1(1.0), a2)))));
  etr_vf small = vd2_to_vf(vd2_log1p(t));
  etr_vf large = vd2_to_vf(vd2_log_twice(vf_max_num(a, limit)));
  etr_vf y = vf_select(vf_lt(a, limit), small, large);
  y = vf_select(vf_eq(a, vf_set1(INFINITY)), a, y);
  y = vf_copysign(y, x);
  return vf_select(vm_or(vf_isnan(x), vf_eq(x, vf_zero())), x, y);
}

// acosh x = ln(1 + t), t = (x - 1) + sqrt((x - 1)(x + 1)) in double;
// ln(2x) beyond 2^64; NaN below 1, +inf kept.
static inline etr_vf vf_acosh(etr_vf x) {
  const etr_vf limit = vf_set1(1.8446744e19f);
  etr_vd2 xd = vf_to_vd2(vf_min_num(vf_max_num(x, vf_set1(1.0f)), limit));
  etr_vd2 below = vd2_sub(xd, vd2_set1(1.0));
  etr_vd2 t = vd2_add(below, vd2_sqrt(vd2_mul(below, vd2_add(
                                                         xd, vd2_set1(1.0)))));
  etr_vf small = vd2_to_vf(vd2_log1p(t));
  etr_vf large = vd2_to_vf(vd2_log_twice(vf_max_num(x, limit)));
  etr_vf y = vf_select(vf_lt(x, limit), small, large);
  y = vf_select(vf_eq(x, vf_set1(INFINITY)), x, y);
  y = vf_select(vf_lt(x, vf_set1(1.0f)), vf_set1(NAN), y);
  return vf_select(vf_isnan(x), x, y);
}

// atanh x = sign * ln(1 + t) / 2, t = 2a / (1 - a) in double; +-inf at
// +-1, NaN beyond, -0.0 and NaN kept.
static inline etr_vf vf_atanh(etr_vf x) {
  etr_vf a = vf_min_num(vf_abs(x), vf_set1(0.99999994f));
  etr_vd2 ad = vf_to_vd2(a);
  etr_vd2 t = vd2_div(vd2_add(ad, ad), vd2_sub(vd2_set1(1.0), ad));
  etr_vf y = vd2_to_vf(vd2_mul(vd2_log1p(t), vd2_set1(0.5)));
  etr_vf b = vf_abs(x);
  y = vf_select(vf_eq(b, vf_set1(1.0f)), vf_set1(INFINITY), y);
  y = vf_select(vf_gt(b, vf_set1(1.0f)), vf_set1(NAN), y);
  y = vf_copysign(y, x);
  return vf_select(vm_or(vf_isnan(x), vf_eq(x, vf_zero())), x, y);
}

#if defined(ETR_HAVE_VF_LOOKUP32)
// AVX-512: erf from kErfTable on tanh's intervals of |x| (vmath.h's
// vf_tanh says how; erf is 1 in float from 3.92, well inside the last
// one), the table fit to 2.9e-8 relative (fit_polynomials.py
// --abs-tables). On the first interval the table holds erf(t) - t and
// the last multiply-add adds it to t (vf_odd_binade_table's
// linear_first): with erf = t P(t) there, P(0) = 2 / sqrt(pi) rounded to
// float is 5.4e-8 off, and the sweep saw 2 ULP near 4e-4. Within 1 ULP
// of erf in double rounded once over every float (ulp_sweep 1 erf,
// 2026-12-07), the bound of the double form below, which the other ISAs
// keep. -0.0 keeps its sign (0 | x's sign bit); a NaN stays NaN through
// the cap and the table (NaN - c, NaN times the rows). Five lookups and
// four multiply-adds a vector against a float exp, a polynomial and a
// rational in double: bench_elementwise --only "erf f32", 16 Ki floats,
// Zen 4, 0.64 -> 4.28 G elements/s (three runs each, alternated).
static inline etr_vf vf_erf(etr_vf x) {
  return vf_odd_binade_table(x, kErfTable[0], ETR_ROWS(kErfTable), true);
}
#else
// erf x: x P(x^2) below |x| = 0.6 (vmath.h's kErfP, in double: float
// Horner costs an ulp there); above, 1 - erfc(a)
// in double with erfc(a) = e^(-a^2) R(a sqrt 2) (vmath.h's kErfcP/kErfcQ
// rational, fit for gelu's argument a sqrt 2 >= 0.77) and e^(-a^2) from
// an exact split of a^2; a capped at 10 (erf is 1 in float from 3.9).
// Odd; -0.0 and NaN kept.
static inline etr_vf vf_erf(etr_vf x) {
  double erf_p[6];
  for (int i = 0; i < 6; ++i) {
    erf_p[i] = kErfP[i];
  }
  etr_vd2 xd = vf_to_vd2(x);
  etr_vf small = vd2_to_vf(vd2_mul(xd, vd2_poly(vd2_mul(xd, xd), erf_p, 6)));
  etr_vf a = vf_min_num(vf_abs(x), vf_set1(10.0f));
  etr_vf square = vf_mul(a, a);
  etr_vf square_error = vf_fma_exact(a, a, vf_neg(square));
  etr_vd2 gauss = vf_to_vd2(vf_exp(vf_neg(square)));
  gauss = vd2_sub(gauss, vd2_mul(gauss, vf_to_vd2(square_error)));
  etr_vd2 scaled = vd2_mul(vf_to_vd2(a), vd2_set1(1.41421356237309504880));
  etr_vd2 ratio = vd2_div(vd2_poly(scaled, kErfcP, 5),
                          vd2_poly(scaled, kErfcQ, 6));
  etr_vf large = vd2_to_vf(vd2_sub(vd2_set1(1.0), vd2_mul(gauss, ratio)));
  large = vf_copysign(large, x);
  etr_vf y = vf_select(vf_lt(vf_abs(x), vf_set1(0.6f)), small, large);
  return vf_select(vm_or(vf_isnan(x), vf_eq(x, vf_zero())), x, y);
}
#endif

// ln m = 2 atanh(s) = s K(s^2), s = (m - 1) / (m + 1), |s| <= 0.1716:
// the series to s^17 (truncation below 1e-15 relative).
static const double kLogAtanhK[9] = {2.0,      2.0 / 3,  2.0 / 5,
                                     2.0 / 7,  2.0 / 9,  2.0 / 11,
                                     2.0 / 13, 2.0 / 15, 2.0 / 17};

// ln x in double (about 1e-15 relative) for finite x > 0.
static inline etr_vd2 vd2_log_of(etr_vf x) {
  etr_vf exponent;
  etr_vd2 m = vf_to_vd2(vf_split_mantissa(x, &exponent));
  etr_vd2 s = vd2_div(vd2_sub(m, vd2_set1(1.0)), vd2_add(m, vd2_set1(1.0)));
  etr_vd2 ln_m = vd2_mul(s, vd2_poly(vd2_mul(s, s), kLogAtanhK, 9));
  return vd2_fma(vf_to_vd2(exponent), vd2_set1(0.69314718055994530942),
                 ln_m);
}

// e^z for a double z, as z = hi + lo (floats): e^hi (1 + lo) (|lo| <=
// 2^-24 |hi|, so e^lo = 1 + lo to float precision). Overflow to +inf and
// underflow through subnormals to 0 as vf_exp (an infinite e^hi is kept:
// inf * lo could be NaN); +-inf and NaN z as e^z.
static inline etr_vf vf_exp_double(etr_vd2 z) {
  etr_vf hi = vd2_to_vf(z);
  etr_vf lo = vd2_to_vf(vd2_sub(z, vf_to_vd2(hi)));
  lo = vf_select(vf_eq(vf_abs(hi), vf_set1(INFINITY)), vf_zero(), lo);
  etr_vf e = vf_exp(hi);
  return vf_select(vf_eq(e, vf_set1(INFINITY)), e, vf_fma(e, lo, e));
}

// x^y as C's pow: |x|^y = e^(y ln|x|) with ln|x| and the product in
// double, then e^z; the sign and the special cases by selects: y == 0 or
// x == 1 -> 1; +-1 to +-inf -> 1; NaN in -> NaN; x = +-0 -> 0 (y > 0) or
// inf (y < 0), x = +-inf -> inf (y > 0) or 0 (y < 0); a negative x
// (sign bit: -0.0 and -inf too) to an odd integer negates; a finite x < 0
// to a finite non-integer is NaN.
static inline etr_vf vf_pow(etr_vf x, etr_vf y) {
  const etr_vf one = vf_set1(1.0f);
  const etr_vf inf = vf_set1(INFINITY);
  etr_vf a = vf_abs(x);
  etr_vf finite_a = vf_select(vm_or(vf_eq(a, vf_zero()), vf_eq(a, inf)),
                              one, a);
  etr_vf r = vf_exp_double(vd2_mul(vf_to_vd2(y), vd2_log_of(finite_a)));
  etr_vm y_negative = vf_lt(y, vf_zero());
  r = vf_select(vf_eq(a, vf_zero()),
                vf_select(y_negative, inf, vf_zero()), r);
  r = vf_select(vf_eq(a, inf), vf_select(y_negative, vf_zero(), inf), r);
  etr_vf half = vf_mul(y, vf_set1(0.5f));
  etr_vm integer = vf_eq(vf_trunc(y), y);
  etr_vm odd = vm_and(integer, vf_ne(vf_trunc(half), half));
  etr_vm sign_bit = vf_lt(vf_copysign(one, x), vf_zero());
  r = vf_select(vm_and(sign_bit, odd), vf_neg(r), r);
  etr_vm finite_negative = vm_and(vf_lt(x, vf_zero()), vf_gt(x, vf_neg(inf)));
  r = vf_select(vm_and(finite_negative, vf_ne(vf_trunc(y), y)),
                vf_set1(NAN), r);
  r = vf_select(vm_or(vf_isnan(x), vf_isnan(y)), vf_set1(NAN), r);
  r = vf_select(vm_and(vf_eq(a, one), vf_eq(vf_abs(y), inf)), one, r);
  r = vf_select(vm_or(vf_eq(x, one), vf_eq(y, vf_zero())), one, r);
  return r;
}

// pow(x, c) for a finite exponent c != 0 known per call (`integer`,
// `odd`, `negative` describe it): |x|^c = e^(c ln|x|) in double as
// vf_pow; x = +-0 -> 0 (c > 0) or inf (c < 0), x = +-inf -> inf (c > 0)
// or 0 (c < 0), an odd c keeps x's sign bit, a finite x < 0 to a
// non-integer c is NaN, x == 1 -> 1, NaN stays NaN.
static inline etr_vf vf_pow_const(etr_vf x, etr_vd2 c, bool integer,
                                  bool odd, bool negative) {
  const etr_vf one = vf_set1(1.0f);
  const etr_vf inf = vf_set1(INFINITY);
  etr_vf a = vf_abs(x);
  etr_vm zero = vf_eq(a, vf_zero());
  etr_vm infinite = vf_eq(a, inf);
  etr_vf finite_a = vf_select(vm_or(zero, infinite), one, a);
  etr_vf r = vf_exp_double(vd2_mul(c, vd2_log_of(finite_a)));
  r = vf_select(zero, negative ? inf : vf_zero(), r);
  r = vf_select(infinite, negative ? vf_zero() : inf, r);
  if (odd) {
    r = vf_copysign(r, x);
  }
  if (!integer) {
    etr_vm finite_negative = vm_and(vf_lt(x, vf_zero()),
                                    vf_gt(x, vf_neg(inf)));
    r = vf_select(finite_negative, vf_set1(NAN), r);
  }
  r = vf_select(vf_eq(x, one), one, r);
  return vf_select(vf_isnan(x), x, r);
}

#endif  // ETR_OPS_OPTIMIZED_UNARY_VMATH_EXPLOG_H
