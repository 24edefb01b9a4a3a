// SPDX-License-Identifier: Apache-2.0
//
// Fused convolution groups: a convolution with the inference batch norm
// and the hardtanh/relu after it, one kernel (fuse.h).
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/fuse/fuse_graph.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/ops_optimized.h"

enum { kConvArgs = 11, kBatchNormArgs = 11, kHardtanhArgs = 5, kReluArgs = 3 };

// One fused group, bound to the head instruction as its kernel state.
typedef struct fused_conv {
  etr_instruction_t steps[3];  // copies of the convolution and the absorbed
                               // instructions as loaded (their kernels)
  uint32_t num_steps;
  const char *names[3];
  etr_tensor_t *target;       // the last instruction's out
  etr_tensor_t *intermediate; // the batch norm's out0 (resized), or NULL
  etr_conv_post_t post;       // scale/shift in the method's arena
  // Every tensor of the group has a static shape: the dry runs at fusion
  // accepted the calls once and for all, provided the convolution's input
  // (a method input may be bound to another tensor) still has this shape.
  bool static_shapes;
  int32_t input_dim;
  int64_t input_sizes[ETR_MAX_DIMS];
} fused_conv_t;

uint64_t etr_fuse_unfused_runs = 0;
uint64_t etr_fuse_staged_runs = 0;

// Runs the group's instructions one after another, as unfused.
static etr_error_t run_unfused(etr_kernel_context_t *ctx,
                               const fused_conv_t *f) {
  if (!ctx->dry_run) {
    ++etr_fuse_unfused_runs;
  }
  return etr_fuse_run_steps(ctx, f->steps, f->names, f->num_steps);
}

static etr_tensor_t *tensor_or_null(const etr_evalue_t *value) {
  return value->tag == ETR_TAG_TENSOR ? value->u.as_tensor : NULL;
}

// Whether every tensor argument (list elements too) has a static shape.
static bool static_call(const etr_instruction_t *in) {
  for (size_t a = 0; a < in->num_args; ++a) {
    const etr_evalue_t *value = in->args[a];
    if (value->tag == ETR_TAG_TENSOR &&
        value->u.as_tensor->shape_dynamism != ETR_SHAPE_STATIC) {
      return false;
    }
    if (value->tag == ETR_TAG_LIST_TENSOR ||
        value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
      for (size_t k = 0; k < value->u.as_tensor_list.length; ++k) {
        const etr_tensor_t *t = etr_tensor_list_get(value, k);
        if (t != NULL && t->shape_dynamism != ETR_SHAPE_STATIC) {
          return false;
        }
      }
    }
  }
  return true;
}

static etr_error_t fused_conv_kernel(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  (void)args;
  (void)num_args;
  const fused_conv_t *f = (const fused_conv_t *)ctx->state;
  if (f == NULL) {
    return ETR_FAIL(ctx->diag, ETR_ERR_INVALID_STATE,
                    "fused convolution kernel called without its state");
  }
  if (ctx->dry_run) {
    return run_unfused(ctx, f);
  }
  etr_conv_post_t post = f->post;
  const etr_tensor_t *input = tensor_or_null(f->steps[0].args[0]);
  post.checked = f->static_shapes && input != NULL &&
                 input->dtype == ETR_FLOAT && input->dim == f->input_dim &&
                 memcmp(input->sizes, f->input_sizes,
                        (size_t)f->input_dim * sizeof(int64_t)) == 0;
  post.rows = etr_conv_post_rows_for(etr_isa_active());
  post.gemm = (etr_gemm_post_t){post.scale, post.shift, post.low, post.high,
                                etr_conv_post_gemm, &post};
  const etr_instruction_t *conv = &f->steps[0];
  bool done = false;
  bool staged = false;
  ETR_TRY(etr_conv_run_fused(ctx, conv->args, conv->num_args, f->target,
                             &post, &done, &staged));
  if (!done) {
    return run_unfused(ctx, f);
  }
  etr_fuse_staged_runs += staged;
  if (f->intermediate != NULL) {  // shapes as the unfused run leaves them
    ETR_TRY(etr_tensor_resize(f->intermediate, f->target->dim,
                              f->target->sizes, ctx->diag));
  }
  return ETR_OK;
}

