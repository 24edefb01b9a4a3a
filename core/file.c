// SPDX-License-Identifier: Apache-2.0
//
// Whole-file reads (see file.h). Reads in chunks until end of file rather
// than trusting the size fstat reports, so special files are handled too.
#include "core/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"

etr_error_t etr_read_file(const char *path, size_t max_bytes, void **data_out,
                          size_t *size_out, etr_diag_t *diag) {
  *data_out = NULL;
  *size_out = 0;
  if (max_bytes == 0) {
    max_bytes = (size_t)4 << 30;
  }
  FILE *file = fopen(path, "rb");
  ETR_CHECK(diag, file != NULL, ETR_ERR_ACCESS_FAILED, "cannot open '%s': %s",
            path, strerror(errno));
  size_t capacity = 0;
  size_t size = 0;
  unsigned char *buffer = NULL;
  etr_error_t status = ETR_OK;
  for (;;) {
    if (size == capacity) {
      size_t wanted = capacity == 0 ? 65536 : capacity * 2;
      if (capacity > max_bytes) {
        status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                          "'%s' is larger than the %zu-byte limit", path,
                          max_bytes);
        break;
      }
      size_t allocation = 0;
      unsigned char *grown = NULL;
      if (etr_size_align_up(wanted + 1, 64, &allocation)) {
        grown = (unsigned char *)aligned_alloc(64, allocation);
      }
      if (grown == NULL) {
        status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                          "out of memory reading '%s'", path);
        break;
      }
      if (size != 0) {
        memcpy(grown, buffer, size);
      }
      free(buffer);
      buffer = grown;
      capacity = wanted;
    }
    size_t got = fread(buffer + size, 1, capacity - size, file);
    size += got;
    if (got == 0) {
      if (ferror(file)) {
        status = ETR_FAIL(diag, ETR_ERR_ACCESS_FAILED,
                          "cannot read '%s' (is it a directory?)", path);
      }
      break;
    }
  }
  fclose(file);
  if (status == ETR_OK && size > max_bytes) {
    status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                      "'%s' is %zu bytes, over the %zu-byte limit", path, size,
                      max_bytes);
  }
  if (status != ETR_OK) {
    free(buffer);
    return status;
  }
  if (buffer == NULL) {  // unreachable: the loop allocates before reading
    return ETR_FAIL(diag, ETR_ERR_INTERNAL, "no buffer for '%s'", path);
  }
  buffer[size] = 0;
  *data_out = buffer;
  *size_out = size;
  return ETR_OK;
}
