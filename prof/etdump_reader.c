// SPDX-License-Identifier: Apache-2.0
//
// The ETDump reader (see etdump_reader.h), on core/flatbuffer.h.
#include "prof/etdump_reader.h"

#include <stdlib.h>
#include <string.h>

#include "core/flatbuffer.h"

// Field ids of devtools/etdump/etdump_schema_flatcc.fbs (see etdump.c).
enum {
  ETDUMP_VERSION = 0, ETDUMP_RUN_DATA = 1,
  RUN_NAME = 0, RUN_BUNDLED_INPUT_INDEX = 1, RUN_EVENTS = 3,
  EVENT_PROFILE = 0, EVENT_ALLOCATION = 1, EVENT_DEBUG = 2,
  PROFILE_NAME = 0, PROFILE_CHAIN = 1, PROFILE_INSTRUCTION = 2,
  PROFILE_DELEGATE_INT = 3, PROFILE_DELEGATE_STR = 4, PROFILE_START = 6,
  PROFILE_END = 7,
  DEBUG_CHAIN = 0, DEBUG_INSTRUCTION = 1, DEBUG_ENTRY = 2,
  DEBUG_DELEGATE_INT = 3, DEBUG_DELEGATE_STR = 4, DEBUG_NAME = 5,
  VALUE_VAL = 0, VALUE_TENSOR = 1, VALUE_TENSOR_LIST = 2, VALUE_INT = 3,
  VALUE_FLOAT = 4, VALUE_DOUBLE = 5, VALUE_BOOL = 6, VALUE_OUTPUT = 7,
  TENSOR_SCALAR_TYPE = 0, TENSOR_SIZES = 1, TENSOR_STRIDES = 2,
  TENSOR_OFFSET = 3, TENSOR_LIST_TENSORS = 0,
  ALLOCATION_ALLOCATOR = 0, ALLOCATION_SIZE = 1,
};

static etr_error_t optional_string(const etr_fb_table_t *table,
                                   unsigned field, const char **out,
                                   bool keep_null, etr_diag_t *diag) {
  etr_fb_string_t text;
  bool present = false;
  ETR_TRY(etr_fb_string_field(table, field, &text, &present, diag));
  *out = present ? text.chars : (keep_null ? NULL : "");
  return ETR_OK;
}

static etr_error_t read_profile(const etr_fb_table_t *table,
                                etr_etdump_event_t *event, etr_diag_t *diag) {
  event->type = ETR_ETDUMP_PROFILE;
  ETR_TRY(optional_string(table, PROFILE_NAME, &event->name, false, diag));
  int32_t chain = 0;
  ETR_TRY(etr_fb_i32(table, PROFILE_CHAIN, 0, &chain, diag));
  event->chain_index = chain;
  ETR_TRY(etr_fb_i32(table, PROFILE_INSTRUCTION, -1, &event->instruction_id,
                     diag));
  ETR_TRY(etr_fb_i32(table, PROFILE_DELEGATE_INT, -1,
                     &event->delegate_debug_id_int, diag));
  ETR_TRY(optional_string(table, PROFILE_DELEGATE_STR,
                          &event->delegate_debug_id_str, true, diag));
  ETR_TRY(etr_fb_u64(table, PROFILE_START, 0, &event->start_time, diag));
  return etr_fb_u64(table, PROFILE_END, 0, &event->end_time, diag);
}

