// SPDX-License-Identifier: Apache-2.0
//
// Bounds-checked FlatBuffers reader (see flatbuffer.h). Positions are size_t
// offsets from the buffer start; every addition that forms a position is
// checked against the buffer size before it is used.
#include "core/flatbuffer.h"

#include <string.h>

uint16_t etr_load_u16(const uint8_t *bytes) {
  return (uint16_t)(bytes[0] | (bytes[1] << 8));
}

uint32_t etr_load_u32(const uint8_t *bytes) {
  return (uint32_t)bytes[0] | ((uint32_t)bytes[1] << 8) |
         ((uint32_t)bytes[2] << 16) | ((uint32_t)bytes[3] << 24);
}

uint64_t etr_load_u64(const uint8_t *bytes) {
  return (uint64_t)etr_load_u32(bytes) |
         ((uint64_t)etr_load_u32(bytes + 4) << 32);
}

// True when [position, position + length) lies inside a buffer of `size`.
static bool in_bounds(size_t size, size_t position, size_t length) {
  return position <= size && length <= size - position;
}

bool etr_fb_has_identifier(const uint8_t *data, size_t size,
                           const char *identifier) {
  return data != NULL && size >= 8 && memcmp(data + 4, identifier, 4) == 0;
}

etr_error_t etr_fb_root(const uint8_t *data, size_t size, etr_fb_table_t *root,
                        etr_diag_t *diag) {
  ETR_CHECK(diag, data != NULL && size >= 8, ETR_ERR_INVALID_PROGRAM,
            "flatbuffer of %zu bytes is too small to hold a root table",
            data != NULL ? size : 0);
  ETR_CHECK(diag, size <= ETR_FB_MAX_BUFFER_SIZE, ETR_ERR_INVALID_PROGRAM,
            "flatbuffer of %zu bytes is larger than the 2 GiB the format "
            "allows",
            size);
  uint32_t root_offset = etr_load_u32(data);
  return etr_fb_table_at(data, size, root_offset, root, diag);
}

etr_error_t etr_fb_table_at(const uint8_t *data, size_t size, size_t position,
                            etr_fb_table_t *table, etr_diag_t *diag) {
  memset(table, 0, sizeof(*table));
  ETR_CHECK(diag, in_bounds(size, position, 4), ETR_ERR_INVALID_PROGRAM,
            "table at offset %zu is outside the %zu-byte buffer", position,
            size);
  int32_t vtable_delta = (int32_t)etr_load_u32(data + position);
  // The vtable lives at position - delta (FlatBuffers' soffset convention).
  int64_t vtable_position = (int64_t)position - (int64_t)vtable_delta;
  ETR_CHECK(diag,
            vtable_position >= 0 &&
                in_bounds(size, (size_t)vtable_position, 4),
            ETR_ERR_INVALID_PROGRAM,
            "vtable of the table at offset %zu points outside the buffer "
            "(offset %lld)",
            position, (long long)vtable_position);
  uint16_t vtable_size = etr_load_u16(data + vtable_position);
  uint16_t table_size = etr_load_u16(data + vtable_position + 2);
  ETR_CHECK(diag, vtable_size >= 4 && (vtable_size & 1) == 0,
            ETR_ERR_INVALID_PROGRAM,
            "vtable at offset %lld has invalid size %u",
            (long long)vtable_position, (unsigned)vtable_size);
  ETR_CHECK(diag, in_bounds(size, (size_t)vtable_position, vtable_size),
            ETR_ERR_INVALID_PROGRAM,
            "vtable at offset %lld (%u bytes) runs past the end of the "
            "buffer",
            (long long)vtable_position, (unsigned)vtable_size);
  ETR_CHECK(diag, table_size >= 4 && in_bounds(size, position, table_size),
            ETR_ERR_INVALID_PROGRAM,
            "table at offset %zu declares %u bytes, past the end of the "
            "buffer",
            position, (unsigned)table_size);
  table->data = data;
  table->buffer_size = size;
  table->position = position;
  table->vtable_position = (size_t)vtable_position;
  table->vtable_size = vtable_size;
  table->table_size = table_size;
  return ETR_OK;
}

// Offset of the field inside the table, or 0 when absent.
static uint16_t field_offset(const etr_fb_table_t *table, unsigned field_id) {
  if (table->data == NULL) {
    return 0;
  }
  size_t slot = 4 + 2 * (size_t)field_id;
  if (slot + 2 > table->vtable_size) {
    return 0;
  }
  return etr_load_u16(table->data + table->vtable_position + slot);
}

