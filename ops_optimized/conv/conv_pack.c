// SPDX-License-Identifier: Apache-2.0
//
// The convolution's GEMM sources (conv.h): im2col rows and columns and the
// weights, packed straight into GEMM panels from the input and weight
// tensors (Float, or Half/BFloat16 converted here), so no im2col buffer
// exists. Positions in the padding are zeros of the packed panel. Also the
// per-ISA choice of the im2col packers (im2col_<isa>.c).
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"

static inline float load_any(etr_scalar_type_t dtype, const void *data,
                             int64_t index) {
  switch (dtype) {
    case ETR_HALF:
      return etr_half_to_float(((const etr_half_t *)data)[index]);
    case ETR_BFLOAT16:
      return etr_bfloat16_to_float(((const etr_bfloat16_t *)data)[index]);
    default:
      return ((const float *)data)[index];
  }
}

static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// Ceiling division for a positive divisor and any numerator.
static inline int64_t div_ceil(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

void etr_conv_valid_range(int64_t out_size, int64_t in_size, int64_t stride,
                          int64_t pad, int64_t offset, int64_t *first,
                          int64_t *end) {
  // o * stride - pad + offset in [0, in_size)
  int64_t lo = div_ceil(pad - offset, stride);
  int64_t hi = div_ceil(in_size + pad - offset, stride);
  *first = min64(max64(lo, 0), out_size);
  *end = max64(min64(hi, out_size), *first);
}

// im2col row k = (c, kh, kw) for `count` pixels from `pixel` on, into out.
static void im2col_row(const etr_conv2d_geometry_t *g, const void *data,
                       etr_scalar_type_t dtype, int64_t c, int64_t kh,
                       int64_t kw, int64_t pixel, size_t count, float *out) {
  int64_t oh = pixel / g->out_w;
  int64_t ow = pixel % g->out_w;
  int64_t first = 0;
  int64_t end = 0;
  etr_conv_valid_range(g->out_w, g->in_w, g->stride_w, g->pad_w,
                       kw * g->dilation_w, &first, &end);
  bool contiguous = dtype == ETR_FLOAT && g->stride_w == 1 &&
                    g->in_stride_w == 1;
  while (count > 0) {
    int64_t run = min64((int64_t)count, g->out_w - ow);
    int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
    int64_t lo = min64(max64(first, ow), ow + run);
    int64_t hi = max64(min64(end, ow + run), lo);
    if (ih < 0 || ih >= g->in_h || lo == hi) {
      memset(out, 0, (size_t)run * sizeof(float));
    } else {
      int64_t base = c * g->in_stride_c + ih * g->in_stride_h;
      for (int64_t o = ow; o < lo; ++o) {
        out[o - ow] = 0.0f;
      }
      int64_t iw = lo * g->stride_w - g->pad_w + kw * g->dilation_w;
      if (contiguous) {
        memcpy(out + (lo - ow), (const float *)data + base + iw,
               (size_t)(hi - lo) * sizeof(float));
      } else {
        for (int64_t o = lo; o < hi; ++o, iw += g->stride_w) {
          out[o - ow] = load_any(dtype, data, base + iw * g->in_stride_w);
        }
      }
      for (int64_t o = hi; o < ow + run; ++o) {
        out[o - ow] = 0.0f;
      }
    }
    out += run;
    count -= (size_t)run;
    ow = 0;
    ++oh;
  }
}

void etr_conv_pack_im2col(const etr_gemm_source_t *source, size_t k0,
                          size_t kc, size_t x0, size_t xc, size_t width,
                          float *dst) {
  const etr_conv2d_geometry_t *g =
      (const etr_conv2d_geometry_t *)source->generator;
  int64_t taps = g->kernel_h * g->kernel_w;
  size_t panels = (xc + width - 1) / width;
  for (size_t k = 0; k < kc; ++k) {
    int64_t kk = (int64_t)(k0 + k);
    int64_t c = kk / taps;
    int64_t tap = kk % taps;
    for (size_t p = 0; p < panels; ++p) {
      size_t columns = xc - p * width < width ? xc - p * width : width;
      float *out = dst + p * kc * width + k * width;
      im2col_row(g, source->data, source->dtype, c, tap / g->kernel_w,
                 tap % g->kernel_w, (int64_t)(x0 + p * width), columns, out);
      memset(out + columns, 0, (width - columns) * sizeof(float));
    }
  }
}

void etr_conv_pack_im2col_nhwc(const etr_gemm_source_t *source, size_t k0,
                               size_t kc, size_t x0, size_t xc, size_t width,
                               float *dst) {
  const etr_conv2d_geometry_t *g =
      (const etr_conv2d_geometry_t *)source->generator;
  int64_t channels = g->channels;
  for (size_t p = 0; p * width < xc; ++p) {
    size_t columns = xc - p * width < width ? xc - p * width : width;
    float *panel = dst + p * kc * width;
    for (size_t x = 0; x < columns; ++x) {
      int64_t pixel = (int64_t)(x0 + p * width + x);
      int64_t oh = pixel / g->out_w;
      int64_t ow = pixel % g->out_w;
      size_t k = 0;
      while (k < kc) {  // one run of channels per tap
        int64_t kk = (int64_t)(k0 + k);
        int64_t tap = kk / channels;
        int64_t c = kk % channels;
        size_t run = (size_t)min64(channels - c, (int64_t)(kc - k));
        int64_t ih = oh * g->stride_h - g->pad_h +
                     tap / g->kernel_w * g->dilation_h;
        int64_t iw = ow * g->stride_w - g->pad_w +
                     tap % g->kernel_w * g->dilation_w;
        float *out = panel + k * width + x;
        if (ih < 0 || ih >= g->in_h || iw < 0 || iw >= g->in_w) {
          for (size_t r = 0; r < run; ++r) {
            out[r * width] = 0.0f;
          }
        } else {
          int64_t base = ih * g->in_stride_h + iw * g->in_stride_w +
                         c * g->in_stride_c;
          for (size_t r = 0; r < run; ++r) {
            out[r * width] = load_any(source->dtype, source->data,
                                      base + (int64_t)r * g->in_stride_c);
          }
        }
        k += run;
      }
    }
    for (size_t k = 0; k < kc; ++k) {
      memset(panel + k * width + columns, 0,
             (width - columns) * sizeof(float));
    }
  }
}

void etr_conv_pack_weights(const etr_gemm_source_t *source, size_t k0,
                           size_t kc, size_t x0, size_t xc, size_t width,
                           float *dst) {
  const etr_conv2d_geometry_t *g =
      (const etr_conv2d_geometry_t *)source->generator;
  int64_t taps = g->kernel_h * g->kernel_w;
  for (size_t p = 0; p * width < xc; ++p) {
    size_t columns = xc - p * width < width ? xc - p * width : width;
    float *panel = dst + p * kc * width;
    int64_t oc0 = (int64_t)(x0 + p * width);
    for (size_t k = 0; k < kc; ++k) {
      int64_t kk = (int64_t)(k0 + k);
      int64_t c = g->channels_last ? kk % g->channels : kk / taps;
      int64_t tap = g->channels_last ? kk / g->channels : kk % taps;
      int64_t base = oc0 * g->w_stride_oc + c * g->w_stride_c +
                     tap / g->kernel_w * g->w_stride_h +
                     tap % g->kernel_w * g->w_stride_w;
      float *out = panel + k * width;
      for (size_t x = 0; x < columns; ++x) {
        out[x] = load_any(source->dtype, source->data,
                          base + (int64_t)x * g->w_stride_oc);
      }
      memset(out + columns, 0, (width - columns) * sizeof(float));
    }
  }
}

etr_gemm_pack_fn etr_conv_im2col_for(etr_isa_t isa, bool channels_last) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return channels_last ? etr_conv_pack_im2col_nhwc_avx512
                           : etr_conv_pack_im2col_avx512;
#endif
    default:
      return channels_last ? etr_conv_pack_im2col_nhwc
                           : etr_conv_pack_im2col;
  }
}

