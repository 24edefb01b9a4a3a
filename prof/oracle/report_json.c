// SPDX-License-Identifier: Apache-2.0
//
// `etref compare`'s JSON (see report.h): schema "etref-compare", version 1,
// as README.md describes it. Fields are added, never renamed.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "prof/oracle/json.h"
#include "prof/oracle/report.h"

static void json_string_or_null(etr_text_t *out, const char *text) {
  if (text == NULL) {
    etr_text_append(out, "null");
  } else {
    etr_json_append_string(out, text);
  }
}

static void json_shape(etr_text_t *out, int32_t dim, const int64_t *sizes) {
  etr_text_append(out, "[");
  for (int32_t d = 0; d < dim; ++d) {
    etr_text_append(out, "%s%lld", d ? ", " : "", (long long)sizes[d]);
  }
  etr_text_append(out, "]");
}

static void json_metrics(etr_text_t *out, const etr_oracle_metrics_t *m,
                         etr_scalar_type_t dtype) {
  bool floating = etr_scalar_type_is_floating(dtype);
  etr_text_append(out,
                  "{\"compared\": %s, \"dtype_match\": %s, \"shape_match\": "
                  "%s, \"numel\": %lld, \"max_abs_error\": ",
                  m->compared ? "true" : "false",
                  m->dtype_match ? "true" : "false",
                  m->shape_match ? "true" : "false", (long long)m->numel);
  etr_json_append_number(out, m->max_abs_error);
  etr_text_append(out, ", \"max_rel_error\": ");
  etr_json_append_number(out, m->max_rel_error);
  if (m->has_ulp) {
    etr_text_append(out, ", \"max_ulp\": %llu, \"p99_ulp\": %llu",
                    (unsigned long long)m->max_ulp,
                    (unsigned long long)m->p99_ulp);
  } else {
    etr_text_append(out, ", \"max_ulp\": null, \"p99_ulp\": null");
  }
  etr_text_append(out, ", \"cosine\": ");
  if (isnan(m->cosine)) {
    etr_text_append(out, "null");
  } else {
    etr_json_append_number(out, m->cosine);
  }
  etr_text_append(out, ", \"sqnr_db\": ");
  if (isnan(m->sqnr_db)) {
    etr_text_append(out, "null");
  } else {
    etr_json_append_number(out, m->sqnr_db);
  }
  etr_text_append(out,
                  ", \"mismatches\": %lld, \"mismatch_fraction\": ",
                  (long long)m->mismatches);
  etr_json_append_number(out, m->mismatch_fraction);
  etr_text_append(out, ", \"nan_mismatches\": %lld, \"inf_mismatches\": %lld",
                  (long long)m->nan_mismatches, (long long)m->inf_mismatches);
  etr_text_append(out, ", \"relative_l2\": ");
  if (isnan(m->relative_l2)) {
    etr_text_append(out, "null");
  } else {
    etr_json_append_number(out, m->relative_l2);
  }
  etr_text_append(out, ", \"relative_l2_bound\": ");
  if (m->relative_l2_bound > 0) {
    etr_json_append_number(out, m->relative_l2_bound);
  } else {
    etr_text_append(out, "null");
  }
  etr_text_append(out, ", \"norm_failed\": %s",
                  m->norm_failed ? "true" : "false");
  if (!floating) {
    etr_text_append(out, ", \"max_steps\": %lld", (long long)m->max_steps);
  } else {
    etr_text_append(out, ", \"max_steps\": null");
  }
  if (m->worst_index >= 0) {
    etr_text_append(out, ", \"worst\": {\"index\": %lld, \"candidate\": ",
                    (long long)m->worst_index);
    etr_json_append_number(out, m->worst_candidate);
    etr_text_append(out, ", \"reference\": ");
    etr_json_append_number(out, m->worst_reference);
    etr_text_append(out, ", \"bound\": ");
    etr_json_append_number(out, m->worst_bound);
    etr_text_append(out, "}");
  } else {
    etr_text_append(out, ", \"worst\": null");
  }
  etr_text_append(out, ", \"passed\": %s}", m->passed ? "true" : "false");
}

