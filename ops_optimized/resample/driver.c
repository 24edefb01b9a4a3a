// SPDX-License-Identifier: Apache-2.0
//
// Source indices and taps (the reference's arithmetic) and the drivers of
// the optimized upsampling kernels (see resample.h). Nearest moves
// elements of any size: 4-byte ones through the Float kernels (which only
// move bits), 1-, 2- and 8-byte ones through portable gathers. Bilinear
// stages Half and BFloat16 through fp32 in ctx->temp: chunks of NCHW
// planes or NHWC images converted in, blended by the Float kernels,
// converted out.
#include <math.h>
#include <string.h>

#include "ops_optimized/reduce/reduce.h"
#include "ops_optimized/resample/resample.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/shape.h"

// The typed loops here are written for the compiler to vectorize, which
// GCC 12 does at -O2 only for loops that need no scalar epilogue: ask for
// it (clang vectorizes at -O2 already).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

enum { kStackColumns = 1024 };
// The floats of input-row taps the NCHW bilinear path keeps (64 KiB).
enum { kCachedTaps = 16384 };

int64_t etr_resample_nearest_index(const etr_resample_axis_t *axis,
                                   int64_t o) {
  if (axis->out == axis->in) {
    return o;
  }
  if (axis->out % 2 == 0 && axis->out / 2 == axis->in) {
    return o >> 1;
  }
  float scale = axis->scale > 0.0 ? (float)(1.0 / axis->scale)
                                  : (float)axis->in / (float)axis->out;
  float source = floorf((float)o * scale);
  int64_t index = source < 9.2e18f ? (int64_t)source : INT64_MAX;
  return index < axis->in - 1 ? index : axis->in - 1;
}

etr_resample_tap_t etr_resample_linear_tap(const etr_resample_axis_t *axis,
                                           bool align_corners, int64_t o) {
  etr_resample_tap_t tap = {o, o, 1.0f, 0.0f};
  int64_t in = axis->in;
  int64_t out = axis->out;
  if (out == in) {
    return tap;
  }
  double scale = 0.0;
  if (align_corners) {
    scale = out > 1 ? etr_nn_opmath(true, etr_nn_opmath(true, in - 1) /
                                              etr_nn_opmath(true, out - 1))
                    : 0.0;
  } else if (axis->scale > 0.0) {
    scale = etr_nn_opmath(true, 1.0 / axis->scale);
  } else {
    scale = etr_nn_opmath(true, etr_nn_opmath(true, in) /
                                    etr_nn_opmath(true, out));
  }
  double source = 0.0;
  if (align_corners) {
    source = etr_nn_opmath(true, scale * etr_nn_opmath(true, o));
  } else {
    double shifted = etr_nn_opmath(true, etr_nn_opmath(true, o) + 0.5);
    source = etr_nn_opmath(true, etr_nn_opmath(true, scale * shifted) - 0.5);
    source = source < 0.0 ? 0.0 : source;
  }
  int64_t floor_source = (int64_t)floor(source);
  tap.i0 = floor_source < in - 1 ? floor_source : in - 1;
  double l1 = etr_nn_opmath(true, source - (double)tap.i0);
  l1 = l1 < 0.0 ? 0.0 : l1 > 1.0 ? 1.0 : l1;
  tap.l1 = (float)l1;
  tap.l0 = (float)(1.0 - l1);
  tap.i1 = tap.i0 + (tap.i0 < in - 1 ? 1 : 0);
  return tap;
}

typedef struct layout {
  size_t n, c, h, w, oh, ow;
  bool channels_last;
} layout_t;

