// SPDX-License-Identifier: Apache-2.0
//
// Binds the kernel tests to the reference kernels (see kernel_table.h).
#include "ops_reference/ops_reference.h"
#include "ops_reference/test/kernel_table.h"

const etr_kernel_registration_t *tt_kernel_table(size_t *count) {
  *count = etr_reference_kernel_count;
  return etr_reference_kernels;
}
