// SPDX-License-Identifier: Apache-2.0
//
// Fusion (fuse.h) never changes a bit: every dataset model runs with the
// optimized kernels fused and unfused, and the outputs are compared byte
// for byte; the groups fused in the CNN and MobileNetV2 are counted
// exactly; plans that put the block's last out, or the convolution's own
// out, in the convolution's input bytes make the fused kernel stage
// through the convolution's out, or run the three kernels one after
// another, with the same bits again; a fused method's dry run
// accepts every instruction; reference methods are left alone; the
// executor steps over absorbed instructions unless a tracer watches.
// Elementwise chains (testdata/chains.pte) give the unfused kernels' bits
// and the reference's values, special values included, under every ISA,
// and run unfused when a plan puts the out partly over an input.
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/method.h"
#include "core/npy.h"
#include "core/program.h"
#include "core/test/all_kernels.h"
#include "ops_optimized/fuse/fuse.h"
#include "ops_optimized/binary/binary.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary.h"

TestSuite(fuse);

typedef struct loaded {
  etr_method_t method;
  etr_fusion_stats_t stats;
} loaded_t;

// Loads the program at `path` (relative to the workspace), or fails the
// test with the loader's message.
static void open_program(const char *path, etr_program_t *program) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load_file(path, 0, program, &diag), ETR_OK,
               "%s: %s", path, diag.message);
}

static void load(const etr_program_t *program, etr_kernel_variant_t variant,
                 bool fuse, const etr_memory_plan_t *plan, loaded_t *out) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_method_config_t config;
  etr_method_config_init(&config, etr_test_all_kernels());
  config.variant = variant;
  config.memory_plan = plan;
  memset(out, 0, sizeof(*out));
  cr_assert_eq(etr_method_load(program, "forward", &config, &out->method,
                               &diag),
               ETR_OK, "%s", diag.message);
  if (fuse) {
    cr_assert_eq(etr_opt_fuse_method(&out->method, &out->stats, &diag),
                 ETR_OK, "%s", diag.message);
  }
}

// Sets the model's recorded inputs and executes three times: the first
// run checks every argument, the second is vouched for (its kernels reuse
// what the first concluded), from the third a fused convolution also
// skips its target's checks (op_convolution.c's memo_plan); each starts
// from the state the one before left.
#define RUNS 3
static void run(const char *model, etr_method_t *method) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  for (int round = 0; round < RUNS; ++round) {
    for (uint32_t i = 0; i < method->num_inputs; ++i) {
      char path[256];
      snprintf(path, sizeof(path), "datasets/models/%s/input_%u.npy", model,
               i);
      etr_npy_array_t input;
      cr_assert_eq(etr_npy_load_file(path, 0, &input, &diag), ETR_OK,
                   "%s: %s", path, diag.message);
      cr_assert_eq(etr_method_set_input_tensor(method, i, &input.tensor,
                                               &diag),
                   ETR_OK, "%s", diag.message);
      etr_npy_array_release(&input);
    }
    cr_assert_eq(etr_method_execute(method, &diag), ETR_OK, "%s: %s", model,
                 diag.message);
  }
}

static void assert_same_outputs(const char *model, const etr_method_t *a,
                                const etr_method_t *b) {
  cr_assert_eq(a->num_outputs, b->num_outputs);
  for (uint32_t k = 0; k < a->num_outputs; ++k) {
    const etr_evalue_t *x = etr_method_output(a, k);
    const etr_evalue_t *y = etr_method_output(b, k);
    cr_assert_eq(x->tag, y->tag);
    if (x->tag != ETR_TAG_TENSOR) {
      continue;
    }
    const etr_tensor_t *s = x->u.as_tensor;
    const etr_tensor_t *t = y->u.as_tensor;
    cr_assert_eq(s->dim, t->dim);
    cr_assert_eq(etr_tensor_nbytes(s), etr_tensor_nbytes(t));
    cr_assert(memcmp(s->data, t->data, etr_tensor_nbytes(s)) == 0,
              "%s: output %u differs between fused and unfused", model, k);
  }
}

