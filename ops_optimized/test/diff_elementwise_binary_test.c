// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the elementwise family's binary ops (add, sub,
// mul, div, maximum, minimum, the six comparisons, fmod and remainder,
// Tensor and Scalar overloads) against the reference kernels, on every
// ISA of this machine.
//
// Bounds: every one of these ops is exact (the reference's double result
// rounds to the float the optimized kernel computes, and Half/BFloat16
// round that float once), so every case compares bit for bit, NaN
// positions included, -0.0 distinct from +0.0 (ETR_DIFF_EXACT); add/sub
// with alpha != 1 too (computed in double like the reference).
//
// Cases, per op and dtype (Float, Half, BFloat16 specialized; Double and
// Int checked to agree: Int through the integer paths of the arithmetic
// ops, the others falling back): the tile-edge sizes of 16 lanes (0, 1, 15, 16,
// 17, 31, 32, 49, 67, 1008) in the patterns the kernels specialize (same
// shape; a Scalar, a 0-dim tensor of the dtype and of Double on either
// side; [N, C] op [C] and [C] op [N, C]; [N, C, H, W] op [1, C, 1, 1]
// contiguous (runs of H * W) and channels-last (runs of C); [N, 1] op
// [1, C]) and in ones they do not
// (non-contiguous views), random and special values (NaN, +-inf, -0.0,
// denormals, extremes), in place (out aliasing self). A dry run of each
// kernel must give the reference's out shape without touching data.
// add.out on Long and Int (integer_add below): same shape and one-element
// others, alphas 1, -1, 3 and near 2^62, values at the integer limits so
// a + alpha * b wraps; in place; mixed dtypes, a Double alpha (refused by
// both) and non-contiguous views (fallback). add, sub, mul, maximum,
// minimum and the comparisons on uint8, int8, int16, int32 and int64
// (integer_arithmetic below, binary/integer.h): every pattern and Scalar
// case of the float sweep, at the limits of each dtype so sums and
// products wrap.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/binary/binary.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

typedef struct binary_op {
  const char *tensor_name;  // the Tensor overload
  const char *scalar_name;  // the Scalar overload
  bool alpha;               // add/sub: alpha before out
  bool compare;             // Bool out
} binary_op_t;

static const binary_op_t kOps[] = {
    {"aten::add.out", "aten::add.Scalar_out", true, false},
    {"aten::sub.out", "aten::sub.Scalar_out", true, false},
    {"aten::mul.out", "aten::mul.Scalar_out", false, false},
    {"aten::div.out", "aten::div.Scalar_out", false, false},
    {"aten::maximum.out", NULL, false, false},
    {"aten::minimum.out", NULL, false, false},
    {"aten::eq.Tensor_out", "aten::eq.Scalar_out", false, true},
    {"aten::ne.Tensor_out", "aten::ne.Scalar_out", false, true},
    {"aten::lt.Tensor_out", "aten::lt.Scalar_out", false, true},
    {"aten::le.Tensor_out", "aten::le.Scalar_out", false, true},
    {"aten::gt.Tensor_out", "aten::gt.Scalar_out", false, true},
    {"aten::ge.Tensor_out", "aten::ge.Scalar_out", false, true},
    {"aten::fmod.Tensor_out", "aten::fmod.Scalar_out", false, false},
    {"aten::remainder.Tensor_out", "aten::remainder.Scalar_out", false,
     false},
};
#define NUM_OPS (sizeof(kOps) / sizeof(kOps[0]))

static const etr_scalar_type_t kFloatDtypes[] = {ETR_FLOAT, ETR_HALF,
                                                 ETR_BFLOAT16};

static uint64_t g_seed = 1;

// When set, finish() gives outs of exactly the result's shape (contiguous)
// instead of 1-D outs the kernel resizes: the only outs the dense fast
// path (binary/dense.c) takes.
static bool g_exact_out = false;

// Appends alpha (when the op has one), the out (resized by the kernel from
// a 1-D out with room, or of exactly `out_sizes` in channels-last) and the
// return slot, then runs the case.
static int finish(etr_diff_case_t *c, const binary_op_t *op,
                  etr_scalar_type_t dtype, double alpha, int32_t out_dim,
                  const int64_t *out_sizes, bool channels_last_out) {
  if (op->alpha) {
    etr_diff_arg(c, alpha == 1.0 ? tt_ev_int(1) : tt_ev_double(alpha));
  }
  size_t out_index = c->num_args;
  etr_scalar_type_t out_dtype = op->compare ? ETR_BOOL : dtype;
  if (channels_last_out) {
    etr_diff_out(c, out_dtype, out_dim, out_sizes, ETR_DIFF_CHANNELS_LAST,
                 0);
  } else if (g_exact_out) {
    etr_diff_out(c, out_dtype, out_dim, out_sizes, ETR_DIFF_CONTIGUOUS, 0);
  } else {
    int64_t numel = 1;
    for (int32_t i = 0; i < out_dim; ++i) {
      numel *= out_sizes[i];
    }
    etr_diff_out(c, out_dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 numel + 8);
  }
  etr_diff_return(c, out_index);
  etr_diff_tolerance_exact(c);
  return etr_diff_run(c);
}

