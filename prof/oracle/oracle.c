// SPDX-License-Identifier: Apache-2.0
//
// The judge (see oracle.h): a tracer on the reference method that, around
// each instruction, prepares the magnitude and local re-runs, then judges
// the instruction's outputs against the aligned candidate values.
#include "prof/oracle/oracle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform.h"
#include "ops_reference/support/element.h"
#include "prof/oracle/judge_internal.h"
#include "prof/oracle/rerun.h"

const char *etr_oracle_verdict_name(etr_oracle_verdict_t verdict) {
  switch (verdict) {
    case ETR_ORACLE_NOT_COMPARED: return "not compared";
    case ETR_ORACLE_AGREE: return "agree";
    case ETR_ORACLE_PROPAGATED: return "propagated";
    case ETR_ORACLE_DIVERGE: return "diverge";
    default: return "?";
  }
}

const char *etr_oracle_local_name(etr_oracle_local_t local) {
  switch (local) {
    case ETR_ORACLE_LOCAL_NONE: return "none";
    case ETR_ORACLE_LOCAL_SAME_INPUTS: return "same inputs";
    case ETR_ORACLE_LOCAL_RERUN: return "re-run";
  }
  return "?";
}

// ---- setup ------------------------------------------------------------------

// Which DelegateCall arguments are outputs: those no earlier instruction
// (in chain order) writes and that are neither program inputs nor data of
// the program.
static etr_error_t mark_delegate_outputs(judge_t *j, etr_diag_t *diag) {
  const etr_method_t *method = j->method;
  uint32_t total = j->chain_offsets[method->num_chains];
  j->arg_offsets = (uint32_t *)calloc(total + 1, sizeof(uint32_t));
  ETR_CHECK(diag, j->arg_offsets != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory");
  uint64_t args = 0;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    for (uint32_t i = 0; i < method->chains[c].num_instructions; ++i) {
      j->arg_offsets[j->chain_offsets[c] + i] = (uint32_t)args;
      args += method->chains[c].instructions[i].num_args;
    }
  }
  ETR_CHECK(diag, args < UINT32_MAX, ETR_ERR_INVALID_ARGUMENT,
            "too many arguments");
  j->delegate_output_arg = (bool *)calloc(args + 1, sizeof(bool));
  bool *written = (bool *)calloc(method->num_values + 1, sizeof(bool));
  if (j->delegate_output_arg == NULL || written == NULL) {
    free(written);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
  }
  for (uint32_t k = 0; k < method->num_inputs; ++k) {
    written[method->inputs[k]] = true;
  }
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    for (uint32_t i = 0; i < method->chains[c].num_instructions; ++i) {
      const etr_instruction_t *ins = &method->chains[c].instructions[i];
      if (ins->kind == ETR_INSTRUCTION_KERNEL_CALL && ins->num_args > 0) {
        uint32_t outputs[ETR_ORACLE_MAX_POSITIONS];
        uint32_t n = etr_oracle_output_values(method, ins, outputs,
                                              ETR_ORACLE_MAX_POSITIONS);
        for (uint32_t p = 0; p < n; ++p) {
          if (outputs[p] < method->num_values) {
            written[outputs[p]] = true;
          }
        }
      } else if (ins->kind == ETR_INSTRUCTION_DELEGATE_CALL) {
        uint32_t base = j->arg_offsets[j->chain_offsets[c] + i];
        for (size_t a = 0; a < ins->num_args; ++a) {
          uint32_t v = ins->arg_indices[a];
          etr_tensor_storage_t storage = method->value_info[v].storage;
          bool data = storage == ETR_STORAGE_CONSTANT ||
                      storage == ETR_STORAGE_EXTERNAL;
          if (!written[v] && !data) {
            j->delegate_output_arg[base + a] = true;
            written[v] = true;
          }
        }
      } else if (ins->kind == ETR_INSTRUCTION_MOVE_CALL &&
                 ins->operands[1] < method->num_values) {
        written[ins->operands[1]] = true;
      }
    }
  }
  j->written = written;  // kept: which values instructions write
  return ETR_OK;
}

