// SPDX-License-Identifier: Apache-2.0
//
// The drivers of aten::where.self_out and aten::clamp.Tensor_out (see
// ternary.h).
//
// where: a Bool (or uint8) condition; self, other and out of one dtype (or
// a one-element self/other of another dtype, converted as the reference
// converts it). Values are copied, never computed on, so every dtype of
// 1, 2, 4 or 8 bytes is exact: 4-byte elements take the SIMD kernel, the
// others a portable loop.
//
// clamp.Tensor: self and the present bounds of the result dtype, Float,
// Half or BFloat16 (or one-element tensors of another dtype, rounded to it
// as the reference rounds them), out of that dtype; Half and BFloat16
// staged through fp32 (clamping is exact).
//
// Both broadcast their inputs together and take any layout
// ../binary/plan.h can express; the op files send the rest to the
// reference kernels.
#include <math.h>
#include <string.h>

#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/plan.h"
#include "ops_optimized/ternary/ternary.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/shape.h"

// The broadcast shape of up to three tensors (NULL ones skipped).
static bool broadcast3(const etr_tensor_t *const *tensors, int32_t *dim,
                       int64_t *sizes) {
  *dim = 0;
  for (int i = 0; i < 3; ++i) {
    if (tensors[i] != NULL &&
        !etr_plan_broadcast_shape(*dim, sizes, tensors[i]->dim,
                                  tensors[i]->sizes, dim, sizes)) {
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// where

// One input of where: planned (slot > 0) or a constant already converted.
typedef struct where_input {
  const etr_tensor_t *tensor;
  int slot;                      // plan operand index, 0 for a constant
  uint8_t splat[ETR_TERNARY_SPLAT * 8];  // ETR_TERNARY_SPLAT copies
} where_input_t;

static void fill_splat(uint8_t *splat, const void *element, size_t size) {
  for (size_t i = 0; i < ETR_TERNARY_SPLAT; ++i) {
    memcpy(splat + i * size, element, size);
  }
}

// y[i] = c[i] ? a[i] : b[i] for elements of `size` bytes (1, 2 or 8).
static void where_portable(size_t n, size_t size, const uint8_t *c,
                           size_t c_inc, const uint8_t *a, size_t a_inc,
                           const uint8_t *b, size_t b_inc, uint8_t *y) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t *source = c[i * c_inc] != 0 ? a + i * a_inc * size
                                              : b + i * b_inc * size;
    memcpy(y + i * size, source, size);
  }
}

// Where `input` is for this run: its data, or its splat when it is
// constant along the run (inc 0).
static const uint8_t *where_source(where_input_t *input,
                                   const etr_plan_t *plan,
                                   const etr_plan_cursor_t *cursor,
                                   size_t size, size_t *inc) {
  *inc = 0;
  if (input->slot == 0) {
    return input->splat;
  }
  const uint8_t *at = (const uint8_t *)input->tensor->data +
                      (size_t)cursor->offsets[input->slot] * size;
  if (plan->run_broadcast[input->slot]) {
    fill_splat(input->splat, at, size);
    return input->splat;
  }
  *inc = 1;
  return at;
}

etr_error_t etr_where_execute(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args, bool *handled) {
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  *handled = false;
  etr_tensor_t *condition = NULL;
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_tensor_t *out = NULL;
  etr_scalar_type_t result;
  if (num_args != 5 ||
      etr_arg_tensor(&probe, args, num_args, 0, "condition", &condition) !=
          ETR_OK ||
      etr_arg_tensor(&probe, args, num_args, 1, "self", &self) != ETR_OK ||
      etr_arg_tensor(&probe, args, num_args, 2, "other", &other) != ETR_OK ||
      etr_arg_tensor(&probe, args, num_args, 3, "out", &out) != ETR_OK ||
      (condition->dtype != ETR_BOOL && condition->dtype != ETR_BYTE) ||
      etr_check_dtype(&probe, "self", self->dtype, ETR_DTYPES_NUMERIC) !=
          ETR_OK ||
      etr_check_dtype(&probe, "other", other->dtype, ETR_DTYPES_NUMERIC) !=
          ETR_OK ||
      etr_result_type_tensors(&probe, self, other, &result) != ETR_OK ||
      out->dtype != result) {
    return ETR_OK;
  }
  size_t size = etr_scalar_type_size(result);
  const etr_tensor_t *shapes[3] = {condition, self, other};
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  bool constant_self = self->dtype != result;
  bool constant_other = other->dtype != result;
  if ((size != 1 && size != 2 && size != 4 && size != 8) ||
      (constant_self && etr_tensor_numel(self) != 1) ||
      (constant_other && etr_tensor_numel(other) != 1) ||
      !broadcast3(shapes, &dim, sizes)) {
    return ETR_OK;
  }
  *handled = true;
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run || etr_tensor_numel(out) == 0) {
    return ETR_OK;
  }
  where_input_t c = {condition, 1, {0}};
  where_input_t a = {self, 0, {0}};
  where_input_t b = {other, 0, {0}};
  const etr_tensor_t *inputs[3] = {condition, NULL, NULL};
  size_t num_inputs = 1;
  where_input_t *values[2] = {&a, &b};
  for (int i = 0; i < 2; ++i) {
    const etr_tensor_t *t = values[i]->tensor;
    if (t->dtype == result) {
      values[i]->slot = (int)++num_inputs;
      inputs[num_inputs - 1] = t;
    } else {
      uint8_t element[16];
      etr_convert_element(result, element, t->dtype, t->data);
      fill_splat(values[i]->splat, element, size);
    }
  }
  etr_plan_t plan;
  if (!etr_plan_init(&plan, out, inputs, num_inputs)) {
    *handled = false;
    return ETR_OK;
  }
  const etr_ternary_kernels_t *k = etr_ternary_for(etr_isa_active());
  etr_plan_cursor_t cursor;
  etr_plan_cursor_init(&cursor);
  for (int64_t r = 0; r < plan.runs; ++r) {
    size_t c_inc;
    size_t a_inc;
    size_t b_inc;
    const uint8_t *cp = where_source(&c, &plan, &cursor, 1, &c_inc);
    const uint8_t *ap = where_source(&a, &plan, &cursor, size, &a_inc);
    const uint8_t *bp = where_source(&b, &plan, &cursor, size, &b_inc);
    uint8_t *y = (uint8_t *)out->data + (size_t)cursor.offsets[0] * size;
    if (size == 4) {
      k->where32((size_t)plan.run, cp, c_inc, (const float *)ap, a_inc,
                 (const float *)bp, b_inc, (float *)y);
    } else {
      where_portable((size_t)plan.run, size, cp, c_inc, ap, a_inc, bp,
                     b_inc, y);
    }
    etr_plan_cursor_next(&cursor, &plan);
  }
  return ETR_OK;
}

