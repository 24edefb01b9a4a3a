// SPDX-License-Identifier: Apache-2.0
//
// The movement microkernels and engine (ops_optimized/movement/) against
// plain loops, on every ISA this machine has:
//   transpose  every element size, rows and columns around each tile edge
//              (0, 1, t-1, t, t+1, 2t+1 for the 2/4/8/16/32/64 tiles),
//              padded strides; the destination's padding and the bytes
//              after it must stay untouched, and the source buffer ends
//              exactly at the block (ASan sees any read past it);
//   fill       element sizes 1..16 (3 and 5 take the portable path),
//              counts 0..300 and a large one, uniform and mixed bytes,
//              a guard after the end;
//   replicate  row lengths around every vector width (0..300 bytes and
//              a few long ones), 0, 1 and 3 rows and one output above the
//              L2, destination offsets 0..63 bytes, gaps between rows; the
//              gaps and the bytes after the end must stay untouched, and
//              the source buffer ends exactly at the row;
//   rows       the same lengths and 0, 1, 3 and 17 rows between gapped
//              strides, the source read forwards or backwards (the pad's
//              and a slice's short rows);
//   evens      4- and 8-byte elements, counts 0..300 and a few long
//              ones, destination offsets; the source buffer ends exactly
//              at the last even element and a guard after the
//              destination must stay untouched;
//   in_range   Long and Int entries, counts 0..40, around 1024 (the
//              kernels' check interval) and larger, inside [low, size)
//              (to both ends) or with one entry just past either end or
//              at the type's extremes, at positions across the vector
//              steps and the check interval; the source buffer ends
//              exactly at the last entry;
//   reverse    4- and 8-byte elements, counts 0..300 and a few long
//              ones, destination offsets; the source starts at the run's
//              first element and a guard after the destination must stay
//              untouched;
//   engine     random boxes (rank 1-6, permuted, sliced, broadcast,
//              size-1 dims) moved with etr_move_strided, compared with an
//              element-by-element copy.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/movement/movement.h"
#include "ops_optimized/test/diff.h"

static uint64_t g_rng = 12345;

static uint64_t next_random(void) {
  uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void random_bytes(uint8_t *bytes, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    bytes[i] = (uint8_t)next_random();
  }
}

// 10..14: the AVX-512 fp32 tile's constant-row edge versions.
static const size_t kEdges[] = {0,  1,  2,  3,  4,  5,  7,  8,  9,  10, 11, 12,
                                13, 14, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                129};
#define NUM_EDGES (sizeof(kEdges) / sizeof(kEdges[0]))
#define GUARD 64

// One transpose case on one ISA; returns 1 on a mismatch.
static int check_transpose(etr_isa_t isa, size_t size, size_t rows,
                           size_t columns, size_t src_pad, size_t dst_pad) {
  size_t src_stride = (columns + src_pad) * size;
  size_t dst_stride = (rows + dst_pad) * size;
  // The source ends where the block's last element does.
  size_t src_bytes = rows == 0 || columns == 0
                         ? 1
                         : (rows - 1) * src_stride + columns * size;
  size_t dst_bytes = columns * dst_stride + GUARD;
  uint8_t *src = (uint8_t *)tt_alloc(src_bytes);
  uint8_t *expected = (uint8_t *)tt_alloc(dst_bytes);
  uint8_t *actual = (uint8_t *)tt_alloc(dst_bytes);
  random_bytes(src, src_bytes);
  memset(expected, 0xa5, dst_bytes);
  memset(actual, 0xa5, dst_bytes);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < columns; ++c) {
      memcpy(expected + c * dst_stride + r * size,
             src + r * src_stride + c * size, size);
    }
  }
  etr_move_transpose_fn transpose = etr_move_transpose_for(isa, size);
  cr_assert_not_null(transpose);
  transpose(rows, columns, src, src_stride, actual, dst_stride);
  if (memcmp(expected, actual, dst_bytes) != 0) {
    fprintf(stderr,
            "transpose x%zu %s: %zu x %zu (pads %zu, %zu) disagrees\n",
            size * 8, etr_isa_name(isa), rows, columns, src_pad, dst_pad);
    return 1;
  }
  return 0;
}

