// SPDX-License-Identifier: Apache-2.0
//
// Method execution and inputs (see method.h). Nothing here calls malloc:
// kernels get the preallocated scratch arena, reset after each instruction.
//
// Before each KernelCall and DelegateCall the executor checks, cheaply, what
// a malformed program could otherwise turn into a crash: every tensor an
// instruction passes that has elements must be bound to memory, and no
// output may point into the read-only program or data-file bytes.
#include <string.h>

#include "core/method_internal.h"
#include "core/platform.h"

const etr_evalue_t *etr_method_input(const etr_method_t *method,
                                     uint32_t index) {
  return index < method->num_inputs ? &method->values[method->inputs[index]]
                                    : NULL;
}

const etr_evalue_t *etr_method_output(const etr_method_t *method,
                                      uint32_t index) {
  return index < method->num_outputs
             ? &method->values[method->outputs[index]]
             : NULL;
}

// Copies every element of `source` into `target` (same dtype and shape),
// each read and written through its own strides.
static void copy_strided(etr_tensor_t *target, const etr_tensor_t *source) {
  size_t element_size = etr_scalar_type_size(source->dtype);
  int64_t numel = etr_tensor_numel(source);
  if (numel == 0) {
    return;
  }
  if (etr_tensor_is_contiguous(source) && etr_tensor_is_contiguous(target)) {
    memcpy(target->data, source->data, (size_t)numel * element_size);
    return;
  }
  int64_t index[ETR_MAX_DIMS] = {0};
  do {
    const uint8_t *from = (const uint8_t *)source->data +
                          etr_tensor_offset(source, index) * element_size;
    uint8_t *to = (uint8_t *)target->data +
                  etr_tensor_offset(target, index) * element_size;
    memcpy(to, from, element_size);
  } while (etr_index_next(index, source->sizes, source->dim));
}

static etr_error_t set_tensor_input(uint32_t index, etr_tensor_t *target,
                                    const etr_value_info_t *info,
                                    const etr_tensor_t *source,
                                    etr_diag_t *diag) {
  ETR_CHECK(diag, source->dtype == target->dtype, ETR_ERR_INVALID_ARGUMENT,
            "input %u must be %s, got %s", index,
            etr_scalar_type_name(target->dtype),
            etr_scalar_type_name(source->dtype));
  ETR_CHECK(diag, source->dim == target->dim, ETR_ERR_INVALID_ARGUMENT,
            "input %u must have rank %d, got %d", index, (int)target->dim,
            (int)source->dim);
  int64_t numel = etr_tensor_numel(source);
  ETR_CHECK(diag, numel == 0 || source->data != NULL,
            ETR_ERR_INVALID_ARGUMENT, "input %u has no data", index);
  if (info->storage == ETR_STORAGE_UNBOUND) {
    // Unplanned input: the method uses the caller's memory, which must be
    // dense in the input's dim order and stay alive while it executes.
    // A static-shape input keeps the program's shape, as a planned one
    // does (etr_tensor_resize).
    bool same_shape = true;
    for (int32_t i = 0; i < source->dim; ++i) {
      same_shape = same_shape && source->sizes[i] == target->sizes[i];
    }
    ETR_CHECK(diag,
              same_shape || target->shape_dynamism != ETR_SHAPE_STATIC,
              ETR_ERR_INVALID_ARGUMENT,
              "input %u has a static shape; got a tensor of another shape",
              index);
    etr_tensor_t bound = *source;
    memcpy(bound.dim_order, target->dim_order, sizeof(bound.dim_order));
    etr_strides_from_dim_order(bound.sizes, bound.dim_order, bound.dim,
                               bound.strides);
    bool same_layout = true;
    for (int32_t i = 0; i < source->dim; ++i) {
      same_layout = same_layout && (source->sizes[i] <= 1 ||
                                    source->strides[i] == bound.strides[i]);
    }
    ETR_CHECK(diag, same_layout, ETR_ERR_INVALID_ARGUMENT,
              "input %u is not laid out densely in the dim order the program "
              "expects",
              index);
    ETR_CHECK(diag,
              (uintptr_t)source->data %
                      etr_scalar_type_size(source->dtype) == 0,
              ETR_ERR_INVALID_ARGUMENT,
              "input %u data is not aligned to its element size", index);
    bound.shape_dynamism = target->shape_dynamism;
    *target = bound;
    return ETR_OK;
  }
  ETR_CHECK(diag, info->storage == ETR_STORAGE_PLANNED,
            ETR_ERR_INVALID_ARGUMENT,
            "input %u is a constant of the program and cannot be set", index);
  etr_error_t status = etr_tensor_resize(target, source->dim, source->sizes,
                                         diag);
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "input %u", index);
    return ETR_ERR_INVALID_ARGUMENT;
  }
  copy_strided(target, source);
  return ETR_OK;
}