static void same_bits_chains(const char *model, uint32_t groups,
                             uint32_t batch_norms, uint32_t clamps,
                             uint32_t folded, uint32_t pruned,
                             uint32_t chains, uint32_t chain_steps) {
  char path[256];
  snprintf(path, sizeof(path), "datasets/models/%s/model.pte", model);
  etr_program_t program;
  open_program(path, &program);
  loaded_t plain;
  loaded_t fused;
  load(&program, ETR_KERNELS_OPTIMIZED, false, NULL, &plain);
  load(&program, ETR_KERNELS_OPTIMIZED, true, NULL, &fused);
  cr_expect_eq(fused.stats.groups, groups, "%s: %u groups fused", model,
               fused.stats.groups);
  cr_expect_eq(fused.stats.batch_norms, batch_norms, "%s: %u batch norms",
               model, fused.stats.batch_norms);
  cr_expect_eq(fused.stats.clamps, clamps, "%s: %u clamps", model,
               fused.stats.clamps);
  cr_expect_eq(fused.stats.chains, chains, "%s: %u chains", model,
               fused.stats.chains);
  cr_expect_eq(fused.stats.chain_steps, chain_steps, "%s: %u chain steps",
               model, fused.stats.chain_steps);
  cr_expect_eq(fused.stats.absorbed,
               batch_norms + clamps + chain_steps - chains);
  cr_expect_eq(fused.stats.folded, folded, "%s: %u folded", model,
               fused.stats.folded);
  cr_expect_eq(fused.stats.pruned, pruned, "%s: %u pruned", model,
               fused.stats.pruned);
  run(model, &plain.method);
  run(model, &fused.method);
  assert_same_outputs(model, &plain.method, &fused.method);
  etr_method_release(&plain.method);
  etr_method_release(&fused.method);
  etr_program_release(&program);
}

// Under every ISA this machine has: AVX-512's microkernels apply the post
// in registers, the others through the driver's per-tile pass, the
// depthwise and direct kernels through a pass over the out planes.
static void each_isa_chains(const char *model, uint32_t groups,
                            uint32_t bns, uint32_t clamps, uint32_t folded,
                            uint32_t pruned, uint32_t chains,
                            uint32_t chain_steps) {
  const etr_isa_t isas[] = {ETR_ISA_SCALAR, ETR_ISA_AVX2, ETR_ISA_AVX512,
                            ETR_ISA_NEON};
  uint32_t ran = 0;
  for (size_t k = 0; k < sizeof(isas) / sizeof(isas[0]); ++k) {
    if (!etr_isa_available(isas[k])) {
      continue;
    }
    etr_isa_force(isas[k]);
    cr_log_info("%s under %s", model, etr_isa_name(isas[k]));
    same_bits_chains(model, groups, bns, clamps, folded, pruned, chains,
                     chain_steps);
    ++ran;
  }
  etr_isa_reset();
  cr_assert_geq(ran, 2, "scalar and at least one SIMD ISA");
}

static void each_isa(const char *model, uint32_t groups, uint32_t bns,
                     uint32_t clamps, uint32_t folded, uint32_t pruned) {
  each_isa_chains(model, groups, bns, clamps, folded, pruned, 0, 0);
}

// Groups and folds per model: each convolution block; the permute_copy of
// every linear layer's constant weight, and in the quantized CNN the
// dequantize of each constant weight (its batch norms were folded into the
// convolutions by the quantizer); the CNNs' max pool, whose indices nothing
// reads, runs without writing them.
Test(fuse, cnn_same_bits) { each_isa("cnn", 2, 2, 2, 1, 1); }
Test(fuse, mobilenet_v2_same_bits) {
  each_isa("mobilenet_v2", 28, 28, 19, 1, 0);
}
Test(fuse, cnn_quantized_same_bits) {
  each_isa("cnn_quantized", 2, 0, 2, 3, 1);
}
// ResNet: the stem and every block's convolutions with their batch norms
// (the 1x1 shortcuts too), the relus after the stem and each block's first
// convolution, and each block's residual add + relu as a chain.
// MobileNetV3: the hardswish/hardsigmoid chains (5 and 4 ops), the
// squeeze-excite relus absorbed into their 1x1 convolutions, the folded
// constant copies of 3 and 6.
Test(fuse, resnet_same_bits) { each_isa_chains("resnet", 9, 9, 4, 1, 1, 3, 6); }

// The ISAs with a pixel-tile kernel, and how many of ResNet's
// convolutions take it or the Winograd kernel (their weights packed at
// load). AVX-512: the two stride-2 3x3 layers and their 1x1 shortcuts
// take the pixel tiles; the two 32x24x24 layers, the 64x12x12 and the
// 128x6x6 ones Winograd's F(2x2, 3x3) (conv/winograd_avx512.c and
// winograd_positions_avx512.c). AVX2: all but the 3-channel 7x7 stem,
// which takes the band kernel (stem_avx2.c), and the 32 -> 64 1x1
// stride-2 shortcut, which takes the pointwise kernel on its subsampled
// input (op_convolution.c); the 32x24x24 and 64x12x12 layers Winograd's
// (conv/winograd_avx2.c), the others the pixel tiles.
static const struct {
  etr_isa_t isa;
  uint32_t packed;
} g_pixel_isas[] = {{ETR_ISA_AVX512, 8}, {ETR_ISA_AVX2, 7}};

