// SPDX-License-Identifier: Apache-2.0
//
// Runs every golden case (datasets/golden/, from PyTorch's OpInfo samples
// and hand-written boundary cases; see datasets/golden/FORMAT.md) against
// the registered reference kernel of its op, found by name through the
// kernel registry (reference kernels plus core's prim ops).
//
// A kernel that is not registered yet is reported, not failed: coverage is
// tracked by reports/ops/coverage.md. Every case of a registered kernel
// must pass; a failure names the op, the case (OpInfo and sample, dtype,
// tolerance class, argument shapes) and the first differing element.
// The per-op summary goes to stderr, and, when ETREF_GOLDEN_RESULTS names
// a file (bazel test --test_env=ETREF_GOLDEN_RESULTS=$PWD/...), as JSON
// there for reports/ops/generate_coverage.py.
//
// The reader itself is tested on crafted malformed files and on every
// truncation and seeded byte mutation of a real golden file: it must
// reject or accept them, never crash (the suite also runs under ASan).
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/kernel.h"
#include "core/prim_ops.h"
#include "ops_reference/golden/golden_harness.h"
#include "ops_reference/golden/golden_reader.h"
#include "ops_reference/ops_reference.h"

#define GOLDEN_DIR "datasets/golden/"
#define INDEX_PATH GOLDEN_DIR "index.txt"
#define MAX_KERNELS 512
#define MAX_NAME 128
#define CASE_ARENA_BYTES ((size_t)64 << 20)
#define TEMP_ARENA_BYTES ((size_t)16 << 20)
#define FILE_ARENA_BYTES ((size_t)64 << 10)
#define FAILURES_SHOWN 25

typedef struct index_entry {
  char kernel[MAX_NAME];
  char file[MAX_NAME + 8];
  int value_cases;
  int error_cases;
} index_entry_t;

static size_t read_index(index_entry_t *entries, size_t capacity) {
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

static uint8_t *read_golden(const char *file, size_t *size) {
  char path[256];
  snprintf(path, sizeof(path), GOLDEN_DIR "%s", file);
  void *data = NULL;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_read_file(path, 0, &data, size, &diag);
  cr_assert_eq(status, ETR_OK, "cannot read %s: %s", path, diag.message);
  return (uint8_t *)data;
}

typedef struct op_result {
  const index_entry_t *entry;
  bool registered;
  int value_total, value_passed;
  int error_total, error_rejected;
  uint32_t dtypes_seen, dtypes_failed;  // bit per scalar type
  int failures;
  char first_failure[ETR_GOLDEN_MESSAGE_CAPACITY + 800];
} op_result_t;

static void build_registry(etr_kernel_registry_t *registry) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_registry_init(registry);
  cr_assert_eq(etr_registry_register_table(registry, etr_reference_kernels,
                                           etr_reference_kernel_count,
                                           ETR_KERNELS_REFERENCE, &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_registry_register_table(registry, etr_prim_kernels,
                                           etr_prim_kernel_count,
                                           ETR_KERNELS_REFERENCE, &diag),
               ETR_OK, "%s", diag.message);
}

static void run_kernel_file(const etr_kernel_registry_t *registry,
                            op_result_t *result, uint8_t *case_memory,
                            uint8_t *temp_memory, char *failure_log,
                            size_t failure_log_capacity,
                            size_t *failure_log_used, int *failures_shown) {
  const index_entry_t *entry = result->entry;
  const etr_kernel_entry_t *kernel = etr_registry_find(registry, entry->kernel);
  result->registered = kernel != NULL;
  result->value_total = entry->value_cases;
  result->error_total = entry->error_cases;
  if (kernel == NULL) {
    return;
  }
  etr_kernel_fn fn = etr_registry_select(kernel, ETR_KERNELS_REFERENCE);
  cr_assert_not_null(fn, "%s is registered without a reference kernel",
                     entry->kernel);
  size_t size = 0;
  uint8_t *data = read_golden(entry->file, &size);
  static uint8_t file_memory[FILE_ARENA_BYTES];
  etr_arena_t file_arena, case_arena, temp_arena;
  etr_arena_init(&file_arena, file_memory, sizeof(file_memory));
  etr_arena_init(&case_arena, case_memory, CASE_ARENA_BYTES);
  etr_arena_init(&temp_arena, temp_memory, TEMP_ARENA_BYTES);
  etr_golden_file_t file;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_golden_open(&file, data, size, &file_arena, &diag), ETR_OK,
               "%s: %s", entry->file, diag.message);
  cr_assert_str_eq(file.kernel.data, entry->kernel, "%s names kernel %s",
                   entry->file, file.kernel.data);
  for (;;) {
    etr_arena_reset(&case_arena);
    etr_arena_reset(&temp_arena);
    etr_golden_case_t golden;
    etr_diag_reset(&diag);
    etr_error_t status = etr_golden_next_case(&file, &case_arena, &golden,
                                              &diag);
    if (status == ETR_ERR_NOT_FOUND) {
      break;
    }
    cr_assert_eq(status, ETR_OK, "%s: %s", entry->file, diag.message);
    etr_golden_call_t call;
    cr_assert_eq(etr_golden_build_call(&golden, &case_arena, &call, &diag),
                 ETR_OK, "%s: %s", entry->file, diag.message);
    uint64_t rng_state = 0x9E3779B97F4A7C15ull ^ golden.index;
    etr_diag_t kernel_diag;
    etr_diag_reset(&kernel_diag);
    etr_kernel_context_t ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.diag = &kernel_diag;
    ctx.temp = &temp_arena;
    ctx.op_name = entry->kernel;
    ctx.rng_state = &rng_state;
    etr_error_t kernel_status = fn(&ctx, call.args, call.num_args);
    etr_golden_verdict_t verdict;
    etr_golden_check(&golden, &call, kernel_status, &kernel_diag, &verdict);
    bool is_error = golden.expect == ETR_GOLDEN_EXPECT_ERROR;
    uint32_t dtype_bit = golden.dtype < 32 ? 1u << golden.dtype : 0;
    if (!is_error) {
      result->dtypes_seen |= dtype_bit;
    }
    if (verdict.passed) {
      if (is_error) {
        ++result->error_rejected;
      } else {
        ++result->value_passed;
      }
      continue;
    }
    if (!is_error) {
      result->dtypes_failed |= dtype_bit;
    }
    char description[768];
    etr_golden_describe_case(&golden, description, sizeof(description));
    if (result->failures++ == 0) {
      snprintf(result->first_failure, sizeof(result->first_failure),
               "%s; %s", description, verdict.message);
    }
    if (*failures_shown < FAILURES_SHOWN &&
        *failure_log_used < failure_log_capacity) {
      int written = snprintf(failure_log + *failure_log_used,
                             failure_log_capacity - *failure_log_used,
                             "  %s %s\n      -> %s\n", entry->kernel,
                             description, verdict.message);
      if (written > 0) {
        *failure_log_used += (size_t)written;
        if (*failure_log_used > failure_log_capacity) {
          *failure_log_used = failure_log_capacity;
        }
      }
      ++*failures_shown;
    }
  }
  cr_assert_eq((int)file.case_count, entry->value_cases + entry->error_cases,
               "%s holds %u cases, index.txt says %d", entry->file,
               (unsigned)file.case_count,
               entry->value_cases + entry->error_cases);
  free(data);
}

