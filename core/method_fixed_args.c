// SPDX-License-Identifier: Apache-2.0
//
// Which kernel calls always see the same arguments (etr_instruction_t
// .args_fixed). A call's arguments are pointers to the method's values; a
// value changes between calls only when something rebinds it:
//   * set_input: every method input except a planned static-shape tensor
//     (copied into, never rebound; etr_tensor_resize keeps its shape);
//   * a tensor without memory of its own (not planned, not a constant): a
//     kernel (et_view), a move or an input gives it its data pointer;
//   * a FreeCall, which takes its tensor's memory away;
//   * a MoveCall, at its destination;
//   * a DelegateCall, at any argument that is not a static-shape tensor
//     (backends only say at run time which arguments they write);
//   * a kernel, at its return slot (the last argument): prim ops store an
//     Int, Double or Bool there, and in-place ops (`aten::copy_`, names
//     ending in '_' before the overload) store `self`. An out-variant's
//     return slot that is a static-shape tensor only has its data written.
// A tensor itself keeps its dtype, dim order and (planned or constant)
// memory, and, when static, its shape (resizing a static tensor to another
// shape fails). So a call none of whose arguments, tensor-list elements or
// int-list Ints is rebound, and whose tensors are all static, sees the
// same values, dtypes, shapes and data pointers on every run: only the
// data differ.
#include <string.h>

#include "core/method_internal.h"

static bool is_static_tensor(const etr_tensor_t *tensor) {
  return tensor == NULL || tensor->shape_dynamism == ETR_SHAPE_STATIC;
}

static bool is_static_tensor_value(const etr_evalue_t *value) {
  return value->tag == ETR_TAG_TENSOR &&
         is_static_tensor(value->u.as_tensor);
}

// Whether the operator name's base ("aten::copy_" of "aten::copy_.out")
// ends in '_': an in-place op, which returns `self` in its return slot.
static bool is_in_place(const char *name) {
  if (name == NULL) {
    return true;
  }
  const char *dot = strchr(name, '.');
  size_t length = dot != NULL ? (size_t)(dot - name) : strlen(name);
  return length > 0 && name[length - 1] == '_';
}

static void mark(const etr_method_t *method, bool *rebound,
                 const etr_evalue_t *value) {
  ptrdiff_t index = value - method->values;
  if (index >= 0 && (size_t)index < method->num_values) {
    rebound[index] = true;
  }
}

static bool is_rebound(const etr_method_t *method, const bool *rebound,
                       const etr_evalue_t *value) {
  ptrdiff_t index = value - method->values;
  return index < 0 || (size_t)index >= method->num_values || rebound[index];
}

static void mark_rebound(const etr_method_t *method, bool *rebound) {
  for (uint32_t v = 0; v < method->num_values; ++v) {
    if (method->values[v].tag == ETR_TAG_TENSOR &&
        method->value_info[v].storage == ETR_STORAGE_UNBOUND) {
      rebound[v] = true;
    }
  }
  for (uint32_t i = 0; i < method->num_inputs; ++i) {
    uint32_t v = method->inputs[i];
    if (!is_static_tensor_value(&method->values[v]) ||
        method->value_info[v].storage != ETR_STORAGE_PLANNED) {
      rebound[v] = true;
    }
  }
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    const etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *in = &chain->instructions[i];
      if (in->kind == ETR_INSTRUCTION_MOVE_CALL) {
        rebound[in->operands[1]] = true;
      } else if (in->kind == ETR_INSTRUCTION_FREE_CALL) {
        rebound[in->operands[0]] = true;
      } else if (in->kind == ETR_INSTRUCTION_DELEGATE_CALL) {
        for (size_t a = 0; a < in->num_args; ++a) {
          if (!is_static_tensor_value(in->args[a])) {
            mark(method, rebound, in->args[a]);
          }
        }
      } else if (in->kind == ETR_INSTRUCTION_KERNEL_CALL &&
                 in->num_args > 0) {
        const etr_evalue_t *slot = in->args[in->num_args - 1];
        if ((slot->tag != ETR_TAG_TENSOR &&
             slot->tag != ETR_TAG_LIST_TENSOR) ||
            is_in_place(method->operators[in->callee].name)) {
          mark(method, rebound, slot);
        }
      }
    }
  }
}

// Whether `value`, an argument of a call, is fixed: not rebound, and its
// tensors and Ints neither.
static bool is_fixed(const etr_method_t *method, const bool *rebound,
                     const etr_evalue_t *value) {
  if (is_rebound(method, rebound, value)) {
    return false;
  }
  switch (value->tag) {
    case ETR_TAG_TENSOR:
      return is_static_tensor(value->u.as_tensor);
    case ETR_TAG_LIST_INT:
      for (size_t k = 0; k < value->u.as_int_list.length; ++k) {
        if (is_rebound(method, rebound, value->u.as_int_list.items[k])) {
          return false;
        }
      }
      return true;
    case ETR_TAG_LIST_TENSOR:
    case ETR_TAG_LIST_OPTIONAL_TENSOR:
      for (size_t k = 0; k < value->u.as_tensor_list.length; ++k) {
        const etr_evalue_t *item = value->u.as_tensor_list.items[k];
        if (item != NULL && !is_fixed(method, rebound, item)) {
          return false;
        }
      }
      return true;
    default:
      return true;
  }
}

// Bit a for each of the first 64 arguments that is a tensor in read-only
// constant memory (its data pointer is fixed with the call's arguments,
// and no kernel writes there: check_call_args refuses such an output).
static uint64_t constant_args(const etr_method_t *method,
                              const etr_instruction_t *in) {
  uint64_t bits = 0;
  for (size_t a = 0; a < in->num_args && a < 64; ++a) {
    uint32_t v = in->arg_indices[a];
    if (v < method->num_values && method->values[v].tag == ETR_TAG_TENSOR &&
        (method->value_info[v].storage == ETR_STORAGE_CONSTANT ||
         method->value_info[v].storage == ETR_STORAGE_EXTERNAL)) {
      bits |= (uint64_t)1 << a;
    }
  }
  return bits;
}

etr_error_t etr_method_mark_fixed_args(etr_method_t *method,
                                       etr_diag_t *diag) {
  if (method->num_values == 0) {
    return ETR_OK;
  }
  bool *rebound = (bool *)etr_method_alloc(method, method->num_values,
                                           sizeof(bool), "value flags", diag);
  if (rebound == NULL) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  mark_rebound(method, rebound);
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      etr_instruction_t *in = &chain->instructions[i];
      if (in->kind != ETR_INSTRUCTION_KERNEL_CALL) {
        continue;
      }
      bool fixed = true;
      for (size_t a = 0; a < in->num_args && fixed; ++a) {
        fixed = is_fixed(method, rebound, in->args[a]);
      }
      in->args_fixed = fixed;
      in->memo = NULL;
      in->constant_args = 0;
      if (fixed) {
        in->memo = etr_method_alloc(method, 1, ETR_KERNEL_MEMO_BYTES,
                                    "kernel memo", diag);
        if (in->memo == NULL) {
          return ETR_ERR_MEMORY_ALLOCATION_FAILED;
        }
        in->constant_args = constant_args(method, in);
      }
    }
  }
  return ETR_OK;
}
