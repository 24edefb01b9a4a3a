// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the GEMM family (mm, addmm, bmm, linear) against
// the reference kernels, on every ISA of this machine (diff.h).
//
// Sizes sweep the tile edges of every microkernel (scalar 4 x 8, AVX2
// 6 x 16, AVX-512 12 x 32, 8 x 32 and 8 x 48, NEON 8 x 12; 8 x 48 takes
// the 8-row products whose N pads at most 5% more in 48-column panels,
// e.g. N = 33, 47-49, 65, 95-97): M, N and K at 0, 1, tile - 1,
// tile, tile + 1, multiples and larger, K past the stack blocking's K block
// (the harness gives kernels no scratch arena, so these runs use the
// smallest blocking: one micro-panel per block, several K blocks); the
// arena tests at the end run the large blockings with 1 MiB, 96 KiB and
// 20 KiB arenas.
//
// Tolerances per op class:
//   exact     ETR_FILL_EXACT_INT data: every fp32 partial sum is exact, so
//             results must match bit for bit whatever the order;
//   bound     random floats in [-1, 1): |alpha| * gamma_k bound
//             (etr_diff_accumulation_bound(Float, k, 1, 1)) plus 2 units
//             of the out dtype's roundoff relative (the reference rounds a
//             double once; Half/BFloat16 round an fp32 sum once);
//   special   NaN, +-inf, -0.0, denormals with K = 1 (one product: exact);
//             larger K would compare overflow orders, not kernels.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/gemm/gemm.h"
#include "ops_optimized/gemm/gemm_ops.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

static uint64_t g_seed = 1000;

static double unit_roundoff(etr_scalar_type_t dtype) {
  return dtype == ETR_HALF ? 0x1p-11 : dtype == ETR_BFLOAT16 ? 0x1p-8
                                                             : 0x1p-24;
}

static void gemm_tolerance(etr_diff_case_t *c, etr_scalar_type_t dtype,
                           int64_t k, double alpha, double beta) {
  double bound =
      fabs(alpha) * etr_diff_accumulation_bound(ETR_FLOAT, k, 1.0, 1.0);
  double atol = bound + fabs(beta) * 0x1p-24 + 0x1p-24;
  etr_diff_tolerance_bound(c, atol, 2.0 * unit_roundoff(dtype));
}

// A [rows, cols] view of a freshly filled [cols, rows] tensor (unit stride
// down the columns: the transposed fast paths of the packers).
static etr_tensor_t *transposed_input(etr_diff_case_t *c,
                                      etr_scalar_type_t dtype, int64_t rows,
                                      int64_t cols, etr_diff_fill_t fill) {
  etr_diff_case_t host;
  etr_diff_begin(&host, c->op, etr_diff_next(c), "host");
  etr_tensor_t *stored = etr_diff_input(&host, dtype, 2,
                                        (const int64_t[]){cols, rows},
                                        ETR_DIFF_CONTIGUOUS, fill);
  etr_tensor_t *view = tt_alloc(sizeof(etr_tensor_t));
  *view = *stored;
  view->sizes[0] = rows;
  view->sizes[1] = cols;
  view->strides[0] = 1;
  view->strides[1] = rows;
  view->dim_order[0] = 1;
  view->dim_order[1] = 0;
  etr_diff_arg(c, tt_ev_tensor(view));
  c->dtype = dtype;
  return view;
}

// layout: 0 contiguous, 1 strided (generic packing), 2 transposed views.
static void add_matrix(etr_diff_case_t *c, etr_scalar_type_t dtype,
                       int64_t rows, int64_t cols, int layout,
                       etr_diff_fill_t fill) {
  if (layout == 2) {
    transposed_input(c, dtype, rows, cols, fill);
  } else {
    etr_diff_input(c, dtype, 2, (const int64_t[]){rows, cols},
                   layout == 1 ? ETR_DIFF_NONCONTIGUOUS : ETR_DIFF_CONTIGUOUS,
                   fill);
  }
}

