// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::convolution_backward.out for 1-D and 2-D convolutions,
// plain or transposed, on contiguous Float tensors, any stride,
// padding, dilation and groups (1-D as 2-D with a kernel, stride and
// dilation of 1 and no padding along a size-1 height).
//
// A plain convolution with one group (a training step's layers) is GEMMs
// with fp32 sums: grad_input the transposed convolution of grad_output by
// the weight (conv/conv_transposed.c), grad_weight im2col GEMMs over the
// output pixels (weight_grad_gemm). Bit-exact with the reference's double
// sums when every partial sum is exact (small integers), else within the
// accumulation bound (32 -> 32 channels, 3x3, 28 x 28, AMD Zen 5: 11.4 ms
// -> 0.27 ms).
//
// The rest, and those two when the scratch is short: the reference's
// gathers -- grad_input over the kernel taps and the group's output
// channels, grad_weight over the batch and the output positions -- in the
// reference's loop orders on typed planes, with each tap's linked
// positions found by arithmetic on whole rows instead of per-element
// stride walks, each sum the reference's double sum in its order, rounded
// once: bit-exact. grad_bias is always that (over the batch and the
// pixels). 3-D convolutions, other dtypes and layouts and argument errors
// go to the reference kernel (ops_reference/op_convolution_backward.c),
// whose dry run checks and resizes first.
#include "core/arena.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/conv/conv.h"
#include "ops_optimized/gemm/gemm.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/shape.h"

typedef struct conv2d {
  int64_t batch, in_c, in_h, in_w;
  int64_t out_c, out_h, out_w;
  int64_t k_h, k_w;
  int64_t stride[2], padding[2], dilation[2];
  int64_t groups;
  bool transposed;
  const float *g;  // grad_output [N, OC, OH, OW]
  const float *x;  // input [N, IC, H, W]
  const float *w;  // weight [OC, IC / groups, KH, KW] ([IC, OC / groups,
                   // KH, KW] transposed)
} conv2d_t;

// The output coordinate linked to input coordinate i by tap k along one
// dim, or -1: plain, o * stride - padding + k * dilation = i; transposed,
// o = i * stride - padding + k * dilation.
static inline int64_t linked_out(bool transposed, int64_t i, int64_t k,
                                 int64_t stride, int64_t padding,
                                 int64_t dilation, int64_t size) {
  if (transposed) {
    int64_t o = i * stride - padding + k * dilation;
    return o >= 0 && o < size ? o : -1;
  }
  int64_t t = i + padding - k * dilation;
  if (t < 0 || t % stride != 0 || t / stride >= size) {
    return -1;
  }
  return t / stride;
}

static void input_grad(const conv2d_t *c, float *out) {
  int64_t in_per_group = c->in_c / c->groups;
  int64_t out_per_group = c->out_c / c->groups;
  for (int64_t n = 0; n < c->batch; ++n) {
    for (int64_t ic = 0; ic < c->in_c; ++ic) {
      int64_t group = ic / in_per_group;
      for (int64_t ih = 0; ih < c->in_h; ++ih) {
        for (int64_t iw = 0; iw < c->in_w; ++iw) {
          double sum = 0.0;
          for (int64_t kh = 0; kh < c->k_h; ++kh) {
            int64_t oh = linked_out(c->transposed, ih, kh, c->stride[0],
                                    c->padding[0], c->dilation[0], c->out_h);
            for (int64_t kw = 0; oh >= 0 && kw < c->k_w; ++kw) {
              int64_t ow = linked_out(c->transposed, iw, kw, c->stride[1],
                                      c->padding[1], c->dilation[1],
                                      c->out_w);
              if (ow < 0) {
                continue;
              }
              for (int64_t local = 0; local < out_per_group; ++local) {
                int64_t oc = group * out_per_group + local;
                int64_t row = c->transposed
                                  ? ic * out_per_group + local
                                  : oc * in_per_group + ic % in_per_group;
                double weight = c->w[(row * c->k_h + kh) * c->k_w + kw];
                double grad =
                    c->g[((n * c->out_c + oc) * c->out_h + oh) * c->out_w +
                         ow];
                sum += grad * weight;
              }
            }
          }
          *out++ = (float)sum;
        }
      }
    }
  }
}

