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

bool etr_move_in_range_scalar(const void *entries, bool is_long,
                              size_t count, int64_t low, int64_t size) {
  for (size_t k = 0; k < count; ++k) {
    int64_t value = is_long ? ((const int64_t *)entries)[k]
                            : ((const int32_t *)entries)[k];
    if (value < low || value >= size) {
      return false;
    }
  }
  return true;
}

etr_move_in_range_fn etr_move_in_range_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_move_in_range_avx512;
    case ETR_ISA_AVX2:
      return etr_move_in_range_avx2;
#endif
    default:
      return etr_move_in_range_scalar;
  }
}

bool etr_move_indices_in_range(const etr_tensor_t *index, int64_t size,
                               bool wrap) {
  int64_t count = etr_numel(index);
  int64_t low = wrap ? -size : 0;
  if (etr_tensor_is_contiguous(index)) {
    return etr_move_in_range_for(etr_isa_active())(
        index->data, index->dtype == ETR_LONG, (size_t)count, low, size);
  }
  for (int64_t k = 0; k < count; ++k) {
    int64_t value = etr_move_index_at(index, k);
    if (value < low || value >= size) {
      return false;
    }
  }
  return true;
}

// One typed loop per (element type, index type): the dtype and size
// switches stay out of the per-element work.
#define GATHER_LOOP(type, index_type)                                       \
  do {                                                                      \
    type *out = (type *)dst;                                                \
    const type *in = (const type *)src;                                     \
    const index_type *entries = (const index_type *)index;                  \
    for (int64_t i = 0; i < count; ++i) {                                   \
      int64_t position = (int64_t)entries[i * index_step];                  \
      position += position < 0 ? wrap_size : 0;                             \
      memcpy(&out[i * dst_step], &in[i * src_step + position * src_along], \
             sizeof(type));                                                 \
    }                                                                       \
  } while (0)

#define GATHER_BY_INDEX(type)                 \
  do {                                        \
    if (index_dtype == ETR_LONG) {            \
      GATHER_LOOP(type, int64_t);             \
    } else {                                  \
      GATHER_LOOP(type, int32_t);             \
    }                                         \
  } while (0)

void etr_move_gather_elements(size_t element_size,
                              etr_scalar_type_t index_dtype, int64_t count,
                              void *dst, int64_t dst_step, const void *src,
                              int64_t src_step, int64_t src_along,
                              const void *index, int64_t index_step,
                              int64_t wrap_size) {
  switch (element_size) {
    case 1:
      GATHER_BY_INDEX(uint8_t);
      return;
    case 2:
      GATHER_BY_INDEX(uint16_t);
      return;
    case 4:
      GATHER_BY_INDEX(uint32_t);
      return;
    case 8:
      GATHER_BY_INDEX(uint64_t);
      return;
    default:
      for (int64_t i = 0; i < count; ++i) {
        int64_t position = index_dtype == ETR_LONG
                               ? ((const int64_t *)index)[i * index_step]
                               : ((const int32_t *)index)[i * index_step];
        position += position < 0 ? wrap_size : 0;
        memcpy((char *)dst + (size_t)(i * dst_step) * element_size,
               (const char *)src +
                   (size_t)(i * src_step + position * src_along) *
                       element_size,
               element_size);
      }
      return;
  }
}

// One memcpy per row from a dense index of `index_type` entries (an
// embedding lookup): no dtype test or offset arithmetic per row around
// the copy.
#define GATHER_ROWS(index_type)                                          \
  do {                                                                   \
    const index_type *entries = (const index_type *)index->data;         \
    for (int64_t k = 0; k < count; ++k) {                                \
      int64_t position = (int64_t)entries[k];                            \
      position += position < 0 ? wrap_size : 0;                          \
      memcpy(dst + (size_t)k * row_bytes,                                \
             block + (size_t)position * row_bytes, row_bytes);           \
    }                                                                    \
  } while (0)

// Copies rows of `row_bytes`: dst row (o, k) = src row (o, index(k)) for
// dense [outer, count, row] and [outer, size, row] arrays. Single-element
// rows (a selection along the innermost dim) use the typed element loop.
static void gather_rows(const etr_tensor_t *index, bool wrap, int64_t outer,
                        int64_t size, size_t row_bytes, char *dst,
                        const char *src) {
  int64_t count = etr_numel(index);
  bool contiguous = etr_tensor_is_contiguous(index);
  int64_t wrap_size = wrap ? size : 0;
  bool element = row_bytes == 1 || row_bytes == 2 || row_bytes == 4 ||
                 row_bytes == 8;
  for (int64_t o = 0; o < outer; ++o) {
    const char *block = src + (size_t)(o * size) * row_bytes;
    if (element && contiguous) {
      etr_move_gather_elements(row_bytes, index->dtype, count, dst, 1, block,
                               0, 1, index->data, 1, wrap_size);
      dst += (size_t)count * row_bytes;
      continue;
    }
    if (contiguous) {
      if (index->dtype == ETR_LONG) {
        GATHER_ROWS(int64_t);
      } else {
        GATHER_ROWS(int32_t);
      }
      dst += (size_t)count * row_bytes;
      continue;
    }
    for (int64_t k = 0; k < count; ++k) {
      int64_t position = etr_move_index_at(index, k);
      position += position < 0 ? wrap_size : 0;
      memcpy(dst, block + (size_t)position * row_bytes, row_bytes);
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