bool etr_fb_has_field(const etr_fb_table_t *table, unsigned field_id) {
  return field_offset(table, field_id) != 0;
}

// Position of a present field of `width` bytes, checked against the table.
static etr_error_t field_position(const etr_fb_table_t *table,
                                  unsigned field_id, unsigned width,
                                  size_t *position_out, bool *present_out,
                                  etr_diag_t *diag) {
  uint16_t offset = field_offset(table, field_id);
  *present_out = offset != 0;
  if (offset == 0) {
    return ETR_OK;
  }
  ETR_CHECK(diag, (size_t)offset + width <= table->table_size,
            ETR_ERR_INVALID_PROGRAM,
            "field %u of the table at offset %zu lies outside the table "
            "(field offset %u, table size %u)",
            field_id, table->position, (unsigned)offset,
            (unsigned)table->table_size);
  *position_out = table->position + offset;
  return ETR_OK;
}

etr_error_t etr_fb_scalar_bits(const etr_fb_table_t *table, unsigned field_id,
                               unsigned width, uint64_t default_bits,
                               uint64_t *bits_out, etr_diag_t *diag) {
  size_t position = 0;
  bool present = false;
  ETR_TRY(field_position(table, field_id, width, &position, &present, diag));
  if (!present) {
    *bits_out = default_bits;
    return ETR_OK;
  }
  const uint8_t *bytes = table->data + position;
  switch (width) {
    case 1:
      *bits_out = bytes[0];
      return ETR_OK;
    case 2:
      *bits_out = etr_load_u16(bytes);
      return ETR_OK;
    case 4:
      *bits_out = etr_load_u32(bytes);
      return ETR_OK;
    case 8:
      *bits_out = etr_load_u64(bytes);
      return ETR_OK;
    default:
      return ETR_FAIL(diag, ETR_ERR_INTERNAL, "invalid scalar width %u",
                      width);
  }
}

etr_error_t etr_fb_u8(const etr_fb_table_t *table, unsigned field_id,
                      uint8_t default_value, uint8_t *out, etr_diag_t *diag) {
  uint64_t bits = 0;
  ETR_TRY(etr_fb_scalar_bits(table, field_id, 1, default_value, &bits, diag));
  *out = (uint8_t)bits;
  return ETR_OK;
}

etr_error_t etr_fb_i8(const etr_fb_table_t *table, unsigned field_id,
                      int8_t default_value, int8_t *out, etr_diag_t *diag) {
  uint64_t bits = 0;
  ETR_TRY(etr_fb_scalar_bits(table, field_id, 1, (uint8_t)default_value,
                             &bits, diag));
  *out = (int8_t)(uint8_t)bits;
  return ETR_OK;
}

etr_error_t etr_fb_bool(const etr_fb_table_t *table, unsigned field_id,
                        bool default_value, bool *out, etr_diag_t *diag) {
  uint64_t bits = 0;
  ETR_TRY(etr_fb_scalar_bits(table, field_id, 1, default_value ? 1 : 0, &bits,
                             diag));
  *out = bits != 0;
  return ETR_OK;
}

etr_error_t etr_fb_i32(const etr_fb_table_t *table, unsigned field_id,
                       int32_t default_value, int32_t *out, etr_diag_t *diag) {
  uint64_t bits = 0;
  ETR_TRY(etr_fb_scalar_bits(table, field_id, 4, (uint32_t)default_value,
                             &bits, diag));
  *out = (int32_t)(uint32_t)bits;
  return ETR_OK;
}

etr_error_t etr_fb_u32(const etr_fb_table_t *table, unsigned field_id,
                       uint32_t default_value, uint32_t *out,
                       etr_diag_t *diag) {
  uint64_t bits = 0;
  ETR_TRY(etr_fb_scalar_bits(table, field_id, 4, default_value, &bits, diag));
  *out = (uint32_t)bits;
  return ETR_OK;
}

etr_error_t etr_fb_i64(const etr_fb_table_t *table, unsigned field_id,
                       int64_t default_value, int64_t *out, etr_diag_t *diag) {
  uint64_t bits = 0;
  ETR_TRY(etr_fb_scalar_bits(table, field_id, 8, (uint64_t)default_value,
                             &bits, diag));
  *out = (int64_t)bits;
  return ETR_OK;
}

