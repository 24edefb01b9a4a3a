// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::full.out and aten::full_like.out: fill_value converted to
// out's dtype exactly as the reference does (etr_store_double for a Double
// scalar, etr_store_int64 otherwise), then written to every element by the
// fill microkernel (memset when its bytes are all equal). Every dtype and
// layout; arguments, including the overflow check of the value, are
// checked by the reference kernels' dry run (ops_reference/op_full.c).
// full.out into a dense out already of `size` skips the dry run
// (full_dense): one microkernel fill.
#include "ops_optimized/common/args.h"
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/movement_util.h"

static etr_error_t full(etr_kernel_fn reference, size_t value_index,
                        size_t out_index, etr_kernel_context_t *ctx,
                        etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, out_index);
  if (out == NULL ||
      etr_opt_check(reference, ctx, args, num_args) != ETR_OK) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_scalar_t value;
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, value_index, "fill_value",
                         &value));
  uint8_t element[16];
  if (value.kind == ETR_SCALAR_DOUBLE) {
    etr_store_double(out->dtype, element, value.as_double);
  } else {
    etr_store_int64(out->dtype, element, value.as_int);
  }
  etr_move_fill_tensor(out, element);
  return ETR_OK;
}

// The fast path of full.out: valid by construction when it returns true
// (size all Ints and equal to out's dense row-major shape, a real or Bool
// out, an Int or Double fill_value that passes the reference's own
// overflow check; common/dense.h). False leaves the call, untouched, to
// the general path.
static bool full_dense(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args) {
  if (num_args != 4 || args[1] == NULL ||
      (args[1]->tag != ETR_TAG_INT && args[1]->tag != ETR_TAG_DOUBLE)) {
    return false;
  }
  const etr_int_list_t *size = etr_dense_int_list_arg(args, 0);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 2);
  int64_t numel = 0;
  if (size == NULL || out == NULL || size->length != (size_t)out->dim ||
      (ETR_DTYPE_BIT(out->dtype) & ETR_DTYPES_REAL_AND_BOOL) == 0 ||
      !etr_dense_row_major(out, &numel)) {
    return false;
  }
  for (size_t i = 0; i < size->length; ++i) {
    if (etr_dense_int_at(size, i) != out->sizes[i]) {
      return false;
    }
  }
  etr_scalar_t value;
  if (args[1]->tag == ETR_TAG_INT) {
    value.kind = ETR_SCALAR_INT;
    value.as_int = args[1]->u.as_int;
    value.as_double = (double)value.as_int;
  } else {
    value.kind = ETR_SCALAR_DOUBLE;
    value.as_double = args[1]->u.as_double;
    value.as_int = (int64_t)0;
  }
  // A vouched call's value passed this check before (it reads no tensor
  // data).
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  if (!ctx->args_checked &&
      etr_movement_check_fill_value(&probe, "fill_value", &value, out->dtype,
                                    numel) != ETR_OK) {
    return false;
  }
  if (ctx->dry_run) {
    return true;
  }
  uint8_t element[16];
  if (value.kind == ETR_SCALAR_DOUBLE) {
    etr_store_double(out->dtype, element, value.as_double);
  } else {
    etr_store_int64(out->dtype, element, value.as_int);
  }
  etr_move_fill_for(etr_isa_active())(out->data, (size_t)numel,
                                      etr_scalar_type_size(out->dtype),
                                      element);
  return true;
}

// aten::full.out
etr_error_t etr_opt_full_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  if (full_dense(ctx, args, num_args)) {
    return ETR_OK;
  }
  return full(etr_ref_full_out, 1, 2, ctx, args, num_args);
}

// aten::full_like.out
etr_error_t etr_opt_full_like_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return full(etr_ref_full_like_out, 1, 3, ctx, args, num_args);
}
