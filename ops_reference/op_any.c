// SPDX-License-Identifier: Apache-2.0
//
// aten::any.all_out: out (0-dim) = True when any element of self is
// non-zero (NaN counts as non-zero; an empty self gives False).
// aten::any.dims_out: the same over the dims in `dim`, keeping them as
// size 1 when `keepdim`; dim=None reduces every dim but an empty list
// reduces none (out is then self != 0, as PyTorch 2.13 does).
// aten::any.out: the same over the single dim `dim`.
//
// Any real, Bool, complex or uint16/32/64 self. The out dtype must be
// Bool or uint8 (PyTorch: "any only supports bool tensor for result";
// InvalidArgument otherwise); uint8 holds 0/1. A uint8 out is what
// PyTorch gives a uint8 self; for any other self it reduces in uint8, so
// every element is first converted to uint8 (0.5, NaN and 256.0 become 0,
// a complex value its real part), except that a self of exactly one
// element is tested as it is (measured on PyTorch 2.13). Empty reductions
// give False; bad or repeated dims and an out too small are
// InvalidArgument. Any layout in and out.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce.h"
#include "ops_reference/support/shape.h"

// Checks self and out, resizes out to self reduced over `mask`, and (not
// in a dry run) writes whether each reduced slice holds a non-zero.
static etr_error_t any_over_mask(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *self, uint32_t mask,
                                 bool keepdim, etr_tensor_t *out) {
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_CHECK(ctx->diag, out->dtype == ETR_BOOL || out->dtype == ETR_BYTE,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: any only supports bool tensor for result, got: %s",
            etr_op_name(ctx), etr_scalar_type_name(out->dtype));
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  etr_reduction_shape(self, mask, keepdim, &dim, sizes);
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  bool via_byte = out->dtype == ETR_BYTE && etr_numel(self) != 1;
  etr_tensor_t out_view;
  etr_reduction_out_view(self, mask, keepdim, out, &out_view);
  const etr_tensor_t *operands[2] = {self, &out_view};
  etr_dim_split_t split;
  etr_dim_split_init(&split, mask, operands, 2);
  for (int64_t o = 0; o < split.outer_count; ++o) {
    int64_t base = etr_dim_split_outer(&split, 0, o);
    bool any = false;
    for (int64_t i = 0; !any && i < split.inner_count; ++i) {
      const void *element =
          etr_element_at(self, base + etr_dim_split_inner(&split, 0, i));
      uint8_t byte = 0;
      if (via_byte) {
        etr_convert_element(ETR_BYTE, &byte, self->dtype, element);
        any = byte != 0;
      } else {
        any = etr_load_bool(self->dtype, element);
      }
    }
    etr_store_int64(out->dtype,
                    etr_element_at(out, etr_dim_split_outer(&split, 1, o)),
                    any ? 1 : 0);
  }
  return ETR_OK;
}

// aten::any.all_out
etr_error_t etr_ref_any_all_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  uint32_t mask = 0;
  ETR_TRY(etr_dim_list_mask(ctx, NULL, 0, false, self->dim, &mask));
  return any_over_mask(ctx, self, mask, false, out);
}

// aten::any.dims_out
etr_error_t etr_ref_any_dims_out(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  bool has_dims = false;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool keepdim = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 1, "dim", &has_dims,
                                    &dims, &num_dims));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  uint32_t mask = 0;  // an empty list reduces nothing
  if (!has_dims || num_dims > 0) {
    ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, has_dims, self->dim,
                              &mask));
  }
  return any_over_mask(ctx, self, mask, keepdim, out);
}

// aten::any.out
etr_error_t etr_ref_any_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim = 0;
  bool keepdim = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  uint32_t mask = 0;
  ETR_TRY(etr_dim_list_mask(ctx, &dim, 1, true, self->dim, &mask));
  return any_over_mask(ctx, self, mask, keepdim, out);
}
