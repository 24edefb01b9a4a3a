// SPDX-License-Identifier: Apache-2.0
//
// .npy files written by etr_npy_write_file load back with the same dtype,
// shape and bytes, aligned to 64 bytes; from ETR_PAGES_HUGE_MIN_BYTES of
// data up the loaded array lives in etr_pages_alloc memory (on Linux the
// 2 MiB-aligned mapping a method's planned pools get), below it in the
// file buffer. Malformed files are covered by malformed_test and the
// fuzzers.
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/npy.h"
#include "core/platform.h"

static void round_trip(int64_t rows, int64_t cols) {
  const size_t count = (size_t)(rows * cols);
  const size_t bytes = count * sizeof(float);
  float *values = malloc(bytes == 0 ? 1 : bytes);
  cr_assert_not_null(values);
  for (size_t i = 0; i < count; ++i) {
    values[i] = (float)(i % 1000003) * 0.5f - 7.0f;
  }
  int64_t sizes[2] = {rows, cols};
  etr_tensor_t tensor;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_tensor_init(&tensor, ETR_FLOAT, 2, sizes, values, bytes,
                               &diag),
               ETR_OK, "%s", diag.message);
  char path[512];
  const char *dir = getenv("TEST_TMPDIR");
  snprintf(path, sizeof(path), "%s/npy_test_%lld_%lld.npy",
           dir != NULL ? dir : "/tmp", (long long)rows, (long long)cols);
  cr_assert_eq(etr_npy_write_file(path, &tensor, &diag), ETR_OK, "%s",
               diag.message);

  etr_npy_array_t array;
  cr_assert_eq(etr_npy_load_file(path, 0, &array, &diag), ETR_OK, "%s",
               diag.message);
  cr_assert_eq(array.tensor.dtype, ETR_FLOAT);
  cr_assert_eq(array.tensor.dim, 2);
  cr_assert_eq(array.tensor.sizes[0], rows);
  cr_assert_eq(array.tensor.sizes[1], cols);
  cr_assert_eq((uintptr_t)array.tensor.data % 64, 0, "%zu bytes", bytes);
  cr_assert(memcmp(array.tensor.data, values, bytes) == 0, "%zu bytes",
            bytes);
  const bool large = bytes >= ETR_PAGES_HUGE_MIN_BYTES;
  cr_assert_eq(array.pages.data != NULL, large, "%zu bytes", bytes);
  cr_assert_eq(array.owned != NULL, !large, "%zu bytes", bytes);
  if (large) {
    cr_assert_eq((void *)array.pages.data, array.tensor.data);
#if defined(__linux__)
    cr_assert_neq(array.pages.mapped, 0);
    cr_assert_eq((uintptr_t)array.tensor.data % ((size_t)2 << 20), 0);
#endif
  }
  etr_npy_array_release(&array);
  cr_assert_null(array.owned);
  cr_assert_null(array.pages.base);
  etr_npy_array_release(&array);  // released already: nothing
  remove(path);
  free(values);
}

Test(npy, small_arrays_stay_in_the_file_buffer) {
  round_trip(0, 4);
  round_trip(1, 1);
  round_trip(3, 17);
  round_trip(512, 1023);  // just under 2 MiB of data
}

Test(npy, large_arrays_move_to_pages) {
  round_trip(512, 1024);  // exactly ETR_PAGES_HUGE_MIN_BYTES
  round_trip(1000, 1531);
}
