// SPDX-License-Identifier: Apache-2.0
//
// The profiler's event tracer (see tracer.h). The hooks run inside
// etr_method_execute: they read the clock, store into preallocated arrays
// and never allocate, print or fail.
#include "prof/tracer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform.h"

// ExecuTorch's debug buffer aligns every tensor to 64 bytes
// (devtools/etdump/data_sinks/buffer_data_sink.h).
#define CAPTURE_ALIGNMENT 64

// ---- timestamps -----------------------------------------------------------

#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t read_tick(void) { return __rdtsc(); }
#else
static inline uint64_t read_tick(void) { return 0; }
#endif

// True on x86-64 CPUs whose TSC runs at a constant rate in every state
// (/proc/cpuinfo flags constant_tsc and nonstop_tsc).
static bool invariant_tsc(void) {
#if defined(__x86_64__)
  FILE *file = fopen("/proc/cpuinfo", "r");
  if (file == NULL) {
    return false;
  }
  char line[4096];
  bool constant = false;
  bool nonstop = false;
  while (fgets(line, sizeof(line), file) != NULL) {
    if (strncmp(line, "flags", 5) == 0) {
      constant = strstr(line, " constant_tsc") != NULL;
      nonstop = strstr(line, " nonstop_tsc") != NULL;
      break;
    }
  }
  fclose(file);
  return constant && nonstop;
#else
  return false;
#endif
}

// The stamp hooks take: TSC ticks or etr_now_ns.
static inline uint64_t stamp(const etr_prof_t *prof) {
  return prof->use_tsc ? read_tick() : etr_now_ns();
}

// Takes the calibration point and a first rate over a ~200 us spin.
static void calibrate(etr_prof_t *prof) {
  prof->calibration_ns = etr_now_ns();
  prof->calibration_tick = read_tick();
  uint64_t ns = prof->calibration_ns;
  while (ns - prof->calibration_ns < 200000) {
    ns = etr_now_ns();
  }
  uint64_t ticks = read_tick() - prof->calibration_tick;
  prof->ns_per_tick =
      ticks > 0 ? (double)(ns - prof->calibration_ns) / (double)ticks : 0;
  prof->use_tsc = prof->ns_per_tick > 0;
}

// Turns the run's tick stamps into ns: refines the rate over everything
// since bind, then maps each tick through the run's own start.
static void ticks_to_ns(etr_prof_t *prof, etr_prof_run_t *run,
                        uint64_t end_tick, uint64_t end_ns) {
  uint64_t ticks = end_tick - prof->calibration_tick;
  if (ticks > 0 && end_ns > prof->calibration_ns) {
    prof->ns_per_tick = (double)(end_ns - prof->calibration_ns) /
                        (double)ticks;
  }
  double rate = prof->ns_per_tick;
  uint64_t origin_tick = prof->run_start_tick;
  uint64_t origin_ns = run->start_ns;
  for (uint32_t e = run->first_event; e < run->first_event + run->num_events;
       ++e) {
    etr_prof_event_t *event = &prof->events[e];
    event->start_ns =
        origin_ns + (uint64_t)((double)(event->start_ns - origin_tick) * rate);
    event->end_ns =
        origin_ns + (uint64_t)((double)(event->end_ns - origin_tick) * rate);
  }
  run->end_ns = origin_ns + (uint64_t)((double)(end_tick - origin_tick) * rate);
}

void etr_prof_config_init(etr_prof_config_t *config) {
  memset(config, 0, sizeof(*config));
  config->max_runs = 1;
  config->counters = ETR_COUNTERS_OFF;
}

const etr_instruction_t *etr_prof_instruction(const etr_method_t *method,
                                              uint32_t chain, uint32_t index) {
  if (method == NULL || chain >= method->num_chains ||
      index >= method->chains[chain].num_instructions) {
    return NULL;
  }
  return &method->chains[chain].instructions[index];
}