static void json_string(FILE *out, const char *text) {
  fputc('"', out);
  for (const char *p = text; *p != '\0'; ++p) {
    unsigned char ch = (unsigned char)*p;
    if (ch == '"' || ch == '\\') {
      fprintf(out, "\\%c", ch);
    } else if (ch < 0x20) {
      fprintf(out, "\\u%04x", ch);
    } else {
      fputc(ch, out);
    }
  }
  fputc('"', out);
}

static void json_dtypes(FILE *out, uint32_t bits) {
  fputc('[', out);
  bool first = true;
  for (int t = 0; t < 32; ++t) {
    if (bits & (1u << t)) {
      fprintf(out, first ? "" : ", ");
      json_string(out, etr_scalar_type_name((etr_scalar_type_t)t));
      first = false;
    }
  }
  fputc(']', out);
}

static void write_results(const char *path, const op_result_t *results,
                          size_t count) {
  FILE *out = fopen(path, "w");
  cr_assert_not_null(out, "cannot write ETREF_GOLDEN_RESULTS=%s", path);
  fprintf(out, "{\n \"generator\": \"//ops_reference/golden:golden_test\",\n"
               " \"ops\": [\n");
  for (size_t i = 0; i < count; ++i) {
    const op_result_t *r = &results[i];
    fprintf(out, "  {\"kernel\": ");
    json_string(out, r->entry->kernel);
    fprintf(out,
            ", \"registered\": %s, \"value_cases\": %d, \"value_passed\": %d,"
            " \"error_cases\": %d, \"errors_rejected\": %d,"
            " \"dtypes_passed\": ",
            r->registered ? "true" : "false", r->value_total, r->value_passed,
            r->error_total, r->error_rejected);
    json_dtypes(out, r->registered ? r->dtypes_seen & ~r->dtypes_failed : 0);
    fprintf(out, ", \"dtypes_failed\": ");
    json_dtypes(out, r->dtypes_failed);
    fprintf(out, ", \"failures\": %d, \"first_failure\": ", r->failures);
    json_string(out, r->first_failure);
    fprintf(out, "}%s\n", i + 1 < count ? "," : "");
  }
  fprintf(out, " ]\n}\n");
  fclose(out);
}

