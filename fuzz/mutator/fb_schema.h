// SPDX-License-Identifier: Apache-2.0
//
// The FlatBuffer schemas etref reads (.pte program.fbs, .bpte
// bundled_program_schema.fbs, .ptd flat_tensor.fbs) as data, and a walker
// that finds, through etref's own bounds-checked reader (core/flatbuffer.h),
// where each field of a file lives: every scalar field present in a table,
// every reference (uoffset) to a table, vector or string, every vector
// length, every scalar vector element, every union type tag, every vtable
// entry, and the header fields of the extended headers. The structure-aware
// mutator (pte_mutator.h) rewrites those bytes in place, so the file stays a
// FlatBuffer the loaders parse while its contents become inconsistent in
// the ways that matter (an index past a table, a union tag naming another
// type, a tensor larger than its buffer, a segment past the end).
//
// The walk follows the schema, not the bytes: its depth is the schema's
// (at most 8 tables deep, a bundled program's embedded .pte included), and
// it stops after ETR_FB_MAX_LOCATIONS locations and ETR_FB_MAX_VISITS table
// visits, so a hostile file whose tables share bytes cannot make it slow.
#ifndef ETR_FUZZ_MUTATOR_FB_SCHEMA_H
#define ETR_FUZZ_MUTATOR_FB_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETR_FB_MAX_LOCATIONS 8192
#define ETR_FB_MAX_VISITS 4096
#define ETR_FB_MAX_ELEMENTS 256  // scalar elements recorded per vector

// What a location holds, which decides how it is mutated.
typedef enum etr_fb_role {
  ETR_ROLE_GENERIC = 0,     // an ordinary number
  ETR_ROLE_VALUE_INDEX,     // index into ExecutionPlan.values
  ETR_ROLE_OP_INDEX,        // index into operators
  ETR_ROLE_DELEGATE_INDEX,  // index into delegates
  ETR_ROLE_INSTRUCTION,     // instruction index (jump destination)
  ETR_ROLE_BUFFER_INDEX,    // constant / mutable buffer index
  ETR_ROLE_SEGMENT_INDEX,   // index into segments
  ETR_ROLE_DATA_INDEX,      // delegate data index
  ETR_ROLE_TENSOR_SIZE,     // a dimension
  ETR_ROLE_DIM_ORDER,       // a dim order entry
  ETR_ROLE_ENUM,            // scalar type, layout, dynamism, location, bool
  ETR_ROLE_MEMORY_ID,       // AllocationDetails.memory_id
  ETR_ROLE_MEMORY_OFFSET,   // AllocationDetails offsets, storage_offset
  ETR_ROLE_POOL_SIZE,       // non_const_buffer_sizes entry
  ETR_ROLE_FILE_OFFSET,     // segment offsets and sizes, header fields
  ETR_ROLE_UNION_TAG,       // a union's type byte
  ETR_ROLE_UOFFSET,         // a reference to a table, vector or string
  ETR_ROLE_LENGTH,          // a vector's or string's length
  ETR_ROLE_VTABLE,          // a vtable entry (field offset) or table size
  ETR_NUM_ROLES,
} etr_fb_role_t;

typedef struct etr_fb_location {
  uint32_t offset;  // from the start of the file
  uint8_t width;    // 1, 2, 4 or 8 bytes, little-endian
  uint8_t role;     // etr_fb_role_t
  bool is_signed;
} etr_fb_location_t;

// Sizes of the tables indices point into, for choosing in-range (and
// just-out-of-range) values: the largest seen in the file.
typedef struct etr_fb_hints {
  uint32_t values;
  uint32_t operators;
  uint32_t delegates;
  uint32_t instructions;
  uint32_t buffers;
  uint32_t segments;
  uint64_t pool_bytes;  // largest non_const_buffer_sizes entry
} etr_fb_hints_t;

typedef enum etr_fb_format {
  ETR_FB_FORMAT_UNKNOWN = 0,
  ETR_FB_FORMAT_PTE = 1,   // "ET12"
  ETR_FB_FORMAT_BPTE = 2,  // "BP08"
  ETR_FB_FORMAT_PTD = 3,   // "FT01"
} etr_fb_format_t;

etr_fb_format_t etr_fb_detect_format(const uint8_t *data, size_t size);

// Collects up to `capacity` locations of the file. Returns how many (0 when
// the file is not one of the formats or its root does not parse).
size_t etr_fb_collect(const uint8_t *data, size_t size,
                      etr_fb_location_t *locations, size_t capacity,
                      etr_fb_hints_t *hints);

#endif  // ETR_FUZZ_MUTATOR_FB_SCHEMA_H