TT_TEST(diff_movement_kernels, transpose) {
  int failures = 0;
  int checked = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    for (size_t size = 1; size <= 8; size *= 2) {
      for (size_t i = 0; i < NUM_EDGES; ++i) {
        for (size_t j = 0; j < NUM_EDGES; ++j) {
          size_t pads = next_random() % 4;
          failures += check_transpose((etr_isa_t)isa, size, kEdges[i],
                                      kEdges[j], pads, (pads * 7) % 3);
          ++checked;
        }
      }
    }
    tt_free_all();
  }
  cr_assert_eq(failures, 0, "%d of %d transposes disagree", failures,
               checked);
  cr_assert_null(etr_move_transpose_for(ETR_ISA_SCALAR, 16));
}

TT_TEST(diff_movement_kernels, in_range) {
  static const size_t kCounts[] = {0,    1,    2,    3,    4,    7,    8,
                                   9,    15,   16,   17,   31,   33,   40,
                                   1023, 1024, 1025, 1031, 2047, 2049, 5000};
  int failures = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_move_in_range_fn in_range = etr_move_in_range_for((etr_isa_t)isa);
    for (size_t c = 0; c < sizeof(kCounts) / sizeof(kCounts[0]); ++c) {
      const size_t count = kCounts[c];
      for (int is_long = 0; is_long < 2; ++is_long) {
        for (int wrap = 0; wrap < 2; ++wrap) {
          const int64_t size = wrap ? 300 : 3000000000;  // past int32 too
          const int64_t low = wrap ? -size : 0;
          const size_t width = is_long ? 8 : 4;
          // Int entries cannot reach 3e9: their range is [low, INT32_MAX].
          const int64_t top = is_long || size <= INT32_MAX ? size - 1
                                                           : INT32_MAX;
          // The block ends a byte past the last entry (tt_alloc adds
          // one): ASan sees a wider read past it.
          void *entries = tt_alloc(count > 0 ? count * width : 1);
          for (size_t k = 0; k < count; ++k) {
            const uint64_t bits = next_random();
            // Both ends among the values.
            int64_t value = k % 5 == 0   ? low
                            : k % 5 == 1 ? top
                                         : low + (int64_t)(bits % (uint64_t)
                                                               (top - low));
            if (is_long) {
              ((int64_t *)entries)[k] = value;
            } else {
              ((int32_t *)entries)[k] = (int32_t)value;
            }
          }
          if (!in_range(entries, is_long, count, low, size)) {
            ++failures;
            cr_log_error("%s: in-range %s count %zu wrap %d refused",
                         etr_isa_name((etr_isa_t)isa),
                         is_long ? "Long" : "Int", count, wrap);
          }
          // One entry outside, at positions across steps and intervals.
          const int64_t bad_long[] = {low - 1, size, INT64_MIN, INT64_MAX};
          const int64_t bad_int[] = {low - 1, wrap ? size : low - 1,
                                     INT32_MIN, wrap ? INT32_MAX : -7};
          const int64_t *bad = is_long ? bad_long : bad_int;
          for (size_t p = 0; p < count; p += p < 20 ? 1 : 97) {
            for (int b = 0; b < 4; ++b) {
              int64_t saved = 0;
              if (is_long) {
                saved = ((int64_t *)entries)[p];
                ((int64_t *)entries)[p] = bad[b];
              } else {
                saved = ((int32_t *)entries)[p];
                ((int32_t *)entries)[p] = (int32_t)bad[b];
              }
              if (in_range(entries, is_long, count, low, size)) {
                ++failures;
                cr_log_error("%s: %s count %zu wrap %d: %lld at %zu taken",
                             etr_isa_name((etr_isa_t)isa),
                             is_long ? "Long" : "Int", count, wrap,
                             (long long)bad[b], p);
              }
              if (is_long) {
                ((int64_t *)entries)[p] = saved;
              } else {
                ((int32_t *)entries)[p] = (int32_t)saved;
              }
            }
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d range checks wrong", failures);
}

TT_TEST(diff_movement_kernels, fill) {
  static const size_t kSizes[] = {1, 2, 3, 4, 5, 8, 16};
  int failures = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_move_fill_fn fill = etr_move_fill_for((etr_isa_t)isa);
    for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
      size_t size = kSizes[s];
      for (size_t count = 0; count <= 301; count += count < 40 ? 1 : 29) {
        for (int uniform = 0; uniform < 2; ++uniform) {
          size_t total = count == 301 ? 5003 : count;
          uint8_t element[16];
          random_bytes(element, size);
          if (uniform) {
            memset(element, element[0], size);
          }
          uint8_t *expected = (uint8_t *)tt_alloc(total * size + GUARD);
          uint8_t *actual = (uint8_t *)tt_alloc(total * size + GUARD);
          memset(expected, 0x3c, total * size + GUARD);
          memset(actual, 0x3c, total * size + GUARD);
          for (size_t i = 0; i < total; ++i) {
            memcpy(expected + i * size, element, size);
          }
          fill(actual, total, size, element);
          if (memcmp(expected, actual, total * size + GUARD) != 0) {
            fprintf(stderr, "fill %s: %zu x %zu bytes disagrees\n",
                    etr_isa_name((etr_isa_t)isa), total, size);
            ++failures;
          }
        }
      }
      tt_free_all();
    }
  }
  cr_assert_eq(failures, 0, "%d fills disagree", failures);
}

// One replicate case on one ISA: `rows` copies of a `bytes`-byte row to a
// destination `dst_offset` bytes into its buffer, rows `gap` bytes apart.
// Returns 1 on a mismatch.
static int check_replicate(etr_isa_t isa, size_t bytes, size_t rows,
                           size_t dst_offset, size_t gap) {
  size_t stride = bytes + gap;
  size_t dst_bytes = dst_offset + rows * stride + GUARD;
  uint8_t *src = (uint8_t *)tt_alloc(bytes > 0 ? bytes : 1);
  uint8_t *expected = (uint8_t *)tt_alloc(dst_bytes);
  uint8_t *actual = (uint8_t *)tt_alloc(dst_bytes);
  random_bytes(src, bytes);
  memset(expected, 0x5a, dst_bytes);
  memset(actual, 0x5a, dst_bytes);
  for (size_t r = 0; r < rows; ++r) {
    memcpy(expected + dst_offset + r * stride, src, bytes);
  }
  etr_move_replicate_fn replicate = etr_move_replicate_for(isa);
  replicate(actual + dst_offset, stride, rows, src, bytes);
  if (memcmp(expected, actual, dst_bytes) != 0) {
    fprintf(stderr,
            "replicate %s: %zu rows of %zu bytes (offset %zu, gap %zu) "
            "disagrees\n",
            etr_isa_name(isa), rows, bytes, dst_offset, gap);
    return 1;
  }
  return 0;
}

TT_TEST(diff_movement_kernels, replicate) {
  // Past 8 KiB the vector kernels copy a chunk of every row at a time:
  // one chunk and a byte, several with a partial last one.
  static const size_t kLong[] = {383,  384,  385,  511,  512,   513,
                                 1000, 4096, 4099, 8192, 8193, 20001};
  static const size_t kRows[] = {0, 1, 3};
  int failures = 0;
  int cases = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    for (size_t bytes = 0; bytes <= 300 + sizeof(kLong) / sizeof(kLong[0]);
         ++bytes) {
      size_t length = bytes <= 300 ? bytes : kLong[bytes - 301];
      for (size_t r = 0; r < sizeof(kRows) / sizeof(kRows[0]); ++r) {
        size_t offset = (bytes * 7 + r) % 64;  // 0..63 as lengths vary
        failures += check_replicate((etr_isa_t)isa, length, kRows[r], offset,
                                    bytes % 3 == 0 ? 0 : bytes % 11);
        ++cases;
      }
      tt_free_all();
    }
    for (size_t offset = 0; offset < 64; offset += 4) {  // 0..15 floats
      failures += check_replicate((etr_isa_t)isa, 4096, 2, offset, 0);
      failures += check_replicate((etr_isa_t)isa, 68, 5, offset, 0);
      cases += 2;
      tt_free_all();
    }
    // An output above the L2 (4.5 MiB).
    failures += check_replicate((etr_isa_t)isa, 4100, 1150, 4, 0);
    ++cases;
    tt_free_all();
  }
  cr_assert_gt(cases, 0);
  cr_assert_eq(failures, 0, "%d of %d replicates disagree", failures, cases);
}

// One strided-rows case on one ISA: `rows` rows of `bytes` bytes from a
// source whose rows are `bytes + src_gap` apart (last to first when
// `backwards`) to a destination `dst_offset` bytes into its buffer, rows
// `bytes + dst_gap` apart. Returns 1 on a mismatch.
static int check_rows(etr_isa_t isa, size_t bytes, size_t rows,
                      size_t dst_offset, size_t dst_gap, size_t src_gap,
                      bool backwards) {
  size_t dst_stride = bytes + dst_gap;
  size_t src_step = bytes + src_gap;
  size_t dst_bytes = dst_offset + rows * dst_stride + GUARD;
  size_t src_bytes = rows * src_step;
  uint8_t *src = (uint8_t *)tt_alloc(src_bytes > 0 ? src_bytes : 1);
  uint8_t *expected = (uint8_t *)tt_alloc(dst_bytes);
  uint8_t *actual = (uint8_t *)tt_alloc(dst_bytes);
  random_bytes(src, src_bytes);
  memset(expected, 0x5a, dst_bytes);
  memset(actual, 0x5a, dst_bytes);
  // The source buffer ends exactly at the last row read.
  const uint8_t *first = backwards && rows > 0
                             ? src + (rows - 1) * src_step
                             : src;
  ptrdiff_t src_stride = backwards ? -(ptrdiff_t)src_step
                                   : (ptrdiff_t)src_step;
  for (size_t r = 0; r < rows; ++r) {
    memcpy(expected + dst_offset + r * dst_stride,
           first + (ptrdiff_t)r * src_stride, bytes);
  }
  etr_move_rows_fn copy_rows = etr_move_rows_for(isa);
  copy_rows(actual + dst_offset, dst_stride, first, src_stride, rows, bytes);
  if (memcmp(expected, actual, dst_bytes) != 0) {
    fprintf(stderr,
            "rows %s: %zu rows of %zu bytes (offset %zu, gaps %zu/%zu%s) "
            "disagree\n",
            etr_isa_name(isa), rows, bytes, dst_offset, dst_gap, src_gap,
            backwards ? ", source backwards" : "");
    return 1;
  }
  return 0;
}

// One evens case on one ISA; returns 1 on a mismatch.
static int check_evens(etr_isa_t isa, size_t size, size_t count,
                       size_t dst_offset) {
  etr_move_evens_fn evens = etr_move_evens_for(isa, size);
  // The source ends at the last even element: its odd neighbour is out.
  size_t src_bytes = count == 0 ? 1 : (2 * count - 1) * size;
  size_t dst_bytes = dst_offset + count * size + GUARD;
  uint8_t *src = (uint8_t *)tt_alloc(src_bytes);
  uint8_t *expected = (uint8_t *)tt_alloc(dst_bytes);
  uint8_t *actual = (uint8_t *)tt_alloc(dst_bytes);
  random_bytes(src, src_bytes);
  memset(expected, 0x5a, dst_bytes);
  memset(actual, 0x5a, dst_bytes);
  for (size_t i = 0; i < count; ++i) {
    memcpy(expected + dst_offset + i * size, src + 2 * i * size, size);
  }
  evens(actual + dst_offset, src, count);
  if (memcmp(expected, actual, dst_bytes) != 0) {
    fprintf(stderr, "evens %s: %zu elements of %zu bytes (offset %zu) "
            "disagree\n", etr_isa_name(isa), count, size, dst_offset);
    return 1;
  }
  return 0;
}

TT_TEST(diff_movement_kernels, evens) {
  static const size_t kLong[] = {1023, 1024, 1025, 4099};
  int failures = 0;
  int cases = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    cr_assert_null(etr_move_evens_for((etr_isa_t)isa, 2));
    for (size_t size = 4; size <= 8; size += 4) {
      for (size_t n = 0; n <= 300 + sizeof(kLong) / sizeof(kLong[0]); ++n) {
        size_t count = n <= 300 ? n : kLong[n - 301];
        failures += check_evens((etr_isa_t)isa, size, count, (n * 4) % 64);
        ++cases;
        tt_free_all();
      }
    }
  }
  cr_assert_gt(cases, 0);
  cr_assert_eq(failures, 0, "%d of %d evens copies disagree", failures,
               cases);
}

