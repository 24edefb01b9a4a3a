// SPDX-License-Identifier: Apache-2.0
//
// Per-operator timing for `etref run` (see op_timer.h).
#include "cli/op_timer.h"

#include <stdlib.h>
#include <string.h>

#include "core/platform.h"

// Rows after the operators: one per non-kernel instruction kind.
enum { KIND_ROWS = 5 };

static etr_op_timer_row_t *row_for(etr_op_timer_t *timer, uint32_t chain,
                                   uint32_t index) {
  const etr_method_t *method = timer->method;
  if (method == NULL || chain >= method->num_chains ||
      index >= method->chains[chain].num_instructions) {
    return NULL;
  }
  const etr_instruction_t *instruction =
      &method->chains[chain].instructions[index];
  if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL) {
    return &timer->rows[instruction->callee];
  }
  return &timer->rows[method->num_operators + (instruction->kind - 1)];
}

static void begin_instruction(void *user, const etr_method_t *method,
                              uint32_t chain, uint32_t instruction) {
  (void)method;
  (void)chain;
  (void)instruction;
  ((etr_op_timer_t *)user)->started_ns = etr_now_ns();
}

static void end_instruction(void *user, const etr_method_t *method,
                            uint32_t chain, uint32_t instruction,
                            etr_error_t status) {
  (void)method;
  (void)status;
  etr_op_timer_t *timer = (etr_op_timer_t *)user;
  uint64_t elapsed = etr_now_ns() - timer->started_ns;
  etr_op_timer_row_t *row = row_for(timer, chain, instruction);
  if (row == NULL) {
    return;
  }
  if (row->calls == 0 || elapsed < row->min_ns) {
    row->min_ns = elapsed;
  }
  if (elapsed > row->max_ns) {
    row->max_ns = elapsed;
  }
  ++row->calls;
  row->total_ns += elapsed;
}

static void begin_execute(void *user, const etr_method_t *method) {
  (void)method;
  ((etr_op_timer_t *)user)->execute_started_ns = etr_now_ns();
}

static void end_execute(void *user, const etr_method_t *method,
                        etr_error_t status) {
  (void)method;
  etr_op_timer_t *timer = (etr_op_timer_t *)user;
  if (status == ETR_OK) {
    ++timer->executions;
    timer->execute_ns += etr_now_ns() - timer->execute_started_ns;
  }
}

int etr_op_timer_init(etr_op_timer_t *timer) {
  memset(timer, 0, sizeof(*timer));
  timer->tracer.user = timer;
  timer->tracer.begin_execute = begin_execute;
  timer->tracer.end_execute = end_execute;
  timer->tracer.begin_instruction = begin_instruction;
  timer->tracer.end_instruction = end_instruction;
  return 0;
}

void etr_op_timer_bind(etr_op_timer_t *timer, const etr_method_t *method) {
  free(timer->rows);
  timer->method = method;
  timer->num_rows = method->num_operators + KIND_ROWS;
  timer->rows = (etr_op_timer_row_t *)calloc(timer->num_rows,
                                              sizeof(etr_op_timer_row_t));
  if (timer->rows == NULL) {
    timer->method = NULL;  // timing silently off: nothing else breaks
    timer->num_rows = 0;
    return;
  }
  for (uint32_t i = 0; i < method->num_operators; ++i) {
    timer->rows[i].name = method->operators[i].name;
  }
  for (uint32_t k = 0; k < KIND_ROWS; ++k) {
    timer->rows[method->num_operators + k].name =
        etr_instruction_kind_name((etr_instruction_kind_t)(k + 1));
  }
}

void etr_op_timer_release(etr_op_timer_t *timer) {
  free(timer->rows);
  memset(timer, 0, sizeof(*timer));
}

void etr_op_timer_reset(etr_op_timer_t *timer) {
  for (uint32_t i = 0; i < timer->num_rows; ++i) {
    timer->rows[i].calls = 0;
    timer->rows[i].total_ns = 0;
    timer->rows[i].min_ns = 0;
    timer->rows[i].max_ns = 0;
  }
  timer->executions = 0;
  timer->execute_ns = 0;
}

static int by_total_descending(const void *a, const void *b) {
  const etr_op_timer_row_t *x = (const etr_op_timer_row_t *)a;
  const etr_op_timer_row_t *y = (const etr_op_timer_row_t *)b;
  return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

void etr_op_timer_print(const etr_op_timer_t *timer, FILE *out) {
  if (timer->rows == NULL || timer->executions == 0) {
    fprintf(out, "no timing recorded\n");
    return;
  }
  etr_op_timer_row_t *sorted = (etr_op_timer_row_t *)malloc(
      timer->num_rows * sizeof(etr_op_timer_row_t));
  if (sorted == NULL) {
    return;
  }
  memcpy(sorted, timer->rows, timer->num_rows * sizeof(etr_op_timer_row_t));
  qsort(sorted, timer->num_rows, sizeof(etr_op_timer_row_t),
        by_total_descending);
  uint64_t all = 0;
  for (uint32_t i = 0; i < timer->num_rows; ++i) {
    all += sorted[i].total_ns;
  }
  double runs = (double)timer->executions;
  fprintf(out, "%-46s %9s %12s %11s %11s %11s %7s\n", "operator",
          "calls/run", "us/run", "mean us", "min us", "max us", "%");
  for (uint32_t i = 0; i < timer->num_rows; ++i) {
    const etr_op_timer_row_t *row = &sorted[i];
    if (row->calls == 0) {
      continue;
    }
    fprintf(out, "%-46s %9.0f %12.2f %11.2f %11.2f %11.2f %6.1f%%\n",
            row->name, (double)row->calls / runs,
            (double)row->total_ns / runs / 1e3,
            (double)row->total_ns / (double)row->calls / 1e3,
            (double)row->min_ns / 1e3, (double)row->max_ns / 1e3,
            all ? 100.0 * (double)row->total_ns / (double)all : 0.0);
  }
  fprintf(out, "%-46s %9s %12.2f   (%llu runs; whole execute %.2f us/run)\n",
          "total", "", (double)all / runs / 1e3,
          (unsigned long long)timer->executions,
          (double)timer->execute_ns / runs / 1e3);
  free(sorted);
}
