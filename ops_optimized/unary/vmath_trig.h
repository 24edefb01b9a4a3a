// SPDX-License-Identifier: Apache-2.0
//
// Vectorized fp32 trigonometric functions (sin, cos, tan, atan, asin,
// acos, atan2), written once against the primitives of a simd_<isa>.h
// header like vmath.h (include that first). Results are within an ulp of
// the reference (libm in double, rounded once) and usually equal to it:
// computed in double from the float argument and rounded once, or for
// sin, cos and tan in float with an error below 1.5 ulp of the exact
// value;
// the bounds the differential tests measure are stated in
// ops_optimized/test/diff_elementwise_transcendental_test.c.
//
// sin, cos, tan: x = n pi/2 + r with n = round(x 2/pi) in float and r by a
// three-part Cody-Waite reduction, kept as two floats (vf_trig_split),
// then polynomials in float: Taylor's for sin and cos
// (vf_trig_reduce_float), a fit for tan (vf_tan_near). Lanes with |x| >=
// 2^16 (and +-inf, NaN) are recomputed with libm in double, as the
// reference computes them.
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

// Lanes beyond the vector reduction.
static const float kTrigLimit = 65536.0f;

// sin and cos of x's reduced argument, in float. r = x - n pi/2 as two
// floats r = hi + lo: x - n C1 is exact (a multiple of 2^-24 below 1),
// n C2 splits exactly into p and p's rounding error (a fused
// multiply-add), x - n C1 - p into hi and its error by two-sum (either
// may be the larger), and n C3 (pi/2 is C1 + C2 + C3 within 1.1e-23)
// goes into lo with the two errors: r within about 1e-17 (lo's own
// roundings and n C3's, |n| < 2^16) plus 2^-47 of r; the sweep over
// every float (ulp_sweep 1 sin, 1 cos) checks what that leaves. Then
//   sin r = hi + (lo + hi r^2 S(r^2)), r^2 = hi^2: the term it enters is
//     below a tenth of r, so its roundings stay under 0.35 ulp;
//   cos r = 1 + r^2 C(r^2), r^2 = hi^2 + 2 hi lo (hi lo moves cos r by up
//     to 0.6 ulp): under 0.4 ulp before the last rounding.
// Taylor coefficients rounded to float, to r^9 and r^10 (truncation below
// 2^-28 relative over |r| <= 0.792: pi/4 and the float rounding of n),
// evaluated by Estrin's scheme (Horner's longer chains measured 15%
// slower). Both within 1.5 ulp of the exact value, so within 1 ulp of the
// correctly rounded float, also with the unfused multiply-adds of the
// scalar path (the exact steps use vf_fma_exact). AVX-512 sin on AMD
// Zen 4: 0.72 G elements/s with r and both polynomials in double, 2.1 in
// float.
// pi/2 = kPio2f[0] + kPio2f[1] + kPio2f[2] + 1.06e-23.
static const float kPio2f[3] = {1.57079637f, -4.37113883e-8f,
                                -1.71512451e-15f};
static const float kSinSf[4] = {-1.0f / 6, 1.0f / 120, -1.0f / 5040,
                                1.0f / 362880};
static const float kCosCf[5] = {-1.0f / 2, 1.0f / 24, -1.0f / 720,
                                1.0f / 40320, -1.0f / 3628800};

// T(u) with tan r = r + r^3 T(r^2) over |r| <= 0.7925 (fit kTanTf,
// relative error of tan 7e-9 with the coefficients rounded).
static const float kTanTf[7] = {0.333333552f,  0.133325085f,
                                0.0540772118f, 0.0211941246f,
                                0.0110616321f, -0.000194349152f,
                                0.00451539923f};

// x = n pi/2 + hi + lo, as vf_trig_reduce_float below says.
typedef struct trig_split {
  etr_vi n_bits;  // n's two low bits as bits 30 and 31, the rest zero
  etr_vf hi;
  etr_vf lo;
} trig_split_t;

// For |x| < kTrigLimit (the other lanes are computed, then replaced).
static inline __attribute__((always_inline)) trig_split_t
vf_trig_split(etr_vf x) {
  trig_split_t t;
  etr_vf n = vf_rint(vf_mul(x, vf_set1(0.636619772f)));
  // n + 1.5 2^23 holds n mod 2^22 in its low bits (|n| < 2^21).
  t.n_bits = vi_shl30(vf_as_vi(vf_add(n, vf_set1(12582912.0f))));
  etr_vf minus_n = vf_neg(n);
  etr_vf r1 = vf_fma_exact(minus_n, vf_set1(kPio2f[0]), x);
  etr_vf p = vf_mul(n, vf_set1(kPio2f[1]));
  etr_vf p_rest = vf_fma_exact(minus_n, vf_set1(kPio2f[1]), p);  // p - n C2
  t.hi = vf_sub(r1, p);
  etr_vf moved = vf_sub(t.hi, r1);
  etr_vf e = vf_sub(vf_sub(r1, vf_sub(t.hi, moved)), vf_add(p, moved));
  t.lo = vf_fnma(n, vf_set1(kPio2f[2]), vf_add(e, p_rest));
  return t;
}

