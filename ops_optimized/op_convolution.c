// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::convolution.out for 1-D and 2-D convolutions of Float,
// Half and BFloat16 (ops_optimized/conv/conv.h):
//   * input and out both contiguous (NCHW) or both channels-last (NHWC,
//     2-D only); the weight may have any strides;
//   * Float depthwise convolutions (groups == input channels > 1, at most
//     64 taps; in NHWC one out channel per group) run the direct depthwise
//     kernel of the active ISA;
//   * Float NCHW convolutions that the ISA's direct kernel takes
//     (etr_conv_direct_takes) run it: on AVX-512 those with at most 4
//     input channels per group and at most 32 products per output (a
//     CNN's first layer), stride 1, or stride 2 along rows of 8 or more
//     outputs (packing their im2col panel costs more than the product),
//     the 3x3 stride-1 ones of up to 16 input channels on rows of 16, 32
//     or 48 outputs, and stems of up to 3 channels with kernels up to 7x7
//     (ResNet's), from a zero-padded band; on AVX2 those stems only, with
//     a fused post applied in registers (one group);
//   * Float NCHW pointwise convolutions (1x1, stride 1, no padding, one
//     group) with at most 256 input channels and 32 KiB of weights run
//     the pointwise kernel where the ISA has one (AVX-512 and AVX2: the
//     models' small 1x1 layers, 0.3-5 us on AVX-512, 1.5-21 us through
//     the GEMM on Zen 2's AVX2, where the GEMM driver's per-tile setup
//     and packing weighed; on AVX2 every shape measured within those
//     limits, 1x1 to 56x56 images and 1 to 256 input channels, ran
//     1.06-4.5x the GEMM's rate, none slower); on AVX2 also strided
//     ones without padding of a shortcut's shape, whose input is copied
//     subsampled into ctx->temp (ResNet's 32 -> 64 stride-2 shortcut);
//   * Float NCHW 3x3 stride-1 padding-1 convolutions with 8 or more
//     input and out channels per group (16 or more where the direct
//     kernel would take them) run Winograd's F(2x2, 3x3) where the ISA
//     has it (AVX-512: conv/winograd_avx512.c with a tile row's tiles as
//     a vector's lanes, winograd_positions_avx512.c with a tile's 16
//     positions as lanes for planes whose tiles would fill less than 90%
//     of the other's; 16 products per 2x2 outputs instead of 36: ResNet's
//     32x24x24 layer 96 -> 55 us, 128x6x6 95 -> 58 us), the weight
//     transformed at load (etr_conv_prepack) or per call into ctx->temp,
//     which must hold it either way; an input or weight value beyond
//     2^40 in magnitude, inf or NaN (its transforms would turn a direct
//     sum's inf into NaN), or no room in ctx->temp, and the call takes
//     the paths below instead;
//   * Float NCHW stride-1 convolutions whose padded input rows (padding
//     shared between neighbouring rows) waste few positions and stay in
//     L1 run the shifted-rows kernel where the ISA has one (AVX-512: each
//     tap's im2col row is the zero-padded plane shifted, read in place;
//     ResNet's 3x3 layers at 24x24 and 6x6); without room in ctx->temp
//     for the padded copy they take the GEMM;
//   * other Float NCHW convolutions with 64 or more out channels (a
//     multiple of 16) per group on planes of 6 to 784 out pixels run the
//     pixel-tile kernel where the ISA has one (AVX-512: 6 pixels by 64
//     channels, inputs broadcast from the zero-padded planes, weights
//     packed per call into ctx->temp; ResNet's stride-2 layers and its
//     64x12x12 one, 128x28x28), when ctx->temp has room for both. A
//     fused call whose constant weight was packed at fusion takes it also
//     where the shifted rows would run: the sums are the same, in the
//     same order;
//   * everything else is one GEMM per (image, group): out = W x im2col in
//     NCHW, im2col x W^T in NHWC, with the im2col operand generated while
//     packing (pointwise convolutions read the input in place) and the bias
//     added in the microkernel's store.
//   * transposed Float NCHW convolutions (input, weight and out
//     contiguous) are a GEMM per (image, group) scattered into the out
//     (conv/conv_transposed.c).
// Arguments are checked by the reference kernel's dry run. Other
// transposed convolutions, 3-D ones, other dtypes, mixed layouts and outs
// overlapping an input go to the reference kernel
// (ops_reference/op_convolution.c).
//
// Padding: PyTorch multiplies taps in the padding by zeros, so an inf or
// NaN weight makes a border output NaN. The GEMM path does the same with
// the zeros of its packed panel, and so does the reference; the depthwise
// and direct kernels skip those taps, so a padded convolution whose weight
// holds a non-finite value takes the GEMM path instead.
#include <limits.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/common/args.h"
#include "ops_optimized/conv/conv.h"
#include "ops_optimized/gemm/gemm_ops.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// A stride/padding/dilation list (already checked by the reference: one
// value or one per spatial dim) as (h, w); a 1-D convolution gets
// `h_value` for h.
static void read_pair(etr_kernel_context_t *ctx, etr_evalue_t **args,
                      size_t num_args, size_t index, int32_t spatial,
                      int64_t h_value, int64_t *h, int64_t *w) {
  const int64_t *items = NULL;
  size_t count = 0;
  if (etr_arg_int_list(ctx, args, num_args, index, "", &items, &count) !=
          ETR_OK ||
      count == 0) {
    *h = h_value;
    *w = h_value;
    return;
  }
  *w = items[count - 1];
  *h = spatial == 2 ? items[0] : h_value;
}

// The geometry of one image and group; false when a size does not fit the
// kernels' 32-bit gather indices.
static bool build_geometry(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, const etr_tensor_t *input,
                           const etr_tensor_t *weight,
                           const etr_tensor_t *out, int64_t groups,
                           bool channels_last, etr_conv2d_geometry_t *g) {
  int32_t spatial = input->dim - 2;
  bool two = spatial == 2;
  int32_t w_dim = input->dim - 1;
  *g = (etr_conv2d_geometry_t){
      .channels = input->sizes[1] / groups,
      .in_h = two ? input->sizes[2] : 1,
      .in_w = input->sizes[w_dim],
      .out_h = two ? out->sizes[2] : 1,
      .out_w = out->sizes[w_dim],
      .kernel_h = two ? weight->sizes[2] : 1,
      .kernel_w = weight->sizes[w_dim],
      .in_stride_c = input->strides[1],
      .in_stride_h = two ? input->strides[2] : 0,
      .in_stride_w = input->strides[w_dim],
      .w_stride_oc = weight->strides[0],
      .w_stride_c = weight->strides[1],
      .w_stride_h = two ? weight->strides[2] : 0,
      .w_stride_w = weight->strides[w_dim],
      .channels_last = channels_last,
  };
  read_pair(ctx, args, num_args, 3, spatial, 1, &g->stride_h, &g->stride_w);
  read_pair(ctx, args, num_args, 4, spatial, 0, &g->pad_h, &g->pad_w);
  read_pair(ctx, args, num_args, 5, spatial, 1, &g->dilation_h,
            &g->dilation_w);
  if (!two) {  // one row: as if rows were packed back to back
    g->in_stride_h = g->in_w * g->in_stride_w;
  }
  // The depthwise kernels index an input plane with 32-bit lanes.
  return g->in_h * g->in_stride_h + g->in_w * g->in_stride_w < INT32_MAX &&
         g->out_h * g->out_w < INT32_MAX;
}

