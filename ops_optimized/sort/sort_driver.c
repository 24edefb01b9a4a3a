// SPDX-License-Identifier: Apache-2.0
//
// Drivers of the optimized sort and topk kernels (see sort.h): each slice
// along `dim` is gathered into a typed pair array in ctx->temp (for topk's
// partial_sort only the heap of k), ordered by the reference's algorithm
// choice, and written back through the outs' strides.
#include <string.h>

#include "core/arena.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_optimized/sort/sort.h"
#include "ops_reference/support/shape.h"

// Walks the slices of `self` along dim: for slice number `o` (row-major
// over the other dims), the element offsets of self, values and indices
// at position 0 of the slice.
typedef struct slices {
  int32_t rank;
  int32_t dim;
  int64_t position[ETR_MAX_DIMS];
  int64_t offset[3];
  const etr_tensor_t *tensors[3];
} slices_t;

static void slices_init(slices_t *s, int32_t dim, const etr_tensor_t *self,
                        const etr_tensor_t *values,
                        const etr_tensor_t *indices) {
  memset(s, 0, sizeof(*s));
  s->rank = self->dim;
  s->dim = dim;
  s->tensors[0] = self;
  s->tensors[1] = values;
  s->tensors[2] = indices;
}

static void slices_next(slices_t *s) {
  for (int32_t d = s->rank - 1; d >= 0; --d) {
    if (d == s->dim) {
      continue;
    }
    if (++s->position[d] < s->tensors[0]->sizes[d]) {
      for (int k = 0; k < 3; ++k) {
        s->offset[k] += s->tensors[k]->strides[d];
      }
      return;
    }
    for (int k = 0; k < 3; ++k) {
      s->offset[k] -= s->tensors[k]->strides[d] * (s->position[d] - 1);
    }
    s->position[d] = 0;
  }
}

// Shorter slices take the introsort alone (its insertion sort is quick).
enum { kRadixMin = 64 };

static int64_t slice_count(const etr_tensor_t *self, int32_t dim) {
  int64_t count = 1;
  for (int32_t d = 0; d < self->dim; ++d) {
    count *= d == dim ? 1 : self->sizes[d];
  }
  return count;
}

static void gather(const etr_tensor_t *self, int64_t offset, int64_t stride,
                   int64_t n, etr_sort_f32_pair_t *pairs) {
  const float *x = (const float *)self->data + offset;
  for (int64_t i = 0; i < n; ++i) {
    pairs[i].value = x[i * stride];
    pairs[i].index = i;
  }
}

static void scatter(const etr_sort_f32_pair_t *pairs, int64_t n,
                    etr_tensor_t *values, int64_t value_offset,
                    int64_t value_stride, etr_tensor_t *indices,
                    int64_t index_offset, int64_t index_stride) {
  float *v = (float *)values->data + value_offset;
  int64_t *ix = (int64_t *)indices->data + index_offset;
  for (int64_t i = 0; i < n; ++i) {
    v[i * value_stride] = pairs[i].value;
    ix[i * index_stride] = pairs[i].index;
  }
}

