// SPDX-License-Identifier: Apache-2.0
//
// The table-driven unary microkernels (unary.h), written once: a
// unary_<isa>.c file includes its simd_<isa>.h, defines ETR_UNARY_TABLE
// as the name of its table and includes this file. Each op is an inline
// function of one vector; ETR_DEFINE_UNARY wraps it in the loop: two
// vectors per step, then whole vectors, then one partial vector (masked or
// buffered by the primitives), so nothing past n is read or written and
// x == y (in place) is fine. An out that streams (common/stream.h: its
// array and x's reach etr_isa_stream_bytes()) is written with streaming
// stores on the ISAs that have them.
#ifndef ETR_UNARY_TABLE
#error "define ETR_UNARY_TABLE and include a simd_<isa>.h first"
#endif

#include "ops_optimized/common/stream.h"
#include "ops_optimized/unary/unary.h"
#include "ops_optimized/unary/vmath.h"
#include "ops_optimized/unary/vmath_explog.h"
#include "ops_optimized/unary/vmath_trig.h"

// The parameters as vectors, built once per call.
typedef struct unary_consts {
  etr_vf low;
  etr_vf high;
  etr_vf slope;
  etr_vf negcoef;
  etr_vf poscoef;
  etr_vf input_scale;
  etr_vd2 log_base;
  etr_vd2 exponent;
  bool exponent_integer;  // POW_SCALAR: the exponent is an integer,
  bool exponent_odd;      // an odd one
  bool exponent_negative;
  bool elu_unit_scale;   // ELU: input_scale is 1 (x * input_scale exact)
  bool elu_nonpositive;  // ELU: input_scale >= 0 (x < 0 scales to <= 0)
} unary_consts_t;

static inline unary_consts_t unary_consts(const etr_unary_params_t *p) {
  unary_consts_t k;
  k.low = vf_set1(p != NULL ? p->low : -INFINITY);
  k.high = vf_set1(p != NULL ? p->high : INFINITY);
  k.slope = vf_set1(p != NULL ? p->slope : 0.0f);
  k.negcoef = vf_set1(p != NULL ? p->negcoef : 1.0f);
  k.poscoef = vf_set1(p != NULL ? p->poscoef : 1.0f);
  k.input_scale = vf_set1(p != NULL ? p->input_scale : 1.0f);
  k.elu_unit_scale = p == NULL || p->input_scale == 1.0f;
  k.elu_nonpositive = p == NULL || p->input_scale >= 0.0f;
  k.log_base = vd2_set1(p != NULL ? p->log_base : 0.0);
  double exponent = p != NULL ? p->exponent : 1.0;
  k.exponent = vd2_set1(exponent);
  k.exponent_integer = exponent == trunc(exponent);
  k.exponent_odd = k.exponent_integer && fmod(exponent, 2.0) != 0.0;
  k.exponent_negative = exponent < 0.0;
  return k;
}

// 1 / sqrt(x) as the reference computes it: double sqrt, double division,
// one rounding to float.
static inline etr_vf unary_rsqrt_double(etr_vf v) {
  return vd2_to_vf(vd2_div(vd2_set1(1.0), vd2_sqrt(vf_to_vd2(v))));
}

