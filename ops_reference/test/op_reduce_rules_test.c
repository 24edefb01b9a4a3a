// SPDX-License-Identifier: Apache-2.0
//
// Hand-written cases of the reduce family, for what the PyTorch-generated
// cases cannot hold: sort and topk on long tie-heavy slices against
// simple invariants (the exact tie order is the generated cases' job), the
// stable radix-sort route and its uint16/32/64 refusal, the stride-0 rule,
// topk's scratch needs, outs in their own layout, outs too small,
// nonzero's data-dependent resize and its dry run, hostile int64
// arguments (dims, k, n, sizes) and the argument-count and tag errors.
#include <math.h>
#include <string.h>

#include "core/arena.h"
#include "ops_reference/test/test_util.h"

static etr_error_t sort(etr_tensor_t *x, int64_t dim, bool descending,
                        etr_tensor_t *values, etr_tensor_t *indices) {
  return TT_CALL("aten::sort.values", tt_ev_tensor(x), tt_ev_int(dim),
                 tt_ev_bool(descending), tt_ev_tensor(values),
                 tt_ev_tensor(indices),
                 tt_ev_tensor_list(2, (etr_tensor_t *const[]){values,
                                                              indices}));
}

// topk with `scratch_bytes` of ctx->temp (0: no arena), called directly
// (its dry run is covered by the generated cases).
static etr_error_t topk_with_scratch(etr_tensor_t *x, int64_t k, int64_t dim,
                                     bool largest, bool sorted,
                                     etr_tensor_t *values,
                                     etr_tensor_t *indices,
                                     size_t scratch_bytes) {
  etr_arena_t temp;
  void *memory = scratch_bytes > 0 ? tt_alloc(scratch_bytes) : NULL;
  etr_arena_init(&temp, memory, scratch_bytes);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &diag;
  ctx.op_name = "aten::topk.values";
  ctx.temp = scratch_bytes > 0 ? &temp : NULL;
  etr_evalue_t *args[8] = {
      tt_ev_tensor(x), tt_ev_int(k), tt_ev_int(dim), tt_ev_bool(largest),
      tt_ev_bool(sorted), tt_ev_tensor(values), tt_ev_tensor(indices),
      tt_ev_tensor_list(2, (etr_tensor_t *const[]){values, indices})};
  etr_error_t status = tt_find_kernel("aten::topk.values")(&ctx, args, 8);
  cr_expect(status == ETR_OK || diag.code == status);
  return status;
}

static etr_error_t topk(etr_tensor_t *x, int64_t k, int64_t dim, bool largest,
                        etr_tensor_t *values, etr_tensor_t *indices) {
  return topk_with_scratch(x, k, dim, largest, true, values, indices,
                           1 << 20);
}

// A deterministic sequence with many repeats (values 0..buckets-1) and,
// when `with_nan`, a NaN every 37th element.
static etr_tensor_t *repeating(etr_scalar_type_t dtype, int64_t n,
                               int64_t buckets, bool with_nan) {
  uint64_t state = 1;
  double *values = tt_alloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    state = state * UINT64_C(6364136223846793005) +
            UINT64_C(1442695040888963407);
    values[i] = (double)((state >> 33) % (uint64_t)buckets);
    if (with_nan && i % 37 == 5) {
      values[i] = NAN;
    }
  }
  return tt_tensor(dtype, 1, &n, values);
}

// -1, 0, 1 in etref's order (NaN largest), ascending.
static int order(double a, double b) {
  if (isnan(a) || isnan(b)) {
    return isnan(a) == isnan(b) ? 0 : (isnan(a) ? 1 : -1);
  }
  return a < b ? -1 : a > b;
}