typedef struct trig_float {
  etr_vf sin_r;
  etr_vf cos_r;
  etr_vi n_bits;  // n's two low bits as bits 30 and 31, the rest zero
} trig_float_t;

// For |x| < kTrigLimit (the other lanes are computed, then replaced).
static inline __attribute__((always_inline)) trig_float_t
vf_trig_reduce_float(etr_vf x) {
  trig_float_t t;
  const trig_split_t split = vf_trig_split(x);
  const etr_vf hi = split.hi;
  const etr_vf lo = split.lo;
  t.n_bits = split.n_bits;
  etr_vf hi2 = vf_mul(hi, hi);
  etr_vf hi4 = vf_mul(hi2, hi2);
  etr_vf s = vf_fma(hi4, vf_fma(vf_set1(kSinSf[3]), hi2, vf_set1(kSinSf[2])),
                    vf_fma(vf_set1(kSinSf[1]), hi2, vf_set1(kSinSf[0])));
  t.sin_r = vf_add(hi, vf_fma(vf_mul(hi, hi2), s, lo));
  etr_vf r2 = vf_fma_exact(hi, hi, vf_mul(vf_add(hi, hi), lo));
  etr_vf r4 = vf_mul(r2, r2);
  etr_vf c = vf_fma(
      r4,
      vf_fma(r4, vf_set1(kCosCf[4]),
             vf_fma(vf_set1(kCosCf[3]), r2, vf_set1(kCosCf[2]))),
      vf_fma(vf_set1(kCosCf[1]), r2, vf_set1(kCosCf[0])));
  t.cos_r = vf_fma(r2, c, vf_set1(1.0f));
  return t;
}

// The lanes the float path leaves to libm: |x| >= kTrigLimit, the
// infinities and NaN.
static inline etr_vm vf_trig_outside(etr_vf x) {
  return vm_or(vf_ge(vf_abs(x), vf_set1(kTrigLimit)), vf_isnan(x));
}

