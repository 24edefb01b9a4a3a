// SPDX-License-Identifier: Apache-2.0
//
// Vectorized fp32 transcendental functions, written once against the
// primitives of a simd_<isa>.h header (include that first): each *_<isa>.c
// file that includes this one gets them for its ISA. No intrinsics here.
//
// Accuracy targets are stated in units in the last place (ULP) of the
// float result against the correctly rounded value; the bounds actually
// tested against the reference kernels (which evaluate in double and round
// once) are measured and stated in ops_optimized/test/
// diff_elementwise_unary_test.c (gelu's: diff_elementwise_gelu_test.c).
// Polynomial and rational coefficients come from
// ops_optimized/unary/fit_polynomials.py (the array names match its
// output). Special values (NaN, +-inf, +-0, subnormals, overflow and
// underflow) are handled explicitly and come out as the C library's.
#ifndef ETR_OPS_OPTIMIZED_UNARY_VMATH_H
#define ETR_OPS_OPTIMIZED_UNARY_VMATH_H

#include <math.h>

#include "ops_optimized/unary/vmath_abs_tables.h"
#include "ops_optimized/unary/vmath_gelu_tables.h"

// For the rare, long paths of a function whose common path is short: kept
// out of line so that the kernel's loop inlines the short path and keeps
// its constants in registers.
#if defined(__GNUC__)
#define ETR_VMATH_OUT_OF_LINE __attribute__((noinline, cold))
#else
#define ETR_VMATH_OUT_OF_LINE
#endif

// The number of rows of a table float T[rows][entries].
#define ETR_ROWS(table) ((int)(sizeof(table) / sizeof((table)[0])))

// Horner's rule with fused steps: c[0] + x (c[1] + x (... c[n-1])).
// Unrolled by the pragma: GCC 12 at -O2 otherwise kept the loop, a
// broadcast from memory and a branch per step (gelu none on AVX2, Zen 2,
// 16 Ki floats: 0.88 -> 0.95 G elements/s with it; exp unchanged).
static inline etr_vf vf_poly(etr_vf x, const float *c, int n) {
  etr_vf y = vf_set1(c[n - 1]);
#pragma GCC unroll 16
  for (int i = n - 2; i >= 0; --i) {
    y = vf_fma(y, x, vf_set1(c[i]));
  }
  return y;
}

// 2^n for integer lanes n in [-126, 127].
static inline etr_vf vf_pow2i(etr_vi n) {
  return vi_as_vf(vi_shl23(vi_add(n, vi_set1(127))));
}

#ifndef ETR_HAVE_VF_SCALE_POW2
// p 2^n for float lanes n holding integers in [-150, 128] (down to -252
// for |p| >= 1/2), rounded once: 2^n in two factors, so that p 2^(n/2)
// is exact and a subnormal result is rounded only by the last
// multiplication. simd_avx512.h has its own
// (one vscalefps).
static inline etr_vf vf_scale_pow2(etr_vf p, etr_vf n) {
  etr_vi ni = vf_to_vi(n);
  etr_vi n1 = vi_sra1(ni);
  return vf_mul(vf_mul(p, vf_pow2i(n1)), vf_pow2i(vi_sub(ni, n1)));
}
#endif

// aten::clamp's order: v < low ? low : v, then v > high ? high : v.
// Comparisons with NaN are false, so a NaN v or bound leaves v alone. (The
// unary CLAMP kernel, and the fused hardswish of binary_kernels.h, which
// must give its bits.)
static inline etr_vf vf_clamp_ordered(etr_vf v, etr_vf low, etr_vf high) {
#if defined(ETR_HAVE_VF_CLAMP)
  return vf_clamp(v, low, high);
#else
  v = vf_select(vf_lt(v, low), low, v);
  return vf_select(vf_gt(v, high), high, v);
#endif
}

static const float kLn2Hi = 0.693145751953125f;  // 11 significant bits
static const float kLn2Lo = 1.42860677e-06f;     // ln 2 - kLn2Hi
static const float kLog2e = 1.44269504f;
// 1.5 * 2^23: t + it, for |t| < 2^22, is t rounded to an integer n held
// in the low mantissa bits, so (bits << 23) is n in the exponent field.
static const float kRoundShift = 12582912.0f;

// Q(r) with e^r = 1 + r + r^2 Q(r) and expm1(r) = r + r^2 Q(r) on
// |r| <= ln2/2 (fit kExpQ, relative error 2.5e-10).
static const float kExpQ[6] = {0.5f,           0.166666672f,
                               0.0416663401f,  0.00833327137f,
                               0.00139420596f, 0.000199150323f};

// Splits x = n ln2 + r with |r| <= ln2/2 (Cody-Waite, exact for the |n|
// these functions reach); returns r and writes n.
static inline etr_vf vf_reduce_ln2(etr_vf x, etr_vf *n) {
  *n = vf_round(vf_mul(x, vf_set1(kLog2e)));
  etr_vf r = vf_fnma(*n, vf_set1(kLn2Hi), x);
  return vf_fnma(*n, vf_set1(kLn2Lo), r);
}

// e^z for z in [-104, 89] (or NaN, which gives NaN): z = n ln2 + r,
// e^r by kExpQ, then vf_scale_pow2, which rounds p 2^n once for n in
// [-150, 128], so e^89 (and anything above ln(FLT_MAX): n = 128 with
// p >= 1) overflows to +inf and e^-104 rounds to 0, with no select for
// either. The range handling of vf_exp and vf_exp_nonpositive is their
// clamp to that interval.
static inline __attribute__((always_inline)) etr_vf vf_exp_in_range_q(
    etr_vf z, const float *q_coefficients, int terms) {
  etr_vf n;
  etr_vf r = vf_reduce_ln2(z, &n);
  etr_vf q = vf_poly(r, q_coefficients, terms);
  etr_vf p = vf_add(vf_fma(vf_mul(r, r), q, r), vf_set1(1.0f));
  return vf_scale_pow2(p, n);
}
static inline etr_vf vf_exp_in_range(etr_vf z) {
  return vf_exp_in_range_q(z, kExpQ, 6);
}

// e^x, about 1 ULP; overflows to +inf above ln(FLT_MAX), rounds to
// subnormals and 0 below ln(FLT_MIN), e^-inf = 0, NaN stays NaN. On
// AVX-512 (one vscalefps) exp on 16 Ki floats went 4.6 -> 6.5-7.4 G
// elements/s when its overflow/underflow selects went, AVX2 19 -> 21-24
// GB/s (bench_elementwise --only "exp f32", old and new alternated).
// With vscalefps (AVX-512) a NaN rides through: the clamp keeps it (its
// operand order) and every step after gives NaN, so there is no isnan
// select (2 of 17 operations). The other ISAs' vf_scale_pow2 converts n
// to an integer, which is not defined for NaN.
static inline etr_vf vf_exp_general(etr_vf x) {
#if defined(ETR_HAVE_VF_SCALE_POW2)
  return vf_exp_in_range(vf_min_keep_nan(
      vf_max_keep_nan(x, vf_set1(-104.0f)), vf_set1(89.0f)));
#else
  etr_vf clamped = vf_min_num(vf_max_num(x, vf_set1(-104.0f)),
                              vf_set1(89.0f));
  return vf_select(vf_isnan(x), x, vf_exp_in_range(clamped));
#endif
}

// Whether every lane of x is a number of magnitude below `bound` (false
// for a NaN lane).
static inline bool vf_all_below(etr_vf x, float bound) {
  return vm_all(vf_lt(vf_abs(x), vf_set1(bound)));
}

