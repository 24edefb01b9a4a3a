// SPDX-License-Identifier: Apache-2.0
//
// The planner on the dataset programs and on hand-made lifetime sets:
//   - the program's own plan passes the physical conflict check;
//   - ExecuTorch's greedy, run on etref's lifetimes, reproduces the pool
//     sizes the exporter stored (torch.cond is the documented exception:
//     ExecuTorch plans each branch separately and reserves their sum);
//   - etref's best fit is never above greedy nor below the lower bound, and
//     both plans pass the check;
//   - running each program with etref's best plan gives outputs bitwise
//     identical to running it with the program's plan.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/method.h"
#include "core/npy.h"
#include "planner/lifetime.h"
#include "planner/plan.h"

static etr_cli_session_t g_session;

typedef struct {
  const char *model;
  const char *prefix;
  uint64_t executorch_bytes;  // non_const_buffer_sizes[1] in the program
  bool greedy_matches;
} model_case_t;

static const model_case_t kModels[] = {
    {"mlp", "", 18432, true},
    {"cnn", "", 147456, true},
    {"mobilenet_v2", "", 393216, true},
    {"transformer", "", 53248, true},
    {"lstm", "", 7296, true},
    {"mutable_buffer", "call0_", 480, true},
    {"cond", "case1_", 368, false},
    {"dynamic_shape", "case1_", 8192, true},
    {"delegate_demo_segment", "", 64, true},
    {"cnn_quantized", "", 247808, true},
};

static void load_method(const char *model, const etr_memory_plan_t *plan,
                        etr_method_t *method) {
  char path[256];
  snprintf(path, sizeof(path), "datasets/models/%s/model.pte", model);
  etr_cli_close(&g_session);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_cli_open(&g_session, path, NULL, &diag), 0);
  etr_method_config_t config;
  etr_method_config_init(&config, &g_session.kernels);
  config.backends = &g_session.backends;
  config.memory_plan = plan;
  cr_assert_eq(etr_method_load(&g_session.program, "forward", &config,
                               method, &diag),
               ETR_OK, "%s: %s", model, diag.message);
}

// Executes with the model's inputs; returns a malloc'd copy of every output.
static void run(etr_method_t *method, const char *model, const char *prefix,
                uint8_t **outputs, size_t *sizes) {
  etr_npy_array_t inputs[4];
  memset(inputs, 0, sizeof(inputs));
  etr_diag_t diag;
  etr_diag_reset(&diag);
  for (uint32_t i = 0; i < method->num_inputs && i < 4; ++i) {
    char path[256];
    snprintf(path, sizeof(path), "datasets/models/%s/%sinput_%u.npy", model,
             prefix, i);
    cr_assert_eq(etr_npy_load_file(path, 0, &inputs[i], &diag), ETR_OK);
    cr_assert_eq(etr_method_set_input_tensor(method, i, &inputs[i].tensor,
                                             &diag),
                 ETR_OK, "%s", diag.message);
  }
  cr_assert_eq(etr_method_execute(method, &diag), ETR_OK, "%s: %s", model,
               diag.message);
  for (uint32_t k = 0; k < method->num_outputs && k < 4; ++k) {
    const etr_tensor_t *out = etr_method_output(method, k)->u.as_tensor;
    sizes[k] = etr_tensor_nbytes(out);
    outputs[k] = (uint8_t *)malloc(sizes[k] + 1);
    memcpy(outputs[k], out->data, sizes[k]);
  }
  for (int i = 0; i < 4; ++i) {
    etr_npy_array_release(&inputs[i]);
  }
}

static bool has_xnnpack(const etr_method_t *method) {
  for (uint32_t i = 0; i < method->num_delegates; ++i) {
    const char *id = method->delegates[i].backend_id;
    if (id != NULL && strstr(id, "nnpack") != NULL) {
      return true;
    }
  }
  return false;
}

