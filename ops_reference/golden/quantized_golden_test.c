// SPDX-License-Identifier: Apache-2.0
//
// Runs the golden cases of the quantized_decomposed kernels
// (datasets/golden_quantized/, written by
// datasets/ops/generate_quantized_golden.py: ExecuTorch 1.5.1's runtime
// as the oracle where it defines the result, PyTorch eager where it aborts
// or its result is undefined; the generator's stats.json says which, case
// by case) against etref's reference kernels, with the golden harness of
// golden_test.c. Every case is exact: integer outputs, and the float
// outputs too, since etref computes the same float operations as
// ExecuTorch's kernels. Each call is preceded by a dry run that must agree
// with it (the same status, or OK when the real call fails on values), and
// every kernel in the index must be registered.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/kernel.h"
#include "ops_reference/golden/golden_harness.h"
#include "ops_reference/golden/golden_reader.h"
#include "ops_reference/ops_reference.h"

#define QGOLDEN_DIR "datasets/golden_quantized/"
#define CASE_ARENA_BYTES ((size_t)4 << 20)
#define FILE_ARENA_BYTES ((size_t)64 << 10)
#define MAX_KERNELS 32

typedef struct entry {
  char kernel[128];
  char file[160];
  int value_cases;
  int error_cases;
} entry_t;

static size_t read_index(entry_t *entries, size_t capacity) {
  void *data = NULL;
  size_t size = 0;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_read_file(QGOLDEN_DIR "index.txt", 0, &data, &size, &diag),
               ETR_OK, "%s", diag.message);
  size_t count = 0;
  for (char *line = strtok((char *)data, "\n"); line != NULL;
       line = strtok(NULL, "\n")) {
    if (line[0] == '#' || line[0] == '\0') {
      continue;
    }
    cr_assert_lt(count, capacity, "index.txt lists too many kernels");
    entry_t *e = &entries[count++];
    cr_assert_eq(sscanf(line, "%127s %159s %d %d", e->kernel, e->file,
                        &e->value_cases, &e->error_cases),
                 4, "malformed index line: %s", line);
  }
  free(data);
  return count;
}

static uint8_t g_case_memory[CASE_ARENA_BYTES];
static uint8_t g_file_memory[FILE_ARENA_BYTES];

// Runs every case of one file; returns the number of failures (each
// reported).
static int run_file(const entry_t *entry, const etr_kernel_registry_t *reg) {
  const etr_kernel_entry_t *kernel = etr_registry_find(reg, entry->kernel);
  cr_assert_not_null(kernel, "%s has golden cases but no kernel",
                     entry->kernel);
  etr_kernel_fn fn = etr_registry_select(kernel, ETR_KERNELS_REFERENCE);
  char path[256];
  snprintf(path, sizeof(path), QGOLDEN_DIR "%s", entry->file);
  void *data = NULL;
  size_t size = 0;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_read_file(path, 0, &data, &size, &diag), ETR_OK, "%s",
               diag.message);
  etr_arena_t file_arena, case_arena;
  etr_arena_init(&file_arena, g_file_memory, sizeof(g_file_memory));
  etr_arena_init(&case_arena, g_case_memory, sizeof(g_case_memory));
  etr_golden_file_t file;
  cr_assert_eq(etr_golden_open(&file, data, size, &file_arena, &diag), ETR_OK,
               "%s: %s", path, diag.message);
  cr_assert_str_eq(file.kernel.data, entry->kernel);
  int failures = 0;
  int values = 0;
  int errors = 0;
  for (;;) {
    etr_arena_reset(&case_arena);
    etr_golden_case_t golden;
    etr_error_t status = etr_golden_next_case(&file, &case_arena, &golden,
                                              &diag);
    if (status == ETR_ERR_NOT_FOUND) {
      break;
    }
    cr_assert_eq(status, ETR_OK, "%s: %s", path, diag.message);
    etr_golden_call_t call;
    cr_assert_eq(etr_golden_build_call(&golden, &case_arena, &call, &diag),
                 ETR_OK, "%s: %s", path, diag.message);
    etr_diag_t kernel_diag;
    etr_kernel_context_t ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.diag = &kernel_diag;
    ctx.op_name = entry->kernel;
    ctx.dry_run = true;
    etr_diag_reset(&kernel_diag);
    etr_error_t dry_status = fn(&ctx, call.args, call.num_args);
    ctx.dry_run = false;
    etr_diag_reset(&kernel_diag);
    etr_error_t real_status = fn(&ctx, call.args, call.num_args);
    etr_golden_verdict_t verdict;
    etr_golden_check(&golden, &call, real_status, &kernel_diag, &verdict);
    char description[768];
    etr_golden_describe_case(&golden, description, sizeof(description));
    bool dry_agrees =
        dry_status == real_status ||
        (dry_status == ETR_OK && real_status == ETR_ERR_INVALID_ARGUMENT);
    if (!dry_agrees) {
      cr_expect(false, "%s %s: dry run %s, real call %s", entry->kernel,
                description, etr_error_name(dry_status),
                etr_error_name(real_status));
      ++failures;
    }
    if (!verdict.passed) {
      cr_expect(false, "%s %s: %s (%s)", entry->kernel, description,
                verdict.message, golden.note.data);
      ++failures;
    }
    if (golden.expect == ETR_GOLDEN_EXPECT_ERROR) {
      ++errors;
    } else {
      ++values;
    }
  }
  cr_expect_eq(values, entry->value_cases, "%s value cases", entry->kernel);
  cr_expect_eq(errors, entry->error_cases, "%s error cases", entry->kernel);
  free(data);
  return failures;
}

Test(quantized_golden, every_case_matches) {
  static etr_kernel_registry_t registry;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_registry_init(&registry);
  cr_assert_eq(etr_registry_register_table(&registry, etr_reference_kernels,
                                           etr_reference_kernel_count,
                                           ETR_KERNELS_REFERENCE, &diag),
               ETR_OK, "%s", diag.message);
  entry_t entries[MAX_KERNELS];
  size_t count = read_index(entries, MAX_KERNELS);
  cr_assert_geq(count, 10, "the index lists %zu kernels", count);
  int cases = 0;
  int failures = 0;
  for (size_t k = 0; k < count; ++k) {
    failures += run_file(&entries[k], &registry);
    cases += entries[k].value_cases + entries[k].error_cases;
  }
  fprintf(stderr, "quantized golden: %zu kernels, %d cases, %d failures\n",
          count, cases, failures);
  cr_expect_eq(failures, 0);
}