// Whether skipping the taps in the padding would change the result: there
// is padding and a weight that is not finite (0 * inf and 0 * NaN are NaN).
// Only asked on the Float depthwise/direct paths; the weight is small there.
// `numel` and `dense` are the weight's (kept in the plan: at 0.3 us per
// 4x4 layer, asking the tensor again on every call showed).
static bool padding_taps_matter(const etr_tensor_t *weight,
                                const etr_conv2d_geometry_t *g,
                                int64_t numel, bool dense) {
  if (g->pad_h == 0 && g->pad_w == 0) {
    return false;
  }
  etr_conv_nonfinite_fn scan = etr_conv_any_nonfinite_for(etr_isa_active());
  if (dense && scan != NULL) {
    return scan((const float *)weight->data, numel);
  }
  if (dense) {
    // One pass over the bits, no branch per element: |v| >= inf (an
    // exponent of all ones) carries into bit 31 when 2^23 is added. At
    // 1-2 us this scan used to cost as much as a small depthwise kernel.
    const float *data = (const float *)weight->data;
    uint32_t lanes[8] = {0};
    int64_t e = 0;
    for (; e + 8 <= numel; e += 8) {
      for (int j = 0; j < 8; ++j) {
        uint32_t bits;
        memcpy(&bits, &data[e + j], sizeof bits);
        lanes[j] |= (bits & 0x7fffffffu) + 0x00800000u;
      }
    }
    uint32_t any = 0;
    for (; e < numel; ++e) {
      uint32_t bits;
      memcpy(&bits, &data[e], sizeof bits);
      any |= (bits & 0x7fffffffu) + 0x00800000u;
    }
    for (int j = 0; j < 8; ++j) {
      any |= lanes[j];
    }
    return (any & 0x80000000u) != 0;
  }
  int64_t index[ETR_MAX_DIMS] = {0};
  for (int64_t e = 0; e < numel; ++e) {
    int64_t offset = 0;
    for (int32_t d = 0; d < weight->dim; ++d) {
      offset += index[d] * weight->strides[d];
    }
    float v = ((const float *)weight->data)[offset];
    if (!isfinite(v)) {
      return true;
    }
    for (int32_t d = weight->dim - 1; d >= 0; --d) {
      if (++index[d] < weight->sizes[d]) {
        break;
      }
      index[d] = 0;
    }
  }
  return false;
}

static bool depthwise_applies(const etr_tensor_t *input,
                              const etr_tensor_t *out, int64_t groups,
                              const etr_conv2d_geometry_t *g,
                              bool channels_last) {
  return input->dtype == ETR_FLOAT && groups > 1 &&
         groups == input->sizes[1] &&
         g->kernel_h * g->kernel_w <= 64 &&
         (!channels_last || out->sizes[1] == groups);
}

// The depthwise kernels' arguments for image 0 of a call (`taps`: the
// weight packed at load as etr_depthwise_taps_pack lays it out, or NULL).
static etr_depthwise_args_t depthwise_args(const etr_tensor_t *input,
                                           const etr_tensor_t *weight,
                                           const etr_tensor_t *bias,
                                           etr_tensor_t *out,
                                           const etr_conv2d_geometry_t *g,
                                           const float *taps) {
  int32_t last = out->dim - 1;
  return (etr_depthwise_args_t){
      .geometry = g,
      .input = (const float *)input->data,
      .weight = (const float *)weight->data,
      .bias = bias != NULL ? (const float *)bias->data : NULL,
      .bias_stride = bias != NULL ? bias->strides[0] : 0,
      .out = (float *)out->data,
      .out_stride_c = out->strides[1],
      .out_stride_h = out->dim == 4 ? out->strides[2] : 0,
      .out_stride_w = out->strides[last],
      .channels = out->sizes[1],
      .multiplier = out->sizes[1] / input->sizes[1],
      .taps = taps,
  };
}

// `post` (NCHW only) runs over each image's out once the kernel is done,
// unless the ISA has a depthwise kernel that applies it in registers
// (in out-channel chunks sized for L1 it measured no faster).
static void run_depthwise(const etr_tensor_t *input,
                          const etr_tensor_t *weight,
                          const etr_tensor_t *bias, etr_tensor_t *out,
                          const etr_conv2d_geometry_t *g,
                          bool channels_last, const etr_conv_post_t *post,
                          const float *taps) {
  etr_depthwise_fn kernel = etr_depthwise_for(etr_isa_active(),
                                              channels_last);
  etr_depthwise_args_t a =
      depthwise_args(input, weight, bias, out, g, channels_last ? NULL : taps);
  // (Asked once: the answer depends on the geometry and channels only.)
  etr_depthwise_post_fn fused =
      post != NULL && !channels_last
          ? etr_depthwise_with_post_for(etr_isa_active(), &a)
          : NULL;
  for (int64_t n = 0; n < input->sizes[0]; ++n) {
    a.input = (const float *)input->data + n * input->strides[0];
    a.out = (float *)out->data + n * out->strides[0];
    if (fused != NULL) {
      fused(&a, post);
    } else {
      kernel(&a);
      if (post != NULL) {
        post->rows(post, 0, a.out, (ptrdiff_t)a.out_stride_c,
                   (size_t)a.channels, (size_t)(g->out_h * g->out_w));
      }
    }
  }
}

// The direct few-channel kernel per (image, group), NCHW.
static void run_direct(etr_depthwise_fn kernel, const etr_tensor_t *input,
                       const etr_tensor_t *weight, const etr_tensor_t *bias,
                       etr_tensor_t *out, int64_t groups,
                       const etr_conv2d_geometry_t *g,
                       const etr_conv_post_t *post) {
  int64_t ocg = out->sizes[1] / groups;
  int32_t last = out->dim - 1;
  // A kernel that applies the post itself indexes it from out channel 0.
  etr_depthwise_post_fn fused =
      post != NULL && groups == 1
          ? etr_conv_direct_with_post_for(etr_isa_active())
          : NULL;
  for (int64_t n = 0; n < input->sizes[0]; ++n) {
    for (int64_t group = 0; group < groups; ++group) {
      etr_depthwise_args_t a = {
          .geometry = g,
          .input = (const float *)input->data + n * input->strides[0] +
                   group * g->channels * input->strides[1],
          .weight = (const float *)weight->data +
                    group * ocg * weight->strides[0],
          .bias = bias != NULL ? (const float *)bias->data +
                                     group * ocg * bias->strides[0]
                               : NULL,
          .bias_stride = bias != NULL ? bias->strides[0] : 0,
          .out = (float *)out->data + n * out->strides[0] +
                 group * ocg * out->strides[1],
          .out_stride_c = out->strides[1],
          .out_stride_h = out->dim == 4 ? out->strides[2] : 0,
          .out_stride_w = out->strides[last],
          .channels = ocg,
          .multiplier = 1,
      };
      if (fused != NULL) {
        fused(&a, post);
        continue;
      }
      kernel(&a);
      if (post != NULL) {
        post->rows(post, (size_t)(group * ocg), a.out,
                   (ptrdiff_t)a.out_stride_c, (size_t)ocg,
                   (size_t)(g->out_h * g->out_w));
      }
    }
  }
}

