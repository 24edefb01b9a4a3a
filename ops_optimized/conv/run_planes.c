// SPDX-License-Identifier: Apache-2.0
//
// The padded-plane (shifted rows, pixel tiles), Winograd and GEMM paths of
// the optimized convolution (see run.h).
#include "ops_optimized/conv/run.h"
#include "ops_optimized/gemm/gemm_ops.h"
#include "ops_optimized/isa.h"

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

bool etr_conv_run_shifted(etr_kernel_context_t *ctx, etr_conv_shifted_fn kernel,
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

bool etr_conv_run_pixels(etr_kernel_context_t *ctx, etr_conv_pixels_fn kernel,
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

bool etr_conv_run_winograd(etr_kernel_context_t *ctx,
                           etr_conv_winograd_t kernel,
                           const etr_tensor_t *input,
                           const etr_tensor_t *weight, const etr_tensor_t *bias,
                           etr_tensor_t *out, int64_t groups,
                           const etr_conv2d_geometry_t *g,
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

bool etr_conv_run_gemm(etr_kernel_context_t *ctx, const etr_tensor_t *input,
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
