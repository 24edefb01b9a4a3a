// SPDX-License-Identifier: Apache-2.0
//
// aten::convolution.out: 1-D, 2-D and 3-D convolution, plain or transposed,
// with stride, padding, dilation, groups (depthwise included) and an
// optional bias, in any input/out layout (channels-last included).
//
//   plain:      input [N, C_in, *in], weight [C_out, C_in/groups, *k]
//               out = (in + 2 pad - dil (k - 1) - 1) / stride + 1
//   transposed: input [N, C_in, *in], weight [C_in, C_out/groups, *k]
//               out = (in - 1) stride - 2 pad + dil (k - 1) + out_pad + 1
//
// Each out element is computed directly as a sum over its receptive field
// (the transposed case gathers the inputs whose stride lands on it), so
// the kernel needs no scratch. Sums accumulate in double (int64 with
// wrap-around for integers) and are rounded once.
//
// stride, padding, dilation and output_padding take one value or one per
// spatial dim, as ATen's expand_param_if_needed. Dtypes: every real dtype
// except Bool for plain convolution, floating and Long for transposed (as
// PyTorch's CPU kernels); input, weight, bias and out share it
// (InvalidArgument otherwise). InvalidArgument also for ranks, channel
// counts, group divisibility, bias size, non-positive stride/dilation/
// groups, negative padding, output_padding not below stride or dilation,
// and an empty result shape ("Calculated output size is too small").
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

#define MAX_SPATIAL 3

typedef struct conv_params {
  int32_t spatial;
  int64_t stride[MAX_SPATIAL];
  int64_t padding[MAX_SPATIAL];
  int64_t dilation[MAX_SPATIAL];
  int64_t output_padding[MAX_SPATIAL];
  bool transposed;
  int64_t groups;
} conv_params_t;

// Reads an int list argument that has 1 or `spatial` entries into `out`.
static etr_error_t read_spatial(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args, size_t index,
                                const char *what, int32_t spatial,
                                int64_t *out) {
  const int64_t *items = NULL;
  size_t count = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, index, what, &items, &count));
  ETR_CHECK(ctx->diag, count == 1 || count == (size_t)spatial,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected %s to be a single integer value or a list of %d "
            "values, but got %zu values",
            etr_op_name(ctx), what, (int)spatial, count);
  for (int32_t s = 0; s < spatial; ++s) {
    out[s] = items[count == 1 ? 0 : s];
  }
  return ETR_OK;
}

