// SPDX-License-Identifier: Apache-2.0
//
// The judge on real programs from datasets/: etref's optimized kernels
// agree with the reference on every dataset model (and judging leaves the
// reference run untouched); an identical candidate agrees exactly; a value
// perturbed at one instruction is localized to that instruction with the
// ops before it agreeing; differences within tolerance that later ops
// carry on agree (drift), and only an upstream divergence makes them
// propagated; missing and mistyped values never agree; ETDump
// (written by prof/'s writer, incl. its debug buffer) and .npy candidates
// are judged like captured ones, and malformed ETDumps are refused.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "prof/etdump.h"
#include "prof/etdump_reader.h"
#include "prof/oracle/sources.h"
#include "prof/oracle/test/oracle_fixture.h"
#include "prof/tracer.h"

typedef struct {
  const char *model;
  const char *prefix;
  uint32_t inputs;
} model_t;

static const model_t kModels[] = {
    {"mlp", "", 1},           {"cnn", "", 1},
    {"mobilenet_v2", "", 1},  {"transformer", "", 1},
    {"lstm", "", 1},          {"mutable_buffer", "call0_", 1},
    {"cond", "case0_", 1},    {"cond", "case1_", 1},
    {"dynamic_shape", "case1_", 1},
    {"delegate_demo_inline", "", 3},
};

typedef struct {
  etr_program_t program;
  etr_backend_registry_t backends;
  etr_method_t reference;
  etr_method_t candidate;
  etr_npy_array_t inputs[4];
  uint32_t num_inputs;
  etr_oracle_values_t values;
  etr_oracle_alignment_t alignment;
  etr_oracle_result_t result;
} setup_t;

static setup_t g;

static void open_model(const model_t *m, etr_kernel_variant_t candidate) {
  memset(&g, 0, sizeof(g));
  char path[256];
  snprintf(path, sizeof(path), "datasets/models/%s/model.pte", m->model);
  ofx_load_program(&g.program, path);
  ofx_backends(&g.backends, NULL);
  ofx_load_method(&g.reference, &g.program, ETR_KERNELS_REFERENCE,
                  &g.backends);
  ofx_load_method(&g.candidate, &g.program, candidate, &g.backends);
  g.num_inputs = m->inputs;
  for (uint32_t i = 0; i < m->inputs; ++i) {
    snprintf(path, sizeof(path), "datasets/models/%s/%sinput_%u.npy",
             m->model, m->prefix, i);
    ofx_load_npy(&g.inputs[i], path);
    ofx_set_input(&g.reference, i, &g.inputs[i].tensor);
    ofx_set_input(&g.candidate, i, &g.inputs[i].tensor);
  }
  etr_oracle_values_init(&g.values, 0);
}

static void close_model(void) {
  etr_oracle_result_release(&g.result);
  etr_oracle_alignment_release(&g.alignment);
  etr_oracle_values_release(&g.values);
  etr_method_release(&g.candidate);
  etr_method_release(&g.reference);
  for (uint32_t i = 0; i < g.num_inputs; ++i) {
    etr_npy_array_release(&g.inputs[i]);
  }
  etr_program_release(&g.program);
}