// The reverse microkernel: dst[i] = src[-i]. The source block starts at
// the run's first element (malloc'd alone: ASan sees a read before it)
// and src is its last.
static int check_reverse(etr_move_reverse_fn reverse, etr_isa_t isa,
                         size_t size, size_t count, size_t dst_offset) {
  size_t src_bytes = count == 0 ? 1 : count * size;
  size_t dst_bytes = dst_offset + count * size + GUARD;
  uint8_t *src = (uint8_t *)malloc(src_bytes);
  uint8_t *expected = (uint8_t *)tt_alloc(dst_bytes);
  uint8_t *actual = (uint8_t *)tt_alloc(dst_bytes);
  cr_assert_not_null(src);
  random_bytes(src, src_bytes);
  memset(expected, 0x5a, dst_bytes);
  memset(actual, 0x5a, dst_bytes);
  const uint8_t *last = src + (count == 0 ? 0 : (count - 1) * size);
  for (size_t i = 0; i < count; ++i) {
    memcpy(expected + dst_offset + i * size, last - i * size, size);
  }
  reverse(actual + dst_offset, last, count);
  free(src);
  if (memcmp(expected, actual, dst_bytes) != 0) {
    fprintf(stderr, "reverse %s: %zu elements of %zu bytes (offset %zu) "
            "disagree\n", etr_isa_name(isa), count, size, dst_offset);
    return 1;
  }
  return 0;
}

