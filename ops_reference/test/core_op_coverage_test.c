// SPDX-License-Identifier: Apache-2.0
//
// Every kernel name on the Core ATen op list (datasets/ops/core_ops.txt,
// generated from torch 2.13's torch.Tag.core ops by
// datasets/ops/generate_core_ops.py) has a registered reference kernel or
// prim op. Fails naming every missing one; prints the coverage count
// ("reference coverage: N/M core kernels"), which scripts/test.sh repeats.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/prim_ops.h"
#include "ops_reference/ops_reference.h"

static bool registered(const char *name) {
  for (size_t i = 0; i < etr_reference_kernel_count; ++i) {
    if (strcmp(etr_reference_kernels[i].name, name) == 0) {
      return true;
    }
  }
  for (size_t i = 0; i < etr_prim_kernel_count; ++i) {
    if (strcmp(etr_prim_kernels[i].name, name) == 0) {
      return true;
    }
  }
  return false;
}

Test(core_op_coverage, every_core_op_has_a_reference_kernel) {
  FILE *file = fopen("datasets/ops/core_ops.txt", "r");
  cr_assert_not_null(file, "cannot read datasets/ops/core_ops.txt");
  char line[256];
  int total = 0;
  int covered = 0;
  char missing[4096] = "";
  while (fgets(line, sizeof(line), file) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '\0' || line[0] == '#') {
      continue;
    }
    ++total;
    if (registered(line)) {
      ++covered;
    } else if (strlen(missing) + strlen(line) + 3 < sizeof(missing)) {
      strcat(missing, " ");
      strcat(missing, line);
    }
  }
  fclose(file);
  printf("reference coverage: %d/%d core kernels\n", covered, total);
  cr_assert_gt(total, 150, "the op list looks truncated (%d entries)", total);
  cr_assert_eq(covered, total, "%d core kernels have no reference kernel:%s",
               total - covered, missing);
}
