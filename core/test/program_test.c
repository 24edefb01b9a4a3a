// SPDX-License-Identifier: Apache-2.0
//
// The .pte, .ptd and .bpte loaders on the real files in datasets/, and on
// malformed ones: every truncation of a real program, wrong identifiers,
// header fields and offsets pointing past the end, absurd sizes. Each must
// load or fail with a clean error; ASan and UBSan (bazel test
// --config=asan) catch any read outside the buffer.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/bundled_program.h"
#include "core/data_map.h"
#include "core/program.h"
#include "core/test/test_files.h"

#define MLP "datasets/models/mlp/model.pte"

Test(program, loads_a_real_program_with_extended_header) {
  size_t size = 0;
  uint8_t *data = etr_test_read_file(MLP, &size);
  etr_program_t program;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load(data, size, &program, &diag), ETR_OK, "%s",
               diag.message);
  cr_assert(program.has_extended_header);
  cr_assert_eq(program.program_size, 2720);
  cr_assert_eq(program.segment_base_offset, 2816);
  cr_assert_eq(program.segment_data_size, 27688);
  cr_assert(program.uses_constant_segment);
  cr_assert_eq(etr_program_method_count(&program), 1);
  etr_fb_string_t name;
  cr_assert_eq(etr_program_method_name(&program, 0, &name, NULL), ETR_OK);
  cr_assert_str_eq(name.chars, "forward");
  etr_fb_table_t plan;
  cr_assert_eq(etr_program_find_method(&program, "forward", &plan, NULL),
               ETR_OK);
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_find_method(&program, "backward", &plan, &diag),
               ETR_ERR_NOT_FOUND);
  cr_assert_not_null(strstr(diag.message, "'forward'"));
  const uint8_t *constant = NULL;
  cr_assert_eq(etr_program_constant_data(&program, 1, 16, &constant, NULL),
               ETR_OK);
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_constant_data(&program, 1000, 4, &constant, &diag),
               ETR_ERR_INVALID_PROGRAM);
  cr_assert_eq(etr_program_constant_data(&program, 1, SIZE_MAX, &constant,
                                         NULL),
               ETR_ERR_INVALID_PROGRAM);
  etr_program_release(&program);
  free(data);
}

Test(program, loads_inline_constants_without_header) {
  etr_program_t program;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load_file(
                   "datasets/models/mlp_inline_constants/model.pte", 0,
                   &program, &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_not(program.has_extended_header);
  cr_assert_not(program.uses_constant_segment);
  cr_assert_eq(program.constant_buffers.length, 7);
  const uint8_t *constant = NULL;
  cr_assert_eq(etr_program_constant_data(&program, 1, 4, &constant, NULL),
               ETR_OK);
  etr_program_release(&program);
}

Test(program, mutable_segment_and_delegate_locations) {
  etr_program_t program;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load_file(
                   "datasets/models/mutable_buffer/model.pte", 0, &program,
                   &diag),
               ETR_OK, "%s", diag.message);
  cr_assert(program.has_mutable_segment);
  const uint8_t *initial = NULL;
  cr_assert_eq(etr_program_mutable_data(&program, 1, 8, &initial, NULL),
               ETR_OK);
  cr_assert_eq(etr_program_mutable_data(&program, 99, 8, &initial, NULL),
               ETR_ERR_INVALID_PROGRAM);
  etr_program_release(&program);

  const char *paths[2] = {"datasets/models/delegate_demo_inline/model.pte",
                          "datasets/models/delegate_demo_segment/model.pte"};
  for (int i = 0; i < 2; ++i) {
    etr_diag_reset(&diag);
    cr_assert_eq(etr_program_load_file(paths[i], 0, &program, &diag), ETR_OK,
                 "%s", diag.message);
    const uint8_t *blob = NULL;
    size_t blob_size = 0;
    uint8_t location = i == 0 ? 0 : 1;
    uint32_t index = 0;
    if (location == 1) {
      // The delegate segment follows the constant segment.
      index = program.segments.length - 1;
    }
    cr_assert_eq(etr_program_delegate_data(&program, location, index, &blob,
                                           &blob_size, &diag),
                 ETR_OK, "%s", diag.message);
    cr_assert_gt(blob_size, 10);
    cr_assert_eq(memcmp(blob, "2version:0#", 11), 0);
    cr_assert_eq(etr_program_delegate_data(&program, 7, 0, &blob, &blob_size,
                                           NULL),
                 ETR_ERR_INVALID_PROGRAM);
    etr_program_release(&program);
  }
}

