// SPDX-License-Identifier: Apache-2.0
//
// The strided byte-move engine (see movement.h): shape simplification,
// the choice between rows, broadcast, transpose, evens, reverse and
// strided loops, and the walk over the remaining outer dims. Portable C;
// the microkernels it calls are picked for etr_isa_active() once per move.
#include <string.h>

#include "ops_optimized/movement/movement.h"
#include "ops_reference/support/shape.h"

// A simplified box: dims of size > 1, byte strides, outermost first.
typedef struct move_shape {
  int32_t dim;
  int64_t sizes[ETR_MOVE_MAX_DIMS];
  int64_t dst[ETR_MOVE_MAX_DIMS];  // bytes
  int64_t src[ETR_MOVE_MAX_DIMS];  // bytes
} move_shape_t;

// Drops size-1 dims, orders dims by decreasing destination stride (so the
// destination is written in memory order) and merges neighbours that are
// contiguous on both sides. Returns false for an empty box.
static bool simplify(size_t element_size, int32_t dim, const int64_t *sizes,
                     const int64_t *dst_strides, const int64_t *src_strides,
                     move_shape_t *shape) {
  int64_t bytes = (int64_t)element_size;
  shape->dim = 0;
  for (int32_t d = 0; d < dim; ++d) {
    if (sizes[d] == 0) {
      return false;
    }
    if (sizes[d] == 1) {
      continue;
    }
    // Insertion sort, stable: equal destination strides keep source order
    // by decreasing source stride.
    int32_t at = shape->dim++;
    int64_t dst = dst_strides[d] * bytes;
    int64_t src = src_strides[d] * bytes;
    while (at > 0 &&
           (shape->dst[at - 1] < dst ||
            (shape->dst[at - 1] == dst && shape->src[at - 1] < src))) {
      shape->sizes[at] = shape->sizes[at - 1];
      shape->dst[at] = shape->dst[at - 1];
      shape->src[at] = shape->src[at - 1];
      --at;
    }
    shape->sizes[at] = sizes[d];
    shape->dst[at] = dst;
    shape->src[at] = src;
  }
  // Merge from the innermost dim outwards into `merged` (innermost first).
  move_shape_t merged;
  int32_t kept = 0;
  for (int32_t d = shape->dim - 1; d >= 0; --d) {
    if (kept > 0) {
      int32_t inner = kept - 1;
      if (shape->dst[d] == merged.dst[inner] * merged.sizes[inner] &&
          shape->src[d] == merged.src[inner] * merged.sizes[inner]) {
        merged.sizes[inner] *= shape->sizes[d];
        continue;
      }
    }
    merged.sizes[kept] = shape->sizes[d];
    merged.dst[kept] = shape->dst[d];
    merged.src[kept] = shape->src[d];
    ++kept;
  }
  for (int32_t i = 0; i < kept; ++i) {
    shape->sizes[i] = merged.sizes[kept - 1 - i];
    shape->dst[i] = merged.dst[kept - 1 - i];
    shape->src[i] = merged.src[kept - 1 - i];
  }
  shape->dim = kept;
  return true;
}

// Removes dim `d` from the shape.
static void drop_dim(move_shape_t *shape, int32_t d) {
  for (int32_t i = d; i + 1 < shape->dim; ++i) {
    shape->sizes[i] = shape->sizes[i + 1];
    shape->dst[i] = shape->dst[i + 1];
    shape->src[i] = shape->src[i + 1];
  }
  --shape->dim;
}

// A dim other than the innermost whose `strides` entry is one element.
static int32_t find_unit(const move_shape_t *shape, const int64_t *strides,
                         int64_t element_size) {
  for (int32_t d = shape->dim - 2; d >= 0; --d) {
    if (strides[d] == element_size) {
      return d;
    }
  }
  return -1;
}

// Rows up to this long move through the rows microkernel, a block of
// them per call; longer ones one memcpy each. constant_pad_nd 1x64x56x56
// +1 (3584 rows of 224 bytes) went 36.6 -> 30.3 us on AVX-512 and 35.5 ->
// 32.4 us on AVX2 (bench_movement, Intel Xeon); rows of 2 KiB (a slice's)
// ran no faster than memcpy.
#define ROW_BLOCK_BYTES 1024

