// SPDX-License-Identifier: Apache-2.0
//
// The kernel table a test binary runs against. Kernel tests find kernels by
// operator name through this one function, so the same test sources can be
// linked against the reference table (reference_kernel_table.c) or, later,
// an optimized one.
#ifndef ETR_OPS_REFERENCE_TEST_KERNEL_TABLE_H
#define ETR_OPS_REFERENCE_TEST_KERNEL_TABLE_H

#include <stddef.h>

#include "core/kernel.h"

const etr_kernel_registration_t *tt_kernel_table(size_t *count);

#endif  // ETR_OPS_REFERENCE_TEST_KERNEL_TABLE_H
