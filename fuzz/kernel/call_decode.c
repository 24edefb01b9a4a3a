// SPDX-License-Identifier: Apache-2.0
//
// Kernel-call decoder for kernel_diff (see call_decode.h).
#include "fuzz/kernel/call_decode.h"

#include <stdlib.h>
#include <string.h>

#include "core/scalar_type.h"
#include "core/tensor.h"

#define MAX_SIZE ((int64_t)1 << 16)
#define MAX_TENSOR_ELEMENTS ((int64_t)1 << 16)
#define MAX_TOTAL_ELEMENTS ((int64_t)1 << 18)
#define MAX_LIST 64
#define MAX_STRING 256
#define OUT_SPARE_ELEMENTS 64

enum {
  TAG_NONE = 0,
  TAG_TENSOR = 1,
  TAG_STRING = 2,
  TAG_DOUBLE = 3,
  TAG_INT = 4,
  TAG_BOOL = 5,
  TAG_BOOL_LIST = 6,
  TAG_DOUBLE_LIST = 7,
  TAG_INT_LIST = 8,
  TAG_TENSOR_LIST = 9,
  TAG_OPTIONAL_TENSOR_LIST = 11,
  TAG_SCALAR_TYPE = 12,
  TAG_MEMORY_FORMAT = 13,
  TAG_LAYOUT = 14,
  TAG_OUT_TENSOR = 32,
  TAG_OUT_TENSOR_LIST = 33,
};

typedef struct {
  const uint8_t *data;
  size_t size;
  size_t position;
  bool failed;
  int64_t total_elements;
  uint8_t poison;
  bool null_data;
  etr_fuzz_pool_t *pool;
} reader_t;

void *etr_fuzz_pool_alloc(etr_fuzz_pool_t *pool, size_t size) {
  if (pool->count == pool->capacity) {
    size_t capacity = pool->capacity ? pool->capacity * 2 : 64;
    void **items = (void **)realloc(pool->items, capacity * sizeof(void *));
    if (items == NULL) {
      return NULL;
    }
    pool->items = items;
    pool->capacity = capacity;
  }
  void *item = calloc(1, size > 0 ? size : 1);  // exact size: ASan's bounds
  if (item != NULL) {
    pool->items[pool->count++] = item;
  }
  return item;
}

void etr_fuzz_pool_free(etr_fuzz_pool_t *pool) {
  for (size_t i = 0; i < pool->count; ++i) {
    free(pool->items[i]);
  }
  free(pool->items);
  memset(pool, 0, sizeof(*pool));
}

static void *alloc(reader_t *r, size_t size) {
  if (r->failed) {
    return NULL;  // never allocate for a length that failed its cap
  }
  void *item = etr_fuzz_pool_alloc(r->pool, size);
  r->failed |= item == NULL;
  return item;
}

static const uint8_t *take(reader_t *r, size_t n) {
  if (r->failed || n > r->size - r->position) {
    r->failed = true;
    return NULL;
  }
  const uint8_t *p = r->data + r->position;
  r->position += n;
  return p;
}

static uint64_t read_le(reader_t *r, size_t n) {
  const uint8_t *p = take(r, n);
  uint64_t value = 0;
  for (size_t i = 0; p != NULL && i < n; ++i) {
    value |= (uint64_t)p[i] << (8 * i);
  }
  return value;
}

static uint8_t read_u8(reader_t *r) { return (uint8_t)read_le(r, 1); }
static uint32_t read_u32(reader_t *r) { return (uint32_t)read_le(r, 4); }
static int64_t read_i64(reader_t *r) { return (int64_t)read_le(r, 8); }