#if defined(ETR_HAVE_VM_ALL_BRANCH)
// e^x for |x| < 87, where e^x is normal (e^-87 = 1.6e-38): vf_exp's
// reduction, but n = round(x log2 e) by the shift above in one
// multiply-add (no vroundps and vcvtps2dq), Q by Estrin, and p 2^n by
// adding n to p's exponent field (exact for a normal result) instead of
// vf_scale_pow2's two multiplications, with no clamp and no NaN select.
// kExpQ keeps its degree: one lower (relative error 1.4e-8) kept exp
// within 1 ULP but took pow (vf_exp_double) from 1 to 2 ULP
// (ulp_sweep 1021), for 7% of exp.
//
// vf_exp_ordinary_n does this to N (1-4) vectors in place, each step across
// all of them before the next: the chain from x to e^x is ~40 cycles of
// latency, and in program order one vector's steps fill Zen 2's FP
// scheduler with operations waiting on each other; four side by side
// keep four ready (bench_elementwise --only "exp f32", binaries
// alternated: 16 Ki floats 2.23 -> 2.42 G elements/s, 16 Mi 1.65 ->
// 1.79). Each lane's operations are those of one vector, so its bits do
// not depend on N. (Every function here is inlined: out of line, the
// vectors went through memory and exp ran at 2.0.)
#define ETR_EACH_VECTOR _Pragma("GCC unroll 4") for (int j = 0; j < N; ++j)
static inline __attribute__((always_inline)) void vf_exp_ordinary_n(
    etr_vf *v, const int N) {
  const etr_vf shift = vf_set1(kRoundShift);
  etr_vf shifted[4];
  etr_vf n[4];
  etr_vf r[4];
  etr_vf r2[4];
  etr_vf q01[4];
  etr_vf q23[4];
  etr_vf q45[4];
  etr_vf r4[4];
  ETR_EACH_VECTOR shifted[j] = vf_fma(v[j], vf_set1(kLog2e), shift);
  ETR_EACH_VECTOR n[j] = vf_sub(shifted[j], shift);
  ETR_EACH_VECTOR r[j] = vf_fnma(n[j], vf_set1(kLn2Hi), v[j]);
  ETR_EACH_VECTOR r[j] = vf_fnma(n[j], vf_set1(kLn2Lo), r[j]);
  ETR_EACH_VECTOR r2[j] = vf_mul(r[j], r[j]);
  // Q(r) of kExpQ by Estrin's scheme, step by step: three independent
  // pairs and r^4 instead of a chain of five multiply-adds, a critical
  // path of 3 steps instead of 5.
  ETR_EACH_VECTOR {
    q01[j] = vf_fma(r[j], vf_set1(kExpQ[1]), vf_set1(kExpQ[0]));
    q23[j] = vf_fma(r[j], vf_set1(kExpQ[3]), vf_set1(kExpQ[2]));
    q45[j] = vf_fma(r[j], vf_set1(kExpQ[5]), vf_set1(kExpQ[4]));
  }
  ETR_EACH_VECTOR r4[j] = vf_mul(r2[j], r2[j]);
  ETR_EACH_VECTOR q01[j] = vf_fma(r2[j], q23[j], q01[j]);
  ETR_EACH_VECTOR q01[j] = vf_fma(r4[j], q45[j], q01[j]);
  ETR_EACH_VECTOR r[j] = vf_add(vf_fma(r2[j], q01[j], r[j]), vf_set1(1.0f));
  ETR_EACH_VECTOR {
    v[j] = vi_as_vf(vi_add(vf_as_vi(r[j]), vi_shl23(vf_as_vi(shifted[j]))));
  }
}
#undef ETR_EACH_VECTOR

static inline __attribute__((always_inline)) etr_vf vf_exp_ordinary(etr_vf x) {
  vf_exp_ordinary_n(&x, 1);
  return x;
}

// Whether every lane of the 4 vectors at v is.
static inline bool vf_all_below4(const etr_vf *v, float bound) {
  const etr_vf b = vf_set1(bound);
  return vm_all(vm_and(vm_and(vf_lt(vf_abs(v[0]), b), vf_lt(vf_abs(v[1]), b)),
                       vm_and(vf_lt(vf_abs(v[2]), b), vf_lt(vf_abs(v[3]), b))));
}

// The lanes with |x| < 87 as vf_exp_ordinary computes them, the others
// by the general path: a lane's result must not depend on the lanes it
// shares a vector with (the streaming loop's head shifts them; test
// diff_streaming unary_table compares bit for bit).
ETR_VMATH_OUT_OF_LINE static etr_vf vf_exp_general_call(etr_vf x) {
  return vf_select(vf_lt(vf_abs(x), vf_set1(87.0f)), vf_exp_ordinary(x),
                   vf_exp_general(x));
}

// A vector with every |x| < 87 (all of them, with randn activations)
// takes vf_exp_ordinary; the others the general path, out of line. AVX2
// on Zen 2 (bench_elementwise --only "exp f32", 16 Ki floats, binaries
// alternated, medians of 3): 1.53 -> 2.26 G elements/s; 16 Mi floats
// 10.9 -> 13.7 GB/s.
static inline etr_vf vf_exp(etr_vf x) {
  if (vf_all_below(x, 87.0f)) {
    return vf_exp_ordinary(x);
  }
  return vf_exp_general_call(x);
}

// vf_exp of the 4 vectors at v, in place: all four by vf_exp_ordinary_n
// when every lane is below 87 in magnitude.
static inline __attribute__((always_inline)) void vf_exp4(etr_vf *v) {
  if (vf_all_below4(v, 87.0f)) {
    vf_exp_ordinary_n(v, 4);
    return;
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    v[j] = vf_exp_general_call(v[j]);
  }
}
#else
static inline etr_vf vf_exp(etr_vf x) { return vf_exp_general(x); }
#endif

#if defined(ETR_HAVE_VF_SCALE_POW2)
// Q(r) of degree 4 on |r| <= ln2/2 (relative error 1.4e-8; fit as kExpQ
// with one term fewer).
static const float kExpQ5[5] = {0.5f, 0.166665375f, 0.0416662656f,
                                0.00836724695f, 0.00139475951f};
// The exp op's own e^x (AVX-512): vf_exp_general with kExpQ5, one
// multiply-add fewer. Still within 1 ULP over every float (ulp_sweep 1
// exp: max 1.00, as before); "exp f32" on 16 Ki floats 5.2 -> 5.8 G
// elements/s (paired.py run, 7 rounds, median 1.107). exp-DRAM did not
// move (bound by memory there). vf_exp's other callers (sinh, cosh,
// pow and erfc's paths in vmath_explog.h) keep kExpQ, with which their
// bounds were measured.
static inline etr_vf vf_exp_op(etr_vf x) {
  return vf_exp_in_range_q(
      vf_min_keep_nan(vf_max_keep_nan(x, vf_set1(-104.0f)), vf_set1(89.0f)),
      kExpQ5, 5);
}
#else
static inline etr_vf vf_exp_op(etr_vf x) { return vf_exp(x); }
#endif

// expm1(r) = r + r^2 Q(r) of x = n ln2 + r (writes n): the reduction and
// polynomial vf_expm1 and vf_expm1_within share.
static inline etr_vf vf_expm1_reduced(etr_vf x, etr_vf *n) {
  etr_vf r = vf_reduce_ln2(x, n);
  return vf_fma(vf_mul(r, r), vf_poly(r, kExpQ, 6), r);
}

// e^x - 1, about 1 ULP; exact for |x| < 2^-25, -1 below -17.4, +inf
// above ln(FLT_MAX), NaN stays NaN. expm1(n ln2 + r) = 2^n expm1(r) +
// (2^n - 1) keeps the small results accurate (no cancellation in e^x - 1);
// above x = 40, where the -1 no longer matters, 2^n (1 + expm1(r)) is
// scaled in two steps like vf_exp so that n = 128 still overflows cleanly.
static inline etr_vf vf_expm1(etr_vf x) {
  const etr_vf one = vf_set1(1.0f);
  etr_vf clamped = vf_min_num(vf_max_num(x, vf_set1(-30.0f)),
                              vf_set1(89.0f));
  etr_vf n;
  etr_vf q = vf_expm1_reduced(clamped, &n);
  etr_vi ni = vf_to_vi(n);
  etr_vi n1 = vi_sra1(ni);
  etr_vf scale1 = vf_pow2i(n1);
  etr_vf scale2 = vf_pow2i(vi_sub(ni, n1));
  etr_vf scale = vf_mul(scale1, scale2);  // 2^n, exact while n <= 127
  etr_vf small = vf_fma(scale, q, vf_sub(scale, one));
  etr_vf large = vf_mul(vf_mul(vf_add(q, one), scale1), scale2);
  etr_vf y = vf_select(vf_gt(x, vf_set1(40.0f)), large, small);
  y = vf_select(vf_gt(x, vf_set1(88.8f)), vf_set1(INFINITY), y);
  y = vf_select(vf_eq(x, vf_zero()), x, y);  // keeps -0.0
  return vf_select(vf_isnan(x), x, y);
}

// vf_expm1's path below 40 on x clamped to [-30, 40] by the caller (2^n
// one power of two for n in [-44, 58]); x itself for the zero select.
static inline etr_vf vf_expm1_within(etr_vf x, etr_vf clamped) {
  etr_vf n;
  etr_vf q = vf_expm1_reduced(clamped, &n);
  etr_vf scale = vf_pow2i(vf_to_vi(n));
  etr_vf y = vf_fma(scale, q, vf_sub(scale, vf_set1(1.0f)));
  return vf_select(vf_eq(x, vf_zero()), x, y);  // keeps -0.0
}

// vf_expm1 for x <= 0, bit for bit; -inf gives -1, NaN gives NaN, x > 0
// gives +0 (for callers that discard those lanes: elu's negative
// branch).
static inline etr_vf vf_expm1_nonpositive(etr_vf x) {
  return vf_expm1_within(
      x, vf_min_keep_nan(vf_max_keep_nan(x, vf_set1(-30.0f)), vf_zero()));
}