// Chooses the inner loop and leaves only the outer dims in `shape`.
static void plan_move(move_shape_t *shape, size_t element_size,
                      etr_move_plan_t *plan) {
  etr_isa_t isa = etr_isa_active();
  int64_t unit = (int64_t)element_size;
  int32_t inner = shape->dim - 1;
  memset(plan, 0, sizeof(*plan));
  plan->element_size = element_size;
  plan->count = shape->sizes[inner];
  plan->dst_step = shape->dst[inner];
  plan->src_step = shape->src[inner];
  if (shape->dst[inner] == unit && shape->src[inner] == unit) {
    plan->kind = MOVE_ROWS;
    if (inner > 0 && shape->src[inner - 1] == 0 &&
        shape->dst[inner - 1] >= shape->sizes[inner] * unit) {
      // An expanded row: the dim outside it re-reads the same source row
      // (destination rows that do not overlap: the kernel may write them
      // in any order).
      plan->kind = MOVE_REPLICATE;
      plan->replicate = etr_move_replicate_for(isa);
      plan->rows = (size_t)shape->sizes[inner - 1];
      plan->dst_stride = (size_t)shape->dst[inner - 1];
      drop_dim(shape, inner - 1);
      inner = shape->dim - 1;
    } else if (inner > 0 && shape->sizes[inner] * unit <= ROW_BLOCK_BYTES &&
               shape->dst[inner - 1] >= shape->sizes[inner] * unit) {
      // Short rows: the rows microkernel takes the dim outside them too,
      // rather than a memcpy call per row.
      plan->kind = MOVE_ROW_BLOCK;
      plan->copy_rows = etr_move_rows_for(isa);
      plan->rows = (size_t)shape->sizes[inner - 1];
      plan->dst_stride = (size_t)shape->dst[inner - 1];
      plan->src_step = shape->src[inner - 1];
      drop_dim(shape, inner - 1);
      inner = shape->dim - 1;
    }
  } else if (shape->dst[inner] == unit && shape->src[inner] == 0) {
    plan->kind = MOVE_BROADCAST;
    plan->fill = etr_move_fill_for(isa);
  } else {
    plan->kind = MOVE_STRIDED;
    etr_move_transpose_fn transpose = etr_move_transpose_for(isa,
                                                             element_size);
    int32_t other = -1;
    if (transpose != NULL && shape->dst[inner] == unit &&
        shape->src[inner] > 0 &&
        (other = find_unit(shape, shape->src, unit)) >= 0 &&
        shape->dst[other] > 0) {
      // Source unit-stride along `other`, destination along `inner`.
      plan->rows = (size_t)shape->sizes[inner];
      plan->columns = (size_t)shape->sizes[other];
      plan->src_stride = (size_t)shape->src[inner];
      plan->dst_stride = (size_t)shape->dst[other];
    } else if (transpose != NULL && shape->src[inner] == unit &&
               shape->dst[inner] > 0 &&
               (other = find_unit(shape, shape->dst, unit)) >= 0 &&
               shape->src[other] > 0) {
      plan->rows = (size_t)shape->sizes[other];
      plan->columns = (size_t)shape->sizes[inner];
      plan->src_stride = (size_t)shape->src[other];
      plan->dst_stride = (size_t)shape->dst[inner];
    } else {
      other = -1;
    }
    if (other >= 0) {
      plan->kind = MOVE_TRANSPOSE;
      plan->transpose = transpose;
      drop_dim(shape, other);
      inner = shape->dim - 1;
    } else if (shape->dst[inner] == unit && shape->src[inner] == 2 * unit &&
               (plan->evens = etr_move_evens_for(isa, element_size)) !=
                   NULL) {
      plan->kind = MOVE_EVENS;  // every other element of the source
    } else if (shape->dst[inner] == unit && shape->src[inner] == -unit &&
               (plan->reverse = etr_move_reverse_for(isa, element_size)) !=
                   NULL) {
      plan->kind = MOVE_REVERSE;  // a flipped innermost dim
    }
  }
  drop_dim(shape, inner);
}

