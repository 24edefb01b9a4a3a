// SPDX-License-Identifier: Apache-2.0
//
// Statistics over recorded runs (see stats.h).
#include "prof/stats.h"

#include <stdlib.h>
#include <string.h>

#include "prof/etdump.h"

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a;
  double y = *(const double *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

double etr_prof_percentile(const double *sorted, uint32_t count,
                           double percent) {
  if (count == 0) {
    return 0;
  }
  double rank = percent / 100.0 * (double)(count - 1);
  uint32_t below = (uint32_t)rank;
  if (below + 1 >= count) {
    return sorted[count - 1];
  }
  double fraction = rank - (double)below;
  return sorted[below] + (sorted[below + 1] - sorted[below]) * fraction;
}

void etr_prof_summarize(double *values, uint32_t count,
                        etr_prof_samples_t *samples) {
  memset(samples, 0, sizeof(*samples));
  samples->count = count;
  if (count == 0) {
    return;
  }
  qsort(values, count, sizeof(double), compare_doubles);
  for (uint32_t i = 0; i < count; ++i) {
    samples->total += values[i];
  }
  samples->min = values[0];
  samples->max = values[count - 1];
  samples->p10 = etr_prof_percentile(values, count, 10);
  samples->p50 = etr_prof_percentile(values, count, 50);
  samples->p90 = etr_prof_percentile(values, count, 90);
  samples->mean = samples->total / count;
}

// Instruction positions over all chains: first[c] + index.
static uint32_t *chain_offsets(const etr_method_t *method,
                               uint32_t *positions) {
  uint32_t *first = (uint32_t *)calloc(method->num_chains + 1,
                                       sizeof(uint32_t));
  if (first == NULL) {
    return NULL;
  }
  uint32_t total = 0;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    first[c] = total;
    total += method->chains[c].num_instructions;
  }
  *positions = total;
  return first;
}

static const char *kernel_label(const etr_method_t *method,
                                const etr_instruction_t *instruction) {
  if (instruction->kind == ETR_INSTRUCTION_DELEGATE_CALL) {
    return "delegate";
  }
  if (instruction->kind != ETR_INSTRUCTION_KERNEL_CALL ||
      instruction->callee >= method->num_operators) {
    return "-";
  }
  const etr_operator_t *op = &method->operators[instruction->callee];
  char ignored[8];
  if (op->name != NULL &&
      !etr_etdump_native_call_name(op->name, ignored, sizeof(ignored))) {
    return "prim";
  }
  if (instruction->fusion == ETR_FUSION_HEAD) {
    return "optimized, fused";
  }
  if (instruction->fusion == ETR_FUSION_ABSORBED) {
    return "fused into previous";
  }
  if (instruction->fusion == ETR_FUSION_FOLDED) {
    return "folded at load";
  }
  if (instruction->fusion == ETR_FUSION_PRUNED) {
    return "optimized, unread outs skipped";
  }
  if (method->config.variant == ETR_KERNELS_OPTIMIZED && op->entry != NULL &&
      op->entry->variants[ETR_KERNELS_OPTIMIZED] != NULL &&
      instruction->kernel == op->entry->variants[ETR_KERNELS_OPTIMIZED]) {
    return "optimized";
  }
  return "reference";
}

static double output_bytes(const etr_instruction_t *instruction) {
  if (instruction->kind != ETR_INSTRUCTION_KERNEL_CALL ||
      instruction->num_args == 0) {
    return 0;
  }
  const etr_evalue_t *ret = instruction->args[instruction->num_args - 1];
  double total = 0;
  if (ret->tag == ETR_TAG_TENSOR) {
    total = (double)etr_tensor_nbytes(ret->u.as_tensor);
  } else if (ret->tag == ETR_TAG_LIST_TENSOR) {
    for (size_t k = 0; k < ret->u.as_tensor_list.length; ++k) {
      const etr_tensor_t *tensor = etr_tensor_list_get(ret, k);
      total += tensor != NULL ? (double)etr_tensor_nbytes(tensor) : 0;
    }
  }
  return total;
}

