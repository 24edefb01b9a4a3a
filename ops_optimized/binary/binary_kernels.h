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

#include <math.h>

#include "ops_optimized/binary/binary.h"
#include "ops_optimized/common/stream.h"
#include "ops_optimized/unary/vmath_trig.h"

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

// fmod(a, b), exact. On magnitudes A, B: q = trunc(A / B) in float is
// the true quotient's integer part or one more (the float quotient rounds
// to within half an ulp, and never below an integer it exceeds) while
// q < 2^23; r = A - q B by one fused step is then exact (|r| < B and a
// multiple of B's ulp, or r = A when A < B), and one more B is added
// back when q was one too many. Lanes with larger quotients (B = 0 too)
// are recomputed with fmodf. Result: r with a's sign; x fmod inf = x.
static inline etr_vf vf_fmod(etr_vf a, etr_vf b) {
  etr_vf big_a = vf_abs(a);
  etr_vf big_b = vf_abs(b);
  etr_vf q = vf_trunc(vf_div(big_a, big_b));
  etr_vf r = vf_fma_exact(vf_neg(q), big_b, big_a);
  r = vf_select(vf_lt(r, vf_zero()), vf_add(r, big_b), r);
  r = vf_select(vf_eq(big_b, vf_set1(INFINITY)), big_a, r);
  r = vf_select(vf_eq(big_a, vf_set1(INFINITY)), vf_set1(NAN), r);
  r = vf_copysign(r, a);
  if (vm_any(vf_ge(q, vf_set1(8388608.0f)))) {
    float lanes_a[ETR_VF_LANES];
    float lanes_b[ETR_VF_LANES];
    vf_store(lanes_a, a);
    vf_store(lanes_b, b);
    for (size_t j = 0; j < ETR_VF_LANES; ++j) {
      lanes_a[j] = fmodf(lanes_a[j], lanes_b[j]);
    }
    r = vf_load(lanes_a);
  }
  return r;
}

static inline etr_vf op_fmod(etr_vf a, etr_vf b,
                             const etr_binary_params_t *p) {
  (void)p;
  return vf_fmod(a, b);
}
// Sign tests through +-1 values: (b < 0) != (m < 0).
static inline etr_vm signs_differ(etr_vf b, etr_vf m) {
  const etr_vf one = vf_set1(1.0f);
  const etr_vf minus_one = vf_set1(-1.0f);
  return vf_ne(vf_select(vf_lt(b, vf_zero()), minus_one, one),
               vf_select(vf_lt(m, vf_zero()), minus_one, one));
}
static inline etr_vf op_remainder(etr_vf a, etr_vf b,
                                  const etr_binary_params_t *p) {
  (void)p;
  etr_vf m = vf_fmod(a, b);
  etr_vm fix = vm_and(vf_ne(m, vf_zero()), signs_differ(b, m));
  return vf_select(fix, vf_add(m, b), m);
}
static inline etr_vf op_div_trunc(etr_vf a, etr_vf b,
                                  const etr_binary_params_t *p) {
  (void)p;
  return vf_trunc(vf_div(a, b));
}
// ATen's div_floor_floating: b == 0 -> a / b; m = fmod(a, b); q = (a -
// m) / b, minus 1 when m != 0 and its sign is not b's; q == 0 ->
// copysign(0, a / b); else floor(q), plus 1 when q - floor(q) > 0.5.
static inline etr_vf op_div_floor(etr_vf a, etr_vf b,
                                  const etr_binary_params_t *p) {
  (void)p;
  const etr_vf one = vf_set1(1.0f);
  etr_vf quotient = vf_div(a, b);
  etr_vf m = vf_fmod(a, b);
  etr_vf q = vf_div(vf_sub(a, m), b);
  etr_vm fix = vm_and(vf_ne(m, vf_zero()), signs_differ(b, m));
  q = vf_select(fix, vf_sub(q, one), q);
  etr_vf floored = vf_floor(q);
  etr_vf y = vf_select(vf_gt(vf_sub(q, floored), vf_set1(0.5f)),
                       vf_add(floored, one), floored);
  y = vf_select(vf_eq(q, vf_zero()), vf_copysign(vf_zero(), quotient), y);
  return vf_select(vf_eq(b, vf_zero()), quotient, y);
}