// self (sizes_a) op other (sizes_b), both tensors of `dtype`.
static int run_tensors(const binary_op_t *op, etr_scalar_type_t dtype,
                       int32_t dim_a, const int64_t *sizes_a, int32_t dim_b,
                       const int64_t *sizes_b, etr_diff_layout_t layout,
                       etr_diff_fill_t fill, double alpha, const char *what) {
  etr_diff_case_t c;
  etr_diff_begin(&c, op->tensor_name, g_seed++, "%s %s alpha=%g", what,
                 fill == ETR_FILL_SPECIAL ? "special" : "random", alpha);
  etr_diff_input(&c, dtype, dim_a, sizes_a, layout, fill);
  etr_diff_input(&c, dtype, dim_b, sizes_b, layout, fill);
  int32_t dim = dim_a > dim_b ? dim_a : dim_b;
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t i = 0; i < dim; ++i) {
    int32_t ia = i - (dim - dim_a);
    int32_t ib = i - (dim - dim_b);
    int64_t a = ia >= 0 ? sizes_a[ia] : 1;
    int64_t b = ib >= 0 ? sizes_b[ib] : 1;
    sizes[i] = a == 1 ? b : a;
  }
  bool channels_last_out = layout == ETR_DIFF_CHANNELS_LAST && dim == 4;
  return finish(&c, op, dtype, alpha, dim, sizes, channels_last_out);
}

// Every broadcast pattern at one size n.
static int run_patterns(const binary_op_t *op, etr_scalar_type_t dtype,
                        int64_t n) {
  int failures = 0;
  for (int fill = 0; fill < 2; ++fill) {
    etr_diff_fill_t data = fill ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM;
    for (int layout = 0; layout < 3; ++layout) {
      etr_diff_layout_t l = (etr_diff_layout_t)layout;
      // Same shape, rank 2 (rank 4 for channels-last).
      if (l == ETR_DIFF_CHANNELS_LAST) {
        int64_t s[4] = {2, n, 1, 2};
        failures += run_tensors(op, dtype, 4, s, 4, s, l, data, 1.0,
                                "same shape nhwc");
      } else {
        int64_t s[2] = {2, n};
        failures += run_tensors(op, dtype, 2, s, 2, s, l, data, 1.0,
                                "same shape");
      }
    }
    // Bias add and its mirror.
    int64_t rows[2] = {3, n};
    int64_t row[1] = {n};
    failures += run_tensors(op, dtype, 2, rows, 1, row, ETR_DIFF_CONTIGUOUS,
                            data, 1.0, "[3,n] op [n]");
    failures += run_tensors(op, dtype, 1, row, 2, rows, ETR_DIFF_CONTIGUOUS,
                            data, 1.0, "[n] op [3,n]");
    // Per channel, both orders: contiguous with runs of H * W = n, and
    // channels-last with runs of C = n.
    int64_t nchw[4] = {2, 3, 1, n};
    int64_t channel[4] = {1, 3, 1, 1};
    failures += run_tensors(op, dtype, 4, nchw, 4, channel,
                            ETR_DIFF_CONTIGUOUS, data, 1.0,
                            "[2,3,1,n] op [1,3,1,1]");
    failures += run_tensors(op, dtype, 4, channel, 4, nchw,
                            ETR_DIFF_CONTIGUOUS, data, 1.0,
                            "[1,3,1,1] op [2,3,1,n]");
    // One image: the runs of all channels in one rows-kernel call, kept
    // in the memo for the vouched second call (elementwise.c's run_rows).
    int64_t image[4] = {1, 3, 1, n};
    failures += run_tensors(op, dtype, 4, image, 4, channel,
                            ETR_DIFF_CONTIGUOUS, data, 1.0,
                            "[1,3,1,n] op [1,3,1,1]");
    failures += run_tensors(op, dtype, 4, channel, 4, image,
                            ETR_DIFF_CONTIGUOUS, data, 1.0,
                            "[1,3,1,1] op [1,3,1,n]");
    int64_t nhwc[4] = {2, n, 1, 2};
    int64_t channels[4] = {1, n, 1, 1};
    failures += run_tensors(op, dtype, 4, nhwc, 4, channels,
                            ETR_DIFF_CHANNELS_LAST, data, 1.0,
                            "[2,n,1,2] op [1,n,1,1] channels-last");
    failures += run_tensors(op, dtype, 4, channels, 4, nhwc,
                            ETR_DIFF_CHANNELS_LAST, data, 1.0,
                            "[1,n,1,1] op [2,n,1,2] channels-last");
    // Outer product shape.
    int64_t column[2] = {4, 1};
    int64_t line[2] = {1, n};
    failures += run_tensors(op, dtype, 2, column, 2, line,
                            ETR_DIFF_CONTIGUOUS, data, 1.0, "[4,1] op [1,n]");
    if (op->alpha) {  // alpha != 1 (double path), and alpha -1
      int64_t s[2] = {2, n};
      failures += run_tensors(op, dtype, 2, s, 2, s, ETR_DIFF_CONTIGUOUS,
                              data, 0.3, "same shape");
      failures += run_tensors(op, dtype, 2, rows, 1, row,
                              ETR_DIFF_CONTIGUOUS, data, -1.0,
                              "[3,n] op [n]");
      failures += run_tensors(op, dtype, 2, s, 2, s, ETR_DIFF_CONTIGUOUS,
                              data, 1e30, "same shape");
    }
  }
  return failures;
}