etr_conv_pointwise_fn etr_conv_pointwise_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_conv_pointwise_nchw_avx512;
    case ETR_ISA_AVX2:
      return etr_conv_pointwise_nchw_avx2;
#endif
    default:
      return NULL;
  }
}

etr_conv_shifted_fn etr_conv_shifted_for(etr_isa_t isa,
                                         const etr_conv2d_geometry_t *g) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_conv_shifted_nchw_avx512_applies(g)
                 ? etr_conv_shifted_nchw_avx512
                 : NULL;
#endif
    default:
      return NULL;
  }
}

static bool g_winograd_allowed = true;

void etr_conv_winograd_allow(bool allow) { g_winograd_allowed = allow; }

bool etr_conv_winograd_allowed(void) { return g_winograd_allowed; }

// Whether the tile lanes' transformed weight and scratch, which the op
// takes from ctx->temp on every call, fit ETR_CONV_WINOGRAD_TILE_MAX_BYTES.
static bool tile_lanes_fit(const etr_conv2d_geometry_t *g,
                           int64_t out_channels) {
  const size_t floats =
      etr_conv_winograd_packed_floats(out_channels, g->channels) +
      etr_conv_winograd_scratch_floats(g, ETR_CONV_WINOGRAD_TILE_LANES);
  return floats <= ETR_CONV_WINOGRAD_TILE_MAX_BYTES / sizeof(float);
}