static inline etr_vf op_neg(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_neg(v);
}
static inline etr_vf op_abs(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_abs(v);
}
static inline etr_vf op_sqrt(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_sqrt(v);
}
// 1 / sqrt(x) in float, two roundings: PyTorch's own arithmetic (its
// Vectorized<float>::rsqrt divides 1 by the float square root; torch.rsqrt
// equals it bit for bit on 1 Mi random floats, and the correctly rounded
// value on only 77% of them), within 1 ULP of the reference's double
// evaluation, and ~3x faster than it on AVX-512.
static inline etr_vf op_rsqrt(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_div(vf_set1(1.0f), vf_sqrt(v));
}
static inline etr_vf op_exp(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_exp_op(v);
}
static inline etr_vf op_log(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_log(v);
}
static inline etr_vf op_sigmoid(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_sigmoid(v);
}
static inline etr_vf op_tanh(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_tanh(v);
}
static inline etr_vf op_gelu_erf(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_gelu_erf(v, false);
}
static inline etr_vf op_gelu_tanh(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_gelu_tanh(v, false);
}
static inline bool op_fast_pair_gelu_erf(etr_vf *a, etr_vf *b) {
  return vf_gelu_erf_fast_pair(a, b, false);
}
static inline bool op_fast_pair_gelu_tanh(etr_vf *a, etr_vf *b) {
  return vf_gelu_tanh_fast_pair(a, b, false);
}
#if defined(ETR_HAVE_VF_LOOKUP32)
// The same on the narrow tables (vmath.h's vf_gelu_rows).
static inline etr_vf op_gelu_erf_narrow(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_gelu_erf(v, true);
}
static inline etr_vf op_gelu_tanh_narrow(etr_vf v,
                                         const unary_consts_t *k) {
  (void)k;
  return vf_gelu_tanh(v, true);
}
static inline bool op_fast_pair_gelu_erf_narrow(etr_vf *a, etr_vf *b) {
  return vf_gelu_erf_fast_pair(a, b, true);
}
static inline bool op_fast_pair_gelu_tanh_narrow(etr_vf *a, etr_vf *b) {
  return vf_gelu_tanh_fast_pair(a, b, true);
}
#endif
// -0.0 and NaN take the positive branch, as the reference's x < 0 test.
// The reference's x * input_scale is exact (double); here it is hi + lo,
// and expm1(hi + lo) = expm1(hi) + lo e^hi, so large arguments keep
// their accuracy when input_scale is not 1. The negative branch needs
// expm1 only below 0 where input_scale >= 0 (vf_expm1_nonpositive, the
// same bits there), and no hi + lo split where input_scale is 1 (lo is
// +0 and the correction leaves every em of x < 0 as it is). The same
// bits over every float (ulp_sweep 1 elu, all three x86 ISAs, a hash of
// the outputs); bench_elementwise on 16 Ki floats, Zen 4, paired 7
// rounds: "elu f32" 1.9 -> 3.6 G elements/s (1.89x), input_scale 0.5
// 1.9 -> 2.6 (1.38x).
static inline etr_vf op_elu(etr_vf v, const unary_consts_t *k) {
  etr_vf em;
  if (k->elu_unit_scale) {
    em = vf_expm1_nonpositive(v);
  } else {
    etr_vf hi = vf_mul(v, k->input_scale);
    etr_vf lo = vf_fma_exact(v, k->input_scale, vf_neg(hi));
    em = k->elu_nonpositive ? vf_expm1_nonpositive(hi) : vf_expm1(hi);
    etr_vf corrected = vf_fma(lo, vf_add(em, vf_set1(1.0f)), em);
    // NaN only when hi or em is infinite: em is then the answer.
    em = vf_select(vf_isnan(corrected), em, corrected);
  }
  etr_vf negative = vf_mul(em, k->negcoef);
  return vf_select(vf_lt(v, vf_zero()), negative, vf_mul(v, k->poscoef));
}
static inline etr_vf op_leaky_relu(etr_vf v, const unary_consts_t *k) {
  return vf_select(vf_gt(v, vf_zero()), v, vf_mul(v, k->slope));
}
// Comparisons with NaN are false, so a NaN x or bound leaves x alone.
static inline etr_vf op_clamp(etr_vf v, const unary_consts_t *k) {
  return vf_clamp_ordered(v, k->low, k->high);
}
static inline etr_vf op_pow_0(etr_vf v, const unary_consts_t *k) {
  (void)k;
  (void)v;
  return vf_set1(1.0f);
}
static inline etr_vf op_pow_1(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return v;
}
static inline etr_vf op_pow_2(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_mul(v, v);
}
// x * x is exact in double; one rounding there, one to float.
static inline etr_vf op_pow_3(etr_vf v, const unary_consts_t *k) {
  (void)k;
  etr_vd2 d = vf_to_vd2(v);
  return vd2_to_vf(vd2_mul(vd2_mul(d, d), d));
}
static inline etr_vf op_pow_minus_1(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_div(vf_set1(1.0f), v);
}
static inline etr_vf op_pow_minus_2(etr_vf v, const unary_consts_t *k) {
  (void)k;
  etr_vd2 d = vf_to_vd2(v);
  return vd2_to_vf(vd2_div(vd2_set1(1.0), vd2_mul(d, d)));
}
static inline etr_vf op_pow_half(etr_vf v, const unary_consts_t *k) {
  (void)k;
  etr_vf y = vf_sqrt(v);
  y = vf_select(vf_eq(v, vf_set1(-INFINITY)), vf_set1(INFINITY), y);
  return vf_select(vf_eq(v, vf_zero()), vf_zero(), y);
}
static inline etr_vf op_pow_minus_half(etr_vf v, const unary_consts_t *k) {
  (void)k;
  etr_vf y = unary_rsqrt_double(v);
  y = vf_select(vf_eq(v, vf_set1(-INFINITY)), vf_zero(), y);
  return vf_select(vf_eq(v, vf_zero()), vf_set1(INFINITY), y);
}

