// SPDX-License-Identifier: Apache-2.0
//
// The golden reader on untrusted input: crafted malformed images must be
// rejected with InvalidProgram, and every truncation and seeded byte
// mutation of a real golden file must be rejected or accepted without a
// crash or an out-of-bounds access (the suite also runs under ASan).
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "ops_reference/golden/golden_harness.h"
#include "ops_reference/golden/golden_reader.h"
#include "ops_reference/golden/golden_test_files.h"

#define CASE_ARENA_BYTES ((size_t)64 << 20)
#define FILE_ARENA_BYTES ((size_t)64 << 10)

// Parses (and builds) every case of an image; returns the first non-OK
// status other than the end marker, or OK.
static etr_error_t parse_all(const uint8_t *data, size_t size,
                             uint8_t *case_memory, size_t case_bytes) {
  static uint8_t file_memory[FILE_ARENA_BYTES];
  etr_arena_t file_arena, case_arena;
  etr_arena_init(&file_arena, file_memory, sizeof(file_memory));
  etr_arena_init(&case_arena, case_memory, case_bytes);
  etr_golden_file_t file;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_golden_open(&file, data, size, &file_arena, &diag);
  if (status != ETR_OK) {
    return status;
  }
  etr_golden_case_t golden;
  while ((status = etr_golden_next_case(&file, &case_arena, &golden,
                                        &diag)) == ETR_OK) {
    etr_golden_call_t call;
    status = etr_golden_build_call(&golden, &case_arena, &call, &diag);
    if (status != ETR_OK) {
      return status;
    }
    etr_arena_reset(&case_arena);
  }
  return status == ETR_ERR_NOT_FOUND ? ETR_OK : status;
}

// A small golden image built by hand: header plus the given case bodies.
typedef struct image {
  uint8_t bytes[512];
  size_t size;
} image_t;