// Fused, those weights are packed at fusion; the same-bits test above ran
// them.
Test(fuse, resnet_weights_packed_at_fusion) {
  etr_program_t program;
  open_program("datasets/models/resnet/model.pte", &program);
  for (size_t k = 0; k < sizeof(g_pixel_isas) / sizeof(g_pixel_isas[0]);
       ++k) {
    if (!etr_isa_available(g_pixel_isas[k].isa)) {
      continue;
    }
    etr_isa_force(g_pixel_isas[k].isa);
    loaded_t fused;
    load(&program, ETR_KERNELS_OPTIMIZED, true, NULL, &fused);
    cr_expect_eq(fused.stats.prepacked, g_pixel_isas[k].packed,
                 "%s: %u prepacked", etr_isa_name(g_pixel_isas[k].isa),
                 fused.stats.prepacked);
    etr_method_release(&fused.method);
  }
  etr_program_release(&program);
  etr_isa_reset();
}

// Unfused, etr_opt_prepack_method packs the same ones under `isa`, and
// the alpha and beta of each of the `norms` batch norms: the outputs keep
// their bits, the calls read the packed panels and parameters (zeroing
// either changes the output), and a reference method gets nothing.
static void packed_unfused(etr_program_t *program, const char *model,
                           etr_isa_t isa, uint32_t expected,
                           uint32_t norms) {
  etr_isa_force(isa);
  cr_log_info("%s, packed at load, under %s", model, etr_isa_name(isa));
  loaded_t plain;
  loaded_t packed;
  loaded_t normed;
  loaded_t reference;
  load(program, ETR_KERNELS_OPTIMIZED, false, NULL, &plain);
  load(program, ETR_KERNELS_OPTIMIZED, false, NULL, &packed);
  load(program, ETR_KERNELS_OPTIMIZED, false, NULL, &normed);
  load(program, ETR_KERNELS_REFERENCE, false, NULL, &reference);
  uint32_t count = etr_opt_prepack_method(&packed.method);
  cr_expect_eq(count, expected + norms, "%u prepacked", count);
  count = etr_opt_prepack_method(&packed.method);
  cr_expect_eq(count, 0, "packed again: %u", count);
  count = etr_opt_prepack_method(&reference.method);
  cr_expect_eq(count, 0, "reference method: %u packed", count);
  run(model, &plain.method);
  run(model, &packed.method);
  assert_same_outputs(model, &plain.method, &packed.method);
  const etr_tensor_t *a = etr_method_output(&plain.method, 0)->u.as_tensor;
  // Zero the packed panels of every convolution that has them.
  uint32_t zeroed = 0;
  uint32_t packed_norms = 0;
  for (uint32_t c = 0; c < packed.method.num_chains; ++c) {
    const etr_chain_t *chain = &packed.method.chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *in = &chain->instructions[i];
      if (in->state == NULL) {
        continue;
      }
      if (in->kernel == etr_opt_native_batch_norm_legit_no_training_out) {
        ++packed_norms;
        continue;
      }
      const etr_conv_packed_t *state = in->state;
      const etr_tensor_t *w = in->args[1]->u.as_tensor;
      memset((float *)state->weight, 0, etr_tensor_nbytes(w));
      ++zeroed;
    }
  }
  cr_assert_eq(zeroed, expected);
  cr_assert_eq(packed_norms, norms);
  run(model, &packed.method);
  const etr_tensor_t *b = etr_method_output(&packed.method, 0)->u.as_tensor;
  cr_expect(memcmp(a->data, b->data, etr_tensor_nbytes(a)) != 0,
            "zeroed packed weights left the output unchanged");
  // Zero the packed alpha of every batch norm (of another method: the
  // weights' change above would hide theirs).
  if (norms > 0) {
    etr_opt_prepack_method(&normed.method);
    for (uint32_t c = 0; c < normed.method.num_chains; ++c) {
      const etr_chain_t *chain = &normed.method.chains[c];
      for (uint32_t i = 0; i < chain->num_instructions; ++i) {
        const etr_instruction_t *in = &chain->instructions[i];
        if (in->state != NULL &&
            in->kernel == etr_opt_native_batch_norm_legit_no_training_out) {
          const etr_bn_packed_t *bn = in->state;
          memset((float *)bn->alpha, 0, bn->channels * sizeof(float));
        }
      }
    }
    run(model, &normed.method);
    const etr_tensor_t *n =
        etr_method_output(&normed.method, 0)->u.as_tensor;
    cr_expect(memcmp(a->data, n->data, etr_tensor_nbytes(a)) != 0,
              "zeroed packed batch-norm alphas left the output unchanged");
  }
  etr_method_release(&plain.method);
  etr_method_release(&packed.method);
  etr_method_release(&normed.method);
  etr_method_release(&reference.method);
}

Test(fuse, resnet_weights_packed_unfused) {
  etr_program_t program;
  open_program("datasets/models/resnet/model.pte", &program);
  for (size_t k = 0; k < sizeof(g_pixel_isas) / sizeof(g_pixel_isas[0]);
       ++k) {
    if (etr_isa_available(g_pixel_isas[k].isa)) {
      packed_unfused(&program, "resnet", g_pixel_isas[k].isa,
                     g_pixel_isas[k].packed, 9);
    }
  }
  etr_program_release(&program);
  etr_isa_reset();
}
Test(fuse, mobilenet_v3_same_bits) {
  each_isa_chains("mobilenet_v3", 19, 16, 8, 22, 0, 10, 47);
}

