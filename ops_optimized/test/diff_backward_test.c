// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized training-only backward kernels
// against the reference kernels, on every ISA this machine has:
// max_pool2d_with_indices_backward (gradients added at the forward's flat
// indices, in the reference's order in fp32: bit-exact),
// avg_pool2d_backward, embedding_dense_backward,
// _adaptive_avg_pool2d_backward, native_layer_norm_backward,
// native_group_norm_backward and convolution_backward (each bit-exact
// too, but for convolution_backward's GEMM paths: bit-exact on small
// integers, within an accumulation bound on random floats; see their
// tests).
//
// Sweeps: batched and unbatched planes, pooled shapes from 1x1 up, index
// maps with repeats (several outputs routing to one input), -1 entries
// (skipped) and, as a refusal, an index past the plane; special gradient
// values; Double and non-contiguous inputs (fallback).
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 140000;

static int run_max_backward(etr_scalar_type_t dtype, int32_t rank,
                            const int64_t *in_sizes, int64_t kernel,
                            etr_diff_layout_t layout, int64_t bad_index) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::max_pool2d_with_indices_backward.grad_input",
                 g_seed++, "%s rank %d %lldx%lld k %lld bad %lld",
                 etr_scalar_type_name(dtype), (int)rank,
                 (long long)in_sizes[rank - 2], (long long)in_sizes[rank - 1],
                 (long long)kernel, (long long)bad_index);
  int64_t out_sizes[4];
  memcpy(out_sizes, in_sizes, (size_t)rank * sizeof(out_sizes[0]));
  out_sizes[rank - 2] = in_sizes[rank - 2] / kernel;
  out_sizes[rank - 1] = in_sizes[rank - 1] / kernel;
  etr_diff_input(&c, dtype, rank, out_sizes, layout, ETR_FILL_SPECIAL);
  etr_diff_input(&c, dtype, rank, in_sizes, layout, ETR_FILL_RANDOM);
  int64_t k2[2] = {kernel, kernel};
  etr_diff_arg(&c, tt_ev_int_list(2, k2));
  etr_diff_arg(&c, tt_ev_int_list(2, k2));
  etr_diff_arg(&c, tt_ev_int_list(2, (const int64_t[]){0, 0}));
  etr_diff_arg(&c, tt_ev_int_list(2, (const int64_t[]){1, 1}));
  etr_diff_arg(&c, tt_ev_bool(false));
  int64_t count = 1;
  for (int32_t d = 0; d < rank; ++d) {
    count *= out_sizes[d];
  }
  int64_t plane = in_sizes[rank - 2] * in_sizes[rank - 1];
  int64_t *values = tt_alloc((size_t)(count > 0 ? count : 1) * 8);
  for (int64_t k = 0; k < count; ++k) {
    // Mostly in the plane, with repeats; some -1.
    values[k] = k % 7 == 3 ? -1 : etr_diff_range(&c, 0, plane - 1);
  }
  if (bad_index != 0 && count > 0) {
    values[count - 1] = bad_index;
  }
  etr_tensor_t *indices = tt_tensor_i64(ETR_LONG, rank, out_sizes, values);
  etr_diff_arg(&c, tt_ev_tensor(tt_relayout(indices, (tt_layout_t)layout)));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, plane * 64 + 8);
  etr_diff_return(&c, 8);
  c.dtype = dtype;
  c.layout = layout;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_backward, max_pool2d_with_indices_backward) {
  int failures = 0;
  static const int64_t kSizes[][4] = {
      {2, 3, 4, 4}, {1, 5, 8, 6}, {2, 1, 9, 17}, {1, 1, 2, 2}};
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    for (int64_t kernel = 1; kernel <= 2; ++kernel) {
      failures += run_max_backward(ETR_FLOAT, 4, kSizes[s], kernel, 0, 0);
      failures +=
          run_max_backward(ETR_FLOAT, 3, kSizes[s] + 1, kernel, 0, 0);
    }
  }
  failures += run_max_backward(ETR_FLOAT, 4, kSizes[0], 2, 0, 16);
  failures += run_max_backward(ETR_FLOAT, 4, kSizes[0], 2, 0, -2);
  failures += run_max_backward(ETR_DOUBLE, 4, kSizes[0], 2, 0, 0);
  failures += run_max_backward(ETR_FLOAT, 4, kSizes[0], 2,
                               ETR_DIFF_NONCONTIGUOUS, 0);
  cr_assert_eq(failures, 0, "%d max_pool2d backward cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// The pooled size of one dim, ATen's pooling_output_shape.
static int64_t pooled_size(int64_t in, int64_t kernel, int64_t stride,
                           int64_t pad, int64_t dilation, bool ceil_mode) {
  int64_t numerator = in + 2 * pad - dilation * (kernel - 1) - 1 +
                      (ceil_mode ? stride - 1 : 0);
  int64_t size = numerator / stride + 1;
  if (ceil_mode && (size - 1) * stride >= in + pad) {
    --size;
  }
  return size;
}

// One window geometry: kernel, stride, padding, dilation (rows, columns).
typedef struct window2d {
  int64_t kernel[2], stride[2], pad[2], dilation[2];
  bool ceil_mode;
} window2d_t;

// A random tap of each window inside the plane (-1 for a window with none
// inside, and for about one in eleven): the forward's indices, which land
// in the rows the optimized kernel has just zeroed. `stray` >= 0 moves one
// index of plane `stray` to a random position of the plane outside that
// window's rows (below them where there is room: past the zeroed rows);
// `bad` != 0 replaces the last index (outside the plane: the reference's
// error).
static int64_t *forward_indices(etr_diff_case_t *c, int64_t planes,
                                int64_t height, int64_t width,
                                int64_t out_h, int64_t out_w,
                                const window2d_t *w, int64_t stray,
                                int64_t bad) {
  int64_t count = planes * out_h * out_w;
  int64_t *values = tt_alloc((size_t)(count > 0 ? count : 1) * 8);
  int64_t k = 0;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t ow = 0; ow < out_w; ++ow, ++k) {
        int64_t rows[64], cols[64];
        int64_t nr = 0, nc = 0;
        for (int64_t i = 0; i < w->kernel[0]; ++i) {
          int64_t r = oh * w->stride[0] - w->pad[0] + i * w->dilation[0];
          if (r >= 0 && r < height) {
            rows[nr++] = r;
          }
        }
        for (int64_t j = 0; j < w->kernel[1]; ++j) {
          int64_t col = ow * w->stride[1] - w->pad[1] + j * w->dilation[1];
          if (col >= 0 && col < width) {
            cols[nc++] = col;
          }
        }
        if (nr == 0 || nc == 0 || etr_diff_range(c, 0, 10) == 3) {
          values[k] = -1;
          continue;
        }
        values[k] = rows[etr_diff_range(c, 0, nr - 1)] * width +
                    cols[etr_diff_range(c, 0, nc - 1)];
      }
    }
  }
  if (stray >= 0 && stray < planes && out_h * out_w > 0) {
    int64_t at =
        stray * out_h * out_w + etr_diff_range(c, 0, out_h * out_w - 1);
    int64_t oh = (at / out_w) % out_h;
    int64_t top = oh * w->stride[0] - w->pad[0];
    int64_t bottom = top + (w->kernel[0] - 1) * w->dilation[0];
    int64_t r = bottom + 1 < height ? bottom + 1 : top - 1;
    values[at] = r >= 0 ? r * width + etr_diff_range(c, 0, width - 1) : -1;
  }
  if (bad != 0 && count > 0) {
    values[count - 1] = bad;
  }
  return values;
}