// The expm1 op: vectors whose lanes all lie within (-40, 40) (no NaN) by
// vf_expm1_within, bit for bit vf_expm1 there, the others by vf_expm1.
// The same outputs over every float on scalar, AVX2 and AVX-512
// (ulp_sweep 1 expm1, a hash of them); bench_elementwise "expm1 f32",
// 16 Ki floats, Zen 4, paired 7 rounds: 2.7 -> 4.2 G elements/s.
static inline etr_vf vf_expm1_op(etr_vf x) {
  if (vf_all_below(x, 40.0f)) {
    return vf_expm1_within(x, vf_max_num(x, vf_set1(-30.0f)));
  }
  return vf_expm1(x);
}

// P(f) with log(1 + f) = f - f^2/2 + f^3 P(f), f in [sqrt(1/2) - 1,
// sqrt(2) - 1] (fit kLogP, relative error 5.9e-9).
static const float kLogP[8] = {0.333333164f,  -0.250008106f, 0.200022951f,
                               -0.166244984f, 0.141809613f,  -0.131291136f,
                               0.12883471f,   -0.0786087364f};

// x = 2^exponent m, m in [sqrt(1/2), sqrt(2)), for finite x > 0
// (subnormals included): returns m (exact) and writes the exponent. The
// ISAs with vgetmantps/vgetexpps (ETR_HAVE_VF_MANT_EXP: AVX-512) take
// [1, 2) and the exponent from them, subnormals included; the others
// scale a subnormal up by 2^23 and read the bits.
static inline etr_vf vf_split_mantissa(etr_vf x, etr_vf *exponent) {
#if defined(ETR_HAVE_VF_MANT_EXP)
  etr_vf e = vf_exponent_of(x);
  etr_vf m = vf_mantissa_1_2(x);
#else
  etr_vm subnormal = vf_lt(x, vf_set1(1.17549435e-38f));
  etr_vf scaled = vf_select(subnormal, vf_mul(x, vf_set1(8388608.0f)), x);
  etr_vi bits = vf_as_vi(scaled);
  etr_vf e = vi_to_vf(vi_sub(vi_shr23(bits), vi_set1(127)));
  e = vf_sub(e, vf_select(subnormal, vf_set1(23.0f), vf_zero()));
  etr_vf m = vi_as_vf(vi_or(vi_and(bits, vi_set1(0x007fffff)),
                            vi_set1(0x3f800000)));  // [1, 2)
#endif
  etr_vm big = vf_gt(m, vf_set1(1.41421354f));
  *exponent = vf_add(e, vf_select(big, vf_set1(1.0f), vf_zero()));
  return vf_select(big, vf_mul(m, vf_set1(0.5f)), m);
}

// ln x, about 1 ULP; subnormal x handled, ln(+-0) = -inf, ln(x < 0) = NaN,
// ln(+inf) = +inf, NaN stays NaN.
static inline etr_vf vf_log(etr_vf x) {
  const etr_vf one = vf_set1(1.0f);
  etr_vf exponent;
  etr_vf m = vf_split_mantissa(x, &exponent);
  etr_vf f = vf_sub(m, one);  // exact
  etr_vf z = vf_mul(f, f);
  etr_vf y = vf_mul(vf_mul(f, z), vf_poly(f, kLogP, 8));
  y = vf_fma(exponent, vf_set1(-2.12194440e-4f), y);
  y = vf_fnma(vf_set1(0.5f), z, y);
  etr_vf result = vf_add(f, y);
  // 0.693359375 has 9 significant bits: exponent * it is exact.
  result = vf_fma(exponent, vf_set1(0.693359375f), result);
  result = vf_select(vf_eq(x, vf_zero()), vf_set1(-INFINITY), result);
  result = vf_select(vf_lt(x, vf_zero()), vf_set1(NAN), result);
  result = vf_select(vf_eq(x, vf_set1(INFINITY)), x, result);
  return vf_select(vf_isnan(x), x, result);
}

// P(u) with tanh(a) = a + a^3 P(a^2), 0 <= a < ln2 / 2 (fit kTanhP,
// relative error 4.3e-10).
static const float kTanhP[4] = {-0.333333224f, 0.133324042f,
                                -0.0537317321f, 0.0194649361f};
// Q(r) with e^r = 1 + r + r^2 Q(r) on 0 <= r < ln2 (fit kExpQ01, relative
// error 1.6e-8; tanh weighs it by 1 / (1 + h) <= 0.6).
static const float kExpQ01[5] = {0.500001073f, 0.166645497f,
                                 0.0418043546f, 0.00794622023f,
                                 0.00187012402f};

#if defined(ETR_HAVE_VF_LOOKUP32)
// hi + t P(t) from the columns `index` (mod 32: a lane outside the table
// reads nothing outside it) of one of vmath_abs_tables.h's tables (fit
// by fit_polynomials.py --abs-tables) of `rows` rows (hi = f(c) rounded
// to float, then P's coefficients) of 32 entries, one multiply-add
// chain: the last step adds to hi a smaller term, rounded once. `rows`
// lookups (vpermt2ps), rows - 1 multiply-adds, no exp and no division.
// Without a row for the rest of f(c) (fit_polynomials.py says why the
// bounds hold): Zen 4, 16 Ki floats, tanh 4.39 -> 4.75 G elements/s,
// sigmoid 4.88 -> 5.22 (bench_elementwise, three runs each, 2026-12-07).
static inline __attribute__((always_inline)) etr_vf vf_table_rows(
    const float *table, const int rows, etr_vi index, etr_vf t) {
  etr_vf p = vf_lookup32(table + (rows - 1) * 32, index);
#pragma GCC unroll 16
  for (int k = rows - 2; k >= 0; --k) {
    p = vf_fma(p, t, vf_lookup32(table + k * 32, index));
  }
  return p;
}

// vf_table_rows on intervals of x >= 0 of `step` (a power of two): i =
// round(x / step), read off the low mantissa bits of x + 1.5 * 2^23 step
// (whose ulp is the step) as in vf_gelu_rows, c = i step and t = x - c
// exact. Sigmoid's table (x = |x| < 7.75 there, i in [0, 31]; its caller
// takes another path for the rest).
static inline __attribute__((always_inline)) etr_vf vf_table_poly(
    etr_vf x, const float *table, const int rows, const float step) {
  const etr_vf shift = vf_set1(12582912.0f * step);  // 1.5 * 2^23 step
  etr_vf shifted = vf_add(x, shift);
  etr_vi index = vf_as_vi(shifted);
  etr_vf t = vf_sub(x, vf_sub(shifted, shift));
  return vf_table_rows(table, rows, index, t);
}

