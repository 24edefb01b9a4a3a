// SPDX-License-Identifier: Apache-2.0
//
// AVX-512 (F, BW, DQ, VL) primitives of the elementwise templates
// (vmath.h, unary_kernels.h, ../binary/binary_kernels.h,
// ../ternary/ternary_kernels.h): 16 float lanes, __mmask16 masks, pairs of
// 8-lane double vectors for the few steps the templates compute in double.
// Only *_avx512.c files include this header (they are compiled with the
// AVX-512 flags). Every primitive has a twin of the same name and meaning
// in simd_scalar.h, simd_avx2.h and simd_neon.h; the templates use nothing
// else, so each ISA runs the same algorithm.
//
// Partial vectors (*_n with n < 16 lanes) use masked loads and stores: no
// byte outside [p, p + n) is read or written.
#ifndef ETR_OPS_OPTIMIZED_UNARY_SIMD_AVX512_H
#define ETR_OPS_OPTIMIZED_UNARY_SIMD_AVX512_H

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETR_VF_LANES 16

typedef __m512 etr_vf;   // 16 floats
typedef __mmask16 etr_vm;  // one bit per lane
typedef __m512i etr_vi;  // 16 int32
typedef struct etr_vd2 {  // 16 doubles: lanes 0-7, 8-15
  __m512d lo;
  __m512d hi;
} etr_vd2;

