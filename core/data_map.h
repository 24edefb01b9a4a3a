// SPDX-License-Identifier: Apache-2.0
//
// External tensor data (.ptd, ExecuTorch's FlatTensor format,
// extension/flat_tensor/serialize/flat_tensor.fbs): tensors stored outside
// the .pte and found by fully-qualified name ("linear.weight").
//
// Layout: a FlatBuffer with identifier "FT01" whose bytes 8.. hold a header
// "FH01", uint32 length (>= 40), uint64 flatbuffer_offset, uint64
// flatbuffer_size, uint64 segment_base_offset, uint64 segment_data_size.
// The FlatBuffer spans [0, flatbuffer_offset + flatbuffer_size) (its root
// offset is at byte 0, as in a .pte). The root FlatTensor lists DataSegments
// and NamedData entries (key, segment index, TensorLayout: dtype, sizes, dim
// order). Loading checks the header and every segment's bounds; a lookup (by
// exact key) checks its entry's layout, including that the layout's bytes fit
// in its segment.
#ifndef ETR_CORE_DATA_MAP_H
#define ETR_CORE_DATA_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/flatbuffer.h"
#include "core/scalar_type.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_DATA_MAP_IDENTIFIER "FT01"

typedef struct etr_tensor_layout {
  etr_scalar_type_t dtype;
  int32_t dim;
  int64_t sizes[ETR_MAX_DIMS];
  uint8_t dim_order[ETR_MAX_DIMS];
} etr_tensor_layout_t;

typedef struct etr_data_map {
  const uint8_t *data;
  size_t size;
  void *owned_data;
  uint64_t segment_base_offset;
  uint64_t segment_data_size;
  etr_fb_table_t root;
  etr_fb_vector_t segments;    // [DataSegment]
  etr_fb_vector_t named_data;  // [NamedData]
} etr_data_map_t;

// Loads from memory the caller keeps alive (16-byte aligned). InvalidArgument
// for a bad buffer, InvalidExternalData for a malformed file.
etr_error_t etr_data_map_load(const void *data, size_t size,
                              etr_data_map_t *map, etr_diag_t *diag);
etr_error_t etr_data_map_load_file(const char *path, size_t max_bytes,
                                   etr_data_map_t *map, etr_diag_t *diag);
void etr_data_map_release(etr_data_map_t *map);

uint32_t etr_data_map_count(const etr_data_map_t *map);

// Key of entry `index` (for listing).
etr_error_t etr_data_map_key(const etr_data_map_t *map, uint32_t index,
                             const char **key_out, etr_diag_t *diag);

// Finds `key`: its layout and bytes (at least as many as the layout needs).
// NotFound when absent; InvalidExternalData when its entry is malformed
// (bad dtype, rank or dim order, negative sizes, a segment smaller than the
// layout).
etr_error_t etr_data_map_find(const etr_data_map_t *map, const char *key,
                              etr_tensor_layout_t *layout,
                              const uint8_t **data_out, size_t *size_out,
                              etr_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_DATA_MAP_H
