// SPDX-License-Identifier: Apache-2.0
//
// aten::var.correction_out: out = the variance of self over `dim` (None
// or [] means every dim), sum((x - mean)^2) / max(N - correction, 0),
// keeping reduced dims as size 1 when `keepdim`; correction defaults to 1
// (Bessel's correction) and may be any real number.
// aten::var.out: the same with correction 1 when `unbiased`, else 0.
//
// Semantics (measured on PyTorch 2.13): N is the number of reduced
// elements. When N - correction is not positive (or is NaN) the divisor is
// 0, so the result is inf, or NaN when the squared deviations sum to 0 or
// to NaN (a single element with correction 1 gives NaN; an empty slice
// gives NaN); a NaN or infinite element gives NaN. Complex self: the
// variance of the real parts plus that of the imaginary parts, a real
// value. Computed in double with two passes (mean, then squared
// deviations), then rounded once to the out dtype.
//
// Dtypes: self must be floating or complex (NotSupported otherwise: "std
// and var only support floating point and complex dtypes"); the out dtype
// must be one the result's real dtype can be cast to (InvalidArgument). Two
// refusals of ATen's CPU paths are reproduced as NotSupported: a Half or
// BFloat16 self into an out of another dtype when the result is a single
// element of a non-empty self ("std_var_all: Unsupported dtype Half"), and
// a real self into a complex out when the result has several elements
// ("std_cpu" not implemented for 'ComplexFloat'). Bad or repeated dims and
// an out too small are InvalidArgument. Any layout in and out.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce.h"
#include "ops_reference/support/shape.h"

// Checks dtypes, resizes out and (not in a dry run) writes the variances.
static etr_error_t var_over(etr_kernel_context_t *ctx,
                            const etr_tensor_t *self, const int64_t *dims,
                            size_t num_dims, bool dims_present,
                            double correction, bool keepdim,
                            etr_tensor_t *out) {
  ETR_CHECK(ctx->diag,
            etr_dtype_in(self->dtype, ETR_DTYPES_FLOATING | ETR_DTYPES_COMPLEX),
            ETR_ERR_NOT_SUPPORTED,
            "%s: std and var only support floating point and complex "
            "dtypes, got %s",
            etr_op_name(ctx), etr_scalar_type_name(self->dtype));
  ETR_TRY(etr_check_can_cast(ctx, etr_complex_value_type(self->dtype),
                             out->dtype));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype,
                          ETR_DTYPES_FLOATING | ETR_DTYPES_COMPLEX));
  uint32_t mask = 0;
  ETR_TRY(etr_reduction_prepare(ctx, self, dims, num_dims, dims_present,
                                keepdim, out, &mask));
  int64_t out_numel = etr_numel(out);
  bool reduced_precision =
      self->dtype == ETR_HALF || self->dtype == ETR_BFLOAT16;
  bool out_reduced_precision =
      out->dtype == ETR_HALF || out->dtype == ETR_BFLOAT16;
  ETR_CHECK(ctx->diag,
            !(reduced_precision && !out_reduced_precision && out_numel == 1 &&
              etr_numel(self) > 0),
            ETR_ERR_NOT_SUPPORTED,
            "%s: std_var_all: Unsupported dtype %s (a %s out of one element)",
            etr_op_name(ctx), etr_scalar_type_name(self->dtype),
            etr_scalar_type_name(out->dtype));
  ETR_CHECK(ctx->diag,
            !(etr_dtype_kind(self->dtype) == ETR_KIND_FLOATING &&
              etr_dtype_kind(out->dtype) == ETR_KIND_COMPLEX &&
              out_numel > 1 && etr_numel(self) > 0),
            ETR_ERR_NOT_SUPPORTED,
            "%s: \"std_cpu\" not implemented for '%s' with a %s self",
            etr_op_name(ctx), etr_scalar_type_name(out->dtype),
            etr_scalar_type_name(self->dtype));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t out_view;
  etr_reduction_out_view(self, mask, keepdim, out, &out_view);
  const etr_tensor_t *operands[2] = {self, &out_view};
  etr_dim_split_t split;
  etr_dim_split_init(&split, mask, operands, 2);
  double count = (double)split.inner_count;
  // max(N - correction, 0) as ATen writes it: a NaN difference gives 0.
  double divisor = count - correction > 0.0 ? count - correction : 0.0;
  for (int64_t o = 0; o < split.outer_count; ++o) {
    int64_t base = etr_dim_split_outer(&split, 0, o);
    etr_complex_t sum = {0.0, 0.0};
    for (int64_t i = 0; i < split.inner_count; ++i) {
      etr_complex_t value = etr_load_complex(
          self->dtype,
          etr_element_at(self, base + etr_dim_split_inner(&split, 0, i)));
      sum.real += value.real;
      sum.imag += value.imag;
    }
    etr_complex_t mean = {sum.real / count, sum.imag / count};
    double squares = 0.0;
    for (int64_t i = 0; i < split.inner_count; ++i) {
      etr_complex_t value = etr_load_complex(
          self->dtype,
          etr_element_at(self, base + etr_dim_split_inner(&split, 0, i)));
      double real = value.real - mean.real;
      double imag = value.imag - mean.imag;
      squares += real * real + imag * imag;
    }
    // An empty slice has a NaN mean; keep it NaN whatever the divisor.
    double variance = split.inner_count == 0 ? NAN : squares / divisor;
    etr_complex_t result = {variance, 0.0};
    etr_store_complex(out->dtype,
                      etr_element_at(out, etr_dim_split_outer(&split, 1, o)),
                      result);
  }
  return ETR_OK;
}

// aten::var.correction_out
etr_error_t etr_ref_var_correction_out(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  bool has_dims = false;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool has_correction = false;
  etr_scalar_t correction;
  bool keepdim = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 1, "dim", &has_dims,
                                    &dims, &num_dims));
  ETR_TRY(etr_arg_optional_scalar(ctx, args, num_args, 2, "correction",
                                  &has_correction, &correction));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 3, "keepdim", &keepdim));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  return var_over(ctx, self, dims, num_dims, has_dims,
                  has_correction ? correction.as_double : 1.0, keepdim, out);
}

// aten::var.out
etr_error_t etr_ref_var_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = NULL;
  bool has_dims = false;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool unbiased = true;
  bool keepdim = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 1, "dim", &has_dims,
                                    &dims, &num_dims));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "unbiased", &unbiased));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 3, "keepdim", &keepdim));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  return var_over(ctx, self, dims, num_dims, has_dims, unbiased ? 1.0 : 0.0,
                  keepdim, out);
}
