// SPDX-License-Identifier: Apache-2.0
//
// Every dataset model runs in etref and matches PyTorch eager and the real
// ExecuTorch runtime (datasets/models/*: inputs, eager outputs and ExecuTorch
// outputs recorded by datasets/generate.py), with the reference kernels and
// with the optimized ones.
//
// Tolerance: |etref - expected| <= 1e-6 + 1e-5 * |expected| per element,
// NaNs in the same places. The expected outputs are float32 results of
// whole networks; eager and ExecuTorch round each op's result to float32 in
// their own order and differ from each other by up to 6.6e-7 here. etref's
// reference kernels accumulate in double and round once per op; measured
// against eager they differ by at most 2.4e-7 absolute on these models
// (`etref run ... --expected ... --rtol 0 --atol 1` prints it). 1e-5
// relative (~80 float32 ulps) leaves room for rounding that compounds over
// 20-50 ops; 1e-6 absolute covers outputs near zero, where cancellation
// makes relative error meaningless. Integer outputs (the mutable buffer's
// step counter) must match exactly.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/compare.h"
#include "core/bundled_program.h"
#include "core/file.h"
#include "core/method.h"
#include "core/npy.h"
#include "core/prim_ops.h"
#include "core/program.h"
#include "delegates/demo_backend.h"
#include "ops_reference/ops_reference.h"

#define RTOL 1e-5
#define ATOL 1e-6

static etr_kernel_registry_t g_kernels;
static etr_backend_registry_t g_backends;

static void build_registries(void) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_registry_init(&g_kernels);
  cr_assert_eq(etr_registry_register_table(&g_kernels, etr_prim_kernels,
                                           etr_prim_kernel_count,
                                           ETR_KERNELS_REFERENCE, &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_registry_register_table(&g_kernels, etr_reference_kernels,
                                           etr_reference_kernel_count,
                                           ETR_KERNELS_REFERENCE, &diag),
               ETR_OK, "%s", diag.message);
  etr_backend_registry_init(&g_backends);
  cr_assert_eq(etr_backend_registry_add(&g_backends, etr_demo_backend(),
                                        &diag),
               ETR_OK);
}

TestSuite(model, .init = build_registries);

static bool exists(const char *path) { return access(path, R_OK) == 0; }

typedef struct {
  etr_program_t program;
  etr_data_map_t data;
  bool has_data;
  etr_method_t method;
} loaded_t;

static void load(loaded_t *loaded, const char *model, const char *data_file,
                 etr_kernel_variant_t variant) {
  memset(loaded, 0, sizeof(*loaded));
  char path[512];
  etr_diag_t diag;
  etr_diag_reset(&diag);
  snprintf(path, sizeof(path), "datasets/models/%s/model.pte", model);
  cr_assert_eq(etr_program_load_file(path, 0, &loaded->program, &diag),
               ETR_OK, "%s: %s", model, diag.message);
  etr_method_config_t config;
  etr_method_config_init(&config, &g_kernels);
  config.variant = variant;
  config.backends = &g_backends;
  if (data_file != NULL) {
    snprintf(path, sizeof(path), "datasets/models/%s/%s", model, data_file);
    cr_assert_eq(etr_data_map_load_file(path, 0, &loaded->data, &diag),
                 ETR_OK, "%s", diag.message);
    loaded->has_data = true;
    config.external_data = &loaded->data;
  }
  cr_assert_eq(etr_method_load(&loaded->program, "forward", &config,
                               &loaded->method, &diag),
               ETR_OK, "%s: %s", model, diag.message);
}

static void unload(loaded_t *loaded) {
  etr_method_release(&loaded->method);
  etr_data_map_release(&loaded->data);
  etr_program_release(&loaded->program);
}