// AVX-512: tanh |x| from kTanhTable, |x| capped at 9.125 (tanh is 1 in
// float from 9.02; the last interval's polynomial runs to there; a NaN
// stays NaN), then x's sign ORed in (-0.0 stays -0.0). The intervals
// widen with a = |x| (fit_polynomials.py's tanh_intervals: 8 to each
// binade of u = a + 1/2, sixteenths near 0 where tanh bends, then [7,
// 9.125] where it hardly moves): u, capped below 8, has the interval in
// its bits >> 20 (its exponent and top 3 mantissa bits; the table is
// rotated so that their low 5 bits are the entry), and u with the other
// bits cleared, minus 1/2, is the interval's left edge c (exact); t = a -
// c is exact (c <= a <= 2c, or c = 0); tanh = vf_table_rows of the
// interval's column. Within 1 ULP of the correctly rounded result over
// every float (ulp_sweep 1 tanh). Against
// uniform quarters, which needed degree 6 in t near 0, degree 4: 6 rows
// (lookups) and 4 multiply-adds, not 8 and 6, each about a cycle on Zen
// 4 (tools/port_probe.c), the extra integer steps and the cap free.
// bench_elementwise --only "tanh f32", 16 Ki floats: 3.1 -> 4.5 G
// elements/s (Intel Xeon, binaries alternated) with the uniform table
// against the exp-and-division form below; this one against that table
// on Zen 4 3.36 -> 4.3 (the two builds side by side on the two cores,
// median ratio 1.284 over 7 rounds; 16 Mi floats 1.296; intervals 8 to
// each binade of |x| + 1 with degree 5, 7 rows, had 1.158). A table of
// 16 entries of degree 5 through vpermps, as gelu's narrow one, ran 3.79
// where this one, then with its lo row (6 rows), ran 4.39 (Zen 4,
// 2026-12-07).
// The steps above for an odd function of x from a table of `rows` rows
// on tanh's intervals (kTanhTable, and vmath_explog.h's vf_erf on
// kErfTable). `linear_first` (a constant): the first interval's column
// is for f(t) - t, and the last multiply-add adds it to t there in place
// of hi (0): one comparison and one select more. The lanes of the first
// interval are those with c = 0, the ones whose column was looked up (a
// just below 1/16 whose a + 1/2 rounds up to 9/16 is in the second).
static inline __attribute__((always_inline)) etr_vf vf_odd_binade_table(
    etr_vf x, const float *table, const int rows, const bool linear_first) {
  etr_vf a = vf_min_keep_nan(vf_abs(x), vf_set1(9.125f));
  etr_vf u = vf_min_num(vf_add(a, vf_set1(0.5f)), vf_set1(7.99999952f));
  etr_vi index = vi_shr(vf_as_vi(u), 20);
  etr_vf c = vf_sub(
      vi_as_vf(vi_and(vf_as_vi(u), vi_set1((int32_t)0xfff00000u))),
      vf_set1(0.5f));
  etr_vf t = vf_sub(a, c);
  // vf_table_rows of all the rows, its last step apart.
  etr_vf p = vf_table_rows(table + 32, rows - 1, index, t);
  etr_vf hi = vf_lookup32(table, index);
  if (linear_first) {
    hi = vf_select(vf_eq(c, vf_zero()), t, hi);
  }
  etr_vf y = vf_fma(p, t, hi);
  return vi_as_vf(vi_or(vf_as_vi(y),
                        vi_and(vf_as_vi(x), vi_set1(INT32_MIN))));
}
static inline etr_vf vf_tanh(etr_vf x) {
  return vf_odd_binade_table(x, kTanhTable[0], ETR_ROWS(kTanhTable),
                             false);
}
#else
// Without the table (AVX2, scalar, NEON): tanh x within 1 ULP of the
// correctly rounded result over every float (ops_optimized/tools/
// ulp_sweep with stride 1, every x86 ISA). With a = |x| and x's sign put
// back at the end:
// - a < ln2 / 2: a + a^3 P(a^2), the error being the last rounding;
// - above: h / (1 + h), h = expm1(2a) / 2. 2a = n ln2 + r with n =
//   floor(2a / ln2), so r is in [0, ln2) and h = 2^(n-1) expm1(r) +
//   (2^(n-1) - 1/2) adds terms of one sign (no cancellation, unlike a
//   rounded n, whose negative r cost 2 ULP near a = 0.17). One fused
//   step with ln2 rounded to float: its error, n 1.9e-9 with n <= 28,
//   reaches h's relative error only weighed by 1 / (1 + h).
// 2a is capped at 20 (tanh is 1 in float from 9.1; a NaN becomes 20 and
// is put back at the end); -0.0 keeps its sign through the copysign.
// 15 multiply-adds and one division a vector, against 19 for the former
// form (a polynomial of degree 6 below 0.625, expm1 with Cody-Waite
// rounding to nearest above): ~88% of DRAM copy bandwidth at 16 Mi floats
// instead of ~70% on AVX-512, which took this form before the table
// (bench_elementwise --only "tanh f32"). NaN and the sign ride through
// the select and one OR rather than a copysign and a NaN select: 4.5 ->
// 5.2 G elements/s in L2 (AVX-512 then).
// Where ETR_HAVE_VM_ALL_BRANCH is defined (AVX2; tanh itself does not
// branch) P and Q by Estrin's scheme and 2^(n-1) from n + 1.5 * 2^23 +
// 126 shifted into the exponent field (one addition and one shift for
// vcvtps2dq and three integer steps), shorter dependency chains being
// what Zen 2 runs these kernels at: 1.43 -> 1.62 G elements/s on 16 Ki
// floats (bench_elementwise --only "tanh f32", binaries alternated).
static inline etr_vf vf_tanh(etr_vf x) {
  const etr_vf one = vf_set1(1.0f);
  etr_vf a = vf_abs(x);
  etr_vf u = vf_mul(a, a);
#if defined(ETR_HAVE_VM_ALL_BRANCH)
  // min(a, 10) 2 log2 e is exactly min(2a, 20) log2 e rounded (doubling
  // commutes with rounding), one addition shorter on the way to n.
  etr_vf capped = vf_min_num(a, vf_set1(10.0f));
  etr_vf t = vf_add(capped, capped);
  etr_vf n = vf_floor(vf_mul(capped, vf_set1(2.0f * kLog2e)));
  etr_vf r = vf_fnma(n, vf_set1(0.693147182f), t);
  etr_vf u2 = vf_mul(u, u);
  etr_vf p = vf_fma(u2, vf_fma(u, vf_set1(kTanhP[3]), vf_set1(kTanhP[2])),
                    vf_fma(u, vf_set1(kTanhP[1]), vf_set1(kTanhP[0])));
  etr_vf near_zero = vf_fma(vf_mul(a, u), p, a);
  etr_vf r2 = vf_mul(r, r);
  etr_vf q23 = vf_fma(r2, vf_set1(kExpQ01[4]),
                      vf_fma(r, vf_set1(kExpQ01[3]), vf_set1(kExpQ01[2])));
  etr_vf q = vf_fma(r2, q23,
                    vf_fma(r, vf_set1(kExpQ01[1]), vf_set1(kExpQ01[0])));
  q = vf_fma(r2, q, r);
  etr_vf half_scale = vi_as_vf(vi_shl23(
      vf_as_vi(vf_add(n, vf_set1(kRoundShift + 126.0f)))));
#else
  etr_vf t = vf_min_num(vf_add(a, a), vf_set1(20.0f));
  etr_vf n = vf_floor(vf_mul(t, vf_set1(kLog2e)));
  etr_vf r = vf_fnma(n, vf_set1(0.693147182f), t);
  etr_vf near_zero = vf_fma(vf_mul(a, u), vf_poly(u, kTanhP, 4), a);
  etr_vf q = vf_fma(vf_mul(r, r), vf_poly(r, kExpQ01, 5), r);
  etr_vf half_scale = vf_pow2i(vi_sub(vf_to_vi(n), vi_set1(1)));
#endif
  etr_vf h = vf_fma(half_scale, q, vf_sub(half_scale, vf_set1(0.5f)));
  etr_vf ratio = vf_div(h, vf_add(h, one));
  // An ordered compare, false for NaN: a NaN takes near_zero, which is
  // that NaN (quieted) carried through the polynomial.
  etr_vf y = vf_select(vf_ge(a, vf_set1(0.346573591f)), ratio, near_zero);
  // y is +0.0, positive or NaN with a clear sign bit: x's sign ORed in.
  return vi_as_vf(vi_or(vf_as_vi(y),
                        vi_and(vf_as_vi(x), vi_set1(INT32_MIN))));
}
#endif

// e^z for z <= 0, vf_exp without its selects: z is capped below at -104
// (e^-104 rounds to 0, so the cap is the underflow to 0; a NaN z stays
// NaN and gives NaN), and there is no overflow to test for. z = -0.0
// gives 1.
static inline etr_vf vf_exp_nonpositive(etr_vf z) {
  return vf_exp_in_range(vf_max_keep_nan(z, vf_set1(-104.0f)));
}

// 1 / (1 + e^-x), about 2 ULP: with e = e^-|x|, 1 / (1 + e) for x >= 0
// and e / (1 + e) for x < 0, so large negative x keep their tiny (down to
// subnormal) results. A NaN x makes e NaN, so 1 / (1 + e) is NaN with no
// select of its own (2 of ~21 operations).
static inline etr_vf vf_sigmoid_general(etr_vf x) {
  const etr_vf one = vf_set1(1.0f);
  etr_vf e = vf_exp_nonpositive(vf_neg(vf_abs(x)));
  etr_vf numerator = vf_select(vf_lt(x, vf_zero()), e, one);
  return vf_div(numerator, vf_add(one, e));
}

#if defined(ETR_HAVE_VM_ALL_BRANCH)
// sigmoid for |x| < 87 of N (1-4) vectors in place, each step across all
// of them as in vf_exp_ordinary_n: vf_exp_ordinary for e (normal there)
// and the numerator picked by x's sign bit (-0.0 gives e = 1, as 1
// would). Four at a time (bench_elementwise --only "sigmoid f32",
// binaries alternated): 16 Ki floats 1.64 -> 1.76 G elements/s, 16 Mi
// 1.28 -> 1.40.
static inline __attribute__((always_inline)) void vf_sigmoid_ordinary_n(
    etr_vf *v, const int N) {
  const etr_vf one = vf_set1(1.0f);
  etr_vf e[4];
  // -|x| in one OR of the sign bit.
#pragma GCC unroll 4
  for (int j = 0; j < N; ++j) {
    e[j] = vi_as_vf(vi_or(vf_as_vi(v[j]), vi_set1(INT32_MIN)));
  }
  vf_exp_ordinary_n(e, N);
#pragma GCC unroll 4
  for (int j = 0; j < N; ++j) {
    v[j] = vf_div(vf_select_sign(v[j], e[j], one), vf_add(one, e[j]));
  }
}