static int run_max_backward_windows(int32_t rank, const int64_t *in_sizes,
                                    const window2d_t *w, int64_t stray,
                                    int64_t bad) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::max_pool2d_with_indices_backward.grad_input",
                 g_seed++,
                 "forward indices rank %d %lldx%lld k %lldx%lld s %lldx%lld "
                 "p %lldx%lld d %lldx%lld%s stray %lld bad %lld",
                 (int)rank, (long long)in_sizes[rank - 2],
                 (long long)in_sizes[rank - 1], (long long)w->kernel[0],
                 (long long)w->kernel[1], (long long)w->stride[0],
                 (long long)w->stride[1], (long long)w->pad[0],
                 (long long)w->pad[1], (long long)w->dilation[0],
                 (long long)w->dilation[1], w->ceil_mode ? " ceil" : "",
                 (long long)stray, (long long)bad);
  int64_t out_sizes[4];
  memcpy(out_sizes, in_sizes, (size_t)rank * sizeof(out_sizes[0]));
  for (int d = 0; d < 2; ++d) {
    out_sizes[rank - 2 + d] =
        pooled_size(in_sizes[rank - 2 + d], w->kernel[d], w->stride[d],
                    w->pad[d], w->dilation[d], w->ceil_mode);
  }
  int64_t planes = 1;
  for (int32_t d = 0; d < rank - 2; ++d) {
    planes *= in_sizes[d];
  }
  etr_diff_input(&c, ETR_FLOAT, rank, out_sizes, 0, ETR_FILL_SPECIAL);
  etr_diff_input(&c, ETR_FLOAT, rank, in_sizes, 0, ETR_FILL_RANDOM);
  etr_diff_arg(&c, tt_ev_int_list(2, w->kernel));
  etr_diff_arg(&c, tt_ev_int_list(2, w->stride));
  etr_diff_arg(&c, tt_ev_int_list(2, w->pad));
  etr_diff_arg(&c, tt_ev_int_list(2, w->dilation));
  etr_diff_arg(&c, tt_ev_bool(w->ceil_mode));
  int64_t *values = forward_indices(
      &c, planes, in_sizes[rank - 2], in_sizes[rank - 1], out_sizes[rank - 2],
      out_sizes[rank - 1], w, stray, bad);
  etr_diff_arg(&c, tt_ev_tensor(tt_tensor_i64(ETR_LONG, rank, out_sizes,
                                              values)));
  int64_t numel = planes * in_sizes[rank - 2] * in_sizes[rank - 1];
  etr_diff_out(&c, ETR_FLOAT, 1, (const int64_t[]){0}, 0, numel + 8);
  etr_diff_return(&c, 8);
  c.dtype = ETR_FLOAT;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