static void json_value(etr_text_t *out, const etr_oracle_value_result_t *v) {
  etr_text_append(out, "{\"position\": %u, \"value\": %u, \"reference\": "
                  "{\"dtype\": \"%s\", \"shape\": ",
                  v->position, v->value_index,
                  etr_scalar_type_name(v->dtype));
  json_shape(out, v->dim, v->sizes);
  etr_text_append(out, "}, \"candidate\": ");
  if (v->candidate == NULL) {
    etr_text_append(out, "null");
  } else {
    char source[256];
    etr_oracle_key_describe(&v->candidate->key, source, sizeof(source));
    etr_text_append(out, "{\"source\": ");
    etr_json_append_string(out, source);
    etr_text_append(out, ", \"dtype\": \"%s\", \"shape\": ",
                    etr_scalar_type_name(v->candidate->tensor.dtype));
    json_shape(out, v->candidate->tensor.dim, v->candidate->tensor.sizes);
    if (v->map_entry >= 0) {
      etr_text_append(out, ", \"map_entry\": %d}", v->map_entry);
    } else {
      etr_text_append(out, ", \"map_entry\": null}");
    }
  }
  etr_text_append(out, ", \"class\": \"%s\", \"quantized\": %s, \"k\": ",
                  etr_oracle_class_name(v->op_class),
                  v->quantized ? "true" : "false");
  if (v->k > 0) {
    etr_text_append(out, "%lld", (long long)v->k);
  } else {
    etr_text_append(out, "null");
  }
  etr_text_append(out, ", \"magnitude_missing\": %s, \"verdict\": \"%s\", "
                  "\"reason\": ",
                  v->magnitude_missing ? "true" : "false",
                  etr_oracle_verdict_name(v->verdict));
  json_string_or_null(out, v->reason[0] != '\0' ? v->reason : NULL);
  etr_text_append(out, ", \"global\": ");
  if (v->candidate != NULL && v->candidate->has_data &&
      v->verdict != ETR_ORACLE_NOT_COMPARED) {
    json_metrics(out, &v->global, v->dtype);
  } else {
    etr_text_append(out, "null");
  }
  etr_text_append(out, ", \"local\": ");
  if (v->has_local) {
    json_metrics(out, &v->local, v->dtype);
  } else {
    etr_text_append(out, "null");
  }
  etr_text_append(out, "}");
}

static void json_counts(etr_text_t *out, const uint32_t *counts) {
  etr_text_append(out,
                  "{\"agree\": %u, \"propagated\": %u, \"diverge\": %u, "
                  "\"not_compared\": %u}",
                  counts[ETR_ORACLE_AGREE], counts[ETR_ORACLE_PROPAGATED],
                  counts[ETR_ORACLE_DIVERGE],
                  counts[ETR_ORACLE_NOT_COMPARED]);
}

static void json_case(etr_text_t *out, const etr_oracle_case_t *c) {
  const etr_oracle_result_t *r = c->result;
  etr_text_append(out, "{\"name\": ");
  etr_json_append_string(out, c->name);
  if (c->bundled_test_set >= 0) {
    etr_text_append(out, ", \"bundled_test_set\": %d", c->bundled_test_set);
  } else {
    etr_text_append(out, ", \"bundled_test_set\": null");
  }
  etr_text_append(out, ", \"verdict\": \"%s\", \"summary\": ",
                  etr_oracle_verdict_name(r->verdict));
  etr_json_append_string(out, r->summary);
  etr_text_append(out, ", \"candidate_failure\": ");
  json_string_or_null(out, c->candidate_failure[0] != '\0'
                               ? c->candidate_failure
                               : NULL);
  etr_text_append(out, ", \"first_diverging_op\": ");
  if (r->first_diverging_op >= 0) {
    const etr_oracle_op_result_t *op = &r->ops[r->first_diverging_op];
    etr_text_append(out,
                    "{\"index\": %lld, \"chain\": %u, \"instruction\": %u, "
                    "\"occurrence\": %u, \"operator\": ",
                    (long long)r->first_diverging_op, op->chain,
                    op->instruction, op->occurrence);
    etr_json_append_string(out, op->name);
    etr_text_append(out, "}");
  } else {
    etr_text_append(out, "null");
  }
  etr_text_append(out, ", \"drift\": %s, \"counts\": {\"ops\": ",
                  r->drift ? "true" : "false");
  json_counts(out, r->op_counts);
  etr_text_append(out, ", \"outputs\": ");
  json_counts(out, r->output_counts);
  const etr_oracle_alignment_t *a = c->alignment;
  etr_text_append(out,
                  "}, \"alignment\": {\"by\": \"%s\", \"candidate_values\": "
                  "%u, \"aligned\": %u, \"unaligned\": %u, "
                  "\"unused_map_entries\": %u}",
                  a->by_map ? "map" : a->by_key ? "key" : "outputs",
                  a->candidate_records, a->count, a->unaligned,
                  a->unused_entries);
  etr_text_append(out,
                  ", \"reruns\": %u, \"magnitude_runs\": %u, "
                  "\"reference_ms\": %.3f, \"candidate_ms\": %.3f",
                  r->reruns, r->magnitude_runs, r->elapsed_ns / 1e6,
                  c->candidate_ns / 1e6);
  etr_text_append(out, ", \"ops\": [");
  for (uint32_t i = 0; i < r->num_ops; ++i) {
    const etr_oracle_op_result_t *op = &r->ops[i];
    etr_text_append(out,
                    "%s{\"index\": %u, \"chain\": %u, \"instruction\": %u, "
                    "\"occurrence\": %u, \"kind\": \"%s\", \"operator\": ",
                    i ? ", " : "", i, op->chain, op->instruction,
                    op->occurrence, etr_instruction_kind_name(op->kind));
    etr_json_append_string(out, op->name);
    etr_text_append(out,
                    ", \"class\": \"%s\", \"class_known\": %s, \"verdict\": "
                    "\"%s\", \"local_check\": \"%s\", \"inputs_differ\": %s, "
                    "\"uncovered_inputs\": %u, \"uncovered_producers\": [",
                    etr_oracle_class_name(op->op_class),
                    op->class_known ? "true" : "false",
                    etr_oracle_verdict_name(op->verdict),
                    etr_oracle_local_name(op->local),
                    op->inputs_differ ? "true" : "false", op->uncovered);
    for (uint32_t p = 0; p < op->num_uncovered_producers; ++p) {
      etr_text_append(out, "%s%u", p ? ", " : "", op->uncovered_producers[p]);
    }
    etr_text_append(out, "], \"note\": ");
    json_string_or_null(out, op->note[0] != '\0' ? op->note : NULL);
    etr_text_append(out, ", \"values\": [");
    for (uint32_t v = 0; v < op->num_values; ++v) {
      etr_text_append(out, "%s", v ? ", " : "");
      json_value(out, &r->values[op->first_value + v]);
    }
    etr_text_append(out, "]}");
  }
  etr_text_append(out, "], \"outputs\": [");
  for (uint32_t k = 0; k < r->num_outputs; ++k) {
    etr_text_append(out, "%s", k ? ", " : "");
    json_value(out, &r->outputs[k]);
  }
  etr_text_append(out, "]}");
}

