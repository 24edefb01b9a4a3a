// SPDX-License-Identifier: Apache-2.0
//
// The example vendor delegate as a candidate: real exported programs
// (datasets/oracle/, ExecuTorch's to_backend with the vendor's AOT half)
// whose DelegateCall the vendor serves, loaded from its shared library or
// linked in. Un-faulted it agrees with the reference program op by op;
// each injected fault (off-by-one loop, fp16 / bf16 storage, wrong
// requantization rounding) is caught and localized to the faulty op, the
// ops before it within tolerance. Fault strings and hostile blobs are
// refused cleanly.
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/example_vendor/example_vendor.h"
#include "delegates/loader.h"
#include "prof/oracle/test/oracle_fixture.h"

#define VENDOR_SO "delegates/example_vendor/libetref_example_vendor.so"
#define REFERENCE "datasets/models/cnn/model.pte"
#define INPUT "datasets/oracle/cnn_vendor/input_0.npy"

typedef struct {
  etr_program_t reference_program;
  etr_program_t candidate_program;
  etr_backend_registry_t reference_backends;
  etr_backend_registry_t candidate_backends;
  etr_delegate_library_t library;
  etr_method_t reference;
  etr_method_t candidate;
  etr_npy_array_t input;
  etr_oracle_map_t map;
  bool has_map;
  etr_oracle_values_t values;
  etr_oracle_alignment_t alignment;
  etr_oracle_result_t result;
} run_t;

static run_t g;

// Candidate `program` served by the vendor library (honouring
// $ETREF_EXAMPLE_FAULT) or the built-in copy; reference `reference` (NULL:
// the same program with the built-in vendor) aligned through `map`.
static void compare_with(const char *program, bool from_library,
                         const char *reference, const char *map,
                         const char *input) {
  memset(&g, 0, sizeof(g));
  etr_diag_t diag;
  etr_diag_reset(&diag);
  const etr_backend_t *extra = NULL;
  if (from_library) {
    cr_assert_eq(etr_delegate_library_open(VENDOR_SO, &g.library, &diag),
                 ETR_OK, "%s", diag.message);
    extra = g.library.descriptor->backends[0];
  }
  ofx_backends(&g.reference_backends, NULL);
  ofx_backends(&g.candidate_backends, extra);
  ofx_load_program(&g.candidate_program, program);
  ofx_load_program(&g.reference_program,
                   reference != NULL ? reference : program);
  ofx_load_method(&g.candidate, &g.candidate_program, ETR_KERNELS_REFERENCE,
                  &g.candidate_backends);
  ofx_load_method(&g.reference, &g.reference_program, ETR_KERNELS_REFERENCE,
                  &g.reference_backends);
  ofx_load_npy(&g.input, input);
  ofx_set_input(&g.candidate, 0, &g.input.tensor);
  ofx_set_input(&g.reference, 0, &g.input.tensor);
  etr_oracle_values_init(&g.values, 0);
  ofx_capture(&g.candidate, &g.values, true);
  if (map != NULL) {
    ofx_load_map(&g.map, map);
    g.has_map = true;
  }
  ofx_judge(&g.reference, &g.values, g.has_map ? &g.map : NULL,
            reference == NULL, NULL, &g.alignment, &g.result);
}

static void compare(const char *program, bool from_library,
                    const char *reference, const char *map) {
  compare_with(program, from_library, reference, map, INPUT);
}

static void finish(void) {
  etr_oracle_result_release(&g.result);
  etr_oracle_alignment_release(&g.alignment);
  etr_oracle_values_release(&g.values);
  etr_oracle_map_release(&g.map);
  etr_npy_array_release(&g.input);
  etr_method_release(&g.candidate);
  etr_method_release(&g.reference);
  etr_program_release(&g.candidate_program);
  etr_program_release(&g.reference_program);
  if (g.library.handle != NULL) {
    etr_delegate_library_close(&g.library);
  }
}

static void vendor_fault(const char *fault) {
  compare("datasets/oracle/cnn_vendor/model.pte", true, REFERENCE,
          "datasets/oracle/cnn_vendor/map.json");
  (void)fault;
}

