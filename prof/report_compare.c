// SPDX-License-Identifier: Apache-2.0
//
// Report sections that compare: reference vs optimized kernels, etref vs
// ExecuTorch's runtime, delegate events, and the tracer against no tracer.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/report_internal.h"
#include "prof/svg.h"

void etr_report_speedup(etr_doc_t *doc, const etr_profile_report_t *report) {
  if (report->num_variants < 2) {
    return;
  }
  const etr_profile_variant_t *reference = &report->variants[0];
  const etr_profile_variant_t *optimized = &report->variants[1];
  etr_doc_heading(doc, 2, "Reference vs optimized kernels");
  double whole = optimized->stats.run_time.p50 > 0
                     ? reference->stats.run_time.p50 /
                           optimized->stats.run_time.p50
                     : 0;
  etr_doc_paragraph(doc,
                    "Median per call with each kernel library (same program, "
                    "inputs and plan; %u runs each). Whole run: %.2fx. "
                    "`kernel` says what the optimized run actually called: "
                    "an op with no optimized kernel runs its reference one.",
                    report->runs, whole);
  etr_table_t *table = etr_doc_table(
      doc,
      "instr|operator|kernel|>reference p50 us|>optimized p50 us|"
      ">speedup (p50)|>reference min us|>optimized min us|>speedup (min)");
  for (uint32_t r = 0; r < reference->stats.num_rows; ++r) {
    const etr_prof_row_t *ref = &reference->stats.rows[r];
    const etr_prof_row_t *opt =
        etr_prof_stats_row(&optimized->stats, ref->chain, ref->instruction);
    char a[32], b[32], c[32], d[32];
    etr_table_cell(table, "%u:%u", ref->chain, ref->instruction);
    etr_table_cell(table, "`%s`", ref->name);
    etr_table_cell(table, "%s", opt != NULL ? opt->kernel : "-");
    etr_table_cell(table, "%s", etr_format_us(a, sizeof(a), ref->time.p50));
    etr_table_cell(table, "%s",
                   opt != NULL ? etr_format_us(b, sizeof(b), opt->time.p50)
                               : "-");
    if (opt != NULL && opt->time.p50 > 0) {
      etr_table_cell(table, "%sx", etr_format_ratio(a, sizeof(a),
                                                    ref->time.p50 /
                                                        opt->time.p50));
    } else {
      etr_table_cell(table, "-");
    }
    etr_table_cell(table, "%s", etr_format_us(c, sizeof(c), ref->time.min));
    etr_table_cell(table, "%s",
                   opt != NULL ? etr_format_us(d, sizeof(d), opt->time.min)
                               : "-");
    if (opt != NULL && opt->time.min > 0) {
      etr_table_cell(table, "%sx", etr_format_ratio(a, sizeof(a),
                                                    ref->time.min /
                                                        opt->time.min));
    } else {
      etr_table_cell(table, "-");
    }
  }
  // Speedup per operator type, as bars around 1x.
  const etr_prof_stats_t *ref_stats = &reference->stats;
  etr_svg_bar_t *bars = (etr_svg_bar_t *)calloc(ref_stats->num_types + 1,
                                                sizeof(etr_svg_bar_t));
  if (bars == NULL) {
    doc->failed = true;
    return;
  }
  uint32_t count = 0;
  for (uint32_t t = 0; t < ref_stats->num_types; ++t) {
    const etr_prof_type_row_t *type = &ref_stats->types[t];
    for (uint32_t k = 0; k < optimized->stats.num_types; ++k) {
      const etr_prof_type_row_t *other = &optimized->stats.types[k];
      if (strcmp(other->name, type->name) == 0 && other->per_run_ns > 0) {
        bars[count].label = type->name;
        bars[count].value = type->per_run_ns / other->per_run_ns;
        bars[count].color = etr_report_color(report, type->name);
        ++count;
      }
    }
  }
  etr_text_t svg;
  etr_text_init(&svg);
  etr_svg_bar_chart(&svg,
                    "speedup of the optimized kernels per operator type "
                    "(time per run, dashed line = 1x)",
                    "x", bars, count, 1.0);
  etr_doc_figure(doc, etr_text_str(&svg), "speedup.svg",
                 "optimized over reference, per operator type");
  doc->failed |= svg.failed;
  etr_text_release(&svg);
  free(bars);
}

