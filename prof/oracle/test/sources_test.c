// SPDX-License-Identifier: Apache-2.0
//
// Candidate values from ETDump debug events, on an ETDump built here event
// by event (prof/flatbuffer_builder.h, ExecuTorch's etdump schema): values
// a delegate reported by int and by string id (TensorLists flattened),
// instruction outputs with positions, scalars, a second execution of an
// instruction, program outputs; and the refusals: negative strides,
// tensors past the debug buffer, unknown dtypes, too many dimensions. And
// which run block a bundled test set reads.
#include <criterion/criterion.h>
#include <string.h>

#include "prof/etdump_reader.h"
#include "prof/flatbuffer_builder.h"
#include "prof/oracle/sources.h"

enum {
  ETDUMP_RUN_DATA = 1, RUN_NAME = 0, RUN_EVENTS = 3, EVENT_DEBUG = 2,
  DEBUG_CHAIN = 0, DEBUG_INSTRUCTION = 1, DEBUG_ENTRY = 2,
  DEBUG_DELEGATE_INT = 3, DEBUG_DELEGATE_STR = 4,
  VALUE_VAL = 0, VALUE_TENSOR = 1, VALUE_TENSOR_LIST = 2, VALUE_INT = 3,
  VALUE_OUTPUT = 7,
  TENSOR_SCALAR_TYPE = 0, TENSOR_SIZES = 1, TENSOR_STRIDES = 2,
  TENSOR_OFFSET = 3,
};

static etr_fbb_t g_fbb;

static etr_fbb_ref_t tensor(int8_t dtype, const int64_t *sizes, size_t dim,
                            const int64_t *strides, int64_t offset) {
  etr_fbb_ref_t s = etr_fbb_create_scalar_vector(&g_fbb, sizes, dim, 8);
  etr_fbb_ref_t t = strides != NULL
                        ? etr_fbb_create_scalar_vector(&g_fbb, strides, dim, 8)
                        : 0;
  etr_fbb_start_table(&g_fbb);
  etr_fbb_add_i64(&g_fbb, TENSOR_OFFSET, offset, 0);
  etr_fbb_add_ref(&g_fbb, TENSOR_SIZES, s);
  etr_fbb_add_ref(&g_fbb, TENSOR_STRIDES, t);
  etr_fbb_add_i8(&g_fbb, TENSOR_SCALAR_TYPE, dtype, 0);
  return etr_fbb_end_table(&g_fbb);
}

static etr_fbb_ref_t value(unsigned field, etr_fbb_ref_t payload,
                           uint8_t type, bool output) {
  etr_fbb_ref_t flag = 0;
  if (output) {
    etr_fbb_start_table(&g_fbb);
    etr_fbb_add_u8(&g_fbb, 0, 1, 0);
    flag = etr_fbb_end_table(&g_fbb);
  }
  etr_fbb_start_table(&g_fbb);
  etr_fbb_add_ref(&g_fbb, field, payload);
  etr_fbb_add_ref(&g_fbb, VALUE_OUTPUT, flag);
  etr_fbb_add_u8(&g_fbb, VALUE_VAL, type, 0);
  return etr_fbb_end_table(&g_fbb);
}

static etr_fbb_ref_t debug(uint64_t chain, int32_t instruction,
                           int32_t delegate_id, const char *delegate_name,
                           etr_fbb_ref_t entry) {
  etr_fbb_ref_t name =
      delegate_name != NULL
          ? etr_fbb_create_string(&g_fbb, delegate_name,
                                  strlen(delegate_name))
          : 0;
  etr_fbb_start_table(&g_fbb);
  etr_fbb_add_u64(&g_fbb, DEBUG_CHAIN, chain, 0);
  etr_fbb_add_i32(&g_fbb, DEBUG_INSTRUCTION, instruction, -1);
  etr_fbb_add_ref(&g_fbb, DEBUG_ENTRY, entry);
  etr_fbb_add_i32(&g_fbb, DEBUG_DELEGATE_INT, delegate_id, -1);
  etr_fbb_add_ref(&g_fbb, DEBUG_DELEGATE_STR, name);
  etr_fbb_ref_t inner = etr_fbb_end_table(&g_fbb);
  etr_fbb_start_table(&g_fbb);
  etr_fbb_add_ref(&g_fbb, EVENT_DEBUG, inner);
  return etr_fbb_end_table(&g_fbb);
}

