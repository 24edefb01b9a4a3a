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
// tolerance class, argument shapes) and the first differing element. The
// only exceptions are the cases golden_artifacts.h lists as documented
// PyTorch artifacts: each is reported and counted as a "known PyTorch
// artifact" (never as passed), and still fails the test unless its
// mismatch is exactly the documented one; a listed case that passes, or
// that is missing, fails the test as a stale entry.
// The per-op summary goes to stderr, and, when ETREF_GOLDEN_RESULTS names
// a file (bazel test --test_env=ETREF_GOLDEN_RESULTS=$PWD/...), as JSON
// there for reports/ops/generate_coverage.py. A second test parses every
// golden file and builds every case, kernel or not (golden_reader_test.c
// covers malformed files).
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/kernel.h"
#include "core/prim_ops.h"
#include "ops_reference/golden/golden_artifacts.h"
#include "ops_reference/golden/golden_harness.h"
#include "ops_reference/golden/golden_reader.h"
#include "ops_reference/golden/golden_test_files.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/element.h"

#define CASE_ARENA_BYTES ((size_t)64 << 20)
#define TEMP_ARENA_BYTES ((size_t)16 << 20)
#define FILE_ARENA_BYTES ((size_t)64 << 10)
#define FAILURES_SHOWN 25

typedef struct op_result {
  const index_entry_t *entry;
  bool registered;
  int value_total, value_passed;
  int error_total, error_rejected;
  uint32_t dtypes_seen, dtypes_failed;  // bit per scalar type
  int failures;
  int artifacts;  // listed cases whose mismatch is the documented one
  char first_failure[ETR_GOLDEN_MESSAGE_CAPACITY + 800];
} op_result_t;

// ---------------------------------------------------------------------------
// Known PyTorch artifacts (golden_artifacts.h).

static bool g_artifact_seen[sizeof(kEtrGoldenArtifacts) /
                            sizeof(kEtrGoldenArtifacts[0])];

static const etr_golden_artifact_t *find_artifact(const char *kernel,
                                                  uint32_t index,
                                                  size_t *slot) {
  for (size_t i = 0; i < kEtrGoldenArtifactCount; ++i) {
    if (kEtrGoldenArtifacts[i].case_index == index &&
        strcmp(kEtrGoldenArtifacts[i].kernel, kernel) == 0) {
      *slot = i;
      return &kEtrGoldenArtifacts[i];
    }
  }
  return NULL;
}

// Element `flat` (row-major over `sizes`) of `tensor` broadcast to the
// shape (dim, sizes), as a double.
static double broadcast_load(const etr_tensor_t *tensor, int32_t dim,
                             const int64_t *sizes, int64_t flat) {
  int64_t offset = 0;
  for (int32_t d = dim - 1; d >= 0; --d) {
    int64_t index = flat % sizes[d];
    flat /= sizes[d];
    int32_t td = tensor->dim - (dim - d);
    if (td >= 0 && tensor->sizes[td] != 1) {
      offset += index * tensor->strides[td];
    }
  }
  return etr_load_double(tensor->dtype, etr_element_at(tensor, offset));
}

// Operand `index` of the call as a tensor, or a 0-dim stand-in for a
// Double or Int Scalar over `storage`.
static const etr_tensor_t *operand(const etr_golden_call_t *call,
                                   size_t index, etr_tensor_t *storage,
                                   double *value) {
  const etr_evalue_t *arg = call->args[index];
  if (arg->tag == ETR_TAG_TENSOR) {
    return arg->u.as_tensor;
  }
  if (arg->tag != ETR_TAG_DOUBLE && arg->tag != ETR_TAG_INT) {
    return NULL;
  }
  *value = arg->tag == ETR_TAG_DOUBLE ? arg->u.as_double
                                      : (double)arg->u.as_int;
  memset(storage, 0, sizeof(*storage));
  storage->dtype = ETR_DOUBLE;
  storage->dim = 0;
  storage->data = value;
  return storage;
}

// The exact result PyTorch's scalar loop gives for x op y (op fmod or
// remainder, computed in double: C's fmod is exact).
static double exact_fmod_family(bool remainder, double x, double y) {
  double m = fmod(x, y);
  if (remainder && m != 0.0 && ((m < 0.0) != (y < 0.0))) {
    m += y;
  }
  return m;
}

