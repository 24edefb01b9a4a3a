// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized reductions (sum, mean, var, amax,
// amin, max.dim, min.dim, argmax, argmin, any; ops_optimized/reduce/)
// against the reference kernels, on every ISA this machine has.
//
// Shapes: innermost rows, middle and outer columns and every dim, with the
// reduced length (rows) or the kept inner length (columns) swept over the
// tile edges of 8, 16, 32 and 64 lanes (0, 1, w-1, w, w+1, ... and large);
// multi-dim reductions, keepdim both ways, channels-last inputs (columns
// over N,H,W -> C, rows over C) with contiguous and channels-last outs,
// non-contiguous inputs (fallback), Float/Half/BFloat16 (Half and
// BFloat16 computed in fp32, into their own dtype or Float), Double
// (fallback), uint8 and int8..int64 (sum, amax, amin, max.dim, min.dim,
// argmax, argmin: reduce/integer.c; sums into Long and into their own
// dtype, which wraps), and argument errors (both must reject).
//
// Tolerances (reduce.h explains the numerics):
//   max/min/argmax/argmin/any   exact, NaN placement and first-occurrence
//                               ties included;
//   integer outs                exact;
//   sum, mean                   exact with ETR_FILL_EXACT_INT; otherwise
//                               |opt - ref| <= 2 gamma_n(double) n max|x|
//                               + ulp_out(|ref|) (double accumulation in
//                               another order, then one rounding each);
//   var                         |opt - ref| <= (ulp_out + 4 n 2^-53) |ref|
//                               (sums of squares do not cancel);
// plus the smallest subnormal of the out dtype.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/test/diff.h"

typedef enum dims_kind {
  DIMS_LIST = 0,  // the dims in `dims`
  DIMS_ALL = 1,   // None (or [] where None is not allowed)
} dims_kind_t;

typedef struct reduce_spec {
  const char *op;
  etr_scalar_type_t dtype;
  etr_scalar_type_t out_dtype;  // values out (Long outs are implied)
  int32_t rank;
  int64_t sizes[4];
  etr_diff_layout_t layout;
  etr_diff_fill_t fill;
  dims_kind_t dims_kind;
  int64_t dims[4];
  size_t num_dims;
  bool keepdim;
  bool out_channels_last;  // rank-4 keepdim outs laid out channels-last
} reduce_spec_t;

static const char *const kListOps[] = {
    "aten::sum.IntList_out", "aten::mean.out",    "aten::var.correction_out",
    "aten::var.out",         "aten::amax.out",    "aten::amin.out",
    "aten::any.dims_out",
};
static const char *const kSingleDimOps[] = {
    "aten::max.dim_max", "aten::min.dim_min", "aten::argmax.out",
    "aten::argmin.out",  "aten::any.out",
};

static bool op_is(const reduce_spec_t *s, const char *name) {
  return strcmp(s->op, name) == 0;
}

static bool is_exact_op(const reduce_spec_t *s) {
  return !(op_is(s, "aten::sum.IntList_out") || op_is(s, "aten::mean.out") ||
           op_is(s, "aten::mean.dtype_out") ||
           op_is(s, "aten::var.correction_out") || op_is(s, "aten::var.out"));
}

static double unit_of(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_HALF:
      return 0x1p-10;
    case ETR_BFLOAT16:
      return 0x1p-7;
    case ETR_DOUBLE:
      return 0x1p-52;
    default:
      return 0x1p-23;
  }
}

static double smallest_subnormal(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_HALF:
      return 0x1p-24;
    case ETR_BFLOAT16:
      return 0x1p-133;
    default:
      return 0x1p-149;
  }
}

static double max_abs_of(etr_diff_fill_t fill) {
  switch (fill) {
    case ETR_FILL_POSITIVE:
      return 2.0;
    case ETR_FILL_EXACT_INT:
      return 4.0;
    case ETR_FILL_SPECIAL:
      return 3.0e38;
    default:
      return 1.0;
  }
}

static etr_evalue_t *dims_arg(const reduce_spec_t *s, bool none_allowed) {
  if (s->dims_kind == DIMS_ALL) {
    return none_allowed ? tt_ev_none() : tt_ev_int_list(0, NULL);
  }
  return tt_ev_int_list(s->num_dims, s->dims);
}