// reverse: 4- and 8-byte elements on the ISAs with a kernel (none for
// other sizes), counts 0..300 and a few long ones, destination offsets;
// a guard after the destination must stay untouched.
TT_TEST(diff_movement_kernels, reverse) {
  static const size_t kLong[] = {1023, 1024, 1025, 4099};
  int failures = 0;
  int cases = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    cr_assert_null(etr_move_reverse_for((etr_isa_t)isa, 2));
    for (size_t size = 4; size <= 8; size += 4) {
      etr_move_reverse_fn reverse = etr_move_reverse_for((etr_isa_t)isa, size);
      if (reverse == NULL) {
        continue;
      }
      for (size_t n = 0; n <= 300 + sizeof(kLong) / sizeof(kLong[0]); ++n) {
        size_t count = n <= 300 ? n : kLong[n - 301];
        failures += check_reverse(reverse, (etr_isa_t)isa, size, count,
                                  (n * 4) % 64);
        ++cases;
        tt_free_all();
      }
    }
  }
#if defined(__x86_64__)
  cr_assert_gt(cases, 0);
#endif
  cr_assert_eq(failures, 0, "%d of %d reverse copies disagree", failures,
               cases);
}

TT_TEST(diff_movement_kernels, strided_rows) {
  static const size_t kLong[] = {383, 384, 385, 1000, 1024, 4099};
  static const size_t kRows[] = {0, 1, 3, 17};
  int failures = 0;
  int cases = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    for (size_t bytes = 0; bytes <= 300 + sizeof(kLong) / sizeof(kLong[0]);
         ++bytes) {
      size_t length = bytes <= 300 ? bytes : kLong[bytes - 301];
      for (size_t r = 0; r < sizeof(kRows) / sizeof(kRows[0]); ++r) {
        size_t offset = (bytes * 5 + r) % 64;
        failures += check_rows((etr_isa_t)isa, length, kRows[r], offset,
                               bytes % 7, bytes % 13, (bytes + r) % 4 == 3);
        ++cases;
      }
      tt_free_all();
    }
  }
  cr_assert_gt(cases, 0);
  cr_assert_eq(failures, 0, "%d of %d strided row copies disagree", failures,
               cases);
}