// self op a single value: a Scalar argument, a 0-dim tensor of `dtype` or
// of Double, on either side; and in place.
static int run_scalars(const binary_op_t *op, etr_scalar_type_t dtype,
                       int64_t n) {
  static const double kValues[] = {0.75, -0.0, 3.0, 1e-3, 70000.0};
  int failures = 0;
  int64_t sizes[2] = {2, n};
  for (size_t v = 0; v < sizeof(kValues) / sizeof(kValues[0]); ++v) {
    double value = kValues[v];
    etr_diff_fill_t data = v % 2 ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM;
    if (op->scalar_name != NULL) {
      etr_diff_case_t c;
      etr_diff_begin(&c, op->scalar_name, g_seed++, "[2,%lld] op %g",
                     (long long)n, value);
      etr_diff_input(&c, dtype, 2, sizes, ETR_DIFF_CONTIGUOUS, data);
      etr_diff_arg(&c, v == 2 ? tt_ev_int(3) : tt_ev_double(value));
      failures += finish(&c, op, dtype, v == 1 ? 2.0 : 1.0, 2, sizes, false);
    }
    for (int side = 0; side < 2; ++side) {
      for (int wide = 0; wide < 2; ++wide) {
        etr_scalar_type_t zero_dim_dtype = wide ? ETR_DOUBLE : dtype;
        etr_tensor_t *scalar = tt_scalar_tensor(zero_dim_dtype, value);
        etr_diff_case_t c;
        etr_diff_begin(&c, op->tensor_name, g_seed++,
                       "%s0-dim %s %g, n=%lld", side ? "" : "x op ",
                       etr_scalar_type_name(zero_dim_dtype), value,
                       (long long)n);
        if (side) {
          etr_diff_arg(&c, tt_ev_tensor(scalar));
        }
        etr_diff_input(&c, dtype, 2, sizes, ETR_DIFF_CONTIGUOUS, data);
        if (!side) {
          etr_diff_arg(&c, tt_ev_tensor(scalar));
        }
        failures += finish(&c, op, dtype, 1.0, 2, sizes, false);
      }
    }
  }
  if (!op->compare) {  // in place: out is self
    etr_diff_case_t c;
    etr_diff_begin(&c, op->tensor_name, g_seed++, "in place, n=%lld",
                   (long long)n);
    etr_diff_input(&c, dtype, 2, sizes, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    etr_diff_input(&c, dtype, 1, &sizes[1], ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    if (op->alpha) {
      etr_diff_arg(&c, tt_ev_double(0.5));
    }
    size_t out_index = c.num_args;
    etr_diff_out_aliasing(&c, 0);
    etr_diff_return(&c, out_index);
    etr_diff_tolerance_exact(&c);
    failures += etr_diff_run(&c);
  }
  return failures;
}

static int run_op(const binary_op_t *op) {
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  for (size_t d = 0; d < sizeof(kFloatDtypes) / sizeof(kFloatDtypes[0]);
       ++d) {
    for (size_t s = 0; s < count; ++s) {
      failures += run_patterns(op, kFloatDtypes[d], sizes[s]);
      failures += run_scalars(op, kFloatDtypes[d], sizes[s]);
    }
  }
  // Dtypes the kernels leave to the reference.
  static const etr_scalar_type_t kOthers[] = {ETR_DOUBLE, ETR_INT};
  for (size_t d = 0; d < 2; ++d) {
    int64_t s[2] = {3, 17};
    failures += run_tensors(op, kOthers[d], 2, s, 2, s, ETR_DIFF_CONTIGUOUS,
                            ETR_FILL_RANDOM, 1.0, "fallback dtype");
  }
  // Mixed tensor dtypes (Float with Half) are not specialized either.
  etr_diff_case_t c;
  etr_diff_begin(&c, op->tensor_name, g_seed++, "Float op Half");
  etr_diff_input(&c, ETR_FLOAT, 1, (const int64_t[]){33},
                 ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
  etr_diff_input(&c, ETR_HALF, 1, (const int64_t[]){33}, ETR_DIFF_CONTIGUOUS,
                 ETR_FILL_RANDOM);
  failures += finish(&c, op, ETR_FLOAT, 1.0, 1, (const int64_t[]){33}, false);
  return failures;
}

#define BINARY_TEST(index, name)                                       \
  TT_TEST(diff_elementwise_binary, name) {                             \
    uint64_t specialized = etr_diff_stats()->specialized;              \
    cr_assert_eq(run_op(&kOps[index]), 0, "%s disagrees",              \
                 kOps[index].tensor_name);                             \
    cr_assert_gt(etr_diff_stats()->specialized, specialized,           \
                 "%s never took its fast path", kOps[index].tensor_name); \
  }

BINARY_TEST(0, add)
BINARY_TEST(1, sub)
BINARY_TEST(2, mul)
BINARY_TEST(3, div)
BINARY_TEST(4, maximum)
BINARY_TEST(5, minimum)
BINARY_TEST(6, eq)
BINARY_TEST(7, ne)
BINARY_TEST(8, lt)
BINARY_TEST(9, le)
BINARY_TEST(10, gt)
BINARY_TEST(11, ge)
BINARY_TEST(12, fmod)
BINARY_TEST(13, remainder)

// div.out_mode: rounding_mode None is true division, "trunc" and "floor"
// the float formulas of binary/binary.h (all specialized, all exact).
TT_TEST(diff_elementwise_binary, div_out_mode) {
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  uint64_t specialized = etr_diff_stats()->specialized;
  for (size_t d = 0; d < sizeof(kFloatDtypes) / sizeof(kFloatDtypes[0]);
       ++d) {
    for (size_t s = 0; s < count; ++s) {
      for (int mode = 0; mode < 3; ++mode) {
        int64_t shape[2] = {3, sizes[s]};
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::div.out_mode", g_seed++, "mode %d n=%lld",
                       mode, (long long)sizes[s]);
        etr_diff_input(&c, kFloatDtypes[d], 2, shape, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_SPECIAL);
        etr_diff_input(&c, kFloatDtypes[d], 1, &shape[1],
                       ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
        etr_diff_arg(&c, mode == 0   ? tt_ev_none()
                         : mode == 1 ? tt_ev_string("trunc")
                                     : tt_ev_string("floor"));
        etr_diff_out(&c, kFloatDtypes[d], 1, (const int64_t[]){0},
                     ETR_DIFF_CONTIGUOUS, 3 * sizes[s] + 8);
        etr_diff_return(&c, 3);
        etr_diff_tolerance_exact(&c);
        failures += etr_diff_run(&c);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d div.out_mode cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, specialized);
}

// ---------------------------------------------------------------------------
// Dry runs: the optimized kernel must check, resize out to the reference's
// shape and return OK without touching data (every data pointer is NULL).

static etr_kernel_fn find_kernel(const etr_kernel_registration_t *table,
                                 size_t count, const char *name) {
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(table[i].name, name) == 0) {
      return table[i].fn;
    }
  }
  return NULL;
}

// An out-like tensor: 1-D, empty, room for 64 elements, no data.
static etr_tensor_t *dry_out(etr_scalar_type_t dtype) {
  etr_tensor_t *out = tt_out(dtype, 1, (const int64_t[]){0}, 64);
  out->data = NULL;
  return out;
}

static etr_tensor_t *dry_input(etr_scalar_type_t dtype, int32_t dim,
                               const int64_t *sizes) {
  etr_tensor_t *t = tt_tensor(dtype, dim, sizes, NULL);
  t->data = NULL;
  return t;
}

TT_TEST(diff_elementwise_binary, dry_run) {
  for (size_t i = 0; i < NUM_OPS; ++i) {
    const binary_op_t *op = &kOps[i];
    etr_scalar_type_t out_dtype = op->compare ? ETR_BOOL : ETR_HALF;
    etr_tensor_t *outs[2] = {dry_out(out_dtype), dry_out(out_dtype)};
    etr_error_t status[2];
    for (int variant = 0; variant < 2; ++variant) {
      etr_kernel_fn kernel =
          variant == 0
              ? find_kernel(etr_reference_kernels, etr_reference_kernel_count,
                            op->tensor_name)
              : find_kernel(etr_optimized_kernels, etr_optimized_kernel_count,
                            op->tensor_name);
      cr_assert_not_null(kernel);
      etr_evalue_t *args[6];
      size_t n = 0;
      args[n++] = tt_ev_tensor(dry_input(ETR_HALF, 2, (const int64_t[]){3, 5}));
      args[n++] = tt_ev_tensor(dry_input(ETR_HALF, 1, (const int64_t[]){5}));
      if (op->alpha) {
        args[n++] = tt_ev_double(2.0);
      }
      args[n] = tt_ev_tensor(outs[variant]);
      args[n + 1] = args[n];
      n += 2;
      etr_diag_t diag;
      etr_diag_reset(&diag);
      etr_kernel_context_t ctx = {.diag = &diag, .op_name = op->tensor_name,
                                  .dry_run = true};
      uint64_t fallbacks = etr_opt_fallback_calls;
      status[variant] = kernel(&ctx, args, n);
      if (variant == 1) {
        cr_expect_eq(etr_opt_fallback_calls, fallbacks,
                     "%s: the dry run fell back", op->tensor_name);
      }
    }
    cr_expect_eq(status[0], ETR_OK, "%s", op->tensor_name);
    cr_expect_eq(status[1], ETR_OK, "%s", op->tensor_name);
    cr_expect(etr_tensor_same_shape(outs[0], outs[1]), "%s: out shape",
              op->tensor_name);
  }
}

// add.out on Long and Int tensors: wrap-around a + alpha * b in int64,
// then wrapped to the dtype (exact).
static int run_integer_add(etr_scalar_type_t dtype, etr_scalar_type_t other,
                           int32_t dim_b, const int64_t *sizes_b, int64_t n,
                           etr_evalue_t *alpha, etr_diff_layout_t layout,
                           bool in_place) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::add.out", g_seed++, "%s + %s n=%lld%s",
                 etr_scalar_type_name(dtype), etr_scalar_type_name(other),
                 (long long)n, in_place ? " in place" : "");
  int64_t sizes[2] = {2, n};
  etr_tensor_t *tensors[2];
  tensors[0] = etr_diff_input(&c, dtype, 2, sizes, layout, ETR_FILL_SPECIAL);
  tensors[1] =
      etr_diff_input(&c, other, dim_b, sizes_b != NULL ? sizes_b : sizes,
                     layout, ETR_FILL_SPECIAL);
  // Limits, so sums and products wrap.
  for (int t = 0; t < 2; ++t) {
    if (tensors[t]->dtype != ETR_LONG || !etr_tensor_is_dense(tensors[t])) {
      continue;
    }
    int64_t *values = (int64_t *)tensors[t]->data;
    int64_t numel = etr_tensor_numel(tensors[t]);
    for (int64_t i = 0; i < numel; ++i) {
      uint64_t pick = etr_diff_next(&c) % 8;
      values[i] = pick == 0   ? INT64_MAX
                  : pick == 1 ? INT64_MIN
                  : pick == 2 ? (int64_t)etr_diff_next(&c)
                              : values[i];
    }
  }
  etr_diff_arg(&c, alpha);
  if (in_place) {
    etr_diff_out_aliasing(&c, 0);
  } else {
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 2 * n + 8);
  }
  etr_diff_return(&c, 3);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_elementwise_binary, add_integers) {
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  uint64_t specialized = etr_diff_stats()->specialized;
  int failures = 0;
  static const etr_scalar_type_t kDtypes[] = {ETR_LONG, ETR_INT};
  const int64_t one[1] = {1};
  for (size_t d = 0; d < 2; ++d) {
    etr_scalar_type_t dtype = kDtypes[d];
    for (size_t s = 0; s < count; ++s) {
      int64_t n = sizes[s];
      etr_evalue_t *alphas[4] = {tt_ev_int(1), tt_ev_int(-1), tt_ev_int(3),
                                 tt_ev_int(((int64_t)1 << 62) + 5)};
      for (int a = 0; a < 4; ++a) {
        failures += run_integer_add(dtype, dtype, 2, NULL, n, alphas[a],
                                    ETR_DIFF_CONTIGUOUS, false);
      }
      failures += run_integer_add(dtype, dtype, 1, one, n, tt_ev_int(7),
                                  ETR_DIFF_CONTIGUOUS, false);
      failures += run_integer_add(dtype, dtype, 0, NULL, n, tt_ev_int(-2),
                                  ETR_DIFF_CONTIGUOUS, false);
      failures += run_integer_add(dtype, dtype, 2, NULL, n, tt_ev_int(2),
                                  ETR_DIFF_CONTIGUOUS, true);
    }
    // The mutable_buffer model's Long[1] + Long[1]; fallbacks: a view, a
    // mixed dtype; a Double alpha (both refuse).
    failures += run_integer_add(dtype, dtype, 1, one, 1, tt_ev_int(1),
                                ETR_DIFF_CONTIGUOUS, false);
    failures += run_integer_add(dtype, dtype, 2, NULL, 17, tt_ev_int(1),
                                ETR_DIFF_NONCONTIGUOUS, false);
    failures += run_integer_add(dtype, dtype == ETR_LONG ? ETR_INT : ETR_LONG,
                                2, NULL, 17, tt_ev_int(1),
                                ETR_DIFF_CONTIGUOUS, false);
    failures += run_integer_add(dtype, dtype, 2, NULL, 17, tt_ev_double(0.5),
                                ETR_DIFF_CONTIGUOUS, false);
  }
  cr_assert_eq(failures, 0, "%d integer add cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, specialized,
               "integer add never took its fast path");
}

