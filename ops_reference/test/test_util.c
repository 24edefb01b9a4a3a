// SPDX-License-Identifier: Apache-2.0
//
// Test helpers (see test_util.h).
#include "ops_reference/test/test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_reference/support/element.h"
#include "ops_reference/test/kernel_table.h"

// ---------------------------------------------------------------------------
// Allocations

typedef struct allocation {
  struct allocation *next;
} allocation_t;

static allocation_t *g_allocations = NULL;

void *tt_alloc(size_t bytes) {
  // The header keeps the payload 16-byte aligned.
  size_t header = 16;
  allocation_t *block = calloc(1, header + bytes + 1);
  cr_assert_not_null(block, "out of memory");
  block->next = g_allocations;
  g_allocations = block;
  return (char *)block + header;
}

void tt_free_all(void) {
  while (g_allocations != NULL) {
    allocation_t *next = g_allocations->next;
    free(g_allocations);
    g_allocations = next;
  }
}

// ---------------------------------------------------------------------------
// Tensors

static int64_t numel_of(int32_t dim, const int64_t *sizes) {
  int64_t numel = 1;
  for (int32_t i = 0; i < dim; ++i) {
    numel *= sizes[i];
  }
  return numel;
}

static etr_tensor_t *new_tensor(etr_scalar_type_t dtype, int32_t dim,
                                const int64_t *sizes,
                                const uint8_t *dim_order, int64_t capacity) {
  int64_t numel = numel_of(dim, sizes);
  if (capacity < numel) {
    capacity = numel;
  }
  size_t bytes = (size_t)capacity * etr_scalar_type_size(dtype);
  etr_tensor_t *tensor = tt_alloc(sizeof(etr_tensor_t));
  void *data = tt_alloc(bytes);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status =
      dim_order != NULL
          ? etr_tensor_init_with_dim_order(tensor, dtype, dim, sizes,
                                           dim_order, data, bytes, &diag)
          : etr_tensor_init(tensor, dtype, dim, sizes, data, bytes, &diag);
  cr_assert_eq(status, ETR_OK, "tensor init failed: %s", diag.message);
  return tensor;
}

// Offset of logical row-major element `index`.
static int64_t logical_offset(const etr_tensor_t *tensor, int64_t index) {
  int64_t offset = 0;
  for (int32_t d = tensor->dim - 1; d >= 0; --d) {
    offset += (index % tensor->sizes[d]) * tensor->strides[d];
    index /= tensor->sizes[d];
  }
  return offset;
}

static void set_value(etr_tensor_t *tensor, int64_t index,
                      const double *values) {
  void *element = etr_element_at(tensor, logical_offset(tensor, index));
  if (etr_scalar_type_is_complex(tensor->dtype)) {
    etr_complex_t value = {values[2 * index], values[2 * index + 1]};
    etr_store_complex(tensor->dtype, element, value);
  } else {
    etr_store_double(tensor->dtype, element, values[index]);
  }
}

etr_tensor_t *tt_tensor(etr_scalar_type_t dtype, int32_t dim,
                        const int64_t *sizes, const double *values) {
  etr_tensor_t *tensor = new_tensor(dtype, dim, sizes, NULL, 0);
  if (values != NULL) {
    int64_t numel = numel_of(dim, sizes);
    for (int64_t i = 0; i < numel; ++i) {
      set_value(tensor, i, values);
    }
  }
  return tensor;
}

etr_tensor_t *tt_tensor_i64(etr_scalar_type_t dtype, int32_t dim,
                            const int64_t *sizes, const int64_t *values) {
  etr_tensor_t *tensor = new_tensor(dtype, dim, sizes, NULL, 0);
  int64_t numel = numel_of(dim, sizes);
  for (int64_t i = 0; i < numel; ++i) {
    etr_store_int64(dtype, etr_element_at(tensor, i), values[i]);
  }
  return tensor;
}

etr_tensor_t *tt_scalar_tensor(etr_scalar_type_t dtype, double value) {
  double values[2] = {value, 0.0};
  return tt_tensor(dtype, 0, NULL, values);
}

etr_tensor_t *tt_out(etr_scalar_type_t dtype, int32_t dim,
                     const int64_t *sizes, int64_t capacity) {
  return new_tensor(dtype, dim, sizes, NULL, capacity);
}

etr_tensor_t *tt_out_dim_order(etr_scalar_type_t dtype, int32_t dim,
                               const int64_t *sizes,
                               const uint8_t *dim_order) {
  return new_tensor(dtype, dim, sizes, dim_order, 0);
}