etr_conv_winograd_t etr_conv_winograd_for(etr_isa_t isa,
                                          const etr_conv2d_geometry_t *g,
                                          int64_t out_channels) {
  etr_conv_winograd_t none = {NULL, ETR_CONV_WINOGRAD_TILE_LANES};
  if (!g_winograd_allowed) {
    return none;
  }
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      // Position lanes where the tile lanes would leave a tenth of theirs
      // empty, and on planes of at most 16 tiles (8x8: 28 against 32 us
      // at 64 channels, 7x7 97 against 115 at 128; 16x16 105 against 93).
      // positions_tiles rounds up to steps of 3, so 18 stands for 16: 17
      // or 18 tiles take 32 tile lanes, under 90%, either way.
      if ((etr_conv_winograd_utilization(g) < 0.9 ||
           etr_conv_winograd_positions_tiles(g) <= 18) &&
          etr_conv_winograd_positions_nchw_avx512_applies(g, out_channels)) {
        return (etr_conv_winograd_t){etr_conv_winograd_positions_nchw_avx512,
                                     ETR_CONV_WINOGRAD_POSITION_LANES};
      }
      if (etr_conv_winograd_nchw_avx512_applies(g, out_channels) &&
          tile_lanes_fit(g, out_channels)) {
        return (etr_conv_winograd_t){etr_conv_winograd_nchw_avx512,
                                     ETR_CONV_WINOGRAD_TILE_LANES};
      }
      return none;
    case ETR_ISA_AVX2:
      if (etr_conv_winograd_nchw_avx2_applies(g, out_channels) &&
          tile_lanes_fit(g, out_channels)) {
        return (etr_conv_winograd_t){etr_conv_winograd_nchw_avx2,
                                     ETR_CONV_WINOGRAD_TILE_LANES};
      }
      return none;
#endif
    default:
      return none;
  }
}