static void weight_grad(const conv2d_t *c, float *out) {
  int64_t in_per_group = c->in_c / c->groups;
  int64_t out_per_group = c->out_c / c->groups;
  // Weight rows: (oc, ic within the group) plain, (ic, oc within the
  // group) transposed.
  int64_t rows = c->transposed ? c->in_c : c->out_c;
  int64_t columns = c->transposed ? out_per_group : in_per_group;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t q = 0; q < columns; ++q) {
      int64_t oc =
          c->transposed ? (r / in_per_group) * out_per_group + q : r;
      int64_t ic =
          c->transposed ? r : (r / out_per_group) * in_per_group + q;
      for (int64_t kh = 0; kh < c->k_h; ++kh) {
        for (int64_t kw = 0; kw < c->k_w; ++kw) {
          double sum = 0.0;
          for (int64_t n = 0; n < c->batch; ++n) {
            const float *g = c->g + (n * c->out_c + oc) * c->out_h * c->out_w;
            const float *x = c->x + (n * c->in_c + ic) * c->in_h * c->in_w;
            if (c->transposed) {
              // Input positions walked, the linked output found.
              for (int64_t ih = 0; ih < c->in_h; ++ih) {
                int64_t oh = linked_out(true, ih, kh, c->stride[0],
                                        c->padding[0], c->dilation[0],
                                        c->out_h);
                for (int64_t iw = 0; oh >= 0 && iw < c->in_w; ++iw) {
                  int64_t ow = linked_out(true, iw, kw, c->stride[1],
                                          c->padding[1], c->dilation[1],
                                          c->out_w);
                  if (ow >= 0) {
                    sum += (double)x[ih * c->in_w + iw] *
                           (double)g[oh * c->out_w + ow];
                  }
                }
              }
              continue;
            }
            for (int64_t oh = 0; oh < c->out_h; ++oh) {
              int64_t ih = oh * c->stride[0] - c->padding[0] +
                           kh * c->dilation[0];
              if (ih < 0 || ih >= c->in_h) {
                continue;
              }
              for (int64_t ow = 0; ow < c->out_w; ++ow) {
                int64_t iw = ow * c->stride[1] - c->padding[1] +
                             kw * c->dilation[1];
                if (iw < 0 || iw >= c->in_w) {
                  continue;
                }
                sum += (double)g[oh * c->out_w + ow] *
                       (double)x[ih * c->in_w + iw];
              }
            }
          }
          *out++ = (float)sum;
        }
      }
    }
  }
}

static void bias_grad(const conv2d_t *c, float *out) {
  int64_t plane = c->out_h * c->out_w;
  for (int64_t oc = 0; oc < c->out_c; ++oc) {
    double sum = 0.0;
    for (int64_t n = 0; n < c->batch; ++n) {
      const float *g = c->g + (n * c->out_c + oc) * plane;
      for (int64_t k = 0; k < plane; ++k) {
        sum += (double)g[k];
      }
    }
    out[oc] = (float)sum;
  }
}

// The pixels of one grad_weight step: its im2col columns (kk rows of
// them) fit this many bytes of scratch.
#define COLS_BYTES ((size_t)512 * 1024)

static bool overlaps(const etr_tensor_t *a, const etr_tensor_t *b) {
  return etr_gemm_overlaps(a->data, (size_t)etr_numel(a) * sizeof(float),
                           b->data, (size_t)etr_numel(b) * sizeof(float));
}

// The convolution's window over a contiguous plane of `channels` x
// in_h x in_w that a GEMM path reads (conv/conv.h), its out out_h x out_w.
static etr_conv2d_geometry_t plane_geometry(const conv2d_t *c,
                                            int64_t channels, int64_t in_h,
                                            int64_t in_w, int64_t out_h,
                                            int64_t out_w) {
  etr_conv2d_geometry_t g = {
      .channels = channels,
      .in_h = in_h,
      .in_w = in_w,
      .out_h = out_h,
      .out_w = out_w,
      .kernel_h = c->k_h,
      .kernel_w = c->k_w,
      .stride_h = c->stride[0],
      .stride_w = c->stride[1],
      .pad_h = c->padding[0],
      .pad_w = c->padding[1],
      .dilation_h = c->dilation[0],
      .dilation_w = c->dilation[1],
      .in_stride_c = in_h * in_w,
      .in_stride_h = in_w,
      .in_stride_w = 1,
  };
  return g;
}

