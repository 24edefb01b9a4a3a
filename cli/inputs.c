// SPDX-License-Identifier: Apache-2.0
//
// Method inputs for `etref run` and `etref profile` (see inputs.h).
#include "cli/inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "ops_reference/support/element.h"

// SplitMix64: a small, well-mixed, seedable generator for random inputs.
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void etr_cli_fill_random(etr_tensor_t *tensor, uint64_t *state) {
  int64_t numel = etr_tensor_numel(tensor);
  size_t element_size = etr_scalar_type_size(tensor->dtype);
  for (int64_t i = 0; i < numel; ++i) {
    void *element = (uint8_t *)tensor->data + (size_t)i * element_size;
    uint64_t bits = next_random(state);
    if (etr_scalar_type_is_floating(tensor->dtype) ||
        etr_scalar_type_is_complex(tensor->dtype)) {
      double value = (double)(bits >> 11) / 9007199254740992.0 * 2.0 - 1.0;
      etr_store_double(tensor->dtype, element, value);
    } else if (tensor->dtype == ETR_BOOL) {
      etr_store_int64(tensor->dtype, element, (int64_t)(bits & 1));
    } else {
      etr_store_int64(tensor->dtype, element, (int64_t)(bits % 10));
    }
  }
}

int etr_cli_inputs_from_files(etr_cli_inputs_t *inputs,
                              const etr_method_t *method,
                              const char *const *paths, size_t count) {
  if (count != method->num_inputs) {
    fprintf(stderr,
            "etref: error: method '%s' takes %u inputs but %zu --input files "
            "were given\n",
            method->name, method->num_inputs, count);
    return ETR_EXIT_INVALID;
  }
  if (count > ETR_CLI_MAX_INPUTS) {
    fprintf(stderr, "etref: error: at most %d inputs\n", ETR_CLI_MAX_INPUTS);
    return ETR_EXIT_INVALID;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  for (size_t i = 0; i < count; ++i) {
    etr_error_t status =
        etr_npy_load_file(paths[i], 0, &inputs->arrays[i], &diag);
    if (status != ETR_OK) {
      return etr_cli_report(&diag, status);
    }
    inputs->values[i].tag = ETR_TAG_TENSOR;
    inputs->values[i].u.as_tensor = &inputs->arrays[i].tensor;
  }
  inputs->count = (uint32_t)count;
  return ETR_EXIT_OK;
}

int etr_cli_inputs_random(etr_cli_inputs_t *inputs,
                          const etr_method_t *method, uint64_t seed) {
  if (method->num_inputs > ETR_CLI_MAX_INPUTS) {
    fprintf(stderr, "etref: error: method '%s' has %u inputs (at most %d)\n",
            method->name, method->num_inputs, ETR_CLI_MAX_INPUTS);
    return ETR_EXIT_INVALID;
  }
  uint64_t state = seed;
  inputs->count = method->num_inputs;
  for (uint32_t i = 0; i < method->num_inputs; ++i) {
    const etr_evalue_t *input = etr_method_input(method, i);
    inputs->values[i] = *input;  // scalar inputs keep the program's values
    if (input->tag != ETR_TAG_TENSOR) {
      continue;
    }
    etr_tensor_t *tensor = &inputs->tensors[i];
    // The template is a copy: etr_tensor_init_with_dim_order clears the
    // tensor it fills before reading sizes and dim order.
    const etr_tensor_t shape = *input->u.as_tensor;
    size_t nbytes = etr_tensor_nbytes(&shape);
    inputs->random_buffers[i] = aligned_alloc(64, (nbytes + 64) / 64 * 64);
    if (inputs->random_buffers[i] == NULL) {
      fprintf(stderr, "etref: error: out of memory for input %u\n", i);
      return ETR_EXIT_INVALID;
    }
    etr_tensor_init_with_dim_order(tensor, shape.dtype, shape.dim,
                                   shape.sizes, shape.dim_order,
                                   inputs->random_buffers[i], nbytes, NULL);
    etr_cli_fill_random(tensor, &state);
    inputs->values[i].u.as_tensor = tensor;
    inputs->random = true;
  }
  return ETR_EXIT_OK;
}

int etr_cli_inputs_from_bundle(etr_cli_inputs_t *inputs,
                               const etr_bundled_suite_t *suite,
                               uint32_t test_case) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  uint32_t count = 0;
  uint32_t expected = 0;
  etr_error_t status =
      etr_bundled_case_counts(suite, test_case, &count, &expected, &diag);
  if (status == ETR_OK && count > ETR_CLI_MAX_INPUTS) {
    status = ETR_FAIL(&diag, ETR_ERR_NOT_SUPPORTED,
                      "test case has %u inputs (at most %d)", count,
                      ETR_CLI_MAX_INPUTS);
  }
  for (uint32_t i = 0; status == ETR_OK && i < count; ++i) {
    etr_bundled_value_t value;
    status = etr_bundled_case_value(suite, test_case, false, i, &value, &diag);
    inputs->tensors[i] = value.tensor;
    inputs->values[i] = value.value;
    if (value.value.tag == ETR_TAG_TENSOR) {
      inputs->values[i].u.as_tensor = &inputs->tensors[i];
    }
  }
  if (status != ETR_OK) {
    etr_diag_prefix(&diag, "test case %u", test_case);
    return etr_cli_report(&diag, status);
  }
  inputs->count = count;
  return ETR_EXIT_OK;
}

int etr_cli_inputs_set(const etr_cli_inputs_t *inputs, etr_method_t *method) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  for (uint32_t k = 0; k < inputs->count; ++k) {
    etr_error_t status =
        etr_method_set_input(method, k, &inputs->values[k], &diag);
    if (status != ETR_OK) {
      return etr_cli_report(&diag, status);
    }
  }
  return ETR_EXIT_OK;
}

void etr_cli_inputs_release(etr_cli_inputs_t *inputs) {
  for (size_t i = 0; i < ETR_CLI_MAX_INPUTS; ++i) {
    etr_npy_array_release(&inputs->arrays[i]);
    free(inputs->random_buffers[i]);
  }
  memset(inputs, 0, sizeof(*inputs));
}