Test(judge, optimized_agrees_with_reference_on_every_model,
     .timeout = 120) {
  for (size_t i = 0; i < sizeof(kModels) / sizeof(kModels[0]); ++i) {
    open_model(&kModels[i], ETR_KERNELS_OPTIMIZED);
    ofx_capture(&g.candidate, &g.values, true);
    ofx_judge(&g.reference, &g.values, NULL, true, NULL, &g.alignment,
              &g.result);
    cr_assert_gt(g.result.num_ops, 0, "%s", kModels[i].model);
    ofx_assert_agrees(&g.result);
    // Judging never disturbs the reference: its outputs equal a plain run.
    etr_method_t plain;
    ofx_load_method(&plain, &g.program, ETR_KERNELS_REFERENCE, &g.backends);
    for (uint32_t k = 0; k < g.num_inputs; ++k) {
      ofx_set_input(&plain, k, &g.inputs[k].tensor);
    }
    etr_diag_t diag;
    etr_diag_reset(&diag);
    cr_assert_eq(etr_method_execute(&plain, &diag), ETR_OK, "%s",
                 diag.message);
    for (uint32_t k = 0; k < plain.num_outputs; ++k) {
      const etr_evalue_t *a = etr_method_output(&plain, k);
      const etr_evalue_t *b = etr_method_output(&g.reference, k);
      if (a->tag != ETR_TAG_TENSOR) {
        continue;
      }
      cr_assert(etr_tensor_same_shape(a->u.as_tensor, b->u.as_tensor));
      cr_assert(memcmp(a->u.as_tensor->data, b->u.as_tensor->data,
                       etr_tensor_nbytes(a->u.as_tensor)) == 0,
                "%s: output %u changed by judging", kModels[i].model, k);
    }
    etr_method_release(&plain);
    close_model();
  }
}

Test(judge, identical_candidate_agrees_exactly) {
  open_model(&kModels[1], ETR_KERNELS_REFERENCE);  // cnn
  ofx_capture(&g.candidate, &g.values, true);
  ofx_judge(&g.reference, &g.values, NULL, true, NULL, &g.alignment,
            &g.result);
  cr_assert_eq(g.result.verdict, ETR_ORACLE_AGREE);
  cr_assert_eq(g.result.op_counts[ETR_ORACLE_AGREE], g.result.num_ops);
  cr_assert_eq(g.result.reruns, 0, "no input differed: nothing re-run");
  for (uint32_t v = 0; v < g.result.num_values; ++v) {
    const etr_oracle_value_result_t *value = &g.result.values[v];
    cr_assert_eq(value->verdict, ETR_ORACLE_AGREE);
    if (value->global.numel > 0 &&
        etr_scalar_type_is_floating(value->dtype)) {
      cr_assert_eq(value->global.max_ulp, 0);
      cr_assert(isinf(value->global.sqnr_db) ||
                value->global.finite_pairs == 0);
    }
  }
  close_model();
}

// The candidate record of instruction `instruction`, position 0.
static etr_oracle_record_t *record_of(uint32_t instruction) {
  for (uint32_t i = 0; i < g.values.count; ++i) {
    etr_oracle_record_t *r = &g.values.records[i];
    if (r->key.origin == ETR_ORACLE_FROM_INSTRUCTION &&
        r->key.instruction == instruction && r->key.position == 0) {
      return r;
    }
  }
  cr_assert_fail("no record for instruction %u", instruction);
  return NULL;
}

// A kernel-level faulty candidate: the reference kernels, except that the
// `occurrence`-th call of `op` adds `delta` to one output element (the
// first element from `element` on whose value is positive, so relu and
// max pooling pass the error on).
static struct {
  const char *op;
  int occurrence;
  int element;
  float delta;
  int calls;
  etr_kernel_fn reference;
  int perturbed;
} g_fault;

static etr_error_t faulty_kernel(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_error_t status = g_fault.reference(ctx, args, num_args);
  if (status != ETR_OK || ctx->dry_run ||
      g_fault.calls++ != g_fault.occurrence) {
    return status;
  }
  etr_evalue_t *slot = args[num_args - 1];
  etr_tensor_t *out = slot->tag == ETR_TAG_TENSOR
                          ? slot->u.as_tensor
                          : etr_tensor_list_get(slot, 0);
  float *data = (float *)out->data;
  int element = g_fault.element;
  while (data[element] <= 0) {
    ++element;
  }
  data[element] += g_fault.delta;
  g_fault.perturbed = element;
  return ETR_OK;
}

static etr_kernel_registry_t g_faulty;