static int run_mm(etr_scalar_type_t dtype, int64_t m, int64_t n, int64_t k,
                  int layout, etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::mm.out", g_seed++, "m=%lld n=%lld k=%lld l%d f%d",
                 (long long)m, (long long)n, (long long)k, layout, (int)fill);
  add_matrix(&c, dtype, m, k, layout, fill);
  add_matrix(&c, dtype, k, n, layout, fill);
  etr_diff_out(&c, dtype, 2, (const int64_t[]){m, n}, ETR_DIFF_CONTIGUOUS, 8);
  etr_diff_return(&c, 2);
  if (fill == ETR_FILL_RANDOM) {
    gemm_tolerance(&c, dtype, k, 1.0, 0.0);
  } else {
    etr_diff_tolerance_exact(&c);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_gemm, mm_tile_edges_exact) {
  static const int64_t ms[] = {0,  1,  3,  4,  5,  6,  7,  8,
                               9,  11, 12, 13, 24, 25, 43};
  static const int64_t ns[] = {0,  1,  7,  8,  9,  11, 12, 13, 15, 16,
                               17, 31, 32, 33, 47, 48, 49, 65, 95, 97};
  static const int64_t ks[] = {0, 1, 3, 8, 17, 66, 67, 257};
  int failures = 0;
  for (size_t a = 0; a < sizeof(ms) / sizeof(ms[0]); ++a) {
    for (size_t b = 0; b < sizeof(ns) / sizeof(ns[0]); ++b) {
      for (size_t d = 0; d < sizeof(ks) / sizeof(ks[0]); ++d) {
        failures += run_mm(ETR_FLOAT, ms[a], ns[b], ks[d], 0,
                           ETR_FILL_EXACT_INT);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d mm cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_gemm, mm_layouts_dtypes_and_values) {
  static const etr_scalar_type_t dtypes[] = {ETR_FLOAT, ETR_HALF,
                                             ETR_BFLOAT16};
  static const int64_t shapes[][3] = {{1, 1, 1},    {5, 17, 9},
                                      {14, 32, 64}, {15, 33, 67},
                                      {29, 65, 3},  {43, 100, 130},
                                      {100, 37, 300}, {3, 200, 70}};
  int failures = 0;
  for (size_t d = 0; d < 3; ++d) {
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
      for (int layout = 0; layout < 3; ++layout) {
        for (int fill = 0; fill < 2; ++fill) {
          failures += run_mm(dtypes[d], shapes[s][0], shapes[s][1],
                             shapes[s][2], layout,
                             fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM);
        }
      }
    }
    // Special values through one product (exact).
    failures += run_mm(dtypes[d], 17, 35, 1, 0, ETR_FILL_SPECIAL);
    failures += run_mm(dtypes[d], 3, 9, 1, 2, ETR_FILL_SPECIAL);
  }
  // Dtypes the kernel does not specialize fall back and agree.
  failures += run_mm(ETR_DOUBLE, 7, 9, 5, 0, ETR_FILL_RANDOM);
  failures += run_mm(ETR_INT, 7, 9, 5, 1, ETR_FILL_RANDOM);
  cr_assert_eq(failures, 0, "%d mm cases disagree", failures);
}

// addmm with bias shape `bias` (rank bias_dim), alpha and beta.
static int run_addmm(etr_scalar_type_t dtype, int64_t m, int64_t n,
                     int64_t k, int32_t bias_dim, const int64_t *bias,
                     etr_evalue_t *beta, double beta_value,
                     etr_evalue_t *alpha, double alpha_value, int layout,
                     etr_diff_fill_t fill, etr_diff_fill_t bias_fill,
                     bool in_place) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::addmm.out", g_seed++,
                 "m=%lld n=%lld k=%lld bias rank %d alpha %g beta %g l%d f%d%s",
                 (long long)m, (long long)n, (long long)k, (int)bias_dim,
                 alpha_value, beta_value, layout, (int)fill,
                 in_place ? " in place" : "");
  etr_diff_input(&c, dtype, bias_dim, bias, ETR_DIFF_CONTIGUOUS, bias_fill);
  add_matrix(&c, dtype, m, k, layout, fill);
  add_matrix(&c, dtype, k, n, layout, fill);
  etr_diff_arg(&c, beta);
  etr_diff_arg(&c, alpha);
  if (in_place) {
    etr_diff_out_aliasing(&c, 0);
  } else {
    etr_diff_out(&c, dtype, 2, (const int64_t[]){m, n}, ETR_DIFF_CONTIGUOUS,
                 0);
  }
  etr_diff_return(&c, 5);
  if (fill == ETR_FILL_RANDOM) {
    gemm_tolerance(&c, dtype, k, alpha_value, beta_value);
  } else {
    etr_diff_tolerance_exact(&c);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_gemm, addmm_bias_patterns_alpha_beta) {
  static const etr_scalar_type_t dtypes[] = {ETR_FLOAT, ETR_HALF,
                                             ETR_BFLOAT16};
  static const int64_t shapes[][3] = {{15, 33, 67}, {3, 1, 7},
                                      {0, 5, 3},    {29, 31, 5},
                                      {1, 10, 128}, {16, 64, 64},
                                      {4, 6, 0},    {61, 130, 90}};
  int failures = 0;
  for (size_t d = 0; d < 3; ++d) {
    // Half and BFloat16 share the Float path after packing: fewer shapes.
    size_t shape_count = dtypes[d] == ETR_FLOAT
                             ? sizeof(shapes) / sizeof(shapes[0])
                             : 4;
    for (size_t s = 0; s < shape_count; ++s) {
      int64_t m = shapes[s][0];
      int64_t n = shapes[s][1];
      int64_t k = shapes[s][2];
      const int64_t row[1] = {n};
      const int64_t column[2] = {m, 1};
      const int64_t full[2] = {m, n};
      const int64_t one_row[2] = {1, n};
      const int64_t single[1] = {1};
      struct {
        int32_t dim;
        const int64_t *sizes;
      } biases[] = {{1, row},     {2, column}, {2, full},
                    {2, one_row}, {1, single}, {0, NULL}};
      for (size_t b = 0; b < 6; ++b) {
        for (int fill = 0; fill < 2; ++fill) {
          etr_diff_fill_t data = fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
          failures += run_addmm(dtypes[d], m, n, k, biases[b].dim,
                                biases[b].sizes, tt_ev_int(1), 1,
                                tt_ev_int(1), 1, (int)(b % 3), data, data,
                                false);
          failures += run_addmm(dtypes[d], m, n, k, biases[b].dim,
                                biases[b].sizes, tt_ev_int(3), 3,
                                tt_ev_double(-2.0), -2, 0, data, data,
                                false);
          failures += run_addmm(dtypes[d], m, n, k, biases[b].dim,
                                biases[b].sizes, tt_ev_double(0.5), 0.5,
                                tt_ev_double(0.25), 0.25, 1, data, data,
                                false);
        }
        // beta == 0: NaN in the bias must not propagate; alpha == 0 keeps
        // a special bias as is; special products (one each: exact).
        failures += run_addmm(dtypes[d], m, n, k, biases[b].dim,
                              biases[b].sizes, tt_ev_int(0), 0,
                              tt_ev_int(1), 1, 0, ETR_FILL_EXACT_INT,
                              ETR_FILL_SPECIAL, false);
        failures += run_addmm(dtypes[d], m, n, k, biases[b].dim,
                              biases[b].sizes, tt_ev_int(1), 1,
                              tt_ev_int(0), 0, 0, ETR_FILL_EXACT_INT,
                              ETR_FILL_SPECIAL, false);
        failures += run_addmm(dtypes[d], m, n, 1, biases[b].dim,
                              biases[b].sizes, tt_ev_int(0), 0,
                              tt_ev_int(1), 1, (int)(b % 3),
                              ETR_FILL_SPECIAL, ETR_FILL_SPECIAL, false);
      }
      // In place: out is self (falls back), then a full bias.
      failures += run_addmm(dtypes[d], m, n, k, 2, full, tt_ev_int(1), 1,
                            tt_ev_int(1), 1, 0, ETR_FILL_EXACT_INT,
                            ETR_FILL_EXACT_INT, true);
    }
  }
  failures += run_addmm(ETR_DOUBLE, 5, 7, 3, 1, (const int64_t[]){7},
                        tt_ev_int(1), 1, tt_ev_int(1), 1, 0, ETR_FILL_RANDOM,
                        ETR_FILL_RANDOM, false);
  cr_assert_eq(failures, 0, "%d addmm cases disagree", failures);
}

// One row times a narrow dense B (M = 1, N < 16, B's rows end to end):
// the AVX-512 flat GEMV (gemm/gemv_narrow_avx512.c), whose period is
// R = 16 / gcd(N, 16) rows of K in N / gcd(N, 16) vectors, unrolled to
// four FMA chains (64 rows for N = 1, 32 for N = 3, 2 for N = 8...).
// K sweeps 0, 1, the periods' edges, the unrolled blocks' edges and a
// classifier's 2048; N runs past 16 into the row-per-step GEMV (AVX2's
// takes every N: one or two vectors of 16 columns, K in four chains). With
// `plant`, a NaN sits in B at row k - 1 - R (inside the flat loop when K
// allows) and A[0] is +inf: NaN or +-inf columns, NaN where B's row 0
// holds 0.
static int run_addmm_gemv(int64_t n, int64_t k, int bias_form,
                          double alpha, double beta, etr_diff_fill_t fill,
                          bool plant) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::addmm.out", g_seed++,
                 "gemv n=%lld k=%lld bias %d alpha %g beta %g f%d%s",
                 (long long)n, (long long)k, bias_form, alpha, beta,
                 (int)fill, plant ? " planted NaN/inf" : "");
  const int64_t row[1] = {n};
  const int64_t full[2] = {1, n};
  const int64_t single[1] = {1};
  if (bias_form == 0) {
    etr_diff_input(&c, ETR_FLOAT, 1, row, ETR_DIFF_CONTIGUOUS, fill);
  } else if (bias_form == 1) {
    etr_diff_input(&c, ETR_FLOAT, 2, full, ETR_DIFF_CONTIGUOUS, fill);
  } else if (bias_form == 2) {
    etr_diff_input(&c, ETR_FLOAT, 1, single, ETR_DIFF_CONTIGUOUS, fill);
  } else {
    etr_diff_input(&c, ETR_FLOAT, 0, NULL, ETR_DIFF_CONTIGUOUS, fill);
  }
  etr_tensor_t *a = etr_diff_input(&c, ETR_FLOAT, 2, (const int64_t[]){1, k},
                                   ETR_DIFF_CONTIGUOUS, fill);
  etr_tensor_t *b = etr_diff_input(&c, ETR_FLOAT, 2, (const int64_t[]){k, n},
                                   ETR_DIFF_CONTIGUOUS, fill);
  if (plant && k > 0) {
    int64_t group = n & 1 ? 1 : n & 3 ? 2 : n & 7 ? 4 : n & 15 ? 8 : 16;
    int64_t nan_row = k - 1 - 16 / group;
    ((float *)b->data)[(nan_row > 0 ? nan_row : k - 1) * n + (n - 1) / 2] =
        NAN;
    ((float *)a->data)[0] = INFINITY;
  }
  etr_diff_arg(&c, beta == 1.0 ? tt_ev_int(1) : tt_ev_double(beta));
  etr_diff_arg(&c, alpha == 1.0 ? tt_ev_int(1) : tt_ev_double(alpha));
  etr_diff_out(&c, ETR_FLOAT, 2, (const int64_t[]){1, n}, ETR_DIFF_CONTIGUOUS,
               0);
  etr_diff_return(&c, 5);
  if (fill == ETR_FILL_RANDOM) {
    gemm_tolerance(&c, ETR_FLOAT, k, alpha, beta);
  } else {
    etr_diff_tolerance_exact(&c);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_gemm, addmm_narrow_gemv) {
  static const int64_t ks[] = {0,  1,  2,  3,  7,  8,  9,  15, 16,  17,
                               31, 32, 33, 63, 64, 65, 66, 67, 257, 2048};
  int failures = 0;
  for (int64_t n = 1; n <= 33; ++n) {
    for (size_t d = 0; d < sizeof(ks) / sizeof(ks[0]); ++d) {
      failures += run_addmm_gemv(n, ks[d], (int)(d % 4), 1.0, 1.0,
                                 ETR_FILL_EXACT_INT, false);
      failures += run_addmm_gemv(n, ks[d], 0, 1.0, 1.0, ETR_FILL_RANDOM,
                                 false);
      failures += run_addmm_gemv(n, ks[d], (int)((d + 1) % 4), 1.0, 1.0,
                                 ETR_FILL_EXACT_INT, true);
    }
    // alpha and beta on each bias form; beta == 0 leaves the bias unread.
    for (int form = 0; form < 4; ++form) {
      failures += run_addmm_gemv(n, 67, form, -2.0, 3.0, ETR_FILL_EXACT_INT,
                                 false);
      failures += run_addmm_gemv(n, 130, form, 0.25, 0.5, ETR_FILL_RANDOM,
                                 false);
      failures += run_addmm_gemv(n, 64, form, 1.0, 0.0, ETR_FILL_EXACT_INT,
                                 false);
    }
  }
  cr_assert_eq(failures, 0, "%d narrow gemv cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

static int run_bmm(etr_scalar_type_t dtype, int64_t batch, int64_t m,
                   int64_t n, int64_t k, etr_diff_layout_t layout,
                   etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::bmm.out", g_seed++,
                 "b=%lld m=%lld n=%lld k=%lld l%d f%d", (long long)batch,
                 (long long)m, (long long)n, (long long)k, (int)layout,
                 (int)fill);
  etr_diff_input(&c, dtype, 3, (const int64_t[]){batch, m, k}, layout, fill);
  etr_diff_input(&c, dtype, 3, (const int64_t[]){batch, k, n}, layout, fill);
  etr_diff_out(&c, dtype, 3, (const int64_t[]){batch, m, n},
               ETR_DIFF_CONTIGUOUS, 0);
  etr_diff_return(&c, 2);
  if (fill == ETR_FILL_RANDOM) {
    gemm_tolerance(&c, dtype, k, 1.0, 0.0);
  } else {
    etr_diff_tolerance_exact(&c);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_gemm, bmm) {
  static const etr_scalar_type_t dtypes[] = {ETR_FLOAT, ETR_HALF,
                                             ETR_BFLOAT16};
  static const int64_t shapes[][4] = {{4, 16, 16, 16}, {0, 3, 4, 5},
                                      {3, 0, 4, 5},    {2, 15, 33, 0},
                                      {3, 1, 1, 1},    {2, 29, 17, 67},
                                      {5, 7, 65, 9},
                                      // B at most 16 wide (the small
                                      // products' kernel on AVX-512):
                                      // 8, 4, 2 and 1-row groups, k 0
                                      // to 128.
                                      {2, 15, 16, 64}, {3, 13, 15, 7},
                                      {1, 17, 1, 128}, {2, 6, 5, 0},
                                      {2, 24, 9, 33}};
  int failures = 0;
  for (size_t d = 0; d < 3; ++d) {
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
      for (int layout = 0; layout < 2; ++layout) {
        for (int fill = 0; fill < 2; ++fill) {
          failures += run_bmm(dtypes[d], shapes[s][0], shapes[s][1],
                              shapes[s][2], shapes[s][3],
                              (etr_diff_layout_t)layout,
                              fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM);
        }
      }
    }
  }
  failures += run_bmm(ETR_FLOAT, 3, 5, 6, 1, ETR_DIFF_CONTIGUOUS,
                      ETR_FILL_SPECIAL);
  failures += run_bmm(ETR_LONG, 2, 5, 6, 3, ETR_DIFF_CONTIGUOUS,
                      ETR_FILL_RANDOM);
  cr_assert_eq(failures, 0, "%d bmm cases disagree", failures);
}

static int run_linear(etr_scalar_type_t dtype, int32_t dim,
                      const int64_t *input, int64_t features, int bias_kind,
                      etr_diff_layout_t layout, etr_diff_fill_t fill) {
  etr_diff_case_t c;
  int64_t in_features = input[dim - 1];
  etr_diff_begin(&c, "aten::linear.out", g_seed++,
                 "rank %d in %lld out %lld bias %d l%d f%d", (int)dim,
                 (long long)in_features, (long long)features, bias_kind,
                 (int)layout, (int)fill);
  etr_diff_input(&c, dtype, dim, input, layout, fill);
  etr_diff_input(&c, dtype, 2, (const int64_t[]){features, in_features},
                 layout, fill);
  if (bias_kind == 0) {
    etr_diff_arg(&c, tt_ev_none());
  } else {
    etr_diff_input(&c, dtype, 1,
                   (const int64_t[]){bias_kind == 1 ? features : 1},
                   ETR_DIFF_CONTIGUOUS, fill);
  }
  c.layout = layout;  // the input's, for the coverage records
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t d = 0; d + 1 < dim; ++d) {
    sizes[d] = input[d];
  }
  sizes[dim - 1] = features;
  etr_diff_out(&c, dtype, dim, sizes, ETR_DIFF_CONTIGUOUS, 0);
  etr_diff_return(&c, 3);
  if (fill == ETR_FILL_RANDOM) {
    gemm_tolerance(&c, dtype, in_features, 1.0, 1.0);
  } else {
    etr_diff_tolerance_exact(&c);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_gemm, linear) {
  static const etr_scalar_type_t dtypes[] = {ETR_FLOAT, ETR_HALF,
                                             ETR_BFLOAT16};
  int failures = 0;
  for (size_t d = 0; d < 3; ++d) {
    for (int bias = 0; bias < 3; ++bias) {
      for (int layout = 0; layout < 2; ++layout) {
        for (int fill = 0; fill < 2; ++fill) {
          etr_diff_fill_t data = fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
          etr_diff_layout_t l = (etr_diff_layout_t)layout;
          failures += run_linear(dtypes[d], 1, (const int64_t[]){37}, 15,
                                 bias, l, data);
          failures += run_linear(dtypes[d], 2, (const int64_t[]){16, 64}, 64,
                                 bias, l, data);
          failures += run_linear(dtypes[d], 3, (const int64_t[]){2, 15, 33},
                                 29, bias, l, data);
          failures += run_linear(dtypes[d], 2, (const int64_t[]){0, 8}, 5,
                                 bias, l, data);
          failures += run_linear(dtypes[d], 2, (const int64_t[]){3, 0}, 5,
                                 bias, l, data);
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d linear cases disagree", failures);
}

// Runs `optimized` with a scratch arena of `arena_bytes` on `args` (out at
// out_index, poisoned first) and expects `expected` bit for bit.
static void expect_same_with_arena(etr_kernel_fn optimized,
                                   etr_evalue_t **args, size_t num_args,
                                   size_t out_index,
                                   const etr_tensor_t *expected,
                                   size_t arena_bytes, const char *label) {
  void *buffer = tt_alloc(arena_bytes + 64);
  etr_arena_t arena;
  etr_arena_init(&arena, buffer, arena_bytes);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag, .temp = &arena};
  etr_tensor_t *actual = args[out_index]->u.as_tensor;
  memset(actual->data, 0x5a, actual->capacity_bytes);
  uint64_t fallbacks = etr_opt_fallback_calls;
  cr_assert_eq(optimized(&ctx, args, num_args), ETR_OK, "%s", label);
  cr_assert_eq(etr_opt_fallback_calls, fallbacks, "%s fell back", label);
  cr_assert(etr_tensor_same_shape(expected, actual), "%s", label);
  cr_assert_eq(memcmp(expected->data, actual->data,
                      etr_tensor_nbytes(expected)),
               0, "%s: results differ with a %zu-byte arena", label,
               arena_bytes);
}

TT_TEST(diff_gemm, mm_with_arena_blockings) {
  // M x N x K; 700 x 260 x 70 packs A in two row blocks (1 MiB arena),
  // 40 x 520 x 300 reads A in place, all of M one block, over several
  // column and K blocks. With A packed and B's rows not a multiple of
  // 4 KiB apart, the first row panel packs B as it multiplies and the
  // others read those panels (gemm.c): 64 x 600 and 64 x 259 (8 x 48, the
  // last panel 24 and 19 columns wide), 96 x 300 and 48 x 272 (12 x 32,
  // last panels of 12 and 16), 700 x 260, 64 x 256 (rows 1 KiB apart);
  // 64 x 1024 has rows 4 KiB apart and packs B on its own. With one
  // column block and A packed (N = 256, or strided and transposed A of
  // layouts 1 and 2 at N <= 256), A is packed a panel at a time: 64 x
  // 256, 150 x 256 x 600 (a last panel of 6 rows, two K blocks). More
  // rows than one block and a B too large to stay packed read A in place,
  // all of M one block, so B is packed once: 330 x 1000 x 260 (8 x 48, M
  // past 320, two K blocks, five column blocks; AVX2's 6 x 16 too) and
  // 680 x 352 x 260 (12 x 32, M past 672).
  static const int64_t shapes[][3] = {
      {100, 40, 300}, {64, 600, 40},  {1, 777, 300},  {28, 513, 260},
      {337, 33, 257}, {700, 260, 70}, {40, 520, 300}, {96, 300, 50},
      {48, 272, 33},  {64, 259, 20},  {64, 256, 30},  {64, 1024, 20},
      {330, 1000, 260}, {680, 352, 260}, {150, 256, 600}};
  static const size_t arenas[] = {1 << 20, 96 << 10, 20 << 10, 64};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    for (int layout = 0; layout < 3; ++layout) {
      int64_t m = shapes[s][0];
      int64_t n = shapes[s][1];
      int64_t k = shapes[s][2];
      etr_diff_case_t host;
      etr_diff_begin(&host, "aten::mm.out", g_seed++, "host");
      add_matrix(&host, ETR_FLOAT, m, k, layout, ETR_FILL_EXACT_INT);
      add_matrix(&host, ETR_FLOAT, k, n, layout, ETR_FILL_EXACT_INT);
      etr_tensor_t *expected = tt_out(ETR_FLOAT, 2, (const int64_t[]){m, n},
                                      m * n);
      etr_tensor_t *actual = tt_out(ETR_FLOAT, 2, (const int64_t[]){m, n},
                                    m * n);
      etr_evalue_t *ref_args[4] = {host.args[0], host.args[1],
                                   tt_ev_tensor(expected), NULL};
      etr_evalue_t *opt_args[4] = {host.args[0], host.args[1],
                                   tt_ev_tensor(actual), NULL};
      ref_args[3] = ref_args[2];
      opt_args[3] = opt_args[2];
      etr_diag_t diag;
      etr_diag_reset(&diag);
      etr_kernel_context_t ctx = {.diag = &diag};
      cr_assert_eq(etr_ref_mm_out(&ctx, ref_args, 4), ETR_OK);
      for (size_t a = 0; a < sizeof(arenas) / sizeof(arenas[0]); ++a) {
        for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
          if (!etr_isa_available((etr_isa_t)isa)) {
            continue;
          }
          etr_isa_force((etr_isa_t)isa);
          char label[128];
          snprintf(label, sizeof(label), "mm %lldx%lldx%lld layout %d %s",
                   (long long)m, (long long)n, (long long)k, layout,
                   etr_isa_name((etr_isa_t)isa));
          expect_same_with_arena(etr_opt_mm_out, opt_args, 4, 2, expected,
                                 arenas[a], label);
        }
        etr_isa_reset();
      }
    }
  }
}

// Runs `optimized` with `state` as its kernel state and a fresh 1 MiB
// scratch arena at `temp_buffer`, out poisoned first.
static void run_with_state(etr_kernel_fn optimized, etr_evalue_t **args,
                           size_t num_args, etr_tensor_t *out,
                           const void *state, void *temp_buffer,
                           const char *label) {
  etr_arena_t temp;
  etr_arena_init(&temp, temp_buffer, 1 << 20);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag, .temp = &temp, .state = state};
  memset(out->data, 0x5a, out->capacity_bytes);
  cr_assert_eq(optimized(&ctx, args, num_args), ETR_OK, "%s: %s", label,
               diag.message);
}

// A call with `packed` as its state: the reference's bits (`expected`)
// under every ISA, the one packed for (`isa`) and the others (whose
// microkernels ignore the panels); then, with the panels zeroed, a
// different out under `isa`, so the call read them.
static void expect_packed_b_read(etr_kernel_fn optimized,
                                 etr_evalue_t **args, size_t num_args,
                                 const etr_tensor_t *expected,
                                 etr_tensor_t *actual,
                                 const etr_gemm_packed_b_t *packed,
                                 etr_isa_t isa, void *temp_buffer,
                                 const char *label) {
  for (int run = 0; run < ETR_NUM_ISAS; ++run) {
    if (!etr_isa_available((etr_isa_t)run)) {
      continue;
    }
    etr_isa_force((etr_isa_t)run);
    run_with_state(optimized, args, num_args, actual, packed, temp_buffer,
                   label);
    cr_assert_eq(memcmp(expected->data, actual->data,
                        etr_tensor_nbytes(expected)),
                 0, "%s, run under %s: results differ", label,
                 etr_isa_name((etr_isa_t)run));
  }
  etr_isa_force(isa);
  memset((float *)packed->panels, 0, packed->k * packed->n * sizeof(float));
  run_with_state(optimized, args, num_args, actual, packed, temp_buffer,
                 label);
  cr_expect_neq(memcmp(expected->data, actual->data,
                       etr_tensor_nbytes(expected)),
                0, "%s: zeroed packed panels changed nothing", label);
}

// mm and addmm with mat2 packed at load (etr_opt_matmul_prepack, bound as
// ctx->state the way fuse/prepack.c binds it): the reference's bits under
// every ISA, and also under another ISA than the one packed for (whose
// microkernel ignores the panels); zeroed panels change the out, so the
// packed panels are what the call read; products that read B in place
// (M <= 24 with AVX-512's kernels, M <= 12 with AVX2's) get none. Shapes:
// two K blocks with 8 x 48 (64 x 600 x 300), 12 x 32 with B resident
// otherwise (700 x 260 x 70), A read in place over five column blocks
// (330 x 1000 x 260), a one-column-panel B (100 x 40 x 33).
TT_TEST(diff_gemm, mm_with_b_packed_at_load) {
  static const int64_t shapes[][3] = {
      {64, 600, 300}, {700, 260, 70}, {330, 1000, 260}, {100, 40, 33},
      {16, 64, 64}};
  void *temp_buffer = tt_alloc((1 << 20) + 64);
  const size_t pack_bytes = 4 << 20;
  void *pack_buffer = tt_alloc(pack_bytes + 64);
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    int64_t m = shapes[s][0];
    int64_t n = shapes[s][1];
    int64_t k = shapes[s][2];
    for (int addmm = 0; addmm < 2; ++addmm) {
      etr_diff_case_t host;
      etr_diff_begin(&host, "aten::mm.out", g_seed++, "host");
      add_matrix(&host, ETR_FLOAT, m, k, 0, ETR_FILL_EXACT_INT);
      add_matrix(&host, ETR_FLOAT, k, n, 0, ETR_FILL_EXACT_INT);
      etr_diff_input(&host, ETR_FLOAT, 1, (const int64_t[]){n},
                     ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT);
      etr_tensor_t *expected =
          tt_out(ETR_FLOAT, 2, (const int64_t[]){m, n}, m * n);
      etr_tensor_t *actual =
          tt_out(ETR_FLOAT, 2, (const int64_t[]){m, n}, m * n);
      etr_evalue_t *one = tt_ev_int(1);
      etr_evalue_t *ref_args[7];
      etr_evalue_t *opt_args[7];
      size_t num_args = addmm ? 7 : 4;
      if (addmm) {  // addmm(bias, mat1, mat2, beta, alpha, out)
        etr_evalue_t *r[7] = {host.args[2], host.args[0], host.args[1], one,
                              one, tt_ev_tensor(expected), NULL};
        etr_evalue_t *o[7] = {host.args[2], host.args[0], host.args[1], one,
                              one, tt_ev_tensor(actual), NULL};
        memcpy(ref_args, r, sizeof(r));
        memcpy(opt_args, o, sizeof(o));
      } else {
        etr_evalue_t *r[4] = {host.args[0], host.args[1],
                              tt_ev_tensor(expected), NULL};
        etr_evalue_t *o[4] = {host.args[0], host.args[1],
                              tt_ev_tensor(actual), NULL};
        memcpy(ref_args, r, sizeof(r));
        memcpy(opt_args, o, sizeof(o));
      }
      ref_args[num_args - 1] = ref_args[num_args - 2];
      opt_args[num_args - 1] = opt_args[num_args - 2];
      etr_kernel_fn reference = addmm ? etr_ref_addmm_out : etr_ref_mm_out;
      etr_kernel_fn optimized = addmm ? etr_opt_addmm_out : etr_opt_mm_out;
      etr_diag_t diag;
      etr_diag_reset(&diag);
      etr_kernel_context_t ref_ctx = {.diag = &diag};
      cr_assert_eq(reference(&ref_ctx, ref_args, num_args), ETR_OK);
      const etr_tensor_t *mat1 = host.args[0]->u.as_tensor;
      const etr_tensor_t *mat2 = host.args[1]->u.as_tensor;
      for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
        if (!etr_isa_available((etr_isa_t)isa)) {
          continue;
        }
        etr_isa_force((etr_isa_t)isa);
        etr_arena_t packing;
        etr_arena_init(&packing, pack_buffer, pack_bytes);
        const etr_gemm_packed_b_t *packed =
            etr_opt_matmul_prepack(mat1, mat2, actual, &packing);
        char label[128];
        snprintf(label, sizeof(label), "%s %lldx%lldx%lld packed under %s",
                 addmm ? "addmm" : "mm", (long long)m, (long long)n,
                 (long long)k, etr_isa_name((etr_isa_t)isa));
        if (packed == NULL) {  // only where the call reads B in place
          cr_expect(m <= 24, "%s: not packed", label);
          continue;
        }
        cr_expect(m > 24 || isa != ETR_ISA_AVX512,
                  "%s: B read in place, packed anyway", label);
        expect_packed_b_read(optimized, opt_args, num_args, expected, actual,
                             packed, (etr_isa_t)isa, temp_buffer, label);
      }
      etr_isa_reset();
    }
  }
}