static inline __mmask16 vm_first(size_t n) {
  return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

// Loads and stores.
static inline etr_vf vf_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void vf_store(float *p, etr_vf v) { _mm512_storeu_ps(p, v); }
// The first n lanes (n <= 16); the others are 0.
static inline etr_vf vf_load_n(const float *p, size_t n) {
  return _mm512_maskz_loadu_ps(vm_first(n), p);
}
static inline void vf_store_n(float *p, etr_vf v, size_t n) {
  _mm512_mask_storeu_ps(p, vm_first(n), v);
}
// A non-temporal store (common/stream.h) to a 64-byte aligned p, and
// the fence that orders such stores before what follows.
#define ETR_HAVE_VF_STREAM 1
static inline void vf_stream(float *p, etr_vf v) { _mm512_stream_ps(p, v); }
static inline void vf_stream_fence(void) { _mm_sfence(); }

// Arithmetic (IEEE, round to nearest even).
static inline etr_vf vf_set1(float x) { return _mm512_set1_ps(x); }
static inline etr_vf vf_zero(void) { return _mm512_setzero_ps(); }
static inline etr_vf vf_add(etr_vf a, etr_vf b) { return _mm512_add_ps(a, b); }
static inline etr_vf vf_sub(etr_vf a, etr_vf b) { return _mm512_sub_ps(a, b); }
static inline etr_vf vf_mul(etr_vf a, etr_vf b) { return _mm512_mul_ps(a, b); }
static inline etr_vf vf_div(etr_vf a, etr_vf b) { return _mm512_div_ps(a, b); }
// a / b as two 8-lane divides (binary/binary_avx512.c: faster per element
// than one 16-lane divide on Intel cores).
#define ETR_HAVE_VF_DIV_HALVES 1
static inline etr_vf vf_div_halves(etr_vf a, etr_vf b) {
  const __m256 low =
      _mm256_div_ps(_mm512_castps512_ps256(a), _mm512_castps512_ps256(b));
  const __m256 high = _mm256_div_ps(_mm512_extractf32x8_ps(a, 1),
                                    _mm512_extractf32x8_ps(b, 1));
  return _mm512_insertf32x8(_mm512_castps256_ps512(low), high, 1);
}
// 1 / b within a relative 2^-14 (vrcp14ps), for binary_kernels.h's
// division by Newton steps.
static inline etr_vf vf_reciprocal_estimate(etr_vf b) {
  return _mm512_rcp14_ps(b);
}
static inline etr_vf vf_sqrt(etr_vf a) { return _mm512_sqrt_ps(a); }
// a * b + c and c - a * b, rounded once (vf_fma_exact: also in the
// scalar build, where vf_fma may round twice).
static inline etr_vf vf_fma(etr_vf a, etr_vf b, etr_vf c) {
  return _mm512_fmadd_ps(a, b, c);
}
static inline etr_vf vf_fma_exact(etr_vf a, etr_vf b, etr_vf c) {
  return _mm512_fmadd_ps(a, b, c);
}
static inline etr_vf vf_fnma(etr_vf a, etr_vf b, etr_vf c) {
  return _mm512_fnmadd_ps(a, b, c);
}
// Nearest integer, ties to even.
static inline etr_vf vf_round(etr_vf a) {
  return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT |
                                     _MM_FROUND_NO_EXC);
}
// Rounding to an integral value in the four IEEE directions (floor,
// ceil, trunc, to nearest even), exact, keeping -0.0 and NaN.
static inline etr_vf vf_floor(etr_vf a) {
  return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
static inline etr_vf vf_ceil(etr_vf a) {
  return _mm512_roundscale_ps(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
static inline etr_vf vf_trunc(etr_vf a) {
  return _mm512_roundscale_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
}
static inline etr_vf vf_rint(etr_vf a) {
  return vf_round(a);
}
// True when any lane of m is.
static inline bool vm_any(etr_vm m) { return m != 0; }
static inline bool vm_all(etr_vm m) { return m == (etr_vm)0xffff; }
// max/min against a bound for range reduction: a NaN `a` gives `bound`
// (callers fix NaN lanes afterwards; the point is to keep them finite).
static inline etr_vf vf_max_num(etr_vf a, etr_vf bound) {
  return _mm512_max_ps(a, bound);
}
static inline etr_vf vf_min_num(etr_vf a, etr_vf bound) {
  return _mm512_min_ps(a, bound);
}
// max against a bound that keeps a NaN `a` (maxps returns its second
// operand when either is NaN).
static inline etr_vf vf_max_keep_nan(etr_vf a, etr_vf bound) {
  return _mm512_max_ps(bound, a);
}
// min against a bound that keeps a NaN `a`.
static inline etr_vf vf_min_keep_nan(etr_vf a, etr_vf bound) {
  return _mm512_min_ps(bound, a);
}
// x < low ? low : x, then > high ? high : x, in two instructions:
// maxps and minps return their second operand (x) on ties and NaNs, as
// those comparisons keep it. Two compares and blends a vector held
// hardtanh on 64 Ki floats in L2 to 4.0 us against relu's 2.3 (AMD Zen
// 5: one compare into a mask register a cycle).
#define ETR_HAVE_VF_CLAMP 1
static inline etr_vf vf_clamp(etr_vf x, etr_vf low, etr_vf high) {
  return _mm512_min_ps(high, _mm512_max_ps(low, x));
}
static inline etr_vf vf_neg(etr_vf a) {
  return _mm512_castsi512_ps(_mm512_xor_si512(
      _mm512_castps_si512(a), _mm512_set1_epi32((int32_t)0x80000000u)));
}
static inline etr_vf vf_abs(etr_vf a) {
  return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a),
                                              _mm512_set1_epi32(0x7fffffff)));
}
// The sign bit of `sign` on the magnitude of `magnitude`.
static inline etr_vf vf_copysign(etr_vf magnitude, etr_vf sign) {
  __m512i bits = _mm512_or_si512(
      _mm512_and_si512(_mm512_castps_si512(magnitude),
                       _mm512_set1_epi32(0x7fffffff)),
      _mm512_and_si512(_mm512_castps_si512(sign),
                       _mm512_set1_epi32((int32_t)0x80000000u)));
  return _mm512_castsi512_ps(bits);
}