etr_error_t etr_fb_u64(const etr_fb_table_t *table, unsigned field_id,
                       uint64_t default_value, uint64_t *out,
                       etr_diag_t *diag) {
  return etr_fb_scalar_bits(table, field_id, 8, default_value, out, diag);
}

etr_error_t etr_fb_f64(const etr_fb_table_t *table, unsigned field_id,
                       double default_value, double *out, etr_diag_t *diag) {
  uint64_t default_bits;
  memcpy(&default_bits, &default_value, sizeof(default_bits));
  uint64_t bits = 0;
  ETR_TRY(etr_fb_scalar_bits(table, field_id, 8, default_bits, &bits, diag));
  memcpy(out, &bits, sizeof(*out));
  return ETR_OK;
}

// Follows the uint32 reference stored at `position` to its target.
static etr_error_t follow_reference(const uint8_t *data, size_t size,
                                    size_t position, size_t *target_out,
                                    etr_diag_t *diag) {
  ETR_CHECK(diag, in_bounds(size, position, 4), ETR_ERR_INVALID_PROGRAM,
            "reference at offset %zu is outside the buffer", position);
  uint32_t delta = etr_load_u32(data + position);
  size_t target = position + delta;  // cannot wrap: both < 2^32
  ETR_CHECK(diag, delta != 0 && target < size, ETR_ERR_INVALID_PROGRAM,
            "reference at offset %zu points to %zu, outside the %zu-byte "
            "buffer",
            position, target, size);
  *target_out = target;
  return ETR_OK;
}

// Resolves a reference field to its target position.
static etr_error_t reference_field(const etr_fb_table_t *table,
                                   unsigned field_id, size_t *target_out,
                                   bool *present_out, etr_diag_t *diag) {
  size_t position = 0;
  ETR_TRY(field_position(table, field_id, 4, &position, present_out, diag));
  if (!*present_out) {
    return ETR_OK;
  }
  return follow_reference(table->data, table->buffer_size, position,
                          target_out, diag);
}

etr_error_t etr_fb_table_field(const etr_fb_table_t *table, unsigned field_id,
                               etr_fb_table_t *out, bool *present_out,
                               etr_diag_t *diag) {
  memset(out, 0, sizeof(*out));
  size_t target = 0;
  ETR_TRY(reference_field(table, field_id, &target, present_out, diag));
  if (!*present_out) {
    return ETR_OK;
  }
  return etr_fb_table_at(table->data, table->buffer_size, target, out, diag);
}

static etr_error_t vector_at(const uint8_t *data, size_t size, size_t target,
                             uint32_t element_size, etr_fb_vector_t *out,
                             etr_diag_t *diag) {
  ETR_CHECK(diag, in_bounds(size, target, 4), ETR_ERR_INVALID_PROGRAM,
            "vector length at offset %zu is outside the buffer", target);
  uint32_t length = etr_load_u32(data + target);
  uint64_t byte_length = (uint64_t)length * element_size;
  ETR_CHECK(diag, in_bounds(size, target + 4, (size_t)byte_length),
            ETR_ERR_INVALID_PROGRAM,
            "vector at offset %zu claims %u elements of %u bytes, past the "
            "end of the %zu-byte buffer",
            target, length, element_size, size);
  out->data = data;
  out->buffer_size = size;
  out->position = target + 4;
  out->length = length;
  out->element_size = element_size;
  return ETR_OK;
}

etr_error_t etr_fb_vector_field(const etr_fb_table_t *table,
                                unsigned field_id, uint32_t element_size,
                                etr_fb_vector_t *out, bool *present_out,
                                etr_diag_t *diag) {
  memset(out, 0, sizeof(*out));
  out->element_size = element_size;
  size_t target = 0;
  ETR_TRY(reference_field(table, field_id, &target, present_out, diag));
  if (!*present_out) {
    return ETR_OK;
  }
  return vector_at(table->data, table->buffer_size, target, element_size, out,
                   diag);
}

static etr_error_t string_at(const uint8_t *data, size_t size, size_t target,
                             etr_fb_string_t *out, etr_diag_t *diag) {
  etr_fb_vector_t bytes;
  ETR_TRY(vector_at(data, size, target, 1, &bytes, diag));
  ETR_CHECK(diag,
            in_bounds(size, bytes.position, (size_t)bytes.length + 1) &&
                data[bytes.position + bytes.length] == 0,
            ETR_ERR_INVALID_PROGRAM,
            "string at offset %zu is not NUL-terminated inside the buffer",
            target);
  out->chars = (const char *)data + bytes.position;
  out->length = bytes.length;
  return ETR_OK;
}

