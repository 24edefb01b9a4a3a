// SPDX-License-Identifier: Apache-2.0
//
// The verifier accepts every dataset program and, on real programs
// corrupted in one targeted way each, reports exactly that problem with the
// method, instruction, operator and values: two live tensors moved onto the
// same bytes, an output made too small for its result, an operator renamed
// to one with no kernel, a JumpFalseCall on a float tensor, and a delegate
// whose backend etref lacks.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/method.h"
#include "core/test/test_files.h"
#include "planner/lifetime.h"
#include "verifier/verify.h"

static etr_cli_session_t g_session;
static etr_verify_report_t g_report;

static void build(void) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_cli_build_kernels(&g_session.kernels, &diag), ETR_OK);
  cr_assert_eq(etr_cli_build_backends(&g_session.backends, &diag), ETR_OK);
}

TestSuite(verifier, .init = build);

// Verifies an image in memory; returns the status.
static etr_error_t verify_image(const uint8_t *image, size_t size) {
  uint8_t *copy = etr_test_copy(image, size);
  etr_program_t program;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load(copy, size, &program, &diag), ETR_OK, "%s",
               diag.message);
  etr_verify_config_t config = {.kernels = &g_session.kernels,
                                .backends = &g_session.backends};
  etr_error_t status = etr_verify_program(&program, &config, &g_report);
  etr_program_release(&program);
  free(copy);
  return status;
}

// The first diagnostic whose text contains `needle`, or NULL.
static const etr_diagnostic_t *find_diagnostic(const char *needle) {
  char line[2048];
  for (size_t i = 0; i < g_report.count; ++i) {
    etr_diagnostic_format(&g_report.items[i], line, sizeof(line));
    if (strstr(line, needle) != NULL) {
      return &g_report.items[i];
    }
  }
  return NULL;
}

static void dump_report(void) {
  char line[2048];
  for (size_t i = 0; i < g_report.count; ++i) {
    etr_diagnostic_format(&g_report.items[i], line, sizeof(line));
    fprintf(stderr, "  %s\n", line);
  }
}

Test(verifier, accepts_every_dataset_program) {
  static const char *const programs[] = {
      "mlp",          "cnn",          "mobilenet_v2",
      "transformer",  "lstm",         "mutable_buffer",
      "cond",         "dynamic_shape", "mlp_inline_constants",
      "delegate_demo_inline", "delegate_demo_segment",
  };
  for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); ++i) {
    char path[256];
    snprintf(path, sizeof(path), "datasets/models/%s/model.pte", programs[i]);
    size_t size = 0;
    uint8_t *image = etr_test_read_file(path, &size);
    etr_error_t status = verify_image(image, size);
    if (status != ETR_OK) {
      dump_report();
    }
    cr_assert_eq(status, ETR_OK, "%s was rejected", programs[i]);
    cr_assert_eq(g_report.errors, 0);
    free(image);
  }
}

Test(verifier, names_the_missing_backend) {
  size_t size = 0;
  uint8_t *image =
      etr_test_read_file("datasets/models/cnn_xnnpack/model.pte", &size);
  cr_assert_eq(verify_image(image, size), ETR_ERR_INVALID_PROGRAM);
  const etr_diagnostic_t *d = find_diagnostic("'XnnpackBackend'");
  cr_assert_not_null(d);
  cr_assert_eq(d->code, ETR_ERR_NOT_FOUND);
  free(image);
}

// FlatBuffer position of field `id` of `table` (the field must be present).
static size_t field_position(const etr_fb_table_t *table, unsigned id) {
  uint16_t offset = etr_load_u16(table->data + table->vtable_position + 4 +
                                 2 * id);
  cr_assert_neq(offset, 0, "field %u is absent", id);
  return table->position + offset;
}