static const window2d_t kForwardWindows[] = {
    {{3, 3}, {2, 2}, {1, 1}, {1, 1}, false}, // ResNet's stem
    {{2, 2}, {2, 2}, {0, 0}, {1, 1}, false},
    {{3, 3}, {1, 1}, {1, 1}, {1, 1}, false},
    {{3, 3}, {2, 2}, {0, 0}, {2, 2}, true},  // dilated
    {{5, 4}, {3, 3}, {2, 1}, {1, 1}, true},
    {{4, 4}, {1, 1}, {2, 2}, {1, 1}, false},
    {{3, 2}, {2, 1}, {1, 0}, {1, 1}, false},
    {{1, 1}, {1, 1}, {0, 0}, {1, 1}, false},
    {{2, 3}, {5, 16}, {1, 1}, {1, 1}, true},
    {{3, 3}, {1, 1}, {1, 1}, {2, 2}, false},
};

TT_TEST(diff_backward, max_pool2d_with_indices_backward_forward_indices) {
  int failures = 0;
  static const int64_t kSizes[][4] = {
      {2, 3, 7, 9},   {1, 2, 16, 16},  {1, 2, 17, 33},
      {2, 1, 15, 47}, {1, 2, 56, 112}, {1, 1, 5, 1100}};
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    for (size_t w = 0; w < sizeof(kForwardWindows) / sizeof(kForwardWindows[0]);
         ++w) {
      const window2d_t *win = &kForwardWindows[w];
      if (pooled_size(kSizes[s][2], win->kernel[0], win->stride[0],
                      win->pad[0], win->dilation[0], win->ceil_mode) < 1 ||
          pooled_size(kSizes[s][3], win->kernel[1], win->stride[1],
                      win->pad[1], win->dilation[1], win->ceil_mode) < 1) {
        continue;
      }
      int32_t rank = (s + w) % 3 == 0 ? 3 : 4;
      failures += run_max_backward_windows(rank, kSizes[s] + (4 - rank),
                                           win, -1, 0);
    }
  }
  // A stray index in the second plane, in the first, and past the plane.
  failures += run_max_backward_windows(4, kSizes[0], &kForwardWindows[0],
                                       1, 0);
  failures += run_max_backward_windows(4, kSizes[4], &kForwardWindows[2],
                                       0, 0);
  failures += run_max_backward_windows(4, kSizes[1], &kForwardWindows[0],
                                       -1, 16 * 16);
  cr_assert_eq(failures, 0, "%d max_pool2d backward cases disagree",
               failures);
}

