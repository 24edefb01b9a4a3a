// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the elementwise family's bitwise, logical and
// predicate ops against the reference kernels, on every ISA of this
// machine: bitwise_and/or/xor (Tensor and Scalar overloads), bitwise_not,
// logical_and/or/xor/not, isnan and isinf.
//
// Bounds: every one of these ops is exact (bit operations on the
// operands' bytes, or comparisons), so every case compares bit for bit.
//
// Cases: the byte ops per dtype (Bool, uint8, int8, int16, int32, int64
// specialized; logical ops on Bool, and on Float, Half, BFloat16 and the
// integers with special values, through their truth bytes) at the
// tile-edge sizes of 64
// lanes (the widest byte vector) in the patterns binary/plan.h takes
// (same shape, [3,n] op [n] and its mirror, per channel contiguous and
// channels-last, a 0-dim tensor of the dtype, a Scalar) and in ones it
// does not (non-contiguous views, a 0-dim tensor of another dtype, a
// Scalar that promotes), random and special values (integer extremes),
// in place. The predicates and logical_not on Float, Half and BFloat16
// with special values (NaN, +-inf, -0.0, denormals) at the edge sizes of
// 16 lanes, contiguous, channels-last and non-contiguous; on integer and
// Bool selves (zeroed outs; logical_not on integers by the integer
// engine's x == 0); Double falls back. ceil, floor, round and
// trunc on integers (copies through the byte engine; Bool is the
// reference's error), sign on integers and Bool.
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 50000;

static const etr_scalar_type_t kByteDtypes[] = {
    ETR_BOOL, ETR_BYTE, ETR_CHAR, ETR_SHORT, ETR_INT, ETR_LONG};
#define NUM_BYTE_DTYPES (sizeof(kByteDtypes) / sizeof(kByteDtypes[0]))

// Appends the out (1-D with room, or `sizes` in channels-last) and the
// return slot; runs exactly.
static int finish(etr_diff_case_t *c, etr_scalar_type_t out_dtype,
                  int32_t dim, const int64_t *sizes, bool channels_last) {
  size_t out_index = c->num_args;
  int64_t numel = 1;
  for (int32_t i = 0; i < dim; ++i) {
    numel *= sizes[i];
  }
  if (channels_last) {
    etr_diff_out(c, out_dtype, dim, sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(c, out_dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 numel + 8);
  }
  etr_diff_return(c, out_index);
  etr_diff_tolerance_exact(c);
  return etr_diff_run(c);
}

// The out dtype of `op` on `dtype`: Bool for the logical ops.
static etr_scalar_type_t out_dtype_of(const char *op,
                                      etr_scalar_type_t dtype) {
  return strstr(op, "logical") != NULL ? ETR_BOOL : dtype;
}

static int run_pair(const char *op, etr_scalar_type_t dtype, int32_t dim_a,
                    const int64_t *a, int32_t dim_b, const int64_t *b,
                    etr_diff_layout_t layout, etr_diff_fill_t fill,
                    const char *what) {
  etr_diff_case_t c;
  etr_diff_begin(&c, op, g_seed++, "%s %s", what,
                 fill == ETR_FILL_SPECIAL ? "special" : "random");
  etr_diff_input(&c, dtype, dim_a, a, layout, fill);
  etr_diff_input(&c, dtype, dim_b, b, layout, fill);
  int32_t dim = dim_a > dim_b ? dim_a : dim_b;
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t i = 0; i < dim; ++i) {
    int32_t ia = i - (dim - dim_a);
    int32_t ib = i - (dim - dim_b);
    int64_t sa = ia >= 0 ? a[ia] : 1;
    int64_t sb = ib >= 0 ? b[ib] : 1;
    sizes[i] = sa == 1 ? sb : sa;
  }
  return finish(&c, out_dtype_of(op, dtype), dim, sizes,
                layout == ETR_DIFF_CHANNELS_LAST && dim == 4);
}

