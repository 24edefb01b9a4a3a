// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized scatter family (scatter.src_out,
// scatter.value_out, scatter_add.out, scatter_reduce.two_out;
// movement/scatter.c) against the reference kernels, on every ISA of this
// machine. Results must match bit for bit: the optimized pass applies the
// entries of one target in the reference's order.
//
// Sweeps: every dim of rank-1, rank-3 and 0-dim inputs (negative dims
// too); index shapes equal to and smaller than self (and src larger),
// Long and Int indices, contiguous and non-contiguous index, src and self;
// random index values with many duplicates (several entries per target,
// so order matters); every dtype for assignment, Float (special values:
// NaN must win amax/amin as in ATen), Long, Half and BFloat16 (reduced in
// an fp32 copy of out, rounded once, as ATen) for the reductions, mean
// (fallback); include_self both ways; in place (out is self); errors:
// an index entry out of range or negative, a bad dim, a bad reduce name.
// Also masked_scatter (movement-style, see its test below).
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/test/movement_test_util.h"

static uint64_t g_seed = 900000;

typedef enum scatter_kind {
  SCATTER_SRC = 0,
  SCATTER_VALUE = 1,
  SCATTER_ADD = 2,
  SCATTER_REDUCE = 3,
} scatter_kind_t;

static const char *const kOpNames[] = {
    "aten::scatter.src_out", "aten::scatter.value_out",
    "aten::scatter_add.out", "aten::scatter_reduce.two_out"};

typedef struct scatter_spec {
  scatter_kind_t kind;
  etr_scalar_type_t dtype;
  int32_t rank;
  int64_t self_sizes[3];
  int64_t index_sizes[3];
  int64_t dim;
  etr_scalar_type_t index_dtype;
  etr_diff_layout_t layout;  // of self, src and index
  const char *reduce;        // scatter_reduce
  bool include_self;
  bool in_place;
  int64_t bad_entry;  // 0: none; else written into the index's last entry
  bool fast;          // every ISA must take the optimized path
} scatter_spec_t;

static int run_scatter(const scatter_spec_t *s) {
  etr_diff_case_t c;
  etr_diff_begin(&c, kOpNames[s->kind], g_seed++,
                 "%s rank %d dim %lld index %s%s%s%s",
                 etr_scalar_type_name(s->dtype), (int)s->rank,
                 (long long)s->dim, etr_scalar_type_name(s->index_dtype),
                 s->reduce != NULL ? s->reduce : "",
                 s->include_self ? "" : " exclude_self",
                 s->in_place ? " in place" : "");
  etr_diff_input(&c, s->dtype, s->rank, s->self_sizes, s->layout,
                 ETR_FILL_SPECIAL);
  etr_diff_arg(&c, tt_ev_int(s->dim));
  // Index values in [0, size along dim), drawn with duplicates.
  int32_t d = s->rank > 0 ? (int32_t)((s->dim + s->rank) % s->rank) : 0;
  int64_t size = s->rank > 0 ? s->self_sizes[d] : 1;
  int64_t count = 1;
  for (int32_t k = 0; k < s->rank; ++k) {
    count *= s->index_sizes[k];
  }
  int64_t *values = tt_alloc((size_t)(count > 0 ? count : 1) * 8);
  for (int64_t k = 0; k < count; ++k) {
    values[k] = etr_diff_range(&c, 0, size - 1);
  }
  if (s->bad_entry != 0 && count > 0) {
    values[count - 1] = s->bad_entry;
  }
  mt_index(&c, s->index_dtype, s->rank, s->index_sizes, values, s->layout);
  if (s->kind == SCATTER_VALUE) {
    etr_diff_arg(&c, s->dtype == ETR_BOOL ? tt_ev_bool(true)
                                          : tt_ev_int(3));
  } else {
    // src at least as large as index (one larger on the first dim).
    int64_t src_sizes[3];
    memcpy(src_sizes, s->index_sizes, sizeof(src_sizes));
    if (s->rank > 0) {
      src_sizes[0] += 1;
    }
    etr_diff_input(&c, s->dtype, s->rank, src_sizes, s->layout,
                   ETR_FILL_SPECIAL);
  }
  if (s->kind == SCATTER_REDUCE) {
    etr_diff_arg(&c, tt_ev_string(s->reduce));
    etr_diff_arg(&c, tt_ev_bool(s->include_self));
  }
  size_t out_index = c.num_args;
  if (s->in_place) {
    etr_diff_out_aliasing(&c, 0);
  } else {
    int64_t numel = 1;
    for (int32_t k = 0; k < s->rank; ++k) {
      numel *= s->self_sizes[k];
    }
    etr_diff_out(&c, s->dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 numel + 8);
  }
  etr_diff_return(&c, out_index);
  etr_diff_tolerance_exact(&c);
  mt_key(&c, s->dtype, s->layout);
  return mt_run(&c, s->fast);
}