// Copies every logical element of `src` into `dst` (same shape).
static void copy_logical(etr_tensor_t *dst, const etr_tensor_t *src) {
  int64_t numel = etr_tensor_numel(src);
  for (int64_t i = 0; i < numel; ++i) {
    etr_convert_element(dst->dtype,
                        etr_element_at(dst, logical_offset(dst, i)),
                        src->dtype,
                        etr_element_at(src, logical_offset(src, i)));
  }
}

etr_tensor_t *tt_channels_last(const etr_tensor_t *tensor) {
  cr_assert_eq(tensor->dim, 4, "channels-last needs a rank-4 tensor");
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  etr_tensor_t *result = new_tensor(tensor->dtype, 4, tensor->sizes,
                                    kChannelsLast, 0);
  copy_logical(result, tensor);
  return result;
}

etr_tensor_t *tt_noncontiguous(const etr_tensor_t *tensor) {
  int32_t dim = tensor->dim;
  int64_t numel = etr_tensor_numel(tensor);
  size_t element_size = etr_scalar_type_size(tensor->dtype);
  // Storage order: the two innermost dims swapped; then every stride x2.
  uint8_t order[ETR_MAX_DIMS];
  for (int32_t i = 0; i < dim; ++i) {
    order[i] = (uint8_t)i;
  }
  if (dim >= 2) {
    order[dim - 2] = (uint8_t)(dim - 1);
    order[dim - 1] = (uint8_t)(dim - 2);
  }
  etr_tensor_t *result = tt_alloc(sizeof(etr_tensor_t));
  *result = *tensor;
  etr_strides_from_dim_order(tensor->sizes, order, dim, result->strides);
  for (int32_t i = 0; i < dim; ++i) {
    result->strides[i] *= 2;
    result->dim_order[i] = order[i];
  }
  size_t bytes = (size_t)(2 * numel + 1) * element_size;
  result->data = tt_alloc(bytes);
  memset(result->data, 0xff, bytes);
  result->capacity_bytes = bytes;
  result->shape_dynamism = ETR_SHAPE_STATIC;
  copy_logical(result, tensor);
  return result;
}

etr_tensor_t *tt_cast(const etr_tensor_t *tensor, etr_scalar_type_t dtype) {
  etr_tensor_t *result = new_tensor(dtype, tensor->dim, tensor->sizes, NULL, 0);
  copy_logical(result, tensor);
  return result;
}

double tt_get(const etr_tensor_t *tensor, int64_t index) {
  return etr_load_double(tensor->dtype,
                         etr_element_at(tensor, logical_offset(tensor, index)));
}

int64_t tt_get_i64(const etr_tensor_t *tensor, int64_t index) {
  return etr_load_int64(tensor->dtype,
                        etr_element_at(tensor, logical_offset(tensor, index)));
}

double tt_get_imag(const etr_tensor_t *tensor, int64_t index) {
  return etr_load_complex(tensor->dtype,
                          etr_element_at(tensor, logical_offset(tensor, index)))
      .imag;
}

// ---------------------------------------------------------------------------
// EValues

static etr_evalue_t *new_evalue(etr_tag_t tag) {
  etr_evalue_t *value = tt_alloc(sizeof(etr_evalue_t));
  value->tag = tag;
  return value;
}

etr_evalue_t *tt_ev_tensor(etr_tensor_t *tensor) {
  etr_evalue_t *value = new_evalue(ETR_TAG_TENSOR);
  value->u.as_tensor = tensor;
  return value;
}

etr_evalue_t *tt_ev_none(void) { return new_evalue(ETR_TAG_NONE); }

etr_evalue_t *tt_ev_int(int64_t v) {
  etr_evalue_t *value = new_evalue(ETR_TAG_INT);
  value->u.as_int = v;
  return value;
}

etr_evalue_t *tt_ev_double(double v) {
  etr_evalue_t *value = new_evalue(ETR_TAG_DOUBLE);
  value->u.as_double = v;
  return value;
}

etr_evalue_t *tt_ev_bool(bool v) {
  etr_evalue_t *value = new_evalue(ETR_TAG_BOOL);
  value->u.as_bool = v;
  return value;
}

etr_evalue_t *tt_ev_string(const char *v) {
  etr_evalue_t *value = new_evalue(ETR_TAG_STRING);
  value->u.as_string.data = v;
  value->u.as_string.length = strlen(v);
  return value;
}

