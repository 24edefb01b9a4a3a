// SPDX-License-Identifier: Apache-2.0
//
// The ETDump writer (see etdump.h). Field ids follow the declaration order
// of devtools/etdump/etdump_schema_flatcc.fbs; FlatBuffers builds children
// before parents, so each event's strings and sub-tables come first.
#include "prof/etdump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/prim_ops.h"

// Field ids (declaration order in etdump_schema_flatcc.fbs).
enum {
  ETDUMP_VERSION = 0, ETDUMP_RUN_DATA = 1,
  RUN_NAME = 0, RUN_BUNDLED_INPUT_INDEX = 1, RUN_ALLOCATORS = 2,
  RUN_EVENTS = 3,
  EVENT_PROFILE = 0, EVENT_ALLOCATION = 1, EVENT_DEBUG = 2,
  PROFILE_NAME = 0, PROFILE_CHAIN = 1, PROFILE_INSTRUCTION = 2,
  PROFILE_DELEGATE_INT = 3, PROFILE_DELEGATE_STR = 4,
  PROFILE_DELEGATE_METADATA = 5, PROFILE_START = 6, PROFILE_END = 7,
  DEBUG_CHAIN = 0, DEBUG_INSTRUCTION = 1, DEBUG_ENTRY = 2,
  DEBUG_DELEGATE_INT = 3, DEBUG_DELEGATE_STR = 4, DEBUG_NAME = 5,
  VALUE_VAL = 0, VALUE_TENSOR = 1, VALUE_TENSOR_LIST = 2, VALUE_INT = 3,
  VALUE_FLOAT = 4, VALUE_DOUBLE = 5, VALUE_BOOL = 6, VALUE_OUTPUT = 7,
  TENSOR_SCALAR_TYPE = 0, TENSOR_SIZES = 1, TENSOR_STRIDES = 2,
  TENSOR_OFFSET = 3,
};

// etdump.ValueType
enum { VALUE_TYPE_INT = 1, VALUE_TYPE_BOOL = 2, VALUE_TYPE_DOUBLE = 4,
       VALUE_TYPE_TENSOR = 5 };

void etr_etdump_options_init(etr_etdump_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->bundled_input_index = -1;
}

bool etr_etdump_native_call_name(const char *operator_name, char *name,
                                 size_t capacity) {
  for (size_t i = 0; i < etr_prim_kernel_count; ++i) {
    if (strcmp(etr_prim_kernels[i].name, operator_name) == 0) {
      return false;
    }
  }
  const char *separator = strstr(operator_name, "::");
  const char *bare = separator != NULL ? separator + 2 : operator_name;
  snprintf(name, capacity, "native_call_%s", bare);
  return true;
}

// A growable list of references (the builder runs after the method).
typedef struct {
  etr_fbb_ref_t *refs;
  size_t count;
  size_t capacity;
  bool failed;
} ref_list_t;

static void push_ref(ref_list_t *list, etr_fbb_ref_t ref) {
  if (list->count == list->capacity) {
    size_t capacity = list->capacity != 0 ? list->capacity * 2 : 64;
    etr_fbb_ref_t *grown = (etr_fbb_ref_t *)realloc(
        list->refs, capacity * sizeof(etr_fbb_ref_t));
    if (grown == NULL) {
      list->failed = true;
      return;
    }
    list->refs = grown;
    list->capacity = capacity;
  }
  list->refs[list->count++] = ref;
}

typedef struct {
  const etr_prof_t *prof;
  const etr_etdump_options_t *options;
  etr_fbb_t *fbb;
  etr_etdump_summary_t summary;
  etr_fbb_ref_t *operator_names;  // per operator: native_call_* or 0
  bool *operator_is_prim;
  etr_fbb_ref_t kind_names[6];    // per instruction kind
  etr_fbb_ref_t method_execute;
  bool out_of_memory;
} writer_t;

static etr_fbb_ref_t string(etr_fbb_t *fbb, const char *text) {
  return etr_fbb_create_string(fbb, text, strlen(text));
}

