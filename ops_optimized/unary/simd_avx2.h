// SPDX-License-Identifier: Apache-2.0
//
// AVX2 + FMA primitives of the elementwise templates (see simd_avx512.h
// for the contract every simd_*.h header follows): 8 float lanes, masks as
// all-ones/all-zeros float lanes, pairs of 4-lane double vectors. Only
// *_avx2.c files include this header.
//
// Partial vectors use vmaskmovps, which neither reads nor writes the
// masked-off lanes (and cannot fault on them).
#ifndef ETR_OPS_OPTIMIZED_UNARY_SIMD_AVX2_H
#define ETR_OPS_OPTIMIZED_UNARY_SIMD_AVX2_H

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ETR_VF_LANES 8

typedef __m256 etr_vf;
typedef __m256 etr_vm;   // lanes all ones (true) or all zeros
typedef __m256i etr_vi;
typedef struct etr_vd2 {  // lanes 0-3, 4-7
  __m256d lo;
  __m256d hi;
} etr_vd2;

// Lane i is on when i < n (n <= 8).
static inline __m256i avx2_first(size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)n),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline etr_vf vf_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void vf_store(float *p, etr_vf v) { _mm256_storeu_ps(p, v); }
static inline etr_vf vf_load_n(const float *p, size_t n) {
  return _mm256_maskload_ps(p, avx2_first(n));
}
static inline void vf_store_n(float *p, etr_vf v, size_t n) {
  _mm256_maskstore_ps(p, avx2_first(n), v);
}
// A non-temporal store (common/stream.h) to a 32-byte aligned p, and
// the fence that orders such stores before what follows.
#define ETR_HAVE_VF_STREAM 1
static inline void vf_stream(float *p, etr_vf v) { _mm256_stream_ps(p, v); }
static inline void vf_stream_fence(void) { _mm_sfence(); }