etr_evalue_t *tt_ev_int_list(size_t length, const int64_t *values) {
  etr_evalue_t *value = new_evalue(ETR_TAG_LIST_INT);
  value->u.as_int_list.items = tt_alloc(sizeof(etr_evalue_t *) * (length + 1));
  value->u.as_int_list.unboxed = tt_alloc(sizeof(int64_t) * (length + 1));
  value->u.as_int_list.length = length;
  for (size_t i = 0; i < length; ++i) {
    value->u.as_int_list.items[i] = tt_ev_int(values[i]);
  }
  return value;
}

etr_evalue_t *tt_ev_double_list(size_t length, const double *values) {
  etr_evalue_t *value = new_evalue(ETR_TAG_LIST_DOUBLE);
  double *items = tt_alloc(sizeof(double) * (length + 1));
  memcpy(items, values, sizeof(double) * length);
  value->u.as_double_list.items = items;
  value->u.as_double_list.length = length;
  return value;
}

etr_evalue_t *tt_ev_bool_list(size_t length, const bool *values) {
  etr_evalue_t *value = new_evalue(ETR_TAG_LIST_BOOL);
  bool *items = tt_alloc(sizeof(bool) * (length + 1));
  memcpy(items, values, sizeof(bool) * length);
  value->u.as_bool_list.items = items;
  value->u.as_bool_list.length = length;
  return value;
}

static etr_evalue_t *tensor_list(etr_tag_t tag, size_t length,
                                 etr_tensor_t *const *tensors) {
  etr_evalue_t *value = new_evalue(tag);
  value->u.as_tensor_list.items =
      tt_alloc(sizeof(etr_evalue_t *) * (length + 1));
  value->u.as_tensor_list.length = length;
  for (size_t i = 0; i < length; ++i) {
    value->u.as_tensor_list.items[i] =
        tensors[i] != NULL ? tt_ev_tensor(tensors[i]) : NULL;
  }
  return value;
}

etr_evalue_t *tt_ev_tensor_list(size_t length, etr_tensor_t *const *tensors) {
  return tensor_list(ETR_TAG_LIST_TENSOR, length, tensors);
}

etr_evalue_t *tt_ev_optional_tensor_list(size_t length,
                                         etr_tensor_t *const *tensors) {
  return tensor_list(ETR_TAG_LIST_OPTIONAL_TENSOR, length, tensors);
}

// ---------------------------------------------------------------------------
// Calling kernels

static etr_diag_t g_diag;

etr_kernel_fn tt_find_kernel(const char *op_name) {
  size_t count = 0;
  const etr_kernel_registration_t *table = tt_kernel_table(&count);
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(table[i].name, op_name) == 0) {
      return table[i].fn;
    }
  }
  return NULL;
}

// Every tensor reachable from the arguments (list elements included), once.
static size_t collect_tensors(etr_evalue_t **args, size_t num_args,
                              etr_tensor_t **tensors, size_t capacity) {
  size_t count = 0;
  for (size_t i = 0; i < num_args; ++i) {
    etr_evalue_t *value = args[i];
    size_t items = 1;
    bool is_list =
        value != NULL && (value->tag == ETR_TAG_LIST_TENSOR ||
                          value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR);
    if (is_list) {
      items = value->u.as_tensor_list.length;
    } else if (value == NULL || value->tag != ETR_TAG_TENSOR) {
      continue;
    }
    for (size_t j = 0; j < items; ++j) {
      etr_tensor_t *tensor =
          is_list ? etr_tensor_list_get(value, j) : value->u.as_tensor;
      bool seen = tensor == NULL;
      for (size_t k = 0; k < count && !seen; ++k) {
        seen = tensors[k] == tensor;
      }
      if (!seen && count < capacity) {
        tensors[count++] = tensor;
      }
    }
  }
  return count;
}

#define TT_MAX_CALL_TENSORS 64

