// SPDX-License-Identifier: Apache-2.0
//
// .ptd external data loader (see data_map.h). Checks mirror ExecuTorch's
// extension/flat_tensor (flat_tensor_header.cpp, flat_tensor_data_map.cpp),
// with every offset and size bounds- and overflow-checked.
#include "core/data_map.h"

#include <stdlib.h>
#include <string.h>

#include "core/file.h"

#define HEADER_OFFSET 8
#define HEADER_MIN_LENGTH 40  // magic + length + 4 uint64s

enum { FLAT_TENSOR_VERSION = 0, FLAT_TENSOR_SEGMENTS = 1,
       FLAT_TENSOR_NAMED_DATA = 2 };
enum { NAMED_KEY = 0, NAMED_SEGMENT_INDEX = 1, NAMED_TENSOR_LAYOUT = 2 };
enum { LAYOUT_SCALAR_TYPE = 0, LAYOUT_SIZES = 1, LAYOUT_DIM_ORDER = 2 };
enum { SEGMENT_OFFSET = 0, SEGMENT_SIZE = 1 };

// FlatBuffer errors inside a .ptd are reported as InvalidExternalData.
static etr_error_t external(etr_error_t status) {
  return status == ETR_ERR_INVALID_PROGRAM ? ETR_ERR_INVALID_EXTERNAL_DATA
                                           : status;
}

etr_error_t etr_data_map_load(const void *data, size_t size,
                              etr_data_map_t *map, etr_diag_t *diag) {
  memset(map, 0, sizeof(*map));
  ETR_CHECK(diag, data != NULL && ((uintptr_t)data & 15u) == 0,
            ETR_ERR_INVALID_ARGUMENT,
            "data map buffer is NULL or not 16-byte aligned");
  const uint8_t *bytes = (const uint8_t *)data;
  ETR_CHECK(diag, size >= HEADER_OFFSET + HEADER_MIN_LENGTH,
            ETR_ERR_INVALID_EXTERNAL_DATA,
            "data file of %zu bytes is too small to be a .ptd", size);
  ETR_CHECK(diag, memcmp(bytes + 4, ETR_DATA_MAP_IDENTIFIER, 4) == 0,
            ETR_ERR_INVALID_EXTERNAL_DATA,
            "data file identifier is not '%s': not a .ptd file",
            ETR_DATA_MAP_IDENTIFIER);
  const uint8_t *header = bytes + HEADER_OFFSET;
  ETR_CHECK(diag, memcmp(header, "FH01", 4) == 0,
            ETR_ERR_INVALID_EXTERNAL_DATA,
            "data file has no 'FH01' header at byte %d", HEADER_OFFSET);
  uint32_t length = etr_load_u32(header + 4);
  ETR_CHECK(diag, length >= HEADER_MIN_LENGTH, ETR_ERR_INVALID_EXTERNAL_DATA,
            "data file header length %u is below %d", length,
            HEADER_MIN_LENGTH);
  uint64_t fb_offset = etr_load_u64(header + 8);
  uint64_t fb_size = etr_load_u64(header + 16);
  map->segment_base_offset = etr_load_u64(header + 24);
  map->segment_data_size = etr_load_u64(header + 32);
  uint64_t fb_end = 0;
  uint64_t segments_end = 0;
  ETR_CHECK(diag,
            !__builtin_add_overflow(fb_offset, fb_size, &fb_end) &&
                fb_end <= size,
            ETR_ERR_INVALID_EXTERNAL_DATA,
            "data file flatbuffer (offset %llu, %llu bytes) runs past the "
            "end of the %zu-byte file",
            (unsigned long long)fb_offset, (unsigned long long)fb_size, size);
  ETR_CHECK(diag,
            !__builtin_add_overflow(map->segment_base_offset,
                                    map->segment_data_size, &segments_end) &&
                segments_end <= size,
            ETR_ERR_INVALID_EXTERNAL_DATA,
            "data file segments (offset %llu, %llu bytes) run past the end "
            "of the %zu-byte file",
            (unsigned long long)map->segment_base_offset,
            (unsigned long long)map->segment_data_size, size);
  map->data = bytes;
  map->size = size;
  // As in ExecuTorch, the FlatBuffer spans [0, flatbuffer_offset +
  // flatbuffer_size): its root offset is at byte 0, before the header.
  etr_error_t status = etr_fb_root(bytes, (size_t)fb_end, &map->root, diag);
  bool present = false;
  if (status == ETR_OK) {
    status = etr_fb_vector_field(&map->root, FLAT_TENSOR_SEGMENTS, 4,
                                 &map->segments, &present, diag);
  }
  if (status == ETR_OK) {
    status = etr_fb_vector_field(&map->root, FLAT_TENSOR_NAMED_DATA, 4,
                                 &map->named_data, &present, diag);
  }
  for (uint32_t i = 0; status == ETR_OK && i < map->segments.length; ++i) {
    etr_fb_table_t segment;
    uint64_t offset = 0;
    uint64_t segment_size = 0;
    uint64_t end = 0;
    status = etr_fb_vector_table(&map->segments, i, &segment, diag);
    if (status == ETR_OK) {
      status = etr_fb_u64(&segment, SEGMENT_OFFSET, 0, &offset, diag);
    }
    if (status == ETR_OK) {
      status = etr_fb_u64(&segment, SEGMENT_SIZE, 0, &segment_size, diag);
    }
    if (status == ETR_OK &&
        (__builtin_add_overflow(offset, segment_size, &end) ||
         end > map->segment_data_size)) {
      status = ETR_FAIL(diag, ETR_ERR_INVALID_EXTERNAL_DATA,
                        "data segment %u (offset %llu, %llu bytes) lies "
                        "outside the %llu bytes of segment data",
                        i, (unsigned long long)offset,
                        (unsigned long long)segment_size,
                        (unsigned long long)map->segment_data_size);
    }
  }
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "data map");
  }
  return external(status);
}

