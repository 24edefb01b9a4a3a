// SPDX-License-Identifier: Apache-2.0
//
// The judge after each instruction (see judge_internal.h): a KernelCall's
// outputs, a DelegateCall's outputs, the values a delegate reports from
// inside, MoveCalls; then the program outputs.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_reference/support/element.h"
#include "prof/oracle/judge_internal.h"

static void judge_kernel_call(judge_t *j, const etr_instruction_t *current,
                              uint32_t chain, uint32_t instruction) {
  const etr_method_t *method = j->method;
  int64_t op_index = -1;
  etr_oracle_op_result_t *op = NULL;
  if (j->config->intermediates) {
    if (!etr_oracle_judge_push_op(j, &op)) {
      return;
    }
    op_index = j->result->num_ops - 1;
    op->chain = chain;
    op->instruction = instruction;
    op->occurrence = j->now.occurrence;
    op->kind = current->kind;
    snprintf(op->name, sizeof(op->name), "%s",
             method->operators[current->callee].name);
    op->op_class = j->now.op_class;
    op->class_known = j->now.class_known;
    op->local = j->now.local_kind;
    op->inputs_differ = j->now.inputs_differ;
    op->uncovered = j->now.uncovered;
    op->num_uncovered_producers = j->now.num_producers;
    memcpy(op->uncovered_producers, j->now.producers,
           sizeof(op->uncovered_producers));
    op->first_value = j->result->num_values;
    op->verdict = ETR_ORACLE_NOT_COMPARED;
    snprintf(op->note, sizeof(op->note), "%s", j->now.note);
  }
  bool local_valid = j->now.local_kind != ETR_ORACLE_LOCAL_NONE;
  for (uint32_t p = 0; p < j->now.num_outputs; ++p) {
    uint32_t value_index = j->now.outputs[p];
    // Its consumers read it as off (diverged or propagated) or not.
    etr_oracle_verdict_t verdict = ETR_ORACLE_NOT_COMPARED;
    etr_oracle_key_t key = {
        .origin = ETR_ORACLE_FROM_INSTRUCTION,
        .chain = chain,
        .instruction = instruction,
        .occurrence = j->now.occurrence,
        .position = p,
        .debug_id = -1,
    };
    int32_t entry = -1;
    const etr_oracle_record_t *candidate =
        j->config->intermediates
            ? etr_oracle_alignment_find(j->config->alignment, &key, &entry)
            : NULL;
    if (op != NULL && value_index < method->num_values) {
      etr_oracle_value_result_t *v = etr_oracle_judge_push_value(j);
      if (v == NULL) {
        return;
      }
      op = &j->result->ops[op_index];  // the arrays may have moved
      etr_tensor_t scalar;
      int64_t storage = 0;
      const etr_tensor_t *reference =
          etr_oracle_judge_reference_tensor(&method->values[value_index],
                                            &scalar, &storage);
      v->op = (uint32_t)op_index;
      v->position = p;
      v->value_index = value_index;
      v->candidate = candidate;
      v->map_entry = entry;
      v->op_class = j->now.op_class;
      v->k = j->now.k;
      if (reference != NULL) {
        v->dtype = reference->dtype;
        v->dim = reference->dim;
        memcpy(v->sizes, reference->sizes, sizeof(v->sizes));
        v->quantized = etr_oracle_judge_is_quantized(
            j, j->now.op_class, reference, chain,
                                          instruction, p);
        if (j->now.skip) {
          v->verdict = ETR_ORACLE_NOT_COMPARED;
          snprintf(v->reason, sizeof(v->reason),
                   "the op's output is undefined or random by definition");
        } else {
          const etr_tensor_t *local =
              j->now.local_kind == ETR_ORACLE_LOCAL_RERUN &&
                      p < j->now.local.num_results
                  ? j->now.local.results[p]
                  : NULL;
          bool valid = local_valid &&
                       (j->now.local_kind != ETR_ORACLE_LOCAL_RERUN ||
                        local != NULL);
          v->verdict = etr_oracle_judge_value(
              j, v, reference, local, valid, j->now.inputs_differ,
              j->now.uncovered > 0 ? &j->now.region : NULL);
        }
      }
      verdict = v->verdict;
      ++op->num_values;
      op->verdict = op->num_values == 1 ? v->verdict
                                        : etr_oracle_judge_worse(
                                            op->verdict, v->verdict);
    }
    etr_oracle_judge_set_writer(j, value_index, op_index, chain, instruction,
                                p, candidate, verdict);
    // The elements of a TensorList result are values of their own.
  }
  if (op != NULL && op->num_values == 0) {
    snprintf(op->note, sizeof(op->note), "no output value to compare");
  }
}

