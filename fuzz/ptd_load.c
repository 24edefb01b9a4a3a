// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target ptd_load: external tensor data (.ptd, FlatTensor "FT01") as a
// method loading a program with external constants reads it. Load the map,
// list every key, look each one up and read every byte of its tensor; look
// up a key that is absent.
//
// Faults: crashes and sanitizer reports; rejections without a message; a
// found entry whose bytes lie outside the file or are fewer than its
// layout says (ASan sees the reads), or whose layout is not a valid tensor
// description (rank, dim order).
#include <stdio.h>
#include <stdlib.h>

#include "core/data_map.h"
#include "fuzz/common/fuzz_common.h"

#define TARGET "ptd_load"
#define MAX_KEYS 256

static void check_entry(const etr_data_map_t *map, const char *key) {
  etr_tensor_layout_t layout;
  const uint8_t *bytes = NULL;
  size_t size = 0;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status =
      etr_data_map_find(map, key, &layout, &bytes, &size, &diag);
  etr_fuzz_check_rejection(TARGET, "etr_data_map_find", status, &diag);
  if (status != ETR_OK) {
    return;
  }
  if (layout.dim < 0 || layout.dim > ETR_MAX_DIMS ||
      !etr_scalar_type_is_valid((int)layout.dtype) ||
      !etr_dim_order_is_valid(layout.dim_order, layout.dim)) {
    etr_fuzz_fault(TARGET, "entry '%s' has an invalid layout (rank %d)", key,
                   (int)layout.dim);
  }
  size_t nbytes = 0;
  etr_diag_reset(&diag);
  if (etr_checked_nbytes(layout.dtype, layout.sizes, layout.dim, &nbytes,
                         &diag) != ETR_OK) {
    etr_fuzz_fault(TARGET, "entry '%s' has a layout whose size overflows",
                   key);
  }
  if (size < nbytes) {
    etr_fuzz_fault(TARGET, "entry '%s' has %zu bytes for a %zu-byte layout",
                   key, size, nbytes);
  }
  if (etr_fuzz_touch(bytes, size) == 1) {
    fputc(' ', stderr);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > ETR_FUZZ_MAX_INPUT_BYTES) {
    return 0;
  }
  uint8_t *copy = etr_fuzz_copy(data, size);
  etr_data_map_t map;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_data_map_load(copy, size, &map, &diag);
  etr_fuzz_check_rejection(TARGET, "etr_data_map_load", status, &diag);
  if (status == ETR_OK) {
    uint32_t count = etr_data_map_count(&map);
    for (uint32_t i = 0; i < count && i < MAX_KEYS; ++i) {
      const char *key = NULL;
      etr_diag_reset(&diag);
      status = etr_data_map_key(&map, i, &key, &diag);
      etr_fuzz_check_rejection(TARGET, "etr_data_map_key", status, &diag);
      if (status == ETR_OK) {
        check_entry(&map, key);
      }
    }
    check_entry(&map, "etref.fuzz.absent");
  }
  etr_data_map_release(&map);
  free(copy);
  return 0;
}