bool etr_sort_f32_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                      int32_t dim, bool descending, etr_tensor_t *values,
                      etr_tensor_t *indices) {
  if (self->dtype != ETR_FLOAT || values->dtype != ETR_FLOAT ||
      indices->dtype != ETR_LONG || ctx->temp == NULL ||
      etr_numel(self) == 0) {
    return false;
  }
  bool has_dim = self->dim > 0;
  int64_t n = has_dim ? self->sizes[dim] : 1;
  etr_sort_f32_pair_t *pairs =
      etr_arena_alloc(ctx->temp, (size_t)n * sizeof(*pairs), 8);
  if (pairs == NULL) {
    return false;
  }
  // Slices of distinct numbers take the sorting network or the radix sort
  // (4 n uint32 of scratch when there is room; 64 rows of 1024 randn
  // floats, AMD Zen 5: 2.68 ms by the introsort, 0.46 ms by the radix
  // sort), the others the introsort.
  uint32_t *radix = n >= kRadixMin && n <= (int64_t)UINT32_MAX
                        ? etr_arena_alloc(ctx->temp,
                                          4 * (size_t)n * sizeof(uint32_t), 8)
                        : NULL;
  int64_t strides[3] = {0, 0, 0};
  if (has_dim) {
    strides[0] = self->strides[dim];
    strides[1] = values->strides[dim];
    strides[2] = indices->strides[dim];
  }
  const etr_reduce_kernels_t *k = etr_reduce_kernels_for(etr_isa_active());
  // Contiguous slices within the sorting network's reach (the values and
  // indices too) take it, where the ISA has one.
  bool network = k->sort_distinct != NULL && radix != NULL &&
                 n <= ETR_SORT_DISTINCT_MAX &&
                 (!has_dim || (strides[0] == 1 && strides[1] == 1 &&
                               strides[2] == 1));
  slices_t s;
  slices_init(&s, has_dim ? dim : -1, self, values, indices);
  int64_t count = slice_count(self, has_dim ? dim : -1);
  for (int64_t o = 0; o < count; ++o) {
    // A stride-0 dim (an expanded view) keeps indices 0..n-1, as ATen.
    bool expanded = has_dim && strides[0] == 0;
    const float *x = (const float *)self->data + s.offset[0];
    if (network) {
      if (k->sort_distinct(x, (size_t)n, descending,
                           (uint64_t *)(void *)radix,
                           (float *)values->data + s.offset[1],
                           (int64_t *)indices->data + s.offset[2])) {
        slices_next(&s);
        continue;
      }
      // Declined: the radix sort would decline it too.
      gather(self, s.offset[0], strides[0], n, pairs);
      etr_sort_f32_sort(pairs, 0, n, descending);
    } else if (expanded || radix == NULL ||
               !etr_sort_f32_distinct(x, strides[0], n, descending, radix,
                                      pairs)) {
      gather(self, s.offset[0], strides[0], n, pairs);
      if (!expanded) {
        etr_sort_f32_sort(pairs, 0, n, descending);
      }
    }
    scatter(pairs, n, values, s.offset[1], strides[1], indices, s.offset[2],
            strides[2]);
    slices_next(&s);
  }
  return true;
}

bool etr_topk_f32_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                      int64_t k, int32_t dim, bool largest, bool sorted,
                      etr_tensor_t *values, etr_tensor_t *indices) {
  if (self->dtype != ETR_FLOAT || values->dtype != ETR_FLOAT ||
      indices->dtype != ETR_LONG || ctx->temp == NULL || self->dim == 0 ||
      k == 0 || etr_numel(values) == 0) {
    return false;
  }
  int64_t n = self->sizes[dim];
  bool partial = k <= n / 64;  // ATen: k * 64 <= n
  etr_sort_f32_pair_t *pairs = etr_arena_alloc(
      ctx->temp, (size_t)(partial ? k : n) * sizeof(*pairs), 8);
  if (pairs == NULL) {
    return false;
  }
  etr_topk_first_entering_fn first_entering =
      etr_reduce_kernels_for(etr_isa_active())->topk_first_entering;
  slices_t s;
  slices_init(&s, dim, self, values, indices);
  int64_t count = slice_count(self, dim);
  for (int64_t o = 0; o < count; ++o) {
    if (partial) {
      // The reference's tail slots are read-only copies of self, which
      // partial_sort never reads after writing: read in place.
      etr_sort_f32_topk_partial(pairs, k, (const float *)self->data +
                                              s.offset[0],
                                self->strides[dim], n, largest,
                                first_entering);
    } else {
      gather(self, s.offset[0], self->strides[dim], n, pairs);
      etr_sort_f32_nth_element(pairs, 0, k - 1, n, largest);
      if (sorted) {
        etr_sort_f32_sort(pairs, 0, k - 1, largest);
      }
    }
    scatter(pairs, k, values, s.offset[1], values->strides[dim], indices,
            s.offset[2], indices->strides[dim]);
    slices_next(&s);
  }
  return true;
}
