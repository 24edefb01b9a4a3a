// SPDX-License-Identifier: Apache-2.0
//
// Constant weights packed at load (fuse.h's etr_opt_prepack_method): each
// unfused convolution's for the kernel that will read it (conv/conv.h's
// etr_conv_prepack: pixel-tile panels, Winograd transforms, one-pixel
// columns, depthwise tap vectors), each mm and addmm's B and each
// linear's weight for the GEMM (gemm/gemm.h), and each inference batch
// norm's alpha and beta from constant parameters (norm/norm.h), bound to
// the instruction as its kernel state.
#include <stddef.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/fuse/fuse.h"
#include "ops_optimized/fuse/fuse_graph.h"
#include "ops_optimized/gemm/gemm_ops.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/ops_optimized.h"

static const etr_tensor_t *tensor_at(const etr_instruction_t *in,
                                     size_t index) {
  return index < in->num_args && in->args[index]->tag == ETR_TAG_TENSOR
             ? in->args[index]->u.as_tensor
             : NULL;
}

// _native_batch_norm_legit_no_training.out(input, weight, bias,
// running_mean, running_var, momentum, eps, out0, out1, out2, return):
// alpha and beta when every parameter is a constant (weight and bias may
// be None), or NULL.
static const void *pack_batch_norm(etr_method_t *m,
                                   const etr_instruction_t *in) {
  const etr_tensor_t *input = tensor_at(in, 0);
  if (in->num_args != 11 || input == NULL || input->dim < 2 ||
      in->args[6]->tag != ETR_TAG_DOUBLE) {
    return NULL;
  }
  const etr_tensor_t *params[4];
  for (size_t i = 0; i < 4; ++i) {
    params[i] = tensor_at(in, 1 + i);
    const bool optional = i < 2 && in->args[1 + i]->tag == ETR_TAG_NONE;
    if (!optional && (params[i] == NULL ||
                      !etr_fuse_fixed_value(m, in->arg_indices[1 + i]))) {
      return NULL;
    }
  }
  return etr_batch_norm_prepack((size_t)input->sizes[1], params[0],
                                params[1], params[2], params[3],
                                in->args[6]->u.as_double, &m->arena);
}

// The instruction's packed weights, or NULL (none, or no room).
static const void *pack(etr_method_t *m, const etr_instruction_t *in) {
  if (in->kernel == etr_opt_native_batch_norm_legit_no_training_out) {
    return pack_batch_norm(m, in);
  }
  if (in->kernel == etr_opt_convolution_out) {
    const etr_tensor_t *weight = tensor_at(in, 1);
    if (in->num_args != 11 || weight == NULL ||
        !etr_fuse_fixed_value(m, in->arg_indices[1])) {
      return NULL;
    }
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_kernel_context_t ctx = {.diag = &diag,
                                .op_name = "aten::convolution.out"};
    etr_conv_packed_t packed;
    etr_conv_packed_t *state = NULL;
    if (etr_conv_prepack(&ctx, in->args, in->num_args, &m->arena,
                         &packed) != ETR_OK ||
        packed.weight == NULL ||
        (state = etr_arena_alloc(&m->arena, sizeof(*state), 64)) == NULL) {
      return NULL;
    }
    *state = packed;
    return state;
  }
  // linear(input, weight, bias, out).
  if (in->kernel == etr_opt_linear_out) {
    const etr_tensor_t *input = tensor_at(in, 0);
    const etr_tensor_t *weight = tensor_at(in, 1);
    const etr_tensor_t *out = tensor_at(in, 3);
    if (in->num_args != 5 || input == NULL || weight == NULL ||
        out == NULL || !etr_fuse_fixed_value(m, in->arg_indices[1])) {
      return NULL;
    }
    return etr_opt_linear_prepack(input, weight, tensor_at(in, 2), out,
                                  &m->arena);
  }
  // mm(self, mat2, out) and addmm(bias, mat1, mat2, beta, alpha, out).
  size_t a = 0;
  size_t b = 1;
  size_t out = 2;
  if (in->kernel == etr_opt_addmm_out && in->num_args == 7) {
    a = 1;
    b = 2;
    out = 5;
  } else if (in->kernel != etr_opt_mm_out || in->num_args != 4) {
    return NULL;
  }
  const etr_tensor_t *ta = tensor_at(in, a);
  const etr_tensor_t *tb = tensor_at(in, b);
  const etr_tensor_t *tout = tensor_at(in, out);
  if (ta == NULL || tb == NULL || tout == NULL ||
      !etr_fuse_fixed_value(m, in->arg_indices[b])) {
    return NULL;
  }
  return etr_opt_matmul_prepack(ta, tb, tout, &m->arena);
}

uint32_t etr_opt_prepack_method(etr_method_t *method) {
  uint32_t count = 0;
  if (method->config.variant != ETR_KERNELS_OPTIMIZED) {
    return 0;
  }
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      etr_instruction_t *in = &chain->instructions[i];
      // Unfused calls only: a fused head's state is its group's.
      if (in->kind != ETR_INSTRUCTION_KERNEL_CALL || in->state != NULL ||
          in->fusion != ETR_FUSION_NONE ||
          (in->kernel != etr_opt_convolution_out &&
           in->kernel != etr_opt_mm_out &&
           in->kernel != etr_opt_addmm_out &&
           in->kernel != etr_opt_linear_out &&
           in->kernel != etr_opt_native_batch_norm_legit_no_training_out) ||
          !etr_fuse_accepts(method, in)) {
        continue;
      }
      in->state = pack(method, in);
      count += in->state != NULL;
    }
  }
  return count;
}
