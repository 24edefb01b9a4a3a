// SPDX-License-Identifier: Apache-2.0
//
// Test file helpers (see test_files.h).
#include "core/test/test_files.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"

uint8_t *etr_test_read_file(const char *path, size_t *size_out) {
  void *data = NULL;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (etr_read_file(path, 0, &data, size_out, &diag) != ETR_OK) {
    cr_assert_fail("cannot read test file %s: %s", path, diag.message);
  }
  return (uint8_t *)data;
}

uint8_t *etr_test_copy(const uint8_t *data, size_t size) {
  uint8_t *copy = (uint8_t *)aligned_alloc(64, (size + 64) / 64 * 64);
  cr_assert_not_null(copy);
  if (size > 0) {
    memcpy(copy, data, size);
  }
  return copy;
}