static inline etr_vf vf_set1(float x) { return _mm256_set1_ps(x); }
static inline etr_vf vf_zero(void) { return _mm256_setzero_ps(); }
static inline etr_vf vf_add(etr_vf a, etr_vf b) { return _mm256_add_ps(a, b); }
static inline etr_vf vf_sub(etr_vf a, etr_vf b) { return _mm256_sub_ps(a, b); }
static inline etr_vf vf_mul(etr_vf a, etr_vf b) { return _mm256_mul_ps(a, b); }
static inline etr_vf vf_div(etr_vf a, etr_vf b) { return _mm256_div_ps(a, b); }
static inline etr_vf vf_sqrt(etr_vf a) { return _mm256_sqrt_ps(a); }
// a * b + c and c - a * b, rounded once (vf_fma_exact: also in the
// scalar build, where vf_fma may round twice).
static inline etr_vf vf_fma(etr_vf a, etr_vf b, etr_vf c) {
  return _mm256_fmadd_ps(a, b, c);
}
static inline etr_vf vf_fma_exact(etr_vf a, etr_vf b, etr_vf c) {
  return _mm256_fmadd_ps(a, b, c);
}
static inline etr_vf vf_fnma(etr_vf a, etr_vf b, etr_vf c) {
  return _mm256_fnmadd_ps(a, b, c);
}
static inline etr_vf vf_round(etr_vf a) {
  return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
// Rounding to an integral value in the four IEEE directions (floor,
// ceil, trunc, to nearest even), exact, keeping -0.0 and NaN.
static inline etr_vf vf_floor(etr_vf a) {
  return _mm256_round_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
static inline etr_vf vf_ceil(etr_vf a) {
  return _mm256_round_ps(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
static inline etr_vf vf_trunc(etr_vf a) {
  return _mm256_round_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
}
static inline etr_vf vf_rint(etr_vf a) {
  return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
// True when any lane of m is.
static inline bool vm_any(etr_vm m) { return _mm256_movemask_ps(m) != 0; }
static inline bool vm_all(etr_vm m) { return _mm256_movemask_ps(m) == 0xff; }
// maxps/minps return the second operand when either is NaN.
static inline etr_vf vf_max_num(etr_vf a, etr_vf bound) {
  return _mm256_max_ps(a, bound);
}
static inline etr_vf vf_min_num(etr_vf a, etr_vf bound) {
  return _mm256_min_ps(a, bound);
}
// max against a bound that keeps a NaN `a` (its second operand).
static inline etr_vf vf_max_keep_nan(etr_vf a, etr_vf bound) {
  return _mm256_max_ps(bound, a);
}
// min against a bound that keeps a NaN `a`.
static inline etr_vf vf_min_keep_nan(etr_vf a, etr_vf bound) {
  return _mm256_min_ps(bound, a);
}
// x < low ? low : x, then > high ? high : x, in two instructions:
// maxps and minps return their second operand (x) on ties and NaNs, as
// those comparisons keep it. Two compares and blends a vector held
// hardtanh on 64 Ki floats in L2 to 4.0 us against relu's 2.3 (AMD Zen
// 5: one compare into a mask register a cycle).
#define ETR_HAVE_VF_CLAMP 1
static inline etr_vf vf_clamp(etr_vf x, etr_vf low, etr_vf high) {
  return _mm256_min_ps(high, _mm256_max_ps(low, x));
}
static inline etr_vf vf_neg(etr_vf a) {
  return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f));
}
static inline etr_vf vf_abs(etr_vf a) {
  return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a);
}
static inline etr_vf vf_copysign(etr_vf magnitude, etr_vf sign) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  return _mm256_or_ps(_mm256_andnot_ps(sign_bit, magnitude),
                      _mm256_and_ps(sign_bit, sign));
}

static inline etr_vm vf_lt(etr_vf a, etr_vf b) {
  return _mm256_cmp_ps(a, b, _CMP_LT_OQ);
}
static inline etr_vm vf_le(etr_vf a, etr_vf b) {
  return _mm256_cmp_ps(a, b, _CMP_LE_OQ);
}
static inline etr_vm vf_gt(etr_vf a, etr_vf b) {
  return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
}
static inline etr_vm vf_ge(etr_vf a, etr_vf b) {
  return _mm256_cmp_ps(a, b, _CMP_GE_OQ);
}
static inline etr_vm vf_eq(etr_vf a, etr_vf b) {
  return _mm256_cmp_ps(a, b, _CMP_EQ_OQ);
}
static inline etr_vm vf_ne(etr_vf a, etr_vf b) {
  return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ);
}
static inline etr_vm vf_isnan(etr_vf a) {
  return _mm256_cmp_ps(a, a, _CMP_UNORD_Q);
}
static inline etr_vm vm_or(etr_vm a, etr_vm b) { return _mm256_or_ps(a, b); }
static inline etr_vm vm_and(etr_vm a, etr_vm b) { return _mm256_and_ps(a, b); }
static inline etr_vf vf_select(etr_vm m, etr_vf if_true, etr_vf if_false) {
  return _mm256_blendv_ps(if_false, if_true, m);
}
// x's sign bit set (negative, -0.0, a NaN with it) ? if_negative :
// otherwise: vblendvps reads only the sign bit of its mask, so x is one.
static inline etr_vf vf_select_sign(etr_vf x, etr_vf if_negative,
                                    etr_vf otherwise) {
  return _mm256_blendv_ps(otherwise, if_negative, x);
}
// vmath.h's exp and sigmoid test each vector for the ordinary range
// (vm_all: a compare and a vmovmskps) and take a short path without the
// special-value steps there, the rest out of line; with it come shorter
// dependency chains in tanh and gelu (Estrin's scheme, exponents by
// integer addition). On Zen 2 these kernels run at the rate their
// dependency chains let the out-of-order window overlap vectors: a
// chain of 16 FMAs a vector ran at 15 cycles a vector, 8 FMAs at 5.4.
// Measured on Zen 2 only, so only here; the other ISAs keep their
// former paths.
#define ETR_HAVE_VM_ALL_BRANCH 1

static inline etr_vi vi_set1(int32_t x) { return _mm256_set1_epi32(x); }
static inline etr_vi vi_add(etr_vi a, etr_vi b) {
  return _mm256_add_epi32(a, b);
}
static inline etr_vi vi_sub(etr_vi a, etr_vi b) {
  return _mm256_sub_epi32(a, b);
}
static inline etr_vi vi_and(etr_vi a, etr_vi b) {
  return _mm256_and_si256(a, b);
}
static inline etr_vi vi_or(etr_vi a, etr_vi b) { return _mm256_or_si256(a, b); }
static inline etr_vi vi_shl23(etr_vi a) { return _mm256_slli_epi32(a, 23); }
static inline etr_vi vi_shr23(etr_vi a) { return _mm256_srli_epi32(a, 23); }
static inline etr_vi vi_sra1(etr_vi a) { return _mm256_srai_epi32(a, 1); }
// Bits 0 and 1 to bits 30 and 31 (the sign), the rest zero.
static inline etr_vi vi_shl30(etr_vi a) { return _mm256_slli_epi32(a, 30); }
static inline etr_vi vi_xor(etr_vi a, etr_vi b) {
  return _mm256_xor_si256(a, b);
}
static inline etr_vf vi_as_vf(etr_vi a) { return _mm256_castsi256_ps(a); }
static inline etr_vi vf_as_vi(etr_vf a) { return _mm256_castps_si256(a); }
static inline etr_vi vf_to_vi(etr_vf a) { return _mm256_cvtps_epi32(a); }
static inline etr_vf vi_to_vf(etr_vi a) { return _mm256_cvtepi32_ps(a); }

