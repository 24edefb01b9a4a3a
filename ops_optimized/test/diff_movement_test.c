// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the movement family's layout ops against the
// reference kernels, on every ISA of this machine: permute_copy (2-D
// transposes at tile edges, NCHW <-> NHWC, other permutations), the copies
// (clone, _clone_dim_order, _to_dim_order_copy, _to_copy, copy.out,
// copy_ in place, with broadcasting), expand_copy, view_copy, squeeze and
// unsqueeze, slice_copy and select_copy, cat. Every element size, special
// values (NaN, -0.0, inf), contiguous / non-contiguous / channels-last
// inputs and contiguous / channels-last outs; results must match bit for
// bit. Cases the optimized kernels specialize must not fall back
// (mt_run(..., true)); conversions and rejected arguments may.
#include <criterion/criterion.h>

#include "ops_optimized/test/movement_test_util.h"

static uint64_t g_seed = 1;

#define LAYOUTS 3

TT_TEST(diff_movement, permute_copy) {
  static const int64_t kMatrices[][2] = {{1, 1},  {7, 9},   {8, 8},
                                         {16, 17}, {33, 65}, {64, 3}};
  static const struct {
    int32_t dim;
    int64_t sizes[4];
    int64_t dims[4];
  } kPermutes[] = {
      {3, {2, 5, 7}, {2, 0, 1}},       {3, {2, 5, 7}, {1, 0, 2}},
      {3, {4, 9, 17}, {0, 2, 1}},      {3, {2, 5, 7}, {-1, 0, -2}},
      {4, {2, 3, 5, 7}, {0, 2, 3, 1}},  // NCHW -> NHWC
      {4, {2, 5, 7, 3}, {0, 3, 1, 2}},  // NHWC -> NCHW
      {4, {2, 3, 4, 5}, {3, 2, 1, 0}},  {1, {5}, {0}},
      {0, {0}, {0}},
  };
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < LAYOUTS; ++layout) {
      for (size_t m = 0; m < sizeof(kMatrices) / sizeof(kMatrices[0]); ++m) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::permute_copy.out", g_seed++, "%s %lldx%lld",
                       etr_scalar_type_name(dtype),
                       (long long)kMatrices[m][0], (long long)kMatrices[m][1]);
        etr_diff_input(&c, dtype, 2, kMatrices[m], (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, TT_EV_INTS(1, 0));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     4096);
        etr_diff_return(&c, 2);
        failures += mt_run(&c, true);
      }
      for (size_t p = 0; p < sizeof(kPermutes) / sizeof(kPermutes[0]); ++p) {
        for (int out_layout = 0; out_layout < 2; ++out_layout) {
          bool nhwc_out = out_layout == 1 && kPermutes[p].dim == 4;
          if (out_layout == 1 && !nhwc_out) {
            continue;
          }
          int64_t out_sizes[4];
          for (int32_t d = 0; d < kPermutes[p].dim; ++d) {
            int64_t source = kPermutes[p].dims[d];
            source += source < 0 ? kPermutes[p].dim : 0;
            out_sizes[d] = kPermutes[p].sizes[source];
          }
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::permute_copy.out", g_seed++,
                         "%s permute %zu out %s", etr_scalar_type_name(dtype),
                         p, nhwc_out ? "nhwc" : "contiguous");
          etr_diff_input(&c, dtype, kPermutes[p].dim, kPermutes[p].sizes,
                         (etr_diff_layout_t)layout, ETR_FILL_SPECIAL);
          etr_diff_arg(&c, tt_ev_int_list((size_t)kPermutes[p].dim,
                                          kPermutes[p].dims));
          if (nhwc_out) {
            etr_diff_out(&c, dtype, 4, out_sizes, ETR_DIFF_CHANNELS_LAST, 0);
          } else {
            etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                         ETR_DIFF_CONTIGUOUS, 4096);
          }
          etr_diff_return(&c, 2);
          failures += mt_run(&c, true);
        }
      }
    }
  }
  // Rejected: a repeated dim, a dtype mismatch.
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::permute_copy.out", g_seed++, "repeated dim");
  etr_diff_input(&c, ETR_FLOAT, 2, (const int64_t[]){3, 4},
                 ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
  etr_diff_arg(&c, TT_EV_INTS(1, 1));
  etr_diff_out(&c, ETR_FLOAT, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               64);
  etr_diff_return(&c, 2);
  failures += mt_run(&c, false);
  etr_diff_begin(&c, "aten::permute_copy.out", g_seed++, "dtype mismatch");
  etr_diff_input(&c, ETR_FLOAT, 2, (const int64_t[]){3, 4},
                 ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
  etr_diff_arg(&c, TT_EV_INTS(1, 0));
  etr_diff_out(&c, ETR_HALF, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               64);
  etr_diff_return(&c, 2);
  failures += mt_run(&c, false);
  mt_summary("permute_copy");
  cr_assert_eq(failures, 0, "%d permute_copy cases disagree", failures);
}

// clone, _clone_dim_order, _to_dim_order_copy, _to_copy: rank-4 tensors
// between every input layout and a contiguous or channels-last out.
TT_TEST(diff_movement, copies_and_layouts) {
  static const int64_t kShapes[][4] = {{2, 3, 4, 5}, {1, 16, 3, 3},
                                       {2, 17, 1, 9}};
  static const char *const kOps[] = {
      "aten::clone.out", "dim_order_ops::_clone_dim_order.out",
      "dim_order_ops::_to_dim_order_copy.out", "aten::_to_copy.out"};
  int failures = 0;
  for (size_t op = 0; op < 4; ++op) {
    for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
      etr_scalar_type_t dtype = kMovementDtypes[t];
      for (size_t s = 0; s < 3; ++s) {
        for (int layout = 0; layout < LAYOUTS; ++layout) {
          for (int nhwc = 0; nhwc < 2; ++nhwc) {
            etr_diff_case_t c;
            etr_diff_begin(&c, kOps[op], g_seed++, "%s shape %zu out %s",
                           etr_scalar_type_name(dtype), s,
                           nhwc ? "nhwc" : "contiguous");
            etr_diff_input(&c, dtype, 4, kShapes[s],
                           (etr_diff_layout_t)layout, ETR_FILL_SPECIAL);
            if (op == 0) {  // clone(self, memory_format, out)
              etr_diff_arg(&c, nhwc ? tt_ev_int(2) : tt_ev_none());
            } else {  // (self, non_blocking, dim_order | memory_format, out)
              etr_diff_arg(&c, tt_ev_bool(false));
              if (op == 3) {
                etr_diff_arg(&c, tt_ev_none());
              } else {
                etr_diff_arg(&c, nhwc ? TT_EV_INTS(0, 2, 3, 1) : tt_ev_none());
              }
            }
            size_t out_index = c.num_args;
            etr_diff_out(&c, dtype, 4, kShapes[s],
                         nhwc ? ETR_DIFF_CHANNELS_LAST : ETR_DIFF_CONTIGUOUS,
                         0);
            etr_diff_return(&c, out_index);
            failures += mt_run(&c, true);
          }
        }
      }
    }
  }
  // Conversions are the reference's (the elementwise family's).
  for (size_t op = 2; op < 4; ++op) {
    etr_diff_case_t c;
    etr_diff_begin(&c, kOps[op], g_seed++, "Float -> Half");
    etr_diff_input(&c, ETR_FLOAT, 2, (const int64_t[]){3, 5},
                   ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
    etr_diff_arg(&c, tt_ev_bool(false));
    etr_diff_arg(&c, tt_ev_none());
    etr_diff_out(&c, ETR_HALF, 2, (const int64_t[]){3, 5},
                 ETR_DIFF_CONTIGUOUS, 0);
    etr_diff_return(&c, 3);
    failures += mt_run(&c, false);
  }
  mt_summary("copy");
  cr_assert_eq(failures, 0, "%d copy cases disagree", failures);
}

// copy.out and copy_ with src broadcast to self's shape.
TT_TEST(diff_movement, copy_broadcast) {
  static const struct {
    int32_t dim;
    int64_t sizes[3];
  } kSources[] = {{3, {3, 4, 5}}, {2, {4, 5}}, {2, {1, 5}}, {3, {3, 1, 5}},
                  {3, {3, 4, 1}}, {0, {0}},    {1, {5}},    {2, {4, 3}}};
  const int64_t self_sizes[3] = {3, 4, 5};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (size_t s = 0; s < sizeof(kSources) / sizeof(kSources[0]); ++s) {
      bool bad = s == 7;  // [4, 3] does not broadcast to [3, 4, 5]
      for (int layout = 0; layout < LAYOUTS; ++layout) {
        for (int inplace = 0; inplace < 2; ++inplace) {
          etr_diff_case_t c;
          etr_diff_begin(&c, inplace ? "aten::copy_" : "aten::copy.out",
                         g_seed++, "%s src %zu", etr_scalar_type_name(dtype),
                         s);
          etr_diff_input(&c, dtype, 3, self_sizes, ETR_DIFF_CONTIGUOUS,
                         ETR_FILL_RANDOM);
          etr_diff_input(&c, dtype, kSources[s].dim, kSources[s].sizes,
                         (etr_diff_layout_t)layout, ETR_FILL_SPECIAL);
          etr_diff_arg(&c, tt_ev_bool(false));
          if (inplace) {
            etr_diff_out_aliasing(&c, 0);
          } else {
            etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                         ETR_DIFF_CONTIGUOUS, 64);
            etr_diff_return(&c, 3);
          }
          failures += mt_run(&c, !bad);
        }
      }
    }
  }
  // src of another dtype: a conversion, the reference's.
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::copy_", g_seed++, "Int src into Float");
  etr_diff_input(&c, ETR_FLOAT, 2, (const int64_t[]){3, 4},
                 ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
  etr_diff_input(&c, ETR_INT, 1, (const int64_t[]){4}, ETR_DIFF_CONTIGUOUS,
                 ETR_FILL_RANDOM);
  etr_diff_arg(&c, tt_ev_bool(false));
  etr_diff_out_aliasing(&c, 0);
  failures += mt_run(&c, false);
  mt_summary("copy");
  cr_assert_eq(failures, 0, "%d copy cases disagree", failures);
}