const char *etr_prof_instruction_name(const etr_method_t *method,
                                      uint32_t chain, uint32_t index) {
  const etr_instruction_t *instruction =
      etr_prof_instruction(method, chain, index);
  if (instruction == NULL) {
    return "?";
  }
  if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL &&
      instruction->callee < method->num_operators &&
      method->operators[instruction->callee].name != NULL) {
    return method->operators[instruction->callee].name;
  }
  if (instruction->kind == ETR_INSTRUCTION_DELEGATE_CALL &&
      instruction->callee < method->num_delegates &&
      method->delegates[instruction->callee].backend_id != NULL) {
    return method->delegates[instruction->callee].backend_id;
  }
  return etr_instruction_kind_name(instruction->kind);
}

// ---- capture ------------------------------------------------------------

static etr_prof_capture_t *new_capture(etr_prof_t *prof, uint32_t value_index,
                                       int32_t list_index, bool is_output) {
  if (prof->num_captures >= prof->capture_capacity) {
    ++prof->dropped_captures;
    return NULL;
  }
  etr_prof_capture_t *capture = &prof->captures[prof->num_captures++];
  memset(capture, 0, sizeof(*capture));
  capture->run = prof->num_runs - 1;
  capture->chain = prof->chain;
  capture->instruction = prof->instruction;
  capture->value_index = value_index;
  capture->list_index = list_index;
  capture->is_output = is_output;
  ++prof->runs[prof->num_runs - 1].num_captures;
  return capture;
}

static void capture_tensor(etr_prof_t *prof, const etr_tensor_t *tensor,
                           uint32_t value_index, int32_t list_index,
                           bool is_output) {
  if (tensor == NULL) {
    return;
  }
  etr_prof_capture_t *capture =
      new_capture(prof, value_index, list_index, is_output);
  if (capture == NULL) {
    return;
  }
  capture->tag = ETR_TAG_TENSOR;
  capture->dtype = tensor->dtype;
  capture->dim = tensor->dim;
  memcpy(capture->sizes, tensor->sizes, sizeof(capture->sizes));
  memcpy(capture->strides, tensor->strides, sizeof(capture->strides));
  size_t nbytes = etr_tensor_nbytes(tensor);
  capture->nbytes = nbytes;
  size_t offset = (prof->capture_used + CAPTURE_ALIGNMENT - 1) /
                  CAPTURE_ALIGNMENT * CAPTURE_ALIGNMENT;
  if (nbytes != 0 && tensor->data == NULL) {
    return;  // unbound: the shape is all there is
  }
  if (offset > prof->config.capture_bytes ||
      nbytes > prof->config.capture_bytes - offset) {
    prof->unstored_capture_bytes += nbytes;
    return;
  }
  // The alignment gap is zeroed so the debug buffer written out is fully
  // defined and the same bytes every run.
  memset(prof->capture_buffer + prof->capture_used, 0,
         offset - prof->capture_used);
  // Tensors in etref are dense in their dim order, so their bytes are one
  // block; the strides recorded above say how to read it.
  if (nbytes != 0) {
    memcpy(prof->capture_buffer + offset, tensor->data, nbytes);
  }
  capture->offset = offset;
  capture->stored = true;
  prof->capture_used = offset + nbytes;
}