TT_TEST(diff_movement_scatter, shapes_and_dtypes) {
  int failures = 0;
  static const int64_t kIndexShapes[][3] = {
      {4, 5, 6}, {3, 5, 6}, {7, 2, 3}, {1, 1, 1}, {4, 0, 6}};
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int64_t dim = -1; dim < 3; ++dim) {
      for (size_t i = 0; i < sizeof(kIndexShapes) / sizeof(kIndexShapes[0]);
           ++i) {
        scatter_spec_t s = {
            SCATTER_SRC, dtype, 3, {4, 5, 6}, {0}, dim,
            (t + i) % 2 ? ETR_INT : ETR_LONG,
            (etr_diff_layout_t)((t + i + (size_t)dim) % 2), NULL, true,
            false, 0, true};
        memcpy(s.index_sizes, kIndexShapes[i], sizeof(s.index_sizes));
        // The index may exceed self only along dim.
        for (int32_t k = 0; k < 3; ++k) {
          if (k != (dim + 3) % 3 && s.index_sizes[k] > s.self_sizes[k]) {
            s.index_sizes[k] = s.self_sizes[k];
          }
        }
        failures += run_scatter(&s);
        s.kind = SCATTER_VALUE;
        failures += run_scatter(&s);
      }
    }
  }
  mt_summary("shapes_and_dtypes");
  cr_assert_eq(failures, 0, "%d scatter cases disagree", failures);
}

TT_TEST(diff_movement_scatter, reductions) {
  int failures = 0;
  static const char *const kReduce[] = {"sum", "prod", "amax", "amin",
                                        "max", "min",  "mean"};
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_LONG,
                                              ETR_HALF, ETR_BFLOAT16};
  for (size_t t = 0; t < 4; ++t) {
    for (int64_t dim = 0; dim < 3; ++dim) {
      for (int include = 0; include < 2; ++include) {
        bool fast = true;
        scatter_spec_t add = {SCATTER_ADD, kDtypes[t], 3, {4, 5, 6},
                              {3, 4, 5}, dim, ETR_LONG,
                              (etr_diff_layout_t)include, NULL, true, false,
                              0, fast};
        add.index_sizes[dim] = 9;  // several entries per target
        failures += run_scatter(&add);
        for (size_t r = 0; r < sizeof(kReduce) / sizeof(kReduce[0]); ++r) {
          scatter_spec_t s = add;
          s.kind = SCATTER_REDUCE;
          s.reduce = kReduce[r];
          s.include_self = include == 1;
          s.index_dtype = r % 2 ? ETR_INT : ETR_LONG;
          s.fast = fast && strcmp(kReduce[r], "mean") != 0;
          failures += run_scatter(&s);
        }
      }
    }
  }
  mt_summary("reductions");
  cr_assert_eq(failures, 0, "%d scatter reduction cases disagree",
               failures);
}

TT_TEST(diff_movement_scatter, ranks_in_place_and_errors) {
  int failures = 0;
  for (size_t k = 0; k < 4; ++k) {
    // Rank 1 (an embedding-style update) and 0-dim.
    scatter_spec_t one = {(scatter_kind_t)k, ETR_FLOAT, 1, {37}, {50},
                          0, ETR_LONG, 0, "sum", false, false, 0, true};
    failures += run_scatter(&one);
    scatter_spec_t zero = {(scatter_kind_t)k, ETR_FLOAT, 0, {0}, {0},
                           -1, ETR_LONG, 0, "amax", true, false, 0, true};
    failures += run_scatter(&zero);
    // In place: out is self (Half too: reduced in an fp32 copy).
    scatter_spec_t in_place = {(scatter_kind_t)k, ETR_FLOAT, 3, {4, 5, 6},
                               {4, 5, 6}, 1, ETR_LONG, 0, "prod", true, true,
                               0, true};
    failures += run_scatter(&in_place);
    scatter_spec_t half_in_place = in_place;
    half_in_place.dtype = ETR_HALF;
    half_in_place.reduce = "sum";
    failures += run_scatter(&half_in_place);
    // An entry out of range, a negative one, a bad dim: refused alike.
    scatter_spec_t bad = in_place;
    bad.in_place = false;
    bad.bad_entry = 5;
    bad.fast = false;
    failures += run_scatter(&bad);
    bad.bad_entry = -1;
    failures += run_scatter(&bad);
    bad.bad_entry = 0;
    bad.dim = 3;
    failures += run_scatter(&bad);
  }
  scatter_spec_t name = {SCATTER_REDUCE, ETR_FLOAT, 3, {4, 5, 6}, {4, 5, 6},
                         1, ETR_LONG, 0, "median", true, false, 0, false};
  failures += run_scatter(&name);
  mt_summary("ranks_in_place_and_errors");
  cr_assert_eq(failures, 0, "%d scatter cases disagree", failures);
}

