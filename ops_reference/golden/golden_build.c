// SPDX-License-Identifier: Apache-2.0
//
// Golden-case call builder (see golden_harness.h): the EValues of one
// kernel call, with inputs in poisoned aligned buffers and outs that the
// kernel must resize. The judge is golden_check.c.
#include "ops_reference/golden/golden_harness.h"

#include <string.h>

#include "core/scalar_type.h"
#include "core/tensor.h"

#define POISON_BYTE 0xFF        // NaN in every float format, -1 in integers
#define BOOL_POISON_BYTE 0x01   // a valid bool, so loads stay defined
#define OUT_SPARE_BYTES 64      // capacity beyond the larger shape
#define ERROR_OUT_SPARE_BYTES 4096
#define MAX_INPUT_BUFFERS 64

static etr_error_t inconsistent(etr_diag_t *diag, const etr_golden_case_t *g,
                                const char *what) {
  return etr_diag_set(diag, ETR_ERR_INVALID_PROGRAM, __FILE__, __LINE__,
                      "golden case %u: %s", (unsigned)g->index, what);
}

static etr_error_t no_memory(etr_diag_t *diag, const etr_golden_case_t *g) {
  return etr_diag_set(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED, __FILE__,
                      __LINE__, "golden case %u: harness arena exhausted",
                      (unsigned)g->index);
}

typedef struct builder {
  const etr_golden_case_t *golden;
  etr_arena_t *arena;
  etr_diag_t *diag;
  etr_golden_call_t *call;
  size_t out_capacity;  // entries of call->outs
} builder_t;

static etr_evalue_t *new_value(builder_t *b, etr_tag_t tag) {
  etr_evalue_t *v = (etr_evalue_t *)etr_arena_calloc(b->arena, 1,
                                                      sizeof(*v), 16);
  if (v != NULL) {
    v->tag = tag;
  }
  return v;
}

static void poison(uint8_t *bytes, size_t count, etr_scalar_type_t dtype) {
  memset(bytes, dtype == ETR_BOOL ? BOOL_POISON_BYTE : POISON_BYTE, count);
}

// Dim order of a strided view: dims sorted by stride, outermost first
// (ties keep index order), as core/tensor.h asks for such views.
static void dim_order_from_strides(const int64_t *strides, int32_t dim,
                                   uint8_t *order) {
  for (int32_t i = 0; i < dim; ++i) {
    order[i] = (uint8_t)i;
  }
  for (int32_t i = 1; i < dim; ++i) {
    uint8_t d = order[i];
    int32_t j = i - 1;
    while (j >= 0 && strides[order[j]] < strides[d]) {
      order[j + 1] = order[j];
      --j;
    }
    order[j + 1] = d;
  }
}

static etr_error_t build_input(builder_t *b, const etr_golden_tensor_t *g,
                               etr_evalue_t **out) {
  size_t element = etr_scalar_type_size(g->dtype);
  int64_t storage = g->strided ? g->storage_elements : g->numel;
  size_t bytes = (size_t)storage * element;  // <= 2^24 * 16
  uint8_t *buffer = (uint8_t *)etr_arena_alloc(b->arena, bytes + 1, 64);
  etr_tensor_t *t = (etr_tensor_t *)etr_arena_calloc(b->arena, 1,
                                                      sizeof(*t), 16);
  etr_evalue_t *v = new_value(b, ETR_TAG_TENSOR);
  if (buffer == NULL || t == NULL || v == NULL) {
    return no_memory(b->diag, b->golden);
  }
  poison(buffer, bytes + 1, g->dtype);
  t->dtype = g->dtype;
  t->dim = g->dim;
  memcpy(t->sizes, g->sizes, sizeof(t->sizes));
  t->shape_dynamism = ETR_SHAPE_STATIC;
  int64_t offset = 0;
  if (!g->strided) {
    for (int32_t i = 0; i < g->dim; ++i) {
      t->dim_order[i] = (uint8_t)i;
    }
    etr_strides_from_dim_order(t->sizes, t->dim_order, t->dim, t->strides);
    if (g->value_bytes > 0) {
      memcpy(buffer, g->values, g->value_bytes);
    }
  } else {
    offset = g->storage_offset;
    memcpy(t->strides, g->strides, sizeof(t->strides));
    dim_order_from_strides(t->strides, t->dim, t->dim_order);
    if (g->numel > 0) {
      int64_t index[ETR_MAX_DIMS] = {0};
      int64_t flat = 0;
      do {
        int64_t position = offset;
        for (int32_t i = 0; i < t->dim; ++i) {
          position += index[i] * t->strides[i];
        }
        memcpy(buffer + (size_t)position * element,
               g->values + (size_t)flat * element, element);
        ++flat;
      } while (etr_index_next(index, t->sizes, t->dim));
    } else {
      offset = 0;  // an empty view spans no storage
    }
  }
  t->data = buffer + (size_t)offset * element;
  t->capacity_bytes = bytes - (size_t)offset * element;
  v->u.as_tensor = t;

  etr_golden_call_t *call = b->call;
  if (call->num_inputs >= MAX_INPUT_BUFFERS) {
    return inconsistent(b->diag, b->golden, "too many input tensors");
  }
  uint8_t *copy = (uint8_t *)etr_arena_alloc(b->arena, bytes + 1, 16);
  if (copy == NULL) {
    return no_memory(b->diag, b->golden);
  }
  memcpy(copy, buffer, bytes + 1);
  call->inputs[call->num_inputs].buffer = buffer;
  call->inputs[call->num_inputs].copy = copy;
  call->inputs[call->num_inputs].bytes = bytes + 1;
  ++call->num_inputs;
  *out = v;
  return ETR_OK;
}