static inline etr_vf op_atan2(etr_vf a, etr_vf b,
                              const etr_binary_params_t *p) {
  (void)p;
  return vf_atan2(a, b);
}

static inline etr_vf op_pow(etr_vf a, etr_vf b,
                            const etr_binary_params_t *p) {
  (void)p;
  return vf_pow(a, b);
}

// The call's streaming hint (params may be NULL for the ops that read no
// alpha: conv_transposed.c's adds).
static inline bool stream_hint(const etr_binary_params_t *params) {
  return params != NULL && params->stream;
}

// Pairs of vectors from i on while two fit, each written by STORE
// (vf_store, or vf_stream for an out that streams).
#define ETR_BINARY_PAIRS(LOAD_A, LOAD_B, OP, STORE)                        \
  for (; i + 2 * ETR_VF_LANES <= n; i += 2 * ETR_VF_LANES) {            \
    etr_vf r0 = OP(LOAD_A(i), LOAD_B(i), params);                       \
    etr_vf r1 = OP(LOAD_A(i + ETR_VF_LANES), LOAD_B(i + ETR_VF_LANES),  \
                   params);                                             \
    STORE(y + i, r0);                                                   \
    STORE(y + i + ETR_VF_LANES, r1);                                    \
  }

#if defined(ETR_HAVE_VF_STREAM)
// An out that streams (common/stream.h: with its INPUTS input arrays,
// or as a run of a call that does, HINT): the lanes up to y's next
// vector boundary with one masked op, then pairs of vectors written with
// streaming stores (ETR_BINARY_STREAM_PAIRS, n at least a vector past
// the boundary); the loops below finish the tail.
#define ETR_BINARY_STREAM_PAIRS(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP)  \
  i = etr_stream_head(y, sizeof(etr_vf));                               \
  if (i > 0) {                                                          \
    vf_store_n(y, OP(LOAD_A_N(0, i), LOAD_B_N(0, i), params), i);       \
  }                                                                     \
  ETR_BINARY_PAIRS(LOAD_A, LOAD_B, OP, vf_stream)
#define ETR_BINARY_STREAM(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP, INPUTS, \
                          HINT)                                         \
  if ((HINT) || etr_stream_out(n, INPUTS)) {                            \
    ETR_BINARY_STREAM_PAIRS(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP)     \
    vf_stream_fence();                                                  \
  }
#else
#define ETR_BINARY_STREAM_PAIRS(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP)
#define ETR_BINARY_STREAM(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP, INPUTS, \
                          HINT)
#endif

// The loop from i on: pairs of vectors, then one vector at a time and
// the last lanes masked.
#define ETR_BINARY_FINISH(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP)          \
  ETR_BINARY_PAIRS(LOAD_A, LOAD_B, OP, vf_store)                        \
  for (; i < n; i += ETR_VF_LANES) {                                    \
    size_t left = n - i;                                                \
    if (left >= ETR_VF_LANES) {                                         \
      vf_store(y + i, OP(LOAD_A(i), LOAD_B(i), params));                \
    } else {                                                            \
      vf_store_n(y + i, OP(LOAD_A_N(i, left), LOAD_B_N(i, left), params), \
                 left);                                                 \
    }                                                                   \
  }

// INPUTS: the input arrays beside the out for the streaming decision, 0
// for an op that never streams; HINT: the call's params->stream.
#define ETR_BINARY_LOOP(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP, INPUTS,    \
                        HINT)                                           \
  size_t i = 0;                                                         \
  if (INPUTS > 0) {                                                     \
    ETR_BINARY_STREAM(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP, INPUTS,   \
                      HINT)                                             \
  }                                                                     \
  ETR_BINARY_FINISH(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP)

#define VECTOR_A(i) vf_load(a + (i))
#define VECTOR_B(i) vf_load(b + (i))
#define VECTOR_A_N(i, left) vf_load_n(a + (i), (left))
#define VECTOR_B_N(i, left) vf_load_n(b + (i), (left))
#define SPLAT_A(i) splat_a
#define SPLAT_B(i) splat_b
#define SPLAT_A_N(i, left) splat_a
#define SPLAT_B_N(i, left) splat_b