// Checks that `values`/`indices` (count entries) hold elements of `x` in
// order (NaN largest) and that no index repeats.
static void expect_sorted_selection(const etr_tensor_t *x,
                                    const etr_tensor_t *values,
                                    const etr_tensor_t *indices,
                                    int64_t count, bool descending) {
  int64_t n = x->sizes[0];
  bool *seen = tt_alloc((size_t)n);
  for (int64_t i = 0; i < count; ++i) {
    int64_t index = tt_get_i64(indices, i);
    cr_assert(index >= 0 && index < n && !seen[index], "index %lld at %lld",
              (long long)index, (long long)i);
    seen[index] = true;
    double value = tt_get(values, i);
    double source = tt_get(x, index);
    cr_expect(value == source || (isnan(value) && isnan(source)));
    if (i > 0) {
      int o = order(tt_get(values, i - 1), value);
      cr_expect(descending ? o >= 0 : o <= 0, "%s out of order at %lld",
                etr_scalar_type_name(x->dtype), (long long)i);
    }
  }
}

TT_TEST(sort, long_tie_heavy_slices) {
  const int64_t n = 500;
  static const etr_scalar_type_t kTypes[] = {ETR_FLOAT, ETR_LONG, ETR_HALF,
                                             ETR_BYTE, ETR_UINT32};
  for (size_t t = 0; t < sizeof(kTypes) / sizeof(kTypes[0]); ++t) {
    bool floating = kTypes[t] == ETR_FLOAT || kTypes[t] == ETR_HALF;
    etr_tensor_t *x = repeating(kTypes[t], n, 7, floating);
    for (int descending = 0; descending < 2; ++descending) {
      etr_tensor_t *values = tt_out(kTypes[t], TT_SIZES(1), n);
      etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1), n);
      tt_expect_status(sort(tt_noncontiguous(x), 0, descending, values,
                            indices),
                       ETR_OK);
      cr_assert_eq(values->sizes[0], n);
      expect_sorted_selection(x, values, indices, n, descending);
    }
  }
}

TT_TEST(sort, radix_route_is_stable_and_refuses_wide_unsigned) {
  // ATen sorts a rank-1 integer tensor of >= 32768 elements ascending with
  // a stable radix sort: equal values keep their order.
  const int64_t n = 40000;
  etr_tensor_t *x = repeating(ETR_INT, n, 13, false);
  etr_tensor_t *values = tt_out(ETR_INT, TT_SIZES(1), n);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1), n);
  tt_expect_status(sort(x, 0, false, values, indices), ETR_OK);
  expect_sorted_selection(x, values, indices, n, false);
  for (int64_t i = 1; i < n; ++i) {
    if (tt_get(values, i - 1) == tt_get(values, i)) {
      cr_assert_lt(tt_get_i64(indices, i - 1), tt_get_i64(indices, i));
    }
  }
  // uint16/32/64 have no radix kernel in PyTorch: NotSupported; shorter,
  // descending or 2-D sorts of them work.
  static const etr_scalar_type_t kWide[] = {ETR_UINT16, ETR_UINT32,
                                            ETR_UINT64};
  for (size_t t = 0; t < 3; ++t) {
    etr_tensor_t *wide = tt_cast(x, kWide[t]);
    etr_tensor_t *wide_values = tt_out(kWide[t], TT_SIZES(1), n);
    tt_expect_status(sort(wide, 0, false, wide_values, indices),
                     ETR_ERR_NOT_SUPPORTED);
    tt_expect_status(sort(wide, 0, true, wide_values, indices), ETR_OK);
    expect_sorted_selection(wide, wide_values, indices, n, true);
    etr_tensor_t *short_wide = tt_tensor(kWide[t], TT_SIZES(4),
                                         TT_VALUES(9, 1, 65535, 3));
    tt_expect_status(sort(short_wide, 0, false, wide_values, indices),
                     ETR_OK);
    tt_expect_values(wide_values, TT_VALUES(1, 3, 9, 65535), 4);
    tt_expect_values(indices, TT_VALUES(1, 3, 0, 2), 4);
  }
}

