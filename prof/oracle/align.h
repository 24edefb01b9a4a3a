// SPDX-License-Identifier: Apache-2.0
//
// Alignment: which candidate value stands for which reference value.
//
// When the candidate ran the same program as the reference (etref's
// optimized kernels; an ETDump of that program; a delegate library serving
// a backend the reference has built in), values align by key: instruction
// (chain, index, occurrence, position), delegate-reported value (the same
// plus debug id or name) and program output.
// When the programs differ (a delegated program against the same model
// exported without delegation), a map file written by the exporter says
// what aligns with what; without one only program outputs align (by
// position).
//
// Map file (JSON, written for example by datasets/oracle/generate.py):
//   {"format": "etref-oracle-map", "version": 1, "method": "forward",
//    "entries": [{"candidate": PATTERN, "reference": TARGET, ...}, ...]}
// PATTERN names candidate values:
//   {"chain": 0, "instruction": 3, "occurrence": 0, "output": 0}
//       what instruction 3 of the candidate program wrote (output = the
//       position: a KernelCall's k-th result tensor, a DelegateCall's
//       argument index as ExecuTorch logs every delegate argument);
//   {"chain": 0, "instruction": 3, "delegate_debug_id": 7, "output": 0}
//   {"chain": 0, "instruction": 3, "delegate_debug_name": "conv1"}
//       a value the delegate called at instruction 3 reported from inside
//       (ExecuTorch's delegate_debug_id_int / _str);
//   {"program_output": 0}
// TARGET names a reference value:
//   {"chain": 0, "instruction": 12, "occurrence": 0, "output": 0}
//       what reference instruction 12 wrote (its k-th result tensor);
//   {"program_output": 0}
// chain, occurrence and output default to 0. Other keys of an entry
// ("operator", "debug_handles", "note") are informational. When several
// entries give a value for the same reference value, the first entry that
// matches a candidate value wins, so list the finest-grained values
// (delegate intermediates) first. Program outputs align by position
// unless the map names them. Unknown keys inside PATTERN and TARGET,
// wrong types and negative numbers are InvalidArgument naming the line.
#ifndef ETR_PROF_ORACLE_ALIGN_H
#define ETR_PROF_ORACLE_ALIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "prof/oracle/json.h"
#include "prof/oracle/values.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_oracle_pattern {
  bool program_output;
  uint32_t chain;
  uint32_t instruction;
  uint32_t occurrence;
  uint32_t output;
  bool has_debug_id;
  int64_t debug_id;
  const char *debug_name;  // NULL when absent
} etr_oracle_pattern_t;

typedef struct etr_oracle_map_entry {
  etr_oracle_pattern_t candidate;
  etr_oracle_pattern_t reference;  // no debug fields
  const char *operator_name;       // informational, may be NULL
  uint32_t line;                   // in the map file
} etr_oracle_map_entry_t;

typedef struct etr_oracle_map {
  etr_oracle_map_entry_t *entries;
  uint32_t count;
  const char *method;  // NULL when the map names none
  bool names_outputs;  // some entry's reference is a program output
  etr_json_document_t document;  // owns the strings
} etr_oracle_map_t;

// Parses a map document; `origin` names it in messages.
etr_error_t etr_oracle_map_parse(const char *text, size_t length,
                                 const char *origin, etr_oracle_map_t *map,
                                 etr_diag_t *diag);
void etr_oracle_map_release(etr_oracle_map_t *map);

typedef struct etr_oracle_pair {
  etr_oracle_key_t reference;
  const etr_oracle_record_t *candidate;
  int32_t map_entry;  // -1 when aligned by key
} etr_oracle_pair_t;

typedef struct etr_oracle_alignment {
  etr_oracle_pair_t *pairs;
  uint32_t count;
  uint32_t candidate_records;
  uint32_t unaligned;        // candidate values standing for nothing
  uint32_t unused_entries;   // map entries that matched no candidate value
  bool by_map;
  bool by_key;               // instructions aligned by key
} etr_oracle_alignment_t;

// Aligns `candidate` with reference values: through `map` when not NULL,
// else by key when `same_program`, else program outputs only. With
// `intermediates` false only program outputs align.
etr_error_t etr_oracle_align(const etr_oracle_values_t *candidate,
                             const etr_oracle_map_t *map, bool same_program,
                             bool intermediates,
                             etr_oracle_alignment_t *alignment,
                             etr_diag_t *diag);
void etr_oracle_alignment_release(etr_oracle_alignment_t *alignment);

// The candidate value aligned with a reference key, or NULL; *map_entry (may be
// NULL) receives the entry used.
const etr_oracle_record_t *etr_oracle_alignment_find(
    const etr_oracle_alignment_t *alignment,
    const etr_oracle_key_t *reference, int32_t *map_entry);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ORACLE_ALIGN_H
