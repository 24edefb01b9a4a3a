// SPDX-License-Identifier: Apache-2.0
//
// aten::convolution_backward.out: the gradients of aten::convolution (1-D,
// 2-D or 3-D, plain or transposed, with stride, padding, dilation and
// groups) with respect to its input (out0), weight (out1) and bias (out2),
// given grad_output.
//
// A plain convolution links input position i, kernel tap k and output
// position o when i = o * stride - padding + k * dilation; a transposed one
// when o = i * stride - padding + k * dilation (per spatial dim). Each
// gradient element is gathered directly over the positions linked to it
// (no scratch), in double, and rounded once:
//
//   grad_input[n, ic, i] = sum over linked (oc, k, o) of
//                          grad_output[n, oc, o] * weight[.., .., k]
//   grad_weight[.., .., k] = sum over n and linked (i, o) of
//                          grad_output[n, oc, o] * input[n, ic, i]
//   grad_bias[oc] = sum over n and o of grad_output[n, oc, o]
//
// (weight is [C_out, C_in/groups, *k] plain and [C_in, C_out/groups, *k]
// transposed; channels pair within their group). grad_bias is always
// [C_out], as in PyTorch, which ignores bias_sizes for its shape (the
// portable ExecuTorch kernel resizes to bias_sizes instead; they agree for
// every real call). output_mask selects the outs computed; a masked-out out
// is not touched (it may be None or ExecuTorch's placeholder tensor,
// support/nn_util.h).
//
// Arguments: (grad_output, input, weight, bias_sizes?, stride, padding,
// dilation, transposed, output_padding, groups, output_mask, out0, out1,
// out2, return slot). stride, padding, dilation and output_padding hold
// one value or one per spatial dim. InvalidArgument, as aten::convolution
// rejects them: input and weight ranks other than equal and 3..5,
// non-positive stride, dilation or groups, negative padding, a non-zero
// output_padding for a plain convolution or one not below stride or
// dilation for a transposed one, channel counts that do not match the
// weight and groups, an empty weight, an empty result shape; and a
// grad_output whose shape is not the convolution's output shape.
//
// Dtypes: Half, BFloat16, Float, Double (PyTorch's CPU backward kernels;
// NotSupported otherwise); grad_output, weight and the outs share input's
// dtype (InvalidArgument).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/shape.h"

#define MAX_SPATIAL 3

typedef struct conv_grad {
  int32_t spatial;
  int64_t stride[MAX_SPATIAL];
  int64_t padding[MAX_SPATIAL];
  int64_t dilation[MAX_SPATIAL];
  int64_t output_padding[MAX_SPATIAL];
  bool transposed;
  int64_t groups;
  bool mask[3];
  const etr_tensor_t *grad_output;
  const etr_tensor_t *input;
  const etr_tensor_t *weight;
  etr_tensor_t *outs[3];  // NULL where masked out
} conv_grad_t;

// The convolution's output size along spatial dim s (false on overflow).
static bool output_size(const conv_grad_t *c, int32_t s, int64_t *out) {
  int64_t in = c->input->sizes[2 + s];
  int64_t extent = 0;  // dilation * (kernel - 1) + 1
  int64_t twice_padding = 0;
  bool ok = etr_checked_mul(c->dilation[s], c->weight->sizes[2 + s] - 1,
                            &extent) &&
            etr_checked_add(extent, 1, &extent) &&
            etr_checked_mul(c->padding[s], 2, &twice_padding);
  if (!ok) {
    return false;
  }
  if (c->transposed) {
    // (in - 1) * stride - 2 * padding + extent + output_padding
    return etr_checked_mul(in - 1, c->stride[s], out) &&
           etr_checked_add(*out, -twice_padding, out) &&
           etr_checked_add(*out, extent, out) &&
           etr_checked_add(*out, c->output_padding[s], out);
  }
  int64_t padded = 0;
  if (!etr_checked_add(in, twice_padding, &padded)) {
    return false;
  }
  *out = padded >= extent ? (padded - extent) / c->stride[s] + 1 : 0;
  return true;
}