// grad_input of a plain convolution with one group: the transposed
// convolution of grad_output by the same weight ([OC, IC, KH, KW] read as
// a transposed convolution's [C_in, C_out, KH, KW]), conv_transposed.c's
// GEMM and scatter-add. False, with nothing written, when it does not
// take the call.
static bool input_grad_gemm(etr_kernel_context_t *ctx, const conv2d_t *c,
                            const etr_tensor_t *grad_output,
                            const etr_tensor_t *weight, etr_tensor_t *out) {
  if (overlaps(out, grad_output) || overlaps(out, weight)) {
    return false;
  }
  // The transposed convolution's input is grad_output, its out the
  // convolution's input.
  etr_conv2d_geometry_t g = plane_geometry(c, c->out_c, c->out_h, c->out_w,
                                           c->in_h, c->in_w);
  return etr_conv_transposed_nchw(ctx->temp, etr_isa_active(), grad_output,
                                  weight, NULL, out, 1, &g, NULL);
}

// grad_weight of a plain convolution with one group as GEMMs over the
// output pixels: dW[oc][(ic, kh, kw)] = sum over images and pixels of
// grad_output[oc][pixel] x im2col[(ic, kh, kw)][pixel]. Each step (an
// image's block of pixels) materializes its im2col columns in scratch and
// adds its product to the last step's through the GEMM's bias, ping-ponging
// between the out and a scratch copy so the last step lands in the out.
// fp32 sums (the reference's are double): within the accumulation bound.
// False, with nothing written, when the scratch is short.
static bool weight_grad_gemm(etr_kernel_context_t *ctx, const conv2d_t *c,
                             float *out) {
  if (ctx->temp == NULL) {
    return false;
  }
  const size_t depth = (size_t)(c->in_c * c->k_h * c->k_w);
  const size_t pixels = (size_t)(c->out_h * c->out_w);
  const size_t oc = (size_t)c->out_c;
  size_t block = COLS_BYTES / (depth * sizeof(float));
  block = block < 16 ? 16 : block;
  block = block < pixels ? block : pixels;
  etr_arena_mark_t mark = etr_arena_mark(ctx->temp);
  float *cols =
      etr_arena_alloc(ctx->temp, depth * block * sizeof(float), 64);
  float *spare = etr_arena_alloc(ctx->temp, oc * depth * sizeof(float), 64);
  if (cols == NULL || spare == NULL || block == 0) {
    etr_arena_rewind(ctx->temp, mark);
    return false;
  }
  etr_conv2d_geometry_t g = plane_geometry(c, c->in_c, c->in_h, c->in_w,
                                           c->out_h, c->out_w);
  const size_t blocks = (pixels + block - 1) / block;
  const size_t steps = (size_t)c->batch * blocks;
  const float *last = NULL;  // the previous step's sums
  for (size_t step = 0; step < steps; ++step) {
    int64_t n = (int64_t)(step / blocks);
    size_t p0 = step % blocks * block;
    size_t count = pixels - p0 < block ? pixels - p0 : block;
    etr_gemm_source_t image = {etr_conv_pack_im2col,
                               c->x + n * c->in_c * c->in_h * c->in_w,
                               ETR_FLOAT, 0, 0, &g};
    etr_conv_pack_im2col(&image, 0, depth, p0, count, count, cols);
    float *into = (steps - 1 - step) % 2 == 0 ? out : spare;
    etr_gemm_problem_t p = {
        .m = oc,
        .n = depth,
        .k = count,
        .a = etr_gemm_matrix(c->g + (size_t)n * oc * pixels + p0, ETR_FLOAT,
                             1, (ptrdiff_t)pixels),
        .b = etr_gemm_matrix(cols, ETR_FLOAT, 1, (ptrdiff_t)count),
        .c = into,
        .c_dtype = ETR_FLOAT,
        .c_row_stride = (ptrdiff_t)depth,
        .alpha = 1.0f,
        .beta = last != NULL ? 1.0f : 0.0f,
        .bias = last,
        .bias_row_stride = (ptrdiff_t)depth,
        .bias_col_stride = 1,
    };
    etr_gemm(&p, NULL, ctx->temp, etr_isa_active());
    last = into;
  }
  etr_arena_rewind(ctx->temp, mark);
  return true;
}

