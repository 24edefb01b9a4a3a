// SPDX-License-Identifier: Apache-2.0
//
// `etref compare`'s console summary and HTML / Markdown report (see
// report.h); the JSON is report_json.c.
#define _POSIX_C_SOURCE 200809L
#include "prof/oracle/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "prof/oracle/json.h"
#include "prof/report_doc.h"
#include "prof/svg.h"

etr_oracle_verdict_t etr_oracle_report_verdict(const etr_oracle_case_t *cases,
                                               uint32_t count) {
  bool diverge = false;
  bool compared = false;
  for (uint32_t c = 0; c < count; ++c) {
    diverge = diverge || cases[c].result->verdict == ETR_ORACLE_DIVERGE;
    compared = compared || cases[c].result->verdict != ETR_ORACLE_NOT_COMPARED;
  }
  return diverge ? ETR_ORACLE_DIVERGE
                 : compared ? ETR_ORACLE_AGREE : ETR_ORACLE_NOT_COMPARED;
}

// ---- console ----------------------------------------------------------------

static void format_number(char *text, size_t capacity, double value) {
  if (isnan(value)) {
    snprintf(text, capacity, "-");
  } else if (isinf(value)) {
    snprintf(text, capacity, value > 0 ? "inf" : "-inf");
  } else {
    snprintf(text, capacity, "%.3g", value);
  }
}

// The worst of an op's values by verdict, for one-line displays.
static const etr_oracle_value_result_t *worst_value(
    const etr_oracle_result_t *r, const etr_oracle_op_result_t *op) {
  const etr_oracle_value_result_t *worst = NULL;
  for (uint32_t v = 0; v < op->num_values; ++v) {
    const etr_oracle_value_result_t *value = &r->values[op->first_value + v];
    if (worst == NULL || value->verdict > worst->verdict ||
        (value->verdict == worst->verdict &&
         value->global.max_abs_error > worst->global.max_abs_error)) {
      worst = value;
    }
  }
  return worst;
}

static void metric_cells(const etr_oracle_value_result_t *v, char *abs_error,
                         char *ulp, char *sqnr, char *mismatches,
                         size_t capacity) {
  bool shown = v != NULL && v->candidate != NULL && v->global.compared;
  // The local comparison is the one the verdict rests on when it failed.
  const etr_oracle_metrics_t *m =
      shown && v->has_local && !v->local.passed ? &v->local : &v->global;
  if (!shown) {
    snprintf(abs_error, capacity, "-");
    snprintf(ulp, capacity, "-");
    snprintf(sqnr, capacity, "-");
    snprintf(mismatches, capacity, "-");
    return;
  }
  format_number(abs_error, capacity, m->max_abs_error);
  if (m->has_ulp) {
    snprintf(ulp, capacity, "%llu", (unsigned long long)m->max_ulp);
  } else if (v->quantized) {
    snprintf(ulp, capacity, "%lld st", (long long)m->max_steps);
  } else {
    snprintf(ulp, capacity, "-");
  }
  format_number(sqnr, capacity, m->sqnr_db);
  snprintf(mismatches, capacity, "%lld/%lld", (long long)m->mismatches,
           (long long)m->numel);
}