// AVX-512 and AVX2 pack the weights of MobileNetV3's six
// squeeze-and-excitation 1x1 convolutions (one-pixel images) as columns
// (conv.h's etr_conv_columns_pack), and AVX-512 its 120-channel 5x5
// depthwise layer on 4x4 maps as 16-channel tap vectors
// (etr_depthwise_taps_pack, for depthwise_channel_planes_avx512.c; its
// other layers' kernels read the weights in place); unfused, the calls
// read them and keep the outputs' bits. (Fused, mobilenet_v3_same_bits
// compares them with the unpacked kernels.) The 4 -> 16 one took
// AVX-512's few-channel direct kernel, not the pointwise one, before
// 2026-12-05. Its 16 batch norms (ResNet's 9) get their alpha and beta.
Test(fuse, mobilenet_v3_columns_packed_unfused) {
  static const struct {
    etr_isa_t isa;
    uint32_t packed;
  } isas[] = {{ETR_ISA_AVX512, 7}, {ETR_ISA_AVX2, 6}};
  etr_program_t program;
  open_program("datasets/models/mobilenet_v3/model.pte", &program);
  for (size_t k = 0; k < sizeof(isas) / sizeof(isas[0]); ++k) {
    if (etr_isa_available(isas[k].isa)) {
      packed_unfused(&program, "mobilenet_v3", isas[k].isa, isas[k].packed,
                     16);
    }
  }
  etr_program_release(&program);
  etr_isa_reset();
}
Test(fuse, linear_layers_folded) {
  each_isa("mlp", 0, 0, 0, 3, 0);
  each_isa("transformer", 0, 0, 0, 6, 0);
  each_isa("lstm", 0, 0, 0, 12, 0);
}

// The program's own plan (it aliases views to their bases: keep it), with
// planned values x and `other` moved past the end of x's pool: x there,
// `other` `shift` bytes further (0: the same bytes). `pools` holds 8
// sizes; the placements are calloc'ed (the caller frees them).
static etr_memory_plan_t moved_plan(const etr_method_t *m, uint32_t x,
                                    uint32_t other, size_t shift,
                                    size_t *pools) {
  cr_assert_eq(m->value_info[x].storage, ETR_STORAGE_PLANNED);
  cr_assert_eq(m->value_info[other].storage, ETR_STORAGE_PLANNED);
  etr_planned_placement_t *placements =
      calloc(m->num_values, sizeof(*placements));
  for (uint32_t v = 0; v < m->num_values; ++v) {
    placements[v] = (etr_planned_placement_t){m->value_info[v].memory_id,
                                              m->value_info[v].memory_offset};
  }
  cr_assert_leq(m->num_planned_buffers, 8);
  for (uint32_t p = 0; p < m->num_planned_buffers; ++p) {
    pools[p] = m->planned_sizes[p];
  }
  uint32_t pool = m->value_info[x].memory_id - 1;
  size_t fresh = (pools[pool] + 63) / 64 * 64;
  size_t end = shift + m->value_info[other].nbytes;
  pools[pool] = fresh + (m->value_info[x].nbytes > end
                             ? m->value_info[x].nbytes
                             : end);
  placements[x] = (etr_planned_placement_t){pool + 1, fresh};
  placements[other] = (etr_planned_placement_t){pool + 1, fresh + shift};
  return (etr_memory_plan_t){pools, m->num_planned_buffers, placements,
                             m->num_values};
}