static inline __attribute__((always_inline)) etr_vf vf_sigmoid_ordinary(
    etr_vf x) {
  vf_sigmoid_ordinary_n(&x, 1);
  return x;
}

// Lane by lane as vf_exp_general_call.
ETR_VMATH_OUT_OF_LINE static etr_vf vf_sigmoid_general_call(etr_vf x) {
  return vf_select(vf_lt(vf_abs(x), vf_set1(87.0f)), vf_sigmoid_ordinary(x),
                   vf_sigmoid_general(x));
}

// A vector with every |x| < 87 takes vf_sigmoid_ordinary; the others
// (NaN, |x| >= 87: results down to subnormal) the general path, out of
// line. AVX2 on Zen 2, 16 Ki floats: 1.25 -> 1.66 G elements/s
// (bench_elementwise --only "sigmoid f32", alternated).
static inline etr_vf vf_sigmoid(etr_vf x) {
  if (vf_all_below(x, 87.0f)) {
    return vf_sigmoid_ordinary(x);
  }
  return vf_sigmoid_general_call(x);
}

// vf_sigmoid of the 4 vectors at v, in place, as vf_exp4.
static inline __attribute__((always_inline)) void vf_sigmoid4(etr_vf *v) {
  if (vf_all_below4(v, 87.0f)) {
    vf_sigmoid_ordinary_n(v, 4);
    return;
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    v[j] = vf_sigmoid_general_call(v[j]);
  }
}
#elif defined(ETR_HAVE_VF_LOOKUP32)
// AVX-512, |x| < 7.75: s = sigmoid(-|x|) from kSigmoidTable
// (vf_table_poly, 32 intervals of 1/4 over [0, 7.875), degree 4), and
// sigmoid(x) = 1 - s for x >= 0 (s <= 1/2, so the subtraction is exact
// or rounds once; -0.0 gives 1/2 either way). No exp, no division.
// Within 1 ULP over every float of the path (ulp_sweep 1 sigmoid
// -7.7499995 7.7499995). The tables before it: sigmoid(-|x|) in
// intervals of 1/4 of degree 6 (8 rows; Intel Xeon, 16 Ki floats, 3.4-3.6
// -> 3.8-4.1 G elements/s against vf_sigmoid_general), then sigmoid(x)
// of x itself in intervals of 1/2 of degree 5 (7 rows, no 1 - s and
// select; Zen 4 3.16 -> 3.82). On Zen 4 a 512-bit permute or FMA holds a
// shared pipe and a vector costs about the sum of them, while the
// subtraction and the select go to pipes those leave idle: this one
// (then 6 rows, with lo) took 16 Ki floats 4.15 -> 4.83 G elements/s
// (Zen 4, 2026-12-05, 7 rounds of the two builds side by side on the two
// cores, median ratio 1.163; bench_elementwise --only "sigmoid f32").
static inline etr_vf vf_sigmoid_table(etr_vf x) {
  etr_vf s = vf_table_poly(vf_abs(x), kSigmoidTable[0],
                           ETR_ROWS(kSigmoidTable), 0.25f);
  return vf_select(vf_ge(x, vf_zero()), vf_sub(vf_set1(1.0f), s), s);
}

// Lane by lane: the table for |x| < 7.75, the general path for the
// others (NaN, and results down to subnormal), so that a lane's bits do
// not depend on its neighbours. Inline, unlike the other functions' rare
// paths: a call from the kernel's loop clobbers every vector register,
// and GCC then kept the table's 14 halves in registers for one of the
// loop's two vectors only (the other's 7 lookups reloaded both halves
// each); inline it keeps them for both. Zen 4, 16 Ki floats, alternated,
// another process on the second core: 3.49 -> 3.74 G elements/s.
static inline etr_vf vf_sigmoid_table_call(etr_vf x) {
  return vf_select(vf_lt(vf_abs(x), vf_set1(7.75f)), vf_sigmoid_table(x),
                   vf_sigmoid_general(x));
}

static inline etr_vf vf_sigmoid(etr_vf x) {
  if (vf_all_below(x, 7.75f)) {
    return vf_sigmoid_table(x);
  }
  return vf_sigmoid_table_call(x);
}
#else
static inline etr_vf vf_sigmoid(etr_vf x) { return vf_sigmoid_general(x); }
#endif

// P(u) with erf(z) = z P(z^2), |z| < 0.6 (fit kErfP, relative error
// 9.7e-11).
static const float kErfP[6] = {1.12837923f,     -0.376126379f,
                               0.112837195f,    -0.0268575177f,
                               0.00517689344f, -0.000735099486f};
// erfc(a / sqrt 2) = e^(-a^2/2) P(a) / Q(a) for a >= 0.77 (fit
// kErfcP/kErfcQ, relative error 7.0e-10; a is gelu's |x| itself, so no
// rounded a / sqrt 2 enters). Evaluated in double: in float, Horner's
// roundings alone cost 3-4 ULP here.
static const double kErfcP[5] = {1.0000140350776561, 0.93667043464837052,
                                 0.41529591018270018, 0.098982661517434053,
                                 0.011346719914735126};
static const double kErfcQ[6] = {1.0,
                                 1.7346476191515514,
                                 1.2990640183096858,
                                 0.53464857415563838,
                                 0.12405893445746305,
                                 0.014220962726408937};

static inline etr_vd2 vd2_poly(etr_vd2 x, const double *c, int n) {
  etr_vd2 y = vd2_set1(c[n - 1]);
#pragma GCC unroll 16  // as vf_poly's
  for (int i = n - 2; i >= 0; --i) {
    y = vd2_fma(y, x, vd2_set1(c[i]));
  }
  return y;
}

// S(a) with 2 + a S(a) = D(a) = e^(-a^2/2) / Phi(-a) on [0, 3] (fit
// kGeluD, relative error of D 3.1e-9). D is smooth and nearly linear
// (about sqrt(2 pi) a for large a), so a polynomial fits it well.
static const float kGeluD[9] = {1.59576952f,    0.273232639f,
                                -0.0479045957f, -0.000596906f,
                                0.00342519605f, -0.00117661897f,
                                0.000220166869f, -2.3255734e-05f,
                                1.0866072e-06f};

// gelu for |x| <= 3 (and NaN, which stays NaN), all in float, no
// double and no erfc rational: with a = |x|, m = a Phi(-a) = a
// e^(-a^2/2) / D(a); gelu = -m for x < 0 and x - m for x > 0 (m <= a/2
// there, no cancellation), as max(x, 0) - m (NaN - NaN for a NaN);
// x/2 below |x| = 2^-120. e^(-a^2/2) = 2^n (1 + q)
// from an exact split a^2 = s + e (fma): r = -s/2 - n ln2 - e/2, n =
// round(-s/2 log2 e) in [-7, 0], so ln2 rounded to float costs below
// 1e-8; a 2^n is exact and a 2^n (1 + q) rounds once. Besides S's
// Horner steps, three roundings: the numerator, D and the division.
// Over every float in [-3, 3]: at most 3 ULP, with fused multiply-adds
// (NEON; AVX2 took it before its 16-entry lookups: 2.07 G elements/s on
// 16 Ki floats against the table's 3.2, Zen 5) and with the scalar
// build's unfused ones alike, same zeros and signs (a harness replaying
// these operations against 0.5 x erfc(-x / sqrt 2) in double; test
// gelu_fast_paths samples it).
static inline etr_vf vf_gelu_erf_bounded(etr_vf x) {
  etr_vf a = vf_abs(x);
  etr_vf square = vf_mul(a, a);
  etr_vf square_error = vf_fma_exact(a, a, vf_neg(square));
  etr_vf t = vf_mul(vf_set1(-0.5f), square);
  etr_vf n = vf_round(vf_mul(t, vf_set1(kLog2e)));
  etr_vf r = vf_fnma(n, vf_set1(0.693147182f), t);
  r = vf_fma(square_error, vf_set1(-0.5f), r);
  etr_vf q = vf_fma(vf_mul(r, r), vf_poly(r, kExpQ, 6), r);
  etr_vf scaled = vf_mul(a, vf_pow2i(vf_to_vi(n)));
  etr_vf d = vf_fma(a, vf_poly(a, kGeluD, 9), vf_set1(2.0f));
  etr_vf numerator = vf_fma(scaled, q, scaled);
  etr_vf m = vf_div(numerator, d);
  etr_vf y = vf_sub(vf_max_num(x, vf_zero()), m);
  // x/2 below 2^-120 (gelu's x^2 / sqrt(2 pi) term is lost there): x - m
  // would round a tie x/2 the other way; keeps -0.0 and -2^-149 -> -0.
  return vf_select(vf_lt(a, vf_set1(0x1p-120f)), vf_mul(vf_set1(0.5f), x),
                   y);
}

