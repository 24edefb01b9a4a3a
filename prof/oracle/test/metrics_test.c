// SPDX-License-Identifier: Apache-2.0
//
// The oracle's metrics on hand-computed cases: ULP distances across zero
// and between dtypes' neighbours, NaN and infinity patterns, SQNR and
// cosine (identical, known noise, zeros), relative error, the 99th
// percentile, quantized steps, exact integers, the element bound's terms,
// the norm check, and dtype / shape mismatches never passing.
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "prof/oracle/metrics.h"
#include "prof/oracle/policy.h"

static etr_tensor_t f32(float *data, int64_t n) {
  etr_tensor_t t;
  int64_t sizes[1] = {n};
  cr_assert_eq(etr_tensor_init(&t, ETR_FLOAT, 1, sizes, data,
                               (size_t)n * sizeof(float), NULL),
               ETR_OK);
  return t;
}

static etr_oracle_tolerance_t exact_tolerance(void) {
  etr_oracle_tolerance_t t = {.exact = true, .k_factor = 1};
  return t;
}

static etr_oracle_metrics_t compare(const etr_tensor_t *c,
                                    const etr_tensor_t *r,
                                    const etr_oracle_tolerance_t *t) {
  etr_oracle_bound_t bound = {.tolerance = t, .steps = t->steps};
  etr_oracle_metrics_t m;
  cr_assert_eq(etr_oracle_compare(c, r, &bound, &m, NULL), ETR_OK);
  return m;
}

Test(ulp, across_zero_and_neighbours) {
  float neg_tiny = -FLT_TRUE_MIN, pos_tiny = FLT_TRUE_MIN;
  float neg_zero = -0.0f, pos_zero = 0.0f;
  cr_assert_eq(etr_oracle_ulp_distance(ETR_FLOAT, &neg_zero, &pos_zero), 0);
  cr_assert_eq(etr_oracle_ulp_distance(ETR_FLOAT, &neg_tiny, &pos_tiny), 2);
  cr_assert_eq(etr_oracle_ulp_distance(ETR_FLOAT, &neg_tiny, &pos_zero), 1);
  float one = 1.0f, next = nextafterf(1.0f, 2.0f), prev = nextafterf(1.0f, 0);
  cr_assert_eq(etr_oracle_ulp_distance(ETR_FLOAT, &one, &next), 1);
  cr_assert_eq(etr_oracle_ulp_distance(ETR_FLOAT, &prev, &next), 2);
  float minus_one = -1.0f;
  // 0x3F800000 on either side of zero: 2 * 0x3F800000 apart.
  cr_assert_eq(etr_oracle_ulp_distance(ETR_FLOAT, &minus_one, &one),
               2ull * 0x3F800000ull);
  float inf = INFINITY, max = FLT_MAX, nan = NAN;
  cr_assert_eq(etr_oracle_ulp_distance(ETR_FLOAT, &max, &inf), 1);
  cr_assert_eq(etr_oracle_ulp_distance(ETR_FLOAT, &nan, &one), UINT64_MAX);
  double d1 = 1.0, d2 = nextafter(1.0, 2.0), dm = -DBL_TRUE_MIN,
         dp = DBL_TRUE_MIN;
  cr_assert_eq(etr_oracle_ulp_distance(ETR_DOUBLE, &d1, &d2), 1);
  cr_assert_eq(etr_oracle_ulp_distance(ETR_DOUBLE, &dm, &dp), 2);
  double dmax = DBL_MAX, dmin = -DBL_MAX;
  cr_assert_eq(etr_oracle_ulp_distance(ETR_DOUBLE, &dmin, &dmax),
               2ull * 0x7FEFFFFFFFFFFFFFull);
  // Half: 1.0 = 0x3C00, next 0x3C01; -0 (0x8000) and the smallest
  // positive subnormal (0x0001) are 1 apart.
  uint16_t h1 = 0x3C00, h2 = 0x3C01, hz = 0x8000, hs = 0x0001;
  cr_assert_eq(etr_oracle_ulp_distance(ETR_HALF, &h1, &h2), 1);
  cr_assert_eq(etr_oracle_ulp_distance(ETR_HALF, &hz, &hs), 1);
  uint16_t b1 = 0x3F80, b2 = 0xBF80;  // bfloat16 1.0 and -1.0
  cr_assert_eq(etr_oracle_ulp_distance(ETR_BFLOAT16, &b1, &b2),
               2ull * 0x3F80);
  cr_assert_eq(etr_oracle_ulp_distance(ETR_LONG, &d1, &d1), UINT64_MAX);
}