// Runs the kernel as a dry run first, with every tensor's data pointer
// NULL, and checks the dry run agrees with the real call: same status (or
// OK where the real failure depends on values) and the same out shapes.
// Every tensor is restored before the real call.
etr_error_t tt_call(const char *op_name, etr_evalue_t **args,
                    size_t num_args) {
  etr_kernel_fn fn = tt_find_kernel(op_name);
  cr_assert_not_null(fn, "no kernel registered for %s", op_name);
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &g_diag;
  ctx.op_name = op_name;
  // A scratch arena as a method gives its kernels (4 MiB by default).
  static _Alignas(64) uint8_t temp_buffer[4 << 20];
  static etr_arena_t temp;
  etr_arena_init(&temp, temp_buffer, sizeof(temp_buffer));
  ctx.temp = &temp;

  etr_tensor_t *tensors[TT_MAX_CALL_TENSORS];
  size_t count = collect_tensors(args, num_args, tensors, TT_MAX_CALL_TENSORS);
  etr_tensor_t *saved = tt_alloc(sizeof(etr_tensor_t) * (count + 1));
  etr_tensor_t *dry_shapes = tt_alloc(sizeof(etr_tensor_t) * (count + 1));
  for (size_t i = 0; i < count; ++i) {
    saved[i] = *tensors[i];
    tensors[i]->data = NULL;
  }
  etr_diag_reset(&g_diag);
  ctx.dry_run = true;
  etr_error_t dry_status = fn(&ctx, args, num_args);
  for (size_t i = 0; i < count; ++i) {
    dry_shapes[i] = *tensors[i];
    *tensors[i] = saved[i];
  }

  etr_diag_reset(&g_diag);
  etr_arena_reset(&temp);
  ctx.dry_run = false;
  etr_error_t status = fn(&ctx, args, num_args);
  if (status != ETR_OK) {
    cr_log_info("%s -> %s: %s (%s:%d)", op_name, etr_error_name(status),
                g_diag.message, g_diag.file ? g_diag.file : "?", g_diag.line);
  }
  cr_expect(dry_status == status || dry_status == ETR_OK,
            "%s: dry run returned %s but the call %s", op_name,
            etr_error_name(dry_status), etr_error_name(status));
  if (status == ETR_OK) {
    cr_expect_eq(dry_status, ETR_OK, "%s: dry run failed", op_name);
    for (size_t i = 0; i < count; ++i) {
      cr_expect(etr_tensor_same_shape(&dry_shapes[i], tensors[i]),
                "%s: tensor %zu has another shape after the dry run",
                op_name, i);
    }
  }
  return status;
}

const etr_diag_t *tt_last_diag(void) { return &g_diag; }

// ---------------------------------------------------------------------------
// Expectations

void tt_tolerance(etr_scalar_type_t dtype, double *rtol, double *atol) {
  switch (dtype) {
    case ETR_FLOAT:
    case ETR_COMPLEX_FLOAT:
      *rtol = 1.3e-6;
      *atol = 1e-5;
      return;
    case ETR_DOUBLE:
    case ETR_COMPLEX_DOUBLE:
      *rtol = 1e-7;
      *atol = 1e-7;
      return;
    case ETR_HALF:
    case ETR_COMPLEX_HALF:
      *rtol = 1e-3;
      *atol = 1e-5;
      return;
    case ETR_BFLOAT16:
      *rtol = 1.6e-2;
      *atol = 1e-5;
      return;
    default:
      *rtol = 0.0;
      *atol = 0.0;
      return;
  }
}

static bool close_enough(double actual, double expected, double rtol,
                         double atol) {
  if (isnan(expected) || isnan(actual)) {
    return isnan(expected) && isnan(actual);
  }
  if (isinf(expected) || isinf(actual)) {
    return actual == expected;
  }
  return fabs(actual - expected) <= atol + rtol * fabs(expected);
}

void tt_expect_shape(const etr_tensor_t *actual, int32_t dim,
                     const int64_t *sizes) {
  cr_expect_eq(actual->dim, dim, "rank is %d, expected %d", (int)actual->dim,
               (int)dim);
  for (int32_t i = 0; i < dim && i < actual->dim; ++i) {
    cr_expect_eq(actual->sizes[i], sizes[i], "size[%d] is %lld, expected %lld",
                 (int)i, (long long)actual->sizes[i], (long long)sizes[i]);
  }
}

void tt_expect_values(const etr_tensor_t *actual, const double *expected,
                      size_t count) {
  int64_t numel = etr_tensor_numel(actual);
  bool complex = etr_scalar_type_is_complex(actual->dtype);
  size_t expected_count = (size_t)numel * (complex ? 2u : 1u);
  cr_expect_eq(count, expected_count, "tensor has %lld elements, expected %zu",
               (long long)numel, complex ? count / 2 : count);
  if (count != expected_count) {
    return;
  }
  double rtol = 0.0;
  double atol = 0.0;
  tt_tolerance(actual->dtype, &rtol, &atol);
  int failures = 0;
  for (int64_t i = 0; i < numel && failures < 8; ++i) {
    double real = tt_get(actual, i);
    double want = complex ? expected[2 * i] : expected[i];
    bool ok = close_enough(real, want, rtol, atol);
    if (complex) {
      ok = ok && close_enough(tt_get_imag(actual, i), expected[2 * i + 1],
                              rtol, atol);
    }
    if (!ok) {
      ++failures;
      cr_expect(ok,
                "%s element %lld is %.9g%s, expected %.9g (rtol %g atol %g)",
                etr_scalar_type_name(actual->dtype), (long long)i, real,
                complex ? " (+imag)" : "", want, rtol, atol);
    }
  }
}