// Whether the pointwise kernel takes the call: NCHW Float, 1x1, stride 1,
// no padding, one group, weights with a unit channel stride, and at most
// 256 input channels and 32 KiB of weights (the kernel reads both in
// place for every pixel block: they stay in L1; larger layers keep the
// GEMM's packed blocking).
static bool pointwise_applies(const etr_tensor_t *input, int64_t groups,
                              const etr_conv2d_geometry_t *g, int64_t ocg) {
  return input->dtype == ETR_FLOAT && groups == 1 && g->kernel_h == 1 &&
         g->kernel_w == 1 && g->stride_h == 1 && g->stride_w == 1 &&
         g->pad_h == 0 && g->pad_w == 0 &&
         (g->channels == 1 || g->w_stride_c == 1) && g->channels <= 256 &&
         ocg * g->channels * (int64_t)sizeof(float) <= 32 * 1024;
}

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
static bool strided_pointwise_applies(const etr_tensor_t *input,
                                      int64_t groups,
                                      const etr_conv2d_geometry_t *g,
                                      int64_t ocg) {
  etr_conv2d_geometry_t sub = *g;
  sub.stride_h = 1;
  sub.stride_w = 1;
  return (g->stride_h > 1 || g->stride_w > 1) && g->channels <= 64 &&
         ocg >= 2 * g->channels && g->out_h * g->out_w >= 64 &&
         pointwise_applies(input, groups, &sub, ocg);
}

// The pointwise kernel on one NCHW image: channels in_stride_c apart,
// pixels contiguous.
static void pointwise_image(etr_conv_pointwise_fn kernel, const float *image,
                            int64_t in_stride_c, const etr_tensor_t *weight,
                            const etr_tensor_t *bias, float *out_image,
                            const etr_tensor_t *out,
                            const etr_conv2d_geometry_t *g,
                            const etr_conv_post_t *post,
                            const float *columns) {
  etr_conv_pointwise_args_t a = {
      .input = image,
      .input_stride = in_stride_c,
      .weight = (const float *)weight->data,
      .weight_stride = g->w_stride_oc,
      .bias = bias != NULL ? (const float *)bias->data : NULL,
      .bias_stride = bias != NULL && bias->sizes[0] > 1 ? bias->strides[0]
                                                        : 0,
      .out = out_image,
      .out_stride = out->strides[1],
      .out_channels = out->sizes[1],
      .in_channels = g->channels,
      .pixels = g->out_h * g->out_w,
      .post = post,
      .columns = columns,
  };
  kernel(&a);
}

// dst[i] = src[i * step] for i < count, with nothing read past src[avail -
// 1]. Every other float 4 at a time with generic vectors (SSE2's shufps,
// NEON's uzp1): the scalar loop was 11-21% of the stride-2 shortcuts' time.
typedef float etr_conv_v4f __attribute__((vector_size(16)));
static void subsample_row(const float *src, int64_t count, int64_t step,
                          int64_t avail, float *dst) {
  int64_t i = 0;
  if (step == 2) {
    for (; 2 * i + 8 <= avail && i + 4 <= count; i += 4) {
      etr_conv_v4f lo;
      etr_conv_v4f hi;
      memcpy(&lo, src + 2 * i, sizeof(lo));
      memcpy(&hi, src + 2 * i + 4, sizeof(hi));
      etr_conv_v4f even = __builtin_shufflevector(lo, hi, 0, 2, 4, 6);
      memcpy(dst + i, &even, sizeof(even));
    }
  }
  for (; i < count; ++i) {
    dst[i] = src[i * step];
  }
}

// The strided pointwise call (strided_pointwise_applies): per image, the
// input's pixels at the stride copied into channels x out pixels of
// scratch, then the pointwise kernel on them; the same products, each
// out's in channel order. False, having written nothing, without room in
// ctx->temp.
static bool run_strided_pointwise(etr_kernel_context_t *ctx,
                                  etr_conv_pointwise_fn kernel,
                                  const etr_tensor_t *input,
                                  const etr_tensor_t *weight,
                                  const etr_tensor_t *bias, etr_tensor_t *out,
                                  const etr_conv2d_geometry_t *g,
                                  const etr_conv_post_t *post) {
  if (ctx->temp == NULL) {
    return false;
  }
  const int64_t pixels = g->out_h * g->out_w;
  const etr_arena_mark_t mark = etr_arena_mark(ctx->temp);
  float *sub = (float *)etr_arena_alloc(
      ctx->temp, (size_t)(g->channels * pixels) * sizeof(float), 64);
  if (sub == NULL) {
    return false;
  }
  const int64_t step_h = g->stride_h * g->in_stride_h;
  const int64_t step_w = g->stride_w * g->in_stride_w;
  for (int64_t n = 0; n < input->sizes[0]; ++n) {
    const float *image = (const float *)input->data + n * input->strides[0];
    float *dst = sub;
    for (int64_t c = 0; c < g->channels; ++c) {
      const float *plane = image + c * g->in_stride_c;
      for (int64_t oh = 0; oh < g->out_h; ++oh, dst += g->out_w) {
        subsample_row(plane + oh * step_h, g->out_w, step_w,
                      g->in_stride_w == 1 ? g->in_w : 0, dst);
      }
    }
    pointwise_image(kernel, sub, pixels, weight, bias,
                    (float *)out->data + n * out->strides[0], out, g, post,
                    NULL);
  }
  etr_arena_rewind(ctx->temp, mark);
  return true;
}

// The pointwise kernel per image, NCHW.
static void run_pointwise(etr_conv_pointwise_fn kernel,
                          const etr_tensor_t *input,
                          const etr_tensor_t *weight,
                          const etr_tensor_t *bias, etr_tensor_t *out,
                          const etr_conv2d_geometry_t *g,
                          const etr_conv_post_t *post,
                          const float *columns) {
  for (int64_t n = 0; n < input->sizes[0]; ++n) {
    pointwise_image(kernel, (const float *)input->data + n * input->strides[0],
                    g->in_stride_c, weight, bias,
                    (float *)out->data + n * out->strides[0], out, g, post,
                    columns);
  }
}