etr_move_reverse_fn etr_move_reverse_for(etr_isa_t isa,
                                         size_t element_size) {
  if (element_size != 4 && element_size != 8) {
    return NULL;
  }
  const bool wide = element_size == 8;
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return wide ? etr_move_reverse_x64_avx512 : etr_move_reverse_x32_avx512;
    case ETR_ISA_AVX2:
      return wide ? etr_move_reverse_x64_avx2 : etr_move_reverse_x32_avx2;
#endif
    default:
      return NULL;
  }
}

etr_move_expand_fn etr_move_expand_for(etr_isa_t isa, size_t element_size) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX512 && (element_size == 4 || element_size == 8)) {
    return element_size == 8 ? etr_move_expand_x64_avx512
                             : etr_move_expand_x32_avx512;
  }
#else
  (void)isa;
  (void)element_size;
#endif
  return NULL;
}

size_t etr_move_count_trues(const uint8_t *mask, size_t count) {
#if defined(__x86_64__)
  if (etr_isa_active() == ETR_ISA_AVX512) {
    return etr_move_count_trues_avx512(mask, count);
  }
#endif
  size_t trues = 0;
  for (size_t i = 0; i < count; ++i) {
    trues += mask[i] != 0;
  }
  return trues;
}

// Copies `count` elements of `size` bytes between strided positions.
static void strided_row(char *dst, int64_t dst_step, const char *src,
                        int64_t src_step, int64_t count, size_t size) {
  switch (size) {
#define STRIDED_CASE(bytes, type)                                   \
  case bytes:                                                       \
    for (int64_t i = 0; i < count; ++i) {                           \
      type value;                                                   \
      memcpy(&value, src + i * src_step, sizeof(type));             \
      memcpy(dst + i * dst_step, &value, sizeof(type));             \
    }                                                               \
    return;
    STRIDED_CASE(1, uint8_t)
    STRIDED_CASE(2, uint16_t)
    STRIDED_CASE(4, uint32_t)
    STRIDED_CASE(8, uint64_t)
#undef STRIDED_CASE
    default:
      for (int64_t i = 0; i < count; ++i) {
        memcpy(dst + i * dst_step, src + i * src_step, size);
      }
      return;
  }
}

static void run_inner(const etr_move_plan_t *plan, char *dst, const char *src) {
  switch (plan->kind) {
    case MOVE_ROWS:
      etr_move_copy(dst, src, (size_t)plan->count * plan->element_size);
      return;
    case MOVE_BROADCAST:
      plan->fill(dst, (size_t)plan->count, plan->element_size, src);
      return;
    case MOVE_REPLICATE:
      plan->replicate(dst, plan->dst_stride, plan->rows, src,
                      (size_t)plan->count * plan->element_size);
      return;
    case MOVE_ROW_BLOCK:
      plan->copy_rows(dst, plan->dst_stride, src, (ptrdiff_t)plan->src_step,
                      plan->rows, (size_t)plan->count * plan->element_size);
      return;
    case MOVE_TRANSPOSE:
      plan->transpose(plan->rows, plan->columns, src, plan->src_stride, dst,
                      plan->dst_stride);
      return;
    case MOVE_EVENS:
      plan->evens(dst, src, (size_t)plan->count);
      return;
    case MOVE_REVERSE:
      plan->reverse(dst, src, (size_t)plan->count);
      return;
    case MOVE_STRIDED:
    default:
      strided_row(dst, plan->dst_step, src, plan->src_step, plan->count,
                  plan->element_size);
      return;
  }
}

// The element count of the box when both sides are row-major with no gaps
// (size-1 dims ignored), else -1. The common move of a small tensor (a
// clone, a slice of whole rows, a reshape) is this one memcpy; checking
// for it costs less than simplify()'s sort and merge.
static int64_t dense_count(int32_t dim, const int64_t *sizes,
                           const int64_t *dst_strides,
                           const int64_t *src_strides) {
  int64_t expected = 1;
  for (int32_t d = dim - 1; d >= 0; --d) {
    if (sizes[d] != 1 &&
        (dst_strides[d] != expected || src_strides[d] != expected)) {
      return -1;
    }
    expected *= sizes[d];
  }
  return expected;
}