static etr_error_t build_out(builder_t *b, const etr_golden_out_spec_t *spec,
                             etr_evalue_t **out) {
  const etr_golden_case_t *g = b->golden;
  int64_t initial[ETR_MAX_DIMS];
  memcpy(initial, spec->sizes, sizeof(initial));
  if (spec->dim > 0) {
    initial[0] += 1;  // a wrong shape: the kernel must resize
  }
  size_t initial_bytes = 0, final_bytes = 0;
  if (etr_checked_nbytes(spec->dtype, initial, spec->dim, &initial_bytes,
                         b->diag) != ETR_OK ||
      etr_checked_nbytes(spec->dtype, spec->sizes, spec->dim, &final_bytes,
                         b->diag) != ETR_OK) {
    return inconsistent(b->diag, g, "out tensor shape overflows");
  }
  size_t capacity = (initial_bytes > final_bytes ? initial_bytes
                                                 : final_bytes) +
                    (g->expect == ETR_GOLDEN_EXPECT_ERROR
                         ? ERROR_OUT_SPARE_BYTES
                         : OUT_SPARE_BYTES);
  uint8_t *buffer = (uint8_t *)etr_arena_alloc(b->arena, capacity, 64);
  etr_tensor_t *t = (etr_tensor_t *)etr_arena_calloc(b->arena, 1,
                                                      sizeof(*t), 16);
  etr_evalue_t *v = new_value(b, ETR_TAG_TENSOR);
  if (buffer == NULL || t == NULL || v == NULL) {
    return no_memory(b->diag, g);
  }
  poison(buffer, capacity, spec->dtype);
  uint8_t order[ETR_MAX_DIMS];
  for (int32_t i = 0; i < spec->dim; ++i) {
    order[i] = spec->has_dim_order ? spec->dim_order[i] : (uint8_t)i;
  }
  if (etr_tensor_init_with_dim_order(t, spec->dtype, spec->dim, initial,
                                     order, buffer, capacity,
                                     b->diag) != ETR_OK) {
    return inconsistent(b->diag, g, "out tensor cannot be initialized");
  }
  t->shape_dynamism = ETR_SHAPE_DYNAMIC_BOUND;
  v->u.as_tensor = t;
  if (b->call->num_outs >= b->out_capacity) {
    return inconsistent(b->diag, g, "more out tensors than planned");
  }
  b->call->outs[b->call->num_outs++] = t;
  *out = v;
  return ETR_OK;
}

static etr_error_t build_int_list(builder_t *b, const int64_t *items,
                                  size_t length, etr_evalue_t *v) {
  etr_evalue_t **boxed = (etr_evalue_t **)etr_arena_calloc(
      b->arena, length ? length : 1, sizeof(*boxed), 16);
  int64_t *unboxed = (int64_t *)etr_arena_calloc(b->arena, length ? length : 1,
                                                 sizeof(*unboxed), 16);
  if (boxed == NULL || unboxed == NULL) {
    return no_memory(b->diag, b->golden);
  }
  for (size_t i = 0; i < length; ++i) {
    boxed[i] = new_value(b, ETR_TAG_INT);
    if (boxed[i] == NULL) {
      return no_memory(b->diag, b->golden);
    }
    boxed[i]->u.as_int = items[i];
  }
  v->u.as_int_list.items = boxed;
  v->u.as_int_list.unboxed = unboxed;
  v->u.as_int_list.length = length;
  return ETR_OK;
}