void tt_expect_values_i64(const etr_tensor_t *actual, const int64_t *expected,
                          size_t count) {
  int64_t numel = etr_tensor_numel(actual);
  cr_expect_eq((int64_t)count, numel, "tensor has %lld elements, expected %zu",
               (long long)numel, count);
  for (int64_t i = 0; i < numel && i < (int64_t)count; ++i) {
    cr_expect_eq(tt_get_i64(actual, i), expected[i],
                 "element %lld is %lld, expected %lld", (long long)i,
                 (long long)tt_get_i64(actual, i), (long long)expected[i]);
  }
}

void tt_expect_tensor(const etr_tensor_t *actual,
                      const etr_tensor_t *expected) {
  cr_expect_eq(actual->dtype, expected->dtype, "dtype is %s, expected %s",
               etr_scalar_type_name(actual->dtype),
               etr_scalar_type_name(expected->dtype));
  tt_expect_shape(actual, expected->dim, expected->sizes);
  if (!etr_tensor_same_shape(actual, expected)) {
    return;
  }
  int64_t numel = etr_tensor_numel(expected);
  bool complex = etr_scalar_type_is_complex(expected->dtype);
  size_t count = (size_t)numel * (complex ? 2u : 1u);
  double *values = tt_alloc(sizeof(double) * (count + 1));
  for (int64_t i = 0; i < numel; ++i) {
    if (complex) {
      values[2 * i] = tt_get(expected, i);
      values[2 * i + 1] = tt_get_imag(expected, i);
    } else {
      values[i] = tt_get(expected, i);
    }
  }
  tt_expect_values(actual, values, count);
}

void tt_expect_status(etr_error_t actual, etr_error_t expected) {
  cr_expect_eq(actual, expected, "status %s (0x%x), expected %s (0x%x): %s",
               etr_error_name(actual), (unsigned)actual,
               etr_error_name(expected), (unsigned)expected,
               g_diag.message);
  if (expected != ETR_OK) {
    cr_expect_eq(g_diag.code, expected, "diag code %s, expected %s",
                 etr_error_name(g_diag.code), etr_error_name(expected));
    cr_expect(g_diag.message[0] != '\0', "a failing kernel leaves a message");
  }
}

// ---------------------------------------------------------------------------
// Generated cases and layouts

etr_tensor_t *tt_case_tensor(const tt_case_tensor_t *literal) {
  if (!literal->present) {
    return NULL;
  }
  return tt_tensor(literal->dtype, literal->dim, literal->sizes,
                   literal->values);
}

etr_tensor_t *tt_case_out(const tt_case_tensor_t *expected) {
  int64_t numel = numel_of(expected->dim, expected->sizes);
  int64_t flat[1] = {numel};
  return tt_out(expected->dtype, 1, flat, numel + 8);
}

etr_evalue_t *tt_ev_case_ints(const tt_case_ints_t *ints) {
  return tt_ev_int_list(ints->count, ints->values);
}

void tt_expect_case(const etr_tensor_t *actual,
                    const tt_case_tensor_t *expected) {
  cr_expect_eq(actual->dtype, expected->dtype, "dtype %s, expected %s",
               etr_scalar_type_name(actual->dtype),
               etr_scalar_type_name(expected->dtype));
  tt_expect_shape(actual, expected->dim, expected->sizes);
  tt_expect_values(actual, expected->values,
                   numel_of(expected->dim, expected->sizes) == 0
                       ? 0
                       : expected->count);
}

etr_tensor_t *tt_relayout(const etr_tensor_t *tensor, tt_layout_t layout) {
  if (tensor == NULL) {
    return NULL;
  }
  switch (layout) {
    case TT_NONCONTIGUOUS:
      return tt_noncontiguous(tensor);
    case TT_CHANNELS_LAST:
      return tensor->dim == 4 ? tt_channels_last(tensor)
                              : (etr_tensor_t *)tensor;
    case TT_CONTIGUOUS:
    default:
      return (etr_tensor_t *)tensor;
  }
}

const char *tt_layout_name(tt_layout_t layout) {
  static const char *const kNames[TT_NUM_LAYOUTS] = {
      "contiguous", "non-contiguous", "channels-last"};
  return (unsigned)layout < TT_NUM_LAYOUTS ? kNames[layout] : "?";
}