// avg_pool2d_backward: each cell's grad / divisor spread over its window
// into a double plane, in the reference's order per input position, or
// stored over it where windows do not overlap: bit-exact. Windows with
// padding, ceil_mode overhang, count_include_pad and divisor_override,
// disjoint ones with gaps and padded edges; special gradients (-0.0 adds
// to the reference's +0.0); Double and non-contiguous (fallback).
static int run_avg_backward(etr_scalar_type_t dtype, int32_t rank,
                            const int64_t *in_sizes, const int64_t *kernel,
                            const int64_t *stride, const int64_t *padding,
                            bool ceil_mode, bool include_pad,
                            int64_t divisor, etr_diff_layout_t layout) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::avg_pool2d_backward.grad_input", g_seed++,
                 "%s %lldx%lld k %lldx%lld s %lld p %lld%s%s div %lld",
                 etr_scalar_type_name(dtype), (long long)in_sizes[rank - 2],
                 (long long)in_sizes[rank - 1], (long long)kernel[0],
                 (long long)kernel[1], (long long)stride[0],
                 (long long)padding[0], ceil_mode ? " ceil" : "",
                 include_pad ? " include_pad" : "", (long long)divisor);
  int64_t out_sizes[4];
  memcpy(out_sizes, in_sizes, (size_t)rank * sizeof(out_sizes[0]));
  for (int s = 0; s < 2; ++s) {
    out_sizes[rank - 2 + s] = pooled_size(in_sizes[rank - 2 + s], kernel[s],
                                          stride[s], padding[s], 1,
                                          ceil_mode);
  }
  etr_diff_input(&c, dtype, rank, out_sizes, layout, ETR_FILL_SPECIAL);
  etr_tensor_t *self =
      etr_diff_input(&c, dtype, rank, in_sizes, layout, ETR_FILL_RANDOM);
  etr_diff_arg(&c, tt_ev_int_list(2, kernel));
  etr_diff_arg(&c, tt_ev_int_list(2, stride));
  etr_diff_arg(&c, tt_ev_int_list(2, padding));
  etr_diff_arg(&c, tt_ev_bool(ceil_mode));
  etr_diff_arg(&c, tt_ev_bool(include_pad));
  etr_diff_arg(&c, divisor != 0 ? tt_ev_int(divisor) : tt_ev_none());
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               etr_tensor_numel(self) + 8);
  etr_diff_return(&c, 8);
  c.dtype = dtype;
  c.layout = layout;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_backward, avg_pool2d_backward) {
  int failures = 0;
  static const int64_t kSizes[][4] = {
      {2, 3, 4, 4}, {1, 5, 8, 7}, {2, 1, 9, 17}, {1, 1, 1, 1}};
  static const struct {
    int64_t kernel[2];
    int64_t stride[2];
    int64_t padding[2];
  } kWindows[] = {
      {{2, 2}, {2, 2}, {0, 0}}, {{3, 3}, {2, 2}, {1, 1}},
      {{3, 2}, {1, 2}, {1, 0}}, {{1, 1}, {1, 1}, {0, 0}},
      // Disjoint windows (one term a position): gaps, padded edges, a
      // divisor of 9 (divided, not multiplied by a reciprocal).
      {{2, 2}, {3, 3}, {0, 0}}, {{2, 2}, {2, 2}, {1, 1}},
      {{3, 3}, {3, 3}, {0, 0}},
      // One-row windows at stride 2 (every other row left at zero), and
      // windows that overlap along the height only.
      {{1, 2}, {2, 2}, {0, 0}}, {{3, 2}, {2, 2}, {1, 0}},
  };
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    for (size_t w = 0; w < sizeof(kWindows) / sizeof(kWindows[0]); ++w) {
      if (kSizes[s][3] < kWindows[w].kernel[1] ||
          kSizes[s][2] < kWindows[w].kernel[0]) {
        continue;
      }
      for (int ceil = 0; ceil < 2; ++ceil) {
        int32_t rank = (s + w) % 2 ? 3 : 4;
        failures += run_avg_backward(
            ETR_FLOAT, rank, kSizes[s] + (4 - rank), kWindows[w].kernel,
            kWindows[w].stride, kWindows[w].padding, ceil == 1,
            (s + w + (size_t)ceil) % 2 == 0, w == 1 && ceil ? 5 : 0, 0);
      }
    }
  }
  // Disjoint windows in rows of more than 256 cells: the plane path.
  static const int64_t kWide[4] = {1, 2, 4, 600};
  failures += run_avg_backward(ETR_FLOAT, 4, kWide, kWindows[0].kernel,
                               kWindows[0].stride, kWindows[0].padding,
                               false, false, 0, 0);
  failures += run_avg_backward(ETR_DOUBLE, 4, kSizes[0], kWindows[1].kernel,
                               kWindows[1].stride, kWindows[1].padding,
                               false, true, 0, 0);
  failures += run_avg_backward(ETR_FLOAT, 4, kSizes[0], kWindows[1].kernel,
                               kWindows[1].stride, kWindows[1].padding,
                               false, true, 0, ETR_DIFF_NONCONTIGUOUS);
  cr_assert_eq(failures, 0, "%d avg_pool2d backward cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// embedding_dense_backward: sums for the reached rows only (or one pass
// over the indices per block of rows), in the reference's order:
// bit-exact. Repeated indices, padding_idx,
// scale_grad_by_freq, Int and Long indices, an index past the table
// (skipped), widths over the vector edges; Double and non-contiguous
// (fallback); errors (a wrong grad size, negative num_weights).
static int run_embedding_backward(etr_scalar_type_t dtype,
                                  etr_scalar_type_t index_dtype,
                                  int64_t count, int64_t width,
                                  int64_t num_weights, int64_t padding_idx,
                                  bool scale, etr_diff_layout_t layout,
                                  int64_t grad_rows) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::embedding_dense_backward.out", g_seed++,
                 "%s n %lld D %lld W %lld pad %lld%s",
                 etr_scalar_type_name(dtype), (long long)count,
                 (long long)width, (long long)num_weights,
                 (long long)padding_idx, scale ? " scale" : "");
  etr_diff_input(&c, dtype, 2, (const int64_t[]){grad_rows, width}, layout,
                 ETR_FILL_SPECIAL);
  int64_t *values = tt_alloc((size_t)(count > 0 ? count : 1) * 8);
  for (int64_t i = 0; i < count; ++i) {
    values[i] = etr_diff_range(&c, 0, num_weights > 0 ? num_weights : 0);
  }
  etr_diff_arg(&c, tt_ev_tensor(tt_tensor_i64(index_dtype, 1, &count,
                                              values)));
  etr_diff_arg(&c, tt_ev_int(num_weights));
  etr_diff_arg(&c, tt_ev_int(padding_idx));
  etr_diff_arg(&c, tt_ev_bool(scale));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               (num_weights + 1) * (width + 1) + 8);
  etr_diff_return(&c, 5);
  c.dtype = dtype;
  c.layout = layout;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_backward, embedding_dense_backward) {
  int failures = 0;
  static const int64_t kWidths[] = {1, 3, 8, 17, 64};
  for (size_t w = 0; w < sizeof(kWidths) / sizeof(kWidths[0]); ++w) {
    for (int scale = 0; scale < 2; ++scale) {
      etr_scalar_type_t index_dtype = (w + (size_t)scale) % 2 ? ETR_INT
                                                              : ETR_LONG;
      failures += run_embedding_backward(ETR_FLOAT, index_dtype, 40,
                                         kWidths[w], 9, scale ? 3 : -1,
                                         scale == 1, 0, 40);
      failures += run_embedding_backward(ETR_FLOAT, index_dtype, 5,
                                         kWidths[w], 30, 0, scale == 1, 0, 5);
    }
  }
  // A large table: scratch for the reached rows only; one whose slots
  // alone outgrow the 4 MiB scratch (blocks of rows instead).
  failures += run_embedding_backward(ETR_FLOAT, ETR_LONG, 100, 64, 2500, -1,
                                     true, 0, 100);
  failures += run_embedding_backward(ETR_FLOAT, ETR_INT, 7, 1, 1100000, 3,
                                     true, 0, 7);
  failures += run_embedding_backward(ETR_DOUBLE, ETR_LONG, 40, 8, 9, -1,
                                     false, 0, 40);
  failures += run_embedding_backward(ETR_FLOAT, ETR_LONG, 40, 8, 9, -1, false,
                                     ETR_DIFF_NONCONTIGUOUS, 40);
  failures += run_embedding_backward(ETR_FLOAT, ETR_LONG, 40, 8, 9, -1, false,
                                     0, 39);
  failures += run_embedding_backward(ETR_FLOAT, ETR_LONG, 40, 8, -1, -1,
                                     false, 0, 40);
  cr_assert_eq(failures, 0, "%d embedding_dense_backward cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// _adaptive_avg_pool2d_backward: each cell's grad / bin size spread over
// its bin into a double plane, in the reference's order, or stored over
// it where the bins tile the plane: bit-exact. Output sizes that divide
// the input (bins of power-of-two sizes and others), that do not
// (overlapping bins) and that exceed it; special gradients; Double and
// non-contiguous (fallback).
static int run_adaptive_backward(etr_scalar_type_t dtype, int32_t rank,
                                 const int64_t *in_sizes, int64_t out_h,
                                 int64_t out_w, etr_diff_layout_t layout) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::_adaptive_avg_pool2d_backward.out", g_seed++,
                 "%s %lldx%lld -> %lldx%lld", etr_scalar_type_name(dtype),
                 (long long)in_sizes[rank - 2], (long long)in_sizes[rank - 1],
                 (long long)out_h, (long long)out_w);
  int64_t out_sizes[4];
  memcpy(out_sizes, in_sizes, (size_t)rank * sizeof(out_sizes[0]));
  out_sizes[rank - 2] = out_h;
  out_sizes[rank - 1] = out_w;
  etr_diff_input(&c, dtype, rank, out_sizes, layout, ETR_FILL_SPECIAL);
  etr_tensor_t *self =
      etr_diff_input(&c, dtype, rank, in_sizes, layout, ETR_FILL_RANDOM);
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               etr_tensor_numel(self) + 8);
  etr_diff_return(&c, 2);
  c.dtype = dtype;
  c.layout = layout;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_backward, adaptive_avg_pool2d_backward) {
  int failures = 0;
  static const int64_t kSizes[][4] = {
      {2, 3, 8, 12}, {1, 4, 7, 5}, {2, 1, 1, 1}};
  static const int64_t kOutputs[][2] = {{1, 1}, {2, 3}, {3, 5}, {9, 13}};
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    for (size_t o = 0; o < sizeof(kOutputs) / sizeof(kOutputs[0]); ++o) {
      int32_t rank = (s + o) % 2 ? 3 : 4;
      failures += run_adaptive_backward(ETR_FLOAT, rank,
                                        kSizes[s] + (4 - rank),
                                        kOutputs[o][0], kOutputs[o][1], 0);
    }
  }
  // Bins that tile the plane (stored, not summed): 8 x 8 and 14 x 8.
  static const int64_t kTiled[4] = {1, 2, 56, 56};
  failures += run_adaptive_backward(ETR_FLOAT, 4, kTiled, 7, 7, 0);
  failures += run_adaptive_backward(ETR_FLOAT, 4, kTiled, 4, 7, 0);
  // Rows that divide, columns one short of it: summed bins.
  static const int64_t kAlmost[4] = {1, 1, 8, 7};
  failures += run_adaptive_backward(ETR_FLOAT, 4, kAlmost, 2, 3, 0);
  failures += run_adaptive_backward(ETR_DOUBLE, 4, kSizes[0], 2, 3, 0);
  failures += run_adaptive_backward(ETR_FLOAT, 4, kSizes[0], 2, 3,
                                    ETR_DIFF_NONCONTIGUOUS);
  cr_assert_eq(failures, 0, "%d adaptive backward cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// native_layer_norm_backward: the reference's formulas and sum orders on
// typed rows: bit-exact. Row lengths over the vector edges, row counts
// over AVX-512's blocks of eight rows and the 32-row blocks, 1 to 3
// normalized dims, with and without weight and bias, every output mask;
// Double and non-contiguous (fallback); errors (a weight gradient without
// a weight).
static int run_layer_norm_backward(etr_scalar_type_t dtype, int32_t rank,
                                   const int64_t *sizes, int32_t normalized,
                                   bool affine, const bool *mask,
                                   etr_diff_layout_t layout) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::native_layer_norm_backward.out", g_seed++,
                 "%s rank %d last %lld norm %d%s mask %d%d%d",
                 etr_scalar_type_name(dtype), (int)rank,
                 (long long)sizes[rank - 1], (int)normalized,
                 affine ? " affine" : "", mask[0], mask[1], mask[2]);
  etr_tensor_t *grad =
      etr_diff_input(&c, dtype, rank, sizes, layout, ETR_FILL_RANDOM);
  etr_diff_input(&c, dtype, rank, sizes, layout, ETR_FILL_RANDOM);
  const int64_t *shape = sizes + (rank - normalized);
  etr_diff_arg(&c, tt_ev_int_list((size_t)normalized, shape));
  int64_t rows = 1;
  for (int32_t d = 0; d < rank - normalized; ++d) {
    rows *= sizes[d];
  }
  etr_diff_input(&c, dtype, 2, (const int64_t[]){rows, 1}, 0,
                 ETR_FILL_RANDOM);
  etr_diff_input(&c, dtype, 2, (const int64_t[]){rows, 1}, 0,
                 ETR_FILL_POSITIVE);
  if (affine) {
    etr_diff_input(&c, dtype, normalized, shape, 0, ETR_FILL_RANDOM);
    etr_diff_input(&c, dtype, normalized, shape, 0, ETR_FILL_RANDOM);
  } else {
    etr_diff_arg(&c, tt_ev_none());
    etr_diff_arg(&c, tt_ev_none());
  }
  etr_diff_arg(&c, tt_ev_bool_list(3, mask));
  int64_t capacity = etr_tensor_numel(grad) + 8;
  for (int i = 0; i < 3; ++i) {
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, capacity);
  }
  size_t outs[3] = {8, 9, 10};
  etr_diff_out_list(&c, 3, outs);
  c.dtype = dtype;
  c.layout = layout;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_backward, native_layer_norm_backward) {
  int failures = 0;
  static const int64_t kLast[] = {1, 7, 8, 16, 17, 64};
  static const bool kMasks[][3] = {
      {true, true, true}, {true, false, false}, {false, true, true}};
  for (size_t l = 0; l < sizeof(kLast) / sizeof(kLast[0]); ++l) {
    for (size_t m = 0; m < 3; ++m) {
      int64_t sizes[3] = {2, 3, kLast[l]};
      int32_t normalized = 1 + (int32_t)((l + m) % 2);
      failures += run_layer_norm_backward(ETR_FLOAT, 3, sizes, normalized,
                                          true, kMasks[m], 0);
      if (m == 1) {
        failures += run_layer_norm_backward(ETR_FLOAT, 3, sizes, normalized,
                                            false, kMasks[m], 0);
      }
    }
  }
  // Rows in blocks of eight (AVX-512's row sums), their tails and the
  // driver's 32-row blocks.
  static const int64_t kRows[][2] = {{1, 8}, {2, 8}, {5, 7}, {3, 11}};
  for (size_t l = 0; l < sizeof(kLast) / sizeof(kLast[0]); ++l) {
    for (size_t q = 0; q < sizeof(kRows) / sizeof(kRows[0]); ++q) {
      int64_t sizes[3] = {kRows[q][0], kRows[q][1], kLast[l]};
      failures += run_layer_norm_backward(ETR_FLOAT, 3, sizes, 1, q % 2 == 0,
                                          kMasks[q % 3], 0);
    }
  }
  int64_t sizes[3] = {2, 3, 8};
  failures += run_layer_norm_backward(ETR_DOUBLE, 3, sizes, 1, true,
                                      kMasks[0], 0);
  failures += run_layer_norm_backward(ETR_FLOAT, 3, sizes, 1, true,
                                      kMasks[0], ETR_DIFF_NONCONTIGUOUS);
  failures += run_layer_norm_backward(ETR_FLOAT, 3, sizes, 1, false,
                                      kMasks[0], 0);
  cr_assert_eq(failures, 0, "%d layer norm backward cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// native_group_norm_backward: each (n, c) sum computed once, then the
// reference's formulas in its order: bit-exact. Groups of 1 to C
// channels, H * W over the vector edges, with and without weight, every
// output mask; Double (fallback); errors (C not divisible by group).
static int run_group_norm_backward(etr_scalar_type_t dtype, int64_t batch,
                                   int64_t channels, int64_t hxw,
                                   int64_t group, bool affine,
                                   const bool *mask) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::native_group_norm_backward.out", g_seed++,
                 "%s N %lld C %lld HxW %lld G %lld%s",
                 etr_scalar_type_name(dtype), (long long)batch,
                 (long long)channels, (long long)hxw, (long long)group,
                 affine ? " affine" : "");
  int64_t sizes[3] = {batch, channels, hxw};
  etr_tensor_t *grad = etr_diff_input(&c, dtype, 3, sizes, 0,
                                      ETR_FILL_RANDOM);
  etr_diff_input(&c, dtype, 3, sizes, 0, ETR_FILL_RANDOM);
  int64_t stats[2] = {batch, group};
  etr_diff_input(&c, dtype, 2, stats, 0, ETR_FILL_RANDOM);
  etr_diff_input(&c, dtype, 2, stats, 0, ETR_FILL_POSITIVE);
  if (affine) {
    etr_diff_input(&c, dtype, 1, &channels, 0, ETR_FILL_RANDOM);
  } else {
    etr_diff_arg(&c, tt_ev_none());
  }
  etr_diff_arg(&c, tt_ev_int(batch));
  etr_diff_arg(&c, tt_ev_int(channels));
  etr_diff_arg(&c, tt_ev_int(hxw));
  etr_diff_arg(&c, tt_ev_int(group));
  etr_diff_arg(&c, tt_ev_bool_list(3, mask));
  int64_t capacity = etr_tensor_numel(grad) + 8;
  for (int i = 0; i < 3; ++i) {
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, capacity);
  }
  size_t outs[3] = {10, 11, 12};
  etr_diff_out_list(&c, 3, outs);
  c.dtype = dtype;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_backward, native_group_norm_backward) {
  int failures = 0;
  static const int64_t kHxW[] = {1, 7, 16, 33};
  static const int64_t kGroups[] = {1, 2, 6};
  static const bool kAll[3] = {true, true, true};
  static const bool kInputOnly[3] = {true, false, false};
  for (size_t h = 0; h < sizeof(kHxW) / sizeof(kHxW[0]); ++h) {
    for (size_t g = 0; g < 3; ++g) {
      failures += run_group_norm_backward(ETR_FLOAT, 2, 6, kHxW[h],
                                          kGroups[g], true, kAll);
      failures += run_group_norm_backward(ETR_FLOAT, 3, 6, kHxW[h],
                                          kGroups[g], false, kInputOnly);
    }
  }
  failures += run_group_norm_backward(ETR_DOUBLE, 2, 6, 7, 2, true, kAll);
  failures += run_group_norm_backward(ETR_FLOAT, 2, 6, 7, 4, true, kAll);
  cr_assert_eq(failures, 0, "%d group norm backward cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// convolution_backward: 1-D and 2-D, plain and transposed. A plain
// convolution with one group takes GEMM paths that sum in fp32
// (grad_input as the transposed convolution of grad_output, grad_weight
// as im2col GEMMs): bit-exact on small integers (every partial sum exact),
// else within the accumulation bound of the longer sum (grad_weight's
// over images and pixels, grad_input's over out channels and taps, values
// in [-1, 1)). The others keep the reference's double sums in its order:
// bit-exact on any data. Kernels 1x1 to 3x3 (and 2x3), stride 1-2,
// padding 0-1, dilation 1-2, groups 1 and 2, every output mask, 1-D and
// transposed convolutions; layers whose im2col columns take several
// GEMM steps (an odd and an even number); Double (fallback); errors
// (groups that do not divide the channels).
static void conv_backward_tolerance(etr_diff_case_t *c, bool plain_one_group,
                                    etr_diff_fill_t fill, int64_t sum_long) {
  if (!plain_one_group || fill == ETR_FILL_EXACT_INT) {
    etr_diff_tolerance_exact(c);
    return;
  }
  etr_diff_tolerance_bound(
      c, etr_diff_accumulation_bound(ETR_FLOAT, sum_long, 1.0, 1.0), 0.0);
}

static int run_conv_backward_sized(const int64_t *in, int64_t oc, int64_t kh,
                                   int64_t kw, int64_t stride,
                                   int64_t padding, int64_t dilation,
                                   int64_t groups, const bool *mask,
                                   bool transposed, etr_scalar_type_t dtype,
                                   etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::convolution_backward.out", g_seed++,
                 "%s [%lld, %lld, %lld, %lld] oc %lld k %lldx%lld s %lld "
                 "p %lld d %lld g %lld%s fill %d",
                 etr_scalar_type_name(dtype), (long long)in[0],
                 (long long)in[1], (long long)in[2], (long long)in[3],
                 (long long)oc, (long long)kh, (long long)kw,
                 (long long)stride, (long long)padding, (long long)dilation,
                 (long long)groups, transposed ? " transposed" : "",
                 (int)fill);
  int64_t w_sizes[4] = {oc, in[1] / groups, kh, kw};
  if (transposed) {
    w_sizes[0] = in[1];
    w_sizes[1] = oc / groups;
  }
  int64_t out[4] = {in[0], oc, 0, 0};
  int64_t k[2] = {kh, kw};
  for (int s = 0; s < 2; ++s) {
    int64_t extent = dilation * (k[s] - 1) + 1;
    out[2 + s] = transposed
                     ? (in[2 + s] - 1) * stride - 2 * padding + extent
                     : (in[2 + s] + 2 * padding - extent) / stride + 1;
  }
  etr_tensor_t *grad = etr_diff_input(&c, dtype, 4, out, 0, fill);
  etr_tensor_t *input = etr_diff_input(&c, dtype, 4, in, 0, fill);
  etr_diff_input(&c, dtype, 4, w_sizes, 0, fill);
  etr_diff_arg(&c, tt_ev_int_list(1, &oc));
  etr_diff_arg(&c, tt_ev_int_list(1, &stride));
  etr_diff_arg(&c, tt_ev_int_list(1, &padding));
  etr_diff_arg(&c, tt_ev_int_list(1, &dilation));
  etr_diff_arg(&c, tt_ev_bool(transposed));
  etr_diff_arg(&c, TT_EV_INTS(0));
  etr_diff_arg(&c, tt_ev_int(groups));
  etr_diff_arg(&c, tt_ev_bool_list(3, mask));
  int64_t capacity = etr_tensor_numel(grad) + etr_tensor_numel(input) + 64;
  for (int i = 0; i < 3; ++i) {
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, capacity);
  }
  size_t outs[3] = {11, 12, 13};
  etr_diff_out_list(&c, 3, outs);
  c.dtype = dtype;
  int64_t sum_long = out[0] * out[2] * out[3];
  sum_long = sum_long > oc * kh * kw ? sum_long : oc * kh * kw;
  conv_backward_tolerance(&c, !transposed && groups == 1, fill, sum_long);
  return etr_diff_run(&c);
}