static void faulty_candidate(const char *op, int occurrence, int element,
                             float delta) {
  g_fault.op = op;
  g_fault.occurrence = occurrence;
  g_fault.element = element;
  g_fault.delta = delta;
  g_fault.calls = 0;
  g_fault.perturbed = -1;
  g_faulty = *ofx_kernels();
  for (size_t i = 0; i < g_faulty.count; ++i) {
    etr_kernel_entry_t *entry = &g_faulty.entries[i];
    entry->variants[ETR_KERNELS_OPTIMIZED] = NULL;
    if (strcmp(entry->name, op) == 0) {
      g_fault.reference = entry->variants[ETR_KERNELS_REFERENCE];
      entry->variants[ETR_KERNELS_OPTIMIZED] = faulty_kernel;
    }
  }
  cr_assert_not_null(g_fault.reference, "no kernel for %s", op);
  etr_method_release(&g.candidate);
  etr_method_config_t config;
  etr_method_config_init(&config, &g_faulty);
  config.variant = ETR_KERNELS_OPTIMIZED;
  config.backends = &g.backends;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_method_load(&g.program, "forward", &config, &g.candidate,
                               &diag),
               ETR_OK, "%s", diag.message);
  for (uint32_t i = 0; i < g.num_inputs; ++i) {
    ofx_set_input(&g.candidate, i, &g.inputs[i].tensor);
  }
}

Test(judge, faulty_kernel_is_localized) {
  // CNN: 0 conv, 1 bn, 2 relu, 3 maxpool, 4 conv, 5 bn, 6 relu, 7 avgpool,
  // 8 permute, 9 addmm.
  static const struct {
    const char *op;
    int occurrence;
    uint32_t instruction;
    float delta;
    int element;
  } kCases[] = {
      {"aten::convolution.out", 1, 4, 0.5f, 17},
      {"aten::relu.out", 1, 6, 1e-6f, 0},
      {"aten::_native_batch_norm_legit_no_training.out", 0, 1, 0.01f, 1000},
      {"aten::max_pool2d_with_indices.out", 0, 3, 1e-3f, 7},
      {"aten::addmm.out", 0, 9, 0.1f, 3},
  };
  for (size_t c = 0; c < sizeof(kCases) / sizeof(kCases[0]); ++c) {
    open_model(&kModels[1], ETR_KERNELS_REFERENCE);
    faulty_candidate(kCases[c].op, kCases[c].occurrence, kCases[c].element,
                     kCases[c].delta);
    ofx_capture(&g.candidate, &g.values, true);
    cr_assert_geq(g_fault.perturbed, 0);
    ofx_judge(&g.reference, &g.values, NULL, true, NULL, &g.alignment,
              &g.result);
    ofx_assert_localized(&g.result, kCases[c].instruction, kCases[c].op);
    const etr_oracle_op_result_t *first =
        &g.result.ops[g.result.first_diverging_op];
    const etr_oracle_value_result_t *v = &g.result.values[first->first_value];
    cr_assert_eq(v->global.mismatches, 1, "%s: %lld mismatches: %s",
                 kCases[c].op, (long long)v->global.mismatches, v->reason);
    cr_assert_eq(v->global.worst_index, g_fault.perturbed);
    cr_assert_eq(first->local, ETR_ORACLE_LOCAL_SAME_INPUTS);
    // Downstream ops saw a different input: re-run on it, and within
    // tolerance there (propagated, not diverging).
    if (kCases[c].instruction < 9) {
      cr_assert_gt(g.result.reruns, 0);
      cr_assert_gt(g.result.op_counts[ETR_ORACLE_PROPAGATED], 0);
    }
    close_model();
  }
}

static void policy_from(etr_oracle_policy_t *policy, const char *json) {
  etr_oracle_policy_defaults(policy);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_oracle_policy_apply_json(policy, json, strlen(json),
                                            "test policy", &diag),
               ETR_OK, "%s", diag.message);
}

