// SPDX-License-Identifier: Apache-2.0
//
// Re-running one KernelCall on substituted inputs (see rerun.h).
#include "prof/oracle/rerun.h"

#include <stdlib.h>
#include <string.h>

static uint32_t value_index_of(const etr_method_t *method,
                               const etr_evalue_t *value) {
  if (value == NULL || value < method->values ||
      value >= method->values + method->num_values) {
    return UINT32_MAX;
  }
  return (uint32_t)(value - method->values);
}

uint32_t etr_oracle_output_values(const etr_method_t *method,
                                  const etr_instruction_t *instruction,
                                  uint32_t *values, uint32_t capacity) {
  if (instruction->kind != ETR_INSTRUCTION_KERNEL_CALL ||
      instruction->num_args == 0 || capacity == 0) {
    return 0;
  }
  uint32_t slot = instruction->arg_indices[instruction->num_args - 1];
  const etr_evalue_t *result = instruction->args[instruction->num_args - 1];
  switch (result->tag) {
    case ETR_TAG_TENSOR:
    case ETR_TAG_INT:
    case ETR_TAG_DOUBLE:
    case ETR_TAG_BOOL:
      values[0] = slot;
      return 1;
    case ETR_TAG_LIST_TENSOR:
    case ETR_TAG_LIST_OPTIONAL_TENSOR: {
      uint32_t count = 0;
      size_t length = result->u.as_tensor_list.length;
      for (size_t k = 0; k < length && count < capacity; ++k) {
        values[count++] =
            value_index_of(method, result->u.as_tensor_list.items[k]);
      }
      return count;
    }
    default:
      return 0;
  }
}

static bool grow(void **array, uint32_t *capacity, uint32_t needed,
                 size_t element) {
  if (needed <= *capacity) {
    return true;
  }
  uint32_t next = *capacity ? *capacity : 16;
  while (next < needed) {
    next *= 2;
  }
  void *grown = realloc(*array, next * element);
  if (grown == NULL) {
    return false;
  }
  *array = grown;
  *capacity = next;
  return true;
}

// Scratch slots are allocated up front for the whole call (pointers into
// them are handed to the kernel, so the arrays must not move).
static bool reserve(etr_oracle_rerun_t *r, uint32_t evalues, uint32_t tensors,
                    uint32_t items, uint32_t buffers) {
  return grow((void **)&r->evalues, &r->cap_evalues, evalues,
              sizeof(etr_evalue_t)) &&
         grow((void **)&r->tensors, &r->cap_tensors, tensors,
              sizeof(etr_tensor_t)) &&
         grow((void **)&r->items, &r->cap_items, items,
              sizeof(etr_evalue_t *)) &&
         grow((void **)&r->buffers, &r->cap_buffers, buffers, sizeof(void *));
}

// A scratch output: the tensor's shape and layout over a copy of its bytes.
static etr_evalue_t *scratch_output(etr_oracle_rerun_t *r,
                                    const etr_evalue_t *live) {
  etr_evalue_t *copy = &r->evalues[r->num_evalues++];
  *copy = *live;
  if (live->tag != ETR_TAG_TENSOR || live->u.as_tensor == NULL) {
    return copy;
  }
  const etr_tensor_t *tensor = live->u.as_tensor;
  etr_tensor_t *scratch = &r->tensors[r->num_tensors++];
  *scratch = *tensor;
  size_t nbytes = etr_tensor_nbytes(tensor);
  size_t capacity =
      tensor->capacity_bytes > nbytes ? tensor->capacity_bytes : nbytes;
  void *buffer = malloc(capacity > 0 ? capacity : 1);
  if (buffer == NULL) {
    return NULL;
  }
  r->buffers[r->num_buffers++] = buffer;
  if (tensor->data != NULL && capacity > 0) {
    memcpy(buffer, tensor->data, capacity);
  } else {
    memset(buffer, 0, capacity > 0 ? capacity : 1);
  }
  scratch->data = buffer;
  scratch->capacity_bytes = capacity;
  copy->u.as_tensor = scratch;
  return copy;
}

