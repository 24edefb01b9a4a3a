// SPDX-License-Identifier: Apache-2.0
//
// The depthwise, direct few-channel and pointwise paths of the optimized
// convolution (see run.h).
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/run.h"
#include "ops_optimized/isa.h"

bool etr_conv_padding_taps_matter(const etr_tensor_t *weight,
                                  const etr_conv2d_geometry_t *g, int64_t numel,
                                  bool dense) {
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

bool etr_conv_depthwise_applies(const etr_tensor_t *input,
                                const etr_tensor_t *out, int64_t groups,
                                const etr_conv2d_geometry_t *g,
                                bool channels_last) {
  return input->dtype == ETR_FLOAT && groups > 1 &&
         groups == input->sizes[1] &&
         g->kernel_h * g->kernel_w <= 64 &&
         (!channels_last || out->sizes[1] == groups);
}

etr_depthwise_args_t etr_conv_depthwise_args(const etr_tensor_t *input,
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
      // (No divide for the usual multiplier of 1: a 64-bit idiv was a
      // few ns of a small layer's call.)
      .multiplier = out->sizes[1] == input->sizes[1]
                        ? 1
                        : out->sizes[1] / input->sizes[1],
      .taps = taps,
  };
}

void etr_conv_run_depthwise(etr_depthwise_fn kernel,
                            const etr_tensor_t *input,
                            const etr_tensor_t *weight,
                            const etr_tensor_t *bias, etr_tensor_t *out,
                            const etr_conv2d_geometry_t *g, bool channels_last,
                            const etr_conv_post_t *post, const float *taps) {
  if (kernel == NULL) {
    kernel = etr_depthwise_for(etr_isa_active(), channels_last);
  }
  etr_depthwise_args_t a =
      etr_conv_depthwise_args(input, weight, bias, out, g,
                              channels_last ? NULL : taps);
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

void etr_conv_run_direct(etr_depthwise_fn kernel, const etr_tensor_t *input,
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

bool etr_conv_pointwise_applies(const etr_tensor_t *input, int64_t groups,
                                const etr_conv2d_geometry_t *g, int64_t ocg) {
  return input->dtype == ETR_FLOAT && groups == 1 && g->kernel_h == 1 &&
         g->kernel_w == 1 && g->stride_h == 1 && g->stride_w == 1 &&
         g->pad_h == 0 && g->pad_w == 0 &&
         (g->channels == 1 || g->w_stride_c == 1) && g->channels <= 256 &&
         ocg * g->channels * (int64_t)sizeof(float) <= 32 * 1024;
}

bool etr_conv_strided_pointwise_applies(const etr_tensor_t *input,
                                        int64_t groups,
                                        const etr_conv2d_geometry_t *g,
                                        int64_t ocg) {
  etr_conv2d_geometry_t sub = *g;
  sub.stride_h = 1;
  sub.stride_w = 1;
  return (g->stride_h > 1 || g->stride_w > 1) && g->channels <= 64 &&
         ocg >= 2 * g->channels && g->out_h * g->out_w >= 64 &&
         etr_conv_pointwise_applies(input, groups, &sub, ocg);
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

bool etr_conv_run_strided_pointwise(etr_kernel_context_t *ctx,
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

void etr_conv_run_pointwise(etr_conv_pointwise_fn kernel,
                            const etr_tensor_t *input,
                            const etr_tensor_t *weight,
                            const etr_tensor_t *bias, etr_tensor_t *out,
                            const etr_conv2d_geometry_t *g,
                            const etr_conv_post_t *post, const float *columns) {
  for (int64_t n = 0; n < input->sizes[0]; ++n) {
    pointwise_image(kernel, (const float *)input->data + n * input->strides[0],
                    g->in_stride_c, weight, bias,
                    (float *)out->data + n * out->strides[0], out, g, post,
                    columns);
  }
}
