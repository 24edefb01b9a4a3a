// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the movement family's index-taking ops against
// the reference kernels, on every ISA of this machine: index_select,
// embedding, index.Tensor (one index tensor, leading/trailing None, multi-
// dim and negative entries; masks and two indices fall back), gather and
// index_put.out (the KV-cache update: a row or a column per step, repeated
// entries, broadcast values, in place). Long and Int indices, contiguous
// and strided index tensors, entries out of range (both kernels must
// refuse), every element size of data. Results must match bit for bit.
#include <criterion/criterion.h>

#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/movement_test_util.h"

static uint64_t g_seed = 200000;

static const etr_scalar_type_t kIndexDtypes[2] = {ETR_LONG, ETR_INT};

TT_TEST(diff_movement_index, index_select) {
  static const int64_t kSelf[3] = {5, 6, 7};
  static const struct {
    int32_t dim;  // of the index
    int64_t count;
    int64_t values[6];
  } kIndices[] = {{1, 4, {0, 4, 4, 1}}, {1, 1, {3}},    {0, 1, {2}},
                  {1, 6, {4, 3, 2, 1, 0, 0}}, {1, 0, {0}}, {1, 2, {1, 5}},
                  {1, 2, {-1, 0}}};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (int64_t dim = -1; dim < 3; ++dim) {
        for (size_t i = 0; i < sizeof(kIndices) / sizeof(kIndices[0]); ++i) {
          etr_scalar_type_t index_dtype = kIndexDtypes[(t + i) % 2];
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::index_select.out", g_seed++,
                         "%s dim %lld index %zu %s",
                         etr_scalar_type_name(dtype), (long long)dim, i,
                         etr_scalar_type_name(index_dtype));
          etr_diff_input(&c, dtype, 3, kSelf, (etr_diff_layout_t)layout,
                         ETR_FILL_SPECIAL);
          etr_diff_arg(&c, tt_ev_int(dim));
          mt_index(&c, index_dtype, kIndices[i].dim, &kIndices[i].count,
                   kIndices[i].values, (etr_diff_layout_t)layout);
          etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                       ETR_DIFF_CONTIGUOUS, 512);
          etr_diff_return(&c, 3);
          mt_key(&c, dtype, (etr_diff_layout_t)layout);
          bool ok = true;  // every entry in [0, size)
          for (int64_t k = 0; k < kIndices[i].count; ++k) {
            ok = ok && kIndices[i].values[k] >= 0 &&
                 kIndices[i].values[k] < kSelf[dim < 0 ? dim + 3 : dim];
          }
          failures += mt_run(&c, ok);
        }
      }
    }
    // A 0-dim self takes one 0.
    etr_diff_case_t c;
    etr_diff_begin(&c, "aten::index_select.out", g_seed++, "%s 0-dim",
                   etr_scalar_type_name(dtype));
    etr_diff_input(&c, dtype, 0, NULL, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
    etr_diff_arg(&c, tt_ev_int(0));
    mt_index(&c, ETR_LONG, 1, (const int64_t[]){1}, (const int64_t[]){0},
             ETR_DIFF_CONTIGUOUS);
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS, 4);
    etr_diff_return(&c, 3);
    mt_key(&c, dtype, ETR_DIFF_CONTIGUOUS);
    failures += mt_run(&c, true);
  }
  mt_summary("index_select");
  cr_assert_eq(failures, 0, "%d index_select cases disagree", failures);
}

TT_TEST(diff_movement_index, embedding) {
  static const struct {
    int32_t dim;
    int64_t sizes[2];
    int64_t values[6];
    bool ok;
  } kIndices[] = {{1, {4}, {0, 9, 3, 3}, true},
                  {2, {2, 3}, {1, 2, 3, 4, 5, 6}, true},
                  {0, {0}, {7}, true},
                  {1, {0}, {0}, true},
                  {1, {2}, {10, 0}, false},
                  {1, {2}, {0, -1}, false}};
  static const int64_t kWeights[][2] = {{10, 16}, {10, 1}, {10, 33}};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (size_t w = 0; w < 3; ++w) {
      for (int layout = 0; layout < 2; ++layout) {
        for (size_t i = 0; i < sizeof(kIndices) / sizeof(kIndices[0]); ++i) {
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::embedding.out", g_seed++,
                         "%s weight %zu indices %zu",
                         etr_scalar_type_name(dtype), w, i);
          etr_diff_input(&c, dtype, 2, kWeights[w], (etr_diff_layout_t)layout,
                         ETR_FILL_SPECIAL);
          mt_index(&c, kIndexDtypes[(i + w) % 2], kIndices[i].dim,
                   kIndices[i].sizes, kIndices[i].values,
                   (etr_diff_layout_t)layout);
          etr_diff_arg(&c, tt_ev_int(-1));
          etr_diff_arg(&c, tt_ev_bool(false));
          etr_diff_arg(&c, tt_ev_bool(false));
          etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                       ETR_DIFF_CONTIGUOUS, 512);
          etr_diff_return(&c, 5);
          mt_key(&c, dtype, (etr_diff_layout_t)layout);
          failures += mt_run(&c, kIndices[i].ok);
        }
      }
    }
  }
  mt_summary("embedding");
  cr_assert_eq(failures, 0, "%d embedding cases disagree", failures);
}