// ---------------------------------------------------------------------------
// clamp.Tensor

// One input of clamp.Tensor: self, low or high.
typedef struct clamp_input {
  etr_ew_operand_t operand;
  bool present;
  int slot;  // plan operand index, 0 when constant or absent
  float splat[ETR_TERNARY_SPLAT];
  float buffer[ETR_EW_CHUNK];
} clamp_input_t;

static void splat_f32(float *splat, float value) {
  for (int i = 0; i < ETR_TERNARY_SPLAT; ++i) {
    splat[i] = value;
  }
}

// Points `*data` at this run's values of `input` (fp32 or its own dtype)
// and sets the splat of one constant along the run; inc 0 for a splat.
static const void *clamp_source(clamp_input_t *input, const etr_plan_t *plan,
                                const etr_plan_cursor_t *cursor,
                                size_t *inc) {
  *inc = 0;
  if (input->slot == 0) {
    return input->splat;
  }
  const etr_tensor_t *t = input->operand.tensor;
  int64_t offset = cursor->offsets[input->slot];
  if (plan->run_broadcast[input->slot]) {
    splat_f32(input->splat, etr_ew_load_f32(t, offset));
    return input->splat;
  }
  *inc = 1;
  return (const uint8_t *)t->data +
         (size_t)offset * etr_scalar_type_size(t->dtype);
}

