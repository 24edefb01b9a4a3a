// SPDX-License-Identifier: Apache-2.0
//
// Test helpers shared by golden_test.c and golden_reader_test.c: reading
// datasets/golden/index.txt and the golden files it lists (paths are
// relative to the runfiles root, where Bazel runs tests).
#ifndef ETR_OPS_REFERENCE_GOLDEN_GOLDEN_TEST_FILES_H
#define ETR_OPS_REFERENCE_GOLDEN_GOLDEN_TEST_FILES_H

#include <stddef.h>
#include <stdint.h>

#define GOLDEN_DIR "datasets/golden/"
#define MAX_KERNELS 512
#define MAX_NAME 128

typedef struct index_entry {
  char kernel[MAX_NAME];
  char file[MAX_NAME + 8];
  int value_cases;
  int error_cases;
} index_entry_t;

// Reads index.txt into `entries` (at most `capacity`); aborts the test on a
// missing or malformed index. Returns the number of kernels listed.
size_t golden_read_index(index_entry_t *entries, size_t capacity);

// Reads datasets/golden/<file> (free() it); aborts the test when missing.
uint8_t *golden_read_file(const char *file, size_t *size);

#endif  // ETR_OPS_REFERENCE_GOLDEN_GOLDEN_TEST_FILES_H