static etr_evalue_t *single_dim_arg(const reduce_spec_t *s) {
  if (s->dims_kind == DIMS_ALL) {
    return tt_ev_none();  // argmax/argmin only
  }
  return tt_ev_int(s->dims[0]);
}

// Appends an out for the values (or indices) of the reduction.
// When set, any.all_out gets an out that is already 0-dim (the only out
// its dense fast path takes) instead of a 1-D one it resizes.
static bool g_exact_any_out = false;

// When set, sum.IntList_out over a list of dims gets an out already of
// the reduced shape (contiguous): the only out its tiny dense path takes.
static bool g_exact_sum_out = false;

static void add_out(etr_diff_case_t *c, const reduce_spec_t *s,
                    etr_scalar_type_t dtype, int64_t spare) {
  if (g_exact_any_out && op_is(s, "aten::any.all_out")) {
    etr_diff_out(c, dtype, 0, NULL, ETR_DIFF_CONTIGUOUS, 0);
    return;
  }
  if (g_exact_sum_out && op_is(s, "aten::sum.IntList_out") &&
      s->dims_kind == DIMS_LIST && s->rank > 0) {
    uint32_t mask = s->num_dims == 0 ? 0xfu : 0u;  // []: every dim
    for (size_t i = 0; i < s->num_dims; ++i) {
      mask |= 1u << (uint32_t)((s->dims[i] + s->rank) % s->rank);
    }
    int64_t sizes[4];
    int32_t dim = 0;
    for (int32_t d = 0; d < s->rank; ++d) {
      if ((mask >> d) & 1u) {
        if (s->keepdim) {
          sizes[dim++] = 1;
        }
      } else {
        sizes[dim++] = s->sizes[d];
      }
    }
    etr_diff_out(c, dtype, dim, sizes, ETR_DIFF_CONTIGUOUS, 0);
    return;
  }
  if (s->out_channels_last && s->keepdim && s->rank == 4) {
    int64_t sizes[4];
    uint32_t mask = 0;
    for (size_t i = 0; i < s->num_dims; ++i) {
      mask |= 1u << (uint32_t)((s->dims[i] + 4) % 4);
    }
    for (int d = 0; d < 4; ++d) {
      sizes[d] = (mask >> d) & 1u ? 1 : s->sizes[d];
    }
    etr_diff_out(c, dtype, 4, sizes, ETR_DIFF_CHANNELS_LAST, 0);
    return;
  }
  etr_diff_out(c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               spare);
}

// Reduced element count (for the tolerance).
static int64_t reduced_count(const reduce_spec_t *s) {
  int64_t count = 1;
  for (int32_t d = 0; d < s->rank; ++d) {
    bool reduced = s->dims_kind == DIMS_ALL;
    for (size_t i = 0; i < s->num_dims && !reduced; ++i) {
      reduced = (s->dims[i] + s->rank) % s->rank == d;
    }
    count *= reduced ? s->sizes[d] : 1;
  }
  return count;
}

