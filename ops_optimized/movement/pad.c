// SPDX-License-Identifier: Apache-2.0
//
// Reflection and replication padding on the movement engine (see
// movement.h): each padded dim of out splits into three ranges -- before
// the input (the `before` pad), the input itself, after it -- and every
// combination of ranges over the padded dims (at most 3^3 = 27 boxes) is
// one etr_move_strided call whose source is self read with a per-dim start
// and step: +1 over the input range, -1 over a reflected edge (ATen's
// 2p - j), 0 over a replicated one (the edge element broadcast). So the
// input range moves as whole rows (memcpy), replicated edges run the fill
// microkernel, and only reflected edges go element by element; any
// strides on either side. The index rule is the reference's
// (ops_reference/support/movement_pad.h), evaluated at both ends of every
// range and checked to stay inside the input before anything is written.
#include "ops_optimized/movement/movement.h"

#include "ops_reference/support/shape.h"

// ATen's PaddingType::index plus the crop offset (movement_pad.c).
static int64_t source_index(bool reflect, int64_t j, int64_t size,
                            int64_t pad) {
  int64_t i = 0;
  if (j < pad) {
    i = reflect ? pad * 2 - j : pad;
  } else if (j < size + pad) {
    i = j;
  } else {
    i = reflect ? (size + pad - 1) * 2 - j : size + pad - 1;
  }
  int64_t crop = pad < 0 ? -pad : 0;
  int64_t shift = pad > 0 ? pad : 0;
  return i + crop - shift;
}

static int64_t clamp(int64_t value, int64_t low, int64_t high) {
  return value < low ? low : value > high ? high : value;
}

typedef struct pad_range {
  int64_t out_start;  // first out index
  int64_t count;
  int64_t source;     // input index of the first
  int64_t step;       // input step per out index: 1, -1 or 0
} pad_range_t;

bool etr_move_pad(etr_tensor_t *out, const etr_tensor_t *self,
                  const int64_t *padding, int32_t spatial_dims,
                  bool reflect) {
  if (spatial_dims < 1 || spatial_dims > 3 || self->dim < spatial_dims ||
      out->dim != self->dim || etr_numel(out) == 0) {
    return etr_numel(out) == 0;  // nothing to write
  }
  pad_range_t ranges[3][3];
  int32_t first_spatial = self->dim - spatial_dims;
  for (int32_t k = 0; k < spatial_dims; ++k) {
    int32_t d = self->dim - 1 - k;
    int64_t size = self->sizes[d];
    int64_t pad = padding[2 * k];
    int64_t out_size = out->sizes[d];
    int64_t bounds[4] = {0, clamp(pad, 0, out_size),
                         clamp(size + pad, 0, out_size), out_size};
    int64_t edge_step = reflect ? -1 : 0;
    int64_t steps[3] = {edge_step, 1, edge_step};
    for (int r = 0; r < 3; ++r) {
      pad_range_t *range = &ranges[d - first_spatial][r];
      range->out_start = bounds[r];
      range->count = bounds[r + 1] - bounds[r];
      range->step = steps[r];
      range->source = 0;
      if (range->count <= 0) {
        range->count = 0;
        continue;
      }
      int64_t last = bounds[r + 1] - 1;
      range->source = source_index(reflect, bounds[r], size, pad);
      int64_t last_source = source_index(reflect, last, size, pad);
      // The rule is proven to stay inside the input and to be linear over
      // each range; checked here (cheaply) before anything is written.
      if (range->source < 0 || range->source >= size || last_source < 0 ||
          last_source >= size ||
          last_source != range->source + (last - bounds[r]) * range->step) {
        return false;
      }
    }
  }
  size_t element_size = etr_scalar_type_size(out->dtype);
  int32_t boxes = 1;
  for (int32_t k = 0; k < spatial_dims; ++k) {
    boxes *= 3;
  }
  for (int32_t box = 0; box < boxes; ++box) {
    int64_t sizes[ETR_MAX_DIMS];
    int64_t src_strides[ETR_MAX_DIMS];
    int64_t dst_offset = 0;
    int64_t src_offset = 0;
    bool empty = false;
    int32_t code = box;
    for (int32_t d = 0; d < out->dim; ++d) {
      if (d < first_spatial) {
        sizes[d] = out->sizes[d];
        src_strides[d] = self->strides[d];
        continue;
      }
      const pad_range_t *range = &ranges[d - first_spatial][code % 3];
      code /= 3;
      sizes[d] = range->count;
      empty = empty || range->count == 0;
      src_strides[d] = range->step * self->strides[d];
      dst_offset += range->out_start * out->strides[d];
      src_offset += range->source * self->strides[d];
    }
    if (empty) {
      continue;
    }
    etr_move_strided(
        element_size, out->dim, sizes,
        (char *)out->data + dst_offset * (int64_t)element_size,
        out->strides,
        (const char *)self->data + src_offset * (int64_t)element_size,
        src_strides);
  }
  return true;
}