static const uint8_t *finish(etr_fbb_ref_t *events, size_t count,
                             size_t *size) {
  etr_fbb_ref_t list = etr_fbb_create_ref_vector(&g_fbb, events, count);
  etr_fbb_ref_t name = etr_fbb_create_string(&g_fbb, "Execute", 7);
  etr_fbb_start_table(&g_fbb);
  etr_fbb_add_ref(&g_fbb, RUN_NAME, name);
  etr_fbb_add_ref(&g_fbb, RUN_EVENTS, list);
  etr_fbb_ref_t run = etr_fbb_end_table(&g_fbb);
  etr_fbb_ref_t runs = etr_fbb_create_ref_vector(&g_fbb, &run, 1);
  etr_fbb_start_table(&g_fbb);
  etr_fbb_add_ref(&g_fbb, ETDUMP_RUN_DATA, runs);
  etr_fbb_ref_t root = etr_fbb_end_table(&g_fbb);
  const uint8_t *data = NULL;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_fbb_finish(&g_fbb, root, "ED00", true, &data, size, &diag),
               ETR_OK, "%s", diag.message);
  return data;
}

static float g_buffer[64];

static etr_error_t read_values(const uint8_t *data, size_t size,
                               etr_oracle_values_t *values, etr_diag_t *diag) {
  etr_etdump_t etdump;
  etr_diag_reset(diag);
  etr_error_t status = etr_etdump_read(data, size, &etdump, diag);
  if (status == ETR_OK) {
    cr_assert_eq(etr_oracle_etdump_debug_blocks(&etdump), 1);
    status = etr_oracle_values_from_etdump(&etdump, 0,
                                           (const uint8_t *)g_buffer,
                                           sizeof(g_buffer), values, diag);
  }
  etr_etdump_release(&etdump);
  return status;
}

static const etr_oracle_record_t *find(const etr_oracle_values_t *values,
                                       etr_oracle_origin_t origin,
                                       uint32_t instruction,
                                       uint32_t occurrence, uint32_t position,
                                       int64_t debug_id, const char *name) {
  etr_oracle_key_t key = {.origin = origin,
                          .instruction = instruction,
                          .occurrence = occurrence,
                          .position = position,
                          .debug_id = debug_id,
                          .debug_name = name};
  const etr_oracle_record_t *record = etr_oracle_values_find(values, &key);
  cr_assert_not_null(record, "no value at instruction %u pos %u id %lld %s",
                     instruction, position, (long long)debug_id,
                     name != NULL ? name : "");
  return record;
}