Test(vendor, unfaulted_agrees_op_by_op) {
  unsetenv(ETR_EXAMPLE_VENDOR_FAULT_ENV);
  vendor_fault("none");
  ofx_assert_agrees(&g.result);
  cr_assert_eq(g.result.num_ops, 10);
  cr_assert_eq(g.result.op_counts[ETR_ORACLE_NOT_COMPARED], 0,
               "the map covers every reference op");
  // Every value came from inside the delegate, through the map.
  for (uint32_t v = 0; v < g.result.num_values; ++v) {
    const etr_oracle_value_result_t *value = &g.result.values[v];
    if (value->position == 0) {
      cr_assert_not_null(value->candidate);
      cr_assert_eq(value->candidate->key.origin, ETR_ORACLE_FROM_DELEGATE);
    }
  }
  finish();
}

Test(vendor, off_by_one_is_localized) {
  setenv(ETR_EXAMPLE_VENDOR_FAULT_ENV, "off_by_one", 1);
  vendor_fault("off_by_one");
  ofx_assert_localized(&g.result, 4, "aten::convolution.out");
  const etr_oracle_op_result_t *op =
      &g.result.ops[g.result.first_diverging_op];
  const etr_oracle_value_result_t *v = &g.result.values[op->first_value];
  // One output column per row and channel: 32 channels x 16 rows.
  cr_assert_eq(v->local.mismatches, 512, "%s", v->reason);
  cr_assert_eq(v->local.worst_index % 16, 15, "the last column");
  finish();
}

Test(vendor, fp16_storage_is_localized) {
  setenv(ETR_EXAMPLE_VENDOR_FAULT_ENV, "fp16", 1);  // addmm
  vendor_fault("fp16");
  ofx_assert_localized(&g.result, 9, "aten::addmm.out");
  const etr_oracle_value_result_t *v =
      &g.result.values[g.result.ops[g.result.first_diverging_op].first_value];
  cr_assert(v->local.norm_failed, "caught by the norm check: %s", v->reason);
  cr_assert_lt(v->local.sqnr_db, 80);
  finish();
}

Test(vendor, fp16_in_the_middle_is_localized) {
  setenv(ETR_EXAMPLE_VENDOR_FAULT_ENV,
         "fp16:_native_batch_norm_legit_no_training@0", 1);
  vendor_fault("fp16 bn");
  ofx_assert_localized(&g.result, 1,
                       "aten::_native_batch_norm_legit_no_training.out");
  finish();
}

Test(vendor, bf16_is_localized) {
  setenv(ETR_EXAMPLE_VENDOR_FAULT_ENV, "bf16:relu@1", 1);
  vendor_fault("bf16");
  ofx_assert_localized(&g.result, 6, "aten::relu.out");
  finish();
}

Test(vendor, compile_spec_fault_in_the_program) {
  // cnn_vendor_fp16 carries etref.fault = "fp16:addmm" in its compile
  // specs: even the built-in (environment-blind) vendor is wrong.
  unsetenv(ETR_EXAMPLE_VENDOR_FAULT_ENV);
  compare("datasets/oracle/cnn_vendor_fp16/model.pte", false, REFERENCE,
          "datasets/oracle/cnn_vendor_fp16/map.json");
  ofx_assert_localized(&g.result, 9, "aten::addmm.out");
  finish();
}

Test(vendor, partial_delegation_is_localized) {
  // Two DelegateCalls (conv-bn-relu each); the fault in the second one.
  setenv(ETR_EXAMPLE_VENDOR_FAULT_ENV, "off_by_one:convolution@0#1", 1);
  compare("datasets/oracle/cnn_vendor_partial/model.pte", true, REFERENCE,
          "datasets/oracle/cnn_vendor_partial/map.json");
  ofx_assert_localized(&g.result, 4, "aten::convolution.out");
  finish();
}