static bool f32_or_null(const etr_tensor_t *tensor) {
  return tensor == NULL || etr_opt_is_contiguous_f32(tensor);
}

// aten::convolution_backward.out
etr_error_t etr_opt_convolution_backward_out(etr_kernel_context_t *ctx,
                                             etr_evalue_t **args,
                                             size_t num_args) {
  etr_kernel_fn reference = etr_ref_convolution_backward_out;
  etr_tensor_t *grad_output = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *weight = etr_opt_tensor_arg(args, num_args, 2);
  if (num_args != 15 || grad_output == NULL || input == NULL ||
      weight == NULL || input->dtype != ETR_FLOAT ||
      (input->dim != 3 && input->dim != 4)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(reference, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  conv2d_t c;
  bool transposed = false;
  int64_t output_padding[2];
  bool mask[3];
  etr_tensor_t *outs[3] = {NULL, NULL, NULL};
  // 1-D: the parameters of the width only; the height is a unit one.
  int32_t spatial = input->dim - 2;
  int32_t first = 2 - spatial;
  c.stride[0] = 1;
  c.padding[0] = 0;
  c.dilation[0] = 1;
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 4, "stride", spatial, true,
                           NULL, c.stride + first));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 5, "padding", spatial, true,
                           NULL, c.padding + first));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 6, "dilation", spatial, true,
                           NULL, c.dilation + first));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 7, "transposed", &transposed));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 8, "output_padding", spatial,
                           true, NULL, output_padding));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 9, "groups", &c.groups));
  ETR_TRY(etr_nn_read_output_mask(ctx, args, num_args, 10, mask));
  for (int i = 0; i < 3; ++i) {
    ETR_TRY(etr_nn_arg_grad_out(ctx, args, num_args, 11 + (size_t)i, "out",
                                mask[i], &outs[i]));
  }
  if (!etr_opt_is_contiguous_f32(grad_output) ||
      !etr_opt_is_contiguous_f32(input) ||
      !etr_opt_is_contiguous_f32(weight) || !f32_or_null(outs[0]) ||
      !f32_or_null(outs[1]) || !f32_or_null(outs[2])) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  c.transposed = transposed;
  c.batch = input->sizes[0];
  c.in_c = input->sizes[1];
  c.in_h = spatial == 2 ? input->sizes[2] : 1;
  c.in_w = input->sizes[input->dim - 1];
  c.out_c = grad_output->sizes[1];
  c.out_h = spatial == 2 ? grad_output->sizes[2] : 1;
  c.out_w = grad_output->sizes[grad_output->dim - 1];
  c.k_h = spatial == 2 ? weight->sizes[2] : 1;
  c.k_w = weight->sizes[weight->dim - 1];
  c.g = (const float *)grad_output->data;
  c.x = (const float *)input->data;
  c.w = (const float *)weight->data;
  // A plain convolution with one group takes the GEMM paths (each may
  // still decline); the rest the reference's sums in its order.
  // (Every size positive: an empty sum divides no block size by zero.)
  bool gemm = !c.transposed && c.groups == 1 && c.batch > 0 &&
              c.in_c > 0 && c.out_c > 0 && c.k_h > 0 && c.k_w > 0 &&
              c.in_h > 0 && c.in_w > 0 && c.out_h > 0 && c.out_w > 0;
  if (outs[0] != NULL &&
      !(gemm && input_grad_gemm(ctx, &c, grad_output, weight, outs[0]))) {
    input_grad(&c, (float *)outs[0]->data);
  }
  if (outs[1] != NULL &&
      !(gemm && weight_grad_gemm(ctx, &c, (float *)outs[1]->data))) {
    weight_grad(&c, (float *)outs[1]->data);
  }
  if (outs[2] != NULL) {
    bias_grad(&c, (float *)outs[2]->data);
  }
  return ETR_OK;
}