Test(ulp, spacing) {
  cr_assert_eq(etr_oracle_ulp_of(ETR_FLOAT, 1.0), ldexp(1.0, -23));
  cr_assert_eq(etr_oracle_ulp_of(ETR_FLOAT, -1.0), ldexp(1.0, -23));
  cr_assert_eq(etr_oracle_ulp_of(ETR_FLOAT, 0.0), (double)FLT_TRUE_MIN);
  cr_assert_eq(etr_oracle_ulp_of(ETR_DOUBLE, 1.0), ldexp(1.0, -52));
  cr_assert_eq(etr_oracle_ulp_of(ETR_HALF, 1.0), ldexp(1.0, -10));
  cr_assert_eq(etr_oracle_ulp_of(ETR_BFLOAT16, 1.0), ldexp(1.0, -7));
  cr_assert_eq(etr_oracle_ulp_of(ETR_HALF, 65504.0), 32.0);  // largest
  cr_assert_eq(etr_oracle_epsilon(ETR_FLOAT), ldexp(1.0, -23));
  cr_assert_eq(etr_oracle_min_normal(ETR_HALF), ldexp(1.0, -14));
}

Test(metrics, identical_tensors) {
  float a[4] = {1.5f, -2.0f, 0.0f, 3.25f};
  float b[4];
  memcpy(b, a, sizeof(a));
  etr_tensor_t c = f32(a, 4), r = f32(b, 4);
  etr_oracle_tolerance_t t = exact_tolerance();
  etr_oracle_metrics_t m = compare(&c, &r, &t);
  cr_assert(m.compared && m.passed);
  cr_assert(isinf(m.sqnr_db) && m.sqnr_db > 0, "SQNR of identical is +inf");
  cr_assert_eq(m.cosine, 1.0);
  cr_assert_eq(m.max_ulp, 0);
  cr_assert_eq(m.max_abs_error, 0);
  cr_assert_eq(m.mismatches, 0);
  cr_assert_eq(m.relative_l2, 0);
}

Test(metrics, known_noise) {
  // r = [1, 1], c = [1.5, 0.5]: noise 0.5, signal 2: SQNR 10 log10(4).
  float cd[2] = {1.5f, 0.5f}, rd[2] = {1.0f, 1.0f};
  etr_tensor_t c = f32(cd, 2), r = f32(rd, 2);
  etr_oracle_tolerance_t t = {.rel_eps = 0, .abs_eps = 0, .k_factor = 1};
  etr_oracle_metrics_t m = compare(&c, &r, &t);
  cr_assert_float_eq(m.sqnr_db, 10.0 * log10(4.0), 1e-12);
  cr_assert_float_eq(m.max_abs_error, 0.5, 0);
  cr_assert_float_eq(m.max_rel_error, 0.5, 0);
  cr_assert_float_eq(m.cosine, 2.0 / (sqrt(2.5) * sqrt(2.0)), 1e-12);
  cr_assert_float_eq(m.relative_l2, 0.5, 1e-12);
  cr_assert_eq(m.mismatches, 2);
  cr_assert_float_eq(m.mismatch_fraction, 1.0, 0);
  cr_assert_not(m.passed);
  // 1.5 vs 1.0 is 2^22 float ULPs (half the binade above 1); 0.5 vs 1.0
  // a whole binade below, 2^23.
  cr_assert_eq(m.max_ulp, 1u << 23);
}