// Compares output k with `<prefix><kind>_output_<k>.npy` when it exists.
static void check_output(const etr_method_t *method, const char *model,
                         const char *prefix, const char *kind, uint32_t k) {
  char path[512];
  snprintf(path, sizeof(path), "datasets/models/%s/%s%s_output_%u.npy", model,
           prefix, kind, k);
  if (!exists(path)) {
    return;
  }
  etr_npy_array_t expected;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_npy_load_file(path, 0, &expected, &diag), ETR_OK, "%s",
               diag.message);
  const etr_evalue_t *output = etr_method_output(method, k);
  cr_assert_not_null(output);
  cr_assert_eq(output->tag, ETR_TAG_TENSOR, "%s output %u is %s", model, k,
               etr_tag_name(output->tag));
  etr_compare_report_t report;
  bool exact = !etr_scalar_type_is_floating(expected.tensor.dtype);
  etr_compare_tensors(output->u.as_tensor, &expected.tensor,
                      exact ? 0 : RTOL, exact ? 0 : ATOL, &report);
  cr_assert(report.shapes_match, "%s: output %u dtype/shape differs from %s",
            model, k, path);
  cr_assert_eq(report.mismatches, 0,
               "%s: %lld elements of output %u differ from %s (first at "
               "%lld: %.9g vs %.9g, max abs err %.3g)",
               model, (long long)report.mismatches, k, path,
               (long long)report.first_mismatch, report.first_actual,
               report.first_expected, report.max_abs_error);
  etr_npy_array_release(&expected);
}

// Feeds `<prefix>input_<i>.npy`, executes once, checks every output against
// eager and ExecuTorch.
static void run_case(loaded_t *loaded, const char *model,
                     const char *prefix) {
  etr_method_t *method = &loaded->method;
  etr_npy_array_t inputs[8];
  memset(inputs, 0, sizeof(inputs));
  etr_diag_t diag;
  cr_assert_leq(method->num_inputs, 8);
  for (uint32_t i = 0; i < method->num_inputs; ++i) {
    char path[512];
    snprintf(path, sizeof(path), "datasets/models/%s/%sinput_%u.npy", model,
             prefix, i);
    etr_diag_reset(&diag);
    cr_assert_eq(etr_npy_load_file(path, 0, &inputs[i], &diag), ETR_OK, "%s",
                 diag.message);
    cr_assert_eq(etr_method_set_input_tensor(method, i, &inputs[i].tensor,
                                             &diag),
                 ETR_OK, "%s: %s", model, diag.message);
  }
  etr_diag_reset(&diag);
  cr_assert_eq(etr_method_execute(method, &diag), ETR_OK, "%s: %s", model,
               diag.message);
  for (uint32_t k = 0; k < method->num_outputs; ++k) {
    check_output(method, model, prefix, "eager", k);
    check_output(method, model, prefix, "executorch", k);
  }
  for (uint32_t i = 0; i < method->num_inputs; ++i) {
    etr_npy_array_release(&inputs[i]);
  }
}

static void run_model(const char *model, const char *data_file,
                      const char *const *prefixes, size_t num_prefixes) {
  for (int variant = 0; variant < ETR_NUM_KERNEL_VARIANTS; ++variant) {
    loaded_t loaded;
    load(&loaded, model, data_file, (etr_kernel_variant_t)variant);
    for (size_t p = 0; p < num_prefixes; ++p) {
      run_case(&loaded, model, prefixes[p]);
    }
    unload(&loaded);
  }
}

static const char *const kSingle[] = {""};

Test(model, mlp) { run_model("mlp", NULL, kSingle, 1); }
Test(model, cnn) { run_model("cnn", NULL, kSingle, 1); }
Test(model, mobilenet_v2) { run_model("mobilenet_v2", NULL, kSingle, 1); }
Test(model, resnet) { run_model("resnet", NULL, kSingle, 1); }
Test(model, mobilenet_v3) { run_model("mobilenet_v3", NULL, kSingle, 1); }
Test(model, transformer) { run_model("transformer", NULL, kSingle, 1); }
Test(model, lstm) { run_model("lstm", NULL, kSingle, 1); }

Test(model, mutable_buffer_state_persists_across_calls) {
  // One loaded method, three calls: the buffers (initial values from the
  // program's mutable data segment) carry state from call to call.
  static const char *const calls[] = {"call0_", "call1_", "call2_"};
  run_model("mutable_buffer", NULL, calls, 3);
}

Test(model, cond_takes_both_branches) {
  static const char *const cases[] = {"case0_", "case1_"};
  run_model("cond", NULL, cases, 2);
}

Test(model, dynamic_shape_within_its_bound) {
  static const char *const cases[] = {"case0_", "case1_", "case2_"};
  run_model("dynamic_shape", NULL, cases, 3);
}

Test(model, external_constants_from_ptd) {
  run_model("mlp_external", "model.ptd", kSingle, 1);
}