static etr_error_t build_tensor_list(builder_t *b,
                                     const etr_golden_value_t *value,
                                     etr_evalue_t *v) {
  size_t length = value->u.as_tensor_list.length;
  etr_evalue_t **items = (etr_evalue_t **)etr_arena_calloc(
      b->arena, length ? length : 1, sizeof(*items), 16);
  if (items == NULL) {
    return no_memory(b->diag, b->golden);
  }
  for (size_t i = 0; i < length; ++i) {
    const etr_golden_tensor_t *t = value->u.as_tensor_list.items[i];
    if (t == NULL) {
      if (value->tag != ETR_GOLDEN_OPTIONAL_TENSOR_LIST) {
        return inconsistent(b->diag, b->golden, "None in a Tensor[]");
      }
      continue;
    }
    ETR_TRY(build_input(b, t, &items[i]));
  }
  v->u.as_tensor_list.items = items;
  v->u.as_tensor_list.length = length;
  return ETR_OK;
}

// One schema argument. `out_list` receives the EValue of a Tensor[] out
// (for the return slot).
static etr_error_t build_arg(builder_t *b, const etr_golden_value_t *value,
                             etr_evalue_t **out) {
  etr_evalue_t *v = NULL;
  switch (value->tag) {
    case ETR_GOLDEN_TENSOR:
      return build_input(b, value->u.as_tensor, out);
    case ETR_GOLDEN_OUT_TENSOR:
      return build_out(b, value->u.as_out, out);
    default:
      break;
  }
  static const etr_tag_t kTags[] = {
      [ETR_GOLDEN_NONE] = ETR_TAG_NONE,
      [ETR_GOLDEN_STRING] = ETR_TAG_STRING,
      [ETR_GOLDEN_DOUBLE] = ETR_TAG_DOUBLE,
      [ETR_GOLDEN_INT] = ETR_TAG_INT,
      [ETR_GOLDEN_BOOL] = ETR_TAG_BOOL,
      [ETR_GOLDEN_BOOL_LIST] = ETR_TAG_LIST_BOOL,
      [ETR_GOLDEN_DOUBLE_LIST] = ETR_TAG_LIST_DOUBLE,
      [ETR_GOLDEN_INT_LIST] = ETR_TAG_LIST_INT,
      [ETR_GOLDEN_TENSOR_LIST] = ETR_TAG_LIST_TENSOR,
      [ETR_GOLDEN_OPTIONAL_TENSOR_LIST] = ETR_TAG_LIST_OPTIONAL_TENSOR,
      [ETR_GOLDEN_SCALAR_TYPE] = ETR_TAG_INT,
      [ETR_GOLDEN_MEMORY_FORMAT] = ETR_TAG_INT,
      [ETR_GOLDEN_LAYOUT] = ETR_TAG_INT,
      [ETR_GOLDEN_OUT_TENSOR_LIST] = ETR_TAG_LIST_TENSOR,
  };
  if ((size_t)value->tag >= sizeof(kTags) / sizeof(kTags[0])) {
    return inconsistent(b->diag, b->golden, "argument with an unknown tag");
  }
  v = new_value(b, kTags[value->tag]);
  if (v == NULL) {
    return no_memory(b->diag, b->golden);
  }
  switch (value->tag) {
    case ETR_GOLDEN_NONE:
      break;
    case ETR_GOLDEN_STRING:
      v->u.as_string.data = value->u.as_string.data;
      v->u.as_string.length = value->u.as_string.length;
      break;
    case ETR_GOLDEN_DOUBLE:
      v->u.as_double = value->u.as_double;
      break;
    case ETR_GOLDEN_INT:
    case ETR_GOLDEN_SCALAR_TYPE:
    case ETR_GOLDEN_MEMORY_FORMAT:
    case ETR_GOLDEN_LAYOUT:
      v->u.as_int = value->u.as_int;
      break;
    case ETR_GOLDEN_BOOL:
      v->u.as_bool = value->u.as_bool;
      break;
    case ETR_GOLDEN_BOOL_LIST:
      v->u.as_bool_list.items = value->u.as_bool_list.items;
      v->u.as_bool_list.length = value->u.as_bool_list.length;
      break;
    case ETR_GOLDEN_DOUBLE_LIST:
      v->u.as_double_list.items = value->u.as_double_list.items;
      v->u.as_double_list.length = value->u.as_double_list.length;
      break;
    case ETR_GOLDEN_INT_LIST:
      ETR_TRY(build_int_list(b, value->u.as_int_list.items,
                             value->u.as_int_list.length, v));
      break;
    case ETR_GOLDEN_TENSOR_LIST:
    case ETR_GOLDEN_OPTIONAL_TENSOR_LIST:
      ETR_TRY(build_tensor_list(b, value, v));
      break;
    case ETR_GOLDEN_OUT_TENSOR_LIST: {
      size_t length = value->u.as_out_list.length;
      etr_evalue_t **items = (etr_evalue_t **)etr_arena_calloc(
          b->arena, length ? length : 1, sizeof(*items), 16);
      if (items == NULL) {
        return no_memory(b->diag, b->golden);
      }
      for (size_t i = 0; i < length; ++i) {
        ETR_TRY(build_out(b, &value->u.as_out_list.items[i], &items[i]));
      }
      v->u.as_tensor_list.items = items;
      v->u.as_tensor_list.length = length;
      break;
    }
    default:
      return inconsistent(b->diag, b->golden, "argument with an unknown tag");
  }
  *out = v;
  return ETR_OK;
}