etr_error_t etr_method_set_input(etr_method_t *method, uint32_t index,
                                 const etr_evalue_t *value, etr_diag_t *diag) {
  ETR_CHECK(diag, index < method->num_inputs, ETR_ERR_INVALID_ARGUMENT,
            "input index %u is out of range: method '%s' has %u inputs",
            index, method->name, method->num_inputs);
  uint32_t value_index = method->inputs[index];
  etr_evalue_t *target = &method->values[value_index];
  ETR_CHECK(diag, value->tag == target->tag, ETR_ERR_INVALID_ARGUMENT,
            "input %u must be %s, got %s", index, etr_tag_name(target->tag),
            etr_tag_name(value->tag));
  switch (target->tag) {
    case ETR_TAG_TENSOR:
      return set_tensor_input(index, target->u.as_tensor,
                              &method->value_info[value_index],
                              value->u.as_tensor, diag);
    case ETR_TAG_INT:
    case ETR_TAG_DOUBLE:
    case ETR_TAG_BOOL:
    case ETR_TAG_NONE:
      target->u = value->u;
      return ETR_OK;
    default:
      return ETR_FAIL(diag, ETR_ERR_NOT_SUPPORTED,
                      "input %u of type %s cannot be set", index,
                      etr_tag_name(target->tag));
  }
}

etr_error_t etr_method_set_input_tensor(etr_method_t *method, uint32_t index,
                                        const etr_tensor_t *tensor,
                                        etr_diag_t *diag) {
  etr_evalue_t value = {.tag = ETR_TAG_TENSOR};
  value.u.as_tensor = (etr_tensor_t *)tensor;  // only read
  return etr_method_set_input(method, index, &value, diag);
}

// True when [data, data + size) overlaps read-only bytes (the program file
// or the external data file).
static bool is_read_only(const etr_method_t *method, const void *data,
                         size_t size) {
  uintptr_t start = (uintptr_t)data;
  uintptr_t program = (uintptr_t)method->program->data;
  if (start < program + method->program->size && start + size > program) {
    return true;
  }
  const etr_data_map_t *map = method->config.external_data;
  if (map != NULL) {
    uintptr_t external = (uintptr_t)map->data;
    return start < external + map->size && start + size > external;
  }
  return false;
}

// True when `tensor` is one of the method's (unplanned) inputs, bound by
// the caller at run time.
static bool is_unbound_input(const etr_method_t *method,
                             const etr_tensor_t *tensor) {
  for (uint32_t i = 0; i < method->num_inputs; ++i) {
    const etr_evalue_t *input = &method->values[method->inputs[i]];
    if (input->tag == ETR_TAG_TENSOR && input->u.as_tensor == tensor &&
        method->value_info[method->inputs[i]].storage ==
            ETR_STORAGE_UNBOUND) {
      return true;
    }
  }
  return false;
}

static etr_error_t check_tensor_arg(const etr_method_t *method,
                                    const etr_tensor_t *tensor, size_t arg,
                                    bool is_output, bool dry_run,
                                    etr_diag_t *diag) {
  // Tensors without elements pass. The element count (a loop over the
  // dims) is computed only when a check would fail without it: this runs
  // for every argument of every call, a good part of a tiny op's time.
  if (tensor == NULL) {
    return ETR_OK;
  }
  if (tensor->data != NULL) {
    ETR_CHECK(diag,
              !is_output ||
                  !is_read_only(method, tensor->data,
                                tensor->capacity_bytes) ||
                  etr_tensor_numel(tensor) == 0,
              ETR_ERR_INVALID_PROGRAM,
              "argument %zu, an output, points into read-only constant data",
              arg);
    return ETR_OK;
  }
  if (etr_tensor_numel(tensor) == 0 ||
      (dry_run && is_unbound_input(method, tensor))) {
    return ETR_OK;
  }
  return ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                  "argument %zu is a tensor with no memory (never written, "
                  "not an input, not planned)",
                  arg);
}

