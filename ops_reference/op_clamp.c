// SPDX-License-Identifier: Apache-2.0
//
// aten::clamp.out: out = min(max(self, min), max) with optional bounds.
//
// Dtypes: the result dtype is torch.result_type(self, min, max) (the
// bounds take part as Python numbers, so an int tensor clamped to 0.5 is
// Float and a Bool tensor clamped to ints is Long); the out dtype must
// equal it (InvalidArgument, like ATen's "Found dtype Long but expected
// Float"). Every real dtype and Bool; complex is NotSupported. The bounds
// are converted to the result dtype with c10's overflow check
// (InvalidArgument: an int8 tensor cannot be clamped to 1000). At least
// one bound is required. NaN in self or in a bound gives NaN; when
// min > max every element becomes max.
//
// aten::clamp.Tensor_out, with tensor bounds, is described above its
// kernel at the end of the file.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

typedef struct clamp_state {
  bool has_min;
  bool has_max;
  int64_t min_int;
  int64_t max_int;
  double min_double;
  double max_double;
} clamp_state_t;

static int64_t clamp_int(int64_t value, const void *state) {
  const clamp_state_t *s = state;
  if (s->has_min && value < s->min_int) {
    value = s->min_int;
  }
  if (s->has_max && value > s->max_int) {
    value = s->max_int;
  }
  return value;
}

static double clamp_double(double value, const void *state) {
  const clamp_state_t *s = state;
  if (isnan(value)) {
    return value;
  }
  if (s->has_min) {
    value = isnan(s->min_double) || value < s->min_double ? s->min_double
                                                          : value;
  }
  if (s->has_max) {
    value = isnan(s->max_double) || value > s->max_double ? s->max_double
                                                          : value;
  }
  return value;
}

static const etr_unary_fns_t kClampFns = {clamp_int, clamp_double, NULL};

// aten::clamp.out
etr_error_t etr_ref_clamp_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t min;
  etr_scalar_t max;
  clamp_state_t state = {false, false, 0, 0, 0.0, 0.0};
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_scalar(ctx, args, num_args, 1, "min",
                                  &state.has_min, &min));
  ETR_TRY(etr_arg_optional_scalar(ctx, args, num_args, 2, "max",
                                  &state.has_max, &max));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_CHECK(ctx->diag, state.has_min || state.has_max,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: at least one of 'min' or 'max' must not be None",
            etr_op_name(ctx));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL_AND_BOOL));

  etr_result_type_t promotion;
  etr_result_type_init(&promotion);
  etr_result_type_add_tensor(&promotion, self);
  if (state.has_min) {
    etr_result_type_add_scalar(&promotion, &min);
  }
  if (state.has_max) {
    etr_result_type_add_scalar(&promotion, &max);
  }
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_get(ctx, &promotion, &result));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, result));
  if (state.has_min) {
    ETR_TRY(etr_check_scalar_fits(ctx, "min", &min, result));
    state.min_int = min.as_int;
    state.min_double = etr_round_double(result, min.as_double);
  }
  if (state.has_max) {
    ETR_TRY(etr_check_scalar_fits(ctx, "max", &max, result));
    state.max_int = max.as_int;
    state.max_double = etr_round_double(result, max.as_double);
  }
  etr_elementwise_spec_t spec = {result, result, false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kClampFns, &state);
}

// ---------------------------------------------------------------------------
// aten::clamp.Tensor_out(self, Tensor? min, Tensor? max, *, out): the same
// with tensor bounds, as ATen's clamp.Tensor structured kernel.
//
// self, min and max broadcast together (InvalidArgument otherwise) and
// out is resized to the broadcast shape. The computation dtype is
// torch.result_type(self, min, max) over the present tensors (so an int
// self with a Float min computes in Float, and a zero-dim Long min leaves
// an Int self Int); the out may have any dtype that dtype can be cast to
// (InvalidArgument otherwise). Complex self is NotSupported before
// anything else but the missing-bounds check; a promotion PyTorch refuses
// (uint16 with int32) is InvalidArgument. Then, as ATen dispatches on the
// computation dtype: with both bounds every real dtype (clamp_cpu; Bool
// is NotSupported); with one bound also Bool (maximum_cpu/minimum_cpu:
// min-only is logical or, max-only logical and); uint16/32/64 and complex
// are NotSupported.
//
// NaN: a NaN bound makes the element NaN, a NaN self stays NaN. min > max
// gives max. On a tie the element of self is kept, so clamp(-0.0, min=0.0)
// is -0.0 (std::max/std::min, ATen's scalar loop; its vectorized loop may
// return the bound's zero instead, PyTorch is not consistent there).