static inline etr_vf op_ceil(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_ceil(v);
}
static inline etr_vf op_floor(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_floor(v);
}
static inline etr_vf op_round(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_rint(v);
}
static inline etr_vf op_trunc(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_trunc(v);
}
// Comparisons with NaN are false: NaN gives 0 - 0 = +0, as does -0.0.
static inline etr_vf op_sign(etr_vf v, const unary_consts_t *k) {
  (void)k;
  etr_vf positive = vf_select(vf_gt(v, vf_zero()), vf_set1(1.0f), vf_zero());
  etr_vf negative = vf_select(vf_lt(v, vf_zero()), vf_set1(1.0f), vf_zero());
  return vf_sub(positive, negative);
}

static inline etr_vf op_expm1(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_expm1_op(v);
}
static inline etr_vf op_sin(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_sin(v);
}
static inline etr_vf op_cos(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_cos(v);
}
static inline bool op_fast_pair_sin(etr_vf *a, etr_vf *b) {
  return vf_sin_fast_pair(a, b);
}
static inline bool op_fast_pair_cos(etr_vf *a, etr_vf *b) {
  return vf_cos_fast_pair(a, b);
}
static inline etr_vf op_tan(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_tan(v);
}
static inline bool op_fast_pair_tan(etr_vf *a, etr_vf *b) {
  return vf_tan_fast_pair(a, b);
}
static inline etr_vf op_asin(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_asin(v);
}
static inline etr_vf op_acos(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_acos(v);
}
static inline etr_vf op_atan(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_atan(v);
}
static inline etr_vf op_sinh(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_sinh(v);
}
static inline etr_vf op_cosh(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_cosh(v);
}
static inline etr_vf op_asinh(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_asinh(v);
}
static inline etr_vf op_acosh(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_acosh(v);
}
static inline etr_vf op_atanh(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_atanh(v);
}
static inline etr_vf op_erf(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_erf(v);
}
static inline etr_vf op_log1p(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_log1p(v);
}
static inline etr_vf op_log2(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_log_base(v, 1.44269504088896340736);
}
static inline etr_vf op_log10(etr_vf v, const unary_consts_t *k) {
  (void)k;
  return vf_log_base(v, 0.43429448190325182765);
}
static inline etr_vf op_pow_scalar(etr_vf v, const unary_consts_t *k) {
  return vf_pow_const(v, k->exponent, k->exponent_integer, k->exponent_odd,
                      k->exponent_negative);
}
// x * log_base is rounded once in double (x has 24 bits).
static inline etr_vf op_exp_scaled(etr_vf v, const unary_consts_t *k) {
  return vf_exp_double(vd2_mul(vf_to_vd2(v), k->log_base));
}