TT_TEST(diff_movement, expand_copy) {
  static const struct {
    int32_t dim;
    int64_t sizes[3];
    size_t count;
    int64_t size[4];
    bool ok;
  } kCases[] = {
      {2, {3, 1}, 3, {2, 3, 5}, true},  {1, {1}, 1, {7}, true},
      {1, {4}, 2, {3, 4}, true},        {2, {1, 1}, 2, {-1, 9}, true},
      {0, {0}, 2, {2, 3}, true},        {3, {3, 1, 2}, 3, {3, 4, -1}, true},
      {2, {1, 17}, 3, {2, 33, 17}, true}, {2, {3, 2}, 2, {3, 4}, false},
  };
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
      for (int layout = 0; layout < 2; ++layout) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::expand_copy.out", g_seed++, "%s case %zu",
                       etr_scalar_type_name(dtype), i);
        etr_diff_input(&c, dtype, kCases[i].dim, kCases[i].sizes,
                       (etr_diff_layout_t)layout, ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int_list(kCases[i].count, kCases[i].size));
        etr_diff_arg(&c, tt_ev_bool(false));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     2048);
        etr_diff_return(&c, 3);
        failures += mt_run(&c, kCases[i].ok);
      }
    }
  }
  mt_summary("expand_copy");
  cr_assert_eq(failures, 0, "%d expand_copy cases disagree", failures);
}