// The value `position` 0 of reference instruction `instruction`'s op.
static const etr_oracle_value_result_t *value_at(uint32_t instruction) {
  for (uint32_t i = 0; i < g.result.num_ops; ++i) {
    if (g.result.ops[i].instruction == instruction &&
        g.result.ops[i].num_values > 0) {
      return &g.result.values[g.result.ops[i].first_value];
    }
  }
  cr_assert_fail("no judged value at instruction %u", instruction);
  return NULL;
}

Test(judge, differences_within_tolerance_carried_through_agree) {
  // The batch norm (instruction 5) off by 1e-3 at one positive element,
  // which relu, the average pool and the linear layer carry on. Under a
  // policy that allows it at the batch norm, the ops after it are right on
  // their inputs and their inputs agree: they agree too, though their
  // global checks fail, and nothing is "propagated" with no divergence to
  // propagate. The output, held to ulp 2 (addmm made elementwise), is
  // accumulated drift: agree, flagged.
  etr_oracle_policy_t loose;
  policy_from(&loose,
              "{\"format\": \"etref-oracle-policy\", \"version\": 1, "
              "\"classes\": {\"normalization\": {\"abs_eps\": 1e6}}, "
              "\"ops\": {\"addmm\": \"elementwise\"}}");
  open_model(&kModels[1], ETR_KERNELS_REFERENCE);
  faulty_candidate("aten::_native_batch_norm_legit_no_training.out", 1, 100,
                   1e-3f);
  ofx_capture(&g.candidate, &g.values, true);
  ofx_judge(&g.reference, &g.values, NULL, true, &loose, &g.alignment,
            &g.result);
  cr_assert_eq(g.result.verdict, ETR_ORACLE_AGREE, "%s", g.result.summary);
  cr_assert_eq(g.result.op_counts[ETR_ORACLE_DIVERGE], 0);
  cr_assert_eq(g.result.op_counts[ETR_ORACLE_PROPAGATED], 0);
  const etr_oracle_value_result_t *bn = value_at(5);
  cr_assert(bn->global.passed && bn->global.max_abs_error > 0);
  static const uint32_t kCarried[] = {6, 7, 9};  // relu, avg pool, addmm
  for (size_t i = 0; i < sizeof(kCarried) / sizeof(kCarried[0]); ++i) {
    const etr_oracle_value_result_t *v = value_at(kCarried[i]);
    cr_assert_eq(v->verdict, ETR_ORACLE_AGREE, "%u: %s", kCarried[i],
                 v->reason);
    cr_assert(!v->global.passed, "%u: the difference reaches it",
              kCarried[i]);
    cr_assert(v->has_local && v->local.passed);
    cr_assert(strstr(v->reason, "within theirs") != NULL, "%s", v->reason);
  }
  cr_assert_eq(g.result.outputs[0].verdict, ETR_ORACLE_AGREE, "%s",
               g.result.outputs[0].reason);
  cr_assert(!g.result.outputs[0].global.passed);
  cr_assert(strstr(g.result.outputs[0].reason, "accumulated drift") != NULL,
            "%s", g.result.outputs[0].reason);
  cr_assert(g.result.drift);
  etr_oracle_result_release(&g.result);
  etr_oracle_alignment_release(&g.alignment);
  // Under the default policy the batch norm diverges, and the same
  // differences after it are propagated from it (the linear layer's
  // K-aware bound may absorb what reaches it). The run reuses the input's
  // planned memory: set it again, as etref compare does for each case.
  ofx_set_input(&g.reference, 0, &g.inputs[0].tensor);
  ofx_judge(&g.reference, &g.values, NULL, true, NULL, &g.alignment,
            &g.result);
  ofx_assert_localized(&g.result, 5,
                       "aten::_native_batch_norm_legit_no_training.out");
  for (size_t i = 0; i < 2; ++i) {
    cr_assert_eq(value_at(kCarried[i])->verdict, ETR_ORACLE_PROPAGATED,
                 "%u: %s", kCarried[i], value_at(kCarried[i])->reason);
  }
  cr_assert(!g.result.drift);
  close_model();
}

