// SPDX-License-Identifier: Apache-2.0
//
// The paths of the optimized convolution (op_convolution.c decides which
// one a call takes): each runs one family of the kernels of conv.h over
// a call's images and groups. The call is accepted and checked (the
// reference's dry run), out resized; `g` is its geometry (one image and
// group), `post` the fused epilogue (NULL: none; NCHW Float only).
//   run_direct.c   depthwise, direct few-channel and pointwise kernels
//                  (and the tests that choose them);
//   run_planes.c   the padded-plane kernels (shifted rows, pixel tiles),
//                  Winograd and the GEMM.
#ifndef ETR_OPS_OPTIMIZED_CONV_RUN_H
#define ETR_OPS_OPTIMIZED_CONV_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/conv/conv.h"

// ---------------------------------------------------------------------------
// run_direct.c

// Whether skipping the taps in the padding would change the result: there
// is padding and a weight that is not finite (0 * inf and 0 * NaN are NaN).
// Only asked on the Float depthwise/direct paths; the weight is small there.
// `numel` and `dense` are the weight's (kept in the plan: at 0.3 us per
// 4x4 layer, asking the tensor again on every call showed).
bool etr_conv_padding_taps_matter(const etr_tensor_t *weight,
                                  const etr_conv2d_geometry_t *g, int64_t numel,
                                  bool dense);

bool etr_conv_depthwise_applies(const etr_tensor_t *input,
                                const etr_tensor_t *out, int64_t groups,
                                const etr_conv2d_geometry_t *g,
                                bool channels_last);

// The depthwise kernels' arguments for image 0 of a call (`taps`: the
// weight packed at load as etr_depthwise_taps_pack lays it out, or NULL).
etr_depthwise_args_t etr_conv_depthwise_args(const etr_tensor_t *input,
                                             const etr_tensor_t *weight,
                                             const etr_tensor_t *bias,
                                             etr_tensor_t *out,
                                             const etr_conv2d_geometry_t *g,
                                             const float *taps);

// `post` (NCHW only) runs over each image's out once the kernel is done,
// unless the ISA has a depthwise kernel that applies it in registers
// (in out-channel chunks sized for L1 it measured no faster). `kernel`:
// etr_depthwise_resolve's for the call, or NULL (etr_depthwise_for's).
void etr_conv_run_depthwise(etr_depthwise_fn kernel,
                            const etr_tensor_t *input,
                            const etr_tensor_t *weight,
                            const etr_tensor_t *bias, etr_tensor_t *out,
                            const etr_conv2d_geometry_t *g, bool channels_last,
                            const etr_conv_post_t *post, const float *taps);

// The direct few-channel kernel per (image, group), NCHW.
void etr_conv_run_direct(etr_depthwise_fn kernel, const etr_tensor_t *input,
                         const etr_tensor_t *weight, const etr_tensor_t *bias,
                         etr_tensor_t *out, int64_t groups,
                         const etr_conv2d_geometry_t *g,
                         const etr_conv_post_t *post);

// Whether the pointwise kernel takes the call: NCHW Float, 1x1, stride 1,
// no padding, one group, weights with a unit channel stride, and at most
// 256 input channels and 32 KiB of weights (the kernel reads both in
// place for every pixel block: they stay in L1; larger layers keep the
// GEMM's packed blocking).
bool etr_conv_pointwise_applies(const etr_tensor_t *input, int64_t groups,
                                const etr_conv2d_geometry_t *g, int64_t ocg);

// Whether a strided 1x1 convolution (stride above 1, no padding) runs
// as the pointwise kernel on its input subsampled into ctx->temp instead
// of the pixel tiles: a call pointwise_applies takes once subsampled, with
// at most 64 input channels, at least twice as many out channels and 64
// or more out pixels (a ResNet shortcut's shape). Where that held the
// pointwise kernel won on Zen 2 (etref run, paired.py, stride 2, in
// channels -> out on a plane): 16 -> 32 on 32x32 7.3 -> 4.3 us, 32 -> 64
// on 24x24 10.7 -> 8.0 (ResNet's), on 16x16 5.0 -> 4.0, 64 -> 128 on 16x16
// 16.3 -> 12.9, on 28x28 50 -> 41. Outside it the pixel tiles won or
// tied: 64 -> 128 on 12x12 (36 pixels) 9.6 vs 10.0 us, 64 -> 96 on 10x10
// 6.1 vs 6.5, 64 -> 64 on 18x18 10.7 vs 10.9, 128 -> 64 on 20x20 24.7 vs
// 25.6, 256 -> 32 on 16x16 16.0 vs 19.5: the pointwise kernel's tiles
// fall behind with many input channels and few pixels.
bool etr_conv_strided_pointwise_applies(const etr_tensor_t *input,
                                        int64_t groups,
                                        const etr_conv2d_geometry_t *g,
                                        int64_t ocg);