static void capture_value(etr_prof_t *prof, uint32_t value_index,
                          bool is_output) {
  const etr_method_t *method = prof->method;
  if (value_index >= method->num_values) {
    return;
  }
  const etr_evalue_t *value = &method->values[value_index];
  switch (value->tag) {
    case ETR_TAG_TENSOR:
      capture_tensor(prof, value->u.as_tensor, value_index, -1, is_output);
      return;
    case ETR_TAG_LIST_TENSOR:
    case ETR_TAG_LIST_OPTIONAL_TENSOR:
      for (size_t k = 0; k < value->u.as_tensor_list.length; ++k) {
        capture_tensor(prof, etr_tensor_list_get(value, k), value_index,
                       (int32_t)k, is_output);
      }
      return;
    case ETR_TAG_INT:
    case ETR_TAG_DOUBLE:
    case ETR_TAG_BOOL: {
      etr_prof_capture_t *capture =
          new_capture(prof, value_index, -1, is_output);
      if (capture != NULL) {
        // Only the union member the tag names is read.
        capture->tag = value->tag;
        capture->stored = true;
        if (value->tag == ETR_TAG_INT) {
          capture->int_value = value->u.as_int;
        } else if (value->tag == ETR_TAG_DOUBLE) {
          capture->double_value = value->u.as_double;
        } else {
          capture->bool_value = value->u.as_bool;
        }
      }
      return;
    }
    default:
      return;  // lists of scalars, strings, None: nothing to compare
  }
}

// What ExecuTorch logs after an instruction: a kernel's outputs (its return
// slot, a tensor or a list of them) or every argument of a delegate call.
static void capture_instruction(etr_prof_t *prof,
                                const etr_instruction_t *instruction) {
  if (instruction->num_args == 0) {
    return;
  }
  if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL) {
    capture_value(prof, instruction->arg_indices[instruction->num_args - 1],
                  false);
  } else if (instruction->kind == ETR_INSTRUCTION_DELEGATE_CALL) {
    for (size_t a = 0; a < instruction->num_args; ++a) {
      capture_value(prof, instruction->arg_indices[a], false);
    }
  }
}

// ---- hooks ---------------------------------------------------------------

static void begin_execute(void *user, const etr_method_t *method) {
  etr_prof_t *prof = (etr_prof_t *)user;
  if (prof->method != method || prof->num_runs >= prof->max_runs) {
    prof->recording = false;
    ++prof->unrecorded_runs;
    return;
  }
  prof->recording = true;
  etr_prof_run_t *run = &prof->runs[prof->num_runs++];
  memset(run, 0, sizeof(*run));
  run->first_event = prof->num_events;
  run->first_delegate_event = prof->num_delegate_events;
  run->first_capture = prof->num_captures;
  run->start_ns = etr_now_ns();
  prof->run_start_tick = prof->use_tsc ? read_tick() : 0;
}

static void end_execute(void *user, const etr_method_t *method,
                        etr_error_t status) {
  etr_prof_t *prof = (etr_prof_t *)user;
  if (!prof->recording) {
    return;
  }
  uint64_t end_tick = prof->use_tsc ? read_tick() : 0;
  uint64_t now = etr_now_ns();
  etr_prof_run_t *run = &prof->runs[prof->num_runs - 1];
  run->end_ns = now;
  if (prof->use_tsc) {
    ticks_to_ns(prof, run, end_tick, now);
  }
  run->status = status;
  prof->recording = false;
  // Actual bytes of the planned tensors whose shape can change, at the
  // shape the run left them in (static ones were recorded at bind).
  for (uint32_t d = 0; d < prof->num_dynamic_values; ++d) {
    uint32_t v = prof->dynamic_values[d];
    const etr_evalue_t *value = &method->values[v];
    if (value->tag == ETR_TAG_TENSOR && value->u.as_tensor != NULL) {
      uint64_t bytes = etr_tensor_nbytes(value->u.as_tensor);
      if (bytes > prof->value_used_bytes[v]) {
        prof->value_used_bytes[v] = bytes;
      }
    }
  }
  if (prof->capture_buffer != NULL && status == ETR_OK) {
    // ExecuTorch logs the outputs after Method::execute with the chain and
    // instruction reset (chain -1, instruction 0).
    prof->chain = UINT32_MAX;
    prof->instruction = 0;
    for (uint32_t k = 0; k < method->num_outputs; ++k) {
      capture_value(prof, method->outputs[k], true);
    }
  }
}

