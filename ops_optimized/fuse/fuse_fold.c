// SPDX-License-Identifier: Apache-2.0
//
// Constant folding and unread max-pool indices (fuse.h).
#include <string.h>

#include "ops_optimized/fuse/fuse_graph.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"

// Operators folded when every tensor they read is a constant: data
// movement and dequantization of weights, deterministic and read nothing
// but their arguments.
static const char *const kFoldable[] = {
    "aten::permute_copy.out",
    "aten::view_copy.out",
    "aten::expand_copy.out",
    "aten::squeeze_copy.dims_out",
    "aten::unsqueeze_copy.out",
    "aten::slice_copy.Tensor_out",
    "aten::clone.out",
    "aten::cat.out",
    "dim_order_ops::_clone_dim_order.out",
    "dim_order_ops::_to_dim_order_copy.out",
    "quantized_decomposed::dequantize_per_tensor.out",
    "quantized_decomposed::dequantize_per_channel.out",
};

static bool foldable_op(const char *name) {
  for (size_t k = 0; k < sizeof(kFoldable) / sizeof(kFoldable[0]); ++k) {
    if (strcmp(name, kFoldable[k]) == 0) {
      return true;
    }
  }
  return false;
}

// Whether every tensor among the first `count` arguments (list elements
// too) is a constant of the program or the data file.
static bool reads_constants_only(const etr_method_t *m,
                                 const etr_instruction_t *in, size_t count) {
  for (size_t a = 0; a < count; ++a) {
    uint32_t v = in->arg_indices[a];
    if (v >= m->num_values) {
      return false;
    }
    const etr_evalue_t *value = &m->values[v];
    if (value->tag == ETR_TAG_TENSOR) {
      if (m->value_info[v].storage != ETR_STORAGE_CONSTANT &&
          m->value_info[v].storage != ETR_STORAGE_EXTERNAL) {
        return false;
      }
    } else if (value->tag == ETR_TAG_LIST_TENSOR ||
               value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
      // Elements are tensors of other values: each must be a constant.
      for (size_t k = 0; k < value->u.as_tensor_list.length; ++k) {
        const etr_tensor_t *t = etr_tensor_list_get(value, k);
        bool constant = t == NULL;
        for (uint32_t w = 0; w < m->num_values && !constant; ++w) {
          constant = m->values[w].tag == ETR_TAG_TENSOR &&
                     m->values[w].u.as_tensor == t &&
                     (m->value_info[w].storage == ETR_STORAGE_CONSTANT ||
                      m->value_info[w].storage == ETR_STORAGE_EXTERNAL);
        }
        if (!constant) {
          return false;
        }
      }
    }
  }
  return true;
}

// Whether value `v`, the out of `producer`, is only read elsewhere: never
// an out (a call's last argument) or a list element of another call, never
// moved, freed, returned or set as an input.
static bool read_only_elsewhere(const etr_method_t *m, const uint32_t *uses,
                                uint32_t v,
                                const etr_instruction_t *producer) {
  uint32_t reads = 0;
  for (uint32_t c = 0; c < m->num_chains; ++c) {
    const etr_chain_t *chain = &m->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *in = &chain->instructions[i];
      if (in == producer || (in->kind != ETR_INSTRUCTION_KERNEL_CALL &&
                             in->kind != ETR_INSTRUCTION_DELEGATE_CALL)) {
        continue;
      }
      uint32_t here = etr_fuse_uses_in(in, v);
      // A delegate's args mix inputs and outputs; a kernel writes its out
      // (the schema's last argument) and returns it in the last slot,
      // which a malformed program may make differ: neither may be v.
      if (here > 0 && (in->kind == ETR_INSTRUCTION_DELEGATE_CALL ||
                       in->num_args < 2 ||
                       in->arg_indices[in->num_args - 1] == v ||
                       in->arg_indices[in->num_args - 2] == v)) {
        return false;
      }
      reads += here;
    }
  }
  // Every reference is accounted for: nothing moves, frees or returns it.
  return uses[v] == etr_fuse_uses_in(producer, v) + reads &&
         !etr_fuse_listed_elsewhere(m, m->values[v].u.as_tensor, producer);
}