Test(planner, dataset_programs) {
  for (size_t m = 0; m < sizeof(kModels) / sizeof(kModels[0]); ++m) {
    const model_case_t *c = &kModels[m];
    etr_method_t method;
    load_method(c->model, NULL, &method);
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_lifetimes_t physical;
    cr_assert_eq(etr_lifetimes_compute(&method, NULL, &physical, &diag),
                 ETR_OK);
    cr_assert_not_null(physical.occupancy, "%s: exact analysis expected",
                       c->model);
    etr_plan_t program;
    cr_assert_eq(etr_plan_from_program(&method, &physical, &program, &diag),
                 ETR_OK);
    cr_assert_eq(etr_plan_total(&program), c->executorch_bytes);
    cr_assert_eq(etr_plan_check(&physical, &program, 16, &diag), ETR_OK,
                 "%s: the program's own plan: %s", c->model, diag.message);

    etr_lifetime_options_t options = {.granularity = ETR_UNITS_LOGICAL};
    etr_lifetimes_t logical;
    cr_assert_eq(etr_lifetimes_compute(&method, &options, &logical, &diag),
                 ETR_OK);
    etr_plan_t greedy;
    etr_plan_t best;
    uint64_t padding = has_xnnpack(&method) ? ETR_PLAN_XNNPACK_PADDING : 0;
    cr_assert_eq(etr_plan_executorch_greedy(&logical, 16, padding, &greedy,
                                            &diag),
                 ETR_OK);
    cr_assert_eq(etr_plan_best_fit(&logical, 16, &best, &diag), ETR_OK);
    uint64_t lower = etr_plan_lower_bound(&logical, 16);
    if (c->greedy_matches) {
      cr_assert_eq(etr_plan_total(&greedy), c->executorch_bytes,
                   "%s: greedy %llu, ExecuTorch stored %llu", c->model,
                   (unsigned long long)etr_plan_total(&greedy),
                   (unsigned long long)c->executorch_bytes);
    } else {
      cr_assert_leq(etr_plan_total(&greedy), c->executorch_bytes);
    }
    cr_assert_leq(etr_plan_total(&best), etr_plan_total(&greedy), "%s",
                  c->model);
    cr_assert_geq(etr_plan_total(&best), lower, "%s", c->model);
    cr_assert_eq(etr_plan_check(&logical, &greedy, 16, &diag), ETR_OK, "%s",
                 diag.message);
    cr_assert_eq(etr_plan_check(&logical, &best, 16, &diag), ETR_OK, "%s",
                 diag.message);

    // Run with the program's plan, then with etref's best plan.
    uint8_t *expected[4] = {0};
    uint8_t *actual[4] = {0};
    size_t expected_sizes[4] = {0};
    size_t actual_sizes[4] = {0};
    run(&method, c->model, c->prefix, expected, expected_sizes);
    uint32_t outputs = method.num_outputs;
    uint32_t pools = method.num_planned_buffers;
    etr_planned_placement_t *placements = (etr_planned_placement_t *)calloc(
        logical.num_values + 1, sizeof(etr_planned_placement_t));
    size_t pool_sizes[8];
    etr_memory_plan_t replacement;
    etr_plan_to_memory_plan(&logical, &best, pools, placements, pool_sizes,
                            &replacement);
    etr_method_release(&method);
    load_method(c->model, &replacement, &method);
    cr_assert_eq(etr_method_planned_bytes(&method), etr_plan_total(&best));
    run(&method, c->model, c->prefix, actual, actual_sizes);
    for (uint32_t k = 0; k < outputs && k < 4; ++k) {
      cr_assert_eq(actual_sizes[k], expected_sizes[k]);
      cr_assert_eq(memcmp(actual[k], expected[k], actual_sizes[k]), 0,
                   "%s: output %u differs with etref's plan", c->model, k);
      free(actual[k]);
      free(expected[k]);
    }
    free(placements);
    etr_method_release(&method);
    etr_plan_release(&program);
    etr_plan_release(&greedy);
    etr_plan_release(&best);
    etr_lifetimes_release(&physical);
    etr_lifetimes_release(&logical);
  }
  etr_cli_close(&g_session);
}

// Hand-made units in interval mode (no occupancy bitsets).
static etr_lifetimes_t make_lifetimes(etr_alloc_unit_t *units, uint32_t n) {
  etr_lifetimes_t lifetimes;
  memset(&lifetimes, 0, sizeof(lifetimes));
  lifetimes.units = units;
  lifetimes.num_units = n;
  lifetimes.num_positions = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (units[i].end + 1 > lifetimes.num_positions) {
      lifetimes.num_positions = units[i].end + 1;
    }
  }
  return lifetimes;
}