// The arguments of the padded-plane kernels (shifted rows, pixel tiles)
// for image n and `group`, whose weights (rows or packed panels) start at
// `weight`.
static etr_conv_shifted_args_t plane_args(
    const etr_tensor_t *input, const float *weight, const etr_tensor_t *bias,
    etr_tensor_t *out, const etr_conv2d_geometry_t *g, int64_t ocg,
    int64_t n, int64_t group, const etr_conv_post_t *post, float *scratch) {
  int64_t bias_stride = bias != NULL && bias->sizes[0] > 1 ? bias->strides[0]
                                                           : 0;
  return (etr_conv_shifted_args_t){
      .g = g,
      .input = (const float *)input->data + n * input->strides[0] +
               group * g->channels * g->in_stride_c,
      .weight = weight,
      .weight_stride = g->w_stride_oc,
      .bias = bias != NULL
                  ? (const float *)bias->data + group * ocg * bias_stride
                  : NULL,
      .bias_stride = bias_stride,
      .out = (float *)out->data + n * out->strides[0] +
             group * ocg * out->strides[1],
      .out_stride = out->strides[1],
      .out_channels = ocg,
      .post = post,
      .post_channel0 = group * ocg,
      .scratch = scratch,
  };
}

// The shifted-rows kernel per (image, group), NCHW Float; false, having
// written nothing, when ctx->temp has no room for its padded copy.
static bool run_shifted(etr_kernel_context_t *ctx, etr_conv_shifted_fn kernel,
                        const etr_tensor_t *input, const etr_tensor_t *weight,
                        const etr_tensor_t *bias, etr_tensor_t *out,
                        int64_t groups, const etr_conv2d_geometry_t *g,
                        const etr_conv_post_t *post) {
  size_t floats = etr_conv_shifted_scratch_floats(g);
  float *scratch = NULL;
  etr_arena_mark_t mark = {0};
  if (floats > 0) {
    if (ctx->temp == NULL) {
      return false;
    }
    mark = etr_arena_mark(ctx->temp);
    scratch = (float *)etr_arena_alloc(ctx->temp, floats * sizeof(float), 64);
    if (scratch == NULL) {
      return false;
    }
  }
  int64_t ocg = out->sizes[1] / groups;
  for (int64_t n = 0; n < input->sizes[0]; ++n) {
    for (int64_t group = 0; group < groups; ++group) {
      etr_conv_shifted_args_t a = plane_args(
          input, (const float *)weight->data + group * ocg * g->w_stride_oc,
          bias, out, g, ocg, n, group, post, scratch);
      kernel(&a);
    }
  }
  if (floats > 0) {
    etr_arena_rewind(ctx->temp, mark);
  }
  return true;
}

// The pixel-tile kernel per (group, image), NCHW Float; false, having
// written nothing, when ctx->temp has no room for the padded copy and one
// group's packed weights. That room is asked for also when `prepacked`
// brings the weights packed at load (every group's; NULL: none), so that
// where the shifted kernel (same sums) would not run, packing at load
// never changes the path.
static bool run_pixels(etr_kernel_context_t *ctx, etr_conv_pixels_fn kernel,
                       const etr_tensor_t *input, const etr_tensor_t *weight,
                       const etr_tensor_t *bias, etr_tensor_t *out,
                       int64_t groups, const etr_conv2d_geometry_t *g,
                       const etr_conv_post_t *post, const float *prepacked) {
  if (ctx->temp == NULL) {
    return false;
  }
  int64_t ocg = out->sizes[1] / groups;
  int64_t depth = g->channels * g->kernel_h * g->kernel_w;
  size_t pad_floats = etr_conv_pixels_scratch_floats(etr_isa_active(), g);
  size_t packed_floats = etr_conv_pixels_packed_floats(ocg, depth);
  etr_arena_mark_t mark = etr_arena_mark(ctx->temp);
  float *scratch =
      pad_floats > 0 ? (float *)etr_arena_alloc(ctx->temp,
                                                pad_floats * sizeof(float), 64)
                     : NULL;
  float *packed = (float *)etr_arena_alloc(
      ctx->temp, packed_floats * sizeof(float), 64);
  if (packed == NULL || (pad_floats > 0 && scratch == NULL)) {
    etr_arena_rewind(ctx->temp, mark);
    return false;
  }
  for (int64_t group = 0; group < groups; ++group) {
    const float *w = (const float *)weight->data + group * ocg * g->w_stride_oc;
    const float *panels = packed;
    if (prepacked != NULL) {
      panels = prepacked + (size_t)group * packed_floats;
    } else {
      etr_conv_pixels_pack(w, g->w_stride_oc, ocg, depth, packed);
    }
    for (int64_t n = 0; n < input->sizes[0]; ++n) {
      etr_conv_pixels_args_t a = plane_args(input, panels, bias, out, g, ocg,
                                            n, group, post, scratch);
      kernel(&a);
    }
  }
  etr_arena_rewind(ctx->temp, mark);
  return true;
}

// The Winograd kernel per (group, image), NCHW Float, with the weight
// transformed at load (`prepacked`, every group's) or here: whole into
// ctx->temp for the tile lanes, a block of 8 out channels at a time for
// the position lanes. False when ctx->temp has no room for the kernel's
// scratch and that transformed weight, or a weight or an input value is
// out of its range (conv.h). The room for the weight is asked for also
// when it comes prepacked, so that packing at load never changes the
// path (as for the pixel tiles). Outs written before a decline are
// written again by the caller's other path, which writes every out.
static bool run_winograd(etr_kernel_context_t *ctx,
                         etr_conv_winograd_t kernel,
                         const etr_tensor_t *input,
                         const etr_tensor_t *weight,
                         const etr_tensor_t *bias, etr_tensor_t *out,
                         int64_t groups, const etr_conv2d_geometry_t *g,
                         const etr_conv_post_t *post,
                         const float *prepacked) {
  if (ctx->temp == NULL) {
    return false;
  }
  const bool blocks = kernel.layout == ETR_CONV_WINOGRAD_POSITION_LANES;
  int64_t ocg = out->sizes[1] / groups;
  size_t scratch_floats = etr_conv_winograd_scratch_floats(g, kernel.layout);
  size_t packed_floats = etr_conv_winograd_packed_floats(ocg, g->channels);
  size_t room = blocks ? etr_conv_winograd_chunk_floats(g->channels)
                       : packed_floats;
  etr_arena_mark_t mark = etr_arena_mark(ctx->temp);
  float *scratch = (float *)etr_arena_alloc(
      ctx->temp, scratch_floats * sizeof(float), 64);
  float *packed = (float *)etr_arena_alloc(ctx->temp, room * sizeof(float),
                                           64);
  bool ok = scratch != NULL && packed != NULL;
  for (int64_t group = 0; ok && group < groups; ++group) {
    const float *w = (const float *)weight->data + group * ocg * g->w_stride_oc;
    const float *u = NULL;  // position lanes: transformed by the kernel
    if (prepacked != NULL) {
      u = prepacked + (size_t)group * packed_floats;
    } else if (!blocks) {
      ok = etr_conv_winograd_pack(w, g, ocg, kernel.layout, packed);
      u = packed;
    }
    for (int64_t n = 0; ok && n < input->sizes[0]; ++n) {
      etr_conv_winograd_args_t a = plane_args(input, u, bias, out, g, ocg, n,
                                              group, post, scratch);
      a.raw_weight = w;
      a.chunk = packed;
      ok = kernel.run(&a);
    }
  }
  etr_arena_rewind(ctx->temp, mark);
  return ok;
}

