// SPDX-License-Identifier: Apache-2.0
//
// Elementwise loops (see elementwise.h).
#include "ops_reference/support/elementwise.h"

#include <string.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

static etr_error_t missing_kind(etr_kernel_context_t *ctx,
                                etr_scalar_type_t compute) {
  return ETR_FAIL(ctx->diag, ETR_ERR_NOT_SUPPORTED,
                  "%s: not implemented for dtype %s", etr_op_name(ctx),
                  etr_scalar_type_name(compute));
}

// Checks that the callback for the compute kind exists.
static etr_error_t check_kind(etr_kernel_context_t *ctx,
                              etr_scalar_type_t compute, bool has_int,
                              bool has_double, bool has_complex) {
  switch (etr_dtype_kind(compute)) {
    case ETR_KIND_BOOL:
    case ETR_KIND_INTEGRAL:
      return has_int ? ETR_OK : missing_kind(ctx, compute);
    case ETR_KIND_FLOATING:
      return has_double ? ETR_OK : missing_kind(ctx, compute);
    case ETR_KIND_COMPLEX:
      return has_complex ? ETR_OK : missing_kind(ctx, compute);
    default:
      return missing_kind(ctx, compute);
  }
}

etr_error_t etr_unary_elementwise(etr_kernel_context_t *ctx,
                                  const etr_tensor_t *in, etr_tensor_t *out,
                                  const etr_elementwise_spec_t *spec,
                                  const etr_unary_fns_t *fns,
                                  const void *state) {
  ETR_TRY(check_kind(ctx, spec->compute, fns->on_int != NULL,
                     fns->on_double != NULL, fns->on_complex != NULL));
  ETR_TRY(etr_resize_out_like(ctx, out, in));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  const etr_tensor_t *operands[2] = {out, in};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 2);
  etr_dtype_kind_t kind = etr_dtype_kind(spec->compute);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    const void *source = etr_element_at(in, iter.offsets[1]);
    void *target = etr_element_at(out, iter.offsets[0]);
    if (kind == ETR_KIND_COMPLEX) {
      etr_complex_t value = etr_round_complex(
          spec->compute, etr_load_complex(in->dtype, source));
      etr_store_complex(out->dtype, target,
                        etr_round_complex(spec->result,
                                          fns->on_complex(value, state)));
    } else if (kind == ETR_KIND_FLOATING) {
      double value =
          etr_round_double(spec->compute, etr_load_double(in->dtype, source));
      etr_store_double(out->dtype, target,
                       etr_round_double(spec->result,
                                        fns->on_double(value, state)));
    } else {
      int64_t value =
          etr_wrap_int64(spec->compute, etr_load_int64(in->dtype, source));
      etr_store_int64(out->dtype, target,
                      etr_wrap_int64(spec->result, fns->on_int(value, state)));
    }
  }
  return ETR_OK;
}

etr_error_t etr_binary_elementwise(etr_kernel_context_t *ctx,
                                   const etr_tensor_t *a,
                                   const etr_tensor_t *b, etr_tensor_t *out,
                                   const etr_elementwise_spec_t *spec,
                                   const etr_binary_fns_t *fns,
                                   const void *state) {
  ETR_TRY(check_kind(ctx, spec->compute, fns->on_int != NULL,
                     fns->on_double != NULL, fns->on_complex != NULL));
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  ETR_TRY(etr_broadcast_shapes(ctx, a->dim, a->sizes, b->dim, b->sizes, &dim,
                               sizes));
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_tensor_t a_view;
  etr_tensor_t b_view;
  ETR_TRY(etr_broadcast_view(ctx, a, dim, sizes, &a_view));
  ETR_TRY(etr_broadcast_view(ctx, b, dim, sizes, &b_view));

  // The dtype `b` is rounded to on the way in (see the spec).
  etr_scalar_type_t b_dtype = spec->compute;
  if (spec->single_element_b_in_opmath && etr_numel(b) == 1 &&
      b->dtype != spec->compute &&
      (spec->compute == ETR_HALF || spec->compute == ETR_BFLOAT16)) {
    b_dtype = ETR_FLOAT;
  }

  const etr_tensor_t *operands[3] = {out, &a_view, &b_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, dim, sizes, operands, 3);
  etr_dtype_kind_t kind = etr_dtype_kind(spec->compute);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    const void *a_element = etr_element_at(&a_view, iter.offsets[1]);
    const void *b_element = etr_element_at(&b_view, iter.offsets[2]);
    void *target = etr_element_at(out, iter.offsets[0]);
    if (kind == ETR_KIND_COMPLEX) {
      etr_complex_t x = etr_round_complex(
          spec->compute, etr_load_complex(a->dtype, a_element));
      etr_complex_t y = etr_round_complex(
          spec->compute, etr_load_complex(b->dtype, b_element));
      etr_store_complex(out->dtype, target,
                        etr_round_complex(spec->result,
                                          fns->on_complex(x, y, state)));
    } else if (kind == ETR_KIND_FLOATING) {
      double x =
          etr_round_double(spec->compute, etr_load_double(a->dtype, a_element));
      double y =
          etr_round_double(b_dtype, etr_load_double(b->dtype, b_element));
      etr_store_double(out->dtype, target,
                       etr_round_double(spec->result,
                                        fns->on_double(x, y, state)));
    } else {
      int64_t x =
          etr_wrap_int64(spec->compute, etr_load_int64(a->dtype, a_element));
      int64_t y =
          etr_wrap_int64(spec->compute, etr_load_int64(b->dtype, b_element));
      etr_store_int64(out->dtype, target,
                      etr_wrap_int64(spec->result, fns->on_int(x, y, state)));
    }
  }
  return ETR_OK;
}

etr_error_t etr_floating_unary_kernel(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args,
                                      const etr_unary_fns_t *fns) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  etr_scalar_type_t result = etr_to_floating(self->dtype);
  ETR_TRY(etr_check_can_cast(ctx, result, out->dtype));
  etr_elementwise_spec_t spec = {result, result, false};
  return etr_unary_elementwise(ctx, self, out, &spec, fns, NULL);
}

void etr_scalar_to_tensor(const etr_scalar_t *scalar, etr_tensor_t *tensor,
                          uint64_t *storage) {
  memset(tensor, 0, sizeof(*tensor));
  tensor->dim = 0;
  tensor->data = storage;
  tensor->capacity_bytes = sizeof(*storage);
  tensor->shape_dynamism = ETR_SHAPE_STATIC;
  switch (scalar->kind) {
    case ETR_SCALAR_BOOL:
      tensor->dtype = ETR_BOOL;
      etr_store_int64(ETR_BOOL, storage, scalar->as_int);
      return;
    case ETR_SCALAR_DOUBLE:
      tensor->dtype = ETR_DOUBLE;
      etr_store_double(ETR_DOUBLE, storage, scalar->as_double);
      return;
    case ETR_SCALAR_INT:
    default:
      tensor->dtype = ETR_LONG;
      etr_store_int64(ETR_LONG, storage, scalar->as_int);
      return;
  }
}