// Keeps only the candidate's values of `instruction` and the program
// outputs, as a whole-graph delegate exposes only its result.
static void expose_only(uint32_t instruction) {
  for (uint32_t i = 0; i < g.values.count; ++i) {
    etr_oracle_record_t *r = &g.values.records[i];
    if (r->key.origin == ETR_ORACLE_FROM_INSTRUCTION &&
        r->key.instruction != instruction) {
      r->key.origin = ETR_ORACLE_FROM_DELEGATE;  // aligns with nothing
      r->key.debug_id = 12345;
    }
  }
}

Test(judge, fused_region_is_judged_with_its_producers_tolerance) {
  // Optimized kernels, seen only at the linear layer: that op is checked
  // over the region behind it (convolutions included), and agrees.
  open_model(&kModels[1], ETR_KERNELS_OPTIMIZED);
  ofx_capture(&g.candidate, &g.values, true);
  expose_only(9);
  ofx_judge(&g.reference, &g.values, NULL, true, NULL, &g.alignment,
            &g.result);
  cr_assert_eq(g.result.verdict, ETR_ORACLE_AGREE, "%s", g.result.summary);
  cr_assert_eq(g.result.op_counts[ETR_ORACLE_NOT_COMPARED], 9);
  const etr_oracle_op_result_t *last = &g.result.ops[9];
  cr_assert_eq(last->verdict, ETR_ORACLE_AGREE);
  cr_assert_gt(last->uncovered, 0);
  cr_assert(strstr(last->note, "region") != NULL, "%s", last->note);
  const etr_oracle_value_result_t *v = &g.result.values[last->first_value];
  cr_assert_gt(v->k, 2049, "K spans the region: %lld", (long long)v->k);
  close_model();
}

Test(judge, fault_inside_a_fused_region_is_caught_at_its_end) {
  // The convolution's fault, seen only at the linear layer: the region's
  // tolerance does not hide it, and the verdict names the region.
  open_model(&kModels[1], ETR_KERNELS_REFERENCE);
  faulty_candidate("aten::convolution.out", 1, 17, 0.5f);
  ofx_capture(&g.candidate, &g.values, true);
  expose_only(9);
  ofx_judge(&g.reference, &g.values, NULL, true, NULL, &g.alignment,
            &g.result);
  cr_assert_eq(g.result.verdict, ETR_ORACLE_DIVERGE);
  const etr_oracle_op_result_t *first =
      &g.result.ops[g.result.first_diverging_op];
  cr_assert_eq(first->instruction, 9);
  cr_assert_gt(first->num_uncovered_producers, 0);
  close_model();
}

Test(judge, inconsistent_candidate_is_caught_at_both_ends) {
  // A value changed without its consumers: the op that wrote it diverges,
  // and so does its consumer, whose output does not follow from it.
  open_model(&kModels[1], ETR_KERNELS_REFERENCE);
  ofx_capture(&g.candidate, &g.values, true);
  float *conv = (float *)record_of(4)->tensor.data;
  conv[17] += 0.5f;
  ofx_judge(&g.reference, &g.values, NULL, true, NULL, &g.alignment,
            &g.result);
  cr_assert_eq(g.result.ops[g.result.first_diverging_op].instruction, 4);
  cr_assert_eq(g.result.ops[5].verdict, ETR_ORACLE_DIVERGE);
  cr_assert_eq(g.result.ops[5].local, ETR_ORACLE_LOCAL_RERUN);
  close_model();
}