// Whether gelu takes the narrow tables: as `narrow` says (a constant)
// where the 32-entry table exists too (AVX-512), always where 16-entry
// lookups are the only ones (AVX2).
#ifdef ETR_HAVE_VF_LOOKUP32
#define ETR_GELU_NARROW(narrow) (narrow)
#else
#define ETR_GELU_NARROW(narrow) ((void)(narrow), true)
#endif

#ifdef ETR_HAVE_VF_LOOKUP16
// Both gelus for |x| < 3.875 from P(t), one of `entries` polynomials of
// `rows` - 1 degrees picked per lane from a table of vmath_gelu_tables.h
// (Phi(-a), or its tanh-approximation twin, with the coefficients
// rounded to float): 32 eighths of degree 5 (vf_lookup32, vpermt2ps; a
// relative 5.2e-8) or the narrow tables' 16 quarters (vf_lookup16,
// vpermps): degree 5 for -3.375 < x < 3.875 (4.4e-8 and 4.5e-8 for the
// tanh form there, vf_gelu_lookup) and the tail table's degree 6 below
// (3.3e-8, 4.5e-8: vf_gelu_tail_lookup). a = |x| = c + t, c = i step
// (step = 4 / entries), i = round(a / step) read off the low mantissa
// bits of a + 1.5 * 2^23 step (whose ulp is the step; i < entries below
// 3.875), so c is exact, and t = a - c is exact too (|t|
// <= step / 2, and c is a multiple of the step, coarser than a's ulp, or
// c = 0). Then gelu = max(0, x) - a P, one rounding: for x >= 0, x Phi(x)
// = x (1 - Phi(-x)) = x - a P; below, x Phi(x) = -a P. No exp, no
// division: 3 steps to split a, then a lookup and a multiply-add a row.
// The 32-entry table against the table of x itself before it (intervals
// of 1/4 over [-4, 4), degree 6, gelu = x P: 7 lookups, 6 multiply-adds
// and a product), in unary_kernels.h's split loop (vf_gelu_erf_fast_pair):
// 3.8 -> 4.3 G elements/s on 16 Ki floats (bench_elementwise --only
// "gelu none f32", the two builds side by side on the two cores, median
// ratio 1.128 over 7 rounds, 16 Mi floats 1.158; "gelu tanh f32" 1.146);
// of that, the split loop is 1.04-1.06 (with a call on the loop's path
// GCC reloaded the rows for one vector of two). The narrow table against
// the 32-entry one on Zen 4, where vpermt2ps holds a shared pipe for
// about a cycle and vpermps runs beside the multiply-adds
// (tools/port_probe.c): 4.3 -> 4.6 (median ratio 1.067 over 11 rounds;
// 16 Mi floats 1.062; "gelu tanh f32" 1.065) with degree 6 everywhere,
// though that spent a lookup and a multiply-add more; on Intel, where
// both permutes take the port of the second FMA unit, those would cost,
// so etr_isa_narrow_lookups (isa.h: AMD) picks the table. Over every
// float with |x| < 3.875, each table within 2 ULP (gelu none and gelu
// tanh alike) of 0.5 x erfc(-x / sqrt 2) and x / (1 + e^(-2u)) in
// double, rounded once (ulp_sweep 1 gelu_erf -3.8749998 3.8749998,
// ETREF_NARROW_LOOKUPS=0 and 1; the narrow tables' degree 5 and tail
// swept again on 2026-12-07; the fit's error, P's last rounding and the
// multiply-add's), same zeros and
// signs: -0.0 gives -0.0 (max(0, -0.0) is -0.0, and -0.0 - 0 P = -0.0),
// tiny x give x/2 rounded once as the reference does (P(0) = 1/2). A NaN
// lane stays NaN.
static inline __attribute__((always_inline)) etr_vf vf_gelu_rows(
    etr_vf x, const float *table, const int entries, const int rows) {
#ifdef ETR_HAVE_VF_LOOKUP32
#define ETR_GELU_ROW(k)                                  \
  (entries == 16 ? vf_lookup16(table + (k) * 16, index)  \
                 : vf_lookup32(table + (k) * 32, index))
#else
#define ETR_GELU_ROW(k) vf_lookup16(table + (k) * 16, index)
#endif
  const etr_vf shift = vf_set1(12582912.0f * 4.0f / (float)entries);
  etr_vf a = vf_abs(x);
  etr_vf shifted = vf_add(a, shift);
  etr_vi index = vf_as_vi(shifted);
  etr_vf t = vf_sub(a, vf_sub(shifted, shift));
  etr_vf p = ETR_GELU_ROW(rows - 1);
#pragma GCC unroll 8
  for (int k = rows - 2; k >= 0; --k) {
    p = vf_fma(p, t, ETR_GELU_ROW(k));
  }
#undef ETR_GELU_ROW
  // x >= 0: x (1 - P) = x - a P; below, x P = 0 - a P. max(0, x) is x
  // for -0.0 and NaN.
  return vf_fnma(a, p, vf_max_keep_nan(x, vf_zero()));
}

// The table path of either gelu (`tanh_form`: approximate="tanh") on the
// 32-entry or the narrow table. The narrow table has degree 5, which
// holds for -3.375 < x < 3.875 only (vf_gelu_off_fast): P's error on its
// last two entries (a >= 3.375) reaches gelu where x < 0; for x > 0,
// gelu = x (1 - P), it is weighed by P / (1 - P) < 1e-3
// (fit_polynomials.py). Against degree 6 everywhere (the tail table's),
// Zen 4, 2026-12-07, old and new builds alternated: bench_elementwise
// --only "gelu none f32", 16 Ki floats, medians of 4 runs 4.6 -> 5.2 G
// elements/s; the bench's gelu-L2 case (64 Ki randn floats, about 1
// pair of 16-lane vectors in 43 past the pair check) 14.3 -> 12.7 us a
// call.
static inline __attribute__((always_inline)) etr_vf vf_gelu_lookup(
    etr_vf x, bool tanh_form, bool narrow) {
#ifdef ETR_HAVE_VF_LOOKUP32
  if (!narrow) {
    return tanh_form ? vf_gelu_rows(x, kGeluTanhTable[0], 32,
                                    ETR_ROWS(kGeluTanhTable))
                     : vf_gelu_rows(x, kGeluErfTable[0], 32,
                                    ETR_ROWS(kGeluErfTable));
  }
#endif
  (void)narrow;
  return tanh_form ? vf_gelu_rows(x, kGeluTanhTable16[0], 16,
                                  ETR_ROWS(kGeluTanhTable16))
                   : vf_gelu_rows(x, kGeluErfTable16[0], 16,
                                  ETR_ROWS(kGeluErfTable16));
}

// The narrow path's lanes with -3.875 < x <= -3.375: the tail table, the
// same quarters with degree 6 (3.3e-8 relative, 4.5e-8 for the tanh
// form, on every entry).
static inline __attribute__((always_inline)) etr_vf vf_gelu_tail_lookup(
    etr_vf x, bool tanh_form) {
  return tanh_form ? vf_gelu_rows(x, kGeluTanhTable16Tail[0], 16,
                                  ETR_ROWS(kGeluTanhTable16Tail))
                   : vf_gelu_rows(x, kGeluErfTable16Tail[0], 16,
                                  ETR_ROWS(kGeluErfTable16Tail));
}
#endif