static int run_spec(const reduce_spec_t *s, uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, s->op, seed,
                 "%s rank %d [%lld %lld %lld %lld] dims %s%lld%s%s",
                 etr_scalar_type_name(s->out_dtype), (int)s->rank,
                 (long long)s->sizes[0], (long long)s->sizes[1],
                 (long long)s->sizes[2], (long long)s->sizes[3],
                 s->dims_kind == DIMS_ALL ? "all " : "",
                 (long long)s->dims[0], s->num_dims > 1 ? "+" : "",
                 s->keepdim ? " keepdim" : "");
  etr_tensor_t *self = etr_diff_input(&c, s->dtype, s->rank, s->sizes,
                                      s->layout, s->fill);
  int64_t spare = etr_tensor_numel(self) + 16;
  size_t out_index = 0;
  if (op_is(s, "aten::sum.IntList_out") || op_is(s, "aten::mean.out")) {
    etr_diff_arg(&c, dims_arg(s, true));
    etr_diff_arg(&c, tt_ev_bool(s->keepdim));
    etr_diff_arg(&c, tt_ev_none());
  } else if (op_is(s, "aten::var.correction_out")) {
    etr_diff_arg(&c, dims_arg(s, true));
    etr_diff_arg(&c, seed % 3 == 0 ? tt_ev_none() : tt_ev_double(0.5));
    etr_diff_arg(&c, tt_ev_bool(s->keepdim));
  } else if (op_is(s, "aten::var.out")) {
    etr_diff_arg(&c, dims_arg(s, true));
    etr_diff_arg(&c, tt_ev_bool(seed % 2 == 0));
    etr_diff_arg(&c, tt_ev_bool(s->keepdim));
  } else if (op_is(s, "aten::amax.out") || op_is(s, "aten::amin.out")) {
    etr_diff_arg(&c, dims_arg(s, false));
    etr_diff_arg(&c, tt_ev_bool(s->keepdim));
  } else if (op_is(s, "aten::any.dims_out")) {
    etr_diff_arg(&c, dims_arg(s, true));
    etr_diff_arg(&c, tt_ev_bool(s->keepdim));
  } else if (op_is(s, "aten::mean.dtype_out")) {
    etr_diff_arg(&c, tt_ev_none());
  } else if (op_is(s, "aten::any.all_out")) {
    // (self, out)
  } else {  // single-dim ops
    etr_diff_arg(&c, single_dim_arg(s));
    etr_diff_arg(&c, tt_ev_bool(s->keepdim));
  }
  out_index = c.num_args;
  if (op_is(s, "aten::max.dim_max") || op_is(s, "aten::min.dim_min")) {
    add_out(&c, s, s->out_dtype, spare);
    add_out(&c, s, ETR_LONG, spare);
    size_t outs[2] = {out_index, out_index + 1};
    etr_diff_out_list(&c, 2, outs);
  } else if (op_is(s, "aten::argmax.out") || op_is(s, "aten::argmin.out")) {
    add_out(&c, s, ETR_LONG, spare);
    etr_diff_return(&c, out_index);
  } else {
    add_out(&c, s, s->out_dtype, spare);
    etr_diff_return(&c, out_index);
  }
  bool integer_out = s->out_dtype == ETR_BYTE || s->out_dtype == ETR_CHAR ||
                     s->out_dtype == ETR_SHORT || s->out_dtype == ETR_INT ||
                     s->out_dtype == ETR_LONG;
  if (is_exact_op(s) || integer_out ||
      (s->fill == ETR_FILL_EXACT_INT && !op_is(s, "aten::var.out") &&
       !op_is(s, "aten::var.correction_out"))) {
    etr_diff_tolerance_exact(&c);
  } else {
    int64_t n = reduced_count(s);
    double unit = unit_of(s->out_dtype);
    double tiny = smallest_subnormal(s->out_dtype);
    if (op_is(s, "aten::var.out") || op_is(s, "aten::var.correction_out")) {
      etr_diff_tolerance_bound(&c, tiny, unit + 4.0 * (double)n * 0x1p-53);
    } else {
      etr_diff_tolerance_bound(
          &c,
          etr_diff_accumulation_bound(ETR_DOUBLE, n, max_abs_of(s->fill), 1) +
              tiny,
          unit);
    }
  }
  return etr_diff_run(&c);
}

// Reduced lengths and kept inner lengths: tile edges of 8..64 lanes.
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

static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_EXACT_INT,
                                         ETR_FILL_SPECIAL};

// Rows, middle columns, outer columns and every dim over the edge sizes.
static int sweep_patterns(const char *op, bool single_dim, uint64_t *seed) {
  int64_t sizes[40];
  size_t count = edge_sizes(sizes);
  int failures = 0;
  etr_scalar_type_t out = strstr(op, "any") != NULL ? ETR_BOOL : ETR_FLOAT;
  for (size_t k = 0; k < count; ++k) {
    int64_t n = sizes[k];
    for (size_t f = 0; f < 3; ++f) {
      reduce_spec_t rows = {op, ETR_FLOAT, out, 2, {3, n}, 0,
                            kFills[f], DIMS_LIST, {1}, 1, f == 1, false};
      failures += run_spec(&rows, (*seed)++);
      reduce_spec_t cols = {op, ETR_FLOAT, out, 3, {2, 5, n}, 0,
                            kFills[f], DIMS_LIST, {-2}, 1, f == 2, false};
      failures += run_spec(&cols, (*seed)++);
      reduce_spec_t outer = {op, ETR_FLOAT, out, 2, {7, n}, 0,
                             kFills[f], DIMS_LIST, {0}, 1, f == 0, false};
      failures += run_spec(&outer, (*seed)++);
      reduce_spec_t tall = {op, ETR_FLOAT, out, 2, {n, 3}, 0,
                            kFills[f], DIMS_LIST, {0}, 1, false, false};
      failures += run_spec(&tall, (*seed)++);
      if (!single_dim || strstr(op, "arg") != NULL) {
        reduce_spec_t all = {op, ETR_FLOAT, out, 2, {2, n}, 0,
                             kFills[f], DIMS_ALL, {0}, 0, f == 1, false};
        failures += run_spec(&all, (*seed)++);
      }
    }
  }
  return failures;
}