// One logged Tensor into etdump->tensors.
static etr_error_t read_tensor(const etr_fb_table_t *table,
                               etr_etdump_t *etdump, etr_diag_t *diag) {
  if (etdump->num_tensors == etdump->tensor_capacity) {
    uint32_t capacity =
        etdump->tensor_capacity ? etdump->tensor_capacity * 2 : 64;
    etr_etdump_tensor_t *grown = (etr_etdump_tensor_t *)realloc(
        etdump->tensors, capacity * sizeof(etr_etdump_tensor_t));
    ETR_CHECK(diag, grown != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
              "out of memory for %u ETDump tensors", capacity);
    etdump->tensors = grown;
    etdump->tensor_capacity = capacity;
  }
  etr_etdump_tensor_t *tensor = &etdump->tensors[etdump->num_tensors];
  memset(tensor, 0, sizeof(*tensor));
  ETR_TRY(etr_fb_i8(table, TENSOR_SCALAR_TYPE, 0, &tensor->scalar_type,
                    diag));
  etr_fb_vector_t sizes;
  etr_fb_vector_t strides;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(table, TENSOR_SIZES, 8, &sizes, &present,
                              diag));
  ETR_CHECK(diag, sizes.length <= ETR_ETDUMP_MAX_DIMS,
            ETR_ERR_INVALID_PROGRAM, "a tensor of rank %u (at most %d)",
            sizes.length, ETR_ETDUMP_MAX_DIMS);
  tensor->dim = (int32_t)sizes.length;
  const uint8_t *size_bytes = etr_fb_vector_bytes(&sizes);
  for (uint32_t d = 0; d < sizes.length; ++d) {
    tensor->sizes[d] = (int64_t)etr_load_u64(size_bytes + 8 * (size_t)d);
  }
  ETR_TRY(etr_fb_vector_field(table, TENSOR_STRIDES, 8, &strides,
                              &tensor->has_strides, diag));
  if (tensor->has_strides && strides.length == 0 && sizes.length != 0) {
    tensor->has_strides = false;  // an empty list: dense
  }
  if (tensor->has_strides) {
    ETR_CHECK(diag, strides.length == sizes.length, ETR_ERR_INVALID_PROGRAM,
              "a tensor of rank %u with %u strides", sizes.length,
              strides.length);
    const uint8_t *stride_bytes = etr_fb_vector_bytes(&strides);
    for (uint32_t d = 0; d < strides.length; ++d) {
      tensor->strides[d] =
          (int64_t)etr_load_u64(stride_bytes + 8 * (size_t)d);
    }
  }
  ETR_TRY(etr_fb_i64(table, TENSOR_OFFSET, 0, &tensor->offset, diag));
  ++etdump->num_tensors;
  return ETR_OK;
}