etr_error_t etr_fb_string_field(const etr_fb_table_t *table,
                                unsigned field_id, etr_fb_string_t *out,
                                bool *present_out, etr_diag_t *diag) {
  out->chars = "";
  out->length = 0;
  size_t target = 0;
  ETR_TRY(reference_field(table, field_id, &target, present_out, diag));
  if (!*present_out) {
    return ETR_OK;
  }
  return string_at(table->data, table->buffer_size, target, out, diag);
}

etr_error_t etr_fb_union_field(const etr_fb_table_t *table, unsigned field_id,
                               uint8_t *type_out, etr_fb_table_t *value_out,
                               etr_diag_t *diag) {
  memset(value_out, 0, sizeof(*value_out));
  *type_out = 0;
  uint8_t type = 0;
  ETR_TRY(etr_fb_u8(table, field_id, 0, &type, diag));
  bool present = false;
  ETR_TRY(etr_fb_table_field(table, field_id + 1, value_out, &present, diag));
  if (type == 0 || !present) {
    memset(value_out, 0, sizeof(*value_out));
    return ETR_OK;
  }
  *type_out = type;
  return ETR_OK;
}

etr_error_t etr_fb_vector_table(const etr_fb_vector_t *vector, uint32_t index,
                                etr_fb_table_t *out, etr_diag_t *diag) {
  ETR_CHECK(diag, index < vector->length && vector->element_size == 4,
            ETR_ERR_INVALID_PROGRAM,
            "table index %u outside a vector of %u", index, vector->length);
  size_t target = 0;
  ETR_TRY(follow_reference(vector->data, vector->buffer_size,
                           vector->position + 4 * (size_t)index, &target,
                           diag));
  return etr_fb_table_at(vector->data, vector->buffer_size, target, out, diag);
}

etr_error_t etr_fb_vector_string(const etr_fb_vector_t *vector,
                                 uint32_t index, etr_fb_string_t *out,
                                 etr_diag_t *diag) {
  ETR_CHECK(diag, index < vector->length && vector->element_size == 4,
            ETR_ERR_INVALID_PROGRAM,
            "string index %u outside a vector of %u", index, vector->length);
  size_t target = 0;
  ETR_TRY(follow_reference(vector->data, vector->buffer_size,
                           vector->position + 4 * (size_t)index, &target,
                           diag));
  return string_at(vector->data, vector->buffer_size, target, out, diag);
}

// Address of element `index` of `width` bytes, or NULL when out of range.
static const uint8_t *element(const etr_fb_vector_t *vector, uint32_t index,
                              uint32_t width) {
  if (index >= vector->length || vector->element_size != width) {
    return NULL;
  }
  return vector->data + vector->position + (size_t)index * width;
}

uint8_t etr_fb_vector_u8(const etr_fb_vector_t *vector, uint32_t index) {
  const uint8_t *bytes = element(vector, index, 1);
  return bytes != NULL ? bytes[0] : 0;
}

int32_t etr_fb_vector_i32(const etr_fb_vector_t *vector, uint32_t index) {
  const uint8_t *bytes = element(vector, index, 4);
  return bytes != NULL ? (int32_t)etr_load_u32(bytes) : 0;
}

int64_t etr_fb_vector_i64(const etr_fb_vector_t *vector, uint32_t index) {
  const uint8_t *bytes = element(vector, index, 8);
  return bytes != NULL ? (int64_t)etr_load_u64(bytes) : 0;
}

uint64_t etr_fb_vector_u64(const etr_fb_vector_t *vector, uint32_t index) {
  const uint8_t *bytes = element(vector, index, 8);
  return bytes != NULL ? etr_load_u64(bytes) : 0;
}

double etr_fb_vector_f64(const etr_fb_vector_t *vector, uint32_t index) {
  const uint8_t *bytes = element(vector, index, 8);
  if (bytes == NULL) {
    return 0.0;
  }
  uint64_t bits = etr_load_u64(bytes);
  double value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

const uint8_t *etr_fb_vector_bytes(const etr_fb_vector_t *vector) {
  return vector->data != NULL ? vector->data + vector->position : NULL;
}