// Expanded rows whose destination rows overlap (stride 4 elements, rows
// of 8): the engine must keep row-major order (the last row wins), so it
// must not hand them to the replicate kernel, which writes in any order.
TT_TEST(diff_movement_kernels, replicate_overlapping_rows) {
  int failures = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    uint32_t src[8];
    uint32_t expected[16];
    uint32_t actual[16];
    for (int i = 0; i < 8; ++i) {
      src[i] = (uint32_t)i + 1;
    }
    memset(expected, 0, sizeof(expected));
    memset(actual, 0, sizeof(actual));
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 8; ++c) {
        expected[r * 4 + c] = src[c];
      }
    }
    etr_isa_force((etr_isa_t)isa);
    etr_move_strided(4, 2, (const int64_t[]){3, 8}, actual,
                     (const int64_t[]){4, 1}, src, (const int64_t[]){0, 1});
    etr_isa_reset();
    if (memcmp(expected, actual, sizeof(expected)) != 0) {
      fprintf(stderr, "overlapping rows %s disagree\n",
              etr_isa_name((etr_isa_t)isa));
      ++failures;
    }
  }
  cr_assert_eq(failures, 0, "%d overlapping-row moves disagree", failures);
}

// A random box: src is a (permuted, sliced, broadcast) view of a buffer,
// dst a dense buffer in a random dim order; checks etr_move_strided
// against an element loop.
static int check_engine(etr_isa_t isa, int trial) {
  static const size_t kElementSizes[] = {1, 2, 4, 8, 16};
  size_t size = kElementSizes[next_random() % 5];
  int32_t dim = 1 + (int32_t)(next_random() % 6);
  int64_t sizes[ETR_MAX_DIMS];
  int64_t numel = 1;
  for (int32_t d = 0; d < dim; ++d) {
    sizes[d] = (int64_t)(next_random() % 6);  // 0..5 (0 now and then)
    sizes[d] = sizes[d] == 0 && next_random() % 4 != 0 ? 1 : sizes[d];
    numel *= sizes[d];
  }
  // Source: a dense buffer with random per-dim extents >= sizes (a slice
  // at a random step), its dims in a random order; some dims broadcast.
  int64_t extent[ETR_MAX_DIMS];
  int64_t step[ETR_MAX_DIMS];
  int32_t order[ETR_MAX_DIMS];
  for (int32_t d = 0; d < dim; ++d) {
    step[d] = 1 + (int64_t)(next_random() % 2);
    extent[d] = sizes[d] * step[d] + (int64_t)(next_random() % 2);
    order[d] = d;
  }
  for (int32_t d = dim - 1; d > 0; --d) {
    int32_t other = (int32_t)(next_random() % (uint64_t)(d + 1));
    int32_t swap = order[d];
    order[d] = order[other];
    order[other] = swap;
  }
  int64_t src_strides[ETR_MAX_DIMS];
  int64_t stride = 1;
  for (int32_t k = dim - 1; k >= 0; --k) {
    int32_t d = order[k];
    src_strides[d] = stride * step[d];
    stride *= extent[d] > 0 ? extent[d] : 1;
    if (next_random() % 5 == 0) {
      src_strides[d] = 0;  // broadcast
    }
  }
  int64_t src_elements = stride;
  // Destination: dense in another random order.
  for (int32_t d = dim - 1; d > 0; --d) {
    int32_t other = (int32_t)(next_random() % (uint64_t)(d + 1));
    int32_t swap = order[d];
    order[d] = order[other];
    order[other] = swap;
  }
  int64_t dst_strides[ETR_MAX_DIMS];
  stride = 1;
  for (int32_t k = dim - 1; k >= 0; --k) {
    dst_strides[order[k]] = stride;
    stride *= sizes[order[k]] > 0 ? sizes[order[k]] : 1;
  }
  size_t dst_bytes = (size_t)stride * size + GUARD;
  uint8_t *src = (uint8_t *)tt_alloc((size_t)src_elements * size);
  uint8_t *expected = (uint8_t *)tt_alloc(dst_bytes);
  uint8_t *actual = (uint8_t *)tt_alloc(dst_bytes);
  random_bytes(src, (size_t)src_elements * size);
  memset(expected, 0x77, dst_bytes);
  memset(actual, 0x77, dst_bytes);
  int64_t index[ETR_MAX_DIMS] = {0};
  for (int64_t i = 0; i < numel; ++i) {
    int64_t s = 0;
    int64_t t = 0;
    for (int32_t d = 0; d < dim; ++d) {
      s += index[d] * src_strides[d];
      t += index[d] * dst_strides[d];
    }
    memcpy(expected + t * (int64_t)size, src + s * (int64_t)size, size);
    etr_index_next(index, sizes, dim);
  }
  etr_isa_force(isa);
  etr_move_strided(size, dim, sizes, actual, dst_strides, src, src_strides);
  etr_isa_reset();
  if (memcmp(expected, actual, dst_bytes) != 0) {
    fprintf(stderr, "engine %s: trial %d (rank %d, %zu-byte) disagrees\n",
            etr_isa_name(isa), trial, (int)dim, size);
    return 1;
  }
  return 0;
}