Test(model, external_constants_need_the_data_file) {
  loaded_t loaded;
  memset(&loaded, 0, sizeof(loaded));
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load_file("datasets/models/mlp_external/model.pte",
                                     0, &loaded.program, &diag),
               ETR_OK);
  etr_method_config_t config;
  etr_method_config_init(&config, &g_kernels);
  cr_assert_eq(etr_method_load(&loaded.program, "forward", &config,
                               &loaded.method, &diag),
               ETR_ERR_INVALID_EXTERNAL_DATA);
  cr_assert_not_null(strstr(diag.message, "fc1.weight"), "%s", diag.message);
  unload(&loaded);
}

Test(model, inline_constant_buffer) {
  // ExecuTorch 1.4.1's own runtime refuses this legacy layout; etref runs
  // it and matches eager.
  run_model("mlp_inline_constants", NULL, kSingle, 1);
}

Test(model, demo_delegate_inline_and_segment) {
  run_model("delegate_demo_inline", NULL, kSingle, 1);
  run_model("delegate_demo_segment", NULL, kSingle, 1);
}

// The first number after `"<key>": ` following `"<section>"` in a model's
// manifest.json (enough JSON for the generator's own output).
static double manifest_number(const char *model, const char *section,
                              const char *key) {
  char path[512];
  snprintf(path, sizeof(path), "datasets/models/%s/manifest.json", model);
  void *data = NULL;
  size_t size = 0;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_read_file(path, 0, &data, &size, &diag), ETR_OK, "%s",
               diag.message);
  char pattern[128];
  snprintf(pattern, sizeof(pattern), "\"%s\"", section);
  const char *at = strstr((const char *)data, pattern);
  cr_assert_not_null(at, "%s has no %s", path, section);
  snprintf(pattern, sizeof(pattern), "\"%s\": ", key);
  at = strstr(at, pattern);
  cr_assert_not_null(at, "%s has no %s.%s", path, section, key);
  double value = strtod(at + strlen(pattern), NULL);
  free(data);
  return value;
}

// The PT2E-quantized CNN (XNNPACKQuantizer, not delegated): etref runs its
// quantized_decomposed ops with the reference kernels (the optimized
// variant falls back to them) between float convolutions, pooling and
// linear. Its output is dequantized, (q - zero_point) * scale, so it is
// judged in quantization steps: within one step of ExecuTorch's output and
// of eager (measured: identical, 0 steps, with both kernel variants; a
// near-tie that an intermediate float rounds the other way would move an
// activation by one step).
Test(model, cnn_quantized_within_one_step) {
  double step = manifest_number("cnn_quantized", "output_quantization",
                                "scale");
  cr_assert(step > 0 && step < 1, "output scale %g", step);
  for (int variant = 0; variant < ETR_NUM_KERNEL_VARIANTS; ++variant) {
    loaded_t loaded;
    load(&loaded, "cnn_quantized", NULL, (etr_kernel_variant_t)variant);
    etr_npy_array_t input;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    cr_assert_eq(etr_npy_load_file("datasets/models/cnn_quantized/input_0.npy",
                                   0, &input, &diag),
                 ETR_OK, "%s", diag.message);
    cr_assert_eq(etr_method_set_input_tensor(&loaded.method, 0, &input.tensor,
                                             &diag),
                 ETR_OK, "%s", diag.message);
    cr_assert_eq(etr_method_execute(&loaded.method, &diag), ETR_OK, "%s",
                 diag.message);
    static const char *const kinds[] = {"executorch", "eager"};
    for (int k = 0; k < 2; ++k) {
      char path[256];
      snprintf(path, sizeof(path),
               "datasets/models/cnn_quantized/%s_output_0.npy", kinds[k]);
      etr_npy_array_t expected;
      cr_assert_eq(etr_npy_load_file(path, 0, &expected, &diag), ETR_OK, "%s",
                   diag.message);
      etr_compare_report_t report;
      etr_compare_tensors(etr_method_output(&loaded.method, 0)->u.as_tensor,
                          &expected.tensor, 0, step * (1 + 1e-6), &report);
      cr_assert(report.shapes_match);
      cr_expect_eq(report.mismatches, 0,
                   "%s kernels vs %s: %lld elements more than one step (%g) "
                   "apart, max %.3g steps",
                   etr_kernel_variant_name((etr_kernel_variant_t)variant),
                   kinds[k], (long long)report.mismatches, step,
                   report.max_abs_error / step);
      etr_npy_array_release(&expected);
    }
    etr_npy_array_release(&input);
    unload(&loaded);
  }
}