// Checks every tensor argument (and tensor-list element) of a call.
static etr_error_t check_call_args(const etr_method_t *method,
                                   const etr_instruction_t *instruction,
                                   bool dry_run, etr_diag_t *diag) {
  for (size_t a = 0; a < instruction->num_args; ++a) {
    // Kernels write their outputs through the trailing return slot. A
    // DelegateCall's arguments are its inputs then its outputs, and which
    // is which only the backend knows: exporters pass constants (lifted
    // weights) among the inputs, so none is held to the output rule.
    bool is_output = instruction->kind == ETR_INSTRUCTION_KERNEL_CALL &&
                     a + 1 == instruction->num_args;
    const etr_evalue_t *value = instruction->args[a];
    if (value->tag == ETR_TAG_TENSOR) {
      ETR_TRY(check_tensor_arg(method, value->u.as_tensor, a, is_output,
                               dry_run, diag));
    } else if (value->tag == ETR_TAG_LIST_TENSOR ||
               value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
      for (size_t k = 0; k < value->u.as_tensor_list.length; ++k) {
        ETR_TRY(check_tensor_arg(method, etr_tensor_list_get(value, k), a,
                                 is_output, dry_run, diag));
      }
    }
  }
  return ETR_OK;
}

// A JumpFalseCall condition: a Bool, or a Bool tensor that is true only when
// every element is.
static etr_error_t read_condition(const etr_evalue_t *value, bool *out,
                                  etr_diag_t *diag) {
  if (value->tag == ETR_TAG_BOOL) {
    *out = value->u.as_bool;
    return ETR_OK;
  }
  ETR_CHECK(diag,
            value->tag == ETR_TAG_TENSOR &&
                value->u.as_tensor->dtype == ETR_BOOL,
            ETR_ERR_INVALID_PROGRAM,
            "JumpFalseCall condition is %s, not a Bool or a Bool tensor",
            value->tag == ETR_TAG_TENSOR
                ? etr_scalar_type_name(value->u.as_tensor->dtype)
                : etr_tag_name(value->tag));
  const etr_tensor_t *tensor = value->u.as_tensor;
  int64_t numel = etr_tensor_numel(tensor);
  ETR_CHECK(diag, numel == 0 || tensor->data != NULL, ETR_ERR_INVALID_PROGRAM,
            "JumpFalseCall condition tensor has no memory");
  *out = true;
  if (numel == 0) {
    return ETR_OK;
  }
  int64_t index[ETR_MAX_DIMS] = {0};
  do {
    const uint8_t *element =
        (const uint8_t *)tensor->data + etr_tensor_offset(tensor, index);
    if (*element == 0) {
      *out = false;
      return ETR_OK;
    }
  } while (etr_index_next(index, tensor->sizes, tensor->dim));
  return ETR_OK;
}

