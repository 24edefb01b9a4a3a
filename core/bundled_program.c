// SPDX-License-Identifier: Apache-2.0
//
// BundledProgram loader (see bundled_program.h).
#include "core/bundled_program.h"

#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/tensor.h"

enum { BUNDLE_VERSION = 0, BUNDLE_SUITES = 1, BUNDLE_PROGRAM = 2 };
enum { SUITE_METHOD_NAME = 0, SUITE_TEST_CASES = 1 };
enum { CASE_INPUTS = 0, CASE_EXPECTED_OUTPUTS = 1 };
enum { VALUE_VAL = 0 };  // union: type at 0, value at 1
enum { VALUE_TENSOR = 1, VALUE_INT = 2, VALUE_BOOL = 3, VALUE_DOUBLE = 4 };
enum { TENSOR_SCALAR_TYPE = 0, TENSOR_SIZES = 1, TENSOR_DATA = 2,
       TENSOR_DIM_ORDER = 3 };

bool etr_is_bundled_program(const void *data, size_t size) {
  return etr_fb_has_identifier((const uint8_t *)data, size,
                               ETR_BUNDLED_PROGRAM_IDENTIFIER);
}

etr_error_t etr_bundled_program_load(const void *data, size_t size,
                                     etr_bundled_program_t *bundle,
                                     etr_diag_t *diag) {
  memset(bundle, 0, sizeof(*bundle));
  ETR_CHECK(diag, data != NULL, ETR_ERR_INVALID_ARGUMENT,
            "bundled program buffer is NULL");
  ETR_CHECK(diag, etr_is_bundled_program(data, size),
            ETR_ERR_INVALID_PROGRAM,
            "file identifier is not '%s': not a BundledProgram",
            ETR_BUNDLED_PROGRAM_IDENTIFIER);
  bundle->data = (const uint8_t *)data;
  bundle->size = size;
  bool present = false;
  etr_fb_vector_t program;
  ETR_TRY(etr_fb_root(bundle->data, size, &bundle->root, diag));
  ETR_TRY(etr_fb_u32(&bundle->root, BUNDLE_VERSION, 0, &bundle->version,
                     diag));
  ETR_TRY(etr_fb_vector_field(&bundle->root, BUNDLE_SUITES, 4,
                              &bundle->suites, &present, diag));
  ETR_TRY(etr_fb_vector_field(&bundle->root, BUNDLE_PROGRAM, 1, &program,
                              &present, diag));
  ETR_CHECK(diag, present && program.length > 0, ETR_ERR_INVALID_PROGRAM,
            "bundled program embeds no program");
  bundle->program_data = etr_fb_vector_bytes(&program);
  bundle->program_size = program.length;
  if (((uintptr_t)bundle->program_data & 15u) != 0) {
    // A valid file aligns the program to 32 bytes; copy it otherwise.
    bundle->program_copy = aligned_alloc(64, (program.length + 63) / 64 * 64);
    ETR_CHECK(diag, bundle->program_copy != NULL,
              ETR_ERR_MEMORY_ALLOCATION_FAILED,
              "out of memory copying the embedded program");
    memcpy(bundle->program_copy, bundle->program_data, program.length);
    bundle->program_data = (const uint8_t *)bundle->program_copy;
  }
  return ETR_OK;
}

etr_error_t etr_bundled_program_load_file(const char *path, size_t max_bytes,
                                          etr_bundled_program_t *bundle,
                                          etr_diag_t *diag) {
  memset(bundle, 0, sizeof(*bundle));
  void *buffer = NULL;
  size_t size = 0;
  ETR_TRY(etr_read_file(path, max_bytes, &buffer, &size, diag));
  etr_error_t status = etr_bundled_program_load(buffer, size, bundle, diag);
  bundle->owned_data = buffer;
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "%s", path);
    etr_bundled_program_release(bundle);
  }
  return status;
}

void etr_bundled_program_release(etr_bundled_program_t *bundle) {
  if (bundle != NULL) {
    free(bundle->program_copy);
    free(bundle->owned_data);
    memset(bundle, 0, sizeof(*bundle));
  }
}

uint32_t etr_bundled_suite_count(const etr_bundled_program_t *bundle) {
  return bundle->suites.length;
}

etr_error_t etr_bundled_suite(const etr_bundled_program_t *bundle,
                              uint32_t index, etr_bundled_suite_t *suite,
                              etr_diag_t *diag) {
  memset(suite, 0, sizeof(*suite));
  etr_fb_table_t table;
  etr_fb_string_t name;
  bool present = false;
  ETR_TRY(etr_fb_vector_table(&bundle->suites, index, &table, diag));
  ETR_TRY(etr_fb_string_field(&table, SUITE_METHOD_NAME, &name, &present,
                              diag));
  ETR_CHECK(diag, present, ETR_ERR_INVALID_PROGRAM,
            "test suite %u has no method name", index);
  ETR_TRY(etr_fb_vector_field(&table, SUITE_TEST_CASES, 4, &suite->test_cases,
                              &present, diag));
  suite->method_name = name.chars;
  return ETR_OK;
}

