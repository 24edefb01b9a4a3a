// SPDX-License-Identifier: Apache-2.0
//
// Maps and alignment: the map format's rules (every malformed entry
// refused with its line), alignment through a map (delegate values by id
// and by name, instruction values, first entry wins, unused entries
// counted), by key for the same program, and outputs only otherwise.
#include <criterion/criterion.h>
#include <string.h>

#include "prof/oracle/align.h"

static etr_oracle_values_t g_values;

static void add(etr_oracle_origin_t origin, uint32_t instruction,
                int64_t debug_id, const char *name, uint32_t position) {
  static float data[4] = {1, 2, 3, 4};
  etr_tensor_t tensor;
  int64_t sizes[1] = {4};
  cr_assert_eq(etr_tensor_init(&tensor, ETR_FLOAT, 1, sizes, data,
                               sizeof(data), NULL),
               ETR_OK);
  etr_oracle_key_t key = {.origin = origin,
                          .instruction = instruction,
                          .position = position,
                          .debug_id = debug_id,
                          .debug_name = name};
  cr_assert_eq(etr_oracle_values_add_tensor(&g_values, &key, &tensor,
                                            ETR_TAG_TENSOR, NULL, UINT32_MAX,
                                            NULL),
               ETR_OK);
}

static void candidate_values(void) {
  etr_oracle_values_init(&g_values, 0);
  add(ETR_ORACLE_FROM_INSTRUCTION, 3, -1, NULL, 0);      // 0
  add(ETR_ORACLE_FROM_DELEGATE, 1, 7, NULL, 0);          // 1
  add(ETR_ORACLE_FROM_DELEGATE, 1, -1, "conv", 0);       // 2
  add(ETR_ORACLE_FROM_OUTPUT, 0, -1, NULL, 0);           // 3
  add(ETR_ORACLE_FROM_INSTRUCTION, 1, -1, NULL, 2);      // 4
}

static etr_error_t parse(const char *text, etr_oracle_map_t *map,
                         etr_diag_t *diag) {
  etr_diag_reset(diag);
  return etr_oracle_map_parse(text, strlen(text), "map.json", map, diag);
}

static const etr_oracle_record_t *find_instruction(
    const etr_oracle_alignment_t *a, uint32_t instruction, uint32_t output) {
  etr_oracle_key_t key = {.origin = ETR_ORACLE_FROM_INSTRUCTION,
                          .instruction = instruction,
                          .position = output,
                          .debug_id = -1};
  return etr_oracle_alignment_find(a, &key, NULL);
}

#define MAP_HEAD "{\"format\": \"etref-oracle-map\", \"version\": 1, "

Test(align, through_a_map) {
  candidate_values();
  etr_oracle_map_t map;
  etr_diag_t diag;
  cr_assert_eq(
      parse(MAP_HEAD "\"method\": \"forward\", \"entries\": [\n"
                     " {\"candidate\": {\"instruction\": 1, "
                     "\"delegate_debug_id\": 7}, \"reference\": "
                     "{\"instruction\": 5}, \"operator\": \"aten::x.out\"},\n"
                     " {\"candidate\": {\"instruction\": 1, "
                     "\"delegate_debug_name\": \"conv\"}, \"reference\": "
                     "{\"instruction\": 2}},\n"
                     " {\"candidate\": {\"instruction\": 3}, \"reference\": "
                     "{\"instruction\": 5}},\n"
                     " {\"candidate\": {\"instruction\": 1, \"output\": 2}, "
                     "\"reference\": {\"instruction\": 9, \"output\": 1}},\n"
                     " {\"candidate\": {\"instruction\": 42}, \"reference\": "
                     "{\"instruction\": 0}}]}",
            &map, &diag),
      ETR_OK, "%s", diag.message);
  cr_assert_eq(map.count, 5);
  cr_assert_str_eq(map.method, "forward");
  cr_assert_str_eq(map.entries[0].operator_name, "aten::x.out");
  etr_oracle_alignment_t a;
  cr_assert_eq(etr_oracle_align(&g_values, &map, false, true, &a, &diag),
               ETR_OK);
  int32_t entry = -1;
  etr_oracle_key_t five = {.origin = ETR_ORACLE_FROM_INSTRUCTION,
                           .instruction = 5, .debug_id = -1};
  cr_assert_eq(etr_oracle_alignment_find(&a, &five, &entry),
               &g_values.records[1], "the first entry wins");
  cr_assert_eq(entry, 0);
  cr_assert_eq(find_instruction(&a, 2, 0), &g_values.records[2]);
  cr_assert_eq(find_instruction(&a, 9, 1), &g_values.records[4]);
  cr_assert_null(find_instruction(&a, 0, 0));
  etr_oracle_key_t output = {.origin = ETR_ORACLE_FROM_OUTPUT,
                             .debug_id = -1};
  cr_assert_eq(etr_oracle_alignment_find(&a, &output, NULL),
               &g_values.records[3], "outputs align by position");
  cr_assert_eq(a.unused_entries, 1);
  cr_assert_eq(a.unaligned, 1, "instruction 3 stood for an aligned value");
  cr_assert(a.by_map);
  etr_oracle_alignment_release(&a);
  etr_oracle_map_release(&map);

  // Only outputs when intermediates are off.
  cr_assert_eq(parse(MAP_HEAD "\"entries\": [{\"candidate\": "
                              "{\"instruction\": 3}, \"reference\": "
                              "{\"instruction\": 5}}]}",
                     &map, &diag),
               ETR_OK);
  cr_assert_eq(etr_oracle_align(&g_values, &map, false, false, &a, &diag),
               ETR_OK);
  cr_assert_eq(a.count, 1);
  etr_oracle_alignment_release(&a);
  etr_oracle_map_release(&map);
  etr_oracle_values_release(&g_values);
}