// Expanded rows (the engine's replicate path): [1, n] -> [rows, n] and
// [2, 1, n] -> [2, rows, n] with rows around the vector widths of every
// element size, plus one output above the L2; a non-contiguous self (not
// unit-stride: the engine's broadcast and strided paths) and a
// non-contiguous out (the general path) as well.
TT_TEST(diff_movement, expand_copy_rows) {
  static const int64_t kWidths[] = {1, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                    127, 129, 300};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (size_t w = 0; w < sizeof(kWidths) / sizeof(kWidths[0]); ++w) {
      int64_t n = kWidths[w];
      for (int shape = 0; shape < 4; ++shape) {
        bool outer = shape >= 2;
        int64_t rows = shape % 2 == 0 ? 3 : 5;
        etr_diff_layout_t layout =
            shape == 3 ? ETR_DIFF_NONCONTIGUOUS : ETR_DIFF_CONTIGUOUS;
        int64_t self_sizes[3] = {2, 1, n};
        int64_t out_sizes[3] = {2, rows, n};
        int32_t dim = outer ? 3 : 2;
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::expand_copy.out", g_seed++,
                       "%s rows %lld x %lld shape %d",
                       etr_scalar_type_name(dtype), (long long)rows,
                       (long long)n, shape);
        etr_diff_input(&c, dtype, dim, outer ? self_sizes : self_sizes + 1,
                       layout, ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int_list((size_t)dim,
                                        outer ? out_sizes : out_sizes + 1));
        etr_diff_arg(&c, tt_ev_bool(false));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     2 * rows * n);
        etr_diff_return(&c, 3);
        failures += mt_run(&c, true);
      }
      // A strided out of the result's shape: the general path.
      etr_diff_case_t c;
      etr_diff_begin(&c, "aten::expand_copy.out", g_seed++,
                     "%s rows 4 x %lld strided out",
                     etr_scalar_type_name(dtype), (long long)n);
      etr_diff_input(&c, dtype, 2, (const int64_t[]){1, n},
                     ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
      etr_diff_arg(&c, tt_ev_int_list(2, (const int64_t[]){4, n}));
      etr_diff_arg(&c, tt_ev_bool(false));
      etr_diff_out(&c, dtype, 2, (const int64_t[]){4, n},
                   ETR_DIFF_NONCONTIGUOUS, 0);
      etr_diff_return(&c, 3);
      failures += mt_run(&c, true);
    }
  }
  // Above the L2: f32[1, 1027] -> [1100, 1027] (4.3 MiB).
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::expand_copy.out", g_seed++, "large");
  etr_diff_input(&c, ETR_FLOAT, 2, (const int64_t[]){1, 1027},
                 ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
  etr_diff_arg(&c, tt_ev_int_list(2, (const int64_t[]){1100, 1027}));
  etr_diff_arg(&c, tt_ev_bool(false));
  etr_diff_out(&c, ETR_FLOAT, 2, (const int64_t[]){1100, 1027},
               ETR_DIFF_CONTIGUOUS, 0);
  etr_diff_return(&c, 3);
  failures += mt_run(&c, true);
  mt_summary("expand_copy_rows");
  cr_assert_eq(failures, 0, "%d expand_copy row cases disagree", failures);
}