static void put(image_t *im, const void *data, size_t n) {
  cr_assert_leq(im->size + n, sizeof(im->bytes));
  memcpy(im->bytes + im->size, data, n);
  im->size += n;
}
static void put_u8(image_t *im, uint8_t v) { put(im, &v, 1); }
static void put_u32(image_t *im, uint32_t v) { put(im, &v, 4); }
static void put_i64(image_t *im, int64_t v) { put(im, &v, 8); }
static void put_string(image_t *im, const char *s) {
  put_u32(im, (uint32_t)strlen(s));
  put(im, s, strlen(s));
}
static void put_header(image_t *im, uint32_t version, uint32_t cases) {
  im->size = 0;
  put(im, "ETRGOLD", 8);  // includes the NUL
  put_u32(im, version);
  put_u32(im, 0);
  put_string(im, "test");
  put_string(im, "test");
  put_string(im, "aten::neg.out");
  put_string(im, "aten::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  put_u32(im, cases);
}

// Appends one case: a Float[dim x 2] input (dim and the value byte count
// are parameters so tests can corrupt them), an out spec, and expected
// values of the same shape.
static void put_case(image_t *im, uint8_t dim, uint64_t value_bytes,
                     uint8_t tag) {
  image_t body = {{0}, 0};
  put_u8(&body, ETR_GOLDEN_EXPECT_VALUES);
  put_u8(&body, ETR_GOLDEN_TOL_EXACT);
  put_u8(&body, ETR_GOLDEN_SOURCE_BOUNDARY);
  put_u8(&body, ETR_FLOAT);
  put_u32(&body, 0);
  put_u32(&body, 0);
  put_string(&body, "boundary:test");
  put_string(&body, "");
  put_u32(&body, 2);
  put_u8(&body, tag);  // the input tensor
  put_u8(&body, ETR_FLOAT);
  put_u8(&body, dim);
  put_u8(&body, 0);
  put_u8(&body, 0);
  for (uint8_t i = 0; i < dim && i < 4; ++i) {
    put_i64(&body, 2);
  }
  put(&body, &value_bytes, 8);
  float values[16] = {1, -2, 3, -4};
  put(&body, values, value_bytes <= sizeof(values) ? value_bytes : 0);
  put_u8(&body, ETR_GOLDEN_OUT_TENSOR);
  put_u8(&body, ETR_FLOAT);
  put_u8(&body, 1);
  put_u8(&body, 0);
  put_u8(&body, 0);
  put_i64(&body, 2);
  put_u32(&body, 1);
  put_u8(&body, ETR_GOLDEN_TENSOR);
  put_u8(&body, ETR_FLOAT);
  put_u8(&body, 1);
  put_u8(&body, 0);
  put_u8(&body, 0);
  put_i64(&body, 2);
  uint64_t out_bytes = 8;
  put(&body, &out_bytes, 8);
  put(&body, values, 8);
  put_u32(im, (uint32_t)body.size);
  put(im, body.bytes, body.size);
}

static etr_error_t parse_image(const image_t *im) {
  static uint8_t memory[1 << 20];
  uint8_t *copy = (uint8_t *)malloc(im->size ? im->size : 1);
  cr_assert_not_null(copy);
  memcpy(copy, im->bytes, im->size);
  etr_error_t status = parse_all(copy, im->size, memory, sizeof(memory));
  free(copy);
  return status;
}

Test(golden_reader, accepts_a_well_formed_image) {
  image_t im;
  put_header(&im, ETR_GOLDEN_VERSION, 1);
  put_case(&im, 1, 8, ETR_GOLDEN_TENSOR);
  cr_assert_eq(parse_image(&im), ETR_OK);
}

Test(golden_reader, rejects_malformed_images_with_invalid_program) {
  image_t im;
  put_header(&im, ETR_GOLDEN_VERSION, 1);
  put_case(&im, 1, 8, ETR_GOLDEN_TENSOR);
  image_t bad = im;
  bad.bytes[0] = 'X';
  cr_assert_eq(parse_image(&bad), ETR_ERR_INVALID_PROGRAM, "bad magic");
  put_header(&bad, ETR_GOLDEN_VERSION + 1, 1);
  cr_assert_eq(parse_image(&bad), ETR_ERR_INVALID_PROGRAM, "future version");
  put_header(&bad, ETR_GOLDEN_VERSION, 2);
  put_case(&bad, 1, 8, ETR_GOLDEN_TENSOR);
  cr_assert_eq(parse_image(&bad), ETR_ERR_INVALID_PROGRAM, "missing case");
  put_header(&bad, ETR_GOLDEN_VERSION, 1);
  put_case(&bad, 17, 8, ETR_GOLDEN_TENSOR);
  cr_assert_eq(parse_image(&bad), ETR_ERR_INVALID_PROGRAM, "rank 17");
  put_header(&bad, ETR_GOLDEN_VERSION, 1);
  put_case(&bad, 1, 12, ETR_GOLDEN_TENSOR);
  cr_assert_eq(parse_image(&bad), ETR_ERR_INVALID_PROGRAM,
               "value bytes do not match the shape");
  put_header(&bad, ETR_GOLDEN_VERSION, 1);
  put_case(&bad, 1, UINT64_MAX, ETR_GOLDEN_TENSOR);
  cr_assert_eq(parse_image(&bad), ETR_ERR_INVALID_PROGRAM, "huge value size");
  put_header(&bad, ETR_GOLDEN_VERSION, 1);
  put_case(&bad, 1, 8, 99);
  cr_assert_eq(parse_image(&bad), ETR_ERR_INVALID_PROGRAM, "unknown tag");
  bad = im;
  put_u8(&bad, 0);
  cr_assert_eq(parse_image(&bad), ETR_ERR_INVALID_PROGRAM, "trailing byte");
  bad = im;
  // The case size field sits right after the header; claim one byte more.
  size_t case_size_at = 8 + 4 + 4 + (4 + 4) + (4 + 4) + (4 + 13) +
                 (4 + strlen("aten::neg.out(Tensor self, *, Tensor(a!) out) -> "
                             "Tensor(a!)")) +
                 4;
  uint32_t claimed = 0;
  memcpy(&claimed, bad.bytes + case_size_at, 4);
  claimed += 1;
  memcpy(bad.bytes + case_size_at, &claimed, 4);
  cr_assert_eq(parse_image(&bad), ETR_ERR_INVALID_PROGRAM,
               "case size beyond the file");
}

Test(golden_reader, survives_truncation_and_mutation, .timeout = 600) {
  size_t size = 0;
  uint8_t *data = golden_read_file("aten__add.out.bin", &size);
  uint8_t *copy = (uint8_t *)malloc(size);
  uint8_t *case_memory = (uint8_t *)aligned_alloc(64, CASE_ARENA_BYTES);
  cr_assert(copy && case_memory);
  cr_assert_eq(parse_all(data, size, case_memory, CASE_ARENA_BYTES), ETR_OK);
  // Every truncation of the first 2 KiB, then every 61st length: all must
  // be rejected (the file ends early), none may crash.
  for (size_t cut = 0; cut < size; cut += cut < 2048 ? 1 : 61) {
    memcpy(copy, data, cut);
    etr_error_t status = parse_all(copy, cut, case_memory, CASE_ARENA_BYTES);
    cr_assert_neq(status, ETR_OK, "a file cut at %zu of %zu bytes parsed",
                  cut, size);
  }
  // Seeded single- and multi-byte mutations: any status is fine, a crash
  // or an out-of-bounds access (ASan) is not.
  uint64_t state = 0x243F6A8885A308D3ull;
  int rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    memcpy(copy, data, size);
    int flips = 1 + round % 4;
    for (int f = 0; f < flips; ++f) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      copy[state % size] = (uint8_t)(state >> 32);
    }
    rejected += parse_all(copy, size, case_memory, CASE_ARENA_BYTES) != ETR_OK;
  }
  cr_log_info("golden reader: %d of 3000 mutated files rejected", rejected);
  free(case_memory);
  free(copy);
  free(data);
}