// linear with its weight packed at load (etr_opt_linear_prepack, bound as
// ctx->state as fuse/prepack.c binds it): the reference's bits under every
// ISA, also under another ISA than the one packed for; zeroed panels
// change the out (the call read them); with a bias and without, a 3-D
// input whose rows collapse, and the weight dense or stored transposed
// (B = weight^T read with either stride). A dense weight is packed even
// for few rows (B has unit stride down K, which the microkernels do not
// read in place); one stored transposed is read in place there, as mm's
// B is (at most 24 rows with AVX-512's kernels, 12 with AVX2's).
TT_TEST(diff_gemm, linear_with_weight_packed_at_load) {
  static const int64_t shapes[][3] = {  // rows, features, in features
      {64, 600, 300}, {330, 1000, 260}, {100, 40, 33}, {16, 64, 64}};
  void *temp_buffer = tt_alloc((1 << 20) + 64);
  const size_t pack_bytes = 4 << 20;
  void *pack_buffer = tt_alloc(pack_bytes + 64);
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    const int64_t m = shapes[s][0];
    const int64_t n = shapes[s][1];
    const int64_t k = shapes[s][2];
    for (int variant = 0; variant < 2; ++variant) {
      etr_diff_case_t host;
      etr_diff_begin(&host, "aten::linear.out", g_seed++, "host");
      // Variant 1: a [2, m / 2, k] input, the weight stored transposed,
      // no bias.
      const int64_t sizes3[3] = {2, m / 2, k};
      if (variant == 1) {
        etr_diff_input(&host, ETR_FLOAT, 3, sizes3, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_EXACT_INT);
      } else {
        add_matrix(&host, ETR_FLOAT, m, k, 0, ETR_FILL_EXACT_INT);
      }
      add_matrix(&host, ETR_FLOAT, n, k, variant == 1 ? 2 : 0,
                 ETR_FILL_EXACT_INT);
      etr_diff_input(&host, ETR_FLOAT, 1, (const int64_t[]){n},
                     ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT);
      const int64_t out2[2] = {m, n};
      const int64_t out3[3] = {2, m / 2, n};
      const int32_t rank = variant == 1 ? 3 : 2;
      const int64_t *out_sizes = variant == 1 ? out3 : out2;
      etr_tensor_t *expected = tt_out(ETR_FLOAT, rank, out_sizes, m * n);
      etr_tensor_t *actual = tt_out(ETR_FLOAT, rank, out_sizes, m * n);
      etr_evalue_t *bias = variant == 1 ? tt_ev_none() : host.args[2];
      etr_evalue_t *ref_args[5] = {host.args[0], host.args[1], bias,
                                   tt_ev_tensor(expected), NULL};
      etr_evalue_t *opt_args[5] = {host.args[0], host.args[1], bias,
                                   tt_ev_tensor(actual), NULL};
      ref_args[4] = ref_args[3];
      opt_args[4] = opt_args[3];
      etr_diag_t diag;
      etr_diag_reset(&diag);
      etr_kernel_context_t ref_ctx = {.diag = &diag};
      cr_assert_eq(etr_ref_linear_out(&ref_ctx, ref_args, 5), ETR_OK, "%s",
                   diag.message);
      const etr_tensor_t *input = host.args[0]->u.as_tensor;
      const etr_tensor_t *weight = host.args[1]->u.as_tensor;
      const etr_tensor_t *bias_tensor =
          variant == 1 ? NULL : host.args[2]->u.as_tensor;
      for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
        if (!etr_isa_available((etr_isa_t)isa)) {
          continue;
        }
        etr_isa_force((etr_isa_t)isa);
        etr_arena_t packing;
        etr_arena_init(&packing, pack_buffer, pack_bytes);
        const etr_gemm_packed_b_t *packed = etr_opt_linear_prepack(
            input, weight, bias_tensor, actual, &packing);
        char label[128];
        snprintf(label, sizeof(label),
                 "linear %lldx%lldx%lld variant %d packed under %s",
                 (long long)m, (long long)n, (long long)k, variant,
                 etr_isa_name((etr_isa_t)isa));
        if (packed == NULL) {  // B read in place
          cr_expect(m <= 24 && variant == 1, "%s: not packed", label);
          continue;
        }
        expect_packed_b_read(etr_opt_linear_out, opt_args, 5, expected,
                             actual, packed, (etr_isa_t)isa, temp_buffer,
                             label);
      }
      etr_isa_reset();
    }
  }
}