Test(vendor, same_program_with_the_built_in_vendor_as_reference) {
  // No reference program: the reference runs the same .pte with the
  // built-in vendor, and the delegate's reported values align by debug id.
  setenv(ETR_EXAMPLE_VENDOR_FAULT_ENV, "off_by_one", 1);
  compare("datasets/oracle/cnn_vendor/model.pte", true, NULL, NULL);
  cr_assert_eq(g.result.verdict, ETR_ORACLE_DIVERGE);
  const etr_oracle_op_result_t *first =
      &g.result.ops[g.result.first_diverging_op];
  cr_assert_str_eq(first->name,
                   "EtrefExampleVendor #4 aten::convolution.out");
  for (int64_t i = 0; i < g.result.first_diverging_op; ++i) {
    cr_assert_eq(g.result.ops[i].verdict, ETR_ORACLE_AGREE);
  }
  finish();
}

#define QUANTIZED "datasets/oracle/cnn_vendor_quantized/"
#define QUANTIZED_REFERENCE "datasets/models/cnn_quantized/model.pte"

Test(vendor, quantized_unfaulted_agrees) {
  unsetenv(ETR_EXAMPLE_VENDOR_FAULT_ENV);
  compare_with(QUANTIZED "model.pte", true, QUANTIZED_REFERENCE,
               QUANTIZED "map.json", QUANTIZED "input_0.npy");
  ofx_assert_agrees(&g.result);
  cr_assert_eq(g.result.op_counts[ETR_ORACLE_NOT_COMPARED], 0);
  finish();
}

Test(vendor, requant_truncation_is_localized) {
  // Truncating instead of rounding is off by one step for about half the
  // elements: within the global allowance of 1 step, caught by the local
  // check (0 steps on the same inputs) at the first quantize.
  setenv(ETR_EXAMPLE_VENDOR_FAULT_ENV, "requant_trunc", 1);
  compare_with(QUANTIZED "model.pte", true, QUANTIZED_REFERENCE,
               QUANTIZED "map.json", QUANTIZED "input_0.npy");
  ofx_assert_localized(&g.result, 3,
                       "quantized_decomposed::quantize_per_tensor.out");
  const etr_oracle_value_result_t *v =
      &g.result.values[g.result.ops[g.result.first_diverging_op].first_value];
  cr_assert(v->quantized);
  cr_assert(v->global.passed, "one step is within the global allowance");
  cr_assert_eq(v->local.max_steps, 1);
  cr_assert_gt(v->local.mismatches, 1000);
  finish();
  // A later quantize (the fourth call) is found as well.
  setenv(ETR_EXAMPLE_VENDOR_FAULT_ENV, "requant_trunc:quantize_per_tensor@3",
         1);
  compare_with(QUANTIZED "model.pte", true, QUANTIZED_REFERENCE,
               QUANTIZED "map.json", QUANTIZED "input_0.npy");
  cr_assert_eq(g.result.verdict, ETR_ORACLE_DIVERGE);
  const etr_oracle_op_result_t *first =
      &g.result.ops[g.result.first_diverging_op];
  cr_assert_str_eq(first->name,
                   "quantized_decomposed::quantize_per_tensor.out");
  cr_assert_gt(first->instruction, 3);
  finish();
}

Test(vendor, requant_half_away_needs_ties) {
  // Rounding half away from zero differs from half to even only on exact
  // ties: random inputs never hit one, the ties input makes every element
  // one (datasets/oracle/generate.py, ties_input).
  setenv(ETR_EXAMPLE_VENDOR_FAULT_ENV, "requant_half_away", 1);
  compare_with(QUANTIZED "model.pte", true, QUANTIZED_REFERENCE,
               QUANTIZED "map.json", QUANTIZED "input_0.npy");
  cr_assert_eq(g.result.verdict, ETR_ORACLE_AGREE, "%s", g.result.summary);
  finish();
  compare_with(QUANTIZED "model.pte", true, QUANTIZED_REFERENCE,
               QUANTIZED "map.json", QUANTIZED "ties_input_0.npy");
  ofx_assert_localized(&g.result, 3,
                       "quantized_decomposed::quantize_per_tensor.out");
  finish();
}

