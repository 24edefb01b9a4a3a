// SPDX-License-Identifier: Apache-2.0
//
// The binary microkernels (binary.h), written once: a binary_<isa>.c file
// includes its ../unary/simd_<isa>.h, defines ETR_BINARY_KERNELS as the
// name of its kernel table and includes this file. Each op is an inline
// function of two vectors; the loop macros wrap it for the vv, vs and sv
// shapes: two vectors a step, then whole vectors, then one partial vector
// (masked or buffered by the primitives), so nothing past n is touched
// and y may alias a or b.
#ifndef ETR_BINARY_KERNELS
#error "define ETR_BINARY_KERNELS and include a simd_<isa>.h first"
#endif

#include "ops_optimized/binary/binary.h"

static inline etr_vf op_add(etr_vf a, etr_vf b, const etr_binary_params_t *p) {
  (void)p;
  return vf_add(a, b);
}
static inline etr_vf op_sub(etr_vf a, etr_vf b, const etr_binary_params_t *p) {
  (void)p;
  return vf_sub(a, b);
}
static inline etr_vf op_mul(etr_vf a, etr_vf b, const etr_binary_params_t *p) {
  (void)p;
  return vf_mul(a, b);
}
static inline etr_vf op_div(etr_vf a, etr_vf b, const etr_binary_params_t *p) {
  (void)p;
  return vf_div(a, b);
}
// a < b ? b : a keeps a NaN a and the first of two equal operands; a NaN
// b is then put back.
static inline etr_vf op_maximum(etr_vf a, etr_vf b,
                                const etr_binary_params_t *p) {
  (void)p;
  etr_vf larger = vf_select(vf_lt(a, b), b, a);
  return vf_select(vf_isnan(b), b, larger);
}
static inline etr_vf op_minimum(etr_vf a, etr_vf b,
                                const etr_binary_params_t *p) {
  (void)p;
  etr_vf smaller = vf_select(vf_lt(b, a), b, a);
  return vf_select(vf_isnan(b), b, smaller);
}
// alpha * b is exact in double (24 x 24 bits); the fused add rounds once
// to double, the conversion once to float: the reference's two roundings.
static inline etr_vf op_add_scaled(etr_vf a, etr_vf b,
                                   const etr_binary_params_t *p) {
  return vd2_to_vf(vd2_fma(vd2_set1(p->alpha), vf_to_vd2(b), vf_to_vd2(a)));
}

#define ETR_BINARY_LOOP(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP)          \
  size_t i = 0;                                                         \
  for (; i + 2 * ETR_VF_LANES <= n; i += 2 * ETR_VF_LANES) {            \
    etr_vf r0 = OP(LOAD_A(i), LOAD_B(i), params);                       \
    etr_vf r1 = OP(LOAD_A(i + ETR_VF_LANES), LOAD_B(i + ETR_VF_LANES),  \
                   params);                                             \
    vf_store(y + i, r0);                                                \
    vf_store(y + i + ETR_VF_LANES, r1);                                 \
  }                                                                     \
  for (; i < n; i += ETR_VF_LANES) {                                    \
    size_t left = n - i;                                                \
    if (left >= ETR_VF_LANES) {                                         \
      vf_store(y + i, OP(LOAD_A(i), LOAD_B(i), params));                \
    } else {                                                            \
      vf_store_n(y + i, OP(LOAD_A_N(i, left), LOAD_B_N(i, left), params), \
                 left);                                                 \
    }                                                                   \
  }

#define VECTOR_A(i) vf_load(a + (i))
#define VECTOR_B(i) vf_load(b + (i))
#define VECTOR_A_N(i, left) vf_load_n(a + (i), (left))
#define VECTOR_B_N(i, left) vf_load_n(b + (i), (left))
#define SPLAT_A(i) splat_a
#define SPLAT_B(i) splat_b
#define SPLAT_A_N(i, left) splat_a
#define SPLAT_B_N(i, left) splat_b

