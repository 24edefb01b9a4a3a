// SPDX-License-Identifier: Apache-2.0
//
// Vectorized fp32 trigonometric functions (sin, cos, tan, atan, asin,
// acos, atan2), written once against the primitives of a simd_<isa>.h
// header like vmath.h (include that first). Results are computed in
// double from the float argument and rounded once, so they are within an
// ulp of the reference (libm in double, rounded once) and usually equal
// to it; the bounds the differential tests measure are stated in
// ops_optimized/test/diff_elementwise_transcendental_test.c.
//
// sin, cos, tan: x = n pi/2 + r with n = round(x 2/pi) in float and r in
// double by a three-part Cody-Waite reduction (n C1 and n C2 exact for
// |n| < 2^20), then Taylor polynomials of r in double (|r| <= pi/4 plus
// the float rounding of n). Lanes with |x| >= 2^16 (and +-inf) are
// recomputed with libm in double, as the reference computes them.
//
// atan, asin, acos, atan2 share atan(num / den) for num, den >= 0: the
// smaller over the larger (then pi/2 minus), then u > tan(pi/8) reduced
// by atan(u) = pi/4 + atan((u - 1) / (u + 1)), then a Taylor polynomial
// of degree 23 in double. Vector lanes have no double selects, so
// branches are chosen by multiplying with exact 0/1 doubles.
#ifndef ETR_OPS_OPTIMIZED_UNARY_VMATH_TRIG_H
#define ETR_OPS_OPTIMIZED_UNARY_VMATH_TRIG_H

#include <math.h>

#include "ops_optimized/unary/vmath.h"
#include "ops_optimized/unary/vmath_explog.h"

// pi/2 = kPio2[0] + kPio2[1] + kPio2[2]; the first two have 33
// significant bits.
static const double kPio2[3] = {1.5707963267341256141662597656,
                                6.0771005063039659765300154686e-11,
                                2.0222662487959506668e-21};

// Taylor coefficients: sin r = r (1 + r^2 S(r^2)), cos r = 1 + r^2 C(r^2).
static const double kSinS[7] = {-1.0 / 6,         1.0 / 120,
                                -1.0 / 5040,      1.0 / 362880,
                                -1.0 / 39916800,  1.0 / 6227020800,
                                -1.0 / 1307674368000};
static const double kCosC[8] = {-1.0 / 2,           1.0 / 24,
                                -1.0 / 720,         1.0 / 40320,
                                -1.0 / 3628800,     1.0 / 479001600,
                                -1.0 / 87178291200, 1.0 / 20922789888000};

// Lanes beyond the vector reduction.
static const float kTrigLimit = 65536.0f;

typedef struct trig_reduced {
  etr_vd2 sin_r;
  etr_vd2 cos_r;
  etr_vf quadrant;  // n mod 4, as 0, 1, 2, 3
} trig_reduced_t;

static inline trig_reduced_t vf_trig_reduce(etr_vf x) {
  trig_reduced_t t;
  etr_vf n = vf_rint(vf_mul(x, vf_set1(0.636619772f)));
  n = vf_select(vf_lt(vf_abs(x), vf_set1(kTrigLimit)), n, vf_zero());
  t.quadrant = vf_sub(n, vf_mul(vf_set1(4.0f),
                                vf_floor(vf_mul(n, vf_set1(0.25f)))));
  etr_vd2 nd = vf_to_vd2(n);
  etr_vd2 r = vd2_sub(vf_to_vd2(x), vd2_mul(nd, vd2_set1(kPio2[0])));
  r = vd2_sub(r, vd2_mul(nd, vd2_set1(kPio2[1])));
  r = vd2_sub(r, vd2_mul(nd, vd2_set1(kPio2[2])));
  etr_vd2 r2 = vd2_mul(r, r);
  t.sin_r = vd2_fma(vd2_mul(r, r2), vd2_poly(r2, kSinS, 7), r);
  t.cos_r = vd2_fma(r2, vd2_poly(r2, kCosC, 8), vd2_set1(1.0));
  return t;
}