static etr_error_t run_instruction(etr_method_t *method,
                                   etr_instruction_t *instruction,
                                   uint32_t *next, etr_diag_t *diag) {
  switch (instruction->kind) {
    case ETR_INSTRUCTION_KERNEL_CALL: {
      ETR_CHECK(diag, instruction->kernel != NULL, ETR_ERR_OPERATOR_MISSING,
                "no kernel is registered for this operator");
      if (!instruction->args_checked) {  // else passed on these arguments
        ETR_TRY(check_call_args(method, instruction, false, diag));
        if (instruction->memo != NULL) {
          memset(instruction->memo, 0, ETR_KERNEL_MEMO_BYTES);
        }
      }
      etr_kernel_context_t context = {
          .diag = diag,
          .temp = &method->temp,
          .op_name = method->operators[instruction->callee].name,
          .rng_state = &method->rng_state,
          .state = instruction->state,
          .args_checked = instruction->args_checked,
          .memo = instruction->memo,
          .constant_args = instruction->constant_args,
      };
      etr_error_t status =
          instruction->kernel(&context, instruction->args,
                              instruction->num_args);
      if (status != ETR_OK && (diag == NULL || diag->code == ETR_OK)) {
        ETR_FAIL(diag, status, "kernel failed");
      }
      instruction->args_checked = instruction->args_fixed && status == ETR_OK;
      return status;
    }
    case ETR_INSTRUCTION_DELEGATE_CALL: {
      ETR_TRY(check_call_args(method, instruction, false, diag));
      etr_delegate_instance_t *delegate =
          &method->delegates[instruction->callee];
      ETR_CHECK(diag, delegate->initialized, ETR_ERR_NOT_FOUND,
                "backend '%s' is not registered",
                delegate->backend_id != NULL ? delegate->backend_id : "?");
      etr_backend_execute_context_t context = {
          .method_name = method->name,
          .temp = &method->temp,
          .diag = diag,
          .tracer = method->config.tracer,
          .method = method,
          .delegate_index = instruction->callee,
      };
      etr_error_t status = delegate->backend->execute(
          delegate->backend, &context, delegate->handle, instruction->args,
          instruction->num_args);
      if (status != ETR_OK) {
        ETR_FAIL(diag, status, "backend '%s' failed", delegate->backend_id);
      }
      return status;
    }
    case ETR_INSTRUCTION_MOVE_CALL:
      method->values[instruction->operands[1]] =
          method->values[instruction->operands[0]];
      return ETR_OK;
    case ETR_INSTRUCTION_JUMP_FALSE_CALL: {
      bool condition = true;
      ETR_TRY(read_condition(&method->values[instruction->operands[0]],
                             &condition, diag));
      if (!condition) {
        *next = instruction->operands[1];
      }
      return ETR_OK;
    }
    case ETR_INSTRUCTION_FREE_CALL: {
      etr_evalue_t *value = &method->values[instruction->operands[0]];
      ETR_CHECK(diag, value->tag == ETR_TAG_TENSOR, ETR_ERR_INVALID_PROGRAM,
                "FreeCall target is %s, not a Tensor",
                etr_tag_name(value->tag));
      value->u.as_tensor->data = NULL;
      value->u.as_tensor->capacity_bytes = 0;
      return ETR_OK;
    }
    default:
      return ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                      "unknown instruction kind %d", (int)instruction->kind);
  }
}

// Adds "chain c instruction i (operator)" before the recorded message.
static void describe_failure(const etr_method_t *method, uint32_t chain,
                             uint32_t index,
                             const etr_instruction_t *instruction,
                             etr_diag_t *diag) {
  if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL) {
    etr_diag_prefix(diag, "method '%s' chain %u instruction %u (%s)",
                    method->name, chain, index,
                    method->operators[instruction->callee].name);
  } else {
    etr_diag_prefix(diag, "method '%s' chain %u instruction %u (%s)",
                    method->name, chain, index,
                    etr_instruction_kind_name(instruction->kind));
  }
}