// gelu(x) = x Phi(x) = x/2 (1 + erf(x / sqrt 2)), within 4 ULP of
// 0.5 x erfc(-x / sqrt 2) rounded once, with the same zeros, NaNs and
// infinities, over every float (ulp_sweep, stride 1, every x86 ISA). Below
// |x| = 0.6 sqrt 2 through erf's polynomial; above, through erfc so that
// the left tail (Phi tiny) keeps its relative accuracy: Phi = erfc(z)/2
// for x < 0 and 1 - erfc(z)/2 for x > 0, z = |x|/sqrt 2, with e^(-z^2) =
// e^(-x^2/2) from an exact split of x^2. In the left tail e^(-x^2/2) =
// p 2^n is kept as p and n until the last step, where x p erfc-ratio / 2
// (all normal) is scaled by 2^n with one rounding: gelu is subnormal
// below x = -13.2, and rounding e^(-x^2/2) and its products into the
// subnormal range first, then multiplying by x, cost up to 11 ULP there
// and flushed results near x = -14.4 to zero or not (diff test
// gelu_subnormal_tail). gelu(+inf) = +inf, gelu(-inf) = NaN (-inf * 0,
// as the formula gives), NaN stays NaN.
ETR_VMATH_OUT_OF_LINE static etr_vf vf_gelu_erf_wide(etr_vf x) {
  const etr_vf half = vf_set1(0.5f);
  const etr_vf sqrt_half = vf_set1(0.707106769f);
  etr_vf z = vf_mul(x, sqrt_half);
  etr_vf erf_small = vf_mul(z, vf_poly(vf_mul(z, z), kErfP, 6));
  etr_vf half_x = vf_mul(half, x);
  etr_vf small = vf_fma(half_x, erf_small, half_x);
  // |x| capped at 15 (Phi is 0 or 1 in float there); NaN becomes 15 and
  // the final product with x restores it.
  etr_vf a = vf_min_num(vf_abs(x), vf_set1(15.0f));
  etr_vf square = vf_mul(a, a);
  etr_vf square_error = vf_fma_exact(a, a, vf_neg(square));  // a^2 - it
  // e^(-a^2/2) = p 2^n with p near 1: vf_exp_nonpositive without its
  // scaling, which comes last, once.
  etr_vf n;
  etr_vf r = vf_reduce_ln2(vf_mul(vf_set1(-0.5f), square), &n);
  etr_vf p = vf_add(vf_fma(vf_mul(r, r), vf_poly(r, kExpQ, 6), r),
                    vf_set1(1.0f));
  p = vf_fnma(p, vf_mul(half, square_error), p);
  etr_vd2 ad = vf_to_vd2(a);
  etr_vf ratio = vd2_to_vf(vd2_div(vd2_poly(ad, kErfcP, 5),
                                   vd2_poly(ad, kErfcQ, 6)));
  // x < 0: gelu = x erfc / 2, every factor normal and the one rounding
  // into the subnormal range last (in vf_scale_pow2); x > 0: x (1 -
  // erfc / 2).
  etr_vm negative = vf_lt(x, vf_zero());
  etr_vf factor = vf_mul(vf_select(negative, vf_mul(vf_set1(-0.5f), a), half),
                         ratio);
  etr_vf tail = vf_scale_pow2(vf_mul(p, factor), n);
  etr_vf large = vf_select(negative, tail,
                           vf_mul(x, vf_sub(vf_set1(1.0f), tail)));
  // gelu(-inf) = -inf * 0 = NaN, as the formula gives.
  large = vf_select(vf_eq(x, vf_set1(-INFINITY)), vf_set1(NAN), large);
  etr_vf y = vf_select(vf_lt(a, vf_set1(0.848528147f)), small, large);
  // gelu has x's sign: keeps -0.0, and -2^-149, whose small-path
  // fma(-0, erf, -0) is +0.
  return vf_copysign(y, x);
}

// gelu's fast path and the lanes past its range: the table (AVX-512 and
// AVX2, |x| < 3.875) or the bounded path (|x| <= 3). A NaN lane is never
// outside (comparisons with NaN are false): it always takes the fast
// path, which keeps it NaN.
#ifdef ETR_HAVE_VF_LOOKUP16
static inline etr_vm vf_gelu_outside(etr_vf x) {
  return vf_ge(vf_abs(x), vf_set1(3.875f));
}
// The lanes the fast path does not cover: on the narrow table x <= -3.375
// too (x - 1/4 is exact near both edges, |x| in [2, 4); rounding is
// monotonic elsewhere), which vf_gelu_tail_lookup takes.
static inline etr_vm vf_gelu_off_fast(etr_vf x, bool narrow) {
  if (ETR_GELU_NARROW(narrow)) {
    return vf_ge(vf_abs(vf_sub(x, vf_set1(0.25f))), vf_set1(3.625f));
  }
  return vf_gelu_outside(x);
}
// The split loop's check of a pair: the lanes off the fast path and
// some more. On the narrow table |x| >= 3.375, one comparison on the
// |x| the table takes anyway: the exact check above, two steps more a
// vector, ran the loop at 4.9 G elements/s where this one runs 5.4 (a
// loop of the narrow path alone, 16 Ki floats in [-3, 3], Zen 4). A pair
// with a lane in [3.375, 3.875) then takes vf_gelu_erf, whose exact
// check sends it through the fast path again.
static inline etr_vm vf_gelu_pair_off(etr_vf x, bool narrow) {
  if (ETR_GELU_NARROW(narrow)) {
    return vf_ge(vf_abs(x), vf_set1(3.375f));
  }
  return vf_gelu_outside(x);
}
static inline __attribute__((always_inline)) etr_vf vf_gelu_erf_fast(
    etr_vf x, bool narrow) {
  return vf_gelu_lookup(x, false, narrow);
}
#else
static inline etr_vm vf_gelu_outside(etr_vf x) {
  return vf_gt(vf_abs(x), vf_set1(3.0f));
}
static inline etr_vm vf_gelu_off_fast(etr_vf x, bool narrow) {
  (void)narrow;
  return vf_gelu_outside(x);
}
static inline etr_vm vf_gelu_pair_off(etr_vf x, bool narrow) {
  (void)narrow;
  return vf_gelu_outside(x);
}
static inline etr_vf vf_gelu_erf_fast(etr_vf x, bool narrow) {
  (void)narrow;
  return vf_gelu_erf_bounded(x);
}
#endif

// y, the fast path's gelu of x, with the narrow table's lanes at or below
// -3.375 taken from the tail table where `narrow`.
static inline __attribute__((always_inline)) etr_vf vf_gelu_with_tail(
    etr_vf x, etr_vf y, bool narrow, bool tanh_form) {
#ifdef ETR_HAVE_VF_LOOKUP16
  if (ETR_GELU_NARROW(narrow)) {
    return vf_select(vf_le(x, vf_set1(-3.375f)),
                     vf_gelu_tail_lookup(x, tanh_form), y);
  }
#endif
  (void)x;
  (void)narrow;
  (void)tanh_form;
  return y;
}

// Lane by lane: the fast path where it covers the lane, the wide one
// elsewhere (as vf_exp_general_call), so that a lane's result never
// depends on its neighbours; only vectors with lanes on both sides pay
// for both paths. `narrow`: the narrow table (AVX-512; a branch here,
// off the loops' path).
ETR_VMATH_OUT_OF_LINE static etr_vf vf_gelu_erf_mixed(etr_vf x,
                                                      bool narrow) {
  etr_vf y = vf_gelu_with_tail(x, vf_gelu_erf_fast(x, narrow), narrow,
                               false);
  const etr_vm outside = vf_gelu_outside(x);
  return vm_any(outside) ? vf_select(outside, vf_gelu_erf_wide(x), y) : y;
}

// Activations mostly lie within [-3, 3] (with randn ones 1 vector of 16
// in 600 has a lane past 3.875): a vector that does takes the fast path,
// 2-3x cheaper, inlined into the kernel's loop; a vector with no lane
// there takes vf_gelu_erf_wide, and one with lanes on both sides each
// lane's own path (vf_gelu_erf_mixed): the fast paths round some lanes
// differently from the wide one, and a lane's result is a function of
// that lane alone. `narrow` (a constant) picks AVX-512's narrow table.
static inline __attribute__((always_inline)) etr_vf vf_gelu_erf(
    etr_vf x, bool narrow) {
  if (!vm_any(vf_gelu_off_fast(x, narrow))) {
    return vf_gelu_erf_fast(x, narrow);
  }
  if (vm_all(vf_gelu_outside(x))) {
    return vf_gelu_erf_wide(x);
  }
  return vf_gelu_erf_mixed(x, narrow);
}