// The lanes of x up to y's next vector boundary, through op_<name> as one
// partial vector, i set past them (where a loop of streaming stores
// starts).
#define ETR_UNARY_STREAM_HEAD(name)                                       \
  i = etr_stream_head(y, sizeof(etr_vf));                                 \
  if (i > 0) {                                                            \
    vf_store_n(y, op_##name(vf_load_n(x, i), &k), i);                     \
  }

#if defined(ETR_HAVE_VF_STREAM)
// An out that streams (common/stream.h): ETR_UNARY_STREAM_HEAD, then
// pairs of vectors written with streaming stores, in the loop itself
// (stream.h: not in bursts); the loops after it finish the tail.
#define ETR_UNARY_STREAM(name)                                            \
  if (etr_stream_out(n, 1)) {                                             \
    ETR_UNARY_STREAM_HEAD(name)                                           \
    for (; i + 2 * ETR_VF_LANES <= n; i += 2 * ETR_VF_LANES) {            \
      etr_stream_prefetch(x, i, n, 2 * ETR_VF_LANES);                     \
      etr_vf a = op_##name(vf_load(x + i), &k);                           \
      etr_vf b = op_##name(vf_load(x + i + ETR_VF_LANES), &k);            \
      vf_stream(y + i, a);                                                \
      vf_stream(y + i + ETR_VF_LANES, b);                                 \
    }                                                                     \
    vf_stream_fence();                                                    \
  }
#else
#define ETR_UNARY_STREAM(name)
#endif

// The vectors from i to n one at a time, the last one partial (masked or
// buffered by the primitives).
#define ETR_UNARY_TAIL(name)                                              \
  for (; i < n; i += ETR_VF_LANES) {                                      \
    size_t left = n - i;                                                  \
    if (left >= ETR_VF_LANES) {                                           \
      vf_store(y + i, op_##name(vf_load(x + i), &k));                     \
    } else {                                                              \
      vf_store_n(y + i, op_##name(vf_load_n(x + i, left), &k), left);     \
    }                                                                     \
  }

#define ETR_DEFINE_UNARY(name)                                            \
  static void unary_##name(size_t n, const float *x, float *y,            \
                           const etr_unary_params_t *params) {            \
    const unary_consts_t k = unary_consts(params);                        \
    size_t i = 0;                                                         \
    ETR_UNARY_STREAM(name)                                                \
    for (; i + 2 * ETR_VF_LANES <= n; i += 2 * ETR_VF_LANES) {            \
      etr_vf a = op_##name(vf_load(x + i), &k);                           \
      etr_vf b = op_##name(vf_load(x + i + ETR_VF_LANES), &k);            \
      vf_store(y + i, a);                                                 \
      vf_store(y + i + ETR_VF_LANES, b);                                  \
    }                                                                     \
    ETR_UNARY_TAIL(name)                                                  \
  }

// Pairs of vectors from x + i to y + i by `put` (vf_store or vf_stream;
// `stream`: prefetch x ahead) while i + 2 vectors fit, through
// op_fast_pair_<name>, which returns false, leaving the pair alone, when
// the pair needs the op's other paths; that pair takes op_<name>, one
// vector at a time, outside the inner loop. So the inner loop makes no
// call and GCC keeps what the fast path reads (a table's rows) in
// registers across it: with a call on the loop's path (op_<name>'s out
// of line paths for the rare lanes), it reloaded gelu's table rows from
// memory every iteration.
#define ETR_UNARY_SPLIT_LOOP(name, put, stream)                           \
  while (i + 2 * ETR_VF_LANES <= n) {                                     \
    for (; i + 2 * ETR_VF_LANES <= n; i += 2 * ETR_VF_LANES) {            \
      if ((stream) && i + ETR_STREAM_PREFETCH_FLOATS < n) {                \
        /* One line a step: every line ran gelu-DRAM 3% slower. */        \
        __builtin_prefetch(x + i + ETR_STREAM_PREFETCH_FLOATS, 0, 3);      \
      }                                                                   \
      etr_vf a = vf_load(x + i);                                          \
      etr_vf b = vf_load(x + i + ETR_VF_LANES);                           \
      if (!op_fast_pair_##name(&a, &b)) {                                 \
        break;                                                            \
      }                                                                   \
      put(y + i, a);                                                      \
      put(y + i + ETR_VF_LANES, b);                                       \
    }                                                                     \
    if (i + 2 * ETR_VF_LANES > n) {                                       \
      break;                                                              \
    }                                                                     \
    put(y + i, op_##name(vf_load(x + i), &k));                            \
    put(y + i + ETR_VF_LANES, op_##name(vf_load(x + i + ETR_VF_LANES), &k)); \
    i += 2 * ETR_VF_LANES;                                                \
  }

// As ETR_DEFINE_UNARY, through ETR_UNARY_SPLIT_LOOP.
#if defined(ETR_HAVE_VF_STREAM)
#define ETR_UNARY_SPLIT_STREAM(name)                                      \
  if (etr_stream_out(n, 1)) {                                             \
    ETR_UNARY_STREAM_HEAD(name)                                           \
    ETR_UNARY_SPLIT_LOOP(name, vf_stream, true)                           \
    vf_stream_fence();                                                    \
  }
#else
#define ETR_UNARY_SPLIT_STREAM(name)
#endif
#define ETR_DEFINE_UNARY_SPLIT(name)                                      \
  static void unary_##name(size_t n, const float *x, float *y,            \
                           const etr_unary_params_t *params) {            \
    const unary_consts_t k = unary_consts(params);                        \
    size_t i = 0;                                                         \
    ETR_UNARY_SPLIT_STREAM(name)                                          \
    ETR_UNARY_SPLIT_LOOP(name, vf_store, false)                           \
    ETR_UNARY_TAIL(name)                                                  \
  }

#if defined(ETR_HAVE_VM_ALL_BRANCH) && defined(ETR_HAVE_VF_STREAM)
// Four vectors from x + i through vf_<name>4 to y + i by `put`.
#define ETR_UNARY4_STEP(name, put)                                        \
  {                                                                       \
    etr_vf v[4];                                                          \
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; ++j) {                 \
      v[j] = vf_load(x + i + j * ETR_VF_LANES);                           \
    }                                                                     \
    vf_##name##4(v);                                                      \
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; ++j) {                 \
      put(y + i + j * ETR_VF_LANES, v[j]);                                \
    }                                                                     \
  }

// As ETR_DEFINE_UNARY, four vectors per step through vf_<name>4 (vmath.h:
// each step of the function across the four before the next).
#define ETR_DEFINE_UNARY4(name)                                           \
  static void unary_##name(size_t n, const float *x, float *y,            \
                           const etr_unary_params_t *params) {            \
    const unary_consts_t k = unary_consts(params);                        \
    size_t i = 0;                                                         \
    if (etr_stream_out(n, 1)) {                                           \
      ETR_UNARY_STREAM_HEAD(name)                                         \
      for (; i + 4 * ETR_VF_LANES <= n; i += 4 * ETR_VF_LANES) {          \
        etr_stream_prefetch(x, i, n, 4 * ETR_VF_LANES);                   \
        ETR_UNARY4_STEP(name, vf_stream)                                  \
      }                                                                   \
      vf_stream_fence();                                                  \
    }                                                                     \
    for (; i + 4 * ETR_VF_LANES <= n; i += 4 * ETR_VF_LANES) {            \
      ETR_UNARY4_STEP(name, vf_store)                                     \
    }                                                                     \
    ETR_UNARY_TAIL(name)                                                  \
  }
