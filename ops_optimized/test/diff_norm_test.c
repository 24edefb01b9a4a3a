// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized softmax, log-softmax, layer norm,
// inference batch norm and group norm (ops_optimized/norm/) against the
// reference kernels, on every ISA this machine has.
//
// Shapes: the softmax dim innermost (rows) and not (columns), lengths and
// kept inner sizes over the tile edges of 8, 16, 32 and 64 lanes; the
// models' shapes (attention [1, 4, 16, 16], layer norm [1, 16, 64],
// MobileNetV2's batch norms); channels-last and non-contiguous inputs; in
// place; Float, Half and BFloat16 (mixed Float parameters included),
// Double (fallback); special values; argument errors (both must reject).
//
// Tolerances (u = 2^-24; n = softmax length; the out dtype's rounding,
// ulp_out relative and its smallest subnormal absolute, is added when the
// out is Half or BFloat16):
//   softmax      |opt - ref| <= (16 + n/32) u |ref| + 2u/n: a few ulp of
//                each output plus the fp32 sum of n exps, and 2u/n <= 2u
//                times the largest output of the row;
//   log_softmax  |opt - ref| <= 2u |ref| + (16 + n/32 + 2 ln(n + 1)) u;
//   layer/group  |opt - ref| <= 4u |ref| + 64u (normalized values are
//   norm         O(1) for these fills; mean and rstd within 4u relative);
//   batch norm   |opt - ref| <= 4u (max|x| max|alpha| + max|beta|), and
//                exact with integer data and parameters (var = 1, eps = 0).
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/isa.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"

static const double kU = 0x1p-24;

static size_t edge_sizes(int64_t *sizes) {
  size_t count = 0;
  static const int64_t widths[] = {8, 16, 32, 64};
  for (size_t w = 0; w < 4; ++w) {
    int64_t some[10];
    size_t k = etr_diff_edge_sizes(widths[w], some);
    for (size_t i = 0; i < k; ++i) {
      bool seen = false;
      for (size_t j = 0; j < count && !seen; ++j) {
        seen = sizes[j] == some[i];
      }
      if (!seen) {
        sizes[count++] = some[i];
      }
    }
  }
  return count;
}

// --- softmax ---------------------------------------------------------------

static int softmax_case(bool log, etr_scalar_type_t dtype, int32_t rank,
                        const int64_t *sizes, int64_t dim,
                        etr_diff_layout_t layout, etr_diff_fill_t fill,
                        bool in_place, bool half_to_float, uint64_t seed) {
  const char *op = log ? "aten::_log_softmax.out" : "aten::_softmax.out";
  etr_diff_case_t c;
  int64_t length = rank > 0 ? sizes[(dim + rank) % rank] : 1;
  etr_diff_begin(&c, op, seed, "rank %d dim %lld n %lld%s", (int)rank,
                 (long long)dim, (long long)length,
                 in_place ? " in place" : "");
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_int(dim));
  etr_diff_arg(&c, tt_ev_bool(half_to_float));
  if (in_place) {
    etr_diff_out_aliasing(&c, 0);
  } else if (layout == ETR_DIFF_CHANNELS_LAST) {
    etr_diff_out(&c, dtype, rank, sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 etr_tensor_numel(self) + 8);
  }
  etr_diff_return(&c, 3);
  double n = (double)length;
  if (log) {
    etr_diff_tolerance_bound(&c, (16 + n / 32 + 2 * log1p(n)) * kU, 2 * kU);
  } else {
    etr_diff_tolerance_bound(&c, 2 * kU / (n > 0 ? n : 1),
                             (16 + n / 32) * kU);
  }
  etr_diff_tolerance_add_rounding(&c, dtype);
  return etr_diff_run(&c);
}

TT_TEST(diff_norm, softmax) {
  int failures = 0;
  uint64_t seed = 1;
  int64_t sizes[40];
  size_t count = edge_sizes(sizes);
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_POSITIVE};
  for (int log = 0; log < 2; ++log) {
    for (size_t k = 0; k < count; ++k) {
      int64_t n = sizes[k];
      for (size_t f = 0; f < 3; ++f) {
        int64_t rows[2] = {3, n};
        failures += softmax_case(log, ETR_FLOAT, 2, rows, -1, 0, kFills[f],
                                 f == 2, false, seed++);
        int64_t cols[3] = {2, 7, n};
        failures += softmax_case(log, ETR_FLOAT, 3, cols, 1, 0, kFills[f],
                                 f == 1, false, seed++);
        int64_t seven[2] = {7, n};  // short rows: a group of 4, then 3
        failures += softmax_case(log, ETR_FLOAT, 2, seven, -1, 0, kFills[f],
                                 false, false, seed++);
        int64_t tall[2] = {n, 5};
        failures += softmax_case(log, ETR_FLOAT, 2, tall, 0, 0, kFills[f],
                                 false, false, seed++);
      }
    }
    // The transformer's attention, channels-last, non-contiguous, dtypes.
    int64_t attention[4] = {1, 4, 16, 16};
    failures += softmax_case(log, ETR_FLOAT, 4, attention, -1, 0,
                             ETR_FILL_RANDOM, false, false, seed++);
    failures += softmax_case(log, ETR_FLOAT, 4, attention, -1, 0,
                             ETR_FILL_RANDOM, true, false, seed++);
    int64_t image[4] = {2, 5, 3, 19};
    for (int64_t dim = 0; dim < 4; ++dim) {
      for (int layout = 0; layout < 3; ++layout) {
        static const etr_scalar_type_t kDtypes[] = {
            ETR_FLOAT, ETR_HALF, ETR_BFLOAT16, ETR_DOUBLE};
        for (size_t t = 0; t < 4; ++t) {
          failures += softmax_case(log, kDtypes[t], 4, image, dim,
                                   (etr_diff_layout_t)layout,
                                   t == 3 ? ETR_FILL_RANDOM : ETR_FILL_SPECIAL,
                                   false, false, seed++);
        }
      }
    }
    int64_t long_rows[2] = {2, 5000};
    failures += softmax_case(log, ETR_HALF, 2, long_rows, 1, 0,
                             ETR_FILL_RANDOM, true, false, seed++);
    failures += softmax_case(log, ETR_FLOAT, 2, long_rows, 1, 0,
                             ETR_FILL_RANDOM, false, false, seed++);
    int64_t scalar[1] = {1};
    failures += softmax_case(log, ETR_FLOAT, 0, scalar, 0, 0,
                             ETR_FILL_RANDOM, false, false, seed++);
    // Errors: half_to_float, a bad dim, a wrong out dtype.
    int64_t small[2] = {3, 4};
    failures += softmax_case(log, ETR_FLOAT, 2, small, 1, 0, ETR_FILL_RANDOM,
                             false, true, seed++);
    failures += softmax_case(log, ETR_FLOAT, 2, small, 2, 0, ETR_FILL_RANDOM,
                             false, false, seed++);
    failures += softmax_case(log, ETR_INT, 2, small, 1, 0, ETR_FILL_RANDOM,
                             false, false, seed++);
  }
  cr_assert_eq(failures, 0, "%d softmax cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// --- layer norm -------------------------------------------------------------

// Shifts every element of a contiguous Float tensor by `offset` (data far
// from zero with a small spread: the fp32 mean split must hold).
static void shift_values(etr_tensor_t *t, float offset) {
  float *data = (float *)t->data;
  for (int64_t i = 0; i < etr_tensor_numel(t); ++i) {
    data[i] = offset + data[i] * 0.01f;
  }
}

// When set, layer_norm_case plants rows for the double path in a Float
// input of at least 61 rows: a NaN in row 45, +inf in row 50, row 60
// scaled by 1e31.
static bool g_plant_rows = false;

static void plant_rows(etr_tensor_t *input) {
  float *data = (float *)input->data;
  const int64_t n = input->sizes[input->dim - 1];
  data[45 * n + 3] = NAN;
  data[50 * n] = INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    data[60 * n + i] *= 1e31f;
  }
}