Test(metrics, cosine_with_zeros) {
  float zeros[3] = {0, 0, 0}, zeros2[3] = {0, 0, 0}, ones[3] = {1, 1, 1};
  etr_oracle_tolerance_t t = exact_tolerance();
  etr_tensor_t z = f32(zeros, 3), z2 = f32(zeros2, 3), o = f32(ones, 3);
  etr_oracle_metrics_t m = compare(&z, &z2, &t);
  cr_assert_eq(m.cosine, 1.0, "both all-zero: 1");
  cr_assert(isinf(m.sqnr_db) && m.sqnr_db > 0);
  m = compare(&o, &z, &t);
  cr_assert_eq(m.cosine, 0.0, "only one all-zero: 0");
  cr_assert(isinf(m.sqnr_db) && m.sqnr_db < 0, "reference zero: -inf dB");
  cr_assert(isnan(m.relative_l2));
  float a[2] = {1, 0}, b[2] = {0, 1}, n[2] = {-1, 0};
  etr_tensor_t ta = f32(a, 2), tb = f32(b, 2), tn = f32(n, 2);
  cr_assert_eq(compare(&ta, &tb, &t).cosine, 0.0, "orthogonal");
  cr_assert_eq(compare(&tn, &ta, &t).cosine, -1.0, "opposite");
}

Test(metrics, nan_and_inf_patterns) {
  float cd[6] = {NAN, NAN, 1.0f, INFINITY, INFINITY, -INFINITY};
  float rd[6] = {NAN, 1.0f, NAN, INFINITY, -INFINITY, 2.0f};
  etr_tensor_t c = f32(cd, 6), r = f32(rd, 6);
  etr_oracle_tolerance_t t = {.abs_eps = 1e9, .k_factor = 1};  // loose
  etr_oracle_metrics_t m = compare(&c, &r, &t);
  // NaN/NaN and +inf/+inf agree; NaN/1, 1/NaN are NaN mismatches;
  // +inf/-inf and -inf/2 are inf mismatches.
  cr_assert_eq(m.nan_mismatches, 2);
  cr_assert_eq(m.inf_mismatches, 2);
  cr_assert_eq(m.mismatches, 4);
  cr_assert_eq(m.finite_pairs, 0);
  cr_assert_not(m.passed);
  cr_assert_not(m.has_ulp);
  cr_assert(isnan(m.sqnr_db), "no finite pair: no SQNR");
}

Test(metrics, exact_class_accepts_signed_zero) {
  float cd[2] = {-0.0f, 1.0f}, rd[2] = {0.0f, 1.0f};
  etr_tensor_t c = f32(cd, 2), r = f32(rd, 2);
  etr_oracle_tolerance_t t = exact_tolerance();
  cr_assert(compare(&c, &r, &t).passed);
  cd[1] = nextafterf(1.0f, 2.0f);
  etr_oracle_metrics_t m = compare(&c, &r, &t);
  cr_assert_not(m.passed);
  cr_assert_eq(m.worst_index, 1);
  cr_assert_eq(m.max_ulp, 1);
}

Test(metrics, p99_ulp) {
  float cd[100], rd[100];
  for (int i = 0; i < 100; ++i) {
    rd[i] = 1.0f + (float)i;
    cd[i] = nextafterf(rd[i], INFINITY);  // 1 ULP each
  }
  // One outlier 1000 ULPs away: the maximum sees it, the 99th
  // percentile (the 99th smallest of 100) does not.
  uint32_t bits;
  memcpy(&bits, &rd[50], 4);
  bits += 1000;
  memcpy(&cd[50], &bits, 4);
  etr_tensor_t c = f32(cd, 100), r = f32(rd, 100);
  etr_oracle_tolerance_t t = {.ulp = 1, .k_factor = 1};
  etr_oracle_metrics_t m = compare(&c, &r, &t);
  cr_assert_eq(m.max_ulp, 1000);
  cr_assert_eq(m.p99_ulp, 1);
  cr_assert_eq(m.mismatches, 1);
  cr_assert_eq(m.worst_index, 50);
  t.max_mismatch_fraction = 0.01;
  cr_assert(compare(&c, &r, &t).passed, "1 of 100 allowed");
}