// Comparisons (ordered: false when a lane is NaN; vf_ne is true then).
static inline etr_vm vf_lt(etr_vf a, etr_vf b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
}
static inline etr_vm vf_le(etr_vf a, etr_vf b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ);
}
static inline etr_vm vf_gt(etr_vf a, etr_vf b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ);
}
static inline etr_vm vf_ge(etr_vf a, etr_vf b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ);
}
static inline etr_vm vf_eq(etr_vf a, etr_vf b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ);
}
static inline etr_vm vf_ne(etr_vf a, etr_vf b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ);
}
static inline etr_vm vf_isnan(etr_vf a) {
  return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q);
}
static inline etr_vm vm_or(etr_vm a, etr_vm b) { return (etr_vm)(a | b); }
static inline etr_vm vm_and(etr_vm a, etr_vm b) { return (etr_vm)(a & b); }
// Lanes of `if_true` where m is set, of `if_false` elsewhere (bitwise).
static inline etr_vf vf_select(etr_vm m, etr_vf if_true, etr_vf if_false) {
  return _mm512_mask_blend_ps(m, if_false, if_true);
}

// int32 lanes and bit casts.
static inline etr_vi vi_set1(int32_t x) { return _mm512_set1_epi32(x); }
static inline etr_vi vi_add(etr_vi a, etr_vi b) {
  return _mm512_add_epi32(a, b);
}
static inline etr_vi vi_sub(etr_vi a, etr_vi b) {
  return _mm512_sub_epi32(a, b);
}
static inline etr_vi vi_and(etr_vi a, etr_vi b) {
  return _mm512_and_si512(a, b);
}
static inline etr_vi vi_or(etr_vi a, etr_vi b) { return _mm512_or_si512(a, b); }
static inline etr_vi vi_shl23(etr_vi a) { return _mm512_slli_epi32(a, 23); }
static inline etr_vi vi_shr23(etr_vi a) { return _mm512_srli_epi32(a, 23); }
// Logical shift right by a constant.
static inline etr_vi vi_shr(etr_vi a, const unsigned bits) {
  return _mm512_srli_epi32(a, bits);
}
static inline etr_vi vi_sra1(etr_vi a) { return _mm512_srai_epi32(a, 1); }
// Bits 0 and 1 to bits 30 and 31 (the sign), the rest zero.
static inline etr_vi vi_shl30(etr_vi a) { return _mm512_slli_epi32(a, 30); }
static inline etr_vi vi_xor(etr_vi a, etr_vi b) {
  return _mm512_xor_si512(a, b);
}
static inline etr_vf vi_as_vf(etr_vi a) { return _mm512_castsi512_ps(a); }
static inline etr_vi vf_as_vi(etr_vf a) { return _mm512_castps_si512(a); }
// Float lanes holding integers (|x| < 2^31) to int32 and back.
static inline etr_vi vf_to_vi(etr_vf a) { return _mm512_cvtps_epi32(a); }
static inline etr_vf vi_to_vf(etr_vi a) { return _mm512_cvtepi32_ps(a); }

// p 2^n for float lanes n holding integers in [-150, 128], rounded once
// (a subnormal result too): vscalefps. The other ISAs take vmath.h's
// two-factor integer version, which ETR_HAVE_VF_SCALE_POW2 replaces.
#define ETR_HAVE_VF_SCALE_POW2 1
static inline etr_vf vf_scale_pow2(etr_vf p, etr_vf n) {
  return _mm512_scalef_ps(p, n);
}

// For finite x > 0, subnormals too: floor(log2 x) as a float
// (vgetexpps), and x's significand in [1, 2) (vgetmantps); vmath.h's
// vf_split_mantissa takes them when ETR_HAVE_VF_MANT_EXP is defined.
#define ETR_HAVE_VF_MANT_EXP 1
static inline etr_vf vf_exponent_of(etr_vf x) { return _mm512_getexp_ps(x); }
static inline etr_vf vf_mantissa_1_2(etr_vf x) {
  return _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
}