// Recomputes with `fn` (libm, double) the lanes of x beyond the reduction.
static inline etr_vf vf_trig_far(etr_vf x, etr_vf y, double (*fn)(double)) {
  if (!vm_any(vm_or(vf_ge(vf_abs(x), vf_set1(kTrigLimit)), vf_isnan(x)))) {
    return y;
  }
  float xs[ETR_VF_LANES];
  float ys[ETR_VF_LANES];
  vf_store(xs, x);
  vf_store(ys, y);
  for (size_t j = 0; j < ETR_VF_LANES; ++j) {
    if (!(fabsf(xs[j]) < kTrigLimit)) {
      ys[j] = (float)fn((double)xs[j]);
    }
  }
  return vf_load(ys);
}

// sin x: +-sin r or +-cos r by quadrant; keeps -0.0.
static inline etr_vf vf_sin(etr_vf x) {
  trig_reduced_t t = vf_trig_reduce(x);
  etr_vf s = vd2_to_vf(t.sin_r);
  etr_vf c = vd2_to_vf(t.cos_r);
  etr_vf odd = vf_select(vf_eq(t.quadrant, vf_set1(1.0f)), c, vf_neg(c));
  etr_vf even = vf_select(vf_eq(t.quadrant, vf_zero()), s, vf_neg(s));
  etr_vm is_odd = vm_or(vf_eq(t.quadrant, vf_set1(1.0f)),
                        vf_eq(t.quadrant, vf_set1(3.0f)));
  etr_vf y = vf_select(is_odd, odd, even);
  y = vf_select(vf_eq(x, vf_zero()), x, y);
  return vf_trig_far(x, y, sin);
}

static inline etr_vf vf_cos(etr_vf x) {
  trig_reduced_t t = vf_trig_reduce(x);
  etr_vf s = vd2_to_vf(t.sin_r);
  etr_vf c = vd2_to_vf(t.cos_r);
  etr_vf odd = vf_select(vf_eq(t.quadrant, vf_set1(1.0f)), vf_neg(s), s);
  etr_vf even = vf_select(vf_eq(t.quadrant, vf_zero()), c, vf_neg(c));
  etr_vm is_odd = vm_or(vf_eq(t.quadrant, vf_set1(1.0f)),
                        vf_eq(t.quadrant, vf_set1(3.0f)));
  return vf_trig_far(x, vf_select(is_odd, odd, even), cos);
}

// tan x: sin r / cos r for even n, -cos r / sin r for odd n (in double).
static inline etr_vf vf_tan(etr_vf x) {
  trig_reduced_t t = vf_trig_reduce(x);
  etr_vf even = vd2_to_vf(vd2_div(t.sin_r, t.cos_r));
  etr_vf odd = vf_neg(vd2_to_vf(vd2_div(t.cos_r, t.sin_r)));
  etr_vm is_odd = vm_or(vf_eq(t.quadrant, vf_set1(1.0f)),
                        vf_eq(t.quadrant, vf_set1(3.0f)));
  etr_vf y = vf_select(is_odd, odd, even);
  y = vf_select(vf_eq(x, vf_zero()), x, y);
  return vf_trig_far(x, y, tan);
}

// atan t = t (1 + t^2 A(t^2)) for |t| <= tan(pi/8) (+ a float rounding):
// the Taylor series to t^23, truncation below 1e-10 relative.
static const double kAtanA[11] = {
    -1.0 / 3,  1.0 / 5,  -1.0 / 7,  1.0 / 9,  -1.0 / 11, 1.0 / 13,
    -1.0 / 15, 1.0 / 17, -1.0 / 19, 1.0 / 21, -1.0 / 23};

// atan(num / den) in [0, pi/2] for finite num, den >= 0, not both 0.
static inline etr_vd2 vd2_atan_ratio(etr_vd2 num, etr_vd2 den) {
  etr_vd2 swap = vd2_from_mask(vf_gt(vd2_to_vf(num), vd2_to_vf(den)));
  etr_vd2 u = vd2_div(vd2_choose(swap, den, num), vd2_choose(swap, num, den));
  etr_vd2 shift = vd2_from_mask(vf_gt(vd2_to_vf(u), vf_set1(0.41421356f)));
  etr_vd2 t = vd2_div(vd2_sub(u, shift),
                      vd2_fma(shift, u, vd2_set1(1.0)));
  etr_vd2 t2 = vd2_mul(t, t);
  etr_vd2 angle = vd2_fma(vd2_mul(t, t2), vd2_poly(t2, kAtanA, 11), t);
  angle = vd2_fma(shift, vd2_set1(0.78539816339744830962), angle);
  return vd2_choose(swap, vd2_sub(vd2_set1(1.57079632679489661923), angle),
                    angle);
}

