// SPDX-License-Identifier: Apache-2.0
//
// col2im (torch.nn.functional.fold) as a scatter of column rows: for each
// channel, every tap (i, j) in row-major order adds its row of blocks
// into a double accumulator plane at the image positions it lands on
// (positions in the padding dropped), then the plane is rounded once into
// out. Each output element so receives its taps in the reference's order,
// summed in double as there: bit-exact. The inner loop runs along a block
// row, contiguous in the column matrix and, for stride 1, in the plane,
// where it is the reduce table's accumulate_f64 (SIMD widening adds, each
// rounded as the scalar add; the plane is rounded by round_f64: 576 x 3136
// columns into 64 planes of 56 x 56, AMD Zen 5: 536 -> 236 us). Scratch:
// one plane of out_h * out_w doubles from ctx->temp.
#ifndef ETR_OPS_OPTIMIZED_FOLD_FOLD_H
#define ETR_OPS_OPTIMIZED_FOLD_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

typedef struct etr_fold_params {
  int64_t output[2];
  int64_t kernel[2];
  int64_t dilation[2];
  int64_t padding[2];
  int64_t stride[2];
} etr_fold_params_t;

// A checked col2im call (the reference's dry run validated it and resized
// out): contiguous Float self [N, C * kh * kw, L] or [C * kh * kw, L] into
// a contiguous Float out. False, with nothing written, for other dtypes
// and layouts or when ctx->temp cannot hold the plane.
bool etr_col2im_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                    const etr_fold_params_t *f, etr_tensor_t *out);

#endif  // ETR_OPS_OPTIMIZED_FOLD_FOLD_H