// VECTORIZED_FMOD_OVERFLOW: copies the expected values, replaces every
// NaN at an element where |self / other| overflows the dtype (finite
// operands, non-zero divisor) with the exact result, and judges the call
// against that copy with the harness's usual rules. True when the copy
// passes and at least one element was replaced.
static bool fmod_overflow_explains(const char *kernel,
                                   const etr_golden_case_t *golden,
                                   const etr_golden_call_t *call,
                                   etr_error_t status,
                                   const etr_diag_t *kernel_diag,
                                   etr_golden_verdict_t *verdict) {
  snprintf(verdict->message, sizeof(verdict->message),
           "not the documented artifact (status, outputs or operands "
           "differ from what golden_artifacts.h describes)");
  verdict->passed = false;
  if (status != ETR_OK || golden->expect != ETR_GOLDEN_EXPECT_VALUES ||
      golden->num_expected != 1 ||
      golden->expected[0].tag != ETR_GOLDEN_TENSOR || call->num_outs != 1 ||
      call->num_args < 2) {
    return false;
  }
  const etr_golden_tensor_t *expected = golden->expected[0].u.as_tensor;
  const etr_tensor_t *actual = call->outs[0];
  etr_scalar_type_t dtype = expected->dtype;
  bool floating = dtype == ETR_HALF || dtype == ETR_BFLOAT16 ||
                  dtype == ETR_FLOAT || dtype == ETR_DOUBLE;
  if (!floating || actual->dtype != dtype || actual->dim != expected->dim ||
      memcmp(actual->sizes, expected->sizes,
             sizeof(int64_t) * (size_t)expected->dim) != 0) {
    return false;
  }
  etr_tensor_t a_storage, b_storage;
  double a_value = 0.0, b_value = 0.0;
  const etr_tensor_t *a = operand(call, 0, &a_storage, &a_value);
  const etr_tensor_t *b = operand(call, 1, &b_storage, &b_value);
  if (a == NULL || b == NULL) {
    return false;
  }
  size_t element = etr_scalar_type_size(dtype);
  uint8_t *patched = (uint8_t *)malloc(expected->value_bytes + 1);
  cr_assert_not_null(patched);
  memcpy(patched, expected->values, expected->value_bytes);
  bool remainder = strncmp(kernel, "aten::remainder.", 16) == 0;
  if (!remainder && strncmp(kernel, "aten::fmod.", 11) != 0) {
    return false;
  }
  int64_t explained = 0;
  for (int64_t flat = 0; flat < expected->numel; ++flat) {
    double want = etr_load_double(dtype, patched + (size_t)flat * element);
    if (!isnan(want)) {
      continue;
    }
    double x = broadcast_load(a, expected->dim, expected->sizes, flat);
    double y = broadcast_load(b, expected->dim, expected->sizes, flat);
    x = etr_round_double(dtype, x);
    y = etr_round_double(dtype, y);
    bool overflows = isfinite(x) && isfinite(y) && y != 0.0 &&
                     isinf(etr_round_double(dtype, fabs(x) / fabs(y)));
    if (overflows) {
      etr_store_double(dtype, patched + (size_t)flat * element,
                       exact_fmod_family(remainder, x, y));
      ++explained;
    }
  }
  etr_golden_tensor_t patched_tensor = *expected;
  patched_tensor.values = patched;
  etr_golden_value_t patched_value = golden->expected[0];
  patched_value.u.as_tensor = &patched_tensor;
  etr_golden_case_t patched_case = *golden;
  patched_case.expected = &patched_value;
  etr_golden_check(&patched_case, call, status, kernel_diag, verdict);
  free(patched);
  if (verdict->passed && explained == 0) {
    verdict->passed = false;
    snprintf(verdict->message, sizeof(verdict->message),
             "no element needed the documented artifact");
  }
  return verdict->passed;
}

// Judges a listed case that failed the plain check. True when the
// listed artifact explains it; otherwise `message` says why not.
static bool artifact_explains(const etr_golden_artifact_t *artifact,
                              const etr_golden_case_t *golden,
                              const etr_golden_call_t *call,
                              etr_error_t status,
                              const etr_diag_t *kernel_diag, char *message,
                              size_t capacity) {
  if (strcmp(golden->source.data, artifact->source) != 0) {
    snprintf(message, capacity,
             "golden_artifacts.h lists case %u as %s but the file has %s "
             "there: update the entry",
             (unsigned)artifact->case_index, artifact->source,
             golden->source.data);
    return false;
  }
  etr_golden_verdict_t verdict;
  switch (artifact->kind) {
    case ETR_GOLDEN_ARTIFACT_VECTORIZED_FMOD_OVERFLOW:
      if (fmod_overflow_explains(artifact->kernel, golden, call, status,
                                 kernel_diag, &verdict)) {
        return true;
      }
      break;
    default:
      snprintf(verdict.message, sizeof(verdict.message),
               "unknown artifact kind %d", (int)artifact->kind);
      break;
  }
  snprintf(message, capacity, "listed as a known PyTorch artifact (%.200s) "
           "but not explained by it: %.1200s",
           artifact->reason, verdict.message);
  return false;
}

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
  uint8_t *data = golden_read_file(entry->file, &size);
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
    size_t artifact_slot = 0;
    const etr_golden_artifact_t *artifact =
        find_artifact(entry->kernel, golden.index, &artifact_slot);
    if (artifact != NULL) {
      g_artifact_seen[artifact_slot] = true;
      if (verdict.passed) {
        verdict.passed = false;
        snprintf(verdict.message, sizeof(verdict.message),
                 "passes, yet golden_artifacts.h lists it as a known PyTorch "
                 "artifact (%s): remove the stale entry",
                 artifact->reason);
      } else if (artifact_explains(artifact, &golden, &call, kernel_status,
                                   &kernel_diag, verdict.message,
                                   sizeof(verdict.message))) {
        ++result->artifacts;
        char description[768];
        etr_golden_describe_case(&golden, description, sizeof(description));
        fprintf(stderr, "golden: known PyTorch artifact: %s %s\n    %s\n",
                entry->kernel, description, artifact->reason);
        continue;
      }
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
    fprintf(out, ", \"known_artifacts\": %d", r->artifacts);
    fprintf(out, ", \"failures\": %d, \"first_failure\": ", r->failures);
    json_string(out, r->first_failure);
    fprintf(out, "}%s\n", i + 1 < count ? "," : "");
  }
  fprintf(out, " ]\n}\n");
  fclose(out);
}