static int layer_norm_case(etr_scalar_type_t dtype,
                           etr_scalar_type_t param_dtype, int32_t rank,
                           const int64_t *sizes, size_t normalized,
                           bool affine, etr_diff_layout_t layout,
                           etr_diff_fill_t fill, float offset,
                           uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::native_layer_norm.out", seed,
                 "rank %d last %zu n %lld%s", (int)rank, normalized,
                 (long long)sizes[rank - 1], affine ? " affine" : "");
  etr_tensor_t *input = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  if (offset != 0.0f) {
    shift_values(input, offset);
  }
  if (g_plant_rows) {
    plant_rows(input);
  }
  const int64_t *shape = sizes + rank - (int32_t)normalized;
  etr_diff_arg(&c, tt_ev_int_list(normalized, shape));
  if (affine) {
    etr_diff_input(&c, param_dtype, (int32_t)normalized, shape,
                   ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
    etr_diff_input(&c, param_dtype, (int32_t)normalized, shape,
                   ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
  } else {
    etr_diff_arg(&c, tt_ev_none());
    etr_diff_arg(&c, tt_ev_none());
  }
  c.dtype = dtype;
  c.layout = layout;
  etr_diff_arg(&c, tt_ev_double(1e-5));
  int64_t spare = etr_tensor_numel(input) + 8;
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS, spare);
  etr_diff_out(&c, param_dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               spare);
  etr_diff_out(&c, param_dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               spare);
  size_t outs[3] = {5, 6, 7};
  etr_diff_out_list(&c, 3, outs);
  etr_diff_tolerance_bound(&c, 64 * kU, 4 * kU);
  etr_diff_tolerance_add_rounding(&c, dtype);
  return etr_diff_run(&c);
}

