// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution, portable C (conv.h), and the per-ISA selection
// of the depthwise kernels. Each output sums its in-bounds taps in (kh, kw)
// order from +0.0 and adds the bias last, as the reference does, so taps
// in the padding are skipped rather than multiplied by zero. Also the
// per-ISA choice of the direct few-channel kernel (direct_<isa>.c).
#include "ops_optimized/conv/conv.h"

void etr_depthwise_nchw_scalar(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const float *in = args->input + oc / args->multiplier * g->in_stride_c;
    const float *w = args->weight + oc * g->w_stride_oc;
    float *plane = args->out + oc * args->out_stride_c;
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      for (int64_t ow = 0; ow < g->out_w; ++ow) {
        float sum = 0.0f;
        for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
          int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
          if (ih < 0 || ih >= g->in_h) {
            continue;
          }
          for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
            int64_t iw = ow * g->stride_w - g->pad_w + kw * g->dilation_w;
            if (iw >= 0 && iw < g->in_w) {
              sum += w[kh * g->w_stride_h + kw * g->w_stride_w] *
                     in[ih * g->in_stride_h + iw * g->in_stride_w];
            }
          }
        }
        if (args->bias != NULL) {
          sum += args->bias[oc * args->bias_stride];
        }
        plane[oh * args->out_stride_h + ow] = sum;
      }
    }
  }
}

void etr_depthwise_nhwc_scalar(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  for (int64_t oh = 0; oh < g->out_h; ++oh) {
    for (int64_t ow = 0; ow < g->out_w; ++ow) {
      float *pixel = args->out + oh * args->out_stride_h +
                     ow * args->out_stride_w;
      for (int64_t c = 0; c < args->channels; ++c) {
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
              sum += w[kh * g->w_stride_h + kw * g->w_stride_w] *
                     args->input[ih * g->in_stride_h + iw * g->in_stride_w +
                                 c];
            }
          }
        }
        if (args->bias != NULL) {
          sum += args->bias[c * args->bias_stride];
        }
        pixel[c] = sum;
      }
    }
  }
}

etr_depthwise_fn etr_depthwise_for(etr_isa_t isa, bool channels_last) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return channels_last ? etr_depthwise_nhwc_avx512
                           : etr_depthwise_nchw_avx512;
    case ETR_ISA_AVX2:
      return channels_last ? etr_depthwise_nhwc_avx2
                           : etr_depthwise_nchw_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return channels_last ? etr_depthwise_nhwc_neon
                           : etr_depthwise_nchw_neon;
#endif
    default:
      return channels_last ? etr_depthwise_nhwc_scalar
                           : etr_depthwise_nchw_scalar;
  }
}

etr_depthwise_fn etr_depthwise_resolve(etr_isa_t isa, bool channels_last,
                                       const etr_depthwise_args_t *args) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX512 && !channels_last) {
    return etr_depthwise_nchw_avx512_kernel(args);
  }
#endif
  (void)args;
  return etr_depthwise_for(isa, channels_last);
}

bool etr_depthwise_reads_taps(etr_isa_t isa,
                              const etr_depthwise_args_t *args) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX512) {
    return etr_depthwise_nchw_avx512_reads_taps(args);
  }
#endif
  (void)isa;
  (void)args;
  return false;
}

size_t etr_depthwise_taps_floats(const etr_conv2d_geometry_t *g,
                                 int64_t channels) {
  return (size_t)((channels + 15) / 16 * 16 * g->kernel_h * g->kernel_w);
}

void etr_depthwise_taps_pack(const float *weight,
                             const etr_conv2d_geometry_t *g,
                             int64_t channels, float *dst) {
  const int64_t taps = g->kernel_h * g->kernel_w;
  for (int64_t c0 = 0; c0 < channels; c0 += 16) {
    float *group = dst + c0 * taps;
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t c = 0; c < 16; ++c) {
        group[16 * t + c] =
            c0 + c < channels
                ? weight[(c0 + c) * g->w_stride_oc +
                         t / g->kernel_w * g->w_stride_h +
                         t % g->kernel_w * g->w_stride_w]
                : 0.0f;
      }
    }
  }
}

etr_depthwise_post_fn etr_depthwise_with_post_for(
    etr_isa_t isa, const etr_depthwise_args_t *args) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX2) {
    return etr_depthwise_post_kernel_avx2(args);
  }
#endif
  (void)isa;
  (void)args;
  return NULL;
}

etr_depthwise_fn etr_conv_direct_for(etr_isa_t isa) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX512) {
    return etr_conv_direct_nchw_avx512;
  }
  if (isa == ETR_ISA_AVX2) {
    return etr_conv_stem_nchw_avx2;
  }
#endif
  (void)isa;
  return NULL;
}

etr_depthwise_post_fn etr_conv_direct_with_post_for(etr_isa_t isa) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX2) {
    return etr_conv_stem_nchw_avx2_post;
  }
#endif
  (void)isa;
  return NULL;
}

bool etr_conv_direct_takes(etr_isa_t isa, const etr_conv2d_geometry_t *g) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX512) {
    const etr_depthwise_args_t args = {.geometry = g};
    return (g->channels <= 4 &&
            g->channels * g->kernel_h * g->kernel_w <= 32 &&
            ((g->stride_h == 1 && g->stride_w == 1) ||
             (g->stride_w == 2 && g->out_w >= 8))) ||
           etr_conv_stem3x3_narrow_nchw_avx512_applies(&args) ||
           etr_conv_stem_nchw_avx512_applies(&args);
  }
  if (isa == ETR_ISA_AVX2) {
    return etr_conv_stem_nchw_avx2_applies(g);
  }
#endif
  (void)isa;
  (void)g;
  return false;
}

etr_conv_nonfinite_fn etr_conv_any_nonfinite_for(etr_isa_t isa) {
#if defined(__x86_64__)
  if (isa == ETR_ISA_AVX512) {
    return etr_conv_any_nonfinite_avx512;
  }
#endif
  (void)isa;
  return NULL;
}