Test(golden, every_case_of_every_registered_kernel, .timeout = 1200) {
  static index_entry_t entries[MAX_KERNELS];
  static op_result_t results[MAX_KERNELS];
  static etr_kernel_registry_t registry;
  size_t count = read_index(entries, MAX_KERNELS);
  cr_assert_gt(count, 0, "index.txt lists no golden files");
  build_registry(&registry);
  uint8_t *case_memory = (uint8_t *)aligned_alloc(64, CASE_ARENA_BYTES);
  uint8_t *temp_memory = (uint8_t *)aligned_alloc(64, TEMP_ARENA_BYTES);
  static char failure_log[64 << 10];  // static: cr_assert_fail does not return
  size_t log_capacity = sizeof(failure_log), log_used = 0;
  cr_assert(case_memory && temp_memory);
  int failures_shown = 0;
  for (size_t i = 0; i < count; ++i) {
    memset(&results[i], 0, sizeof(results[i]));
    results[i].entry = &entries[i];
    run_kernel_file(&registry, &results[i], case_memory, temp_memory,
                    failure_log, log_capacity, &log_used, &failures_shown);
  }
  int registered = 0, value_total = 0, value_passed = 0, error_total = 0;
  int error_rejected = 0, failures = 0, missing_cases = 0;
  fprintf(stderr, "golden: per-op results (value cases passed/total, "
                  "error cases rejected/total)\n");
  for (size_t i = 0; i < count; ++i) {
    const op_result_t *r = &results[i];
    if (!r->registered) {
      missing_cases += r->value_total + r->error_total;
      continue;
    }
    ++registered;
    value_total += r->value_total;
    value_passed += r->value_passed;
    error_total += r->error_total;
    error_rejected += r->error_rejected;
    failures += r->failures;
    fprintf(stderr, "  %-48s %4d/%-4d %3d/%-3d%s\n", r->entry->kernel,
            r->value_passed, r->value_total, r->error_rejected, r->error_total,
            r->failures ? "  FAILED" : "");
  }
  fprintf(stderr, "  no kernel yet (%zu ops, %d cases):", count - registered,
          missing_cases);
  for (size_t i = 0; i < count; ++i) {
    if (!results[i].registered) {
      fprintf(stderr, " %s", results[i].entry->kernel);
    }
  }
  fprintf(stderr, "\ngolden: %d ops with a kernel: %d/%d value cases passed, "
                  "%d/%d error cases rejected, %d failures\n",
          registered, value_passed, value_total, error_rejected, error_total,
          failures);
  const char *results_path = getenv("ETREF_GOLDEN_RESULTS");
  if (results_path != NULL && results_path[0] != '\0') {
    write_results(results_path, results, count);
  }
  free(case_memory);
  free(temp_memory);
  if (failures > 0) {
    cr_assert_fail("%d golden cases failed in %d registered kernels; first %d:\n%s",
            failures, registered, failures_shown, failure_log);
  }
}

// Every file parses completely, matches index.txt, and every case builds
// into a call, whether or not a kernel exists for it.
Test(golden_reader, reads_and_builds_every_file, .timeout = 600) {
  static index_entry_t entries[MAX_KERNELS];
  size_t count = read_index(entries, MAX_KERNELS);
  uint8_t *case_memory = (uint8_t *)aligned_alloc(64, CASE_ARENA_BYTES);
  static uint8_t file_memory[FILE_ARENA_BYTES];
  cr_assert_not_null(case_memory);
  for (size_t i = 0; i < count; ++i) {
    size_t size = 0;
    uint8_t *data = read_golden(entries[i].file, &size);
    etr_arena_t file_arena, case_arena;
    etr_arena_init(&file_arena, file_memory, sizeof(file_memory));
    etr_arena_init(&case_arena, case_memory, CASE_ARENA_BYTES);
    etr_golden_file_t file;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    cr_assert_eq(etr_golden_open(&file, data, size, &file_arena, &diag),
                 ETR_OK, "%s: %s", entries[i].file, diag.message);
    cr_assert_str_eq(file.generator.data, "datasets/ops/generate_golden.py");
    int values = 0, errors = 0;
    etr_golden_case_t golden;
    etr_error_t status;
    while ((status = etr_golden_next_case(&file, &case_arena, &golden,
                                          &diag)) == ETR_OK) {
      etr_golden_call_t call;
      cr_assert_eq(etr_golden_build_call(&golden, &case_arena, &call, &diag),
                   ETR_OK, "%s: %s", entries[i].file, diag.message);
      values += golden.expect == ETR_GOLDEN_EXPECT_VALUES;
      errors += golden.expect == ETR_GOLDEN_EXPECT_ERROR;
      etr_arena_reset(&case_arena);
    }
    cr_assert_eq(status, ETR_ERR_NOT_FOUND, "%s: %s", entries[i].file,
                 diag.message);
    cr_assert_eq(values, entries[i].value_cases, "%s", entries[i].file);
    cr_assert_eq(errors, entries[i].error_cases, "%s", entries[i].file);
    free(data);
  }
  free(case_memory);
}

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
  uint8_t *data = read_golden("aten__add.out.bin", &size);
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