// `any_dtype`: nearest, which only moves elements (of 1, 2, 4 or 8
// bytes); else Float, Half or BFloat16.
static bool layout_of(const etr_tensor_t *input, const etr_tensor_t *out,
                      bool any_dtype, layout_t *l) {
  size_t element = etr_scalar_type_size(input->dtype);
  bool movable = element == 1 || element == 2 || element == 4 || element == 8;
  if (!(any_dtype ? movable : etr_reduce_is_f32_like(input->dtype)) ||
      out->dtype != input->dtype ||
      input->dim != 4 || etr_numel(input) == 0 || etr_numel(out) == 0 ||
      !etr_tensor_is_dense(input) || !etr_tensor_is_dense(out) ||
      memcmp(input->dim_order, out->dim_order, 4) != 0 ||
      input->sizes[2] * input->sizes[3] >= INT32_MAX) {
    return false;
  }
  bool contiguous = etr_dim_order_is_contiguous(input->dim_order, 4);
  if (!contiguous && !etr_dim_order_is_channels_last(input->dim_order, 4)) {
    return false;
  }
  *l = (layout_t){(size_t)input->sizes[0], (size_t)input->sizes[1],
                  (size_t)input->sizes[2], (size_t)input->sizes[3],
                  (size_t)out->sizes[2],   (size_t)out->sizes[3],
                  !contiguous};
  return true;
}

// `bytes` of column tables from the arena, or the stack buffer when they
// fit there; NULL when neither can hold them.
static void *tables(etr_kernel_context_t *ctx, size_t bytes, void *stack,
                    size_t stack_bytes) {
  if (bytes <= stack_bytes) {
    return stack;
  }
  return ctx->temp != NULL ? etr_arena_alloc(ctx->temp, bytes, 64) : NULL;
}

// dst[k] = src[index[k]], and dst[2k] = dst[2k + 1] = src[k] (exact 2x),
// for elements of 1, 2 or 8 bytes (the 4-byte ones go to the ISA's
// kernels); the duplication is a loop the compiler vectorizes (see the
// pragma above).
#define GATHER_ROW(T)                                                   \
  static void gather_##T(const T *src, const int32_t *index,           \
                         size_t count, T *dst) {                       \
    for (size_t k = 0; k < count; ++k) {                                \
      dst[k] = src[index[k]];                                           \
    }                                                                   \
  }                                                                     \
  static void duplicate_##T(const T *src, size_t count, T *dst) {      \
    for (size_t k = 0; k < count; ++k) {                                \
      dst[2 * k] = src[k];                                              \
      dst[2 * k + 1] = src[k];                                          \
    }                                                                   \
  }
GATHER_ROW(uint8_t)
GATHER_ROW(uint16_t)
GATHER_ROW(uint64_t)
#undef GATHER_ROW

typedef struct nearest_state {
  const etr_resample_kernels_t *k;
  const etr_resample_axis_t *rows;
  const int32_t *columns;
  size_t element;  // bytes
} nearest_state_t;

// One NCHW output row gathered from input row `source` (`columns`: the
// source column of each output).
static void nearest_row(const nearest_state_t *st, const layout_t *l,
                        const uint8_t *source, uint8_t *target) {
  switch (st->element) {
    case 4:
      if (l->ow == 2 * l->w) {
        st->k->duplicate_row((const float *)source, l->w, (float *)target);
      } else {
        st->k->gather_row((const float *)source, st->columns, l->ow,
                          (float *)target);
      }
      break;
    case 1:
      if (l->ow == 2 * l->w) {
        duplicate_uint8_t(source, l->w, target);
      } else {
        gather_uint8_t(source, st->columns, l->ow, target);
      }
      break;
    case 2:
      if (l->ow == 2 * l->w) {
        duplicate_uint16_t((const uint16_t *)source, l->w,
                           (uint16_t *)target);
      } else {
        gather_uint16_t((const uint16_t *)source, st->columns, l->ow,
                        (uint16_t *)target);
      }
      break;
    default:
      if (l->ow == 2 * l->w) {
        duplicate_uint64_t((const uint64_t *)source, l->w,
                           (uint64_t *)target);
      } else {
        gather_uint64_t((const uint64_t *)source, st->columns, l->ow,
                        (uint64_t *)target);
      }
      break;
  }
}