#define ETR_DEFINE_BINARY(name, streamed)                                 \
  static void name##_vv(size_t n, const float *a, const float *b,         \
                        float *y, const etr_binary_params_t *params) {    \
    ETR_BINARY_LOOP(VECTOR_A, VECTOR_B, VECTOR_A_N, VECTOR_B_N, op_##name, \
                    2 * streamed, stream_hint(params))                    \
  }                                                                       \
  static void name##_vs(size_t n, const float *a, float b, float *y,      \
                        const etr_binary_params_t *params) {              \
    const etr_vf splat_b = vf_set1(b);                                    \
    ETR_BINARY_LOOP(VECTOR_A, SPLAT_B, VECTOR_A_N, SPLAT_B_N, op_##name, \
                    streamed, stream_hint(params))                        \
  }                                                                       \
  static void name##_sv(size_t n, float a, const float *b, float *y,      \
                        const etr_binary_params_t *params) {              \
    const etr_vf splat_a = vf_set1(a);                                    \
    ETR_BINARY_LOOP(SPLAT_A, VECTOR_B, SPLAT_A_N, VECTOR_B_N, op_##name, \
                    streamed, stream_hint(params))                        \
  }

// Whether a rows call streams: params->stream asks and a row holds at
// least four vectors (the ISAs with streaming stores).
static inline bool binary_rows_stream(const etr_binary_params_t *params,
                                      size_t n) {
#if defined(ETR_HAVE_VF_STREAM)
  return stream_hint(params) && n >= 4 * ETR_VF_LANES;
#else
  (void)params;
  (void)n;
  return false;
#endif
}

// The one fence after a streamed rows call's last row.
static inline void binary_rows_fence(bool stream) {
#if defined(ETR_HAVE_VF_STREAM)
  if (stream) {
    vf_stream_fence();
  }
#else
  (void)stream;
#endif
}

// One row of etr_binary_rows_t, its pairs streamed where `stream`.
#define ETR_BINARY_ROW(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP)           \
  size_t i = 0;                                                         \
  if (stream) {                                                         \
    ETR_BINARY_STREAM_PAIRS(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP)     \
  }                                                                     \
  ETR_BINARY_FINISH(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP)

// Rows of etr_binary_rows_t on one operand pattern (LOAD_A .. LOAD_B_N;
// SPLAT reads the row's one value where an operand has one). Rows of at
// most a vector, which do not stream, take one (masked) op a row: the
// general row's loop tests cost mobilenet_v3's 96 rows of 16 (a [1, 96,
// 4, 4] scale) about 7 cycles a row.
#define ETR_BINARY_ROWS_LOOP(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP, SPLAT) \
  if (!stream && n == ETR_VF_LANES) {                                   \
    for (size_t r = 0; r < count; ++r) {                                \
      SPLAT                                                             \
      vf_store(y, OP(LOAD_A(0), LOAD_B(0), params));                    \
      a += a_stride;                                                    \
      b += b_stride;                                                    \
      y += y_stride;                                                    \
    }                                                                   \
  } else if (!stream && n < ETR_VF_LANES) {                             \
    for (size_t r = 0; r < count; ++r) {                                \
      SPLAT                                                             \
      vf_store_n(y, OP(LOAD_A_N(0, n), LOAD_B_N(0, n), params), n);     \
      a += a_stride;                                                    \
      b += b_stride;                                                    \
      y += y_stride;                                                    \
    }                                                                   \
  } else {                                                              \
    for (size_t r = 0; r < count; ++r) {                                \
      SPLAT                                                             \
      ETR_BINARY_ROW(LOAD_A, LOAD_B, LOAD_A_N, LOAD_B_N, OP)            \
      a += a_stride;                                                    \
      b += b_stride;                                                    \
      y += y_stride;                                                    \
    }                                                                   \
  }