TT_TEST(sort, stride_zero_keeps_indices) {
  // A broadcast view (stride 0 along dim) keeps indices 0..n-1, as ATen's
  // sort_kernel returns early; std::sort would permute the equal values.
  etr_tensor_t *one = tt_tensor(ETR_FLOAT, TT_SIZES(1), TT_VALUES(3.5));
  etr_tensor_t view = *one;
  view.sizes[0] = 40;
  view.strides[0] = 0;
  etr_tensor_t *values = tt_out(ETR_FLOAT, TT_SIZES(40), 0);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(40), 0);
  tt_expect_status(sort(&view, 0, true, values, indices), ETR_OK);
  for (int64_t i = 0; i < 40; ++i) {
    cr_expect_eq(tt_get(values, i), 3.5);
    cr_expect_eq(tt_get_i64(indices, i), i);
  }
}

TT_TEST(topk, agrees_with_sort_and_pytorch_ties) {
  const int64_t n = 300;
  etr_tensor_t *x = repeating(ETR_DOUBLE, n, 11, true);
  static const int64_t kK[] = {1, 2, 4, 5, 17, 64, 299, 300};
  for (int largest = 0; largest < 2; ++largest) {
    for (size_t k = 0; k < sizeof(kK) / sizeof(kK[0]); ++k) {
      etr_tensor_t *values = tt_out(ETR_DOUBLE, TT_SIZES(1), n);
      etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1), n);
      cr_expect_eq(topk(x, kK[k], -1, largest, values, indices), ETR_OK);
      cr_assert_eq(values->sizes[0], kK[k]);
      expect_sorted_selection(x, values, indices, kK[k], largest);
      // Nothing left out beats the last value taken.
      double last = tt_get(values, kK[k] - 1);
      int64_t better = 0;
      for (int64_t i = 0; i < n; ++i) {
        int o = order(tt_get(x, i), last);
        better += largest ? o > 0 : o < 0;
      }
      cr_expect_leq(better, kK[k]);
    }
  }
  // PyTorch 2.13 orders these ties [4, 8, 0, 2] and [6, 7, 5, 3].
  etr_tensor_t *ties = tt_tensor(ETR_LONG, TT_SIZES(9),
                                 TT_VALUES(2, 1, 2, 1, 2, 1, 0, 0, 2));
  etr_tensor_t *values = tt_out(ETR_LONG, TT_SIZES(4), 0);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(4), 0);
  cr_expect_eq(topk(ties, 4, 0, true, values, indices), ETR_OK);
  tt_expect_values(values, TT_VALUES(2, 2, 2, 2), 4);
  tt_expect_values(indices, TT_VALUES(4, 8, 0, 2), 4);
  cr_expect_eq(topk(ties, 4, 0, false, values, indices), ETR_OK);
  tt_expect_values(values, TT_VALUES(0, 0, 1, 1), 4);
  tt_expect_values(indices, TT_VALUES(6, 7, 5, 3), 4);
}

TT_TEST(topk, scratch_for_the_nth_element_route) {
  etr_tensor_t *x = repeating(ETR_FLOAT, 100, 5, false);
  etr_tensor_t *values = tt_out(ETR_FLOAT, TT_SIZES(1), 100);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1), 100);
  // k * 64 <= n (k = 1): std::partial_sort in the outs, no scratch.
  cr_expect_eq(topk_with_scratch(x, 1, 0, true, true, values, indices, 0),
               ETR_OK);
  // k = 2: std::nth_element needs 16 * 100 bytes.
  cr_expect_eq(topk_with_scratch(x, 2, 0, true, true, values, indices, 0),
               ETR_ERR_MEMORY_ALLOCATION_FAILED);
  cr_expect_eq(topk_with_scratch(x, 2, 0, true, true, values, indices, 1000),
               ETR_ERR_MEMORY_ALLOCATION_FAILED);
  cr_expect_eq(topk_with_scratch(x, 2, 0, true, true, values, indices, 1600),
               ETR_OK);
  expect_sorted_selection(x, values, indices, 2, true);
}

