// SPDX-License-Identifier: Apache-2.0
//
// aten::cumsum.out: out[..., i, ...] = the sum of self[..., 0..i, ...]
// along `dim` (out has self's shape; a 0-dim self accepts dim 0/-1).
//
// Dtypes, as ATen's cumsum (measured on PyTorch 2.13): the sums are
// computed in the out dtype, every element converted to it first (so
// [1.5, 2.5] into a Long out gives [1, 3], and a complex self into a real
// out sums the real parts); integers wrap; floating and complex sums run
// in ATen's CPU accumulation type, every partial sum then rounded to the
// out dtype: Float and Double (and complex pairs of them) in double,
// Half and BFloat16 in float (each partial sum rounded to float, so a
// Half sum that reaches 65520 in float is inf, as PyTorch's, where the
// exact sum a little below it would round to 65504). With
// `dtype` given the out dtype must equal it (InvalidArgument). The out
// dtype must be real or complex (Bool and uint16/32/64 are NotSupported,
// as PyTorch's "cumsum_out_cpu"); self may be any dtype
// including Bool and uint16/32/64 (functional cumsum gives Long for
// integral and Bool self; the out is what the program planned). A bad dim
// and an out too small are InvalidArgument. Any layout in and out.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::cumsum.out
etr_error_t etr_ref_cumsum_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = 0;
  bool has_dtype = false;
  etr_scalar_type_t dtype = ETR_FLOAT;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_optional_scalar_type(ctx, args, num_args, 2, "dtype",
                                       &has_dtype, &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  if (has_dtype) {
    ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, dtype));
  }
  etr_scalar_type_t compute = out->dtype;
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "out", compute,
                          ETR_DTYPES_REAL | ETR_DTYPES_COMPLEX));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  // A 0-dim self has no dim to run along: the mask is then empty and
  // every slice holds one element.
  uint32_t mask = self->dim > 0 ? 1u << dim : 0u;
  const etr_tensor_t *operands[2] = {self, out};
  etr_dim_split_t split;
  etr_dim_split_init(&split, mask, operands, 2);
  etr_dtype_kind_t kind = etr_dtype_kind(compute);
  bool float_sums = compute == ETR_HALF || compute == ETR_BFLOAT16;
  for (int64_t o = 0; o < split.outer_count; ++o) {
    int64_t in_base = etr_dim_split_outer(&split, 0, o);
    int64_t out_base = etr_dim_split_outer(&split, 1, o);
    etr_complex_t sum = {0.0, 0.0};
    uint64_t int_sum = 0;
    for (int64_t i = 0; i < split.inner_count; ++i) {
      const void *element =
          etr_element_at(self, in_base + etr_dim_split_inner(&split, 0, i));
      uint8_t converted[16];
      etr_convert_element(compute, converted, self->dtype, element);
      void *target =
          etr_element_at(out, out_base + etr_dim_split_inner(&split, 1, i));
      if (kind == ETR_KIND_COMPLEX) {
        etr_complex_t value = etr_load_complex(compute, converted);
        sum.real += value.real;
        sum.imag += value.imag;
        etr_store_complex(compute, target, sum);
      } else if (kind == ETR_KIND_FLOATING) {
        sum.real += etr_load_double(compute, converted);
        if (float_sums) {
          sum.real = (float)sum.real;  // a float sum of floats, exactly
        }
        etr_store_double(compute, target, sum.real);
      } else {
        int_sum += (uint64_t)etr_load_int64(compute, converted);
        etr_store_int64(compute, target, (int64_t)int_sum);
      }
    }
  }
  return ETR_OK;
}