// Entry (index lane & 15) of the 16 floats table[0..15]: a vpermps of
// each half and a blend on bit 3 (moved to the sign). AVX2 has no
// two-table permute, so vmath.h's 32-entry table paths stay AVX-512's;
// gelu's 16-entry ones (ETR_HAVE_VF_LOOKUP16) run here too.
#define ETR_HAVE_VF_LOOKUP16 1
static inline etr_vf vf_lookup16(const float *table, etr_vi index) {
  const __m256 lo = _mm256_permutevar8x32_ps(_mm256_loadu_ps(table), index);
  const __m256 hi =
      _mm256_permutevar8x32_ps(_mm256_loadu_ps(table + 8), index);
  return _mm256_blendv_ps(lo, hi,
                          _mm256_castsi256_ps(_mm256_slli_epi32(index, 28)));
}

static inline etr_vd2 vf_to_vd2(etr_vf a) {
  etr_vd2 d;
  d.lo = _mm256_cvtps_pd(_mm256_castps256_ps128(a));
  d.hi = _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1));
  return d;
}
static inline etr_vf vd2_to_vf(etr_vd2 d) {
  return _mm256_set_m128(_mm256_cvtpd_ps(d.hi), _mm256_cvtpd_ps(d.lo));
}
static inline etr_vd2 vd2_set1(double x) {
  etr_vd2 d = {_mm256_set1_pd(x), _mm256_set1_pd(x)};
  return d;
}
#define ETR_VD2_BINARY(name, intrinsic)                    \
  static inline etr_vd2 name(etr_vd2 a, etr_vd2 b) {       \
    etr_vd2 d = {intrinsic(a.lo, b.lo), intrinsic(a.hi, b.hi)}; \
    return d;                                              \
  }
ETR_VD2_BINARY(vd2_add, _mm256_add_pd)
ETR_VD2_BINARY(vd2_sub, _mm256_sub_pd)
ETR_VD2_BINARY(vd2_mul, _mm256_mul_pd)
ETR_VD2_BINARY(vd2_div, _mm256_div_pd)
ETR_VD2_BINARY(vd2_max_num, _mm256_max_pd)
ETR_VD2_BINARY(vd2_min_num, _mm256_min_pd)
#undef ETR_VD2_BINARY
static inline etr_vd2 vd2_sqrt(etr_vd2 a) {
  etr_vd2 d = {_mm256_sqrt_pd(a.lo), _mm256_sqrt_pd(a.hi)};
  return d;
}
static inline etr_vd2 vd2_fma(etr_vd2 a, etr_vd2 b, etr_vd2 c) {
  etr_vd2 d = {_mm256_fmadd_pd(a.lo, b.lo, c.lo),
               _mm256_fmadd_pd(a.hi, b.hi, c.hi)};
  return d;
}

// 8 mask lanes as 8 bytes 0/1, little-endian in a uint64.
static inline uint64_t avx2_mask_bytes(etr_vm m) {
  __m256i ones = _mm256_and_si256(_mm256_castps_si256(m),
                                  _mm256_set1_epi32(1));
  __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(ones),
                                  _mm256_extracti128_si256(ones, 1));
  return (uint64_t)_mm_cvtsi128_si64(_mm_packs_epi16(words, words));
}
static inline void vm_store_bytes(uint8_t *p, etr_vm m) {
  uint64_t bytes = avx2_mask_bytes(m);
  memcpy(p, &bytes, 8);
}
static inline void vm_store_bytes_n(uint8_t *p, etr_vm m, size_t n) {
  uint64_t bytes = avx2_mask_bytes(m);
  memcpy(p, &bytes, n);
}
static inline etr_vm avx2_bytes_mask(uint64_t bytes) {
  __m256i wide = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((int64_t)bytes));
  return _mm256_castsi256_ps(
      _mm256_cmpgt_epi32(wide, _mm256_setzero_si256()));
}
static inline etr_vm vm_load_bytes(const uint8_t *p) {
  uint64_t bytes;
  memcpy(&bytes, p, 8);
  return avx2_bytes_mask(bytes);
}
static inline etr_vm vm_load_bytes_n(const uint8_t *p, size_t n) {
  uint64_t bytes = 0;
  memcpy(&bytes, p, n);
  return avx2_bytes_mask(bytes);
}

#endif  // ETR_OPS_OPTIMIZED_UNARY_SIMD_AVX2_H