TT_TEST(reduce_family, outs_in_their_own_layout) {
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 2, 3),
                              TT_VALUES(3, 1, 2, 9, 8, 7, 4, 6, 5, 0, 1, 2));
  // max.dim over H with keepdim into channels-last outs [1, 2, 1, 3].
  etr_tensor_t *values =
      tt_out_dim_order(ETR_FLOAT, 4, (const int64_t[]){1, 2, 1, 3},
                       kChannelsLast);
  etr_tensor_t *indices =
      tt_out_dim_order(ETR_LONG, 4, (const int64_t[]){1, 2, 1, 3},
                       kChannelsLast);
  tt_expect_status(
      TT_CALL("aten::max.dim_max", tt_ev_tensor(tt_channels_last(x)),
              tt_ev_int(2), tt_ev_bool(true), tt_ev_tensor(values),
              tt_ev_tensor(indices),
              tt_ev_tensor_list(2, (etr_tensor_t *const[]){values, indices})),
      ETR_OK);
  tt_expect_values(values, TT_VALUES(9, 8, 7, 4, 6, 5), 6);
  tt_expect_values(indices, TT_VALUES(1, 1, 1, 0, 0, 0), 6);
  // cumsum along C into a channels-last out.
  etr_tensor_t *sums = tt_out_dim_order(
      ETR_FLOAT, 4, (const int64_t[]){1, 2, 2, 3}, kChannelsLast);
  tt_expect_status(TT_CALL("aten::cumsum.out", tt_ev_tensor(x), tt_ev_int(1),
                           tt_ev_none(), tt_ev_tensor(sums),
                           tt_ev_tensor(sums)),
                   ETR_OK);
  tt_expect_values(sums, TT_VALUES(3, 1, 2, 9, 8, 7, 7, 7, 7, 9, 9, 9), 12);
}

// Half and BFloat16 cumsums accumulate in float, as ATen's (values from
// PyTorch 2.13): a Half sum that reaches 65520 in float is inf though the
// exact sum, 65519.998046875, would round to 65504; in BFloat16 the float
// sum 1 + 2^-8 drops two 2^-25 (each a quarter of a float ulp), so it
// stays the tie that rounds to 1, where the exact sum rounds up.
TT_TEST(reduce_family, cumsum_16_bit_sums_in_float) {
  static const struct {
    etr_scalar_type_t dtype;
    double in[4], expected[4];
  } kCases[] = {
      {ETR_HALF,
       {65504, 15.9921875, 0.0029296875, 0.0029296875},
       {65504, 65504, 65504, INFINITY}},
      {ETR_BFLOAT16,
       {1, 0x1p-8, 0x1p-25, 0x1p-25},
       {1, 1, 1, 1}},
  };
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) {
    etr_tensor_t *x = tt_tensor(kCases[k].dtype, TT_SIZES(4), kCases[k].in);
    etr_tensor_t *out = tt_out(kCases[k].dtype, TT_SIZES(4), 0);
    tt_expect_status(TT_CALL("aten::cumsum.out", tt_ev_tensor(x),
                             tt_ev_int(0), tt_ev_none(), tt_ev_tensor(out),
                             tt_ev_tensor(out)),
                     ETR_OK);
    for (int64_t i = 0; i < 4; ++i) {
      cr_expect_eq(tt_get(out, i), kCases[k].expected[i],
                   "%s cumsum[%lld] = %.17g, PyTorch %.17g",
                   etr_scalar_type_name(kCases[k].dtype), (long long)i,
                   tt_get(out, i), kCases[k].expected[i]);
    }
  }
}