void etr_oracle_print_summary(const etr_oracle_report_t *report, FILE *out) {
  for (uint32_t c = 0; c < report->num_cases; ++c) {
    const etr_oracle_case_t *kase = &report->cases[c];
    const etr_oracle_result_t *r = kase->result;
    fprintf(out, "\n%s\n", kase->name);
    if (kase->candidate_failure[0] != '\0') {
      fprintf(out, "  candidate failed: %s\n", kase->candidate_failure);
    }
    if (r->num_ops > 0) {
      fprintf(out, "  %-5s %-46s %-13s %-12s %10s %8s %8s %13s\n", "instr",
              "operator", "class", "verdict", "max|err|", "maxULP", "SQNRdB",
              "mismatches");
    }
    for (uint32_t i = 0; i < r->num_ops; ++i) {
      const etr_oracle_op_result_t *op = &r->ops[i];
      const etr_oracle_value_result_t *v = worst_value(r, op);
      char abs_error[32], ulp[32], sqnr[32], mismatches[48];
      metric_cells(v, abs_error, ulp, sqnr, mismatches, sizeof(abs_error));
      char where[32];
      snprintf(where, sizeof(where), "%u:%u", op->chain, op->instruction);
      fprintf(out, "  %-5s %-46.46s %-13s %-12s %10s %8s %8s %13s%s\n", where,
              op->name, etr_oracle_class_name(op->op_class),
              etr_oracle_verdict_name(op->verdict), abs_error, ulp, sqnr,
              mismatches,
              (int64_t)i == r->first_diverging_op ? "  <- first" : "");
    }
    for (uint32_t k = 0; k < r->num_outputs; ++k) {
      const etr_oracle_value_result_t *v = &r->outputs[k];
      char abs_error[32], ulp[32], sqnr[32], mismatches[48];
      metric_cells(v, abs_error, ulp, sqnr, mismatches, sizeof(abs_error));
      char label[32];
      snprintf(label, sizeof(label), "program output %u", k);
      fprintf(out, "  %-5s %-46s %-13s %-12s %10s %8s %8s %13s\n", "out",
              label, etr_oracle_class_name(v->op_class),
              etr_oracle_verdict_name(v->verdict), abs_error, ulp, sqnr,
              mismatches);
    }
    fprintf(out, "  %s\n", r->summary);
    if (r->first_diverging_op >= 0) {
      const etr_oracle_op_result_t *op = &r->ops[r->first_diverging_op];
      const etr_oracle_value_result_t *v = worst_value(r, op);
      if (v != NULL && v->reason[0] != '\0') {
        fprintf(out, "  first diverging op %u:%u %s: %s\n", op->chain,
                op->instruction, op->name, v->reason);
      }
    }
  }
  fprintf(out, "\nverdict: %s (exit %d)\n",
          etr_oracle_verdict_name(report->verdict), report->exit_code);
}

// ---- HTML and Markdown ----------------------------------------------------

static uint32_t verdict_color(etr_oracle_verdict_t verdict) {
  // Indices into prof/svg.c's palette.
  switch (verdict) {
    case ETR_ORACLE_AGREE: return 2;
    case ETR_ORACLE_PROPAGATED: return 1;
    case ETR_ORACLE_DIVERGE: return 3;
    default: return 7;
  }
}

static void figure(etr_doc_t *doc, const etr_oracle_case_t *kase,
                   uint32_t index) {
  const etr_oracle_result_t *r = kase->result;
  if (r->num_ops == 0) {
    return;
  }
  etr_svg_bar_t *bars =
      (etr_svg_bar_t *)calloc(r->num_ops, sizeof(etr_svg_bar_t));
  char (*labels)[96] = (char (*)[96])calloc(r->num_ops, 96);
  if (bars == NULL || labels == NULL) {
    free(bars);
    free(labels);
    doc->failed = true;
    return;
  }
  // SQNR per op, capped for display (identical values are +inf).
  for (uint32_t i = 0; i < r->num_ops; ++i) {
    const etr_oracle_op_result_t *op = &r->ops[i];
    const etr_oracle_value_result_t *v = worst_value(r, op);
    double sqnr = v != NULL && v->global.compared ? v->global.sqnr_db : 0;
    if (isnan(sqnr) || sqnr < 0) {
      sqnr = 0;
    }
    if (isinf(sqnr) || sqnr > 200) {
      sqnr = 200;
    }
    snprintf(labels[i], 96, "%u:%u %.60s (%s)", op->chain, op->instruction,
             op->name, etr_oracle_verdict_name(op->verdict));
    bars[i].label = labels[i];
    bars[i].value = sqnr;
    bars[i].color = verdict_color(op->verdict);
  }
  etr_text_t svg;
  etr_text_init(&svg);
  etr_svg_bar_chart(&svg, "SQNR per op, dB (200 = identical; color = verdict)",
                    "dB", bars, r->num_ops, 0);
  char file[64];
  snprintf(file, sizeof(file), "compare_sqnr_%u.svg", index);
  etr_doc_figure(doc, etr_text_str(&svg), file,
                 "SQNR of the candidate per op (higher is closer)");
  etr_text_release(&svg);
  free(bars);
  free(labels);
}