static etr_fbb_ref_t wrap_event(writer_t *writer, unsigned field,
                                etr_fbb_ref_t inner) {
  etr_fbb_start_table(writer->fbb);
  etr_fbb_add_ref(writer->fbb, field, inner);
  return etr_fbb_end_table(writer->fbb);
}

static etr_fbb_ref_t profile_event(writer_t *writer, etr_fbb_ref_t name,
                                   int32_t chain, int32_t instruction,
                                   int32_t delegate_int,
                                   etr_fbb_ref_t delegate_str, uint64_t start,
                                   uint64_t end) {
  etr_fbb_t *fbb = writer->fbb;
  etr_fbb_start_table(fbb);
  etr_fbb_add_u64(fbb, PROFILE_START, start, 0);
  etr_fbb_add_u64(fbb, PROFILE_END, end, 0);
  etr_fbb_add_ref(fbb, PROFILE_NAME, name);
  etr_fbb_add_i32(fbb, PROFILE_CHAIN, chain, 0);
  // ExecuTorch always writes the instruction id, 0 included.
  etr_fbb_add_i32(fbb, PROFILE_INSTRUCTION, instruction, -1);
  etr_fbb_add_i32(fbb, PROFILE_DELEGATE_INT, delegate_int, -1);
  etr_fbb_add_ref(fbb, PROFILE_DELEGATE_STR, delegate_str);
  ++writer->summary.profile_events;
  return wrap_event(writer, EVENT_PROFILE, etr_fbb_end_table(fbb));
}

// Dtypes ExecuTorch's ETDumpGen logs (get_flatbuffer_scalar_type).
static bool loggable(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_BYTE: case ETR_CHAR: case ETR_SHORT: case ETR_INT:
    case ETR_LONG: case ETR_FLOAT: case ETR_DOUBLE: case ETR_BOOL:
    case ETR_BITS16: case ETR_UINT16:
      return true;
    default:
      return false;
  }
}

static etr_fbb_ref_t debug_value(writer_t *writer,
                                 const etr_prof_capture_t *capture) {
  etr_fbb_t *fbb = writer->fbb;
  etr_fbb_ref_t payload = 0;
  uint8_t type = 0;
  unsigned field = 0;
  switch (capture->tag) {
    case ETR_TAG_TENSOR: {
      etr_fbb_ref_t sizes = etr_fbb_create_scalar_vector(
          fbb, capture->sizes, (size_t)capture->dim, sizeof(int64_t));
      etr_fbb_ref_t strides = etr_fbb_create_scalar_vector(
          fbb, capture->strides, (size_t)capture->dim, sizeof(int64_t));
      etr_fbb_start_table(fbb);
      // An empty tensor has offset -1, as ExecuTorch writes it.
      etr_fbb_add_i64(fbb, TENSOR_OFFSET,
                      capture->nbytes == 0 ? -1 : (int64_t)capture->offset, 0);
      etr_fbb_add_ref(fbb, TENSOR_SIZES, sizes);
      etr_fbb_add_ref(fbb, TENSOR_STRIDES, strides);
      etr_fbb_add_i8(fbb, TENSOR_SCALAR_TYPE, (int8_t)capture->dtype, 0);
      payload = etr_fbb_end_table(fbb);
      type = VALUE_TYPE_TENSOR;
      field = VALUE_TENSOR;
      break;
    }
    case ETR_TAG_INT:
      etr_fbb_start_table(fbb);
      etr_fbb_add_i64(fbb, 0, capture->int_value, 0);
      payload = etr_fbb_end_table(fbb);
      type = VALUE_TYPE_INT;
      field = VALUE_INT;
      break;
    case ETR_TAG_DOUBLE:
      etr_fbb_start_table(fbb);
      etr_fbb_add_f64(fbb, 0, capture->double_value, 0.0);
      payload = etr_fbb_end_table(fbb);
      type = VALUE_TYPE_DOUBLE;
      field = VALUE_DOUBLE;
      break;
    default:
      etr_fbb_start_table(fbb);
      etr_fbb_add_u8(fbb, 0, capture->bool_value ? 1 : 0, 0);
      payload = etr_fbb_end_table(fbb);
      type = VALUE_TYPE_BOOL;
      field = VALUE_BOOL;
      break;
  }
  etr_fbb_ref_t output = 0;
  if (capture->is_output) {
    etr_fbb_start_table(fbb);
    etr_fbb_add_u8(fbb, 0, 1, 0);
    output = etr_fbb_end_table(fbb);
  }
  etr_fbb_start_table(fbb);
  etr_fbb_add_ref(fbb, field, payload);
  etr_fbb_add_ref(fbb, VALUE_OUTPUT, output);
  etr_fbb_add_u8(fbb, VALUE_VAL, type, 0);
  return etr_fbb_end_table(fbb);
}