static void begin_instruction(void *user, const etr_method_t *method,
                              uint32_t chain, uint32_t instruction) {
  (void)method;
  etr_prof_t *prof = (etr_prof_t *)user;
  if (!prof->recording) {
    return;
  }
  prof->chain = chain;
  prof->instruction = instruction;
  if (prof->counter_deltas != NULL) {
    prof->counter_start_ok =
        etr_counters_read(&prof->counters, prof->counter_start);
  }
  prof->instruction_start_ns = stamp(prof);
}

static void end_instruction(void *user, const etr_method_t *method,
                            uint32_t chain, uint32_t instruction,
                            etr_error_t status) {
  etr_prof_t *prof = (etr_prof_t *)user;
  if (!prof->recording) {
    return;
  }
  uint64_t now = stamp(prof);
  uint32_t index = prof->num_events;
  if (index < prof->event_capacity) {
    const etr_instruction_t *current =
        &method->chains[chain].instructions[instruction];
    etr_prof_event_t *event = &prof->events[index];
    event->start_ns = prof->instruction_start_ns;
    event->end_ns = now;
    event->chain = chain;
    event->instruction = instruction;
    event->run = prof->num_runs - 1;
    event->kind = (uint16_t)current->kind;
    event->status = (uint16_t)status;
    ++prof->num_events;
    ++prof->runs[prof->num_runs - 1].num_events;
    if (prof->counter_deltas != NULL) {
      uint64_t values[ETR_PROF_MAX_COUNTERS];
      bool ok = prof->counter_start_ok &&
                etr_counters_read(&prof->counters, values);
      uint64_t *deltas = &prof->counter_deltas[(size_t)index *
                                               ETR_PROF_MAX_COUNTERS];
      for (uint32_t c = 0; c < ETR_PROF_MAX_COUNTERS; ++c) {
        deltas[c] = ok && c < prof->counters.num_counters &&
                            values[c] >= prof->counter_start[c]
                        ? values[c] - prof->counter_start[c]
                        : UINT64_MAX;
      }
    }
    if (prof->capture_buffer != NULL && status == ETR_OK) {
      capture_instruction(prof, current);
    }
  } else {
    ++prof->dropped_events;
  }
  if (method->temp.peak > prof->temp_peak) {
    prof->temp_peak = method->temp.peak;
    prof->temp_peak_seen = true;
    prof->temp_peak_chain = chain;
    prof->temp_peak_instruction = instruction;
  }
}

static void delegate_event(void *user, const etr_method_t *method,
                           uint32_t delegate_index, const char *name,
                           int64_t debug_id, uint64_t start_ns,
                           uint64_t end_ns) {
  (void)method;
  etr_prof_t *prof = (etr_prof_t *)user;
  if (!prof->recording) {
    return;
  }
  if (prof->num_delegate_events >= prof->delegate_event_capacity) {
    ++prof->dropped_delegate_events;
    return;
  }
  etr_prof_delegate_event_t *event =
      &prof->delegate_events[prof->num_delegate_events++];
  event->start_ns = start_ns;
  event->end_ns = end_ns;
  event->debug_id = debug_id;
  event->run = prof->num_runs - 1;
  event->chain = prof->chain;
  event->instruction = prof->instruction;
  event->delegate_index = delegate_index;
  size_t length = 0;
  if (name != NULL) {
    while (length + 1 < ETR_PROF_DELEGATE_NAME_CAPACITY &&
           name[length] != '\0') {
      ++length;
    }
    memcpy(event->name, name, length);
  }
  event->name[length] = '\0';
  ++prof->runs[prof->num_runs - 1].num_delegate_events;
}

// ---- lifecycle ------------------------------------------------------------

void etr_prof_init(etr_prof_t *prof, const etr_prof_config_t *config) {
  memset(prof, 0, sizeof(*prof));
  if (config != NULL) {
    prof->config = *config;
  } else {
    etr_prof_config_init(&prof->config);
  }
  prof->tracer.user = prof;
  prof->tracer.begin_execute = begin_execute;
  prof->tracer.end_execute = end_execute;
  prof->tracer.begin_instruction = begin_instruction;
  prof->tracer.end_instruction = end_instruction;
  prof->tracer.delegate_event = delegate_event;
  etr_counters_open(&prof->counters, prof->config.counters);
}