TT_TEST(reduce_family, outs_too_small) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3),
                              TT_VALUES(1, 0, 2, 0, 3, 0));
  etr_tensor_t *small = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  etr_tensor_t *small_long = tt_out(ETR_LONG, TT_SIZES(1), 0);
  tt_expect_status(TT_CALL("aten::amax.out", tt_ev_tensor(x), TT_EV_INTS(1),
                           tt_ev_bool(false), tt_ev_tensor(small),
                           tt_ev_tensor(small)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL("aten::cumsum.out", tt_ev_tensor(x), tt_ev_int(0),
                           tt_ev_none(), tt_ev_tensor(small),
                           tt_ev_tensor(small)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(sort(x, 1, false, small, small_long),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL("aten::_cdist_forward.out", tt_ev_tensor(x),
                           tt_ev_tensor(x), tt_ev_double(2.0), tt_ev_none(),
                           tt_ev_tensor(small), tt_ev_tensor(small)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL("aten::randperm.out", tt_ev_int(5),
                           tt_ev_tensor(small_long),
                           tt_ev_tensor(small_long)),
                   ETR_ERR_INVALID_ARGUMENT);
  // A static out of the wrong shape cannot be resized.
  etr_tensor_t *fixed = tt_out(ETR_FLOAT, TT_SIZES(3), 8);
  fixed->shape_dynamism = ETR_SHAPE_STATIC;
  tt_expect_status(TT_CALL("aten::amin.out", tt_ev_tensor(x), TT_EV_INTS(1),
                           tt_ev_bool(false), tt_ev_tensor(fixed),
                           tt_ev_tensor(fixed)),
                   ETR_ERR_INVALID_ARGUMENT);
}

// nonzero is called directly: its dry run cannot know the real shape.
static etr_error_t nonzero(etr_tensor_t *x, etr_tensor_t *out, bool dry_run) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &diag;
  ctx.op_name = "aten::nonzero.out";
  ctx.dry_run = dry_run;
  etr_evalue_t *args[3] = {tt_ev_tensor(x), tt_ev_tensor(out),
                           tt_ev_tensor(out)};
  etr_error_t status = tt_find_kernel("aten::nonzero.out")(&ctx, args, 3);
  cr_expect(status == ETR_OK || diag.code == status);
  return status;
}

TT_TEST(nonzero, data_dependent_resize_and_dry_run) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3),
                              TT_VALUES(1, 0, 2, 0, 3, 0));
  // Room for the 3 rows found but not for the 6 possible.
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(0, 2), 6);
  cr_expect_eq(nonzero(tt_noncontiguous(x), out, false), ETR_OK);
  tt_expect_shape(out, 2, (const int64_t[]){3, 2});
  tt_expect_values(out, TT_VALUES(0, 0, 0, 2, 1, 1), 6);
  // Dry run: the upper bound [numel, rank] when it fits, else [0, rank].
  void *data = out->data;
  out->data = NULL;
  cr_expect_eq(nonzero(x, out, true), ETR_OK);
  tt_expect_shape(out, 2, (const int64_t[]){0, 2});
  etr_tensor_t *roomy = tt_out(ETR_LONG, TT_SIZES(1), 12);
  roomy->data = NULL;
  cr_expect_eq(nonzero(x, roomy, true), ETR_OK);
  tt_expect_shape(roomy, 2, (const int64_t[]){6, 2});
  out->data = data;
  // Too little room for what is found.
  etr_tensor_t *tiny = tt_out(ETR_LONG, TT_SIZES(1), 5);
  cr_expect_eq(nonzero(x, tiny, false), ETR_ERR_INVALID_ARGUMENT);
  // Higher ranks: every non-zero of a [2, 1, 2, 2] tensor.
  etr_tensor_t *x4 = tt_channels_last(tt_tensor(
      ETR_INT, TT_SIZES(2, 1, 2, 2), TT_VALUES(0, 5, 0, 0, 0, 0, 7, 0)));
  etr_tensor_t *out4 = tt_out(ETR_LONG, TT_SIZES(1), 32);
  cr_expect_eq(nonzero(x4, out4, false), ETR_OK);
  tt_expect_shape(out4, 2, (const int64_t[]){2, 4});
  tt_expect_values(out4, TT_VALUES(0, 0, 0, 1, 1, 0, 1, 0), 8);
}

