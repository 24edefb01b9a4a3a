// SPDX-License-Identifier: Apache-2.0
//
// Index-taking moves (see movement.h): reading Long/Int index tensors in
// row-major order, range checks, and the row gather behind index_select,
// embedding, index.Tensor and index_put. Portable C: a gathered row is a
// memcpy (an embedding row, a slice along dim 0) or one typed element (a
// selection along the innermost dim).
#include <string.h>

#include "ops_optimized/movement/movement.h"
#include "ops_reference/support/shape.h"

static inline int64_t load_index(const etr_tensor_t *index, int64_t offset) {
  if (index->dtype == ETR_LONG) {
    return ((const int64_t *)index->data)[offset];
  }
  return ((const int32_t *)index->data)[offset];
}

int64_t etr_move_index_at(const etr_tensor_t *index, int64_t k) {
  int64_t offset = 0;
  for (int32_t d = index->dim - 1; d >= 0; --d) {
    offset += (k % index->sizes[d]) * index->strides[d];
    k /= index->sizes[d];
  }
  return load_index(index, offset);
}

bool etr_move_indices_in_range(const etr_tensor_t *index, int64_t size,
                               bool wrap) {
  int64_t count = etr_numel(index);
  int64_t low = wrap ? -size : 0;
  bool contiguous = etr_tensor_is_contiguous(index);
  for (int64_t k = 0; k < count; ++k) {
    int64_t value = contiguous ? load_index(index, k)
                               : etr_move_index_at(index, k);
    if (value < low || value >= size) {
      return false;
    }
  }
  return true;
}

// Copies rows of `row_bytes`: dst row (o, k) = src row (o, index(k)) for
// dense [outer, count, row] and [outer, size, row] arrays.
static void gather_rows(const etr_tensor_t *index, bool wrap, int64_t outer,
                        int64_t size, size_t row_bytes, char *dst,
                        const char *src) {
  int64_t count = etr_numel(index);
  bool contiguous = etr_tensor_is_contiguous(index);
  for (int64_t o = 0; o < outer; ++o) {
    const char *block = src + (size_t)(o * size) * row_bytes;
    for (int64_t k = 0; k < count; ++k) {
      int64_t position = contiguous ? load_index(index, k)
                                    : etr_move_index_at(index, k);
      position += wrap && position < 0 ? size : 0;
      const char *row = block + (size_t)position * row_bytes;
      switch (row_bytes) {  // single elements: one typed move
        case 1:
          *dst = *row;
          break;
        case 2:
          memcpy(dst, row, 2);
          break;
        case 4:
          memcpy(dst, row, 4);
          break;
        case 8:
          memcpy(dst, row, 8);
          break;
        default:
          memcpy(dst, row, row_bytes);
          break;
      }
      dst += row_bytes;
    }
  }
}

void etr_move_index_select(etr_tensor_t *out, const etr_tensor_t *self,
                           int32_t dim, const etr_tensor_t *index,
                           bool wrap) {
  int64_t count = etr_numel(index);
  if (count == 0 || etr_numel(self) == 0) {
    return;
  }
  size_t element_size = etr_scalar_type_size(self->dtype);
  int64_t size = self->sizes[dim];
  if (etr_tensor_is_contiguous(self) && etr_tensor_is_contiguous(out)) {
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < self->dim; ++d) {
      outer *= d < dim ? self->sizes[d] : 1;
      inner *= d > dim ? self->sizes[d] : 1;
    }
    gather_rows(index, wrap, outer, size, (size_t)inner * element_size,
                (char *)out->data, (const char *)self->data);
    return;
  }
  // One slice per entry, through the engine.
  for (int64_t k = 0; k < count; ++k) {
    int64_t position = etr_move_index_at(index, k);
    position += wrap && position < 0 ? size : 0;
    etr_tensor_t source;
    etr_tensor_t target;
    etr_slice_view(self, dim, position, 1, 1, &source);
    etr_slice_view(out, dim, k, 1, 1, &target);
    etr_move_tensor(&target, &source);
  }
}