Test(metrics, element_bound_terms) {
  etr_oracle_tolerance_t t = {.abs_eps = 2, .rel_eps = 3, .ulp = 1,
                              .k_factor = 1};
  etr_oracle_bound_t bound = {.tolerance = &t};
  double eps = ldexp(1.0, -23);
  cr_assert_float_eq(etr_oracle_element_bound(&bound, ETR_FLOAT, 4.0, 0),
                     2 * eps + 3 * eps * 4.0 + 4 * eps, 1e-20);
  // K-aware: 2 gamma_K M with gamma_K = K u / (1 - K u), u = eps / 2.
  etr_oracle_tolerance_t k = {.k_aware = true, .k_factor = 1};
  double magnitude = 10.0;
  bound.tolerance = &k;
  bound.k = 100;
  bound.magnitude = &magnitude;
  double u = eps / 2;
  cr_assert_float_eq(etr_oracle_element_bound(&bound, ETR_FLOAT, 1.0, 10.0),
                     2 * (100 * u / (1 - 100 * u)) * 10.0, 1e-18);
  bound.flush_denormals = true;
  cr_assert_float_eq(etr_oracle_element_bound(&bound, ETR_FLOAT, 1.0, 10.0),
                     2 * (100 * u / (1 - 100 * u)) * 10.0 + FLT_MIN, 1e-18);
  etr_oracle_tolerance_t e = exact_tolerance();
  bound.tolerance = &e;
  cr_assert_eq(etr_oracle_element_bound(&bound, ETR_FLOAT, 1.0, 10.0), 0);
}

Test(metrics, flush_denormals) {
  float cd[1] = {0.0f}, rd[1] = {1e-40f};  // a float subnormal
  etr_tensor_t c = f32(cd, 1), r = f32(rd, 1);
  etr_oracle_tolerance_t t = {.ulp = 2, .k_factor = 1};
  etr_oracle_bound_t bound = {.tolerance = &t};
  etr_oracle_metrics_t m;
  cr_assert_eq(etr_oracle_compare(&c, &r, &bound, &m, NULL), ETR_OK);
  cr_assert_not(m.passed, "FTZ not allowed: the subnormal is far in ULPs");
  bound.flush_denormals = true;
  cr_assert_eq(etr_oracle_compare(&c, &r, &bound, &m, NULL), ETR_OK);
  cr_assert(m.passed);
}

Test(metrics, norm_check_catches_fp16_storage) {
  // A K-aware bound is a worst case: fp16-rounded outputs of a long dot
  // product hide under it, the relative L2 check does not let them.
  enum { N = 64 };
  float cd[N], rd[N];
  double magnitude[N];
  for (int i = 0; i < N; ++i) {
    rd[i] = sinf((float)i) * 0.3f;
    cd[i] = etr_half_to_float(etr_float_to_half(rd[i]));
    magnitude[i] = 40.0;  // sum of |terms| far above |r|
  }
  etr_tensor_t c = f32(cd, N), r = f32(rd, N);
  etr_oracle_tolerance_t t = {.k_aware = true, .k_factor = 1, .ulp = 1};
  etr_oracle_bound_t bound = {.tolerance = &t, .k = 2049,
                              .magnitude = magnitude};
  etr_oracle_metrics_t m;
  cr_assert_eq(etr_oracle_compare(&c, &r, &bound, &m, NULL), ETR_OK);
  cr_assert_eq(m.mismatches, 0, "every element within the worst case");
  cr_assert(m.passed);
  t.norm_eps = 16;
  cr_assert_eq(etr_oracle_compare(&c, &r, &bound, &m, NULL), ETR_OK);
  cr_assert(m.norm_failed);
  cr_assert_not(m.passed);
  cr_assert_float_eq(m.relative_l2_bound,
                     16 * ldexp(1.0, -23) * sqrt(2049.0), 1e-15);
}