Test(program, named_data_of_the_xnnpack_program) {
  etr_program_t program;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load_file("datasets/models/cnn_xnnpack/model.pte",
                                     0, &program, &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_gt(program.named_data.length, 0);
  const uint8_t *data = NULL;
  size_t size = 0;
  cr_assert_eq(etr_program_named_data(&program, "no such key", &data, &size,
                                      NULL),
               ETR_ERR_NOT_FOUND);
  etr_program_release(&program);
}

Test(program, wrong_identifiers_and_tiny_files) {
  size_t size = 0;
  uint8_t *data = etr_test_read_file(MLP, &size);
  etr_program_t program;
  etr_diag_t diag;
  uint8_t *copy = etr_test_copy(data, size);
  memcpy(copy + 4, "ET11", 4);
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load(copy, size, &program, &diag),
               ETR_ERR_NOT_SUPPORTED);
  cr_assert_not_null(strstr(diag.message, "'ET11'"));
  memcpy(copy + 4, "XY\x01\xff", 4);
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load(copy, size, &program, &diag),
               ETR_ERR_INVALID_PROGRAM);
  cr_assert_not_null(strstr(diag.message, "not an ExecuTorch program"));
  cr_assert_not_null(strstr(diag.message, "\\x01"));
  memcpy(copy + 4, "BP08", 4);
  etr_diag_reset(&diag);
  cr_assert_eq(etr_program_load(copy, size, &program, &diag),
               ETR_ERR_INVALID_PROGRAM);
  cr_assert_not_null(strstr(diag.message, "BundledProgram"));
  cr_assert_eq(etr_program_load(copy, 4, &program, NULL),
               ETR_ERR_INVALID_PROGRAM);
  cr_assert_eq(etr_program_load(NULL, 4, &program, NULL),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(etr_program_load(copy + 1, 8, &program, NULL),
               ETR_ERR_INVALID_ARGUMENT);  // misaligned
  free(copy);
  free(data);
}

// Writes a little-endian uint64 / uint32 into a copy of the program.
static void put_u64(uint8_t *at, uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    at[i] = (uint8_t)(value >> (8 * i));
  }
}
static void put_u32(uint8_t *at, uint32_t value) {
  for (int i = 0; i < 4; ++i) {
    at[i] = (uint8_t)(value >> (8 * i));
  }
}

Test(program, header_fields_pointing_past_the_end) {
  size_t size = 0;
  uint8_t *data = etr_test_read_file(MLP, &size);
  etr_program_t program;
  etr_diag_t diag;
  struct {
    size_t offset;
    uint64_t value;
    int width;
    const char *expect;
  } cases[] = {
      {12, 8, 4, "below the minimum"},        // header length
      {16, size + 1, 8, "program_size"},      // program_size past the end
      {16, 4, 8, "program_size"},             // program_size too small
      {24, size + 100, 8, "segment_base_offset"},
      {32, UINT64_MAX - 100, 8, "runs past the end"},  // overflow
      {32, size, 8, "truncated"},
      {0, UINT32_MAX, 4, "outside"},          // root offset
      {0, 2710, 4, "outside"},                // root offset near the end
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    uint8_t *copy = etr_test_copy(data, size);
    if (cases[i].width == 8) {
      put_u64(copy + cases[i].offset, cases[i].value);
    } else {
      put_u32(copy + cases[i].offset, (uint32_t)cases[i].value);
    }
    etr_diag_reset(&diag);
    cr_assert_eq(etr_program_load(copy, size, &program, &diag),
                 ETR_ERR_INVALID_PROGRAM, "case %zu loaded", i);
    cr_assert_not_null(strstr(diag.message, cases[i].expect),
                       "case %zu: %s", i, diag.message);
    free(copy);
  }
  free(data);
}

Test(program, every_truncation_fails_cleanly) {
  size_t size = 0;
  uint8_t *data = etr_test_read_file(MLP, &size);
  for (size_t length = 0; length < size; ++length) {
    uint8_t *copy = etr_test_copy(data, length);
    etr_program_t program;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_error_t status = etr_program_load(copy, length, &program, &diag);
    // The segment data is at the end: every truncation must be refused.
    cr_assert_neq(status, ETR_OK, "truncated to %zu bytes it loaded", length);
    cr_assert_neq(diag.message[0], '\0');
    free(copy);
  }
  free(data);
}

