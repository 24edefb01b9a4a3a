// SPDX-License-Identifier: Apache-2.0
//
// The oracle's capturing tracer (see capture.h).
#include "prof/oracle/capture.h"

#include <stdlib.h>
#include <string.h>

static void fail(etr_oracle_capture_t *capture, etr_error_t status) {
  if (capture->status == ETR_OK) {
    capture->status = status;
  }
}

static void begin_execute(void *user, const etr_method_t *method) {
  etr_oracle_capture_t *capture = (etr_oracle_capture_t *)user;
  if (capture->method != method || capture->occurrences == NULL) {
    return;
  }
  uint32_t total = capture->chain_offsets[method->num_chains];
  memset(capture->occurrences, 0, total * sizeof(uint32_t));
}

static void begin_instruction(void *user, const etr_method_t *method,
                              uint32_t chain, uint32_t instruction) {
  etr_oracle_capture_t *capture = (etr_oracle_capture_t *)user;
  if (capture->method != method || capture->occurrences == NULL) {
    return;
  }
  capture->chain = chain;
  capture->instruction = instruction;
  capture->occurrence =
      capture->occurrences[capture->chain_offsets[chain] + instruction];
  capture->num_groups = 0;
}

static void add_value(etr_oracle_capture_t *capture,
                      const etr_oracle_key_t *key, uint32_t value_index,
                      const char *label, uint32_t *added) {
  const etr_method_t *method = capture->method;
  *added = 0;
  if (value_index >= method->num_values || capture->status != ETR_OK) {
    return;
  }
  etr_error_t status = etr_oracle_values_add_evalue(
      capture->values, key, &method->values[value_index], label, value_index,
      added, &capture->diag);
  if (status != ETR_OK) {
    fail(capture, status);
  }
}

static const char *instruction_label(const etr_method_t *method,
                                     const etr_instruction_t *instruction) {
  if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL &&
      instruction->callee < method->num_operators) {
    return method->operators[instruction->callee].name;
  }
  if (instruction->kind == ETR_INSTRUCTION_DELEGATE_CALL &&
      instruction->callee < method->num_delegates) {
    return method->delegates[instruction->callee].backend_id;
  }
  return etr_instruction_kind_name(instruction->kind);
}

static void end_instruction(void *user, const etr_method_t *method,
                            uint32_t chain, uint32_t instruction,
                            etr_error_t status) {
  etr_oracle_capture_t *capture = (etr_oracle_capture_t *)user;
  if (capture->method != method || capture->occurrences == NULL ||
      chain >= method->num_chains ||
      instruction >= method->chains[chain].num_instructions) {
    return;
  }
  uint32_t *counter =
      &capture->occurrences[capture->chain_offsets[chain] + instruction];
  const etr_instruction_t *current =
      &method->chains[chain].instructions[instruction];
  if (status == ETR_OK && capture->intermediates && current->num_args > 0) {
    etr_oracle_key_t key = {
        .origin = ETR_ORACLE_FROM_INSTRUCTION,
        .chain = chain,
        .instruction = instruction,
        .occurrence = *counter,
        .debug_id = -1,
    };
    const char *label = instruction_label(method, current);
    uint32_t added = 0;
    if (current->kind == ETR_INSTRUCTION_KERNEL_CALL) {
      add_value(capture, &key, current->arg_indices[current->num_args - 1],
                label, &added);
    } else if (current->kind == ETR_INSTRUCTION_DELEGATE_CALL) {
      for (size_t a = 0; a < current->num_args; ++a) {
        add_value(capture, &key, current->arg_indices[a], label, &added);
        // A value that adds nothing (None, a list of ints) still takes
        // its place, as one ETDump debug event per argument would.
        key.position += added > 0 ? added : 1;
      }
    }
  }
  ++*counter;
}

