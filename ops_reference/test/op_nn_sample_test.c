// SPDX-License-Identifier: Apache-2.0
//
// The nn family's sampling kernels: aten::grid_sampler_2d.out (every
// interpolation x padding mode x align_corners, locations outside the
// image, NaN and infinite locations), upsample_bilinear2d.vec_out (float
// and ATen's uint8 fixed-point kernel, align_corners, output_size and
// scale_factors) and upsample_nearest2d.vec_out (legacy nearest index
// rules). PyTorch-generated cases (gen_nn_cases.py) in contiguous,
// non-contiguous and channels-last layouts, then the exact error codes of
// rejected calls.
#include <math.h>

#include "ops_reference/test/generated/nn_sample_cases.h"
#include "ops_reference/test/op_nn_case_util.h"
#include "ops_reference/test/test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

TT_TEST(nn_sample, grid_sampler_2d_out_cases) {
  cr_expect_gt(nn_run_cases(kNnSampleCases, COUNT(kNnSampleCases),
                            "aten::grid_sampler_2d.out"),
               0);
}

TT_TEST(nn_sample, upsample_bilinear2d_vec_out_cases) {
  cr_expect_gt(nn_run_cases(kNnSampleCases, COUNT(kNnSampleCases),
                            "aten::upsample_bilinear2d.vec_out"),
               0);
}

TT_TEST(nn_sample, upsample_nearest2d_vec_out_cases) {
  cr_expect_gt(nn_run_cases(kNnSampleCases, COUNT(kNnSampleCases),
                            "aten::upsample_nearest2d.vec_out"),
               0);
}


static const etr_error_t kBad = ETR_ERR_INVALID_ARGUMENT;

static etr_error_t grid_sample(etr_tensor_t *x, etr_tensor_t *grid,
                               int64_t mode, int64_t padding,
                               etr_tensor_t *out) {
  return TT_CALL("aten::grid_sampler_2d.out", tt_ev_tensor(x),
                 tt_ev_tensor(grid), tt_ev_int(mode), tt_ev_int(padding),
                 tt_ev_bool(false), tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(nn_sample, grid_sampler_2d_rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 3, 3), NULL);
  etr_tensor_t *grid = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 2, 2), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(8), 0);
  tt_expect_status(grid_sample(x, grid, 2, 2, out), ETR_OK);
  // Modes outside 0..2 (PyTorch returns uninitialized memory).
  tt_expect_status(grid_sample(x, grid, 3, 0, out), kBad);
  tt_expect_status(grid_sample(x, grid, -1, 0, out), kBad);
  tt_expect_status(grid_sample(x, grid, 0, 3, out), kBad);
  // Shapes: batch mismatch, last dim not 2, ranks, empty input planes.
  tt_expect_status(grid_sample(x, tt_tensor(ETR_FLOAT, TT_SIZES(2, 2, 2, 2),
                                            NULL),
                               0, 0, out),
                   kBad);
  tt_expect_status(grid_sample(x, tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 2, 3),
                                            NULL),
                               0, 0, out),
                   kBad);
  tt_expect_status(grid_sample(tt_tensor(ETR_FLOAT, TT_SIZES(2, 3, 3), NULL),
                               tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 2), NULL), 0,
                               0, out),
                   kBad);
  tt_expect_status(grid_sample(tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 0, 3), NULL),
                               grid, 0, 0, out),
                   kBad);
  // No channels or no output positions: an empty out.
  tt_expect_status(grid_sample(tt_tensor(ETR_FLOAT, TT_SIZES(1, 0, 3, 3), NULL),
                               grid, 0, 0, out),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(1, 0, 2, 2));
  // Dtypes: grid and out must match the input; integers are unsupported.
  tt_expect_status(grid_sample(x, tt_cast(grid, ETR_DOUBLE), 0, 0, out), kBad);
  tt_expect_status(grid_sample(x, grid, 0, 0,
                               tt_out(ETR_HALF, TT_SIZES(8), 0)),
                   kBad);
  tt_expect_status(grid_sample(tt_cast(x, ETR_BYTE), tt_cast(grid, ETR_BYTE),
                               0, 0, tt_out(ETR_BYTE, TT_SIZES(8), 0)),
                   ETR_ERR_NOT_SUPPORTED);
}

TT_TEST(nn_sample, grid_sampler_2d_huge_coordinates) {
  // Far outside the image: zeros padding reads 0, border clips.
  etr_tensor_t *x = tt_tensor(ETR_DOUBLE, TT_SIZES(1, 1, 2, 2),
                              TT_VALUES(1, 2, 3, 4));
  etr_tensor_t *grid = tt_tensor(ETR_DOUBLE, TT_SIZES(1, 1, 2, 2),
                                 TT_VALUES(1e300, -1e300, -1e18, 1e18));
  etr_tensor_t *out = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  for (int64_t mode = 0; mode < 2; ++mode) {
    tt_expect_status(grid_sample(x, grid, mode, 0, out), ETR_OK);
    tt_expect_values(out, TT_VALUES(0, 0), 2);
    tt_expect_status(grid_sample(x, grid, mode, 1, out), ETR_OK);
    tt_expect_values(out, TT_VALUES(2, 3), 2);
  }
}

