// SPDX-License-Identifier: Apache-2.0
//
// Helpers for tests that read the dataset files (Bazel runs tests from the
// runfiles root, so paths are relative to the repository root).
#ifndef ETR_CORE_TEST_TEST_FILES_H
#define ETR_CORE_TEST_TEST_FILES_H

#include <stddef.h>
#include <stdint.h>

// Reads a whole file into a 64-byte aligned buffer (free() it); aborts the
// test with a message when the file is missing.
uint8_t *etr_test_read_file(const char *path, size_t *size_out);

// A 64-byte aligned copy of `size` bytes of `data` (free() it), so tests
// can hand truncated or mutated images to the loaders.
uint8_t *etr_test_copy(const uint8_t *data, size_t size);

#endif  // ETR_CORE_TEST_TEST_FILES_H