// gelu with the tanh approximation, x/2 (1 + tanh(u)), u = sqrt(2/pi) (x +
// 0.044715 x^3), within 4 ULP of x / (1 + e^(-2u)) in double rounded once,
// with the same zeros, NaNs and infinities, over every float (ulp_sweep 1
// gelu_tanh, every x86 ISA), evaluated as x sigmoid(2u): 2u in double (it
// reaches hundreds, where a float u would cost many ULPs of sigmoid), then
// split into float hi + lo for e^-|2u| = e^-|hi| (1 -+ lo).
ETR_VMATH_OUT_OF_LINE static etr_vf vf_gelu_tanh_wide(etr_vf x) {
  etr_vd2 xd = vf_to_vd2(x);
  etr_vd2 cube = vd2_mul(vd2_mul(xd, xd), xd);
  etr_vd2 inner = vd2_fma(vd2_set1(0.044715), cube, xd);
  etr_vd2 v = vd2_mul(vd2_set1(2.0 * 0.79788456080286535588), inner);
  v = vd2_min_num(vd2_max_num(v, vd2_set1(-200.0)), vd2_set1(200.0));
  etr_vf hi = vd2_to_vf(v);
  etr_vf lo = vd2_to_vf(vd2_sub(v, vf_to_vd2(hi)));
  etr_vm negative = vf_lt(hi, vf_zero());
  // e^-|v| = p 2^n with p near 1, kept apart until the last step (as in
  // vf_gelu_erf_wide): for v < 0, gelu = x e^v / (1 + e^v) = (x p / (1 +
  // e^v)) 2^n, all normal until the one rounding into the subnormal
  // range. Rounding e^v there first, then multiplying by |x| up to 11,
  // cost up to 10 ULP near x = -10 and flushed results near x = -10.9 to
  // zero or not. -|hi| is capped at -120, so n >= -174, in
  // vf_scale_pow2's range; below v = -120 (x < -11.3) gelu is x 0.
  etr_vf n;
  etr_vf r = vf_reduce_ln2(vf_max_num(vf_neg(vf_abs(hi)), vf_set1(-120.0f)),
                           &n);
  etr_vf p = vf_add(vf_fma(vf_mul(r, r), vf_poly(r, kExpQ, 6), r),
                    vf_set1(1.0f));
  // e^-|v| = e^-|hi| * e^-(sign * lo), e^t ~ 1 + t for |t| <= 2^-24.
  etr_vf signed_lo = vf_select(negative, vf_neg(lo), lo);
  p = vf_fnma(p, signed_lo, p);
  // 1 + e^-|v| needs e^-|v| only to an ulp of 1: 2^n floored at 2^-126.
  etr_vf scale = vf_pow2i(vf_to_vi(vf_max_num(n, vf_set1(-126.0f))));
  etr_vf denominator = vf_fma(p, scale, vf_set1(1.0f));
  etr_vf numerator = vf_select(negative, vf_mul(x, p), x);
  etr_vf y = vf_scale_pow2(vf_div(numerator, denominator),
                           vf_select(negative, n, vf_zero()));
  // x 0: -0.0, and NaN for x = -inf (-inf * 0, as the formula gives) and
  // NaN (v is then -200).
  return vf_select(vf_lt(hi, vf_set1(-120.0f)), vf_mul(x, vf_zero()), y);
}

#ifdef ETR_HAVE_VF_LOOKUP16
static inline __attribute__((always_inline)) etr_vf vf_gelu_tanh_fast(
    etr_vf x, bool narrow) {
  return vf_gelu_lookup(x, true, narrow);
}
#else
// 2 sqrt(2/pi) and 0.044715, each as a float and the float nearest the
// rest.
static const float kGeluTanhK[2] = {1.59576917f, -4.53406805e-08f};
static const float kGeluTanhC[2] = {0.0447149985f, 1.54614443e-09f};

// gelu with the tanh approximation for |x| <= 3 (and NaN, which stays
// NaN), all in float: x / (1 + e^z), z = -w for x >= 0 and w for x < 0,
// w = 2u = k a (1 + c a^2), a = |x|: the wide form's x sigmoid(2u), with
// e^z >= 1 for x < 0 (so e^z's error reaches the result at most once).
// An error of d in z is one of d relative in the result, and z reaches
// 6.7 here, where a float ulp is 4.8e-7: w is carried as hi + lo, the
// products' rounding errors taken exactly by vf_fma_exact (also on the
// scalar build, whose vf_fma is unfused) and 1 + c a^2's by Fast2Sum
// (c a^2 <= 0.41 < 1); lo joins e^z's reduced argument. Over every float
// in [-3, 3] within 2 ULP on AVX2 and scalar (ulp_sweep 1 gelu_tanh -3
// 3), where the double form took 4. bench_elementwise --only "gelu tanh
// f32", 5 rounds alternated, medians: AVX2 16 Ki floats 4.8 -> 8.5
// GB/s, 16 Mi 4.3 -> 7.4; the scalar build, whose vf_fma_exact is a
// call of fmaf, 0.59 -> 0.53. NEON takes it too; AVX2 has taken the
// narrow table since its 16-entry lookups (ETR_HAVE_VF_LOOKUP16; Zen 5,
// bench_elementwise --quick --only gelu: 11.9 -> 25.7 GB/s).
static inline etr_vf vf_gelu_tanh_fast(etr_vf x, bool narrow) {
  (void)narrow;
  const etr_vf one = vf_set1(1.0f);
  const etr_vf c = vf_set1(kGeluTanhC[0]);
  const etr_vf k = vf_set1(kGeluTanhK[0]);
  etr_vf a = vf_abs(x);
  etr_vf square = vf_mul(a, a);
  etr_vf square_lo = vf_fma_exact(a, a, vf_neg(square));
  etr_vf p = vf_mul(c, square);
  etr_vf p_lo = vf_fma_exact(c, square, vf_neg(p));
  p_lo = vf_add(p_lo, vf_fma(c, square_lo,
                             vf_mul(vf_set1(kGeluTanhC[1]), square)));
  etr_vf t = vf_add(one, p);
  etr_vf t_lo = vf_add(vf_add(vf_sub(one, t), p), p_lo);
  etr_vf m = vf_mul(a, t);
  etr_vf m_lo = vf_fma(a, t_lo, vf_fma_exact(a, t, vf_neg(m)));
  etr_vf w = vf_mul(k, m);
  etr_vf w_lo = vf_fma(k, m_lo, vf_fma(vf_set1(kGeluTanhK[1]), m,
                                       vf_fma_exact(k, m, vf_neg(w))));
  // NaN: the clamp gives w a number (e^z stays finite) and x / (...)
  // is NaN.
  w = vf_min_num(w, vf_set1(20.0f));
  etr_vm negative = vf_lt(x, vf_zero());
  etr_vf z = vf_select(negative, w, vf_neg(w));
  etr_vf z_lo = vf_select(negative, w_lo, vf_neg(w_lo));
  // e^(z + z_lo) for |z| <= 20: n = round(z log2 e) by the shift (see
  // vf_exp_ordinary_n), z_lo joining the reduced r, and 2^n added to the
  // exponent field (the result is normal).
  const etr_vf shift = vf_set1(kRoundShift);
  etr_vf shifted = vf_fma(z, vf_set1(kLog2e), shift);
  etr_vf n = vf_sub(shifted, shift);
  etr_vf r = vf_fnma(n, vf_set1(kLn2Hi), z);
  r = vf_add(vf_fnma(n, vf_set1(kLn2Lo), r), z_lo);
  etr_vf e = vf_add(vf_fma(vf_mul(r, r), vf_poly(r, kExpQ, 6), r), one);
  e = vi_as_vf(vi_add(vf_as_vi(e), vi_shl23(vf_as_vi(shifted))));
  return vf_div(x, vf_add(one, e));
}
#endif

// Lane by lane as vf_gelu_erf_mixed.
ETR_VMATH_OUT_OF_LINE static etr_vf vf_gelu_tanh_mixed(etr_vf x,
                                                       bool narrow) {
  etr_vf y = vf_gelu_with_tail(x, vf_gelu_tanh_fast(x, narrow), narrow,
                               true);
  const etr_vm outside = vf_gelu_outside(x);
  return vm_any(outside) ? vf_select(outside, vf_gelu_tanh_wide(x), y) : y;
}

// As vf_gelu_erf: the fast path (the table on AVX-512 and AVX2, the
// bounded one elsewhere) for a vector within its range, the wide one for
// a vector with no lane there, each lane's own path for the others.
static inline __attribute__((always_inline)) etr_vf vf_gelu_tanh(
    etr_vf x, bool narrow) {
  if (!vm_any(vf_gelu_off_fast(x, narrow))) {
    return vf_gelu_tanh_fast(x, narrow);
  }
  if (!vm_all(vf_gelu_outside(x))) {
    return vf_gelu_tanh_mixed(x, narrow);
  }
  return vf_gelu_tanh_wide(x);
}

// Two vectors of gelu through the fast path (the table on AVX-512 and
// AVX2, the bounded paths elsewhere) when neither has a lane outside its range;
// false, the vectors untouched, otherwise (unary_kernels.h's
// ETR_UNARY_SPLIT_LOOP then takes vf_gelu_erf or vf_gelu_tanh).
static inline __attribute__((always_inline)) bool vf_gelu_erf_fast_pair(
    etr_vf *a, etr_vf *b, bool narrow) {
  if (vm_any(vm_or(vf_gelu_pair_off(*a, narrow),
                   vf_gelu_pair_off(*b, narrow)))) {
    return false;
  }
  *a = vf_gelu_erf_fast(*a, narrow);
  *b = vf_gelu_erf_fast(*b, narrow);
  return true;
}
static inline __attribute__((always_inline)) bool vf_gelu_tanh_fast_pair(
    etr_vf *a, etr_vf *b, bool narrow) {
  if (vm_any(vm_or(vf_gelu_pair_off(*a, narrow),
                   vf_gelu_pair_off(*b, narrow)))) {
    return false;
  }
  *a = vf_gelu_tanh_fast(*a, narrow);
  *b = vf_gelu_tanh_fast(*b, narrow);
  return true;
}

#endif  // ETR_OPS_OPTIMIZED_UNARY_VMATH_H