void etr_report_executorch(etr_doc_t *doc,
                           const etr_profile_report_t *report) {
  etr_doc_heading(doc, 2, "ExecuTorch side by side");
  etr_doc_paragraph(doc, "%s", report->executorch_note);
  if (!report->has_executorch) {
    return;
  }
  const etr_executorch_profile_t *et = &report->executorch;
  etr_doc_paragraph(doc,
                    "Aligned by (chain, instruction id), which ExecuTorch "
                    "and etref number alike. ExecuTorch's times are its "
                    "`OPERATOR_CALL` / `DELEGATE_CALL` events over %u "
                    "Execute blocks (%u warm-up blocks skipped); a ratio "
                    "above 1 means etref is slower.",
                    et->runs, et->skipped);
  char headers[512] =
      "instr|operator (etref)|ExecuTorch event|>ExecuTorch p50 us";
  for (uint32_t v = 0; v < report->num_variants; ++v) {
    char more[128];
    snprintf(more, sizeof(more), "|>etref %s p50 us|>%s / ExecuTorch",
             etr_report_variant_name(&report->variants[v]),
             etr_report_variant_name(&report->variants[v]));
    strncat(headers, more, sizeof(headers) - strlen(headers) - 1);
  }
  etr_table_t *table = etr_doc_table(doc, headers);
  const etr_prof_stats_t *first = &report->variants[0].stats;
  for (uint32_t r = 0; r < first->num_rows; ++r) {
    const etr_prof_row_t *row = &first->rows[r];
    const etr_executorch_row_t *theirs =
        etr_executorch_profile_row(et, row->chain, row->instruction);
    char a[32], b[32];
    etr_table_cell(table, "%u:%u", row->chain, row->instruction);
    etr_table_cell(table, "`%s`", row->name);
    etr_table_cell(table, "%s", theirs != NULL ? theirs->name : "(none)");
    etr_table_cell(table, "%s",
                   theirs != NULL
                       ? etr_format_us(a, sizeof(a), theirs->time.p50)
                       : "-");
    for (uint32_t v = 0; v < report->num_variants; ++v) {
      const etr_prof_row_t *ours = etr_prof_stats_row(
          &report->variants[v].stats, row->chain, row->instruction);
      etr_table_cell(table, "%s",
                     ours != NULL ? etr_format_us(b, sizeof(b), ours->time.p50)
                                  : "-");
      if (ours != NULL && theirs != NULL && theirs->time.p50 > 0) {
        etr_table_cell(table, "%s",
                       etr_format_ratio(a, sizeof(a),
                                        ours->time.p50 / theirs->time.p50));
      } else {
        etr_table_cell(table, "-");
      }
    }
  }
  char a[32];
  etr_table_cell(table, "-");
  etr_table_cell(table, "whole run");
  etr_table_cell(table, "Method::execute");
  etr_table_cell(table, "%s", etr_format_us(a, sizeof(a), et->execute.p50));
  for (uint32_t v = 0; v < report->num_variants; ++v) {
    const etr_prof_samples_t *ours = &report->variants[v].stats.run_time;
    etr_table_cell(table, "%s", etr_format_us(a, sizeof(a), ours->p50));
    if (et->execute.p50 > 0) {
      char ratio[32];
      etr_table_cell(table, "%s", etr_format_ratio(ratio, sizeof(ratio),
                                                   ours->p50 /
                                                       et->execute.p50));
    } else {
      etr_table_cell(table, "-");
    }
  }
}

