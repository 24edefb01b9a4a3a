// SPDX-License-Identifier: Apache-2.0
//
// aten::sum.IntList_out: out = self summed over `dim` (None or [] means
// every dim), keeping reduced dims as size 1 when `keepdim`.
//
// Dtypes, as ATen's sum: the computation dtype is `dtype` when given (the
// out dtype must then equal it, InvalidArgument otherwise) and the out
// tensor's dtype when not. Every element is converted to that dtype before
// it is added (so 1.5 + 2.5 summed into a Long out is 3, and 300 + 300
// into uint8 is 88); integers wrap, floating sums accumulate in double and
// are rounded once, complex sums in double pairs. Any real, Bool, complex
// or uint16/32/64 input; an empty reduction gives 0. Bad or repeated dims and
// an out too small are InvalidArgument.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce.h"

// aten::sum.IntList_out
etr_error_t etr_ref_sum_intlist_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
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
  if (has_dtype) {
    ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, dtype));
  }
  etr_scalar_type_t compute = out->dtype;
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "out", compute, ETR_DTYPES_NUMERIC));
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
  etr_dtype_kind_t kind = etr_dtype_kind(compute);
  for (int64_t o = 0; o < split.outer_count; ++o) {
    int64_t base = etr_dim_split_outer(&split, 0, o);
    double sum = 0.0;
    etr_complex_t complex_sum = {0.0, 0.0};
    uint64_t int_sum = 0;
    for (int64_t i = 0; i < split.inner_count; ++i) {
      const void *element =
          etr_element_at(self, base + etr_dim_split_inner(&split, 0, i));
      uint8_t converted[16];
      etr_convert_element(compute, converted, self->dtype, element);
      if (kind == ETR_KIND_COMPLEX) {
        etr_complex_t value = etr_load_complex(compute, converted);
        complex_sum.real += value.real;
        complex_sum.imag += value.imag;
      } else if (kind == ETR_KIND_FLOATING) {
        sum += etr_load_double(compute, converted);
      } else {
        int_sum += (uint64_t)etr_load_int64(compute, converted);
      }
    }
    void *target = etr_element_at(out, etr_dim_split_outer(&split, 1, o));
    if (kind == ETR_KIND_COMPLEX) {
      etr_store_complex(compute, target, complex_sum);
    } else if (kind == ETR_KIND_FLOATING) {
      etr_store_double(compute, target, sum);
    } else {
      etr_store_int64(compute, target, (int64_t)int_sum);
    }
  }
  return ETR_OK;
}