// The computation dtypes of clamp.Tensor_out; Bool only with one bound.
static etr_dtype_set_t clamp_tensor_dtypes(bool both_bounds) {
  return both_bounds ? ETR_DTYPES_REAL : ETR_DTYPES_REAL_AND_BOOL;
}

// Element `offset` of a (broadcast view of an) operand converted to the
// computation dtype, as TensorIterator casts its inputs.
static double load_common_double(etr_scalar_type_t common,
                                 const etr_tensor_t *view, int64_t offset) {
  return etr_round_double(
      common, etr_load_double(view->dtype, etr_element_at(view, offset)));
}

static int64_t load_common_int(etr_scalar_type_t common,
                               const etr_tensor_t *view, int64_t offset) {
  return etr_wrap_int64(
      common, etr_load_int64(view->dtype, etr_element_at(view, offset)));
}

// One element: operand 0 of the iterator is out, 1 self, then the bounds
// that are present (min before max).
static void clamp_tensor_element(const etr_strided_iter_t *iter,
                                 etr_scalar_type_t common, etr_tensor_t *out,
                                 const etr_tensor_t *views, bool has_min,
                                 bool has_max) {
  const etr_tensor_t *min = has_min ? &views[1] : NULL;
  const etr_tensor_t *max = has_max ? &views[has_min ? 2 : 1] : NULL;
  int64_t min_offset = has_min ? iter->offsets[2] : 0;
  int64_t max_offset = has_max ? iter->offsets[has_min ? 3 : 2] : 0;
  void *target = etr_element_at(out, iter->offsets[0]);
  if (etr_dtype_kind(common) == ETR_KIND_FLOATING) {
    double value = load_common_double(common, &views[0], iter->offsets[1]);
    if (min != NULL) {
      double low = load_common_double(common, min, min_offset);
      value = isnan(low) ? NAN : (!isnan(value) && value < low ? low : value);
    }
    if (max != NULL) {
      double high = load_common_double(common, max, max_offset);
      value =
          isnan(high) ? NAN : (!isnan(value) && high < value ? high : value);
    }
    etr_store_double(out->dtype, target, value);
  } else {
    int64_t value = load_common_int(common, &views[0], iter->offsets[1]);
    if (min != NULL) {
      int64_t low = load_common_int(common, min, min_offset);
      value = value < low ? low : value;
    }
    if (max != NULL) {
      int64_t high = load_common_int(common, max, max_offset);
      value = high < value ? high : value;
    }
    etr_store_int64(out->dtype, target, value);
  }
}

// aten::clamp.Tensor_out
etr_error_t etr_ref_clamp_tensor_out(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *min = NULL;
  etr_tensor_t *max = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 1, "min", &min));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "max", &max));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_CHECK(ctx->diag, min != NULL || max != NULL, ETR_ERR_INVALID_ARGUMENT,
            "%s: at least one of 'min' or 'max' must not be None",
            etr_op_name(ctx));
  ETR_CHECK(ctx->diag, !etr_scalar_type_is_complex(self->dtype),
            ETR_ERR_NOT_SUPPORTED,
            "%s: clamp is not supported for complex types (self is %s)",
            etr_op_name(ctx), etr_scalar_type_name(self->dtype));

  // ATen's operand order: self, then the bounds that are present.
  const etr_tensor_t *inputs[3] = {self, NULL, NULL};
  size_t num_inputs = 1;
  if (min != NULL) {
    inputs[num_inputs++] = min;
  }
  if (max != NULL) {
    inputs[num_inputs++] = max;
  }
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  ETR_TRY(etr_broadcast_tensors_shape(ctx, inputs, num_inputs, &dim, sizes));
  etr_result_type_t promotion;
  etr_result_type_init(&promotion);
  for (size_t i = 0; i < num_inputs; ++i) {
    etr_result_type_add_tensor(&promotion, inputs[i]);
  }
  etr_scalar_type_t common;
  ETR_TRY(etr_result_type_get(ctx, &promotion, &common));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_can_cast(ctx, common, out->dtype));
  ETR_TRY(etr_check_dtype(ctx, "the computation dtype", common,
                          clamp_tensor_dtypes(min != NULL && max != NULL)));
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes and dtypes checked, out resized; no data touched
  }

  etr_tensor_t views[3];
  const etr_tensor_t *operands[4] = {out, NULL, NULL, NULL};
  for (size_t i = 0; i < num_inputs; ++i) {
    ETR_TRY(etr_broadcast_view(ctx, inputs[i], dim, sizes, &views[i]));
    operands[i + 1] = &views[i];
  }
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, dim, sizes, operands, num_inputs + 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    clamp_tensor_element(&iter, common, out, views, min != NULL,
                         max != NULL);
  }
  return ETR_OK;
}