// view_copy, unsqueeze_copy, squeeze_copy.dims / .dim.
TT_TEST(diff_movement, reshapes) {
  static const int64_t kSelf[3] = {2, 3, 4};
  static const struct {
    size_t count;
    int64_t size[4];
  } kViews[] = {{2, {6, 4}}, {1, {-1}}, {3, {4, -1, 2}}, {4, {1, 24, 1, 1}},
                {2, {5, 5}}};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_FEW_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementFewDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (size_t v = 0; v < sizeof(kViews) / sizeof(kViews[0]); ++v) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::view_copy.out", g_seed++, "%s view %zu",
                       etr_scalar_type_name(dtype), v);
        etr_diff_input(&c, dtype, 3, kSelf, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int_list(kViews[v].count, kViews[v].size));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     64);
        etr_diff_return(&c, 2);
        failures += mt_run(&c, v != 4);
      }
      for (int64_t dim = -4; dim <= 3; ++dim) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::unsqueeze_copy.out", g_seed++, "%s dim %lld",
                       etr_scalar_type_name(dtype), (long long)dim);
        etr_diff_input(&c, dtype, 3, kSelf, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int(dim));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     64);
        etr_diff_return(&c, 2);
        failures += mt_run(&c, true);
      }
    }
    // A channels-last tensor viewed flat, and a flat one into a
    // channels-last out.
    for (int direction = 0; direction < 2; ++direction) {
      const int64_t nchw[4] = {2, 3, 4, 5};
      etr_diff_case_t c;
      etr_diff_begin(&c, "aten::view_copy.out", g_seed++, "%s %s",
                     etr_scalar_type_name(dtype),
                     direction ? "into nhwc out" : "nhwc flat");
      if (direction == 0) {
        etr_diff_input(&c, dtype, 4, nchw, ETR_DIFF_CHANNELS_LAST,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, TT_EV_INTS(2, 60));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     120);
      } else {
        etr_diff_input(&c, dtype, 2, (const int64_t[]){2, 60},
                       ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
        etr_diff_arg(&c, TT_EV_INTS(2, 3, 4, 5));
        etr_diff_out(&c, dtype, 4, nchw, ETR_DIFF_CHANNELS_LAST, 0);
      }
      etr_diff_return(&c, 2);
      failures += mt_run(&c, true);
    }
    static const int64_t kSqueezable[4] = {1, 3, 1, 4};
    static const struct {
      size_t count;
      int64_t dims[2];
    } kSqueezes[] = {{2, {0, 2}}, {1, {0}}, {0, {0}}, {1, {-2}}, {1, {1}},
                     {2, {0, 0}}};
    for (int layout = 0; layout < LAYOUTS; ++layout) {
      for (size_t s = 0; s < sizeof(kSqueezes) / sizeof(kSqueezes[0]); ++s) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::squeeze_copy.dims_out", g_seed++,
                       "%s dims %zu", etr_scalar_type_name(dtype), s);
        etr_diff_input(&c, dtype, 4, kSqueezable, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int_list(kSqueezes[s].count,
                                        kSqueezes[s].dims));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     64);
        etr_diff_return(&c, 2);
        failures += mt_run(&c, s != 5);  // a repeated dim is refused
      }
      for (int64_t dim = -1; dim <= 2; ++dim) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::squeeze_copy.dim_out", g_seed++,
                       "%s dim %lld", etr_scalar_type_name(dtype),
                       (long long)dim);
        etr_diff_input(&c, dtype, 4, kSqueezable, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int(dim));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     64);
        etr_diff_return(&c, 2);
        failures += mt_run(&c, true);
      }
    }
  }
  mt_summary("reshape");
  cr_assert_eq(failures, 0, "%d reshape cases disagree", failures);
}