// Multi-dim reductions, channels-last and non-contiguous inputs, dtypes.
static int sweep_layouts(const char *op, bool single_dim, uint64_t *seed) {
  // {count, dims...}: middle, rows, outer, scattered (fallback), single,
  // every dim but N, and a negative dim.
  static const int64_t kDimSets[][4] = {
      {2, 1, 2, 0}, {2, 2, 3, 0}, {2, 0, 1, 0}, {2, 0, 2, 0}, {1, 1, 0, 0},
      {1, 3, 0, 0}, {3, 1, 2, 3}, {3, 0, 1, 2}, {1, -1, 0, 0},
  };
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                              ETR_BFLOAT16};
  int failures = 0;
  for (size_t t = 0; t < 3; ++t) {
    etr_scalar_type_t dtype = kDtypes[t];
    etr_scalar_type_t out_dtype = dtype;
    if (strstr(op, "any") != NULL) {
      dtype = t == 0 ? ETR_FLOAT : t == 1 ? ETR_BOOL : ETR_BFLOAT16;
      out_dtype = ETR_BOOL;
    }
    for (size_t set = 0; set < sizeof(kDimSets) / sizeof(kDimSets[0]);
         ++set) {
      size_t num_dims = (size_t)kDimSets[set][0];
      if (single_dim && num_dims > 1) {
        continue;
      }
      for (int layout = 0; layout < 3; ++layout) {
        for (int keep = 0; keep < 2; ++keep) {
          reduce_spec_t s = {op, dtype, out_dtype, 4, {2, 5, 3, 19},
                             (etr_diff_layout_t)layout,
                             (keep ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM),
                             DIMS_LIST,
                             {kDimSets[set][1], kDimSets[set][2],
                              kDimSets[set][3]},
                             num_dims, keep == 1, keep == 1 && set % 2 == 0};
          failures += run_spec(&s, (*seed)++);
        }
      }
    }
  }
  return failures;
}

// Casts into Float, other dtypes (fallback) and argument errors.
static int sweep_dtypes_and_errors(const char *op, bool single_dim,
                                   uint64_t *seed) {
  int failures = 0;
  bool floating_out = strstr(op, "sum") != NULL ||
                      strstr(op, "mean") != NULL || strstr(op, "var") != NULL;
  static const etr_scalar_type_t kOthers[] = {ETR_HALF, ETR_BFLOAT16,
                                              ETR_DOUBLE, ETR_INT};
  for (size_t t = 0; t < 4; ++t) {
    etr_scalar_type_t out = kOthers[t];
    if (strstr(op, "any") != NULL) {
      out = ETR_BOOL;
    } else if (floating_out && t < 2) {
      out = ETR_FLOAT;  // Half/BFloat16 summed into Float
    } else if (t == 3 && floating_out) {
      out = ETR_LONG;
    }
    reduce_spec_t s = {op, kOthers[t], out, 3, {4, 33, 9}, 0,
                       ETR_FILL_EXACT_INT, DIMS_LIST, {1}, 1, false, false};
    failures += run_spec(&s, (*seed)++);
  }
  // Bad dims and out dtypes: both kernels must reject.
  reduce_spec_t bad_dim = {op, ETR_FLOAT, ETR_FLOAT, 2, {3, 4}, 0,
                           ETR_FILL_RANDOM, DIMS_LIST, {5}, 1, false, false};
  failures += run_spec(&bad_dim, (*seed)++);
  reduce_spec_t bad_out = {op, ETR_FLOAT, ETR_INT, 2, {3, 4}, 0,
                           ETR_FILL_RANDOM, DIMS_LIST, {1}, 1, false, false};
  failures += run_spec(&bad_out, (*seed)++);
  if (!single_dim) {
    reduce_spec_t repeated = {op, ETR_FLOAT, ETR_FLOAT, 2, {3, 4}, 0,
                              ETR_FILL_RANDOM, DIMS_LIST, {1, -1}, 2, false,
                              false};
    failures += run_spec(&repeated, (*seed)++);
  }
  // Large rows and columns (several driver blocks, long accumulations).
  etr_scalar_type_t value_out =
      strstr(op, "any") != NULL ? ETR_BOOL : ETR_FLOAT;
  reduce_spec_t long_rows = {op, ETR_FLOAT, value_out, 2, {3, 40000}, 0,
                             ETR_FILL_RANDOM, DIMS_LIST, {1}, 1, false, false};
  failures += run_spec(&long_rows, (*seed)++);
  reduce_spec_t wide_cols = {op, ETR_FLOAT, value_out, 3, {2, 300, 613}, 0,
                             ETR_FILL_POSITIVE, DIMS_LIST, {1}, 1, false,
                             false};
  failures += run_spec(&wide_cols, (*seed)++);
  return failures;
}

