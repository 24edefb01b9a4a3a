// SPDX-License-Identifier: Apache-2.0
//
// Transposed convolution (aten::convolution.out, transposed = true), Float,
// 1-D or 2-D, NCHW (conv.h): PyTorch's own scheme (slow_conv_transpose2d),
// a GEMM and a scatter-add per (image, group):
//
//   cols[(oc, i, j)][(ih, iw)] = sum_c W[c][oc][i][j] x[c][ih][iw]
//   out[oc][ih sh - ph + i dh][iw sw - pw + j dw] += cols[(oc, i, j)][(ih, iw)]
//
// The weight [C_in, C_out/groups, kH, kW] is the GEMM's A seen as K x M
// (k = input channel, m = (oc, i, j)) with unit stride along M, the input
// its B read in place (k = channel, n = pixel), and cols is fp32 scratch:
// blocks of M x N that fit half of what ctx->temp has left (at most 512
// KiB; 8 KiB of stack without an arena), the GEMM's own packing taking
// the rest. A constant weight is packed once at load
// (etr_conv_transposed_prepack: 4x4 stride 2, 128 -> 64 channels on 16x16,
// spent 8% of its time packing it per call); blocks then take all of M
// and whole input rows of pixels. The out starts at +0.0, takes the
// blocks' sums, then the bias, so a -0.0 bias adds as PyTorch's sum +
// bias does. Where each out element takes exactly one tap (2x2 stride 2,
// scatter_put) it is stored once with those same bits instead; with the
// weight packed at load, straight from the GEMM's register tiles
// (etr_conv_pairs_tile_fn: no cols block, the input read in place; 64 ->
// 32 channels on 28x28 went 87 -> 73 us, paired runs). Each
// product of the reference appears once: an input element meets every
// tap that lands in the out, which is the reference's gather read the
// other way round.
//
// Exactness: each cols element is one fp32 FMA chain over the channels;
// with small-integer data (every partial sum exact) the out is the
// reference's bit for bit.
#include <string.h>

#include "core/arena.h"
#include "ops_optimized/binary/binary.h"
#include "ops_optimized/conv/conv.h"

#define COLS_STACK_FLOATS 2048
#define COLS_MAX_BYTES ((size_t)512 * 1024)