static int run_conv_backward(int64_t kh, int64_t kw, int64_t stride,
                             int64_t padding, int64_t dilation,
                             int64_t groups, const bool *mask, bool transposed,
                             etr_scalar_type_t dtype, etr_diff_fill_t fill) {
  static const int64_t kIn[4] = {2, 4, 7, 6};
  return run_conv_backward_sized(kIn, 6, kh, kw, stride, padding, dilation,
                                 groups, mask, transposed, dtype, fill);
}

// The 1-D case (conv1d): [N, C, L] viewed by the kernel as [N, C, 1, L].
static int run_conv1d_backward(int64_t k, int64_t stride, int64_t padding,
                               int64_t dilation, int64_t groups,
                               const bool *mask, etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::convolution_backward.out", g_seed++,
                 "1-D k %lld s %lld p %lld d %lld g %lld fill %d",
                 (long long)k, (long long)stride, (long long)padding,
                 (long long)dilation, (long long)groups, (int)fill);
  int64_t in[3] = {2, 4, 19};
  int64_t oc = 6;
  int64_t w_sizes[3] = {oc, in[1] / groups, k};
  int64_t extent = dilation * (k - 1) + 1;
  int64_t out[3] = {in[0], oc, (in[2] + 2 * padding - extent) / stride + 1};
  etr_tensor_t *grad = etr_diff_input(&c, ETR_FLOAT, 3, out, 0, fill);
  etr_tensor_t *input = etr_diff_input(&c, ETR_FLOAT, 3, in, 0, fill);
  etr_diff_input(&c, ETR_FLOAT, 3, w_sizes, 0, fill);
  etr_diff_arg(&c, tt_ev_int_list(1, &oc));
  etr_diff_arg(&c, tt_ev_int_list(1, &stride));
  etr_diff_arg(&c, tt_ev_int_list(1, &padding));
  etr_diff_arg(&c, tt_ev_int_list(1, &dilation));
  etr_diff_arg(&c, tt_ev_bool(false));
  etr_diff_arg(&c, TT_EV_INTS(0));
  etr_diff_arg(&c, tt_ev_int(groups));
  etr_diff_arg(&c, tt_ev_bool_list(3, mask));
  int64_t capacity = etr_tensor_numel(grad) + etr_tensor_numel(input) + 64;
  for (int i = 0; i < 3; ++i) {
    etr_diff_out(&c, ETR_FLOAT, 1, (const int64_t[]){0}, 0, capacity);
  }
  size_t outs[3] = {11, 12, 13};
  etr_diff_out_list(&c, 3, outs);
  c.dtype = ETR_FLOAT;
  int64_t sum_long = out[0] * out[2] > oc * k ? out[0] * out[2] : oc * k;
  conv_backward_tolerance(&c, groups == 1, fill, sum_long);
  return etr_diff_run(&c);
}