// Median counter deltas per instruction from `counting` (bound to the
// same method): events bucketed by row, one pass per counter.
static void add_counters(const etr_prof_t *counting, const uint32_t *first,
                         etr_prof_stats_t *stats, const int32_t *row_of,
                         double *scratch) {
  uint32_t counters = counting->counters.num_counters;
  uint32_t rows = stats->num_rows;
  uint32_t *start = (uint32_t *)calloc((size_t)rows + 2, sizeof(uint32_t));
  uint32_t *filled = (uint32_t *)calloc((size_t)rows + 1, sizeof(uint32_t));
  bool *missing = (bool *)calloc((size_t)rows + 1, sizeof(bool));
  if (start == NULL || filled == NULL || missing == NULL) {
    free(start);
    free(filled);
    free(missing);
    return;  // rows simply show no counters
  }
  for (uint32_t e = 0; e < counting->num_events; ++e) {
    const etr_prof_event_t *event = &counting->events[e];
    int32_t row = row_of[first[event->chain] + event->instruction];
    if (row >= 0) {
      ++start[row + 1];
    }
  }
  for (uint32_t r = 0; r < rows; ++r) {
    start[r + 1] += start[r];
  }
  for (uint32_t c = 0; c < counters; ++c) {
    memset(filled, 0, ((size_t)rows + 1) * sizeof(uint32_t));
    for (uint32_t e = 0; e < counting->num_events; ++e) {
      const etr_prof_event_t *event = &counting->events[e];
      int32_t row = row_of[first[event->chain] + event->instruction];
      uint64_t value;
      if (row >= 0 && etr_prof_event_counter(counting, e, c, &value)) {
        scratch[start[row] + filled[row]++] = (double)value;
      }
    }
    for (uint32_t r = 0; r < rows; ++r) {
      if (filled[r] == 0) {
        missing[r] = true;
        continue;
      }
      double *values = scratch + start[r];
      qsort(values, filled[r], sizeof(double), compare_doubles);
      stats->rows[r].counters[c] =
          etr_prof_percentile(values, filled[r], 50);
    }
  }
  for (uint32_t r = 0; r < rows; ++r) {
    stats->rows[r].has_counters = counters > 0 && !missing[r];
  }
  free(start);
  free(filled);
  free(missing);
}

static int by_time_descending(const void *a, const void *b) {
  const etr_prof_type_row_t *x = (const etr_prof_type_row_t *)a;
  const etr_prof_type_row_t *y = (const etr_prof_type_row_t *)b;
  return x->per_run_ns < y->per_run_ns ? 1
         : x->per_run_ns > y->per_run_ns ? -1
                                         : strcmp(x->name, y->name);
}

