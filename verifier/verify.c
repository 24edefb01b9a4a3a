// SPDX-License-Identifier: Apache-2.0
//
// The verifier (see verify.h).
#include "verifier/verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/method.h"
#include "planner/lifetime.h"

typedef struct {
  etr_verify_report_t *report;
  const char *method;
} context_t;

static etr_diagnostic_t *add(context_t *c, etr_severity_t severity,
                             etr_error_t code) {
  etr_verify_report_t *report = c->report;
  if (severity == ETR_SEVERITY_ERROR) {
    ++report->errors;
  } else {
    ++report->warnings;
  }
  if (report->count == ETR_VERIFY_MAX_DIAGNOSTICS) {
    return NULL;
  }
  etr_diagnostic_t *d = &report->items[report->count++];
  memset(d, 0, sizeof(*d));
  d->severity = severity;
  d->code = code;
  d->chain = -1;
  d->instruction = -1;
  snprintf(d->method, sizeof(d->method), "%s", c->method);
  return d;
}

static void set_message(etr_diagnostic_t *d, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void set_message(etr_diagnostic_t *d, const char *format, ...) {
  if (d == NULL) {
    return;
  }
  va_list args;
  va_start(args, format);
  vsnprintf(d->message, sizeof(d->message), format, args);
  va_end(args);
}

static void set_instruction(etr_diagnostic_t *d, const etr_method_t *method,
                            uint32_t chain, uint32_t index) {
  if (d == NULL) {
    return;
  }
  const etr_instruction_t *instruction =
      &method->chains[chain].instructions[index];
  d->chain = (int32_t)chain;
  d->instruction = (int32_t)index;
  if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL) {
    snprintf(d->op, sizeof(d->op), "%s",
             method->operators[instruction->callee].name);
  } else if (instruction->kind == ETR_INSTRUCTION_DELEGATE_CALL) {
    const char *id = method->delegates[instruction->callee].backend_id;
    snprintf(d->op, sizeof(d->op), "DelegateCall %s", id ? id : "?");
  } else {
    snprintf(d->op, sizeof(d->op), "%s",
             etr_instruction_kind_name(instruction->kind));
  }
}

// "v3, v7, v9" for an instruction's arguments.
static void describe_args(const etr_instruction_t *instruction, char *buffer,
                          size_t capacity) {
  size_t used = 0;
  buffer[0] = '\0';
  for (size_t a = 0; a < instruction->num_args && used < capacity; ++a) {
    int written = snprintf(buffer + used, capacity - used, "%sv%u",
                           a ? ", " : "", instruction->arg_indices[a]);
    used += written > 0 ? (size_t)written : 0;
  }
}

static void on_dry_run_failure(void *user, const etr_method_t *method,
                               uint32_t chain, uint32_t index,
                               etr_error_t status, const etr_diag_t *diag) {
  context_t *c = (context_t *)user;
  etr_diagnostic_t *d = add(c, ETR_SEVERITY_ERROR, status);
  set_instruction(d, method, chain, index);
  char args[160];
  describe_args(&method->chains[chain].instructions[index], args,
                sizeof(args));
  set_message(d, "%s (arguments %s)", diag->message, args);
}

// Operators without a kernel, delegates without a backend, and MoveCalls
// that change a value's type.
static void check_bindings(context_t *c, const etr_method_t *method) {
  for (uint32_t ch = 0; ch < method->num_chains; ++ch) {
    const etr_chain_t *chain = &method->chains[ch];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *instruction = &chain->instructions[i];
      if (instruction->kind == ETR_INSTRUCTION_MOVE_CALL) {
        etr_tag_t from = method->values[instruction->operands[0]].tag;
        etr_tag_t to = method->values[instruction->operands[1]].tag;
        if (from != to && to != ETR_TAG_NONE) {
          etr_diagnostic_t *d =
              add(c, ETR_SEVERITY_ERROR, ETR_ERR_INVALID_PROGRAM);
          set_instruction(d, method, ch, i);
          set_message(d, "MoveCall puts a %s (v%u) into a %s value (v%u)",
                      etr_tag_name(from), instruction->operands[0],
                      etr_tag_name(to), instruction->operands[1]);
        }
      }
      if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL &&
          instruction->kernel == NULL) {
        etr_diagnostic_t *d = add(c, ETR_SEVERITY_ERROR,
                                  ETR_ERR_OPERATOR_MISSING);
        set_instruction(d, method, ch, i);
        set_message(d, "no kernel is registered for '%s'",
                    method->operators[instruction->callee].name);
      }
    }
  }
  for (uint32_t k = 0; k < method->num_delegates; ++k) {
    if (!method->delegates[k].initialized) {
      etr_diagnostic_t *d = add(c, ETR_SEVERITY_ERROR, ETR_ERR_NOT_FOUND);
      set_message(d, "delegate %u: backend '%s' is not registered", k,
                  method->delegates[k].backend_id != NULL
                      ? method->delegates[k].backend_id
                      : "?");
    }
  }
}

