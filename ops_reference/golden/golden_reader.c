// SPDX-License-Identifier: Apache-2.0
//
// Golden-file reader (see golden_reader.h). Every read goes through a
// cursor that knows where the current case ends, so no field can reach
// past its case or the file; every count is checked against the bytes that
// remain before anything is allocated for it.
#include "ops_reference/golden/golden_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const uint8_t kMagic[8] = {'E', 'T', 'R', 'G', 'O', 'L', 'D', '\0'};

typedef struct cursor {
  const uint8_t *data;
  size_t position;
  size_t limit;     // end of the current case (or of the file)
  uint32_t case_index;  // for messages; UINT32_MAX in the header
  etr_diag_t *diag;
} cursor_t;

#define MALFORMED(c, ...)                                                  \
  malformed((c), __FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 4, 5))) static etr_error_t malformed(
    const cursor_t *c, const char *file, int line, const char *format, ...) {
  char what[256];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof(what), format, args);
  va_end(args);
  if (c->case_index == UINT32_MAX) {
    return etr_diag_set(c->diag, ETR_ERR_INVALID_PROGRAM, file, line,
                        "golden file header, byte %zu: %s", c->position,
                        what);
  }
  return etr_diag_set(c->diag, ETR_ERR_INVALID_PROGRAM, file, line,
                      "golden case %u, byte %zu: %s", (unsigned)c->case_index,
                      c->position, what);
}

static size_t remaining(const cursor_t *c) { return c->limit - c->position; }

static etr_error_t take(cursor_t *c, size_t n, const uint8_t **out) {
  if (n > remaining(c)) {
    return MALFORMED(c, "need %zu bytes, %zu remain", n, remaining(c));
  }
  *out = c->data + c->position;
  c->position += n;
  return ETR_OK;
}

static etr_error_t read_u8(cursor_t *c, uint8_t *out) {
  const uint8_t *p = NULL;
  ETR_TRY(take(c, 1, &p));
  *out = p[0];
  return ETR_OK;
}

static etr_error_t read_u32(cursor_t *c, uint32_t *out) {
  const uint8_t *p = NULL;
  ETR_TRY(take(c, 4, &p));
  *out = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
  return ETR_OK;
}

static etr_error_t read_u64(cursor_t *c, uint64_t *out) {
  const uint8_t *p = NULL;
  ETR_TRY(take(c, 8, &p));
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) {
    value = value << 8 | p[i];
  }
  *out = value;
  return ETR_OK;
}

static etr_error_t read_i64(cursor_t *c, int64_t *out) {
  uint64_t bits = 0;
  ETR_TRY(read_u64(c, &bits));
  memcpy(out, &bits, sizeof(*out));
  return ETR_OK;
}

static etr_error_t read_f64(cursor_t *c, double *out) {
  uint64_t bits = 0;
  ETR_TRY(read_u64(c, &bits));
  memcpy(out, &bits, sizeof(*out));
  return ETR_OK;
}

static void *arena_array(etr_arena_t *arena, size_t count, size_t size) {
  // At least one byte so an empty list still gets a distinct pointer.
  return etr_arena_calloc(arena, count == 0 ? 1 : count, size, 16);
}

static etr_error_t out_of_memory(const cursor_t *c) {
  return etr_diag_set(c->diag, ETR_ERR_MEMORY_ALLOCATION_FAILED, __FILE__,
                      __LINE__, "golden case %u: reader arena exhausted",
                      (unsigned)c->case_index);
}

static etr_error_t read_string(cursor_t *c, etr_arena_t *arena,
                               etr_golden_string_t *out) {
  uint32_t length = 0;
  ETR_TRY(read_u32(c, &length));
  const uint8_t *bytes = NULL;
  ETR_TRY(take(c, length, &bytes));
  if (memchr(bytes, '\0', length) != NULL) {
    return MALFORMED(c, "string holds a NUL byte");
  }
  char *copy = (char *)etr_arena_alloc(arena, (size_t)length + 1, 1);
  if (copy == NULL) {
    return out_of_memory(c);
  }
  memcpy(copy, bytes, length);
  copy[length] = '\0';
  out->data = copy;
  out->length = length;
  return ETR_OK;
}

// The element count `count` of a list whose items take at least
// `min_item_bytes` each must fit in what remains of the case.
static etr_error_t read_count(cursor_t *c, size_t min_item_bytes,
                              size_t *out) {
  uint32_t count = 0;
  ETR_TRY(read_u32(c, &count));
  if (min_item_bytes > 0 && count > remaining(c) / min_item_bytes) {
    return MALFORMED(c, "count %u does not fit in the %zu bytes left",
                     (unsigned)count, remaining(c));
  }
  *out = count;
  return ETR_OK;
}