etr_error_t etr_clamp_tensor_execute(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args,
                                     bool *handled) {
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  *handled = false;
  etr_tensor_t *tensors[3] = {NULL, NULL, NULL};  // self, min, max
  etr_tensor_t *out = NULL;
  if (num_args != 5 ||
      etr_arg_tensor(&probe, args, num_args, 0, "self", &tensors[0]) !=
          ETR_OK ||
      etr_arg_optional_tensor(&probe, args, num_args, 1, "min",
                              &tensors[1]) != ETR_OK ||
      etr_arg_optional_tensor(&probe, args, num_args, 2, "max",
                              &tensors[2]) != ETR_OK ||
      etr_arg_tensor(&probe, args, num_args, 3, "out", &out) != ETR_OK ||
      (tensors[1] == NULL && tensors[2] == NULL)) {
    return ETR_OK;
  }
  etr_result_type_t promotion;
  etr_result_type_init(&promotion);
  for (int i = 0; i < 3; ++i) {
    if (tensors[i] != NULL) {
      etr_result_type_add_tensor(&promotion, tensors[i]);
    }
  }
  etr_scalar_type_t result;
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  if (etr_result_type_get(&probe, &promotion, &result) != ETR_OK ||
      !etr_ew_is_float_like(result) || out->dtype != result ||
      !broadcast3((const etr_tensor_t *const *)tensors, &dim, sizes)) {
    return ETR_OK;
  }
  clamp_input_t inputs[3];
  const etr_tensor_t *planned[3];
  size_t num_planned = 0;
  for (int i = 0; i < 3; ++i) {
    inputs[i].present = tensors[i] != NULL;
    inputs[i].slot = 0;
    if (!inputs[i].present) {
      splat_f32(inputs[i].splat, i == 1 ? -INFINITY : INFINITY);
      continue;
    }
    if (!etr_ew_operand_tensor(&inputs[i].operand, tensors[i], result,
                               result)) {
      return ETR_OK;
    }
    if (!inputs[i].operand.constant) {
      inputs[i].slot = (int)++num_planned;
      planned[num_planned - 1] = tensors[i];
    }
  }
  *handled = true;
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run || etr_tensor_numel(out) == 0) {
    return ETR_OK;
  }
  etr_plan_t plan;
  if (!etr_plan_init(&plan, out, planned, num_planned)) {
    *handled = false;
    return ETR_OK;
  }
  for (int i = 0; i < 3; ++i) {
    if (inputs[i].present && inputs[i].operand.constant) {
      etr_ew_operand_prepare(&inputs[i].operand);
      splat_f32(inputs[i].splat, inputs[i].operand.value);
    }
  }
  const etr_ternary_kernels_t *k = etr_ternary_for(etr_isa_active());
  size_t element = etr_scalar_type_size(result);
  size_t n = (size_t)plan.run;
  etr_plan_cursor_t cursor;
  etr_plan_cursor_init(&cursor);
  for (int64_t r = 0; r < plan.runs; ++r) {
    const uint8_t *sources[3];
    size_t incs[3];
    for (int i = 0; i < 3; ++i) {
      sources[i] = clamp_source(&inputs[i], &plan, &cursor, &incs[i]);
    }
    uint8_t *y = (uint8_t *)out->data + (size_t)cursor.offsets[0] * element;
    if (result == ETR_FLOAT) {
      k->clamp(n, (const float *)sources[0], incs[0],
               (const float *)sources[1], incs[1],
               (const float *)sources[2], incs[2], (float *)y);
    } else {
      for (size_t done = 0; done < n; done += ETR_EW_CHUNK) {
        size_t m = n - done < ETR_EW_CHUNK ? n - done : ETR_EW_CHUNK;
        const float *staged[3];
        for (int i = 0; i < 3; ++i) {
          staged[i] = (const float *)sources[i];
          if (incs[i] != 0) {
            etr_ew_to_f32(result, m, sources[i] + done * element,
                          inputs[i].buffer);
            staged[i] = inputs[i].buffer;
          }
        }
        // The result goes to self's buffer when self is staged, else to
        // low's or high's; one of them is (some input varies).
        float *result_buffer = incs[0] != 0   ? inputs[0].buffer
                               : incs[1] != 0 ? inputs[1].buffer
                                              : inputs[2].buffer;
        k->clamp(m, staged[0], incs[0], staged[1], incs[1], staged[2],
                 incs[2], result_buffer);
        etr_ew_from_f32(result, m, result_buffer, y + done * element);
      }
    }
    etr_plan_cursor_next(&cursor, &plan);
  }
  return ETR_OK;
}