// Chain and index of a position (positions count instructions over chains).
static void position_to_instruction(const etr_method_t *method,
                                    uint32_t position, uint32_t *chain,
                                    uint32_t *index) {
  for (uint32_t ch = 0; ch < method->num_chains; ++ch) {
    if (position < method->chains[ch].num_instructions) {
      *chain = ch;
      *index = position;
      return;
    }
    position -= method->chains[ch].num_instructions;
  }
  *chain = UINT32_MAX;  // the end of the method
  *index = 0;
}

static uint32_t first_common_position(const etr_lifetimes_t *lifetimes,
                                      uint32_t a, uint32_t b) {
  const etr_alloc_unit_t *x = &lifetimes->units[a];
  const etr_alloc_unit_t *y = &lifetimes->units[b];
  uint32_t from = x->start > y->start ? x->start : y->start;
  uint32_t to = x->end < y->end ? x->end : y->end;
  for (uint32_t p = from; p <= to; ++p) {
    if (etr_unit_occupies(lifetimes, a, p) &&
        etr_unit_occupies(lifetimes, b, p)) {
      return p;
    }
  }
  return from;
}

typedef struct {
  uint32_t memory_id;
  uint64_t begin;
  uint64_t end;
  uint32_t unit;
} range_t;

static int by_placement(const void *x, const void *y) {
  const range_t *a = (const range_t *)x;
  const range_t *b = (const range_t *)y;
  if (a->memory_id != b->memory_id) {
    return a->memory_id < b->memory_id ? -1 : 1;
  }
  if (a->begin != b->begin) {
    return a->begin < b->begin ? -1 : 1;
  }
  return a->unit < b->unit ? -1 : a->unit > b->unit;
}

static void describe_position(const etr_method_t *method, uint32_t position,
                              char *buffer, size_t capacity) {
  uint32_t chain = 0;
  uint32_t index = 0;
  position_to_instruction(method, position, &chain, &index);
  if (chain == UINT32_MAX) {
    snprintf(buffer, capacity, "the end of the method (outputs)");
    return;
  }
  const etr_instruction_t *instruction =
      &method->chains[chain].instructions[index];
  snprintf(buffer, capacity, "chain %u instruction %u (%s)", chain, index,
           instruction->kind == ETR_INSTRUCTION_KERNEL_CALL
               ? method->operators[instruction->callee].name
               : etr_instruction_kind_name(instruction->kind));
}

// Every pair of planned units that share bytes while both are live.
static etr_error_t check_memory(context_t *c, const etr_method_t *method) {
  etr_lifetimes_t lifetimes;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_lifetimes_compute(method, NULL, &lifetimes, &diag);
  if (status != ETR_OK) {
    etr_diagnostic_t *d = add(c, ETR_SEVERITY_ERROR, status);
    set_message(d, "lifetime analysis failed: %s", diag.message);
    return status;
  }
  if (lifetimes.occupancy == NULL) {
    etr_diagnostic_t *d = add(c, ETR_SEVERITY_WARNING, ETR_OK);
    set_message(d,
                "the program is too large for exact liveness; memory was "
                "checked with conservative intervals");
  }
  range_t *ranges = (range_t *)malloc(((size_t)lifetimes.num_units + 1) *
                                      sizeof(range_t));
  if (ranges == NULL) {
    etr_lifetimes_release(&lifetimes);
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  size_t count = 0;
  for (uint32_t u = 0; u < lifetimes.num_units; ++u) {
    const etr_alloc_unit_t *unit = &lifetimes.units[u];
    if (unit->program_offset % 16 != 0) {
      etr_diagnostic_t *d = add(c, ETR_SEVERITY_WARNING, ETR_OK);
      set_message(d,
                  "value %u at offset %llu of planned buffer %u is not "
                  "16-byte aligned as ExecuTorch plans tensors",
                  unit->first_value,
                  (unsigned long long)unit->program_offset, unit->memory_id);
    }
    if (unit->size > 0) {
      ranges[count++] = (range_t){unit->memory_id, unit->program_offset,
                                  unit->program_offset + unit->size, u};
    }
  }
  qsort(ranges, count, sizeof(range_t), by_placement);
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = i + 1; j < count && ranges[j].memory_id ==
                                            ranges[i].memory_id &&
                           ranges[j].begin < ranges[i].end;
         ++j) {
      uint32_t a = ranges[i].unit;
      uint32_t b = ranges[j].unit;
      if (!etr_units_conflict(&lifetimes, a, b)) {
        continue;
      }
      uint32_t position = first_common_position(&lifetimes, a, b);
      char where[160];
      describe_position(method, position, where, sizeof(where));
      etr_diagnostic_t *d = add(c, ETR_SEVERITY_ERROR,
                                ETR_ERR_INVALID_PROGRAM);
      uint32_t chain = 0;
      uint32_t index = 0;
      position_to_instruction(method, position, &chain, &index);
      if (d != NULL && chain != UINT32_MAX) {
        set_instruction(d, method, chain, index);
      }
      set_message(d,
                  "planned tensors v%u (bytes %llu..%llu) and v%u (bytes "
                  "%llu..%llu) of buffer %u are both live at %s: writing one "
                  "corrupts the other",
                  lifetimes.units[a].first_value,
                  (unsigned long long)ranges[i].begin,
                  (unsigned long long)ranges[i].end - 1,
                  lifetimes.units[b].first_value,
                  (unsigned long long)ranges[j].begin,
                  (unsigned long long)ranges[j].end - 1, ranges[i].memory_id,
                  where);
    }
  }
  free(ranges);
  etr_lifetimes_release(&lifetimes);
  return ETR_OK;
}