Test(planner, algorithms_on_a_known_case) {
  // Sizes 32, 16, 16, 48: A [0,2], B [1,3], C [3,5], D [4,6].
  etr_alloc_unit_t units[4] = {
      {.memory_id = 1, .size = 32, .start = 0, .end = 2, .first_value = 0},
      {.memory_id = 1, .size = 16, .start = 1, .end = 3, .first_value = 1},
      {.memory_id = 1, .size = 16, .start = 3, .end = 5, .first_value = 2},
      {.memory_id = 1, .size = 48, .start = 4, .end = 6, .first_value = 3},
  };
  etr_lifetimes_t lifetimes = make_lifetimes(units, 4);
  // Peak: at positions 4..5 C and D (64 bytes); at 1..2 A and B (48).
  cr_assert_eq(etr_plan_lower_bound(&lifetimes, 16), 64);
  etr_plan_t best;
  cr_assert_eq(etr_plan_best_fit(&lifetimes, 16, &best, NULL), ETR_OK);
  cr_assert_eq(etr_plan_total(&best), 64);
  cr_assert_eq(etr_plan_check(&lifetimes, &best, 16, NULL), ETR_OK);
  etr_plan_t greedy;
  cr_assert_eq(etr_plan_executorch_greedy(&lifetimes, 16, 0, &greedy, NULL),
               ETR_OK);
  cr_assert_eq(etr_plan_check(&lifetimes, &greedy, 16, NULL), ETR_OK);
  cr_assert_geq(etr_plan_total(&greedy), 64);
  // A deliberate conflict: B moved onto A while both are live.
  best.offsets[1] = best.offsets[0];
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_plan_check(&lifetimes, &best, 16, &diag),
               ETR_ERR_INVALID_PROGRAM);
  cr_assert_not_null(strstr(diag.message, "share memory"), "%s",
                     diag.message);
  best.offsets[1] = 8;  // misaligned
  etr_diag_reset(&diag);
  cr_assert_eq(etr_plan_check(&lifetimes, &best, 16, &diag),
               ETR_ERR_INVALID_PROGRAM);
  best.offsets[1] = 1u << 20;  // outside the pool
  etr_diag_reset(&diag);
  cr_assert_eq(etr_plan_check(&lifetimes, &best, 16, &diag),
               ETR_ERR_INVALID_PROGRAM);
  cr_assert_not_null(strstr(diag.message, "outside"));
  etr_plan_release(&best);
  etr_plan_release(&greedy);
}

Test(planner, random_unit_sets_always_verify) {
  uint64_t state = 7;
  etr_alloc_unit_t units[64];
  for (int round = 0; round < 300; ++round) {
    uint32_t n = 1 + (uint32_t)(round % 64);
    for (uint32_t i = 0; i < n; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t start = (uint32_t)(state >> 40) % 50;
      uint32_t length = (uint32_t)(state >> 20) % 20;
      units[i] = (etr_alloc_unit_t){
          .memory_id = 1 + (uint32_t)(state >> 60) % 2,
          .size = 1 + (state >> 8) % 5000,
          .start = start,
          .end = start + length,
          .first_value = i,
      };
    }
    etr_lifetimes_t lifetimes = make_lifetimes(units, n);
    etr_plan_t greedy;
    etr_plan_t best;
    cr_assert_eq(etr_plan_executorch_greedy(&lifetimes, 16, 0, &greedy, NULL),
                 ETR_OK);
    cr_assert_eq(etr_plan_best_fit(&lifetimes, 16, &best, NULL), ETR_OK);
    etr_diag_t diag;
    etr_diag_reset(&diag);
    cr_assert_eq(etr_plan_check(&lifetimes, &greedy, 16, &diag), ETR_OK,
                 "round %d greedy: %s", round, diag.message);
    cr_assert_eq(etr_plan_check(&lifetimes, &best, 16, &diag), ETR_OK,
                 "round %d best: %s", round, diag.message);
    uint64_t lower = etr_plan_lower_bound(&lifetimes, 16);
    cr_assert_geq(etr_plan_total(&best), lower);
    cr_assert_geq(etr_plan_total(&greedy), lower);
    etr_plan_release(&greedy);
    etr_plan_release(&best);
  }
}