TT_TEST(diff_movement, slice_and_select) {
  static const int64_t kSelf[3] = {6, 7, 9};
  static const struct {
    bool has_start;
    int64_t start;
    bool has_end;
    int64_t end;
    int64_t step;
  } kSlices[] = {{false, 0, false, 0, 1}, {true, 1, true, 5, 1},
                 {true, -4, false, 0, 2}, {true, 0, true, 100, 3},
                 {true, 2, true, 2, 1},   {false, 0, true, -1, 1},
                 {true, 0, true, 3, 0}};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (int64_t dim = -1; dim < 3; ++dim) {
        for (size_t s = 0; s < sizeof(kSlices) / sizeof(kSlices[0]); ++s) {
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::slice_copy.Tensor_out", g_seed++,
                         "%s dim %lld slice %zu", etr_scalar_type_name(dtype),
                         (long long)dim, s);
          etr_diff_input(&c, dtype, 3, kSelf, (etr_diff_layout_t)layout,
                         ETR_FILL_SPECIAL);
          etr_diff_arg(&c, tt_ev_int(dim));
          etr_diff_arg(&c, kSlices[s].has_start ? tt_ev_int(kSlices[s].start)
                                                : tt_ev_none());
          etr_diff_arg(&c, kSlices[s].has_end ? tt_ev_int(kSlices[s].end)
                                              : tt_ev_none());
          etr_diff_arg(&c, tt_ev_int(kSlices[s].step));
          etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                       ETR_DIFF_CONTIGUOUS, 512);
          etr_diff_return(&c, 5);
          failures += mt_run(&c, kSlices[s].step > 0);
        }
        for (int64_t index = -7; index < 7; index += 3) {  // -7: out of range
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::select_copy.int_out", g_seed++,
                         "%s dim %lld index %lld",
                         etr_scalar_type_name(dtype), (long long)dim,
                         (long long)index);
          etr_diff_input(&c, dtype, 3, kSelf, (etr_diff_layout_t)layout,
                         ETR_FILL_SPECIAL);
          etr_diff_arg(&c, tt_ev_int(dim));
          etr_diff_arg(&c, tt_ev_int(index));
          bool in_range = index >= -kSelf[dim < 0 ? dim + 3 : dim];
          etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                       ETR_DIFF_CONTIGUOUS, 128);
          etr_diff_return(&c, 3);
          failures += mt_run(&c, in_range);
        }
      }
    }
  }
  mt_summary("slice/select");
  cr_assert_eq(failures, 0, "%d slice/select cases disagree", failures);
}

// A data tensor built like an etr_diff_input (for Tensor[] arguments).
static etr_tensor_t *list_input(etr_scalar_type_t dtype, int32_t dim,
                                const int64_t *sizes,
                                etr_diff_layout_t layout) {
  etr_diff_case_t scratch;
  etr_diff_begin(&scratch, "scratch", g_seed++, "input");
  return etr_diff_input(&scratch, dtype, dim, sizes, layout,
                        ETR_FILL_SPECIAL);
}

