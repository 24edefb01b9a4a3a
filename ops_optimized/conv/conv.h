// SPDX-License-Identifier: Apache-2.0
//
// 2-D convolution (1-D runs as 2-D with a height of 1) for the optimized
// aten::convolution.out:
//   * general convolutions (stride, padding, dilation, groups) are a GEMM
//     per (image, group) whose im2col operand is never materialized: the
//     GEMM's packing reads the input through the sources below, so the only
//     scratch is the GEMM's packed panels (gemm.h);
//       NCHW: out[oc][pixel] = W[oc][k] x im2col[k][pixel], k = (c, kh, kw)
//       NHWC: out[pixel][oc] = im2col[pixel][k] x W^T[k][oc], k = (kh, kw, c)
//   * pointwise (1x1, stride 1, no padding) is the same GEMM reading the
//     input in place as a matrix, or for small Float NCHW layers a direct
//     kernel (etr_conv_pointwise_args_t below);
//   * depthwise (groups == input channels, one or more out channels per
//     group in NCHW, exactly one in NHWC) runs direct kernels per ISA.
// Taps that fall in the padding are skipped by the direct kernels and are
// zeros of the packed panel in the GEMM path, which PyTorch's 0 * inf = NaN
// needs: op_convolution.c sends padded convolutions with a non-finite
// weight to the GEMM path.
#ifndef ETR_OPS_OPTIMIZED_CONV_CONV_H
#define ETR_OPS_OPTIMIZED_CONV_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/scalar_type.h"
#include "core/tensor.h"
#include "ops_optimized/gemm/gemm.h"
#include "ops_optimized/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

// One image's convolution geometry, strides in elements.
typedef struct etr_conv2d_geometry {
  int64_t channels;  // input channels of one group
  int64_t in_h;
  int64_t in_w;
  int64_t out_h;
  int64_t out_w;
  int64_t kernel_h;
  int64_t kernel_w;
  int64_t stride_h;
  int64_t stride_w;
  int64_t pad_h;
  int64_t pad_w;
  int64_t dilation_h;
  int64_t dilation_w;
  int64_t in_stride_c;  // input strides within one image
  int64_t in_stride_h;
  int64_t in_stride_w;
  int64_t w_stride_oc;  // weight strides
  int64_t w_stride_c;
  int64_t w_stride_h;
  int64_t w_stride_w;
  bool channels_last;   // k runs (kh, kw, c) instead of (c, kh, kw)
} etr_conv2d_geometry_t;

// GEMM sources over one image (data = the image's, or the group's, first
// element; generator = the geometry):
// K x pixels, k = (c, kh, kw): the NCHW GEMM's B.
void etr_conv_pack_im2col(const etr_gemm_source_t *source, size_t k0,
                          size_t kc, size_t x0, size_t xc, size_t width,
                          float *dst);
// K x pixels, k = (kh, kw, c): the NHWC GEMM's A (transposed).
void etr_conv_pack_im2col_nhwc(const etr_gemm_source_t *source, size_t k0,
                               size_t kc, size_t x0, size_t xc, size_t width,
                               float *dst);
// The same two, AVX-512 (fp32; other dtypes go to the portable ones).
void etr_conv_pack_im2col_avx512(const etr_gemm_source_t *source, size_t k0,
                                 size_t kc, size_t x0, size_t xc,
                                 size_t width, float *dst);
void etr_conv_pack_im2col_nhwc_avx512(const etr_gemm_source_t *source,
                                      size_t k0, size_t kc, size_t x0,
                                      size_t xc, size_t width, float *dst);
// The im2col packer of `isa` for the layout.
etr_gemm_pack_fn etr_conv_im2col_for(etr_isa_t isa, bool channels_last);
// K x out channels: the weights in the geometry's k order.
void etr_conv_pack_weights(const etr_gemm_source_t *source, size_t k0,
                           size_t kc, size_t x0, size_t xc, size_t width,
                           float *dst);

// Depthwise convolution of one image, fp32.
//   NCHW: out channel oc reads input channel oc / multiplier; input,
//   weight and out planes are addressed through the geometry (weight
//   plane of oc at weight + oc * w_stride_oc), out planes `out_stride_c`
//   apart with rows `out_stride_h` apart and unit column stride.
//   NHWC: one out channel per input channel, channels at unit stride in
//   input and out; out pixels at out + oh * out_stride_h + ow *
//   out_stride_w.
// `channels` is the number of out channels; bias (may be NULL) has one
// value per out channel at bias[oc * bias_stride].
typedef struct etr_depthwise_args {
  const etr_conv2d_geometry_t *geometry;
  const float *input;
  const float *weight;
  const float *bias;
  int64_t bias_stride;
  float *out;
  int64_t out_stride_c;
  int64_t out_stride_h;
  int64_t out_stride_w;
  int64_t channels;
  int64_t multiplier;  // out channels per input channel (NCHW)
  // The weight as vectors of 16 channels' taps, packed at load
  // (etr_depthwise_taps_pack), or NULL: the 16-channel AVX-512 kernels
  // (depthwise_channel_planes_avx512.c, depthwise_channels_avx512.c)
  // then transpose each group's taps per call.
  const float *taps;
} etr_depthwise_args_t;

typedef void (*etr_depthwise_fn)(const etr_depthwise_args_t *args);

void etr_depthwise_nchw_scalar(const etr_depthwise_args_t *args);
void etr_depthwise_nhwc_scalar(const etr_depthwise_args_t *args);
void etr_depthwise_nchw_avx2(const etr_depthwise_args_t *args);
void etr_depthwise_nhwc_avx2(const etr_depthwise_args_t *args);
void etr_depthwise_nchw_avx512(const etr_depthwise_args_t *args);
// Its path for square kernels of 2 and 4 to 7 at stride 1 or 2 on planes
// whose zero-padded copy fits its stack scratch (rows of at most 64 with
// the padding, 4096 elements): every tap a constant shift of a phase plane
// (depthwise_padded_avx512.c).
bool etr_depthwise_padded_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise_padded_nchw_avx512(const etr_depthwise_args_t *args);
// Stride-1 kernels other than 3x3 on planes of more than 16 outputs, as
// shifted rows of one zero-padded plane on the stack (at most 8192 floats
// with the reads' reach, 128 vectors of positions, three quarters of
// them outputs; depthwise_shifted_avx512.c). Dense out planes.
bool etr_depthwise_shifted_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise_shifted_nchw_avx512(const etr_depthwise_args_t *args);
// Square 5x5 and 7x7 kernels at stride 1 or 2 (dilation 1) with at
// least 7 out columns: 16 channels a vector, transposed into and out of
// a stack buffer of cells (depthwise_channels_avx512.c) that holds the
// padded window of a plane (out rows of at most 16, 576 cells) or a ring
// of K padded rows (1024 cells with a row of zeros). The caller checks
// for a multiplier of 1 and unit out column stride.
bool etr_depthwise_channels_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise_channels_nchw_avx512(const etr_depthwise_args_t *args);
// NCHW 5x5 planes of at most 16 outputs of the shapes it compiles (4x4 at
// stride 1, padding 2), 16 channels a vector, one out
// channel per input channel, dense input and out planes
// (depthwise_channel_planes_avx512.c).
bool etr_depthwise_channel_planes_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise_channel_planes_nchw_avx512(
    const etr_depthwise_args_t *args);