// `images` NCHW planes or NHWC images of any element size, x into y.
static void nearest_images(const nearest_state_t *st, const layout_t *l,
                           const uint8_t *x, size_t images, uint8_t *y) {
  const int32_t *columns = st->columns;
  size_t pixel = (l->channels_last ? l->c : 1) * st->element;  // bytes
  size_t row = l->ow * pixel;  // bytes per output row
  for (size_t image = 0; image < images; ++image) {
    const uint8_t *plane = x + image * l->h * l->w * pixel;
    uint8_t *target = y + image * l->oh * row;
    int64_t previous = -1;
    for (size_t oh = 0; oh < l->oh; ++oh, target += row) {
      int64_t ih = etr_resample_nearest_index(st->rows, (int64_t)oh);
      const uint8_t *source = plane + (size_t)ih * l->w * pixel;
      if (ih == previous) {
        memcpy(target, target - row, row);
      } else if (l->channels_last) {
        for (size_t ow = 0; ow < l->ow; ++ow) {
          memcpy(target + ow * pixel, source + (size_t)columns[ow] * pixel,
                 pixel);
        }
      } else if (l->ow == l->w) {
        memcpy(target, source, l->w * pixel);
      } else {
        nearest_row(st, l, source, target);
      }
      previous = ih;
    }
  }
}

bool etr_upsample_nearest2d_run(etr_kernel_context_t *ctx,
                                const etr_tensor_t *input,
                                const etr_resample_axis_t *axes,
                                etr_tensor_t *out) {
  layout_t l;
  int32_t stack[kStackColumns];
  if (!layout_of(input, out, true, &l)) {
    return false;
  }
  int32_t *columns = tables(ctx, l.ow * sizeof(int32_t), stack,
                            sizeof(stack));
  if (columns == NULL) {
    return false;
  }
  for (size_t ow = 0; ow < l.ow; ++ow) {
    columns[ow] = (int32_t)etr_resample_nearest_index(&axes[1], (int64_t)ow);
  }
  const nearest_state_t state = {etr_resample_kernels_for(etr_isa_active()),
                                 &axes[0], columns,
                                 etr_scalar_type_size(input->dtype)};
  size_t images = l.channels_last ? l.n : l.n * l.c;
  nearest_images(&state, &l, input->data, images, out->data);
  return true;
}

typedef struct bilinear_state {
  const etr_resample_kernels_t *k;
  const layout_t *l;
  const etr_resample_tap_t *rows;
  const int32_t *i0, *i1;
  const float *l0, *l1;
  float *cache;  // NULL, or room for h x ow floats (see below)
} bilinear_state_t;

// One NCHW plane with the table's interp_rows and blend_rows: the
// horizontal taps of every input row first (`cache`, h x ow floats; each
// block of columns worked out once for all the rows), then each output
// row blends two of them: the values of bilinear_row bit for bit, each
// input row's taps computed once instead of once per output row that
// reads it. 2x upsampling of [1, 64, 56, 56], AMD Zen 5 (old and new
// builds alternated 3 rounds): 202-241 us -> 75-77 us (166-170 with a
// cache of two rows, the blocks worked out per row).
static void bilinear_plane_cached(const bilinear_state_t *st,
                                  const float *plane, float *target) {
  const layout_t *l = st->l;
  st->k->interp_rows(plane, l->w, l->h, st->i0, st->i1, st->l0, st->l1,
                     l->ow, st->cache);
  for (size_t oh = 0; oh < l->oh; ++oh, target += l->ow) {
    etr_resample_tap_t t = st->rows[oh];
    st->k->blend_rows(st->cache + (size_t)t.i0 * l->ow,
                      st->cache + (size_t)t.i1 * l->ow, t.l0, t.l1, l->ow,
                      target);
  }
}