// The CNN under a plan that moves the convolution's input x and one other
// value of the first block (`which`: 0 the convolution's out y, 2 the
// relu's out z) together to fresh bytes: the fused kernel may not write
// where the convolution reads. With z there it computes in y and copies
// (staged); with y there the convolution itself cannot run in place and
// the block runs unfused (its convolution then by the reference kernel).
// Outputs match the unfused method under the same plan, and for z under
// the program's plan too.
static void overlap_case(uint32_t which, uint64_t want_staged,
                         uint64_t want_unfused) {
  etr_program_t program;
  open_program("datasets/models/cnn/model.pte", &program);
  loaded_t probe;
  load(&program, ETR_KERNELS_OPTIMIZED, false, NULL, &probe);
  etr_method_t *m = &probe.method;
  const etr_instruction_t *conv = &m->chains[0].instructions[0];
  const etr_instruction_t *relu = &m->chains[0].instructions[2];
  cr_assert_str_eq(m->operators[conv->callee].name, "aten::convolution.out");
  cr_assert_str_eq(m->operators[relu->callee].name, "aten::relu.out");
  uint32_t x = conv->arg_indices[0];
  uint32_t other = which == 0 ? conv->arg_indices[9] : relu->arg_indices[1];
  // x and the other value moved together into the same fresh bytes.
  size_t pools[8];
  etr_memory_plan_t plan = moved_plan(m, x, other, 0, pools);
  loaded_t plain;
  loaded_t fused;
  load(&program, ETR_KERNELS_OPTIMIZED, false, &plan, &plain);
  load(&program, ETR_KERNELS_OPTIMIZED, true, &plan, &fused);
  cr_assert_eq(fused.stats.groups, 2);
  uint64_t unfused = etr_fuse_unfused_runs;
  uint64_t staged = etr_fuse_staged_runs;
  run("cnn", &plain.method);
  run("cnn", &fused.method);
  // RUNS executions of the first block; the second block is unaffected.
  cr_assert_eq(etr_fuse_staged_runs - staged, want_staged);
  cr_assert_eq(etr_fuse_unfused_runs - unfused, want_unfused);
  assert_same_outputs("cnn (same plan)", &plain.method, &fused.method);
  if (which != 0) {  // (a convolution in place runs the reference kernel)
    loaded_t normal;
    load(&program, ETR_KERNELS_OPTIMIZED, false, NULL, &normal);
    run("cnn", &normal.method);
    assert_same_outputs("cnn (program plan)", &normal.method, &fused.method);
    etr_method_release(&normal.method);
  }
  etr_method_release(&plain.method);
  etr_method_release(&fused.method);
  etr_method_release(&probe.method);
  free((void *)plan.placements);
  etr_program_release(&program);
}

Test(fuse, last_out_over_input_is_staged) { overlap_case(2, RUNS, 0); }
Test(fuse, conv_out_over_input_runs_unfused) {
  overlap_case(0, 0, RUNS);
}

static void count_reports(void *user, const etr_method_t *method,
                          uint32_t chain, uint32_t instruction,
                          etr_error_t status, const etr_diag_t *diag) {
  (void)method;
  (void)status;
  cr_log_error("chain %u instruction %u: %s", chain, instruction,
               diag->message);
  ++*(uint32_t *)user;
}

Test(fuse, dry_run_and_roles) {
  etr_program_t program;
  open_program("datasets/models/mobilenet_v2/model.pte", &program);
  loaded_t fused;
  load(&program, ETR_KERNELS_OPTIMIZED, true, NULL, &fused);
  uint32_t heads = 0;
  uint32_t absorbed = 0;
  const etr_chain_t *chain = &fused.method.chains[0];
  for (uint32_t i = 0; i < chain->num_instructions; ++i) {
    const etr_instruction_t *in = &chain->instructions[i];
    if (in->fusion == ETR_FUSION_HEAD) {
      ++heads;
      cr_assert_str_eq(fused.method.operators[in->callee].name,
                       "aten::convolution.out");
      for (uint32_t s = 1; s <= in->fused_count; ++s) {
        cr_assert_eq(chain->instructions[i + s].fusion, ETR_FUSION_ABSORBED);
      }
    }
    absorbed += in->fusion == ETR_FUSION_ABSORBED;
  }
  cr_assert_eq(heads, fused.stats.groups);
  cr_assert_eq(absorbed, fused.stats.absorbed);
  uint32_t reports = 0;
  cr_assert_eq(etr_method_dry_run(&fused.method, count_reports, &reports), 0);
  etr_method_release(&fused.method);
  // The reference kernels are not fused.
  loaded_t reference;
  load(&program, ETR_KERNELS_REFERENCE, true, NULL, &reference);
  cr_assert_eq(reference.stats.groups, 0);
  etr_method_release(&reference.method);
  etr_program_release(&program);
}

// Absorbed instructions do nothing: the executor steps over them after
// their head, unless a tracer times every instruction (a profile lists
// them as fused into the previous one). Either way they count as executed.
static uint32_t g_absorbed_calls;

static etr_error_t count_absorbed(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  (void)ctx;
  (void)args;
  (void)num_args;
  ++g_absorbed_calls;
  return ETR_OK;
}

static void on_instruction(void *user, const etr_method_t *method,
                           uint32_t chain, uint32_t instruction) {
  (void)method;
  (void)chain;
  (void)instruction;
  ++*(uint32_t *)user;
}

Test(fuse, absorbed_instructions_are_stepped_over_untraced) {
  etr_program_t program;
  open_program("datasets/models/mobilenet_v2/model.pte", &program);
  loaded_t fused;
  load(&program, ETR_KERNELS_OPTIMIZED, true, NULL, &fused);
  etr_chain_t *chain = &fused.method.chains[0];
  for (uint32_t i = 0; i < chain->num_instructions; ++i) {
    if (chain->instructions[i].fusion == ETR_FUSION_ABSORBED) {
      chain->instructions[i].kernel = count_absorbed;
    }
  }
  cr_assert_gt(fused.stats.absorbed, 0);
  g_absorbed_calls = 0;
  run("mobilenet_v2", &fused.method);
  cr_expect_eq(g_absorbed_calls, 0);
  cr_expect_eq(fused.method.last_instruction_count, chain->num_instructions);
  uint32_t traced = 0;
  etr_event_tracer_t tracer = {.user = &traced,
                               .begin_instruction = on_instruction};
  fused.method.config.tracer = &tracer;
  run("mobilenet_v2", &fused.method);
  cr_expect_eq(g_absorbed_calls, RUNS * fused.stats.absorbed);
  cr_expect_eq(traced, RUNS * chain->num_instructions);
  etr_method_release(&fused.method);
  etr_program_release(&program);
}