// add, sub, mul, maximum, minimum and the six comparisons on every integer
// dtype through binary/integer.h: the float sweep's patterns (same shape, bias,
// per-channel, outer product, channels-last; non-contiguous views fall
// back) and Scalar cases (an Int Scalar and 0-dim tensors; Double ones
// give a Float result the integer outs refuse, in both kernels), random
// and special data (the dtype's limits: sums and products wrap).
TT_TEST(diff_elementwise_binary, integer_arithmetic) {
  static const size_t kArith[] = {0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11};
  static const etr_scalar_type_t kIntegers[] = {ETR_BYTE, ETR_CHAR, ETR_SHORT,
                                                ETR_INT, ETR_LONG};
  static const int64_t kSizes[] = {1, 15, 16, 17, 67};
  int failures = 0;
  for (size_t o = 0; o < sizeof(kArith) / sizeof(kArith[0]); ++o) {
    const binary_op_t *op = &kOps[kArith[o]];
    uint64_t specialized = etr_diff_stats()->specialized;
    for (size_t d = 0; d < 5; ++d) {
      for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
        failures += run_patterns(op, kIntegers[d], kSizes[s]);
        failures += run_scalars(op, kIntegers[d], kSizes[s]);
      }
    }
    cr_expect_gt(etr_diff_stats()->specialized, specialized,
                 "%s never took the integer path", op->tensor_name);
    // Int Scalars outside the dtype (wrapped to it, as the reference
    // converts them).
    for (size_t d = 0; d < 4 && op->scalar_name != NULL; ++d) {
      static const int64_t kOutside[] = {300, -129, 40000, (int64_t)1 << 40};
      int64_t sizes[2] = {2, 17};
      etr_diff_case_t c;
      etr_diff_begin(&c, op->scalar_name, g_seed++, "%s op %lld",
                     etr_scalar_type_name(kIntegers[d]),
                     (long long)kOutside[d]);
      etr_diff_input(&c, kIntegers[d], 2, sizes, ETR_DIFF_CONTIGUOUS,
                     ETR_FILL_SPECIAL);
      etr_diff_arg(&c, tt_ev_int(kOutside[d]));
      failures += finish(&c, op, kIntegers[d], 1.0, 2, sizes, false);
    }
  }
  cr_assert_eq(failures, 0, "%d integer arithmetic cases disagree",
               failures);
}