// Validates shapes and parameters and computes the out shape.
static etr_error_t check_shapes(etr_kernel_context_t *ctx,
                                const etr_tensor_t *input,
                                const etr_tensor_t *weight,
                                const etr_tensor_t *bias,
                                const conv_params_t *p, int64_t *out_sizes) {
  ETR_CHECK(ctx->diag, p->groups > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: non-positive groups is not supported", etr_op_name(ctx));
  int64_t in_channels = input->sizes[1];
  int64_t out_channels = 0;
  int64_t grouped = 0;  // weight->sizes[1] * groups
  ETR_CHECK(ctx->diag, etr_checked_mul(weight->sizes[1], p->groups, &grouped),
            ETR_ERR_INVALID_ARGUMENT, "%s: groups (%lld) is too large",
            etr_op_name(ctx), (long long)p->groups);
  if (p->transposed) {
    ETR_CHECK(ctx->diag,
              weight->sizes[0] == in_channels &&
                  in_channels % p->groups == 0,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: transposed weight must have C_in (%lld) rows, divisible "
              "by groups (%lld)",
              etr_op_name(ctx), (long long)in_channels, (long long)p->groups);
    out_channels = grouped;
  } else {
    ETR_CHECK(ctx->diag,
              weight->sizes[0] % p->groups == 0 &&
                  in_channels == grouped,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: expected input with %lld channels for weight of shape "
              "[%lld, %lld, ...] and groups=%lld",
              etr_op_name(ctx), (long long)grouped,
              (long long)weight->sizes[0], (long long)weight->sizes[1],
              (long long)p->groups);
    out_channels = weight->sizes[0];
  }
  ETR_CHECK(ctx->diag,
            bias == NULL || (bias->dim == 1 && bias->sizes[0] == out_channels),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected bias to be 1-dimensional with %lld elements",
            etr_op_name(ctx), (long long)out_channels);
  out_sizes[0] = input->sizes[0];
  out_sizes[1] = out_channels;
  for (int32_t s = 0; s < p->spatial; ++s) {
    ETR_CHECK(ctx->diag, p->stride[s] > 0 && p->dilation[s] > 0,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: stride and dilation must be positive", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, p->padding[s] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: negative padding is not supported", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, weight->sizes[2 + s] > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: the kernel has size 0 at spatial dim %d", etr_op_name(ctx),
              (int)s);
    // Every step is overflow-checked: the parameters come from a program.
    int64_t in = input->sizes[2 + s];
    int64_t extent = 0;  // dilation * (kernel - 1) + 1
    int64_t twice_padding = 0;
    int64_t out = 0;
    bool ok = etr_checked_mul(p->dilation[s], weight->sizes[2 + s] - 1,
                              &extent) &&
              etr_checked_add(extent, 1, &extent) &&
              etr_checked_mul(p->padding[s], 2, &twice_padding);
    if (ok && p->transposed) {
      ETR_CHECK(ctx->diag,
                p->output_padding[s] >= 0 &&
                    (p->output_padding[s] < p->stride[s] ||
                     p->output_padding[s] < p->dilation[s]),
                ETR_ERR_INVALID_ARGUMENT,
                "%s: output padding must be smaller than either stride or "
                "dilation",
                etr_op_name(ctx));
      // (in - 1) * stride - 2 * padding + extent + output_padding
      ok = etr_checked_mul(in - 1, p->stride[s], &out) &&
           etr_checked_add(out, -twice_padding, &out) &&
           etr_checked_add(out, extent, &out) &&
           etr_checked_add(out, p->output_padding[s], &out);
    } else if (ok) {
      int64_t padded = 0;
      ok = etr_checked_add(in, twice_padding, &padded);
      ETR_CHECK(ctx->diag, !ok || padded >= extent, ETR_ERR_INVALID_ARGUMENT,
                "%s: kernel size can't be greater than actual input size",
                etr_op_name(ctx));
      out = ok ? (padded - extent) / p->stride[s] + 1 : 0;
    }
    ETR_CHECK(ctx->diag, ok, ETR_ERR_INVALID_ARGUMENT,
              "%s: convolution parameters overflow int64 at spatial dim %d",
              etr_op_name(ctx), (int)s);
    ETR_CHECK(ctx->diag, out > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: calculated output size is too small", etr_op_name(ctx));
    out_sizes[2 + s] = out;
  }
  return ETR_OK;
}

// Input coordinate feeding out coordinate `o` through kernel tap `k` along
// spatial dim s, or -1 when there is none (padding, or a stride gap).
static int64_t input_coordinate(const conv_params_t *p, int32_t s, int64_t o,
                                int64_t k, int64_t in_size) {
  int64_t i = 0;
  if (p->transposed) {
    int64_t t = o + p->padding[s] - k * p->dilation[s];
    if (t < 0 || t % p->stride[s] != 0) {
      return -1;
    }
    i = t / p->stride[s];
  } else {
    i = o * p->stride[s] - p->padding[s] + k * p->dilation[s];
  }
  return i >= 0 && i < in_size ? i : -1;
}

// One out element at index (n, oc, o...).
static void convolve_one(const etr_tensor_t *input, const etr_tensor_t *weight,
                         const etr_tensor_t *bias, const conv_params_t *p,
                         const int64_t *index, etr_tensor_t *out,
                         int64_t out_offset) {
  etr_scalar_type_t dtype = input->dtype;
  bool floating = etr_dtype_kind(dtype) == ETR_KIND_FLOATING;
  int64_t n = index[0];
  int64_t oc = index[1];
  int64_t oc_per_group = out->sizes[1] / p->groups;
  int64_t ic_per_group = input->sizes[1] / p->groups;
  int64_t group = oc / oc_per_group;
  int64_t w_oc = p->transposed ? oc % oc_per_group : oc;
  double sum = 0.0;
  uint64_t int_sum = 0;
  int64_t taps[MAX_SPATIAL] = {0, 0, 0};
  const int64_t *kernel_sizes = weight->sizes + 2;
  int64_t num_taps = 1;
  for (int32_t s = 0; s < p->spatial; ++s) {
    num_taps *= kernel_sizes[s];
  }
  for (int64_t ic_local = 0; ic_local < ic_per_group; ++ic_local) {
    int64_t ic = group * ic_per_group + ic_local;
    int64_t w_base = p->transposed ? ic * weight->strides[0] +
                                         w_oc * weight->strides[1]
                                   : w_oc * weight->strides[0] +
                                         ic_local * weight->strides[1];
    for (int64_t t = 0; t < num_taps; ++t) {
      // Decompose tap t into per-dim kernel offsets.
      int64_t rest = t;
      for (int32_t s = p->spatial - 1; s >= 0; --s) {
        taps[s] = rest % kernel_sizes[s];
        rest /= kernel_sizes[s];
      }
      int64_t in_offset = n * input->strides[0] + ic * input->strides[1];
      int64_t w_offset = w_base;
      bool inside = true;
      for (int32_t s = 0; s < p->spatial; ++s) {
        int64_t i = input_coordinate(p, s, index[2 + s], taps[s],
                                     input->sizes[2 + s]);
        inside = inside && i >= 0;
        in_offset += inside ? i * input->strides[2 + s] : 0;
        w_offset += taps[s] * weight->strides[2 + s];
      }
      const void *w = etr_element_at(weight, w_offset);
      if (!inside) {
        // A forward convolution reads zeros from its padding, and PyTorch
        // multiplies them in: 0 * inf and 0 * NaN make the border NaN. A
        // transposed one only scatters real input elements.
        if (floating && !p->transposed) {
          sum += 0.0 * etr_load_double(dtype, w);
        }
        continue;
      }
      const void *x = etr_element_at(input, in_offset);
      if (floating) {
        sum += etr_load_double(dtype, x) * etr_load_double(dtype, w);
      } else {
        int_sum += (uint64_t)etr_load_int64(dtype, x) *
                   (uint64_t)etr_load_int64(dtype, w);
      }
    }
  }
  void *target = etr_element_at(out, out_offset);
  const void *b = bias != NULL ? etr_element_at(bias, oc * bias->strides[0])
                               : NULL;
  if (floating) {
    etr_store_double(dtype, target,
                     sum + (b != NULL ? etr_load_double(dtype, b) : 0.0));
  } else {
    int_sum += b != NULL ? (uint64_t)etr_load_int64(dtype, b) : 0u;
    etr_store_int64(dtype, target, (int64_t)int_sum);
  }
}

// aten::convolution.out
etr_error_t etr_ref_convolution_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *weight = NULL;
  etr_tensor_t *bias = NULL;
  etr_tensor_t *out = NULL;
  conv_params_t p;
  ETR_TRY(etr_check_num_args(ctx, num_args, 11));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "weight", &weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "bias", &bias));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 6, "transposed", &p.transposed));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 8, "groups", &p.groups));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 9, "out", &out));
  ETR_CHECK(ctx->diag,
            input->dim >= 3 && input->dim <= 2 + MAX_SPATIAL &&
                weight->dim == input->dim,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a 3-D, 4-D or 5-D input and a weight of the same "
            "rank, got ranks %d and %d",
            etr_op_name(ctx), (int)input->dim, (int)weight->dim);
  p.spatial = input->dim - 2;
  ETR_TRY(read_spatial(ctx, args, num_args, 3, "stride", p.spatial, p.stride));
  ETR_TRY(read_spatial(ctx, args, num_args, 4, "padding", p.spatial,
                       p.padding));
  ETR_TRY(read_spatial(ctx, args, num_args, 5, "dilation", p.spatial,
                       p.dilation));
  for (int32_t s = 0; s < p.spatial; ++s) {
    p.output_padding[s] = 0;
  }
  if (p.transposed) {
    ETR_TRY(read_spatial(ctx, args, num_args, 7, "output_padding", p.spatial,
                         p.output_padding));
  }
  etr_dtype_set_t accepted =
      p.transposed ? ETR_DTYPES_FLOATING | ETR_DTYPE_BIT(ETR_LONG)
                   : ETR_DTYPES_REAL;
  ETR_TRY(etr_check_dtype(ctx, "input", input->dtype, accepted));
  ETR_TRY(etr_check_dtype_equal(ctx, "weight", weight->dtype, input->dtype));
  if (bias != NULL) {
    ETR_TRY(etr_check_dtype_equal(ctx, "bias", bias->dtype, input->dtype));
  }
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, input->dtype));
  int64_t sizes[2 + MAX_SPATIAL];
  ETR_TRY(check_shapes(ctx, input, weight, bias, &p, sizes));
  ETR_TRY(etr_resize_out(ctx, out, input->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    convolve_one(input, weight, bias, &p, iter.index, out, iter.offsets[0]);
  }
  return ETR_OK;
}