static void value_row(etr_table_t *table, const char *where, const char *name,
                      const etr_oracle_value_result_t *v,
                      etr_oracle_verdict_t verdict, const char *local) {
  char abs_error[32], ulp[32], sqnr[32], mismatches[48];
  metric_cells(v, abs_error, ulp, sqnr, mismatches, sizeof(abs_error));
  char rel[32] = "-", p99[32] = "-", cosine[32] = "-";
  if (v != NULL && v->candidate != NULL && v->global.compared) {
    const etr_oracle_metrics_t *m =
        v->has_local && !v->local.passed ? &v->local : &v->global;
    format_number(rel, sizeof(rel), m->max_rel_error);
    if (m->has_ulp) {
      snprintf(p99, sizeof(p99), "%llu", (unsigned long long)m->p99_ulp);
    }
    format_number(cosine, sizeof(cosine), m->cosine);
    if (!isnan(m->cosine) && m->cosine != 1.0 && m->cosine > 0.999) {
      snprintf(cosine, sizeof(cosine), "%.9f", m->cosine);
    }
  }
  etr_table_cell(table, "%s", where);
  etr_table_cell(table, "`%s`", name);
  etr_table_cell(table, "%s", v != NULL ? etr_oracle_class_name(v->op_class)
                                        : "-");
  etr_table_cell(table, verdict == ETR_ORACLE_DIVERGE ? "**%s**" : "%s",
                 etr_oracle_verdict_name(verdict));
  etr_table_cell(table, "%s", local);
  etr_table_cell(table, "%s", abs_error);
  etr_table_cell(table, "%s", rel);
  etr_table_cell(table, "%s", ulp);
  etr_table_cell(table, "%s", p99);
  etr_table_cell(table, "%s", cosine);
  etr_table_cell(table, "%s", sqnr);
  etr_table_cell(table, "%s", mismatches);
  etr_table_cell(table, "%s", v != NULL ? v->reason : "");
}

#define TABLE_HEADERS                                                       \
  "where|operator|class|verdict|local check|>max abs err|>max rel err|"    \
  ">max ULP|>p99 ULP|>cosine|>SQNR dB|>mismatches|reason"

static void case_section(etr_doc_t *doc, const etr_oracle_report_t *report,
                         const etr_oracle_case_t *kase, uint32_t index) {
  const etr_oracle_result_t *r = kase->result;
  etr_doc_heading(doc, 2, "%s", kase->name);
  etr_doc_paragraph(doc, "**%s**: %s", etr_oracle_verdict_name(r->verdict),
                    r->summary);
  if (kase->candidate_failure[0] != '\0') {
    etr_doc_paragraph(doc, "The candidate failed to run: %s",
                      kase->candidate_failure);
  }
  const etr_oracle_alignment_t *a = kase->alignment;
  etr_doc_paragraph(
      doc,
      "Alignment by %s: %u candidate values, %u aligned with reference "
      "values, %u standing for nothing%s; %u ops re-run on the candidate's "
      "inputs, %u magnitude runs; the judged reference run took %.3f ms.",
      a->by_map ? "map" : a->by_key ? "instruction key" : "program output",
      a->candidate_records, a->count, a->unaligned,
      a->by_map && a->unused_entries > 0 ? " (some map entries matched "
                                           "nothing)"
                                         : "",
      r->reruns, r->magnitude_runs, r->elapsed_ns / 1e6);
  if (r->first_diverging_op >= 0) {
    const etr_oracle_op_result_t *op = &r->ops[r->first_diverging_op];
    const etr_oracle_value_result_t *v = worst_value(r, op);
    etr_doc_paragraph(doc,
                      "First diverging op: instruction %u:%u `%s` (%s): %s",
                      op->chain, op->instruction, op->name,
                      etr_oracle_class_name(op->op_class),
                      v != NULL ? v->reason : "");
  }
  if (r->num_ops > 0) {
    figure(doc, kase, index);
    etr_doc_heading(doc, 3, "Ops, in execution order");
    etr_table_t *table = etr_doc_table(doc, TABLE_HEADERS);
    for (uint32_t i = 0; table != NULL && i < r->num_ops; ++i) {
      const etr_oracle_op_result_t *op = &r->ops[i];
      char where[48];
      snprintf(where, sizeof(where), "%u:%u%s", op->chain, op->instruction,
               (int64_t)i == r->first_diverging_op ? " (first)" : "");
      char local[96];
      snprintf(local, sizeof(local), "%s%s", etr_oracle_local_name(op->local),
               op->uncovered > 0 ? ", region" : "");
      const etr_oracle_value_result_t *v = worst_value(r, op);
      value_row(table, where, op->name, v, op->verdict, local);
    }
    bool notes = false;
    for (uint32_t i = 0; i < r->num_ops; ++i) {
      const etr_oracle_op_result_t *op = &r->ops[i];
      if (op->note[0] == '\0' && op->uncovered == 0) {
        continue;
      }
      if (!notes) {
        etr_doc_heading(doc, 3, "Notes on ops");
        notes = true;
      }
      if (op->uncovered > 0) {
        char producers[128] = "";
        size_t used = 0;
        for (uint32_t p = 0; p < op->num_uncovered_producers; ++p) {
          int n = snprintf(producers + used, sizeof(producers) - used,
                           "%s%u", p ? ", " : "", op->uncovered_producers[p]);
          used += n > 0 && (size_t)n < sizeof(producers) - used ? (size_t)n
                                                                : 0;
        }
        etr_doc_bullet(doc,
                       "%u:%u `%s`: %u input(s) came from instructions the "
                       "candidate exposes no value for (%s); the check spans "
                       "them too.%s%s",
                       op->chain, op->instruction, op->name, op->uncovered,
                       producers, op->note[0] ? " " : "", op->note);
      } else {
        etr_doc_bullet(doc, "%u:%u `%s`: %s", op->chain, op->instruction,
                       op->name, op->note);
      }
    }
  }
  etr_doc_heading(doc, 3, "Program outputs");
  etr_table_t *table = etr_doc_table(doc, TABLE_HEADERS);
  for (uint32_t k = 0; table != NULL && k < r->num_outputs; ++k) {
    char where[32];
    snprintf(where, sizeof(where), "output %u", k);
    value_row(table, where, "-", &r->outputs[k], r->outputs[k].verdict,
              "global");
  }
  (void)report;
}