// ---------------------------------------------------------------------------
// Elementwise chains (fuse_chain.c) on testdata/chains.pte (its generator,
// testdata/generate.py, lists the four chains): hardswish, a residual add +
// relu, hardsigmoid times an earlier value, and a run of arithmetic with
// constants on either side, a clamp and a relu6.

#define CHAINS_DIR "ops_optimized/fuse/testdata/"

static void set_chain_inputs(etr_method_t *method, bool specials) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  for (uint32_t i = 0; i < 2; ++i) {
    char path[256];
    snprintf(path, sizeof(path), CHAINS_DIR "chains_input_%u.npy", i);
    etr_npy_array_t input;
    cr_assert_eq(etr_npy_load_file(path, 0, &input, &diag), ETR_OK, "%s: %s",
                 path, diag.message);
    if (specials) {
      // Every value that has its own rule, at both ends of the tile, in
      // the tail and at the corners of hardswish and the clamps.
      static const float kSpecial[] = {
          NAN,      -NAN,     INFINITY, -INFINITY, -0.0f,     0.0f,
          1e-40f,   -1e-40f,  FLT_MAX,  -FLT_MAX,  FLT_MIN,   -3.0f,
          3.0f,     6.0f,     -6.0f,    4.0f,      1e30f,     -1e30f,
          2.9999998f, -2.9999998f, 0.5f, -0.5f};
      float *data = (float *)input.tensor.data;
      size_t n = (size_t)etr_tensor_numel(&input.tensor);
      size_t count = sizeof(kSpecial) / sizeof(kSpecial[0]);
      for (size_t e = 0; e < n; e += 7) {
        data[e] = kSpecial[(e / 7 + i * 5) % count];
      }
      for (size_t e = 0; e < count && e < n; ++e) {
        data[n - 1 - e] = kSpecial[(e + i) % count];
        data[1023 - e] = kSpecial[(e + 3) % count];
      }
    }
    cr_assert_eq(etr_method_set_input_tensor(method, i, &input.tensor,
                                             &diag),
                 ETR_OK, "%s", diag.message);
    etr_npy_array_release(&input);
  }
}

static void run_chains(etr_method_t *method, bool specials) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  for (int round = 0; round < 2; ++round) {
    set_chain_inputs(method, specials);
    cr_assert_eq(etr_method_execute(method, &diag), ETR_OK, "%s",
                 diag.message);
  }
}

// Bits equal, any NaN matching any NaN (the reference computes in double,
// which need not keep a NaN's payload).
static void assert_same_values(const char *what, const etr_method_t *a,
                               const etr_method_t *b) {
  for (uint32_t k = 0; k < a->num_outputs; ++k) {
    const etr_tensor_t *s = etr_method_output(a, k)->u.as_tensor;
    const etr_tensor_t *t = etr_method_output(b, k)->u.as_tensor;
    cr_assert_eq(etr_tensor_numel(s), etr_tensor_numel(t));
    const float *x = s->data;
    const float *y = t->data;
    for (int64_t e = 0; e < etr_tensor_numel(s); ++e) {
      cr_assert(memcmp(&x[e], &y[e], sizeof(float)) == 0 ||
                    (isnan(x[e]) && isnan(y[e])),
                "%s: output %u [%lld]: %a vs %a", what, k, (long long)e,
                (double)x[e], (double)y[e]);
    }
  }
}

static void assert_eager(const etr_method_t *m) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  for (uint32_t k = 0; k < m->num_outputs; ++k) {
    char path[256];
    snprintf(path, sizeof(path), CHAINS_DIR "chains_eager_output_%u.npy", k);
    etr_npy_array_t want;
    cr_assert_eq(etr_npy_load_file(path, 0, &want, &diag), ETR_OK, "%s",
                 diag.message);
    const etr_tensor_t *got = etr_method_output(m, k)->u.as_tensor;
    cr_assert_eq(etr_tensor_numel(got), etr_tensor_numel(&want.tensor));
    const float *x = got->data;
    const float *y = want.tensor.data;
    for (int64_t e = 0; e < etr_tensor_numel(got); ++e) {
      cr_assert(fabsf(x[e] - y[e]) <= 1e-6f + 1e-6f * fabsf(y[e]),
                "output %u [%lld]: %g, eager %g", k, (long long)e,
                (double)x[e], (double)y[e]);
    }
    etr_npy_array_release(&want);
  }
}