// The dense fast path of add, sub and mul (binary/dense.c): every pattern
// and scalar case above again with outs of the exact result shape, in
// Float (fast where dense and same-shape or one-element, general
// otherwise), Half (general), Long (fast for add and sub, the integer
// path for mul); in place; Long wrap-around at the extremes; an out of another
// shape and a non-Int alpha (general).
TT_TEST(diff_elementwise_binary, dense_fast_path) {
  g_exact_out = true;
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_LONG};
  for (size_t o = 0; o < 3; ++o) {
    const binary_op_t *op = &kOps[o];
    for (size_t d = 0; d < 2; ++d) {
      for (size_t s = 0; s < count; ++s) {
        failures += run_patterns(op, kDtypes[d], sizes[s]);
        failures += run_scalars(op, kDtypes[d], sizes[s]);
      }
    }
    failures += run_patterns(op, ETR_HALF, 17);
    for (int alias = 0; alias < 2; ++alias) {  // out is self, then other
      for (int64_t n = 1; n < 40; n += 19) {
        int64_t shape[3] = {1, 2, n};
        etr_diff_case_t c;
        etr_diff_begin(&c, op->tensor_name, g_seed++,
                       "dense in place (arg %d), n=%lld", alias,
                       (long long)n);
        etr_diff_input(&c, ETR_FLOAT, 3, shape, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_SPECIAL);
        etr_diff_input(&c, ETR_FLOAT, 3, shape, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_SPECIAL);
        if (op->alpha) {
          etr_diff_arg(&c, tt_ev_int(1));
        }
        size_t out_index = c.num_args;
        etr_diff_out_aliasing(&c, (size_t)alias);
        etr_diff_return(&c, out_index);
        etr_diff_tolerance_exact(&c);
        failures += etr_diff_run(&c);
      }
    }
    // Long extremes wrap around; one-element operands both ways.
    static const int64_t kWide[4] = {INT64_MAX, INT64_MIN, -1, 0};
    static const int64_t kOne[1] = {INT64_MAX};
    for (int side = 0; side < 3; ++side) {
      etr_diff_case_t c;
      etr_diff_begin(&c, op->tensor_name, g_seed++, "Long extremes %d",
                     side);
      etr_tensor_t *wide = tt_tensor_i64(ETR_LONG, 1, (const int64_t[]){4},
                                         kWide);
      etr_tensor_t *one =
          side == 2 ? tt_tensor_i64(ETR_LONG, 1, (const int64_t[]){4}, kWide)
                    : tt_tensor_i64(ETR_LONG, 0, NULL, kOne);
      etr_diff_arg(&c, tt_ev_tensor(side == 1 ? one : wide));
      etr_diff_arg(&c, tt_ev_tensor(side == 1 ? wide : one));
      c.dtype = ETR_LONG;
      failures += finish(&c, op, ETR_LONG, 1.0, 1, (const int64_t[]){4},
                         false);
    }
    // Another out shape, and alpha 1.0 as a Double: the general path.
    int64_t shape[2] = {3, 5};
    etr_diff_case_t c;
    etr_diff_begin(&c, op->tensor_name, g_seed++, "dense, other out shape");
    etr_diff_input(&c, ETR_FLOAT, 2, shape, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_RANDOM);
    etr_diff_input(&c, ETR_FLOAT, 2, shape, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_RANDOM);
    if (op->alpha) {
      etr_diff_arg(&c, tt_ev_double(1.0));
    }
    size_t out_index = c.num_args;
    etr_diff_out(&c, ETR_FLOAT, 2, (const int64_t[]){5, 3},
                 ETR_DIFF_CONTIGUOUS, 0);
    etr_diff_return(&c, out_index);
    etr_diff_tolerance_exact(&c);
    failures += etr_diff_run(&c);
  }
  // Comparisons with a Scalar (etr_compare_dense_scalar), a 0-dim self
  // among them.
  for (size_t o = 6; o < 12; ++o) {
    for (size_t s = 0; s < count; ++s) {
      failures += run_scalars(&kOps[o], ETR_FLOAT, sizes[s]);
    }
    static const double kValues[] = {0.0, -0.0, 1.0 / 3.0, NAN};
    for (size_t v = 0; v < 4; ++v) {
      etr_diff_case_t c;
      etr_diff_begin(&c, kOps[o].scalar_name, g_seed++, "0-dim op %g",
                     kValues[v]);
      etr_diff_input(&c, ETR_FLOAT, 0, NULL, ETR_DIFF_CONTIGUOUS,
                     ETR_FILL_SPECIAL);
      etr_diff_arg(&c, v == 0 ? tt_ev_int(0) : tt_ev_double(kValues[v]));
      failures += finish(&c, &kOps[o], ETR_FLOAT, 1.0, 0, NULL, false);
    }
  }
  cr_assert_eq(failures, 0, "%d dense binary cases disagree", failures);
}

