// SPDX-License-Identifier: Apache-2.0
//
// Candidate values produced elsewhere, as oracle value sets (values.h):
//
//   ETDump: the debug events of one block ("Execute" run) of an ETDump
//   that ExecuTorch's runtime (or etref's profiler) wrote, with the
//   tensors' bytes from the separate debug buffer. Keys: a debug event
//   with a delegate debug id or name is a DELEGATE value of the
//   instruction it names; one flagged `output` a program output (in
//   order); any other an INSTRUCTION value (position = its order among the
//   events of that instruction's execution, a TensorList's tensors
//   flattened). An instruction whose events come back after other
//   instructions' counts as its next occurrence (a loop).
//   Every tensor must lie inside the debug buffer (offset and strided span
//   overflow-checked, strides non-negative); dtypes must be ExecuTorch's.
//
//   .npy files: program outputs, in order.
#ifndef ETR_PROF_ORACLE_SOURCES_H
#define ETR_PROF_ORACLE_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "prof/etdump_reader.h"
#include "prof/oracle/values.h"

#ifdef __cplusplus
extern "C" {
#endif

// The block to read for test set `bundled_index` (>= 0: the block with that
// RunData.bundled_input_index, else the `ordinal`-th block with debug
// events that no other test set's index tags; -1: the `ordinal`-th block
// with debug events), or -1 when none fits.
int32_t etr_oracle_etdump_block(const etr_etdump_t *etdump,
                                int32_t bundled_index, uint32_t ordinal);

// Number of blocks with debug events.
uint32_t etr_oracle_etdump_debug_blocks(const etr_etdump_t *etdump);

// Adds the debug events of block `block` to `values`. InvalidProgram with
// the event's index for a value outside the buffer or malformed.
etr_error_t etr_oracle_values_from_etdump(const etr_etdump_t *etdump,
                                          uint32_t block,
                                          const uint8_t *debug_buffer,
                                          size_t debug_buffer_size,
                                          etr_oracle_values_t *values,
                                          etr_diag_t *diag);

// Adds `count` .npy files as program outputs 0..count-1.
etr_error_t etr_oracle_values_from_npy(const char *const *paths,
                                       size_t count,
                                       etr_oracle_values_t *values,
                                       etr_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ORACLE_SOURCES_H