static void debug_event(writer_t *writer, const etr_prof_capture_t *capture,
                        ref_list_t *events) {
  if (!writer->options->debug_events) {
    return;
  }
  if (!capture->stored ||
      (capture->tag == ETR_TAG_TENSOR && !loggable(capture->dtype))) {
    ++writer->summary.skipped_values;
    return;
  }
  etr_fbb_ref_t value = debug_value(writer, capture);
  etr_fbb_t *fbb = writer->fbb;
  etr_fbb_start_table(fbb);
  // Outputs carry ExecuTorch's reset chain (-1 as an unsigned 64-bit).
  etr_fbb_add_u64(fbb, DEBUG_CHAIN,
                  capture->chain == UINT32_MAX ? UINT64_MAX : capture->chain,
                  0);
  etr_fbb_add_i32(fbb, DEBUG_INSTRUCTION, (int32_t)capture->instruction, -1);
  etr_fbb_add_ref(fbb, DEBUG_ENTRY, value);
  ++writer->summary.debug_events;
  push_ref(events, wrap_event(writer, EVENT_DEBUG, etr_fbb_end_table(fbb)));
}

static etr_fbb_ref_t kind_name(writer_t *writer, uint16_t kind) {
  static const char *const kNames[6] = {"UNKNOWN_CALL", "OPERATOR_CALL",
                                        "DELEGATE_CALL", "MOVE_CALL",
                                        "JF_CALL", "FREE_CALL"};
  uint16_t index = kind < 6 ? kind : 0;
  if (writer->kind_names[index] == 0) {
    writer->kind_names[index] = string(writer->fbb, kNames[index]);
  }
  return writer->kind_names[index];
}