// Kernels of 5 or 7 rows (dilation 1 along rows) at stride 1 or 2 on
// planes whose zero-padded copy fits 8192 floats on the stack, with out
// rows at least half a padded row (half of a row's columns at stride 2)
// and more than 16 outputs: bands of up to 16 out rows (8 at stride 2) of
// one vector, each loaded input vector used by every kernel row
// (depthwise_bands_avx512.c). Out rows out_stride_h apart.
bool etr_depthwise_bands_nchw_avx512_applies(const etr_conv2d_geometry_t *g);
void etr_depthwise_bands_nchw_avx512(const etr_depthwise_args_t *args);
// Any kernel and any stride, padding and dilation up to 64 on planes of
// at most 16 outputs from at most 64 inputs: one vector per channel, each tap a
// permutation of the plane held in registers (depthwise_tiny_avx512.c).
bool etr_depthwise_tiny_nchw_avx512_applies(const etr_conv2d_geometry_t *g);
void etr_depthwise_tiny_nchw_avx512(const etr_depthwise_args_t *args);
void etr_depthwise_nhwc_avx512(const etr_depthwise_args_t *args);
void etr_depthwise_nchw_neon(const etr_depthwise_args_t *args);
void etr_depthwise_nhwc_neon(const etr_depthwise_args_t *args);
// NCHW 3x3, stride 1 or 2 along rows, dilation 1, unit column stride,
// rows of at least 8 outputs: whether it applies, and the kernel
// (depthwise3x3_avx512.c; etr_depthwise_nchw_avx512 picks it).
bool etr_depthwise3x3_nchw_avx512_applies(const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_nchw_avx512(const etr_depthwise_args_t *args);
// NCHW 3x3, stride 1, rows as wide as the output's, at most 64 outputs
// per plane, taken flat (the same file).
bool etr_depthwise3x3_small_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_small_nchw_avx512(const etr_depthwise_args_t *args);
// NCHW 3x3, stride 1, padding 1, dilation 1, dense planes of at most 64
// elements in rows of 2..15, held in registers
// (depthwise3x3_plane_avx512.c). Like the flat kernels above, it writes
// each out plane densely (out_stride_h == out_w); channels = 1 (one
// plane per call) costs a setup of about 10 ns per call.
bool etr_depthwise3x3_plane_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_plane_nchw_avx512(const etr_depthwise_args_t *args);
// NCHW 3x3, stride 2, dilation 1, rows of at most 16 inputs and 8
// outputs, two output rows per vector, dense out planes (the same file).
bool etr_depthwise3x3_s2_rows_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_s2_rows_nchw_avx512(const etr_depthwise_args_t *args);
// NCHW 3x3, stride 1, padding 1, dilation 1, rows of 8..16 as one vector
// each, any height, unit column stride
// (depthwise3x3_row_vector_avx512.c).
bool etr_depthwise3x3_row_vector_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_row_vector_nchw_avx512(
    const etr_depthwise_args_t *args);
// NCHW 3x3, stride 1, padding 1, dilation 1, rows of more than 16, any
// height, unit column stride, row by row (depthwise3x3_s1_rows_avx512.c).
bool etr_depthwise3x3_s1_rows_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_s1_rows_nchw_avx512(const etr_depthwise_args_t *args);
// NCHW 3x3, stride 2, padding 1, dilation 1, dense input planes of even
// sizes (twice the output's) and at most 64 elements, split by parity in
// registers (depthwise3x3_s2_plane_avx512.c).
bool etr_depthwise3x3_s2_plane_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_s2_plane_nchw_avx512(const etr_depthwise_args_t *args);
// Its 5x5 twin: stride 2, padding 2, even planes of at most 64 elements,
// split by parity in registers (depthwise5x5_s2_plane_avx512.c).
bool etr_depthwise5x5_s2_plane_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise5x5_s2_plane_nchw_avx512(const etr_depthwise_args_t *args);
// NCHW 3x3, stride 2, padding 1, dilation 1, rows of 17..32 inputs as
// two vectors split by column parity, any height, unit column stride
// (the same file).
bool etr_depthwise3x3_s2_row_vector_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_s2_row_vector_nchw_avx512(
    const etr_depthwise_args_t *args);
// NCHW 3x3, stride 2, padding 1, dilation 1, rows of 33 or more inputs
// walked 32 inputs per vector pair split by column parity, unit column
// stride (depthwise3x3_s2_wide_avx512.c).
bool etr_depthwise3x3_s2_wide_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_s2_wide_nchw_avx512(const etr_depthwise_args_t *args);
// NCHW 5x5, stride 2, padding 2, dilation 1, rows of 17 or more inputs
// split by column parity, unit column stride
// (depthwise5x5_s2_wide_avx512.c).
bool etr_depthwise5x5_s2_wide_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise5x5_s2_wide_nchw_avx512(const etr_depthwise_args_t *args);
// 5x5 at stride 1, padding 2, on square planes of 12 to 16 with dense
// 5x5 weights per channel: one vector per out row, the plane's rows all
// summed at once, read straight from the input by masked loads
// (depthwise5x5_same_avx512.c).
bool etr_depthwise5x5_same_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise5x5_same_nchw_avx512(const etr_depthwise_args_t *args);
// NCHW 3x3, stride 2, padding 1, dilation 1, rows of at most 16 inputs,
// two output rows per vector split by column parity, dense out planes,
// unit column stride (depthwise3x3_s2_narrow_avx512.c).
bool etr_depthwise3x3_s2_narrow_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_s2_narrow_nchw_avx512(const etr_depthwise_args_t *args);
// NCHW 3x3, any stride and dilation, input planes of at most 64 dense
// elements and outputs of at most 16, from registers (the same file).
bool etr_depthwise3x3_tiny_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_tiny_nchw_avx512(const etr_depthwise_args_t *args);

// Direct NCHW convolution of one image and group for few input channels
// (out channels = `channels`, input channels = geometry->channels, weight
// element (oc, c, kh, kw) through the geometry's weight strides, dense out
// planes); multiplier unused.
void etr_conv_direct_nchw_avx512(const etr_depthwise_args_t *args);
// Its stem path: square k x k kernels (k from 2 to 7), stride 1 or 2 both
// ways, dilation 1, at most 3 input channels, unit column stride, rows of
// at least 64 outputs for 3x3 and 8 for larger kernels; reads from a
// zero-padded stack band (stem_avx512.c).
bool etr_conv_stem_nchw_avx512_applies(const etr_depthwise_args_t *args);
void etr_conv_stem_nchw_avx512(const etr_depthwise_args_t *args);
// Its case on rows of 8 to 48 outputs with at most 16 columns of padding,
// from one band per 8 output rows, and at stride 1 of up to 16 input
// channels on rows of 16, 32 or 48 (stem3x3_narrow_avx512.c).
bool etr_conv_stem3x3_narrow_nchw_avx512_applies(
    const etr_depthwise_args_t *args);
void etr_conv_stem3x3_narrow_nchw_avx512(const etr_depthwise_args_t *args);
// The direct kernel of `isa`, or NULL when it has none. It takes only the
// geometries etr_conv_direct_takes accepts.
etr_depthwise_fn etr_conv_direct_for(etr_isa_t isa);
// Whether the direct kernel of `isa` takes `g` (a group's geometry,
// NCHW Float): on AVX-512 at most 4 input channels and 32 products per
// output at stride 1, or at stride 2 along rows of 8 or more outputs, and
// past that limit 3x3 stride-1 layers of up to 16 input channels on
// narrow rows (stem3x3_narrow_avx512.c) and stems whose kernels have more
// than 32 products per output (stem_avx512.c: ResNet's 7x7); on AVX2 the
// stems of stem_avx2.c.
bool etr_conv_direct_takes(etr_isa_t isa, const etr_conv2d_geometry_t *g);

// Whether any of `count` floats (at `data`, dense) is an inf or a NaN: the
// padding-tap weight scan of op_convolution.c, which a small depthwise
// layer pays on every call. etr_conv_any_nonfinite_for returns the
// version of `isa`, or NULL when it has none (the op's portable loop).
typedef bool (*etr_conv_nonfinite_fn)(const float *data, int64_t count);
bool etr_conv_any_nonfinite_avx512(const float *data, int64_t count);
etr_conv_nonfinite_fn etr_conv_any_nonfinite_for(etr_isa_t isa);

// The depthwise kernel of `isa` for the layout.
etr_depthwise_fn etr_depthwise_for(etr_isa_t isa, bool channels_last);

// The kernel etr_depthwise_for's would run for `args` (its geometry,
// channels, multiplier and out layout; not its data or taps): for
// AVX-512 NCHW the shape's own kernel, picked once (the op keeps it in
// its plan: the pick walks some twenty shape tests), else
// etr_depthwise_for's.
etr_depthwise_fn etr_depthwise_resolve(etr_isa_t isa, bool channels_last,
                                       const etr_depthwise_args_t *args);
// etr_depthwise_nchw_avx512's pick for `args`.
etr_depthwise_fn etr_depthwise_nchw_avx512_kernel(
    const etr_depthwise_args_t *args);

// A depthwise weight (multiplier 1, NCHW) as the 16-channel kernels read
// it: for channels c0 = 0, 16, ..., then tap t = kh * kernel_w + kw, the
// 16 channels' weights of that tap (zeros past the last channel) at
// dst[(c0 * taps + 16 t) ..], so a group's taps are taps vectors in a row
// (64-byte aligned when dst is). etr_depthwise_taps_floats floats.
// Transposing them per call cost the 120x4x4 5x5 layer (mobilenet_v3)
// 1.6x its time (conv_kernel_bench on Zen 4: 1.13 -> 0.71 us without).
// etr_conv_packed_t.panel is ETR_CONV_DEPTHWISE_TAPS_PANEL for it.
#define ETR_CONV_DEPTHWISE_TAPS_PANEL (-100)
size_t etr_depthwise_taps_floats(const etr_conv2d_geometry_t *g,
                                 int64_t channels);
void etr_depthwise_taps_pack(const float *weight,
                             const etr_conv2d_geometry_t *g,
                             int64_t channels, float *dst);
// Whether `isa`'s NCHW depthwise kernel reads args->taps for this call
// (an AVX-512 16-channel kernel takes it).
bool etr_depthwise_reads_taps(etr_isa_t isa, const etr_depthwise_args_t *args);
bool etr_depthwise_nchw_avx512_reads_taps(const etr_depthwise_args_t *args);

// The output positions [*first, *end) of a dim of `out_size` whose tap at
// `offset` (kernel index * dilation) reads inside [0, in_size): position o
// reads o * stride - pad + offset. Shared by the kernels' edge handling.
void etr_conv_valid_range(int64_t out_size, int64_t in_size, int64_t stride,
                          int64_t pad, int64_t offset, int64_t *first,
                          int64_t *end);

// ---------------------------------------------------------------------------
// The fused epilogue of a convolution followed by an inference batch norm
// and/or a hardtanh or relu (ops_optimized/fuse/fuse.h): for out channel c,
// v = fma(v, scale[c], shift[c]) when scale is set (the optimized batch
// norm's alpha and beta, norm/norm.h), then v = v < low ? low : v and
// v = v > high ? high : v (hardtanh and relu as their optimized kernels
// compute them: NaN passes, -0.0 stays; +-inf limits change nothing). The
// same bits as running the kernels one after another.
struct etr_conv_post;
// Rows x cols of an NCHW out (row r = channel channel0 + r, rows `stride`
// floats apart, unit column stride), in place.
typedef void (*etr_conv_post_rows_fn)(const struct etr_conv_post *post,
                                      size_t channel0, float *c,
                                      ptrdiff_t stride, size_t rows,
                                      size_t cols);
// A convolution's constant weight at `from`, packed once at load for the
// pixel-tile kernel (etr_conv_pixels_pack, every group): by fusion for a
// fused call (etr_conv_post_t.packed), by etr_opt_prepack_method
// (fuse/fuse.h) as an unfused call's kernel state (ctx->state). A call
// uses it only while its weight is still at `from` and the active ISA's
// kernel reads panels of the width it was packed in.
typedef struct etr_conv_packed {
  const float *weight;  // NULL: packed per call
  const void *from;
  int64_t panel;  // the panel width it was packed in (the ISA's)
  // A transposed convolution's: its GEMM's packed A (weight is its
  // panels, panel ETR_CONV_TRANSPOSED_PANEL).
  const etr_gemm_packed_a_t *gemm_a;
} etr_conv_packed_t;

typedef struct etr_conv_post {
  const float *scale;  // one per out channel; NULL: no batch norm
  const float *shift;
  float low;           // -inf: none
  float high;          // +inf: none
  etr_conv_post_rows_fn rows;  // etr_conv_post_rows_for(the active ISA)
  bool weight_finite;  // the (constant) weight has no inf or NaN: the
                       // padding-tap scan can be skipped
  bool checked;  // the caller vouches that the call is the one the
                 // reference's dry run accepted (static shapes, nothing
                 // changed since): etr_conv_run_fused skips that check
  etr_gemm_post_t gemm;        // {etr_conv_post_gemm, this}
  etr_conv_packed_t packed;  // the weight packed at fusion, if it was
} etr_conv_post_t;

void etr_conv_post_rows_scalar(const etr_conv_post_t *post, size_t channel0,
                               float *c, ptrdiff_t stride, size_t rows,
                               size_t cols);
void etr_conv_post_rows_avx2(const etr_conv_post_t *post, size_t channel0,
                             float *c, ptrdiff_t stride, size_t rows,
                             size_t cols);
void etr_conv_post_rows_avx512(const etr_conv_post_t *post, size_t channel0,
                               float *c, ptrdiff_t stride, size_t rows,
                               size_t cols);
void etr_conv_post_rows_neon(const etr_conv_post_t *post, size_t channel0,
                             float *c, ptrdiff_t stride, size_t rows,
                             size_t cols);
etr_conv_post_rows_fn etr_conv_post_rows_for(etr_isa_t isa);
// A depthwise kernel that applies the fused post itself, in registers,
// to out channel oc with scale[oc] / shift[oc] (post NULL: none; the same
// bits as the kernel then post->rows over the out planes).
typedef void (*etr_depthwise_post_fn)(const etr_depthwise_args_t *args,
                                      const etr_conv_post_t *post);
// NCHW, AVX2: eight channels per vector over a zero-padded tile of their
// pixels (depthwise_blocked_avx2.c); etr_depthwise_nchw_avx2 picks it
// where it applies (and the rows kernel does not win): a multiplier of
// 1, at least 8 channels, unit input column stride, column stride 1 or
// 2, at most 64 taps, dimensions up to 4096, and a plane that fits its
// tiles (1024 out pixels, 1536 padded input pixels) whole or in bands of
// at least 4 out rows.
bool etr_depthwise_blocked_nchw_avx2_applies(const etr_conv2d_geometry_t *g,
                                             int64_t channels,
                                             int64_t multiplier);
void etr_depthwise_blocked_nchw_avx2(const etr_depthwise_args_t *args,
                                     const etr_conv_post_t *post);
// NCHW, AVX2: 3x3 at stride 1 or 2 (both ways), padding 1, dilation 1,
// a multiplier of 1, unit input column stride, out rows of at most 128,
// one channel at a time over zero-padded stack copies of its input rows
// (depthwise_rows_avx2.c).
bool etr_depthwise_rows_nchw_avx2_applies(const etr_conv2d_geometry_t *g,
                                          int64_t channels,
                                          int64_t multiplier);
void etr_depthwise_rows_nchw_avx2(const etr_depthwise_args_t *args,
                                  const etr_conv_post_t *post);
// NCHW, AVX2: 3x3, stride 2, padding 1, dilation 1, unit input column
// stride, any channel multiplier; input rows read in place and split by
// column parity in registers (depthwise3x3_s2_avx2.c). Each out is two
// FMA chains from +0.0, kernel columns 1 and 2 row by row and column 0,
// summed, then + bias (not the single chain of the kernels above). The
// caller checks for unit out column stride. Applies `post` (NULL: none).
// _wins: where it applies and was measured faster than the blocked and
// rows kernels (out rows of 8 or more, or where the blocked kernel does
// not apply); etr_depthwise_nchw_avx2 and etr_depthwise_with_post_for
// ask it first.
bool etr_depthwise3x3_s2_avx2_wins(const etr_conv2d_geometry_t *g,
                                   int64_t channels, int64_t multiplier);
void etr_depthwise3x3_s2_nchw_avx2(const etr_depthwise_args_t *args,
                                   const etr_conv_post_t *post);
// NCHW, AVX2: 3x3, stride 1, padding 1, dilation 1 on rows of 4 (unit
// input column stride, any channel multiplier): two rows a vector, the
// taps in-lane shifts (depthwise3x3_w4_avx2.c); one FMA chain per out as
// the kernels above. The caller checks for unit out column stride;
// etr_depthwise_nchw_avx2 and etr_depthwise_with_post_for ask it first.
// Applies `post` (NULL: none).
bool etr_depthwise3x3_w4_nchw_avx2_applies(const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_w4_nchw_avx2(const etr_depthwise_args_t *args,
                                   const etr_conv_post_t *post);
// The same file's stride-2 twin on rows of 8 (out rows of 4): two out rows
// a vector, each input row split into its even and odd columns.
bool etr_depthwise3x3_s2_w4_nchw_avx2_applies(
    const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_s2_w4_nchw_avx2(const etr_depthwise_args_t *args,
                                      const etr_conv_post_t *post);
// And 3x3 stride 1 on rows of 8 or 16: an out row one or two vectors, the
// column taps masked loads at -1 and +1.
bool etr_depthwise3x3_w8_nchw_avx2_applies(const etr_conv2d_geometry_t *g);
void etr_depthwise3x3_w8_nchw_avx2(const etr_depthwise_args_t *args,
                                   const etr_conv_post_t *post);
// Whether etr_depthwise_nchw_avx2 (and etr_depthwise_with_post_for)
// pick the rows kernel: where it applies and the blocked kernel does not
// (fewer than 8 channels, planes whose bands would be thinner than 4 out
// rows), where it was measured faster than depthwise_avx2.c's phase
// planes, and at stride 1 on rows of 28 or more. (At stride 2 the
// kernel above takes all of these with a unit out column stride.)
bool etr_depthwise_rows_avx2_wins(const etr_conv2d_geometry_t *g,
                                  int64_t channels, int64_t multiplier);
// The kernel of `isa` that takes `args` with a post (NCHW), or NULL: run
// etr_depthwise_for's kernel and then the post (depthwise_scalar.c).
// AVX2's kernel for `args` (NCHW) among those that take a post, in the
// order measured (depthwise3x3_w4_avx2.c's, the 3x3 stride-2 kernel, the
// rows and the blocked kernels), or NULL: etr_depthwise_nchw_avx2 runs
// it (post NULL) and etr_depthwise_with_post_for returns it.
etr_depthwise_post_fn etr_depthwise_post_kernel_avx2(
    const etr_depthwise_args_t *args);
etr_depthwise_post_fn etr_depthwise_with_post_for(
    etr_isa_t isa, const etr_depthwise_args_t *args);
// AVX2's direct kernel, for stems only: square k x k kernels (k from 2
// to 7), stride 1 or 2 both ways, dilation 1, at most 3 input channels,
// unit column stride, rows of at least 8 outputs, from a zero-padded
// stack band (stem_avx2.c). The _post version applies `post` (NULL: none)
// in registers to out channel oc with scale[oc] / shift[oc]: the same
// bits as the kernel and then post->rows.
bool etr_conv_stem_nchw_avx2_applies(const etr_conv2d_geometry_t *g);
void etr_conv_stem_nchw_avx2(const etr_depthwise_args_t *args);
void etr_conv_stem_nchw_avx2_post(const etr_depthwise_args_t *args,
                                  const etr_conv_post_t *post);
// The direct kernel of `isa` that applies a post itself (see
// etr_conv_stem_nchw_avx2_post), or NULL.
etr_depthwise_post_fn etr_conv_direct_with_post_for(etr_isa_t isa);
// etr_gemm_post_t.apply for an NCHW convolution's GEMM (rows = channels).
void etr_conv_post_gemm(const etr_gemm_post_t *gemm, float *c,
                        ptrdiff_t c_stride, size_t row0, size_t rows,
                        size_t cols);

// Pointwise NCHW convolution of one image (1x1, stride 1, no padding, one
// group), fp32: out[oc][p] = sum_c weight[oc][c] * input[c][p] + bias[oc],
// then `post` (NULL: none) for out channel post_channel0 + oc. Input rows
// (channels) `input_stride` apart, weight rows (out channels)
// `weight_stride` apart with unit channel stride, out rows `out_stride`
// apart; pixels at unit stride everywhere. The sum is one FMA chain per
// output in channel order starting from bias + 0.0 (pointwise_avx512.c,
// pointwise_avx2.c: the same bits), except on one pixel: there S =
// etr_conv_one_pixel_chains(isa, out_channels) chains, chain j the FMAs
// of the input channels k = j (mod S) in order, chain 0 from bias + 0.0
// and the others from +0.0, summed as c0 + c1 (S = 2) or (c0 + c1) +
// (c2 + c3) (S = 4); with or without `columns`.
typedef struct etr_conv_pointwise_args {
  const float *input;
  int64_t input_stride;
  const float *weight;
  int64_t weight_stride;
  const float *bias;  // may be NULL
  int64_t bias_stride;
  float *out;
  int64_t out_stride;
  int64_t out_channels;
  int64_t in_channels;
  int64_t pixels;
  const etr_conv_post_t *post;
  int64_t post_channel0;
  // NULL, or (AVX-512 and AVX2, one-pixel images) the weight packed as
  // columns by etr_conv_columns_pack: read instead of `weight`, the same
  // sums.
  const float *columns;
} etr_conv_pointwise_args_t;

typedef void (*etr_conv_pointwise_fn)(const etr_conv_pointwise_args_t *args);

void etr_conv_pointwise_nchw_avx512(const etr_conv_pointwise_args_t *args);
void etr_conv_pointwise_nchw_avx2(const etr_conv_pointwise_args_t *args);
// The pointwise kernel of `isa`, or NULL when it has none (conv_pack.c).
etr_conv_pointwise_fn etr_conv_pointwise_for(etr_isa_t isa);

// A pointwise weight [out_channels][in_channels] (rows `weight_stride`
// apart) as columns, for one-pixel images (the squeeze-and-excitation 1x1
// convolutions): input channel k's weights of out channels j at dst[k *
// etr_conv_columns_pitch(out_channels) + j], zeros up to the pitch, so
// that 16 out channels are one vector load per input channel (conv_pack.c).
// etr_conv_packed_t.panel is ETR_CONV_COLUMNS_PANEL for it.
#define ETR_CONV_COLUMNS_PANEL (-16)
// etr_conv_packed_t.panel of a transposed convolution's packed weight.
#define ETR_CONV_TRANSPOSED_PANEL (-17)
int64_t etr_conv_columns_pitch(int64_t out_channels);
// The chains per output of `isa`'s one-pixel pointwise kernel: 4 for at
// most 16 out channels (AVX-512: 32), 2 for at most 32, else 1. With one
// chain a 96 -> 24 layer waited out 96 dependent FMAs (4 cycles each) on
// 2 vectors; AVX-512 has the registers for 4 chains of 2 vectors (96 ->
// 24 72 -> 66 ns, 120 -> 30 96 -> 78 ns paired on the Zen 5 of
// 2026-12-07), AVX2 not for 4 of 4.
int etr_conv_one_pixel_chains(etr_isa_t isa, int64_t out_channels);
void etr_conv_columns_pack(const float *weight, int64_t weight_stride,
                           int64_t out_channels, int64_t in_channels,
                           float *dst);

// Stride-1 NCHW convolution of one image and group from a zero-padded
// copy of its input (shifted_avx512.c): each tap's im2col row is the
// padded plane shifted, read in place (no packing). Takes geometries with
// stride 1, unit input column stride, weight rows of (c, kh, kw) at unit
// stride, at most ETR_CONV_SHIFTED_MAX_TAPS taps, at least 32 products per
// output, at least 92% of the GEMM's share of useful lanes, one tile's
// padded rows within 32 KiB and scratch of at most
// ETR_CONV_SHIFTED_MAX_SCRATCH_FLOATS (etr_conv_shifted_nchw_avx512_applies).
#define ETR_CONV_SHIFTED_MAX_TAPS 49
#define ETR_CONV_SHIFTED_MAX_SCRATCH_FLOATS (128 * 1024)
typedef struct etr_conv_shifted_args {
  const etr_conv2d_geometry_t *g;  // the group's geometry
  const float *input;   // the image's (group's) first channel
  const float *weight;  // the group's first out channel
  int64_t weight_stride;  // out channels apart
  const float *bias;    // the group's first; may be NULL
  int64_t bias_stride;
  float *out;           // dense out planes, `out_stride` apart
  int64_t out_stride;
  int64_t out_channels;
  const etr_conv_post_t *post;  // may be NULL
  int64_t post_channel0;
  float *scratch;  // etr_conv_shifted_scratch_floats(g) floats
  // The position-lane Winograd kernel only, when `weight` is NULL: the
  // group's own weight (strides from g), transformed per block of 8 out
  // channels into `chunk` (etr_conv_winograd_chunk_floats).
  const float *raw_weight;
  float *chunk;
} etr_conv_shifted_args_t;
typedef void (*etr_conv_shifted_fn)(const etr_conv_shifted_args_t *args);
bool etr_conv_shifted_nchw_avx512_applies(const etr_conv2d_geometry_t *g);
// Without padding the input is the padded plane (read in place).
static inline bool etr_conv_shifted_reads_in_place(
    const etr_conv2d_geometry_t *g) {
  return g->pad_h == 0 && g->pad_w == 0 && g->in_stride_w == 1;
}
// The padded plane's row width S: pad_w zeros, then an input row (the
// next row's zeros are this one's right padding).
static inline int64_t etr_conv_shifted_row_width(
    const etr_conv2d_geometry_t *g) {
  return etr_conv_shifted_reads_in_place(g) ? g->in_stride_h
                                            : g->in_w + g->pad_w;
}
// Floats of one channel's padded plane: pad_h zero rows above and below,
// and pad_w zeros after the last row (its right padding).
static inline int64_t etr_conv_shifted_plane_floats(
    const etr_conv2d_geometry_t *g) {
  return (g->in_h + 2 * g->pad_h) * (g->in_w + g->pad_w) + g->pad_w;
}
// Scratch floats of the padded copy of one image's (group's) channels.
static inline size_t etr_conv_shifted_scratch_floats(
    const etr_conv2d_geometry_t *g) {
  return etr_conv_shifted_reads_in_place(g)
             ? 0
             : (size_t)(g->channels * etr_conv_shifted_plane_floats(g));
}
void etr_conv_shifted_nchw_avx512(const etr_conv_shifted_args_t *args);
// The shifted kernel of `isa` when it takes `g`, else NULL (conv_pack.c).
etr_conv_shifted_fn etr_conv_shifted_for(etr_isa_t isa,
                                         const etr_conv2d_geometry_t *g);

// The zero-padded planes the shifted-rows and pixel-tile kernels read:
// rows `stride` floats apart (pad_w zeros, then an input row), channels
// `plane` floats apart, pad_h zero rows above and below. Written into
// `scratch` (etr_conv_shifted_scratch_floats(g) floats), or the input
// itself when it needs no padding (shifted_avx512.c).
typedef struct etr_conv_padded {
  const float *base;
  int64_t stride;
  int64_t plane;
} etr_conv_padded_t;
etr_conv_padded_t etr_conv_pad_planes(const etr_conv2d_geometry_t *g,
                                      const float *input, float *scratch);

// NCHW convolution of one image and group with the out pixels as the
// product's rows and the out channels as its columns (pixels_avx512.c):
// out[o][p] = sum over k = (c, kh, kw) of x_p[k] * W[o][k], where x_p[k]
// is read (broadcast) straight from the zero-padded planes at pixel p's
// position, any stride and dilation, so neither an im2col panel nor
// dropped positions; W comes packed, K rows of the ISA's panel width of
// out channels per panel (etr_conv_pixels_pack). AVX-512: tiles of 6
// pixels by 64 out channels fill on the small planes of ResNet's deeper
// layers (12x12, 6x6), where the GEMM and the shifted rows lose a quarter
// of their lanes. AVX2 (pixels_avx2.c): tiles of 6 pixels by 16, panels
// of 16, on planes up to 112x112, in place of a GEMM that packs its
// im2col panels per call. Each out is one FMA chain over k in order
// from +0.0, then + bias, then the post, as in the shifted kernel: the
// same bits on both ISAs. Takes NCHW geometries with unit input column
// stride, weight rows of (c, kh, kw) at unit stride, at most
// ETR_CONV_SHIFTED_MAX_TAPS taps and at least 32 products per output
// (etr_conv_pixels_nchw_<isa>_applies, which also ask for out channels
// and plane sizes where they measured faster).
#define ETR_CONV_PIXELS_PANEL_AVX512 64
#define ETR_CONV_PIXELS_PANEL_AVX2 16
// The panel width of `isa`'s pixel-tile kernel (0: it has none).
int64_t etr_conv_pixels_panel(etr_isa_t isa);
// Its arguments are the shifted kernel's, with `weight` the group's
// packed panels (weight_stride unused).
typedef etr_conv_shifted_args_t etr_conv_pixels_args_t;
typedef void (*etr_conv_pixels_fn)(const etr_conv_pixels_args_t *args);
bool etr_conv_pixels_nchw_avx512_applies(const etr_conv2d_geometry_t *g,
                                         int64_t out_channels);
void etr_conv_pixels_nchw_avx512(const etr_conv_pixels_args_t *args);
bool etr_conv_pixels_nchw_avx2_applies(const etr_conv2d_geometry_t *g,
                                       int64_t out_channels);
void etr_conv_pixels_nchw_avx2(const etr_conv_pixels_args_t *args);
// Scratch floats of the padded planes the kernel of `isa` holds at once
// (`args->scratch`): all channels' (etr_conv_shifted_scratch_floats) on
// AVX-512; on AVX2 a pass's, which takes the channels in passes of at
// most 192 Ki floats (the sums carried over between passes in the out,
// so the bits are those of one pass).
size_t etr_conv_pixels_nchw_avx2_scratch_floats(
    const etr_conv2d_geometry_t *g);
size_t etr_conv_pixels_scratch_floats(etr_isa_t isa,
                                      const etr_conv2d_geometry_t *g);
// Floats of a group's packed weights, and the packing, for the active
// ISA's kernel: `out_channels` rows of `depth` (= channels x taps)
// floats, `weight_stride` apart, into panels of K x PANEL, PANEL =
// etr_conv_pixels_panel(etr_isa_active()) (out channel j of panel q,
// step k at dst[(q * depth + k) * PANEL + j]; zeros past the last
// channel); the GEMM's panel format, packed by the active ISA's GEMM
// column packer (conv_pack.c).
size_t etr_conv_pixels_packed_floats(int64_t out_channels, int64_t depth);
void etr_conv_pixels_pack(const float *weight, int64_t weight_stride,
                          int64_t out_channels, int64_t depth, float *dst);
// The pixel-tile kernel of `isa` when it takes `g` with `out_channels`
// per group, else NULL (conv_pack.c).
etr_conv_pixels_fn etr_conv_pixels_for(etr_isa_t isa,
                                       const etr_conv2d_geometry_t *g,
                                       int64_t out_channels);

// 3x3 stride-1 padding-1 NCHW convolution of one image and group as
// 3x3 stride-1 padding-1 NCHW convolution of one image and group as
// Winograd's F(2x2, 3x3): at least 8 input and 8 out channels; 16
// products per 2x2 outputs and channel pair instead of 36. The sums round
// differently from the direct ones (exact on small integer data). The
// weight comes transformed (etr_conv_winograd_pack: U = G g G^T, 16
// positions per channel pair), weight_stride unused; scratch of
// etr_conv_winograd_scratch_floats. A kernel returns false, having
// written nothing, when an input value is inf, NaN or beyond 2^40 in
// magnitude (the transforms would turn a direct sum's inf into NaN or
// overflow): the caller runs another kernel. etr_conv_winograd_pack
// returns false likewise for such a weight, and so does the position
// lanes' kernel given the weight unpacked (raw_weight), on reaching its
// block, with the outs of earlier blocks written: the caller's other
// kernel writes every out again.
// Two layouts, two kernels:
//   tile lanes (winograd_avx512.c): a tile row's tiles are a vector's
//     lanes, strips of 32 columns, blocks of whole tile rows (at most 48
//     tiles); U position p of out channel o and input channel c at
//     dst[((p * ceil(oc / 8) + o / 8) * channels + c) * 8 + o % 8];
//   position lanes (winograd_positions_avx512.c): the 16 positions of a
//     tile are a vector's lanes, for planes whose tiles would leave the
//     other's lanes empty; U at dst[((o / 8 * channels + c) * 8 + o % 8)
//     * 16 + p].
// Zeros past the last out channel in both.
typedef enum etr_conv_winograd_layout {
  ETR_CONV_WINOGRAD_TILE_LANES = 0,
  ETR_CONV_WINOGRAD_POSITION_LANES = 1,
} etr_conv_winograd_layout_t;
// etr_conv_packed_t.panel of a weight packed for `layout`.
#define ETR_CONV_WINOGRAD_PANEL(layout) (-18 - (int64_t)(layout))
// The tile-lane kernel's blocks: as many whole tile rows as fit 48 lanes
// (3 vectors), each of the 16 positions' planes a cache line more than
// its channels' lanes (the 16 stores of the input transform at 6 or 12
// KiB strides fell in the same L1 sets: 17 -> 10 us on ResNet's 32x24x24
// layer).
#define ETR_CONV_WINOGRAD_BLOCK_LANES 48
static inline int64_t etr_conv_winograd_block_rows(int64_t tile_cols) {
  return ETR_CONV_WINOGRAD_BLOCK_LANES / tile_cols;
}
static inline int64_t etr_conv_winograd_position_floats(int64_t channels,
                                                        int64_t lanes) {
  return channels * lanes + 16;
}
// The position-lane kernel's tiles, rounded up to its 3 tiles a step.
static inline int64_t etr_conv_winograd_positions_tiles(
    const etr_conv2d_geometry_t *g) {
  return (((g->out_h + 1) / 2) * ((g->out_w + 1) / 2) + 2) / 3 * 3;
}
typedef etr_conv_shifted_args_t etr_conv_winograd_args_t;
typedef bool (*etr_conv_winograd_fn)(const etr_conv_winograd_args_t *args);
typedef struct etr_conv_winograd {
  etr_conv_winograd_fn run;  // NULL: none
  etr_conv_winograd_layout_t layout;
} etr_conv_winograd_t;
// The share of the tile-lane kernel's lanes that hold tiles.
double etr_conv_winograd_utilization(const etr_conv2d_geometry_t *g);
bool etr_conv_winograd_nchw_avx512_applies(const etr_conv2d_geometry_t *g,
                                           int64_t out_channels);
bool etr_conv_winograd_nchw_avx512(const etr_conv_winograd_args_t *args);
// The AVX2 tile lanes (winograd_avx2.c): strips of 16 columns in blocks
// of 3 vectors of 8 lanes: 3 tile rows of a full strip (8 tiles a row),
// or as many whole tile rows of a narrower one as fit 24 lanes, packed;
// the tile-lane weight layout, scratch within
// etr_conv_winograd_scratch_floats's. Planes whose blocks would leave
// over 30% of the lanes empty (etr_conv_winograd_avx2_utilization) stay
// with the direct kernels.
static inline int64_t etr_conv_winograd_avx2_block_rows(int64_t tile_cols) {
  return tile_cols == 8 ? 3 : 24 / tile_cols;
}
double etr_conv_winograd_avx2_utilization(const etr_conv2d_geometry_t *g);
bool etr_conv_winograd_nchw_avx2_applies(const etr_conv2d_geometry_t *g,
                                         int64_t out_channels);
bool etr_conv_winograd_nchw_avx2(const etr_conv_winograd_args_t *args);
bool etr_conv_winograd_input_in_range_avx2(const etr_conv2d_geometry_t *g,
                                           const float *input);
bool etr_conv_winograd_positions_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g, int64_t out_channels);
bool etr_conv_winograd_positions_nchw_avx512(
    const etr_conv_winograd_args_t *args);
// Whether every input value's magnitude is at most 2^40 (no inf, no
// NaN): both kernels' first pass.
bool etr_conv_winograd_input_in_range_avx512(const etr_conv2d_geometry_t *g,
                                             const float *input);
size_t etr_conv_winograd_scratch_floats(const etr_conv2d_geometry_t *g,
                                        etr_conv_winograd_layout_t layout);
size_t etr_conv_winograd_packed_floats(int64_t out_channels,
                                       int64_t channels);
bool etr_conv_winograd_pack(const float *weight,
                            const etr_conv2d_geometry_t *g,
                            int64_t out_channels,
                            etr_conv_winograd_layout_t layout, float *dst);
// Out channels [8 block, 8 block + 8) of the position lanes' layout
// (block `block` of etr_conv_winograd_pack's, at dst), for a call whose
// weight was not packed at load: the kernel transforms one block at a
// time into a chunk of this many floats, so that its scratch does not
// grow with the out channels (256 x 256 channels would need 4 MiB).
bool etr_conv_winograd_pack_block(const float *weight,
                                  const etr_conv2d_geometry_t *g,
                                  int64_t out_channels, int64_t block,
                                  float *dst);
static inline size_t etr_conv_winograd_chunk_floats(int64_t channels) {
  return (size_t)(channels * 8 * 16);
}
// The Winograd kernel of `isa` that takes `g` with `out_channels` per
// group (the position lanes where the tile lanes would leave more than
// a tenth of theirs empty, and on planes of at most 16 tiles), while
// Winograd is allowed; run NULL: none (conv_pack.c). The tile lanes only
// where their transformed weight and scratch take at most
// ETR_CONV_WINOGRAD_TILE_MAX_BYTES: the default kernel scratch (ctx->temp,
// 4 MiB: core/method.h) less a page for the allocations' alignment. Past
// it a call would find no room and fall back to a direct kernel whose
// weight was not packed at load (the load packs for the kernel chosen
// here): AVX2, 256 -> 256 on 14x14, 2.09 -> 2.28 ms. (A method given less
// scratch still falls back so.)
#define ETR_CONV_WINOGRAD_TILE_MAX_BYTES (((size_t)4 << 20) - 4096)
etr_conv_winograd_t etr_conv_winograd_for(etr_isa_t isa,
                                          const etr_conv2d_geometry_t *g,
                                          int64_t out_channels);
// Whether the optimized convolution may take the Winograd kernel
// (default true). Process-wide, for callers who want every 3x3 layer's
// sums in the direct kernels' order (and for the tests of those kernels,
// whose geometries it would take); set it before running, not during.
void etr_conv_winograd_allow(bool allow);
bool etr_conv_winograd_allowed(void);

// The optimized convolution's fused path (op_convolution.c), used by
// fuse/fuse.c: checks the call as aten::convolution.out does (errors are
// the same), then, when the call takes the optimized kernel's path with
// `args`' out (free of the inputs) and `target` alike (same dtype, shape
// and dim order), computes it with the epilogue `post` (NULL: none) into
// `target` and sets *done. A target that overlaps an input is written
// through the out and copied (*staged). Otherwise (and in a dry run)
// writes nothing and leaves *done false.
etr_error_t etr_conv_run_fused(etr_kernel_context_t *ctx,
                               etr_evalue_t **args, size_t num_args,
                               etr_tensor_t *target,
                               const etr_conv_post_t *post, bool *done,
                               bool *staged);

// For a convolution call its dry run accepted, whose weight no call can
// change (a constant of the program): when the call takes the pixel-tile
// kernel, its weights packed for it (every group) into memory from
// `arena`, in *packed (weight, from and panel); else packed->weight =
// NULL. MemoryAllocationFailed when the arena is exhausted.
etr_error_t etr_conv_prepack(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args, etr_arena_t *arena,
                             etr_conv_packed_t *packed);

// out[2i] += a[i], out[2i + 1] += b[i] for i < n (a and b apart from
// out): a transposed convolution's stride-2 scatter of two neighbouring
// kernel columns (add_pairs_<isa>.c). Each out element takes one IEEE
// float add, as the scalar loop would.
typedef void (*etr_conv_add_pairs_fn)(size_t n, const float *a,
                                      const float *b, float *out);
void etr_conv_add_pairs_scalar(size_t n, const float *a, const float *b,
                               float *out);
void etr_conv_add_pairs_avx2(size_t n, const float *a, const float *b,
                             float *out);
void etr_conv_add_pairs_avx512(size_t n, const float *a, const float *b,
                               float *out);
void etr_conv_add_pairs_neon(size_t n, const float *a, const float *b,
                             float *out);
etr_conv_add_pairs_fn etr_conv_add_pairs_for(etr_isa_t isa);

// The same pairs over a plane of `rows` input rows, each pair's columns
// clipped on their own: for y < rows,
//   out[y out_stride + 2t + offset]     += a[y in_stride + t]
//     for t in [a_from, a_to),
//   out[y out_stride + 2t + offset + 1] += b[y in_stride + t]
//     for t in [b_from, b_to),
// nothing else read or written (`out` is the rows' start; offset may be
// negative where the lanes it would reach are clipped). One call per
// (out channel, kernel row, column pair) of a 4x4 stride-2 decoder layer
// instead of one add_pairs per input row and scalar adds at the edges
// (18% of the layer's time in perf). Each out element takes one add, so
// the bits are those of add_pairs and the scalar adds. NULL for ISAs
// without one: those keep the per-row calls.
typedef struct etr_conv_pair_plane {
  size_t rows;
  const float *a;
  const float *b;
  ptrdiff_t in_stride;
  int64_t a_from, a_to, b_from, b_to;
  float *out;
  ptrdiff_t out_stride;
  int64_t offset;
} etr_conv_pair_plane_t;
typedef void (*etr_conv_add_pair_plane_fn)(const etr_conv_pair_plane_t *p);
void etr_conv_add_pair_plane_avx512(const etr_conv_pair_plane_t *p);
etr_conv_add_pair_plane_fn etr_conv_add_pair_plane_for(etr_isa_t isa);

// out[2i] = (a[i] + 0.0f) + bias, out[2i + 1] = (b[i] + 0.0f) + bias for
// i < n (a and b apart from out): the same scatter where each out element
// takes exactly one tap (stride == kernel, 2 columns, no padding). These
// are the bits of out = +0.0, out += a[i], out += bias, the three passes
// it replaces; with no bias, bias = -0.0f adds nothing (x + 0.0f is never
// -0.0).
typedef void (*etr_conv_put_pairs_fn)(size_t n, const float *a,
                                      const float *b, float bias,
                                      float *out);
void etr_conv_put_pairs_scalar(size_t n, const float *a, const float *b,
                               float bias, float *out);
void etr_conv_put_pairs_avx2(size_t n, const float *a, const float *b,
                             float bias, float *out);
void etr_conv_put_pairs_avx512(size_t n, const float *a, const float *b,
                               float bias, float *out);
void etr_conv_put_pairs_neon(size_t n, const float *a, const float *b,
                             float bias, float *out);
etr_conv_put_pairs_fn etr_conv_put_pairs_for(etr_isa_t isa);

// A transposed convolution's GEMM tile stored straight into the out
// where each out element takes exactly one tap (stride == kernel, 2
// kernel columns, no padding: conv_transposed.c's exact pairs), instead
// of through an fp32 cols block and etr_conv_put_pairs_fn. Rows of the
// GEMM are (oc, i, j) (oc * 2 kernel_h + 2 i + j), columns the input's
// pixels. The call's constants:
typedef struct etr_conv_pairs_tile {
  const float *panels;  // the weight packed at load (gemm.h packed A)
  size_t rows;          // its M rounded up to the microkernel's MR
  size_t k;             // input channels, in K blocks of kc
  size_t kc;
  const float *b;       // the input plane of channel 0 (pixel 0)
  ptrdiff_t b_stride;   // floats from one channel to the next
  float *out;           // the group's out (out_h x out_w planes)
  ptrdiff_t plane;
  ptrdiff_t out_w;
  int64_t kernel_h;
  const float *bias;    // NULL: none
  ptrdiff_t bias_stride;
} etr_conv_pairs_tile_t;
// The out rows of the GEMM's row m (tap 0 of out channel oc, kernel row
// i): out + oc plane + i out_w; and oc's bias (-0.0f without one) in
// `bias`.
static inline float *etr_conv_pairs_base(const etr_conv_pairs_tile_t *t,
                                         size_t m, float *bias) {
  const size_t oc = m / (2 * (size_t)t->kernel_h);
  const size_t i = m / 2 % (size_t)t->kernel_h;
  *bias = t->bias != NULL ? t->bias[(ptrdiff_t)oc * t->bias_stride] : -0.0f;
  return t->out + (ptrdiff_t)oc * t->plane + (ptrdiff_t)i * t->out_w;
}
// Where the interleaved outs of one pixel tile go: vector v holds pixels
// p0 + 8v .. p0 + 8v + 7, taps j = 0 and 1 alternating (lane l: pixel p0
// + 8v + l / 2, tap l % 2). Its lanes are stored in `count[v]` runs, one
// per input row they come from: lanes `mask[v][r]` at `offset[v][r]`
// floats past the (oc, i) rows' base, out + oc plane + i out_w (lane l
// to offset + l). Runs past the tile's pixels are absent.
#define ETR_CONV_PAIRS_VECTORS 6  // 48 pixels (the widest tile)
typedef struct etr_conv_pairs_runs {
  int count[ETR_CONV_PAIRS_VECTORS];
  uint16_t mask[ETR_CONV_PAIRS_VECTORS][8];
  ptrdiff_t offset[ETR_CONV_PAIRS_VECTORS][8];
} etr_conv_pairs_runs_t;
// Rows [row0, row0 + mr) (mr even, row0 a multiple of MR) x pixels [p0,
// p0 + nr) (nr <= NR): the K blocks' sums as etr_gemm forms them with
// the packed A (one FMA chain from +0.0 per block, each later block's
// chain added to the sum so far), then (sum + 0.0f) + bias, the bits of
// etr_conv_put_pairs_fn.
typedef void (*etr_conv_pairs_tile_fn)(const etr_conv_pairs_tile_t *t,
                                       size_t row0, size_t mr, size_t p0,
                                       size_t nr,
                                       const etr_conv_pairs_runs_t *runs);
void etr_conv_pairs_tile_12x32_avx512(const etr_conv_pairs_tile_t *t,
                                      size_t row0, size_t mr, size_t p0,
                                      size_t nr,
                                      const etr_conv_pairs_runs_t *runs);
void etr_conv_pairs_tile_8x32_avx512(const etr_conv_pairs_tile_t *t,
                                     size_t row0, size_t mr, size_t p0,
                                     size_t nr,
                                     const etr_conv_pairs_runs_t *runs);
void etr_conv_pairs_tile_8x48_avx512(const etr_conv_pairs_tile_t *t,
                                     size_t row0, size_t mr, size_t p0,
                                     size_t nr,
                                     const etr_conv_pairs_runs_t *runs);
void etr_conv_pairs_tile_6x16_avx2(const etr_conv_pairs_tile_t *t,
                                   size_t row0, size_t mr, size_t p0,
                                   size_t nr,
                                   const etr_conv_pairs_runs_t *runs);
// The tile for a weight packed for `kernel` (its MR x NR microkernel) on
// `isa`; NULL where there is none (then the cols block and put_pairs).
etr_conv_pairs_tile_fn etr_conv_pairs_tile_for(etr_isa_t isa,
                                               const etr_gemm_kernel_t *k);

// Transposed convolution (conv_transposed.c): Float, 1-D or 2-D, input,
// weight ([C_in, C_out/groups, kH, kW]) and out contiguous, the out free
// of the inputs and sized by the caller's checks; `g` read as for a plain
// convolution (channels per group, sizes, stride, padding, dilation; its
// weight strides are not used). A GEMM per (image, group) into fp32
// blocks from `temp` (may be NULL: stack), scattered into the out. False,
// with nothing written, for any other case.
// `a_packed` (NULL: none) is the weight packed at load
// (etr_conv_transposed_prepack), used while it matches the call.
bool etr_conv_transposed_nchw(etr_arena_t *temp, etr_isa_t isa,
                              const etr_tensor_t *input,
                              const etr_tensor_t *weight,
                              const etr_tensor_t *bias, etr_tensor_t *out,
                              int64_t groups,
                              const etr_conv2d_geometry_t *g,
                              const etr_gemm_packed_a_t *a_packed);
// The weight of such a call (one group) packed as its GEMM's A for the
// blocks a call with a large enough scratch arena runs, into `arena`;
// NULL when the call would not read it (or no room).
const etr_gemm_packed_a_t *etr_conv_transposed_prepack(
    etr_arena_t *arena, etr_isa_t isa, const etr_tensor_t *input,
    const etr_tensor_t *weight, const etr_tensor_t *out, int64_t groups,
    const etr_conv2d_geometry_t *g);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_OPTIMIZED_CONV_CONV_H
