// SPDX-License-Identifier: Apache-2.0
//
// Cheap predicates for the fast paths of tiny calls. A one-op program on a
// few dozen elements spends most of its time on generic setup (the
// reference's dry run, views of 300-byte tensors, the movement engine's
// shape simplification); these let a kernel recognise, in a few compares,
// a call that is valid by construction (argument tags right, dims in
// range, out already of the result's shape, dense operands that do not
// overlap) and do the work directly. A call they do not recognise goes the
// ordinary way, so every invalid call still gets the reference's error.
// Header-only: each is a handful of instructions worth inlining.
#ifndef ETR_OPS_OPTIMIZED_COMMON_DENSE_H
#define ETR_OPS_OPTIMIZED_COMMON_DENSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/evalue.h"
#include "core/kernel.h"
#include "ops_optimized/common/memo.h"
#include "ops_optimized/movement/movement.h"
#include "core/scalar_type.h"
#include "core/tensor.h"

// True when `tensor` is laid out row-major with no gaps (the stride of a
// size-1 dim does not matter) and its bytes are bound; *numel gets its
// element count. False for an empty tensor (callers take the general path,
// which already handles it).
static inline bool etr_dense_row_major(const etr_tensor_t *tensor,
                                       int64_t *numel) {
  int64_t expected = 1;
  for (int32_t d = tensor->dim - 1; d >= 0; --d) {
    int64_t size = tensor->sizes[d];
    if (size != 1 && tensor->strides[d] != expected) {
      return false;
    }
    expected *= size;
  }
  *numel = expected;
  return expected > 0 && tensor->data != NULL;
}

// True when the byte ranges [a, a + a_bytes) and [b, b + b_bytes) are
// disjoint.
static inline bool etr_dense_disjoint(const void *a, size_t a_bytes,
                                      const void *b, size_t b_bytes) {
  uintptr_t x = (uintptr_t)a;
  uintptr_t y = (uintptr_t)b;
  return x + a_bytes <= y || y + b_bytes <= x;
}

// The tensor args[index], or NULL when it is missing or not a Tensor.
static inline etr_tensor_t *etr_dense_tensor_arg(etr_evalue_t **args,
                                                 size_t index) {
  const etr_evalue_t *value = args[index];
  return value != NULL && value->tag == ETR_TAG_TENSOR ? value->u.as_tensor
                                                       : NULL;
}

// args[index] as an Int; false when it is missing or not an Int.
static inline bool etr_dense_int_arg(etr_evalue_t **args, size_t index,
                                     int64_t *value) {
  const etr_evalue_t *arg = args[index];
  if (arg == NULL || arg->tag != ETR_TAG_INT) {
    return false;
  }
  *value = arg->u.as_int;
  return true;
}

// True when dims (dim, sizes) equal `tensor`'s shape.
static inline bool etr_dense_has_shape(const etr_tensor_t *tensor,
                                       int32_t dim, const int64_t *sizes) {
  if (tensor->dim != dim) {
    return false;
  }
  for (int32_t d = 0; d < dim; ++d) {
    if (tensor->sizes[d] != sizes[d]) {
      return false;
    }
  }
  return true;
}

// `dim_arg` as a dim of a tensor of rank `rank` > 0 (negative counts from
// the end); false when it is out of range.
static inline bool etr_dense_dim(int64_t dim_arg, int32_t rank,
                                 int32_t *dim) {
  if (rank <= 0 || dim_arg < -rank || dim_arg >= rank) {
    return false;
  }
  *dim = (int32_t)(dim_arg < 0 ? dim_arg + rank : dim_arg);
  return true;
}

// The product of sizes[first..last).
static inline int64_t etr_dense_product(const int64_t *sizes, int32_t first,
                                        int32_t last) {
  int64_t product = 1;
  for (int32_t d = first; d < last; ++d) {
    product *= sizes[d];
  }
  return product;
}

// The ListInt args[index] when every item is an Int (read them with
// etr_dense_int_at); NULL otherwise.
static inline const etr_int_list_t *etr_dense_int_list_arg(
    etr_evalue_t **args, size_t index) {
  const etr_evalue_t *value = args[index];
  if (value == NULL || value->tag != ETR_TAG_LIST_INT) {
    return NULL;
  }
  const etr_int_list_t *list = &value->u.as_int_list;
  for (size_t i = 0; i < list->length; ++i) {
    if (list->items[i] == NULL || list->items[i]->tag != ETR_TAG_INT) {
      return NULL;
    }
  }
  return list;
}

static inline int64_t etr_dense_int_at(const etr_int_list_t *list,
                                       size_t index) {
  return list->items[index]->u.as_int;
}

// What etr_dense_copy_reshaped keeps in ctx->memo: the bytes it copied.
typedef struct etr_dense_copy_memo {
  uint32_t mark;  // ETR_DENSE_COPY_MARK once kept
  size_t bytes;
} etr_dense_copy_memo_t;

enum { ETR_DENSE_COPY_MARK = 0x64637031 };  // "dcp1"

// The data step of the fast paths of the ops whose result is self's
// elements in row-major order under another shape (clone, view, squeeze,
// unsqueeze), once the caller has proven the arguments valid and out of
// the result's shape: true, with the bytes copied unless ctx->dry_run,
// when self and out have one dtype and the same element count, are dense
// row-major and do not overlap; false (nothing written) otherwise. A
// copy it makes is kept in ctx->memo (when the call has one) for
// etr_dense_copy_vouched.
static inline bool etr_dense_copy_reshaped(etr_kernel_context_t *ctx,
                                           const etr_tensor_t *self,
                                           etr_tensor_t *out) {
  int64_t self_numel = 0;
  int64_t out_numel = 0;
  if (self->dtype != out->dtype || !etr_dense_row_major(self, &self_numel) ||
      !etr_dense_row_major(out, &out_numel) || self_numel != out_numel) {
    return false;
  }
  size_t bytes = (size_t)self_numel * etr_scalar_type_size(self->dtype);
  if (!etr_dense_disjoint(self->data, bytes, out->data, bytes)) {
    return false;
  }
  if (!ctx->dry_run) {
    etr_move_copy(out->data, self->data, bytes);
    if (ctx->memo != NULL) {
      *(etr_dense_copy_memo_t *)ctx->memo =
          (etr_dense_copy_memo_t){ETR_DENSE_COPY_MARK, bytes};
    }
  }
  return true;
}

// A vouched call (ctx->args_checked: the same tensors, shapes and data
// pointers as a call that passed) of an instruction whose earlier call
// made its copy with etr_dense_copy_reshaped: the same copy from
// args[self_index] to args[out_index], with no checks, and true; false
// when the memo holds no such copy.
static inline bool etr_dense_copy_vouched(const etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t self_index,
                                          size_t out_index) {
  const etr_dense_copy_memo_t *kept =
      etr_opt_vouched_memo(ctx, ETR_DENSE_COPY_MARK);
  if (kept == NULL) {
    return false;
  }
  etr_move_copy(args[out_index]->u.as_tensor->data,
                args[self_index]->u.as_tensor->data, kept->bytes);
  return true;
}

#endif  // ETR_OPS_OPTIMIZED_COMMON_DENSE_H