// atan x; |x| capped at 2^60 (atan is pi/2 in float there).
static inline etr_vf vf_atan(etr_vf x) {
  etr_vf a = vf_min_num(vf_abs(x), vf_set1(1.15292150e18f));
  etr_vf y = vf_copysign(vd2_to_vf(vd2_atan_ratio(vf_to_vd2(a),
                                                  vd2_set1(1.0))), x);
  return vf_select(vf_isnan(x), x, y);
}

// sqrt(1 - a^2) in double, as sqrt((1 - a)(1 + a)); NaN for a > 1.
static inline etr_vd2 vd2_cosine_of(etr_vd2 a) {
  etr_vd2 one = vd2_set1(1.0);
  return vd2_sqrt(vd2_mul(vd2_sub(one, a), vd2_add(one, a)));
}

// asin x = atan(|x| / sqrt(1 - x^2)) with x's sign; NaN beyond +-1.
static inline etr_vf vf_asin(etr_vf x) {
  etr_vf a = vf_min_num(vf_abs(x), vf_set1(1.0f));
  etr_vd2 ad = vf_to_vd2(a);
  etr_vf y = vf_copysign(vd2_to_vf(vd2_atan_ratio(ad, vd2_cosine_of(ad))),
                         x);
  y = vf_select(vf_gt(vf_abs(x), vf_set1(1.0f)), vf_set1(NAN), y);
  return vf_select(vf_isnan(x), x, y);
}

// acos x = atan(sqrt(1 - x^2) / |x|), pi minus that for x < 0.
static inline etr_vf vf_acos(etr_vf x) {
  etr_vf a = vf_min_num(vf_abs(x), vf_set1(1.0f));
  etr_vd2 ad = vf_to_vd2(a);
  etr_vd2 angle = vd2_atan_ratio(vd2_cosine_of(ad), ad);
  etr_vd2 negative = vd2_from_mask(vf_lt(x, vf_zero()));
  angle = vd2_choose(negative,
                     vd2_sub(vd2_set1(3.14159265358979323846), angle), angle);
  etr_vf y = vd2_to_vf(angle);
  y = vf_select(vf_gt(vf_abs(x), vf_set1(1.0f)), vf_set1(NAN), y);
  return vf_select(vf_isnan(x), x, y);
}

// atan2(y, x) as C's: the angle of |y| over |x|, pi minus it when x's sign
// bit is set (-0.0 included), y's sign. Infinities become 1 (both) or
// 1 against 0; two zeros give angle 0.
static inline etr_vf vf_atan2(etr_vf y, etr_vf x) {
  const etr_vf inf = vf_set1(INFINITY);
  etr_vf a = vf_abs(y);
  etr_vf b = vf_abs(x);
  etr_vm a_inf = vf_eq(a, inf);
  etr_vm b_inf = vf_eq(b, inf);
  etr_vf a1 = vf_select(a_inf, vf_set1(1.0f),
                        vf_select(b_inf, vf_zero(), a));
  etr_vf b1 = vf_select(b_inf, vf_set1(1.0f),
                        vf_select(a_inf, vf_zero(), b));
  etr_vm zeros = vm_and(vf_eq(a1, vf_zero()), vf_eq(b1, vf_zero()));
  b1 = vf_select(zeros, vf_set1(1.0f), b1);
  etr_vd2 angle = vd2_atan_ratio(vf_to_vd2(a1), vf_to_vd2(b1));
  etr_vd2 x_negative =
      vd2_from_mask(vf_lt(vf_copysign(vf_set1(1.0f), x), vf_zero()));
  angle = vd2_choose(x_negative,
                     vd2_sub(vd2_set1(3.14159265358979323846), angle), angle);
  etr_vf r = vf_copysign(vd2_to_vf(angle), y);
  return vf_select(vm_or(vf_isnan(x), vf_isnan(y)), vf_add(x, y), r);
}

#endif  // ETR_OPS_OPTIMIZED_UNARY_VMATH_TRIG_H