Test(sources, etdump_debug_events) {
  for (int i = 0; i < 64; ++i) {
    g_buffer[i] = (float)i;
  }
  etr_fbb_init(&g_fbb, 0);
  int64_t two[1] = {2}, one[1] = {1}, one_stride[1] = {1};
  int64_t grid[2] = {2, 2}, transposed[2] = {1, 2};
  etr_fbb_ref_t events[8];
  size_t n = 0;
  // A value the delegate at instruction 2 reported by id, then a list by
  // name, then the call's own arguments (a transposed 2x2 and an Int).
  events[n++] = debug(0, 2, 7, NULL,
                      value(VALUE_TENSOR, tensor(6, two, 1, NULL, 0), 5,
                            false));
  etr_fbb_ref_t list_items[2] = {tensor(6, one, 1, one_stride, 16),
                                 tensor(6, one, 1, NULL, 32)};
  etr_fbb_ref_t items = etr_fbb_create_ref_vector(&g_fbb, list_items, 2);
  etr_fbb_start_table(&g_fbb);
  etr_fbb_add_ref(&g_fbb, 0, items);
  etr_fbb_ref_t list = etr_fbb_end_table(&g_fbb);
  events[n++] = debug(0, 2, -1, "conv", value(VALUE_TENSOR_LIST, list, 6,
                                              false));
  events[n++] = debug(0, 2, -1, NULL,
                      value(VALUE_TENSOR, tensor(6, grid, 2, transposed, 8),
                            5, false));
  etr_fbb_start_table(&g_fbb);
  etr_fbb_add_i64(&g_fbb, 0, 5, 0);
  etr_fbb_ref_t five = etr_fbb_end_table(&g_fbb);
  events[n++] = debug(0, 2, -1, NULL, value(VALUE_INT, five, 1, false));
  // Instruction 3, then instruction 2 again: its second execution.
  events[n++] = debug(0, 3, -1, NULL,
                      value(VALUE_TENSOR, tensor(6, two, 1, NULL, 4), 5,
                            false));
  events[n++] = debug(0, 2, -1, NULL,
                      value(VALUE_TENSOR, tensor(6, two, 1, NULL, 48), 5,
                            false));
  // The program output (ExecuTorch's reset chain, -1 as unsigned).
  events[n++] = debug(UINT64_MAX, 0, -1, NULL,
                      value(VALUE_TENSOR, tensor(6, two, 1, NULL, 56), 5,
                            true));
  size_t size = 0;
  const uint8_t *data = finish(events, n, &size);
  etr_oracle_values_t values;
  etr_oracle_values_init(&values, 0);
  etr_diag_t diag;
  cr_assert_eq(read_values(data, size, &values, &diag), ETR_OK, "%s",
               diag.message);
  const etr_oracle_record_t *r =
      find(&values, ETR_ORACLE_FROM_DELEGATE, 2, 0, 0, 7, NULL);
  cr_assert_eq(((float *)r->tensor.data)[1], 1.0f);
  r = find(&values, ETR_ORACLE_FROM_DELEGATE, 2, 0, 1, -1, "conv");
  cr_assert_eq(((float *)r->tensor.data)[0], 8.0f, "list element 1");
  r = find(&values, ETR_ORACLE_FROM_INSTRUCTION, 2, 0, 0, -1, NULL);
  float *grid_values = (float *)r->tensor.data;
  // Strides [1, 2] from element 2: logical [[2, 4], [3, 5]].
  cr_assert(grid_values[0] == 2 && grid_values[1] == 4 &&
            grid_values[2] == 3 && grid_values[3] == 5);
  r = find(&values, ETR_ORACLE_FROM_INSTRUCTION, 2, 0, 1, -1, NULL);
  cr_assert_eq(r->tensor.dtype, ETR_LONG);
  cr_assert_eq(*(int64_t *)r->tensor.data, 5);
  r = find(&values, ETR_ORACLE_FROM_INSTRUCTION, 3, 0, 0, -1, NULL);
  r = find(&values, ETR_ORACLE_FROM_INSTRUCTION, 2, 1, 0, -1, NULL);
  cr_assert_eq(((float *)r->tensor.data)[0], 12.0f);
  r = find(&values, ETR_ORACLE_FROM_OUTPUT, 0, 0, 0, -1, NULL);
  cr_assert_eq(((float *)r->tensor.data)[1], 15.0f);
  cr_assert_eq(values.count, 8);
  etr_oracle_values_release(&values);
  etr_fbb_release(&g_fbb);
}

static void refused(etr_fbb_ref_t (*make)(void), const char *needle) {
  etr_fbb_init(&g_fbb, 0);
  etr_fbb_ref_t event = make();
  size_t size = 0;
  const uint8_t *data = finish(&event, 1, &size);
  etr_oracle_values_t values;
  etr_oracle_values_init(&values, 0);
  etr_diag_t diag;
  cr_assert_eq(read_values(data, size, &values, &diag),
               ETR_ERR_INVALID_PROGRAM);
  cr_assert(strstr(diag.message, needle) != NULL, "'%s' lacks '%s'",
            diag.message, needle);
  etr_oracle_values_release(&values);
  etr_fbb_release(&g_fbb);
}

static etr_fbb_ref_t negative_stride(void) {
  int64_t sizes[1] = {2}, strides[1] = {-1};
  return debug(0, 0, -1, NULL,
               value(VALUE_TENSOR, tensor(6, sizes, 1, strides, 8), 5,
                     false));
}