static void free_buffers(etr_prof_t *prof) {
  free(prof->runs);
  free(prof->events);
  free(prof->delegate_events);
  free(prof->counter_deltas);
  free(prof->captures);
  free(prof->capture_buffer);
  free(prof->value_used_bytes);
  free(prof->dynamic_values);
  prof->runs = NULL;
  prof->events = NULL;
  prof->delegate_events = NULL;
  prof->counter_deltas = NULL;
  prof->captures = NULL;
  prof->capture_buffer = NULL;
  prof->value_used_bytes = NULL;
  prof->dynamic_values = NULL;
  prof->num_dynamic_values = 0;
  prof->method = NULL;
}

// count * size, or 0 (which callers treat as failure) when it overflows.
static size_t array_bytes(size_t count, size_t size) {
  size_t bytes;
  return etr_size_mul(count, size, &bytes) ? bytes : 0;
}

etr_error_t etr_prof_bind(etr_prof_t *prof, const etr_method_t *method,
                          etr_diag_t *diag) {
  free_buffers(prof);
  uint64_t instructions = 0;
  uint32_t delegate_calls = 0;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    instructions += method->chains[c].num_instructions;
    for (uint32_t i = 0; i < method->chains[c].num_instructions; ++i) {
      delegate_calls += method->chains[c].instructions[i].kind ==
                        ETR_INSTRUCTION_DELEGATE_CALL;
    }
  }
  const etr_prof_config_t *config = &prof->config;
  uint64_t runs = config->max_runs != 0 ? config->max_runs : 1;
  uint64_t per_run =
      config->events_per_run != 0 ? config->events_per_run : instructions;
  uint64_t delegate_per_run = config->delegate_events_per_run != 0
                                  ? config->delegate_events_per_run
                                  : 256ull * delegate_calls;
  uint64_t captures_per_run = config->capture_records != 0
                                  ? config->capture_records
                                  : 4 * instructions + method->num_outputs;
  uint64_t events = per_run * runs;
  uint64_t delegate_events = delegate_per_run * runs;
  uint64_t captures =
      config->capture_bytes != 0 ? captures_per_run * runs : 0;
  ETR_CHECK(diag,
            events <= UINT32_MAX && delegate_events <= UINT32_MAX &&
                captures <= UINT32_MAX,
            ETR_ERR_INVALID_ARGUMENT,
            "profiler buffers too large: %llu runs of %llu events",
            (unsigned long long)runs, (unsigned long long)per_run);
  prof->runs = (etr_prof_run_t *)calloc(runs, sizeof(etr_prof_run_t));
  prof->events = (etr_prof_event_t *)calloc(events + 1,
                                            sizeof(etr_prof_event_t));
  prof->delegate_events = (etr_prof_delegate_event_t *)calloc(
      delegate_events + 1, sizeof(etr_prof_delegate_event_t));
  prof->value_used_bytes =
      (uint64_t *)calloc(method->num_values + 1, sizeof(uint64_t));
  prof->dynamic_values =
      (uint32_t *)calloc(method->num_values + 1, sizeof(uint32_t));
  bool ok = prof->runs != NULL && prof->events != NULL &&
            prof->delegate_events != NULL && prof->value_used_bytes != NULL &&
            prof->dynamic_values != NULL;
  for (uint32_t v = 0; ok && v < method->num_values; ++v) {
    const etr_evalue_t *value = &method->values[v];
    if (method->value_info[v].storage != ETR_STORAGE_PLANNED ||
        value->tag != ETR_TAG_TENSOR || value->u.as_tensor == NULL) {
      continue;
    }
    if (value->u.as_tensor->shape_dynamism == ETR_SHAPE_STATIC) {
      prof->value_used_bytes[v] = etr_tensor_nbytes(value->u.as_tensor);
    } else {
      prof->dynamic_values[prof->num_dynamic_values++] = v;
    }
  }
  if (ok && prof->counters.num_counters > 0) {
    size_t bytes = array_bytes(events + 1,
                               ETR_PROF_MAX_COUNTERS * sizeof(uint64_t));
    prof->counter_deltas = bytes != 0 ? (uint64_t *)malloc(bytes) : NULL;
    ok = prof->counter_deltas != NULL;
  }
  if (ok && captures != 0) {
    prof->captures = (etr_prof_capture_t *)calloc(
        captures, sizeof(etr_prof_capture_t));
    prof->capture_buffer = (uint8_t *)aligned_alloc(
        CAPTURE_ALIGNMENT, (config->capture_bytes + CAPTURE_ALIGNMENT - 1) /
                               CAPTURE_ALIGNMENT * CAPTURE_ALIGNMENT);
    ok = prof->captures != NULL && prof->capture_buffer != NULL;
  }
  if (!ok) {
    free_buffers(prof);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory for the profiler's buffers (%llu runs of "
                    "%llu events)",
                    (unsigned long long)runs, (unsigned long long)per_run);
  }
  prof->method = method;
  prof->max_runs = (uint32_t)runs;
  prof->event_capacity = (uint32_t)events;
  prof->delegate_event_capacity = (uint32_t)delegate_events;
  prof->capture_capacity = (uint32_t)captures;
  prof->temp_peak = 0;
  prof->temp_peak_seen = false;
  // Delegates report etr_now_ns times: keep their instructions on that
  // clock so a delegate's events always fall inside its DelegateCall.
  prof->use_tsc = false;
  if (!config->platform_clock && delegate_calls == 0 && invariant_tsc()) {
    calibrate(prof);
  }
  etr_prof_reset(prof);
  return ETR_OK;
}

