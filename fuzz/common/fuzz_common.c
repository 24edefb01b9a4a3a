// SPDX-License-Identifier: Apache-2.0
//
// Shared harness support (see fuzz_common.h); the registries are in
// fuzz_registries.c, so harnesses that need no kernels link only core/.
#define _POSIX_C_SOURCE 200809L  // posix_memalign

#include "fuzz/common/fuzz_common.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


uint8_t *etr_fuzz_copy(const uint8_t *data, size_t size) {
  void *copy = NULL;
  if (posix_memalign(&copy, 64, size > 0 ? size : 1) != 0 || copy == NULL) {
    fprintf(stderr, "etref-fuzz: out of memory copying %zu bytes\n", size);
    abort();
  }
  if (size > 0) {
    memcpy(copy, data, size);
  }
  return (uint8_t *)copy;
}

void etr_fuzz_fault(const char *target, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "etref-fuzz: FAULT in %s: ", target);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
  fflush(stderr);
  abort();
}

void etr_fuzz_check_rejection(const char *target, const char *what,
                              etr_error_t status, const etr_diag_t *diag) {
  if (status == ETR_OK) {
    return;
  }
  if (!etr_error_is_known((int)status)) {
    etr_fuzz_fault(target, "%s returned unknown error code 0x%x", what,
                   (unsigned)status);
  }
  if (diag != NULL && (diag->code == ETR_OK || diag->message[0] == '\0')) {
    etr_fuzz_fault(target, "%s failed with %s but recorded no message", what,
                   etr_error_name(status));
  }
}

uint64_t etr_fuzz_touch(const void *data, size_t size) {
  const volatile uint8_t *bytes = (const volatile uint8_t *)data;
  uint64_t sum = 0;
  for (size_t i = 0; i < size; ++i) {
    sum = sum * 31 + bytes[i];
  }
  return sum;
}

uint64_t etr_fuzz_hash(const uint8_t *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash = (hash ^ data[i]) * 0x100000001b3ull;
  }
  return hash;
}