// etr_binary_rows_t, the operands' shapes chosen once for all rows (its
// fields read into locals once: the stores to y may alias them for the
// compiler). A call that streams (params->stream, rows of at least four
// vectors) streams every row and fences once, after the last: a [4096,
// 1024] + [1024] add through the per-run kernels, a fence after each of
// its 4096 runs, took 0.98 ms against 0.61 so (and 0.86 with ordinary
// stores; bench_server on Zen 4, builds alternated).
#define ETR_DEFINE_BINARY_ROWS(name)                                      \
  static void name##_rows(const etr_binary_rows_t *rows,                  \
                          const etr_binary_params_t *params) {            \
    const size_t n = rows->n;                                             \
    const size_t count = rows->rows;                                      \
    const float *a = rows->a;                                             \
    const float *b = rows->b;                                             \
    float *y = rows->y;                                                   \
    const ptrdiff_t a_stride = rows->a_stride;                            \
    const ptrdiff_t b_stride = rows->b_stride;                            \
    const ptrdiff_t y_stride = rows->y_stride;                            \
    const bool stream = binary_rows_stream(params, n);                    \
    if (rows->a_vector && rows->b_vector) {                               \
      ETR_BINARY_ROWS_LOOP(VECTOR_A, VECTOR_B, VECTOR_A_N, VECTOR_B_N,    \
                           op_##name, )                                   \
    } else if (rows->a_vector) {                                          \
      ETR_BINARY_ROWS_LOOP(VECTOR_A, SPLAT_B, VECTOR_A_N, SPLAT_B_N,      \
                           op_##name,                                     \
                           const etr_vf splat_b = vf_set1(*b);)           \
    } else {                                                              \
      ETR_BINARY_ROWS_LOOP(SPLAT_A, VECTOR_B, SPLAT_A_N, VECTOR_B_N,      \
                           op_##name,                                     \
                           const etr_vf splat_a = vf_set1(*a);)           \
    }                                                                     \
    binary_rows_fence(stream);                                            \
  }
ETR_DEFINE_BINARY_ROWS(add)
ETR_DEFINE_BINARY_ROWS(sub)
ETR_DEFINE_BINARY_ROWS(mul)
ETR_DEFINE_BINARY_ROWS(div)
ETR_DEFINE_BINARY_ROWS(maximum)
ETR_DEFINE_BINARY_ROWS(minimum)
#undef ETR_DEFINE_BINARY_ROWS
#undef ETR_BINARY_ROW

ETR_DEFINE_BINARY(add, 1)
ETR_DEFINE_BINARY(sub, 1)
ETR_DEFINE_BINARY(mul, 1)
ETR_DEFINE_BINARY(div, 1)
ETR_DEFINE_BINARY(maximum, 1)
ETR_DEFINE_BINARY(minimum, 1)
ETR_DEFINE_BINARY(add_scaled, 0)
ETR_DEFINE_BINARY(fmod, 0)
ETR_DEFINE_BINARY(remainder, 0)
ETR_DEFINE_BINARY(div_trunc, 0)
ETR_DEFINE_BINARY(div_floor, 0)
ETR_DEFINE_BINARY(atan2, 0)
ETR_DEFINE_BINARY(pow, 0)
#if defined(ETR_HAVE_VF_DIV_HALVES)
// Division in two halves (simd_avx512.h's vf_div_halves): a 512-bit
// divide issues about once every 9.5 cycles on the Intel Xeon of
// 2026-11-29 against 4.4 for a 256-bit one, so a pair of halves is 8-10%
// faster (div f32 on 16 Ki floats in L2: 60 -> 66 GB/s, bench_elementwise,
// binaries alternated; ExecuTorch's optimized div.out, which divides 8
// lanes at a time, had been 5% faster than etref on div-L1). The bits are
// the same: both are IEEE divisions. Only plain division: in tanh and
// sigmoid, whose divide overlaps their polynomials, the two extra
// shuffles made them 8% slower.
static inline etr_vf op_div_halves(etr_vf a, etr_vf b,
                                   const etr_binary_params_t *p) {
  (void)p;
  return vf_div_halves(a, b);
}
// a / b without the divider, for one vector in two (the divider takes the
// other, so both run at once): r = RN(1 / b) from vrcp14ps and two Newton
// steps, r = r + r (1 - b r) with the remainder fused, then q0 = RN(a r)
// and the two Markstein corrections of op_div_by below, whose argument
// (any b with |b| in [2^-30, 2^30] once r = RN(1 / b), every lane's |q0|
// in [2^-70, 2^70]; denormals flushed or not) this reuses. The two
// Newton steps round 1 / b correctly for every significand but the all-
// ones one (1.11...1: ops_optimized/tools/div_scalar_check --vv checks
// all 2^23 at every exponent of the range, both signs), so a vector
// holding such a b, or out of either range (zeros, infinities and NaNs
// included), is divided.
static inline etr_vf div_by_newton(etr_vf a, etr_vf b) {
  const etr_vf one = vf_set1(1.0f);
  etr_vf r = vf_reciprocal_estimate(b);
  r = vf_fma_exact(vf_fnma(b, r, one), r, r);
  r = vf_fma_exact(vf_fnma(b, r, one), r, r);
  const etr_vf q0 = vf_mul(a, r);
  const etr_vf size_b = vf_abs(b);
  const etr_vf size_q = vf_abs(q0);
  const etr_vm fits =
      vm_and(vm_and(vf_ge(size_b, vf_set1(0x1p-30f)),
                    vf_le(size_b, vf_set1(0x1p30f))),
             vm_and(vf_ge(size_q, vf_set1(0x1p-70f)),
                    vf_le(size_q, vf_set1(0x1p70f))));
  if (!vm_all(vm_and(fits, vf_ne(vf_mantissa_1_2(b),
                                 vf_set1(0x1.fffffep0f))))) {
    return vf_div_halves(a, b);
  }
  const etr_vf q1 = vf_fma_exact(vf_fnma(q0, b, a), r, q0);
  return vf_fma_exact(vf_fnma(q1, b, a), r, q1);
}

// Vector pairs: the first through the divider in halves, the second by
// Newton steps on the FMA pipes, at once: div f32 on 2304 floats in L1
// 357 -> 264 ns on the Intel Xeon of 2026-11-29, bit for bit the same.
// Outs that stream (bound by memory) and the tail take the halves loop.
// (div.Scalar keeps its multiply-and-correct kernel below.)
#define ETR_DIV_PAIRS(LOAD_A, LOAD_B, INPUTS)                              \
  size_t i = 0;                                                           \
  if (!stream_hint(params) && !etr_stream_out(n, INPUTS)) {               \
    for (; i + 2 * ETR_VF_LANES <= n; i += 2 * ETR_VF_LANES) {            \
      const etr_vf r0 = vf_div_halves(LOAD_A(i), LOAD_B(i));              \
      const etr_vf r1 = div_by_newton(LOAD_A(i + ETR_VF_LANES),           \
                                      LOAD_B(i + ETR_VF_LANES));          \
      vf_store(y + i, r0);                                                \
      vf_store(y + i + ETR_VF_LANES, r1);                                 \
    }                                                                     \
  }                                                                       \
  n -= i;                                                                 \
  y += i;
static void div_split_vv(size_t n, const float *a, const float *b, float *y,
                         const etr_binary_params_t *params) {
  ETR_DIV_PAIRS(VECTOR_A, VECTOR_B, 2)
  a += i;
  b += i;
  {
    ETR_BINARY_LOOP(VECTOR_A, VECTOR_B, VECTOR_A_N, VECTOR_B_N,
                    op_div_halves, 2, stream_hint(params))
  }
}
static void div_split_sv(size_t n, float a, const float *b, float *y,
                         const etr_binary_params_t *params) {
  const etr_vf splat_a = vf_set1(a);
  ETR_DIV_PAIRS(SPLAT_A, VECTOR_B, 1)
  b += i;
  {
    ETR_BINARY_LOOP(SPLAT_A, VECTOR_B, SPLAT_A_N, VECTOR_B_N, op_div_halves,
                    1, stream_hint(params))
  }
}
#undef ETR_DIV_PAIRS
#endif
#undef ETR_DEFINE_BINARY

#if ETR_VF_LANES > 1
// Division by one float b without a divide instruction (a vector divide
// issues once every 8-10 cycles on the Intel Xeon of 2026-11-28, where
// ExecuTorch's AVX2 loop beat ours on div.Scalar): with r = RN(1 / b),
// q0 = RN(a * r) is within 1.5 ulp of a / b; one correction
// q1 = RN(q0 + RN(a - b * q0) * r), the remainder exact by FMA, brings it
// within 1 ulp (it adds half an ulp of rounding to an error near 2^-24
// ulp), and Markstein's theorem (a correctly rounded reciprocal and a
// quotient within 1 ulp: one more such step rounds correctly; Muller et
// al., Handbook of Floating-Point Arithmetic, 2nd ed., sec. 4.9) makes
// q2 = RN(q1 + RN(a - b * q1) * r) the correctly rounded a / b, bit for
// bit what the divide gives. The theorem needs no overflow or underflow
// anywhere: |b| in [2^-30, 2^30] (else the plain loop), and a vector
// whose |q0| is not in [2^-70, 2^70] in every lane (zeros, infinities and
// NaNs fail it too) is divided. |a| is then about 2^-100 or more, so with
// denormals flushed (FTZ/DAZ) the quotients are still the divide's: a
// remainder that flushes to zero, below 2^-126, leaves q0 within a
// quarter of an ulp of a / b, which is RN(a / b) already.
// div-scalar-L2 (f32[64x1024] / 3) went from 0.91x to 1.85-2.34x
// ExecuTorch's optimized kernel (ops_optimized/bench/run.sh). Only where
// etr_isa_slow_divide: on Zen 2 the divide itself is faster (that row
// 13.1 us here, 9.0 with the divide; etref run --kernels optimized). The
// checks are ops_optimized/tools/div_scalar_check.c (every significand, 209
// divisors, 0 of 63e9 quotients differ) and the suite's
// diff_elementwise_division_test.
typedef struct div_by {
  etr_vf b;
  etr_vf r;
  etr_vf low;
  etr_vf high;
} div_by_t;

static inline etr_vf op_div_by(etr_vf a, etr_vf b, const div_by_t *k) {
  (void)b;
  const etr_vf q0 = vf_mul(a, k->r);
  const etr_vf size = vf_abs(q0);
  if (!vm_all(vm_and(vf_ge(size, k->low), vf_le(size, k->high)))) {
    return vf_div(a, k->b);
  }
  const etr_vf q1 = vf_fma_exact(vf_fnma(q0, k->b, a), k->r, q0);
  return vf_fma_exact(vf_fnma(q1, k->b, a), k->r, q1);
}

// Whether dividing by b takes op_div_by (|b| in [2^-30, 2^30], on a CPU
// whose divide is slow: etr_isa_slow_divide), and then its constants.
static inline bool div_by_setup(float b, div_by_t *k) {
  const float size = fabsf(b);
  if (!(size >= 0x1p-30f && size <= 0x1p30f) || !etr_isa_slow_divide()) {
    return false;
  }
  *k = (div_by_t){vf_set1(b), vf_set1(1.0f / b), vf_set1(0x1p-70f),
                  vf_set1(0x1p70f)};
  return true;
}

static void div_by_scalar_vs(size_t n, const float *a, float b, float *y,
                             const etr_binary_params_t *unused) {
  div_by_t k;
  if (!div_by_setup(b, &k)) {
    div_vs(n, a, b, y, unused);
    return;
  }
  const div_by_t *params = &k;
  const etr_vf splat_b = k.b;
  ETR_BINARY_LOOP(VECTOR_A, SPLAT_B, VECTOR_A_N, SPLAT_B_N, op_div_by, 1,
                  stream_hint(unused))
}
#define DIV_VS div_by_scalar_vs
#else
#define DIV_VS div_vs
#endif
// The fused hardswish / hardsigmoid (binary.h, etr_f32_hard_params_t):
// add_vs's add, the CLAMP kernel's clamp, mul_vv's multiply in the
// chain's operand order, then DIV_VS's division (op_div_by where
// div_by_setup takes the divisor, else the divide), in ETR_BINARY_LOOP's
// vectors. Both divisions give the correctly rounded quotient in every
// lane (op_div_by's argument), so the bits are the unfused chain's,
// padding lanes of a last partial vector included. On Zen 2 the divide
// is the faster: mobilenet_v3's 16x32x32 hardswish 5.95 us as the
// chain's four passes over L1 tiles, 4.8 fused with op_div_by (every
// vector holding a zero, as x <= -3 gives, goes to the divide there
// anyway), 2.55 with the divide; grouping 4 vectors per range test,
// zeros admitted, spilled and took 5.5.
typedef struct hard_consts {
  etr_vf add;
  etr_vf low;
  etr_vf high;
  bool times_x;
  bool x_first;
#if ETR_VF_LANES > 1
  bool by_newton;
  div_by_t div;
#endif
} hard_consts_t;

static inline etr_vf op_hard(etr_vf x, etr_vf divisor,
                             const hard_consts_t *k) {
  etr_vf v = vf_clamp_ordered(vf_add(x, k->add), k->low, k->high);
  if (k->times_x) {
    v = k->x_first ? vf_mul(x, v) : vf_mul(v, x);
  }
#if ETR_VF_LANES > 1
  if (k->by_newton) {
    return op_div_by(v, divisor, &k->div);
  }
#endif
  return vf_div(v, divisor);
}

static void hard_activation(size_t n, const float *a, float *y,
                            const etr_f32_hard_params_t *p) {
  hard_consts_t k = {.add = vf_set1(p->add),
                     .low = vf_set1(p->low),
                     .high = vf_set1(p->high),
                     .times_x = p->times_x,
                     .x_first = p->x_first};
#if ETR_VF_LANES > 1
  k.by_newton = div_by_setup(p->divisor, &k.div);
#endif
  const hard_consts_t *params = &k;
  const etr_vf splat_b = vf_set1(p->divisor);
  ETR_BINARY_LOOP(VECTOR_A, SPLAT_B, VECTOR_A_N, SPLAT_B_N, op_hard, 0,
                  false)
}

#undef ETR_BINARY_LOOP
#undef ETR_BINARY_STREAM

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

_Static_assert(ETR_BINARY_NUM_OPS == 13 && ETR_COMPARE_NUM_OPS == 6,
               "the table below lists every op in enum order");
#define ETR_BINARY_TABLE(name, DIV_VV, DIV_SV)                              \
  const etr_f32_binary_kernels_t name = {                                   \
      .vv = {add_vv, sub_vv, mul_vv, DIV_VV, maximum_vv, minimum_vv,        \
             add_scaled_vv, fmod_vv, remainder_vv, div_trunc_vv,            \
             div_floor_vv, atan2_vv, pow_vv},                               \
      .vs = {add_vs, sub_vs, mul_vs, DIV_VS, maximum_vs, minimum_vs,        \
             add_scaled_vs, fmod_vs, remainder_vs, div_trunc_vs,            \
             div_floor_vs, atan2_vs, pow_vs},                               \
      .sv = {add_sv, sub_sv, mul_sv, DIV_SV, maximum_sv, minimum_sv,        \
             add_scaled_sv, fmod_sv, remainder_sv, div_trunc_sv,            \
             div_floor_sv, atan2_sv, pow_sv},                               \
      .rows = {add_rows, sub_rows, mul_rows, div_rows, maximum_rows,        \
               minimum_rows},                                               \
      .compare_vv = {compare_eq_vv, compare_ne_vv, compare_lt_vv,           \
                     compare_le_vv, compare_gt_vv, compare_ge_vv},          \
      .compare_vs = {compare_eq_vs, compare_ne_vs, compare_lt_vs,           \
                     compare_le_vs, compare_gt_vs, compare_ge_vs},          \
      .hard = hard_activation,                                              \
  };
ETR_BINARY_TABLE(ETR_BINARY_KERNELS, div_vv, div_sv)
#if defined(ETR_BINARY_KERNELS_SPLIT_DIVIDE)
ETR_BINARY_TABLE(ETR_BINARY_KERNELS_SPLIT_DIVIDE, div_split_vv, div_split_sv)
#endif
#undef ETR_BINARY_TABLE
#undef DIV_VS
