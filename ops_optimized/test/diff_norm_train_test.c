// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized training batch norm
// (_native_batch_norm_legit.out and .no_stats_out; norm/batch_norm_train.c)
// against the reference kernels, on every ISA this machine has. Every out
// is compared: out, save_mean, save_invstd and, for .out, the running
// statistics it updates in place (each run gets its own copy).
//
// Sweeps: channel counts and spatial sizes over the vector edges of the
// reduction and affine kernels, contiguous (N, C, L) / (N, C, H, W) and
// channels-last inputs, with and without weight and bias, training and
// evaluation (.out), MobileNetV2-like shapes; non-contiguous inputs and
// Half/Double (fallback); argument errors (training = false without
// running statistics, an empty input in training, parameters of the wrong
// size).
//
// Tolerances: exact mode fills every channel with balanced +-v (v a small
// integer power of two), so mean = 0 and var = v^2 exactly whatever the
// order of the sums, alpha = w / v and beta = b are exact, and every out
// must match bit for bit. Random data: |opt - ref| <= 8u (max|x| alpha_max
// + beta_max) + 4u |ref| with alpha_max = |w| / sqrt(eps) (the statistics
// are summed in another order; the affine pass rounds alpha and beta to
// fp32 and uses fma), which still catches any wrong formula.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/test/diff.h"

static const double kU = 0x1p-24;

// Overwrites the Float tensor `t` (any strides) with balanced +-v per
// channel: the sign alternates along the last dim (dim 0 for rank 2),
// whose size is even.
static void fill_balanced(etr_tensor_t *t) {
  int64_t index[ETR_MAX_DIMS] = {0};
  int64_t count = etr_tensor_numel(t);
  for (int64_t k = 0; k < count; ++k) {
    int64_t offset = 0;
    for (int32_t d = 0; d < t->dim; ++d) {
      offset += index[d] * t->strides[d];
    }
    float v = (float)(1 << (index[1] % 3));  // 1, 2 or 4 by channel
    int64_t along = index[t->dim == 2 ? 0 : t->dim - 1];
    ((float *)t->data)[offset] = along % 2 == 0 ? v : -v;
    etr_index_next(index, t->sizes, t->dim);
  }
}

typedef struct train_case {
  bool has_stats;  // .out (else .no_stats_out)
  bool training;
  int32_t rank;
  int64_t sizes[4];
  etr_diff_layout_t layout;
  etr_scalar_type_t dtype;
  etr_diff_fill_t fill;  // ETR_FILL_EXACT_INT: the balanced exact mode
  bool affine;
  int64_t param_size;  // 0: C
  double eps;
} train_case_t;

