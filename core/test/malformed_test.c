// SPDX-License-Identifier: Apache-2.0
//
// Malformed programs through the whole pipeline (load, verification,
// method instantiation, execution): targeted corruptions of real programs
// (absurd buffer and tensor sizes, out-of-range indices, a jump loop), then
// every byte of several real programs' FlatBuffer replaced by a few seeded
// values. Each must end in a clean error or a successful run, never a crash,
// a hang or an out-of-bounds access (ASan and UBSan watch under
// --config=asan).
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/method.h"
#include "core/prim_ops.h"
#include "core/program.h"
#include "core/test/test_files.h"
#include "delegates/demo_backend.h"
#include "ops_reference/ops_reference.h"
#include "verifier/verify.h"

static etr_kernel_registry_t g_kernels;
static etr_backend_registry_t g_backends;

static void build_registries(void) {
  etr_registry_init(&g_kernels);
  cr_assert_eq(etr_registry_register_table(&g_kernels, etr_prim_kernels,
                                           etr_prim_kernel_count,
                                           ETR_KERNELS_REFERENCE, NULL),
               ETR_OK);
  cr_assert_eq(etr_registry_register_table(&g_kernels, etr_reference_kernels,
                                           etr_reference_kernel_count,
                                           ETR_KERNELS_REFERENCE, NULL),
               ETR_OK);
  etr_backend_registry_init(&g_backends);
  etr_backend_registry_add(&g_backends, etr_demo_backend(), NULL);
}

TestSuite(malformed, .init = build_registries);

// Loads, instantiates and runs (zeroed planned inputs) a program image.
// Returns the first error; the diag message must be set on any error.
static etr_error_t run_image(const uint8_t *image, size_t size) {
  uint8_t *copy = etr_test_copy(image, size);
  etr_program_t program;
  etr_method_t method;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_program_load(copy, size, &program, &diag);
  if (status == ETR_OK) {
    // As `etref run` does: nothing executes unless the verifier accepts it.
    static etr_verify_report_t report;
    etr_verify_config_t verify = {.kernels = &g_kernels,
                                  .backends = &g_backends,
                                  .method = "forward"};
    status = etr_verify_program(&program, &verify, &report);
    if (status != ETR_OK) {
      cr_assert_gt(report.count, 0, "rejected without a diagnostic");
      snprintf(diag.message, sizeof(diag.message), "%s",
               report.items[0].message);
      status = report.items[0].code;
    }
  }
  if (status == ETR_OK) {
    etr_method_config_t config;
    etr_method_config_init(&config, &g_kernels);
    config.backends = &g_backends;
    config.max_planned_bytes = 64 << 20;
    config.max_method_bytes = 64 << 20;
    config.max_instructions = 100000;
    etr_diag_reset(&diag);
    status = etr_method_load(&program, "forward", &config, &method, &diag);
    if (status == ETR_OK) {
      status = etr_method_execute(&method, &diag);
      etr_method_release(&method);
    }
  }
  etr_program_release(&program);
  if (status != ETR_OK) {
    cr_assert_neq(diag.message[0], '\0', "error 0x%x without a message",
                  (unsigned)status);
  }
  free(copy);
  return status;
}

// The FlatBuffer position of non_const_buffer_sizes[index] in a program.
static size_t locate_buffer_size(const uint8_t *image, size_t size,
                                 uint32_t index) {
  etr_program_t program;
  cr_assert_eq(etr_program_load(image, size, &program, NULL), ETR_OK);
  etr_fb_table_t plan;
  cr_assert_eq(etr_fb_vector_table(&program.execution_plans, 0, &plan, NULL),
               ETR_OK);
  etr_fb_vector_t sizes;
  bool present = false;
  cr_assert_eq(etr_fb_vector_field(&plan, ETR_PLAN_NON_CONST_BUFFER_SIZES, 8,
                                   &sizes, &present, NULL),
               ETR_OK);
  cr_assert_gt(sizes.length, index);
  return sizes.position + 8 * (size_t)index;
}

