// SPDX-License-Identifier: Apache-2.0
//
// The FlatBuffers builder (see flatbuffer_builder.h). The buffer grows at
// its front: data always occupies the last `size` bytes of the allocation,
// so a reference (distance from the end) never changes when it grows.
#include "prof/flatbuffer_builder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// FlatBuffers offsets are 32-bit and signed in places (soffset_t).
#define MAX_BUFFER_SIZE ((size_t)0x7fffffff)

static void fail(etr_fbb_t *fbb, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void fail(etr_fbb_t *fbb, const char *format, ...) {
  if (fbb->failed) {
    return;  // keep the first reason
  }
  fbb->failed = true;
  va_list args;
  va_start(args, format);
  vsnprintf(fbb->failure, sizeof(fbb->failure), format, args);
  va_end(args);
}

void etr_fbb_init(etr_fbb_t *fbb, size_t initial_capacity) {
  memset(fbb, 0, sizeof(*fbb));
  fbb->max_align = 1;
  fbb->capacity = initial_capacity != 0 ? initial_capacity : 4096;
  fbb->buffer = (uint8_t *)malloc(fbb->capacity);
  if (fbb->buffer == NULL) {
    fbb->capacity = 0;
    fail(fbb, "out of memory (%zu bytes)", initial_capacity);
  }
}

void etr_fbb_release(etr_fbb_t *fbb) {
  free(fbb->buffer);
  memset(fbb, 0, sizeof(*fbb));
}

// Makes room for `extra` more bytes at the front.
static bool reserve(etr_fbb_t *fbb, size_t extra) {
  if (fbb->failed) {
    return false;
  }
  if (extra > MAX_BUFFER_SIZE - fbb->size) {
    fail(fbb, "buffer would exceed the 2 GiB FlatBuffers limit");
    return false;
  }
  if (fbb->capacity - fbb->size >= extra) {
    return true;
  }
  size_t wanted = fbb->size + extra;
  size_t capacity = fbb->capacity != 0 ? fbb->capacity : 4096;
  while (capacity < wanted) {
    capacity = capacity > MAX_BUFFER_SIZE / 2 ? MAX_BUFFER_SIZE + 1
                                              : capacity * 2;
  }
  uint8_t *grown = (uint8_t *)malloc(capacity);
  if (grown == NULL) {
    fail(fbb, "out of memory (%zu bytes)", capacity);
    return false;
  }
  if (fbb->size != 0) {
    memcpy(grown + capacity - fbb->size,
           fbb->buffer + fbb->capacity - fbb->size, fbb->size);
  }
  free(fbb->buffer);
  fbb->buffer = grown;
  fbb->capacity = capacity;
  return true;
}

// Address of the byte `distance` bytes before the end (the object whose
// reference is `distance` starts there).
static uint8_t *at(etr_fbb_t *fbb, size_t distance) {
  return fbb->buffer + fbb->capacity - distance;
}

static void push_bytes(etr_fbb_t *fbb, const void *bytes, size_t count) {
  if (!reserve(fbb, count)) {
    return;
  }
  fbb->size += count;
  memcpy(at(fbb, fbb->size), bytes, count);
}

static void push_zeros(etr_fbb_t *fbb, size_t count) {
  if (!reserve(fbb, count)) {
    return;
  }
  fbb->size += count;
  memset(at(fbb, fbb->size), 0, count);
}

// Little-endian store of the low `width` bytes of `bits`.
static void push_le(etr_fbb_t *fbb, uint64_t bits, size_t width) {
  uint8_t bytes[8];
  for (size_t i = 0; i < width; ++i) {
    bytes[i] = (uint8_t)(bits >> (8 * i));
  }
  push_bytes(fbb, bytes, width);
}

// Pads so that after `additional` more bytes the size is a multiple of
// `alignment` (a power of two), and remembers the largest alignment.
static void prepare(etr_fbb_t *fbb, size_t alignment, size_t additional) {
  if (alignment > fbb->max_align) {
    fbb->max_align = alignment;
  }
  size_t padding = (size_t)(0 - (fbb->size + additional)) & (alignment - 1);
  push_zeros(fbb, padding);
}

// The uoffset to store for `ref` at the next 4 aligned bytes.
static uint32_t refer_to(etr_fbb_t *fbb, etr_fbb_ref_t ref) {
  prepare(fbb, 4, 0);
  if (ref == 0 || ref > fbb->size) {
    fail(fbb, "reference %u does not point to a finished object", ref);
    return 0;
  }
  return (uint32_t)(fbb->size - ref + 4);
}

etr_fbb_ref_t etr_fbb_create_string(etr_fbb_t *fbb, const char *chars,
                                    size_t length) {
  if (fbb->in_table) {
    fail(fbb, "string created inside a table");
  }
  if (length > MAX_BUFFER_SIZE) {
    fail(fbb, "string of %zu bytes", length);
  }
  if (fbb->failed) {
    return 0;
  }
  prepare(fbb, 4, length + 1);
  push_zeros(fbb, 1);
  push_bytes(fbb, chars, length);
  push_le(fbb, length, 4);
  return fbb->failed ? 0 : (etr_fbb_ref_t)fbb->size;
}

etr_fbb_ref_t etr_fbb_create_scalar_vector(etr_fbb_t *fbb,
                                           const void *elements, size_t count,
                                           size_t element_size) {
  if (fbb->in_table) {
    fail(fbb, "vector created inside a table");
  }
  if (element_size != 1 && element_size != 2 && element_size != 4 &&
      element_size != 8) {
    fail(fbb, "vector element size %zu", element_size);
  }
  if (count > MAX_BUFFER_SIZE / 8) {
    fail(fbb, "vector of %zu elements", count);
  }
  if (fbb->failed) {
    return 0;
  }
  size_t bytes = count * element_size;
  prepare(fbb, 4, bytes);
  prepare(fbb, element_size, bytes);
  const uint8_t *source = (const uint8_t *)elements;
  for (size_t i = count; i-- > 0;) {
    uint64_t bits = 0;
    switch (element_size) {
      case 1:
        bits = source[i];
        break;
      case 2: {
        uint16_t value;
        memcpy(&value, source + 2 * i, 2);
        bits = value;
        break;
      }
      case 4: {
        uint32_t value;
        memcpy(&value, source + 4 * i, 4);
        bits = value;
        break;
      }
      default:
        memcpy(&bits, source + 8 * i, 8);
        break;
    }
    push_le(fbb, bits, element_size);
  }
  push_le(fbb, count, 4);
  return fbb->failed ? 0 : (etr_fbb_ref_t)fbb->size;
}

etr_fbb_ref_t etr_fbb_create_ref_vector(etr_fbb_t *fbb,
                                        const etr_fbb_ref_t *refs,
                                        size_t count) {
  if (fbb->in_table) {
    fail(fbb, "vector created inside a table");
  }
  if (count > MAX_BUFFER_SIZE / 4) {
    fail(fbb, "vector of %zu references", count);
  }
  if (fbb->failed) {
    return 0;
  }
  prepare(fbb, 4, count * 4);
  for (size_t i = count; i-- > 0;) {
    push_le(fbb, refer_to(fbb, refs[i]), 4);
  }
  push_le(fbb, count, 4);
  return fbb->failed ? 0 : (etr_fbb_ref_t)fbb->size;
}

void etr_fbb_start_table(etr_fbb_t *fbb) {
  if (fbb->in_table) {
    fail(fbb, "tables cannot nest: build the child first");
    return;
  }
  fbb->in_table = true;
  fbb->table_start = fbb->size;
  fbb->num_fields = 0;
  memset(fbb->field_location, 0, sizeof(fbb->field_location));
}

static bool field_ok(etr_fbb_t *fbb, unsigned field) {
  if (!fbb->in_table) {
    fail(fbb, "field %u added outside a table", field);
  } else if (field >= ETR_FBB_MAX_FIELDS) {
    fail(fbb, "field id %u (at most %d)", field, ETR_FBB_MAX_FIELDS - 1);
  }
  return !fbb->failed;
}

static void add_scalar(etr_fbb_t *fbb, unsigned field, uint64_t bits,
                       size_t width) {
  if (!field_ok(fbb, field)) {
    return;
  }
  prepare(fbb, width, 0);
  push_le(fbb, bits, width);
  fbb->field_location[field] = (uint32_t)fbb->size;
  if (field + 1 > fbb->num_fields) {
    fbb->num_fields = field + 1;
  }
}

void etr_fbb_add_u8(etr_fbb_t *fbb, unsigned field, uint8_t value,
                    uint8_t default_value) {
  if (value != default_value) {
    add_scalar(fbb, field, value, 1);
  }
}

void etr_fbb_add_i8(etr_fbb_t *fbb, unsigned field, int8_t value,
                    int8_t default_value) {
  if (value != default_value) {
    add_scalar(fbb, field, (uint8_t)value, 1);
  }
}

void etr_fbb_add_i32(etr_fbb_t *fbb, unsigned field, int32_t value,
                     int32_t default_value) {
  if (value != default_value) {
    add_scalar(fbb, field, (uint32_t)value, 4);
  }
}

void etr_fbb_add_u32(etr_fbb_t *fbb, unsigned field, uint32_t value,
                     uint32_t default_value) {
  if (value != default_value) {
    add_scalar(fbb, field, value, 4);
  }
}

void etr_fbb_add_i64(etr_fbb_t *fbb, unsigned field, int64_t value,
                     int64_t default_value) {
  if (value != default_value) {
    add_scalar(fbb, field, (uint64_t)value, 8);
  }
}

void etr_fbb_add_u64(etr_fbb_t *fbb, unsigned field, uint64_t value,
                     uint64_t default_value) {
  if (value != default_value) {
    add_scalar(fbb, field, value, 8);
  }
}

void etr_fbb_add_f32(etr_fbb_t *fbb, unsigned field, float value,
                     float default_value) {
  uint32_t bits;
  uint32_t default_bits;
  memcpy(&bits, &value, 4);
  memcpy(&default_bits, &default_value, 4);
  if (bits != default_bits) {
    add_scalar(fbb, field, bits, 4);
  }
}

void etr_fbb_add_f64(etr_fbb_t *fbb, unsigned field, double value,
                     double default_value) {
  uint64_t bits;
  uint64_t default_bits;
  memcpy(&bits, &value, 8);
  memcpy(&default_bits, &default_value, 8);
  if (bits != default_bits) {
    add_scalar(fbb, field, bits, 8);
  }
}

void etr_fbb_add_ref(etr_fbb_t *fbb, unsigned field, etr_fbb_ref_t ref) {
  if (ref == 0 || !field_ok(fbb, field)) {
    return;
  }
  uint32_t offset = refer_to(fbb, ref);
  push_le(fbb, offset, 4);
  fbb->field_location[field] = (uint32_t)fbb->size;
  if (field + 1 > fbb->num_fields) {
    fbb->num_fields = field + 1;
  }
}

etr_fbb_ref_t etr_fbb_end_table(etr_fbb_t *fbb) {
  if (!fbb->in_table) {
    fail(fbb, "end_table without start_table");
  }
  fbb->in_table = false;
  if (fbb->failed) {
    return 0;
  }
  // The table starts with an int32 offset to its vtable, patched below.
  prepare(fbb, 4, 0);
  push_zeros(fbb, 4);
  size_t object = fbb->size;
  size_t object_size = object - fbb->table_start;
  size_t vtable_size = 4 + 2 * (size_t)fbb->num_fields;
  if (object_size > 0xffff) {
    fail(fbb, "table of %zu bytes (a vtable records at most 65535)",
         object_size);
    return 0;
  }
  for (uint32_t f = fbb->num_fields; f-- > 0;) {
    uint32_t location = fbb->field_location[f];
    push_le(fbb, location != 0 ? object - location : 0, 2);
  }
  push_le(fbb, object_size, 2);
  push_le(fbb, vtable_size, 2);
  if (fbb->failed) {
    return 0;
  }
  // The vtable lies before the table: vtable = table - soffset.
  int32_t soffset = (int32_t)((int64_t)fbb->size - (int64_t)object);
  uint8_t *slot = at(fbb, object);
  for (int i = 0; i < 4; ++i) {
    slot[i] = (uint8_t)((uint32_t)soffset >> (8 * i));
  }
  return (etr_fbb_ref_t)object;
}

etr_error_t etr_fbb_finish(etr_fbb_t *fbb, etr_fbb_ref_t root,
                           const char *identifier, bool size_prefixed,
                           const uint8_t **data, size_t *size,
                           etr_diag_t *diag) {
  *data = NULL;
  *size = 0;
  if (fbb->in_table) {
    fail(fbb, "finish inside a table");
  }
  if (identifier != NULL && strlen(identifier) != 4) {
    fail(fbb, "file identifier '%s' is not 4 characters", identifier);
  }
  if (!fbb->failed) {
    prepare(fbb, fbb->max_align,
            4 + (identifier != NULL ? 4 : 0) + (size_prefixed ? 4 : 0));
    if (identifier != NULL) {
      push_bytes(fbb, identifier, 4);
    }
    push_le(fbb, refer_to(fbb, root), 4);
    if (size_prefixed) {
      push_le(fbb, fbb->size, 4);
    }
  }
  if (fbb->failed) {
    bool memory = strncmp(fbb->failure, "out of memory", 13) == 0;
    return ETR_FAIL(diag,
                    memory ? ETR_ERR_MEMORY_ALLOCATION_FAILED
                           : ETR_ERR_INVALID_ARGUMENT,
                    "FlatBuffer builder: %s", fbb->failure);
  }
  *data = at(fbb, fbb->size);
  *size = fbb->size;
  return ETR_OK;
}