// Works out a move into *kept (its mark untouched); false when its outer
// dims are more than ETR_MOVE_KEPT_DIMS, with *shape and *plan still the
// full move (kind PLAN) for the caller to run.
static bool plan_strided(size_t element_size, int32_t dim,
                         const int64_t *sizes, const void *dst,
                         const int64_t *dst_strides, const void *src,
                         const int64_t *src_strides, move_shape_t *shape,
                         etr_move_kept_t *kept) {
  kept->kind = ETR_MOVE_KEPT_NOTHING;
  int64_t count = dense_count(dim, sizes, dst_strides, src_strides);
  if (count >= 0) {
    if (count > 0 && dst != src) {
      kept->kind = ETR_MOVE_KEPT_COPY;
      kept->bytes = (size_t)count * element_size;
    }
    return true;
  }
  if (!simplify(element_size, dim, sizes, dst_strides, src_strides, shape)) {
    return true;  // no elements
  }
  if (shape->dim == 0) {  // one element
    if (dst != src) {
      kept->kind = ETR_MOVE_KEPT_COPY;
      kept->bytes = element_size;
    }
    return true;
  }
  bool same = dst == src;
  for (int32_t d = 0; d < shape->dim && same; ++d) {
    same = shape->dst[d] == shape->src[d];
  }
  if (same) {
    return true;  // every element onto itself
  }
  plan_move(shape, element_size, &kept->plan);
  kept->kind = ETR_MOVE_KEPT_PLAN;
  kept->dim = shape->dim;
  if (shape->dim > ETR_MOVE_KEPT_DIMS) {
    return false;
  }
  for (int32_t d = 0; d < shape->dim; ++d) {
    kept->sizes[d] = shape->sizes[d];
    kept->dst[d] = shape->dst[d];
    kept->src[d] = shape->src[d];
  }
  return true;
}

// The plan's inner loop over the outer dims (`dim` of them), destination
// memory order.
static void run_outer(const etr_move_plan_t *plan, int32_t dim,
                      const int64_t *sizes, const int64_t *dst_steps,
                      const int64_t *src_steps, char *d, const char *s) {
  if (dim <= 1) {  // the common moves: a plain loop, no odometer
    const int64_t n = dim == 1 ? sizes[0] : 1;
    for (int64_t i = 0; i < n; ++i) {
      run_inner(plan, d, s);
      if (dim == 1) {
        d += dst_steps[0];
        s += src_steps[0];
      }
    }
    return;
  }
  int64_t index[ETR_MOVE_MAX_DIMS];
  for (int32_t k = 0; k < dim; ++k) {
    index[k] = 0;
  }
  for (;;) {
    run_inner(plan, d, s);
    int32_t k = dim - 1;
    for (; k >= 0; --k) {
      if (++index[k] < sizes[k]) {
        d += dst_steps[k];
        s += src_steps[k];
        break;
      }
      index[k] = 0;
      d -= dst_steps[k] * (sizes[k] - 1);
      s -= src_steps[k] * (sizes[k] - 1);
    }
    if (k < 0) {
      return;
    }
  }
}

void etr_move_kept_run(const etr_move_kept_t *kept, void *dst,
                       const void *src) {
  switch (kept->kind) {
    case ETR_MOVE_KEPT_COPY:
      etr_move_copy(dst, src, kept->bytes);
      return;
    case ETR_MOVE_KEPT_PLAN:
      run_outer(&kept->plan, kept->dim, kept->sizes, kept->dst, kept->src,
                (char *)dst, (const char *)src);
      return;
    case ETR_MOVE_KEPT_NOTHING:
    default:
      return;
  }
}

bool etr_move_strided_kept(size_t element_size, int32_t dim,
                           const int64_t *sizes, void *dst,
                           const int64_t *dst_strides, const void *src,
                           const int64_t *src_strides,
                           etr_move_kept_t *kept) {
  move_shape_t shape;
  if (plan_strided(element_size, dim, sizes, dst, dst_strides, src,
                   src_strides, &shape, kept)) {
    etr_move_kept_run(kept, dst, src);
    return true;
  }
  run_outer(&kept->plan, shape.dim, shape.sizes, shape.dst, shape.src,
            (char *)dst, (const char *)src);
  return false;
}