// A Float tensor value that only `producer` and `consumer` (may be NULL)
// reference; `planned` also asks for planned memory.
static bool private_value(const etr_method_t *m, const uint32_t *uses,
                          uint32_t v, const etr_instruction_t *producer,
                          const etr_instruction_t *consumer, bool planned) {
  if (v >= m->num_values || m->values[v].tag != ETR_TAG_TENSOR ||
      (planned && m->value_info[v].storage != ETR_STORAGE_PLANNED) ||
      uses[v] != etr_fuse_uses_in(producer, v) +
                     (consumer != NULL ? etr_fuse_uses_in(consumer, v) : 0)) {
    return false;
  }
  const etr_tensor_t *t = m->values[v].u.as_tensor;
  return t->dtype == ETR_FLOAT && !etr_fuse_listed_elsewhere(m, t, producer);
}

static bool constant_or_none(const etr_method_t *m, uint32_t v) {
  return v < m->num_values &&
         (m->values[v].tag == ETR_TAG_NONE ||
          (m->values[v].tag == ETR_TAG_TENSOR &&
           (m->value_info[v].storage == ETR_STORAGE_CONSTANT ||
            m->value_info[v].storage == ETR_STORAGE_EXTERNAL)));
}

// Whether a dense Float tensor holds no inf or NaN (false for anything
// else: the convolution then scans its weight at every call).
static bool all_finite(const etr_tensor_t *t) {
  if (t == NULL || t->dtype != ETR_FLOAT || !etr_tensor_is_dense(t) ||
      (t->data == NULL && etr_tensor_numel(t) > 0)) {
    return false;
  }
  const float *data = (const float *)t->data;
  for (int64_t e = 0; e < etr_tensor_numel(t); ++e) {
    if (!isfinite(data[e])) {
      return false;
    }
  }
  return true;
}

// The limits of a hardtanh or relu run by its optimized kernel, as that
// kernel rounds them (etr_round_double to Float is the cast to float).
static bool clamp_limits(const etr_method_t *m,
                         const etr_instruction_t *instruction, float *low,
                         float *high) {
  const char *name = etr_fuse_op_name(m, instruction);
  if (strcmp(name, "aten::relu.out") == 0 &&
      instruction->kernel == etr_opt_relu_out &&
      instruction->num_args == kReluArgs) {
    *low = 0.0f;
    *high = INFINITY;
    return true;
  }
  if (strcmp(name, "aten::hardtanh.out") != 0 ||
      instruction->kernel != etr_opt_hardtanh_out ||
      instruction->num_args != kHardtanhArgs) {
    return false;
  }
  double limits[2];
  for (int i = 0; i < 2; ++i) {
    const etr_evalue_t *v = instruction->args[1 + i];
    if (v->tag == ETR_TAG_DOUBLE) {
      limits[i] = v->u.as_double;
    } else if (v->tag == ETR_TAG_INT) {
      limits[i] = (double)v->u.as_int;
    } else {
      return false;
    }
    // Limits past the float range take the kernel's own checks, unfused.
    if (!(fabs(limits[i]) <= (double)FLT_MAX)) {
      return false;
    }
  }
  *low = (float)limits[0];
  *high = (float)limits[1];
  return true;
}