static void delegate_intermediate(void *user, const etr_method_t *method,
                                  uint32_t delegate_index, const char *name,
                                  int64_t debug_id,
                                  const etr_evalue_t *value) {
  (void)delegate_index;
  etr_oracle_capture_t *capture = (etr_oracle_capture_t *)user;
  if (capture->method != method || !capture->intermediates ||
      capture->status != ETR_OK || value == NULL) {
    return;
  }
  // An id identifies the value when there is one; a name otherwise (as
  // ExecuTorch's delegate_debug_id_int / _str: one of the two).
  const char *key_name = debug_id >= 0 ? NULL : name;
  uint32_t g = 0;
  while (g < capture->num_groups &&
         !(capture->groups[g].debug_id == debug_id &&
           ((key_name == NULL && capture->groups[g].debug_name == NULL) ||
            (key_name != NULL && capture->groups[g].debug_name != NULL &&
             strcmp(key_name, capture->groups[g].debug_name) == 0)))) {
    ++g;
  }
  if (g == capture->num_groups) {
    if (g == ETR_ORACLE_MAX_DEBUG_GROUPS) {
      return;  // positions past the table are not tracked
    }
    capture->groups[g].debug_id = debug_id;
    capture->groups[g].debug_name = key_name;
    capture->groups[g].count = 0;
    ++capture->num_groups;
  }
  etr_oracle_key_t key = {
      .origin = ETR_ORACLE_FROM_DELEGATE,
      .chain = capture->chain,
      .instruction = capture->instruction,
      .occurrence = capture->occurrence,
      .position = capture->groups[g].count,
      .debug_id = debug_id,
      .debug_name = key_name,
  };
  uint32_t before = capture->values->count;
  uint32_t added = 0;
  etr_error_t status = etr_oracle_values_add_evalue(
      capture->values, &key, value, name, UINT32_MAX, &added, &capture->diag);
  if (status != ETR_OK) {
    fail(capture, status);
    return;
  }
  // The group's name pointer must outlive the caller's string.
  if (key_name != NULL && capture->values->count > before) {
    capture->groups[g].debug_name =
        capture->values->records[before].key.debug_name;
  }
  capture->groups[g].count += added > 0 ? added : 1;
}

static void end_execute(void *user, const etr_method_t *method,
                        etr_error_t status) {
  etr_oracle_capture_t *capture = (etr_oracle_capture_t *)user;
  if (capture->method != method) {
    return;
  }
  if (status != ETR_OK) {
    capture->values->failed = true;
    return;
  }
  etr_oracle_key_t key = {.origin = ETR_ORACLE_FROM_OUTPUT, .debug_id = -1};
  for (uint32_t k = 0; k < method->num_outputs; ++k) {
    uint32_t added = 0;
    add_value(capture, &key, method->outputs[k], NULL, &added);
    key.position += added > 0 ? added : 1;
  }
}

void etr_oracle_capture_init(etr_oracle_capture_t *capture,
                             etr_oracle_values_t *values,
                             bool intermediates) {
  memset(capture, 0, sizeof(*capture));
  capture->values = values;
  capture->intermediates = intermediates;
  capture->tracer.user = capture;
  capture->tracer.begin_execute = begin_execute;
  capture->tracer.end_execute = end_execute;
  capture->tracer.begin_instruction = begin_instruction;
  capture->tracer.end_instruction = end_instruction;
  capture->tracer.delegate_intermediate = delegate_intermediate;
  etr_diag_reset(&capture->diag);
}

etr_error_t etr_oracle_capture_bind(etr_oracle_capture_t *capture,
                                    const etr_method_t *method,
                                    etr_diag_t *diag) {
  free(capture->occurrences);
  free(capture->chain_offsets);
  capture->occurrences = NULL;
  capture->chain_offsets =
      (uint32_t *)calloc(method->num_chains + 1, sizeof(uint32_t));
  ETR_CHECK(diag, capture->chain_offsets != NULL,
            ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for the oracle's capture");
  uint64_t total = 0;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    capture->chain_offsets[c] = (uint32_t)total;
    total += method->chains[c].num_instructions;
  }
  ETR_CHECK(diag, total < UINT32_MAX, ETR_ERR_INVALID_ARGUMENT,
            "too many instructions");
  capture->chain_offsets[method->num_chains] = (uint32_t)total;
  capture->occurrences = (uint32_t *)calloc(total + 1, sizeof(uint32_t));
  ETR_CHECK(diag, capture->occurrences != NULL,
            ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for the oracle's capture");
  capture->method = method;
  capture->status = ETR_OK;
  etr_diag_reset(&capture->diag);
  return ETR_OK;
}

void etr_oracle_capture_release(etr_oracle_capture_t *capture) {
  free(capture->occurrences);
  free(capture->chain_offsets);
  capture->occurrences = NULL;
  capture->chain_offsets = NULL;
  capture->method = NULL;
}

etr_error_t etr_oracle_capture_status(const etr_oracle_capture_t *capture,
                                      etr_diag_t *diag) {
  if (capture->status != ETR_OK && diag != NULL) {
    *diag = capture->diag;
  }
  return capture->status;
}