etr_error_t etr_data_map_load_file(const char *path, size_t max_bytes,
                                   etr_data_map_t *map, etr_diag_t *diag) {
  memset(map, 0, sizeof(*map));
  void *buffer = NULL;
  size_t size = 0;
  ETR_TRY(etr_read_file(path, max_bytes, &buffer, &size, diag));
  etr_error_t status = etr_data_map_load(buffer, size, map, diag);
  map->owned_data = buffer;
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "%s", path);
    etr_data_map_release(map);
  }
  return status;
}

void etr_data_map_release(etr_data_map_t *map) {
  if (map != NULL) {
    free(map->owned_data);
    memset(map, 0, sizeof(*map));
  }
}

uint32_t etr_data_map_count(const etr_data_map_t *map) {
  return map->named_data.length;
}

etr_error_t etr_data_map_key(const etr_data_map_t *map, uint32_t index,
                             const char **key_out, etr_diag_t *diag) {
  etr_fb_table_t entry;
  etr_fb_string_t key;
  bool present = false;
  etr_error_t status = etr_fb_vector_table(&map->named_data, index, &entry,
                                           diag);
  if (status == ETR_OK) {
    status = etr_fb_string_field(&entry, NAMED_KEY, &key, &present, diag);
  }
  *key_out = status == ETR_OK ? key.chars : "";
  return external(status);
}