static etr_error_t read_dtype(cursor_t *c, etr_scalar_type_t *out) {
  uint8_t code = 0;
  ETR_TRY(read_u8(c, &code));
  if (!etr_scalar_type_is_valid(code) ||
      etr_scalar_type_size((etr_scalar_type_t)code) == 0) {
    return MALFORMED(c, "invalid scalar type %u", (unsigned)code);
  }
  *out = (etr_scalar_type_t)code;
  return ETR_OK;
}

static etr_error_t read_sizes(cursor_t *c, int32_t dim, int64_t *sizes,
                              int64_t *numel_out) {
  int64_t numel = 1;
  for (int32_t i = 0; i < dim; ++i) {
    ETR_TRY(read_i64(c, &sizes[i]));
    if (sizes[i] < 0 || sizes[i] > ETR_GOLDEN_MAX_ELEMENTS) {
      return MALFORMED(c, "size %lld at dim %d is out of range",
                       (long long)sizes[i], (int)i);
    }
    numel *= sizes[i];  // each factor <= 2^24 and the product is capped
    if (numel > ETR_GOLDEN_MAX_ELEMENTS) {
      return MALFORMED(c, "tensor has more than %lld elements",
                       (long long)ETR_GOLDEN_MAX_ELEMENTS);
    }
  }
  *numel_out = numel;
  return ETR_OK;
}

static etr_error_t read_tensor(cursor_t *c, etr_arena_t *arena,
                               etr_golden_tensor_t **out) {
  etr_golden_tensor_t *t =
      (etr_golden_tensor_t *)arena_array(arena, 1, sizeof(*t));
  if (t == NULL) {
    return out_of_memory(c);
  }
  uint8_t dim = 0, flags = 0, reserved = 0;
  ETR_TRY(read_dtype(c, &t->dtype));
  ETR_TRY(read_u8(c, &dim));
  ETR_TRY(read_u8(c, &flags));
  ETR_TRY(read_u8(c, &reserved));
  if (dim > ETR_MAX_DIMS) {
    return MALFORMED(c, "tensor rank %u exceeds %d", (unsigned)dim,
                     ETR_MAX_DIMS);
  }
  if ((flags & ~1u) != 0 || reserved != 0) {
    return MALFORMED(c, "unknown tensor flags 0x%x", (unsigned)flags);
  }
  t->dim = dim;
  ETR_TRY(read_sizes(c, t->dim, t->sizes, &t->numel));
  t->strided = (flags & 1u) != 0;
  t->storage_elements = t->numel;
  if (t->strided) {
    // The view spans offset + sum((size - 1) * stride) + 1 elements; each
    // term is bounded before it is added, so nothing overflows.
    int64_t reach = 0;
    for (int32_t i = 0; i < t->dim; ++i) {
      ETR_TRY(read_i64(c, &t->strides[i]));
      if (t->strides[i] < 0 || t->strides[i] > ETR_GOLDEN_MAX_ELEMENTS) {
        return MALFORMED(c, "stride %lld at dim %d is out of range",
                         (long long)t->strides[i], (int)i);
      }
      if (t->sizes[i] > 0) {
        reach += (t->sizes[i] - 1) * t->strides[i];  // < 2^48
        if (reach > ETR_GOLDEN_MAX_ELEMENTS) {
          return MALFORMED(c, "strided view spans more than %lld elements",
                           (long long)ETR_GOLDEN_MAX_ELEMENTS);
        }
      }
    }
    ETR_TRY(read_i64(c, &t->storage_offset));
    if (t->storage_offset < 0 ||
        t->storage_offset > ETR_GOLDEN_MAX_ELEMENTS - reach) {
      return MALFORMED(c, "storage offset %lld is out of range",
                       (long long)t->storage_offset);
    }
    t->storage_elements = t->numel == 0 ? 0 : t->storage_offset + reach + 1;
  }
  uint64_t value_bytes = 0;
  ETR_TRY(read_u64(c, &value_bytes));
  uint64_t expected = (uint64_t)t->numel * etr_scalar_type_size(t->dtype);
  if (value_bytes != expected) {
    return MALFORMED(c, "tensor holds %llu value bytes, its shape needs %llu",
                     (unsigned long long)value_bytes,
                     (unsigned long long)expected);
  }
  ETR_TRY(take(c, (size_t)value_bytes, &t->values));
  t->value_bytes = (size_t)value_bytes;
  *out = t;
  return ETR_OK;
}

