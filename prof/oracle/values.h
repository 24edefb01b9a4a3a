// SPDX-License-Identifier: Apache-2.0
//
// Values the oracle compares: tensors (and Int/Double/Bool scalars, kept
// as 0-dim Long/Double/Bool tensors) each with a key saying where it came
// from. The reference side and every candidate kind produce them: a run
// captured by the oracle's tracer (capture.h), an ETDump's debug events
// (etdump_values.h), .npy files of program outputs.
//
// Keys:
//   INSTRUCTION  (chain, instruction, occurrence, position): what an
//                instruction wrote, as ExecuTorch logs it: a KernelCall's
//                return slot (position k = k-th tensor of a TensorList
//                result), or every argument of a DelegateCall (position =
//                argument index, TensorList elements flattened)
//   DELEGATE     (chain, instruction, occurrence, debug id or name,
//                position): a value a delegate reported from inside its
//                subgraph (etr_backend_log_intermediate; ExecuTorch's
//                delegate_debug_id_int / _str)
//   OUTPUT       (position): program output `position` (outputs
//                flattened)
// `occurrence` counts executions of one instruction within a run (loops);
// 0 for the first.
//
// Every record owns a contiguous copy of its data in the set's arena.
#ifndef ETR_PROF_ORACLE_VALUES_H
#define ETR_PROF_ORACLE_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/evalue.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_oracle_origin {
  ETR_ORACLE_FROM_INSTRUCTION = 0,
  ETR_ORACLE_FROM_DELEGATE = 1,
  ETR_ORACLE_FROM_OUTPUT = 2,
} etr_oracle_origin_t;

typedef struct etr_oracle_key {
  etr_oracle_origin_t origin;
  uint32_t chain;
  uint32_t instruction;
  uint32_t occurrence;
  uint32_t position;
  int64_t debug_id;        // DELEGATE: -1 when the value is named only
  const char *debug_name;  // DELEGATE: NULL when identified by id only
} etr_oracle_key_t;

typedef struct etr_oracle_record {
  etr_oracle_key_t key;
  etr_tag_t tag;          // TENSOR, INT, DOUBLE or BOOL
  etr_tensor_t tensor;    // contiguous; data in the arena
  bool has_data;          // false: only the shape is known
  uint32_t value_index;   // the method value; UINT32_MAX when unknown
  const char *label;      // operator or event name; may be NULL
} etr_oracle_record_t;

typedef struct etr_oracle_values {
  etr_oracle_record_t *records;
  uint32_t count;
  uint32_t capacity;
  etr_arena_t arena;     // names and tensor bytes
  bool failed;           // the run that produced them stopped early
  char failure[ETR_DIAG_MESSAGE_CAPACITY + 64];
} etr_oracle_values_t;

// `max_bytes` caps the arena (0 = 4 GiB).
void etr_oracle_values_init(etr_oracle_values_t *values, size_t max_bytes);
void etr_oracle_values_release(etr_oracle_values_t *values);
// Forgets every record (keeps the memory).
void etr_oracle_values_reset(etr_oracle_values_t *values);

// Adds a copy of `tensor` (read through its strides; data may be NULL for
// a shape-only record). The key's debug_name and `label` are copied.
etr_error_t etr_oracle_values_add_tensor(etr_oracle_values_t *values,
                                         const etr_oracle_key_t *key,
                                         const etr_tensor_t *tensor,
                                         etr_tag_t tag, const char *label,
                                         uint32_t value_index,
                                         etr_diag_t *diag);

// Adds an EValue: a tensor (one record at key->position), a TensorList
// (one per element, positions key->position + k; None elements skipped but
// counted), an Int/Double/Bool (a 0-dim tensor). Other tags add nothing.
// *added (may be NULL) receives the number of positions used.
etr_error_t etr_oracle_values_add_evalue(etr_oracle_values_t *values,
                                         const etr_oracle_key_t *key,
                                         const etr_evalue_t *value,
                                         const char *label,
                                         uint32_t value_index,
                                         uint32_t *added, etr_diag_t *diag);

// The record with exactly this key (names compared as strings), or NULL.
const etr_oracle_record_t *etr_oracle_values_find(
    const etr_oracle_values_t *values, const etr_oracle_key_t *key);

// True when two keys name the same value.
bool etr_oracle_key_equal(const etr_oracle_key_t *a,
                          const etr_oracle_key_t *b);

// "instruction 0:4 output 0", "delegate at 0:1 debug id 3 output 0",
// "program output 0".
void etr_oracle_key_describe(const etr_oracle_key_t *key, char *text,
                             size_t capacity);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ORACLE_VALUES_H