// Every pattern at size n for a Tensor overload (and its Scalar one).
static int run_binary(const char *op, const char *scalar_op,
                      etr_scalar_type_t dtype, int64_t n) {
  int failures = 0;
  for (int fill = 0; fill < 2; ++fill) {
    etr_diff_fill_t data = fill ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM;
    int64_t same[2] = {2, n};
    failures += run_pair(op, dtype, 2, same, 2, same, ETR_DIFF_CONTIGUOUS,
                         data, "same shape");
    failures += run_pair(op, dtype, 2, same, 2, same,
                         ETR_DIFF_NONCONTIGUOUS, data, "non-contiguous");
    int64_t nhwc[4] = {2, n, 1, 2};
    int64_t channels[4] = {1, n, 1, 1};
    failures += run_pair(op, dtype, 4, nhwc, 4, nhwc, ETR_DIFF_CHANNELS_LAST,
                         data, "same shape nhwc");
    failures += run_pair(op, dtype, 4, channels, 4, nhwc,
                         ETR_DIFF_CHANNELS_LAST, data,
                         "[1,n,1,1] op [2,n,1,2] nhwc");
    int64_t rows[2] = {3, n};
    failures += run_pair(op, dtype, 2, rows, 1, &n, ETR_DIFF_CONTIGUOUS,
                         data, "[3,n] op [n]");
    failures += run_pair(op, dtype, 1, &n, 2, rows, ETR_DIFF_CONTIGUOUS,
                         data, "[n] op [3,n]");
    int64_t nchw[4] = {2, 3, 1, n};
    int64_t channel[4] = {1, 3, 1, 1};
    failures += run_pair(op, dtype, 4, nchw, 4, channel, ETR_DIFF_CONTIGUOUS,
                         data, "[2,3,1,n] op [1,3,1,1]");
  }
  // 0-dim operands, of the dtype (specialized) and Long (not, unless it
  // is the dtype), on either side.
  for (int side = 0; side < 2; ++side) {
    for (int wide = 0; wide < 2; ++wide) {
      etr_diff_case_t c;
      etr_diff_begin(&c, op, g_seed++, "0-dim %s side %d, n=%lld",
                     wide ? "Long" : "own", side, (long long)n);
      etr_tensor_t *scalar =
          tt_scalar_tensor(wide ? ETR_LONG : dtype, dtype == ETR_BOOL ? 1 : -3);
      if (side) {
        etr_diff_arg(&c, tt_ev_tensor(scalar));
      }
      int64_t sizes[2] = {2, n};
      etr_diff_input(&c, dtype, 2, sizes, ETR_DIFF_CONTIGUOUS,
                     ETR_FILL_SPECIAL);
      if (!side) {
        etr_diff_arg(&c, tt_ev_tensor(scalar));
      }
      failures += finish(&c, out_dtype_of(op, dtype), 2, sizes, false);
    }
  }
  // Scalars: an int (wrapped to the dtype), a bool, and a double (which
  // promotes: the reference's business).
  if (scalar_op != NULL) {
    for (int kind = 0; kind < 4; ++kind) {
      etr_diff_case_t c;
      etr_diff_begin(&c, scalar_op, g_seed++, "Scalar kind %d, n=%lld", kind,
                     (long long)n);
      int64_t sizes[2] = {2, n};
      etr_diff_input(&c, dtype, 2, sizes, ETR_DIFF_CONTIGUOUS,
                     ETR_FILL_SPECIAL);
      etr_diff_arg(&c, kind == 0   ? tt_ev_int(-1000)
                       : kind == 1 ? tt_ev_int(0x5a5a5a5a5a5a5a5LL)
                       : kind == 2 ? tt_ev_bool(true)
                                   : tt_ev_double(2.0));
      failures += finish(&c, dtype, 2, sizes, false);
    }
  }
  // In place: out is self.
  etr_diff_case_t c;
  etr_diff_begin(&c, op, g_seed++, "in place, n=%lld", (long long)n);
  int64_t sizes[2] = {2, n};
  etr_diff_input(&c, dtype, 2, sizes, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
  etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
  size_t out_index = c.num_args;
  if (out_dtype_of(op, dtype) == dtype) {
    etr_diff_out_aliasing(&c, 0);
    etr_diff_return(&c, out_index);
    etr_diff_tolerance_exact(&c);
    failures += etr_diff_run(&c);
  }
  return failures;
}

// self -> out for the unary ops, in three layouts and in place.
static int run_unary(const char *op, etr_scalar_type_t dtype,
                     etr_scalar_type_t out_dtype, int64_t n) {
  int failures = 0;
  for (int layout = 0; layout < 3; ++layout) {
    bool nhwc = layout == ETR_DIFF_CHANNELS_LAST;
    int64_t shape4[4] = {1, n, 2, 1};
    int64_t shape2[2] = {2, n};
    etr_diff_case_t c;
    etr_diff_begin(&c, op, g_seed++, "n=%lld layout %d", (long long)n,
                   layout);
    etr_diff_input(&c, dtype, nhwc ? 4 : 2, nhwc ? shape4 : shape2,
                   (etr_diff_layout_t)layout, ETR_FILL_SPECIAL);
    failures += finish(&c, out_dtype, nhwc ? 4 : 2, nhwc ? shape4 : shape2,
                       nhwc);
  }
  if (out_dtype == dtype) {
    etr_diff_case_t c;
    etr_diff_begin(&c, op, g_seed++, "in place, n=%lld", (long long)n);
    etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
    etr_diff_out_aliasing(&c, 0);
    etr_diff_return(&c, 1);
    etr_diff_tolerance_exact(&c);
    failures += etr_diff_run(&c);
  }
  return failures;
}

#define ASSERT_SPECIALIZED(failures, before)                            \
  do {                                                                  \
    cr_assert_eq((failures), 0, "%d cases disagree", (failures));       \
    cr_assert_gt(etr_diff_stats()->specialized, (before),               \
                 "never took the fast path");                           \
  } while (0)

static int run_bitwise(const char *op, const char *scalar_op, bool logical) {
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(64, sizes);
  int failures = 0;
  for (size_t d = 0; d < NUM_BYTE_DTYPES; ++d) {
    if (logical && kByteDtypes[d] != ETR_BOOL) {
      continue;
    }
    for (size_t s = 0; s < count; ++s) {
      failures += run_binary(op, scalar_op, kByteDtypes[d], sizes[s]);
    }
  }
  // Logical ops on floats and integers: their truth (NaN true, -0.0
  // false) first.
  static const etr_scalar_type_t kTruthDtypes[] = {
      ETR_FLOAT, ETR_HALF, ETR_BFLOAT16, ETR_BYTE,
      ETR_CHAR,  ETR_SHORT, ETR_INT,     ETR_LONG};
  for (size_t d = 0; logical && d < 8; ++d) {
    for (size_t s = 0; s < count; s += 2) {
      failures += run_binary(op, NULL, kTruthDtypes[d], sizes[s]);
    }
  }
  // Left to the reference: logical ops on Double; bitwise ops on Long
  // with a view.
  int64_t shape[2] = {3, 17};
  failures += run_pair(op, logical ? ETR_DOUBLE : ETR_LONG, 2, shape, 2,
                       shape, ETR_DIFF_NONCONTIGUOUS, ETR_FILL_SPECIAL,
                       "fallback");
  if (logical) {
    failures += run_pair(op, ETR_DOUBLE, 2, shape, 2, shape,
                         ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL, "fallback");
  }
  return failures;
}

#define BITWISE_TEST(name, op, scalar_op, logical)                       \
  TT_TEST(diff_elementwise_bitwise, name) {                             \
    uint64_t before = etr_diff_stats()->specialized;                    \
    int failures = run_bitwise(op, scalar_op, logical);                 \
    ASSERT_SPECIALIZED(failures, before);                               \
  }

BITWISE_TEST(bitwise_and, "aten::bitwise_and.Tensor_out",
             "aten::bitwise_and.Scalar_out", false)
BITWISE_TEST(bitwise_or, "aten::bitwise_or.Tensor_out",
             "aten::bitwise_or.Scalar_out", false)
BITWISE_TEST(bitwise_xor, "aten::bitwise_xor.Tensor_out",
             "aten::bitwise_xor.Scalar_out", false)
BITWISE_TEST(logical_and, "aten::logical_and.out", NULL, true)
BITWISE_TEST(logical_or, "aten::logical_or.out", NULL, true)
BITWISE_TEST(logical_xor, "aten::logical_xor.out", NULL, true)

TT_TEST(diff_elementwise_bitwise, bitwise_not) {
  uint64_t before = etr_diff_stats()->specialized;
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(64, sizes);
  int failures = 0;
  for (size_t d = 0; d < NUM_BYTE_DTYPES; ++d) {
    for (size_t s = 0; s < count; ++s) {
      failures += run_unary("aten::bitwise_not.out", kByteDtypes[d],
                            kByteDtypes[d], sizes[s]);
    }
  }
  ASSERT_SPECIALIZED(failures, before);
}

// isnan, isinf and logical_not: floating selves at 16-lane edges, integer
// and Bool selves, Double (reference).
static int run_predicate(const char *op) {
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                              ETR_BFLOAT16, ETR_BOOL,
                                              ETR_CHAR, ETR_LONG, ETR_DOUBLE};
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  for (size_t d = 0; d < sizeof(kDtypes) / sizeof(kDtypes[0]); ++d) {
    for (size_t s = 0; s < count; ++s) {
      if (d >= 3 && s % 3 != 0) {
        continue;  // integers and Double: a few sizes are enough
      }
      failures += run_unary(op, kDtypes[d], ETR_BOOL, sizes[s]);
    }
  }
  return failures;
}