static etr_error_t read_out_spec(cursor_t *c, etr_golden_out_spec_t *spec) {
  uint8_t dim = 0, flags = 0, reserved = 0;
  int64_t numel = 0;
  ETR_TRY(read_dtype(c, &spec->dtype));
  ETR_TRY(read_u8(c, &dim));
  ETR_TRY(read_u8(c, &flags));
  ETR_TRY(read_u8(c, &reserved));
  if (dim > ETR_MAX_DIMS) {
    return MALFORMED(c, "out tensor rank %u exceeds %d", (unsigned)dim,
                     ETR_MAX_DIMS);
  }
  if ((flags & ~1u) != 0 || reserved != 0) {
    return MALFORMED(c, "unknown out tensor flags 0x%x", (unsigned)flags);
  }
  spec->dim = dim;
  ETR_TRY(read_sizes(c, spec->dim, spec->sizes, &numel));
  spec->has_dim_order = (flags & 1u) != 0;
  if (spec->has_dim_order) {
    const uint8_t *order = NULL;
    ETR_TRY(take(c, dim, &order));
    memcpy(spec->dim_order, order, dim);
    if (!etr_dim_order_is_valid(spec->dim_order, spec->dim)) {
      return MALFORMED(c, "out tensor dim order is not a permutation");
    }
  }
  return ETR_OK;
}

static etr_error_t read_value(cursor_t *c, etr_arena_t *arena,
                              etr_golden_value_t *value) {
  uint8_t tag = 0;
  ETR_TRY(read_u8(c, &tag));
  memset(value, 0, sizeof(*value));
  value->tag = (etr_golden_tag_t)tag;
  size_t n = 0;
  switch (tag) {
    case ETR_GOLDEN_NONE:
      return ETR_OK;
    case ETR_GOLDEN_TENSOR:
      return read_tensor(c, arena, &value->u.as_tensor);
    case ETR_GOLDEN_STRING:
      return read_string(c, arena, &value->u.as_string);
    case ETR_GOLDEN_DOUBLE:
      return read_f64(c, &value->u.as_double);
    case ETR_GOLDEN_INT:
    case ETR_GOLDEN_SCALAR_TYPE:
    case ETR_GOLDEN_MEMORY_FORMAT:
    case ETR_GOLDEN_LAYOUT:
      return read_i64(c, &value->u.as_int);
    case ETR_GOLDEN_BOOL: {
      uint8_t b = 0;
      ETR_TRY(read_u8(c, &b));
      if (b > 1) {
        return MALFORMED(c, "bool value %u", (unsigned)b);
      }
      value->u.as_bool = b != 0;
      return ETR_OK;
    }
    case ETR_GOLDEN_BOOL_LIST: {
      ETR_TRY(read_count(c, 1, &n));
      bool *items = (bool *)arena_array(arena, n, sizeof(bool));
      if (items == NULL) {
        return out_of_memory(c);
      }
      for (size_t i = 0; i < n; ++i) {
        uint8_t b = 0;
        ETR_TRY(read_u8(c, &b));
        if (b > 1) {
          return MALFORMED(c, "bool list item %zu is %u", i, (unsigned)b);
        }
        items[i] = b != 0;
      }
      value->u.as_bool_list.length = n;
      value->u.as_bool_list.items = items;
      return ETR_OK;
    }
    case ETR_GOLDEN_DOUBLE_LIST: {
      ETR_TRY(read_count(c, 8, &n));
      double *items = (double *)arena_array(arena, n, sizeof(double));
      if (items == NULL) {
        return out_of_memory(c);
      }
      for (size_t i = 0; i < n; ++i) {
        ETR_TRY(read_f64(c, &items[i]));
      }
      value->u.as_double_list.length = n;
      value->u.as_double_list.items = items;
      return ETR_OK;
    }
    case ETR_GOLDEN_INT_LIST: {
      ETR_TRY(read_count(c, 8, &n));
      int64_t *items = (int64_t *)arena_array(arena, n, sizeof(int64_t));
      if (items == NULL) {
        return out_of_memory(c);
      }
      for (size_t i = 0; i < n; ++i) {
        ETR_TRY(read_i64(c, &items[i]));
      }
      value->u.as_int_list.length = n;
      value->u.as_int_list.items = items;
      return ETR_OK;
    }
    case ETR_GOLDEN_TENSOR_LIST:
    case ETR_GOLDEN_OPTIONAL_TENSOR_LIST: {
      bool optional = tag == ETR_GOLDEN_OPTIONAL_TENSOR_LIST;
      // A tensor takes at least 12 bytes (header and value length); an
      // optional item at least 1 (its presence byte).
      ETR_TRY(read_count(c, optional ? 1 : 12, &n));
      etr_golden_tensor_t **items = (etr_golden_tensor_t **)arena_array(
          arena, n, sizeof(etr_golden_tensor_t *));
      if (items == NULL) {
        return out_of_memory(c);
      }
      for (size_t i = 0; i < n; ++i) {
        uint8_t present = 1;
        if (optional) {
          ETR_TRY(read_u8(c, &present));
          if (present > 1) {
            return MALFORMED(c, "optional tensor marker %u", (unsigned)present);
          }
        }
        if (present) {
          ETR_TRY(read_tensor(c, arena, &items[i]));
        }
      }
      value->u.as_tensor_list.length = n;
      value->u.as_tensor_list.items = items;
      return ETR_OK;
    }
    case ETR_GOLDEN_OUT_TENSOR: {
      etr_golden_out_spec_t *spec = (etr_golden_out_spec_t *)arena_array(
          arena, 1, sizeof(etr_golden_out_spec_t));
      if (spec == NULL) {
        return out_of_memory(c);
      }
      value->u.as_out = spec;
      return read_out_spec(c, spec);
    }
    case ETR_GOLDEN_OUT_TENSOR_LIST: {
      ETR_TRY(read_count(c, 4, &n));
      etr_golden_out_spec_t *items = (etr_golden_out_spec_t *)arena_array(
          arena, n, sizeof(etr_golden_out_spec_t));
      if (items == NULL) {
        return out_of_memory(c);
      }
      for (size_t i = 0; i < n; ++i) {
        ETR_TRY(read_out_spec(c, &items[i]));
      }
      value->u.as_out_list.length = n;
      value->u.as_out_list.items = items;
      return ETR_OK;
    }
    default:
      return MALFORMED(c, "unknown value tag %u", (unsigned)tag);
  }
}

