// SPDX-License-Identifier: Apache-2.0
//
// Tests of the structure-aware mutator: on every real program, bundled
// program and data map in datasets/, the walk finds fields of every kind,
// mutations are deterministic per seed, change the file without changing
// its size, and most mutants still load (so the fuzzer gets past the first
// checks), while the rest are rejected cleanly.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/bundled_program.h"
#include "core/data_map.h"
#include "core/program.h"
#include "core/test/test_files.h"
#include "fuzz/mutator/fb_schema.h"
#include "fuzz/mutator/pte_mutator.h"

static etr_fb_location_t g_locations[ETR_FB_MAX_LOCATIONS];

static etr_error_t load_any(const uint8_t *data, size_t size) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  switch (etr_fb_detect_format(data, size)) {
    case ETR_FB_FORMAT_PTE: {
      etr_program_t program;
      etr_error_t status = etr_program_load(data, size, &program, &diag);
      etr_program_release(&program);
      return status;
    }
    case ETR_FB_FORMAT_BPTE: {
      etr_bundled_program_t bundle;
      etr_error_t status =
          etr_bundled_program_load(data, size, &bundle, &diag);
      etr_program_t program;
      if (status == ETR_OK) {
        status = etr_program_load(bundle.program_data, bundle.program_size,
                                  &program, &diag);
        etr_program_release(&program);
      }
      etr_bundled_program_release(&bundle);
      return status;
    }
    case ETR_FB_FORMAT_PTD: {
      etr_data_map_t map;
      etr_error_t status = etr_data_map_load(data, size, &map, &diag);
      etr_data_map_release(&map);
      return status;
    }
    default:
      return ETR_ERR_INVALID_PROGRAM;
  }
}

static void check_file(const char *path, size_t min_roles) {
  size_t size = 0;
  uint8_t *original = etr_test_read_file(path, &size);
  etr_fb_hints_t hints;
  size_t count = etr_fb_collect(original, size, g_locations,
                                ETR_FB_MAX_LOCATIONS, &hints);
  cr_assert_gt(count, 10, "%s: only %zu locations", path, count);
  bool seen[ETR_NUM_ROLES] = {false};
  size_t roles = 0;
  for (size_t i = 0; i < count; ++i) {
    cr_assert_leq(g_locations[i].offset + g_locations[i].width, size);
    if (!seen[g_locations[i].role]) {
      seen[g_locations[i].role] = true;
      ++roles;
    }
  }
  cr_expect_geq(roles, min_roles, "%s: %zu roles", path, roles);
  size_t loaded = 0;
  size_t changed = 0;
  const unsigned kMutants = 200;
  for (unsigned seed = 0; seed < kMutants; ++seed) {
    uint8_t *a = etr_test_copy(original, size);
    uint8_t *b = etr_test_copy(original, size);
    cr_assert_eq(etr_pte_mutate(a, size, size, seed), size);
    cr_assert_eq(etr_pte_mutate(b, size, size, seed), size);
    cr_assert_eq(memcmp(a, b, size), 0, "%s: seed %u not deterministic",
                 path, seed);
    changed += memcmp(a, original, size) != 0;
    loaded += load_any(a, size) == ETR_OK;
    free(a);
    free(b);
  }
  cr_expect_geq(changed, kMutants * 95 / 100, "%s: %zu of %u changed", path,
                changed, kMutants);
  cr_expect_geq(loaded, kMutants / 2, "%s: only %zu of %u mutants load",
                path, loaded, kMutants);
  free(original);
}

Test(pte_mutator, programs) {
  check_file("datasets/models/mlp/model.pte", 12);
  check_file("datasets/models/cond/model.pte", 12);
  check_file("datasets/models/cnn/model.pte", 12);
  check_file("datasets/models/mutable_buffer/model.pte", 12);
  check_file("datasets/models/delegate_demo_segment/model.pte", 10);
  check_file("datasets/models/mlp_inline_constants/model.pte", 10);
}

Test(pte_mutator, bundled_program_and_data_map) {
  check_file("datasets/models/bundled_mlp/model.bpte", 12);
  check_file("datasets/models/mlp_external/model.ptd", 6);
}

Test(pte_mutator, rejects_unknown_bytes) {
  uint8_t bytes[64] = "not a flatbuffer at all";
  cr_assert_eq(etr_pte_mutate(bytes, sizeof(bytes), sizeof(bytes), 1), 0);
  cr_assert_eq(etr_pte_mutate(bytes, 3, sizeof(bytes), 1), 0);
}