Test(malformed, absurd_planned_buffer_size_is_refused) {
  size_t size = 0;
  uint8_t *image = etr_test_read_file("datasets/models/mlp/model.pte", &size);
  size_t at = locate_buffer_size(image, size, 1);
  int64_t values[] = {INT64_MAX, (int64_t)1 << 40, -5, 0, 8};
  etr_error_t expected[] = {ETR_ERR_MEMORY_ALLOCATION_FAILED,
                            ETR_ERR_MEMORY_ALLOCATION_FAILED,
                            ETR_ERR_INVALID_PROGRAM, ETR_ERR_INVALID_PROGRAM,
                            ETR_ERR_INVALID_PROGRAM};
  for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); ++i) {
    memcpy(image + at, &values[i], 8);
    cr_assert_eq(run_image(image, size), expected[i],
                 "buffer size %lld", (long long)values[i]);
  }
  free(image);
}

// The FlatBuffer position of the sizes of the first tensor value of rank
// >= `min_rank` in the program's first plan; *rank_out is its rank.
static size_t locate_tensor_sizes(const uint8_t *image, size_t size,
                                  uint32_t min_rank, uint32_t *rank_out) {
  etr_program_t program;
  cr_assert_eq(etr_program_load(image, size, &program, NULL), ETR_OK);
  etr_fb_table_t plan;
  cr_assert_eq(etr_fb_vector_table(&program.execution_plans, 0, &plan, NULL),
               ETR_OK);
  etr_fb_vector_t values;
  bool present = false;
  cr_assert_eq(etr_fb_vector_field(&plan, ETR_PLAN_VALUES, 4, &values,
                                   &present, NULL),
               ETR_OK);
  for (uint32_t i = 0; i < values.length; ++i) {
    etr_fb_table_t value;
    etr_fb_table_t tensor;
    uint8_t type = 0;
    etr_fb_vector_t sizes;
    cr_assert_eq(etr_fb_vector_table(&values, i, &value, NULL), ETR_OK);
    cr_assert_eq(etr_fb_union_field(&value, 0, &type, &tensor, NULL), ETR_OK);
    if (type != 5 /* Tensor */ ||
        etr_fb_vector_field(&tensor, 2, 4, &sizes, &present, NULL) != ETR_OK ||
        sizes.length < min_rank) {
      continue;
    }
    *rank_out = sizes.length;
    return sizes.position;
  }
  cr_assert_fail("no tensor of rank >= %u", min_rank);
  return 0;
}

// Found by fuzz/pte_execute (fuzz/regression/pte_execute/): sizes whose
// product overflows int64 reached the stride computation (signed overflow,
// undefined behaviour) before any check refused them.
Test(malformed, tensor_sizes_whose_product_overflows_are_refused) {
  size_t size = 0;
  uint8_t *image = etr_test_read_file("datasets/models/cnn/model.pte", &size);
  uint32_t rank = 0;
  size_t at = locate_tensor_sizes(image, size, 3, &rank);
  for (uint32_t d = 0; d < rank; ++d) {
    int32_t huge = INT32_MAX;
    memcpy(image + at + 4 * (size_t)d, &huge, 4);
  }
  cr_assert_eq(run_image(image, size), ETR_ERR_INVALID_PROGRAM);
  free(image);
}

Test(malformed, byte_replacement_in_the_flatbuffer_never_crashes) {
  static const char *const models[] = {
      "datasets/models/cond/model.pte",
      "datasets/models/dynamic_shape/model.pte",
      "datasets/models/mutable_buffer/model.pte",
      "datasets/models/delegate_demo_inline/model.pte",
  };
  static const uint8_t replacements[] = {0x00, 0xff, 0x7f, 0x01, 0x80};
  uint64_t rng = 12345;
  for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); ++m) {
    size_t size = 0;
    uint8_t *image = etr_test_read_file(models[m], &size);
    etr_program_t program;
    cr_assert_eq(etr_program_load(image, size, &program, NULL), ETR_OK);
    size_t flatbuffer_size = (size_t)program.program_size;
    size_t failures = 0;
    for (size_t at = 0; at < flatbuffer_size; ++at) {
      uint8_t original = image[at];
      for (size_t r = 0; r < 2; ++r) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        image[at] = replacements[(rng >> 33) % sizeof(replacements)];
        if (image[at] == original) {
          continue;
        }
        failures += run_image(image, size) != ETR_OK;
      }
      image[at] = original;
    }
    cr_assert_gt(failures, 0, "%s: no corruption was detected", models[m]);
    free(image);
  }
}
