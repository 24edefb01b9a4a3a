// SPDX-License-Identifier: Apache-2.0
//
// The structure-aware mutator for .pte (and .bpte, .ptd) files: finds the
// fields of the FlatBuffer with etref's own reader (fb_schema.h) and
// rewrites one to three of them in place with values chosen for their role
// (value indices in and just past their table, tensor sizes at tile edges
// and overflow boundaries, memory ids and offsets around the planned pools,
// union tags naming other types, segment offsets past the end, vector
// lengths off by one), or copies or swaps two fields of the same role.
// References, lengths and vtable entries are mutated rarely, so most
// mutants still parse and reach the verifier, the planner and the kernels;
// that is where structurally valid, semantically inconsistent files do
// their damage.
//
// Used by fuzz/mutator/libfuzzer_mutator.c (LLVMFuzzerCustomMutator) and
// fuzz/mutator/afl_mutator.c (an AFL++ custom mutator library).
#ifndef ETR_FUZZ_MUTATOR_PTE_MUTATOR_H
#define ETR_FUZZ_MUTATOR_PTE_MUTATOR_H

#include <stddef.h>
#include <stdint.h>

// Mutates `data` (`size` bytes; the buffer holds `max_size`) in place,
// deterministically for `seed`. Returns the new size (the same: fields are
// rewritten, never moved), or 0 when the bytes are not a .pte, .bpte or .ptd
// whose root parses (the caller then mutates them some other way).
size_t etr_pte_mutate(uint8_t *data, size_t size, size_t max_size,
                      uint32_t seed);

#endif  // ETR_FUZZ_MUTATOR_PTE_MUTATOR_H