// The GEMM per (image, group); false when the bias layout is not one the
// GEMM takes.
static bool run_gemm(etr_kernel_context_t *ctx, const etr_tensor_t *input,
                     const etr_tensor_t *weight, const etr_tensor_t *bias,
                     etr_tensor_t *out, int64_t groups,
                     etr_conv2d_geometry_t *g, bool channels_last,
                     const etr_conv_post_t *post) {
  int64_t cg = g->channels;
  int64_t ocg = out->sizes[1] / groups;
  int64_t taps = g->kernel_h * g->kernel_w;
  int64_t pixels = g->out_h * g->out_w;
  int64_t depth = cg * taps;
  bool pointwise = taps == 1 && g->stride_h == 1 && g->stride_w == 1 &&
                   g->pad_h == 0 && g->pad_w == 0;
  int32_t last = out->dim - 1;
  int64_t bias_stride = bias != NULL && bias->sizes[0] > 1 ? bias->strides[0]
                                                           : 0;
  etr_gemm_source_t image = {
      etr_conv_im2col_for(etr_isa_active(), channels_last), input->data,
      input->dtype, 0, 0, g};
  etr_gemm_source_t weights = {etr_conv_pack_weights, weight->data,
                               weight->dtype, 0, 0, g};
  // Weights whose k run is one stride-1 row per out channel are plain.
  int64_t kw = g->kernel_w;
  bool plain_weights =
      channels_last
          ? (cg == 1 || g->w_stride_c == 1) &&
                (kw == 1 || g->w_stride_w == cg) &&
                (g->kernel_h == 1 || g->w_stride_h == kw * cg)
          : (kw == 1 || g->w_stride_w == 1) &&
                (g->kernel_h == 1 || g->w_stride_h == kw) &&
                (cg == 1 || g->w_stride_c == taps);
  if (plain_weights) {
    weights = etr_gemm_matrix(weight->data, weight->dtype, 1,
                              (ptrdiff_t)g->w_stride_oc);
  }
  etr_gemm_problem_t p = {
      .k = (size_t)depth,
      .c = out->data,
      .c_dtype = out->dtype,
      .alpha = 1.0f,
      .beta = 1.0f,
      .bias = bias != NULL ? bias->data : NULL,
  };
  etr_gemm_batch_t batch = {
      .count = {(size_t)input->sizes[0], (size_t)groups},
      .bias = {0, (ptrdiff_t)(ocg * bias_stride)},
  };
  if (channels_last) {
    if (ocg > 1 && bias_stride != 1 && bias != NULL) {
      return false;
    }
    p.m = (size_t)pixels;
    p.n = (size_t)ocg;
    p.a = pointwise ? etr_gemm_matrix(input->data, input->dtype, 1,
                                      (ptrdiff_t)g->in_stride_w)
                    : image;
    p.b = weights;
    p.c_row_stride = (ptrdiff_t)out->strides[last];
    p.bias_col_stride = bias != NULL && ocg > 1 ? 1 : 0;
    batch.a[0] = (ptrdiff_t)input->strides[0];
    batch.a[1] = (ptrdiff_t)(cg * g->in_stride_c);
    batch.b[1] = (ptrdiff_t)(ocg * g->w_stride_oc);
    batch.c[0] = (ptrdiff_t)out->strides[0];
    batch.c[1] = (ptrdiff_t)(ocg * out->strides[1]);
  } else {
    p.m = (size_t)ocg;
    p.n = (size_t)pixels;
    p.a = weights;
    p.b = pointwise ? etr_gemm_matrix(input->data, input->dtype,
                                      (ptrdiff_t)g->in_stride_c, 1)
                    : image;
    p.c_row_stride = (ptrdiff_t)out->strides[1];
    p.bias_row_stride = (ptrdiff_t)bias_stride;
    batch.a[1] = (ptrdiff_t)(ocg * g->w_stride_oc);
    batch.b[0] = (ptrdiff_t)input->strides[0];
    batch.b[1] = (ptrdiff_t)(cg * g->in_stride_c);
    batch.c[0] = (ptrdiff_t)out->strides[0];
    batch.c[1] = (ptrdiff_t)(ocg * out->strides[1]);
    if (post != NULL) {  // GEMM rows are the group's out channels
      p.post = &post->gemm;
      batch.post_row[1] = (size_t)ocg;
    }
  }
  etr_gemm(&p, &batch, ctx->temp, etr_isa_active());
  return true;
}

// The path a call takes, decided from its arguments alone (no tensor
// data): kept in ctx->memo between the vouched calls of an instruction.
typedef enum conv_path {
  PATH_DEPTHWISE = 1,  // also needs the weight scan when there is padding
  PATH_DIRECT,         // likewise
  PATH_POINTWISE,
  PATH_STRIDED_POINTWISE,  // falls back to the pixel tiles or the GEMM
  PATH_SHIFTED,
  PATH_PIXELS,
  PATH_GEMM,
} conv_path_t;

typedef struct conv_plan {
  uint32_t mark;  // PLAN_MARK once decided
  int32_t isa;    // the ISA the kernels were picked for
  conv_path_t path;
  bool nchw;
  // The pixel-tile kernel, when it takes the call (else NULL): its path,
  // or, on the shifted path, the one a fused call with packed weights
  // takes (the same bits), or the strided pointwise path's fallback.
  etr_conv_pixels_fn pixels;
  // The Winograd kernel, when it takes the call (else NULL): tried first
  // on the shifted, pixel-tile and GEMM paths.
  etr_conv_winograd_t winograd;
  bool weight_dense;     // etr_tensor_is_dense(weight)
  int64_t weight_numel;  // etr_tensor_numel(weight)
  // padding_taps_matter's answer for a weight of read-only constant bytes
  // (ctx->constant_args), which no call can change: WEIGHT_SCAN_UNKNOWN
  // until a call scanned it.
  uint8_t weight_scan;
  etr_conv2d_geometry_t g;
} conv_plan_t;

#define PLAN_MARK 0x76636f6eu

enum { WEIGHT_SCAN_UNKNOWN = 0, WEIGHT_TAPS_SKIPPABLE, WEIGHT_TAPS_MATTER };
_Static_assert(sizeof(conv_plan_t) <= ETR_KERNEL_MEMO_BYTES,
               "a convolution plan must fit the kernel memo");

