// SPDX-License-Identifier: Apache-2.0
//
// A small FlatBuffers builder in C: what the ETDump writer (prof/etdump.h)
// needs to produce files that ExecuTorch's tools read, without a flatcc or
// flatbuffers dependency. The reading side is core/flatbuffer.h.
//
// FlatBuffers are built back to front: children first, at the end of the
// buffer, then the tables that refer to them, so every reference (a uint32
// offset from where it is stored) points forward. A reference is kept here
// as the object's distance from the end of the buffer (etr_fbb_ref_t),
// which stays valid as the buffer grows at the front.
//
// Layout rules followed (the FlatBuffers binary format, as the official
// builders apply them): every scalar is aligned to its size relative to the
// end of the buffer and the finished buffer is padded so its total size is a
// multiple of the largest alignment used, so each scalar is naturally
// aligned once the buffer starts on such a boundary; vectors carry a uint32
// length before their elements; strings are NUL-terminated; a table starts
// with an int32 offset back to its vtable ([vtable bytes, table bytes,
// field offsets...] as uint16), and fields equal to their schema default are
// left out, as flatcc does. Vtables are not shared between tables (allowed
// by the format, only larger).
//
// The builder allocates (malloc/realloc) and is meant for use after a
// method has run. A failure (out of memory, the 2 GiB FlatBuffers limit, a
// misuse such as nesting tables) makes every later call a no-op and is
// reported once by etr_fbb_finish.
#ifndef ETR_PROF_FLATBUFFER_BUILDER_H
#define ETR_PROF_FLATBUFFER_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

// An object in the buffer, as its distance from the end; 0 is "none".
typedef uint32_t etr_fbb_ref_t;

// Field ids per table this builder supports (the ETDump schema uses 8).
#define ETR_FBB_MAX_FIELDS 32

typedef struct etr_fbb {
  uint8_t *buffer;  // the data is the last `size` bytes
  size_t capacity;
  size_t size;
  size_t max_align;
  bool failed;
  char failure[128];
  // The table being built (tables cannot nest: build children first).
  bool in_table;
  size_t table_start;
  // size after the field; 0 = absent
  uint32_t field_location[ETR_FBB_MAX_FIELDS];
  uint32_t num_fields;  // highest field id + 1
} etr_fbb_t;

// Starts an empty builder. `initial_capacity` is a hint (0 = 4 KiB).
void etr_fbb_init(etr_fbb_t *fbb, size_t initial_capacity);
void etr_fbb_release(etr_fbb_t *fbb);

// A string of `length` bytes (any bytes; a NUL is appended).
etr_fbb_ref_t etr_fbb_create_string(etr_fbb_t *fbb, const char *chars,
                                    size_t length);

// A vector of `count` scalars of `element_size` bytes (1, 2, 4 or 8), read
// from `elements` in host order and stored little-endian.
etr_fbb_ref_t etr_fbb_create_scalar_vector(etr_fbb_t *fbb,
                                           const void *elements, size_t count,
                                           size_t element_size);

// A vector of references (tables or strings), in the order given.
etr_fbb_ref_t etr_fbb_create_ref_vector(etr_fbb_t *fbb,
                                        const etr_fbb_ref_t *refs,
                                        size_t count);

// Tables: start, add fields (any order), end. Scalars equal to `default`
// are omitted; a ref of 0 is omitted.
void etr_fbb_start_table(etr_fbb_t *fbb);
void etr_fbb_add_u8(etr_fbb_t *fbb, unsigned field, uint8_t value,
                    uint8_t default_value);
void etr_fbb_add_i8(etr_fbb_t *fbb, unsigned field, int8_t value,
                    int8_t default_value);
void etr_fbb_add_i32(etr_fbb_t *fbb, unsigned field, int32_t value,
                     int32_t default_value);
void etr_fbb_add_u32(etr_fbb_t *fbb, unsigned field, uint32_t value,
                     uint32_t default_value);
void etr_fbb_add_i64(etr_fbb_t *fbb, unsigned field, int64_t value,
                     int64_t default_value);
void etr_fbb_add_u64(etr_fbb_t *fbb, unsigned field, uint64_t value,
                     uint64_t default_value);
void etr_fbb_add_f32(etr_fbb_t *fbb, unsigned field, float value,
                     float default_value);
void etr_fbb_add_f64(etr_fbb_t *fbb, unsigned field, double value,
                     double default_value);
void etr_fbb_add_ref(etr_fbb_t *fbb, unsigned field, etr_fbb_ref_t ref);
etr_fbb_ref_t etr_fbb_end_table(etr_fbb_t *fbb);

// Finishes the buffer with `root` as its root table, the 4-character
// `identifier` (or NULL) at bytes 4..7 (8..11 when size-prefixed) and, when
// `size_prefixed`, a uint32 byte count of the rest in front. *data points
// into the builder (valid until etr_fbb_release). MemoryAllocationFailed or
// InvalidArgument (message says why) when any step failed.
etr_error_t etr_fbb_finish(etr_fbb_t *fbb, etr_fbb_ref_t root,
                           const char *identifier, bool size_prefixed,
                           const uint8_t **data, size_t *size,
                           etr_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_FLATBUFFER_BUILDER_H