// The group that starts at instruction `i` of `chain`: fills `f` (its
// post's scale and shift into `scale`/`shift`, `channels` floats each) and
// returns how many instructions follow the convolution in it (0: none).
static uint32_t match(etr_method_t *m, const uint32_t *uses,
                      const etr_chain_t *chain, uint32_t i, fused_conv_t *f,
                      float *scale, float *shift, size_t max_channels) {
  const etr_instruction_t *conv = &chain->instructions[i];
  if (conv->kind != ETR_INSTRUCTION_KERNEL_CALL ||
      conv->kernel != etr_opt_convolution_out ||
      conv->num_args != kConvArgs || conv->state != NULL ||
      strcmp(etr_fuse_op_name(m, conv), "aten::convolution.out") != 0 ||
      conv->arg_indices[9] != conv->arg_indices[10]) {
    return 0;
  }
  etr_tensor_t *y = tensor_or_null(conv->args[9]);
  uint32_t current = conv->arg_indices[9];
  if (y == NULL || y->dim < 3 || y->sizes[1] <= 0 ||
      (size_t)y->sizes[1] > max_channels ||
      etr_fuse_uses_in(conv, current) != 2) {
    return 0;
  }
  size_t channels = (size_t)y->sizes[1];
  *f = (fused_conv_t){.steps = {*conv}, .names = {etr_fuse_op_name(m, conv)}};
  f->post.low = -INFINITY;
  f->post.high = INFINITY;
  f->post.gemm.apply = etr_conv_post_gemm;
  const etr_instruction_t *producer = conv;
  uint32_t absorbed = 0;
  uint32_t next = i + 1;
  // An inference batch norm of the convolution's out.
  const etr_instruction_t *bn =
      next < chain->num_instructions ? &chain->instructions[next] : NULL;
  if (bn != NULL && bn->kind == ETR_INSTRUCTION_KERNEL_CALL &&
      bn->kernel == etr_opt_native_batch_norm_legit_no_training_out &&
      bn->num_args == kBatchNormArgs && bn->state == NULL &&
      strcmp(etr_fuse_op_name(m, bn),
             "aten::_native_batch_norm_legit_no_training.out") == 0 &&
      !etr_fuse_is_jump_target(chain, next) && bn->arg_indices[0] == current &&
      private_value(m, uses, current, producer, bn, true) &&
      constant_or_none(m, bn->arg_indices[1]) &&
      constant_or_none(m, bn->arg_indices[2]) &&
      constant_or_none(m, bn->arg_indices[3]) &&
      constant_or_none(m, bn->arg_indices[4]) &&
      bn->args[6]->tag == ETR_TAG_DOUBLE &&
      private_value(m, uses, bn->arg_indices[8], bn, NULL, false) &&
      private_value(m, uses, bn->arg_indices[9], bn, NULL, false) &&
      etr_batch_norm_float_params(
          channels, tensor_or_null(bn->args[1]), tensor_or_null(bn->args[2]),
          tensor_or_null(bn->args[3]), tensor_or_null(bn->args[4]),
          bn->args[6]->u.as_double, scale, shift)) {
    f->post.scale = scale;
    f->post.shift = shift;
    f->steps[1] = *bn;
    f->names[1] = etr_fuse_op_name(m, bn);
    absorbed = 1;
    producer = bn;
    current = bn->arg_indices[7];
    ++next;
  }
  // A hardtanh or relu of that.
  const etr_instruction_t *act =
      next < chain->num_instructions ? &chain->instructions[next] : NULL;
  float low = 0.0f;
  float high = 0.0f;
  if (act != NULL && act->kind == ETR_INSTRUCTION_KERNEL_CALL &&
      act->state == NULL && clamp_limits(m, act, &low, &high) &&
      !etr_fuse_is_jump_target(chain, next) && act->arg_indices[0] == current &&
      etr_fuse_uses_in(act, current) == 1 &&
      private_value(m, uses, current, producer, act, true)) {
    f->post.low = low;
    f->post.high = high;
    f->steps[1 + absorbed] = *act;
    f->names[1 + absorbed] = etr_fuse_op_name(m, act);
    if (absorbed == 1) {  // the batch norm's out: resized, never written
      f->intermediate = tensor_or_null(bn->args[7]);
    }
    ++absorbed;
    current = act->arg_indices[act->num_args - 2];
  }
  if (absorbed == 0 || current >= m->num_values ||
      m->values[current].tag != ETR_TAG_TENSOR ||
      m->value_info[current].storage != ETR_STORAGE_PLANNED ||
      m->values[current].u.as_tensor->dtype != ETR_FLOAT) {
    return 0;
  }
  f->target = m->values[current].u.as_tensor;
  f->num_steps = absorbed + 1;
  f->post.weight_finite = constant_or_none(m, conv->arg_indices[1]) &&
                          all_finite(tensor_or_null(conv->args[1]));
  const etr_tensor_t *input = tensor_or_null(conv->args[0]);
  f->static_shapes = input != NULL;
  for (uint32_t s = 0; s < f->num_steps; ++s) {
    f->static_shapes = f->static_shapes && static_call(&f->steps[s]);
  }
  if (input != NULL) {
    f->input_dim = input->dim;
    memcpy(f->input_sizes, input->sizes, sizeof(f->input_sizes));
  }
  for (uint32_t s = 0; s < f->num_steps; ++s) {
    if (!etr_fuse_accepts(m, &f->steps[s])) {
      return 0;
    }
  }
  return absorbed;
}