static etr_error_t bilinear(etr_tensor_t *x, etr_evalue_t *size,
                            etr_evalue_t *scales, etr_tensor_t *out) {
  return TT_CALL("aten::upsample_bilinear2d.vec_out", tt_ev_tensor(x), size,
                 tt_ev_bool(false), scales, tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

static etr_error_t nearest(etr_tensor_t *x, etr_evalue_t *size,
                           etr_evalue_t *scales, etr_tensor_t *out) {
  return TT_CALL("aten::upsample_nearest2d.vec_out", tt_ev_tensor(x), size,
                 scales, tt_ev_tensor(out), tt_ev_tensor(out));
}

typedef etr_error_t (*upsample_fn)(etr_tensor_t *, etr_evalue_t *,
                                   etr_evalue_t *, etr_tensor_t *);

TT_TEST(nn_sample, upsample_rejects) {
  upsample_fn fns[2] = {bilinear, nearest};
  for (int i = 0; i < 2; ++i) {
    upsample_fn fn = fns[i];
    etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 3, 3), NULL);
    etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(72), 0);
    tt_expect_status(fn(x, TT_EV_INTS(6, 6), tt_ev_none(), out), ETR_OK);
    tt_expect_status(fn(x, tt_ev_none(),
                        tt_ev_double_list(2, (const double[]){2.0, 2.0}), out),
                     ETR_OK);
    // Exactly one of output_size and scale_factors, with two entries.
    tt_expect_status(fn(x, TT_EV_INTS(6, 6),
                        tt_ev_double_list(2, (const double[]){2.0, 2.0}), out),
                     kBad);
    tt_expect_status(fn(x, tt_ev_none(), tt_ev_none(), out), kBad);
    tt_expect_status(fn(x, TT_EV_INTS(6), tt_ev_none(), out), kBad);
    tt_expect_status(fn(x, tt_ev_none(),
                        tt_ev_double_list(1, (const double[]){2.0}), out),
                     kBad);
    // Non-positive output sizes, from sizes or from scales (NaN, huge).
    tt_expect_status(fn(x, TT_EV_INTS(0, 6), tt_ev_none(), out), kBad);
    tt_expect_status(fn(x, tt_ev_none(),
                        tt_ev_double_list(2, (const double[]){0.3, 2.0}), out),
                     kBad);
    tt_expect_status(fn(x, tt_ev_none(),
                        tt_ev_double_list(2, (const double[]){-1.0, 2.0}), out),
                     kBad);
    tt_expect_status(fn(x, tt_ev_none(),
                        tt_ev_double_list(2, (const double[]){NAN, 2.0}), out),
                     kBad);
    tt_expect_status(fn(x, tt_ev_none(),
                        tt_ev_double_list(2, (const double[]){1e300, 2.0}),
                        out),
                     kBad);
    // Ranks; empty channels or planes (an empty batch is fine).
    tt_expect_status(fn(tt_tensor(ETR_FLOAT, TT_SIZES(2, 3, 3), NULL),
                        TT_EV_INTS(6, 6), tt_ev_none(), out),
                     kBad);
    tt_expect_status(fn(tt_tensor(ETR_FLOAT, TT_SIZES(1, 0, 3, 3), NULL),
                        TT_EV_INTS(6, 6), tt_ev_none(), out),
                     kBad);
    tt_expect_status(fn(tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 0, 3), NULL),
                        TT_EV_INTS(6, 6), tt_ev_none(), out),
                     kBad);
    tt_expect_status(fn(tt_tensor(ETR_FLOAT, TT_SIZES(0, 2, 3, 3), NULL),
                        TT_EV_INTS(6, 6), tt_ev_none(), out),
                     ETR_OK);
    // Dtypes and capacity.
    tt_expect_status(fn(x, TT_EV_INTS(6, 6), tt_ev_none(),
                        tt_out(ETR_DOUBLE, TT_SIZES(72), 0)),
                     kBad);
    tt_expect_status(fn(x, TT_EV_INTS(7, 6), tt_ev_none(), out), kBad);
    tt_expect_status(fn(tt_cast(x, ETR_CHAR), TT_EV_INTS(6, 6), tt_ev_none(),
                        tt_out(ETR_CHAR, TT_SIZES(72), 0)),
                     ETR_ERR_NOT_SUPPORTED);
    tt_expect_status(fn(tt_cast(x, ETR_BOOL), TT_EV_INTS(6, 6), tt_ev_none(),
                        tt_out(ETR_BOOL, TT_SIZES(72), 0)),
                     ETR_ERR_NOT_SUPPORTED);
  }
}

TT_TEST(nn_sample, upsample_nearest_legacy_index) {
  // scale 1/1.05 would map o = 9 to 8, but an output as long as the input
  // copies (PyTorch's nearest_idx); 3 -> 7 uses floor(o * 3/7) in float.
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 1, 10),
                              TT_VALUES(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(10), 0);
  tt_expect_status(nearest(x, tt_ev_none(),
                           tt_ev_double_list(2, (const double[]){1.0, 1.05}),
                           out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), 10);
  etr_tensor_t *y =
      tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 1, 3), TT_VALUES(0, 1, 2));
  etr_tensor_t *out7 = tt_out(ETR_FLOAT, TT_SIZES(7), 0);
  tt_expect_status(nearest(y, TT_EV_INTS(1, 7), tt_ev_none(), out7), ETR_OK);
  tt_expect_values(out7, TT_VALUES(0, 0, 0, 1, 1, 2, 2), 7);
}
