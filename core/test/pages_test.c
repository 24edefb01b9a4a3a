// SPDX-License-Identifier: Apache-2.0
//
// The platform layer's memory for large buffers (core/platform.h): every
// size gets zeroed, writable, 64-byte aligned memory; from
// ETR_PAGES_HUGE_MIN_BYTES up on Linux, a mapping whose data starts on a
// 2 MiB boundary; sizes no allocation can give fail cleanly; releasing
// twice, or a zeroed etr_pages_t, does nothing.
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "core/platform.h"

Test(pages, every_size_is_zeroed_aligned_and_writable) {
  static const size_t kSizes[] = {0,
                                  1,
                                  100,
                                  4096,
                                  ETR_PAGES_HUGE_MIN_BYTES - 1,
                                  ETR_PAGES_HUGE_MIN_BYTES,
                                  ETR_PAGES_HUGE_MIN_BYTES + 3,
                                  ((size_t)5 << 20) + 17};
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    const size_t bytes = kSizes[s];
    etr_pages_t pages;
    cr_assert(etr_pages_alloc(bytes, &pages), "%zu bytes", bytes);
    cr_assert_not_null(pages.data);
    cr_assert_eq((uintptr_t)pages.data % 64, 0, "%zu bytes", bytes);
    const bool large = bytes >= ETR_PAGES_HUGE_MIN_BYTES;
#if defined(__linux__)
    cr_assert_eq(pages.mapped != 0, large, "%zu bytes", bytes);
    if (large) {
      cr_assert_eq((uintptr_t)pages.data % ((size_t)2 << 20), 0);
      cr_assert_geq((uintptr_t)pages.base + pages.mapped,
                    (uintptr_t)pages.data + bytes);
    }
#endif
    // Zeroed at the end and every 4 KiB, then written there.
    const size_t step = bytes > 4096 ? 4096 : 1;
    if (bytes > 0) {
      cr_assert_eq(pages.data[bytes - 1], 0, "%zu bytes", bytes);
    }
    for (size_t i = 0; i < bytes; i += step) {
      cr_assert_eq(pages.data[i], 0, "%zu bytes, byte %zu", bytes, i);
    }
    for (size_t i = 0; i < bytes; i += step) {
      pages.data[i] = 0xa5;
    }
    if (bytes > 0) {
      pages.data[bytes - 1] = 0x5a;
      cr_assert_eq(pages.data[bytes - 1], 0x5a);
    }
    etr_pages_free(&pages);
    cr_assert_null(pages.base);
    etr_pages_free(&pages);  // released already: nothing
  }
  etr_pages_t zero;
  memset(&zero, 0, sizeof(zero));
  etr_pages_free(&zero);
  etr_pages_free(NULL);
}

Test(pages, impossible_sizes_fail_cleanly) {
  static const size_t kSizes[] = {SIZE_MAX, SIZE_MAX - 63, SIZE_MAX / 2};
  for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
    etr_pages_t pages;
    memset(&pages, 0xff, sizeof(pages));
    cr_assert_not(etr_pages_alloc(kSizes[s], &pages), "%zu bytes",
                  kSizes[s]);
    cr_assert_null(pages.data);
    cr_assert_null(pages.base);
    etr_pages_free(&pages);
  }
}
