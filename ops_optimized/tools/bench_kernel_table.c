// SPDX-License-Identifier: Apache-2.0
//
// The kernel table ops_reference/test/test_util needs (kernel_table.h);
// the benchmark calls kernels directly, so the reference table will do.
#include "ops_reference/ops_reference.h"
#include "ops_reference/test/kernel_table.h"

const etr_kernel_registration_t *tt_kernel_table(size_t *count) {
  *count = etr_reference_kernel_count;
  return etr_reference_kernels;
}
