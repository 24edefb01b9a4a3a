// SPDX-License-Identifier: Apache-2.0
//
// A bounds-checked FlatBuffers reader, written for untrusted input.
//
// FlatBuffers lay out tables as an int32 offset to a vtable followed by the
// fields; the vtable lists, per field id, the field's offset inside the table
// (0 = absent, use the schema default). References to tables, vectors and
// strings are uint32 offsets relative to where the reference is stored.
//
// Every accessor here checks, before touching a byte, that the bytes it
// reads lie inside the buffer: root offset, vtable offset and size, each
// field's extent against the table's declared size, each vector's length
// times its element size, string terminators, union type tags. All reads go
// through memcpy-style little-endian loads, so a misaligned or hostile
// offset is never dereferenced as a typed pointer. No function recurses and
// every loop is bounded by the buffer size, so no input can make the reader
// hang or read outside [data, data + size).
//
// Errors are ETR_ERR_INVALID_PROGRAM with a message naming the offset and the
// check that failed; callers prefix the schema path
// ("ExecutionPlan[0].values").
#ifndef ETR_CORE_FLATBUFFER_H
#define ETR_CORE_FLATBUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

// FlatBuffers offsets are 32-bit; a buffer past 2 GiB cannot be valid.
#define ETR_FB_MAX_BUFFER_SIZE ((size_t)0x7fffffff)

typedef struct etr_fb_buffer {
  const uint8_t *data;
  size_t size;
} etr_fb_buffer_t;

typedef struct etr_fb_table {
  const uint8_t *data;  // buffer start
  size_t buffer_size;
  size_t position;      // where the table starts
  size_t vtable_position;
  uint16_t vtable_size;  // bytes, including its two header fields
  uint16_t table_size;   // bytes of the table's inline part
} etr_fb_table_t;

typedef struct etr_fb_vector {
  const uint8_t *data;  // buffer start
  size_t buffer_size;
  size_t position;      // first element
  uint32_t length;      // elements
  uint32_t element_size;
} etr_fb_vector_t;

typedef struct etr_fb_string {
  const char *chars;  // NUL-terminated, inside the buffer
  uint32_t length;
} etr_fb_string_t;

// True when bytes 4..7 of the buffer are `identifier` (4 characters).
bool etr_fb_has_identifier(const uint8_t *data, size_t size,
                           const char *identifier);

// Resolves the root table (uint32 offset at byte 0). For a size-prefixed
// buffer pass data + 4 and size - 4.
etr_error_t etr_fb_root(const uint8_t *data, size_t size, etr_fb_table_t *root,
                        etr_diag_t *diag);

// Resolves the table that starts at `position` (validates its vtable).
etr_error_t etr_fb_table_at(const uint8_t *data, size_t size, size_t position,
                            etr_fb_table_t *table, etr_diag_t *diag);

// True when field `field_id` is present in the table's vtable.
bool etr_fb_has_field(const etr_fb_table_t *table, unsigned field_id);

// Reads a scalar field of `width` bytes (1, 2, 4 or 8) as raw little-endian
// bits; absent fields give `default_bits`.
etr_error_t etr_fb_scalar_bits(const etr_fb_table_t *table, unsigned field_id,
                               unsigned width, uint64_t default_bits,
                               uint64_t *bits_out, etr_diag_t *diag);

etr_error_t etr_fb_u8(const etr_fb_table_t *table, unsigned field_id,
                      uint8_t default_value, uint8_t *out, etr_diag_t *diag);
etr_error_t etr_fb_i8(const etr_fb_table_t *table, unsigned field_id,
                      int8_t default_value, int8_t *out, etr_diag_t *diag);
etr_error_t etr_fb_bool(const etr_fb_table_t *table, unsigned field_id,
                        bool default_value, bool *out, etr_diag_t *diag);
etr_error_t etr_fb_i32(const etr_fb_table_t *table, unsigned field_id,
                       int32_t default_value, int32_t *out, etr_diag_t *diag);
etr_error_t etr_fb_u32(const etr_fb_table_t *table, unsigned field_id,
                       uint32_t default_value, uint32_t *out,
                       etr_diag_t *diag);
etr_error_t etr_fb_i64(const etr_fb_table_t *table, unsigned field_id,
                       int64_t default_value, int64_t *out, etr_diag_t *diag);
etr_error_t etr_fb_u64(const etr_fb_table_t *table, unsigned field_id,
                       uint64_t default_value, uint64_t *out,
                       etr_diag_t *diag);
etr_error_t etr_fb_f64(const etr_fb_table_t *table, unsigned field_id,
                       double default_value, double *out, etr_diag_t *diag);

// Sub-table field. *present_out is false (and *out zeroed) when absent.
etr_error_t etr_fb_table_field(const etr_fb_table_t *table, unsigned field_id,
                               etr_fb_table_t *out, bool *present_out,
                               etr_diag_t *diag);

// Vector field with elements of `element_size` bytes (1, 2, 4, 8; 4 for
// vectors of tables or strings). Absent: *present_out false, empty vector.
etr_error_t etr_fb_vector_field(const etr_fb_table_t *table,
                                unsigned field_id, uint32_t element_size,
                                etr_fb_vector_t *out, bool *present_out,
                                etr_diag_t *diag);

// String field. Absent: *present_out false and an empty "" string.
etr_error_t etr_fb_string_field(const etr_fb_table_t *table,
                                unsigned field_id, etr_fb_string_t *out,
                                bool *present_out, etr_diag_t *diag);

// Union: the type tag at `field_id` and the value table at field_id + 1
// (FlatBuffers gives a union two ids). Type 0 (NONE) or an absent value
// gives *type_out 0 and no table.
etr_error_t etr_fb_union_field(const etr_fb_table_t *table, unsigned field_id,
                               uint8_t *type_out, etr_fb_table_t *value_out,
                               etr_diag_t *diag);

// Vector element readers. Callers loop below vector->length; an index out
// of range is still checked: the table/string readers fail with
// InvalidProgram and the scalar readers return 0 without reading.
etr_error_t etr_fb_vector_table(const etr_fb_vector_t *vector, uint32_t index,
                                etr_fb_table_t *out, etr_diag_t *diag);
etr_error_t etr_fb_vector_string(const etr_fb_vector_t *vector,
                                 uint32_t index, etr_fb_string_t *out,
                                 etr_diag_t *diag);
uint8_t etr_fb_vector_u8(const etr_fb_vector_t *vector, uint32_t index);
int32_t etr_fb_vector_i32(const etr_fb_vector_t *vector, uint32_t index);
int64_t etr_fb_vector_i64(const etr_fb_vector_t *vector, uint32_t index);
uint64_t etr_fb_vector_u64(const etr_fb_vector_t *vector, uint32_t index);
double etr_fb_vector_f64(const etr_fb_vector_t *vector, uint32_t index);

// Pointer to the vector's first element (inside the buffer; not aligned in
// general: read it with memcpy or through the typed readers above).
const uint8_t *etr_fb_vector_bytes(const etr_fb_vector_t *vector);

// Little-endian loads from arbitrary (unaligned) addresses.
uint16_t etr_load_u16(const uint8_t *bytes);
uint32_t etr_load_u32(const uint8_t *bytes);
uint64_t etr_load_u64(const uint8_t *bytes);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_FLATBUFFER_H
