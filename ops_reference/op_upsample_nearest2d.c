// SPDX-License-Identifier: Apache-2.0
//
// aten::upsample_nearest2d.vec_out: nearest-neighbour resize of a
// [N, C, H, W] input to [N, C, OH, OW] (output size and scale rules in
// support/nn_upsample.h). This is PyTorch's legacy "nearest" mode, not
// "nearest-exact": along each dim, output index o reads input index
//
//   o                                  when OH == H,
//   o >> 1                             when OH == 2 H,
//   min(floor(o * scale), H - 1)       otherwise, in float arithmetic,
//
// with scale = float(1 / scale_factor) when a positive scale factor was
// given and float(H) / OH otherwise (ATen's nearest_idx and
// compute_scales_value<float>, reproduced with float rounding so every
// index matches PyTorch's, for Double inputs too). So a scale factor
// whose output size equals the input's copies, whatever the factor.
//
// Arguments: (input, output_size?, scale_factors?, out, return slot).
// Dtypes: Byte, Half, BFloat16, Float, Double (PyTorch's CPU set;
// NotSupported otherwise); out has input's dtype (InvalidArgument). The
// values are copied unchanged (NaN payloads included). Any layout.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_upsample.h"
#include "ops_reference/support/shape.h"

static int64_t nearest_index(const etr_nn_upsample_t *up, int s, int64_t o) {
  int64_t in = up->in[s];
  int64_t out = up->out[s];
  if (out == in) {
    return o;
  }
  if (out % 2 == 0 && out / 2 == in) {
    return o >> 1;
  }
  float scale = up->has_scale && up->scale[s] > 0.0
                    ? (float)(1.0 / up->scale[s])
                    : (float)in / (float)out;
  float source = floorf((float)o * scale);
  int64_t index = source < 9.2e18f ? (int64_t)source : INT64_MAX;
  return index < in - 1 ? index : in - 1;
}

// aten::upsample_nearest2d.vec_out
etr_error_t etr_ref_upsample_nearest2d_vec_out(etr_kernel_context_t *ctx,
                                               etr_evalue_t **args,
                                               size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *out = NULL;
  etr_nn_upsample_t up;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "input", input->dtype,
                          ETR_DTYPES_FLOATING | ETR_DTYPE_BIT(ETR_BYTE)));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, input->dtype));
  int64_t sizes[4];
  ETR_TRY(etr_nn_upsample_prepare(ctx, args, num_args, 1, 2, input, &up,
                                  sizes));
  ETR_TRY(etr_resize_out(ctx, out, 4, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 4, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    const int64_t *index = iter.index;
    int64_t offset = index[0] * input->strides[0] +
                     index[1] * input->strides[1] +
                     nearest_index(&up, 0, index[2]) * input->strides[2] +
                     nearest_index(&up, 1, index[3]) * input->strides[3];
    etr_convert_element(out->dtype, etr_element_at(out, iter.offsets[0]),
                        input->dtype, etr_element_at(input, offset));
  }
  return ETR_OK;
}