static int run_train(const train_case_t *t, uint64_t seed) {
  const char *op = t->has_stats
                       ? "aten::_native_batch_norm_legit.out"
                       : "aten::_native_batch_norm_legit.no_stats_out";
  bool exact = t->fill == ETR_FILL_EXACT_INT;
  etr_diff_case_t c;
  etr_diff_begin(&c, op, seed, "rank %d [%lld %lld .. %lld]%s%s%s",
                 (int)t->rank, (long long)t->sizes[0],
                 (long long)t->sizes[1], (long long)t->sizes[t->rank - 1],
                 t->training ? " train" : " eval", t->affine ? " affine" : "",
                 exact ? " exact" : "");
  etr_tensor_t *input = etr_diff_input(&c, t->dtype, t->rank, t->sizes,
                                       t->layout, t->fill);
  if (exact && t->dtype == ETR_FLOAT) {
    fill_balanced(input);
  }
  int64_t channels[1] = {t->param_size != 0 ? t->param_size : t->sizes[1]};
  etr_scalar_type_t param_dtype =
      t->dtype == ETR_DOUBLE ? ETR_DOUBLE : ETR_FLOAT;
  etr_diff_fill_t param_fill = exact ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
  if (t->affine) {
    etr_diff_input(&c, param_dtype, 1, channels, 0, param_fill);
    etr_diff_input(&c, param_dtype, 1, channels, 0, param_fill);
  } else {
    etr_diff_arg(&c, tt_ev_none());
    etr_diff_arg(&c, tt_ev_none());
  }
  if (t->has_stats) {
    etr_diff_input(&c, param_dtype, 1, channels, 0, param_fill);
    etr_diff_input(&c, param_dtype, 1, channels, 0, ETR_FILL_POSITIVE);
    // Updated in place: a private copy per run, compared like an out.
    c.aliases[3] = 3;
    c.aliases[4] = 4;
  }
  c.dtype = t->dtype;
  c.layout = t->layout;
  etr_diff_arg(&c, tt_ev_bool(t->training));
  etr_diff_arg(&c, tt_ev_double(exact ? 0.5 : 0.1));  // momentum
  etr_diff_arg(&c, tt_ev_double(exact ? 0.0 : t->eps));
  size_t first_out = c.num_args;
  if (t->rank == 4 && t->layout == ETR_DIFF_CHANNELS_LAST) {
    etr_diff_out(&c, t->dtype, 4, t->sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(&c, t->dtype, 1, (const int64_t[]){0}, 0,
                 etr_tensor_numel(input) + 8);
  }
  etr_diff_out(&c, param_dtype, 1, (const int64_t[]){0}, 0,
               channels[0] + 4);
  etr_diff_out(&c, param_dtype, 1, (const int64_t[]){0}, 0,
               channels[0] + 4);
  size_t outs[3] = {first_out, first_out + 1, first_out + 2};
  etr_diff_out_list(&c, 3, outs);
  if (exact) {
    etr_diff_tolerance_exact(&c);
  } else {
    double max_x = t->fill == ETR_FILL_SPECIAL ? 3.0e38 : 2.0;
    double alpha_max = 1.0 / sqrt(t->eps);
    etr_diff_tolerance_bound(&c, 8 * kU * (max_x * alpha_max + 4.0),
                             4 * kU);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_norm_train, edges_and_layouts) {
  int failures = 0;
  uint64_t seed = 30000;
  static const int64_t kInner[] = {2, 4, 8, 16, 18, 32, 34, 66};
  static const int64_t kChannels[] = {1, 3, 7, 8, 9, 16, 17, 33};
  for (size_t i = 0; i < sizeof(kInner) / sizeof(kInner[0]); ++i) {
    for (int has_stats = 0; has_stats < 2; ++has_stats) {
      for (int exact = 0; exact < 2; ++exact) {
        etr_diff_fill_t fill = exact ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
        int64_t c = kChannels[i];
        train_case_t nchw = {has_stats == 1, true, 4, {2, c, 3, kInner[i]},
                             0, ETR_FLOAT, fill, (i + (size_t)exact) % 2 == 0,
                             0, 1e-5};
        failures += run_train(&nchw, seed++);
        train_case_t nhwc = nchw;
        nhwc.sizes[1] = kChannels[(i + 3) % 8];
        nhwc.layout = ETR_DIFF_CHANNELS_LAST;
        failures += run_train(&nhwc, seed++);
        train_case_t ncl = {has_stats == 1, true, 3, {3, c, kInner[i], 0},
                            0, ETR_FLOAT, fill, true, 0, 1e-3};
        failures += run_train(&ncl, seed++);
        train_case_t nc = {has_stats == 1, true, 2, {kInner[i], c, 0, 0},
                           0, ETR_FLOAT, fill, false, 0, 1e-5};
        if (exact) {
          nc.sizes[0] = 2;  // one value of each sign per channel
          nc.sizes[1] = 2;
        }
        failures += run_train(&nc, seed++);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d training batch norm cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_norm_train, models_modes_and_errors) {
  int failures = 0;
  uint64_t seed = 31000;
  static const int64_t kModel[][4] = {
      {4, 16, 32, 32}, {8, 72, 8, 8}, {2, 144, 4, 4}, {1, 32, 16, 16}};
  for (size_t m = 0; m < sizeof(kModel) / sizeof(kModel[0]); ++m) {
    for (int layout = 0; layout < 3; layout += 2) {
      train_case_t t = {true, true, 4, {0}, (etr_diff_layout_t)layout,
                        ETR_FLOAT, m % 2 ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM,
                        true, 0, 1e-5};
      memcpy(t.sizes, kModel[m], sizeof(t.sizes));
      failures += run_train(&t, seed++);
    }
  }
  // Evaluation through .out (the inference driver), fallbacks, errors.
  train_case_t eval = {true, false, 4, {2, 5, 3, 8}, 0, ETR_FLOAT,
                       ETR_FILL_RANDOM, true, 0, 1e-5};
  failures += run_train(&eval, seed++);
  eval.layout = ETR_DIFF_CHANNELS_LAST;
  failures += run_train(&eval, seed++);
  train_case_t other = {true, true, 4, {2, 5, 3, 8}, ETR_DIFF_NONCONTIGUOUS,
                        ETR_FLOAT, ETR_FILL_RANDOM, true, 0, 1e-5};
  failures += run_train(&other, seed++);
  other.layout = 0;
  other.dtype = ETR_DOUBLE;
  failures += run_train(&other, seed++);
  other.dtype = ETR_HALF;
  failures += run_train(&other, seed++);
  train_case_t no_stats_eval = {false, false, 4, {2, 5, 3, 8}, 0, ETR_FLOAT,
                                ETR_FILL_RANDOM, true, 0, 1e-5};
  failures += run_train(&no_stats_eval, seed++);
  train_case_t empty = {true, true, 4, {0, 5, 3, 8}, 0, ETR_FLOAT,
                        ETR_FILL_RANDOM, true, 0, 1e-5};
  failures += run_train(&empty, seed++);
  train_case_t wrong = {true, true, 4, {2, 5, 3, 8}, 0, ETR_FLOAT,
                        ETR_FILL_RANDOM, true, 4, 1e-5};
  failures += run_train(&wrong, seed++);
  cr_assert_eq(failures, 0, "%d training batch norm cases disagree",
               failures);
}
