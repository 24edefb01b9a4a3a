// SPDX-License-Identifier: Apache-2.0
//
// Tensors: a typed view of memory with sizes, a dim order and strides.
//
// A tensor never owns its data. Sizes and strides are stored inline (rank is
// at most ETR_MAX_DIMS, as in ExecuTorch), so a tensor is one flat struct
// that a method allocates once at load time.
//
// dim_order lists dimensions from outermost to innermost in memory:
// contiguous is [0, 1, ..., n-1], channels-last 4-D is [0, 2, 3, 1]. Tensors
// from a program carry strides derived from their dim order, exactly as
// ExecuTorch derives them. Kernels read `strides` and so also accept
// arbitrary strided views (tests build them to probe non-contiguous inputs);
// for such a view dim_order is the permutation that sorts strides outermost
// first.
//
// Capacity: `capacity_bytes` is the size of the memory behind `data`. An out
// tensor may be resized (as ExecuTorch resizes dynamic outputs) only within it.
#ifndef ETR_CORE_TENSOR_H
#define ETR_CORE_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/scalar_type.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_MAX_DIMS 16

typedef enum etr_shape_dynamism {
  ETR_SHAPE_STATIC = 0,
  ETR_SHAPE_DYNAMIC_BOUND = 1,    // sizes may shrink; numel <= the planned one
  ETR_SHAPE_DYNAMIC_UNBOUND = 2,  // ExecuTorch rejects these too
} etr_shape_dynamism_t;

typedef struct etr_tensor {
  etr_scalar_type_t dtype;
  int32_t dim;                           // rank, 0..ETR_MAX_DIMS
  int64_t sizes[ETR_MAX_DIMS];           // entries [dim..] are unused
  int64_t strides[ETR_MAX_DIMS];         // in elements, not bytes
  uint8_t dim_order[ETR_MAX_DIMS];       // outermost first
  void *data;                            // NULL until bound
  size_t capacity_bytes;                 // bytes usable at `data`
  etr_shape_dynamism_t shape_dynamism;
} etr_tensor_t;

// Number of elements (1 for a 0-dim tensor, 0 if any size is 0).
int64_t etr_tensor_numel(const etr_tensor_t *tensor);

// Bytes spanned by the elements: numel * element size for a dense tensor.
size_t etr_tensor_nbytes(const etr_tensor_t *tensor);

// Checked numel and nbytes for untrusted sizes: fail with InvalidProgram on a
// negative size, or when the element count, a dense stride (the product of
// sizes with 0 counted as 1: [0, 2^40, 2^40] is refused) or the byte size
// overflows int64/size_t. A shape that passes can be given to every other
// function here without overflow.
etr_error_t etr_checked_numel(const int64_t *sizes, int32_t dim,
                              int64_t *numel_out, etr_diag_t *diag);
etr_error_t etr_checked_nbytes(etr_scalar_type_t dtype, const int64_t *sizes,
                               int32_t dim, size_t *nbytes_out,
                               etr_diag_t *diag);

// Fills strides from sizes and dim_order: the innermost dimension has stride
// 1 and each outer one the product of the inner sizes, with a size of 0
// counted as 1 (PyTorch's and ExecuTorch's convention).
void etr_strides_from_dim_order(const int64_t *sizes, const uint8_t *dim_order,
                                int32_t dim, int64_t *strides_out);

// True when dim_order is a permutation of 0..dim-1.
bool etr_dim_order_is_valid(const uint8_t *dim_order, int32_t dim);
bool etr_dim_order_is_contiguous(const uint8_t *dim_order, int32_t dim);
bool etr_dim_order_is_channels_last(const uint8_t *dim_order, int32_t dim);

// Initializes a dense tensor with the default (contiguous) dim order over
// `data` of `capacity_bytes`. `sizes` may be NULL when dim is 0.
// InvalidArgument if dim or a size is out of range or the data does not fit.
etr_error_t etr_tensor_init(etr_tensor_t *tensor, etr_scalar_type_t dtype,
                            int32_t dim, const int64_t *sizes,
                            void *data, size_t capacity_bytes,
                            etr_diag_t *diag);

// Same with an explicit dim order (e.g. channels-last).
etr_error_t etr_tensor_init_with_dim_order(etr_tensor_t *tensor,
                                           etr_scalar_type_t dtype,
                                           int32_t dim, const int64_t *sizes,
                                           const uint8_t *dim_order,
                                           void *data, size_t capacity_bytes,
                                           etr_diag_t *diag);

// Resizes `tensor` keeping its dtype and dim order (the rank may change only
// when the dim order is the default one). Fails with InvalidArgument when the
// new sizes need more than capacity_bytes, or when a static tensor would
// change shape.
etr_error_t etr_tensor_resize(etr_tensor_t *tensor, int32_t dim,
                              const int64_t *sizes, etr_diag_t *diag);

// True when the tensor's strides are the dense strides of its dim order.
bool etr_tensor_is_dense(const etr_tensor_t *tensor);
// True when dense with the default dim order.
bool etr_tensor_is_contiguous(const etr_tensor_t *tensor);

// Same sizes (rank and every extent).
bool etr_tensor_same_shape(const etr_tensor_t *a, const etr_tensor_t *b);

// Offset in elements of the element at multi-index `index` (length dim).
int64_t etr_tensor_offset(const etr_tensor_t *tensor, const int64_t *index);

// Advances `index` (length dim) to the next multi-index in row-major logical
// order; returns false after the last element.
bool etr_index_next(int64_t *index, const int64_t *sizes, int32_t dim);

// Writes "Float[2, 3]" (dim order appended when not contiguous) into buffer.
void etr_tensor_describe(const etr_tensor_t *tensor, char *buffer,
                         size_t capacity);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_TENSOR_H