static int sweep_op(const char *op, bool single_dim, uint64_t seed) {
  int failures = sweep_patterns(op, single_dim, &seed);
  failures += sweep_layouts(op, single_dim, &seed);
  failures += sweep_dtypes_and_errors(op, single_dim, &seed);
  return failures;
}

TT_TEST(diff_reduce, list_ops) {
  int failures = 0;
  for (size_t i = 0; i < sizeof(kListOps) / sizeof(kListOps[0]); ++i) {
    failures += sweep_op(kListOps[i], false, 1000 * (i + 1));
  }
  // sum again with outs of the reduced shape (its tiny dense path), and
  // over an empty dim list (every dim) at sizes around its limit.
  g_exact_sum_out = true;
  failures += sweep_op("aten::sum.IntList_out", false, 9000);
  static const int64_t kAll[][2] = {{1, 8}, {3, 5}, {32, 32}, {33, 32}};
  uint64_t seed = 9500;
  for (size_t k = 0; k < 4; ++k) {
    for (int keepdim = 0; keepdim < 2; ++keepdim) {
      for (size_t f = 0; f < 3; ++f) {
        reduce_spec_t all = {"aten::sum.IntList_out", ETR_FLOAT, ETR_FLOAT,
                             2, {kAll[k][0], kAll[k][1]}, 0, kFills[f],
                             DIMS_LIST, {0}, 0, keepdim == 1, false};
        failures += run_spec(&all, seed++);
      }
    }
  }
  g_exact_sum_out = false;
  cr_assert_eq(failures, 0, "%d reduction cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_reduce, single_dim_ops) {
  int failures = 0;
  for (size_t i = 0; i < sizeof(kSingleDimOps) / sizeof(kSingleDimOps[0]);
       ++i) {
    failures += sweep_op(kSingleDimOps[i], true, 50000 + 1000 * i);
  }
  cr_assert_eq(failures, 0, "%d reduction cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_reduce, whole_tensor_ops) {
  int failures = 0;
  uint64_t seed = 90000;
  int64_t sizes[40];
  size_t count = edge_sizes(sizes);
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                              ETR_BFLOAT16};
  for (size_t k = 0; k < count; ++k) {
    for (size_t t = 0; t < 3; ++t) {
      for (size_t f = 0; f < 3; ++f) {
        reduce_spec_t mean = {"aten::mean.dtype_out", kDtypes[t], kDtypes[t],
                              2, {3, sizes[k]}, 0, kFills[f], DIMS_ALL, {0},
                              0, false, false};
        failures += run_spec(&mean, seed++);
        reduce_spec_t any = {"aten::any.all_out",
                             t == 0   ? ETR_FLOAT
                             : t == 1 ? ETR_BOOL
                                      : ETR_HALF,
                             ETR_BOOL, 2,
                             {3, sizes[k]}, (etr_diff_layout_t)f,
                             t == 2 ? ETR_FILL_ZERO : kFills[f], DIMS_ALL,
                             {0}, 0, false, false};
        failures += run_spec(&any, seed++);
        g_exact_any_out = true;
        failures += run_spec(&any, seed++);
        g_exact_any_out = false;
      }
    }
  }
  // MobileNetV2's head: mean over H,W with keepdim, NCHW and channels-last.
  for (int layout = 0; layout < 3; layout += 2) {
    reduce_spec_t head = {"aten::mean.out", ETR_FLOAT, ETR_FLOAT, 4,
                          {1, 128, 4, 4}, (etr_diff_layout_t)layout,
                          ETR_FILL_RANDOM, DIMS_LIST, {-1, -2}, 2, true,
                          layout == 2};
    failures += run_spec(&head, seed++);
  }
  cr_assert_eq(failures, 0, "%d reduction cases disagree", failures);
}

// uint8 and int8..int64 (reduce/integer.c; any too): rows, middle and
// outer columns and every dim at lengths around the column block (256) and
// small ones; random data (small values: many ties, so the first position
// must win) and the dtypes' limits (sums wrap: into Long, and into the
// dtype itself); keepdim both ways.
TT_TEST(diff_reduce, integers) {
  static const etr_scalar_type_t kIntegers[] = {ETR_BYTE, ETR_CHAR, ETR_SHORT,
                                                ETR_INT, ETR_LONG};
  static const char *const kOps[] = {
      "aten::sum.IntList_out", "aten::amax.out",     "aten::amin.out",
      "aten::max.dim_max",     "aten::min.dim_min",  "aten::argmax.out",
      "aten::argmin.out",      "aten::any.dims_out", "aten::any.out",
      "aten::any.all_out"};
  static const int64_t kLengths[] = {1, 7, 33, 255, 256, 300};
  int failures = 0;
  uint64_t seed = 97000;
  uint64_t specialized = etr_diff_stats()->specialized;
  for (size_t op = 0; op < sizeof(kOps) / sizeof(kOps[0]); ++op) {
    bool sum = op == 0;
    bool any = strstr(kOps[op], "any") != NULL;
    bool all_only = strstr(kOps[op], "all_out") != NULL;
    // Every dim: sum, amax, amin, argmax (dim None), any.
    bool every_dim = op < 3 || op == 5 || op == 6 || any;
    for (size_t t = 0; t < 5; ++t) {
      for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
        int64_t n = kLengths[l];
        etr_diff_fill_t fill = (l + t) % 2 ? ETR_FILL_SPECIAL
                                           : ETR_FILL_RANDOM;
        etr_scalar_type_t out = any   ? ETR_BOOL
                                : sum ? ((l % 2) ? ETR_LONG : kIntegers[t])
                                      : kIntegers[t];
        bool keep = (l + op) % 2 == 0;
        if (all_only) {
          reduce_spec_t all = {kOps[op], kIntegers[t], out, 2, {2, n}, 0,
                               fill, DIMS_ALL, {0}, 0, false, false};
          failures += run_spec(&all, seed++);
          continue;
        }
        reduce_spec_t rows = {kOps[op], kIntegers[t], out, 2, {3, n}, 0,
                              fill, DIMS_LIST, {1}, 1, keep, false};
        failures += run_spec(&rows, seed++);
        reduce_spec_t cols = {kOps[op], kIntegers[t], out, 3, {2, 5, n}, 0,
                              fill, DIMS_LIST, {-2}, 1, !keep, false};
        failures += run_spec(&cols, seed++);
        reduce_spec_t outer = {kOps[op], kIntegers[t], out, 2, {9, n}, 0,
                               fill, DIMS_LIST, {0}, 1, keep, false};
        failures += run_spec(&outer, seed++);
        if (every_dim) {
          reduce_spec_t all = {kOps[op], kIntegers[t], out, 2, {2, n}, 0,
                               fill, DIMS_ALL, {0}, 0, false, false};
          failures += run_spec(&all, seed++);
        }
      }
      if (all_only) {
        continue;
      }
      // Channels-last: columns over N, H, W for each channel.
      reduce_spec_t nhwc = {kOps[op], kIntegers[t],
                            any   ? ETR_BOOL
                            : sum ? ETR_LONG
                                  : kIntegers[t],
                            4, {2, 5, 3, 19},
                            ETR_DIFF_CHANNELS_LAST, ETR_FILL_SPECIAL,
                            DIMS_LIST, {1}, 1, true, false};
      failures += run_spec(&nhwc, seed++);
    }
  }
  cr_assert_eq(failures, 0, "%d integer reductions disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, specialized,
               "no integer reduction took the optimized path");
}