etr_error_t etr_fuse_conv_groups(etr_method_t *method, const uint32_t *uses,
                                 etr_fusion_stats_t *stats, etr_diag_t *diag) {
  enum { kMaxChannels = 1 << 16 };
  float *scratch = malloc(2 * kMaxChannels * sizeof(float));
  if (scratch == NULL) {
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "fusion analysis of method '%s'", method->name);
  }
  etr_error_t status = ETR_OK;
  for (uint32_t c = 0; c < method->num_chains && status == ETR_OK; ++c) {
    etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      fused_conv_t found;
      uint32_t absorbed = match(method, uses, chain, i, &found, scratch,
                                scratch + kMaxChannels, kMaxChannels);
      if (absorbed == 0) {
        continue;
      }
      size_t channels = (size_t)found.target->sizes[1];
      fused_conv_t *f = etr_arena_alloc(&method->arena, sizeof(*f), 64);
      float *params = found.post.scale == NULL
                          ? NULL
                          : etr_arena_alloc(&method->arena,
                                            2 * channels * sizeof(float), 64);
      if (f == NULL || (found.post.scale != NULL && params == NULL)) {
        status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                          "fusion of method '%s': arena exhausted",
                          method->name);
        break;
      }
      *f = found;
      // Weights packed once for the pixel-tile kernel, when the call takes
      // it and its weight is a constant (nothing can change its bytes).
      const etr_instruction_t *conv = &chain->instructions[i];
      const etr_tensor_t *weight = tensor_or_null(conv->args[1]);
      // (Not a transposed one's: the fused kernel runs its steps unfused,
      // without the state.)
      const bool transposed = conv->num_args > 6 &&
                              conv->args[6]->tag == ETR_TAG_BOOL &&
                              conv->args[6]->u.as_bool;
      if (weight != NULL && !transposed &&
          constant_or_none(method, conv->arg_indices[1])) {
        etr_diag_t pack_diag;
        etr_diag_reset(&pack_diag);
        etr_kernel_context_t ctx = {.diag = &pack_diag,
                                    .op_name = found.names[0]};
        status = etr_conv_prepack(&ctx, conv->args, conv->num_args,
                                  &method->arena, &f->post.packed);
        if (status != ETR_OK) {
          status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                            "fusion of method '%s': arena exhausted",
                            method->name);
          break;
        }
        stats->prepacked += f->post.packed.weight != NULL;
      }
      if (params != NULL) {
        memcpy(params, found.post.scale, channels * sizeof(float));
        memcpy(params + channels, found.post.shift, channels * sizeof(float));
        f->post.scale = params;
        f->post.shift = params + channels;
        ++stats->batch_norms;
      }
      stats->clamps += absorbed - (params != NULL ? 1u : 0u);
      etr_instruction_t *head = &chain->instructions[i];
      head->kernel = fused_conv_kernel;
      head->state = f;
      head->fusion = ETR_FUSION_HEAD;
      head->fused_count = (uint8_t)absorbed;
      for (uint32_t s = 1; s <= absorbed; ++s) {
        etr_instruction_t *gone = &chain->instructions[i + s];
        gone->kernel = etr_fuse_noop_kernel;
        gone->fusion = ETR_FUSION_ABSORBED;
      }
      ++stats->groups;
      stats->absorbed += absorbed;
      i += absorbed;
    }
  }
  free(scratch);
  return status;
}