void etr_move_strided(size_t element_size, int32_t dim, const int64_t *sizes,
                      void *dst, const int64_t *dst_strides, const void *src,
                      const int64_t *src_strides) {
  etr_move_kept_t kept;
  (void)etr_move_strided_kept(element_size, dim, sizes, dst, dst_strides,
                              src, src_strides, &kept);
}

void etr_move_copy_mid(void *dst, const void *src, size_t bytes) {
#if defined(__x86_64__)
  if (etr_isa_active() == ETR_ISA_AVX512) {
    etr_move_rows_avx512(dst, 0, src, 0, 1, bytes);
    return;
  }
#endif
  memcpy(dst, src, bytes);
}

void etr_move_tensor(etr_tensor_t *dst, const etr_tensor_t *src) {
  etr_move_strided(etr_scalar_type_size(dst->dtype), dst->dim, dst->sizes,
                   dst->data, dst->strides, src->data, src->strides);
}

void etr_move_fill_tensor(etr_tensor_t *tensor, const void *element) {
  static const int64_t kZero[ETR_MAX_DIMS] = {0};
  etr_move_strided(etr_scalar_type_size(tensor->dtype), tensor->dim,
                   tensor->sizes, tensor->data, tensor->strides, element,
                   kZero);
}

// [first, last] byte span of a tensor's elements; false when it has none.
static bool span(const etr_tensor_t *tensor, uintptr_t *first,
                 uintptr_t *last) {
  if (etr_numel(tensor) == 0 || tensor->data == NULL) {
    return false;
  }
  int64_t low = 0;
  int64_t high = 0;
  for (int32_t d = 0; d < tensor->dim; ++d) {
    int64_t reach = (tensor->sizes[d] - 1) * tensor->strides[d];
    if (reach < 0) {
      low += reach;
    } else {
      high += reach;
    }
  }
  int64_t size = (int64_t)etr_scalar_type_size(tensor->dtype);
  *first = (uintptr_t)tensor->data + (uintptr_t)(low * size);
  *last = (uintptr_t)tensor->data + (uintptr_t)(high * size + size - 1);
  return true;
}

bool etr_move_overlaps(const etr_tensor_t *a, const etr_tensor_t *b) {
  uintptr_t a_first = 0;
  uintptr_t a_last = 0;
  uintptr_t b_first = 0;
  uintptr_t b_last = 0;
  if (!span(a, &a_first, &a_last) || !span(b, &b_first, &b_last)) {
    return false;
  }
  if (a_last < b_first || b_last < a_first) {
    return false;
  }
  if (a->data != b->data || a->dtype != b->dtype || a->dim != b->dim) {
    return true;
  }
  for (int32_t d = 0; d < a->dim; ++d) {
    if (a->sizes[d] != b->sizes[d] ||
        (a->sizes[d] > 1 && a->strides[d] != b->strides[d])) {
      return true;
    }
  }
  return false;  // the same elements: every move is a no-op
}

// Dense strides of the default dim order for (dim, sizes).
static void contiguous_strides(int32_t dim, const int64_t *sizes,
                               int64_t *strides) {
  int64_t stride = 1;
  for (int32_t d = dim - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= sizes[d] > 0 ? sizes[d] : 1;
  }
}

bool etr_move_reshape_strides(const etr_tensor_t *tensor, int32_t dim,
                              const int64_t *sizes, int64_t *strides) {
  if (etr_numel(tensor) == 0 || etr_tensor_is_contiguous(tensor)) {
    contiguous_strides(dim, sizes, strides);
    return true;
  }
  int32_t source = 0;
  for (int32_t d = 0; d < dim; ++d) {
    strides[d] = 0;
    if (sizes[d] == 1) {
      continue;
    }
    while (source < tensor->dim && tensor->sizes[source] == 1) {
      ++source;
    }
    if (source == tensor->dim || tensor->sizes[source] != sizes[d]) {
      return false;
    }
    strides[d] = tensor->strides[source++];
  }
  for (; source < tensor->dim; ++source) {
    if (tensor->sizes[source] != 1) {
      return false;
    }
  }
  return true;
}