static etr_error_t read_values(cursor_t *c, etr_arena_t *arena,
                               size_t *count_out,
                               etr_golden_value_t **values_out) {
  size_t count = 0;
  ETR_TRY(read_count(c, 1, &count));  // every value has its tag byte
  etr_golden_value_t *values = (etr_golden_value_t *)arena_array(
      arena, count, sizeof(etr_golden_value_t));
  if (values == NULL) {
    return out_of_memory(c);
  }
  for (size_t i = 0; i < count; ++i) {
    ETR_TRY(read_value(c, arena, &values[i]));
  }
  *count_out = count;
  *values_out = values;
  return ETR_OK;
}

etr_error_t etr_golden_open(etr_golden_file_t *file, const uint8_t *data,
                            size_t size, etr_arena_t *arena,
                            etr_diag_t *diag) {
  memset(file, 0, sizeof(*file));
  cursor_t c = {data, 0, size, UINT32_MAX, diag};
  const uint8_t *magic = NULL;
  ETR_TRY(take(&c, sizeof(kMagic), &magic));
  if (memcmp(magic, kMagic, sizeof(kMagic)) != 0) {
    c.position = 0;
    return MALFORMED(&c, "not a golden file (bad magic)");
  }
  uint32_t flags = 0;
  ETR_TRY(read_u32(&c, &file->version));
  ETR_TRY(read_u32(&c, &flags));
  if (file->version != ETR_GOLDEN_VERSION) {
    return MALFORMED(&c, "version %u, this reader knows %u",
                     (unsigned)file->version, (unsigned)ETR_GOLDEN_VERSION);
  }
  if (flags != 0) {
    return MALFORMED(&c, "unknown file flags 0x%x", (unsigned)flags);
  }
  ETR_TRY(read_string(&c, arena, &file->generator));
  ETR_TRY(read_string(&c, arena, &file->provenance));
  ETR_TRY(read_string(&c, arena, &file->kernel));
  ETR_TRY(read_string(&c, arena, &file->schema));
  ETR_TRY(read_u32(&c, &file->case_count));
  file->data = data;
  file->size = size;
  file->position = c.position;
  return ETR_OK;
}

