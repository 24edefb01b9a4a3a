// SPDX-License-Identifier: Apache-2.0
//
// The reference kernel table: names are unique and well formed, the table
// registers into core's registry, and every non-prim operator the dataset
// programs use (datasets/ops_used.txt, written by datasets/generate.py) has
// a reference kernel.
#include <stdio.h>
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/test/test_util.h"

TT_TEST(registry, names_are_unique_and_well_formed) {
  cr_expect_gt(etr_reference_kernel_count, 60);
  for (size_t i = 0; i < etr_reference_kernel_count; ++i) {
    const etr_kernel_registration_t *entry = &etr_reference_kernels[i];
    cr_expect_not_null(entry->fn, "%s has no function", entry->name);
    cr_expect(strstr(entry->name, "::") != NULL, "%s has no namespace",
              entry->name);
    for (size_t j = 0; j < i; ++j) {
      cr_expect(strcmp(entry->name, etr_reference_kernels[j].name) != 0,
                "%s is registered twice", entry->name);
    }
  }
}

TT_TEST(registry, registers_into_core) {
  etr_kernel_registry_t *registry = tt_alloc(sizeof(etr_kernel_registry_t));
  etr_registry_init(registry);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_expect_eq(etr_registry_register_table(
                   registry, etr_reference_kernels, etr_reference_kernel_count,
                   ETR_KERNELS_REFERENCE, &diag),
               ETR_OK, "%s", diag.message);
  const etr_kernel_entry_t *entry =
      etr_registry_find(registry, "aten::convolution.out");
  cr_expect_eq(etr_registry_select(entry, ETR_KERNELS_OPTIMIZED),
               etr_ref_convolution_out);
}

static bool is_prim(const char *name) {
  return strncmp(name, "executorch_prim::", 17) == 0 ||
         strncmp(name, "aten::sym_", 10) == 0 ||
         strcmp(name, "aten::_local_scalar_dense") == 0;
}

TT_TEST(registry, covers_the_dataset_operators) {
  FILE *file = fopen("datasets/ops_used.txt", "r");
  cr_assert_not_null(file, "datasets/ops_used.txt is missing from runfiles");
  char line[256];
  int checked = 0;
  while (fgets(line, sizeof(line), file) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '\0' || line[0] == '#' || is_prim(line)) {
      continue;
    }
    cr_expect_not_null(tt_find_kernel(line), "no reference kernel for %s",
                       line);
    ++checked;
  }
  fclose(file);
  cr_expect_gt(checked, 20);
}
