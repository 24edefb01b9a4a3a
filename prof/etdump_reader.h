// SPDX-License-Identifier: Apache-2.0
//
// ETDump in: reads an `.etdp` file (ExecuTorch's, or etref's own) into a
// flat list of blocks and events, for the side-by-side comparison with
// ExecuTorch's runtime and for tests that check what prof/etdump.h wrote.
//
// The file is untrusted: every read goes through core/flatbuffer.h's
// bounds-checked reader, and a malformed file gives InvalidProgram naming
// the block and event, never a crash. The size prefix and the "ED00"
// identifier are required. Strings point into the caller's bytes, which
// must outlive the result.
#ifndef ETR_PROF_ETDUMP_READER_H
#define ETR_PROF_ETDUMP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_etdump_event_type {
  ETR_ETDUMP_PROFILE = 0,
  ETR_ETDUMP_DEBUG = 1,
  ETR_ETDUMP_ALLOCATION = 2,
} etr_etdump_event_type_t;

typedef struct etr_etdump_event {
  etr_etdump_event_type_t type;
  const char *name;         // "" when absent
  int64_t chain_index;      // DebugEvent's ulong read as signed (-1 kept)
  int32_t instruction_id;   // -1 when absent
  int32_t delegate_debug_id_int;     // -1 when absent
  const char *delegate_debug_id_str; // NULL when absent
  uint64_t start_time;      // profile events
  uint64_t end_time;
  // Debug events: the value's ValueType and, for tensors, dtype, rank,
  // debug-buffer offset (of the first tensor of a TensorList); `is_output`
  // for program outputs. Every tensor of the value (one for a Tensor, each
  // element of a TensorList) is described in etdump->tensors[first_tensor
  // .. first_tensor + num_tensors); Int, Bool, Float and Double values are
  // in the scalar fields (a Float widened to double).
  uint8_t value_type;
  int8_t scalar_type;
  int32_t dim;
  int64_t offset;
  bool is_output;
  uint32_t first_tensor;
  uint32_t num_tensors;
  int64_t int_value;
  double double_value;
  bool bool_value;
  // Allocation events.
  int32_t allocator_id;
  uint64_t allocation_size;
} etr_etdump_event_t;

// etdump.ValueType
enum {
  ETR_ETDUMP_VALUE_NULL = 0,
  ETR_ETDUMP_VALUE_INT = 1,
  ETR_ETDUMP_VALUE_BOOL = 2,
  ETR_ETDUMP_VALUE_FLOAT = 3,
  ETR_ETDUMP_VALUE_DOUBLE = 4,
  ETR_ETDUMP_VALUE_TENSOR = 5,
  ETR_ETDUMP_VALUE_TENSOR_LIST = 6,
  ETR_ETDUMP_VALUE_STRING = 7,
};

#define ETR_ETDUMP_MAX_DIMS 16

// A logged tensor: its bytes are at `offset` in the debug buffer (a
// separate file), laid out by `strides` (in elements; dense row-major when
// the file gave none).
typedef struct etr_etdump_tensor {
  int8_t scalar_type;
  int32_t dim;
  int64_t sizes[ETR_ETDUMP_MAX_DIMS];
  int64_t strides[ETR_ETDUMP_MAX_DIMS];
  bool has_strides;
  int64_t offset;
} etr_etdump_tensor_t;

typedef struct etr_etdump_block {
  const char *name;
  int32_t bundled_input_index;
  uint32_t first_event;
  uint32_t num_events;
} etr_etdump_block_t;

typedef struct etr_etdump {
  uint32_t version;
  etr_etdump_block_t *blocks;
  uint32_t num_blocks;
  etr_etdump_event_t *events;
  uint32_t num_events;
  etr_etdump_tensor_t *tensors;
  uint32_t num_tensors;
  uint32_t tensor_capacity;
} etr_etdump_t;

// Parses `size` bytes. InvalidProgram for anything malformed (a tensor of
// rank above 16 or with strides of another rank included),
// MemoryAllocationFailed when out of memory.
etr_error_t etr_etdump_read(const uint8_t *data, size_t size,
                            etr_etdump_t *etdump, etr_diag_t *diag);

void etr_etdump_release(etr_etdump_t *etdump);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ETDUMP_READER_H