static etr_error_t read_debug(const etr_fb_table_t *table,
                              etr_etdump_event_t *event, etr_etdump_t *etdump,
                              etr_diag_t *diag) {
  event->type = ETR_ETDUMP_DEBUG;
  ETR_TRY(optional_string(table, DEBUG_NAME, &event->name, false, diag));
  uint64_t chain = 0;
  ETR_TRY(etr_fb_u64(table, DEBUG_CHAIN, 0, &chain, diag));
  event->chain_index = (int64_t)chain;
  ETR_TRY(etr_fb_i32(table, DEBUG_INSTRUCTION, -1, &event->instruction_id,
                     diag));
  ETR_TRY(etr_fb_i32(table, DEBUG_DELEGATE_INT, -1,
                     &event->delegate_debug_id_int, diag));
  ETR_TRY(optional_string(table, DEBUG_DELEGATE_STR,
                          &event->delegate_debug_id_str, true, diag));
  etr_fb_table_t value;
  bool present = false;
  ETR_TRY(etr_fb_table_field(table, DEBUG_ENTRY, &value, &present, diag));
  ETR_CHECK(diag, present, ETR_ERR_INVALID_PROGRAM,
            "DebugEvent without a debug_entry");
  ETR_TRY(etr_fb_u8(&value, VALUE_VAL, 0, &event->value_type, diag));
  etr_fb_table_t output;
  ETR_TRY(etr_fb_table_field(&value, VALUE_OUTPUT, &output, &present, diag));
  if (present) {
    ETR_TRY(etr_fb_bool(&output, 0, false, &event->is_output, diag));
  }
  event->first_tensor = etdump->num_tensors;
  etr_fb_table_t tensor;
  ETR_TRY(etr_fb_table_field(&value, VALUE_TENSOR, &tensor, &present, diag));
  if (present) {
    ETR_TRY(read_tensor(&tensor, etdump, diag));
  }
  etr_fb_table_t list;
  ETR_TRY(etr_fb_table_field(&value, VALUE_TENSOR_LIST, &list, &present,
                             diag));
  if (present) {
    etr_fb_vector_t tensors;
    ETR_TRY(etr_fb_vector_field(&list, TENSOR_LIST_TENSORS, 4, &tensors,
                                &present, diag));
    for (uint32_t k = 0; k < tensors.length; ++k) {
      etr_fb_table_t element;
      ETR_TRY(etr_fb_vector_table(&tensors, k, &element, diag));
      ETR_TRY(read_tensor(&element, etdump, diag));
    }
  }
  event->num_tensors = etdump->num_tensors - event->first_tensor;
  if (event->num_tensors > 0) {
    const etr_etdump_tensor_t *first = &etdump->tensors[event->first_tensor];
    event->scalar_type = first->scalar_type;
    event->dim = first->dim;
    event->offset = first->offset;
  }
  etr_fb_table_t scalar;
  ETR_TRY(etr_fb_table_field(&value, VALUE_INT, &scalar, &present, diag));
  if (present) {
    ETR_TRY(etr_fb_i64(&scalar, 0, 0, &event->int_value, diag));
  }
  ETR_TRY(etr_fb_table_field(&value, VALUE_BOOL, &scalar, &present, diag));
  if (present) {
    ETR_TRY(etr_fb_bool(&scalar, 0, false, &event->bool_value, diag));
  }
  ETR_TRY(etr_fb_table_field(&value, VALUE_DOUBLE, &scalar, &present, diag));
  if (present) {
    uint64_t bits = 0;
    ETR_TRY(etr_fb_u64(&scalar, 0, 0, &bits, diag));
    memcpy(&event->double_value, &bits, sizeof(bits));
  }
  ETR_TRY(etr_fb_table_field(&value, VALUE_FLOAT, &scalar, &present, diag));
  if (present) {
    uint32_t bits = 0;
    ETR_TRY(etr_fb_u32(&scalar, 0, 0, &bits, diag));
    float narrow;
    memcpy(&narrow, &bits, sizeof(bits));
    event->double_value = narrow;
  }
  return ETR_OK;
}

static etr_error_t read_event(const etr_fb_table_t *table,
                              etr_etdump_event_t *event, etr_etdump_t *etdump,
                              etr_diag_t *diag) {
  memset(event, 0, sizeof(*event));
  event->name = "";
  event->instruction_id = -1;
  event->delegate_debug_id_int = -1;
  etr_fb_table_t inner;
  bool present = false;
  ETR_TRY(etr_fb_table_field(table, EVENT_PROFILE, &inner, &present, diag));
  if (present) {
    return read_profile(&inner, event, diag);
  }
  ETR_TRY(etr_fb_table_field(table, EVENT_DEBUG, &inner, &present, diag));
  if (present) {
    return read_debug(&inner, event, etdump, diag);
  }
  ETR_TRY(etr_fb_table_field(table, EVENT_ALLOCATION, &inner, &present,
                             diag));
  ETR_CHECK(diag, present, ETR_ERR_INVALID_PROGRAM,
            "Event with no profile, debug or allocation event");
  event->type = ETR_ETDUMP_ALLOCATION;
  ETR_TRY(etr_fb_i32(&inner, ALLOCATION_ALLOCATOR, 0, &event->allocator_id,
                     diag));
  return etr_fb_u64(&inner, ALLOCATION_SIZE, 0, &event->allocation_size,
                    diag);
}