TT_TEST(reduce_family, hostile_int64_arguments) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1), 16);
  etr_tensor_t *longs = tt_out(ETR_LONG, TT_SIZES(1), 16);
  etr_tensor_t *bools = tt_out(ETR_BOOL, TT_SIZES(1), 16);
  static const int64_t kDims[] = {INT64_MAX, INT64_MIN, 2, -3,
                                  INT32_MAX + INT64_C(1)};
  for (size_t k = 0; k < sizeof(kDims) / sizeof(kDims[0]); ++k) {
    int64_t d = kDims[k];
    cr_log_info("dim %lld", (long long)d);
    etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
    tt_expect_status(TT_CALL("aten::amax.out", tt_ev_tensor(x),
                             tt_ev_int_list(1, &d), tt_ev_bool(false),
                             tt_ev_tensor(out), tt_ev_tensor(out)),
                     bad);
    tt_expect_status(TT_CALL("aten::argmin.out", tt_ev_tensor(x),
                             tt_ev_int(d), tt_ev_bool(true),
                             tt_ev_tensor(longs), tt_ev_tensor(longs)),
                     bad);
    tt_expect_status(
        TT_CALL("aten::max.dim_max", tt_ev_tensor(x), tt_ev_int(d),
                tt_ev_bool(false), tt_ev_tensor(out), tt_ev_tensor(longs),
                tt_ev_tensor_list(2, (etr_tensor_t *const[]){out, longs})),
        bad);
    tt_expect_status(TT_CALL("aten::any.out", tt_ev_tensor(x), tt_ev_int(d),
                             tt_ev_bool(false), tt_ev_tensor(bools),
                             tt_ev_tensor(bools)),
                     bad);
    tt_expect_status(TT_CALL("aten::any.dims_out", tt_ev_tensor(x),
                             tt_ev_int_list(1, &d), tt_ev_bool(false),
                             tt_ev_tensor(bools), tt_ev_tensor(bools)),
                     bad);
    tt_expect_status(TT_CALL("aten::prod.int_out", tt_ev_tensor(x),
                             tt_ev_int(d), tt_ev_bool(false), tt_ev_none(),
                             tt_ev_tensor(out), tt_ev_tensor(out)),
                     bad);
    tt_expect_status(TT_CALL("aten::var.out", tt_ev_tensor(x),
                             tt_ev_int_list(1, &d), tt_ev_bool(true),
                             tt_ev_bool(false), tt_ev_tensor(out),
                             tt_ev_tensor(out)),
                     bad);
    tt_expect_status(TT_CALL("aten::cumsum.out", tt_ev_tensor(x),
                             tt_ev_int(d), tt_ev_none(), tt_ev_tensor(out),
                             tt_ev_tensor(out)),
                     bad);
    tt_expect_status(sort(x, d, false, out, longs), bad);
    cr_expect_eq(topk(x, 1, d, true, out, longs), bad);
  }
  // k, n and sizes at the int64 extremes.
  cr_expect_eq(topk(x, INT64_MAX, 1, true, out, longs),
               ETR_ERR_INVALID_ARGUMENT);
  cr_expect_eq(topk(x, INT64_MIN, 1, true, out, longs),
               ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL("aten::randperm.out", tt_ev_int(INT64_MAX),
                           tt_ev_tensor(longs), tt_ev_tensor(longs)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL("aten::randperm.out", tt_ev_int(INT64_MIN),
                           tt_ev_tensor(longs), tt_ev_tensor(longs)),
                   ETR_ERR_INVALID_ARGUMENT);
  static const int64_t kHuge[][3] = {{INT64_MAX, 2, 1},
                                     {INT64_C(1) << 40, INT64_C(1) << 40, 1},
                                     {0, INT64_MAX, INT64_MAX},
                                     {-1, 2, 1},
                                     {INT64_MIN, 1, 1}};
  for (size_t k = 0; k < sizeof(kHuge) / sizeof(kHuge[0]); ++k) {
    for (int op = 0; op < 2; ++op) {
      tt_expect_status(
          TT_CALL(op == 0 ? "aten::rand.out" : "aten::randn.out",
                  tt_ev_int_list(3, kHuge[k]), tt_ev_tensor(out),
                  tt_ev_tensor(out)),
          ETR_ERR_INVALID_ARGUMENT);
    }
  }
  // 17 dims is more than a tensor holds.
  int64_t many[17];
  for (int i = 0; i < 17; ++i) {
    many[i] = 1;
  }
  tt_expect_status(TT_CALL("aten::rand.out", tt_ev_int_list(17, many),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  // pdist of 2^40 empty rows: the pair count overflows.
  etr_tensor_t *rows = tt_tensor(ETR_FLOAT, 2,
                                 (const int64_t[]){INT64_C(1) << 40, 0}, NULL);
  tt_expect_status(TT_CALL("aten::_pdist_forward.out", tt_ev_tensor(rows),
                           tt_ev_double(2.0), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  // Out-of-range cdist compute modes.
  tt_expect_status(TT_CALL("aten::_cdist_forward.out", tt_ev_tensor(x),
                           tt_ev_tensor(x), tt_ev_double(2.0),
                           tt_ev_int(INT64_MIN), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL("aten::_cdist_forward.out", tt_ev_tensor(x),
                           tt_ev_tensor(x), tt_ev_double(INFINITY),
                           tt_ev_int(INT64_MAX), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(reduce_family, argument_count_and_tags) {
  static const struct {
    const char *op;
    size_t num_args;
  } kOps[] = {
      {"aten::amax.out", 5},          {"aten::amin.out", 5},
      {"aten::any.dims_out", 5},      {"aten::any.out", 5},
      {"aten::argmax.out", 5},        {"aten::argmin.out", 5},
      {"aten::max.dim_max", 6},       {"aten::min.dim_min", 6},
      {"aten::mean.dtype_out", 4},    {"aten::prod.int_out", 6},
      {"aten::prod.out", 4},          {"aten::var.correction_out", 6},
      {"aten::var.out", 6},           {"aten::cumsum.out", 5},
      {"aten::sort.values", 6},       {"aten::topk.values", 8},
      {"aten::_cdist_forward.out", 6}, {"aten::_pdist_forward.out", 4},
      {"aten::nonzero.out", 3},       {"aten::rand.out", 3},
      {"aten::randn.out", 3},         {"aten::randperm.out", 3},
      {"aten::native_dropout.out", 6},
  };
  for (size_t k = 0; k < sizeof(kOps) / sizeof(kOps[0]); ++k) {
    etr_kernel_fn fn = tt_find_kernel(kOps[k].op);
    cr_assert_not_null(fn, "%s", kOps[k].op);
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_kernel_context_t ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.diag = &diag;
    ctx.op_name = kOps[k].op;
    // One argument short: InvalidProgram.
    etr_evalue_t *strings[8];
    for (size_t i = 0; i < 8; ++i) {
      strings[i] = tt_ev_string("x");
    }
    cr_expect_eq(fn(&ctx, strings, kOps[k].num_args - 1),
                 ETR_ERR_INVALID_PROGRAM, "%s", kOps[k].op);
    // Every argument a String: InvalidType on the first one read.
    etr_diag_reset(&diag);
    cr_expect_eq(fn(&ctx, strings, kOps[k].num_args), ETR_ERR_INVALID_TYPE,
                 "%s", kOps[k].op);
  }
}
