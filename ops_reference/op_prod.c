// SPDX-License-Identifier: Apache-2.0
//
// aten::prod.int_out: out = the product of self along `dim`, keeping the
// dim as size 1 when `keepdim`.
// aten::prod.out: out (0-dim) = the product of every element.
//
// Dtypes, as ATen's prod (measured on PyTorch 2.13): the product is
// computed in the out dtype, every element converted to it first (so
// [1.5, 2.5] into a Long out is 2, and [200, 2] in uint8 is 144); integers
// wrap, Bool is a logical and, floating products accumulate in double and
// are rounded once (ATen multiplies in the dtype, so long Half/BFloat16
// products may differ from it by a few ulp), complex products in double
// pairs. An empty product is 1. With `dtype` given the out dtype must equal
// it (InvalidArgument). prod.out is stricter, like ATen: without `dtype`
// its out must have the default result dtype (Long for integral and Bool
// self, self's dtype otherwise; InvalidArgument), while prod.int_out
// accepts any out dtype. The computation dtype must be real, Bool or
// complex (uint16/32/64 are NotSupported, as PyTorch's "prod_out_cpu");
// self may be any of those or uint16/32/64. Bad dims and an out too small
// are InvalidArgument. Any layout in and out.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce.h"

// Checks dtypes, resizes out and (not in a dry run) writes the products
// of self over `mask` computed in out's dtype.
static etr_error_t prod_over(etr_kernel_context_t *ctx,
                             const etr_tensor_t *self, const int64_t *dims,
                             size_t num_dims, bool dims_present, bool keepdim,
                             etr_tensor_t *out) {
  etr_scalar_type_t compute = out->dtype;
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "out", compute, ETR_DTYPES_ALL));
  uint32_t mask = 0;
  ETR_TRY(etr_reduction_prepare(ctx, self, dims, num_dims, dims_present,
                                keepdim, out, &mask));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t out_view;
  etr_reduction_out_view(self, mask, keepdim, out, &out_view);
  const etr_tensor_t *operands[2] = {self, &out_view};
  etr_dim_split_t split;
  etr_dim_split_init(&split, mask, operands, 2);
  etr_dtype_kind_t kind = etr_dtype_kind(compute);
  for (int64_t o = 0; o < split.outer_count; ++o) {
    int64_t base = etr_dim_split_outer(&split, 0, o);
    etr_complex_t product = {1.0, 0.0};
    int64_t int_product = 1;
    for (int64_t i = 0; i < split.inner_count; ++i) {
      const void *element =
          etr_element_at(self, base + etr_dim_split_inner(&split, 0, i));
      uint8_t converted[16];
      etr_convert_element(compute, converted, self->dtype, element);
      if (kind == ETR_KIND_COMPLEX) {
        etr_complex_t value = etr_load_complex(compute, converted);
        etr_complex_t next = {
            product.real * value.real - product.imag * value.imag,
            product.real * value.imag + product.imag * value.real};
        product = next;
      } else if (kind == ETR_KIND_FLOATING) {
        product.real *= etr_load_double(compute, converted);
      } else {
        int_product = etr_wrapping_mul(int_product,
                                       etr_load_int64(compute, converted));
      }
    }
    void *target = etr_element_at(out, etr_dim_split_outer(&split, 1, o));
    if (kind == ETR_KIND_COMPLEX) {
      etr_store_complex(compute, target, product);
    } else if (kind == ETR_KIND_FLOATING) {
      etr_store_double(compute, target, product.real);
    } else {
      etr_store_int64(compute, target, int_product);
    }
  }
  return ETR_OK;
}

// aten::prod.int_out
etr_error_t etr_ref_prod_int_out(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim = 0;
  bool keepdim = false;
  bool has_dtype = false;
  etr_scalar_type_t dtype = ETR_FLOAT;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_arg_optional_scalar_type(ctx, args, num_args, 3, "dtype",
                                       &has_dtype, &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  if (has_dtype) {
    ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, dtype));
  }
  return prod_over(ctx, self, &dim, 1, true, keepdim, out);
}

// aten::prod.out
etr_error_t etr_ref_prod_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = NULL;
  bool has_dtype = false;
  etr_scalar_type_t dtype = ETR_FLOAT;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_scalar_type(ctx, args, num_args, 1, "dtype",
                                       &has_dtype, &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  etr_scalar_type_t result = dtype;
  if (!has_dtype) {
    // Integral and Bool inputs multiply in Long by default.
    result = etr_scalar_type_is_integral(self->dtype, true) ? ETR_LONG
                                                            : self->dtype;
  }
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, result));
  return prod_over(ctx, self, NULL, 0, false, false, out);
}
