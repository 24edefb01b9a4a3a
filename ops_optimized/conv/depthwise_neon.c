// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution, NEON (aarch64) (conv.h).
//
// NCHW: 4 output columns of one row at a time where every tap of the
// kernel row reads inside the input (stride 1, unit column stride); the
// columns next to the padding, and other strides, are computed one at a
// time with their in-bounds taps only, as the reference. NHWC: 4 channels
// of one pixel at a time, taps outside the image skipped whole, the last
// channels one at a time.
#include <arm_neon.h>
#include <math.h>

#include "ops_optimized/conv/conv.h"

// One output of the NCHW kernel, in-bounds taps only.
static float one_output(const etr_conv2d_geometry_t *g, const float *in,
                        const float *w, int64_t oh, int64_t ow) {
  float sum = 0.0f;
  for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
    int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
    if (ih < 0 || ih >= g->in_h) {
      continue;
    }
    for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
      int64_t iw = ow * g->stride_w - g->pad_w + kw * g->dilation_w;
      if (iw >= 0 && iw < g->in_w) {
        sum = fmaf(w[kh * g->w_stride_h + kw * g->w_stride_w],
                   in[ih * g->in_stride_h + iw * g->in_stride_w], sum);
      }
    }
  }
  return sum;
}

void etr_depthwise_nchw_neon(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  // Output columns [lo, hi) have every kw tap inside the row.
  int64_t lo = 0;
  int64_t hi = g->out_w;
  for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
    int64_t first = 0;
    int64_t end = 0;
    etr_conv_valid_range(g->out_w, g->in_w, g->stride_w, g->pad_w,
                         kw * g->dilation_w, &first, &end);
    lo = first > lo ? first : lo;
    hi = end < hi ? end : hi;
  }
  bool vector = g->stride_w == 1 && g->in_stride_w == 1;
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const float *in = args->input + oc / args->multiplier * g->in_stride_c;
    const float *w = args->weight + oc * g->w_stride_oc;
    float *plane = args->out + oc * args->out_stride_c;
    float bias = args->bias != NULL ? args->bias[oc * args->bias_stride]
                                    : 0.0f;
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      float *row = plane + oh * args->out_stride_h;
      int64_t ow = 0;
      while (ow < g->out_w) {
        if (vector && ow >= lo && ow + 4 <= hi) {
          float32x4_t acc = vdupq_n_f32(0.0f);
          for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
            int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
            if (ih < 0 || ih >= g->in_h) {
              continue;
            }
            const float *in_row = in + ih * g->in_stride_h;
            for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
              int64_t iw = ow - g->pad_w + kw * g->dilation_w;
              acc = vfmaq_n_f32(acc, vld1q_f32(in_row + iw),
                                w[kh * g->w_stride_h + kw * g->w_stride_w]);
            }
          }
          if (args->bias != NULL) {
            acc = vaddq_f32(acc, vdupq_n_f32(bias));
          }
          vst1q_f32(row + ow, acc);
          ow += 4;
        } else {
          float sum = one_output(g, in, w, oh, ow);
          row[ow] = args->bias != NULL ? sum + bias : sum;
          ow += 1;
        }
      }
    }
  }
}

void etr_depthwise_nhwc_neon(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  for (int64_t oh = 0; oh < g->out_h; ++oh) {
    for (int64_t ow = 0; ow < g->out_w; ++ow) {
      float *pixel = args->out + oh * args->out_stride_h +
                     ow * args->out_stride_w;
      int64_t c = 0;
      for (; c + 4 <= args->channels; c += 4) {
        float32x4_t acc = vdupq_n_f32(0.0f);
        for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
          int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
          if (ih < 0 || ih >= g->in_h) {
            continue;
          }
          for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
            int64_t iw = ow * g->stride_w - g->pad_w + kw * g->dilation_w;
            if (iw < 0 || iw >= g->in_w) {
              continue;
            }
            int64_t offset = kh * g->w_stride_h + kw * g->w_stride_w;
            float weights[4];
            for (int64_t j = 0; j < 4; ++j) {
              weights[j] = args->weight[(c + j) * g->w_stride_oc + offset];
            }
            acc = vfmaq_f32(acc, vld1q_f32(weights),
                            vld1q_f32(args->input + ih * g->in_stride_h +
                                      iw * g->in_stride_w + c));
          }
        }
        if (args->bias != NULL) {
          float biases[4];
          for (int64_t j = 0; j < 4; ++j) {
            biases[j] = args->bias[(c + j) * args->bias_stride];
          }
          acc = vaddq_f32(acc, vld1q_f32(biases));
        }
        vst1q_f32(pixel + c, acc);
      }
      for (; c < args->channels; ++c) {
        const float *w = args->weight + c * g->w_stride_oc;
        float sum = 0.0f;
        for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
          int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
          if (ih < 0 || ih >= g->in_h) {
            continue;
          }
          for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
            int64_t iw = ow * g->stride_w - g->pad_w + kw * g->dilation_w;
            if (iw >= 0 && iw < g->in_w) {
              sum = fmaf(w[kh * g->w_stride_h + kw * g->w_stride_w],
                         args->input[ih * g->in_stride_h +
                                     iw * g->in_stride_w + c],
                         sum);
            }
          }
        }
        pixel[c] = args->bias != NULL
                       ? sum + args->bias[c * args->bias_stride]
                       : sum;
      }
    }
  }
}
