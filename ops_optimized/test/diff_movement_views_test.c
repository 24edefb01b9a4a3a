// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the movement family's remaining view copies
// against the reference kernels, on every ISA of this machine: alias_copy,
// as_strided_copy (contiguous runs, transposing and overlapping views,
// storage offsets, views out of bounds), diagonal_copy (offsets above,
// below and past the matrix, every dim pair) and flip (no dim, the
// innermost, outer ones, all of them; rows past the reverse kernels'
// vectors). Every element size, special values, contiguous /
// non-contiguous / channels-last inputs; bit-exact results.
#include <criterion/criterion.h>

#include "ops_optimized/test/movement_test_util.h"

static uint64_t g_seed = 300000;

TT_TEST(diff_movement_views, alias_copy) {
  static const int64_t kShape[4] = {2, 3, 4, 5};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 3; ++layout) {
      for (int nhwc = 0; nhwc < 2; ++nhwc) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::alias_copy.out", g_seed++, "%s out %s",
                       etr_scalar_type_name(dtype), nhwc ? "nhwc" : "nchw");
        etr_diff_input(&c, dtype, 4, kShape, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_diff_out(&c, dtype, 4, kShape,
                     nhwc ? ETR_DIFF_CHANNELS_LAST : ETR_DIFF_CONTIGUOUS, 0);
        etr_diff_return(&c, 1);
        failures += mt_run(&c, true);
      }
    }
  }
  mt_summary("alias_copy");
  cr_assert_eq(failures, 0, "%d alias_copy cases disagree", failures);
}

TT_TEST(diff_movement_views, as_strided_copy) {
  static const struct {
    size_t count;
    int64_t sizes[3];
    int64_t strides[3];
    bool has_offset;
    int64_t offset;
    bool ok;
  } kViews[] = {
      {2, {2, 3}, {6, 1}, false, 0, true},   // a block of rows
      {2, {3, 4}, {1, 6}, true, 1, true},    // transposing
      {2, {2, 2}, {0, 1}, false, 0, true},   // a repeated row
      {1, {4}, {6}, true, 5, true},          // a column
      {3, {2, 2, 3}, {12, 3, 1}, true, 0, true},
      {2, {3, 3}, {1, 1}, false, 0, true},   // overlapping windows
      {2, {0, 5}, {1, 1}, true, 100, true},  // empty: never out of bounds
      {2, {5, 5}, {5, 1}, false, 0, false},  // past the storage
      {2, {2, 2}, {1, 1}, true, -1, false},
  };
  static const int64_t kSelf[2] = {4, 6};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (size_t v = 0; v < sizeof(kViews) / sizeof(kViews[0]); ++v) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::as_strided_copy.out", g_seed++,
                       "%s view %zu", etr_scalar_type_name(dtype), v);
        etr_diff_input(&c, dtype, 2, kSelf, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int_list(kViews[v].count, kViews[v].sizes));
        etr_diff_arg(&c, tt_ev_int_list(kViews[v].count, kViews[v].strides));
        etr_diff_arg(&c, kViews[v].has_offset ? tt_ev_int(kViews[v].offset)
                                              : tt_ev_none());
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     64);
        etr_diff_return(&c, 4);
        failures += mt_run(&c, kViews[v].ok);
      }
    }
  }
  mt_summary("as_strided_copy");
  cr_assert_eq(failures, 0, "%d as_strided_copy cases disagree", failures);
}

TT_TEST(diff_movement_views, diagonal_copy) {
  static const int64_t kSelf[3] = {4, 5, 6};
  static const struct {
    int64_t offset, dim1, dim2;
    bool ok;
  } kDiagonals[] = {{0, 0, 1, true},  {1, 0, 1, true},   {-2, 0, 1, true},
                    {0, 1, 2, true},  {2, -1, 0, true},  {10, 0, 1, true},
                    {-9, 2, 1, true}, {0, 1, 1, false}};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (size_t d = 0; d < sizeof(kDiagonals) / sizeof(kDiagonals[0]);
           ++d) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::diagonal_copy.out", g_seed++,
                       "%s diagonal %zu", etr_scalar_type_name(dtype), d);
        etr_diff_input(&c, dtype, 3, kSelf, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int(kDiagonals[d].offset));
        etr_diff_arg(&c, tt_ev_int(kDiagonals[d].dim1));
        etr_diff_arg(&c, tt_ev_int(kDiagonals[d].dim2));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     128);
        etr_diff_return(&c, 4);
        failures += mt_run(&c, kDiagonals[d].ok);
      }
    }
  }
  mt_summary("diagonal_copy");
  cr_assert_eq(failures, 0, "%d diagonal_copy cases disagree", failures);
}

