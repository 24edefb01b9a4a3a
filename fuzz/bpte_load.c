// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target bpte_load: a BundledProgram (.bpte) as `etref run` handles
// one. Load it, decode every test value of every suite (reading each
// tensor's bytes), load and verify the embedded program, and when the
// verifier accepts it run the first test case of the first suite with its
// own inputs (reference kernels, the caps of fuzz_common.h).
//
// Faults: crashes and sanitizer reports; rejections without a message; a
// decoded tensor whose bytes lie outside the file (ASan sees the reads).
#include <stdio.h>
#include <stdlib.h>

#include "core/bundled_program.h"
#include "core/method.h"
#include "core/program.h"
#include "fuzz/common/fuzz_common.h"
#include "verifier/verify.h"

#define TARGET "bpte_load"
#define MAX_SUITES 16
#define MAX_CASES 16
#define MAX_VALUES 64

static uint64_t touch_value(const etr_bundled_value_t *value) {
  if (value->value.tag != ETR_TAG_TENSOR) {
    return (uint64_t)value->value.u.as_int;
  }
  const etr_tensor_t *tensor = value->value.u.as_tensor;
  return tensor->data != NULL
             ? etr_fuzz_touch(tensor->data, etr_tensor_nbytes(tensor))
             : 0;
}

static void decode_suites(const etr_bundled_program_t *bundle) {
  uint64_t sum = 0;
  uint32_t suites = etr_bundled_suite_count(bundle);
  for (uint32_t s = 0; s < suites && s < MAX_SUITES; ++s) {
    etr_bundled_suite_t suite;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_error_t status = etr_bundled_suite(bundle, s, &suite, &diag);
    etr_fuzz_check_rejection(TARGET, "etr_bundled_suite", status, &diag);
    if (status != ETR_OK) {
      continue;
    }
    for (uint32_t c = 0; c < suite.test_cases.length && c < MAX_CASES; ++c) {
      uint32_t counts[2] = {0, 0};
      etr_diag_reset(&diag);
      status = etr_bundled_case_counts(&suite, c, &counts[0], &counts[1],
                                       &diag);
      etr_fuzz_check_rejection(TARGET, "etr_bundled_case_counts", status,
                               &diag);
      if (status != ETR_OK) {
        continue;
      }
      for (int expected = 0; expected < 2; ++expected) {
        for (uint32_t v = 0; v < counts[expected] && v < MAX_VALUES; ++v) {
          etr_bundled_value_t value;
          etr_diag_reset(&diag);
          status = etr_bundled_case_value(&suite, c, expected != 0, v, &value,
                                          &diag);
          etr_fuzz_check_rejection(TARGET, "etr_bundled_case_value", status,
                                   &diag);
          if (status == ETR_OK) {
            sum += touch_value(&value);
          }
        }
      }
    }
  }
  if (sum == 1) {
    fputc(' ', stderr);
  }
}

// Runs suite 0, case 0 on the verified program.
static void run_first_case(const etr_bundled_program_t *bundle,
                           const etr_program_t *program) {
  etr_bundled_suite_t suite;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (etr_bundled_suite_count(bundle) == 0 ||
      etr_bundled_suite(bundle, 0, &suite, &diag) != ETR_OK ||
      suite.test_cases.length == 0) {
    return;
  }
  uint32_t inputs = 0;
  uint32_t expected = 0;
  if (etr_bundled_case_counts(&suite, 0, &inputs, &expected, &diag) !=
      ETR_OK) {
    return;
  }
  etr_method_config_t config;
  etr_method_config_init(&config, etr_fuzz_kernels());
  config.backends = etr_fuzz_backends();
  config.max_planned_bytes = ETR_FUZZ_MAX_PLANNED_BYTES;
  config.max_method_bytes = ETR_FUZZ_MAX_METHOD_BYTES;
  config.max_instructions = ETR_FUZZ_MAX_INSTRUCTIONS;
  config.max_execute_ns = ETR_FUZZ_MAX_EXECUTE_NS;
  etr_method_t method;
  etr_diag_reset(&diag);
  etr_error_t status =
      etr_method_load(program, suite.method_name, &config, &method, &diag);
  etr_fuzz_check_rejection(TARGET, "etr_method_load", status, &diag);
  if (status != ETR_OK) {
    return;  // a suite may name a method the program lacks
  }
  for (uint32_t i = 0; i < inputs && status == ETR_OK; ++i) {
    etr_bundled_value_t value;
    etr_diag_reset(&diag);
    status = etr_bundled_case_value(&suite, 0, false, i, &value, &diag);
    if (status == ETR_OK) {
      status = etr_method_set_input(&method, i, &value.value, &diag);
      etr_fuzz_check_rejection(TARGET, "etr_method_set_input", status, &diag);
    }
  }
  if (status == ETR_OK) {
    etr_diag_reset(&diag);
    status = etr_method_execute(&method, &diag);
    etr_fuzz_check_rejection(TARGET, "etr_method_execute", status, &diag);
  }
  etr_method_release(&method);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > ETR_FUZZ_MAX_INPUT_BYTES) {
    return 0;
  }
  const etr_kernel_registry_t *kernels = etr_fuzz_kernels();
  uint8_t *copy = etr_fuzz_copy(data, size);
  etr_bundled_program_t bundle;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_bundled_program_load(copy, size, &bundle, &diag);
  etr_fuzz_check_rejection(TARGET, "etr_bundled_program_load", status, &diag);
  if (status == ETR_OK) {
    decode_suites(&bundle);
    etr_program_t program;
    etr_diag_reset(&diag);
    status = etr_program_load(bundle.program_data, bundle.program_size,
                              &program, &diag);
    etr_fuzz_check_rejection(TARGET, "etr_program_load", status, &diag);
    if (status == ETR_OK) {
      static etr_verify_report_t report;
      etr_verify_config_t verify = {.kernels = kernels,
                                    .backends = etr_fuzz_backends()};
      if (etr_verify_program(&program, &verify, &report) == ETR_OK) {
        run_first_case(&bundle, &program);
      }
    }
    etr_program_release(&program);
  }
  etr_bundled_program_release(&bundle);
  free(copy);
  return 0;
}