TT_TEST(diff_backward, convolution_backward) {
  int failures = 0;
  static const etr_diff_fill_t kFills[2] = {ETR_FILL_EXACT_INT,
                                            ETR_FILL_RANDOM};
  static const int64_t kKernels[][2] = {{1, 1}, {3, 3}, {2, 3}};
  static const bool kAll[3] = {true, true, true};
  static const bool kSome[3] = {true, false, true};
  for (size_t k = 0; k < 3; ++k) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      for (int64_t padding = 0; padding <= 1; ++padding) {
        for (int64_t groups = 1; groups <= 2; ++groups) {
          int64_t dilation = (k + (size_t)stride) % 2 ? 2 : 1;
          for (size_t f = 0; f < 2; ++f) {
            failures += run_conv_backward(
                kKernels[k][0], kKernels[k][1], stride, padding, dilation,
                groups, (k + (size_t)groups) % 2 ? kSome : kAll, false,
                ETR_FLOAT, kFills[f]);
          }
        }
      }
    }
  }
  for (int64_t k = 1; k <= 3; ++k) {
    for (size_t f = 0; f < 2; ++f) {
      failures += run_conv1d_backward(k, k == 2 ? 2 : 1, k / 2,
                                      k == 3 ? 2 : 1, k == 1 ? 2 : 1,
                                      k == 2 ? kSome : kAll, kFills[f]);
    }
  }
  // 16 channels of 32 x 32, 3x3: 144 x 1024 im2col floats take two GEMM
  // steps an image (one and two images: an even and an odd count).
  static const int64_t kLarge[2][4] = {{1, 16, 32, 32}, {2, 16, 32, 32}};
  for (size_t f = 0; f < 2; ++f) {
    for (size_t n = 0; n < 2; ++n) {
      failures += run_conv_backward_sized(kLarge[n], 8, 3, 3, 1, 1, 1, 1,
                                          kAll, false, ETR_FLOAT, kFills[f]);
    }
    failures += run_conv_backward_sized(kLarge[1], 8, 3, 3, 2, 1, 1, 1,
                                        kSome, false, ETR_FLOAT, kFills[f]);
  }
  // No input channels: empty sums (the GEMM paths decline them).
  static const int64_t kEmpty[4] = {1, 0, 5, 5};
  failures += run_conv_backward_sized(kEmpty, 3, 3, 3, 1, 1, 1, 1, kAll,
                                      false, ETR_FLOAT, ETR_FILL_RANDOM);
  // Transposed: strides, padding, dilation, groups.
  etr_diff_fill_t random = ETR_FILL_RANDOM;
  failures += run_conv_backward(3, 3, 2, 1, 1, 1, kAll, true, ETR_FLOAT,
                                random);
  failures += run_conv_backward(2, 3, 1, 0, 2, 2, kAll, true, ETR_FLOAT,
                                random);
  failures += run_conv_backward(1, 1, 2, 0, 1, 1, kSome, true, ETR_FLOAT,
                                random);
  failures += run_conv_backward(3, 2, 2, 1, 1, 2, kAll, true, ETR_FLOAT,
                                random);
  failures += run_conv_backward(3, 3, 1, 1, 1, 1, kAll, false, ETR_DOUBLE,
                                random);
  failures += run_conv_backward(3, 3, 1, 1, 1, 3, kAll, false, ETR_FLOAT,
                                random);
  cr_assert_eq(failures, 0, "%d convolution backward cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}