// A DelegateCall in the reference program (the reference ran a built-in
// backend): its output arguments, compared globally.
static void judge_delegate_call(judge_t *j, const etr_instruction_t *current,
                                uint32_t chain, uint32_t instruction) {
  const etr_method_t *method = j->method;
  uint32_t flag_base = j->arg_offsets[j->chain_offsets[chain] + instruction];
  int64_t op_index = -1;
  etr_oracle_op_result_t *op = NULL;
  if (j->config->intermediates && etr_oracle_judge_push_op(j, &op)) {
    op_index = j->result->num_ops - 1;
    op->chain = chain;
    op->instruction = instruction;
    op->occurrence = j->now.occurrence;
    op->kind = current->kind;
    snprintf(op->name, sizeof(op->name), "%s",
             current->callee < method->num_delegates &&
                     method->delegates[current->callee].backend_id != NULL
                 ? method->delegates[current->callee].backend_id
                 : "DelegateCall");
    op->op_class = j->config->policy->default_class;
    op->local = ETR_ORACLE_LOCAL_NONE;
    op->first_value = j->result->num_values;
    snprintf(op->note, sizeof(op->note),
             "a delegate in the reference program: outputs compared as a "
             "whole (class %s), no local re-run",
             etr_oracle_class_name(op->op_class));
  }
  uint32_t position = 0;
  for (size_t a = 0; a < current->num_args; ++a) {
    uint32_t value_index = current->arg_indices[a];
    const etr_evalue_t *value = current->args[a];
    uint32_t width = value->tag == ETR_TAG_LIST_TENSOR ||
                             value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR
                         ? (uint32_t)value->u.as_tensor_list.length
                         : 1;
    if (!j->delegate_output_arg[flag_base + a] ||
        value->tag != ETR_TAG_TENSOR) {
      position += width > 0 ? width : 1;
      continue;
    }
    etr_oracle_verdict_t verdict = ETR_ORACLE_NOT_COMPARED;
    etr_oracle_key_t key = {
        .origin = ETR_ORACLE_FROM_INSTRUCTION,
        .chain = chain,
        .instruction = instruction,
        .occurrence = j->now.occurrence,
        .position = position,
        .debug_id = -1,
    };
    int32_t entry = -1;
    const etr_oracle_record_t *candidate =
        j->config->intermediates
            ? etr_oracle_alignment_find(j->config->alignment, &key, &entry)
            : NULL;
    if (op != NULL) {
      etr_oracle_value_result_t *v = etr_oracle_judge_push_value(j);
      if (v == NULL) {
        return;
      }
      op = &j->result->ops[op_index];
      const etr_tensor_t *reference = value->u.as_tensor;
      v->op = (uint32_t)op_index;
      v->position = position;
      v->value_index = value_index;
      v->candidate = candidate;
      v->map_entry = entry;
      v->op_class = op->op_class;
      v->dtype = reference->dtype;
      v->dim = reference->dim;
      memcpy(v->sizes, reference->sizes, sizeof(v->sizes));
      v->verdict = etr_oracle_judge_value(j, v, reference, NULL, false,
                                          j->now.inputs_differ, NULL);
      verdict = v->verdict;
      ++op->num_values;
      op->verdict = op->num_values == 1 ? v->verdict
                                        : etr_oracle_judge_worse(
                                            op->verdict, v->verdict);
    }
    j->now.op_class = j->config->policy->default_class;
    etr_oracle_judge_set_writer(j, value_index, op_index, chain, instruction,
                                position, candidate, verdict);
    position += 1;
  }
}