static etr_error_t read_layout(const etr_fb_table_t *entry,
                               etr_tensor_layout_t *layout,
                               etr_diag_t *diag) {
  memset(layout, 0, sizeof(*layout));
  etr_fb_table_t table;
  bool present = false;
  ETR_TRY(etr_fb_table_field(entry, NAMED_TENSOR_LAYOUT, &table, &present,
                             diag));
  ETR_CHECK(diag, present, ETR_ERR_INVALID_EXTERNAL_DATA,
            "entry has no tensor layout");
  int8_t dtype = 0;
  ETR_TRY(etr_fb_i8(&table, LAYOUT_SCALAR_TYPE, 0, &dtype, diag));
  ETR_CHECK(diag, etr_scalar_type_is_valid(dtype),
            ETR_ERR_INVALID_EXTERNAL_DATA, "invalid scalar type %d",
            (int)dtype);
  etr_fb_vector_t sizes;
  etr_fb_vector_t dim_order;
  ETR_TRY(etr_fb_vector_field(&table, LAYOUT_SIZES, 4, &sizes, &present,
                              diag));
  ETR_TRY(etr_fb_vector_field(&table, LAYOUT_DIM_ORDER, 1, &dim_order,
                              &present, diag));
  ETR_CHECK(diag, sizes.length <= ETR_MAX_DIMS &&
                      dim_order.length == sizes.length,
            ETR_ERR_INVALID_EXTERNAL_DATA,
            "layout has %u sizes and %u dim order entries (at most %d, "
            "equal)",
            sizes.length, dim_order.length, ETR_MAX_DIMS);
  layout->dtype = (etr_scalar_type_t)dtype;
  layout->dim = (int32_t)sizes.length;
  for (uint32_t i = 0; i < sizes.length; ++i) {
    layout->sizes[i] = etr_fb_vector_i32(&sizes, i);
    layout->dim_order[i] = etr_fb_vector_u8(&dim_order, i);
  }
  ETR_CHECK(diag, etr_dim_order_is_valid(layout->dim_order, layout->dim),
            ETR_ERR_INVALID_EXTERNAL_DATA,
            "layout dim order is not a permutation");
  return ETR_OK;
}

etr_error_t etr_data_map_find(const etr_data_map_t *map, const char *key,
                              etr_tensor_layout_t *layout,
                              const uint8_t **data_out, size_t *size_out,
                              etr_diag_t *diag) {
  for (uint32_t i = 0; i < map->named_data.length; ++i) {
    etr_fb_table_t entry;
    etr_fb_string_t entry_key;
    bool present = false;
    ETR_TRY(external(etr_fb_vector_table(&map->named_data, i, &entry, diag)));
    ETR_TRY(external(
        etr_fb_string_field(&entry, NAMED_KEY, &entry_key, &present, diag)));
    if (strcmp(entry_key.chars, key) != 0) {
      continue;
    }
    ETR_TRY(external(read_layout(&entry, layout, diag)));
    uint32_t segment_index = 0;
    ETR_TRY(external(
        etr_fb_u32(&entry, NAMED_SEGMENT_INDEX, 0, &segment_index, diag)));
    ETR_CHECK(diag, segment_index < map->segments.length,
              ETR_ERR_INVALID_EXTERNAL_DATA,
              "'%s' refers to data segment %u of %u", key, segment_index,
              map->segments.length);
    etr_fb_table_t segment;
    uint64_t offset = 0;
    uint64_t size = 0;
    ETR_TRY(external(
        etr_fb_vector_table(&map->segments, segment_index, &segment, diag)));
    ETR_TRY(external(etr_fb_u64(&segment, SEGMENT_OFFSET, 0, &offset, diag)));
    ETR_TRY(external(etr_fb_u64(&segment, SEGMENT_SIZE, 0, &size, diag)));
    // Load proved segment_base_offset + segment_data_size <= file size and
    // offset + size <= segment_data_size. The layout must also fit in the
    // segment, or a caller trusting it would read past the segment.
    size_t nbytes = 0;
    ETR_TRY(external(etr_checked_nbytes(layout->dtype, layout->sizes,
                                        layout->dim, &nbytes, diag)));
    ETR_CHECK(diag, nbytes <= size, ETR_ERR_INVALID_EXTERNAL_DATA,
              "'%s' has a %zu-byte layout but its data segment %u holds "
              "%llu bytes",
              key, nbytes, segment_index, (unsigned long long)size);
    *data_out = map->data + map->segment_base_offset + offset;
    *size_out = (size_t)size;
    return ETR_OK;
  }
  return ETR_FAIL(diag, ETR_ERR_NOT_FOUND, "data map has no tensor '%s'",
                  key);
}