// The dense row gather behind embedding (gather_rows in movement/
// index.c): rows of D elements at and around the vector widths (4-byte,
// 1-byte and 8-byte elements), Long and Int indices with repeats, none
// and one entry, padding_idx (the forward ignores it), entries past the
// end, negative and extreme (both kernels refuse), a strided out (one
// move per entry) and a 2-dim index with a strided out (the reference).
TT_TEST(diff_movement_index, embedding_rows) {
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_BYTE,
                                              ETR_DOUBLE};
  static const int64_t kDims[] = {1, 15, 16, 17, 64, 65, 255, 256, 257};
  static const struct {
    int64_t count;
    int64_t values[7];
    bool ok;
  } kIndices[] = {{7, {0, 19, 5, 5, 19, 0, 7}, true},
                  {0, {0}, true},
                  {1, {19}, true},
                  {3, {4, 20, 1}, false},
                  {3, {4, -1, 1}, false},
                  {2, {0, INT32_MIN}, false},
                  {2, {INT32_MAX, 0}, false}};
  static const int64_t kPadding[] = {-1, 0, 5};
  int failures = 0;
  int variant = 0;
  for (size_t t = 0; t < sizeof(kDtypes) / sizeof(kDtypes[0]); ++t) {
    for (size_t d = 0; d < sizeof(kDims) / sizeof(kDims[0]); ++d) {
      for (size_t i = 0; i < sizeof(kIndices) / sizeof(kIndices[0]); ++i) {
        for (int strided_out = 0; strided_out < 2; ++strided_out) {
          etr_scalar_type_t index_dtype = kIndexDtypes[variant % 2];
          int64_t padding = kPadding[variant % 3];
          ++variant;
          int64_t count = kIndices[i].count;
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::embedding.out", g_seed++,
                         "%s D %lld indices %zu %s padding %lld%s",
                         etr_scalar_type_name(kDtypes[t]),
                         (long long)kDims[d], i,
                         etr_scalar_type_name(index_dtype),
                         (long long)padding, strided_out ? " strided out" : "");
          etr_diff_input(&c, kDtypes[t], 2, (const int64_t[]){20, kDims[d]},
                         ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
          mt_index(&c, index_dtype, 1, &count, kIndices[i].values,
                   ETR_DIFF_CONTIGUOUS);
          etr_diff_arg(&c, tt_ev_int(padding));
          etr_diff_arg(&c, tt_ev_bool(false));
          etr_diff_arg(&c, tt_ev_bool(false));
          if (strided_out) {
            etr_diff_out(&c, kDtypes[t], 2,
                         (const int64_t[]){count, kDims[d]},
                         ETR_DIFF_NONCONTIGUOUS, 0);
          } else {
            etr_diff_out(&c, kDtypes[t], 1, (const int64_t[]){0},
                         ETR_DIFF_CONTIGUOUS, 8 * 257);
          }
          etr_diff_return(&c, 5);
          mt_key(&c, kDtypes[t], ETR_DIFF_CONTIGUOUS);
          failures += mt_run(&c, kIndices[i].ok);
        }
      }
    }
    // A 2-dim index into a strided out cannot be read as rows: the
    // reference runs it (and agrees).
    etr_diff_case_t c;
    etr_diff_begin(&c, "aten::embedding.out", g_seed++,
                   "%s 2-dim index strided out",
                   etr_scalar_type_name(kDtypes[t]));
    etr_diff_input(&c, kDtypes[t], 2, (const int64_t[]){20, 17},
                   ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
    mt_index(&c, ETR_LONG, 2, (const int64_t[]){2, 3},
             (const int64_t[]){1, 2, 3, 19, 0, 3}, ETR_DIFF_CONTIGUOUS);
    etr_diff_arg(&c, tt_ev_int(-1));
    etr_diff_arg(&c, tt_ev_bool(false));
    etr_diff_arg(&c, tt_ev_bool(false));
    etr_diff_out(&c, kDtypes[t], 3, (const int64_t[]){2, 3, 17},
                 ETR_DIFF_NONCONTIGUOUS, 0);
    etr_diff_return(&c, 5);
    mt_key(&c, kDtypes[t], ETR_DIFF_CONTIGUOUS);
    failures += etr_diff_run(&c);
  }
  mt_summary("embedding_rows");
  cr_assert_eq(failures, 0, "%d embedding row cases disagree", failures);
}