void etr_report_delegates(etr_doc_t *doc, const etr_profile_report_t *report) {
  bool any = false;
  for (uint32_t v = 0; v < report->num_variants; ++v) {
    any = any || report->variants[v].stats.num_delegates > 0;
  }
  if (!any) {
    return;
  }
  etr_doc_heading(doc, 2, "Delegate events");
  etr_doc_paragraph(doc,
                    "Events the backends reported from inside their "
                    "DelegateCall (etr_backend_log_event), per debug id: in "
                    "the ETDump they carry delegate_debug_id_int, as "
                    "ExecuTorch's delegates log them.");
  etr_table_t *table = etr_doc_table(
      doc,
      "kernels|instr|backend|event|>debug id|>calls|>p50 us|>min us|"
      ">max us");
  for (uint32_t v = 0; v < report->num_variants; ++v) {
    const etr_profile_variant_t *variant = &report->variants[v];
    for (uint32_t d = 0; d < variant->stats.num_delegates; ++d) {
      const etr_prof_delegate_row_t *row = &variant->stats.delegates[d];
      char a[32], b[32], c[32];
      etr_table_cell(table, "%s", etr_report_variant_name(variant));
      etr_table_cell(table, "%u:%u", row->chain, row->instruction);
      etr_table_cell(table, "`%s`",
                     etr_prof_instruction_name(variant->method, row->chain,
                                               row->instruction));
      etr_table_cell(table, "%s", row->name);
      etr_table_cell(table, "%lld", (long long)row->debug_id);
      etr_table_cell(table, "%u", row->time.count);
      etr_table_cell(table, "%s", etr_format_us(a, sizeof(a), row->time.p50));
      etr_table_cell(table, "%s", etr_format_us(b, sizeof(b), row->time.min));
      etr_table_cell(table, "%s", etr_format_us(c, sizeof(c), row->time.max));
    }
  }
}

void etr_report_overhead(etr_doc_t *doc, const etr_profile_report_t *report) {
  etr_doc_heading(doc, 2, "The tracer's own cost");
  etr_doc_paragraph(doc,
                    "Whole executions of the same loaded method alternating "
                    "(ABBA) with no tracer attached and with the timing "
                    "tracer (per-instruction timestamps into preallocated "
                    "buffers; no counters, no capture), after the warm-up. "
                    "Three measures: wall time, the thread's CPU time (not "
                    "counting time spent descheduled) and user-space "
                    "instructions retired (deterministic; the one to trust "
                    "when other processes share the machine). Then two fresh "
                    "methods, one without a tracer and one with the heaviest "
                    "(counters and capture), run the warm-up + 1 executions "
                    "on the same inputs and their outputs are compared byte "
                    "for byte after each. Measured by the command at the top "
                    "of this report.");
  etr_table_t *table = etr_doc_table(
      doc,
      "kernels|>pairs|>wall without us|>wall with us|>wall|"
      ">CPU without us|>CPU with us|>CPU|>instructions without|"
      ">instructions with|>instructions|outputs");
  for (uint32_t v = 0; v < report->num_variants; ++v) {
    const etr_profile_overhead_t *o = &report->variants[v].overhead;
    if (!o->measured) {
      continue;
    }
    char a[32], b[32], c[32], d[32];
    etr_table_cell(table, "%s",
                   etr_report_variant_name(&report->variants[v]));
    etr_table_cell(table, "%u", o->pairs);
    etr_table_cell(table, "%s", etr_format_us(a, sizeof(a), o->plain.p50));
    etr_table_cell(table, "%s", etr_format_us(b, sizeof(b), o->traced.p50));
    etr_table_cell(table, "%+.2f%%", o->percent);
    etr_table_cell(table, "%s", etr_format_us(c, sizeof(c), o->plain_cpu.p50));
    etr_table_cell(table, "%s",
                   etr_format_us(d, sizeof(d), o->traced_cpu.p50));
    etr_table_cell(table, "%+.2f%%", o->cpu_percent);
    if (o->has_instructions) {
      etr_table_cell(table, "%.0f", o->plain_instructions.p50);
      etr_table_cell(table, "%.0f", o->traced_instructions.p50);
      etr_table_cell(table, "%+.4f%%", o->instructions_percent);
    } else {
      etr_table_cell(table, "-");
      etr_table_cell(table, "-");
      etr_table_cell(table, "no counters");
    }
    etr_table_cell(table, "%s", o->outputs_identical ? "bitwise identical"
                                                     : "DIFFERENT");
  }
}
