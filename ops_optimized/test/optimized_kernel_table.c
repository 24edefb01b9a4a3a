// SPDX-License-Identifier: Apache-2.0
//
// Binds kernel tests to the optimized library (see
// ops_reference/test/kernel_table.h): for every reference operator, its
// optimized kernel when there is one, else the reference kernel, exactly
// what a method selects with ETR_KERNELS_OPTIMIZED. Linking the reference
// kernel tests against this table runs all their expectations on the
// optimized kernels too.
#include <string.h>

#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/test/kernel_table.h"

#define MAX_KERNELS 1024

const etr_kernel_registration_t *tt_kernel_table(size_t *count) {
  static etr_kernel_registration_t merged[MAX_KERNELS];
  static size_t merged_count = 0;
  if (merged_count == 0) {
    for (size_t i = 0; i < etr_reference_kernel_count && i < MAX_KERNELS;
         ++i) {
      merged[i] = etr_reference_kernels[i];
      for (size_t j = 0; j < etr_optimized_kernel_count; ++j) {
        if (strcmp(etr_optimized_kernels[j].name, merged[i].name) == 0) {
          merged[i].fn = etr_optimized_kernels[j].fn;
        }
      }
      ++merged_count;
    }
  }
  *count = merged_count;
  return merged;
}
