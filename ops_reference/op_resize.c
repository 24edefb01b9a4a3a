// SPDX-License-Identifier: Apache-2.0
//
// aten::resize_: resizes self in place to `size`, within the memory it
// already has, and returns self through the trailing slot. Schema:
// (self, size, *, memory_format=None) -> self, so the kernel receives
// (self, size, memory_format, return slot).
//
// As PyTorch's resize_: the same sizes and no memory_format leave self
// untouched (strides included); other sizes make self contiguous; a
// memory_format then lays it out as asked: contiguous (0), channels-last
// (2, rank 4 only) or channels-last-3d (3, rank 5 only). Preserve (1) and
// anything else are InvalidArgument ("Unsupported memory format"), as are a
// negative size, more than ETR_MAX_DIMS dims, a size whose bytes exceed
// self's capacity (PyTorch would grow the storage; etref tensors cannot
// grow), and a new shape for a static-shape tensor. The bytes in memory are
// not moved or cleared: elements keep whatever the memory held, which for
// the elements that were already there is their old value in memory order
// (PyTorch keeps the storage the same way; new elements are unspecified
// there). Any dtype. A dry run resizes exactly as a real call.
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

enum {
  MEMORY_FORMAT_CONTIGUOUS = 0,
  MEMORY_FORMAT_PRESERVE = 1,
  MEMORY_FORMAT_CHANNELS_LAST = 2,
  MEMORY_FORMAT_CHANNELS_LAST_3D = 3,
};

// aten::resize_
etr_error_t etr_ref_resize_inplace(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *sizes = NULL;
  size_t length = 0;
  bool has_format = false;
  int64_t memory_format = 0;
  etr_tensor_t *result = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "size", &sizes, &length));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 2, "memory_format",
                               &has_format, &memory_format));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "return", &result));
  (void)result;  // the executor passes self again
  ETR_TRY(etr_movement_check_sizes(ctx, "size", sizes, length));
  int32_t dim = (int32_t)length;
  uint8_t dim_order[ETR_MAX_DIMS];
  for (int32_t d = 0; d < dim; ++d) {
    dim_order[d] = (uint8_t)d;
  }
  if (has_format) {
    bool known = memory_format == MEMORY_FORMAT_CONTIGUOUS ||
                 (memory_format == MEMORY_FORMAT_CHANNELS_LAST && dim == 4) ||
                 (memory_format == MEMORY_FORMAT_CHANNELS_LAST_3D && dim == 5);
    ETR_CHECK(ctx->diag, known, ETR_ERR_INVALID_ARGUMENT,
              "%s: unsupported memory format %lld for a tensor of rank %d "
              "(channels-last needs rank 4, channels-last-3d rank 5, "
              "preserve is refused)",
              etr_op_name(ctx), (long long)memory_format, (int)dim);
    if (memory_format != MEMORY_FORMAT_CONTIGUOUS) {
      // Channels move to the innermost position: 0, 2, ..., dim-1, 1.
      for (int32_t d = 1; d < dim - 1; ++d) {
        dim_order[d] = (uint8_t)(d + 1);
      }
      dim_order[dim - 1] = 1;
    }
  }
  bool same_sizes = dim == self->dim;
  for (int32_t d = 0; d < dim && same_sizes; ++d) {
    same_sizes = sizes[d] == self->sizes[d];
  }
  if (same_sizes && !has_format) {
    return ETR_OK;
  }
  ETR_CHECK(ctx->diag, same_sizes || self->shape_dynamism != ETR_SHAPE_STATIC,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: cannot resize a static-shape tensor to a different shape",
            etr_op_name(ctx));
  size_t nbytes = 0;
  etr_error_t status =
      etr_checked_nbytes(self->dtype, sizes, dim, &nbytes, NULL);
  ETR_CHECK(ctx->diag, status == ETR_OK, ETR_ERR_INVALID_ARGUMENT,
            "%s: size is too large", etr_op_name(ctx));
  ETR_CHECK(ctx->diag, nbytes <= self->capacity_bytes,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: the new size needs %zu bytes but self's memory holds %zu",
            etr_op_name(ctx), nbytes, self->capacity_bytes);
  self->dim = dim;
  for (int32_t d = 0; d < dim; ++d) {
    self->sizes[d] = sizes[d];
    self->dim_order[d] = dim_order[d];
  }
  etr_strides_from_dim_order(self->sizes, self->dim_order, dim,
                             self->strides);
  return ETR_OK;
}
