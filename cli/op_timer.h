// SPDX-License-Identifier: Apache-2.0
//
// A minimal per-operator timer for `etref run`: an event tracer that adds
// each instruction's wall time (etr_now_ns) to its operator's total, so a
// run can end with a per-op timing table. prof/ holds the full profiler.
#ifndef ETR_CLI_OP_TIMER_H
#define ETR_CLI_OP_TIMER_H

#include <stdint.h>
#include <stdio.h>

#include "core/event_tracer.h"
#include "core/method.h"

typedef struct etr_op_timer_row {
  const char *name;   // operator name or instruction kind
  uint64_t calls;
  uint64_t total_ns;
  uint64_t min_ns;
  uint64_t max_ns;
} etr_op_timer_row_t;

typedef struct etr_op_timer {
  etr_event_tracer_t tracer;
  const etr_method_t *method;
  etr_op_timer_row_t *rows;  // one per operator, then one per other kind
  uint32_t num_rows;
  uint64_t started_ns;          // current instruction
  uint64_t execute_started_ns;  // current execution
  uint64_t executions;
  uint64_t execute_ns;       // sum of whole executions
} etr_op_timer_t;

// Prepares the timer (allocates its rows; nothing is allocated while the
// method runs). Attach `&timer->tracer` to the method config *before*
// loading, then call etr_op_timer_bind once the method exists.
int etr_op_timer_init(etr_op_timer_t *timer);
void etr_op_timer_bind(etr_op_timer_t *timer, const etr_method_t *method);
void etr_op_timer_release(etr_op_timer_t *timer);

// Forgets what was recorded (after warm-up runs).
void etr_op_timer_reset(etr_op_timer_t *timer);

// Prints the table, slowest operator first.
void etr_op_timer_print(const etr_op_timer_t *timer, FILE *out);

#endif  // ETR_CLI_OP_TIMER_H