Test(data_map, loads_the_external_weights) {
  etr_data_map_t map;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_data_map_load_file("datasets/models/mlp_external/model.ptd",
                                      0, &map, &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_data_map_count(&map), 6);
  etr_tensor_layout_t layout;
  const uint8_t *bytes = NULL;
  size_t size = 0;
  cr_assert_eq(etr_data_map_find(&map, "fc1.weight", &layout, &bytes, &size,
                                 &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(layout.dtype, ETR_FLOAT);
  cr_assert_eq(layout.dim, 2);
  cr_assert_eq(size, (size_t)(layout.sizes[0] * layout.sizes[1] * 4));
  cr_assert_eq(etr_data_map_find(&map, "fc9.weight", &layout, &bytes, &size,
                                 NULL),
               ETR_ERR_NOT_FOUND);
  etr_data_map_release(&map);
}

// Where field `id` of table `t` lives in the buffer (0 when absent).
static size_t field_position(const etr_fb_table_t *t, unsigned id) {
  size_t entry = 4 + 2 * (size_t)id;
  if (entry + 2 > t->vtable_size) {
    return 0;
  }
  uint16_t offset = etr_load_u16(t->data + t->vtable_position + entry);
  return offset == 0 ? 0 : t->position + offset;
}

// Found by fuzz/ptd_load (fuzz/regression/ptd_load/): an entry whose data
// segment is smaller than its layout was handed out as if it were whole.
Test(data_map, layout_larger_than_its_segment_is_malformed) {
  size_t size = 0;
  uint8_t *data =
      etr_test_read_file("datasets/models/mlp_external/model.ptd", &size);
  etr_data_map_t map;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_data_map_load(data, size, &map, &diag), ETR_OK, "%s",
               diag.message);
  // Shrink fc3.bias's segment by 4 bytes (it stays inside the file).
  uint32_t segment_index = UINT32_MAX;
  for (uint32_t i = 0; i < etr_data_map_count(&map); ++i) {
    const char *key = NULL;
    etr_fb_table_t entry;
    cr_assert_eq(etr_data_map_key(&map, i, &key, NULL), ETR_OK);
    cr_assert_eq(etr_fb_vector_table(&map.named_data, i, &entry, NULL),
                 ETR_OK);
    if (strcmp(key, "fc3.bias") == 0) {
      cr_assert_eq(etr_fb_u32(&entry, 1, 0, &segment_index, NULL), ETR_OK);
    }
  }
  cr_assert_lt(segment_index, map.segments.length);
  etr_fb_table_t segment;
  cr_assert_eq(etr_fb_vector_table(&map.segments, segment_index, &segment,
                                   NULL),
               ETR_OK);
  size_t at = field_position(&segment, 1);  // DataSegment.size
  cr_assert_neq(at, 0);
  uint64_t segment_size = etr_load_u64(data + at);
  cr_assert_geq(segment_size, 4);
  segment_size -= 4;
  memcpy(data + at, &segment_size, sizeof(segment_size));
  etr_tensor_layout_t layout;
  const uint8_t *bytes = NULL;
  size_t found = 0;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_data_map_find(&map, "fc3.bias", &layout, &bytes, &found,
                                 &diag),
               ETR_ERR_INVALID_EXTERNAL_DATA);
  cr_assert(strstr(diag.message, "layout") != NULL, "%s", diag.message);
  free(data);
}

Test(data_map, every_truncation_fails_cleanly) {
  size_t size = 0;
  uint8_t *data =
      etr_test_read_file("datasets/models/mlp_external/model.ptd", &size);
  for (size_t length = 0; length < size; length += 7) {
    uint8_t *copy = etr_test_copy(data, length);
    etr_data_map_t map;
    cr_assert_neq(etr_data_map_load(copy, length, &map, NULL), ETR_OK);
    free(copy);
  }
  free(data);
}

Test(bundled_program, reads_suites_and_values) {
  etr_bundled_program_t bundle;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_bundled_program_load_file(
                   "datasets/models/bundled_mlp/model.bpte", 0, &bundle,
                   &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_bundled_suite_count(&bundle), 1);
  etr_bundled_suite_t suite;
  cr_assert_eq(etr_bundled_suite(&bundle, 0, &suite, NULL), ETR_OK);
  cr_assert_str_eq(suite.method_name, "forward");
  cr_assert_eq(suite.test_cases.length, 3);
  uint32_t inputs = 0;
  uint32_t outputs = 0;
  cr_assert_eq(etr_bundled_case_counts(&suite, 0, &inputs, &outputs, NULL),
               ETR_OK);
  cr_assert_eq(inputs, 1);
  cr_assert_eq(outputs, 1);
  etr_bundled_value_t value;
  cr_assert_eq(etr_bundled_case_value(&suite, 0, false, 0, &value, NULL),
               ETR_OK);
  cr_assert_eq(value.value.tag, ETR_TAG_TENSOR);
  cr_assert_eq(value.tensor.dtype, ETR_FLOAT);
  cr_assert_eq(etr_bundled_case_value(&suite, 0, false, 5, &value, NULL),
               ETR_ERR_INVALID_PROGRAM);
  // The embedded program is the same as the plain MLP.
  size_t size = 0;
  uint8_t *mlp = etr_test_read_file(MLP, &size);
  cr_assert_eq(bundle.program_size, size);
  cr_assert_eq(memcmp(bundle.program_data, mlp, size), 0);
  free(mlp);
  etr_bundled_program_release(&bundle);
}

Test(bundled_program, every_truncation_fails_cleanly) {
  size_t size = 0;
  uint8_t *data =
      etr_test_read_file("datasets/models/bundled_mlp/model.bpte", &size);
  for (size_t length = 0; length < size; length += 3) {
    uint8_t *copy = etr_test_copy(data, length);
    etr_bundled_program_t bundle;
    etr_error_t status = etr_bundled_program_load(copy, length, &bundle, NULL);
    if (status == ETR_OK) {
      // The root may survive a truncation inside the trailing program
      // vector only if the vector fits; then it must still be in bounds.
      cr_assert_leq(bundle.program_data + bundle.program_size,
                    copy + length);
      etr_bundled_program_release(&bundle);
    }
    free(copy);
  }
  free(data);
}
