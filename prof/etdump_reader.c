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
  VALUE_VAL = 0, VALUE_TENSOR = 1, VALUE_OUTPUT = 7,
  TENSOR_SCALAR_TYPE = 0, TENSOR_SIZES = 1, TENSOR_OFFSET = 3,
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

static etr_error_t read_debug(const etr_fb_table_t *table,
                              etr_etdump_event_t *event, etr_diag_t *diag) {
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
  etr_fb_table_t tensor;
  ETR_TRY(etr_fb_table_field(&value, VALUE_TENSOR, &tensor, &present, diag));
  if (present) {
    ETR_TRY(etr_fb_i8(&tensor, TENSOR_SCALAR_TYPE, 0, &event->scalar_type,
                      diag));
    etr_fb_vector_t sizes;
    bool has_sizes = false;
    ETR_TRY(etr_fb_vector_field(&tensor, TENSOR_SIZES, 8, &sizes,
                                &has_sizes, diag));
    event->dim = (int32_t)sizes.length;
    ETR_TRY(etr_fb_i64(&tensor, TENSOR_OFFSET, 0, &event->offset, diag));
  }
  return ETR_OK;
}

static etr_error_t read_event(const etr_fb_table_t *table,
                              etr_etdump_event_t *event, etr_diag_t *diag) {
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
    return read_debug(&inner, event, diag);
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
                            diag);
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
  memset(etdump, 0, sizeof(*etdump));
}