TT_TEST(diff_elementwise_bitwise, isnan) {
  uint64_t before = etr_diff_stats()->specialized;
  int failures = run_predicate("aten::isnan.out");
  ASSERT_SPECIALIZED(failures, before);
}

TT_TEST(diff_elementwise_bitwise, isinf) {
  uint64_t before = etr_diff_stats()->specialized;
  int failures = run_predicate("aten::isinf.out");
  ASSERT_SPECIALIZED(failures, before);
}

TT_TEST(diff_elementwise_bitwise, logical_not) {
  uint64_t before = etr_diff_stats()->specialized;
  int failures = run_predicate("aten::logical_not.out");
  ASSERT_SPECIALIZED(failures, before);
}

// ceil, floor, round and trunc copy integers through the byte engine;
// sign takes integer loops, and copies Bool.
TT_TEST(diff_elementwise_bitwise, integer_rounding) {
  static const char *const kRoundingOps[] = {
      "aten::ceil.out", "aten::floor.out", "aten::round.out",
      "aten::trunc.out", "aten::sign.out"};
  uint64_t before = etr_diff_stats()->specialized;
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(64, sizes);
  int failures = 0;
  for (size_t op = 0; op < 5; ++op) {
    for (size_t d = 1; d < NUM_BYTE_DTYPES; ++d) {  // not Bool
      for (size_t s = 0; s < count; s += 2) {
        failures += run_unary(kRoundingOps[op], kByteDtypes[d],
                              kByteDtypes[d], sizes[s]);
      }
    }
    failures += run_unary(kRoundingOps[op], ETR_BOOL, ETR_BOOL, 17);
  }
  ASSERT_SPECIALIZED(failures, before);
}
