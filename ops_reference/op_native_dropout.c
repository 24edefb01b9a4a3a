// SPDX-License-Identifier: Apache-2.0
//
// aten::native_dropout.out: (out0, out1) = (input * mask * scale, mask),
// mask Bool of input's shape.
//
// Arguments: (input, p, train, out0, out1, return slot: a TensorList
// [out0, out1]). train=None means training.
//
// Training on a non-empty input (ATen's native_dropout, measured on
// PyTorch 2.13): each element is kept (mask true) with probability 1 - p,
// and out0 = (input * mask) * scale with scale = 1 / (1 - p), or 0 when
// p = 1; so a dropped element is 0 (NaN for a NaN or infinite input, and
// p = 1 leaves NaN where input is not finite), and p = 0 keeps everything.
// Element k in row-major order is kept when the k-th 53-bit uniform of the
// seeded generator of support/reduce_random.h is below 1 - p (SplitMix64
// on ctx->rng_state, or the default seed when it is NULL); the stream is
// not PyTorch's. Products are computed in double and rounded once.
// Otherwise (train false, or an empty input) out0 is a copy of input and
// the mask is all true, whatever p is. A dry run draws nothing.
//
// Errors (InvalidArgument): out0 not of input's dtype, out1 not Bool (for
// an empty input out1 may also have input's dtype, as PyTorch's eager
// kernel requires), outs too small; when training a non-empty input, p
// outside [0, 1] or NaN, and an input that is not floating or complex
// (PyTorch: "result type Float can't be cast to the desired output type
// Long"). Dtypes: any (uint16/32/64 and every other dtype are copied when
// not training).
// Any layout in and out.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce_random.h"
#include "ops_reference/support/shape.h"

// aten::native_dropout.out
etr_error_t etr_ref_native_dropout_out(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *input = NULL;
  double p = 0.5;
  bool has_train = false;
  bool train = true;
  etr_tensor_t *out = NULL;
  etr_tensor_t *mask = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 1, "p", &p));
  ETR_TRY(etr_arg_optional_bool(ctx, args, num_args, 2, "train", &has_train,
                                &train));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out0", &out));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out1", &mask));
  train = has_train ? train : true;
  ETR_TRY(etr_check_dtype_equal(ctx, "out0", out->dtype, input->dtype));
  // PyTorch's eager kernel gives an empty input a mask of the input's
  // dtype (empty_like(input)) and so demands that dtype of out1; export
  // plans Bool. Both are accepted for an empty input.
  if (!(etr_numel(input) == 0 && mask->dtype == input->dtype)) {
    ETR_TRY(etr_check_dtype_equal(ctx, "out1", mask->dtype, ETR_BOOL));
  }
  bool dropping = train && etr_numel(input) > 0;
  if (dropping) {
    ETR_CHECK(ctx->diag,
              etr_dtype_in(input->dtype,
                           ETR_DTYPES_FLOATING | ETR_DTYPES_COMPLEX),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: result type Float can't be cast to the desired output "
              "type %s",
              etr_op_name(ctx), etr_scalar_type_name(input->dtype));
    ETR_CHECK(ctx->diag, p >= 0.0 && p <= 1.0, ETR_ERR_INVALID_ARGUMENT,
              "%s: dropout probability has to be between 0 and 1, but got "
              "%g",
              etr_op_name(ctx), p);
  }
  ETR_TRY(etr_resize_out_like(ctx, out, input));
  ETR_TRY(etr_resize_out_like(ctx, mask, input));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_reduce_rng_t rng;
  etr_reduce_rng_init(&rng, ctx);
  double keep_probability = 1.0 - p;
  double scale = keep_probability == 0.0 ? 0.0 : 1.0 / keep_probability;
  const etr_tensor_t *operands[3] = {input, out, mask};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, input->dim, input->sizes, operands, 3);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    const void *element = etr_element_at(input, iter.offsets[0]);
    void *target = etr_element_at(out, iter.offsets[1]);
    bool keep = true;
    if (dropping) {
      keep = etr_reduce_rng_uniform(&rng, 53) < keep_probability;
      double kept = keep ? 1.0 : 0.0;
      etr_complex_t value = etr_load_complex(input->dtype, element);
      // (input * mask) is exact in the dtype; one rounding after scale.
      etr_complex_t result = {value.real * kept * scale,
                              value.imag * kept * scale};
      etr_store_complex(out->dtype, target, result);
    } else {
      etr_convert_element(out->dtype, target, input->dtype, element);
    }
    etr_store_int64(ETR_BOOL, etr_element_at(mask, iter.offsets[2]),
                    keep ? 1 : 0);
  }
  return ETR_OK;
}
