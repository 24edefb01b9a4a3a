// SPDX-License-Identifier: Apache-2.0
//
// Test fixture for prof/ tests (see fixture.h).
#include "prof/test/fixture.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/test/all_kernels.h"
#include "delegates/demo_backend.h"

const fixture_model_t fixture_models[] = {
    {"mlp", "", NULL},
    {"cnn", "", NULL},
    {"mobilenet_v2", "", NULL},
    {"transformer", "", NULL},
    {"lstm", "", NULL},
    {"mutable_buffer", "call0_", NULL},
    {"cond", "case0_", NULL},
    {"cond", "case1_", NULL},
    {"dynamic_shape", "case1_", NULL},
    {"mlp_external", "", "model.ptd"},
    {"mlp_inline_constants", "", NULL},
    {"delegate_demo_inline", "", NULL},
    {"delegate_demo_segment", "", NULL},
};
const size_t fixture_model_count =
    sizeof(fixture_models) / sizeof(fixture_models[0]);

static etr_backend_registry_t g_backends;
static bool g_backends_built = false;

static void build_backends(void) {
  if (g_backends_built) {
    return;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_backend_registry_init(&g_backends);
  cr_assert_eq(etr_backend_registry_add(&g_backends, etr_demo_backend(),
                                        &diag),
               ETR_OK, "%s", diag.message);
  g_backends_built = true;
}

void fixture_open(fixture_t *fixture, const char *model, const char *prefix,
                  const char *data, etr_kernel_variant_t variant,
                  const etr_event_tracer_t *tracer) {
  build_backends();
  memset(fixture, 0, sizeof(*fixture));
  char path[512];
  etr_diag_t diag;
  etr_diag_reset(&diag);
  snprintf(path, sizeof(path), "datasets/models/%s/model.pte", model);
  cr_assert_eq(etr_program_load_file(path, 0, &fixture->program, &diag),
               ETR_OK, "%s: %s", path, diag.message);
  etr_method_config_t config;
  etr_method_config_init(&config, etr_test_all_kernels());
  config.variant = variant;
  config.backends = &g_backends;
  config.tracer = tracer;
  if (data != NULL) {
    snprintf(path, sizeof(path), "datasets/models/%s/%s", model, data);
    cr_assert_eq(etr_data_map_load_file(path, 0, &fixture->data, &diag),
                 ETR_OK, "%s", diag.message);
    config.external_data = &fixture->data;
  }
  cr_assert_eq(etr_method_load(&fixture->program, "forward", &config,
                               &fixture->method, &diag),
               ETR_OK, "%s: %s", model, diag.message);
  cr_assert_leq(fixture->method.num_inputs, FIXTURE_MAX_INPUTS);
  fixture->num_inputs = fixture->method.num_inputs;
  for (uint32_t i = 0; i < fixture->num_inputs; ++i) {
    snprintf(path, sizeof(path), "datasets/models/%s/%sinput_%u.npy", model,
             prefix, i);
    cr_assert_eq(etr_npy_load_file(path, 0, &fixture->inputs[i], &diag),
                 ETR_OK, "%s: %s", path, diag.message);
  }
}

void fixture_set_inputs(fixture_t *fixture) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  for (uint32_t i = 0; i < fixture->num_inputs; ++i) {
    cr_assert_eq(etr_method_set_input_tensor(&fixture->method, i,
                                             &fixture->inputs[i].tensor,
                                             &diag),
                 ETR_OK, "input %u: %s", i, diag.message);
  }
}

void fixture_execute(fixture_t *fixture) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  fixture_set_inputs(fixture);
  cr_assert_eq(etr_method_execute(&fixture->method, &diag), ETR_OK, "%s",
               diag.message);
}

void fixture_close(fixture_t *fixture) {
  for (uint32_t i = 0; i < FIXTURE_MAX_INPUTS; ++i) {
    etr_npy_array_release(&fixture->inputs[i]);
  }
  etr_method_release(&fixture->method);
  etr_data_map_release(&fixture->data);
  etr_program_release(&fixture->program);
}