// Computes instruction `in` now into memory of its own and binds its out
// there; the instruction then does nothing. False (nothing changed) when
// it does not qualify or its kernel refuses.
static bool fold(etr_method_t *method, const uint32_t *uses,
                 etr_instruction_t *in) {
  if (in->kind != ETR_INSTRUCTION_KERNEL_CALL || in->kernel == NULL ||
      in->state != NULL || in->fusion != ETR_FUSION_NONE ||
      in->num_args < 2 || !foldable_op(etr_fuse_op_name(method, in))) {
    return false;
  }
  uint32_t out = in->arg_indices[in->num_args - 1];
  if (out >= method->num_values ||
      in->arg_indices[in->num_args - 2] != out ||
      method->values[out].tag != ETR_TAG_TENSOR ||
      method->value_info[out].storage != ETR_STORAGE_PLANNED ||
      etr_fuse_uses_in(in, out) != 2 ||
      !reads_constants_only(method, in, in->num_args - 2) ||
      !read_only_elsewhere(method, uses, out, in)) {
    return false;
  }
  etr_tensor_t *tensor = method->values[out].u.as_tensor;
  if (!etr_fuse_accepts(method, in)) {  // resizes the out to its (static) shape
    return false;
  }
  size_t bytes = etr_tensor_nbytes(tensor);
  void *data = etr_arena_alloc(&method->arena, bytes > 0 ? bytes : 1, 64);
  if (data == NULL) {
    return false;
  }
  void *planned = tensor->data;
  size_t capacity = tensor->capacity_bytes;
  tensor->data = data;
  tensor->capacity_bytes = bytes;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {
      .diag = &diag,
      .temp = &method->temp,
      .op_name = etr_fuse_op_name(method, in),
      .rng_state = &method->rng_state,
  };
  etr_error_t status = in->kernel(&ctx, in->args, in->num_args);
  etr_arena_reset(&method->temp);
  if (status != ETR_OK) {
    tensor->data = planned;
    tensor->capacity_bytes = capacity;
    return false;
  }
  in->kernel = etr_fuse_noop_kernel;
  in->fusion = ETR_FUSION_FOLDED;
  return true;
}

// A max_pool2d_with_indices.out whose indices nothing else references
// (not another call, move, free, input or output, nor a list but its own
// return list) gets the kernel that skips them.
static bool prune_indices(etr_method_t *m, const uint32_t *uses,
                          etr_instruction_t *in) {
  enum { kMaxPoolArgs = 9, kIndices = 7 };
  if (in->kind != ETR_INSTRUCTION_KERNEL_CALL ||
      in->kernel != etr_opt_max_pool2d_with_indices_out ||
      in->num_args != kMaxPoolArgs || in->state != NULL ||
      in->fusion != ETR_FUSION_NONE ||
      strcmp(etr_fuse_op_name(m, in),
             "aten::max_pool2d_with_indices.out") != 0) {
    return false;
  }
  uint32_t v = in->arg_indices[kIndices];
  if (v >= m->num_values || m->values[v].tag != ETR_TAG_TENSOR ||
      etr_fuse_uses_in(in, v) != 1 || uses[v] != 1 ||
      etr_fuse_listed_elsewhere(m, m->values[v].u.as_tensor, in)) {
    return false;
  }
  in->kernel = etr_pool_max2d_values_only;
  in->fusion = ETR_FUSION_PRUNED;
  return true;
}

uint32_t etr_fuse_fold_constants(etr_method_t *method, const uint32_t *uses) {
  uint32_t folded = 0;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      folded += fold(method, uses, &chain->instructions[i]);
    }
  }
  return folded;
}

uint32_t etr_fuse_prune_indices(etr_method_t *method, const uint32_t *uses) {
  uint32_t pruned = 0;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      pruned += prune_indices(method, uses, &chain->instructions[i]);
    }
  }
  return pruned;
}