Test(judge, missing_and_mistyped_values_never_agree) {
  open_model(&kModels[1], ETR_KERNELS_REFERENCE);
  // Intermediates only: the program output is missing.
  ofx_capture(&g.candidate, &g.values, true);
  for (uint32_t i = 0; i < g.values.count; ++i) {
    if (g.values.records[i].key.origin == ETR_ORACLE_FROM_OUTPUT) {
      g.values.records[i].key.origin = ETR_ORACLE_FROM_DELEGATE;
    }
  }
  // And the addmm's value claims another dtype.
  record_of(9)->tensor.dtype = ETR_DOUBLE;
  ofx_judge(&g.reference, &g.values, NULL, true, NULL, &g.alignment,
            &g.result);
  cr_assert_eq(g.result.verdict, ETR_ORACLE_DIVERGE);
  cr_assert_eq(g.result.outputs[0].verdict, ETR_ORACLE_DIVERGE);
  cr_assert(strstr(g.result.outputs[0].reason, "no value") != NULL);
  const etr_oracle_op_result_t *last = &g.result.ops[g.result.num_ops - 1];
  cr_assert_eq(last->verdict, ETR_ORACLE_DIVERGE);
  cr_assert_str_eq(g.result.values[last->first_value].reason,
                   "dtype differs");
  cr_assert_eq(g.result.first_diverging_op, g.result.num_ops - 1);
  close_model();
}

Test(judge, outputs_only_candidate) {
  open_model(&kModels[1], ETR_KERNELS_REFERENCE);
  const char *paths[1] = {"datasets/models/cnn/executorch_output_0.npy"};
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_oracle_values_from_npy(paths, 1, &g.values, &diag), ETR_OK,
               "%s", diag.message);
  ofx_judge(&g.reference, &g.values, NULL, true, NULL, &g.alignment,
            &g.result);
  cr_assert_eq(g.result.verdict, ETR_ORACLE_AGREE, "%s", g.result.summary);
  cr_assert_eq(g.result.op_counts[ETR_ORACLE_NOT_COMPARED], g.result.num_ops);
  cr_assert_eq(g.result.outputs[0].verdict, ETR_ORACLE_AGREE);
  cr_assert_gt(g.result.outputs[0].k, 2048, "addmm's K reaches the output");
  close_model();
}

// Writes an ETDump + debug buffer of an optimized CNN run with prof/'s
// tracer and writer, as `etref profile --etdump --debug-buffer` does.
static void write_etdump(const char *etdump_path, const char *buffer_path) {
  static etr_prof_t prof;
  etr_prof_config_t config;
  etr_prof_config_init(&config);
  config.capture_bytes = 8u << 20;
  etr_prof_init(&prof, &config);
  etr_program_t program;
  ofx_load_program(&program, "datasets/models/cnn/model.pte");
  etr_backend_registry_t backends;
  ofx_backends(&backends, NULL);
  etr_method_config_t method_config;
  etr_method_config_init(&method_config, ofx_kernels());
  method_config.variant = ETR_KERNELS_OPTIMIZED;
  method_config.backends = &backends;
  method_config.tracer = &prof.tracer;
  etr_method_t method;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_method_load(&program, "forward", &method_config, &method,
                               &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_prof_bind(&prof, &method, &diag), ETR_OK, "%s",
               diag.message);
  etr_npy_array_t input;
  ofx_load_npy(&input, "datasets/models/cnn/input_0.npy");
  ofx_set_input(&method, 0, &input.tensor);
  cr_assert_eq(etr_method_execute(&method, &diag), ETR_OK, "%s",
               diag.message);
  etr_etdump_options_t options;
  etr_etdump_options_init(&options);
  options.debug_events = true;
  const etr_prof_t *profs[1] = {&prof};
  cr_assert_eq(etr_etdump_write(profs, 1, &options, etdump_path, buffer_path,
                                NULL, &diag),
               ETR_OK, "%s", diag.message);
  etr_npy_array_release(&input);
  etr_method_release(&method);
  etr_prof_release(&prof);
  etr_program_release(&program);
}