#else
#define ETR_DEFINE_UNARY4(name) ETR_DEFINE_UNARY(name)
#endif

ETR_DEFINE_UNARY(neg)
ETR_DEFINE_UNARY(abs)
ETR_DEFINE_UNARY(sqrt)
ETR_DEFINE_UNARY(rsqrt)
ETR_DEFINE_UNARY4(exp)
ETR_DEFINE_UNARY(log)
ETR_DEFINE_UNARY4(sigmoid)
ETR_DEFINE_UNARY(tanh)
ETR_DEFINE_UNARY_SPLIT(gelu_erf)
ETR_DEFINE_UNARY_SPLIT(gelu_tanh)
#if defined(ETR_HAVE_VF_LOOKUP32)
ETR_DEFINE_UNARY_SPLIT(gelu_erf_narrow)
ETR_DEFINE_UNARY_SPLIT(gelu_tanh_narrow)
#endif
ETR_DEFINE_UNARY(elu)
ETR_DEFINE_UNARY(leaky_relu)
ETR_DEFINE_UNARY(clamp)
ETR_DEFINE_UNARY(pow_0)
ETR_DEFINE_UNARY(pow_1)
ETR_DEFINE_UNARY(pow_2)
ETR_DEFINE_UNARY(pow_3)
ETR_DEFINE_UNARY(pow_minus_1)
ETR_DEFINE_UNARY(pow_minus_2)
ETR_DEFINE_UNARY(pow_half)
ETR_DEFINE_UNARY(pow_minus_half)
ETR_DEFINE_UNARY(ceil)
ETR_DEFINE_UNARY(floor)
ETR_DEFINE_UNARY(round)
ETR_DEFINE_UNARY(trunc)
ETR_DEFINE_UNARY(sign)
ETR_DEFINE_UNARY(expm1)
ETR_DEFINE_UNARY(log2)
ETR_DEFINE_UNARY(log10)
ETR_DEFINE_UNARY(log1p)
ETR_DEFINE_UNARY(sinh)
ETR_DEFINE_UNARY(cosh)
ETR_DEFINE_UNARY(asinh)
ETR_DEFINE_UNARY(acosh)
ETR_DEFINE_UNARY(atanh)
ETR_DEFINE_UNARY(erf)
ETR_DEFINE_UNARY_SPLIT(sin)
ETR_DEFINE_UNARY_SPLIT(cos)
ETR_DEFINE_UNARY_SPLIT(tan)
ETR_DEFINE_UNARY(asin)
ETR_DEFINE_UNARY(acos)
ETR_DEFINE_UNARY(atan)
ETR_DEFINE_UNARY(exp_scaled)
ETR_DEFINE_UNARY(pow_scalar)
#undef ETR_DEFINE_UNARY
#undef ETR_UNARY_STREAM