// Short rows (n <= 16), eight at a time in the AVX-512 sum kernel
// (reduce/sum_rows_short_avx512.c): row counts around 8 and 16 (the
// remainder rows take the one-row loop), lengths 1..17 (both loads'
// masks), sum, mean and var (whose mean is such a sum), Float outs (the
// driver's vectorized store) and Half ones (its general store).
TT_TEST(diff_reduce, short_rows) {
  static const int64_t kRows[] = {1, 7, 8, 9, 16, 17, 130};
  static const char *const kOps[] = {"aten::sum.IntList_out",
                                     "aten::mean.out",
                                     "aten::var.correction_out"};
  int failures = 0;
  uint64_t seed = 95000;
  for (size_t op = 0; op < 3; ++op) {
    for (size_t r = 0; r < sizeof(kRows) / sizeof(kRows[0]); ++r) {
      for (int64_t n = 1; n <= 17; ++n) {
        etr_scalar_type_t dtype = n % 5 == 4 ? ETR_HALF : ETR_FLOAT;
        reduce_spec_t s = {kOps[op], dtype, dtype, 2, {kRows[r], n}, 0,
                           kFills[(size_t)(n + (int64_t)r) % 3], DIMS_LIST,
                           {1}, 1, n % 2 == 0, false};
        failures += run_spec(&s, seed++);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d short-row reductions disagree", failures);
}

// any.all_out's dense fast path (a 0-dim Bool out already): a single
// non-zero element (negative, NaN, positive or denormal, true) at every
// position that matters for the 64-element blocks and the tail, among
// zeros and -0.0 (which do not count), and all-zero inputs; Float, Bool,
// Half and BFloat16 selves.
TT_TEST(diff_reduce, any_all_single_hit) {
  static const int64_t kSizes[] = {1, 63, 64, 65, 130, 200};
  static const etr_scalar_type_t kSelves[] = {ETR_FLOAT, ETR_BOOL, ETR_HALF,
                                              ETR_BFLOAT16};
  // The third hit: the dtype's smallest denormal.
  static const double kHits[][4] = {{-0.5, NAN, 0x1p-149, -INFINITY},
                                    {-0.5, NAN, 1.0, -INFINITY},
                                    {-0.5, NAN, 0x1p-24, -INFINITY},
                                    {-0.5, NAN, 0x1p-133, -INFINITY}};
  static double values[200];
  int failures = 0;
  uint64_t specialized = etr_diff_stats()->specialized;
  for (size_t z = 0; z < sizeof(kSizes) / sizeof(kSizes[0]); ++z) {
    int64_t n = kSizes[z];
    const int64_t positions[] = {-1, 0, 1, 63, 64, n - 2, n - 1};
    for (size_t kind = 0; kind < 4; ++kind) {
      etr_scalar_type_t dtype = kSelves[kind];
      for (size_t p = 0; p < sizeof(positions) / sizeof(positions[0]);
           ++p) {
        int64_t at = positions[p];
        if (at >= n || (at < 0 && p > 0)) {
          continue;
        }
        for (int64_t i = 0; i < n; ++i) {
          values[i] = i % 2 ? -0.0 : 0.0;
        }
        if (at >= 0) {
          values[at] = kHits[kind][(size_t)at % 4];
        }
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::any.all_out", 95000 + (uint64_t)n,
                       "%s n=%lld hit at %lld", etr_scalar_type_name(dtype),
                       (long long)n, (long long)at);
        etr_diff_arg(&c, tt_ev_tensor(tt_tensor(
                             dtype, 1, (const int64_t[]){n}, values)));
        c.dtype = dtype;
        etr_diff_out(&c, ETR_BOOL, 0, NULL, ETR_DIFF_CONTIGUOUS, 0);
        etr_diff_return(&c, 1);
        etr_diff_tolerance_exact(&c);
        failures += etr_diff_run(&c);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d any.all_out cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, specialized);
}

// The row kernels' value-and-index scans (reduce_avx512.c's four sets of
// 16 lanes, merged by position): rows around the 16- and 64-element steps
// and the 16-element tail, 3 rows each, argmax, argmin, max.dim and
// min.dim along the rows, on distinct values with the extremum planted at
// positions across lanes, sets and the tail; planted twice (the first
// must win); one or two NaNs (the first wins); zeros of both signs above
// negative values (a -0.0 / 0.0 tie: the first zero, its own sign); and
// all elements equal (position 0).
TT_TEST(diff_reduce, extremum_positions) {
  static const int64_t kLengths[] = {1,  2,   15,  16,  17,  63, 64,
                                     65, 127, 128, 129, 200, 1000};
  static const char *const kOps[] = {"aten::argmax.out", "aten::argmin.out",
                                     "aten::max.dim_max",
                                     "aten::min.dim_min"};
  static double values[3 * 1000];  // floats (tt_tensor takes doubles)
  int failures = 0;
  uint64_t seed = 97000;
  uint64_t state = 12345;
  for (size_t z = 0; z < sizeof(kLengths) / sizeof(kLengths[0]); ++z) {
    const int64_t n = kLengths[z];
    const int64_t spots[] = {0, 1, 15, 16, 17, 47, 48, 63, 64, 65, n - 1};
    for (int pattern = 0; pattern < 5; ++pattern) {
      for (size_t s = 0; s < sizeof(spots) / sizeof(spots[0]); ++s) {
        const int64_t at = spots[s];
        if (at >= n || (pattern == 4 && s > 0)) {
          continue;
        }
        for (size_t op = 0; op < 4; ++op) {
          const bool is_max = op % 2 == 0;
          const double top = is_max ? 2.0 : -2.0;
          for (int64_t r = 0; r < 3; ++r) {
            double *row = values + r * n;
            for (int64_t i = 0; i < n; ++i) {
              state = state * 6364136223846793005ull + 1442695040888963407ull;
              // Random floats in (-1, 1), repeats rare.
              row[i] = (double)(state >> 41) / 0x1p23 * 1.5 - 0.75;
            }
            const int64_t second = (at + 1 + r * 7) % n;
            switch (pattern) {
              case 0:  // the extremum at `at`
                row[at] = top;
                break;
              case 1:  // planted twice
                row[at] = top;
                row[second] = top;
                break;
              case 2:  // NaN at `at`, maybe another later
                row[at] = NAN;
                if (second > at) {
                  row[second] = -NAN;
                }
                break;
              case 3:  // zeros of both signs above (below) the rest
                for (int64_t i = 0; i < n; ++i) {
                  row[i] = is_max ? -0.5 - (double)i * 0x1p-12
                                  : 0.5 + (double)i * 0x1p-12;
                }
                row[at] = r % 2 ? -0.0 : 0.0;
                row[second] = r % 2 ? 0.0 : -0.0;
                break;
              default:  // all equal
                for (int64_t i = 0; i < n; ++i) {
                  row[i] = 0.25;
                }
                break;
            }
          }
          etr_diff_case_t c;
          etr_diff_begin(&c, kOps[op], seed++, "n=%lld pattern %d at %lld",
                         (long long)n, pattern, (long long)at);
          etr_diff_arg(&c, tt_ev_tensor(tt_tensor(
                               ETR_FLOAT, 2, (const int64_t[]){3, n},
                               values)));
          etr_diff_arg(&c, tt_ev_int(1));
          etr_diff_arg(&c, tt_ev_bool(false));
          const size_t first_out = c.num_args;
          if (op < 2) {
            etr_diff_out(&c, ETR_LONG, 1, (const int64_t[]){3},
                         ETR_DIFF_CONTIGUOUS, 0);
            etr_diff_return(&c, first_out);
          } else {
            etr_diff_out(&c, ETR_FLOAT, 1, (const int64_t[]){3},
                         ETR_DIFF_CONTIGUOUS, 0);
            etr_diff_out(&c, ETR_LONG, 1, (const int64_t[]){3},
                         ETR_DIFF_CONTIGUOUS, 0);
            size_t outs[2] = {first_out, first_out + 1};
            etr_diff_out_list(&c, 2, outs);
          }
          c.dtype = ETR_FLOAT;
          etr_diff_tolerance_exact(&c);
          failures += etr_diff_run(&c);
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d extremum position cases disagree",
               failures);
}