static etr_error_t read_blocks(const etr_fb_table_t *root,
                               etr_etdump_t *etdump, etr_diag_t *diag) {
  ETR_TRY(etr_fb_u32(root, ETDUMP_VERSION, 0, &etdump->version, diag));
  etr_fb_vector_t runs;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(root, ETDUMP_RUN_DATA, 4, &runs, &present,
                              diag));
  // First pass: sizes (bounded by the buffer, so no hostile overflow).
  uint64_t total_events = 0;
  for (uint32_t r = 0; r < runs.length; ++r) {
    etr_fb_table_t run;
    ETR_TRY(etr_fb_vector_table(&runs, r, &run, diag));
    etr_fb_vector_t events;
    ETR_TRY(etr_fb_vector_field(&run, RUN_EVENTS, 4, &events, &present,
                                diag));
    total_events += events.length;
  }
  etdump->blocks = (etr_etdump_block_t *)calloc(runs.length + 1,
                                                sizeof(etr_etdump_block_t));
  etdump->events = (etr_etdump_event_t *)calloc(total_events + 1,
                                                sizeof(etr_etdump_event_t));
  ETR_CHECK(diag, etdump->blocks != NULL && etdump->events != NULL,
            ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for %llu ETDump events",
            (unsigned long long)total_events);
  for (uint32_t r = 0; r < runs.length; ++r) {
    etr_fb_table_t run;
    ETR_TRY(etr_fb_vector_table(&runs, r, &run, diag));
    etr_etdump_block_t *block = &etdump->blocks[etdump->num_blocks++];
    ETR_TRY(optional_string(&run, RUN_NAME, &block->name, false, diag));
    ETR_TRY(etr_fb_i32(&run, RUN_BUNDLED_INPUT_INDEX, -1,
                       &block->bundled_input_index, diag));
    etr_fb_vector_t events;
    ETR_TRY(etr_fb_vector_field(&run, RUN_EVENTS, 4, &events, &present,
                                diag));
    block->first_event = etdump->num_events;
    for (uint32_t e = 0; e < events.length; ++e) {
      etr_fb_table_t event;
      etr_error_t status = etr_fb_vector_table(&events, e, &event, diag);
      if (status == ETR_OK) {
        status = read_event(&event, &etdump->events[etdump->num_events],
                            etdump, diag);
      }
      if (status != ETR_OK) {
        etr_diag_prefix(diag, "ETDump run_data[%u].events[%u]", r, e);
        return status;
      }
      ++etdump->num_events;
      ++block->num_events;
    }
  }
  return ETR_OK;
}

etr_error_t etr_etdump_read(const uint8_t *data, size_t size,
                            etr_etdump_t *etdump, etr_diag_t *diag) {
  memset(etdump, 0, sizeof(*etdump));
  ETR_CHECK(diag, size >= 12, ETR_ERR_INVALID_PROGRAM,
            "ETDump of %zu bytes is too short", size);
  uint32_t prefixed = etr_load_u32(data);
  ETR_CHECK(diag, prefixed <= size - 4, ETR_ERR_INVALID_PROGRAM,
            "ETDump size prefix %u exceeds the %zu bytes that follow it",
            prefixed, size - 4);
  ETR_CHECK(diag, etr_fb_has_identifier(data + 4, prefixed, "ED00"),
            ETR_ERR_INVALID_PROGRAM,
            "not an ETDump: no size-prefixed \"ED00\" identifier");
  etr_fb_table_t root;
  etr_error_t status = etr_fb_root(data + 4, prefixed, &root, diag);
  if (status == ETR_OK) {
    status = read_blocks(&root, etdump, diag);
  }
  if (status != ETR_OK) {
    etr_etdump_release(etdump);
  }
  return status;
}

void etr_etdump_release(etr_etdump_t *etdump) {
  free(etdump->blocks);
  free(etdump->events);
  free(etdump->tensors);
  memset(etdump, 0, sizeof(*etdump));
}