// The share of a tile-lane kernel's lanes that hold tiles: strips of
// 2 `vector` columns (a vector of tiles), each in blocks of whole tile
// rows (`block_rows` of a strip's tile columns), each block in whole
// vectors.
static double tile_lanes_utilization(const etr_conv2d_geometry_t *g,
                                     int64_t vector,
                                     int64_t (*block_rows)(int64_t)) {
  if (g->out_w < 1 || g->out_h < 1) {
    return 0.0;
  }
  const int64_t strip_cols = 2 * vector;
  const int64_t tile_rows = (g->out_h + 1) / 2;
  int64_t lanes = 0;
  for (int64_t col0 = 0; col0 < g->out_w; col0 += strip_cols) {
    const int64_t strip =
        g->out_w - col0 < strip_cols ? g->out_w - col0 : strip_cols;
    const int64_t tile_cols = (strip + 1) / 2;
    const int64_t per_block = block_rows(tile_cols);
    for (int64_t r = 0; r < tile_rows; r += per_block) {
      const int64_t rows =
          tile_rows - r < per_block ? tile_rows - r : per_block;
      lanes += (rows * tile_cols + vector - 1) / vector * vector;
    }
  }
  return (double)(tile_rows * ((g->out_w + 1) / 2)) / (double)lanes;
}

double etr_conv_winograd_utilization(const etr_conv2d_geometry_t *g) {
  return tile_lanes_utilization(g, 16, etr_conv_winograd_block_rows);
}

double etr_conv_winograd_avx2_utilization(const etr_conv2d_geometry_t *g) {
  return tile_lanes_utilization(g, 8, etr_conv_winograd_avx2_block_rows);
}

size_t etr_conv_winograd_scratch_floats(const etr_conv2d_geometry_t *g,
                                        etr_conv_winograd_layout_t layout) {
  if (layout == ETR_CONV_WINOGRAD_POSITION_LANES) {
    // Every channel's tiles, 16 positions each.
    return (size_t)(g->channels * etr_conv_winograd_positions_tiles(g) * 16);
  }
  // The 16 positions' sums of 8 out channels by a block's lanes, then one
  // block's transformed input.
  return (size_t)(16 * 8 * ETR_CONV_WINOGRAD_BLOCK_LANES +
                  16 * etr_conv_winograd_position_floats(
                           g->channels, ETR_CONV_WINOGRAD_BLOCK_LANES));
}

size_t etr_conv_winograd_packed_floats(int64_t out_channels,
                                       int64_t channels) {
  return (size_t)(16 * ((out_channels + 7) / 8) * 8 * channels);
}

// One row (or column) of three through G: (a, (a + b + c) / 2,
// (a - b + c) / 2, c).
static void winograd_g(float a, float b, float c, float out[4]) {
  out[0] = a;
  out[1] = (a + b + c) * 0.5f;
  out[2] = (a - b + c) * 0.5f;
  out[3] = c;
}

// U = G g G^T of the 3x3 kernel at `w` (strides from g) into u (16
// positions, p * 4 + q); false when a value is inf, NaN or beyond 2^40.
static bool winograd_transform(const float *w, const etr_conv2d_geometry_t *g,
                               float u[16]) {
  float rows[3][4];  // G applied along each kernel row's columns
  for (int i = 0; i < 3; ++i) {
    const float *r = w + i * g->w_stride_h;
    for (int j = 0; j < 3; ++j) {
      if (!(fabsf(r[j * g->w_stride_w]) <= 0x1p40f)) {
        return false;
      }
    }
    winograd_g(r[0], r[g->w_stride_w], r[2 * g->w_stride_w], rows[i]);
  }
  for (int q = 0; q < 4; ++q) {  // then along the columns' rows
    float col[4];
    winograd_g(rows[0][q], rows[1][q], rows[2][q], col);
    for (int p = 0; p < 4; ++p) {
      u[p * 4 + q] = col[p];
    }
  }
  return true;
}

bool etr_conv_winograd_pack(const float *weight,
                            const etr_conv2d_geometry_t *g,
                            int64_t out_channels,
                            etr_conv_winograd_layout_t layout, float *dst) {
  const int64_t channels = g->channels;
  const int64_t blocks = (out_channels + 7) / 8;
  if (layout == ETR_CONV_WINOGRAD_POSITION_LANES) {
    for (int64_t b = 0; b < blocks; ++b) {
      if (!etr_conv_winograd_pack_block(weight, g, out_channels, b,
                                        dst + b * channels * 8 * 16)) {
        return false;
      }
    }
    return true;
  }
  for (int64_t o = 0; o < blocks * 8; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      float u[16] = {0};
      if (o < out_channels &&
          !winograd_transform(weight + o * g->w_stride_oc + c * g->w_stride_c,
                              g, u)) {
        return false;
      }
      for (int64_t position = 0; position < 16; ++position) {
        dst[((position * blocks + o / 8) * channels + c) * 8 + o % 8] =
            u[position];
      }
    }
  }
  return true;
}