// A value a delegate of the reference program reported from inside its
// subgraph (the reference ran a built-in backend): judged against the
// candidate's value with the same key. No local re-run is possible inside a
// delegate, so after the first of its values that differs, later ones are
// presumed to inherit it.
void etr_oracle_judge_delegate_intermediate(void *user,
                                            const etr_method_t *method,
                                  uint32_t delegate_index, const char *name,
                                  int64_t debug_id,
                                  const struct etr_evalue *value) {
  judge_t *j = (judge_t *)user;
  if (method != j->method || j->failed || !j->config->intermediates ||
      value == NULL || !j->now.active) {
    return;
  }
  const char *key_name = debug_id >= 0 ? NULL : name;
  uint32_t g = 0;
  while (g < j->now.num_groups &&
         !(j->now.groups[g].debug_id == debug_id &&
           ((key_name == NULL && j->now.groups[g].debug_name == NULL) ||
            (key_name != NULL && j->now.groups[g].debug_name != NULL &&
             strcmp(key_name, j->now.groups[g].debug_name) == 0)))) {
    ++g;
  }
  if (g == j->now.num_groups) {
    if (g == sizeof(j->now.groups) / sizeof(j->now.groups[0])) {
      return;
    }
    j->now.groups[g].debug_id = debug_id;
    j->now.groups[g].debug_name = key_name;  // only compared during the call
    j->now.groups[g].count = 0;
    ++j->now.num_groups;
  }
  uint32_t position = j->now.groups[g].count;
  uint32_t width = value->tag == ETR_TAG_LIST_TENSOR
                       ? (uint32_t)value->u.as_tensor_list.length
                       : 1;
  j->now.groups[g].count += width > 0 ? width : 1;
  bool list = value->tag == ETR_TAG_LIST_TENSOR ||
              value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR;
  if ((value->tag != ETR_TAG_TENSOR || value->u.as_tensor == NULL) && !list) {
    return;  // scalars inside delegates are not judged
  }
  etr_oracle_op_result_t *op = NULL;
  if (!etr_oracle_judge_push_op(j, &op)) {
    return;
  }
  uint32_t op_index = j->result->num_ops - 1;
  op->chain = j->now_chain;
  op->instruction = j->now_instruction;
  op->occurrence = j->now.occurrence;
  op->kind = ETR_INSTRUCTION_DELEGATE_CALL;
  const char *backend = delegate_index < method->num_delegates &&
                                method->delegates[delegate_index].backend_id
                            ? method->delegates[delegate_index].backend_id
                            : "delegate";
  if (debug_id >= 0) {
    snprintf(op->name, sizeof(op->name), "%.40s #%lld %.60s", backend,
             (long long)debug_id, name != NULL ? name : "");
  } else {
    snprintf(op->name, sizeof(op->name), "%.40s %.60s", backend,
             name != NULL ? name : "?");
  }
  bool known = false;
  op->op_class = name != NULL ? etr_oracle_policy_class(j->config->policy,
                                                        name, &known)
                              : j->config->policy->default_class;
  op->class_known = known;
  op->local = ETR_ORACLE_LOCAL_NONE;
  op->first_value = j->result->num_values;
  op->verdict = ETR_ORACLE_NOT_COMPARED;
  snprintf(op->note, sizeof(op->note),
           "a value reported from inside a delegate: no local re-run, and "
           "K-aware bounds lack the K term");
  bool differs_before = j->now.delegate_differs;
  for (uint32_t k = 0; k < width; ++k) {
    const etr_tensor_t *reference =
        list ? etr_tensor_list_get(value, k) : value->u.as_tensor;
    if (reference == NULL) {
      continue;
    }
    etr_oracle_key_t key = {
        .origin = ETR_ORACLE_FROM_DELEGATE,
        .chain = j->now_chain,
        .instruction = j->now_instruction,
        .occurrence = j->now.occurrence,
        .position = position + k,
        .debug_id = debug_id,
        .debug_name = key_name,
    };
    int32_t entry = -1;
    const etr_oracle_record_t *candidate =
        etr_oracle_alignment_find(j->config->alignment, &key, &entry);
    etr_oracle_value_result_t *v = etr_oracle_judge_push_value(j);
    if (v == NULL) {
      return;
    }
    op = &j->result->ops[op_index];
    v->op = UINT32_MAX;  // no magnitude run inside a delegate
    v->position = position + k;
    v->value_index = UINT32_MAX;
    v->candidate = candidate;
    v->map_entry = entry;
    v->op_class = op->op_class;
    v->dtype = reference->dtype;
    v->dim = reference->dim;
    memcpy(v->sizes, reference->sizes, sizeof(v->sizes));
    v->quantized = etr_oracle_judge_is_quantized(
        j, op->op_class, reference, UINT32_MAX, UINT32_MAX, UINT32_MAX);
    v->verdict = etr_oracle_judge_value(j, v, reference, NULL, false,
                                        differs_before, NULL);
    if (v->verdict == ETR_ORACLE_DIVERGE ||
        v->verdict == ETR_ORACLE_PROPAGATED) {
      j->now.delegate_differs = true;
      j->now.inputs_differ = true;  // the delegate's outputs inherit it
    }
    ++op->num_values;
    op->verdict = op->num_values == 1 ? v->verdict
                                      : etr_oracle_judge_worse(
                                          op->verdict, v->verdict);
  }
}