void etr_oracle_report_json(const etr_oracle_report_t *report,
                            etr_text_t *out) {
  etr_text_append(out, "{\"schema\": \"etref-compare\", \"version\": 1");
  etr_text_append(out, ",\n \"command\": ");
  json_string_or_null(out, report->command);
  etr_text_append(out, ",\n \"program\": ");
  json_string_or_null(out, report->program);
  etr_text_append(out, ",\n \"reference_program\": ");
  json_string_or_null(out, report->reference_program);
  etr_text_append(out, ",\n \"method\": ");
  json_string_or_null(out, report->method);
  etr_text_append(out, ",\n \"candidate\": {\"kind\": ");
  json_string_or_null(out, report->candidate_kind);
  etr_text_append(out, ", \"source\": ");
  json_string_or_null(out, report->candidate_source);
  etr_text_append(out, ", \"map\": ");
  json_string_or_null(out, report->map_path);
  etr_text_append(out, "},\n \"inputs\": ");
  json_string_or_null(out, report->inputs);
  etr_text_append(out, ",\n \"intermediates\": %s",
                  report->intermediates ? "true" : "false");
  etr_text_append(out, ",\n \"policy\": ");
  etr_oracle_policy_to_json(report->policy, out);
  etr_text_t model;
  etr_text_init(&model);
  etr_oracle_policy_describe(report->policy, &model);
  etr_text_append(out, ",\n \"tolerance_model\": ");
  etr_json_append_string(out, etr_text_str(&model));
  etr_text_release(&model);
  etr_text_append(out, ",\n \"notes\": [");
  for (uint32_t n = 0; n < report->num_notes; ++n) {
    etr_text_append(out, "%s", n ? ", " : "");
    etr_json_append_string(out, report->notes[n]);
  }
  etr_text_append(out, "],\n \"verdict\": \"%s\", \"exit_code\": %d",
                  etr_oracle_verdict_name(report->verdict),
                  report->exit_code);
  etr_text_append(out, ",\n \"cases\": [");
  for (uint32_t c = 0; c < report->num_cases; ++c) {
    etr_text_append(out, "%s\n  ", c ? "," : "");
    json_case(out, &report->cases[c]);
  }
  etr_text_append(out, "\n ]}\n");
}

static etr_error_t write_text(const char *path, const etr_text_t *text,
                              etr_diag_t *diag) {
  ETR_CHECK(diag, !text->failed, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory writing %s", path);
  FILE *file = fopen(path, "wb");
  ETR_CHECK(diag, file != NULL, ETR_ERR_ACCESS_FAILED, "cannot write %s: %s",
            path, strerror(errno));
  size_t length = text->length;
  bool ok = fwrite(etr_text_str(text), 1, length, file) == length;
  ok = fclose(file) == 0 && ok;
  ETR_CHECK(diag, ok, ETR_ERR_ACCESS_FAILED, "cannot write %s", path);
  return ETR_OK;
}

etr_error_t etr_oracle_write_json(const etr_oracle_report_t *report,
                                  const char *path, etr_diag_t *diag) {
  etr_text_t text;
  etr_text_init(&text);
  etr_oracle_report_json(report, &text);
  etr_error_t status = write_text(path, &text, diag);
  etr_text_release(&text);
  return status;
}
