// SPDX-License-Identifier: Apache-2.0
//
// Test helper (see all_kernels.h).
#include "core/test/all_kernels.h"

#include <criterion/criterion.h>
#include <stdbool.h>

#include "core/prim_ops.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

static etr_kernel_registry_t g_kernels;
static bool g_built;

static void add(const etr_kernel_registration_t *table, size_t count,
                etr_kernel_variant_t variant) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_registry_register_table(&g_kernels, table, count, variant,
                                           &diag),
               ETR_OK, "%s", diag.message);
}

const etr_kernel_registry_t *etr_test_all_kernels(void) {
  if (!g_built) {
    etr_registry_init(&g_kernels);
    add(etr_prim_kernels, etr_prim_kernel_count, ETR_KERNELS_REFERENCE);
    add(etr_reference_kernels, etr_reference_kernel_count,
        ETR_KERNELS_REFERENCE);
    add(etr_optimized_kernels, etr_optimized_kernel_count,
        ETR_KERNELS_OPTIMIZED);
    g_built = true;
  }
  return &g_kernels;
}