#define ETR_DEFINE_BINARY(name)                                           \
  static void name##_vv(size_t n, const float *a, const float *b,         \
                        float *y, const etr_binary_params_t *params) {    \
    ETR_BINARY_LOOP(VECTOR_A, VECTOR_B, VECTOR_A_N, VECTOR_B_N, op_##name) \
  }                                                                       \
  static void name##_vs(size_t n, const float *a, float b, float *y,      \
                        const etr_binary_params_t *params) {              \
    const etr_vf splat_b = vf_set1(b);                                    \
    ETR_BINARY_LOOP(VECTOR_A, SPLAT_B, VECTOR_A_N, SPLAT_B_N, op_##name)  \
  }                                                                       \
  static void name##_sv(size_t n, float a, const float *b, float *y,      \
                        const etr_binary_params_t *params) {              \
    const etr_vf splat_a = vf_set1(a);                                    \
    ETR_BINARY_LOOP(SPLAT_A, VECTOR_B, SPLAT_A_N, VECTOR_B_N, op_##name)  \
  }

ETR_DEFINE_BINARY(add)
ETR_DEFINE_BINARY(sub)
ETR_DEFINE_BINARY(mul)
ETR_DEFINE_BINARY(div)
ETR_DEFINE_BINARY(maximum)
ETR_DEFINE_BINARY(minimum)
ETR_DEFINE_BINARY(add_scaled)
#undef ETR_DEFINE_BINARY
#undef ETR_BINARY_LOOP

// Comparisons: a mask per vector, stored as 0/1 bytes.
#define ETR_DEFINE_COMPARE(name, PREDICATE)                              \
  static void compare_##name##_vv(size_t n, const float *a,              \
                                  const float *b, uint8_t *y) {          \
    size_t i = 0;                                                        \
    for (; i + ETR_VF_LANES <= n; i += ETR_VF_LANES) {                   \
      vm_store_bytes(y + i, PREDICATE(VECTOR_A(i), VECTOR_B(i)));        \
    }                                                                    \
    if (i < n) {                                                         \
      vm_store_bytes_n(y + i,                                            \
                       PREDICATE(VECTOR_A_N(i, n - i),                   \
                                 VECTOR_B_N(i, n - i)),                  \
                       n - i);                                           \
    }                                                                    \
  }                                                                      \
  static void compare_##name##_vs(size_t n, const float *a, float b,     \
                                  uint8_t *y) {                          \
    const etr_vf splat_b = vf_set1(b);                                   \
    size_t i = 0;                                                        \
    for (; i + ETR_VF_LANES <= n; i += ETR_VF_LANES) {                   \
      vm_store_bytes(y + i, PREDICATE(VECTOR_A(i), splat_b));            \
    }                                                                    \
    if (i < n) {                                                         \
      vm_store_bytes_n(y + i, PREDICATE(VECTOR_A_N(i, n - i), splat_b),  \
                       n - i);                                           \
    }                                                                    \
  }

ETR_DEFINE_COMPARE(eq, vf_eq)
ETR_DEFINE_COMPARE(ne, vf_ne)
ETR_DEFINE_COMPARE(lt, vf_lt)
ETR_DEFINE_COMPARE(le, vf_le)
ETR_DEFINE_COMPARE(gt, vf_gt)
ETR_DEFINE_COMPARE(ge, vf_ge)
#undef ETR_DEFINE_COMPARE

#undef VECTOR_A
#undef VECTOR_B
#undef VECTOR_A_N
#undef VECTOR_B_N
#undef SPLAT_A
#undef SPLAT_B
#undef SPLAT_A_N
#undef SPLAT_B_N

_Static_assert(ETR_BINARY_NUM_OPS == 7 && ETR_COMPARE_NUM_OPS == 6,
               "the table below lists every op in enum order");
const etr_f32_binary_kernels_t ETR_BINARY_KERNELS = {
    .vv = {add_vv, sub_vv, mul_vv, div_vv, maximum_vv, minimum_vv,
           add_scaled_vv},
    .vs = {add_vs, sub_vs, mul_vs, div_vs, maximum_vs, minimum_vs,
           add_scaled_vs},
    .sv = {add_sv, sub_sv, mul_sv, div_sv, maximum_sv, minimum_sv,
           add_scaled_sv},
    .compare_vv = {compare_eq_vv, compare_ne_vv, compare_lt_vv,
                   compare_le_vv, compare_gt_vv, compare_ge_vv},
    .compare_vs = {compare_eq_vs, compare_ne_vs, compare_lt_vs,
                   compare_le_vs, compare_gt_vs, compare_ge_vs},
};