static etr_error_t verify_method(context_t *c, const etr_program_t *program,
                                 const etr_verify_config_t *config,
                                 const char *name) {
  etr_method_config_t method_config;
  etr_method_config_init(&method_config, config->kernels);
  method_config.backends = config->backends;
  method_config.external_data = config->external_data;
  method_config.allow_missing = true;
  etr_method_t method;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status =
      etr_method_load(program, name, &method_config, &method, &diag);
  if (status != ETR_OK) {
    etr_diagnostic_t *d = add(c, ETR_SEVERITY_ERROR, status);
    set_message(d, "%s", diag.message);
    return status == ETR_ERR_MEMORY_ALLOCATION_FAILED ? status : ETR_OK;
  }
  check_bindings(c, &method);
  status = check_memory(c, &method);
  if (status == ETR_OK) {
    etr_method_dry_run(&method, on_dry_run_failure, c);
  }
  etr_method_release(&method);
  return status == ETR_ERR_MEMORY_ALLOCATION_FAILED ? status : ETR_OK;
}

etr_error_t etr_verify_program(const etr_program_t *program,
                               const etr_verify_config_t *config,
                               etr_verify_report_t *report) {
  memset(report, 0, sizeof(*report));
  context_t c = {report, ""};
  uint32_t methods = etr_program_method_count(program);
  if (methods == 0) {
    etr_diagnostic_t *d = add(&c, ETR_SEVERITY_ERROR, ETR_ERR_INVALID_PROGRAM);
    set_message(d, "the program has no methods");
  }
  bool found = config->method == NULL;
  for (uint32_t m = 0; m < methods; ++m) {
    etr_fb_string_t name;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    if (etr_program_method_name(program, m, &name, &diag) != ETR_OK) {
      etr_diagnostic_t *d = add(&c, ETR_SEVERITY_ERROR, diag.code);
      set_message(d, "method %u: %s", m, diag.message);
      continue;
    }
    if (config->method != NULL && strcmp(config->method, name.chars) != 0) {
      continue;
    }
    found = true;
    c.method = name.chars;
    ++report->methods;
    etr_error_t status = verify_method(&c, program, config, name.chars);
    if (status != ETR_OK) {
      return status;
    }
  }
  if (!found) {
    c.method = config->method;
    etr_diagnostic_t *d = add(&c, ETR_SEVERITY_ERROR, ETR_ERR_NOT_FOUND);
    set_message(d, "the program has no method '%s'", config->method);
  }
  return report->errors == 0 ? ETR_OK : ETR_ERR_INVALID_PROGRAM;
}

void etr_diagnostic_format(const etr_diagnostic_t *d, char *buffer,
                           size_t capacity) {
  const char *severity = d->severity == ETR_SEVERITY_ERROR ? "error"
                                                           : "warning";
  if (d->instruction >= 0) {
    snprintf(buffer, capacity,
             "%s: method '%s' chain %d instruction %d (%s): %s [%s]",
             severity, d->method, (int)d->chain, (int)d->instruction, d->op,
             d->message, etr_error_name(d->code));
  } else {
    snprintf(buffer, capacity, "%s: method '%s': %s [%s]", severity,
             d->method, d->message, etr_error_name(d->code));
  }
}
