// SPDX-License-Identifier: Apache-2.0
//
// The judge before each instruction (see judge_internal.h): the op's class
// and accumulation length, the magnitude run on |inputs|, which of its
// inputs the candidate covers and whether they differ, and the local
// re-run on the candidate's inputs.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_reference/support/element.h"
#include "prof/oracle/judge_internal.h"

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
// values, or, for an input computed inside a region the candidate exposes
// nothing of, by its own magnitude (what the region's sums were made of).
static bool substitute_magnitude(void *user, uint32_t value_index,
                                 const etr_tensor_t *live, etr_tensor_t *out,
                                 void **buffer_out) {
  judge_t *j = (judge_t *)user;
  if (!etr_scalar_type_is_floating(live->dtype) || live->data == NULL ||
      etr_tensor_numel(live) == 0) {
    return false;
  }
  const writer_t *w = value_index < j->method->num_values
                          ? &j->writers[value_index]
                          : NULL;
  const double *region = w != NULL && w->computed && w->magnitude != NULL &&
                                 !usable(w, live)
                             ? w->magnitude
                             : NULL;
  if (!layout_copy(live, out, buffer_out)) {
    etr_oracle_judge_oom(j);
    return false;
  }
  int64_t index[ETR_MAX_DIMS] = {0};
  int64_t flat = 0;
  do {
    int64_t offset = etr_tensor_offset(live, index);
    double value =
        region != NULL
            ? region[flat]
            : etr_load_double(live->dtype, etr_element_at(live, offset));
    etr_store_double(out->dtype, etr_element_at(out, offset), fabs(value));
    ++flat;
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
    etr_oracle_judge_oom(j);
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
    // Inside a region: the check will span its producer, whose tolerance
    // (itself merged over its own region) joins this op's.
    if (j->now.uncovered == 0) {
      j->now.region = w->tolerance;
    } else {
      etr_oracle_tolerance_merge(&j->now.region, &w->tolerance);
    }
    j->now.region_k = w->k > j->now.region_k ? w->k : j->now.region_k;
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
  if (w->verdict == ETR_ORACLE_DIVERGE || w->verdict == ETR_ORACLE_PROPAGATED) {
    j->now.inputs_off = true;
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
      etr_oracle_judge_oom(j);
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

void etr_oracle_judge_begin_instruction(void *user, const etr_method_t *method,
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
  if (j->now.skip) {
    return;
  }
  // Which inputs the candidate covers (and whether they differ): an op
  // without a candidate value is still scanned, as a member of the region
  // a later value will be judged over.
  if (j->config->intermediates) {
    scan_inputs(j, current);
  }
  const etr_oracle_tolerance_t *own = etr_oracle_policy_tolerance(
      j->config->policy, j->now.op_class, ETR_FLOAT);
  bool k_aware = own->k_aware || (j->now.uncovered > 0 &&
                                  j->now.region.k_aware);
  if (own->k_aware) {
    const etr_evalue_t *slot = current->args[current->num_args - 1];
    const etr_tensor_t *out =
        slot->tag == ETR_TAG_TENSOR ? slot->u.as_tensor : NULL;
    j->now.k = accumulation_length(bare, current, out);
  }
  if (j->now.uncovered > 0) {
    // A region's sums add up: its K is this op's plus the longest behind.
    j->now.k += j->now.region_k;
  }
  // The magnitude serves this op's bound when it is judged (or feeds a
  // program output), and a later op's when it lies inside a region.
  if (k_aware && (has_candidate || feeds_output || j->config->intermediates)) {
    magnitude_run(j, current);
  }
  if (j->now.uncovered > 0 && j->now.region.steps > 0 &&
      strcmp(bare, "dequantize_per_tensor") == 0 && current->num_args > 2 &&
      current->args[1]->tag == ETR_TAG_DOUBLE) {
    // The region's quantized values may be `steps` off: dequantized, that
    // is steps * scale.
    j->now.region_abs =
        (double)j->now.region.steps * fabs(current->args[1]->u.as_double);
  }
  if (j->now.uncovered > 0) {
    snprintf(j->now.note, sizeof(j->now.note),
             "judged over a region: tolerance merged with its producers' "
             "classes (K = %lld)",
             (long long)j->now.k);
  }
  if (!j->config->intermediates || !has_candidate) {
    return;
  }
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