// The Tensor table of value `v` of the first method.
static etr_fb_table_t tensor_table(const etr_program_t *program, uint32_t v) {
  etr_fb_table_t plan;
  etr_fb_table_t value;
  etr_fb_table_t tensor;
  etr_fb_vector_t values;
  bool present = false;
  uint8_t type = 0;
  cr_assert_eq(etr_fb_vector_table(&program->execution_plans, 0, &plan, NULL),
               ETR_OK);
  cr_assert_eq(etr_fb_vector_field(&plan, ETR_PLAN_VALUES, 4, &values,
                                   &present, NULL),
               ETR_OK);
  cr_assert_eq(etr_fb_vector_table(&values, v, &value, NULL), ETR_OK);
  cr_assert_eq(etr_fb_union_field(&value, 0, &type, &tensor, NULL), ETR_OK);
  cr_assert_eq(type, 5, "value %u is not a tensor", v);
  return tensor;
}

static void put_u32(uint8_t *at, uint32_t value) {
  memcpy(at, &value, sizeof(value));  // little-endian host
}

Test(verifier, finds_two_live_tensors_sharing_bytes) {
  size_t size = 0;
  uint8_t *image = etr_test_read_file("datasets/models/cnn/model.pte", &size);
  // Find two planned tensors that are live together in the real plan.
  etr_program_t program;
  cr_assert_eq(etr_program_load(image, size, &program, NULL), ETR_OK);
  etr_method_config_t config;
  etr_method_config_init(&config, &g_session.kernels);
  etr_method_t method;
  cr_assert_eq(etr_method_load(&program, "forward", &config, &method, NULL),
               ETR_OK);
  etr_lifetimes_t lifetimes;
  cr_assert_eq(etr_lifetimes_compute(&method, NULL, &lifetimes, NULL),
               ETR_OK);
  uint32_t a = UINT32_MAX;
  uint32_t b = UINT32_MAX;
  for (uint32_t x = 0; x < lifetimes.num_units && a == UINT32_MAX; ++x) {
    for (uint32_t y = x + 1; y < lifetimes.num_units; ++y) {
      if (lifetimes.units[x].kind == ETR_UNIT_TEMPORARY &&
          lifetimes.units[y].kind == ETR_UNIT_TEMPORARY &&
          lifetimes.units[x].size > 0 && lifetimes.units[y].size > 0 &&
          etr_units_conflict(&lifetimes, x, y)) {
        a = x;
        b = y;
        break;
      }
    }
  }
  cr_assert_neq(a, UINT32_MAX, "no pair of live tensors found");
  uint32_t value_a = lifetimes.units[a].first_value;
  uint32_t value_b = lifetimes.units[b].first_value;
  uint32_t offset_a = (uint32_t)lifetimes.units[a].program_offset;
  etr_fb_table_t tensor = tensor_table(&program, value_b);
  etr_fb_table_t allocation;
  bool present = false;
  cr_assert_eq(etr_fb_table_field(&tensor, 6, &allocation, &present, NULL),
               ETR_OK);
  size_t at = field_position(&allocation, 1);  // memory_offset_low
  etr_lifetimes_release(&lifetimes);
  etr_method_release(&method);
  etr_program_release(&program);

  put_u32(image + at, offset_a);
  cr_assert_eq(verify_image(image, size), ETR_ERR_INVALID_PROGRAM);
  char needle_a[32];
  char needle_b[32];
  snprintf(needle_a, sizeof(needle_a), "v%u ", value_a < value_b ? value_a
                                                                : value_b);
  snprintf(needle_b, sizeof(needle_b), "v%u ", value_a < value_b ? value_b
                                                                : value_a);
  const etr_diagnostic_t *d = find_diagnostic("both live");
  cr_assert_not_null(d);
  cr_assert_not_null(strstr(d->message, needle_a), "%s", d->message);
  cr_assert_not_null(strstr(d->message, needle_b), "%s", d->message);
  cr_assert_geq(d->instruction, 0);
  free(image);
}