TT_TEST(diff_movement_kernels, engine) {
  int failures = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    for (int trial = 0; trial < 1500; ++trial) {
      failures += check_engine((etr_isa_t)isa, trial);
      if (trial % 100 == 99) {
        tt_free_all();
      }
    }
  }
  cr_assert_eq(failures, 0, "%d engine moves disagree", failures);
}

// Big 2-D transposes through the engine (the permute_copy of a linear
// weight), fp32 and fp16, odd sizes.
TT_TEST(diff_movement_kernels, engine_large_transpose) {
  // {10, 2048}: the CNN's classifier weight (10-row tiles, dense 40-byte
  // destination rows); {10, 128}: MobileNetV2's; {1024, 17}: fp32
  // destination rows 4 KiB apart (the AVX-512 rolled full tile).
  static const int64_t kShapes[][2] = {{257, 131}, {64, 1000}, {3, 1025},
                                       {10, 2048}, {10, 128}, {1024, 17}};
  int failures = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    for (size_t s = 0; s < sizeof(kShapes) / sizeof(kShapes[0]); ++s) {
      for (size_t size = 2; size <= 4; size += 2) {
        int64_t rows = kShapes[s][0];
        int64_t columns = kShapes[s][1];
        size_t bytes = (size_t)(rows * columns) * size;
        uint8_t *src = (uint8_t *)tt_alloc(bytes);
        uint8_t *actual = (uint8_t *)tt_alloc(bytes);
        random_bytes(src, bytes);
        // out[c][r] = src[r][c]: out shape [columns, rows].
        int64_t sizes[2] = {columns, rows};
        int64_t dst_strides[2] = {rows, 1};
        int64_t src_strides[2] = {1, columns};
        etr_isa_force((etr_isa_t)isa);
        etr_move_strided(size, 2, sizes, actual, dst_strides, src,
                         src_strides);
        etr_isa_reset();
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t c = 0; c < columns; ++c) {
            failures += memcmp(actual + (size_t)(c * rows + r) * size,
                               src + (size_t)(r * columns + c) * size,
                               size) != 0;
          }
        }
        tt_free_all();
      }
    }
  }
  cr_assert_eq(failures, 0, "%d transposed elements disagree", failures);
}