// Entry (index lane & 31) of the 32 floats table[0..31], per lane: one
// vpermt2ps (the two table halves are loop invariants the compiler keeps
// in registers). The other ISAs have no such lookup, and vmath.h's table
// paths are compiled only where ETR_HAVE_VF_LOOKUP32 is defined.
#define ETR_HAVE_VF_LOOKUP32 1
static inline etr_vf vf_lookup32(const float *table, etr_vi index) {
  return _mm512_permutex2var_ps(_mm512_loadu_ps(table), index,
                                _mm512_loadu_ps(table + 16));
}
#define ETR_HAVE_VF_LOOKUP16 1
// Entry (index lane & 15) of the 16 floats table[0..15]: one vpermps,
// which Zen 4 issues beside FMAs nearly free (tools/port_probe.c: 0.3
// cycles each at one a multiply-add, vpermt2ps 0.8-0.95).
static inline etr_vf vf_lookup16(const float *table, etr_vi index) {
  return _mm512_permutexvar_ps(index, _mm512_loadu_ps(table));
}

// Double lanes.
static inline etr_vd2 vf_to_vd2(etr_vf a) {
  etr_vd2 d;
  d.lo = _mm512_cvtps_pd(_mm512_castps512_ps256(a));
  d.hi = _mm512_cvtps_pd(_mm512_extractf32x8_ps(a, 1));
  return d;
}
// Rounded to nearest float.
static inline etr_vf vd2_to_vf(etr_vd2 d) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(d.lo)),
                            _mm512_cvtpd_ps(d.hi), 1);
}
static inline etr_vd2 vd2_set1(double x) {
  etr_vd2 d = {_mm512_set1_pd(x), _mm512_set1_pd(x)};
  return d;
}
#define ETR_VD2_BINARY(name, intrinsic)                    \
  static inline etr_vd2 name(etr_vd2 a, etr_vd2 b) {       \
    etr_vd2 d = {intrinsic(a.lo, b.lo), intrinsic(a.hi, b.hi)}; \
    return d;                                              \
  }
ETR_VD2_BINARY(vd2_add, _mm512_add_pd)
ETR_VD2_BINARY(vd2_sub, _mm512_sub_pd)
ETR_VD2_BINARY(vd2_mul, _mm512_mul_pd)
ETR_VD2_BINARY(vd2_div, _mm512_div_pd)
ETR_VD2_BINARY(vd2_max_num, _mm512_max_pd)
ETR_VD2_BINARY(vd2_min_num, _mm512_min_pd)
#undef ETR_VD2_BINARY
static inline etr_vd2 vd2_sqrt(etr_vd2 a) {
  etr_vd2 d = {_mm512_sqrt_pd(a.lo), _mm512_sqrt_pd(a.hi)};
  return d;
}
static inline etr_vd2 vd2_fma(etr_vd2 a, etr_vd2 b, etr_vd2 c) {
  etr_vd2 d = {_mm512_fmadd_pd(a.lo, b.lo, c.lo),
               _mm512_fmadd_pd(a.hi, b.hi, c.hi)};
  return d;
}

// Bool bytes (0/1) <-> masks.
static inline void vm_store_bytes(uint8_t *p, etr_vm m) {
  _mm_storeu_si128((__m128i *)p, _mm_maskz_mov_epi8(m, _mm_set1_epi8(1)));
}
static inline void vm_store_bytes_n(uint8_t *p, etr_vm m, size_t n) {
  _mm_mask_storeu_epi8(p, vm_first(n), _mm_maskz_mov_epi8(m, _mm_set1_epi8(1)));
}
// A lane is set where its byte is non-zero.
static inline etr_vm vm_load_bytes(const uint8_t *p) {
  __m128i bytes = _mm_loadu_si128((const __m128i *)p);
  return _mm_test_epi8_mask(bytes, bytes);
}
static inline etr_vm vm_load_bytes_n(const uint8_t *p, size_t n) {
  __m128i bytes = _mm_maskz_loadu_epi8(vm_first(n), p);
  return _mm_test_epi8_mask(bytes, bytes);
}

#endif  // ETR_OPS_OPTIMIZED_UNARY_SIMD_AVX512_H