// No criterion .timeout: Bazel's medium-size timeout (300 s) bounds the
// run, and criterion 2.4.1 leaks 48 bytes (LeakSanitizer fails the ASan
// run) when this test's timer overlaps another timed test's in parallel.
Test(golden, every_case_of_every_registered_kernel) {
  static index_entry_t entries[MAX_KERNELS];
  static op_result_t results[MAX_KERNELS];
  static etr_kernel_registry_t registry;
  size_t count = golden_read_index(entries, MAX_KERNELS);
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
  int error_rejected = 0, failures = 0, missing_cases = 0, artifacts = 0;
  // A listed artifact whose kernel ran but whose case never came up is
  // stale too (the file shrank or the kernel was renamed).
  for (size_t a = 0; a < kEtrGoldenArtifactCount; ++a) {
    for (size_t i = 0; i < count && !g_artifact_seen[a]; ++i) {
      op_result_t *r = &results[i];
      if (!r->registered ||
          strcmp(r->entry->kernel, kEtrGoldenArtifacts[a].kernel) != 0) {
        continue;
      }
      if (r->failures++ == 0) {
        snprintf(r->first_failure, sizeof(r->first_failure),
                 "golden_artifacts.h lists case %u (%s), which the file "
                 "does not have",
                 (unsigned)kEtrGoldenArtifacts[a].case_index,
                 kEtrGoldenArtifacts[a].source);
      }
      if (failures_shown < FAILURES_SHOWN && log_used < log_capacity) {
        int written = snprintf(
            failure_log + log_used, log_capacity - log_used,
            "  %s: golden_artifacts.h lists case %u (%s), which the file "
            "does not have\n",
            r->entry->kernel, (unsigned)kEtrGoldenArtifacts[a].case_index,
            kEtrGoldenArtifacts[a].source);
        log_used += written > 0 ? (size_t)written : 0;
        log_used = log_used > log_capacity ? log_capacity : log_used;
        ++failures_shown;
      }
    }
  }
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
    artifacts += r->artifacts;
    char note[64] = "";
    if (r->artifacts > 0) {
      snprintf(note, sizeof(note), "  (%d known PyTorch artifact%s)",
               r->artifacts, r->artifacts == 1 ? "" : "s");
    }
    fprintf(stderr, "  %-48s %4d/%-4d %3d/%-3d%s%s\n", r->entry->kernel,
            r->value_passed, r->value_total, r->error_rejected, r->error_total,
            note, r->failures ? "  FAILED" : "");
  }
  fprintf(stderr, "  no kernel yet (%zu ops, %d cases):", count - registered,
          missing_cases);
  for (size_t i = 0; i < count; ++i) {
    if (!results[i].registered) {
      fprintf(stderr, " %s", results[i].entry->kernel);
    }
  }
  fprintf(stderr, "\ngolden: %d ops with a kernel: %d/%d value cases passed, "
                  "%d known PyTorch artifacts (golden_artifacts.h), "
                  "%d/%d error cases rejected, %d failures\n",
          registered, value_passed, value_total, artifacts, error_rejected,
          error_total, failures);
  const char *results_path = getenv("ETREF_GOLDEN_RESULTS");
  if (results_path != NULL && results_path[0] != '\0') {
    write_results(results_path, results, count);
  }
  free(case_memory);
  free(temp_memory);
  if (failures > 0) {
    cr_assert_fail(
        "%d golden cases failed in %d registered kernels; first %d:\n%s",
        failures, registered, failures_shown, failure_log);
  }
}

// Every file parses completely, matches index.txt, and every case builds
// into a call, whether or not a kernel exists for it.
Test(golden_reader, reads_and_builds_every_file, .timeout = 600) {
  static index_entry_t entries[MAX_KERNELS];
  size_t count = golden_read_index(entries, MAX_KERNELS);
  uint8_t *case_memory = (uint8_t *)aligned_alloc(64, CASE_ARENA_BYTES);
  static uint8_t file_memory[FILE_ARENA_BYTES];
  cr_assert_not_null(case_memory);
  for (size_t i = 0; i < count; ++i) {
    size_t size = 0;
    uint8_t *data = golden_read_file(entries[i].file, &size);
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