etr_error_t etr_method_execute(etr_method_t *method, etr_diag_t *diag) {
  const etr_event_tracer_t *tracer = method->config.tracer;
  if (tracer != NULL && tracer->begin_execute != NULL) {
    tracer->begin_execute(tracer->user, method);
  }
  uint64_t steps = 0;
  uint64_t started = method->config.max_execute_ns != 0 ? etr_now_ns() : 0;
  etr_error_t status = ETR_OK;
  for (uint32_t c = 0; c < method->num_chains && status == ETR_OK; ++c) {
    etr_chain_t *chain = &method->chains[c];
    uint32_t pc = 0;
    while (pc < chain->num_instructions) {
      if (steps >= method->config.max_instructions) {
        status = ETR_FAIL(diag, ETR_ERR_INVALID_STATE,
                          "method '%s' exceeded %llu instructions in one "
                          "execution (a loop in the program?)",
                          method->name,
                          (unsigned long long)method->config.max_instructions);
        break;
      }
      if (started != 0 &&
          etr_now_ns() - started > method->config.max_execute_ns) {
        status = ETR_FAIL(diag, ETR_ERR_OUT_OF_RESOURCES,
                          "method '%s' ran past its %llu ns time budget",
                          method->name,
                          (unsigned long long)method->config.max_execute_ns);
        break;
      }
      ++steps;
      etr_instruction_t *instruction = &chain->instructions[pc];
      uint32_t next = pc + 1;
      if (tracer != NULL && tracer->begin_instruction != NULL) {
        tracer->begin_instruction(tracer->user, method, c, pc);
      }
      status = run_instruction(method, instruction, &next, diag);
      etr_arena_reset(&method->temp);
      if (tracer != NULL && tracer->end_instruction != NULL) {
        tracer->end_instruction(tracer->user, method, c, pc, status);
      }
      if (status != ETR_OK) {
        describe_failure(method, c, pc, instruction, diag);
        break;
      }
      // A fused block's head did the work of the instructions it absorbed,
      // whose kernels do nothing (ops_optimized/fuse/fuse.h; never jump
      // targets): step over them, unless a tracer times each instruction.
      if (instruction->fusion == ETR_FUSION_HEAD && tracer == NULL &&
          next == pc + 1 &&
          instruction->fused_count < chain->num_instructions - pc) {
        next += instruction->fused_count;
        steps += instruction->fused_count;
      }
      pc = next;
    }
  }
  method->last_instruction_count = steps;
  if (status == ETR_OK) {
    ++method->executions;
  }
  if (tracer != NULL && tracer->end_execute != NULL) {
    tracer->end_execute(tracer->user, method, status);
  }
  return status;
}

uint32_t etr_method_dry_run(etr_method_t *method, etr_dry_run_fn report,
                            void *user) {
  uint32_t reported = 0;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    const etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *instruction = &chain->instructions[i];
      etr_diag_t diag;
      etr_diag_reset(&diag);
      etr_error_t status = ETR_OK;
      if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL &&
          instruction->kernel != NULL) {
        status = check_call_args(method, instruction, true, &diag);
        if (status == ETR_OK) {
          etr_kernel_context_t context = {
              .diag = &diag,
              .temp = &method->temp,
              .op_name = method->operators[instruction->callee].name,
              .rng_state = &method->rng_state,
              .dry_run = true,
              .state = instruction->state,
          };
          status = instruction->kernel(&context, instruction->args,
                                       instruction->num_args);
          if (status != ETR_OK && diag.code == ETR_OK) {
            ETR_FAIL(&diag, status, "kernel failed");
          }
        }
        etr_arena_reset(&method->temp);
      } else if (instruction->kind == ETR_INSTRUCTION_MOVE_CALL) {
        method->values[instruction->operands[1]] =
            method->values[instruction->operands[0]];
      } else if (instruction->kind == ETR_INSTRUCTION_JUMP_FALSE_CALL) {
        const etr_evalue_t *condition =
            &method->values[instruction->operands[0]];
        if (condition->tag != ETR_TAG_BOOL &&
            !(condition->tag == ETR_TAG_TENSOR &&
              condition->u.as_tensor->dtype == ETR_BOOL)) {
          status = ETR_FAIL(&diag, ETR_ERR_INVALID_PROGRAM,
                            "JumpFalseCall condition is %s, not a Bool or a "
                            "Bool tensor",
                            etr_tag_name(condition->tag));
        }
      } else if (instruction->kind == ETR_INSTRUCTION_FREE_CALL &&
                 method->values[instruction->operands[0]].tag !=
                     ETR_TAG_TENSOR) {
        status = ETR_FAIL(&diag, ETR_ERR_INVALID_PROGRAM,
                          "FreeCall target is %s, not a Tensor",
                          etr_tag_name(
                              method->values[instruction->operands[0]].tag));
      }
      if (status != ETR_OK) {
        ++reported;
        if (report != NULL) {
          report(user, method, c, i, status, &diag);
        }
      }
    }
  }
  return reported;
}