TT_TEST(diff_gemm, errors_and_dry_run) {
  // Shapes that cannot be multiplied: the reference's own error code.
  etr_tensor_t *a = tt_tensor(ETR_FLOAT, 2, (const int64_t[]){3, 4}, NULL);
  etr_tensor_t *b = tt_tensor(ETR_FLOAT, 2, (const int64_t[]){5, 6}, NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, 2, (const int64_t[]){3, 6}, 18);
  etr_evalue_t *args[4] = {tt_ev_tensor(a), tt_ev_tensor(b),
                           tt_ev_tensor(out), NULL};
  args[3] = args[2];
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag};
  cr_assert_eq(etr_opt_mm_out(&ctx, args, 4), ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(etr_opt_mm_out(&ctx, args, 3), ETR_ERR_INVALID_PROGRAM);
  // Dry run: out resized, no data read or written (data pointers NULL).
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, 2, (const int64_t[]){3, 4}, NULL);
  etr_tensor_t *y = tt_tensor(ETR_FLOAT, 2, (const int64_t[]){4, 7}, NULL);
  etr_tensor_t *z = tt_out(ETR_FLOAT, 2, (const int64_t[]){1, 1}, 64);
  x->data = NULL;
  y->data = NULL;
  z->data = NULL;
  etr_evalue_t *dry[4] = {tt_ev_tensor(x), tt_ev_tensor(y), tt_ev_tensor(z),
                          NULL};
  dry[3] = dry[2];
  ctx.dry_run = true;
  cr_assert_eq(etr_opt_mm_out(&ctx, dry, 4), ETR_OK);
  cr_assert_eq(z->sizes[0], 3);
  cr_assert_eq(z->sizes[1], 7);
}