void etr_prof_reset(etr_prof_t *prof) {
  prof->num_runs = 0;
  prof->num_events = 0;
  prof->num_delegate_events = 0;
  prof->num_captures = 0;
  prof->capture_used = 0;
  prof->unrecorded_runs = 0;
  prof->dropped_events = 0;
  prof->dropped_delegate_events = 0;
  prof->dropped_captures = 0;
  prof->unstored_capture_bytes = 0;
  prof->recording = false;
}

void etr_prof_release(etr_prof_t *prof) {
  free_buffers(prof);
  etr_counters_close(&prof->counters);
}

bool etr_prof_event_counter(const etr_prof_t *prof, uint32_t event,
                            uint32_t counter, uint64_t *value) {
  if (prof->counter_deltas == NULL || event >= prof->num_events ||
      counter >= prof->counters.num_counters) {
    return false;
  }
  uint64_t delta =
      prof->counter_deltas[(size_t)event * ETR_PROF_MAX_COUNTERS + counter];
  if (delta == UINT64_MAX) {
    return false;
  }
  *value = delta;
  return true;
}

void etr_prof_describe_drops(const etr_prof_t *prof, char *text,
                             size_t capacity) {
  if (prof->unrecorded_runs == 0 && prof->dropped_events == 0 &&
      prof->dropped_delegate_events == 0 && prof->dropped_captures == 0 &&
      prof->unstored_capture_bytes == 0) {
    snprintf(text, capacity, "nothing dropped");
    return;
  }
  snprintf(text, capacity,
           "dropped: %llu runs past the %u recorded, %llu instruction "
           "events, %llu delegate events, %llu captured values (buffers "
           "full), %llu captured bytes not stored",
           (unsigned long long)prof->unrecorded_runs, prof->max_runs,
           (unsigned long long)prof->dropped_events,
           (unsigned long long)prof->dropped_delegate_events,
           (unsigned long long)prof->dropped_captures,
           (unsigned long long)prof->unstored_capture_bytes);
}