static etr_error_t check_args(etr_kernel_context_t *ctx, const conv_grad_t *c,
                              int64_t *out_channels) {
  const etr_tensor_t *input = c->input;
  const etr_tensor_t *weight = c->weight;
  ETR_CHECK(ctx->diag, c->groups > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: non-positive groups is not supported", etr_op_name(ctx));
  ETR_CHECK(ctx->diag, weight->sizes[0] >= 1, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected weight to be at least 1 at dimension 0",
            etr_op_name(ctx));
  int64_t grouped = 0;  // weight->sizes[1] * groups
  ETR_CHECK(ctx->diag, etr_checked_mul(weight->sizes[1], c->groups, &grouped),
            ETR_ERR_INVALID_ARGUMENT, "%s: groups (%lld) is too large",
            etr_op_name(ctx), (long long)c->groups);
  if (c->transposed) {
    ETR_CHECK(ctx->diag,
              weight->sizes[0] == input->sizes[1] &&
                  input->sizes[1] % c->groups == 0,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: transposed weight must have C_in (%lld) rows, divisible "
              "by groups (%lld)",
              etr_op_name(ctx), (long long)input->sizes[1],
              (long long)c->groups);
    *out_channels = grouped;
  } else {
    ETR_CHECK(ctx->diag,
              weight->sizes[0] % c->groups == 0 && input->sizes[1] == grouped,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: expected input with %lld channels for the weight and "
              "groups=%lld",
              etr_op_name(ctx), (long long)grouped, (long long)c->groups);
    *out_channels = weight->sizes[0];
  }
  int64_t sizes[2 + MAX_SPATIAL] = {input->sizes[0], *out_channels};
  for (int32_t s = 0; s < c->spatial; ++s) {
    ETR_CHECK(ctx->diag, c->stride[s] > 0 && c->dilation[s] > 0,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: stride and dilation must be positive", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, c->padding[s] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: negative padding is not supported", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, weight->sizes[2 + s] > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: the kernel has size 0 at spatial dim %d", etr_op_name(ctx),
              (int)s);
    if (c->transposed) {
      ETR_CHECK(ctx->diag,
                c->output_padding[s] >= 0 &&
                    (c->output_padding[s] < c->stride[s] ||
                     c->output_padding[s] < c->dilation[s]),
                ETR_ERR_INVALID_ARGUMENT,
                "%s: output padding must be smaller than either stride or "
                "dilation",
                etr_op_name(ctx));
    } else {
      ETR_CHECK(ctx->diag, c->output_padding[s] == 0,
                ETR_ERR_INVALID_ARGUMENT,
                "%s: output_padding is not supported for non-transposed "
                "convolutions",
                etr_op_name(ctx));
    }
    int64_t size = 0;
    ETR_CHECK(ctx->diag, output_size(c, s, &size), ETR_ERR_INVALID_ARGUMENT,
              "%s: convolution parameters overflow int64 at spatial dim %d",
              etr_op_name(ctx), (int)s);
    ETR_CHECK(ctx->diag, size > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: calculated output size is too small", etr_op_name(ctx));
    sizes[2 + s] = size;
  }
  return etr_nn_check_shape(ctx, "grad_output", c->grad_output, input->dim,
                            sizes);
}

// Advances `index` (count dims) through the box [0, sizes); false after
// the last position (true once for an empty box of 0 dims).
static bool next_position(int64_t *index, const int64_t *sizes,
                          int32_t count) {
  for (int32_t s = count - 1; s >= 0; --s) {
    if (++index[s] < sizes[s]) {
      return true;
    }
    index[s] = 0;
  }
  return false;
}

static bool box_empty(const int64_t *sizes, int32_t count) {
  for (int32_t s = 0; s < count; ++s) {
    if (sizes[s] == 0) {
      return true;
    }
  }
  return false;
}

static double load_at(const etr_tensor_t *t, int64_t n, int64_t channel,
                      const int64_t *spatial, int32_t count) {
  int64_t offset = n * t->strides[0] + channel * t->strides[1];
  for (int32_t s = 0; s < count; ++s) {
    offset += spatial[s] * t->strides[2 + s];
  }
  return etr_load_double(t->dtype, etr_element_at(t, offset));
}

// The output position linked to input position i by tap k, or false.
static bool linked_output(const conv_grad_t *c, const int64_t *i,
                          const int64_t *k, int64_t *o) {
  for (int32_t s = 0; s < c->spatial; ++s) {
    int64_t size = c->grad_output->sizes[2 + s];
    if (c->transposed) {
      o[s] = i[s] * c->stride[s] - c->padding[s] + k[s] * c->dilation[s];
    } else {
      int64_t t = i[s] + c->padding[s] - k[s] * c->dilation[s];
      if (t < 0 || t % c->stride[s] != 0) {
        return false;
      }
      o[s] = t / c->stride[s];
    }
    if (o[s] < 0 || o[s] >= size) {
      return false;
    }
  }
  return true;
}

// The input position linked to output position o by tap k (plain
// convolution), or false.
static bool linked_input(const conv_grad_t *c, const int64_t *o,
                         const int64_t *k, int64_t *i) {
  for (int32_t s = 0; s < c->spatial; ++s) {
    i[s] = o[s] * c->stride[s] - c->padding[s] + k[s] * c->dilation[s];
    if (i[s] < 0 || i[s] >= c->input->sizes[2 + s]) {
      return false;
    }
  }
  return true;
}

// grad_input[n, ic, i...] (index = batched position).
static double input_grad_one(const conv_grad_t *c, const int64_t *index) {
  const etr_tensor_t *weight = c->weight;
  int64_t ic = index[1];
  int64_t in_per_group = c->input->sizes[1] / c->groups;
  int64_t out_per_group = c->grad_output->sizes[1] / c->groups;
  int64_t group = ic / in_per_group;
  int64_t k[MAX_SPATIAL] = {0, 0, 0};
  int64_t o[MAX_SPATIAL] = {0, 0, 0};
  double sum = 0.0;
  do {
    if (!linked_output(c, index + 2, k, o)) {
      continue;
    }
    for (int64_t local = 0; local < out_per_group; ++local) {
      int64_t oc = group * out_per_group + local;
      double w = c->transposed
                     ? load_at(weight, ic, local, k, c->spatial)
                     : load_at(weight, oc, ic % in_per_group, k, c->spatial);
      sum += load_at(c->grad_output, index[0], oc, o, c->spatial) * w;
    }
  } while (next_position(k, weight->sizes + 2, c->spatial));
  return sum;
}

// grad_weight at weight position (a, b, k...) (index = its position).
static double weight_grad_one(const conv_grad_t *c, const int64_t *index) {
  int64_t in_per_group = c->input->sizes[1] / c->groups;
  int64_t out_per_group = c->grad_output->sizes[1] / c->groups;
  int64_t ic = 0;
  int64_t oc = 0;
  if (c->transposed) {
    ic = index[0];
    oc = (ic / in_per_group) * out_per_group + index[1];
  } else {
    oc = index[0];
    ic = (oc / out_per_group) * in_per_group + index[1];
  }
  const int64_t *k = index + 2;
  // Walk the smaller side: output positions (plain) or input positions
  // (transposed), finding the linked position on the other side.
  const etr_tensor_t *walked = c->transposed ? c->input : c->grad_output;
  double sum = 0.0;
  if (box_empty(walked->sizes + 2, c->spatial)) {
    return 0.0;
  }
  for (int64_t n = 0; n < c->input->sizes[0]; ++n) {
    int64_t p[MAX_SPATIAL] = {0, 0, 0};
    int64_t q[MAX_SPATIAL] = {0, 0, 0};
    do {
      if (c->transposed) {
        if (linked_output(c, p, k, q)) {
          sum += load_at(c->input, n, ic, p, c->spatial) *
                 load_at(c->grad_output, n, oc, q, c->spatial);
        }
      } else if (linked_input(c, p, k, q)) {
        sum += load_at(c->grad_output, n, oc, p, c->spatial) *
               load_at(c->input, n, ic, q, c->spatial);
      }
    } while (next_position(p, walked->sizes + 2, c->spatial));
  }
  return sum;
}

static double bias_grad_one(const conv_grad_t *c, int64_t oc) {
  const etr_tensor_t *g = c->grad_output;
  double sum = 0.0;
  if (box_empty(g->sizes + 2, c->spatial)) {
    return 0.0;
  }
  for (int64_t n = 0; n < g->sizes[0]; ++n) {
    int64_t o[MAX_SPATIAL] = {0, 0, 0};
    do {
      sum += load_at(g, n, oc, o, c->spatial);
    } while (next_position(o, g->sizes + 2, c->spatial));
  }
  return sum;
}

typedef double (*grad_fn)(const conv_grad_t *c, const int64_t *index);

static void fill(const conv_grad_t *c, etr_tensor_t *out, grad_fn fn) {
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    etr_store_double(out->dtype, etr_element_at(out, iter.offsets[0]),
                     fn(c, iter.index));
  }
}

static etr_error_t read_params(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args, conv_grad_t *c) {
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 4, "stride", c->spatial, true,
                           NULL, c->stride));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 5, "padding", c->spatial,
                           true, NULL, c->padding));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 6, "dilation", c->spatial,
                           true, NULL, c->dilation));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 7, "transposed", &c->transposed));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 8, "output_padding",
                           c->spatial, true, NULL, c->output_padding));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 9, "groups", &c->groups));
  ETR_TRY(etr_nn_read_output_mask(ctx, args, num_args, 10, c->mask));
  return ETR_OK;
}

