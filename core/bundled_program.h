// SPDX-License-Identifier: Apache-2.0
//
// BundledProgram (.bpte, ExecuTorch's devtools/bundled_program schema,
// identifier "BP08"): a .pte program together with test suites, one per
// method, each a list of test cases with inputs and expected outputs.
//
//   BundledProgram { version, method_test_suites: [BundledMethodTestSuite],
//                    program: [ubyte] (the whole .pte, 32-byte aligned) }
//   BundledMethodTestSuite { method_name, test_cases: [BundledMethodTestCase] }
//   BundledMethodTestCase { inputs: [Value], expected_outputs: [Value] }
//   Value { val: Tensor | Int | Bool | Double }
//   Tensor { scalar_type, sizes: [int], data: [ubyte], dim_order: [ubyte] }
//
// Loading checks the FlatBuffer and gives the embedded program's bytes
// (copied to aligned memory if the file misplaces them); test values are
// decoded into EValues whose tensors point at the file's bytes, after
// checking that each tensor's data is exactly as long as its shape says.
// Tensor data in the file may be unaligned: read it with memcpy (as
// etr_method_set_input does), never through typed pointers.
#ifndef ETR_CORE_BUNDLED_PROGRAM_H
#define ETR_CORE_BUNDLED_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/evalue.h"
#include "core/flatbuffer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_BUNDLED_PROGRAM_IDENTIFIER "BP08"

typedef struct etr_bundled_program {
  const uint8_t *data;
  size_t size;
  void *owned_data;
  etr_fb_table_t root;
  uint32_t version;
  etr_fb_vector_t suites;        // [BundledMethodTestSuite]
  const uint8_t *program_data;   // the embedded .pte, 16-byte aligned
  size_t program_size;
  void *program_copy;            // set when program_data had to be moved
} etr_bundled_program_t;

// True when bytes 4..7 are "BP08".
bool etr_is_bundled_program(const void *data, size_t size);

etr_error_t etr_bundled_program_load(const void *data, size_t size,
                                     etr_bundled_program_t *bundle,
                                     etr_diag_t *diag);
etr_error_t etr_bundled_program_load_file(const char *path, size_t max_bytes,
                                          etr_bundled_program_t *bundle,
                                          etr_diag_t *diag);
void etr_bundled_program_release(etr_bundled_program_t *bundle);

typedef struct etr_bundled_suite {
  const char *method_name;
  etr_fb_vector_t test_cases;  // [BundledMethodTestCase]
} etr_bundled_suite_t;

uint32_t etr_bundled_suite_count(const etr_bundled_program_t *bundle);
etr_error_t etr_bundled_suite(const etr_bundled_program_t *bundle,
                              uint32_t index, etr_bundled_suite_t *suite,
                              etr_diag_t *diag);

// A decoded test value. Tensors live in `tensor`, pointing into the file.
typedef struct etr_bundled_value {
  etr_evalue_t value;
  etr_tensor_t tensor;
} etr_bundled_value_t;

// Number of inputs / expected outputs of test case `case_index`.
etr_error_t etr_bundled_case_counts(const etr_bundled_suite_t *suite,
                                    uint32_t case_index, uint32_t *inputs,
                                    uint32_t *expected_outputs,
                                    etr_diag_t *diag);

// Decodes input (`expected` false) or expected output (`expected` true)
// `index` of test case `case_index`.
etr_error_t etr_bundled_case_value(const etr_bundled_suite_t *suite,
                                   uint32_t case_index, bool expected,
                                   uint32_t index, etr_bundled_value_t *out,
                                   etr_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_BUNDLED_PROGRAM_H
