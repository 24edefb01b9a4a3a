// SPDX-License-Identifier: Apache-2.0
//
// The scatter family on the movement engine (see movement.h): out = self
// (one engine move, skipped in place), then one pass over the index in
// row-major order applying each entry to its target -- O(numel(index))
// where the reference visits every element of self and walks index along
// `dim` for each (O(numel(self) * index.size(dim))). For one target the
// row-major pass meets its entries in increasing order along `dim`, the
// reference's (and ATen's) order, so the last write wins for assignment
// and sums, products, maxima round step by step exactly as there: Float
// in fp32 (a float sum or product rounded once from double is the fp32
// operation), Long wrapping. Half and BFloat16 reduce in an fp32 copy of
// out in ctx->temp, converted back once at the end: ATen's (and the
// reference's) float accumulation buffer, step for step. With include_self
// = false a first pass sets every target to the reduction's identity, as
// the reference starts its accumulator there.
#include <math.h>
#include <string.h>

#include "core/scalar_type.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/movement_scatter.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

static float combine_f32(etr_movement_reduce_t reduce, float acc, float v) {
  switch (reduce) {
    case ETR_MOVEMENT_SUM:
      return acc + v;
    case ETR_MOVEMENT_PROD:
      return acc * v;
    case ETR_MOVEMENT_AMAX:  // std::max(self, src), a NaN src wins
      return isnan(v) ? v : (acc < v ? v : acc);
    case ETR_MOVEMENT_AMIN:
      return isnan(v) ? v : (v < acc ? v : acc);
    default:
      return v;
  }
}

static int64_t combine_i64(etr_movement_reduce_t reduce, int64_t acc,
                           int64_t v) {
  switch (reduce) {
    case ETR_MOVEMENT_SUM:
      return (int64_t)((uint64_t)acc + (uint64_t)v);
    case ETR_MOVEMENT_PROD:
      return (int64_t)((uint64_t)acc * (uint64_t)v);
    case ETR_MOVEMENT_AMAX:
      return acc < v ? v : acc;
    case ETR_MOVEMENT_AMIN:
      return v < acc ? v : acc;
    default:
      return v;
  }
}

// Applies one update of `element_size` bytes at `target` from `source`.
static inline void apply(etr_scalar_type_t dtype, size_t element_size,
                         etr_movement_reduce_t reduce, char *target,
                         const char *source) {
  if (reduce == ETR_MOVEMENT_ASSIGN) {
    switch (element_size) {
      case 4:
        memcpy(target, source, 4);
        return;
      case 8:
        memcpy(target, source, 8);
        return;
      default:
        memcpy(target, source, element_size);
        return;
    }
  }
  if (dtype == ETR_FLOAT) {
    float acc;
    float v;
    memcpy(&acc, target, 4);
    memcpy(&v, source, 4);
    acc = combine_f32(reduce, acc, v);
    memcpy(target, &acc, 4);
  } else {
    int64_t acc;
    int64_t v;
    memcpy(&acc, target, 8);
    memcpy(&v, source, 8);
    acc = combine_i64(reduce, acc, v);
    memcpy(target, &acc, 8);
  }
}

// The identity the reference starts a reduction from without self.
static void identity(etr_scalar_type_t dtype, etr_movement_reduce_t reduce,
                     void *element) {
  if (dtype == ETR_FLOAT) {
    float value = reduce == ETR_MOVEMENT_PROD   ? 1.0f
                  : reduce == ETR_MOVEMENT_AMAX ? -INFINITY
                  : reduce == ETR_MOVEMENT_AMIN ? INFINITY
                                                : 0.0f;
    memcpy(element, &value, 4);
  } else {
    int64_t value = reduce == ETR_MOVEMENT_PROD   ? 1
                    : reduce == ETR_MOVEMENT_AMAX ? INT64_MIN
                    : reduce == ETR_MOVEMENT_AMIN ? INT64_MAX
                                                  : 0;
    memcpy(element, &value, 8);
  }
}

// A Half or BFloat16 element as fp32 (exact).
static float narrow_to_f32(etr_scalar_type_t dtype, const void *element) {
  uint16_t bits;
  memcpy(&bits, element, 2);
  return dtype == ETR_HALF ? etr_half_to_float(bits)
                           : etr_bfloat16_to_float(bits);
}