// Smallest iw with iw * stride + offset >= 0, and one past the largest with
// iw * stride + offset < limit (stride >= 1); the range may be empty.
static int64_t first_inside(int64_t offset, int64_t stride) {
  return offset >= 0 ? 0 : (-offset + stride - 1) / stride;
}
static int64_t end_inside(int64_t offset, int64_t stride, int64_t limit) {
  int64_t last = limit - 1 - offset;
  return last < 0 ? 0 : last / stride + 1;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// For the first (at most CACHED_TAPS) of `taps` kernel taps along one
// axis, the input indices [first, end) whose out index lands in [0,
// limit).
#define CACHED_TAPS 8
static void tap_ranges(int64_t taps, int64_t dilation, int64_t pad,
                       int64_t stride, int64_t limit, int64_t *first,
                       int64_t *end) {
  for (int64_t c = 0; c < CACHED_TAPS && c < taps; ++c) {
    const int64_t offset = c * dilation - pad;
    first[c] = first_inside(offset, stride);
    end[c] = end_inside(offset, stride, limit);
  }
}

// The scatter's kernels: the ISA's float add (stride-1 rows) and its
// add_pairs (stride 2, two neighbouring kernel columns at once).
typedef struct scatter_kernels {
  etr_f32_binary_vv_fn add;
  etr_conv_add_pairs_fn add_pairs;
  etr_conv_add_pair_plane_fn pair_plane;  // NULL: add_pairs per row
} scatter_kernels_t;

// Adds rows [m0, m0 + mc) x pixels [n0, n0 + nc) of cols (row stride nc)
// into the group's out planes (contiguous, out_h x out_w each). Row r is
// out channel oc, kernel tap (i, j); its pixel (ih, iw) lands at out row
// ih * stride_h + i * dilation_h - pad_h, column iw * stride_w + j *
// dilation_w - pad_w. At stride 2 (dilation 1) rows j and j + 1 of one
// (oc, i) fill the even and odd columns of the same out row, so they are
// added together, interleaved (add_pairs). No out element takes two
// values of one pair, so every element sees its adds in the same order
// as row by row.
static void scatter_add(const etr_conv2d_geometry_t *s, const float *cols,
                        int64_t m0, int64_t mc, int64_t n0, int64_t nc,
                        const scatter_kernels_t *k, float *out) {
  const int64_t taps = s->kernel_h * s->kernel_w;
  const int64_t plane = s->out_h * s->out_w;
  const bool pairs = s->stride_w == 2 && s->dilation_w == 1;
  const bool whole_rows = n0 % s->in_w == 0 && nc % s->in_w == 0;
  // The first row's tap; later rows step through (oc, i, j) without
  // dividing, and the ranges of the first kernel columns are worked out
  // once (their 64-bit divisions per row were 6% of a 4x4 stride-2
  // decoder layer's time).
  int64_t oc = m0 / taps;
  int64_t i = m0 % taps / s->kernel_w;
  int64_t j = m0 % taps % s->kernel_w;
  int64_t cached_lo[CACHED_TAPS];
  int64_t cached_hi[CACHED_TAPS];
  tap_ranges(s->kernel_w, s->dilation_w, s->pad_w, s->stride_w, s->out_w,
             cached_lo, cached_hi);
  // Likewise the input rows of the first kernel rows that land in the out.
  int64_t cached_first[CACHED_TAPS];
  int64_t cached_end[CACHED_TAPS];
  tap_ranges(s->kernel_h, s->dilation_h, s->pad_h, s->stride_h, s->out_h,
             cached_first, cached_end);
  for (int64_t r = 0; r < mc;) {
    // Rows r and r + 1 together: taps j and j + 1 of one (oc, i).
    const int64_t width =
        pairs && j % 2 == 0 && j + 1 < s->kernel_w && r + 1 < mc ? 2 : 1;
    const int64_t row_offset = i * s->dilation_h - s->pad_h;
    const int64_t row_first =
        i < CACHED_TAPS ? cached_first[i]
                        : first_inside(row_offset, s->stride_h);
    const int64_t row_end =
        i < CACHED_TAPS ? cached_end[i]
                        : end_inside(row_offset, s->stride_h, s->out_h);
    int64_t column_offset[2];
    int64_t lo[2];
    int64_t hi[2];
    for (int64_t t = 0; t < width; ++t) {
      column_offset[t] = (j + t) * s->dilation_w - s->pad_w;
      if (j + t < CACHED_TAPS) {
        lo[t] = cached_lo[j + t];
        hi[t] = cached_hi[j + t];
      } else {
        lo[t] = first_inside(column_offset[t], s->stride_w);
        hi[t] = end_inside(column_offset[t], s->stride_w, s->out_w);
      }
    }
    float *o = out + oc * plane;
    // The next row's tap (width columns on; j + width <= kernel_w).
    j += width;
    if (j == s->kernel_w) {
      j = 0;
      if (++i == s->kernel_h) {
        i = 0;
        ++oc;
      }
    }
    if (whole_rows) {
      // Every input row of the block whole: the column ranges are the
      // same for each row, worked out once (per row they were 10% of a
      // 2x2 stride-2 layer's time: 28-pixel rows, 1792 of them).
      int64_t to[2];
      for (int64_t t = 0; t < width; ++t) {
        to[t] = min64(s->in_w, hi[t]);
      }
      if (width == 2 && k->pair_plane != NULL) {
        // The pair down all the block's rows that land in the out, edges
        // included, in one call.
        const int64_t ih_from = max64(n0 / s->in_w, row_first);
        const int64_t ih_to = min64((n0 + nc) / s->in_w, row_end);
        if (ih_to > ih_from) {
          const float *a = cols + r * nc + (ih_from * s->in_w - n0);
          const etr_conv_pair_plane_t plane = {
              .rows = (size_t)(ih_to - ih_from),
              .a = a,
              .b = a + nc,
              .in_stride = (ptrdiff_t)s->in_w,
              .a_from = lo[0],
              .a_to = to[0],
              .b_from = lo[1],
              .b_to = to[1],
              .out = o + (ih_from * s->stride_h + row_offset) * s->out_w,
              .out_stride = (ptrdiff_t)(s->stride_h * s->out_w),
              .offset = column_offset[0]};
          k->pair_plane(&plane);
        }
        r += width;
        continue;
      }
      int64_t both_from = lo[0];
      int64_t both_to = lo[0];  // empty unless a pair
      if (width == 2) {
        both_from = max64(lo[0], lo[1]);
        both_to = max64(both_from, min64(to[0], to[1]));
      }
      for (int64_t ih = n0 / s->in_w; ih < (n0 + nc) / s->in_w; ++ih) {
        const int64_t oh = ih * s->stride_h + row_offset;
        if (oh < 0 || oh >= s->out_h) {
          continue;
        }
        float *orow = o + oh * s->out_w;
        const float *crow = cols + r * nc + (ih * s->in_w - n0);
        if (both_to > both_from) {
          k->add_pairs((size_t)(both_to - both_from), crow + both_from,
                       crow + nc + both_from,
                       orow + 2 * both_from + column_offset[0]);
        }
        for (int64_t t = 0; t < width; ++t, crow += nc) {
          if (s->stride_w == 1) {
            if (to[t] > lo[t]) {
              k->add((size_t)(to[t] - lo[t]), orow + lo[t] + column_offset[t],
                     crow + lo[t], orow + lo[t] + column_offset[t], NULL);
            }
            continue;
          }
          for (int64_t iw = lo[t]; iw < min64(to[t], both_from); ++iw) {
            orow[iw * s->stride_w + column_offset[t]] += crow[iw];
          }
          for (int64_t iw = max64(lo[t], both_to); iw < to[t]; ++iw) {
            orow[iw * s->stride_w + column_offset[t]] += crow[iw];
          }
        }
      }
      r += width;
      continue;
    }
    for (int64_t n = n0; n < n0 + nc;) {
      const int64_t ih = n / s->in_w;
      const int64_t row_start = ih * s->in_w;
      const int64_t row_end = min64(row_start + s->in_w, n0 + nc);
      const int64_t oh = ih * s->stride_h + row_offset;
      if (oh >= 0 && oh < s->out_h) {
        // Out column iw * stride + column_offset[t], in [0, out_w) for iw
        // in [from[t], to[t]).
        float *orow = o + oh * s->out_w;
        int64_t from[2];
        int64_t to[2];
        const float *crow[2];
        for (int64_t t = 0; t < width; ++t) {
          from[t] = max64(n - row_start, lo[t]);
          to[t] = min64(row_end - row_start, hi[t]);
          crow[t] = cols + (r + t) * nc + (row_start - n0);
        }
        int64_t both_from = from[0];
        int64_t both_to = from[0];  // empty unless a pair
        if (width == 2) {
          both_from = max64(from[0], from[1]);
          both_to = min64(to[0], to[1]);
          if (both_to > both_from) {
            k->add_pairs((size_t)(both_to - both_from), crow[0] + both_from,
                         crow[1] + both_from,
                         orow + 2 * both_from + column_offset[0]);
          } else {
            both_to = both_from;
          }
        }
        for (int64_t t = 0; t < width; ++t) {
          // What the pair did not cover: all of a single row.
          if (s->stride_w == 1) {
            if (to[t] > from[t]) {
              k->add((size_t)(to[t] - from[t]),
                     orow + from[t] + column_offset[t], crow[t] + from[t],
                     orow + from[t] + column_offset[t], NULL);
            }
            continue;
          }
          // [from, to) minus [both_from, both_to): at most two runs.
          const int64_t runs[2][2] = {
              {from[t], min64(to[t], both_from)},
              {max64(from[t], both_to), to[t]}};
          for (int run = 0; run < 2; ++run) {
            for (int64_t iw = runs[run][0]; iw < runs[run][1]; ++iw) {
              orow[iw * s->stride_w + column_offset[t]] += crow[t][iw];
            }
          }
        }
      }
      n = row_end;
    }
    r += width;
  }
}

// Whether each out element takes exactly one tap, two kernel columns a
// pair: stride == kernel (2 columns), dilation 1, no padding, and the out
// exactly the input times the kernel (no output_padding).
static bool exact_pairs(const etr_conv2d_geometry_t *s) {
  return s->kernel_w == 2 && s->stride_w == 2 && s->dilation_w == 1 &&
         s->pad_w == 0 && s->out_w == 2 * s->in_w &&
         s->kernel_h == s->stride_h && s->dilation_h == 1 && s->pad_h == 0 &&
         s->out_h == s->kernel_h * s->in_h;
}

// scatter_add's rows [m0, m0 + mc) x pixels [n0, n0 + nc) where
// exact_pairs holds: each element stored once as (cols + 0) + bias (the
// bits of the memset, the add and the bias pass), so the out need not be
// cleared first. A pair split by the block's edge is stored one column
// at a time.
static void scatter_put(const etr_conv2d_geometry_t *s, const float *cols,
                        int64_t m0, int64_t mc, int64_t n0, int64_t nc,
                        etr_conv_put_pairs_fn put, const float *bias,
                        int64_t bias_stride, float *out) {
  const int64_t taps = s->kernel_h * 2;
  const int64_t plane = s->out_h * s->out_w;
  for (int64_t r = 0; r < mc;) {
    const int64_t m = m0 + r;
    const int64_t oc = m / taps;
    const int64_t i = m % taps / 2;
    const int64_t j = m % 2;
    const int64_t width = j == 0 && r + 1 < mc ? 2 : 1;
    const float b = bias != NULL ? bias[oc * bias_stride] : -0.0f;
    float *o = out + oc * plane;
    for (int64_t n = n0; n < n0 + nc;) {
      const int64_t ih = n / s->in_w;
      const int64_t row_start = ih * s->in_w;
      const int64_t row_end = min64(row_start + s->in_w, n0 + nc);
      float *orow = o + (ih * s->kernel_h + i) * s->out_w;
      const float *crow = cols + r * nc + (row_start - n0);
      const int64_t from = n - row_start;
      const int64_t to = row_end - row_start;
      if (width == 2) {
        put((size_t)(to - from), crow + from, crow + nc + from, b,
            orow + 2 * from);
      } else {
        for (int64_t iw = from; iw < to; ++iw) {
          orow[2 * iw + j] = (crow[iw] + 0.0f) + b;
        }
      }
      n = row_end;
    }
    r += width;
  }
}

// The runs (conv.h) of pixels [p0, p0 + nr): each vector's lanes split
// where its pixels change input row.
static void pairs_runs(const etr_conv2d_geometry_t *s, int64_t p0,
                       int64_t nr, etr_conv_pairs_runs_t *runs) {
  int64_t ih = p0 / s->in_w;
  int64_t iw = p0 - ih * s->in_w;
  for (int v = 0; v < ETR_CONV_PAIRS_VECTORS; ++v) {
    runs->count[v] = 0;
    for (int64_t l = 0; l < 8 && 8 * v + l < nr;) {
      const int64_t n =
          min64(min64(8 - l, s->in_w - iw), nr - 8 * v - l);  // pixels
      const int r = runs->count[v]++;
      runs->mask[v][r] = (uint16_t)(((1u << (2 * n)) - 1u) << (2 * l));
      runs->offset[v][r] =
          (ptrdiff_t)(ih * s->kernel_h * s->out_w + 2 * iw - 2 * l);
      l += n;
      iw += n;
      if (iw == s->in_w) {
        iw = 0;
        ++ih;
      }
    }
  }
}

// The exact pairs of one (image, group) by tiles stored straight into
// the out (etr_conv_pairs_tile_fn): pixel tiles of the microkernel's NR,
// each run over all the packed weight's row panels while its input
// columns are in L1.
static void pairs_by_tiles(const etr_conv2d_geometry_t *s,
                           etr_conv_pairs_tile_fn tile,
                           const etr_gemm_packed_a_t *a_packed,
                           const float *xg, ptrdiff_t x_stride,
                           const float *bias, ptrdiff_t bias_stride,
                           float *o) {
  const etr_gemm_kernel_t *kernel = a_packed->kernel;
  const int64_t mr = (int64_t)kernel->mr;
  const int64_t nr = (int64_t)kernel->nr;
  const int64_t m_total = (int64_t)a_packed->m;
  const int64_t n_total = s->in_h * s->in_w;
  const etr_conv_pairs_tile_t call = {
      .panels = a_packed->panels,
      .rows = (size_t)((m_total + mr - 1) / mr * mr),
      .k = a_packed->k,
      .kc = a_packed->kc,
      .b = xg,
      .b_stride = x_stride,
      .out = o,
      .plane = (ptrdiff_t)(s->out_h * s->out_w),
      .out_w = (ptrdiff_t)s->out_w,
      .kernel_h = s->kernel_h,
      .bias = bias,
      .bias_stride = bias_stride};
  for (int64_t p0 = 0; p0 < n_total; p0 += nr) {
    const int64_t cols = min64(nr, n_total - p0);
    etr_conv_pairs_runs_t runs;
    pairs_runs(s, p0, cols, &runs);
    for (int64_t r0 = 0; r0 < m_total; r0 += mr) {
      tile(&call, (size_t)r0, (size_t)min64(mr, m_total - r0), (size_t)p0,
           (size_t)cols, &runs);
    }
  }
}

// Whether etr_conv_transposed_nchw takes the call.
static bool takes(const etr_tensor_t *input, const etr_tensor_t *weight,
                  const etr_tensor_t *bias, const etr_tensor_t *out,
                  int64_t groups, const etr_conv2d_geometry_t *g) {
  return input->dtype == ETR_FLOAT && weight->dtype == ETR_FLOAT &&
         out->dtype == ETR_FLOAT && (input->dim == 3 || input->dim == 4) &&
         weight->dim == input->dim && out->dim == input->dim &&
         groups >= 1 && etr_tensor_is_contiguous(input) &&
         etr_tensor_is_contiguous(weight) && etr_tensor_is_contiguous(out) &&
         (bias == NULL || (bias->dtype == ETR_FLOAT && bias->dim == 1)) &&
         g->stride_h >= 1 && g->stride_w >= 1;
}

// Pixels of a block that takes all `m_total` cols rows: whole input rows,
// as many as `capacity` floats hold (all of them when they fit), or 0
// when not one row fits.
static int64_t whole_rows_block(int64_t m_total, int64_t n_total,
                                int64_t in_w, size_t capacity) {
  if (m_total <= 0 || in_w <= 0) {
    return 0;
  }
  if ((size_t)m_total * (size_t)n_total <= capacity) {
    return n_total;
  }
  int64_t rows = (int64_t)(capacity / (size_t)m_total) / in_w;
  return rows * in_w;
}

// The GEMM of one (image, group) and pixel block: cols [rows x pixels]
// (row stride pixels) = the weight's rows [m0, m0 + rows) x the input's
// pixels [n0, n0 + pixels), over `channels` input channels.
static etr_gemm_problem_t block_product(const float *wg, int64_t w_stride,
                                        const float *xg, int64_t x_stride,
                                        int64_t channels, int64_t m0,
                                        int64_t rows, int64_t n0,
                                        int64_t pixels, float *cols) {
  return (etr_gemm_problem_t){
      .m = (size_t)rows,
      .n = (size_t)pixels,
      .k = (size_t)channels,
      .a = etr_gemm_matrix(wg + m0, ETR_FLOAT, (ptrdiff_t)w_stride, 1),
      .b = etr_gemm_matrix(xg + n0, ETR_FLOAT, (ptrdiff_t)x_stride, 1),
      .c = cols,
      .c_dtype = ETR_FLOAT,
      .c_row_stride = (ptrdiff_t)pixels,
      .alpha = 1.0f,
      .beta = 0.0f,
  };
}

const etr_gemm_packed_a_t *etr_conv_transposed_prepack(
    etr_arena_t *arena, etr_isa_t isa, const etr_tensor_t *input,
    const etr_tensor_t *weight, const etr_tensor_t *out, int64_t groups,
    const etr_conv2d_geometry_t *g) {
  if (groups != 1 || weight->data == NULL ||
      !takes(input, weight, NULL, out, groups, g)) {
    return NULL;
  }
  const int64_t m_total = out->sizes[1] * g->kernel_h * g->kernel_w;
  const int64_t n_total = g->in_h * g->in_w;
  // The block of a call whose arena has the most room the cols take.
  const int64_t nc = whole_rows_block(m_total, n_total, g->in_w,
                                      COLS_MAX_BYTES / sizeof(float));
  if (nc == 0) {
    return NULL;
  }
  etr_gemm_problem_t p = block_product(
      (const float *)weight->data, weight->strides[0],
      (const float *)input->data, input->strides[1], g->channels, 0, m_total,
      0, nc, NULL);
  return etr_gemm_prepack_a(&p, isa, arena);
}

bool etr_conv_transposed_nchw(etr_arena_t *temp, etr_isa_t isa,
                              const etr_tensor_t *input,
                              const etr_tensor_t *weight,
                              const etr_tensor_t *bias, etr_tensor_t *out,
                              int64_t groups,
                              const etr_conv2d_geometry_t *g,
                              const etr_gemm_packed_a_t *a_packed) {
  if (!takes(input, weight, bias, out, groups, g)) {
    return false;
  }
  const etr_conv2d_geometry_t s = *g;
  const int64_t in_channels = s.channels;
  const int64_t out_channels = out->sizes[1] / groups;
  const int64_t m_total = out_channels * s.kernel_h * s.kernel_w;
  const int64_t n_total = s.in_h * s.in_w;
  const int64_t out_group = out_channels * s.out_h * s.out_w;

  // Stride == kernel (2x2 stride 2 up-sampling): one store per element
  // instead of the memset, the scatter-add and the bias pass (perf: 17%
  // of 64 -> 32 channels on 28x28; the layer is 10% faster this way).
  // With the weight packed at load for a microkernel that has a pairs
  // tile, those stores come straight from the GEMM's tiles.
  const bool exact = exact_pairs(&s);
  // The weight packed at load for this call (etr_gemm checks the rest).
  const bool packed_whole =
      a_packed != NULL && groups == 1 && a_packed->from == weight->data &&
      a_packed->m == (size_t)m_total && a_packed->k == (size_t)in_channels &&
      a_packed->k_stride == weight->strides[0] && a_packed->x_stride == 1;
  const etr_conv_pairs_tile_fn tile =
      exact && packed_whole ? etr_conv_pairs_tile_for(isa, a_packed->kernel)
                            : NULL;

  // The cols block: half the arena's room (the GEMM packs in the rest).
  float stack_cols[COLS_STACK_FLOATS];
  float *cols = stack_cols;
  size_t capacity = COLS_STACK_FLOATS;
  if (tile == NULL && temp != NULL && temp->block_size == 0 &&
      temp->size > temp->used) {
    size_t want = (temp->size - temp->used) / 2;
    want = want < COLS_MAX_BYTES ? want : COLS_MAX_BYTES;
    if (want / sizeof(float) > COLS_STACK_FLOATS) {
      float *block = (float *)etr_arena_alloc(temp, want, 64);
      if (block != NULL) {
        cols = block;
        capacity = want / sizeof(float);
      }
    }
  }
  // With the weight packed at load: all of its rows and whole input rows
  // of pixels per block, so neither operand is packed twice. Else all
  // pixels and the taps of as many whole out channels as fit: the GEMM
  // packs each weight row once (split by pixels, it packed all of the
  // weight again per block: 7% of 128 -> 64 4x4 stride 2 on 16x16). Else
  // whole input rows per block where they fit, else 16 pixels (and fewer
  // cols rows when even those do not).
  const int64_t taps = s.kernel_h * s.kernel_w;
  int64_t nc = n_total;
  int64_t mc = m_total;
  const int64_t packed_nc =
      packed_whole ? whole_rows_block(m_total, n_total, s.in_w, capacity)
                   : 0;
  if (packed_nc > 0) {
    nc = packed_nc;
  } else if (m_total > 0 && (size_t)m_total * (size_t)nc > capacity &&
             capacity / (size_t)nc >= (size_t)taps) {
    mc = (int64_t)(capacity / (size_t)nc) / taps * taps;
  } else if (m_total > 0 && (size_t)m_total * (size_t)nc > capacity) {
    nc = (int64_t)(capacity / (size_t)m_total);
    nc = nc >= s.in_w ? nc / s.in_w * s.in_w : nc / 16 * 16;
    nc = nc < 16 ? 16 : nc;
    nc = nc < n_total ? nc : n_total;
  }
  if (nc > 0 && (size_t)mc * (size_t)nc > capacity) {
    mc = (int64_t)(capacity / (size_t)nc);
  }
  const etr_arena_mark_t mark =
      temp != NULL ? etr_arena_mark(temp) : (etr_arena_mark_t){0};

  // The ISA's float add for the stride-1 rows and the bias (a + b, as
  // the loops it replaces: 22% of a 2x2 stride-2 layer was a scalar bias
  // pass).
  const etr_f32_binary_kernels_t *binary = etr_f32_binary_for(isa);
  const scatter_kernels_t kernels = {binary->vv[ETR_BINARY_ADD],
                                     etr_conv_add_pairs_for(isa),
                                     etr_conv_add_pair_plane_for(isa)};
  const etr_conv_put_pairs_fn put = etr_conv_put_pairs_for(isa);
  const int64_t bias_stride = bias != NULL ? bias->strides[0] : 0;
  const float *x = (const float *)input->data;
  const float *w = (const float *)weight->data;
  float *y = (float *)out->data;
  for (int64_t image = 0; image < input->sizes[0]; ++image) {
    for (int64_t group = 0; group < groups; ++group) {
      float *o = y + image * out->strides[0] +
                 group * out_channels * out->strides[1];
      if (!exact) {
        memset(o, 0, (size_t)out_group * sizeof(float));
      }
      const float *xg = x + image * input->strides[0] +
                        group * in_channels * input->strides[1];
      const float *wg = w + group * in_channels * weight->strides[0];
      const float *group_bias =
          bias != NULL ? (const float *)bias->data +
                             group * out_channels * bias_stride
                       : NULL;
      if (tile != NULL) {
        pairs_by_tiles(&s, tile, a_packed, xg, input->strides[1],
                       group_bias, bias_stride, o);
        continue;
      }
      for (int64_t m0 = 0; m0 < m_total; m0 += mc) {
        const int64_t rows = m_total - m0 < mc ? m_total - m0 : mc;
        // Pixel blocks last to first: an out element's taps from a later
        // input row have a smaller kernel row i (i dilation_h = oh +
        // pad_h - ih stride_h), so each element takes its adds in (i, j)
        // order, as from one block: the bits do not depend on the
        // blocking (nor on whether the weight was packed at load).
        for (int64_t n0 = n_total > 0 ? (n_total - 1) / nc * nc : -1;
             n0 >= 0; n0 -= nc) {
          const int64_t pixels = n_total - n0 < nc ? n_total - n0 : nc;
          etr_gemm_problem_t p =
              block_product(wg, weight->strides[0], xg, input->strides[1],
                            in_channels, m0, rows, n0, pixels, cols);
          // (etr_gemm checks that it was packed from this weight, for this
          // block's microkernel.)
          p.a_packed = packed_nc > 0 ? a_packed : NULL;
          etr_gemm(&p, NULL, temp, isa);
          if (temp != NULL) {
            etr_arena_rewind(temp, mark);
          }
          if (exact) {
            scatter_put(&s, cols, m0, rows, n0, pixels, put, group_bias,
                        bias_stride, o);
          } else {
            scatter_add(&s, cols, m0, rows, n0, pixels, &kernels, o);
          }
        }
      }
      if (bias != NULL && !exact) {
        const int64_t plane = s.out_h * s.out_w;
        for (int64_t oc = 0; oc < out_channels; ++oc) {
          const float b =
              ((const float *)bias->data)[(group * out_channels + oc) *
                                          bias->strides[0]];
          float *op = o + oc * plane;
          binary->vs[ETR_BINARY_ADD]((size_t)plane, op, b, op, NULL);
        }
      }
    }
  }
  return true;
}