etr_error_t etr_golden_next_case(etr_golden_file_t *file, etr_arena_t *arena,
                                 etr_golden_case_t *out, etr_diag_t *diag) {
  memset(out, 0, sizeof(*out));
  cursor_t c = {file->data, file->position, file->size, file->cases_read,
                diag};
  if (file->cases_read >= file->case_count) {
    if (c.position != file->size) {
      return MALFORMED(&c, "%zu bytes after the last case", remaining(&c));
    }
    return ETR_ERR_NOT_FOUND;
  }
  uint32_t case_bytes = 0;
  ETR_TRY(read_u32(&c, &case_bytes));
  if (case_bytes > remaining(&c)) {
    return MALFORMED(&c, "case claims %u bytes, %zu remain",
                     (unsigned)case_bytes, remaining(&c));
  }
  c.limit = c.position + case_bytes;
  uint8_t expect = 0, tolerance = 0, source_kind = 0;
  ETR_TRY(read_u8(&c, &expect));
  ETR_TRY(read_u8(&c, &tolerance));
  ETR_TRY(read_u8(&c, &source_kind));
  ETR_TRY(read_u8(&c, &out->dtype));
  ETR_TRY(read_u32(&c, &out->sample_index));
  ETR_TRY(read_u32(&c, &out->flags));
  if (expect > ETR_GOLDEN_EXPECT_ERROR) {
    return MALFORMED(&c, "unknown expectation %u", (unsigned)expect);
  }
  if (tolerance >= ETR_GOLDEN_NUM_TOLERANCE_CLASSES) {
    return MALFORMED(&c, "unknown tolerance class %u", (unsigned)tolerance);
  }
  if (source_kind >= ETR_GOLDEN_NUM_SOURCES) {
    return MALFORMED(&c, "unknown source kind %u", (unsigned)source_kind);
  }
  if ((out->flags & ~ETR_GOLDEN_KNOWN_FLAGS) != 0) {
    return MALFORMED(&c, "unknown case flags 0x%x", (unsigned)out->flags);
  }
  out->index = file->cases_read;
  out->expect = (etr_golden_expect_t)expect;
  out->tolerance = (etr_golden_tolerance_class_t)tolerance;
  out->source_kind = (etr_golden_source_t)source_kind;
  ETR_TRY(read_string(&c, arena, &out->source));
  ETR_TRY(read_string(&c, arena, &out->note));
  ETR_TRY(read_values(&c, arena, &out->num_args, &out->args));
  ETR_TRY(read_values(&c, arena, &out->num_expected, &out->expected));
  if (c.position != c.limit) {
    return MALFORMED(&c, "%zu unread bytes at the end of the case",
                     remaining(&c));
  }
  file->position = c.position;
  ++file->cases_read;
  return ETR_OK;
}

const char *etr_golden_tolerance_name(etr_golden_tolerance_class_t tolerance) {
  static const char *const kNames[ETR_GOLDEN_NUM_TOLERANCE_CLASSES] = {
      "exact",         "default",    "transcendental", "accumulation",
      "low_precision", "shape_only", "permutation"};
  return (unsigned)tolerance < ETR_GOLDEN_NUM_TOLERANCE_CLASSES
             ? kNames[tolerance]
             : "unknown";
}

const char *etr_golden_source_name(etr_golden_source_t source) {
  static const char *const kNames[ETR_GOLDEN_NUM_SOURCES] = {
      "sample", "reference", "error", "boundary",
      "layout", "backward",  "derived"};
  return (unsigned)source < ETR_GOLDEN_NUM_SOURCES ? kNames[source]
                                                   : "unknown";
}

const char *etr_golden_tag_name(etr_golden_tag_t tag) {
  switch (tag) {
    case ETR_GOLDEN_NONE: return "None";
    case ETR_GOLDEN_TENSOR: return "Tensor";
    case ETR_GOLDEN_STRING: return "String";
    case ETR_GOLDEN_DOUBLE: return "Double";
    case ETR_GOLDEN_INT: return "Int";
    case ETR_GOLDEN_BOOL: return "Bool";
    case ETR_GOLDEN_BOOL_LIST: return "BoolList";
    case ETR_GOLDEN_DOUBLE_LIST: return "DoubleList";
    case ETR_GOLDEN_INT_LIST: return "IntList";
    case ETR_GOLDEN_TENSOR_LIST: return "TensorList";
    case ETR_GOLDEN_OPTIONAL_TENSOR_LIST: return "OptionalTensorList";
    case ETR_GOLDEN_SCALAR_TYPE: return "ScalarType";
    case ETR_GOLDEN_MEMORY_FORMAT: return "MemoryFormat";
    case ETR_GOLDEN_LAYOUT: return "Layout";
    case ETR_GOLDEN_OUT_TENSOR: return "OutTensor";
    case ETR_GOLDEN_OUT_TENSOR_LIST: return "OutTensorList";
  }
  return "Unknown";
}
