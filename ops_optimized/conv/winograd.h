// SPDX-License-Identifier: Apache-2.0
//
// What the Winograd F(2x2, 3x3) kernels of every ISA share
// (winograd_avx512.c, winograd_positions_avx512.c, winograd_avx2.c): the
// geometry they take and the padding's rows. Include only from those
// files.
#ifndef ETR_OPS_OPTIMIZED_CONV_WINOGRAD_H
#define ETR_OPS_OPTIMIZED_CONV_WINOGRAD_H

#include <stdbool.h>
#include <stdint.h>

#include "ops_optimized/conv/conv.h"

// 3x3, stride 1, padding 1, dilation 1 (out planes the input's size),
// unit input column stride, at least 8 input and 8 out channels.
static inline bool winograd_geometry(const etr_conv2d_geometry_t *g,
                                     int64_t out_channels) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 1 &&
         g->stride_w == 1 && g->pad_h == 1 && g->pad_w == 1 &&
         g->dilation_h == 1 && g->dilation_w == 1 && g->in_stride_w == 1 &&
         g->out_h == g->in_h && g->out_w == g->in_w && g->channels >= 8 &&
         out_channels >= 8;
}

// Input row y of a plane (rows row_stride apart), or NULL in the padding.
static inline const float *winograd_input_row(const float *plane,
                                              int64_t row_stride,
                                              int64_t height, int64_t y) {
  return y >= 0 && y < height ? plane + y * row_stride : NULL;
}

#endif  // ETR_OPS_OPTIMIZED_CONV_WINOGRAD_H
