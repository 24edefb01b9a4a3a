// SPDX-License-Identifier: Apache-2.0
//
// The .pte loader: validates the file layout and gives bounds-checked access
// to the program's parts. Executing a method is method.h's job.
//
// A .pte file (schema/program.fbs in ExecuTorch) is a FlatBuffer with file
// identifier "ET12", optionally followed by data segments:
//
//   [0, 4)    uint32 root table offset
//   [4, 8)    "ET12"
//   [8, ...)  optional extended header "eh00": uint32 length (>= 24),
//             uint64 program_size, uint64 segment_base_offset,
//             uint64 segment_data_size (when length >= 32)
//   ...       the rest of the FlatBuffer, up to program_size
//   segment_base_offset + DataSegment.offset: each segment's bytes
//
// Files without the extended header have no segments; the FlatBuffer is the
// whole file. Constants live either in a constant segment (Program.
// constant_segment, index 0 of its offsets being a placeholder) or, in files
// older than ExecuTorch 0.7, inline in Program.constant_buffer. Initial values
// of mutable buffers live in mutable_data_segments[0]; delegate blobs inline
// in backend_delegate_data or in a segment; named data (used by delegates)
// points at segments by key.
//
// Loading checks the header, the root table, that every DataSegment lies
// inside the file (overflow-checked) and that the constant and mutable
// segment tables refer to valid segments; accessors check each index and size
// again on use. A program is immutable once loaded and can be shared by
// several methods.
#ifndef ETR_CORE_PROGRAM_H
#define ETR_CORE_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/flatbuffer.h"

#ifdef __cplusplus
extern "C" {
#endif

// Field ids of schema/program.fbs tables (declaration order; a union takes
// two ids: its type tag, then its value).
enum {
  ETR_PROGRAM_VERSION = 0,
  ETR_PROGRAM_EXECUTION_PLAN = 1,
  ETR_PROGRAM_CONSTANT_BUFFER = 2,
  ETR_PROGRAM_BACKEND_DELEGATE_DATA = 3,
  ETR_PROGRAM_SEGMENTS = 4,
  ETR_PROGRAM_CONSTANT_SEGMENT = 5,
  ETR_PROGRAM_MUTABLE_DATA_SEGMENTS = 6,
  ETR_PROGRAM_NAMED_DATA = 7,
};
enum {
  ETR_PLAN_NAME = 0,
  ETR_PLAN_CONTAINER_META_TYPE = 1,
  ETR_PLAN_VALUES = 2,
  ETR_PLAN_INPUTS = 3,
  ETR_PLAN_OUTPUTS = 4,
  ETR_PLAN_CHAINS = 5,
  ETR_PLAN_OPERATORS = 6,
  ETR_PLAN_DELEGATES = 7,
  ETR_PLAN_NON_CONST_BUFFER_SIZES = 8,
  ETR_PLAN_NON_CONST_BUFFER_DEVICE = 9,
};

// The file identifier of a .pte program.
#define ETR_PROGRAM_IDENTIFIER "ET12"

typedef struct etr_program {
  const uint8_t *data;  // the whole file
  size_t size;
  void *owned_data;     // set when the program read the file itself

  bool has_extended_header;
  uint64_t program_size;         // FlatBuffer bytes from offset 0
  uint64_t segment_base_offset;  // 0 when the file has no segments
  uint64_t segment_data_size;    // 0 when unknown (older headers)

  etr_fb_table_t root;
  uint32_t version;
  etr_fb_vector_t execution_plans;  // [ExecutionPlan]
  etr_fb_vector_t constant_buffers; // [Buffer], deprecated inline constants
  etr_fb_vector_t delegate_data;    // [BackendDelegateInlineData]
  etr_fb_vector_t segments;         // [DataSegment]
  etr_fb_vector_t named_data;       // [NamedData]

  // Constant segment: `constant_offsets` has one entry per constant buffer
  // index (entry 0 is the placeholder). Empty when constants are inline.
  bool uses_constant_segment;
  etr_fb_vector_t constant_offsets;  // [uint64]
  const uint8_t *constant_segment;
  size_t constant_segment_size;

  // mutable_data_segments[0], the only entry ExecuTorch's runtime reads.
  bool has_mutable_segment;
  etr_fb_vector_t mutable_offsets;  // [uint64]
  const uint8_t *mutable_segment;
  size_t mutable_segment_size;
} etr_program_t;

// Loads a program from memory the caller keeps alive and unchanged until
// etr_program_release. `data` must be 16-byte aligned (as ExecuTorch
// requires) so that constants can be used in place.
//
// Returns InvalidProgram for a malformed file (the message says which check
// failed), NotSupported for a valid file using a feature etref lacks,
// InvalidArgument for a NULL or misaligned buffer.
etr_error_t etr_program_load(const void *data, size_t size,
                             etr_program_t *program, etr_diag_t *diag);

// Reads `path` into an aligned buffer the program owns, then loads it.
// AccessFailed when the file cannot be read; MemoryAllocationFailed when
// it is larger than `max_bytes` (0 = 4 GiB) or memory runs out.
etr_error_t etr_program_load_file(const char *path, size_t max_bytes,
                                  etr_program_t *program, etr_diag_t *diag);

// Frees what the program owns. Safe on a zeroed or failed program.
void etr_program_release(etr_program_t *program);

// Number of methods (execution plans).
uint32_t etr_program_method_count(const etr_program_t *program);

// Name of method `index`.
etr_error_t etr_program_method_name(const etr_program_t *program,
                                    uint32_t index, etr_fb_string_t *name,
                                    etr_diag_t *diag);

// The ExecutionPlan table of the method called `name` (NotFound otherwise,
// with the available names in the message).
etr_error_t etr_program_find_method(const etr_program_t *program,
                                    const char *name, etr_fb_table_t *plan,
                                    etr_diag_t *diag);

// Bytes of DataSegment `index`: InvalidProgram when out of range or outside
// the file, NotFound when the file has no segment area.
etr_error_t etr_program_segment(const etr_program_t *program, uint32_t index,
                                const uint8_t **data_out, size_t *size_out,
                                etr_diag_t *diag);

// `nbytes` of constant data for Tensor.data_buffer_idx `buffer_index` (> 0),
// from the constant segment or the inline constant_buffer.
etr_error_t etr_program_constant_data(const etr_program_t *program,
                                      uint32_t buffer_index, size_t nbytes,
                                      const uint8_t **data_out,
                                      etr_diag_t *diag);

// `nbytes` of initial value for a mutable (planned) tensor with
// data_buffer_idx `buffer_index`, from mutable_data_segments[0].
etr_error_t etr_program_mutable_data(const etr_program_t *program,
                                     uint32_t buffer_index, size_t nbytes,
                                     const uint8_t **data_out,
                                     etr_diag_t *diag);

// Delegate blob for BackendDelegateDataReference (location 0 = INLINE into
// backend_delegate_data, 1 = SEGMENT into segments).
etr_error_t etr_program_delegate_data(const etr_program_t *program,
                                      uint8_t location, uint32_t index,
                                      const uint8_t **data_out,
                                      size_t *size_out, etr_diag_t *diag);

// Named data (Program.named_data) by key; NotFound when absent.
etr_error_t etr_program_named_data(const etr_program_t *program,
                                   const char *key, const uint8_t **data_out,
                                   size_t *size_out, etr_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_PROGRAM_H