// A fused convolution's post (batch norm fma and clamp, conv.h) through
// etr_gemm on every ISA of this machine, whether its microkernel applies
// it in registers (fuses_post) or the driver calls `apply` per finished
// tile: bit for bit the product without the post followed by the scalar
// post, on random data. Shapes with row and column tile tails, A read in
// place (M <= 12) and packed, two K blocks (the post only after the
// last), the post's channels offset by post_row0; clamp alone and batch
// norm with clamp.
TT_TEST(diff_gemm, fused_post_every_microkernel) {
  static const size_t shapes[][3] = {
      {5, 13, 7}, {6, 16, 300}, {50, 37, 40}, {13, 100, 260}, {300, 70, 30}};
  enum { kRow0 = 3 };
  uint32_t s = 12345u;
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); ++i) {
    const size_t m = shapes[i][0];
    const size_t n = shapes[i][1];
    const size_t k = shapes[i][2];
    float *a = tt_alloc(m * k * sizeof(float));
    float *b = tt_alloc(k * n * sizeof(float));
    float *bias = tt_alloc(m * sizeof(float));
    float *scale = tt_alloc((m + kRow0) * sizeof(float));
    float *shift = tt_alloc((m + kRow0) * sizeof(float));
    float *want = tt_alloc(m * n * sizeof(float));
    float *got = tt_alloc(m * n * sizeof(float));
    float *fills[] = {a, b, bias, scale, shift};
    const size_t counts[] = {m * k, k * n, m, m + kRow0, m + kRow0};
    for (size_t f = 0; f < 5; ++f) {
      for (size_t e = 0; e < counts[f]; ++e) {
        s = s * 1664525u + 1013904223u;
        fills[f][e] = (float)(s >> 8) / 8388608.0f - 1.0f;
      }
    }
    for (int kind = 0; kind < 2; ++kind) {
      etr_conv_post_t conv_post = {
          .scale = kind == 1 ? scale : NULL,
          .shift = kind == 1 ? shift : NULL,
          .low = kind == 1 ? -0.5f : 0.0f,
          .high = kind == 1 ? 0.75f : INFINITY,
          .rows = etr_conv_post_rows_scalar,
      };
      etr_gemm_post_t post = {.scale = conv_post.scale,
                              .shift = conv_post.shift,
                              .low = conv_post.low,
                              .high = conv_post.high,
                              .apply = etr_conv_post_gemm,
                              .state = &conv_post};
      etr_gemm_problem_t p = {
          .m = m, .n = n, .k = k,
          .a = etr_gemm_matrix(a, ETR_FLOAT, 1, (ptrdiff_t)k),
          .b = etr_gemm_matrix(b, ETR_FLOAT, (ptrdiff_t)n, 1),
          .c = want, .c_dtype = ETR_FLOAT, .c_row_stride = (ptrdiff_t)n,
          .alpha = 1.0f, .beta = 1.0f, .bias = bias,
          .bias_row_stride = 1, .bias_col_stride = 0};
      for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
        if (!etr_isa_available((etr_isa_t)isa)) {
          continue;
        }
        p.c = want;
        p.post = NULL;
        etr_gemm(&p, NULL, NULL, (etr_isa_t)isa);
        etr_conv_post_rows_scalar(&conv_post, kRow0, want, (ptrdiff_t)n, m,
                                  n);
        p.c = got;
        p.post = &post;
        p.post_row0 = kRow0;
        memset(got, 0x5a, m * n * sizeof(float));
        etr_gemm(&p, NULL, NULL, (etr_isa_t)isa);
        size_t bad = 0;
        for (size_t e = 0; e < m * n; ++e) {
          uint32_t x;
          uint32_t y;
          memcpy(&x, &got[e], sizeof x);
          memcpy(&y, &want[e], sizeof y);
          if (x != y && bad++ < 3) {
            cr_log_error("%s %zux%zux%zu post %d at (%zu, %zu): %a vs %a",
                         etr_isa_name((etr_isa_t)isa), m, n, k, kind, e / n,
                         e % n, (double)got[e], (double)want[e]);
          }
        }
        cr_expect_eq(bad, 0, "%s %zux%zux%zu post %d: %zu differ",
                     etr_isa_name((etr_isa_t)isa), m, n, k, kind, bad);
      }
    }
  }
}