TT_TEST(diff_norm, layer_norm) {
  int failures = 0;
  uint64_t seed = 5000;
  int64_t sizes[40];
  size_t count = edge_sizes(sizes);
  for (size_t k = 0; k < count; ++k) {
    int64_t rows[2] = {5, sizes[k]};
    int64_t wide[3] = {2, 3, sizes[k]};
    failures += layer_norm_case(ETR_FLOAT, ETR_FLOAT, 2, rows, 1, true, 0,
                                ETR_FILL_RANDOM, 0, seed++);
    failures += layer_norm_case(ETR_FLOAT, ETR_FLOAT, 2, rows, 1, false, 0,
                                ETR_FILL_SPECIAL, 0, seed++);
    failures += layer_norm_case(ETR_FLOAT, ETR_FLOAT, 3, wide, 2, true, 0,
                                ETR_FILL_POSITIVE, 0, seed++);
    failures += layer_norm_case(ETR_FLOAT, ETR_FLOAT, 2, rows, 1, true, 0,
                                ETR_FILL_RANDOM, 1000.0f, seed++);
  }
  int64_t transformer[3] = {1, 16, 64};
  failures += layer_norm_case(ETR_FLOAT, ETR_FLOAT, 3, transformer, 1, true,
                              0, ETR_FILL_RANDOM, 0, seed++);
  // More rows than one block of statistics (32): blocks of 32, 32 and 6,
  // with rows for the double path among them (a NaN, an inf, values near
  // 1e31 whose variance passes 2^200). (ETR_FILL_SPECIAL would put +-3e38
  // in one row, whose cancelling sum depends on the order in double too.)
  int64_t many[2] = {70, 33};
  failures += layer_norm_case(ETR_FLOAT, ETR_FLOAT, 2, many, 1, true, 0,
                              ETR_FILL_RANDOM, 0, seed++);
  g_plant_rows = true;
  failures += layer_norm_case(ETR_FLOAT, ETR_FLOAT, 2, many, 1, true, 0,
                              ETR_FILL_RANDOM, 0, seed++);
  g_plant_rows = false;
  static const etr_scalar_type_t kDtypes[] = {ETR_HALF, ETR_BFLOAT16};
  for (size_t t = 0; t < 2; ++t) {
    for (int layout = 0; layout < 3; ++layout) {
      int64_t image[4] = {2, 3, 5, 17};
      failures += layer_norm_case(kDtypes[t], ETR_FLOAT, 4, image, 2, true,
                                  (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                                  0, seed++);
      failures += layer_norm_case(kDtypes[t], kDtypes[t], 4, image, 1, true,
                                  (etr_diff_layout_t)layout, ETR_FILL_SPECIAL,
                                  0, seed++);
      failures += layer_norm_case(ETR_FLOAT, ETR_FLOAT, 4, image, 3, false,
                                  (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                                  0, seed++);
    }
  }
  int64_t small[2] = {3, 4};
  failures += layer_norm_case(ETR_DOUBLE, ETR_DOUBLE, 2, small, 1, true, 0,
                              ETR_FILL_RANDOM, 0, seed++);
  // Errors: Float input with Half parameters; a normalized shape that does
  // not match (built by asking for more dims than the input has).
  failures += layer_norm_case(ETR_FLOAT, ETR_HALF, 2, small, 1, true, 0,
                              ETR_FILL_RANDOM, 0, seed++);
  cr_assert_eq(failures, 0, "%d layer norm cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// The short-row softmax kernel (norm.h softmax_short_rows, rows of at
// most 16) of every ISA that has one against the same table's max,
// exp_sum and scale row by row: the same bits, random and special values
// (NaN, infinities, signed zeros), 1 to 9 rows (groups and remainders),
// in place too.
TT_TEST(diff_norm, softmax_short_rows) {
  static const float kSpecial[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f,
                                   88.0f, -104.5f, 1e-40f};
  enum { kRowsMax = 9, kN = 16 };
  float x[kRowsMax * kN];
  float got[kRowsMax * kN + 4];
  float want[kRowsMax * kN + 4];
  uint64_t state = 77;
  int failures = 0;
  int ran = 0;
  for (int isa = ETR_ISA_SCALAR; isa <= ETR_ISA_NEON; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    const etr_norm_kernels_t *k = etr_norm_kernels_for((etr_isa_t)isa);
    if (k->softmax_short_rows == NULL) {
      continue;
    }
    for (size_t n = 1; n <= kN; ++n) {
      for (size_t rows = 1; rows <= kRowsMax; ++rows) {
        for (int special = 0; special < 2; ++special) {
          for (size_t i = 0; i < rows * n; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t r = (uint32_t)(state >> 32);
            x[i] = special && r % 5 == 0
                       ? kSpecial[(r >> 8) % 8]
                       : (float)((int32_t)r >> 8) * 0x1p-19f;
          }
          for (size_t i = 0; i < rows * n + 4; ++i) {
            got[i] = want[i] = -1.0f;
          }
          for (size_t o = 0; o < rows; ++o) {
            const float m = k->max(n, x + o * n);
            const float sum = k->exp_sum(n, x + o * n, m, want + o * n);
            k->scale(n, want + o * n, (float)(1.0 / (double)sum));
          }
          const bool in_place = (n + rows) % 2 == 0;
          if (in_place) {
            memcpy(got, x, rows * n * sizeof(float));
          }
          k->softmax_short_rows(rows, n, in_place ? got : x, got);
          ++ran;
          for (size_t i = 0; i < rows * n + 4; ++i) {
            if (memcmp(&got[i], &want[i], sizeof(float)) != 0 &&
                !(isnan(got[i]) && isnan(want[i]))) {
              if (++failures <= 5) {
                cr_log_error("%s n %zu rows %zu special %d: [%zu] %a, "
                             "row by row %a",
                             etr_isa_name((etr_isa_t)isa), n, rows, special,
                             i, got[i], want[i]);
              }
              break;
            }
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d short-row softmax calls disagree", failures);
  cr_assert(ran > 0 || !etr_isa_available(ETR_ISA_AVX512),
            "AVX-512 has a short-row softmax; it never ran");
}

// --- batch norm -----------------------------------------------------------

static void fill_constant(etr_tensor_t *t, double value) {
  for (int64_t i = 0; i < etr_tensor_numel(t); ++i) {
    if (t->dtype == ETR_FLOAT) {
      ((float *)t->data)[i] = (float)value;
    }
  }
}

static int batch_norm_case(etr_scalar_type_t dtype,
                           etr_scalar_type_t param_dtype, int32_t rank,
                           const int64_t *sizes, etr_diff_layout_t layout,
                           etr_diff_fill_t fill, bool affine, bool exact,
                           uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::_native_batch_norm_legit_no_training.out", seed,
                 "rank %d C %lld inner %lld%s%s", (int)rank,
                 (long long)sizes[1], (long long)sizes[rank - 1],
                 affine ? " affine" : "", exact ? " exact" : "");
  etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  const int64_t channels[1] = {sizes[1]};
  etr_diff_fill_t param_fill = exact ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
  if (affine) {
    etr_diff_input(&c, param_dtype, 1, channels, 0, param_fill);
    etr_diff_input(&c, param_dtype, 1, channels, 0, param_fill);
  } else {
    etr_diff_arg(&c, tt_ev_none());
    etr_diff_arg(&c, tt_ev_none());
  }
  etr_diff_input(&c, param_dtype, 1, channels, 0, param_fill);
  etr_tensor_t *var = etr_diff_input(&c, param_dtype, 1, channels, 0,
                                     ETR_FILL_POSITIVE);
  if (exact) {
    fill_constant(var, 1.0);
  }
  c.dtype = dtype;
  c.layout = layout;
  etr_diff_arg(&c, tt_ev_double(0.1));
  etr_diff_arg(&c, tt_ev_double(exact ? 0.0 : 1e-5));
  if (rank == 4 && layout == ETR_DIFF_CHANNELS_LAST) {
    etr_diff_out(&c, dtype, 4, sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(&c, dtype, rank, sizes, ETR_DIFF_CONTIGUOUS, 0);
  }
  etr_diff_out(&c, param_dtype, 1, (const int64_t[]){0}, 0, 4);
  etr_diff_out(&c, param_dtype, 1, (const int64_t[]){0}, 0, 4);
  size_t outs[3] = {7, 8, 9};
  etr_diff_out_list(&c, 3, outs);
  if (exact) {
    etr_diff_tolerance_exact(&c);
  } else {
    // var in [0.1, 2): |alpha| <= 1/sqrt(0.1) < 3.2, |beta| < 4.2.
    double max_x = fill == ETR_FILL_SPECIAL ? 3.0e38 : 2.0;
    etr_diff_tolerance_bound(&c, 4 * kU * (max_x * 3.2 + 4.2), 0);
    etr_diff_tolerance_add_rounding(&c, dtype);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_norm, batch_norm) {
  int failures = 0;
  uint64_t seed = 9000;
  int64_t sizes[40];
  size_t count = edge_sizes(sizes);
  for (size_t k = 0; k < count; ++k) {
    int64_t n = sizes[k];
    int64_t nchw[4] = {2, 3, 1, n};
    int64_t nhwc[4] = {2, n > 0 ? n : 1, 2, 3};  // C over the edges
    int64_t flat[2] = {3, n > 0 ? n : 1};
    for (int exact = 0; exact < 2; ++exact) {
      etr_diff_fill_t fill = exact ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
      failures += batch_norm_case(ETR_FLOAT, ETR_FLOAT, 4, nchw, 0, fill,
                                  true, exact, seed++);
      failures += batch_norm_case(ETR_FLOAT, ETR_FLOAT, 4, nhwc,
                                  ETR_DIFF_CHANNELS_LAST, fill, exact == 0,
                                  exact, seed++);
      failures += batch_norm_case(ETR_FLOAT, ETR_FLOAT, 2, flat, 0, fill,
                                  true, exact, seed++);
    }
  }
  // MobileNetV2's and the CNN's shapes, NCHW and channels-last.
  static const int64_t kModel[][4] = {
      {1, 16, 32, 32}, {1, 48, 16, 16}, {1, 72, 8, 8}, {1, 144, 4, 4},
      {1, 192, 4, 4},  {1, 32, 16, 16},
  };
  for (size_t m = 0; m < sizeof(kModel) / sizeof(kModel[0]); ++m) {
    for (int layout = 0; layout < 3; layout += 2) {
      failures += batch_norm_case(ETR_FLOAT, ETR_FLOAT, 4, kModel[m],
                                  (etr_diff_layout_t)layout, ETR_FILL_SPECIAL,
                                  true, false, seed++);
    }
  }
  static const etr_scalar_type_t kDtypes[] = {ETR_HALF, ETR_BFLOAT16};
  int64_t image[4] = {2, 5, 3, 7};
  int64_t sequence[3] = {2, 5, 9};
  for (size_t t = 0; t < 2; ++t) {
    for (int layout = 0; layout < 3; ++layout) {
      failures += batch_norm_case(kDtypes[t], ETR_FLOAT, 4, image,
                                  (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                                  true, false, seed++);
      failures += batch_norm_case(kDtypes[t], kDtypes[t], 4, image,
                                  (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                                  false, false, seed++);
    }
    failures += batch_norm_case(kDtypes[t], ETR_FLOAT, 3, sequence, 0,
                                ETR_FILL_RANDOM, true, false, seed++);
  }
  failures += batch_norm_case(ETR_DOUBLE, ETR_DOUBLE, 4, image, 0,
                              ETR_FILL_RANDOM, true, false, seed++);
  // Errors: parameters of another dtype, an input of rank 1.
  failures += batch_norm_case(ETR_FLOAT, ETR_HALF, 4, image, 0,
                              ETR_FILL_RANDOM, true, false, seed++);
  int64_t one[2] = {5, 5};  // rank 1 (sizes[1] read for the label)
  failures += batch_norm_case(ETR_FLOAT, ETR_FLOAT, 1, one, 0,
                              ETR_FILL_RANDOM, true, false, seed++);
  cr_assert_eq(failures, 0, "%d batch norm cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// Inference batch norm with its alpha and beta packed at load
// (etr_batch_norm_prepack, bound as ctx->state the way fuse/prepack.c
// binds it): a first call and a vouched second one (ctx->args_checked,
// the kept pass of etr_batch_norm_kept_run) give the unpacked call's bits
// under every ISA, NCHW and channels-last, with and without weight and
// bias, over channel counts about a vector's edges; zeroed packed alphas
// change the out (the calls read them); a state packed for other channels
// is not used.
static void packed_batch_norm_case(const int64_t *sizes, bool nhwc,
                                   bool affine, uint64_t seed) {
  const int64_t c = sizes[1];
  const int64_t numel = sizes[0] * sizes[1] * sizes[2] * sizes[3];
  double *x = tt_alloc((size_t)numel * sizeof(double));
  double *p = tt_alloc(4 * (size_t)c * sizeof(double));
  for (int64_t i = 0; i < numel; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (double)((int64_t)(seed >> 40) - (1 << 23)) * 0x1p-21;
  }
  for (int64_t i = 0; i < 4 * c; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = 0.1 + (double)(seed >> 40) * 0x1p-23;
  }
  const int64_t channels[1] = {c};
  etr_tensor_t *input = tt_tensor(ETR_FLOAT, 4, sizes, x);
  if (nhwc) {
    input = tt_channels_last(input);
  }
  etr_tensor_t *params[4];
  for (int i = 0; i < 4; ++i) {
    params[i] = tt_tensor(ETR_FLOAT, 1, channels, p + i * c);
  }
  static const uint8_t kNhwc[4] = {0, 2, 3, 1};
  const int64_t empty[1] = {0};
  etr_tensor_t *outs[2];
  for (int o = 0; o < 2; ++o) {
    outs[o] = nhwc ? tt_out_dim_order(ETR_FLOAT, 4, sizes, kNhwc)
                   : tt_out(ETR_FLOAT, 4, sizes, 0);
  }
  etr_evalue_t *args[2][11];
  for (int o = 0; o < 2; ++o) {
    etr_evalue_t *list[11] = {
        tt_ev_tensor(input),
        affine ? tt_ev_tensor(params[0]) : tt_ev_none(),
        affine ? tt_ev_tensor(params[1]) : tt_ev_none(),
        tt_ev_tensor(params[2]),
        tt_ev_tensor(params[3]),
        tt_ev_double(0.1),
        tt_ev_double(1e-5),
        tt_ev_tensor(outs[o]),
        tt_ev_tensor(tt_out(ETR_FLOAT, 1, empty, 0)),
        tt_ev_tensor(tt_out(ETR_FLOAT, 1, empty, 0)),
        tt_ev_none()};
    memcpy(args[o], list, sizeof(list));
  }
  static _Alignas(64) uint8_t arena_bytes[1 << 16];
  etr_arena_t arena;
  etr_arena_init(&arena, arena_bytes, sizeof(arena_bytes));
  const etr_bn_packed_t *packed = etr_batch_norm_prepack(
      (size_t)c, affine ? params[0] : NULL, affine ? params[1] : NULL,
      params[2], params[3], 1e-5, &arena);
  const etr_bn_packed_t *other = etr_batch_norm_prepack(
      (size_t)c + 1, NULL, NULL, tt_tensor(ETR_FLOAT, 1, (int64_t[]){c + 1},
                                           NULL),
      tt_tensor(ETR_FLOAT, 1, (int64_t[]){c + 1}, NULL), 1e-5, &arena);
  cr_assert(packed != NULL && other != NULL);
  const size_t bytes = etr_tensor_nbytes(outs[0]);
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_isa_force((etr_isa_t)isa);
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_kernel_context_t plain = {.diag = &diag};
    cr_assert_eq(etr_opt_native_batch_norm_legit_no_training_out(
                     &plain, args[0], 11),
                 ETR_OK, "%s", diag.message);
    _Alignas(16) unsigned char memo[ETR_KERNEL_MEMO_BYTES] = {0};
    const void *states[2] = {packed, other};
    for (int s = 0; s < 2; ++s) {
      memset(memo, 0, sizeof(memo));
      for (int call = 0; call < 2; ++call) {
        etr_kernel_context_t ctx = {.diag = &diag,
                                    .state = states[s],
                                    .memo = memo,
                                    .args_checked = call == 1};
        memset(outs[1]->data, 0x5a, bytes);
        cr_assert_eq(etr_opt_native_batch_norm_legit_no_training_out(
                         &ctx, args[1], 11),
                     ETR_OK, "%s", diag.message);
        cr_assert(memcmp(outs[0]->data, outs[1]->data, bytes) == 0,
                  "batch norm [%lld, %lld, %lld, %lld]%s%s under %s, %s "
                  "state, %s call: not the unpacked call's bits",
                  (long long)sizes[0], (long long)c, (long long)sizes[2],
                  (long long)sizes[3], nhwc ? " channels-last" : "",
                  affine ? " affine" : "", etr_isa_name((etr_isa_t)isa),
                  s == 0 ? "its" : "another's", call ? "vouched" : "first");
      }
    }
  }
  etr_isa_reset();
  // The calls read the packed alphas: zeroed, the out is beta alone.
  memset((float *)packed->alpha, 0, (size_t)c * sizeof(float));
  for (int call = 0; call < 2; ++call) {
    _Alignas(16) unsigned char memo[ETR_KERNEL_MEMO_BYTES] = {0};
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_kernel_context_t ctx = {.diag = &diag, .state = packed, .memo = memo};
    memset(outs[1]->data, 0x5a, bytes);
    cr_assert_eq(etr_opt_native_batch_norm_legit_no_training_out(
                     &ctx, args[1], 11),
                 ETR_OK);
    if (call == 1) {
      ctx.args_checked = true;
      memset(outs[1]->data, 0x5a, bytes);
      cr_assert_eq(etr_opt_native_batch_norm_legit_no_training_out(
                       &ctx, args[1], 11),
                   ETR_OK);
    }
    const float *y = outs[1]->data;
    for (int64_t i = 0; i < numel; ++i) {
      const int64_t channel =
          nhwc ? i % c : i / (sizes[2] * sizes[3]) % c;
      cr_assert(y[i] == packed->beta[channel],
                "zeroed alpha, %s call: out %lld is %g, not beta %g",
                call ? "vouched" : "first", (long long)i, y[i],
                packed->beta[channel]);
    }
  }
}

// Half and BFloat16 batch norm through its fp32 scratch: with room for
// the whole input at once, and with room for one [C, inner] slab only
// (one outer index at a time), the same bits, NCHW and channels-last; no
// room for a slab: false (the op then takes the reference).
Test(norm, batch_norm_half_scratch_slabs) {
  static const etr_scalar_type_t kDtypes[] = {ETR_HALF, ETR_BFLOAT16};
  const int64_t sizes[4] = {4, 3, 5, 7};
  const int64_t channels[1] = {3};
  double x[4 * 3 * 5 * 7];
  for (int i = 0; i < 4 * 3 * 5 * 7; ++i) {
    x[i] = (double)((i * 37) % 61 - 30) / 8.0;
  }
  const double p[4][3] = {
      {1.5, -0.5, 2.0}, {0.25, 1.0, -3.0}, {0.5, -1.0, 0.0}, {2.0, 0.5, 1.0}};
  etr_tensor_t *params[4];
  for (int i = 0; i < 4; ++i) {
    params[i] = tt_tensor(ETR_FLOAT, 1, channels, p[i]);
  }
  static const uint8_t kNhwc[4] = {0, 2, 3, 1};
  for (size_t t = 0; t < 2; ++t) {
    for (int nhwc = 0; nhwc < 2; ++nhwc) {
      etr_tensor_t *input = tt_tensor(kDtypes[t], 4, sizes, x);
      if (nhwc) {
        input = tt_channels_last(input);
      }
      etr_tensor_t *outs[3];
      for (int o = 0; o < 3; ++o) {
        outs[o] = nhwc ? tt_out_dim_order(kDtypes[t], 4, sizes, kNhwc)
                       : tt_out(kDtypes[t], 4, sizes, 0);
      }
      // A [C, inner] slab: 3 x 35 floats NCHW, 3 channels a pixel NHWC.
      const size_t slab = nhwc ? 3 * sizeof(float) : 105 * sizeof(float);
      const size_t rooms[3] = {1 << 16, slab + 63, slab - 1};
      for (int r = 0; r < 3; ++r) {
        // A heap block of just that room: under ASan a pass that wrote
        // past what it took from the arena shows.
        void *buffer = tt_alloc(rooms[r]);
        etr_arena_t temp;
        etr_arena_init(&temp, buffer, rooms[r]);
        etr_diag_t diag;
        etr_diag_reset(&diag);
        etr_kernel_context_t ctx = {.diag = &diag, .temp = &temp};
        const bool done =
            etr_batch_norm_run(&ctx, input, params[0], params[1], params[2],
                               params[3], 1e-5, outs[r]);
        cr_assert_eq(done, r < 2, "%s%s, room for %zu bytes: %s",
                     etr_scalar_type_name(kDtypes[t]),
                     nhwc ? " channels-last" : "", rooms[r],
                     done ? "ran" : "refused");
      }
      cr_assert(memcmp(outs[0]->data, outs[1]->data,
                       etr_tensor_nbytes(outs[0])) == 0,
                "%s%s: a slab at a time is not the whole input's bits",
                etr_scalar_type_name(kDtypes[t]),
                nhwc ? " channels-last" : "");
    }
  }
  tt_free_all();
}

Test(norm, batch_norm_packed_at_load) {
  static const int64_t kChannels[] = {1, 3, 15, 16, 17, 33, 144};
  uint64_t seed = 77;
  for (size_t k = 0; k < sizeof(kChannels) / sizeof(kChannels[0]); ++k) {
    const int64_t nchw[4] = {2, kChannels[k], 3, 5};
    const int64_t square[4] = {1, kChannels[k], 4, 4};
    for (int affine = 0; affine < 2; ++affine) {
      packed_batch_norm_case(nchw, false, affine, seed++);
      packed_batch_norm_case(nchw, true, affine, seed++);
      packed_batch_norm_case(square, false, affine, seed++);
    }
  }
  tt_free_all();
}

// --- group norm -----------------------------------------------------------

static int group_norm_case(etr_scalar_type_t dtype,
                           etr_scalar_type_t param_dtype,
                           const int64_t *sizes, int64_t group,
                           etr_diff_layout_t layout, etr_diff_fill_t fill,
                           bool affine, float offset, uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::native_group_norm.out", seed,
                 "[%lld %lld %lld %lld] groups %lld%s", (long long)sizes[0],
                 (long long)sizes[1], (long long)sizes[2],
                 (long long)sizes[3], (long long)group,
                 affine ? " affine" : "");
  etr_tensor_t *input = etr_diff_input(&c, dtype, 4, sizes, layout, fill);
  if (offset != 0.0f && layout != ETR_DIFF_NONCONTIGUOUS) {
    shift_values(input, offset);  // (dense Float)
  }
  const int64_t channels[1] = {sizes[1]};
  if (affine) {
    etr_diff_input(&c, param_dtype, 1, channels, 0, ETR_FILL_RANDOM);
    etr_diff_input(&c, param_dtype, 1, channels, 0, ETR_FILL_RANDOM);
  } else {
    etr_diff_arg(&c, tt_ev_none());
    etr_diff_arg(&c, tt_ev_none());
  }
  c.dtype = dtype;
  c.layout = layout;
  etr_diff_arg(&c, tt_ev_int(sizes[0]));
  etr_diff_arg(&c, tt_ev_int(sizes[1]));
  etr_diff_arg(&c, tt_ev_int(sizes[2] * sizes[3]));
  etr_diff_arg(&c, tt_ev_int(group));
  etr_diff_arg(&c, tt_ev_double(1e-5));
  if (layout == ETR_DIFF_CHANNELS_LAST) {
    etr_diff_out(&c, dtype, 4, sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(&c, dtype, 4, sizes, ETR_DIFF_CONTIGUOUS, 0);
  }
  etr_diff_out(&c, param_dtype, 1, (const int64_t[]){0}, 0, 4096);
  etr_diff_out(&c, param_dtype, 1, (const int64_t[]){0}, 0, 4096);
  size_t outs[3] = {8, 9, 10};
  etr_diff_out_list(&c, 3, outs);
  etr_diff_tolerance_bound(&c, 64 * kU, 4 * kU);
  etr_diff_tolerance_add_rounding(&c, dtype);
  return etr_diff_run(&c);
}

TT_TEST(diff_norm, group_norm) {
  int failures = 0;
  uint64_t seed = 13000;
  int64_t sizes[40];
  size_t count = edge_sizes(sizes);
  for (size_t k = 0; k < count; ++k) {
    int64_t shape[4] = {2, 6, 1, sizes[k]};
    failures += group_norm_case(ETR_FLOAT, ETR_FLOAT, shape, 3, 0,
                                ETR_FILL_RANDOM, true, 0, seed++);
    failures += group_norm_case(ETR_FLOAT, ETR_FLOAT, shape, 2, 0,
                                ETR_FILL_SPECIAL, false, 0, seed++);
    failures += group_norm_case(ETR_FLOAT, ETR_FLOAT, shape, 6, 0,
                                ETR_FILL_RANDOM, true, 500.0f, seed++);
  }
  int64_t image[4] = {2, 8, 5, 7};
  static const etr_scalar_type_t kDtypes[] = {ETR_HALF, ETR_BFLOAT16};
  for (int layout = 0; layout < 3; ++layout) {
    failures += group_norm_case(ETR_FLOAT, ETR_FLOAT, image, 4,
                                (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                                true, 0, seed++);
    for (size_t t = 0; t < 2; ++t) {
      failures += group_norm_case(kDtypes[t], ETR_FLOAT, image, 2,
                                  (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                                  true, 0, seed++);
      failures += group_norm_case(kDtypes[t], kDtypes[t], image, 8,
                                  (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                                  true, 0, seed++);
    }
  }
  failures += group_norm_case(ETR_DOUBLE, ETR_DOUBLE, image, 4, 0,
                              ETR_FILL_RANDOM, true, 0, seed++);
  // Channels-last (norm_driver.c's group_norm_channels_last): channel
  // counts over the lane edges and groups of more than 256 channels (its
  // column chunks), a large mean, special values (groups done in double:
  // after the fp32 pass for Float, before it in the staged Half), without
  // affine parameters.
  static const int64_t kChannelGroups[][2] = {
      {6, 3}, {16, 4}, {33, 11}, {64, 2}, {600, 2}};
  for (size_t k = 0; k < 5; ++k) {
    int64_t nhwc[4] = {2, kChannelGroups[k][0], 3, 5};
    int64_t groups = kChannelGroups[k][1];
    etr_diff_layout_t cl = ETR_DIFF_CHANNELS_LAST;
    failures += group_norm_case(ETR_FLOAT, ETR_FLOAT, nhwc, groups, cl,
                                ETR_FILL_RANDOM, true, 0, seed++);
    failures += group_norm_case(ETR_FLOAT, ETR_FLOAT, nhwc, groups, cl,
                                ETR_FILL_SPECIAL, k % 2 == 0, 0, seed++);
    failures += group_norm_case(ETR_FLOAT, ETR_FLOAT, nhwc, groups, cl,
                                ETR_FILL_RANDOM, true, 500.0f, seed++);
    failures += group_norm_case(ETR_HALF, ETR_HALF, nhwc, groups, cl,
                                ETR_FILL_SPECIAL, true, 0, seed++);
    failures += group_norm_case(ETR_BFLOAT16, ETR_FLOAT, nhwc, groups, cl,
                                ETR_FILL_RANDOM, k % 2 == 1, 0, seed++);
  }
  // Errors: C not divisible by the groups; parameters of another dtype.
  failures += group_norm_case(ETR_FLOAT, ETR_FLOAT, image, 3, 0,
                              ETR_FILL_RANDOM, true, 0, seed++);
  failures += group_norm_case(ETR_FLOAT, ETR_HALF, image, 4, 0,
                              ETR_FILL_RANDOM, true, 0, seed++);
  cr_assert_eq(failures, 0, "%d group norm cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// Batch norm's per-channel alpha and beta: every ISA's bn_params writes the
// bits of the portable C (a fused convolution computes them with the
// portable code at load, the batch-norm kernel with the ISA's at run
// time, and the two must agree bit for bit). Channel counts over the
// vector edges, NULL parameters, and variances of 0, negative, tiny,
// huge, inf and NaN.
Test(norm, bn_params_match_portable_bits) {
  enum { kMax = 37 };
  float w[kMax];
  float b[kMax];
  float m[kMax];
  float v[kMax];
  uint64_t state = 0x9e3779b97f4a7c15ull;
  const float specials[] = {0.0f, -1.0f, 1e-38f, 1e-45f, 3e38f, INFINITY,
                            NAN, -0.0f};
  for (int k = 0; k < kMax; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    float r = (float)((state >> 40) & 0xffffff) / 16777216.0f;
    w[k] = 4.0f * r - 2.0f;
    b[k] = 3.0f * r - 1.0f;
    m[k] = 0.5f - r;
    v[k] = k % 5 == 4 ? specials[(k / 5) % 8] : r * r + 1e-3f;
  }
  const etr_isa_t isas[] = {ETR_ISA_SCALAR, ETR_ISA_AVX2, ETR_ISA_AVX512,
                            ETR_ISA_NEON};
  int checked = 0;
  for (size_t i = 0; i < sizeof(isas) / sizeof(isas[0]); ++i) {
    if (!etr_isa_available(isas[i])) {
      continue;
    }
    const etr_norm_kernels_t *k = etr_norm_kernels_for(isas[i]);
    for (size_t c = 0; c <= kMax; ++c) {
      for (int nulls = 0; nulls < 16; ++nulls) {
        const double eps = nulls % 3 == 0 ? 0.0 : 1e-5;
        float want[2][kMax + 1];
        float got[2][kMax + 1];
        memset(got, 0x5a, sizeof(got));
        etr_norm_bn_params_scalar(c, nulls & 1 ? NULL : w,
                                  nulls & 2 ? NULL : b, nulls & 4 ? NULL : m,
                                  nulls & 8 ? NULL : v, eps, want[0],
                                  want[1]);
        k->bn_params(c, nulls & 1 ? NULL : w, nulls & 2 ? NULL : b,
                     nulls & 4 ? NULL : m, nulls & 8 ? NULL : v, eps, got[0],
                     got[1]);
        for (size_t j = 0; j < c; ++j) {
          for (int o = 0; o < 2; ++o) {
            bool same = memcmp(&want[o][j], &got[o][j], sizeof(float)) == 0 ||
                        (isnan(want[o][j]) && isnan(got[o][j]));
            cr_assert(same,
                      "%s bn_params c=%zu nulls=%d channel %zu %s: %.9g vs "
                      "portable %.9g",
                      etr_isa_name(isas[i]), c, nulls, j,
                      o == 0 ? "alpha" : "beta", got[o][j], want[o][j]);
          }
        }
        // Nothing past c is written.
        static const uint8_t untouched[4] = {0x5a, 0x5a, 0x5a, 0x5a};
        cr_assert(memcmp(&got[0][c], untouched, 4) == 0 &&
                      memcmp(&got[1][c], untouched, 4) == 0,
                  "%s bn_params wrote past %zu channels",
                  etr_isa_name(isas[i]), c);
        ++checked;
      }
    }
  }
  cr_assert_gt(checked, 0);
}

// The layer norm backward kernels of every ISA against the portable ones,
// bit for bit in double: the row sums (AVX-512 takes blocks of eight rows
// a lane each, transposed), the column sums, and dx. Values of mixed
// magnitudes, so that any other order of a sum shows in its last bits;
// rows 1 to 17 (blocks and tails), lengths 1 to 20 and 67, with and
// without gamma. dx writes nothing past n; the column sums leave the
// accumulator past n as it was.
TT_TEST(diff_norm, layer_norm_backward_kernels) {
  enum { kRowsMax = 17, kLen = 67 };
  static float dy[kRowsMax * kLen];
  static float x[kRowsMax * kLen];
  static float gamma[kLen];
  uint64_t state = 91;
  for (size_t i = 0; i < kRowsMax * kLen; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(state >> 32);
    dy[i] = ldexpf((float)((int32_t)r >> 8), (int)(r % 7) - 23);
    x[i] = ldexpf((float)((int32_t)(r * 2654435761u) >> 8),
                  (int)(r >> 29) - 22);
    if (i < kLen) {
      gamma[i] = 0.5f + (float)(r >> 9) * 0x1p-23f;
    }
  }
  static const size_t kLengths[] = {1,  2,  3,  5,  7,  8,  9,  15,
                                    16, 17, 19, 20, 67};
  const etr_isa_t isas[] = {ETR_ISA_AVX2, ETR_ISA_AVX512, ETR_ISA_NEON};
  int checked = 0;
  for (size_t i = 0; i < sizeof(isas) / sizeof(isas[0]); ++i) {
    if (!etr_isa_available(isas[i])) {
      continue;
    }
    const etr_norm_kernels_t *k = etr_norm_kernels_for(isas[i]);
    const char *isa = etr_isa_name(isas[i]);
    for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
      const size_t n = kLengths[l];
      for (int with_gamma = 0; with_gamma < 2; ++with_gamma) {
        const float *g = with_gamma ? gamma : NULL;
        for (size_t rows = 1; rows <= kRowsMax; ++rows) {
          double want[2][kRowsMax + 1];
          double got[2][kRowsMax + 1];
          memset(got, 0x5a, sizeof(got));
          etr_norm_ln_backward_sums_scalar(rows, n, dy, x, g, want[0],
                                           want[1]);
          k->ln_backward_sums(rows, n, dy, x, g, got[0], got[1]);
          for (size_t r = 0; r < rows; ++r) {
            cr_assert(memcmp(&got[0][r], &want[0][r], sizeof(double)) == 0 &&
                          memcmp(&got[1][r], &want[1][r],
                                 sizeof(double)) == 0,
                      "%s ln_backward_sums rows %zu n %zu gamma %d row %zu: "
                      "%a %a vs portable %a %a",
                      isa, rows, n, with_gamma, r, got[0][r], got[1][r],
                      want[0][r], want[1][r]);
          }
          ++checked;
        }
        double want_w[kLen + 1], want_b[kLen + 1];
        double got_w[kLen + 1], got_b[kLen + 1];
        for (size_t j = 0; j <= kLen; ++j) {
          want_w[j] = got_w[j] = 0.25 * (double)j;
          want_b[j] = got_b[j] = -0.5 * (double)j;
        }
        float want_dx[kLen + 1], got_dx[kLen + 1];
        memset(got_dx, 0x5a, sizeof(got_dx));
        for (size_t r = 0; r < 3; ++r) {
          const double m = 0.1 * (double)r - 0.03;
          const double s = 1.7 + (double)r;
          etr_norm_ln_backward_columns_scalar(n, dy + r * n, x + r * n, m, s,
                                              want_w, want_b);
          k->ln_backward_columns(n, dy + r * n, x + r * n, m, s, got_w,
                                 got_b);
          etr_norm_ln_backward_dx_scalar(n, dy + r * n, x + r * n, g, s,
                                         -0.37, 0.011, want_dx);
          k->ln_backward_dx(n, dy + r * n, x + r * n, g, s, -0.37, 0.011,
                            got_dx);
          for (size_t j = 0; j < n; ++j) {
            cr_assert(memcmp(&got_dx[j], &want_dx[j], sizeof(float)) == 0,
                      "%s ln_backward_dx n %zu gamma %d row %zu column %zu: "
                      "%a vs portable %a",
                      isa, n, with_gamma, r, j, got_dx[j], want_dx[j]);
          }
          cr_assert(memcmp(&got_dx[n], &(uint32_t){0x5a5a5a5au}, 4) == 0,
                    "%s ln_backward_dx wrote past %zu", isa, n);
        }
        for (size_t j = 0; j <= n && j <= kLen; ++j) {
          cr_assert(memcmp(&got_w[j], &want_w[j], sizeof(double)) == 0 &&
                        memcmp(&got_b[j], &want_b[j], sizeof(double)) == 0,
                    "%s ln_backward_columns n %zu column %zu: %a %a vs "
                    "portable %a %a",
                    isa, n, j, got_w[j], got_b[j], want_w[j], want_b[j]);
        }
        ++checked;
      }
    }
  }
  cr_assert_gt(checked, 0);
}