// An entry out of range anywhere (here the last, past rows already
// copyable) is an error with out untouched: every entry is checked before
// the first row is written.
TT_TEST(diff_movement_index, embedding_error_writes_nothing) {
  static const int64_t kBad[] = {20, -1, INT64_MIN, INT64_MAX};
  for (size_t b = 0; b < sizeof(kBad) / sizeof(kBad[0]); ++b) {
    etr_tensor_t *weight =
        tt_tensor(ETR_FLOAT, 2, (const int64_t[]){20, 256}, NULL);
    etr_tensor_t *indices = tt_tensor_i64(
        ETR_LONG, 1, (const int64_t[]){4},
        (const int64_t[]){3, 19, 0, kBad[b]});
    etr_tensor_t *out =
        tt_out(ETR_FLOAT, 2, (const int64_t[]){4, 256}, 4 * 256);
    float *data = (float *)out->data;
    for (int64_t k = 0; k < 4 * 256; ++k) {
      data[k] = 7.0f;
    }
    etr_evalue_t *args[7] = {tt_ev_tensor(weight), tt_ev_tensor(indices),
                             tt_ev_int(-1),        tt_ev_bool(false),
                             tt_ev_bool(false),    tt_ev_tensor(out),
                             NULL};
    args[6] = args[5];
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_kernel_context_t ctx = {.diag = &diag};
    cr_assert_eq(etr_opt_embedding_out(&ctx, args, 7),
                 ETR_ERR_INVALID_ARGUMENT, "entry %lld",
                 (long long)kBad[b]);
    for (int64_t k = 0; k < 4 * 256; ++k) {
      cr_assert_eq(data[k], 7.0f, "out[%lld] written", (long long)k);
    }
  }
}

// An index list of `length` entries, None except `tensor` at `position`.
static etr_evalue_t *index_list(size_t length, size_t position,
                                etr_tensor_t *tensor) {
  etr_tensor_t *entries[4] = {NULL, NULL, NULL, NULL};
  entries[position] = tensor;
  return tt_ev_optional_tensor_list(length, entries);
}

TT_TEST(diff_movement_index, index_tensor) {
  static const int64_t kSelf[3] = {4, 5, 6};
  static const struct {
    size_t length, position;
    int32_t dim;
    int64_t sizes[2];
    int64_t values[6];
    bool ok;
  } kCases[] = {{1, 0, 1, {3}, {0, 3, -1}, true},
                {2, 1, 1, {4}, {4, 0, -5, 2}, true},
                {3, 2, 2, {2, 3}, {5, 0, -6, 1, 1, 2}, true},
                {2, 0, 0, {0}, {2}, true},
                {1, 0, 2, {2, 2}, {0, 1, 2, 3}, true},
                {1, 0, 1, {2}, {4, 0}, false},
                {2, 1, 1, {2}, {-6, 0}, false}};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::index.Tensor_out", g_seed++, "%s case %zu",
                       etr_scalar_type_name(dtype), i);
        etr_diff_input(&c, dtype, 3, kSelf, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_tensor_t *index = tt_relayout(
            tt_tensor_i64(kIndexDtypes[(t + i) % 2], kCases[i].dim,
                          kCases[i].sizes, kCases[i].values),
            (tt_layout_t)layout);
        etr_diff_arg(&c, index_list(kCases[i].length, kCases[i].position,
                                    index));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     512);
        etr_diff_return(&c, 2);
        failures += mt_run(&c, kCases[i].ok);
      }
    }
    // Not specialized: a mask, two index tensors.
    etr_diff_case_t c;
    etr_diff_begin(&c, "aten::index.Tensor_out", g_seed++, "%s mask",
                   etr_scalar_type_name(dtype));
    etr_diff_input(&c, dtype, 2, (const int64_t[]){3, 2}, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    etr_diff_arg(&c, index_list(1, 0, tt_tensor(ETR_BOOL, TT_SIZES(3),
                                                TT_VALUES(1, 0, 1))));
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS, 16);
    etr_diff_return(&c, 2);
    failures += mt_run(&c, false);
    etr_diff_begin(&c, "aten::index.Tensor_out", g_seed++, "%s two indices",
                   etr_scalar_type_name(dtype));
    etr_diff_input(&c, dtype, 2, (const int64_t[]){3, 2}, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    etr_tensor_t *both[2] = {tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(2, 0)),
                             tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(1, 0))};
    etr_diff_arg(&c, tt_ev_optional_tensor_list(2, both));
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS, 16);
    etr_diff_return(&c, 2);
    failures += mt_run(&c, false);
  }
  mt_summary("index.Tensor");
  cr_assert_eq(failures, 0, "%d index.Tensor cases disagree", failures);
}

