// SPDX-License-Identifier: Apache-2.0
//
// The judge: runs the reference method once and judges, op by op and
// output by output, the candidate values aligned with it (align.h) under
// the tolerance policy (policy.h).
//
// For every KernelCall the reference executes, before it runs:
//   - magnitude: for K-aware classes the reference kernel also runs on the
//     absolute values of the op's float inputs, giving M per element and K
//     (the op's accumulation length) for the bound;
//   - local re-run: each tensor input the op reads was written by an
//     earlier instruction; when the candidate has a value for it and that
//     value differs from the reference's, the reference kernel runs again on
//     the candidate's inputs (candidate values where it has them, reference
//     values elsewhere), into scratch memory. This separates an error the
//     op introduces from one it inherits: benchdnn's per-primitive check,
//     applied inside a whole program.
// After it runs, each output aligned with a candidate value is compared
// twice: globally (candidate vs reference run) and locally (candidate vs
// the reference re-run on the candidate's inputs; the same as global when
// the inputs agreed bit for bit). Verdicts:
//   agree       within tolerance globally (and locally); or outside it
//               globally, within it locally, while every input it read was
//               itself judged agree: the op is right, and so is everything
//               before it, each within its own tolerance (the differences
//               accumulated, "drift"; the global metrics still show it);
//   propagated  outside tolerance globally, within it locally, and some
//               input was itself judged off (diverge or propagated): the
//               op is right given its inputs, the error came from an
//               upstream divergence; or, with no local check possible,
//               outside tolerance while its inputs already differed
//               (presumed inherited);
//   diverge     outside tolerance locally (the op introduced it); or
//               dtype/shape differ; or, with no local check possible, the
//               global check fails while no input differed;
//   not compared  the candidate has no value for it (or the op's output is
//               undefined by definition: empty, random).
// When some computed input of an op has no candidate value (inside a fused
// delegate region), the local check uses the reference value for it: the
// verdict then covers the unexposed producers too, and says which.
// Program outputs are compared globally; a missing one diverges. The
// candidate diverges when any op or output does; the first diverging op in
// execution order is where it went wrong.
#ifndef ETR_PROF_ORACLE_ORACLE_H
#define ETR_PROF_ORACLE_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/method.h"
#include "prof/oracle/align.h"
#include "prof/oracle/metrics.h"
#include "prof/oracle/policy.h"
#include "prof/oracle/values.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_oracle_verdict {
  ETR_ORACLE_NOT_COMPARED = 0,
  ETR_ORACLE_AGREE = 1,
  ETR_ORACLE_PROPAGATED = 2,
  ETR_ORACLE_DIVERGE = 3,
  ETR_ORACLE_NUM_VERDICTS = 4,
} etr_oracle_verdict_t;

// "not compared", "agree", "propagated", "diverge".
const char *etr_oracle_verdict_name(etr_oracle_verdict_t verdict);

typedef enum etr_oracle_local {
  ETR_ORACLE_LOCAL_NONE = 0,         // no local check was possible
  ETR_ORACLE_LOCAL_SAME_INPUTS = 1,  // inputs agreed bit for bit
  ETR_ORACLE_LOCAL_RERUN = 2,        // re-run on the candidate's inputs
} etr_oracle_local_t;

// "none", "same inputs", "re-run".
const char *etr_oracle_local_name(etr_oracle_local_t local);

typedef struct etr_oracle_value_result {
  uint32_t op;  // index into result->ops; UINT32_MAX for program outputs
  uint32_t position;
  uint32_t value_index;
  etr_scalar_type_t dtype;  // the reference value's
  int32_t dim;
  int64_t sizes[ETR_MAX_DIMS];
  const etr_oracle_record_t *candidate;  // NULL when none
  int32_t map_entry;
  etr_oracle_class_t op_class;
  bool quantized;
  int64_t k;  // accumulation length (K-aware classes), else 0
  bool magnitude_missing;  // K-aware but the magnitude run failed
  etr_oracle_metrics_t global;
  bool has_local;
  etr_oracle_metrics_t local;
  etr_oracle_verdict_t verdict;
  char reason[512];
} etr_oracle_value_result_t;

#define ETR_ORACLE_MAX_PRODUCERS 8

typedef struct etr_oracle_op_result {
  uint32_t chain;
  uint32_t instruction;
  uint32_t occurrence;
  etr_instruction_kind_t kind;
  char name[ETR_ORACLE_NAME_CAPACITY];  // operator or backend id
  etr_oracle_class_t op_class;
  bool class_known;
  etr_oracle_local_t local;
  bool inputs_differ;  // some input's candidate value differed
  uint32_t uncovered;  // computed inputs without a candidate value
  uint32_t uncovered_producers[ETR_ORACLE_MAX_PRODUCERS];  // instructions
  uint32_t num_uncovered_producers;
  uint32_t first_value;
  uint32_t num_values;
  etr_oracle_verdict_t verdict;
  char note[512];
} etr_oracle_op_result_t;

typedef struct etr_oracle_result {
  etr_oracle_op_result_t *ops;
  uint32_t num_ops;
  etr_oracle_value_result_t *values;  // the ops' outputs
  uint32_t num_values;
  etr_oracle_value_result_t *outputs;  // program outputs
  uint32_t num_outputs;
  uint32_t op_counts[ETR_ORACLE_NUM_VERDICTS];
  uint32_t output_counts[ETR_ORACLE_NUM_VERDICTS];
  int64_t first_diverging_op;  // index into ops, or -1
  etr_oracle_verdict_t verdict;  // DIVERGE, AGREE, or NOT_COMPARED
  bool drift;  // an output is outside tolerance globally while its
               // producing op agrees (within tolerance on inputs within
               // theirs): judged agree, with this flag and the reason
  uint32_t reruns;      // ops re-run on the candidate's inputs
  uint32_t magnitude_runs;
  uint64_t elapsed_ns;  // of the judged reference run
  char summary[512];
} etr_oracle_result_t;

typedef struct etr_oracle_judge_config {
  const etr_oracle_policy_t *policy;
  const etr_oracle_alignment_t *alignment;
  bool intermediates;  // judge ops (else program outputs only)
} etr_oracle_judge_config_t;

// Executes `reference` once (loaded with reference kernels, inputs set)
// with the judge attached (its tracer is swapped in for the run) and fills
// `result`. An error when the reference itself fails to run (the message
// says where) or memory runs out; the verdicts are in `result` otherwise.
etr_error_t etr_oracle_judge(etr_method_t *reference,
                             const etr_oracle_judge_config_t *config,
                             etr_oracle_result_t *result, etr_diag_t *diag);

void etr_oracle_result_release(etr_oracle_result_t *result);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ORACLE_ORACLE_H