bool etr_move_scatter(etr_arena_t *temp, etr_tensor_t *out,
                      const etr_tensor_t *self, int32_t dim,
                      const etr_tensor_t *index, const etr_tensor_t *src,
                      const void *value, etr_movement_reduce_t reduce,
                      bool include_self) {
  bool arithmetic = reduce != ETR_MOVEMENT_ASSIGN;
  // Half/BFloat16 arithmetic: in an fp32 copy of a dense out.
  bool staged = arithmetic && (self->dtype == ETR_HALF ||
                               self->dtype == ETR_BFLOAT16);
  if (reduce == ETR_MOVEMENT_MEAN ||
      (arithmetic && !staged && self->dtype != ETR_FLOAT &&
       self->dtype != ETR_LONG) ||
      (staged && (temp == NULL || !etr_tensor_is_dense(out))) ||
      out->dtype != self->dtype ||
      (src != NULL && src->dtype != self->dtype) ||
      etr_move_overlaps(out, self) ||
      (src != NULL &&
       (etr_move_overlaps(out, src) || out->data == src->data)) ||
      etr_move_overlaps(out, index) || out->data == index->data) {
    return false;
  }
  etr_tensor_t self_view;
  etr_tensor_t out_view;
  etr_tensor_t index_view;
  etr_tensor_t src_view;
  etr_movement_nonempty_view(self, &self_view);
  etr_movement_nonempty_view(out, &out_view);
  etr_movement_nonempty_view(index, &index_view);
  if (src != NULL) {
    etr_movement_nonempty_view(src, &src_view);
  }
  int64_t count = etr_numel(index);
  if (count > 0 &&
      !etr_move_indices_in_range(index, self_view.sizes[dim], false)) {
    return false;  // the reference reports the bad entry
  }
  float *acc = NULL;  // the fp32 copy of a staged out
  size_t numel = (size_t)etr_numel(out);
  etr_arena_mark_t mark = {0};
  if (staged && count > 0) {
    mark = etr_arena_mark(temp);
    acc = (float *)etr_arena_alloc(temp, numel * sizeof(float), 64);
    if (acc == NULL) {
      return false;
    }
  }
  etr_move_tensor(out, self);
  if (count == 0) {
    return true;
  }
  if (staged) {
    etr_convert_to_f32(out->dtype, numel, out->data, acc);
  }
  size_t element_size = etr_scalar_type_size(out->dtype);
  // Where the updates land: out itself, or its fp32 copy (same element
  // offsets: out is dense).
  char *base = staged ? (char *)acc : (char *)out->data;
  size_t target_size = staged ? sizeof(float) : element_size;
  etr_scalar_type_t target_dtype = staged ? ETR_FLOAT : out->dtype;
  // Row by row along the index's last dim: the offsets of a row's first
  // entry from its position, then fixed steps (a function of the position
  // per entry cost more than the update). Positions in row-major order, so
  // the updates keep the reference's order.
  int32_t rank = index_view.dim;
  int32_t last = rank - 1;
  int64_t row_length = index_view.sizes[last];
  int64_t rows = count / row_length;
  int64_t index_step = index_view.strides[last];
  int64_t out_step = last == dim ? 0 : out_view.strides[last];
  int64_t src_step = src != NULL ? src_view.strides[last] : 0;
  int64_t along = out_view.strides[dim];
  bool long_index = index->dtype == ETR_LONG;
  for (int pass = include_self || !arithmetic ? 1 : 0; pass < 2; ++pass) {
    int64_t position[ETR_MAX_DIMS] = {0};
    for (int64_t row = 0; row < rows; ++row) {
      int64_t index_offset = 0;
      int64_t out_offset = 0;
      int64_t src_offset = 0;
      for (int32_t d = 0; d < last; ++d) {
        index_offset += position[d] * index_view.strides[d];
        if (d != dim) {
          out_offset += position[d] * out_view.strides[d];
        }
        if (src != NULL) {
          src_offset += position[d] * src_view.strides[d];
        }
      }
      for (int64_t j = 0; j < row_length; ++j) {
        int64_t at = index_offset + j * index_step;
        int64_t target =
            long_index ? ((const int64_t *)index->data)[at]
                       : (int64_t)((const int32_t *)index->data)[at];
        char *element = base + (out_offset + j * out_step + target * along) *
                                   (int64_t)target_size;
        if (pass == 0) {
          identity(target_dtype, reduce, element);
          continue;
        }
        const char *source =
            src != NULL ? (const char *)src->data +
                              (src_offset + j * src_step) *
                                  (int64_t)element_size
                        : (const char *)value;
        float widened;
        if (staged) {
          widened = narrow_to_f32(out->dtype, source);
          source = (const char *)&widened;
        }
        apply(target_dtype, target_size, reduce, element, source);
      }
      for (int32_t d = last - 1; d >= 0; --d) {
        if (++position[d] < index_view.sizes[d]) {
          break;
        }
        position[d] = 0;
      }
    }
  }
  if (staged) {
    etr_convert_from_f32(out->dtype, numel, acc, out->data);
    etr_arena_rewind(temp, mark);
  }
  return true;
}