static etr_error_t case_lists(const etr_bundled_suite_t *suite,
                              uint32_t case_index, etr_fb_vector_t *inputs,
                              etr_fb_vector_t *expected, etr_diag_t *diag) {
  etr_fb_table_t test_case;
  bool present = false;
  ETR_TRY(etr_fb_vector_table(&suite->test_cases, case_index, &test_case,
                              diag));
  ETR_TRY(etr_fb_vector_field(&test_case, CASE_INPUTS, 4, inputs, &present,
                              diag));
  ETR_TRY(etr_fb_vector_field(&test_case, CASE_EXPECTED_OUTPUTS, 4, expected,
                              &present, diag));
  return ETR_OK;
}

etr_error_t etr_bundled_case_counts(const etr_bundled_suite_t *suite,
                                    uint32_t case_index, uint32_t *inputs,
                                    uint32_t *expected_outputs,
                                    etr_diag_t *diag) {
  etr_fb_vector_t input_list;
  etr_fb_vector_t expected_list;
  ETR_TRY(case_lists(suite, case_index, &input_list, &expected_list, diag));
  *inputs = input_list.length;
  *expected_outputs = expected_list.length;
  return ETR_OK;
}

static etr_error_t decode_tensor(const etr_fb_table_t *table,
                                 etr_tensor_t *tensor, etr_diag_t *diag) {
  int8_t dtype = 0;
  etr_fb_vector_t sizes;
  etr_fb_vector_t data;
  etr_fb_vector_t dim_order;
  bool present = false;
  ETR_TRY(etr_fb_i8(table, TENSOR_SCALAR_TYPE, 0, &dtype, diag));
  ETR_TRY(etr_fb_vector_field(table, TENSOR_SIZES, 4, &sizes, &present,
                              diag));
  ETR_TRY(etr_fb_vector_field(table, TENSOR_DATA, 1, &data, &present, diag));
  ETR_TRY(etr_fb_vector_field(table, TENSOR_DIM_ORDER, 1, &dim_order,
                              &present, diag));
  ETR_CHECK(diag, etr_scalar_type_is_valid(dtype), ETR_ERR_INVALID_PROGRAM,
            "test tensor has invalid scalar type %d", (int)dtype);
  ETR_CHECK(diag, sizes.length <= ETR_MAX_DIMS, ETR_ERR_INVALID_PROGRAM,
            "test tensor rank %u is above %d", sizes.length, ETR_MAX_DIMS);
  int64_t shape[ETR_MAX_DIMS];
  uint8_t order[ETR_MAX_DIMS];
  for (uint32_t i = 0; i < sizes.length; ++i) {
    shape[i] = etr_fb_vector_i32(&sizes, i);
    // Older bundles may omit the dim order: contiguous then.
    order[i] = dim_order.length == sizes.length
                   ? etr_fb_vector_u8(&dim_order, i)
                   : (uint8_t)i;
  }
  size_t nbytes = 0;
  ETR_TRY(etr_checked_nbytes((etr_scalar_type_t)dtype, shape,
                             (int32_t)sizes.length, &nbytes, diag));
  ETR_CHECK(diag, data.length == nbytes, ETR_ERR_INVALID_PROGRAM,
            "test tensor holds %u bytes but its shape needs %zu", data.length,
            nbytes);
  etr_error_t status = etr_tensor_init_with_dim_order(
      tensor, (etr_scalar_type_t)dtype, (int32_t)sizes.length, shape, order,
      (void *)etr_fb_vector_bytes(&data), nbytes, diag);
  return status == ETR_OK ? ETR_OK : ETR_ERR_INVALID_PROGRAM;
}

etr_error_t etr_bundled_case_value(const etr_bundled_suite_t *suite,
                                   uint32_t case_index, bool expected,
                                   uint32_t index, etr_bundled_value_t *out,
                                   etr_diag_t *diag) {
  memset(out, 0, sizeof(*out));
  etr_fb_vector_t inputs;
  etr_fb_vector_t outputs;
  ETR_TRY(case_lists(suite, case_index, &inputs, &outputs, diag));
  etr_fb_table_t value;
  etr_fb_table_t payload;
  uint8_t type = 0;
  ETR_TRY(etr_fb_vector_table(expected ? &outputs : &inputs, index, &value,
                              diag));
  ETR_TRY(etr_fb_union_field(&value, VALUE_VAL, &type, &payload, diag));
  switch (type) {
    case VALUE_TENSOR:
      ETR_TRY(decode_tensor(&payload, &out->tensor, diag));
      out->value.tag = ETR_TAG_TENSOR;
      out->value.u.as_tensor = &out->tensor;
      return ETR_OK;
    case VALUE_INT:
      out->value.tag = ETR_TAG_INT;
      return etr_fb_i64(&payload, 0, 0, &out->value.u.as_int, diag);
    case VALUE_BOOL:
      out->value.tag = ETR_TAG_BOOL;
      return etr_fb_bool(&payload, 0, false, &out->value.u.as_bool, diag);
    case VALUE_DOUBLE:
      out->value.tag = ETR_TAG_DOUBLE;
      return etr_fb_f64(&payload, 0, 0.0, &out->value.u.as_double, diag);
    default:
      return ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                      "test value has unknown type %u", (unsigned)type);
  }
}
