// SPDX-License-Identifier: Apache-2.0
//
// Reading a loaded method for the fusion passes (fuse_graph.h).
#include "ops_optimized/fuse/fuse_graph.h"

etr_error_t etr_fuse_noop_kernel(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  (void)ctx;
  (void)args;
  (void)num_args;
  return ETR_OK;
}

const char *etr_fuse_op_name(const etr_method_t *m,
                             const etr_instruction_t *instruction) {
  if (instruction->kind != ETR_INSTRUCTION_KERNEL_CALL ||
      instruction->callee >= m->num_operators) {
    return "";
  }
  const char *name = m->operators[instruction->callee].name;
  return name != NULL ? name : "";
}

bool etr_fuse_is_jump_target(const etr_chain_t *chain, uint32_t index) {
  for (uint32_t i = 0; i < chain->num_instructions; ++i) {
    const etr_instruction_t *in = &chain->instructions[i];
    if (in->kind == ETR_INSTRUCTION_JUMP_FALSE_CALL &&
        in->operands[1] == index) {
      return true;
    }
  }
  return false;
}

// References of value `v` among one instruction's arguments.
uint32_t etr_fuse_uses_in(const etr_instruction_t *instruction, uint32_t v) {
  uint32_t count = 0;
  for (size_t a = 0; a < instruction->num_args; ++a) {
    count += instruction->arg_indices[a] == v;
  }
  return count;
}

// Every reference to each value: instruction arguments and operands, the
// method's inputs and outputs.
void etr_fuse_count_uses(const etr_method_t *m, uint32_t *uses) {
  for (uint32_t c = 0; c < m->num_chains; ++c) {
    const etr_chain_t *chain = &m->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *in = &chain->instructions[i];
      switch (in->kind) {
        case ETR_INSTRUCTION_KERNEL_CALL:
        case ETR_INSTRUCTION_DELEGATE_CALL:
          for (size_t a = 0; a < in->num_args; ++a) {
            if (in->arg_indices[a] < m->num_values) {
              ++uses[in->arg_indices[a]];
            }
          }
          break;
        case ETR_INSTRUCTION_MOVE_CALL:
          for (int k = 0; k < 2; ++k) {
            if (in->operands[k] < m->num_values) {
              ++uses[in->operands[k]];
            }
          }
          break;
        default:  // JumpFalseCall, FreeCall: operands[0] is a value
          if (in->operands[0] < m->num_values) {
            ++uses[in->operands[0]];
          }
          break;
      }
    }
  }
  for (uint32_t i = 0; i < m->num_inputs; ++i) {
    if (m->inputs[i] < m->num_values) {
      ++uses[m->inputs[i]];
    }
  }
  for (uint32_t i = 0; i < m->num_outputs; ++i) {
    if (m->outputs[i] < m->num_values) {
      ++uses[m->outputs[i]];
    }
  }
}

// Whether tensor `t` is an element of a tensor list some instruction other
// than `owner` passes (`owner`'s return list names its own outs).
bool etr_fuse_fixed_value(const etr_method_t *m, uint32_t v) {
  if (v >= m->num_values) {
    return false;
  }
  if (m->value_info[v].storage == ETR_STORAGE_CONSTANT ||
      m->value_info[v].storage == ETR_STORAGE_EXTERNAL) {
    return true;
  }
  for (uint32_t c = 0; c < m->num_chains; ++c) {
    const etr_chain_t *chain = &m->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *in = &chain->instructions[i];
      if (in->fusion == ETR_FUSION_FOLDED && in->num_args >= 1 &&
          in->arg_indices[in->num_args - 1] == v) {
        return true;
      }
    }
  }
  return false;
}

bool etr_fuse_listed_elsewhere(const etr_method_t *m, const etr_tensor_t *t,
                               const etr_instruction_t *owner) {
  for (uint32_t c = 0; c < m->num_chains; ++c) {
    const etr_chain_t *chain = &m->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *in = &chain->instructions[i];
      if (in == owner || (in->kind != ETR_INSTRUCTION_KERNEL_CALL &&
                          in->kind != ETR_INSTRUCTION_DELEGATE_CALL)) {
        continue;
      }
      for (size_t a = 0; a < in->num_args; ++a) {
        const etr_evalue_t *value = in->args[a];
        if (value->tag != ETR_TAG_LIST_TENSOR &&
            value->tag != ETR_TAG_LIST_OPTIONAL_TENSOR) {
          continue;
        }
        for (size_t k = 0; k < value->u.as_tensor_list.length; ++k) {
          if (etr_tensor_list_get(value, k) == t) {
            return true;
          }
        }
      }
    }
  }
  return false;
}

bool etr_fuse_accepts(etr_method_t *m, const etr_instruction_t *instruction) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {
      .diag = &diag,
      .temp = &m->temp,
      .op_name = etr_fuse_op_name(m, instruction),
      .rng_state = &m->rng_state,
      .dry_run = true,
  };
  etr_error_t status =
      instruction->kernel(&ctx, instruction->args, instruction->num_args);
  etr_arena_reset(&m->temp);
  return status == ETR_OK;
}

etr_error_t etr_fuse_run_steps(etr_kernel_context_t *ctx,
                               const etr_instruction_t *steps,
                               const char *const *names, uint32_t count) {
  for (uint32_t s = 0; s < count; ++s) {
    etr_kernel_context_t step = *ctx;
    step.state = NULL;
    step.op_name = names[s];
    step.args_checked = false;
    step.memo = NULL;
    if (ctx->temp != NULL) {
      etr_arena_reset(ctx->temp);
    }
    etr_error_t status =
        steps[s].kernel(&step, steps[s].args, steps[s].num_args);
    if (status != ETR_OK) {
      etr_diag_prefix(ctx->diag, "fused step %u (%s)", s, names[s]);
      return status;
    }
  }
  return ETR_OK;
}
