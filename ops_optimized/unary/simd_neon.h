// SPDX-License-Identifier: Apache-2.0
//
// AArch64 Advanced SIMD primitives of the elementwise templates (see
// simd_avx512.h for the contract every simd_*.h header follows): 4 float
// lanes, masks as all-ones/all-zeros uint32 lanes, pairs of 2-lane double
// vectors. Only *_neon.c files include this header (the aarch64 build).
//
// NEON has no masked loads: partial vectors go through a 4-lane stack
// buffer with memcpy, so nothing outside [p, p + n) is touched.
#ifndef ETR_OPS_OPTIMIZED_UNARY_SIMD_NEON_H
#define ETR_OPS_OPTIMIZED_UNARY_SIMD_NEON_H

#include <arm_neon.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ETR_VF_LANES 4

typedef float32x4_t etr_vf;
typedef uint32x4_t etr_vm;
typedef int32x4_t etr_vi;
typedef struct etr_vd2 {  // lanes 0-1, 2-3
  float64x2_t lo;
  float64x2_t hi;
} etr_vd2;

static inline etr_vf vf_load(const float *p) { return vld1q_f32(p); }
static inline void vf_store(float *p, etr_vf v) { vst1q_f32(p, v); }
static inline etr_vf vf_load_n(const float *p, size_t n) {
  float lanes[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  memcpy(lanes, p, n * sizeof(float));
  return vld1q_f32(lanes);
}
static inline void vf_store_n(float *p, etr_vf v, size_t n) {
  float lanes[4];
  vst1q_f32(lanes, v);
  memcpy(p, lanes, n * sizeof(float));
}

static inline etr_vf vf_set1(float x) { return vdupq_n_f32(x); }
static inline etr_vf vf_zero(void) { return vdupq_n_f32(0.0f); }
static inline etr_vf vf_add(etr_vf a, etr_vf b) { return vaddq_f32(a, b); }
static inline etr_vf vf_sub(etr_vf a, etr_vf b) { return vsubq_f32(a, b); }
static inline etr_vf vf_mul(etr_vf a, etr_vf b) { return vmulq_f32(a, b); }
static inline etr_vf vf_div(etr_vf a, etr_vf b) { return vdivq_f32(a, b); }
static inline etr_vf vf_sqrt(etr_vf a) { return vsqrtq_f32(a); }
// a * b + c and c - a * b, rounded once (vf_fma_exact: also in the
// scalar build, where vf_fma may round twice).
static inline etr_vf vf_fma(etr_vf a, etr_vf b, etr_vf c) {
  return vfmaq_f32(c, a, b);
}
static inline etr_vf vf_fma_exact(etr_vf a, etr_vf b, etr_vf c) {
  return vfmaq_f32(c, a, b);
}
static inline etr_vf vf_fnma(etr_vf a, etr_vf b, etr_vf c) {
  return vfmsq_f32(c, a, b);
}
static inline etr_vf vf_round(etr_vf a) { return vrndnq_f32(a); }
// Rounding to an integral value in the four IEEE directions (floor,
// ceil, trunc, to nearest even), exact, keeping -0.0 and NaN.
static inline etr_vf vf_floor(etr_vf a) { return vrndmq_f32(a); }
static inline etr_vf vf_ceil(etr_vf a) { return vrndpq_f32(a); }
static inline etr_vf vf_trunc(etr_vf a) { return vrndq_f32(a); }
static inline etr_vf vf_rint(etr_vf a) { return vrndnq_f32(a); }
// True when any lane of m is.
static inline bool vm_any(etr_vm m) { return vmaxvq_u32(m) != 0; }
static inline bool vm_all(etr_vm m) { return vminvq_u32(m) != 0; }
// FMAXNM/FMINNM return the number when one operand is a quiet NaN.
static inline etr_vf vf_max_num(etr_vf a, etr_vf bound) {
  return vmaxnmq_f32(a, bound);
}
static inline etr_vf vf_min_num(etr_vf a, etr_vf bound) {
  return vminnmq_f32(a, bound);
}
// max against a bound that keeps a NaN `a` (FMAX propagates NaN).
static inline etr_vf vf_max_keep_nan(etr_vf a, etr_vf bound) {
  return vmaxq_f32(a, bound);
}
// min against a bound that keeps a NaN `a`.
static inline etr_vf vf_min_keep_nan(etr_vf a, etr_vf bound) {
  return vminq_f32(a, bound);
}
static inline etr_vf vf_neg(etr_vf a) { return vnegq_f32(a); }
static inline etr_vf vf_abs(etr_vf a) { return vabsq_f32(a); }
static inline etr_vf vf_copysign(etr_vf magnitude, etr_vf sign) {
  return vbslq_f32(vdupq_n_u32(0x80000000u), sign, magnitude);
}

static inline etr_vm vf_lt(etr_vf a, etr_vf b) { return vcltq_f32(a, b); }
static inline etr_vm vf_le(etr_vf a, etr_vf b) { return vcleq_f32(a, b); }
static inline etr_vm vf_gt(etr_vf a, etr_vf b) { return vcgtq_f32(a, b); }
static inline etr_vm vf_ge(etr_vf a, etr_vf b) { return vcgeq_f32(a, b); }
static inline etr_vm vf_eq(etr_vf a, etr_vf b) { return vceqq_f32(a, b); }
static inline etr_vm vf_ne(etr_vf a, etr_vf b) {
  return vmvnq_u32(vceqq_f32(a, b));
}
static inline etr_vm vf_isnan(etr_vf a) { return vmvnq_u32(vceqq_f32(a, a)); }
static inline etr_vm vm_or(etr_vm a, etr_vm b) { return vorrq_u32(a, b); }
static inline etr_vm vm_and(etr_vm a, etr_vm b) { return vandq_u32(a, b); }
static inline etr_vf vf_select(etr_vm m, etr_vf if_true, etr_vf if_false) {
  return vbslq_f32(m, if_true, if_false);
}

static inline etr_vi vi_set1(int32_t x) { return vdupq_n_s32(x); }
static inline etr_vi vi_add(etr_vi a, etr_vi b) { return vaddq_s32(a, b); }
static inline etr_vi vi_sub(etr_vi a, etr_vi b) { return vsubq_s32(a, b); }
static inline etr_vi vi_and(etr_vi a, etr_vi b) { return vandq_s32(a, b); }
static inline etr_vi vi_or(etr_vi a, etr_vi b) { return vorrq_s32(a, b); }
static inline etr_vi vi_shl23(etr_vi a) { return vshlq_n_s32(a, 23); }
static inline etr_vi vi_shr23(etr_vi a) {
  return vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(a), 23));
}
static inline etr_vi vi_sra1(etr_vi a) { return vshrq_n_s32(a, 1); }
// Bits 0 and 1 to bits 30 and 31 (the sign), the rest zero.
static inline etr_vi vi_shl30(etr_vi a) { return vshlq_n_s32(a, 30); }
static inline etr_vi vi_xor(etr_vi a, etr_vi b) { return veorq_s32(a, b); }
static inline etr_vf vi_as_vf(etr_vi a) { return vreinterpretq_f32_s32(a); }
static inline etr_vi vf_as_vi(etr_vf a) { return vreinterpretq_s32_f32(a); }
static inline etr_vi vf_to_vi(etr_vf a) { return vcvtnq_s32_f32(a); }
static inline etr_vf vi_to_vf(etr_vi a) { return vcvtq_f32_s32(a); }