// The strided pointwise call (strided_pointwise_applies): per image, the
// input's pixels at the stride copied into channels x out pixels of
// scratch, then the pointwise kernel on them; the same products, each
// out's in channel order. False, having written nothing, without room in
// ctx->temp.
bool etr_conv_run_strided_pointwise(etr_kernel_context_t *ctx,
                                    etr_conv_pointwise_fn kernel,
                                    const etr_tensor_t *input,
                                    const etr_tensor_t *weight,
                                    const etr_tensor_t *bias, etr_tensor_t *out,
                                    const etr_conv2d_geometry_t *g,
                                    const etr_conv_post_t *post);

// The pointwise kernel per image, NCHW.
void etr_conv_run_pointwise(etr_conv_pointwise_fn kernel,
                            const etr_tensor_t *input,
                            const etr_tensor_t *weight,
                            const etr_tensor_t *bias, etr_tensor_t *out,
                            const etr_conv2d_geometry_t *g,
                            const etr_conv_post_t *post, const float *columns);

// ---------------------------------------------------------------------------
// run_planes.c

// The shifted-rows kernel per (image, group), NCHW Float; false, having
// written nothing, when ctx->temp has no room for its padded copy.
bool etr_conv_run_shifted(etr_kernel_context_t *ctx, etr_conv_shifted_fn kernel,
                          const etr_tensor_t *input, const etr_tensor_t *weight,
                          const etr_tensor_t *bias, etr_tensor_t *out,
                          int64_t groups, const etr_conv2d_geometry_t *g,
                          const etr_conv_post_t *post);

// The pixel-tile kernel per (group, image), NCHW Float; false, having
// written nothing, when ctx->temp has no room for the padded copy and one
// group's packed weights. That room is asked for also when `prepacked`
// brings the weights packed at load (every group's; NULL: none), so that
// where the shifted kernel (same sums) would not run, packing at load
// never changes the path.
bool etr_conv_run_pixels(etr_kernel_context_t *ctx, etr_conv_pixels_fn kernel,
                         const etr_tensor_t *input, const etr_tensor_t *weight,
                         const etr_tensor_t *bias, etr_tensor_t *out,
                         int64_t groups, const etr_conv2d_geometry_t *g,
                         const etr_conv_post_t *post, const float *prepacked);

// The Winograd kernel per (group, image), NCHW Float, with the weight
// transformed at load (`prepacked`, every group's) or here: whole into
// ctx->temp for the tile lanes, a block of 8 out channels at a time for
// the position lanes. False when ctx->temp has no room for the kernel's
// scratch and that transformed weight, or a weight or an input value is
// out of its range (conv.h). The room for the weight is asked for also
// when it comes prepacked, so that packing at load never changes the
// path (as for the pixel tiles). Outs written before a decline are
// written again by the caller's other path, which writes every out.
bool etr_conv_run_winograd(etr_kernel_context_t *ctx,
                           etr_conv_winograd_t kernel,
                           const etr_tensor_t *input,
                           const etr_tensor_t *weight, const etr_tensor_t *bias,
                           etr_tensor_t *out, int64_t groups,
                           const etr_conv2d_geometry_t *g,
                           const etr_conv_post_t *post,
                           const float *prepacked);

// The GEMM per (image, group); false when the bias layout is not one the
// GEMM takes.
bool etr_conv_run_gemm(etr_kernel_context_t *ctx, const etr_tensor_t *input,
                       const etr_tensor_t *weight, const etr_tensor_t *bias,
                       etr_tensor_t *out, int64_t groups,
                       etr_conv2d_geometry_t *g, bool channels_last,
                       const etr_conv_post_t *post);

#endif  // ETR_OPS_OPTIMIZED_CONV_RUN_H
