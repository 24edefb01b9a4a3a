// SPDX-License-Identifier: Apache-2.0
//
// Internal to the judge (see oracle.h): its state, shared by the files
// that make it up:
//   oracle.c        names, setup (aliases, delegate outputs), the public
//                   entry, the summary
//   judge_inputs.c  before an instruction: op class, K, the magnitude run,
//                   which inputs the candidate covers, the local re-run
//   judge_values.c  judging one value: bounds, global and local checks,
//                   the verdict; the result arrays; who wrote what
//   judge_ops.c     after an instruction: KernelCalls, DelegateCalls,
//                   values reported inside delegates, program outputs
#ifndef ETR_PROF_ORACLE_JUDGE_INTERNAL_H
#define ETR_PROF_ORACLE_JUDGE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/event_tracer.h"
#include "core/method.h"
#include "prof/oracle/oracle.h"
#include "prof/oracle/rerun.h"

// Who last wrote a value in the reference run, and the candidate's value
// for it.
typedef struct writer {
  bool computed;     // written by an instruction of this run
  int64_t op;        // index into result->ops (-1 when not judged)
  uint32_t chain;
  uint32_t instruction;
  uint32_t position;
  const etr_oracle_record_t *candidate;
  // Kept for program outputs and for values the candidate has none of
  // (inside a fused region): M (C order), K and the tolerance that applied
  // (the op's class merged with the region behind it), for the bound of a
  // value judged downstream of it.
  double *magnitude;
  int64_t k;
  etr_oracle_class_t op_class;
  etr_oracle_tolerance_t tolerance;
  bool has_region;  // the tolerance merges a region's
  double region_abs;  // see now.region_abs
  etr_oracle_verdict_t verdict;  // the value's own, when judged
  // Written through another value that shares its memory (a view the
  // memory plan aliases): the candidate's value is that value's, read in
  // flat order.
  bool reshaped;
} writer_t;

typedef struct judge {
  etr_event_tracer_t tracer;
  etr_method_t *method;
  const etr_oracle_judge_config_t *config;
  etr_oracle_result_t *result;
  uint32_t op_capacity;
  uint32_t value_capacity;
  writer_t *writers;          // per method value
  uint32_t *alias_next;       // per value: next value with the same
                              // placement (a cycle), itself when none
  bool *written;              // per value: some instruction writes it
  bool *is_program_output;    // per method value
  bool *delegate_output_arg;  // per (chain, instruction, argument): see bind
  uint32_t *arg_offsets;      // first flag of each instruction
  uint32_t *occurrences;
  uint32_t *chain_offsets;
  etr_arena_t temp;           // the re-runs' kernel scratch
  void *temp_buffer;
  bool failed;  // out of memory inside a hook
  etr_diag_t diag;
  uint32_t now_chain;  // the instruction in progress
  uint32_t now_instruction;

  // The instruction in progress.
  struct {
    bool active;
    uint32_t occurrence;
    uint32_t outputs[ETR_ORACLE_MAX_POSITIONS];
    uint32_t num_outputs;
    etr_oracle_class_t op_class;
    bool class_known;
    bool skip;  // outputs undefined by definition
    int64_t k;
    double *magnitude[ETR_ORACLE_MAX_POSITIONS];
    bool magnitude_missing;
    etr_oracle_rerun_t local;
    bool has_local;
    etr_oracle_local_t local_kind;
    bool inputs_differ;
    bool inputs_off;  // an input's value was itself judged off (propagated
                      // or diverging)
    uint32_t uncovered;
    uint32_t producers[ETR_ORACLE_MAX_PRODUCERS];
    uint32_t num_producers;
    // The tolerances of the uncovered inputs' producers, merged: the check
    // spans them (a region), so it allows what each of them may add.
    etr_oracle_tolerance_t region;
    int64_t region_k;
    // A dequantize over a region holding quantize steps: those steps times
    // its scale, as an absolute allowance.
    double region_abs;
    char note[512];
    // Values the delegate in progress reported (reference side), per debug
    // id or name, and whether one of them already differed.
    struct {
      int64_t debug_id;
      const char *debug_name;
      uint32_t count;
    } groups[32];
    uint32_t num_groups;
    bool delegate_differs;
  } now;
} judge_t;

// Records an out-of-memory failure (the first one wins).
void etr_oracle_judge_oom(judge_t *j);

// Tracer hooks.
void etr_oracle_judge_begin_instruction(void *user, const etr_method_t *method,
                                        uint32_t chain, uint32_t instruction);
void etr_oracle_judge_end_instruction(void *user, const etr_method_t *method,
                                      uint32_t chain, uint32_t instruction,
                                      etr_error_t status);
void etr_oracle_judge_delegate_intermediate(void *user,
                                            const etr_method_t *method,
                                            uint32_t delegate_index,
                                            const char *name, int64_t debug_id,
                                            const struct etr_evalue *value);

// Judges the program outputs after the run.
void etr_oracle_judge_outputs(judge_t *j);

// Result arrays (NULL / false when out of memory).
bool etr_oracle_judge_push_op(judge_t *j, etr_oracle_op_result_t **out);
etr_oracle_value_result_t *etr_oracle_judge_push_value(judge_t *j);

// True when a reference output is judged in quantization steps.
bool etr_oracle_judge_is_quantized(const judge_t *j,
                                   etr_oracle_class_t op_class,
                                   const etr_tensor_t *reference,
                                   uint32_t chain, uint32_t instruction,
                                   uint32_t position);

// The reference value as a tensor (Int/Double/Bool as 0-dim tensors over
// `storage`), or NULL for other tags.
const etr_tensor_t *etr_oracle_judge_reference_tensor(
    const etr_evalue_t *value, etr_tensor_t *scalar, int64_t *storage);

// Compares v->candidate with `reference` (globally) and, when `local_valid`,
// with `local` (the re-run; NULL when the inputs were the same) and returns
// the verdict, filling v's metrics and reason.
// `region` (may be NULL) is merged into the op's own tolerance.
etr_oracle_verdict_t etr_oracle_judge_value(
    judge_t *j, etr_oracle_value_result_t *v, const etr_tensor_t *reference,
    const etr_tensor_t *local, bool local_valid, bool upstream_differs,
    const etr_oracle_tolerance_t *region);

// The looser of two tolerances, field by field (exact only when both are).
void etr_oracle_tolerance_merge(etr_oracle_tolerance_t *into,
                                const etr_oracle_tolerance_t *from);

etr_oracle_verdict_t etr_oracle_judge_worse(etr_oracle_verdict_t a,
                                            etr_oracle_verdict_t b);

// Records who wrote `value_index` (and the views sharing its memory).
void etr_oracle_judge_set_writer(judge_t *j, uint32_t value_index, int64_t op,
                                 uint32_t chain, uint32_t instruction,
                                 uint32_t position,
                                 const etr_oracle_record_t *candidate,
                                 etr_oracle_verdict_t verdict);

#endif  // ETR_PROF_ORACLE_JUDGE_INTERNAL_H
