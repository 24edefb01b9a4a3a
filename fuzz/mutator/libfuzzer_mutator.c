// SPDX-License-Identifier: Apache-2.0
//
// libFuzzer's custom mutator for the .pte, .bpte and .ptd targets: half of
// the mutations are structure-aware (pte_mutator.h: FlatBuffer fields
// rewritten in place, so the file still parses), half are libFuzzer's own
// byte-level ones (which also grow, shrink and splice inputs). Linked only
// into libFuzzer builds (fuzz/oss_fuzz_build.sh): LLVMFuzzerMutate comes
// from libFuzzer.
#include <stddef.h>
#include <stdint.h>

#include "fuzz/mutator/pte_mutator.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed) {
  if ((seed & 1) == 0) {
    size_t mutated = etr_pte_mutate(data, size, max_size, seed >> 1);
    if (mutated != 0) {
      return mutated;
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