static etr_fbb_ref_t past_the_buffer(void) {
  int64_t sizes[1] = {10};
  return debug(0, 0, -1, NULL,
               value(VALUE_TENSOR, tensor(6, sizes, 1, NULL, 240), 5, false));
}

static etr_fbb_ref_t huge_offset(void) {
  int64_t sizes[1] = {1};
  return debug(0, 0, -1, NULL,
               value(VALUE_TENSOR, tensor(6, sizes, 1, NULL, INT64_MAX), 5,
                     false));
}

static etr_fbb_ref_t unknown_dtype(void) {
  int64_t sizes[1] = {1};
  return debug(0, 0, -1, NULL,
               value(VALUE_TENSOR, tensor(99, sizes, 1, NULL, 0), 5, false));
}

static etr_fbb_ref_t rank_17(void) {
  int64_t sizes[17];
  for (int i = 0; i < 17; ++i) {
    sizes[i] = 1;
  }
  return debug(0, 0, -1, NULL,
               value(VALUE_TENSOR, tensor(6, sizes, 17, NULL, 0), 5, false));
}

static etr_fbb_ref_t no_instruction(void) {
  int64_t sizes[1] = {1};
  return debug(0, -1, -1, NULL,
               value(VALUE_TENSOR, tensor(6, sizes, 1, NULL, 0), 5, false));
}

Test(sources, malformed_events_are_refused) {
  refused(negative_stride, "a negative stride");
  refused(past_the_buffer, "outside the 256-byte debug buffer");
  refused(huge_offset, "outside the 256-byte debug buffer");
  refused(unknown_dtype, "unknown scalar type 99");
  refused(rank_17, "a tensor of rank 17");
  refused(no_instruction, "names no instruction");
}

Test(sources, bundled_test_sets_pick_their_run_block) {
  // Blocks: a load block (profiling only), then runs of test sets 2 and 0
  // and an untagged run, as a runtime executing a bundle's test sets
  // writes them (RunData.bundled_input_index).
  etr_etdump_event_t events[4];
  memset(events, 0, sizeof(events));
  events[0].type = ETR_ETDUMP_PROFILE;
  events[1].type = ETR_ETDUMP_DEBUG;
  events[2].type = ETR_ETDUMP_DEBUG;
  events[3].type = ETR_ETDUMP_DEBUG;
  etr_etdump_block_t blocks[4] = {
      {.name = "Default", .bundled_input_index = -1, .first_event = 0,
       .num_events = 1},
      {.name = "Execute", .bundled_input_index = 2, .first_event = 1,
       .num_events = 1},
      {.name = "Execute", .bundled_input_index = 0, .first_event = 2,
       .num_events = 1},
      {.name = "Execute", .bundled_input_index = -1, .first_event = 3,
       .num_events = 1},
  };
  etr_etdump_t etdump;
  memset(&etdump, 0, sizeof(etdump));
  etdump.blocks = blocks;
  etdump.num_blocks = 4;
  etdump.events = events;
  etdump.num_events = 4;
  cr_assert_eq(etr_oracle_etdump_debug_blocks(&etdump), 3);
  // By its index, whatever the case's position among those judged.
  cr_assert_eq(etr_oracle_etdump_block(&etdump, 0, 0), 2);
  cr_assert_eq(etr_oracle_etdump_block(&etdump, 2, 1), 1);
  // An index no block carries: the ordinal-th block with debug events
  // among those no other test set's index tags (the load block has none).
  cr_assert_eq(etr_oracle_etdump_block(&etdump, 1, 0), 3);
  cr_assert_eq(etr_oracle_etdump_block(&etdump, 1, 1), -1);
  // Inputs from files: the ordinal-th block with debug events.
  cr_assert_eq(etr_oracle_etdump_block(&etdump, -1, 0), 1);
  cr_assert_eq(etr_oracle_etdump_block(&etdump, -1, 2), 3);
  cr_assert_eq(etr_oracle_etdump_block(&etdump, -1, 3), -1);
}
