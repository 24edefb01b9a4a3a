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
//
// This file reads a call, decides its path (kept in ctx->memo between
// vouched calls) and runs it; each path's loop over images and groups is
// in conv/run_direct.c or conv/run_planes.c (conv/run.h).
#include <limits.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/common/args.h"
#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/run.h"
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
  // Along a dim with one output the stride places nothing (the window
  // starts at -pad whatever it is; transposed_geometry undoes this for a
  // transposed call, where the input's size decides): 1 keeps the
  // kernels' row and column arithmetic small. A stride, padding or
  // dilation past any real layer's (2^24) is left to the reference kernel,
  // which never multiplies one by a row width (the kernel fuzzer's
  // fault-6a2cd470d9: a stride of 2^60 overflowed the AVX2 depthwise
  // kernel's row step).
  g->stride_h = g->out_h == 1 ? 1 : g->stride_h;
  g->stride_w = g->out_w == 1 ? 1 : g->stride_w;
  const int64_t limit = (int64_t)1 << 24;
  if (g->stride_h > limit || g->stride_w > limit || g->pad_h > limit ||
      g->pad_w > limit || g->dilation_h > limit || g->dilation_w > limit) {
    return false;
  }
  // The depthwise kernels index an input plane with 32-bit lanes.
  return g->in_h * g->in_stride_h + g->in_w * g->in_stride_w < INT32_MAX &&
         g->out_h * g->out_w < INT32_MAX;
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
  // The depthwise path's kernel (etr_depthwise_resolve), else NULL.
  etr_depthwise_fn depthwise;
  bool weight_dense;     // etr_tensor_is_dense(weight)
  int64_t weight_numel;  // etr_tensor_numel(weight)
  // padding_taps_matter's answer for a weight of read-only constant bytes
  // (ctx->constant_args), which no call can change: WEIGHT_SCAN_UNKNOWN
  // until a call scanned it.
  uint8_t weight_scan;
  // Decided for a fused call (etr_conv_run_fused, with its post) or an
  // unfused one: a plan serves only calls of its own kind.
  bool fused;
  // Fused: a call on this plan passed etr_conv_run_fused's checks of its
  // target and ran; `staged` its answer (the target overlaps an input).
  bool fused_ready;
  bool staged;
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
                         etr_conv_pointwise_applies(input, groups, g,
                                                    out->sizes[1]);
  plan->depthwise = NULL;
  if (etr_conv_depthwise_applies(input, out, groups, g, !nchw)) {
    plan->path = PATH_DEPTHWISE;
    const etr_depthwise_args_t a = etr_conv_depthwise_args(
        input, weight, bias, (etr_tensor_t *)out, g, NULL);
    plan->depthwise = etr_depthwise_resolve(isa, !nchw, &a);
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
              etr_conv_pointwise_applies(input, groups, g, out->sizes[1]))) {
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
        etr_conv_strided_pointwise_applies(input, groups, g, out->sizes[1])) {
      plan->path = PATH_STRIDED_POINTWISE;
    }
  }
  plan->mark = PLAN_MARK;
  return true;
}

// The memo this call may keep its plan in: the executor's, unless the
// call is fused and its post does not vouch for the rest of its inputs
// (post->checked). NULL: none.
static conv_plan_t *memo_slot(const etr_kernel_context_t *ctx,
                              const etr_conv_post_t *post) {
  return post != NULL && !post->checked ? NULL : (conv_plan_t *)ctx->memo;
}