TT_TEST(diff_movement, cat) {
  static const struct {
    int64_t dim;
    int32_t rank;
    int64_t sizes[3][3];  // three inputs
  } kCats[] = {
      {0, 2, {{2, 5}, {3, 5}, {1, 5}}},
      {1, 2, {{4, 1}, {4, 7}, {4, 8}}},
      {-1, 3, {{2, 3, 4}, {2, 3, 0}, {2, 3, 9}}},
      {1, 3, {{2, 1, 4}, {2, 5, 4}, {2, 2, 4}}},
      {0, 1, {{0}, {3}, {0}}},  // 1-D empties are skipped
  };
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (size_t k = 0; k < sizeof(kCats) / sizeof(kCats[0]); ++k) {
      for (int layout = 0; layout < 2; ++layout) {
        etr_tensor_t *inputs[3];
        for (int i = 0; i < 3; ++i) {
          inputs[i] = list_input(dtype, kCats[k].rank, kCats[k].sizes[i],
                                 (etr_diff_layout_t)layout);
        }
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::cat.out", g_seed++, "%s cat %zu",
                       etr_scalar_type_name(dtype), k);
        etr_diff_arg(&c, tt_ev_tensor_list(3, inputs));
        etr_diff_arg(&c, tt_ev_int(kCats[k].dim));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     256);
        etr_diff_return(&c, 2);
        mt_key(&c, dtype, (etr_diff_layout_t)layout);
        failures += mt_run(&c, true);
      }
    }
  }
  // Mixed dtypes promote with conversions: the reference's.
  etr_tensor_t *mixed[2] = {
      list_input(ETR_INT, 1, (const int64_t[]){3}, ETR_DIFF_CONTIGUOUS),
      list_input(ETR_CHAR, 1, (const int64_t[]){2}, ETR_DIFF_CONTIGUOUS)};
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::cat.out", g_seed++, "Int + Char");
  etr_diff_arg(&c, tt_ev_tensor_list(2, mixed));
  etr_diff_arg(&c, tt_ev_int(0));
  etr_diff_out(&c, ETR_INT, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS, 8);
  etr_diff_return(&c, 2);
  mt_key(&c, ETR_INT, ETR_DIFF_CONTIGUOUS);
  failures += mt_run(&c, false);
  mt_summary("cat");
  cr_assert_eq(failures, 0, "%d cat cases disagree", failures);
}

// The dense fast paths (common/dense.h) of slice_copy, cat, view_copy,
// squeeze, unsqueeze and _clone_dim_order take only calls whose out
// already has the result's shape, so the cases above (outs of shape [0],
// resized by the kernel) never reach them. These give pre-shaped outs:
// dense inputs take the fast path, strided ones (layout 1), empty results,
// outs aliasing self and outs of another shape go the general way, and
// invalid arguments must still get the reference's error.

// Appends an out of exactly (dim, sizes) and its return slot.
static void exact_out(etr_diff_case_t *c, etr_scalar_type_t dtype,
                      int32_t dim, const int64_t *sizes) {
  size_t index = c->num_args;
  etr_diff_out(c, dtype, dim, sizes, ETR_DIFF_CONTIGUOUS, 0);
  etr_diff_return(c, index);
}