// Decides the path of an accepted call, or false for the reference kernel.
// `post` (NULL: none) must then be NCHW Float.
static bool plan_call(etr_kernel_context_t *ctx, etr_evalue_t **args,
                      size_t num_args, const etr_tensor_t *input,
                      const etr_tensor_t *weight, const etr_tensor_t *bias,
                      const etr_tensor_t *out, int64_t groups,
                      const etr_conv_post_t *post, conv_plan_t *plan) {
  bool nchw = etr_tensor_is_contiguous(input) &&
              etr_tensor_is_contiguous(out);
  // (Channels-last only asked when NCHW is not: at 0.3-1 us per small
  // layer every check of this dispatch shows.)
  bool nhwc = !nchw && input->dim == 4 && etr_tensor_is_dense(input) &&
              etr_tensor_is_dense(out) &&
              etr_dim_order_is_channels_last(input->dim_order, 4) &&
              etr_dim_order_is_channels_last(out->dim_order, 4);
  etr_conv2d_geometry_t *g = &plan->g;
  if ((!nchw && !nhwc) || (post != NULL && !nchw) ||
      (post != NULL && input->dtype != ETR_FLOAT) ||
      etr_opt_tensors_overlap(out, input) ||
      etr_opt_tensors_overlap(out, weight) ||
      (bias != NULL && etr_opt_tensors_overlap(out, bias)) ||
      !build_geometry(ctx, args, num_args, input, weight, out, groups, !nchw,
                      g)) {
    return false;
  }
  etr_isa_t isa = etr_isa_active();
  plan->isa = (int32_t)isa;
  plan->nchw = nchw;
  plan->weight_dense = etr_tensor_is_dense(weight);
  plan->weight_numel = etr_tensor_numel(weight);
  plan->weight_scan = WEIGHT_SCAN_UNKNOWN;
  etr_conv_pointwise_fn pointwise = etr_conv_pointwise_for(isa);
  // Asked only where it decides something (shifted and GEMM calls), not
  // on every small depthwise layer's fused call.
  plan->pixels = NULL;
  plan->winograd = (etr_conv_winograd_t){NULL, ETR_CONV_WINOGRAD_TILE_LANES};
  // A one-pixel 1x1 call: the pointwise kernel's columns, not the direct
  // kernel's few-channel path (mobilenet_v3's 4 -> 16 squeeze layer ran
  // 144 ns there, its 16 -> 4 twin 45).
  const bool one_pixel = pointwise != NULL && nchw &&
                         g->out_h * g->out_w == 1 &&
                         pointwise_applies(input, groups, g, out->sizes[1]);
  if (depthwise_applies(input, out, groups, g, !nchw)) {
    plan->path = PATH_DEPTHWISE;
  } else if (!one_pixel && nchw && input->dtype == ETR_FLOAT &&
             etr_conv_direct_takes(isa, g)) {
    plan->path = PATH_DIRECT;
    // From 16 input channels the Winograd kernel beats the narrow 3x3
    // direct one (the cnn's 16 -> 32 layer on 16x16: 21.5 -> 15.2 us); at
    // 8 its GEMMs are too short (87 GFLOP/s against about 100).
    if (g->channels >= 16) {
      plan->winograd = etr_conv_winograd_for(isa, g, out->sizes[1] / groups);
    }
  } else if (one_pixel ||
             (pointwise != NULL && nchw &&
              pointwise_applies(input, groups, g, out->sizes[1]))) {
    plan->path = PATH_POINTWISE;
  } else {
    bool float_nchw = nchw && input->dtype == ETR_FLOAT;
    plan->pixels = float_nchw ? etr_conv_pixels_for(isa, g,
                                                    out->sizes[1] / groups)
                              : NULL;
    if (float_nchw) {
      plan->winograd = etr_conv_winograd_for(isa, g, out->sizes[1] / groups);
    }
    plan->path = float_nchw && etr_conv_shifted_for(isa, g) != NULL
                     ? PATH_SHIFTED
                 : plan->pixels != NULL ? PATH_PIXELS
                                : PATH_GEMM;
    // Measured on AVX2 only (Zen 2); AVX-512 keeps its 6 x 64 pixel tiles.
    if (isa == ETR_ISA_AVX2 && pointwise != NULL && nchw &&
        strided_pointwise_applies(input, groups, g, out->sizes[1])) {
      plan->path = PATH_STRIDED_POINTWISE;
    }
  }
  plan->mark = PLAN_MARK;
  return true;
}

// Whether the pointwise kernel of `isa` reads a one-pixel call's weight
// packed as columns (etr_conv_columns_pack; pointwise_avx512.c,
// pointwise_avx2.c).
static bool reads_columns(etr_isa_t isa) {
  return isa == ETR_ISA_AVX512 || isa == ETR_ISA_AVX2;
}