static inline etr_vd2 vf_to_vd2(etr_vf a) {
  etr_vd2 d = {vcvt_f64_f32(vget_low_f32(a)), vcvt_high_f64_f32(a)};
  return d;
}
static inline etr_vf vd2_to_vf(etr_vd2 d) {
  return vcvt_high_f32_f64(vcvt_f32_f64(d.lo), d.hi);
}
static inline etr_vd2 vd2_set1(double x) {
  etr_vd2 d = {vdupq_n_f64(x), vdupq_n_f64(x)};
  return d;
}
#define ETR_VD2_BINARY(name, intrinsic)                    \
  static inline etr_vd2 name(etr_vd2 a, etr_vd2 b) {       \
    etr_vd2 d = {intrinsic(a.lo, b.lo), intrinsic(a.hi, b.hi)}; \
    return d;                                              \
  }
ETR_VD2_BINARY(vd2_add, vaddq_f64)
ETR_VD2_BINARY(vd2_sub, vsubq_f64)
ETR_VD2_BINARY(vd2_mul, vmulq_f64)
ETR_VD2_BINARY(vd2_div, vdivq_f64)
ETR_VD2_BINARY(vd2_max_num, vmaxnmq_f64)
ETR_VD2_BINARY(vd2_min_num, vminnmq_f64)
#undef ETR_VD2_BINARY
static inline etr_vd2 vd2_sqrt(etr_vd2 a) {
  etr_vd2 d = {vsqrtq_f64(a.lo), vsqrtq_f64(a.hi)};
  return d;
}
static inline etr_vd2 vd2_fma(etr_vd2 a, etr_vd2 b, etr_vd2 c) {
  etr_vd2 d = {vfmaq_f64(c.lo, a.lo, b.lo), vfmaq_f64(c.hi, a.hi, b.hi)};
  return d;
}

// 4 mask lanes as 4 bytes 0/1.
static inline uint32_t neon_mask_bytes(etr_vm m) {
  uint16x4_t halves = vmovn_u32(vandq_u32(m, vdupq_n_u32(1)));
  uint8x8_t bytes = vmovn_u16(vcombine_u16(halves, halves));
  return vget_lane_u32(vreinterpret_u32_u8(bytes), 0);
}
static inline void vm_store_bytes(uint8_t *p, etr_vm m) {
  uint32_t bytes = neon_mask_bytes(m);
  memcpy(p, &bytes, 4);
}
static inline void vm_store_bytes_n(uint8_t *p, etr_vm m, size_t n) {
  uint32_t bytes = neon_mask_bytes(m);
  memcpy(p, &bytes, n);
}
static inline etr_vm neon_bytes_mask(uint32_t bytes) {
  uint8x8_t narrow = vreinterpret_u8_u32(vdup_n_u32(bytes));
  uint32x4_t wide = vmovl_u16(vget_low_u16(vmovl_u8(narrow)));
  return vcgtq_u32(wide, vdupq_n_u32(0));
}
static inline etr_vm vm_load_bytes(const uint8_t *p) {
  uint32_t bytes;
  memcpy(&bytes, p, 4);
  return neon_bytes_mask(bytes);
}
static inline etr_vm vm_load_bytes_n(const uint8_t *p, size_t n) {
  uint32_t bytes = 0;
  memcpy(&bytes, p, n);
  return neon_bytes_mask(bytes);
}

#endif  // ETR_OPS_OPTIMIZED_UNARY_SIMD_NEON_H
