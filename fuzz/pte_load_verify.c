// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target pte_load_verify: a .pte through the loader and the verifier,
// as `etref verify` runs them (every method, the kernel and backend
// registries of `etref`), then through the program accessors the executor
// and the CLI use (method names, segments, delegate blobs, named data).
//
// Faults: crashes and sanitizer reports anywhere in core/, planner/,
// verifier/ or a kernel's dry run; a rejection without a message or with an
// unknown code; a verifier that reports errors but returns OK (or the
// reverse); a program that loads but whose accessors hand out bytes outside
// the input (ASan sees the reads in etr_fuzz_touch).
#include <stdio.h>
#include <stdlib.h>

#include "core/program.h"
#include "fuzz/common/fuzz_common.h"
#include "verifier/verify.h"

#define TARGET "pte_load_verify"

// Walks what a loaded program hands out and reads every byte of it.
static void touch_program(const etr_program_t *program) {
  uint64_t sum = 0;
  uint32_t methods = etr_program_method_count(program);
  for (uint32_t m = 0; m < methods && m < 64; ++m) {
    etr_fb_string_t name;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_error_t status = etr_program_method_name(program, m, &name, &diag);
    etr_fuzz_check_rejection(TARGET, "etr_program_method_name", status,
                             &diag);
    if (status == ETR_OK) {
      sum += etr_fuzz_touch(name.chars, (size_t)name.length + 1);
      etr_fb_table_t plan;
      etr_diag_reset(&diag);
      status = etr_program_find_method(program, name.chars, &plan, &diag);
      etr_fuzz_check_rejection(TARGET, "etr_program_find_method", status,
                               &diag);
    }
  }
  for (uint32_t s = 0; s < program->segments.length && s < 256; ++s) {
    const uint8_t *bytes = NULL;
    size_t size = 0;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_error_t status = etr_program_segment(program, s, &bytes, &size, &diag);
    etr_fuzz_check_rejection(TARGET, "etr_program_segment", status, &diag);
    if (status == ETR_OK) {
      sum += etr_fuzz_touch(bytes, size);
    }
  }
  for (uint8_t location = 0; location < 2; ++location) {
    for (uint32_t i = 0; i < 4; ++i) {
      const uint8_t *bytes = NULL;
      size_t size = 0;
      etr_diag_t diag;
      etr_diag_reset(&diag);
      etr_error_t status = etr_program_delegate_data(program, location, i,
                                                     &bytes, &size, &diag);
      etr_fuzz_check_rejection(TARGET, "etr_program_delegate_data", status,
                               &diag);
      if (status == ETR_OK) {
        sum += etr_fuzz_touch(bytes, size);
      }
    }
  }
  for (uint32_t i = 0; i < program->named_data.length && i < 64; ++i) {
    etr_fb_table_t entry;
    etr_fb_string_t key;
    bool present = false;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    if (etr_fb_vector_table(&program->named_data, i, &entry, &diag) !=
            ETR_OK ||
        etr_fb_string_field(&entry, 0, &key, &present, &diag) != ETR_OK ||
        !present) {
      continue;
    }
    const uint8_t *bytes = NULL;
    size_t size = 0;
    etr_diag_reset(&diag);
    etr_error_t status =
        etr_program_named_data(program, key.chars, &bytes, &size, &diag);
    etr_fuzz_check_rejection(TARGET, "etr_program_named_data", status, &diag);
    if (status == ETR_OK) {
      sum += etr_fuzz_touch(bytes, size);
    }
  }
  // A few constant buffers at small sizes (the loader checks index and
  // size; the bytes must then be readable).
  for (uint32_t index = 1; index < 4; ++index) {
    const uint8_t *bytes = NULL;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_error_t status =
        etr_program_constant_data(program, index, 16, &bytes, &diag);
    etr_fuzz_check_rejection(TARGET, "etr_program_constant_data", status,
                             &diag);
    if (status == ETR_OK) {
      sum += etr_fuzz_touch(bytes, 16);
    }
  }
  if (sum == 1) {
    fputc(' ', stderr);  // keeps the reads observable
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > ETR_FUZZ_MAX_INPUT_BYTES) {
    return 0;
  }
  const etr_kernel_registry_t *kernels = etr_fuzz_kernels();
  const etr_backend_registry_t *backends = etr_fuzz_backends();
  uint8_t *copy = etr_fuzz_copy(data, size);
  etr_program_t program;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_program_load(copy, size, &program, &diag);
  etr_fuzz_check_rejection(TARGET, "etr_program_load", status, &diag);
  if (status == ETR_OK) {
    touch_program(&program);
    static etr_verify_report_t report;  // large: keep it off the stack
    etr_verify_config_t config = {.kernels = kernels, .backends = backends};
    status = etr_verify_program(&program, &config, &report);
    if (status == ETR_OK && report.errors != 0) {
      etr_fuzz_fault(TARGET, "verifier returned OK with %zu errors",
                     report.errors);
    }
    if (status == ETR_ERR_INVALID_PROGRAM && report.errors == 0) {
      etr_fuzz_fault(TARGET, "verifier rejected with no error recorded");
    }
    for (size_t i = 0; i < report.count; ++i) {
      char line[ETR_DIAG_MESSAGE_CAPACITY + 512];
      etr_diagnostic_format(&report.items[i], line, sizeof(line));
      if (report.items[i].severity == ETR_SEVERITY_ERROR &&
          report.items[i].message[0] == '\0') {
        etr_fuzz_fault(TARGET, "verifier error without a message: %s", line);
      }
    }
  }
  etr_program_release(&program);
  free(copy);
  return 0;
}