etr_error_t etr_oracle_write_report(const etr_oracle_report_t *report,
                                    const char *directory, etr_diag_t *diag) {
  if (mkdir(directory, 0777) != 0 && errno != EEXIST) {
    return ETR_FAIL(diag, ETR_ERR_ACCESS_FAILED, "cannot create %s: %s",
                    directory, strerror(errno));
  }
  etr_doc_t doc;
  etr_doc_init(&doc, "etref compare");
  etr_doc_heading(&doc, 1, "etref compare: %s", report->program);
  etr_doc_paragraph(&doc, "**Verdict: %s.** Candidate: %s (%s)%s%s. "
                    "Reference: `%s` with etref's reference kernels, method "
                    "`%s`. Inputs: %s.",
                    etr_oracle_verdict_name(report->verdict),
                    report->candidate_kind, report->candidate_source,
                    report->map_path != NULL ? "; map " : "",
                    report->map_path != NULL ? report->map_path : "",
                    report->reference_program, report->method,
                    report->inputs);
  etr_doc_paragraph(&doc,
                    "Per op: the candidate's value against the reference "
                    "run (global) and against the reference op re-run on "
                    "the candidate's own inputs (local). **agree**: within "
                    "tolerance, or within it locally on inputs that "
                    "themselves agree (their in-tolerance differences "
                    "carried through: the global metrics may then exceed "
                    "it); **propagated**: outside it only through inputs "
                    "that were off (an upstream divergence); **diverge**: "
                    "the op itself is outside "
                    "tolerance (or dtype/shape differ); **not compared**: "
                    "the candidate exposes no value. Metrics shown are the "
                    "local ones when the local check failed, else the "
                    "global ones.");
  for (uint32_t n = 0; n < report->num_notes; ++n) {
    etr_doc_bullet(&doc, "%s", report->notes[n]);
  }
  etr_doc_heading(&doc, 2, "Tolerance model");
  etr_text_t model;
  etr_text_init(&model);
  etr_oracle_policy_describe(report->policy, &model);
  const char *line = etr_text_str(&model);
  bool first = true;
  while (*line != '\0') {
    const char *end = strchr(line, '\n');
    size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
    char buffer[1024];
    snprintf(buffer, sizeof(buffer), "%.*s", (int)length, line);
    if (first) {
      etr_doc_paragraph(&doc, "%s", buffer);
      first = false;
    } else if (buffer[0] != '\0') {
      etr_doc_bullet(&doc, "%s", buffer[0] == '-' ? buffer + 2 : buffer);
    }
    line = end != NULL ? end + 1 : line + length;
  }
  etr_text_release(&model);
  for (uint32_t c = 0; c < report->num_cases; ++c) {
    case_section(&doc, report, &report->cases[c], c);
  }
  etr_doc_heading(&doc, 2, "Reproduce");
  etr_doc_code(&doc, "%s", report->command != NULL ? report->command : "");
  char path[4096];
  snprintf(path, sizeof(path), "%s/compare.html", directory);
  etr_error_t status = etr_doc_write_html(&doc, path, diag);
  if (status == ETR_OK) {
    status = etr_doc_write_markdown(&doc, directory, "compare.md", diag);
  }
  etr_doc_release(&doc);
  return status;
}
