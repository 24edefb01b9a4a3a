// SPDX-License-Identifier: Apache-2.0
//
// Portable C "one lane" primitives of the elementwise templates (see
// simd_avx512.h for the contract every simd_*.h header follows): a float
// is a vector of one lane, a mask is a bool, the double pair is a double.
// The scalar kernels (*_scalar.c) run the same algorithms as the SIMD ones
// through these, with fmaf/fma for fused steps, so every ISA agrees with
// the others up to the rounding of the steps the algorithm leaves free.
#ifndef ETR_OPS_OPTIMIZED_UNARY_SIMD_SCALAR_H
#define ETR_OPS_OPTIMIZED_UNARY_SIMD_SCALAR_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ETR_VF_LANES 1

typedef float etr_vf;
typedef bool etr_vm;
typedef int32_t etr_vi;
typedef double etr_vd2;

static inline etr_vf vf_load(const float *p) { return *p; }
static inline void vf_store(float *p, etr_vf v) { *p = v; }
// n is 1 here (a partial vector of one lane is a whole one).
static inline etr_vf vf_load_n(const float *p, size_t n) {
  (void)n;
  return *p;
}
static inline void vf_store_n(float *p, etr_vf v, size_t n) {
  (void)n;
  *p = v;
}

static inline etr_vf vf_set1(float x) { return x; }
static inline etr_vf vf_zero(void) { return 0.0f; }
static inline etr_vf vf_add(etr_vf a, etr_vf b) { return a + b; }
static inline etr_vf vf_sub(etr_vf a, etr_vf b) { return a - b; }
static inline etr_vf vf_mul(etr_vf a, etr_vf b) { return a * b; }
static inline etr_vf vf_div(etr_vf a, etr_vf b) { return a / b; }
static inline etr_vf vf_sqrt(etr_vf a) { return sqrtf(a); }
// a * b + c and c - a * b with two roundings: without -mfma, fmaf is a
// library call that would dominate the polynomials. The algorithms only
// need a single rounding for their error-free steps, which use
// vf_fma_exact.
static inline etr_vf vf_fma(etr_vf a, etr_vf b, etr_vf c) {
  return a * b + c;
}
static inline etr_vf vf_fnma(etr_vf a, etr_vf b, etr_vf c) {
  return c - a * b;
}
static inline etr_vf vf_fma_exact(etr_vf a, etr_vf b, etr_vf c) {
  return fmaf(a, b, c);
}
// Nearest integer, ties to even, by the 1.5 * 2^23 shift (exact below
// 2^22 in magnitude; larger floats are integers already). The sign of a
// zero result is not kept: callers only use it for range reduction.
static inline etr_vf vf_round(etr_vf a) {
  const float shift = 12582912.0f;
  return fabsf(a) < 4194304.0f ? (a + shift) - shift : a;
}
// Rounding to an integral value in the four IEEE directions (floor,
// ceil, trunc, to nearest even), exact, keeping -0.0 and NaN.
static inline etr_vf vf_floor(etr_vf a) { return floorf(a); }
static inline etr_vf vf_ceil(etr_vf a) { return ceilf(a); }
static inline etr_vf vf_trunc(etr_vf a) { return truncf(a); }
static inline etr_vf vf_rint(etr_vf a) { return nearbyintf(a); }
// True when any lane of m is.
static inline bool vm_any(etr_vm m) { return m; }
static inline bool vm_all(etr_vm m) { return m; }
// A NaN `a` gives `bound`, as maxps does.
static inline etr_vf vf_max_num(etr_vf a, etr_vf bound) {
  return a > bound ? a : bound;
}
static inline etr_vf vf_min_num(etr_vf a, etr_vf bound) {
  return a < bound ? a : bound;
}
// max against a bound that keeps a NaN `a`.
static inline etr_vf vf_max_keep_nan(etr_vf a, etr_vf bound) {
  return a <= bound ? bound : a;
}
// min against a bound that keeps a NaN `a`.
static inline etr_vf vf_min_keep_nan(etr_vf a, etr_vf bound) {
  return a >= bound ? bound : a;
}
static inline etr_vf vf_neg(etr_vf a) { return -a; }
static inline etr_vf vf_abs(etr_vf a) { return fabsf(a); }
static inline etr_vf vf_copysign(etr_vf magnitude, etr_vf sign) {
  return copysignf(magnitude, sign);
}

