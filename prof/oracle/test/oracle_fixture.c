// SPDX-License-Identifier: Apache-2.0
//
// Test helpers for the oracle (see oracle_fixture.h).
#include "prof/oracle/test/oracle_fixture.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/test/all_kernels.h"
#include "delegates/demo_backend.h"
#include "delegates/example_vendor/example_vendor.h"
#include "prof/oracle/capture.h"

const etr_kernel_registry_t *ofx_kernels(void) {
  return etr_test_all_kernels();
}

void ofx_backends(etr_backend_registry_t *registry,
                  const etr_backend_t *extra) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_backend_registry_init(registry);
  cr_assert_eq(etr_backend_registry_add(registry, etr_demo_backend(), &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_backend_registry_add(registry,
                                        etr_example_vendor_backend(), &diag),
               ETR_OK, "%s", diag.message);
  if (extra != NULL) {
    cr_assert_eq(etr_backend_registry_set(registry, extra, NULL, &diag),
                 ETR_OK, "%s", diag.message);
  }
}

void ofx_load_program(etr_program_t *program, const char *path) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load_file(path, 0, program, &diag), ETR_OK,
               "%s: %s", path, diag.message);
}

void ofx_load_method(etr_method_t *method, const etr_program_t *program,
                     etr_kernel_variant_t variant,
                     const etr_backend_registry_t *backends) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_method_config_t config;
  etr_method_config_init(&config, ofx_kernels());
  config.variant = variant;
  config.backends = backends;
  cr_assert_eq(etr_method_load(program, "forward", &config, method, &diag),
               ETR_OK, "%s", diag.message);
}

void ofx_load_npy(etr_npy_array_t *array, const char *path) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_npy_load_file(path, 0, array, &diag), ETR_OK, "%s: %s",
               path, diag.message);
}

void ofx_set_input(etr_method_t *method, uint32_t index,
                   const etr_tensor_t *tensor) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_method_set_input_tensor(method, index, tensor, &diag),
               ETR_OK, "%s", diag.message);
}

void ofx_capture(etr_method_t *method, etr_oracle_values_t *values,
                 bool intermediates) {
  static etr_oracle_capture_t capture;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_oracle_capture_init(&capture, values, intermediates);
  cr_assert_eq(etr_oracle_capture_bind(&capture, method, &diag), ETR_OK,
               "%s", diag.message);
  const etr_event_tracer_t *saved = method->config.tracer;
  method->config.tracer = &capture.tracer;
  etr_error_t status = etr_method_execute(method, &diag);
  method->config.tracer = saved;
  cr_assert_eq(status, ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_oracle_capture_status(&capture, &diag), ETR_OK, "%s",
               diag.message);
  etr_oracle_capture_release(&capture);
}

void ofx_load_map(etr_oracle_map_t *map, const char *path) {
  void *bytes = NULL;
  size_t size = 0;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_read_file(path, 0, &bytes, &size, &diag), ETR_OK, "%s",
               diag.message);
  cr_assert_eq(etr_oracle_map_parse((const char *)bytes, size, path, map,
                                    &diag),
               ETR_OK, "%s", diag.message);
  free(bytes);
}

void ofx_judge(etr_method_t *reference, const etr_oracle_values_t *candidate,
               const etr_oracle_map_t *map, bool same_program,
               const etr_oracle_policy_t *policy,
               etr_oracle_alignment_t *alignment,
               etr_oracle_result_t *result) {
  static etr_oracle_policy_t defaults;
  if (policy == NULL) {
    etr_oracle_policy_defaults(&defaults);
    policy = &defaults;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_oracle_align(candidate, map, same_program, true, alignment,
                                &diag),
               ETR_OK, "%s", diag.message);
  etr_oracle_judge_config_t config = {
      .policy = policy, .alignment = alignment, .intermediates = true};
  cr_assert_eq(etr_oracle_judge(reference, &config, result, &diag), ETR_OK,
               "%s", diag.message);
}

void ofx_assert_localized(const etr_oracle_result_t *result,
                          uint32_t instruction, const char *op) {
  cr_assert_eq(result->verdict, ETR_ORACLE_DIVERGE, "%s", result->summary);
  cr_assert_geq(result->first_diverging_op, 0);
  const etr_oracle_op_result_t *first =
      &result->ops[result->first_diverging_op];
  cr_assert_eq(first->instruction, instruction,
               "first diverging op is %u:%u %s, expected instruction %u (%s)",
               first->chain, first->instruction, first->name, instruction, op);
  cr_assert_str_eq(first->name, op);
  for (int64_t i = 0; i < result->first_diverging_op; ++i) {
    cr_assert(result->ops[i].verdict == ETR_ORACLE_AGREE,
                 "op %lld (%u:%u %s) before the faulty one is %s",
                 (long long)i, result->ops[i].chain,
                 result->ops[i].instruction, result->ops[i].name,
                 etr_oracle_verdict_name(result->ops[i].verdict));
  }
  for (uint32_t i = (uint32_t)result->first_diverging_op + 1;
       i < result->num_ops; ++i) {
    cr_assert_neq(result->ops[i].verdict, ETR_ORACLE_DIVERGE,
                  "op %u (%u:%u %s) after the faulty one diverges too: %s", i,
                  result->ops[i].chain, result->ops[i].instruction,
                  result->ops[i].name,
                  result->values[result->ops[i].first_value].reason);
  }
}

void ofx_assert_agrees(const etr_oracle_result_t *result) {
  for (uint32_t i = 0; i < result->num_ops; ++i) {
    const etr_oracle_op_result_t *op = &result->ops[i];
    cr_assert(op->verdict == ETR_ORACLE_AGREE ||
                  op->verdict == ETR_ORACLE_PROPAGATED,
              "op %u (%u:%u %s) is %s: %s", i, op->chain, op->instruction,
              op->name, etr_oracle_verdict_name(op->verdict),
              op->num_values > 0 ? result->values[op->first_value].reason
                                 : op->note);
  }
  for (uint32_t k = 0; k < result->num_outputs; ++k) {
    cr_assert(result->outputs[k].verdict == ETR_ORACLE_AGREE ||
                  result->outputs[k].verdict == ETR_ORACLE_PROPAGATED,
              "output %u is %s: %s", k,
              etr_oracle_verdict_name(result->outputs[k].verdict),
              result->outputs[k].reason);
  }
  cr_assert_eq(result->verdict, ETR_ORACLE_AGREE, "%s", result->summary);
}