static double read_f64(reader_t *r) {
  uint64_t bits = read_le(r, 8);
  double value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

// Reads `dim` sizes (or strides, offsets) into [0, MAX_SIZE].
static void read_dims(reader_t *r, int32_t dim, int64_t *out) {
  for (int32_t i = 0; i < dim; ++i) {
    out[i] = read_i64(r);
    r->failed |= out[i] < 0 || out[i] > MAX_SIZE;
  }
}

static int64_t numel_of(reader_t *r, int32_t dim, const int64_t *sizes) {
  int64_t numel = 1;
  for (int32_t i = 0; i < dim && !r->failed; ++i) {
    numel *= sizes[i];  // each <= 2^16, and numel stays <= 2^16 below
    r->failed |= numel > MAX_TENSOR_ELEMENTS;
  }
  r->total_elements += numel;
  r->failed |= r->total_elements > MAX_TOTAL_ELEMENTS;
  return numel;
}

static bool read_header(reader_t *r, etr_scalar_type_t *dtype, int32_t *dim,
                        uint8_t *flags) {
  uint8_t type = read_u8(r);
  *dim = read_u8(r);
  *flags = read_u8(r);
  (void)read_u8(r);  // reserved
  r->failed |= !etr_scalar_type_is_valid(type) ||
               etr_scalar_type_size((etr_scalar_type_t)type) == 0 ||
               *dim > ETR_MAX_DIMS;
  *dtype = (etr_scalar_type_t)type;
  return !r->failed;
}

static etr_tensor_t *read_tensor(reader_t *r) {
  etr_scalar_type_t dtype;
  int32_t dim = 0;
  uint8_t flags = 0;
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  if (!read_header(r, &dtype, &dim, &flags)) {
    return NULL;
  }
  read_dims(r, dim, sizes);
  int64_t numel = numel_of(r, dim, sizes);
  bool strided = (flags & 1) != 0;
  int64_t offset = 0;
  int64_t span = numel;  // elements of storage
  if (strided) {
    read_dims(r, dim, strides);
    read_dims(r, 1, &offset);
    // read_dims flags a value outside [0, MAX_SIZE] but still stores it:
    // only in-range values may enter the (then overflow-free) arithmetic.
    if (!r->failed) {
      span = offset + 1;
      for (int32_t i = 0; i < dim; ++i) {
        span += (sizes[i] > 0 ? sizes[i] - 1 : 0) * strides[i];
      }
      span = numel == 0 ? offset : span;
      r->failed |= span > MAX_TOTAL_ELEMENTS;
    }
  }
  uint64_t value_bytes = (uint64_t)read_i64(r);
  if (r->failed) {
    return NULL;
  }
  size_t available = r->size - r->position;
  size_t used = value_bytes < available ? (size_t)value_bytes : available;
  const uint8_t *values = take(r, used);
  size_t element_size = etr_scalar_type_size(dtype);
  size_t storage = (size_t)span * element_size;
  etr_tensor_t *tensor = (etr_tensor_t *)alloc(r, sizeof(etr_tensor_t));
  uint8_t *base = r->null_data ? NULL : (uint8_t *)alloc(r, storage);
  if (r->failed ||
      etr_tensor_init(tensor, dtype, dim, sizes, NULL, (size_t)-1, NULL) !=
          ETR_OK) {
    r->failed = true;
    return NULL;
  }
  tensor->shape_dynamism = ETR_SHAPE_STATIC;
  size_t skip = (size_t)offset * element_size;
  tensor->data = base != NULL ? base + skip : NULL;
  tensor->capacity_bytes = storage - skip;
  if (strided) {
    // Dim order: dims by decreasing stride (ties keep their order).
    for (int32_t i = 0; i < dim; ++i) {
      tensor->strides[i] = strides[i];
      tensor->dim_order[i] = (uint8_t)i;
    }
    for (int32_t i = 1; i < dim; ++i) {
      for (int32_t j = i; j > 0 && strides[tensor->dim_order[j - 1]] <
                                       strides[tensor->dim_order[j]];
           --j) {
        uint8_t t = tensor->dim_order[j];
        tensor->dim_order[j] = tensor->dim_order[j - 1];
        tensor->dim_order[j - 1] = t;
      }
    }
  }
  if (base == NULL) {
    return tensor;
  }
  memset(base, r->poison, storage);
  int64_t index[ETR_MAX_DIMS] = {0};
  for (int64_t k = 0; k < numel; ++k) {
    uint8_t *dst = (uint8_t *)tensor->data +
                   (size_t)etr_tensor_offset(tensor, index) * element_size;
    size_t from = (size_t)k * element_size;
    for (size_t b = 0; b < element_size; ++b) {
      dst[b] = from + b < used ? values[from + b] : 0;
    }
    if (dtype == ETR_BOOL) {
      dst[0] &= 1;
    }
    etr_index_next(index, tensor->sizes, dim);
  }
  return tensor;
}

static etr_tensor_t *read_out_spec(reader_t *r) {
  etr_scalar_type_t dtype;
  int32_t dim = 0;
  uint8_t flags = 0;
  int64_t sizes[ETR_MAX_DIMS];
  uint8_t dim_order[ETR_MAX_DIMS];
  if (!read_header(r, &dtype, &dim, &flags)) {
    return NULL;
  }
  read_dims(r, dim, sizes);
  for (int32_t i = 0; i < dim; ++i) {
    dim_order[i] = (flags & 1) ? read_u8(r) : (uint8_t)i;
  }
  r->failed |= !etr_dim_order_is_valid(dim_order, dim);
  if (dim > 0 && !r->failed) {
    sizes[0] += 1;  // kernels must resize their outs, as in programs
  }
  int64_t numel = numel_of(r, dim, sizes);
  if (r->failed) {
    return NULL;
  }
  size_t bytes =
      (size_t)(numel + OUT_SPARE_ELEMENTS) * etr_scalar_type_size(dtype);
  etr_tensor_t *tensor = (etr_tensor_t *)alloc(r, sizeof(etr_tensor_t));
  uint8_t *data = r->null_data ? NULL : (uint8_t *)alloc(r, bytes);
  if (r->failed ||
      etr_tensor_init_with_dim_order(tensor, dtype, dim, sizes, dim_order,
                                     data, bytes, NULL) != ETR_OK) {
    r->failed = true;
    return NULL;
  }
  if (data != NULL) {
    memset(data, r->poison, bytes);
  }
  return tensor;
}

static etr_evalue_t *new_value(reader_t *r, etr_tag_t tag) {
  etr_evalue_t *value = (etr_evalue_t *)alloc(r, sizeof(etr_evalue_t));
  if (value != NULL) {
    value->tag = tag;
  }
  return value;
}

static etr_evalue_t *tensor_value(reader_t *r, etr_tensor_t *tensor) {
  etr_evalue_t *value = new_value(r, ETR_TAG_TENSOR);
  if (value != NULL) {
    value->u.as_tensor = tensor;
  }
  return value;
}

// A Tensor[] / Tensor?[] / out list of up to MAX_LIST items.
static etr_evalue_t *read_tensor_list(reader_t *r, uint8_t tag) {
  uint32_t length = read_u32(r);
  r->failed |= length > MAX_LIST;
  if (r->failed) {
    return NULL;
  }
  etr_evalue_t *value = new_value(r, tag == TAG_OPTIONAL_TENSOR_LIST
                                         ? ETR_TAG_LIST_OPTIONAL_TENSOR
                                         : ETR_TAG_LIST_TENSOR);
  etr_evalue_t **items =
      (etr_evalue_t **)alloc(r, (length + 1) * sizeof(etr_evalue_t *));
  for (uint32_t i = 0; i < length && !r->failed; ++i) {
    if (tag == TAG_OPTIONAL_TENSOR_LIST && (read_u8(r) & 1) == 0) {
      items[i] = NULL;
      continue;
    }
    etr_tensor_t *tensor =
        tag == TAG_OUT_TENSOR_LIST ? read_out_spec(r) : read_tensor(r);
    items[i] = tensor != NULL ? tensor_value(r, tensor) : NULL;
    r->failed |= items[i] == NULL;
  }
  if (r->failed) {
    return NULL;
  }
  value->u.as_tensor_list.items = items;
  value->u.as_tensor_list.length = length;
  return value;
}

static etr_evalue_t *read_value(reader_t *r, bool *is_out) {
  uint8_t tag = read_u8(r);
  *is_out = tag == TAG_OUT_TENSOR || tag == TAG_OUT_TENSOR_LIST;
  if (r->failed) {
    return NULL;
  }
  switch (tag) {
    case TAG_NONE:
      return new_value(r, ETR_TAG_NONE);
    case TAG_TENSOR:
    case TAG_OUT_TENSOR: {
      etr_tensor_t *tensor =
          tag == TAG_TENSOR ? read_tensor(r) : read_out_spec(r);
      return tensor != NULL ? tensor_value(r, tensor) : NULL;
    }
    case TAG_STRING: {
      uint32_t length = read_u32(r);
      r->failed |= length > MAX_STRING;
      const uint8_t *bytes = take(r, length);
      char *copy = (char *)alloc(r, (size_t)length + 1);
      etr_evalue_t *value = new_value(r, ETR_TAG_STRING);
      if (r->failed) {
        return NULL;
      }
      memcpy(copy, bytes, length);
      value->u.as_string.data = copy;
      value->u.as_string.length = strlen(copy);
      return value;
    }
    case TAG_DOUBLE: {
      etr_evalue_t *value = new_value(r, ETR_TAG_DOUBLE);
      double number = read_f64(r);
      if (value != NULL) {
        value->u.as_double = number;
      }
      return value;
    }
    case TAG_INT:
    case TAG_SCALAR_TYPE:
    case TAG_MEMORY_FORMAT:
    case TAG_LAYOUT: {
      etr_evalue_t *value = new_value(r, ETR_TAG_INT);
      int64_t number = read_i64(r);
      if (value != NULL) {
        value->u.as_int = number;
      }
      return value;
    }
    case TAG_BOOL: {
      etr_evalue_t *value = new_value(r, ETR_TAG_BOOL);
      bool flag = (read_u8(r) & 1) != 0;
      if (value != NULL) {
        value->u.as_bool = flag;
      }
      return value;
    }
    case TAG_BOOL_LIST:
    case TAG_DOUBLE_LIST:
    case TAG_INT_LIST: {
      uint32_t length = read_u32(r);
      r->failed |= length > MAX_LIST;
      if (r->failed) {
        return NULL;
      }
      if (tag == TAG_BOOL_LIST) {
        etr_evalue_t *value = new_value(r, ETR_TAG_LIST_BOOL);
        bool *items = (bool *)alloc(r, length * sizeof(bool));
        for (uint32_t i = 0; i < length && !r->failed; ++i) {
          items[i] = (read_u8(r) & 1) != 0;
        }
        if (r->failed) {
          return NULL;
        }
        value->u.as_bool_list.items = items;
        value->u.as_bool_list.length = length;
        return value;
      }
      if (tag == TAG_DOUBLE_LIST) {
        etr_evalue_t *value = new_value(r, ETR_TAG_LIST_DOUBLE);
        double *items = (double *)alloc(r, length * sizeof(double));
        for (uint32_t i = 0; i < length && !r->failed; ++i) {
          items[i] = read_f64(r);
        }
        if (r->failed) {
          return NULL;
        }
        value->u.as_double_list.items = items;
        value->u.as_double_list.length = length;
        return value;
      }
      etr_evalue_t *value = new_value(r, ETR_TAG_LIST_INT);
      etr_evalue_t **items =
          (etr_evalue_t **)alloc(r, length * sizeof(etr_evalue_t *));
      int64_t *unboxed = (int64_t *)alloc(r, length * sizeof(int64_t));
      for (uint32_t i = 0; i < length && !r->failed; ++i) {
        items[i] = new_value(r, ETR_TAG_INT);
        int64_t number = read_i64(r);
        if (items[i] != NULL) {
          items[i]->u.as_int = number;
        }
      }
      if (r->failed) {
        return NULL;
      }
      value->u.as_int_list.items = items;
      value->u.as_int_list.unboxed = unboxed;
      value->u.as_int_list.length = length;
      return value;
    }
    case TAG_TENSOR_LIST:
    case TAG_OPTIONAL_TENSOR_LIST:
    case TAG_OUT_TENSOR_LIST:
      return read_tensor_list(r, tag);
    default:
      r->failed = true;
      return NULL;
  }
}

bool etr_fuzz_decode_call(const uint8_t *data, size_t size, uint8_t poison,
                          bool null_data, etr_fuzz_pool_t *pool,
                          etr_fuzz_call_t *call) {
  memset(call, 0, sizeof(*call));
  reader_t r = {data, size, 0, false, 0, poison, null_data, pool};
  uint8_t name_length = read_u8(&r);
  r.failed |= name_length > ETR_FUZZ_MAX_NAME;
  const uint8_t *name = take(&r, name_length);
  uint8_t count = read_u8(&r);
  r.failed |= count > ETR_FUZZ_MAX_ARGS;
  if (r.failed) {
    return false;
  }
  memcpy(call->op, name, name_length);
  call->op[name_length] = '\0';
  size_t outs = 0;
  size_t single_out = 0;
  bool out_list = false;
  for (uint8_t i = 0; i < count && !r.failed; ++i) {
    call->args[i] = read_value(&r, &call->is_out[i]);
    r.failed |= call->args[i] == NULL;
    if (!r.failed && call->is_out[i]) {
      bool is_list = call->args[i]->tag == ETR_TAG_LIST_TENSOR;
      out_list |= is_list;
      outs += is_list ? call->args[i]->u.as_tensor_list.length : 1;
      single_out = i;
    }
  }
  if (r.failed) {
    return false;
  }
  // The return slot (ExecuTorch's emitter convention).
  etr_evalue_t *slot;
  if (outs == 1 && !out_list) {
    slot = call->args[single_out];
  } else if (outs == 0) {
    slot = new_value(&r, ETR_TAG_INT);
  } else {
    slot = new_value(&r, ETR_TAG_LIST_TENSOR);
    etr_evalue_t **items =
        (etr_evalue_t **)alloc(&r, (outs + 1) * sizeof(etr_evalue_t *));
    size_t n = 0;
    for (uint8_t i = 0; i < count && !r.failed; ++i) {
      if (!call->is_out[i]) {
        continue;
      }
      if (call->args[i]->tag == ETR_TAG_TENSOR) {
        items[n++] = call->args[i];
      } else {
        for (size_t j = 0; j < call->args[i]->u.as_tensor_list.length; ++j) {
          items[n++] = call->args[i]->u.as_tensor_list.items[j];
        }
      }
    }
    if (!r.failed) {
      slot->u.as_tensor_list.items = items;
      slot->u.as_tensor_list.length = n;
    }
  }
  if (r.failed) {
    return false;
  }
  call->args[count] = slot;
  call->num_args = (size_t)count + 1;
  return true;
}