TT_TEST(diff_movement, dense_slice_and_cat) {
  static const int64_t kSelf[3] = {5, 1, 7};
  static const struct {
    int64_t dim;
    bool has_start;
    int64_t start;
    bool has_end;
    int64_t end;
    int64_t step;
  } kSlices[] = {
      {0, true, 0, true, 1, 1},    {0, true, 4, true, 5, 1},
      {0, true, -2, false, 0, 1},  {0, false, 0, false, 0, 1},
      {-1, true, 1, true, 6, 1},   {2, true, -100, true, 100, 1},
      {1, true, 0, true, 1, 1},    {2, true, 3, true, 3, 1},  // empty
      {2, true, 0, true, 7, 2},    {3, true, 0, true, 1, 1},  // bad dim
      {0, true, 0, true, 2, 0},                               // bad step
  };
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (size_t s = 0; s < sizeof(kSlices) / sizeof(kSlices[0]); ++s) {
        int64_t dim =
            kSlices[s].dim < 0 ? kSlices[s].dim + 3 : kSlices[s].dim;
        int64_t sizes[3] = {kSelf[0], kSelf[1], kSelf[2]};
        if (dim < 3) {
          int64_t size = kSelf[dim];
          int64_t start = kSlices[s].has_start ? kSlices[s].start : 0;
          int64_t end = kSlices[s].has_end ? kSlices[s].end : size;
          start = start < 0 ? (start < -size ? 0 : start + size) : start;
          end = end < 0 ? (end < -size ? 0 : end + size) : end;
          start = start > size ? size : start;
          end = end > size ? size : (end < start ? start : end);
          int64_t step = kSlices[s].step > 0 ? kSlices[s].step : 1;
          sizes[dim] = end == start ? 0 : 1 + (end - start - 1) / step;
        }
        for (int wrong = 0; wrong < 2; ++wrong) {
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::slice_copy.Tensor_out", g_seed++,
                         "%s dense slice %zu layout %d%s",
                         etr_scalar_type_name(dtype), s, layout,
                         wrong ? " other out shape" : "");
          etr_diff_input(&c, dtype, 3, kSelf, (etr_diff_layout_t)layout,
                         ETR_FILL_SPECIAL);
          etr_diff_arg(&c, tt_ev_int(kSlices[s].dim));
          etr_diff_arg(&c, kSlices[s].has_start ? tt_ev_int(kSlices[s].start)
                                                : tt_ev_none());
          etr_diff_arg(&c, kSlices[s].has_end ? tt_ev_int(kSlices[s].end)
                                              : tt_ev_none());
          etr_diff_arg(&c, tt_ev_int(kSlices[s].step));
          int64_t out_sizes[3] = {sizes[0], sizes[1] + wrong, sizes[2]};
          exact_out(&c, dtype, 3, out_sizes);
          bool valid = dim < 3 && kSlices[s].step > 0;
          failures += mt_run(&c, valid);
        }
      }
      // An out that is self (a whole slice in place): overlapping, so the
      // general path, which leaves self as it was.
      etr_diff_case_t c;
      etr_diff_begin(&c, "aten::slice_copy.Tensor_out", g_seed++,
                     "%s dense slice in place", etr_scalar_type_name(dtype));
      etr_diff_input(&c, dtype, 3, kSelf, (etr_diff_layout_t)layout,
                     ETR_FILL_SPECIAL);
      etr_diff_arg(&c, tt_ev_int(0));
      etr_diff_arg(&c, tt_ev_none());
      etr_diff_arg(&c, tt_ev_none());
      etr_diff_arg(&c, tt_ev_int(1));
      etr_diff_out_aliasing(&c, 0);
      etr_diff_return(&c, 5);
      failures += mt_run(&c, false);
    }
  }
  static const struct {
    int64_t dim;
    size_t count;
    int32_t rank;
    int64_t sizes[4][3];
    int64_t out[3];
    bool valid;
  } kCats[] = {
      {0, 1, 2, {{1, 16}}, {1, 16}, true},
      {0, 4, 3, {{1, 1, 16}, {1, 1, 16}, {1, 1, 16}, {1, 1, 16}},
       {4, 1, 16}, true},
      {1, 3, 2, {{3, 1}, {3, 5}, {3, 2}}, {3, 8}, true},
      {-1, 2, 3, {{2, 3, 4}, {2, 3, 1}}, {2, 3, 5}, true},
      {1, 2, 3, {{2, 0, 4}, {2, 3, 4}}, {2, 3, 4}, true},  // an empty input
      {0, 2, 2, {{2, 3}, {1, 4}}, {3, 3}, false},  // sizes differ off dim
      {2, 2, 2, {{2, 3}, {1, 3}}, {3, 3}, false},  // dim out of range
      {0, 2, 2, {{2, 3}, {1, 3}}, {4, 3}, true},   // out of another shape
  };
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (size_t k = 0; k < sizeof(kCats) / sizeof(kCats[0]); ++k) {
      for (int layout = 0; layout < 2; ++layout) {
        etr_tensor_t *inputs[4];
        for (size_t i = 0; i < kCats[k].count; ++i) {
          inputs[i] = list_input(dtype, kCats[k].rank, kCats[k].sizes[i],
                                 (etr_diff_layout_t)layout);
        }
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::cat.out", g_seed++,
                       "%s dense cat %zu layout %d",
                       etr_scalar_type_name(dtype), k, layout);
        etr_diff_arg(&c, tt_ev_tensor_list(kCats[k].count, inputs));
        etr_diff_arg(&c, tt_ev_int(kCats[k].dim));
        exact_out(&c, dtype, kCats[k].rank, kCats[k].out);
        mt_key(&c, dtype, (etr_diff_layout_t)layout);
        failures += mt_run(&c, kCats[k].valid);
      }
    }
  }
  mt_summary("dense slice/cat");
  cr_assert_eq(failures, 0, "%d dense slice/cat cases disagree", failures);
}