static inline etr_vm vf_lt(etr_vf a, etr_vf b) { return a < b; }
static inline etr_vm vf_le(etr_vf a, etr_vf b) { return a <= b; }
static inline etr_vm vf_gt(etr_vf a, etr_vf b) { return a > b; }
static inline etr_vm vf_ge(etr_vf a, etr_vf b) { return a >= b; }
static inline etr_vm vf_eq(etr_vf a, etr_vf b) { return a == b; }
static inline etr_vm vf_ne(etr_vf a, etr_vf b) { return a != b; }
static inline etr_vm vf_isnan(etr_vf a) { return a != a; }
static inline etr_vm vm_or(etr_vm a, etr_vm b) { return a || b; }
static inline etr_vm vm_and(etr_vm a, etr_vm b) { return a && b; }
static inline etr_vf vf_select(etr_vm m, etr_vf if_true, etr_vf if_false) {
  return m ? if_true : if_false;
}

// Shifts and wrap-around go through uint32_t (no signed overflow).
static inline etr_vi vi_set1(int32_t x) { return x; }
static inline etr_vi vi_add(etr_vi a, etr_vi b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}
static inline etr_vi vi_sub(etr_vi a, etr_vi b) {
  return (int32_t)((uint32_t)a - (uint32_t)b);
}
static inline etr_vi vi_and(etr_vi a, etr_vi b) { return a & b; }
static inline etr_vi vi_or(etr_vi a, etr_vi b) { return a | b; }
static inline etr_vi vi_shl23(etr_vi a) {
  return (int32_t)((uint32_t)a << 23);
}
static inline etr_vi vi_shr23(etr_vi a) {
  return (int32_t)((uint32_t)a >> 23);
}
// floor(a / 2) for every a, INT32_MIN too (a NaN exponent reaches
// vf_scale_pow2 as INT32_MIN, where 1 - a overflowed): a logical shift
// with the sign bit put back.
static inline etr_vi vi_sra1(etr_vi a) {
  uint32_t u = (uint32_t)a;
  return (int32_t)((u >> 1) | (u & 0x80000000u));
}
// Bits 0 and 1 to bits 30 and 31 (the sign), the rest zero.
static inline etr_vi vi_shl30(etr_vi a) {
  return (int32_t)((uint32_t)a << 30);
}
static inline etr_vi vi_xor(etr_vi a, etr_vi b) { return a ^ b; }
static inline etr_vf vi_as_vf(etr_vi a) {
  float f;
  memcpy(&f, &a, sizeof(f));
  return f;
}
static inline etr_vi vf_as_vi(etr_vf a) {
  int32_t i;
  memcpy(&i, &a, sizeof(i));
  return i;
}
// Callers pass integral values; NaN and values out of int32 range (a NaN
// lane through the gelu paths) give INT32_MIN, as x86's cvtps does,
// instead of C's undefined conversion.
static inline etr_vi vf_to_vi(etr_vf a) {
  return a >= -2147483648.0f && a < 2147483648.0f ? (int32_t)a : INT32_MIN;
}
static inline etr_vf vi_to_vf(etr_vi a) { return (float)a; }

static inline etr_vd2 vf_to_vd2(etr_vf a) { return (double)a; }
static inline etr_vf vd2_to_vf(etr_vd2 d) { return (float)d; }
static inline etr_vd2 vd2_set1(double x) { return x; }
static inline etr_vd2 vd2_add(etr_vd2 a, etr_vd2 b) { return a + b; }
static inline etr_vd2 vd2_sub(etr_vd2 a, etr_vd2 b) { return a - b; }
static inline etr_vd2 vd2_mul(etr_vd2 a, etr_vd2 b) { return a * b; }
static inline etr_vd2 vd2_div(etr_vd2 a, etr_vd2 b) { return a / b; }
static inline etr_vd2 vd2_max_num(etr_vd2 a, etr_vd2 bound) {
  return a > bound ? a : bound;
}
static inline etr_vd2 vd2_min_num(etr_vd2 a, etr_vd2 bound) {
  return a < bound ? a : bound;
}
static inline etr_vd2 vd2_sqrt(etr_vd2 a) { return sqrt(a); }
// Two roundings, as vf_fma; the templates' double steps do not need one.
static inline etr_vd2 vd2_fma(etr_vd2 a, etr_vd2 b, etr_vd2 c) {
  return a * b + c;
}

static inline void vm_store_bytes(uint8_t *p, etr_vm m) { *p = m ? 1 : 0; }
static inline void vm_store_bytes_n(uint8_t *p, etr_vm m, size_t n) {
  (void)n;
  *p = m ? 1 : 0;
}
static inline etr_vm vm_load_bytes(const uint8_t *p) { return *p != 0; }
static inline etr_vm vm_load_bytes_n(const uint8_t *p, size_t n) {
  (void)n;
  return *p != 0;
}

#endif  // ETR_OPS_OPTIMIZED_UNARY_SIMD_SCALAR_H
