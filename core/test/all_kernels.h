// SPDX-License-Identifier: Apache-2.0
//
// Test helper: one kernel registry with every kernel etref has (the prim
// ops and the reference kernels as ETR_KERNELS_REFERENCE, their optimized
// twins as ETR_KERNELS_OPTIMIZED), the registry the CLI builds
// (cli/session.h, etr_cli_build_kernels). Built on first use; a failure
// fails the calling test through Criterion's assertions.
#ifndef ETR_CORE_TEST_ALL_KERNELS_H
#define ETR_CORE_TEST_ALL_KERNELS_H

#include "core/kernel.h"

const etr_kernel_registry_t *etr_test_all_kernels(void);

#endif  // ETR_CORE_TEST_ALL_KERNELS_H