// A packed at load (etr_gemm_prepack_a) on every ISA of this machine: a
// K x M A with unit stride along M (a transposed convolution's weight,
// never read in place), shapes with a row panel tail, several K blocks
// (the panels of each at their own offset), the transposed 4x4 decoder's
// 1024 x 128 x 128 and the 2x2's 128 x 784 x 64. With a 1 MiB arena on
// random floats the packed run must give the bits of the run that packs
// A itself (same K blocks); on small integers (every sum exact, whatever
// the blocking) also without an arena, where the stack's blocks may not
// be the packed ones. Zeroed panels must change the result (the call
// read them), and a call on another A or on fewer rows of it must ignore
// them.
TT_TEST(diff_gemm, a_packed_at_load) {
  static const size_t shapes[][3] = {
      {37, 300, 600}, {200, 130, 50}, {1024, 128, 128}, {128, 784, 64},
      {13, 20, 1000}};
  static unsigned char pack_buffer[(1024 + 64) * 1024 * sizeof(float)];
  uint32_t s = 777u;
  void *arena_buffer = tt_alloc((1u << 20) + 64);
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); ++i) {
    const size_t m = shapes[i][0];
    const size_t n = shapes[i][1];
    const size_t k = shapes[i][2];
    float *a = tt_alloc(k * m * sizeof(float));
    float *a_copy = tt_alloc(k * m * sizeof(float));
    float *b = tt_alloc(k * n * sizeof(float));
    float *want = tt_alloc(m * n * sizeof(float));
    float *got = tt_alloc(m * n * sizeof(float));
    for (int exact = 0; exact < 2; ++exact) {
      float *fills[] = {a, b};
      const size_t counts[] = {k * m, k * n};
      for (size_t f = 0; f < 2; ++f) {
        for (size_t e = 0; e < counts[f]; ++e) {
          s = s * 1664525u + 1013904223u;
          fills[f][e] = exact ? (float)((int)(s >> 24) % 7 - 3)
                              : (float)(s >> 8) / 8388608.0f - 1.0f;
        }
      }
      memcpy(a_copy, a, k * m * sizeof(float));
      for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
        if (!etr_isa_available((etr_isa_t)isa)) {
          continue;
        }
        const char *name = etr_isa_name((etr_isa_t)isa);
        etr_arena_t temp;
        etr_arena_init(&temp, arena_buffer, 1u << 20);
        etr_gemm_problem_t p = {
            .m = m, .n = n, .k = k,
            .a = etr_gemm_matrix(a, ETR_FLOAT, (ptrdiff_t)m, 1),
            .b = etr_gemm_matrix(b, ETR_FLOAT, (ptrdiff_t)n, 1),
            .c = want, .c_dtype = ETR_FLOAT, .c_row_stride = (ptrdiff_t)n,
            .alpha = 1.0f, .beta = 0.0f};
        etr_gemm(&p, NULL, &temp, (etr_isa_t)isa);
        etr_arena_t pack_arena;
        etr_arena_init(&pack_arena, pack_buffer, sizeof(pack_buffer));
        const etr_gemm_packed_a_t *packed =
            etr_gemm_prepack_a(&p, (etr_isa_t)isa, &pack_arena);
        cr_assert_not_null(packed, "%s %zux%zux%zu: not packed", name, m,
                           n, k);
        p.a_packed = packed;
        p.c = got;
        for (int with_arena = 1; with_arena >= (exact ? 0 : 1);
             --with_arena) {
          etr_arena_init(&temp, arena_buffer, 1u << 20);
          memset(got, 0x5a, m * n * sizeof(float));
          etr_gemm(&p, NULL, with_arena ? &temp : NULL, (etr_isa_t)isa);
          cr_expect_eq(memcmp(got, want, m * n * sizeof(float)), 0,
                       "%s %zux%zux%zu exact %d arena %d: packed A gave "
                       "other bits",
                       name, m, n, k, exact, with_arena);
        }
        // Another A (equal values), the panels' first rows zeroed: the
        // panels are not its.
        p.a = etr_gemm_matrix(a_copy, ETR_FLOAT, (ptrdiff_t)m, 1);
        memset((float *)packed->panels, 0, 4 * sizeof(float));
        etr_arena_init(&temp, arena_buffer, 1u << 20);
        memset(got, 0x5a, m * n * sizeof(float));
        etr_gemm(&p, NULL, &temp, (etr_isa_t)isa);
        cr_expect_eq(memcmp(got, want, m * n * sizeof(float)), 0,
                     "%s %zux%zux%zu: read panels packed from another A",
                     name, m, n, k);
        // Its own A's first m - 1 rows: not the product packed for.
        p.a = etr_gemm_matrix(a, ETR_FLOAT, (ptrdiff_t)m, 1);
        p.m = m - 1;
        etr_arena_init(&temp, arena_buffer, 1u << 20);
        memset(got, 0x5a, m * n * sizeof(float));
        etr_gemm(&p, NULL, &temp, (etr_isa_t)isa);
        cr_expect_eq(memcmp(got, want, (m - 1) * n * sizeof(float)), 0,
                     "%s %zux%zux%zu: read panels packed for %zu rows",
                     name, m - 1, n, k, m);
        // Its own A, all rows: the zeroed panels are read.
        p.m = m;
        etr_arena_init(&temp, arena_buffer, 1u << 20);
        memset(got, 0x5a, m * n * sizeof(float));
        etr_gemm(&p, NULL, &temp, (etr_isa_t)isa);
        cr_expect_neq(memcmp(got, want, m * n * sizeof(float)), 0,
                      "%s %zux%zux%zu: zeroed panels changed nothing", name,
                      m, n, k);
      }
    }
  }
}
