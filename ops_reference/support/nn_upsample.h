// SPDX-License-Identifier: Apache-2.0
//
// The output size and scales of the 2-D upsampling kernels
// (upsample_nearest2d.vec, upsample_bilinear2d.vec), as ATen's
// upsample::compute_output_size and upsample_2d_common_check give them:
//
//   * exactly one of output_size and scale_factors is given, with two
//     entries (InvalidArgument otherwise);
//   * from scale_factors, each output size is int64(in * scale) (the
//     product in double, truncated toward zero; a NaN or a product beyond
//     int64 is InvalidArgument), and the factor itself is what the kernels
//     use for their source coordinates (1 / scale when positive);
//   * the input is 4-D [N, C, H, W] with C, H, W > 0 (N may be 0) and both
//     output sizes are positive (InvalidArgument otherwise).
#ifndef ETR_OPS_REFERENCE_SUPPORT_NN_UPSAMPLE_H
#define ETR_OPS_REFERENCE_SUPPORT_NN_UPSAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_nn_upsample {
  int64_t in[2];   // H, W
  int64_t out[2];  // H, W
  bool has_scale;  // scale_factors given
  double scale[2];
} etr_nn_upsample_t;

// Reads the `SymInt[]? output_size` (at size_index) and `float[]?
// scale_factors` (at scale_index) arguments of `input` into *up and
// writes the out shape [N, C, OH, OW] into sizes_out.
etr_error_t etr_nn_upsample_prepare(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t size_index, size_t scale_index,
                                    const etr_tensor_t *input,
                                    etr_nn_upsample_t *up,
                                    int64_t *sizes_out);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_NN_UPSAMPLE_H
