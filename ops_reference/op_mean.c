// SPDX-License-Identifier: Apache-2.0
//
// aten::mean.out: out = the mean of self over `dim` (None or [] means
// every dim), keeping reduced dims as size 1 when `keepdim` (what
// AdaptiveAvgPool2d(1) and x.mean(dim) export as).
//
// Dtypes, as ATen's mean: with `dtype` given, self is converted to it and
// the out dtype must equal it; without, self must be floating or complex
// (InvalidArgument: "mean(): could not infer output dtype") and the out
// dtype must be one self's dtype can be cast to. Elements are converted
// to the out dtype, summed in double (double pairs for complex), and the
// mean is rounded once to the out dtype. An empty reduction gives NaN.
// Bad or repeated dims and an out too small are InvalidArgument.
//
// aten::mean.dtype_out(self, *, dtype, out): the mean of every element
// (a 0-dim out), with exactly mean.out's rules: it is mean.out with
// dim=None and keepdim=False.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce.h"

// aten::mean.out
etr_error_t etr_ref_mean_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = NULL;
  bool has_dims = false;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool keepdim = false;
  bool has_dtype = false;
  etr_scalar_type_t dtype = ETR_FLOAT;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 1, "dim", &has_dims,
                                    &dims, &num_dims));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_arg_optional_scalar_type(ctx, args, num_args, 3, "dtype",
                                       &has_dtype, &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  etr_scalar_type_t inferred = has_dtype ? dtype : self->dtype;
  etr_dtype_kind_t kind = etr_dtype_kind(inferred);
  ETR_CHECK(ctx->diag, kind == ETR_KIND_FLOATING || kind == ETR_KIND_COMPLEX,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: mean(): could not infer output dtype. Input dtype must be "
            "either a floating point or complex dtype. Got: %s",
            etr_op_name(ctx), etr_scalar_type_name(inferred));
  if (has_dtype) {
    ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, dtype));
  } else {
    ETR_TRY(etr_check_can_cast(ctx, self->dtype, out->dtype));
  }
  // ATen sums in the out dtype, converting every element to it first.
  etr_scalar_type_t compute = out->dtype;
  ETR_TRY(etr_check_dtype(ctx, "out", compute,
                          ETR_DTYPES_FLOATING | ETR_DTYPES_COMPLEX));
  uint32_t mask = 0;
  ETR_TRY(etr_reduction_prepare(ctx, self, dims, num_dims, has_dims, keepdim,
                                out, &mask));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t out_view;
  etr_reduction_out_view(self, mask, keepdim, out, &out_view);
  const etr_tensor_t *operands[2] = {self, &out_view};
  etr_dim_split_t split;
  etr_dim_split_init(&split, mask, operands, 2);
  double count = (double)split.inner_count;
  for (int64_t o = 0; o < split.outer_count; ++o) {
    int64_t base = etr_dim_split_outer(&split, 0, o);
    etr_complex_t sum = {0.0, 0.0};
    for (int64_t i = 0; i < split.inner_count; ++i) {
      const void *element =
          etr_element_at(self, base + etr_dim_split_inner(&split, 0, i));
      // Convert to the computation dtype first, as ATen does.
      etr_complex_t value =
          etr_round_complex(compute, etr_load_complex(self->dtype, element));
      sum.real += value.real;
      sum.imag += value.imag;
    }
    etr_complex_t mean = {sum.real / count, sum.imag / count};
    void *target = etr_element_at(out, etr_dim_split_outer(&split, 1, o));
    etr_store_complex(out->dtype, target, mean);
  }
  return ETR_OK;
}

// aten::mean.dtype_out
etr_error_t etr_ref_mean_dtype_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  // Read with this schema's positions first, so a bad argument is named by
  // its own index; then forward as mean.out(self, dim=None,
  // keepdim=False, dtype, out, out).
  etr_tensor_t *self = NULL;
  bool has_dtype = false;
  etr_scalar_type_t dtype = ETR_FLOAT;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_scalar_type(ctx, args, num_args, 1, "dtype",
                                       &has_dtype, &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  etr_evalue_t no_dims = {.tag = ETR_TAG_NONE};
  etr_evalue_t no_keepdim = {.tag = ETR_TAG_BOOL, .u.as_bool = false};
  etr_evalue_t *forwarded[6] = {args[0], &no_dims, &no_keepdim,
                                args[1], args[2], args[3]};
  return etr_ref_mean_out(ctx, forwarded, 6);
}