static void chains_under_isa(const etr_program_t *program) {
  loaded_t reference;
  loaded_t plain;
  loaded_t fused;
  load(program, ETR_KERNELS_REFERENCE, false, NULL, &reference);
  load(program, ETR_KERNELS_OPTIMIZED, false, NULL, &plain);
  load(program, ETR_KERNELS_OPTIMIZED, true, NULL, &fused);
  cr_assert_eq(fused.stats.chains, 4);
  cr_assert_eq(fused.stats.chain_steps, 18);
  cr_assert_eq(fused.stats.absorbed, 14);
  cr_assert_eq(fused.stats.groups, 0);
  // Heads and spans (folded constant copies inside a span stay folded).
  const etr_chain_t *chain = &fused.method.chains[0];
  const uint32_t heads[] = {1, 7, 10, 16};
  const uint32_t spans[] = {5, 1, 5, 5};
  for (size_t k = 0; k < 4; ++k) {
    const etr_instruction_t *head = &chain->instructions[heads[k]];
    cr_assert_eq(head->fusion, ETR_FUSION_HEAD, "instruction %u", heads[k]);
    cr_assert_eq(head->fused_count, spans[k], "instruction %u", heads[k]);
    for (uint32_t s = 1; s <= spans[k]; ++s) {
      uint8_t role = chain->instructions[heads[k] + s].fusion;
      cr_assert(role == ETR_FUSION_ABSORBED || role == ETR_FUSION_FOLDED);
    }
  }
  uint64_t unfused = etr_fuse_chain_unfused_runs;
  for (int specials = 0; specials < 2; ++specials) {
    run_chains(&reference.method, specials);
    run_chains(&plain.method, specials);
    run_chains(&fused.method, specials);
    assert_same_outputs("chains", &plain.method, &fused.method);
    assert_same_values("chains vs reference", &reference.method,
                       &fused.method);
    if (!specials) {
      assert_eager(&fused.method);
    }
  }
  cr_assert_eq(etr_fuse_chain_unfused_runs, unfused,
               "every fused chain took its one-pass path");
  uint32_t reports = 0;
  cr_assert_eq(etr_method_dry_run(&fused.method, count_reports, &reports), 0);
  etr_method_release(&reference.method);
  etr_method_release(&plain.method);
  etr_method_release(&fused.method);
}

Test(fuse, elementwise_chains_same_bits) {
  etr_program_t program;
  open_program(CHAINS_DIR "chains.pte", &program);
  const etr_isa_t isas[] = {ETR_ISA_SCALAR, ETR_ISA_AVX2, ETR_ISA_AVX512,
                            ETR_ISA_NEON};
  uint32_t ran = 0;
  for (size_t k = 0; k < sizeof(isas) / sizeof(isas[0]); ++k) {
    if (!etr_isa_available(isas[k])) {
      continue;
    }
    etr_isa_force(isas[k]);
    cr_log_info("chains under %s", etr_isa_name(isas[k]));
    chains_under_isa(&program);
    ++ran;
  }
  etr_isa_reset();
  cr_assert_geq(ran, 2, "scalar and at least one SIMD ISA");
  etr_program_release(&program);
}