void etr_oracle_judge_end_instruction(void *user, const etr_method_t *method,
                            uint32_t chain, uint32_t instruction,
                            etr_error_t status) {
  judge_t *j = (judge_t *)user;
  if (method != j->method || j->failed) {
    return;
  }
  const etr_instruction_t *current =
      &method->chains[chain].instructions[instruction];
  if (status == ETR_OK) {
    switch (current->kind) {
      case ETR_INSTRUCTION_KERNEL_CALL:
        judge_kernel_call(j, current, chain, instruction);
        break;
      case ETR_INSTRUCTION_DELEGATE_CALL:
        judge_delegate_call(j, current, chain, instruction);
        break;
      case ETR_INSTRUCTION_MOVE_CALL: {
        uint32_t from = current->operands[0];
        uint32_t to = current->operands[1];
        if (from < method->num_values && to < method->num_values) {
          writer_t copy = j->writers[from];
          copy.magnitude = NULL;  // owned by the source
          free(j->writers[to].magnitude);
          j->writers[to] = copy;
        }
        break;
      }
      default:
        break;
    }
  }
  ++j->occurrences[j->chain_offsets[chain] + instruction];
}

// ---- program outputs -------------------------------------------------------

void etr_oracle_judge_outputs(judge_t *j) {
  const etr_method_t *method = j->method;
  etr_oracle_result_t *r = j->result;
  r->outputs = (etr_oracle_value_result_t *)calloc(
      method->num_outputs + 1, sizeof(etr_oracle_value_result_t));
  if (r->outputs == NULL) {
    etr_oracle_judge_oom(j);
    return;
  }
  // The last instruction's scratch goes before `now` serves the outputs.
  for (uint32_t p = 0; p < ETR_ORACLE_MAX_POSITIONS; ++p) {
    free(j->now.magnitude[p]);
  }
  if (j->now.has_local) {
    etr_oracle_rerun_release(&j->now.local);
  }
  memset(&j->now, 0, sizeof(j->now));
  uint32_t position = 0;
  for (uint32_t k = 0; k < method->num_outputs; ++k) {
    uint32_t value_index = method->outputs[k];
    const etr_evalue_t *value = &method->values[value_index];
    etr_oracle_value_result_t *v = &r->outputs[r->num_outputs++];
    v->op = UINT32_MAX;
    v->position = position;
    v->value_index = value_index;
    etr_oracle_key_t key = {.origin = ETR_ORACLE_FROM_OUTPUT,
                            .position = position,
                            .debug_id = -1};
    v->candidate =
        etr_oracle_alignment_find(j->config->alignment, &key, &v->map_entry);
    uint32_t width = value->tag == ETR_TAG_LIST_TENSOR
                         ? (uint32_t)value->u.as_tensor_list.length
                         : 1;
    position += width > 0 ? width : 1;
    etr_tensor_t scalar;
    int64_t storage = 0;
    const etr_tensor_t *reference = etr_oracle_judge_reference_tensor(
        value, &scalar, &storage);
    if (reference == NULL) {
      v->verdict = ETR_ORACLE_NOT_COMPARED;
      snprintf(v->reason, sizeof(v->reason), "a %s output is not compared",
               etr_tag_name(value->tag));
      continue;
    }
    v->dtype = reference->dtype;
    v->dim = reference->dim;
    memcpy(v->sizes, reference->sizes, sizeof(v->sizes));
    const writer_t *w = &j->writers[value_index];
    v->op_class = w->computed ? w->op_class : j->config->policy->default_class;
    v->k = w->k;
    v->quantized = w->computed && etr_oracle_judge_is_quantized(
                                      j, v->op_class, reference, w->chain,
                                      w->instruction, w->position);
    // The producer's magnitude (and region allowance) serve its bound.
    j->now.op_class = v->op_class;
    j->now.region_abs = w->computed ? w->region_abs : 0;
    if (w->magnitude != NULL) {
      j->now.magnitude[0] = w->magnitude;
    }
    uint32_t saved_position = v->position;
    v->position = 0;
    v->op = 0;  // let judge_value find magnitude[0]
    etr_oracle_verdict_t verdict = etr_oracle_judge_value(
        j, v, reference, NULL, false, false,
        w->computed && w->has_region ? &w->tolerance : NULL);
    v->op = UINT32_MAX;
    v->position = saved_position;
    j->now.magnitude[0] = NULL;
    if (v->candidate == NULL) {
      verdict = ETR_ORACLE_DIVERGE;
      snprintf(v->reason, sizeof(v->reason),
               "the candidate has no value for this program output");
    } else if (verdict == ETR_ORACLE_DIVERGE && v->global.compared &&
               w->computed && w->op >= 0 &&
               (uint64_t)w->op < r->num_ops) {
      // With the producing op judged, its verdict says whether this output
      // inherited the difference.
      const etr_oracle_op_result_t *producer = &r->ops[w->op];
      etr_oracle_verdict_t produced = ETR_ORACLE_NOT_COMPARED;
      bool produced_off = false;  // the op's own global check failed too
      for (uint32_t i = 0; i < producer->num_values; ++i) {
        const etr_oracle_value_result_t *pv =
            &r->values[producer->first_value + i];
        if (pv->position == w->position) {
          produced = pv->verdict;
          produced_off = pv->global.compared && !pv->global.passed;
        }
      }
      char detail[256];
      snprintf(detail, sizeof(detail), "%.250s", v->reason);
      if (produced == ETR_ORACLE_AGREE && produced_off) {
        // The op agreed with this very difference: within tolerance on
        // inputs that were within theirs. (A candidate whose output is not
        // what its last op wrote still diverges here.)
        verdict = ETR_ORACLE_AGREE;
        snprintf(v->reason, sizeof(v->reason),
                 "%.250s; every op on its path is within tolerance on its "
                 "own inputs: accumulated drift",
                 detail);
      } else if (produced == ETR_ORACLE_PROPAGATED) {
        verdict = ETR_ORACLE_PROPAGATED;
        const etr_oracle_op_result_t *diverged = NULL;
        for (uint32_t i = 0; i < r->num_ops && diverged == NULL; ++i) {
          diverged = r->ops[i].verdict == ETR_ORACLE_DIVERGE ? &r->ops[i]
                                                              : NULL;
        }
        if (diverged != NULL) {
          snprintf(v->reason, sizeof(v->reason),
                   "%.250s; inherited (the first diverging op is %u:%u "
                   "%.60s)",
                   detail, diverged->chain, diverged->instruction,
                   diverged->name);
        } else {
          snprintf(v->reason, sizeof(v->reason), "%.250s; inherited",
                   detail);
        }
      }
    }
    v->verdict = verdict;
  }
}