Test(verifier, finds_an_output_too_small_for_its_result) {
  size_t size = 0;
  uint8_t *image = etr_test_read_file("datasets/models/mlp/model.pte", &size);
  etr_program_t program;
  cr_assert_eq(etr_program_load(image, size, &program, NULL), ETR_OK);
  etr_method_config_t config;
  etr_method_config_init(&config, &g_session.kernels);
  etr_method_t method;
  cr_assert_eq(etr_method_load(&program, "forward", &config, &method, NULL),
               ETR_OK);
  // The first relu: shrink its out (the trailing argument) to one column.
  uint32_t out_value = UINT32_MAX;
  uint32_t index = 0;
  for (uint32_t i = 0; i < method.chains[0].num_instructions; ++i) {
    const etr_instruction_t *instruction = &method.chains[0].instructions[i];
    if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL &&
        strcmp(method.operators[instruction->callee].name,
               "aten::relu.out") == 0) {
      out_value = instruction->arg_indices[instruction->num_args - 1];
      index = i;
      break;
    }
  }
  cr_assert_neq(out_value, UINT32_MAX);
  etr_fb_table_t tensor = tensor_table(&program, out_value);
  etr_fb_vector_t sizes;
  bool present = false;
  cr_assert_eq(etr_fb_vector_field(&tensor, 2, 4, &sizes, &present, NULL),
               ETR_OK);
  size_t at = sizes.position + 4 * (sizes.length - 1);
  etr_method_release(&method);
  etr_program_release(&program);

  put_u32(image + at, 1);
  cr_assert_eq(verify_image(image, size), ETR_ERR_INVALID_PROGRAM);
  const etr_diagnostic_t *d = find_diagnostic("aten::relu.out");
  cr_assert_not_null(d);
  cr_assert_eq(d->instruction, (int32_t)index);
  cr_assert_eq(d->code, ETR_ERR_INVALID_ARGUMENT, "%s", d->message);
  free(image);
}

Test(verifier, names_an_operator_without_a_kernel) {
  size_t size = 0;
  uint8_t *image = etr_test_read_file("datasets/models/mlp/model.pte", &size);
  uint8_t *name = (uint8_t *)memmem(image, size, "aten::relu", 10);
  cr_assert_not_null(name);
  memcpy(name, "aten::relx", 10);
  cr_assert_eq(verify_image(image, size), ETR_ERR_INVALID_PROGRAM);
  const etr_diagnostic_t *d = find_diagnostic("'aten::relx.out'");
  cr_assert_not_null(d);
  cr_assert_eq(d->code, ETR_ERR_OPERATOR_MISSING);
  cr_assert_geq(d->instruction, 0);
  free(image);
}

Test(verifier, refuses_a_jump_on_a_float_condition) {
  size_t size = 0;
  uint8_t *image = etr_test_read_file("datasets/models/cond/model.pte", &size);
  etr_program_t program;
  cr_assert_eq(etr_program_load(image, size, &program, NULL), ETR_OK);
  etr_fb_table_t plan;
  etr_fb_vector_t chains;
  etr_fb_vector_t instructions;
  etr_fb_table_t chain;
  etr_fb_table_t instruction;
  etr_fb_table_t jump;
  bool present = false;
  uint8_t type = 0;
  cr_assert_eq(etr_fb_vector_table(&program.execution_plans, 0, &plan, NULL),
               ETR_OK);
  cr_assert_eq(etr_fb_vector_field(&plan, ETR_PLAN_CHAINS, 4, &chains,
                                   &present, NULL),
               ETR_OK);
  cr_assert_eq(etr_fb_vector_table(&chains, 0, &chain, NULL), ETR_OK);
  cr_assert_eq(etr_fb_vector_field(&chain, 2, 4, &instructions, &present,
                                   NULL),
               ETR_OK);
  size_t at = 0;
  for (uint32_t i = 0; i < instructions.length; ++i) {
    cr_assert_eq(etr_fb_vector_table(&instructions, i, &instruction, NULL),
                 ETR_OK);
    cr_assert_eq(etr_fb_union_field(&instruction, 0, &type, &jump, NULL),
                 ETR_OK);
    if (type == 4) {  // JumpFalseCall
      at = field_position(&jump, 0);
      break;
    }
  }
  cr_assert_neq(at, 0);
  etr_program_release(&program);
  put_u32(image + at, 2);  // v2: the float input
  cr_assert_eq(verify_image(image, size), ETR_ERR_INVALID_PROGRAM);
  const etr_diagnostic_t *d = find_diagnostic("JumpFalseCall condition");
  cr_assert_not_null(d);
  cr_assert_geq(d->instruction, 0);
  free(image);
}