Test(align, program_outputs_named_by_the_map) {
  candidate_values();
  etr_oracle_map_t map;
  etr_diag_t diag;
  cr_assert_eq(parse(MAP_HEAD "\"entries\": [{\"candidate\": "
                              "{\"instruction\": 3}, \"reference\": "
                              "{\"program_output\": 0}}]}",
                     &map, &diag),
               ETR_OK, "%s", diag.message);
  cr_assert(map.names_outputs);
  etr_oracle_alignment_t a;
  cr_assert_eq(etr_oracle_align(&g_values, &map, false, true, &a, &diag),
               ETR_OK);
  etr_oracle_key_t output = {.origin = ETR_ORACLE_FROM_OUTPUT,
                             .debug_id = -1};
  cr_assert_eq(etr_oracle_alignment_find(&a, &output, NULL),
               &g_values.records[0]);
  etr_oracle_alignment_release(&a);
  etr_oracle_map_release(&map);
  etr_oracle_values_release(&g_values);
}

Test(align, by_key_or_outputs_only) {
  candidate_values();
  etr_oracle_alignment_t a;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_oracle_align(&g_values, NULL, true, true, &a, &diag),
               ETR_OK);
  cr_assert(a.by_key);
  cr_assert_eq(a.count, 5, "every value aligns with itself");
  etr_oracle_key_t named = {.origin = ETR_ORACLE_FROM_DELEGATE,
                            .instruction = 1, .debug_id = -1,
                            .debug_name = "conv"};
  cr_assert_eq(etr_oracle_alignment_find(&a, &named, NULL),
               &g_values.records[2]);
  etr_oracle_alignment_release(&a);
  cr_assert_eq(etr_oracle_align(&g_values, NULL, false, true, &a, &diag),
               ETR_OK);
  cr_assert_eq(a.count, 1, "another program, no map: the output only");
  cr_assert_eq(a.unaligned, 4);
  etr_oracle_alignment_release(&a);
  etr_oracle_values_release(&g_values);
}

static void refused(const char *text, const char *needle) {
  etr_oracle_map_t map;
  etr_diag_t diag;
  cr_assert_eq(parse(text, &map, &diag), ETR_ERR_INVALID_ARGUMENT,
               "accepted: %s", text);
  cr_assert(strstr(diag.message, needle) != NULL, "'%s' lacks '%s'",
            diag.message, needle);
}

Test(align, malformed_maps_are_refused) {
  refused("not json", "JSON line 1");
  refused("{\"version\": 1, \"entries\": []}", "\"format\"");
  refused("{\"format\": \"etref-oracle-map\", \"version\": 3, "
          "\"entries\": []}",
          "\"version\" must be 1");
  refused(MAP_HEAD "\"entries\": {}}", "\"entries\" must be an array");
  refused(MAP_HEAD "\"method\": 3, \"entries\": []}", "\"method\"");
  refused(MAP_HEAD "\"entries\": [7]}", "an entry must be an object");
  refused(MAP_HEAD "\"entries\": [{\"reference\": {\"instruction\": 1}}]}",
          "\"candidate\" must be an object");
  refused(MAP_HEAD "\"entries\": [{\"candidate\": {\"instrution\": 1}, "
                   "\"reference\": {\"instruction\": 1}}]}",
          "unknown key: instrution");
  refused(MAP_HEAD "\"entries\": [{\"candidate\": {\"output\": 1}, "
                   "\"reference\": {\"instruction\": 1}}]}",
          "needs \"instruction\" or \"program_output\"");
  refused(MAP_HEAD "\"entries\": [{\"candidate\": {\"instruction\": -2}, "
                   "\"reference\": {\"instruction\": 1}}]}",
          "instruction must be a non-negative integer");
  refused(MAP_HEAD "\"entries\": [{\"candidate\": {\"instruction\": 1.5}, "
                   "\"reference\": {\"instruction\": 1}}]}",
          "instruction must be a non-negative integer");
  refused(MAP_HEAD "\"entries\": [{\"candidate\": {\"program_output\": 0, "
                   "\"instruction\": 1}, \"reference\": {\"instruction\": "
                   "1}}]}",
          "\"program_output\" stands alone");
  refused(MAP_HEAD "\"entries\": [{\"candidate\": {\"instruction\": 1}, "
                   "\"reference\": {\"instruction\": 1, "
                   "\"delegate_debug_id\": 2}}]}",
          "unknown key: delegate_debug_id");
  refused(MAP_HEAD "\"entries\": [{\"candidate\": {\"instruction\": 1, "
                   "\"delegate_debug_name\": \"\"}, \"reference\": "
                   "{\"instruction\": 1}}]}",
          "must be a non-empty string");
  // The line of the offending entry is named.
  refused(MAP_HEAD "\"entries\": [\n{\"candidate\": {\"instruction\": 1}, "
                   "\"reference\": {\"instruction\": 1}},\n\n"
                   "{\"candidate\": {\"bad\": 1}, \"reference\": {}}]}",
          "line 4");
}