TT_TEST(diff_movement, dense_reshapes) {
  static const int64_t kSelf[4] = {1, 3, 1, 4};
  static const struct {
    const char *op;
    int kind;  // 0 view (ints), 1 squeeze dims (ints), 2 squeeze dim,
               // 3 unsqueeze, 4 clone (dim order ints, count -1: None)
    int64_t value;
    size_t count;
    int64_t ints[4];
    int32_t out_dim;
    int64_t out[5];
    bool valid;
  } kCases[] = {
      {"aten::view_copy.out", 0, 0, 2, {3, 4}, 2, {3, 4}, true},
      {"aten::view_copy.out", 0, 0, 3, {1, 12, 1}, 3, {1, 12, 1}, true},
      {"aten::view_copy.out", 0, 0, 2, {-1, 4}, 2, {3, 4}, true},
      {"aten::view_copy.out", 0, 0, 2, {5, 4}, 2, {5, 4}, false},
      {"aten::view_copy.out", 0, 0, 2, {3, 4}, 2, {4, 3}, true},
      {"aten::squeeze_copy.dims_out", 1, 0, 1, {0}, 3, {3, 1, 4}, true},
      {"aten::squeeze_copy.dims_out", 1, 0, 2, {0, -2}, 2, {3, 4}, true},
      {"aten::squeeze_copy.dims_out", 1, 0, 0, {0}, 4, {1, 3, 1, 4}, true},
      {"aten::squeeze_copy.dims_out", 1, 0, 0, {0}, 2, {3, 4}, true},
      {"aten::squeeze_copy.dims_out", 1, 0, 1, {1}, 4, {1, 3, 1, 4}, true},
      {"aten::squeeze_copy.dims_out", 1, 0, 2, {0, 0}, 3, {3, 1, 4}, false},
      {"aten::squeeze_copy.dims_out", 1, 0, 1, {4}, 3, {3, 1, 4}, false},
      {"aten::squeeze_copy.dim_out", 2, 2, 0, {0}, 3, {1, 3, 4}, true},
      {"aten::squeeze_copy.dim_out", 2, -1, 0, {0}, 4, {1, 3, 1, 4}, true},
      {"aten::squeeze_copy.dim_out", 2, -5, 0, {0}, 3, {1, 3, 4}, false},
      {"aten::unsqueeze_copy.out", 3, 0, 0, {0}, 5, {1, 1, 3, 1, 4}, true},
      {"aten::unsqueeze_copy.out", 3, 4, 0, {0}, 5, {1, 3, 1, 4, 1}, true},
      {"aten::unsqueeze_copy.out", 3, -2, 0, {0}, 5, {1, 3, 1, 1, 4}, true},
      {"aten::unsqueeze_copy.out", 3, 5, 0, {0}, 5, {1, 3, 1, 4, 1}, false},
      {"dim_order_ops::_clone_dim_order.out", 4, 0, (size_t)-1, {0}, 4,
       {1, 3, 1, 4}, true},
      {"dim_order_ops::_clone_dim_order.out", 4, 0, 4, {0, 1, 2, 3}, 4,
       {1, 3, 1, 4}, true},
      {"dim_order_ops::_clone_dim_order.out", 4, 0, 4, {0, 2, 1, 3}, 4,
       {1, 3, 1, 4}, false},
      {"dim_order_ops::_clone_dim_order.out", 4, 0, 3, {0, 1, 2}, 4,
       {1, 3, 1, 4}, false},
  };
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) {
        etr_diff_case_t c;
        etr_diff_begin(&c, kCases[k].op, g_seed++,
                       "%s dense case %zu layout %d",
                       etr_scalar_type_name(dtype), k, layout);
        etr_diff_input(&c, dtype, 4, kSelf, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        switch (kCases[k].kind) {
          case 0:
          case 1:
            etr_diff_arg(&c, tt_ev_int_list(kCases[k].count, kCases[k].ints));
            break;
          case 2:
          case 3:
            etr_diff_arg(&c, tt_ev_int(kCases[k].value));
            break;
          default:
            etr_diff_arg(&c, tt_ev_bool(false));
            etr_diff_arg(&c, kCases[k].count == (size_t)-1
                                 ? tt_ev_none()
                                 : tt_ev_int_list(kCases[k].count,
                                                  kCases[k].ints));
            break;
        }
        exact_out(&c, dtype, kCases[k].out_dim, kCases[k].out);
        failures += mt_run(&c, kCases[k].valid);
      }
    }
  }
  // Empty tensors take the general path.
  static const int64_t kEmpty[2] = {0, 4};
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::view_copy.out", g_seed++, "empty");
  etr_diff_input(&c, ETR_FLOAT, 2, kEmpty, ETR_DIFF_CONTIGUOUS,
                 ETR_FILL_SPECIAL);
  etr_diff_arg(&c, TT_EV_INTS(4, 0));
  exact_out(&c, ETR_FLOAT, 2, (const int64_t[]){4, 0});
  failures += mt_run(&c, true);
  mt_summary("dense reshapes");
  cr_assert_eq(failures, 0, "%d dense reshape cases disagree", failures);
}