Test(vendor, fault_strings) {
  etr_vendor_fault_t fault;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  const char *text = "off_by_one";
  cr_assert_eq(etr_vendor_fault_parse(text, strlen(text), &fault, &diag),
               ETR_OK);
  cr_assert_eq(fault.mode, ETR_VENDOR_FAULT_OFF_BY_ONE);
  cr_assert_str_eq(fault.op, "convolution");
  cr_assert_eq(fault.occurrence, 1);
  text = "fp16:aten::addmm.out@*#2";
  cr_assert_eq(etr_vendor_fault_parse(text, strlen(text), &fault, &diag),
               ETR_OK);
  cr_assert_eq(fault.mode, ETR_VENDOR_FAULT_FP16);
  cr_assert_str_eq(fault.op, "aten::addmm.out");
  cr_assert_eq(fault.occurrence, -1);
  cr_assert_eq(fault.delegate, 2);
  char described[128];
  etr_vendor_fault_describe(&fault, described, sizeof(described));
  cr_assert_str_eq(described, "fp16:aten::addmm.out@*#2");
  cr_assert(etr_vendor_fault_matches(&fault, "aten::addmm.out"));
  text = "requant_trunc";
  cr_assert_eq(etr_vendor_fault_parse(text, strlen(text), &fault, &diag),
               ETR_OK);
  cr_assert(etr_vendor_fault_matches(
      &fault, "quantized_decomposed::quantize_per_tensor.out"));
  static const char *const kBad[] = {
      "bogus", "fp16:", "fp16:addmm@", "fp16:addmm@x", "fp16:addmm#",
      "none:addmm", "fp16:addmm@1#2x", "off_by_one:conv olution",
  };
  for (size_t i = 0; i < sizeof(kBad) / sizeof(kBad[0]); ++i) {
    etr_diag_reset(&diag);
    cr_assert_eq(etr_vendor_fault_parse(kBad[i], strlen(kBad[i]), &fault,
                                        &diag),
                 ETR_ERR_INVALID_ARGUMENT, "accepted '%s'", kBad[i]);
  }
}

Test(vendor, bad_fault_fails_the_load) {
  setenv(ETR_EXAMPLE_VENDOR_FAULT_ENV, "off_by_one:relu", 1);
  etr_delegate_library_t library;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_delegate_library_open(VENDOR_SO, &library, &diag), ETR_OK);
  etr_backend_registry_t backends;
  ofx_backends(&backends, library.descriptor->backends[0]);
  etr_program_t program;
  ofx_load_program(&program, "datasets/oracle/cnn_vendor/model.pte");
  etr_method_config_t config;
  etr_method_config_init(&config, ofx_kernels());
  config.backends = &backends;
  etr_method_t method;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_method_load(&program, "forward", &config, &method, &diag),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert(strstr(diag.message, "cannot apply to operator 'relu'") != NULL,
            "%s", diag.message);
  etr_program_release(&program);
  etr_delegate_library_close(&library);
}

Test(vendor, hostile_blobs_are_refused) {
  const etr_backend_t *backend = etr_example_vendor_backend();
  etr_diag_t diag;
  etr_backend_init_context_t context = {.method_name = "forward",
                                        .diag = &diag};
  // Garbage, a truncated program and an empty blob: errors, not crashes.
  uint8_t garbage[256];
  for (size_t i = 0; i < sizeof(garbage); ++i) {
    garbage[i] = (uint8_t)(i * 37 + 11);
  }
  void *handle = NULL;
  etr_diag_reset(&diag);
  cr_assert_neq(backend->init(backend, &context, garbage, sizeof(garbage),
                              NULL, 0, &handle),
                ETR_OK);
  cr_assert_null(handle);
  etr_diag_reset(&diag);
  cr_assert_eq(backend->init(backend, &context, garbage, 0, NULL, 0, &handle),
               ETR_ERR_INVALID_PROGRAM);
  etr_program_t whole;
  ofx_load_program(&whole, "datasets/oracle/cnn_vendor/model.pte");
  // The real blob cut short, at several lengths.
  etr_program_t *program = &whole;
  const uint8_t *blob = NULL;
  size_t blob_size = 0;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_delegate_data(program, 1, 0, &blob, &blob_size,
                                         &diag),
               ETR_OK, "%s", diag.message);
  for (size_t cut = 8; cut < blob_size; cut += blob_size / 7) {
    etr_diag_reset(&diag);
    etr_error_t status =
        backend->init(backend, &context, blob, cut, NULL, 0, &handle);
    cr_assert_neq(status, ETR_OK, "a %zu-byte prefix loaded", cut);
  }
  etr_program_release(&whole);
}