Test(metrics, quantized_steps_and_exact_integers) {
  int8_t cd[4] = {10, -3, 127, 0}, rd[4] = {11, -3, 126, 0};
  int64_t sizes[1] = {4};
  etr_tensor_t c, r;
  cr_assert_eq(etr_tensor_init(&c, ETR_CHAR, 1, sizes, cd, 4, NULL), ETR_OK);
  cr_assert_eq(etr_tensor_init(&r, ETR_CHAR, 1, sizes, rd, 4, NULL), ETR_OK);
  etr_oracle_tolerance_t t = {.steps = 1, .k_factor = 1};
  etr_oracle_bound_t bound = {.tolerance = &t, .quantized = true,
                              .steps = 1};
  etr_oracle_metrics_t m;
  cr_assert_eq(etr_oracle_compare(&c, &r, &bound, &m, NULL), ETR_OK);
  cr_assert(m.quantized && m.passed);
  cr_assert_eq(m.max_steps, 1);
  bound.steps = 0;  // the local check of a quantize op
  cr_assert_eq(etr_oracle_compare(&c, &r, &bound, &m, NULL), ETR_OK);
  cr_assert_eq(m.mismatches, 2);
  cr_assert_not(m.passed);
  bound.quantized = false;  // plain integers: exact whatever the steps
  bound.steps = 5;
  cr_assert_eq(etr_oracle_compare(&c, &r, &bound, &m, NULL), ETR_OK);
  cr_assert_eq(m.mismatches, 2);
}

Test(metrics, dtype_and_shape_mismatch_never_pass) {
  float a[4] = {1, 2, 3, 4};
  double d[4] = {1, 2, 3, 4};
  int64_t sizes[1] = {4};
  etr_tensor_t fa = f32(a, 4), da;
  cr_assert_eq(etr_tensor_init(&da, ETR_DOUBLE, 1, sizes, d, sizeof(d), NULL),
               ETR_OK);
  etr_oracle_tolerance_t t = {.abs_eps = 1e30, .k_factor = 1};
  etr_oracle_metrics_t m = compare(&fa, &da, &t);
  cr_assert_not(m.compared);
  cr_assert_not(m.dtype_match);
  cr_assert_not(m.passed);
  etr_tensor_t two;
  int64_t shape2[2] = {2, 2};
  cr_assert_eq(etr_tensor_init(&two, ETR_FLOAT, 2, shape2, a, sizeof(a), NULL),
               ETR_OK);
  m = compare(&two, &fa, &t);
  cr_assert_not(m.compared);
  cr_assert(m.dtype_match);
  cr_assert_not(m.shape_match);
  cr_assert_not(m.passed);
}

Test(metrics, strided_candidate) {
  // A channels-last candidate against a contiguous reference: compared by
  // logical index.
  float r[6] = {0, 1, 2, 3, 4, 5};  // [1, 2, 3] contiguous
  float c[6] = {0, 3, 1, 4, 2, 5};  // the same values, transposed layout
  int64_t sizes[2] = {2, 3};
  etr_tensor_t rt, ct;
  cr_assert_eq(etr_tensor_init(&rt, ETR_FLOAT, 2, sizes, r, sizeof(r), NULL),
               ETR_OK);
  uint8_t order[2] = {1, 0};
  cr_assert_eq(etr_tensor_init_with_dim_order(&ct, ETR_FLOAT, 2, sizes, order,
                                              c, sizeof(c), NULL),
               ETR_OK);
  etr_oracle_tolerance_t t = exact_tolerance();
  cr_assert(compare(&ct, &rt, &t).passed);
}