// Computes an accepted (checked, out resized) call into `out`, with the
// fused epilogue `post` (NULL: none; NCHW Float only). False, having
// written nothing, for the cases that go to the reference kernel. An
// unfused call whose arguments the executor vouches for reuses the plan
// its first call left in ctx->memo. `packed` (NULL: none) is the weight
// packed at load, used while the weight is still the one packed.
static bool convolve(etr_kernel_context_t *ctx, etr_evalue_t **args,
                     size_t num_args, const etr_tensor_t *input,
                     const etr_tensor_t *weight, const etr_tensor_t *bias,
                     etr_tensor_t *out, int64_t groups,
                     const etr_conv_post_t *post,
                     const etr_conv_packed_t *packed) {
  const bool current = packed != NULL && packed->weight != NULL &&
                       packed->from == weight->data;
  const float *prepacked =
      current && packed->panel == etr_conv_pixels_panel(etr_isa_active())
          ? packed->weight
          : NULL;
  const float *columns = current &&
                                 packed->panel == ETR_CONV_COLUMNS_PANEL &&
                                 reads_columns(etr_isa_active())
                             ? packed->weight
                             : NULL;
  const float *taps =
      current && packed->panel == ETR_CONV_DEPTHWISE_TAPS_PANEL
          ? packed->weight
          : NULL;
  conv_plan_t local;
  bool memo = post == NULL && ctx->memo != NULL;
  conv_plan_t *plan = memo ? (conv_plan_t *)ctx->memo : &local;
  if (!(memo && ctx->args_checked && plan->mark == PLAN_MARK &&
        plan->isa == (int32_t)etr_isa_active())) {
    plan->mark = 0;
    if (!plan_call(ctx, args, num_args, input, weight, bias, out, groups,
                   post, plan)) {
      return false;
    }
  }
  const etr_conv2d_geometry_t *g = &plan->g;
  bool nchw = plan->nchw;
  // The paths that skip padding taps need a finite weight (a data check,
  // made on every call). A fused call knows its constant weight's answer
  // (fuse/fuse.c); an unfused one keeps it in the memo when its weight is
  // read-only constant data (about 17 ns a call on a 144-channel
  // depthwise layer, 7% of it).
  bool finite = post != NULL && post->weight_finite;
  conv_path_t path = plan->path;
  if ((path == PATH_DEPTHWISE || path == PATH_DIRECT) && !finite) {
    bool constant = memo && (ctx->constant_args & ((uint64_t)1 << 1)) != 0;
    uint8_t scan = constant ? plan->weight_scan : WEIGHT_SCAN_UNKNOWN;
    if (scan == WEIGHT_SCAN_UNKNOWN) {
      scan = padding_taps_matter(weight, g, plan->weight_numel,
                                 plan->weight_dense)
                 ? WEIGHT_TAPS_MATTER
                 : WEIGHT_TAPS_SKIPPABLE;
      if (constant) {
        plan->weight_scan = scan;
      }
    }
    if (scan == WEIGHT_TAPS_MATTER) {
      path = PATH_GEMM;  // padding: not the pointwise kernel's case either
    }
  }
  etr_conv_pixels_fn pixels = plan->pixels;
  const etr_conv_winograd_t winograd = plan->winograd;
  if (winograd.run != NULL &&
      run_winograd(ctx, winograd, input, weight, bias, out, groups, g, post,
                   current && packed->panel ==
                                  ETR_CONV_WINOGRAD_PANEL(winograd.layout)
                       ? packed->weight
                       : NULL)) {
    return true;
  }
  switch (path) {
    case PATH_DEPTHWISE:
      run_depthwise(input, weight, bias, out, g, !nchw, post, taps);
      return true;
    case PATH_DIRECT:
      run_direct(etr_conv_direct_for(etr_isa_active()), input, weight, bias,
                 out, groups, g, post);
      return true;
    case PATH_POINTWISE:
      run_pointwise(etr_conv_pointwise_for(etr_isa_active()), input, weight,
                    bias, out, g, post, columns);
      return true;
    case PATH_STRIDED_POINTWISE:
      if (run_strided_pointwise(ctx, etr_conv_pointwise_for(etr_isa_active()),
                                input, weight, bias, out, g, post)) {
        return true;
      }
      // No room for the subsampled input: the pixel tiles where they
      // would have run, else the GEMM.
      if (pixels != NULL && run_pixels(ctx, pixels, input, weight, bias, out,
                                       groups, g, post, prepacked)) {
        return true;
      }
      break;
    case PATH_SHIFTED:
      // Weights packed at load: the pixel-tile kernel, which sums in the
      // same order, when ctx->temp has its room.
      if (pixels != NULL && prepacked != NULL &&
          run_pixels(ctx, pixels, input, weight, bias, out, groups, g, post,
                     prepacked)) {
        return true;
      }
      if (run_shifted(ctx, etr_conv_shifted_for(etr_isa_active(), g), input,
                      weight, bias, out, groups, g, post)) {
        return true;
      }
      // No scratch for the padded copy: the GEMM (which shrinks its
      // blocks to what there is).
      break;
    case PATH_PIXELS:
      if (run_pixels(ctx, pixels, input, weight, bias, out, groups, g, post,
                     prepacked)) {
        return true;
      }
      // No room for its scratch: the GEMM, as for the shifted rows.
      break;
    default:
      break;
  }
  etr_conv2d_geometry_t gemm_g = *g;  // the GEMM sources point into it
  return run_gemm(ctx, input, weight, bias, out, groups, &gemm_g, !nchw,
                  post);
}

// The tensors and groups of a call the optimized kernel takes.
typedef struct conv_call {
  etr_tensor_t *input;
  etr_tensor_t *weight;
  etr_tensor_t *bias;  // may be NULL
  etr_tensor_t *out;
  int64_t groups;
  bool transposed;
} conv_call_t;

// Reads them once; false for a case of the reference kernel.
static bool read_call(etr_evalue_t **args, size_t num_args, conv_call_t *c) {
  c->input = etr_opt_tensor_arg(args, num_args, 0);
  c->weight = etr_opt_tensor_arg(args, num_args, 1);
  c->bias = etr_opt_tensor_arg(args, num_args, 2);
  c->out = etr_opt_tensor_arg(args, num_args, 9);
  const etr_tensor_t *x = c->input;
  const etr_tensor_t *w = c->weight;
  const etr_tensor_t *b = c->bias;
  if (num_args != 11 || x == NULL || w == NULL || c->out == NULL ||
      !etr_opt_gemm_dtype(x->dtype) || w->dtype != x->dtype ||
      c->out->dtype != x->dtype ||
      (b != NULL && (b->dtype != x->dtype || b->dim != 1)) ||
      (x->dim != 3 && x->dim != 4) || w->dim != x->dim ||
      args[6]->tag != ETR_TAG_BOOL || args[8]->tag != ETR_TAG_INT) {
    return false;
  }
  c->groups = args[8]->u.as_int;
  c->transposed = args[6]->u.as_bool;
  return true;
}

// Whether `t` shares bytes with one of the call's inputs.
static bool overlaps_inputs(const etr_tensor_t *t, const conv_call_t *c) {
  return etr_opt_tensors_overlap(t, c->input) ||
         etr_opt_tensors_overlap(t, c->weight) ||
         (c->bias != NULL && etr_opt_tensors_overlap(t, c->bias));
}

etr_error_t etr_conv_run_fused(etr_kernel_context_t *ctx,
                               etr_evalue_t **args, size_t num_args,
                               etr_tensor_t *target,
                               const etr_conv_post_t *post, bool *done,
                               bool *staged) {
  *done = false;
  *staged = false;
  conv_call_t c;
  if (!read_call(args, num_args, &c) || c.transposed) {
    return ETR_OK;
  }
  if (post == NULL || !post->checked || ctx->dry_run) {
    ETR_TRY(etr_opt_check(etr_ref_convolution_out, ctx, args, num_args));
  }
  // The unfused kernel would have written `out`: the fused call takes the
  // same path only when `out` is free of the inputs (as planned programs
  // have it) and `target` is laid out alike.
  const etr_tensor_t *out = c.out;
  if (ctx->dry_run || target->dtype != out->dtype ||
      target->dim != out->dim ||
      memcmp(target->sizes, out->sizes,
             (size_t)out->dim * sizeof(out->sizes[0])) != 0 ||
      memcmp(target->dim_order, out->dim_order, (size_t)out->dim) != 0 ||
      overlaps_inputs(out, &c)) {
    return ETR_OK;
  }
  // A target in the input's bytes (planners reuse them: the input is dead
  // once the block ends) is written through `out`, then copied.
  *staged = overlaps_inputs(target, &c);
  *done = convolve(ctx, args, num_args, c.input, c.weight, c.bias,
                   *staged ? c.out : target, c.groups, post,
                   post != NULL ? &post->packed : NULL);
  if (*done && *staged) {
    memmove(target->data, out->data, etr_tensor_nbytes(out));
  }
  return ETR_OK;
}

// The geometry of a transposed call conv_transposed.c may take: false
// when its out overlaps an input or a size does not fit.
static bool transposed_geometry(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args,
                                const conv_call_t *c,
                                etr_conv2d_geometry_t *g) {
  return !overlaps_inputs(c->out, c) &&
         build_geometry(ctx, args, num_args, c->input, c->weight, c->out,
                        c->groups, false, g);
}