static void temp_path(char *out, size_t capacity, const char *name) {
  const char *dir = getenv("TEST_TMPDIR");
  snprintf(out, capacity, "%s/%s", dir != NULL ? dir : "/tmp", name);
}

static void read_whole(const char *path, void **bytes, size_t *size) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_read_file(path, 0, bytes, size, &diag), ETR_OK, "%s",
               diag.message);
}

Test(judge, etdump_candidate) {
  char etdump_path[512], buffer_path[512];
  temp_path(etdump_path, sizeof(etdump_path), "cnn.etdp");
  temp_path(buffer_path, sizeof(buffer_path), "cnn.bin");
  write_etdump(etdump_path, buffer_path);
  void *bytes = NULL, *buffer = NULL;
  size_t size = 0, buffer_size = 0;
  read_whole(etdump_path, &bytes, &size);
  read_whole(buffer_path, &buffer, &buffer_size);
  etr_etdump_t etdump;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_etdump_read((const uint8_t *)bytes, size, &etdump, &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_oracle_etdump_debug_blocks(&etdump), 1);
  int32_t block = etr_oracle_etdump_block(&etdump, -1, 0);
  cr_assert_geq(block, 0);

  for (int perturb = 0; perturb < 2; ++perturb) {
    open_model(&kModels[1], ETR_KERNELS_REFERENCE);
    if (perturb) {
      // The linear layer's output (instruction 9, the last op; the program
      // output is logged apart and stays as it was) in the buffer.
      const etr_etdump_block_t *b = &etdump.blocks[block];
      bool done = false;
      for (uint32_t e = 0; e < b->num_events && !done; ++e) {
        const etr_etdump_event_t *event = &etdump.events[b->first_event + e];
        if (event->type == ETR_ETDUMP_DEBUG && event->instruction_id == 9 &&
            !event->is_output) {
          float value;
          memcpy(&value, (uint8_t *)buffer + event->offset + 8, 4);
          value += 0.25f;
          memcpy((uint8_t *)buffer + event->offset + 8, &value, 4);
          done = true;
        }
      }
      cr_assert(done);
    }
    cr_assert_eq(etr_oracle_values_from_etdump(&etdump, (uint32_t)block,
                                               (const uint8_t *)buffer,
                                               buffer_size, &g.values, &diag),
                 ETR_OK, "%s", diag.message);
    ofx_judge(&g.reference, &g.values, NULL, true, NULL, &g.alignment,
              &g.result);
    if (perturb) {
      ofx_assert_localized(&g.result, 9, "aten::addmm.out");
      cr_assert_eq(g.result.values[g.result.ops[9].first_value]
                       .global.worst_index,
                   2);
    } else {
      ofx_assert_agrees(&g.result);
      cr_assert_eq(g.result.op_counts[ETR_ORACLE_NOT_COMPARED], 0);
    }
    close_model();
  }

  // A debug buffer too short for the tensors is refused, not read past.
  etr_oracle_values_t values;
  etr_oracle_values_init(&values, 0);
  etr_diag_reset(&diag);
  cr_assert_eq(etr_oracle_values_from_etdump(&etdump, (uint32_t)block,
                                             (const uint8_t *)buffer, 1000,
                                             &values, &diag),
               ETR_ERR_INVALID_PROGRAM);
  cr_assert(strstr(diag.message, "outside the 1000-byte debug buffer") !=
                NULL,
            "%s", diag.message);
  etr_oracle_values_release(&values);
  etr_etdump_release(&etdump);
  // A truncated ETDump is refused by the reader.
  for (size_t cut = 0; cut < size; cut += size / 16 + 1) {
    etr_etdump_t broken;
    etr_diag_reset(&diag);
    etr_error_t status =
        etr_etdump_read((const uint8_t *)bytes, cut, &broken, &diag);
    cr_assert_neq(status, ETR_OK, "a %zu-byte prefix was accepted", cut);
  }
  free(bytes);
  free(buffer);
}