Test(model, xnnpack_program_is_rejected_naming_the_backend) {
  loaded_t loaded;
  memset(&loaded, 0, sizeof(loaded));
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load_file("datasets/models/cnn_xnnpack/model.pte",
                                     0, &loaded.program, &diag),
               ETR_OK, "%s", diag.message);
  etr_method_config_t config;
  etr_method_config_init(&config, &g_kernels);
  config.backends = &g_backends;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_method_load(&loaded.program, "forward", &config,
                               &loaded.method, &diag),
               ETR_ERR_NOT_FOUND);
  cr_assert_not_null(strstr(diag.message, "'XnnpackBackend'"), "%s",
                     diag.message);
  unload(&loaded);
}

Test(model, bundled_program_passes_its_test_sets) {
  etr_bundled_program_t bundle;
  etr_program_t program;
  etr_method_t method;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_bundled_program_load_file(
                   "datasets/models/bundled_mlp/model.bpte", 0, &bundle,
                   &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_program_load(bundle.program_data, bundle.program_size,
                                &program, &diag),
               ETR_OK, "%s", diag.message);
  etr_bundled_suite_t suite;
  cr_assert_eq(etr_bundled_suite(&bundle, 0, &suite, &diag), ETR_OK);
  etr_method_config_t config;
  etr_method_config_init(&config, &g_kernels);
  cr_assert_eq(etr_method_load(&program, suite.method_name, &config, &method,
                               &diag),
               ETR_OK, "%s", diag.message);
  for (uint32_t c = 0; c < suite.test_cases.length; ++c) {
    uint32_t inputs = 0;
    uint32_t outputs = 0;
    cr_assert_eq(etr_bundled_case_counts(&suite, c, &inputs, &outputs, NULL),
                 ETR_OK);
    for (uint32_t i = 0; i < inputs; ++i) {
      etr_bundled_value_t value;
      cr_assert_eq(etr_bundled_case_value(&suite, c, false, i, &value, NULL),
                   ETR_OK);
      cr_assert_eq(etr_method_set_input(&method, i, &value.value, &diag),
                   ETR_OK, "%s", diag.message);
    }
    cr_assert_eq(etr_method_execute(&method, &diag), ETR_OK, "%s",
                 diag.message);
    for (uint32_t k = 0; k < outputs; ++k) {
      etr_bundled_value_t expected;
      cr_assert_eq(etr_bundled_case_value(&suite, c, true, k, &expected,
                                          NULL),
                   ETR_OK);
      etr_compare_report_t report;
      etr_compare_tensors(etr_method_output(&method, k)->u.as_tensor,
                          &expected.tensor, RTOL, ATOL, &report);
      cr_assert(etr_compare_passed(&report),
                "test case %u output %u: %lld mismatches", c, k,
                (long long)report.mismatches);
    }
  }
  etr_method_release(&method);
  etr_program_release(&program);
  etr_bundled_program_release(&bundle);
}

// An input the program leaves unplanned binds the caller's memory; a
// static-shape one must still come in the program's shape (cnn's input,
// made unplanned here, is [1, 3, 32, 32]).
Test(model, unplanned_static_input_keeps_its_shape) {
  loaded_t loaded;
  load(&loaded, "cnn", NULL, ETR_KERNELS_REFERENCE);
  etr_method_t *m = &loaded.method;
  m->value_info[m->inputs[0]].storage = ETR_STORAGE_UNBOUND;
  etr_npy_array_t input;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_npy_load_file("datasets/models/cnn/input_0.npy", 0, &input,
                                 &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_method_set_input_tensor(m, 0, &input.tensor, &diag),
               ETR_OK, "%s", diag.message);
  etr_tensor_t smaller = input.tensor;
  smaller.sizes[2] = smaller.sizes[3] = 16;
  etr_strides_from_dim_order(smaller.sizes, smaller.dim_order, smaller.dim,
                             smaller.strides);
  etr_diag_reset(&diag);
  cr_expect_eq(etr_method_set_input_tensor(m, 0, &smaller, &diag),
               ETR_ERR_INVALID_ARGUMENT);
  cr_expect(strstr(diag.message, "static shape") != NULL, "%s",
            diag.message);
  cr_expect_eq(m->values[m->inputs[0]].u.as_tensor->sizes[2], 32,
               "the failed call changed the input");
  etr_npy_array_release(&input);
  unload(&loaded);
}