const etr_f32_unary_op_fn ETR_UNARY_TABLE[ETR_UNARY_NUM_OPS] = {
    [ETR_UNARY_NEG] = unary_neg,
    [ETR_UNARY_ABS] = unary_abs,
    [ETR_UNARY_SQRT] = unary_sqrt,
    [ETR_UNARY_RSQRT] = unary_rsqrt,
    [ETR_UNARY_EXP] = unary_exp,
    [ETR_UNARY_LOG] = unary_log,
    [ETR_UNARY_SIGMOID] = unary_sigmoid,
    [ETR_UNARY_TANH] = unary_tanh,
    [ETR_UNARY_GELU_ERF] = unary_gelu_erf,
    [ETR_UNARY_GELU_TANH] = unary_gelu_tanh,
    [ETR_UNARY_ELU] = unary_elu,
    [ETR_UNARY_LEAKY_RELU] = unary_leaky_relu,
    [ETR_UNARY_CLAMP] = unary_clamp,
    [ETR_UNARY_POW_0] = unary_pow_0,
    [ETR_UNARY_POW_1] = unary_pow_1,
    [ETR_UNARY_POW_2] = unary_pow_2,
    [ETR_UNARY_POW_3] = unary_pow_3,
    [ETR_UNARY_POW_MINUS_1] = unary_pow_minus_1,
    [ETR_UNARY_POW_MINUS_2] = unary_pow_minus_2,
    [ETR_UNARY_POW_HALF] = unary_pow_half,
    [ETR_UNARY_POW_MINUS_HALF] = unary_pow_minus_half,
    [ETR_UNARY_CEIL] = unary_ceil,
    [ETR_UNARY_FLOOR] = unary_floor,
    [ETR_UNARY_ROUND] = unary_round,
    [ETR_UNARY_TRUNC] = unary_trunc,
    [ETR_UNARY_SIGN] = unary_sign,
    [ETR_UNARY_EXPM1] = unary_expm1,
    [ETR_UNARY_LOG2] = unary_log2,
    [ETR_UNARY_LOG10] = unary_log10,
    [ETR_UNARY_LOG1P] = unary_log1p,
    [ETR_UNARY_SINH] = unary_sinh,
    [ETR_UNARY_COSH] = unary_cosh,
    [ETR_UNARY_ASINH] = unary_asinh,
    [ETR_UNARY_ACOSH] = unary_acosh,
    [ETR_UNARY_ATANH] = unary_atanh,
    [ETR_UNARY_ERF] = unary_erf,
    [ETR_UNARY_SIN] = unary_sin,
    [ETR_UNARY_COS] = unary_cos,
    [ETR_UNARY_TAN] = unary_tan,
    [ETR_UNARY_ASIN] = unary_asin,
    [ETR_UNARY_ACOS] = unary_acos,
    [ETR_UNARY_ATAN] = unary_atan,
    [ETR_UNARY_EXP_SCALED] = unary_exp_scaled,
    [ETR_UNARY_POW_SCALAR] = unary_pow_scalar,
};

#if defined(ETR_HAVE_VF_LOOKUP32) && defined(ETR_UNARY_NARROW_GELU)
// gelu none and gelu tanh on the narrow tables (unary.h).
const etr_f32_unary_op_fn ETR_UNARY_NARROW_GELU[2] = {
    unary_gelu_erf_narrow, unary_gelu_tanh_narrow};
#endif