bool etr_conv_winograd_pack_block(const float *weight,
                                  const etr_conv2d_geometry_t *g,
                                  int64_t out_channels, int64_t block,
                                  float *dst) {
  for (int64_t c = 0; c < g->channels; ++c) {
    for (int64_t j = 0; j < 8; ++j) {
      const int64_t o = block * 8 + j;
      float *u = dst + (c * 8 + j) * 16;
      if (o >= out_channels) {
        memset(u, 0, 16 * sizeof(float));
      } else if (!winograd_transform(
                     weight + o * g->w_stride_oc + c * g->w_stride_c, g, u)) {
        return false;
      }
    }
  }
  return true;
}

etr_conv_pixels_fn etr_conv_pixels_for(etr_isa_t isa,
                                       const etr_conv2d_geometry_t *g,
                                       int64_t out_channels) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_conv_pixels_nchw_avx512_applies(g, out_channels)
                 ? etr_conv_pixels_nchw_avx512
                 : NULL;
    case ETR_ISA_AVX2:
      return etr_conv_pixels_nchw_avx2_applies(g, out_channels)
                 ? etr_conv_pixels_nchw_avx2
                 : NULL;
#endif
    default:
      return NULL;
  }
}

size_t etr_conv_pixels_scratch_floats(etr_isa_t isa,
                                      const etr_conv2d_geometry_t *g) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX2) {
    return etr_conv_pixels_nchw_avx2_scratch_floats(g);
  }
#endif
  (void)isa;
  return etr_conv_shifted_scratch_floats(g);
}

int64_t etr_conv_pixels_panel(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return ETR_CONV_PIXELS_PANEL_AVX512;
    case ETR_ISA_AVX2:
      return ETR_CONV_PIXELS_PANEL_AVX2;
#endif
    default:
      return 0;
  }
}

void etr_conv_pixels_pack(const float *weight, int64_t weight_stride,
                          int64_t out_channels, int64_t depth, float *dst) {
  etr_isa_t isa = etr_isa_active();
  etr_gemm_kernel_for(isa)->pack_columns(
      weight, (ptrdiff_t)weight_stride, (size_t)depth, (size_t)out_channels,
      (size_t)etr_conv_pixels_panel(isa), dst);
}

size_t etr_conv_pixels_packed_floats(int64_t out_channels, int64_t depth) {
  int64_t panel = etr_conv_pixels_panel(etr_isa_active());
  return panel == 0 ? 0
                    : (size_t)((out_channels + panel - 1) / panel * panel *
                               depth);
}

int64_t etr_conv_columns_pitch(int64_t out_channels) {
  return (out_channels + 15) / 16 * 16;
}

int etr_conv_one_pixel_chains(etr_isa_t isa, int64_t out_channels) {
  if (isa == ETR_ISA_AVX512) {
    return out_channels <= 32 ? 4 : 1;
  }
  return out_channels <= 16 ? 4 : out_channels <= 32 ? 2 : 1;
}

void etr_conv_columns_pack(const float *weight, int64_t weight_stride,
                           int64_t out_channels, int64_t in_channels,
                           float *dst) {
  const int64_t pitch = etr_conv_columns_pitch(out_channels);
  for (int64_t k = 0; k < in_channels; ++k) {
    float *column = dst + k * pitch;
    for (int64_t j = 0; j < pitch; ++j) {
      column[j] = j < out_channels ? weight[j * weight_stride + k] : 0.0f;
    }
  }
}