static etr_error_t build_types(etr_prof_stats_t *stats,
                               const etr_method_t *method, etr_diag_t *diag) {
  stats->types = (etr_prof_type_row_t *)calloc(stats->num_rows + 1,
                                               sizeof(etr_prof_type_row_t));
  ETR_CHECK(diag, stats->types != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for the operator-type summary");
  for (uint32_t r = 0; r < stats->num_rows; ++r) {
    const etr_prof_row_t *row = &stats->rows[r];
    etr_prof_type_row_t *type = NULL;
    for (uint32_t t = 0; t < stats->num_types; ++t) {
      if (strcmp(stats->types[t].name, row->name) == 0) {
        type = &stats->types[t];
      }
    }
    if (type == NULL) {
      type = &stats->types[stats->num_types++];
      type->name = row->name;
    }
    ++type->instructions;
    type->calls_per_run += row->calls_per_run;
    type->per_run_ns += row->per_run_ns;
    type->flops_per_run += row->cost.flops * row->calls_per_run;
    type->bytes_per_run += row->cost.bytes * row->calls_per_run;
    double output = output_bytes(
        etr_prof_instruction(method, row->chain, row->instruction));
    type->output_bytes = output > type->output_bytes ? output
                                                     : type->output_bytes;
  }
  qsort(stats->types, stats->num_types, sizeof(etr_prof_type_row_t),
        by_time_descending);
  double cdf = 0;
  for (uint32_t t = 0; t < stats->num_types; ++t) {
    etr_prof_type_row_t *type = &stats->types[t];
    type->mean_ns = type->calls_per_run > 0
                        ? type->per_run_ns / type->calls_per_run
                        : 0;
    type->percent = stats->instructions_per_run_ns > 0
                        ? 100.0 * type->per_run_ns /
                              stats->instructions_per_run_ns
                        : 0;
    cdf += type->percent;
    type->cdf_percent = cdf;
  }
  return ETR_OK;
}

static etr_error_t build_delegates(const etr_prof_t *timing,
                                   etr_prof_stats_t *stats, double *scratch,
                                   etr_diag_t *diag) {
  stats->delegates = (etr_prof_delegate_row_t *)calloc(
      timing->num_delegate_events + 1, sizeof(etr_prof_delegate_row_t));
  ETR_CHECK(diag, stats->delegates != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for the delegate events");
  for (uint32_t d = 0; d < timing->num_delegate_events; ++d) {
    const etr_prof_delegate_event_t *event = &timing->delegate_events[d];
    bool known = false;
    for (uint32_t k = 0; k < stats->num_delegates && !known; ++k) {
      const etr_prof_delegate_row_t *row = &stats->delegates[k];
      known = row->chain == event->chain &&
              row->instruction == event->instruction &&
              row->debug_id == event->debug_id &&
              strcmp(row->name, event->name) == 0;
    }
    if (known) {
      continue;
    }
    etr_prof_delegate_row_t *row = &stats->delegates[stats->num_delegates++];
    row->chain = event->chain;
    row->instruction = event->instruction;
    row->debug_id = event->debug_id;
    memcpy(row->name, event->name, sizeof(row->name));
    uint32_t count = 0;
    for (uint32_t e = d; e < timing->num_delegate_events; ++e) {
      const etr_prof_delegate_event_t *other = &timing->delegate_events[e];
      if (other->chain == row->chain &&
          other->instruction == row->instruction &&
          other->debug_id == row->debug_id &&
          strcmp(other->name, row->name) == 0) {
        scratch[count++] = (double)(other->end_ns - other->start_ns);
      }
    }
    etr_prof_summarize(scratch, count, &row->time);
  }
  return ETR_OK;
}

static void fill_row(const etr_prof_t *timing, etr_prof_row_t *row,
                     double *durations, uint32_t count) {
  const etr_method_t *method = timing->method;
  const etr_instruction_t *instruction =
      etr_prof_instruction(method, row->chain, row->instruction);
  row->kind = instruction->kind;
  row->name = etr_prof_instruction_name(method, row->chain,
                                        row->instruction);
  row->kernel = kernel_label(method, instruction);
  row->calls = count;
  row->calls_per_run = (double)count / (double)timing->num_runs;
  etr_prof_summarize(durations, count, &row->time);
  row->per_run_ns = row->time.total / (double)timing->num_runs;
  etr_prof_cost(method, row->chain, row->instruction, &row->cost);
  etr_prof_describe_shapes(method, row->chain, row->instruction, row->shapes,
                           sizeof(row->shapes));
}

etr_error_t etr_prof_stats_compute(const etr_prof_t *timing,
                                   const etr_prof_t *counting,
                                   etr_prof_stats_t *stats, etr_diag_t *diag) {
  memset(stats, 0, sizeof(*stats));
  ETR_CHECK(diag, timing->method != NULL && timing->num_runs > 0,
            ETR_ERR_INVALID_STATE, "no profiled run was recorded");
  const etr_method_t *method = timing->method;
  uint32_t positions = 0;
  uint32_t *first = chain_offsets(method, &positions);
  uint32_t samples = timing->num_events > timing->num_runs
                         ? timing->num_events
                         : timing->num_runs;
  if (timing->num_delegate_events > samples) {
    samples = timing->num_delegate_events;
  }
  if (counting != NULL && counting->num_events > samples) {
    samples = counting->num_events;
  }
  if (positions > samples) {
    samples = positions;
  }
  double *scratch = (double *)calloc((size_t)samples + 1, sizeof(double));
  int32_t *row_of = (int32_t *)calloc((size_t)positions + 1, sizeof(int32_t));
  stats->rows = (etr_prof_row_t *)calloc((size_t)positions + 1,
                                         sizeof(etr_prof_row_t));
  if (first == NULL || scratch == NULL || row_of == NULL ||
      stats->rows == NULL) {
    free(first);
    free(scratch);
    free(row_of);
    etr_prof_stats_release(stats);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory for the statistics");
  }
  stats->runs = timing->num_runs;
  for (uint32_t r = 0; r < timing->num_runs; ++r) {
    scratch[r] = (double)(timing->runs[r].end_ns - timing->runs[r].start_ns);
  }
  // The median run: the one whose time is the lower median.
  etr_prof_summarize(scratch, timing->num_runs, &stats->run_time);
  double median = scratch[(timing->num_runs - 1) / 2];
  for (uint32_t r = 0; r < timing->num_runs; ++r) {
    if ((double)(timing->runs[r].end_ns - timing->runs[r].start_ns) ==
        median) {
      stats->median_run = r;
      break;
    }
  }
  memset(scratch, 0, ((size_t)samples + 1) * sizeof(double));
  // Rows in run order: every instruction position that executed. Events
  // are bucketed by position (counting sort), keeping their run order.
  uint32_t *start = (uint32_t *)calloc((size_t)positions + 2,
                                       sizeof(uint32_t));
  double *bucketed =
      (double *)calloc((size_t)timing->num_events + 1, sizeof(double));
  if (start == NULL || bucketed == NULL) {
    free(start);
    free(bucketed);
    free(first);
    free(scratch);
    free(row_of);
    etr_prof_stats_release(stats);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory for the statistics");
  }
  for (uint32_t e = 0; e < timing->num_events; ++e) {
    const etr_prof_event_t *event = &timing->events[e];
    ++start[first[event->chain] + event->instruction + 1];
  }
  for (uint32_t p = 0; p < positions; ++p) {
    start[p + 1] += start[p];
    row_of[p] = -1;
  }
  for (uint32_t e = 0; e < timing->num_events; ++e) {
    const etr_prof_event_t *event = &timing->events[e];
    uint32_t p = first[event->chain] + event->instruction;
    // scratch[p] counts what is already placed in bucket p.
    bucketed[start[p] + (uint32_t)scratch[p]] =
        (double)(event->end_ns - event->start_ns);
    scratch[p] += 1;
  }
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    for (uint32_t i = 0; i < method->chains[c].num_instructions; ++i) {
      uint32_t p = first[c] + i;
      uint32_t count = start[p + 1] - start[p];
      if (count == 0) {
        continue;
      }
      etr_prof_row_t *row = &stats->rows[stats->num_rows];
      row_of[p] = (int32_t)stats->num_rows++;
      row->chain = c;
      row->instruction = i;
      row->position = p;
      row->first_ns = bucketed[start[p]];
      fill_row(timing, row, bucketed + start[p], count);
      stats->instructions_per_run_ns += row->per_run_ns;
    }
  }
  free(start);
  free(bucketed);
  for (uint32_t r = 0; r < stats->num_rows; ++r) {
    stats->rows[r].percent =
        stats->instructions_per_run_ns > 0
            ? 100.0 * stats->rows[r].per_run_ns /
                  stats->instructions_per_run_ns
            : 0;
  }
  const etr_counters_t *counters =
      counting != NULL ? &counting->counters : &timing->counters;
  stats->counter_source = counters->source;
  stats->num_counters = counters->num_counters;
  memcpy(stats->counter_names, counters->names, sizeof(counters->names));
  memcpy(stats->counter_note, counters->reason, sizeof(counters->reason));
  if (counting != NULL && counting->method == method &&
      counting->counter_deltas != NULL) {
    add_counters(counting, first, stats, row_of, scratch);
  }
  etr_error_t status = build_types(stats, method, diag);
  if (status == ETR_OK) {
    status = build_delegates(timing, stats, scratch, diag);
  }
  free(first);
  free(scratch);
  free(row_of);
  if (status != ETR_OK) {
    etr_prof_stats_release(stats);
  }
  return status;
}

void etr_prof_stats_release(etr_prof_stats_t *stats) {
  free(stats->rows);
  free(stats->types);
  free(stats->delegates);
  memset(stats, 0, sizeof(*stats));
}

const etr_prof_row_t *etr_prof_stats_row(const etr_prof_stats_t *stats,
                                         uint32_t chain,
                                         uint32_t instruction) {
  for (uint32_t r = 0; r < stats->num_rows; ++r) {
    if (stats->rows[r].chain == chain &&
        stats->rows[r].instruction == instruction) {
      return &stats->rows[r];
    }
  }
  return NULL;
}
