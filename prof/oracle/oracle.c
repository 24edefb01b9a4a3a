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

// Who last wrote a value in the reference run, and the candidate's value
// for it.
typedef struct writer {
  bool computed;     // written by an instruction of this run
  int64_t op;        // index into result->ops (-1 when not judged)
  uint32_t chain;
  uint32_t instruction;
  uint32_t position;
  const etr_oracle_record_t *candidate;
  double *magnitude;  // kept for program outputs of K-aware ops
  int64_t k;
  etr_oracle_class_t op_class;
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
    uint32_t uncovered;
    uint32_t producers[ETR_ORACLE_MAX_PRODUCERS];
    uint32_t num_producers;
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

static void oom(judge_t *j) {
  if (!j->failed) {
    j->failed = true;
    ETR_FAIL(&j->diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
             "out of memory while judging");
  }
}

// ---- classification and accumulation length ---------------------------------

static void short_name(const char *op_name, char *out, size_t capacity) {
  const char *separator = strstr(op_name, "::");
  const char *bare = separator != NULL ? separator + 2 : op_name;
  const char *dot = strchr(bare, '.');
  size_t length = dot != NULL ? (size_t)(dot - bare) : strlen(bare);
  if (length >= capacity) {
    length = capacity - 1;
  }
  memcpy(out, bare, length);
  out[length] = '\0';
}

static bool undefined_output(const char *bare) {
  static const char *const kUndefined[] = {
      "empty", "empty_strided", "_empty_dim_order", "rand", "randn",
      "randperm", "native_dropout", "bernoulli", "normal", "uniform"};
  for (size_t i = 0; i < sizeof(kUndefined) / sizeof(kUndefined[0]); ++i) {
    if (strcmp(kUndefined[i], bare) == 0) {
      return true;
    }
  }
  return false;
}

static const etr_tensor_t *arg_tensor(const etr_instruction_t *instruction,
                                      size_t index) {
  if (index >= instruction->num_args ||
      instruction->args[index]->tag != ETR_TAG_TENSOR) {
    return NULL;
  }
  return instruction->args[index]->u.as_tensor;
}

static int64_t numel_of(const etr_tensor_t *tensor) {
  return tensor != NULL ? etr_tensor_numel(tensor) : 0;
}

// K: how many terms an output element sums (plus one for a bias or the
// final division), op by op; otherwise input elements per output element.
static int64_t accumulation_length(const char *bare,
                                   const etr_instruction_t *instruction,
                                   const etr_tensor_t *out) {
  const etr_tensor_t *first = arg_tensor(instruction, 0);
  if (strcmp(bare, "convolution") == 0) {
    const etr_tensor_t *weight = arg_tensor(instruction, 1);
    if (weight != NULL && weight->dim > 0 && weight->sizes[0] > 0) {
      return numel_of(weight) / weight->sizes[0] + 1;
    }
  } else if (strcmp(bare, "addmm") == 0) {
    const etr_tensor_t *mat1 = arg_tensor(instruction, 1);
    if (mat1 != NULL && mat1->dim > 0) {
      return mat1->sizes[mat1->dim - 1] + 1;
    }
  } else if (strcmp(bare, "mm") == 0 || strcmp(bare, "bmm") == 0 ||
             strcmp(bare, "linear") == 0) {
    if (first != NULL && first->dim > 0) {
      return first->sizes[first->dim - 1] + 1;
    }
  } else if (strcmp(bare, "avg_pool1d") == 0 ||
             strcmp(bare, "avg_pool2d") == 0 ||
             strcmp(bare, "avg_pool3d") == 0) {
    if (instruction->num_args > 1 &&
        instruction->args[1]->tag == ETR_TAG_LIST_INT) {
      size_t length = 0;
      const int64_t *kernel =
          etr_int_list_values(instruction->args[1], &length);
      int64_t area = 1;
      for (size_t i = 0; kernel != NULL && i < length; ++i) {
        area *= kernel[i] > 0 ? kernel[i] : 1;
      }
      if (length == 1 && strcmp(bare, "avg_pool1d") != 0) {
        area = strcmp(bare, "avg_pool2d") == 0 ? area * area
                                               : area * area * area;
      }
      return area + 1;
    }
  } else if (strcmp(bare, "upsample_bilinear2d") == 0) {
    return 4 + 1;
  } else if (strcmp(bare, "cumsum") == 0 && first != NULL) {
    int64_t longest = 1;
    for (int32_t d = 0; d < first->dim; ++d) {
      longest = first->sizes[d] > longest ? first->sizes[d] : longest;
    }
    return longest + 1;
  }
  int64_t in = numel_of(first);
  int64_t n = numel_of(out);
  return (n > 0 && in > n ? (in + n - 1) / n : 1) + 1;
}

// ---- tensor helpers ------------------------------------------------------

static bool same_shape(const etr_tensor_t *a, const etr_tensor_t *b) {
  if (a->dtype != b->dtype || a->dim != b->dim) {
    return false;
  }
  for (int32_t d = 0; d < a->dim; ++d) {
    if (a->sizes[d] != b->sizes[d]) {
      return false;
    }
  }
  return true;
}

// True when the writer's candidate value can stand for the live tensor:
// same dtype and shape, or, for an aliased view, same dtype and element
// count over a contiguous tensor (flat order is then logical order).
static bool usable(const writer_t *w, const etr_tensor_t *live) {
  const etr_oracle_record_t *c = w->candidate;
  if (!w->computed || c == NULL || !c->has_data) {
    return false;
  }
  if (same_shape(&c->tensor, live)) {
    return true;
  }
  return w->reshaped && c->tensor.dtype == live->dtype &&
         etr_tensor_numel(&c->tensor) == etr_tensor_numel(live) &&
         etr_tensor_is_contiguous(live);
}

// True when the candidate record holds exactly the live tensor's values.
static bool same_bits(const etr_oracle_record_t *candidate,
                      const etr_tensor_t *live) {
  int64_t numel = etr_tensor_numel(live);
  if (numel == 0) {
    return true;
  }
  if (live->data == NULL || !candidate->has_data) {
    return false;
  }
  size_t element = etr_scalar_type_size(live->dtype);
  const uint8_t *c = (const uint8_t *)candidate->tensor.data;
  int64_t index[ETR_MAX_DIMS] = {0};
  for (int64_t flat = 0; flat < numel; ++flat) {
    const void *l = etr_element_at(live, etr_tensor_offset(live, index));
    if (memcmp(c + (size_t)flat * element, l, element) != 0) {
      return false;
    }
    etr_index_next(index, live->sizes, live->dim);
  }
  return true;
}

// A copy of `live`'s shape and layout over a new buffer.
static bool layout_copy(const etr_tensor_t *live, etr_tensor_t *out,
                        void **buffer_out) {
  *out = *live;
  size_t nbytes = etr_tensor_nbytes(live);
  size_t capacity = live->capacity_bytes > nbytes ? live->capacity_bytes
                                                  : nbytes;
  void *buffer = calloc(1, capacity > 0 ? capacity : 1);
  if (buffer == NULL) {
    return false;
  }
  out->data = buffer;
  out->capacity_bytes = capacity;
  *buffer_out = buffer;
  return true;
}

// Substitution for the magnitude run: float inputs by their absolute
// values.
static bool substitute_magnitude(void *user, uint32_t value_index,
                                 const etr_tensor_t *live, etr_tensor_t *out,
                                 void **buffer_out) {
  (void)value_index;
  judge_t *j = (judge_t *)user;
  if (!etr_scalar_type_is_floating(live->dtype) || live->data == NULL ||
      etr_tensor_numel(live) == 0) {
    return false;
  }
  if (!layout_copy(live, out, buffer_out)) {
    oom(j);
    return false;
  }
  int64_t index[ETR_MAX_DIMS] = {0};
  do {
    int64_t offset = etr_tensor_offset(live, index);
    double value = etr_load_double(live->dtype, etr_element_at(live, offset));
    etr_store_double(out->dtype, etr_element_at(out, offset), fabs(value));
  } while (etr_index_next(index, live->sizes, live->dim));
  return true;
}

// Substitution for the local re-run: an input the candidate has a value
// for takes that value.
static bool substitute_candidate(void *user, uint32_t value_index,
                                 const etr_tensor_t *live, etr_tensor_t *out,
                                 void **buffer_out) {
  judge_t *j = (judge_t *)user;
  if (value_index >= j->method->num_values) {
    return false;
  }
  const writer_t *w = &j->writers[value_index];
  const etr_oracle_record_t *c = w->candidate;
  if (!usable(w, live)) {
    return false;
  }
  if (!layout_copy(live, out, buffer_out)) {
    oom(j);
    return false;
  }
  size_t element = etr_scalar_type_size(live->dtype);
  int64_t numel = etr_tensor_numel(live);
  int64_t index[ETR_MAX_DIMS] = {0};
  for (int64_t flat = 0; flat < numel; ++flat) {
    memcpy(etr_element_at(out, etr_tensor_offset(out, index)),
           (const uint8_t *)c->tensor.data + (size_t)flat * element, element);
    etr_index_next(index, live->sizes, live->dim);
  }
  return true;
}

// ---- before an instruction ----------------------------------------------

static bool is_output_value(const judge_t *j, uint32_t value_index) {
  for (uint32_t p = 0; p < j->now.num_outputs; ++p) {
    if (j->now.outputs[p] == value_index) {
      return true;
    }
  }
  return false;
}

static void note_input(judge_t *j, uint32_t value_index) {
  if (value_index >= j->method->num_values || is_output_value(j, value_index)) {
    return;
  }
  const etr_evalue_t *value = &j->method->values[value_index];
  if (value->tag != ETR_TAG_TENSOR || value->u.as_tensor == NULL) {
    return;
  }
  const writer_t *w = &j->writers[value_index];
  if (!w->computed) {
    return;  // a constant, a program input or state: the same on both sides
  }
  const etr_oracle_record_t *c = w->candidate;
  if (!usable(w, value->u.as_tensor)) {
    ++j->now.uncovered;
    bool listed = false;
    for (uint32_t i = 0; i < j->now.num_producers; ++i) {
      listed = listed || j->now.producers[i] == w->instruction;
    }
    if (!listed && j->now.num_producers < ETR_ORACLE_MAX_PRODUCERS) {
      j->now.producers[j->now.num_producers++] = w->instruction;
    }
    return;
  }
  if (!same_bits(c, value->u.as_tensor)) {
    j->now.inputs_differ = true;
  }
}

static void scan_inputs(judge_t *j, const etr_instruction_t *instruction) {
  for (size_t a = 0; a < instruction->num_args; ++a) {
    uint32_t index = instruction->arg_indices[a];
    const etr_evalue_t *value = instruction->args[a];
    if (value->tag == ETR_TAG_LIST_TENSOR ||
        value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
      if (is_output_value(j, index)) {
        continue;
      }
      for (size_t k = 0; k < value->u.as_tensor_list.length; ++k) {
        const etr_evalue_t *item = value->u.as_tensor_list.items[k];
        if (item != NULL && item >= j->method->values &&
            item < j->method->values + j->method->num_values) {
          note_input(j, (uint32_t)(item - j->method->values));
        }
      }
    } else {
      note_input(j, index);
    }
  }
}

// M per element of each float output, from the magnitude run.
static void magnitude_run(judge_t *j, const etr_instruction_t *instruction) {
  etr_oracle_rerun_t run;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_oracle_rerun(j->method, instruction,
                                        substitute_magnitude, j, &j->temp,
                                        &run, &diag);
  ++j->result->magnitude_runs;
  if (status != ETR_OK) {
    j->now.magnitude_missing = true;
    snprintf(j->now.note, sizeof(j->now.note),
             "the magnitude run failed (%.400s): bounds lack the K term",
             diag.message);
    etr_oracle_rerun_release(&run);
    return;
  }
  for (uint32_t p = 0; p < run.num_results && p < j->now.num_outputs; ++p) {
    const etr_tensor_t *m = run.results[p];
    if (m == NULL || !etr_scalar_type_is_floating(m->dtype)) {
      continue;
    }
    int64_t numel = etr_tensor_numel(m);
    double *values = (double *)malloc((size_t)(numel > 0 ? numel : 1) *
                                      sizeof(double));
    if (values == NULL) {
      oom(j);
      break;
    }
    int64_t index[ETR_MAX_DIMS] = {0};
    for (int64_t flat = 0; flat < numel; ++flat) {
      values[flat] = fabs(etr_load_double(
          m->dtype, etr_element_at(m, etr_tensor_offset(m, index))));
      etr_index_next(index, m->sizes, m->dim);
    }
    j->now.magnitude[p] = values;
  }
  etr_oracle_rerun_release(&run);
}

static void begin_instruction(void *user, const etr_method_t *method,
                              uint32_t chain, uint32_t instruction) {
  judge_t *j = (judge_t *)user;
  if (method != j->method || j->failed) {
    return;
  }
  for (uint32_t p = 0; p < ETR_ORACLE_MAX_POSITIONS; ++p) {
    free(j->now.magnitude[p]);
  }
  if (j->now.has_local) {
    etr_oracle_rerun_release(&j->now.local);
  }
  memset(&j->now, 0, sizeof(j->now));
  j->now.active = true;
  j->now_chain = chain;
  j->now_instruction = instruction;
  j->now.occurrence =
      j->occurrences[j->chain_offsets[chain] + instruction];
  const etr_instruction_t *current =
      &method->chains[chain].instructions[instruction];
  if (current->kind != ETR_INSTRUCTION_KERNEL_CALL) {
    return;
  }
  const char *name = method->operators[current->callee].name;
  char bare[ETR_ORACLE_NAME_CAPACITY];
  short_name(name, bare, sizeof(bare));
  j->now.op_class = etr_oracle_policy_class(j->config->policy, name,
                                            &j->now.class_known);
  j->now.skip = undefined_output(bare);
  j->now.num_outputs = etr_oracle_output_values(
      method, current, j->now.outputs, ETR_ORACLE_MAX_POSITIONS);
  bool feeds_output = false;
  for (uint32_t p = 0; p < j->now.num_outputs; ++p) {
    feeds_output = feeds_output ||
                   (j->now.outputs[p] < method->num_values &&
                    j->is_program_output[j->now.outputs[p]]);
  }
  // Nothing to judge here (no candidate value for it, no program output
  // depending on it): spare the magnitude and re-runs.
  bool has_candidate = false;
  for (uint32_t p = 0; p < j->now.num_outputs && j->config->intermediates;
       ++p) {
    etr_oracle_key_t key = {.origin = ETR_ORACLE_FROM_INSTRUCTION,
                            .chain = chain,
                            .instruction = instruction,
                            .occurrence = j->now.occurrence,
                            .position = p,
                            .debug_id = -1};
    has_candidate = has_candidate ||
                    etr_oracle_alignment_find(j->config->alignment, &key,
                                              NULL) != NULL;
  }
  if (j->now.skip || (!has_candidate && !feeds_output)) {
    return;
  }
  const etr_oracle_tolerance_t *t = etr_oracle_policy_tolerance(
      j->config->policy, j->now.op_class, ETR_FLOAT);
  if (t->k_aware) {
    const etr_evalue_t *slot = current->args[current->num_args - 1];
    const etr_tensor_t *out =
        slot->tag == ETR_TAG_TENSOR ? slot->u.as_tensor : NULL;
    j->now.k = accumulation_length(bare, current, out);
    magnitude_run(j, current);
  }
  if (!j->config->intermediates || !has_candidate) {
    return;
  }
  scan_inputs(j, current);
  if (!j->now.inputs_differ) {
    j->now.local_kind = ETR_ORACLE_LOCAL_SAME_INPUTS;
    return;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status =
      etr_oracle_rerun(method, current, substitute_candidate, j, &j->temp,
                       &j->now.local, &diag);
  j->now.has_local = true;
  ++j->result->reruns;
  if (status != ETR_OK) {
    j->now.local_kind = ETR_ORACLE_LOCAL_NONE;
    snprintf(j->now.note, sizeof(j->now.note),
             "the re-run on the candidate's inputs failed: %.400s",
             diag.message);
  } else {
    j->now.local_kind = ETR_ORACLE_LOCAL_RERUN;
  }
}

// ---- after an instruction: judging ------------------------------------------

static bool push_op(judge_t *j, etr_oracle_op_result_t **out) {
  etr_oracle_result_t *r = j->result;
  if (r->num_ops == j->op_capacity) {
    uint32_t capacity = j->op_capacity ? j->op_capacity * 2 : 64;
    etr_oracle_op_result_t *grown = (etr_oracle_op_result_t *)realloc(
        r->ops, capacity * sizeof(etr_oracle_op_result_t));
    if (grown == NULL) {
      oom(j);
      return false;
    }
    r->ops = grown;
    j->op_capacity = capacity;
  }
  *out = &r->ops[r->num_ops++];
  memset(*out, 0, sizeof(**out));
  return true;
}

static etr_oracle_value_result_t *push_value(judge_t *j) {
  etr_oracle_result_t *r = j->result;
  if (r->num_values == j->value_capacity) {
    uint32_t capacity = j->value_capacity ? j->value_capacity * 2 : 128;
    etr_oracle_value_result_t *grown = (etr_oracle_value_result_t *)realloc(
        r->values, capacity * sizeof(etr_oracle_value_result_t));
    if (grown == NULL) {
      oom(j);
      return NULL;
    }
    r->values = grown;
    j->value_capacity = capacity;
  }
  etr_oracle_value_result_t *v = &r->values[r->num_values++];
  memset(v, 0, sizeof(*v));
  return v;
}

static bool is_quantized_value(const judge_t *j, etr_oracle_class_t op_class,
                               const etr_tensor_t *reference, uint32_t chain,
                               uint32_t instruction, uint32_t position) {
  if (etr_scalar_type_is_floating(reference->dtype) ||
      reference->dtype == ETR_BOOL) {
    return false;
  }
  return op_class == ETR_ORACLE_QUANTIZE || op_class == ETR_ORACLE_QUANTIZED ||
         etr_oracle_policy_declares_quantized(j->config->policy, chain,
                                              instruction, position);
}

// The reference value as a tensor (scalars as 0-dim tensors over `scalar`).
static const etr_tensor_t *reference_tensor(const etr_evalue_t *value,
                                            etr_tensor_t *scalar,
                                            int64_t *storage) {
  switch (value->tag) {
    case ETR_TAG_TENSOR:
      return value->u.as_tensor;
    case ETR_TAG_INT:
    case ETR_TAG_DOUBLE:
    case ETR_TAG_BOOL: {
      etr_scalar_type_t dtype = value->tag == ETR_TAG_INT      ? ETR_LONG
                                : value->tag == ETR_TAG_DOUBLE ? ETR_DOUBLE
                                                               : ETR_BOOL;
      if (value->tag == ETR_TAG_INT) {
        memcpy(storage, &value->u.as_int, sizeof(value->u.as_int));
      } else if (value->tag == ETR_TAG_DOUBLE) {
        memcpy(storage, &value->u.as_double, sizeof(value->u.as_double));
      } else {
        memcpy(storage, &value->u.as_bool, sizeof(value->u.as_bool));
      }
      if (etr_tensor_init(scalar, dtype, 0, NULL, storage, 8, NULL) != ETR_OK) {
        return NULL;
      }
      return scalar;
    }
    default:
      return NULL;
  }
}

static void describe_metrics_failure(const etr_oracle_metrics_t *m,
                                     char *text, size_t capacity) {
  if (!m->dtype_match) {
    snprintf(text, capacity, "dtype differs");
  } else if (!m->shape_match) {
    snprintf(text, capacity, "shape differs");
  } else if (m->unsupported_dtype) {
    snprintf(text, capacity, "dtype not comparable");
  } else if (!m->compared) {
    snprintf(text, capacity, "a value has no data");
  } else if (m->mismatches == 0 && m->norm_failed) {
    snprintf(text, capacity,
             "every element within its bound, but the relative L2 error "
             "%.3g exceeds the norm check's %.3g (SQNR %.1f dB)",
             m->relative_l2, m->relative_l2_bound, m->sqnr_db);
  } else {
    snprintf(text, capacity,
             "%lld of %lld elements outside tolerance (worst: %.9g vs "
             "reference %.9g, bound %.3g)",
             (long long)m->mismatches, (long long)m->numel,
             m->worst_candidate, m->worst_reference, m->worst_bound);
  }
}

// Judges one output position of the instruction in progress.
static etr_oracle_verdict_t judge_value(judge_t *j,
                                        etr_oracle_value_result_t *v,
                                        const etr_tensor_t *reference,
                                        const etr_tensor_t *local,
                                        bool local_valid,
                                        bool upstream_differs) {
  const etr_oracle_policy_t *policy = j->config->policy;
  const etr_oracle_tolerance_t *t =
      etr_oracle_policy_tolerance(policy, v->op_class, reference->dtype);
  etr_oracle_tolerance_t exact = {.exact = true};
  bool integer = !etr_scalar_type_is_floating(reference->dtype);
  if (integer && !v->quantized) {
    t = &exact;
  }
  etr_oracle_bound_t bound = {
      .tolerance = t,
      .quantized = v->quantized,
      .steps = t->steps,
      .flush_denormals = policy->flush_denormals,
      .k = v->k,
      .magnitude = NULL,
  };
  const double *magnitude =
      v->position < ETR_ORACLE_MAX_POSITIONS && v->op != UINT32_MAX
          ? j->now.magnitude[v->position]
          : NULL;
  bound.magnitude = magnitude;
  if (t->k_aware && !integer && magnitude == NULL) {
    v->magnitude_missing = true;
  }
  const etr_oracle_record_t *c = v->candidate;
  if (c == NULL) {
    snprintf(v->reason, sizeof(v->reason), "the candidate has no value");
    return ETR_ORACLE_NOT_COMPARED;
  }
  if (!c->has_data) {
    snprintf(v->reason, sizeof(v->reason),
             "the candidate's value has no data (only its shape)");
    return ETR_ORACLE_DIVERGE;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (etr_oracle_compare(&c->tensor, reference, &bound, &v->global, &diag) !=
      ETR_OK) {
    oom(j);
    return ETR_ORACLE_NOT_COMPARED;
  }
  if (!v->global.compared) {
    describe_metrics_failure(&v->global, v->reason, sizeof(v->reason));
    return ETR_ORACLE_DIVERGE;
  }
  bool global_pass = v->global.passed;
  // The local check: against the re-run on the candidate's inputs, or, when
  // the inputs agreed, against the reference itself (with the quantized
  // local allowance).
  if (local_valid) {
    bool covered = j->now.uncovered == 0;
    bound.steps = covered ? t->local_steps : t->steps;
    const etr_tensor_t *against = local != NULL ? local : reference;
    if (etr_oracle_compare(&c->tensor, against, &bound, &v->local, &diag) !=
        ETR_OK) {
      oom(j);
      return ETR_ORACLE_NOT_COMPARED;
    }
    v->has_local = true;
    char detail[200];
    if (!v->local.passed) {
      describe_metrics_failure(&v->local, detail, sizeof(detail));
      snprintf(v->reason, sizeof(v->reason), "%s: %.250s",
               local != NULL
                   ? "differs from the reference op run on the candidate's "
                     "own inputs"
                   : "differs from the reference, its inputs being the same",
               detail);
      return ETR_ORACLE_DIVERGE;
    }
    if (!global_pass) {
      describe_metrics_failure(&v->global, detail, sizeof(detail));
      snprintf(v->reason, sizeof(v->reason),
               "outside tolerance only through its inputs (within it when "
               "re-run on them): %.250s",
               detail);
      return ETR_ORACLE_PROPAGATED;
    }
    return ETR_ORACLE_AGREE;
  }
  if (global_pass) {
    return ETR_ORACLE_AGREE;
  }
  char detail[200];
  describe_metrics_failure(&v->global, detail, sizeof(detail));
  if (upstream_differs) {
    snprintf(v->reason, sizeof(v->reason),
             "%.250s; its inputs already differed and no local check was "
             "possible, so presumed inherited",
             detail);
    return ETR_ORACLE_PROPAGATED;
  }
  snprintf(v->reason, sizeof(v->reason), "%s", detail);
  return ETR_ORACLE_DIVERGE;
}

static etr_oracle_verdict_t worse(etr_oracle_verdict_t a,
                                  etr_oracle_verdict_t b) {
  return a > b ? a : b;
}

static void set_writer(judge_t *j, uint32_t value_index, int64_t op,
                       uint32_t chain, uint32_t instruction,
                       uint32_t position,
                       const etr_oracle_record_t *candidate) {
  if (value_index >= j->method->num_values) {
    return;
  }
  writer_t *w = &j->writers[value_index];
  free(w->magnitude);
  memset(w, 0, sizeof(*w));
  w->computed = true;
  w->op = op;
  w->chain = chain;
  w->instruction = instruction;
  w->position = position;
  w->candidate = candidate;
  w->op_class = j->now.op_class;
  w->k = j->now.k;
  if (j->is_program_output[value_index] &&
      position < ETR_ORACLE_MAX_POSITIONS) {
    w->magnitude = j->now.magnitude[position];  // ownership moves
    j->now.magnitude[position] = NULL;
  }
  // Views sharing the value's memory now hold the same bytes. (Tensors the
  // planner merely placed at the same spot at other times are written by
  // their own instructions and keep their own writers.)
  for (uint32_t u = j->alias_next[value_index]; u != value_index;
       u = j->alias_next[u]) {
    if (j->written[u]) {
      continue;
    }
    writer_t *alias = &j->writers[u];
    free(alias->magnitude);
    *alias = *w;
    alias->magnitude = NULL;
    alias->reshaped = true;
  }
}

static void judge_kernel_call(judge_t *j, const etr_instruction_t *current,
                              uint32_t chain, uint32_t instruction) {
  const etr_method_t *method = j->method;
  int64_t op_index = -1;
  etr_oracle_op_result_t *op = NULL;
  if (j->config->intermediates) {
    if (!push_op(j, &op)) {
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
      etr_oracle_value_result_t *v = push_value(j);
      if (v == NULL) {
        return;
      }
      op = &j->result->ops[op_index];  // the arrays may have moved
      etr_tensor_t scalar;
      int64_t storage = 0;
      const etr_tensor_t *reference =
          reference_tensor(&method->values[value_index], &scalar, &storage);
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
        v->quantized = is_quantized_value(j, j->now.op_class, reference, chain,
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
          v->verdict = judge_value(j, v, reference, local, valid,
                                   j->now.inputs_differ);
        }
      }
      ++op->num_values;
      op->verdict = op->num_values == 1 ? v->verdict
                                        : worse(op->verdict, v->verdict);
    }
    set_writer(j, value_index, op_index, chain, instruction, p, candidate);
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
  if (j->config->intermediates && push_op(j, &op)) {
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
      etr_oracle_value_result_t *v = push_value(j);
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
      v->verdict = judge_value(j, v, reference, NULL, false,
                               j->now.inputs_differ);
      ++op->num_values;
      op->verdict = op->num_values == 1 ? v->verdict
                                        : worse(op->verdict, v->verdict);
    }
    j->now.op_class = j->config->policy->default_class;
    set_writer(j, value_index, op_index, chain, instruction, position,
               candidate);
    position += 1;
  }
}

// A value a delegate of the reference program reported from inside its
// subgraph (the reference ran a built-in backend): judged against the
// candidate's value with the same key. No local re-run is possible inside a
// delegate, so after the first of its values that differs, later ones are
// presumed to inherit it.
static void delegate_intermediate(void *user, const etr_method_t *method,
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
  if (!push_op(j, &op)) {
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
    etr_oracle_value_result_t *v = push_value(j);
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
    v->quantized = is_quantized_value(j, op->op_class, reference, UINT32_MAX,
                                      UINT32_MAX, UINT32_MAX);
    v->verdict = judge_value(j, v, reference, NULL, false, differs_before);
    if (v->verdict == ETR_ORACLE_DIVERGE ||
        v->verdict == ETR_ORACLE_PROPAGATED) {
      j->now.delegate_differs = true;
      j->now.inputs_differ = true;  // the delegate's outputs inherit it
    }
    ++op->num_values;
    op->verdict = op->num_values == 1 ? v->verdict
                                      : worse(op->verdict, v->verdict);
  }
}

static void end_instruction(void *user, const etr_method_t *method,
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

static void judge_outputs(judge_t *j) {
  const etr_method_t *method = j->method;
  etr_oracle_result_t *r = j->result;
  r->outputs = (etr_oracle_value_result_t *)calloc(
      method->num_outputs + 1, sizeof(etr_oracle_value_result_t));
  if (r->outputs == NULL) {
    oom(j);
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
    const etr_tensor_t *reference = reference_tensor(value, &scalar, &storage);
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
    v->quantized =
        w->computed && is_quantized_value(j, v->op_class, reference, w->chain,
                                          w->instruction, w->position);
    // The producer's magnitude serves its bound.
    j->now.op_class = v->op_class;
    if (w->magnitude != NULL) {
      j->now.magnitude[0] = w->magnitude;
    }
    uint32_t saved_position = v->position;
    v->position = 0;
    v->op = 0;  // let judge_value find magnitude[0]
    etr_oracle_verdict_t verdict =
        judge_value(j, v, reference, NULL, false, false);
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
      for (uint32_t i = 0; i < producer->num_values; ++i) {
        const etr_oracle_value_result_t *pv =
            &r->values[producer->first_value + i];
        if (pv->position == w->position) {
          produced = pv->verdict;
        }
      }
      if (produced == ETR_ORACLE_PROPAGATED) {
        verdict = ETR_ORACLE_PROPAGATED;
        char detail[256];
        snprintf(detail, sizeof(detail), "%.250s", v->reason);
        snprintf(v->reason, sizeof(v->reason),
                 "%.250s; every op on its path is within tolerance on its own "
                 "inputs: accumulated drift",
                 detail);
      }
    }
    v->verdict = verdict;
  }
}

// ---- setup ---------------------------------------------------------------------

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
  j->tracer.begin_instruction = begin_instruction;
  j->tracer.end_instruction = end_instruction;
  j->tracer.delegate_intermediate = delegate_intermediate;
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
    r->drift = r->drift || verdict == ETR_ORACLE_PROPAGATED;
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
             r->drift ? " (the others drifted through in-tolerance ops)"
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
      judge_outputs(j);
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