// An input, replaced when the substitute function says so.
static etr_evalue_t *input_tensor(etr_oracle_rerun_t *r,
                                  const etr_method_t *method,
                                  etr_evalue_t *live,
                                  etr_oracle_substitute_fn substitute,
                                  void *user) {
  if (live == NULL || live->tag != ETR_TAG_TENSOR ||
      live->u.as_tensor == NULL) {
    return live;
  }
  etr_tensor_t *replacement = &r->tensors[r->num_tensors];
  void *buffer = NULL;
  if (!substitute(user, value_index_of(method, live), live->u.as_tensor,
                  replacement, &buffer)) {
    return live;
  }
  ++r->num_tensors;
  if (buffer != NULL) {
    r->buffers[r->num_buffers++] = buffer;
  }
  ++r->substituted;
  etr_evalue_t *copy = &r->evalues[r->num_evalues++];
  copy->tag = ETR_TAG_TENSOR;
  copy->u.as_tensor = replacement;
  return copy;
}

etr_error_t etr_oracle_rerun(const etr_method_t *method,
                             const etr_instruction_t *instruction,
                             etr_oracle_substitute_fn substitute, void *user,
                             etr_arena_t *temp, etr_oracle_rerun_t *r,
                             etr_diag_t *diag) {
  memset(r, 0, sizeof(*r));
  ETR_CHECK(diag,
            instruction->kind == ETR_INSTRUCTION_KERNEL_CALL &&
                instruction->kernel != NULL && instruction->num_args > 0,
            ETR_ERR_INVALID_ARGUMENT, "only a bound KernelCall re-runs");
  size_t num_args = instruction->num_args;
  // Upper bounds: every argument and list element may need a scratch
  // evalue, tensor and buffer.
  uint64_t elements = num_args;
  for (size_t a = 0; a < num_args; ++a) {
    const etr_evalue_t *value = instruction->args[a];
    if (value->tag == ETR_TAG_LIST_TENSOR ||
        value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
      elements += value->u.as_tensor_list.length;
    }
  }
  ETR_CHECK(diag, elements < (1u << 24), ETR_ERR_INVALID_ARGUMENT,
            "too many arguments to re-run");
  r->args = (etr_evalue_t **)calloc(num_args, sizeof(etr_evalue_t *));
  ETR_CHECK(diag,
            r->args != NULL &&
                reserve(r, (uint32_t)elements * 2 + 2,
                        (uint32_t)elements * 2 + 2, (uint32_t)elements + 1,
                        (uint32_t)elements * 2 + 2),
            ETR_ERR_MEMORY_ALLOCATION_FAILED, "out of memory re-running");
  // Every output must get a scratch copy, or the kernel would write into
  // the live method: results beyond the table are not re-run.
  const etr_evalue_t *slot_value = instruction->args[num_args - 1];
  ETR_CHECK(diag,
            !((slot_value->tag == ETR_TAG_LIST_TENSOR ||
               slot_value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) &&
              slot_value->u.as_tensor_list.length > ETR_ORACLE_MAX_POSITIONS),
            ETR_ERR_NOT_SUPPORTED,
            "a result of %zu tensors is too many to re-run (at most %d)",
            slot_value->u.as_tensor_list.length, ETR_ORACLE_MAX_POSITIONS);
  uint32_t outputs[ETR_ORACLE_MAX_POSITIONS];
  uint32_t num_outputs = etr_oracle_output_values(
      method, instruction, outputs, ETR_ORACLE_MAX_POSITIONS);
  uint32_t slot = instruction->arg_indices[num_args - 1];
  etr_evalue_t *result = instruction->args[num_args - 1];

  // The return slot (and its list elements) in scratch, shared by every
  // argument that names them.
  etr_evalue_t *slot_copy = NULL;
  etr_evalue_t *element_copies[ETR_ORACLE_MAX_POSITIONS] = {0};
  if (result->tag == ETR_TAG_LIST_TENSOR ||
      result->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
    size_t length = result->u.as_tensor_list.length;
    slot_copy = &r->evalues[r->num_evalues++];
    *slot_copy = *result;
    etr_evalue_t **items = &r->items[r->num_items];
    r->num_items += (uint32_t)length;
    for (size_t k = 0; k < length; ++k) {
      etr_evalue_t *item = result->u.as_tensor_list.items[k];
      items[k] = item != NULL ? scratch_output(r, item) : NULL;
      if (item != NULL && items[k] == NULL) {
        return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                        "out of memory re-running");
      }
      if (k < ETR_ORACLE_MAX_POSITIONS) {
        element_copies[k] = items[k];
      }
    }
    slot_copy->u.as_tensor_list.items = items;
  } else {
    slot_copy = scratch_output(r, result);
    ETR_CHECK(diag, slot_copy != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
              "out of memory re-running");
  }

  for (size_t a = 0; a < num_args; ++a) {
    uint32_t index = instruction->arg_indices[a];
    etr_evalue_t *value = instruction->args[a];
    if (index == slot) {
      r->args[a] = slot_copy;
      continue;
    }
    int element = -1;
    for (uint32_t p = 0; p < num_outputs && slot_copy != NULL; ++p) {
      if (outputs[p] == index && result->tag != ETR_TAG_TENSOR) {
        element = (int)p;
      }
    }
    if (element >= 0 && element_copies[element] != NULL) {
      r->args[a] = element_copies[element];
      continue;
    }
    if (value->tag == ETR_TAG_LIST_TENSOR ||
        value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
      size_t length = value->u.as_tensor_list.length;
      etr_evalue_t **items = &r->items[r->num_items];
      bool replaced = false;
      for (size_t k = 0; k < length; ++k) {
        etr_evalue_t *item = value->u.as_tensor_list.items[k];
        // An out list passed as an argument besides the return slot: its
        // elements are the scratch outputs, never the live tensors.
        uint32_t item_index = value_index_of(method, item);
        etr_evalue_t *output = NULL;
        for (uint32_t p = 0; p < num_outputs && p < ETR_ORACLE_MAX_POSITIONS;
             ++p) {
          if (item != NULL && outputs[p] == item_index &&
              result->tag != ETR_TAG_TENSOR) {
            output = element_copies[p];
          }
        }
        items[k] = output != NULL
                       ? output
                       : input_tensor(r, method, item, substitute, user);
        replaced = replaced || items[k] != item;
      }
      if (replaced) {
        r->num_items += (uint32_t)length;
        etr_evalue_t *copy = &r->evalues[r->num_evalues++];
        *copy = *value;
        copy->u.as_tensor_list.items = items;
        r->args[a] = copy;
      } else {
        r->args[a] = value;
      }
      continue;
    }
    r->args[a] = input_tensor(r, method, value, substitute, user);
  }

  // Results by position.
  if (slot_copy->tag == ETR_TAG_TENSOR) {
    r->results[0] = slot_copy->u.as_tensor;
    r->num_results = 1;
  } else if (slot_copy->tag == ETR_TAG_LIST_TENSOR ||
             slot_copy->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
    size_t length = slot_copy->u.as_tensor_list.length;
    for (size_t k = 0; k < length && k < ETR_ORACLE_MAX_POSITIONS; ++k) {
      etr_evalue_t *item = slot_copy->u.as_tensor_list.items[k];
      r->results[k] = item != NULL ? item->u.as_tensor : NULL;
    }
    r->num_results = (uint32_t)(length < ETR_ORACLE_MAX_POSITIONS
                                    ? length
                                    : ETR_ORACLE_MAX_POSITIONS);
  } else {
    r->num_results = 1;  // a scalar: no tensor to compare locally
  }

  uint64_t rng = method->rng_state;
  etr_arena_reset(temp);
  etr_kernel_context_t context = {
      .diag = diag,
      .temp = temp,
      .op_name = method->operators[instruction->callee].name,
      .rng_state = &rng,
  };
  etr_error_t status = instruction->kernel(&context, r->args, num_args);
  if (status != ETR_OK && (diag == NULL || diag->code == ETR_OK)) {
    ETR_FAIL(diag, status, "kernel failed");
  }
  return status;
}

void etr_oracle_rerun_release(etr_oracle_rerun_t *r) {
  for (uint32_t i = 0; i < r->num_buffers; ++i) {
    free(r->buffers[i]);
  }
  free(r->buffers);
  free(r->args);
  free(r->evalues);
  free(r->tensors);
  free(r->items);
  memset(r, 0, sizeof(*r));
}