// The dense fast path: a 2-D self and an out already of the diagonal's
// length, lengths around the 4-wide unroll and the prefetch distance,
// every dim order and offsets of both signs; a non-contiguous self, an
// out to resize, a strided out and an empty diagonal take the general
// path.
TT_TEST(diff_movement_views, diagonal_copy_dense) {
  static const int64_t kSquare[] = {1, 2, 3, 4, 5, 7, 8, 19, 20, 21, 23,
                                    24, 25, 37, 130};
  static const struct {
    int64_t offset, dim1, dim2;
  } kDiagonals[] = {{0, 0, 1}, {0, 1, 0}, {1, 0, 1}, {-2, 0, 1},
                    {3, -1, -2}, {-1, 1, 0}};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (size_t m = 0; m < sizeof(kSquare) / sizeof(kSquare[0]); ++m) {
      // Square, wide and tall matrices.
      for (int form = 0; form < 3; ++form) {
        int64_t sizes[2] = {kSquare[m], kSquare[m]};
        sizes[form == 1 ? 1 : 0] += form == 0 ? 0 : 3;
        for (size_t d = 0; d < sizeof(kDiagonals) / sizeof(kDiagonals[0]);
             ++d) {
          int64_t offset = kDiagonals[d].offset;
          int32_t dim1 = (int32_t)((kDiagonals[d].dim1 + 2) % 2);
          int32_t dim2 = (int32_t)((kDiagonals[d].dim2 + 2) % 2);
          int64_t rows = offset >= 0 ? sizes[dim1] : sizes[dim1] + offset;
          int64_t cols = offset >= 0 ? sizes[dim2] - offset : sizes[dim2];
          int64_t length = rows < cols ? rows : cols;
          length = length > 0 ? length : 0;
          for (int variant = 0; variant < 4; ++variant) {
            // 0: fast path; 1: non-contiguous self; 2: out to resize;
            // 3: strided out.
            etr_diff_case_t c;
            etr_diff_begin(&c, "aten::diagonal_copy.out", g_seed++,
                           "%s %lldx%lld diagonal %zu variant %d",
                           etr_scalar_type_name(dtype), (long long)sizes[0],
                           (long long)sizes[1], d, variant);
            etr_diff_input(&c, dtype, 2, sizes,
                           variant == 1 ? ETR_DIFF_NONCONTIGUOUS
                                        : ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_SPECIAL);
            etr_diff_arg(&c, tt_ev_int(offset));
            etr_diff_arg(&c, tt_ev_int(kDiagonals[d].dim1));
            etr_diff_arg(&c, tt_ev_int(kDiagonals[d].dim2));
            etr_diff_out(&c, dtype, 1,
                         (const int64_t[]){variant == 2 ? 0 : length},
                         variant == 3 ? ETR_DIFF_NONCONTIGUOUS
                                      : ETR_DIFF_CONTIGUOUS,
                         variant == 2 ? length : 0);
            etr_diff_return(&c, 4);
            failures += mt_run(&c, true);
          }
        }
      }
    }
  }
  mt_summary("diagonal_copy_dense");
  cr_assert_eq(failures, 0, "%d diagonal_copy cases disagree", failures);
}

TT_TEST(diff_movement_views, flip) {
  static const int64_t kSelf[4] = {2, 3, 4, 5};
  static const struct {
    size_t count;
    int64_t dims[4];
    bool ok;
  } kFlips[] = {{0, {0}, true},         {1, {3}, true},
                {1, {0}, true},         {2, {1, 3}, true},
                {4, {-1, 1, 0, 2}, true}, {2, {1, 1}, false}};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 3; ++layout) {
      for (size_t f = 0; f < sizeof(kFlips) / sizeof(kFlips[0]); ++f) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::flip.out", g_seed++, "%s flip %zu",
                       etr_scalar_type_name(dtype), f);
        etr_diff_input(&c, dtype, 4, kSelf, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int_list(kFlips[f].count, kFlips[f].dims));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     256);
        etr_diff_return(&c, 2);
        failures += mt_run(&c, kFlips[f].ok);
      }
    }
    // Rows past the reverse kernels' vectors (movement.h's
    // etr_move_reverse_fn: 4 to 16 elements a step) and their tails.
    static const int64_t kWide[][3] = {{3, 2, 37}, {2, 1, 16}, {1, 2, 70}};
    static const int64_t kInner[2][2] = {{2, 0}, {-1, 0}};
    for (size_t w = 0; w < 3; ++w) {
      for (size_t f = 0; f < 2; ++f) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::flip.out", g_seed++, "%s flip wide %zu %zu",
                       etr_scalar_type_name(dtype), w, f);
        etr_diff_input(&c, dtype, 3, kWide[w], ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int_list(f + 1, kInner[f]));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     256);
        etr_diff_return(&c, 2);
        failures += mt_run(&c, true);
      }
    }
    etr_diff_case_t c;  // a 0-dim self flips nothing
    etr_diff_begin(&c, "aten::flip.out", g_seed++, "%s 0-dim",
                   etr_scalar_type_name(dtype));
    etr_diff_input(&c, dtype, 0, NULL, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
    etr_diff_arg(&c, TT_EV_INTS(0));
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS, 4);
    etr_diff_return(&c, 2);
    failures += mt_run(&c, true);
  }
  mt_summary("flip");
  cr_assert_eq(failures, 0, "%d flip cases disagree", failures);
}