// masked_scatter: same-shape contiguous self/mask/out specialized (every
// dtype, in place too; lengths around the AVX-512 expand's steps); a
// source shorter than the mask's True count (the reference's
// InvalidArgument), broadcasting and non-contiguous inputs (fallback).
static int run_masked_fill(etr_scalar_type_t dtype, int32_t rank,
                           const int64_t *sizes, const int64_t *mask_sizes,
                           int64_t source_count, etr_diff_layout_t layout,
                           bool in_place, bool fast,
                           etr_diff_fill_t mask_fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::masked_scatter.out", g_seed++,
                 "%s rank %d source %lld%s", etr_scalar_type_name(dtype),
                 (int)rank, (long long)source_count,
                 in_place ? " in place" : "");
  etr_tensor_t *self =
      etr_diff_input(&c, dtype, rank, sizes, layout, ETR_FILL_SPECIAL);
  etr_diff_input(&c, ETR_BOOL, rank, mask_sizes, layout, mask_fill);
  etr_diff_input(&c, dtype, 1, &source_count, 0, ETR_FILL_SPECIAL);
  if (in_place) {
    etr_diff_out_aliasing(&c, 0);
  } else {
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
                 etr_tensor_numel(self) * 4 + 8);
  }
  etr_diff_return(&c, 3);
  etr_diff_tolerance_exact(&c);
  mt_key(&c, dtype, layout);
  return mt_run(&c, fast);
}

static int run_masked(etr_scalar_type_t dtype, int32_t rank,
                      const int64_t *sizes, const int64_t *mask_sizes,
                      int64_t source_count, etr_diff_layout_t layout,
                      bool in_place, bool fast) {
  return run_masked_fill(dtype, rank, sizes, mask_sizes, source_count,
                         layout, in_place, fast, ETR_FILL_RANDOM);
}

TT_TEST(diff_movement_scatter, masked_scatter) {
  int failures = 0;
  static const int64_t kShapes[][3] = {{1, 1, 1}, {2, 3, 4}, {3, 1, 33}};
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    for (size_t s = 0; s < 3; ++s) {
      int64_t numel = kShapes[s][0] * kShapes[s][1] * kShapes[s][2];
      failures += run_masked(kMovementDtypes[t], 3, kShapes[s], kShapes[s],
                             numel + 2, 0, s == 1, true);
    }
  }
  int64_t sizes[3] = {2, 3, 4};
  int64_t row[3] = {1, 3, 1};
  failures += run_masked(ETR_FLOAT, 3, sizes, sizes, 1, 0, false, false);
  failures += run_masked(ETR_FLOAT, 3, sizes, row, 30, 0, false, false);
  failures += run_masked(ETR_FLOAT, 3, sizes, sizes, 30,
                         ETR_DIFF_NONCONTIGUOUS, false, false);
  // Lengths around the expand kernels' 8- and 16-lane steps and the
  // count's 64-byte one, random, all-True (POSITIVE) and all-False masks,
  // 4- and 8-byte elements (AVX-512's expand) and a 2-byte one (the
  // loop); the source exactly as long as the mask where all are True.
  static const int64_t kLengths[] = {7, 8, 9, 15, 16, 17, 63, 64, 65, 1000};
  static const etr_scalar_type_t kWide[] = {ETR_FLOAT, ETR_LONG, ETR_HALF};
  static const etr_diff_fill_t kMasks[] = {ETR_FILL_RANDOM,
                                           ETR_FILL_POSITIVE, ETR_FILL_ZERO};
  for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
    int64_t shape[3] = {1, 2, kLengths[l]};
    for (size_t t = 0; t < 3; ++t) {
      for (size_t f = 0; f < 3; ++f) {
        failures += run_masked_fill(kWide[t], 3, shape, shape,
                                    2 * kLengths[l], 0, (l + f) % 2 == 0,
                                    true, kMasks[f]);
      }
    }
  }
  mt_summary("masked_scatter");
  cr_assert_eq(failures, 0, "%d masked_scatter cases disagree", failures);
}
