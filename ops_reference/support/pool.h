// SPDX-License-Identifier: Apache-2.0
//
// Shapes and parameters shared by the 2-D pooling kernels (max_pool2d,
// avg_pool2d, adaptive_avg_pool2d), following ATen's Pool.h:
// kernel/stride/padding/dilation lists of one or two values (an empty
// stride means the kernel size), pool2d_shape_check's rules, and
// pooling_output_shape's ceil_mode arithmetic. Inputs are [C, H, W] or
// [N, C, H, W]; a 3-D tensor is handled as a batch of one through a view.
#ifndef ETR_OPS_REFERENCE_SUPPORT_POOL_H
#define ETR_OPS_REFERENCE_SUPPORT_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_pool2d_params {
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
  bool ceil_mode;
} etr_pool2d_params_t;

// Reads an `int[2]` argument of one or two values into out[2]. An empty
// list gives `fallback` (the kernel size for stride) when it is not NULL,
// and is InvalidArgument otherwise.
etr_error_t etr_pool2d_read_pair(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args,
                                 size_t index, const char *what,
                                 const int64_t *fallback, int64_t *out);

// Reads kernel_size, stride (empty: the kernel size) and padding, the
// three `int[2]` arguments at `first`, first + 1 and first + 2.
etr_error_t etr_pool2d_read_window(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args,
                                   size_t first, int64_t *kernel,
                                   int64_t *stride, int64_t *padding);

// InvalidArgument unless `input` is 3-D or 4-D with non-zero C, H and W
// (the batch may be 0).
etr_error_t etr_pool2d_check_input(etr_kernel_context_t *ctx,
                                   const etr_tensor_t *input);

// ATen's pooling_output_shape for one spatial dim (stride and dilation
// positive). False when the arithmetic overflows int64.
bool etr_pool_output_size(int64_t input, int64_t kernel, int64_t padding,
                          int64_t stride, int64_t dilation, bool ceil_mode,
                          int64_t *size_out);

// pool2d_shape_check plus the output shape (input's rank; N and C kept).
// InvalidArgument for non-positive kernel/stride/dilation, padding above
// half the kernel, or an empty result.
etr_error_t etr_pool2d_out_shape(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *input,
                                 const etr_pool2d_params_t *params,
                                 int64_t *sizes_out);

// A [N, C, H, W] view of a 3-D or 4-D tensor (N = 1 for 3-D).
void etr_pool2d_batched_view(const etr_tensor_t *tensor, etr_tensor_t *view);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_POOL_H