// The rows kernels (binary.h's etr_binary_rows_t: the per-channel and
// bias-row broadcasts in one call) of every ISA this machine has, called
// directly: rows of whole runs (vector operands a run or a wider pitch
// apart, or the same run again) and per-row values (1 or 2 apart, or the
// same one), the three operand shapes, every op that has one, against
// the same table's per-run kernels row by row. The bits must be the same
// (NaN payloads aside) and the gaps between out rows untouched.
// A random float of either sign with magnitude in [2^-20, 2^20), or one
// of the 8 `specials` for about one draw in `special_every`.
static float rows_value(uint64_t *state, uint32_t special_every,
                        const float *specials) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  const uint32_t r = (uint32_t)(*state >> 32);
  if (r % special_every == 0) {
    return specials[(r >> 4) % 8];
  }
  const float v =
      ldexpf(1.0f + (float)(r >> 9) * 0x1p-23f, (int)(r % 40) - 20);
  return r & 2u ? -v : v;
}

TT_TEST(diff_elementwise_binary, rows_kernels) {
  static const etr_binary_op_t kRowOps[] = {
      ETR_BINARY_ADD,     ETR_BINARY_SUB,     ETR_BINARY_MUL,
      ETR_BINARY_DIV,     ETR_BINARY_MAXIMUM, ETR_BINARY_MINIMUM};
  static const float kSpecial[] = {0.0f,  -0.0f,     INFINITY, -INFINITY,
                                   NAN,   0x1p-149f, -3.5f,    0x1.fffffep127f};
  static const size_t kRuns[] = {1, 3, 15, 16, 17, 33, 64};
  enum { kRows = 5, kPad = 3, kMax = kRows * (64 + kPad) + 8 };
  static float a[kMax];
  static float b[kMax];
  static float got[kMax];
  static float want[kMax];
  uint64_t state = g_seed++;
  for (size_t i = 0; i < kMax; ++i) {
    a[i] = rows_value(&state, 13, kSpecial);
    b[i] = rows_value(&state, 11, kSpecial);
  }
  int failures = 0;
  int calls = 0;
  for (int isa = ETR_ISA_SCALAR; isa <= ETR_ISA_NEON; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    const etr_f32_binary_kernels_t *k = etr_f32_binary_for((etr_isa_t)isa);
    for (size_t o = 0; o < sizeof(kRowOps) / sizeof(kRowOps[0]); ++o) {
      const etr_binary_op_t op = kRowOps[o];
      cr_assert_not_null(k->rows[op], "%s: no rows kernel for op %d",
                         etr_isa_name((etr_isa_t)isa), (int)op);
      for (size_t l = 0; l < sizeof(kRuns) / sizeof(kRuns[0]); ++l) {
        const size_t n = kRuns[l];
        for (int shape = 0; shape < 3; ++shape) {  // vv, vs, sv
          for (int pitch = 0; pitch < 3; ++pitch) {
            // Vector rows a run apart, a wider pitch, or repeated; values
            // 1, 2 or 0 apart.
            const ptrdiff_t vector_stride =
                pitch == 0 ? (ptrdiff_t)n
                           : pitch == 1 ? (ptrdiff_t)(n + kPad) : 0;
            const ptrdiff_t value_stride = pitch == 2 ? 0 : pitch + 1;
            etr_binary_rows_t rows = {
                .rows = kRows,
                .n = n,
                .a = a + 1,
                .a_stride = shape == 2 ? value_stride : vector_stride,
                .a_vector = shape != 2,
                .b = b + 2,
                .b_stride = shape == 1 ? value_stride : (ptrdiff_t)n + 1,
                .b_vector = shape != 1,
                .y = got + 3,
                .y_stride = (ptrdiff_t)(n + (pitch == 1 ? kPad : 0))};
            for (size_t i = 0; i < kMax; ++i) {
              got[i] = want[i] = (float)i;  // the gaps
            }
            const etr_binary_params_t params = {.alpha = 0.0};
            for (size_t r = 0; r < kRows; ++r) {
              const float *ra = rows.a + (ptrdiff_t)r * rows.a_stride;
              const float *rb = rows.b + (ptrdiff_t)r * rows.b_stride;
              float *ry = want + 3 + (ptrdiff_t)r * rows.y_stride;
              if (shape == 0) {
                k->vv[op](n, ra, rb, ry, &params);
              } else if (shape == 1) {
                k->vs[op](n, ra, *rb, ry, &params);
              } else {
                k->sv[op](n, *ra, rb, ry, &params);
              }
            }
            k->rows[op](&rows, &params);
            ++calls;
            for (size_t i = 0; i < kMax; ++i) {
              if (memcmp(&got[i], &want[i], sizeof(float)) != 0 &&
                  !(isnan(got[i]) && isnan(want[i]))) {
                if (++failures <= 5) {
                  cr_log_error("%s op %d shape %d pitch %d n %zu: [%zu] "
                               "%a, per-run kernels %a",
                               etr_isa_name((etr_isa_t)isa), (int)op, shape,
                               pitch, n, i, got[i], want[i]);
                }
                break;
              }
            }
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d rows kernel calls disagree", failures);
  cr_assert_gt(calls, 0);
}

// The driver's rows path with a constant operand (a 0-dim Double tensor,
// on either side) and a row-pitched Float view ([3, n] rows n + 4 apart,
// innermost stride 1): the runs cannot merge, so every row is one row of
// the rows kernel, reading the constant with stride 0.
TT_TEST(diff_elementwise_binary, rows_with_constant) {
  int failures = 0;
  for (size_t o = 0; o < 6; ++o) {
    for (int64_t n = 1; n <= 33; n += 16) {
      for (int side = 0; side < 2; ++side) {
        etr_diff_case_t c;
        etr_diff_begin(&c, kOps[o].tensor_name, g_seed++,
                       "[3,%lld] rows %lld apart %s 0-dim Double",
                       (long long)n, (long long)n + 4,
                       side ? "after" : "before");
        double values[3 * 37];
        for (int64_t i = 0; i < 3 * (n + 4); ++i) {
          values[i] = i % 7 == 0 ? -0.0 : (double)(i % 19) * 0.37 - 3.0;
        }
        etr_tensor_t *view =
            tt_tensor(ETR_FLOAT, 2, (const int64_t[]){3, n + 4}, values);
        view->sizes[1] = n;  // strides stay {n + 4, 1}
        etr_tensor_t *value = tt_scalar_tensor(ETR_DOUBLE, 1.25);
        etr_diff_arg(&c, tt_ev_tensor(side ? value : view));
        etr_diff_arg(&c, tt_ev_tensor(side ? view : value));
        c.dtype = ETR_FLOAT;
        failures += finish(&c, &kOps[o], ETR_FLOAT, 1.0, 2,
                           (const int64_t[]){3, n}, false);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}
