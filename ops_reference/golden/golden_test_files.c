// SPDX-License-Identifier: Apache-2.0
//
// Golden test file helpers (see golden_test_files.h).
#include "ops_reference/golden/golden_test_files.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"

#define INDEX_PATH GOLDEN_DIR "index.txt"

size_t golden_read_index(index_entry_t *entries, size_t capacity) {
  void *data = NULL;
  size_t size = 0;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_read_file(INDEX_PATH, 0, &data, &size, &diag);
  cr_assert_eq(status, ETR_OK, "cannot read %s: %s", INDEX_PATH, diag.message);
  size_t count = 0;
  char *text = (char *)data;  // etr_read_file appends a NUL byte
  for (char *line = strtok(text, "\n"); line != NULL;
       line = strtok(NULL, "\n")) {
    if (line[0] == '#' || line[0] == '\0') {
      continue;
    }
    cr_assert_lt(count, capacity, "index.txt lists too many kernels");
    index_entry_t *e = &entries[count];
    int fields = sscanf(line, "%127s %135s %d %d", e->kernel, e->file,
                        &e->value_cases, &e->error_cases);
    cr_assert_eq(fields, 4, "malformed index.txt line: %s", line);
    ++count;
  }
  free(data);
  return count;
}

uint8_t *golden_read_file(const char *file, size_t *size) {
  char path[256];
  snprintf(path, sizeof(path), GOLDEN_DIR "%s", file);
  void *data = NULL;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_read_file(path, 0, &data, size, &diag);
  cr_assert_eq(status, ETR_OK, "cannot read %s: %s", path, diag.message);
  return (uint8_t *)data;
}