// Planned tensors with exactly the same placement (memory id, offset and
// size) are one piece of memory under several names: views the exporter
// turned into aliases (remove_view_copy). Each value gets a cycle of them.
static etr_error_t link_aliases(judge_t *j, etr_diag_t *diag) {
  const etr_method_t *method = j->method;
  j->alias_next =
      (uint32_t *)calloc(method->num_values + 1, sizeof(uint32_t));
  ETR_CHECK(diag, j->alias_next != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for the judge");
  for (uint32_t v = 0; v < method->num_values; ++v) {
    j->alias_next[v] = v;
  }
  for (uint32_t v = 0; v < method->num_values; ++v) {
    const etr_value_info_t *info = &method->value_info[v];
    if (info->storage != ETR_STORAGE_PLANNED ||
        method->values[v].tag != ETR_TAG_TENSOR || j->alias_next[v] != v) {
      continue;
    }
    uint32_t last = v;
    for (uint32_t u = v + 1; u < method->num_values; ++u) {
      const etr_value_info_t *other = &method->value_info[u];
      if (other->storage == ETR_STORAGE_PLANNED &&
          method->values[u].tag == ETR_TAG_TENSOR && j->alias_next[u] == u &&
          other->memory_id == info->memory_id &&
          other->memory_offset == info->memory_offset &&
          other->nbytes == info->nbytes) {
        j->alias_next[last] = u;
        last = u;
      }
    }
    j->alias_next[last] = v;
  }
  return ETR_OK;
}

static etr_error_t setup(judge_t *j, etr_method_t *method, etr_diag_t *diag) {
  j->writers = (writer_t *)calloc(method->num_values + 1, sizeof(writer_t));
  j->is_program_output =
      (bool *)calloc(method->num_values + 1, sizeof(bool));
  j->chain_offsets =
      (uint32_t *)calloc(method->num_chains + 1, sizeof(uint32_t));
  ETR_CHECK(diag,
            j->writers != NULL && j->is_program_output != NULL &&
                j->chain_offsets != NULL,
            ETR_ERR_MEMORY_ALLOCATION_FAILED, "out of memory for the judge");
  uint64_t total = 0;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    j->chain_offsets[c] = (uint32_t)total;
    total += method->chains[c].num_instructions;
  }
  ETR_CHECK(diag, total < UINT32_MAX, ETR_ERR_INVALID_ARGUMENT,
            "too many instructions");
  j->chain_offsets[method->num_chains] = (uint32_t)total;
  j->occurrences = (uint32_t *)calloc(total + 1, sizeof(uint32_t));
  ETR_CHECK(diag, j->occurrences != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for the judge");
  for (uint32_t k = 0; k < method->num_outputs; ++k) {
    j->is_program_output[method->outputs[k]] = true;
  }
  ETR_TRY(mark_delegate_outputs(j, diag));
  ETR_TRY(link_aliases(j, diag));
  size_t temp_size = method->temp.size > 0 ? method->temp.size : (1u << 20);
  j->temp_buffer = aligned_alloc(64, (temp_size + 63) / 64 * 64);
  ETR_CHECK(diag, j->temp_buffer != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for the judge's scratch");
  etr_arena_init(&j->temp, j->temp_buffer, temp_size);
  j->tracer.user = j;
  j->tracer.begin_instruction = etr_oracle_judge_begin_instruction;
  j->tracer.end_instruction = etr_oracle_judge_end_instruction;
  j->tracer.delegate_intermediate = etr_oracle_judge_delegate_intermediate;
  return ETR_OK;
}

static void teardown(judge_t *j) {
  for (uint32_t p = 0; p < ETR_ORACLE_MAX_POSITIONS; ++p) {
    free(j->now.magnitude[p]);
  }
  if (j->now.has_local) {
    etr_oracle_rerun_release(&j->now.local);
  }
  if (j->writers != NULL) {
    for (uint32_t v = 0; v < j->method->num_values; ++v) {
      free(j->writers[v].magnitude);
    }
  }
  free(j->writers);
  free(j->alias_next);
  free(j->written);
  free(j->is_program_output);
  free(j->delegate_output_arg);
  free(j->arg_offsets);
  free(j->occurrences);
  free(j->chain_offsets);
  free(j->temp_buffer);
}

static void summarize(etr_oracle_result_t *r) {
  r->first_diverging_op = -1;
  bool compared = false;
  for (uint32_t i = 0; i < r->num_ops; ++i) {
    etr_oracle_verdict_t verdict = r->ops[i].verdict;
    ++r->op_counts[verdict];
    compared = compared || verdict != ETR_ORACLE_NOT_COMPARED;
    if (verdict == ETR_ORACLE_DIVERGE && r->first_diverging_op < 0) {
      r->first_diverging_op = i;
    }
  }
  for (uint32_t k = 0; k < r->num_outputs; ++k) {
    etr_oracle_verdict_t verdict = r->outputs[k].verdict;
    ++r->output_counts[verdict];
    compared = compared || verdict != ETR_ORACLE_NOT_COMPARED;
    // Drift: an output outside tolerance that every op on its path is
    // within tolerance for.
    r->drift = r->drift || (verdict == ETR_ORACLE_AGREE &&
                            r->outputs[k].global.compared &&
                            !r->outputs[k].global.passed);
  }
  bool diverges = r->op_counts[ETR_ORACLE_DIVERGE] > 0 ||
                  r->output_counts[ETR_ORACLE_DIVERGE] > 0;
  r->verdict = diverges    ? ETR_ORACLE_DIVERGE
               : compared ? ETR_ORACLE_AGREE
                          : ETR_ORACLE_NOT_COMPARED;
  if (r->verdict == ETR_ORACLE_DIVERGE && r->first_diverging_op >= 0) {
    const etr_oracle_op_result_t *op = &r->ops[r->first_diverging_op];
    snprintf(r->summary, sizeof(r->summary),
             "diverges: first at instruction %u:%u (%s); %u of %u ops "
             "diverge, %u propagated, %u agree, %u not compared",
             op->chain, op->instruction, op->name,
             r->op_counts[ETR_ORACLE_DIVERGE], r->num_ops,
             r->op_counts[ETR_ORACLE_PROPAGATED],
             r->op_counts[ETR_ORACLE_AGREE],
             r->op_counts[ETR_ORACLE_NOT_COMPARED]);
  } else if (r->verdict == ETR_ORACLE_DIVERGE) {
    snprintf(r->summary, sizeof(r->summary),
             "diverges: %u of %u program outputs diverge (no op-level "
             "value locates it)",
             r->output_counts[ETR_ORACLE_DIVERGE], r->num_outputs);
  } else if (r->verdict == ETR_ORACLE_AGREE) {
    snprintf(r->summary, sizeof(r->summary),
             "agrees: %u ops agree, %u propagated, %u not compared; %u of "
             "%u program outputs agree%s",
             r->op_counts[ETR_ORACLE_AGREE],
             r->op_counts[ETR_ORACLE_PROPAGATED],
             r->op_counts[ETR_ORACLE_NOT_COMPARED],
             r->output_counts[ETR_ORACLE_AGREE], r->num_outputs,
             r->drift ? " (some only within the ops' tolerances: their "
                        "differences accumulated)"
                      : "");
  } else {
    snprintf(r->summary, sizeof(r->summary),
             "nothing compared: the candidate has no value aligned with "
             "the reference");
  }
}

etr_error_t etr_oracle_judge(etr_method_t *reference,
                             const etr_oracle_judge_config_t *config,
                             etr_oracle_result_t *result, etr_diag_t *diag) {
  memset(result, 0, sizeof(*result));
  result->first_diverging_op = -1;
  judge_t *j = (judge_t *)calloc(1, sizeof(judge_t));
  ETR_CHECK(diag, j != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for the judge");
  j->method = reference;
  j->config = config;
  j->result = result;
  etr_diag_reset(&j->diag);
  etr_error_t status = setup(j, reference, diag);
  if (status == ETR_OK) {
    const etr_event_tracer_t *saved = reference->config.tracer;
    reference->config.tracer = &j->tracer;
    uint64_t start = etr_now_ns();
    status = etr_method_execute(reference, diag);
    result->elapsed_ns = etr_now_ns() - start;
    reference->config.tracer = saved;
    if (status != ETR_OK) {
      etr_diag_prefix(diag, "the reference run failed");
    } else if (j->failed) {
      status = j->diag.code;
      *diag = j->diag;
    } else {
      etr_oracle_judge_outputs(j);
      if (j->failed) {
        status = j->diag.code;
        *diag = j->diag;
      }
    }
  }
  teardown(j);
  free(j);
  if (status == ETR_OK) {
    summarize(result);
  } else {
    etr_oracle_result_release(result);
  }
  return status;
}

void etr_oracle_result_release(etr_oracle_result_t *result) {
  free(result->ops);
  free(result->values);
  free(result->outputs);
  memset(result, 0, sizeof(*result));
}
