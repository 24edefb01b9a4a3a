// SPDX-License-Identifier: Apache-2.0
//
// Judging one value (see judge_internal.h): the bound, the global and local
// comparisons and the verdict they give; the result arrays; the writers.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_reference/support/element.h"
#include "prof/oracle/judge_internal.h"

void etr_oracle_judge_oom(judge_t *j) {
  if (!j->failed) {
    j->failed = true;
    ETR_FAIL(&j->diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
             "out of memory while judging");
  }
}

// ---- after an instruction: judging ------------------------------------------

bool etr_oracle_judge_push_op(judge_t *j, etr_oracle_op_result_t **out) {
  etr_oracle_result_t *r = j->result;
  if (r->num_ops == j->op_capacity) {
    uint32_t capacity = j->op_capacity ? j->op_capacity * 2 : 64;
    etr_oracle_op_result_t *grown = (etr_oracle_op_result_t *)realloc(
        r->ops, capacity * sizeof(etr_oracle_op_result_t));
    if (grown == NULL) {
      etr_oracle_judge_oom(j);
      return false;
    }
    r->ops = grown;
    j->op_capacity = capacity;
  }
  *out = &r->ops[r->num_ops++];
  memset(*out, 0, sizeof(**out));
  return true;
}

etr_oracle_value_result_t *etr_oracle_judge_push_value(judge_t *j) {
  etr_oracle_result_t *r = j->result;
  if (r->num_values == j->value_capacity) {
    uint32_t capacity = j->value_capacity ? j->value_capacity * 2 : 128;
    etr_oracle_value_result_t *grown = (etr_oracle_value_result_t *)realloc(
        r->values, capacity * sizeof(etr_oracle_value_result_t));
    if (grown == NULL) {
      etr_oracle_judge_oom(j);
      return NULL;
    }
    r->values = grown;
    j->value_capacity = capacity;
  }
  etr_oracle_value_result_t *v = &r->values[r->num_values++];
  memset(v, 0, sizeof(*v));
  return v;
}

bool etr_oracle_judge_is_quantized(const judge_t *j,
                                   etr_oracle_class_t op_class,
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
const etr_tensor_t *etr_oracle_judge_reference_tensor(const etr_evalue_t *value,
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

void etr_oracle_tolerance_merge(etr_oracle_tolerance_t *into,
                                const etr_oracle_tolerance_t *from) {
  into->exact = into->exact && from->exact;
  into->ulp = into->ulp > from->ulp ? into->ulp : from->ulp;
  into->abs_eps = into->abs_eps > from->abs_eps ? into->abs_eps
                                                : from->abs_eps;
  into->rel_eps = into->rel_eps > from->rel_eps ? into->rel_eps
                                                : from->rel_eps;
  into->k_aware = into->k_aware || from->k_aware;
  into->k_factor =
      into->k_factor > from->k_factor ? into->k_factor : from->k_factor;
  into->steps = into->steps > from->steps ? into->steps : from->steps;
  into->local_steps = into->local_steps > from->local_steps
                          ? into->local_steps
                          : from->local_steps;
  into->max_mismatch_fraction =
      into->max_mismatch_fraction > from->max_mismatch_fraction
          ? into->max_mismatch_fraction
          : from->max_mismatch_fraction;
  into->norm_eps =
      into->norm_eps > from->norm_eps ? into->norm_eps : from->norm_eps;
}

// Judges one output position of the instruction in progress.
etr_oracle_verdict_t etr_oracle_judge_value(
    judge_t *j, etr_oracle_value_result_t *v, const etr_tensor_t *reference,
    const etr_tensor_t *local, bool local_valid, bool upstream_differs,
    const etr_oracle_tolerance_t *region) {
  const etr_oracle_policy_t *policy = j->config->policy;
  const etr_oracle_tolerance_t *t =
      etr_oracle_policy_tolerance(policy, v->op_class, reference->dtype);
  etr_oracle_tolerance_t exact = {.exact = true};
  etr_oracle_tolerance_t merged;
  bool integer = !etr_scalar_type_is_floating(reference->dtype);
  if (integer && !v->quantized) {
    t = &exact;
  } else if (region != NULL) {
    // The check spans a region the candidate exposes nothing inside: it
    // allows what each op of the region may add.
    merged = *t;
    etr_oracle_tolerance_merge(&merged, region);
    double eps = etr_oracle_epsilon(reference->dtype);
    if (j->now.region_abs > 0 && eps > 0 &&
        j->now.region_abs / eps > merged.abs_eps) {
      merged.abs_eps = j->now.region_abs / eps;
    }
    t = &merged;
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
    etr_oracle_judge_oom(j);
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
      etr_oracle_judge_oom(j);
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
      if (!j->now.inputs_off) {
        // Right on its inputs, which were right within their own
        // tolerances: the difference is theirs, carried through.
        snprintf(v->reason, sizeof(v->reason),
                 "within tolerance on its own inputs, which differ only "
                 "within theirs; the reference run differs by: %.250s",
                 detail);
        return ETR_ORACLE_AGREE;
      }
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

etr_oracle_verdict_t etr_oracle_judge_worse(etr_oracle_verdict_t a,
                                  etr_oracle_verdict_t b) {
  return a > b ? a : b;
}

void etr_oracle_judge_set_writer(judge_t *j, uint32_t value_index, int64_t op,
                                 uint32_t chain, uint32_t instruction,
                                 uint32_t position,
                                 const etr_oracle_record_t *candidate,
                                 etr_oracle_verdict_t verdict) {
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
  w->verdict = verdict;
  w->op_class = j->now.op_class;
  w->k = j->now.k;
  w->tolerance = *etr_oracle_policy_tolerance(j->config->policy,
                                              j->now.op_class, ETR_FLOAT);
  w->has_region = j->now.uncovered > 0;
  w->region_abs = j->now.region_abs;
  if (w->has_region) {
    etr_oracle_tolerance_merge(&w->tolerance, &j->now.region);
  }
  if ((j->is_program_output[value_index] || candidate == NULL) &&
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
    // A view has the same elements in flat order: the magnitude of a
    // value inside a region serves it as well.
    const etr_evalue_t *view = &j->method->values[u];
    if (w->magnitude != NULL && view->tag == ETR_TAG_TENSOR &&
        view->u.as_tensor != NULL) {
      int64_t numel = etr_tensor_numel(view->u.as_tensor);
      alias->magnitude = (double *)malloc(
          (size_t)(numel > 0 ? numel : 1) * sizeof(double));
      if (alias->magnitude == NULL) {
        etr_oracle_judge_oom(j);
        return;
      }
      memcpy(alias->magnitude, w->magnitude, (size_t)numel * sizeof(double));
    }
  }
}