// The fused hardswish / hardsigmoid kernel (binary.h's hard entry, which
// fuse_chain.c calls for such chains) against the steps it fuses, each
// by the same ISA's unfused kernel (add by a value, CLAMP, mul, div by a
// value), bit for bit (NaN for NaN), with both of its divisions: the
// divide, and div.Scalar's FMA steps (what etr_isa_slow_divide CPUs take;
// the chains test above runs only the one this machine takes). Lengths
// around the vector widths; specials, ties of the clamp, zeros (x <= -3)
// and values whose quotient is tiny or huge; divisors 6, 0.1 and 2^40
// (outside the FMA steps' range: the divide).
Test(fuse, hard_kernel_matches_its_steps) {
  enum { kMax = 1029 };
  static float x[kMax];
  static float want[kMax];
  static float got[kMax];
  static float tmp[kMax];
  static const float kSpecial[] = {
      NAN,  -NAN, INFINITY, -INFINITY, -0.0f, 0.0f,    1e-40f, -1e-40f,
      FLT_MAX, -FLT_MAX, -3.0f, 3.0f,  6.0f,  -6.0f,   -5.0f,  1e30f,
      -1e30f, 2.9999998f, -2.9999998f, 1e-30f, 0.5f, -0.5f, 1e20f};
  const size_t specials = sizeof(kSpecial) / sizeof(kSpecial[0]);
  static const size_t kLengths[] = {1, 7, 8, 9, 15, 16, 17, 31, 32, 33,
                                    63, 64, 65, 1024, 1029};
  static const float kDivisors[] = {6.0f, 0.1f, 0x1p40f};
  const etr_isa_t isas[] = {ETR_ISA_SCALAR, ETR_ISA_AVX2, ETR_ISA_AVX512,
                            ETR_ISA_NEON};
  uint64_t state = 12345;
  for (size_t i = 0; i < kMax; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (float)((int32_t)(state >> 40) % 20000) / 2000.0f;  // [-10, 10]
    if (i % 5 == 0) {
      x[i] = kSpecial[(i / 5) % specials];
    }
  }
  uint32_t checked = 0;
  for (size_t k = 0; k < sizeof(isas) / sizeof(isas[0]); ++k) {
    if (!etr_isa_available(isas[k])) {
      continue;
    }
    const etr_f32_binary_kernels_t *b = etr_f32_binary_for(isas[k]);
    etr_f32_unary_op_fn clamp = etr_f32_unary_op_for(ETR_UNARY_CLAMP, isas[k]);
    const etr_binary_params_t one = {.alpha = 1.0};
    for (int form = 0; form < 3; ++form) {  // x clamp, clamp x, none
      for (size_t d = 0; d < sizeof(kDivisors) / sizeof(kDivisors[0]); ++d) {
        etr_f32_hard_params_t p = {.add = 3.0f, .low = 0.0f, .high = 6.0f,
                                   .divisor = kDivisors[d],
                                   .times_x = form < 2, .x_first = form == 0};
        etr_unary_params_t bounds = {0};
        bounds.low = p.low;
        bounds.high = p.high;
        for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
          const size_t n = kLengths[l];
          b->vs[ETR_BINARY_ADD](n, x, p.add, tmp, &one);
          clamp(n, tmp, tmp, &bounds);
          if (form == 0) {
            b->vv[ETR_BINARY_MUL](n, x, tmp, tmp, &one);
          } else if (form == 1) {
            b->vv[ETR_BINARY_MUL](n, tmp, x, tmp, &one);
          }
          b->vs[ETR_BINARY_DIV](n, tmp, p.divisor, want, &one);
          for (int newton = 0; newton < 2; ++newton) {
            etr_isa_force_slow_divide(newton);
            b->hard(n, x, got, &p);
            etr_isa_force_slow_divide(-1);
            for (size_t e = 0; e < n; ++e) {
              cr_assert(memcmp(&got[e], &want[e], sizeof(float)) == 0 ||
                            (isnan(got[e]) && isnan(want[e])),
                        "%s form %d divisor %a newton %d n %zu: hard(%a) = "
                        "%a, steps %a",
                        etr_isa_name(isas[k]), form, (double)p.divisor,
                        newton, n, (double)x[e], (double)got[e],
                        (double)want[e]);
            }
            ++checked;
          }
        }
      }
    }
  }
  cr_assert_gt(checked, 0);
}

// Plans that put the hardswish chain's out `shift` bytes into its input x.
// 64: the tiles would overwrite x's floats before reading them, so the
// chain runs its five kernels one after another; 0 (the same floats): each
// tile reads before it writes, so the chain runs fused. Either way with
// the unfused method's bits under the same plan.
static void chain_overlap_case(size_t shift, uint64_t want_unfused) {
  etr_program_t program;
  open_program(CHAINS_DIR "chains.pte", &program);
  loaded_t probe;
  load(&program, ETR_KERNELS_OPTIMIZED, false, NULL, &probe);
  etr_method_t *m = &probe.method;
  const etr_instruction_t *add = &m->chains[0].instructions[1];
  const etr_instruction_t *div = &m->chains[0].instructions[6];
  cr_assert_str_eq(m->operators[add->callee].name, "aten::add.out");
  cr_assert_str_eq(m->operators[div->callee].name, "aten::div.out");
  uint32_t x = add->arg_indices[0];
  uint32_t h = div->arg_indices[3];
  size_t pools[8];
  etr_memory_plan_t plan = moved_plan(m, x, h, shift, pools);
  loaded_t plain;
  loaded_t fused;
  load(&program, ETR_KERNELS_OPTIMIZED, false, &plan, &plain);
  load(&program, ETR_KERNELS_OPTIMIZED, true, &plan, &fused);
  cr_assert_eq(fused.stats.chains, 4);
  uint64_t unfused = etr_fuse_chain_unfused_runs;
  run_chains(&plain.method, false);
  run_chains(&fused.method, false);
  cr_assert_eq(etr_fuse_chain_unfused_runs - unfused, want_unfused);
  assert_same_outputs("chains (same plan)", &plain.method, &fused.method);
  etr_method_release(&plain.method);
  etr_method_release(&fused.method);
  etr_method_release(&probe.method);
  free((void *)plan.placements);
  etr_program_release(&program);
}

Test(fuse, elementwise_chain_out_partly_over_input_runs_unfused) {
  chain_overlap_case(64, 2);
}
Test(fuse, elementwise_chain_out_over_input_runs_fused) {
  chain_overlap_case(0, 0);
}
