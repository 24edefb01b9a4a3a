// SPDX-License-Identifier: Apache-2.0
//
// N-d pooling (1, 2 or 3 spatial dims) for the "nn" family kernels
// (avg_pool1d/3d, max_pool3d_with_indices, the 2-D pooling backward ops
// and the adaptive poolings), following ATen's Pool.h and
// AdaptivePooling.h the way support/pool.h does for the 2-D forward
// kernels (whose etr_pool_output_size computes the output sizes here too):
//
//   out = floor((in + 2 pad - dil (k - 1) - 1 + (ceil ? stride - 1 : 0))
//               / stride) + 1,
//   minus one in ceil mode when the last window would start at or past
//   in + pad (it must start inside the input or the left padding);
//
// kernel, stride and dilation must be positive and 0 <= pad <= k / 2
// (pool2d/pool3d_shape_check; ATen's "half of the effective kernel size"
// check is implied), the input must be [C, *spatial] or [N, C, *spatial]
// with every non-batch dim positive, and every output size at least 1.
// All failures are InvalidArgument.
//
// Adaptive pooling bins: output cell o of `out` cells over `in` inputs
// covers floor(o * in / out) .. ceil((o + 1) * in / out) - 1
// (start_index/end_index), computed in 128-bit so no size overflows.
#ifndef ETR_OPS_REFERENCE_SUPPORT_NN_POOL_H
#define ETR_OPS_REFERENCE_SUPPORT_NN_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_reference/support/nn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_nn_pool {
  int32_t spatial;  // 1, 2 or 3
  int64_t kernel[ETR_NN_MAX_SPATIAL];
  int64_t stride[ETR_NN_MAX_SPATIAL];
  int64_t padding[ETR_NN_MAX_SPATIAL];
  int64_t dilation[ETR_NN_MAX_SPATIAL];
  bool ceil_mode;
} etr_nn_pool_t;

// InvalidArgument unless `input` has rank spatial + 1 or spatial + 2 and
// every dim but the batch dim (dim 0 of the batched form) is positive.
etr_error_t etr_nn_pool_check_input(etr_kernel_context_t *ctx,
                                    const etr_tensor_t *input,
                                    int32_t spatial);

// The parameter checks above and the output shape of pooling `input`
// (input's rank; leading dims kept, spatial dims pooled).
etr_error_t etr_nn_pool_out_shape(etr_kernel_context_t *ctx,
                                  const etr_tensor_t *input,
                                  const etr_nn_pool_t *pool,
                                  int64_t *sizes_out);

// The average-pooling window of output coordinate `o` along spatial dim s
// of an input of `in` elements: [*start, *end) clipped to the input, and
// the count ATen divides by with count_include_pad (the window clipped to
// the padded input only).
void etr_nn_avg_window(const etr_nn_pool_t *pool, int32_t s, int64_t o,
                       int64_t in, int64_t *start, int64_t *end,
                       int64_t *padded_count);

// The in-bounds taps of the max-pooling window of output coordinate `o`
// along spatial dim s: *count input positions *first, *first + dil, ...
// (all below `in`; *count may be 0, and *first is then the first tap at or
// after 0, which ATen reports as the index of an empty window).
void etr_nn_max_window(const etr_nn_pool_t *pool, int32_t s, int64_t o,
                       int64_t in, int64_t *first, int64_t *count);

// The lowest value of an integral dtype (INT8_MIN .. INT64_MIN, 0 for the
// unsigned ones): ATen's initial maximum of a max-pooling window.
int64_t etr_nn_integer_lowest(etr_scalar_type_t dtype);

typedef struct etr_nn_avg_options {
  bool count_include_pad;
  bool has_divisor;  // divisor_override given (never 0: callers check)
  int64_t divisor;
} etr_nn_avg_options_t;

// Average pooling of `in` into `out`, both [N, C, *spatial] (batched views)
// with out already of the pooled shape. The divisor is the override when
// given, else the padded window count with count_include_pad, else the
// number of input positions in the window (a padded count beyond int64,
// possible only for absurd kernels, saturates). Floating dtypes sum in double;
// Long sums with int64 wrap-around and divides truncating toward zero, as
// ATen's integer kernels do.
void etr_nn_avg_pool(const etr_tensor_t *in, const etr_nn_pool_t *pool,
                     const etr_nn_avg_options_t *options, etr_tensor_t *out);

// Adaptive average pooling of `in` into `out`, both [N, C, *spatial]
// batched views (1 to 3 spatial dims) with out of the target shape; every
// output cell averages its bins (see above) in double. Input spatial sizes
// must be positive.
void etr_nn_adaptive_avg_pool(const etr_tensor_t *in, etr_tensor_t *out);

static inline int64_t etr_nn_adaptive_start(int64_t o, int64_t out_size,
                                            int64_t in_size) {
  return (int64_t)(((__int128)o * in_size) / out_size);
}

static inline int64_t etr_nn_adaptive_end(int64_t o, int64_t out_size,
                                          int64_t in_size) {
  return (int64_t)((((__int128)o + 1) * in_size + out_size - 1) / out_size);
}

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_NN_POOL_H
