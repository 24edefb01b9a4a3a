// SPDX-License-Identifier: Apache-2.0
//
// Decodes a kernel call (operator name and arguments) from fuzzer bytes for
// the kernel_diff target, in the value encoding of the golden vectors
// (datasets/golden/FORMAT.md, "Value", "Tensor", "Out spec"), so every
// golden case converts into a seed (fuzz/tools/make_seeds.py) and the
// fuzzer mutates real argument lists rather than noise:
//
//   u8 name_length, name bytes        "aten::add.out"
//   u8 arg_count                      at most ETR_FUZZ_MAX_ARGS
//   value x arg_count                 FORMAT.md tags 0-14, 32, 33
//
// The decoder is lenient where leniency keeps mutated inputs useful: a
// tensor whose value bytes run short is padded with zeros (its value_bytes
// field still says how many bytes to skip, so the next argument stays in
// place), Bool elements are reduced to 0/1 (the ops fuzzed here receive
// checked tensors; program-level data is pte_execute's concern). It is
// strict about work: rank <= ETR_MAX_DIMS, every size, stride and offset
// within [0, 2^16], at most 2^16 elements per tensor and 2^18 in all, list
// lengths <= 64; anything else makes the input uninteresting (decode fails).
//
// Out specs become out tensors as the golden harness builds them: dim 0
// one larger than the recorded shape (kernels must resize), 64 spare
// elements of capacity, memory filled with a poison byte. The trailing
// return slot follows ExecuTorch's convention: the out itself for a single
// out, a TensorList of every out otherwise, an Int 0 for prim ops.
#ifndef ETR_FUZZ_KERNEL_CALL_DECODE_H
#define ETR_FUZZ_KERNEL_CALL_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/evalue.h"

#define ETR_FUZZ_MAX_ARGS 24
#define ETR_FUZZ_MAX_NAME 127

// Every allocation of one decoded call, freed together.
typedef struct etr_fuzz_pool {
  void **items;
  size_t count;
  size_t capacity;
} etr_fuzz_pool_t;

void *etr_fuzz_pool_alloc(etr_fuzz_pool_t *pool, size_t size);
void etr_fuzz_pool_free(etr_fuzz_pool_t *pool);

typedef struct etr_fuzz_call {
  char op[ETR_FUZZ_MAX_NAME + 1];
  etr_evalue_t *args[ETR_FUZZ_MAX_ARGS + 1];  // arguments + return slot
  size_t num_args;                             // including the return slot
  bool is_out[ETR_FUZZ_MAX_ARGS + 1];          // an out spec (or list)
} etr_fuzz_call_t;

// Decodes `data` into `call`, allocating from `pool`. `poison` fills out
// tensors and the gaps of strided inputs (two runs with different poison
// expose a kernel that leaves output elements unwritten). With `null_data`
// every tensor gets a NULL data pointer (with its capacity), as the
// verifier's dry run may pass. False when the bytes do not decode within
// the caps.
bool etr_fuzz_decode_call(const uint8_t *data, size_t size, uint8_t poison,
                          bool null_data, etr_fuzz_pool_t *pool,
                          etr_fuzz_call_t *call);

#endif  // ETR_FUZZ_KERNEL_CALL_DECODE_H