static size_t count_outs(const etr_golden_case_t *g, size_t *out_args,
                         size_t *list_index) {
  size_t outs = 0;
  *out_args = 0;
  *list_index = SIZE_MAX;
  for (size_t i = 0; i < g->num_args; ++i) {
    if (g->args[i].tag == ETR_GOLDEN_OUT_TENSOR) {
      ++outs;
      ++*out_args;
    } else if (g->args[i].tag == ETR_GOLDEN_OUT_TENSOR_LIST) {
      outs += g->args[i].u.as_out_list.length;
      ++*out_args;
      *list_index = i;
    }
  }
  return outs;
}

etr_error_t etr_golden_build_call(const etr_golden_case_t *golden,
                                  etr_arena_t *arena, etr_golden_call_t *call,
                                  etr_diag_t *diag) {
  memset(call, 0, sizeof(*call));
  size_t out_args = 0, list_index = 0;
  size_t num_outs = count_outs(golden, &out_args, &list_index);
  builder_t b = {golden, arena, diag, call, num_outs};
  call->num_args = golden->num_args + 1;
  call->args = (etr_evalue_t **)etr_arena_calloc(arena, call->num_args,
                                                 sizeof(*call->args), 16);
  call->outs = (etr_tensor_t **)etr_arena_calloc(
      arena, num_outs ? num_outs : 1, sizeof(*call->outs), 16);
  call->inputs = (etr_golden_input_buffer_t *)etr_arena_calloc(
      arena, MAX_INPUT_BUFFERS, sizeof(*call->inputs), 16);
  if (call->args == NULL || call->outs == NULL || call->inputs == NULL) {
    return no_memory(diag, golden);
  }
  etr_evalue_t *single_out = NULL;
  for (size_t i = 0; i < golden->num_args; ++i) {
    ETR_TRY(build_arg(&b, &golden->args[i], &call->args[i]));
    if (golden->args[i].tag == ETR_GOLDEN_OUT_TENSOR ||
        golden->args[i].tag == ETR_GOLDEN_OUT_TENSOR_LIST) {
      single_out = call->args[i];
    }
  }
  // The return slot, as exir's emitter lays it out: the out tensor itself
  // for one Tensor out, a fresh TensorList of the outs for a Tensor[] out
  // or several outs, and an Int placeholder for a prim op.
  if (out_args == 1 && list_index == SIZE_MAX) {
    call->ret = single_out;
  } else if (out_args == 0) {
    call->ret = new_value(&b, ETR_TAG_INT);
  } else {
    call->ret = new_value(&b, ETR_TAG_LIST_TENSOR);
    etr_evalue_t **items = (etr_evalue_t **)etr_arena_calloc(
        arena, num_outs ? num_outs : 1, sizeof(*items), 16);
    if (call->ret == NULL || items == NULL) {
      return no_memory(diag, golden);
    }
    size_t k = 0;
    for (size_t i = 0; i < golden->num_args; ++i) {
      if (golden->args[i].tag == ETR_GOLDEN_OUT_TENSOR) {
        items[k++] = call->args[i];
      } else if (golden->args[i].tag == ETR_GOLDEN_OUT_TENSOR_LIST) {
        for (size_t j = 0; j < call->args[i]->u.as_tensor_list.length; ++j) {
          items[k++] = call->args[i]->u.as_tensor_list.items[j];
        }
      }
    }
    call->ret->u.as_tensor_list.items = items;
    call->ret->u.as_tensor_list.length = k;
  }
  if (call->ret == NULL) {
    return no_memory(diag, golden);
  }
  call->args[golden->num_args] = call->ret;
  if (golden->expect == ETR_GOLDEN_EXPECT_VALUES) {
    size_t wanted = num_outs == 0 ? 1 : num_outs;
    if (golden->num_expected != wanted) {
      return inconsistent(diag, golden,
                          "expected outputs do not match the out slots");
    }
    for (size_t i = 0; i < golden->num_expected; ++i) {
      etr_golden_tag_t tag = golden->expected[i].tag;
      bool tensor = tag == ETR_GOLDEN_TENSOR;
      bool scalar = tag == ETR_GOLDEN_INT || tag == ETR_GOLDEN_DOUBLE ||
                    tag == ETR_GOLDEN_BOOL;
      if (num_outs > 0 ? !tensor : !scalar) {
        return inconsistent(diag, golden, "expected output of the wrong kind");
      }
    }
  }
  return ETR_OK;
}