// The plan an earlier call of this instruction left in its memo slot,
// when this call may reuse it: the executor vouches for the arguments,
// and the plan was made for this ISA and this kind of call. Else NULL.
static conv_plan_t *memo_plan(const etr_kernel_context_t *ctx,
                              const etr_conv_post_t *post) {
  conv_plan_t *plan = memo_slot(ctx, post);
  if (plan == NULL || !ctx->args_checked || plan->mark != PLAN_MARK ||
      plan->isa != (int32_t)etr_isa_active() ||
      plan->fused != (post != NULL)) {
    return NULL;
  }
  return plan;
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
  conv_plan_t *plan = memo_plan(ctx, post);
  if (plan == NULL) {
    plan = memo_slot(ctx, post);
    plan = plan != NULL ? plan : &local;
    plan->mark = 0;
    if (!plan_call(ctx, args, num_args, input, weight, bias, out, groups,
                   post, plan)) {
      return false;
    }
    plan->fused = post != NULL;
    plan->fused_ready = false;
  }
  const bool memo = plan != &local;
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
      scan = etr_conv_padding_taps_matter(weight, g, plan->weight_numel,
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
      etr_conv_run_winograd(
          ctx, winograd, input, weight, bias, out, groups, g, post,
          current && packed->panel == ETR_CONV_WINOGRAD_PANEL(winograd.layout)
              ? packed->weight
              : NULL)) {
    return true;
  }
  switch (path) {
    case PATH_DEPTHWISE:
      etr_conv_run_depthwise(plan->depthwise, input, weight, bias, out, g,
                             !nchw, post, taps);
      return true;
    case PATH_DIRECT:
      etr_conv_run_direct(etr_conv_direct_for(etr_isa_active()), input, weight,
                          bias, out, groups, g, post);
      return true;
    case PATH_POINTWISE:
      etr_conv_run_pointwise(etr_conv_pointwise_for(etr_isa_active()), input,
                             weight, bias, out, g, post, columns);
      return true;
    case PATH_STRIDED_POINTWISE:
      if (etr_conv_run_strided_pointwise(
          ctx, etr_conv_pointwise_for(etr_isa_active()), input, weight, bias,
          out, g, post)) {
        return true;
      }
      // No room for the subsampled input: the pixel tiles where they
      // would have run, else the GEMM.
      if (pixels != NULL && etr_conv_run_pixels(ctx, pixels, input, weight,
                                                bias, out, groups, g, post,
                                                prepacked)) {
        return true;
      }
      break;
    case PATH_SHIFTED:
      // Weights packed at load: the pixel-tile kernel, which sums in the
      // same order, when ctx->temp has its room.
      if (pixels != NULL && prepacked != NULL &&
          etr_conv_run_pixels(ctx, pixels, input, weight, bias, out, groups, g,
                              post, prepacked)) {
        return true;
      }
      if (etr_conv_run_shifted(ctx, etr_conv_shifted_for(etr_isa_active(), g),
                               input, weight, bias, out, groups, g, post)) {
        return true;
      }
      // No scratch for the padded copy: the GEMM (which shrinks its
      // blocks to what there is).
      break;
    case PATH_PIXELS:
      if (etr_conv_run_pixels(ctx, pixels, input, weight, bias, out, groups, g,
                              post, prepacked)) {
        return true;
      }
      // No room for its scratch: the GEMM, as for the shifted rows.
      break;
    default:
      break;
  }
  etr_conv2d_geometry_t gemm_g = *g;  // the GEMM sources point into it
  return etr_conv_run_gemm(ctx, input, weight, bias, out, groups, &gemm_g,
                           !nchw, post);
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
  // A vouched call whose plan records the checks below passed: the same
  // tensors at the same addresses pass them again. (Only calls with a
  // post keep such a plan: without one a call plans as an unfused one.)
  conv_plan_t *plan =
      ctx->dry_run || post == NULL ? NULL : memo_plan(ctx, post);
  const bool known = plan != NULL && plan->fused_ready;
  if (known) {
    *staged = plan->staged;
  } else {
    if (post == NULL || !post->checked || ctx->dry_run) {
      ETR_TRY(etr_opt_check(etr_ref_convolution_out, ctx, args, num_args));
    }
    // The unfused kernel would have written `out`: the fused call takes
    // the same path only when `out` is free of the inputs (as planned
    // programs have it) and `target` is laid out alike.
    const etr_tensor_t *out = c.out;
    if (ctx->dry_run || target->dtype != out->dtype ||
        target->dim != out->dim ||
        memcmp(target->sizes, out->sizes,
               (size_t)out->dim * sizeof(out->sizes[0])) != 0 ||
        memcmp(target->dim_order, out->dim_order, (size_t)out->dim) != 0 ||
        overlaps_inputs(out, &c)) {
      return ETR_OK;
    }
    // A target in the input's bytes (planners reuse them: the input is
    // dead once the block ends) is written through `out`, then copied.
    *staged = overlaps_inputs(target, &c);
  }
  *done = convolve(ctx, args, num_args, c.input, c.weight, c.bias,
                   *staged ? c.out : target, c.groups, post,
                   post != NULL ? &post->packed : NULL);
  if (*done && *staged) {
    memmove(target->data, c.out->data, etr_tensor_nbytes(c.out));
  }
  plan = !known && *done && post != NULL ? memo_plan(ctx, post) : NULL;
  if (plan != NULL) {
    plan->staged = *staged;
    plan->fused_ready = true;
  }
  return ETR_OK;
}

// The geometry of a transposed call conv_transposed.c may take: false
// when its out overlaps an input or a size does not fit.
// A transposed convolution places input position i at i * stride - pad +
// k * dilation: the stride is moot along a dim with one input, not one
// output, so build_geometry's stride for a one-row (or one-column) out is
// replaced by the call's (a 1x1 stride-2 padding-1 layer from 2 rows to 1
// took the second input row at out row 0).
static bool transposed_geometry(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args,
                                const conv_call_t *c,
                                etr_conv2d_geometry_t *g) {
  if (overlaps_inputs(c->out, c) ||
      !build_geometry(ctx, args, num_args, c->input, c->weight, c->out,
                      c->groups, false, g)) {
    return false;
  }
  read_pair(ctx, args, num_args, 3, c->input->dim - 2, 1, &g->stride_h,
            &g->stride_w);
  g->stride_h = g->in_h == 1 ? 1 : g->stride_h;
  g->stride_w = g->in_w == 1 ? 1 : g->stride_w;
  const int64_t limit = (int64_t)1 << 24;
  return g->stride_h <= limit && g->stride_w <= limit;
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
        etr_conv_depthwise_args(c.input, c.weight, c.bias, c.out, g, NULL);
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