// The events of one recorded run, in ExecuTorch's order.
static etr_fbb_ref_t run_block(writer_t *writer, const etr_prof_run_t *run,
                               etr_fbb_ref_t block_name) {
  const etr_prof_t *prof = writer->prof;
  const etr_method_t *method = prof->method;
  ref_list_t events = {0};
  uint32_t capture = run->first_capture;
  uint32_t capture_end = run->first_capture + run->num_captures;
  uint32_t delegated = run->first_delegate_event;
  uint32_t delegated_end =
      run->first_delegate_event + run->num_delegate_events;
  for (uint32_t e = run->first_event; e < run->first_event + run->num_events;
       ++e) {
    const etr_prof_event_t *event = &prof->events[e];
    int32_t chain = (int32_t)event->chain;
    int32_t instruction = (int32_t)event->instruction;
    while (delegated < delegated_end &&
           prof->delegate_events[delegated].chain == event->chain &&
           prof->delegate_events[delegated].instruction ==
               event->instruction) {
      const etr_prof_delegate_event_t *sub = &prof->delegate_events[delegated];
      etr_fbb_ref_t id_str = 0;
      int32_t id_int = -1;
      if (sub->debug_id >= 0 && sub->debug_id <= INT32_MAX) {
        id_int = (int32_t)sub->debug_id;
      } else {
        id_str = string(writer->fbb, sub->name[0] != '\0' ? sub->name : "?");
      }
      push_ref(&events, profile_event(writer, 0, chain, instruction, id_int,
                                      id_str, sub->start_ns, sub->end_ns));
      ++delegated;
    }
    while (capture < capture_end && !prof->captures[capture].is_output &&
           prof->captures[capture].chain == event->chain &&
           prof->captures[capture].instruction == event->instruction) {
      debug_event(writer, &prof->captures[capture], &events);
      ++capture;
    }
    const etr_instruction_t *current =
        etr_prof_instruction(method, event->chain, event->instruction);
    if (event->kind == ETR_INSTRUCTION_KERNEL_CALL && current != NULL &&
        current->callee < method->num_operators &&
        !writer->operator_is_prim[current->callee]) {
      etr_fbb_ref_t *name = &writer->operator_names[current->callee];
      if (*name == 0) {
        char text[256];
        etr_etdump_native_call_name(method->operators[current->callee].name,
                                    text, sizeof(text));
        *name = string(writer->fbb, text);
      }
      push_ref(&events, profile_event(writer, *name, chain, instruction, -1,
                                      0, event->start_ns, event->end_ns));
    }
    push_ref(&events, profile_event(writer, kind_name(writer, event->kind),
                                    chain, instruction, -1, 0,
                                    event->start_ns, event->end_ns));
  }
  if (writer->method_execute == 0) {
    writer->method_execute = string(writer->fbb, "Method::execute");
  }
  push_ref(&events, profile_event(writer, writer->method_execute, -1, 0, -1,
                                  0, run->start_ns, run->end_ns));
  for (; capture < capture_end; ++capture) {
    if (prof->captures[capture].is_output) {
      debug_event(writer, &prof->captures[capture], &events);
    }
  }
  writer->out_of_memory |= events.failed;
  etr_fbb_ref_t vector =
      etr_fbb_create_ref_vector(writer->fbb, events.refs, events.count);
  free(events.refs);
  etr_fbb_start_table(writer->fbb);
  etr_fbb_add_ref(writer->fbb, RUN_NAME, block_name);
  etr_fbb_add_i32(writer->fbb, RUN_BUNDLED_INPUT_INDEX,
                  writer->options->bundled_input_index, -1);
  etr_fbb_add_ref(writer->fbb, RUN_EVENTS, vector);
  return etr_fbb_end_table(writer->fbb);
}

static etr_fbb_ref_t load_block(writer_t *writer) {
  const etr_etdump_options_t *options = writer->options;
  etr_fbb_ref_t init = string(writer->fbb, "Method::init");
  etr_fbb_ref_t load = string(writer->fbb, "Program::load_method");
  etr_fbb_ref_t refs[2];
  refs[0] = profile_event(writer, init, -1, 0, -1, 0, options->init_start_ns,
                          options->init_end_ns);
  refs[1] = profile_event(writer, load, -1, 0, -1, 0, options->load_start_ns,
                          options->load_end_ns);
  etr_fbb_ref_t vector = etr_fbb_create_ref_vector(writer->fbb, refs, 2);
  etr_fbb_ref_t name = string(writer->fbb, "Default");
  etr_fbb_start_table(writer->fbb);
  etr_fbb_add_ref(writer->fbb, RUN_NAME, name);
  etr_fbb_add_ref(writer->fbb, RUN_EVENTS, vector);
  return etr_fbb_end_table(writer->fbb);
}

// Per-operator event names of `prof`'s method (operator_is_prim, and the
// native_call_* strings created on first use).
static bool prepare_operators(writer_t *writer, const etr_prof_t *prof) {
  free(writer->operator_names);
  free(writer->operator_is_prim);
  const etr_method_t *method = prof->method;
  writer->prof = prof;
  writer->operator_names = (etr_fbb_ref_t *)calloc(
      method->num_operators + 1, sizeof(etr_fbb_ref_t));
  writer->operator_is_prim =
      (bool *)calloc(method->num_operators + 1, sizeof(bool));
  if (writer->operator_names == NULL || writer->operator_is_prim == NULL) {
    return false;
  }
  for (uint32_t i = 0; i < method->num_operators; ++i) {
    char ignored[8];
    writer->operator_is_prim[i] =
        method->operators[i].name == NULL ||
        !etr_etdump_native_call_name(method->operators[i].name, ignored,
                                     sizeof(ignored));
  }
  return true;
}

