// SPDX-License-Identifier: Apache-2.0
//
// aten::arange.start_out: out = [start, start + step, start + 2 * step, ...)
// up to (excluding) end, in the out tensor's dtype.
//
// Dtypes: every real dtype except Bool and uint16/32/64 (PyTorch's
// "arange_cpu" not implemented for them, NotSupported; complex likewise).
//
// Checks, in PyTorch's order (RangeUtils.h), all InvalidArgument: with the
// Scalars read as double, step must be non-zero (NaN counts as zero),
// start and end finite, and end - start of the step's sign. Then the size:
//   * Long out: start, end and step converted to int64 (a Double Scalar
//     truncates; one outside int64 is an error; a step that truncates to 0
//     is "step must be nonzero"), size = (end - start + step - sgn(step)) /
//     step in integer arithmetic. Where that arithmetic overflows int64
//     (PyTorch's signed overflow, undefined behaviour there) the kernel
//     refuses the arguments instead.
//   * other dtypes: size = ceil((end - start) / step) in double.
//   A size beyond int64 is an error.
// Values: element i is start + i * step computed in the dtype's
// accumulation type, then converted to the out dtype: int64 with
// wrap-around for integral dtypes (start and step truncated to int64; a
// step outside int64 is an error, as in ATen), float for Half and
// BFloat16 (start and step rounded to float first, out-of-range values
// refused), double for Float and Double. ATen's vectorized loop computes
// some Float/Half elements as base + j * step from a rounded base, which
// can differ from this in the last bit; torch.testing's tolerances cover
// it.
//
// The out keeps its shape when it already has `size` elements (PyTorch
// resizes only when the element count differs, so a [2, 3] out of
// arange(6) stays [2, 3]); otherwise it is resized to [size].
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

#define ARANGE_DTYPES (ETR_DTYPES_INTEGRAL | ETR_DTYPES_FLOATING)

// Scalar -> int64 as c10's Scalar::to<int64_t> (checked).
static etr_error_t scalar_to_int64(etr_kernel_context_t *ctx, const char *what,
                                   const etr_scalar_t *scalar,
                                   int64_t *out) {
  ETR_TRY(etr_movement_check_fill_value(ctx, what, scalar, ETR_LONG, 0));
  *out = scalar->kind == ETR_SCALAR_DOUBLE
             ? etr_double_to_int64(scalar->as_double)
             : scalar->as_int;
  return ETR_OK;
}

// The Long size formula, refusing int64 overflow.
static etr_error_t long_size(etr_kernel_context_t *ctx, int64_t start,
                             int64_t end, int64_t step, int64_t *size) {
  ETR_CHECK(ctx->diag, step != 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: step must be nonzero", etr_op_name(ctx));
  int64_t sign = step > 0 ? 1 : -1;
  int64_t numerator = 0;
  bool ok = !__builtin_sub_overflow(end, start, &numerator) &&
            etr_checked_add(numerator, step, &numerator) &&
            !__builtin_sub_overflow(numerator, sign, &numerator);
  ETR_CHECK(ctx->diag, ok, ETR_ERR_INVALID_ARGUMENT,
            "%s: the size of the range overflows int64", etr_op_name(ctx));
  // numerator and step have the same sign here, so the quotient is >= 0
  // and INT64_MIN / -1 cannot occur (numerator would be positive).
  *size = numerator / step;
  return ETR_OK;
}

// aten::arange.start_out
etr_error_t etr_ref_arange_start_out(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  etr_scalar_t start;
  etr_scalar_t end;
  etr_scalar_t step;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 0, "start", &start));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "end", &end));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 2, "step", &step));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  etr_scalar_type_t dtype = out->dtype;
  ETR_TRY(etr_check_dtype(ctx, "out", dtype, ARANGE_DTYPES));

  double dstart = start.as_double;
  double dend = end.as_double;
  double dstep = step.as_double;
  ETR_CHECK(ctx->diag, dstep > 0 || dstep < 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: step must be nonzero", etr_op_name(ctx));
  ETR_CHECK(ctx->diag, isfinite(dstart) && isfinite(dend),
            ETR_ERR_INVALID_ARGUMENT, "%s: unsupported range: %g -> %g",
            etr_op_name(ctx), dstart, dend);
  ETR_CHECK(ctx->diag,
            (dstep > 0 && dend >= dstart) || (dstep < 0 && dend <= dstart),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: upper bound and lower bound inconsistent with step sign",
            etr_op_name(ctx));

  int64_t size = 0;
  if (dtype == ETR_LONG) {
    int64_t istart = 0;
    int64_t iend = 0;
    int64_t istep = 0;
    ETR_TRY(scalar_to_int64(ctx, "start", &start, &istart));
    ETR_TRY(scalar_to_int64(ctx, "end", &end, &iend));
    ETR_TRY(scalar_to_int64(ctx, "step", &step, &istep));
    ETR_TRY(long_size(ctx, istart, iend, istep, &size));
  } else {
    double size_d = ceil((dend - dstart) / dstep);
    ETR_CHECK(ctx->diag, size_d >= 0 && size_d <= 9223372036854775807.0,
              ETR_ERR_INVALID_ARGUMENT, "%s: invalid size, possible overflow?",
              etr_op_name(ctx));
    // 2^63 itself passes that comparison (INT64_MAX rounds up to it).
    ETR_CHECK(ctx->diag, size_d < 9223372036854775808.0,
              ETR_ERR_INVALID_ARGUMENT, "%s: invalid size, possible overflow?",
              etr_op_name(ctx));
    size = (int64_t)size_d;
  }

  // ATen's kernel reads start and step in the accumulation type.
  etr_dtype_kind_t kind = etr_dtype_kind(dtype);
  int64_t int_start = 0;
  int64_t int_step = 0;
  if (kind == ETR_KIND_INTEGRAL) {
    ETR_TRY(scalar_to_int64(ctx, "start", &start, &int_start));
    ETR_TRY(scalar_to_int64(ctx, "step", &step, &int_step));
  } else if (dtype == ETR_HALF || dtype == ETR_BFLOAT16) {
    ETR_TRY(etr_movement_check_fill_value(ctx, "start", &start, ETR_FLOAT, 0));
    ETR_TRY(etr_movement_check_fill_value(ctx, "step", &step, ETR_FLOAT, 0));
  }

  if (etr_numel(out) != size) {
    ETR_TRY(etr_resize_out(ctx, out, 1, &size));
  }
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  float float_start = (float)dstart;
  float float_step = (float)dstep;
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (int64_t i = 0; !etr_strided_iter_done(&iter);
       etr_strided_iter_next(&iter), ++i) {
    void *element = etr_element_at(out, iter.offsets[0]);
    if (kind == ETR_KIND_INTEGRAL) {
      // Wrapping, as ATen's int64 arithmetic behaves on every platform.
      uint64_t value = (uint64_t)int_start + (uint64_t)int_step * (uint64_t)i;
      etr_store_int64(dtype, element, (int64_t)value);
    } else if (dtype == ETR_HALF || dtype == ETR_BFLOAT16) {
      float value = float_start + float_step * (float)i;
      etr_store_double(dtype, element, (double)value);
    } else {
      etr_store_double(dtype, element, dstart + dstep * (double)i);
    }
  }
  return ETR_OK;
}