TT_TEST(diff_movement_index, gather) {
  static const int64_t kSelf[3] = {4, 5, 6};
  static const struct {
    int64_t dim;
    int64_t sizes[3];
    bool ok;
  } kCases[] = {{0, {3, 5, 6}, true}, {1, {4, 2, 6}, true},
                {2, {4, 5, 9}, true}, {-1, {2, 3, 4}, true},
                {1, {4, 0, 6}, true}, {1, {5, 2, 6}, false}};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
        for (int bad = 0; bad < 2; ++bad) {
          int64_t dim = kCases[i].dim < 0 ? kCases[i].dim + 3 : kCases[i].dim;
          int64_t numel = kCases[i].sizes[0] * kCases[i].sizes[1] *
                          kCases[i].sizes[2];
          int64_t *values = (int64_t *)tt_alloc(sizeof(int64_t) *
                                                (size_t)(numel + 1));
          for (int64_t k = 0; k < numel; ++k) {
            values[k] = (k * 7 + (int64_t)t) % kSelf[dim];
          }
          if (bad && numel > 0) {
            values[numel / 2] = kSelf[dim];  // one past the end
          }
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::gather.out", g_seed++, "%s case %zu%s",
                         etr_scalar_type_name(dtype), i,
                         bad ? " out of range" : "");
          etr_diff_input(&c, dtype, 3, kSelf, (etr_diff_layout_t)layout,
                         ETR_FILL_SPECIAL);
          etr_diff_arg(&c, tt_ev_int(kCases[i].dim));
          mt_index(&c, kIndexDtypes[(t + i) % 2], 3, kCases[i].sizes, values,
                   (etr_diff_layout_t)layout);
          etr_diff_arg(&c, tt_ev_bool(false));
          etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                       ETR_DIFF_CONTIGUOUS, 512);
          etr_diff_return(&c, 4);
          mt_key(&c, dtype, (etr_diff_layout_t)layout);
          failures += mt_run(&c, kCases[i].ok && !(bad && numel > 0));
        }
      }
    }
  }
  mt_summary("gather");
  cr_assert_eq(failures, 0, "%d gather cases disagree", failures);
}

// index_put.out as exported for a KV cache: cache[pos] = row (dim 0),
// cache[:, pos] = column (dim 1), several positions with repeats, values
// broadcast, negative positions, in place (out is self).
TT_TEST(diff_movement_index, index_put) {
  static const int64_t kCache[3] = {4, 8, 3};
  static const struct {
    size_t length, position;
    int64_t count;
    int64_t values[4];
    int32_t value_dim;
    int64_t value_sizes[3];
    bool ok;
  } kCases[] = {
      {1, 0, 1, {2}, 3, {1, 8, 3}, true},
      {2, 1, 1, {5}, 3, {4, 1, 3}, true},
      {2, 1, 3, {7, 0, 7}, 3, {4, 3, 3}, true},
      {1, 0, 2, {-1, 0}, 1, {3}, true},
      {3, 2, 2, {2, 2}, 0, {0}, true},
      {1, 0, 1, {4}, 3, {1, 8, 3}, false},
      {1, 0, 2, {0, 1}, 3, {3, 8, 3}, false},
  };
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
        for (int inplace = 0; inplace < 2; ++inplace) {
          for (int accumulate = 0; accumulate < 2; ++accumulate) {
            if (accumulate && (dtype == ETR_BOOL || inplace)) {
              continue;
            }
            etr_diff_case_t c;
            etr_diff_begin(&c, "aten::index_put.out", g_seed++,
                           "%s case %zu%s%s", etr_scalar_type_name(dtype), i,
                           inplace ? " in place" : "",
                           accumulate ? " accumulate" : "");
            etr_diff_input(&c, dtype, 3, kCache, (etr_diff_layout_t)layout,
                           ETR_FILL_SPECIAL);
            etr_tensor_t *index = tt_relayout(
                tt_tensor_i64(kIndexDtypes[(t + i) % 2], 1, &kCases[i].count,
                              kCases[i].values),
                (tt_layout_t)layout);
            etr_diff_arg(&c, index_list(kCases[i].length, kCases[i].position,
                                        index));
            etr_diff_input(&c, dtype, kCases[i].value_dim,
                           kCases[i].value_sizes, (etr_diff_layout_t)layout,
                           ETR_FILL_SPECIAL);
            etr_diff_arg(&c, tt_ev_bool(accumulate));
            if (inplace) {
              etr_diff_out_aliasing(&c, 0);
            } else {
              etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                           ETR_DIFF_CONTIGUOUS, 256);
            }
            etr_diff_return(&c, 4);
            mt_key(&c, dtype, (etr_diff_layout_t)layout);
            failures += mt_run(&c, kCases[i].ok && !accumulate);
          }
        }
      }
    }
  }
  mt_summary("index_put");
  cr_assert_eq(failures, 0, "%d index_put cases disagree", failures);
}
