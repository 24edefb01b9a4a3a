// SPDX-License-Identifier: Apache-2.0
//
// Packing of plain strided matrices into the microkernels' panel format
// (gemm.h): a K x X block becomes ceil(xc / width) panels of kc x width
// floats, zero-padded past xc. Three layouts have loops of their own:
// rows contiguous along X (a row-major B, a transposed A: whole rows
// copied), rows contiguous along K (a row-major A, a transposed weight:
// a transpose in tiles of 8 x width), and anything else element by element.
// Half and BFloat16 are converted to fp32 here, so the microkernels only
// ever see fp32.
#include <string.h>

#include "core/scalar_type.h"
#include "ops_optimized/gemm/gemm.h"

static inline float load_any(etr_scalar_type_t dtype, const void *data,
                             ptrdiff_t index) {
  switch (dtype) {
    case ETR_HALF:
      return etr_half_to_float(((const etr_half_t *)data)[index]);
    case ETR_BFLOAT16:
      return etr_bfloat16_to_float(((const etr_bfloat16_t *)data)[index]);
    default:
      return ((const float *)data)[index];
  }
}

// fp32, unit stride along X: each k row is copied into every panel, one
// source row at a time so the reads stream.
void etr_gemm_pack_rows_f32_scalar(const float *src, ptrdiff_t stride,
                                   size_t kc, size_t xc, size_t width,
                                   float *dst) {
  size_t panels = (xc + width - 1) / width;
  for (size_t k = 0; k < kc; ++k) {
    const float *row = src + (ptrdiff_t)k * stride;
    for (size_t p = 0; p < panels; ++p) {
      float *out = dst + p * kc * width + k * width;
      size_t columns = xc - p * width < width ? xc - p * width : width;
      memcpy(out, row + p * width, columns * sizeof(float));
      for (size_t x = columns; x < width; ++x) {
        out[x] = 0.0f;
      }
    }
  }
}

// fp32, unit stride along K: a transpose, 8 rows of K at a time so the
// reads stay in a few cache lines per column and the writes in one group
// of panel rows.
void etr_gemm_pack_columns_f32_scalar(const float *src, ptrdiff_t stride,
                                      size_t kc, size_t xc, size_t width,
                                      float *dst) {
  size_t panels = (xc + width - 1) / width;
  for (size_t p = 0; p < panels; ++p) {
    float *panel = dst + p * kc * width;
    const float *origin = src + (ptrdiff_t)(p * width) * stride;
    size_t columns = xc - p * width < width ? xc - p * width : width;
    size_t k = 0;
    for (; k + 8 <= kc; k += 8) {
      float *out = panel + k * width;
      for (size_t x = 0; x < columns; ++x) {
        const float *in = origin + (ptrdiff_t)x * stride + (ptrdiff_t)k;
        for (size_t t = 0; t < 8; ++t) {
          out[t * width + x] = in[t];
        }
      }
      for (size_t t = 0; t < 8; ++t) {
        for (size_t x = columns; x < width; ++x) {
          out[t * width + x] = 0.0f;
        }
      }
    }
    for (; k < kc; ++k) {
      for (size_t x = 0; x < columns; ++x) {
        panel[k * width + x] = origin[(ptrdiff_t)x * stride + (ptrdiff_t)k];
      }
      for (size_t x = columns; x < width; ++x) {
        panel[k * width + x] = 0.0f;
      }
    }
  }
}

void etr_gemm_pack_strided(const etr_gemm_source_t *source, size_t k0,
                           size_t kc, size_t x0, size_t xc, size_t width,
                           float *dst) {
  ptrdiff_t ks = source->k_stride;
  ptrdiff_t xs = source->x_stride;
  ptrdiff_t origin = (ptrdiff_t)k0 * ks + (ptrdiff_t)x0 * xs;
  if (source->dtype == ETR_FLOAT && xs == 1) {
    etr_gemm_pack_rows_f32_scalar((const float *)source->data + origin, ks,
                                  kc, xc, width, dst);
    return;
  }
  if (source->dtype == ETR_FLOAT && ks == 1) {
    etr_gemm_pack_columns_f32_scalar((const float *)source->data + origin,
                                     xs, kc, xc, width, dst);
    return;
  }
  for (size_t p = 0; p * width < xc; ++p) {
    size_t columns = xc - p * width < width ? xc - p * width : width;
    float *panel = dst + p * kc * width;
    ptrdiff_t first = origin + (ptrdiff_t)(p * width) * xs;
    for (size_t k = 0; k < kc; ++k) {
      for (size_t x = 0; x < columns; ++x) {
        panel[k * width + x] =
            load_any(source->dtype, source->data,
                     first + (ptrdiff_t)k * ks + (ptrdiff_t)x * xs);
      }
      for (size_t x = columns; x < width; ++x) {
        panel[k * width + x] = 0.0f;
      }
    }
  }
}