// `images` NCHW planes or NHWC images of fp32 data, x into y; also the
// etr_stage_fn_t of a staged Half or BFloat16 call (a chunk of images).
static bool bilinear_images(void *state, size_t first, size_t images,
                            const float *x, float *y) {
  (void)first;
  const bilinear_state_t *st = (const bilinear_state_t *)state;
  const layout_t *l = st->l;
  size_t pixel = l->channels_last ? l->c : 1;
  size_t row = l->ow * pixel;
  for (size_t image = 0; image < images; ++image) {
    const float *plane = x + image * l->h * l->w * pixel;
    float *target = y + image * l->oh * row;
    if (st->cache != NULL && !l->channels_last) {
      bilinear_plane_cached(st, plane, target);
      continue;
    }
    for (size_t oh = 0; oh < l->oh; ++oh, target += row) {
      etr_resample_tap_t t = st->rows[oh];
      const float *r0 = plane + (size_t)t.i0 * l->w * pixel;
      const float *r1 = plane + (size_t)t.i1 * l->w * pixel;
      if (!l->channels_last) {
        st->k->bilinear_row(r0, r1, t.l0, t.l1, st->i0, st->i1, st->l0,
                            st->l1, l->ow, target);
        continue;
      }
      for (size_t ow = 0; ow < l->ow; ++ow) {
        size_t a = (size_t)st->i0[ow] * pixel;
        size_t b = (size_t)st->i1[ow] * pixel;
        st->k->bilinear_pixel(r0 + a, r0 + b, r1 + a, r1 + b, t.l0, t.l1,
                              st->l0[ow], st->l1[ow], pixel,
                              target + ow * pixel);
      }
    }
  }
  return true;
}

bool etr_upsample_bilinear2d_run(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *input,
                                 const etr_resample_axis_t *axes,
                                 bool align_corners, etr_tensor_t *out) {
  layout_t l;
  _Alignas(16) uint8_t stack[kStackColumns * 16];
  if (!layout_of(input, out, false, &l)) {
    return false;
  }
  // The column taps as four arrays, then the row taps, each computed once
  // (per call, not per image: 64 channels of 112 rows spent ~100 us in
  // the reference's tap arithmetic).
  uint8_t *buffer = tables(ctx, l.ow * 16 + l.oh * sizeof(etr_resample_tap_t),
                           stack, sizeof(stack));
  if (buffer == NULL) {
    return false;
  }
  int32_t *i0 = (int32_t *)buffer;
  int32_t *i1 = i0 + l.ow;
  float *l0 = (float *)(i1 + l.ow);
  float *l1 = l0 + l.ow;
  etr_resample_tap_t *rows = (etr_resample_tap_t *)(l1 + l.ow);
  for (size_t ow = 0; ow < l.ow; ++ow) {
    etr_resample_tap_t t =
        etr_resample_linear_tap(&axes[1], align_corners, (int64_t)ow);
    i0[ow] = (int32_t)t.i0;
    i1[ow] = (int32_t)t.i1;
    l0[ow] = t.l0;
    l1[ow] = t.l1;
  }
  for (size_t oh = 0; oh < l.oh; ++oh) {
    rows[oh] = etr_resample_linear_tap(&axes[0], align_corners, (int64_t)oh);
  }
  // Every input row's taps, for the kernels that split bilinear_row in
  // two, when the output has at least as many rows (each input row is
  // read) and they fit.
  static _Thread_local float cache[kCachedTaps];
  const etr_resample_kernels_t *k = etr_resample_kernels_for(etr_isa_active());
  const bool cached = k->interp_rows != NULL && k->blend_rows != NULL &&
                      !l.channels_last && l.oh >= l.h &&
                      l.h * l.ow <= kCachedTaps;
  bilinear_state_t state = {k,  &l, rows, i0, i1, l0, l1,
                            cached ? cache : NULL};
  size_t images = l.channels_last ? l.n : l.n * l.c;
  if (input->dtype == ETR_FLOAT) {
    return bilinear_images(&state, 0, images, (const float *)input->data,
                           (float *)out->data);
  }
  // Half and BFloat16: chunks of images staged through fp32 in ctx->temp
  // (false, with nothing written, without room there for one).
  size_t pixel = l.channels_last ? l.c : 1;
  return etr_stage_through_f32(ctx->temp, input->dtype, images,
                               l.h * l.w * pixel, l.oh * l.ow * pixel,
                               input->data, out->data, bilinear_images,
                               &state);
}