// Room in the method's arena for `floats` packed weights (64-byte
// aligned), or NULL; packed_room_error says so.
static float *packed_floats(etr_arena_t *arena, size_t floats) {
  return (float *)etr_arena_alloc(arena, floats * sizeof(float), 64);
}
static etr_error_t packed_room_error(etr_kernel_context_t *ctx) {
  return ETR_FAIL(ctx->diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                  "packed convolution weights: arena exhausted");
}

etr_error_t etr_conv_prepack(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args, etr_arena_t *arena,
                             etr_conv_packed_t *packed) {
  *packed = (etr_conv_packed_t){NULL, NULL, 0, NULL};
  conv_call_t c;
  conv_plan_t plan;
  if (!read_call(args, num_args, &c) || c.weight->data == NULL) {
    return ETR_OK;
  }
  if (c.transposed) {
    // A transposed convolution's weight as its GEMM's A.
    etr_conv2d_geometry_t g;
    const etr_gemm_packed_a_t *a =
        transposed_geometry(ctx, args, num_args, &c, &g)
            ? etr_conv_transposed_prepack(arena, etr_isa_active(), c.input,
                                          c.weight, c.out, c.groups, &g)
            : NULL;
    if (a != NULL) {
      *packed = (etr_conv_packed_t){a->panels, c.weight->data,
                                    ETR_CONV_TRANSPOSED_PANEL, a};
    }
    return ETR_OK;
  }
  if (!plan_call(ctx, args, num_args, c.input, c.weight, c.bias, c.out,
                 c.groups, NULL, &plan)) {
    return ETR_OK;
  }
  const etr_conv2d_geometry_t *g = &plan.g;
  if (plan.path == PATH_POINTWISE && g->out_h * g->out_w == 1 &&
      reads_columns(etr_isa_active())) {
    // One pixel: the weight as columns.
    const int64_t oc = c.out->sizes[1];
    float *dst = packed_floats(
        arena, (size_t)(etr_conv_columns_pitch(oc) * g->channels));
    if (dst == NULL) {
      return packed_room_error(ctx);
    }
    etr_conv_columns_pack((const float *)c.weight->data, g->w_stride_oc, oc,
                          g->channels, dst);
    *packed = (etr_conv_packed_t){dst, c.weight->data,
                                  ETR_CONV_COLUMNS_PANEL, NULL};
    return ETR_OK;
  }
  if (plan.path == PATH_DEPTHWISE && plan.nchw) {
    // The 16-channel kernels' tap vectors, when this ISA's kernel for the
    // call is one of them.
    const etr_depthwise_args_t a =
        depthwise_args(c.input, c.weight, c.bias, c.out, g, NULL);
    if (!etr_depthwise_reads_taps(etr_isa_active(), &a)) {
      return ETR_OK;
    }
    float *dst = packed_floats(arena, etr_depthwise_taps_floats(g, a.channels));
    if (dst == NULL) {
      return packed_room_error(ctx);
    }
    etr_depthwise_taps_pack((const float *)c.weight->data, g, a.channels,
                            dst);
    *packed = (etr_conv_packed_t){dst, c.weight->data,
                                  ETR_CONV_DEPTHWISE_TAPS_PANEL, NULL};
    return ETR_OK;
  }
  int64_t ocg = c.out->sizes[1] / c.groups;
  if (plan.winograd.run != NULL) {
    // The Winograd kernel's transformed weight; when a weight is out of
    // its range (the kernel declines every call), the pixel tiles' panels.
    size_t floats = etr_conv_winograd_packed_floats(ocg, g->channels);
    float *dst = packed_floats(arena, (size_t)c.groups * floats);
    if (dst == NULL) {
      return packed_room_error(ctx);
    }
    bool ok = true;
    for (int64_t group = 0; ok && group < c.groups; ++group) {
      ok = etr_conv_winograd_pack(
          (const float *)c.weight->data + group * ocg * g->w_stride_oc, g,
          ocg, plan.winograd.layout, dst + (size_t)group * floats);
    }
    if (ok) {
      *packed = (etr_conv_packed_t){
          dst, c.weight->data, ETR_CONV_WINOGRAD_PANEL(plan.winograd.layout),
          NULL};
      return ETR_OK;
    }
  }
  if (plan.pixels == NULL || plan.path == PATH_STRIDED_POINTWISE) {
    return ETR_OK;
  }
  int64_t depth = g->channels * g->kernel_h * g->kernel_w;
  size_t floats = etr_conv_pixels_packed_floats(ocg, depth);
  float *dst = packed_floats(arena, (size_t)c.groups * floats);
  if (dst == NULL) {
    return packed_room_error(ctx);
  }
  for (int64_t group = 0; group < c.groups; ++group) {
    etr_conv_pixels_pack(
        (const float *)c.weight->data + group * ocg * g->w_stride_oc,
        g->w_stride_oc, ocg, depth, dst + (size_t)group * floats);
  }
  *packed = (etr_conv_packed_t){dst, c.weight->data,
                                etr_conv_pixels_panel(etr_isa_active()),
                                NULL};
  return ETR_OK;
}

// A transposed convolution through conv_transposed.c; false for its
// reference cases. `packed` (NULL: none) is the weight packed at load.
static bool transposed(etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args, const conv_call_t *c,
                       const etr_conv_packed_t *packed) {
  etr_conv2d_geometry_t g;
  const etr_gemm_packed_a_t *a_packed =
      packed != NULL && packed->panel == ETR_CONV_TRANSPOSED_PANEL &&
              packed->from == c->weight->data
          ? packed->gemm_a
          : NULL;
  return transposed_geometry(ctx, args, num_args, c, &g) &&
         etr_conv_transposed_nchw(ctx->temp, etr_isa_active(), c->input,
                                  c->weight, c->bias, c->out, c->groups, &g,
                                  a_packed);
}

// aten::convolution.out
etr_error_t etr_opt_convolution_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  conv_call_t c;
  if (!read_call(args, num_args, &c)) {
    return etr_opt_fallback(etr_ref_convolution_out, ctx, args, num_args);
  }
  if (c.transposed) {
    ETR_TRY(etr_opt_check(etr_ref_convolution_out, ctx, args, num_args));
    if (ctx->dry_run ||
        transposed(ctx, args, num_args, &c,
                   (const etr_conv_packed_t *)ctx->state)) {
      return ETR_OK;
    }
    return etr_opt_fallback(etr_ref_convolution_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_convolution_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  // ctx->state: the weight packed at load (etr_opt_prepack_method), or
  // NULL.
  if (!convolve(ctx, args, num_args, c.input, c.weight, c.bias, c.out,
                c.groups, NULL, (const etr_conv_packed_t *)ctx->state)) {
    return etr_opt_fallback(etr_ref_convolution_out, ctx, args, num_args);
  }
  return ETR_OK;
}