etr_error_t etr_etdump_build(const etr_prof_t *const *profs, uint32_t count,
                             const etr_etdump_options_t *options,
                             etr_fbb_t *fbb, const uint8_t **data,
                             size_t *size, etr_etdump_summary_t *summary,
                             etr_diag_t *diag) {
  *data = NULL;
  *size = 0;
  uint32_t capturing = 0;
  for (uint32_t p = 0; p < count; ++p) {
    ETR_CHECK(diag, profs[p]->method != NULL, ETR_ERR_INVALID_STATE,
              "ETDump: profiler %u is not bound to a method", p);
    capturing += profs[p]->capture_buffer != NULL;
  }
  ETR_CHECK(diag, capturing <= 1 || !options->debug_events,
            ETR_ERR_INVALID_ARGUMENT,
            "ETDump: %u profilers captured values; debug events can point "
            "into one debug buffer only",
            capturing);
  writer_t writer;
  memset(&writer, 0, sizeof(writer));
  writer.options = options;
  writer.fbb = fbb;
  ref_list_t blocks = {0};
  if (options->load_end_ns > options->load_start_ns) {
    push_ref(&blocks, load_block(&writer));
  }
  etr_fbb_ref_t execute = string(fbb, "Execute");
  for (uint32_t p = 0; p < count && !writer.out_of_memory; ++p) {
    if (!prepare_operators(&writer, profs[p])) {
      writer.out_of_memory = true;
      break;
    }
    for (uint32_t r = 0; r < profs[p]->num_runs; ++r) {
      push_ref(&blocks, run_block(&writer, &profs[p]->runs[r], execute));
    }
  }
  etr_fbb_ref_t vector =
      etr_fbb_create_ref_vector(fbb, blocks.refs, blocks.count);
  writer.summary.blocks = (uint32_t)blocks.count;
  writer.out_of_memory |= blocks.failed;
  free(blocks.refs);
  free(writer.operator_names);
  free(writer.operator_is_prim);
  ETR_CHECK(diag, !writer.out_of_memory, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "ETDump: out of memory");
  etr_fbb_start_table(fbb);
  etr_fbb_add_u32(fbb, ETDUMP_VERSION, 0, 0);
  etr_fbb_add_ref(fbb, ETDUMP_RUN_DATA, vector);
  etr_fbb_ref_t root = etr_fbb_end_table(fbb);
  ETR_TRY(etr_fbb_finish(fbb, root, "ED00", true, data, size, diag));
  if (summary != NULL) {
    *summary = writer.summary;
  }
  return ETR_OK;
}

static etr_error_t write_bytes(const char *path, const void *bytes,
                               size_t size, etr_diag_t *diag) {
  FILE *file = fopen(path, "wb");
  ETR_CHECK(diag, file != NULL, ETR_ERR_ACCESS_FAILED,
            "cannot write %s", path);
  bool ok = size == 0 || fwrite(bytes, 1, size, file) == size;
  ok = fclose(file) == 0 && ok;
  ETR_CHECK(diag, ok, ETR_ERR_ACCESS_FAILED, "cannot write %s", path);
  return ETR_OK;
}

etr_error_t etr_etdump_write(const etr_prof_t *const *profs, uint32_t count,
                             const etr_etdump_options_t *options,
                             const char *path, const char *debug_buffer_path,
                             etr_etdump_summary_t *summary, etr_diag_t *diag) {
  etr_fbb_t fbb;
  etr_fbb_init(&fbb, 64 * 1024);
  const uint8_t *data = NULL;
  size_t size = 0;
  etr_error_t status = etr_etdump_build(profs, count, options, &fbb, &data,
                                        &size, summary, diag);
  if (status == ETR_OK) {
    status = write_bytes(path, data, size, diag);
  }
  if (status == ETR_OK && debug_buffer_path != NULL) {
    const etr_prof_t *capturing = NULL;
    for (uint32_t p = 0; p < count; ++p) {
      capturing = profs[p]->capture_buffer != NULL ? profs[p] : capturing;
    }
    status = write_bytes(debug_buffer_path,
                         capturing != NULL ? capturing->capture_buffer : NULL,
                         capturing != NULL ? capturing->capture_used : 0,
                         diag);
  }
  etr_fbb_release(&fbb);
  return status;
}