// Recomputes with `fn` (libm, double) the lanes of x beyond the reduction.
static inline etr_vf vf_trig_far(etr_vf x, etr_vf y, double (*fn)(double)) {
  if (!vm_any(vf_trig_outside(x))) {
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

// The lanes of odd n, from `bits` (n's bits 0 and 1 as bits 30 and 31):
// read as a float they are +-0 for even n, +-2 for odd.
static inline etr_vm vf_trig_odd(etr_vi bits) {
  return vf_ne(vi_as_vf(bits), vf_zero());
}

// +-sin r or +-cos r by n mod 4 (`bits` as vf_trig_odd's): cos r for odd
// n, the sign flipped for n mod 4 of 2 and 3.
static inline __attribute__((always_inline)) etr_vf vf_trig_quadrant(
    etr_vi bits, etr_vf sin_r, etr_vf cos_r) {
  etr_vf y = vf_select(vf_trig_odd(bits), cos_r, sin_r);
  return vi_as_vf(vi_xor(vf_as_vi(y),
                         vi_and(bits, vi_set1((int32_t)0x80000000u))));
}

// sin x for |x| < kTrigLimit; keeps -0.0.
static inline __attribute__((always_inline)) etr_vf vf_sin_near(etr_vf x) {
  trig_float_t t = vf_trig_reduce_float(x);
  etr_vf y = vf_trig_quadrant(t.n_bits, t.sin_r, t.cos_r);
  return vf_select(vf_eq(x, vf_zero()), x, y);
}

// cos x = sin(x + pi/2): the quadrant of n + 1.
static inline __attribute__((always_inline)) etr_vf vf_cos_near(etr_vf x) {
  trig_float_t t = vf_trig_reduce_float(x);
  return vf_trig_quadrant(vi_add(t.n_bits, vi_set1(1 << 30)), t.sin_r,
                          t.cos_r);
}

// tan x for |x| < kTrigLimit, in float, from r = hi + lo
// (vf_trig_split): tan r = hi + w, w = hi z T(z) + lo (1 + t1^2) in one
// multiply-add (fused on the scalar build too, vf_fma_exact: unfused, it
// put tan 2 ULP off at 0x1.f3bd2ap+1), z = hi^2, t1 = hi + hi z T (tan r
// = tan hi + lo sec^2 hi to 2^-48 of r). |w| <= 0.22 |tan r|, so its
// rounding is under 0.15 ulp of the result, z's and T's a few tenths
// more, the sum's 0.5: under 1.5 ulp of the exact value, as sin and cos.
// For odd n, -1 / (hi + w):
// s = hi + w and its error s_lo (Fast2Sum: |hi| >= |w|), q = -1 / s
// rounded, then one Newton step, q + q (1 + q (s + s_lo)), 1 + q s exact
// in a multiply-add: q's error squared, then the step's last rounding
// (q alone was 2 ULP off at 0x1.159b8p+0). Keeps -0.0. Against sin r /
// cos r in double: bench_elementwise --only "tan f32", 16 Ki floats,
// AVX-512 on Zen 4, 0.71 -> 1.53 G elements/s.
static inline __attribute__((always_inline)) etr_vf vf_tan_near(etr_vf x) {
  const trig_split_t t = vf_trig_split(x);
  etr_vf z = vf_mul(t.hi, t.hi);
  etr_vf z2 = vf_mul(z, z);
  etr_vf z4 = vf_mul(z2, z2);
  etr_vf low = vf_fma(z2, vf_fma(vf_set1(kTanTf[3]), z, vf_set1(kTanTf[2])),
                      vf_fma(vf_set1(kTanTf[1]), z, vf_set1(kTanTf[0])));
  etr_vf high = vf_fma(z2, vf_set1(kTanTf[6]),
                       vf_fma(vf_set1(kTanTf[5]), z, vf_set1(kTanTf[4])));
  etr_vf zt = vf_mul(z, vf_fma(z4, high, low));
  etr_vf t1 = vf_fma(t.hi, zt, t.hi);
  etr_vf w = vf_fma_exact(t.hi, zt, vf_fma(t.lo, vf_mul(t1, t1), t.lo));
  etr_vf s = vf_add(t.hi, w);
  etr_vf y = s;
  const etr_vm odd = vf_trig_odd(t.n_bits);
  if (vm_any(odd)) {
    etr_vf s_lo = vf_sub(w, vf_sub(s, t.hi));
    etr_vf q = vf_div(vf_set1(-1.0f), s);
    etr_vf e = vf_fma(q, s_lo, vf_fma_exact(q, s, vf_set1(1.0f)));
    y = vf_select(odd, vf_fma(q, e, q), s);
  }
  return vf_select(vf_eq(x, vf_zero()), x, y);
}

// vf_<name> (sin, cos, tan): vf_<name>_near with the lanes at or past
// kTrigLimit (and NaN, +-inf) by libm's <name> in double. And
// vf_<name>_fast_pair: two vectors when neither has a lane for libm;
// false, the vectors untouched, otherwise (unary_kernels.h's
// ETR_UNARY_SPLIT_LOOP then takes vf_<name>): no call on the loop's path.
#define ETR_TRIG_FUNCTIONS(name)                                        \
  static inline etr_vf vf_##name(etr_vf x) {                            \
    return vf_trig_far(x, vf_##name##_near(x), name);                   \
  }                                                                     \
  static inline __attribute__((always_inline)) bool vf_##name##_fast_pair( \
      etr_vf *a, etr_vf *b) {                                           \
    if (vm_any(vm_or(vf_trig_outside(*a), vf_trig_outside(*b)))) {      \
      return false;                                                     \
    }                                                                   \
    *a = vf_##name##_near(*a);                                          \
    *b = vf_##name##_near(*b);                                          \
    return true;                                                        \
  }
ETR_TRIG_FUNCTIONS(sin)
ETR_TRIG_FUNCTIONS(cos)
ETR_TRIG_FUNCTIONS(tan)
#undef ETR_TRIG_FUNCTIONS

// atan t = t (1 + t^2 A(t^2)) for |t| <= tan(pi/8) (+ a float rounding):
// the Taylor series to t^23, truncation below 1e-10 relative.
static const double kAtanA[11] = {
    -1.0 / 3,  1.0 / 5,  -1.0 / 7,  1.0 / 9,  -1.0 / 11, 1.0 / 13,
    -1.0 / 15, 1.0 / 17, -1.0 / 19, 1.0 / 21, -1.0 / 23};

// atan(num / den) in [0, pi/2] for finite num, den >= 0, not both 0.
// With u = a / b (the smaller over the larger), the reduction's
// (u - 1) / (u + 1) is (a - b) / (a + b): one division either way, of a
// difference and a sum that are exact in double (two floats within a
// factor of 2.5). Two divisions, u's and then the reduction's, took most
// of atan's time.
static inline etr_vd2 vd2_atan_ratio(etr_vd2 num, etr_vd2 den) {
  etr_vd2 swap = vd2_from_mask(vf_gt(vd2_to_vf(num), vd2_to_vf(den)));
  etr_vd2 a = vd2_choose(swap, den, num);
  etr_vd2 b = vd2_choose(swap, num, den);
  etr_vd2 shift = vd2_from_mask(
      vf_gt(vd2_to_vf(a), vf_mul(vf_set1(0.41421356f), vd2_to_vf(b))));
  etr_vd2 t = vd2_div(vd2_sub(a, vd2_mul(shift, b)), vd2_fma(shift, a, b));
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