// aten::convolution_backward.out
etr_error_t etr_ref_convolution_backward_out(etr_kernel_context_t *ctx,
                                             etr_evalue_t **args,
                                             size_t num_args) {
  conv_grad_t c = {0};
  etr_tensor_t *grad_output = NULL;
  etr_tensor_t *input = NULL;
  etr_tensor_t *weight = NULL;
  bool has_bias_sizes = false;
  const int64_t *bias_sizes = NULL;
  size_t bias_rank = 0;
  ETR_TRY(etr_check_num_args(ctx, num_args, 15));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "grad_output",
                         &grad_output));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "weight", &weight));
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 3, "bias_sizes",
                                    &has_bias_sizes, &bias_sizes,
                                    &bias_rank));
  ETR_CHECK(ctx->diag,
            input->dim >= 3 && input->dim <= 2 + MAX_SPATIAL &&
                weight->dim == input->dim,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a batched 3-D, 4-D or 5-D input and a weight of "
            "the same rank, got ranks %d and %d",
            etr_op_name(ctx), (int)input->dim, (int)weight->dim);
  c.spatial = input->dim - 2;
  ETR_TRY(read_params(ctx, args, num_args, &c));
  static const char *const kOuts[3] = {"out0", "out1", "out2"};
  for (int i = 0; i < 3; ++i) {
    ETR_TRY(etr_nn_arg_grad_out(ctx, args, num_args, 11 + (size_t)i,
                                kOuts[i], c.mask[i], &c.outs[i]));
  }
  ETR_TRY(etr_check_dtype(ctx, "input", input->dtype, ETR_DTYPES_FLOATING));
  ETR_TRY(etr_check_dtype_equal(ctx, "weight", weight->dtype, input->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "grad_output", grad_output->dtype,
                                input->dtype));
  for (int i = 0; i < 3; ++i) {
    if (c.outs[i] != NULL) {
      ETR_TRY(etr_check_dtype_equal(ctx, kOuts[i], c.outs[i]->dtype,
                                    input->dtype));
    }
  }
  c.grad_output = grad_output;
  c.input = input;
  c.weight = weight;
  int64_t out_channels = 0;
  ETR_TRY(check_args(ctx, &c, &out_channels));
  if (c.outs[0] != NULL) {
    ETR_TRY(etr_resize_out_like(ctx, c.outs[0], input));
  }
  if (c.outs[1] != NULL) {
    ETR_TRY(etr_resize_out_like(ctx, c.outs[1], weight));
  }
  if (c.outs[2] != NULL) {
    ETR_TRY(etr_resize_out(ctx, c.outs[2], 1, &out_channels));
  }
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  if (c.outs[0] != NULL) {
    fill(&c, c.outs[0], input_grad_one);
  }
  if (c.outs[1] != NULL) {
    fill(&c, c.outs[1], weight_grad_one);
  }
  if (c.outs[2] != NULL) {
    for (int64_t oc = 0; oc < out_channels; ++oc) {
      etr_store_double(c.outs[2]->dtype,
                       etr_element_at(c.outs[2], oc * c.outs[2]->strides[0]),
                       bias_grad_one(&c, oc));
    }
  }
  return ETR_OK;
}
