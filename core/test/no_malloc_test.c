// SPDX-License-Identifier: Apache-2.0
//
// "No malloc while a method executes": every allocation function is wrapped
// at link time (-Wl,--wrap=...) and counted while etr_method_execute runs,
// over every dataset model with both kernel variants. Loading may allocate;
// executing must not.
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/method.h"
#include "core/npy.h"
#include "core/prim_ops.h"
#include "core/program.h"
#include "delegates/demo_backend.h"
#include "ops_reference/ops_reference.h"

static bool g_counting = false;
static size_t g_allocations = 0;

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *pointer, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t size);
int __real_posix_memalign(void **out, size_t alignment, size_t size);

void *__wrap_malloc(size_t size) {
  g_allocations += g_counting;
  return __real_malloc(size);
}
void *__wrap_calloc(size_t count, size_t size) {
  g_allocations += g_counting;
  return __real_calloc(count, size);
}
void *__wrap_realloc(void *pointer, size_t size) {
  g_allocations += g_counting;
  return __real_realloc(pointer, size);
}
void *__wrap_aligned_alloc(size_t alignment, size_t size) {
  g_allocations += g_counting;
  return __real_aligned_alloc(alignment, size);
}
int __wrap_posix_memalign(void **out, size_t alignment, size_t size) {
  g_allocations += g_counting;
  return __real_posix_memalign(out, alignment, size);
}

static void check_model(const char *model, const char *prefix,
                        const char *data_file, etr_kernel_variant_t variant,
                        const etr_kernel_registry_t *kernels,
                        const etr_backend_registry_t *backends) {
  char path[512];
  etr_program_t program;
  etr_data_map_t data;
  etr_method_t method;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  memset(&data, 0, sizeof(data));
  snprintf(path, sizeof(path), "datasets/models/%s/model.pte", model);
  cr_assert_eq(etr_program_load_file(path, 0, &program, &diag), ETR_OK, "%s",
               diag.message);
  etr_method_config_t config;
  etr_method_config_init(&config, kernels);
  config.variant = variant;
  config.backends = backends;
  if (data_file != NULL) {
    snprintf(path, sizeof(path), "datasets/models/%s/%s", model, data_file);
    cr_assert_eq(etr_data_map_load_file(path, 0, &data, &diag), ETR_OK);
    config.external_data = &data;
  }
  cr_assert_eq(etr_method_load(&program, "forward", &config, &method, &diag),
               ETR_OK, "%s: %s", model, diag.message);
  etr_npy_array_t inputs[8];
  memset(inputs, 0, sizeof(inputs));
  for (uint32_t i = 0; i < method.num_inputs && i < 8; ++i) {
    snprintf(path, sizeof(path), "datasets/models/%s/%sinput_%u.npy", model,
             prefix, i);
    cr_assert_eq(etr_npy_load_file(path, 0, &inputs[i], &diag), ETR_OK);
    cr_assert_eq(etr_method_set_input_tensor(&method, i, &inputs[i].tensor,
                                             &diag),
                 ETR_OK, "%s", diag.message);
  }
  g_allocations = 0;
  g_counting = true;
  etr_error_t status = etr_method_execute(&method, &diag);
  status = status == ETR_OK ? etr_method_execute(&method, &diag) : status;
  g_counting = false;
  cr_assert_eq(status, ETR_OK, "%s: %s", model, diag.message);
  cr_assert_eq(g_allocations, 0,
               "%s (%s kernels): %zu allocations while executing", model,
               etr_kernel_variant_name(variant), g_allocations);
  for (uint32_t i = 0; i < 8; ++i) {
    etr_npy_array_release(&inputs[i]);
  }
  etr_method_release(&method);
  etr_data_map_release(&data);
  etr_program_release(&program);
}

Test(no_malloc, executing_a_method_never_allocates) {
  static etr_kernel_registry_t kernels;
  etr_registry_init(&kernels);
  cr_assert_eq(etr_registry_register_table(&kernels, etr_prim_kernels,
                                           etr_prim_kernel_count,
                                           ETR_KERNELS_REFERENCE, NULL),
               ETR_OK);
  cr_assert_eq(etr_registry_register_table(&kernels, etr_reference_kernels,
                                           etr_reference_kernel_count,
                                           ETR_KERNELS_REFERENCE, NULL),
               ETR_OK);
  etr_backend_registry_t backends;
  etr_backend_registry_init(&backends);
  etr_backend_registry_add(&backends, etr_demo_backend(), NULL);
  static const struct {
    const char *model;
    const char *prefix;
    const char *data;
  } models[] = {
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
      {"delegate_demo_segment", "", NULL},
  };
  for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); ++i) {
    for (int variant = 0; variant < ETR_NUM_KERNEL_VARIANTS; ++variant) {
      check_model(models[i].model, models[i].prefix, models[i].data,
                  (etr_kernel_variant_t)variant, &kernels, &backends);
    }
  }
}
