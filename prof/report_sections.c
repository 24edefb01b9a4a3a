// SPDX-License-Identifier: Apache-2.0
//
// Report sections about one kernel library's runs: timeline, per-op table,
// top ops, summary by operator type, noise, roofline, memory.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/report_internal.h"
#include "prof/svg.h"

uint32_t etr_report_color(const etr_profile_report_t *report,
                          const char *name) {
  const etr_prof_stats_t *stats = &report->variants[0].stats;
  for (uint32_t t = 0; t < stats->num_types; ++t) {
    if (strcmp(stats->types[t].name, name) == 0) {
      return t;
    }
  }
  return stats->num_types;
}

// "aten::convolution.out" -> "convolution".
static void short_name(const char *name, char *text, size_t capacity) {
  const char *separator = strstr(name, "::");
  const char *start = separator != NULL ? separator + 2 : name;
  size_t length = strcspn(start, ".");
  snprintf(text, capacity, "%.*s", (int)length, start);
}

void etr_report_timeline(etr_doc_t *doc, const etr_profile_report_t *report,
                         const etr_profile_variant_t *v) {
  const etr_prof_t *prof = v->timing;
  const etr_prof_stats_t *stats = &v->stats;
  if (prof->num_runs == 0) {
    return;
  }
  const etr_prof_run_t *run = &prof->runs[stats->median_run];
  double span = (double)(run->end_ns - run->start_ns);
  if (span <= 0) {
    span = 1;
  }
  etr_doc_heading(doc, 2, "Timeline of one run (%s kernels)",
                  etr_report_variant_name(v));
  etr_doc_paragraph(doc,
                    "Run %u of %u, the one with the median time (%.1f us): "
                    "each instruction where it started and ended; delegate "
                    "events on the lane below. Hover a bar for its name and "
                    "time.",
                    stats->median_run, stats->runs, span / 1e3);
  const double left = 20;
  const double width = 1100;
  const double lane = 34;
  etr_text_t svg;
  etr_text_init(&svg);
  uint32_t legend = stats->num_types < 12 ? stats->num_types : 12;
  double height = 60 + 2 * lane + 18.0 * ((legend + 3) / 4) + 10;
  etr_svg_begin(&svg, left * 2 + width, height);
  // Axis: five ticks.
  for (int tick = 0; tick <= 5; ++tick) {
    double x = left + width * tick / 5.0;
    char label[48];
    double at_us = span / 1e3 * tick / 5.0;
    if (span >= 2e6) {
      snprintf(label, sizeof(label), "%.1f ms", at_us / 1e3);
    } else {
      snprintf(label, sizeof(label), "%.1f us", at_us);
    }
    etr_svg_line(&svg, x, 24, x, 30 + 2 * lane, "#e3e7ee", 1, false);
    etr_svg_text(&svg, x, 18, tick == 0 ? "start" : tick == 5 ? "end"
                                                              : "middle",
                 10, "#555", label);
  }
  for (uint32_t e = run->first_event; e < run->first_event + run->num_events;
       ++e) {
    const etr_prof_event_t *event = &prof->events[e];
    const char *name = etr_prof_instruction_name(v->method, event->chain,
                                                 event->instruction);
    double x = left + (double)(event->start_ns - run->start_ns) / span * width;
    double w = (double)(event->end_ns - event->start_ns) / span * width;
    char tooltip[256];
    snprintf(tooltip, sizeof(tooltip), "instruction %u:%u %s: %.2f us",
             event->chain, event->instruction, name,
             (double)(event->end_ns - event->start_ns) / 1e3);
    etr_svg_rect(&svg, x, 30, w < 0.5 ? 0.5 : w, lane - 6,
                 etr_svg_color(etr_report_color(report, name)), tooltip);
    if (w > 70) {
      char label[64];
      short_name(name, label, sizeof(label));
      etr_svg_text(&svg, x + 3, 30 + lane / 2 + 2, "start", 10, "#ffffff",
                   label);
    }
  }
  for (uint32_t d = run->first_delegate_event;
       d < run->first_delegate_event + run->num_delegate_events; ++d) {
    const etr_prof_delegate_event_t *event = &prof->delegate_events[d];
    double x = left + (double)(event->start_ns - run->start_ns) / span * width;
    double w = (double)(event->end_ns - event->start_ns) / span * width;
    char tooltip[160];
    snprintf(tooltip, sizeof(tooltip), "delegate event %s (id %lld): %.2f us",
             event->name, (long long)event->debug_id,
             (double)(event->end_ns - event->start_ns) / 1e3);
    etr_svg_rect(&svg, x, 30 + lane, w < 0.5 ? 0.5 : w, lane - 10, "#6b7280",
                 tooltip);
  }
  double legend_y = 40 + 2 * lane;
  for (uint32_t t = 0; t < legend; ++t) {
    double x = left + (t % 4) * (width / 4);
    double y = legend_y + 18.0 * (t / 4);
    etr_svg_rect(&svg, x, y, 10, 10,
                 etr_svg_color(etr_report_color(report, stats->types[t].name)),
                 NULL);
    etr_svg_text(&svg, x + 14, y + 9, "start", 10, "#333",
                 stats->types[t].name);
  }
  etr_svg_end(&svg);
  char file[64];
  snprintf(file, sizeof(file), "timeline_%s.svg", etr_report_variant_name(v));
  etr_doc_figure(doc, etr_text_str(&svg), file,
                 "timeline of the median run");
  doc->failed |= svg.failed;
  etr_text_release(&svg);
}

void etr_report_op_table(etr_doc_t *doc, const etr_profile_report_t *report,
                         const etr_profile_variant_t *v) {
  const etr_prof_stats_t *stats = &v->stats;
  etr_doc_heading(doc, 2, "Per-op table in run order (%s kernels)",
                  etr_report_variant_name(v));
  bool counters = stats->num_counters > 0;
  if (!counters) {
    etr_doc_paragraph(doc, "Hardware counters: not available: %s",
                      stats->counter_note);
  }
  char headers[1024];
  snprintf(headers, sizeof(headers),
           "instr|operator|kernel|shapes|>calls/run|>us/run|>mean us|"
           ">p50 us|>p90 us|>min us|>max us|>%%|>MFLOP|>bytes moved|"
           ">GFLOP/s|>GB/s|>%% roofline|bound");
  if (counters) {
    for (uint32_t c = 0; c < stats->num_counters; ++c) {
      strncat(headers, "|>", sizeof(headers) - strlen(headers) - 1);
      strncat(headers, stats->counter_names[c],
              sizeof(headers) - strlen(headers) - 1);
    }
    strncat(headers, "|>IPC", sizeof(headers) - strlen(headers) - 1);
  } else {
    strncat(headers, "|counters", sizeof(headers) - strlen(headers) - 1);
  }
  etr_table_t *table = etr_doc_table(doc, headers);
  int cycles = -1;
  int instructions = -1;
  for (uint32_t c = 0; c < stats->num_counters; ++c) {
    cycles = strcmp(stats->counter_names[c], "cycles") == 0 ? (int)c : cycles;
    instructions = strcmp(stats->counter_names[c], "instructions") == 0
                       ? (int)c
                       : instructions;
  }
  for (uint32_t r = 0; r < stats->num_rows; ++r) {
    const etr_prof_row_t *row = &stats->rows[r];
    char a[32], b[32], c[32], d[32], e[32], f[32], g[32];
    etr_table_cell(table, "%u:%u", row->chain, row->instruction);
    etr_table_cell(table, "`%s`", row->name);
    etr_table_cell(table, "%s", row->kernel);
    etr_table_cell(table, "%s", row->shapes);
    etr_table_cell(table, "%.3g", row->calls_per_run);
    etr_table_cell(table, "%s", etr_format_us(a, sizeof(a), row->per_run_ns));
    etr_table_cell(table, "%s", etr_format_us(b, sizeof(b), row->time.mean));
    etr_table_cell(table, "%s", etr_format_us(c, sizeof(c), row->time.p50));
    etr_table_cell(table, "%s", etr_format_us(d, sizeof(d), row->time.p90));
    etr_table_cell(table, "%s", etr_format_us(e, sizeof(e), row->time.min));
    etr_table_cell(table, "%s", etr_format_us(f, sizeof(f), row->time.max));
    etr_table_cell(table, "%.1f", row->percent);
    etr_table_cell(table, "%s",
                   etr_format_number(a, sizeof(a), row->cost.flops / 1e6,
                                     row->cost.flops_known));
    etr_table_cell(table, "%s", etr_format_bytes(b, sizeof(b),
                                                 row->cost.bytes));
    etr_row_rates_t rates;
    etr_profile_row_rates(&report->machine, row, &rates);
    bool computes = row->cost.flops_known && row->cost.flops > 0;
    etr_table_cell(table, "%s", etr_format_number(c, sizeof(c), rates.gflops,
                                                  rates.has_rate && computes));
    etr_table_cell(table, "%s",
                   etr_format_number(d, sizeof(d), rates.gbs, rates.has_rate));
    etr_table_cell(table, "%s",
                   etr_format_number(e, sizeof(e), rates.roof_percent,
                                     rates.has_rate &&
                                         row->cost.flops_known));
    etr_table_cell(table, "%s",
                   !rates.has_rate || !row->cost.flops_known ? "-"
                   : rates.memory_bound                       ? "memory"
                                                              : "compute");
    if (counters) {
      for (uint32_t k = 0; k < stats->num_counters; ++k) {
        etr_table_cell(table, "%s",
                       etr_format_number(g, sizeof(g), row->counters[k],
                                         row->has_counters));
      }
      bool ipc = row->has_counters && cycles >= 0 && instructions >= 0 &&
                 row->counters[cycles] > 0;
      etr_table_cell(table, "%s",
                     etr_format_number(
                         g, sizeof(g),
                         ipc ? row->counters[instructions] /
                                   row->counters[cycles]
                             : 0,
                         ipc));
    } else {
      etr_table_cell(table, "n/a (see above)");
    }
  }
}

static int by_per_run(const void *a, const void *b) {
  const etr_prof_row_t *x = *(const etr_prof_row_t *const *)a;
  const etr_prof_row_t *y = *(const etr_prof_row_t *const *)b;
  return x->per_run_ns < y->per_run_ns ? 1
         : x->per_run_ns > y->per_run_ns ? -1
                                         : 0;
}

// Rows sorted slowest first (caller frees); NULL when out of memory.
static const etr_prof_row_t **sorted_rows(const etr_prof_stats_t *stats) {
  const etr_prof_row_t **sorted = (const etr_prof_row_t **)malloc(
      (stats->num_rows + 1) * sizeof(const etr_prof_row_t *));
  if (sorted == NULL) {
    return NULL;
  }
  for (uint32_t r = 0; r < stats->num_rows; ++r) {
    sorted[r] = &stats->rows[r];
  }
  qsort(sorted, stats->num_rows, sizeof(sorted[0]), by_per_run);
  return sorted;
}

void etr_report_top_ops(etr_doc_t *doc, const etr_profile_variant_t *v) {
  const etr_prof_stats_t *stats = &v->stats;
  const etr_prof_row_t **sorted = sorted_rows(stats);
  if (sorted == NULL) {
    doc->failed = true;
    return;
  }
  uint32_t top = stats->num_rows < 10 ? stats->num_rows : 10;
  etr_doc_heading(doc, 3, "Top %u instructions by time (%s kernels)", top,
                  etr_report_variant_name(v));
  etr_table_t *table =
      etr_doc_table(doc,
                    "instr|operator|>first us|>avg us|>%|>cdf %|"
                    ">calls/run|>output");
  double cdf = 0;
  for (uint32_t r = 0; r < top; ++r) {
    const etr_prof_row_t *row = sorted[r];
    char a[32], b[32];
    cdf += row->percent;
    etr_table_cell(table, "%u:%u", row->chain, row->instruction);
    etr_table_cell(table, "`%s`", row->name);
    etr_table_cell(table, "%s", etr_format_us(a, sizeof(a), row->first_ns));
    etr_table_cell(table, "%s", etr_format_us(b, sizeof(b), row->time.mean));
    etr_table_cell(table, "%.1f", row->percent);
    etr_table_cell(table, "%.1f", cdf);
    etr_table_cell(table, "%.3g", row->calls_per_run);
    const char *arrow = strstr(row->shapes, "-> ");
    etr_table_cell(table, "%s", arrow != NULL ? arrow + 3 : "-");
  }
  free(sorted);
}

void etr_report_types(etr_doc_t *doc, const etr_profile_variant_t *v) {
  const etr_prof_stats_t *stats = &v->stats;
  etr_doc_heading(doc, 3, "Summary by operator type (%s kernels)",
                  etr_report_variant_name(v));
  etr_table_t *table = etr_doc_table(
      doc,
      "operator|>count|>calls/run|>avg us|>us/run|>%|>cdf %|>GFLOP/s|"
      ">GB/s|>largest output");
  for (uint32_t t = 0; t < stats->num_types; ++t) {
    const etr_prof_type_row_t *type = &stats->types[t];
    char a[32], b[32], c[32], d[32], e[32];
    double seconds = type->per_run_ns * 1e-9;
    etr_table_cell(table, "`%s`", type->name);
    etr_table_cell(table, "%u", type->instructions);
    etr_table_cell(table, "%.3g", type->calls_per_run);
    etr_table_cell(table, "%s", etr_format_us(a, sizeof(a), type->mean_ns));
    etr_table_cell(table, "%s", etr_format_us(b, sizeof(b),
                                              type->per_run_ns));
    etr_table_cell(table, "%.1f", type->percent);
    etr_table_cell(table, "%.1f", type->cdf_percent);
    etr_table_cell(table, "%s",
                   etr_format_number(c, sizeof(c),
                                     type->flops_per_run / seconds * 1e-9,
                                     seconds > 0 && type->flops_per_run > 0));
    etr_table_cell(table, "%s",
                   etr_format_number(d, sizeof(d),
                                     type->bytes_per_run / seconds * 1e-9,
                                     seconds > 0 && type->bytes_per_run > 0));
    etr_table_cell(table, "%s",
                   etr_format_bytes(e, sizeof(e), type->output_bytes));
  }
}

void etr_report_noise(etr_doc_t *doc, const etr_profile_report_t *report,
                      const etr_profile_variant_t *v) {
  const etr_prof_stats_t *stats = &v->stats;
  const etr_prof_row_t **sorted = sorted_rows(stats);
  if (sorted == NULL) {
    doc->failed = true;
    return;
  }
  uint32_t top = stats->num_rows < 15 ? stats->num_rows : 15;
  etr_svg_bar_t bars[16];
  char labels[16][96];
  for (uint32_t r = 0; r < top; ++r) {
    const etr_prof_row_t *row = sorted[r];
    snprintf(labels[r], sizeof(labels[r]), "%u:%u %s", row->chain,
             row->instruction, row->name);
    bars[r].label = labels[r];
    bars[r].value = row->time.p50 / 1e3;
    bars[r].has_range = true;
    bars[r].low = row->time.min / 1e3;
    bars[r].high = row->time.max / 1e3;
    bars[r].color = etr_report_color(report, row->name);
  }
  free(sorted);
  etr_doc_heading(doc, 3, "Noise over runs (%s kernels)",
                  etr_report_variant_name(v));
  etr_doc_paragraph(doc,
                    "Median per call with a whisker from min to max over the "
                    "%u runs, for the %u slowest instructions. Whole run: "
                    "min %.1f us, median %.1f us, max %.1f us.",
                    stats->runs, top, stats->run_time.min / 1e3,
                    stats->run_time.p50 / 1e3, stats->run_time.max / 1e3);
  etr_text_t svg;
  etr_text_init(&svg);
  char title[96];
  snprintf(title, sizeof(title), "us per call, %s kernels (median, min-max)",
           etr_report_variant_name(v));
  etr_svg_bar_chart(&svg, title, "us", bars, top, 0);
  char file[64];
  snprintf(file, sizeof(file), "noise_%s.svg", etr_report_variant_name(v));
  etr_doc_figure(doc, etr_text_str(&svg), file, "median and min-max per op");
  doc->failed |= svg.failed;
  etr_text_release(&svg);
}

void etr_report_roofline(etr_doc_t *doc, const etr_profile_report_t *report,
                         const etr_profile_variant_t *v) {
  const etr_prof_stats_t *stats = &v->stats;
  etr_svg_point_t *points = (etr_svg_point_t *)calloc(
      stats->num_rows + 1, sizeof(etr_svg_point_t));
  char(*labels)[96] = (char(*)[96])calloc(stats->num_rows + 1, 96);
  if (points == NULL || labels == NULL) {
    free(points);
    free(labels);
    doc->failed = true;
    return;
  }
  uint32_t count = 0;
  for (uint32_t r = 0; r < stats->num_rows; ++r) {
    const etr_prof_row_t *row = &stats->rows[r];
    etr_row_rates_t rates;
    etr_profile_row_rates(&report->machine, row, &rates);
    if (!rates.has_rate || !row->cost.flops_known || row->cost.flops <= 0) {
      continue;
    }
    snprintf(labels[count], 96, "%u:%u %s", row->chain, row->instruction,
             row->name);
    points[count].label = labels[count];
    points[count].group = row->name;
    points[count].intensity = row->cost.flops / row->cost.bytes;
    points[count].gflops = rates.gflops;
    points[count].color = etr_report_color(report, row->name);
    ++count;
  }
  etr_doc_heading(doc, 3, "Roofline (%s kernels)",
                  etr_report_variant_name(v));
  etr_doc_paragraph(doc,
                    "Each instruction with arithmetic at its median speed "
                    "against this machine's roofs: %s.",
                    report->machine.source);
  etr_text_t svg;
  etr_text_init(&svg);
  char title[96];
  snprintf(title, sizeof(title), "roofline, %s kernels",
           etr_report_variant_name(v));
  etr_svg_roofline(&svg, title, report->machine.peak_gflops,
                   report->machine.dram_gbs, report->machine.l2_gbs, points,
                   count);
  char file[64];
  snprintf(file, sizeof(file), "roofline_%s.svg", etr_report_variant_name(v));
  etr_doc_figure(doc, etr_text_str(&svg), file, "roofline");
  doc->failed |= svg.failed;
  etr_text_release(&svg);
  free(points);
  free(labels);
}

void etr_report_memory(etr_doc_t *doc, const etr_profile_variant_t *v) {
  const etr_prof_memory_t *memory = &v->memory;
  etr_doc_heading(doc, 2, "Memory per arena");
  etr_doc_paragraph(doc,
                    "Planned arenas (mem_id) as the program's plan reserves "
                    "them; its tensors' storage (each once, planned shapes: "
                    "no reuse); the same at the shapes the runs left them "
                    "in; the peak of bytes live at one instruction from "
                    "planner/'s lifetime analysis (the lower bound no plan "
                    "can beat); and etref's best-fit plan.");
  if (memory->note[0] != '\0') {
    etr_doc_paragraph(doc, "Note: %s", memory->note);
  }
  etr_table_t *table = etr_doc_table(
      doc,
      "arena|>planned size|>tensors (no reuse)|>tensors (observed)|"
      ">lower bound (peak live)|>peak at instruction position|"
      ">etref best fit|>planned / lower bound|>tensors|>storages");
  char a[32], b[32], c[32], d[32], e[32];
  for (uint32_t p = 0; p < memory->num_pools; ++p) {
    const etr_prof_pool_t *pool = &memory->pools[p];
    etr_table_cell(table, "mem_id %u", pool->memory_id);
    etr_table_cell(table, "%s",
                   etr_format_bytes(a, sizeof(a), (double)pool->size));
    etr_table_cell(table, "%s",
                   etr_format_bytes(b, sizeof(b), (double)pool->tensor_bytes));
    etr_table_cell(table, "%s",
                   memory->used_observed
                       ? etr_format_bytes(c, sizeof(c),
                                          (double)pool->used_bytes)
                       : "-");
    etr_table_cell(table, "%s",
                   etr_format_bytes(d, sizeof(d),
                                    (double)pool->peak_live_bytes));
    etr_table_cell(table, "%u", pool->peak_position);
    etr_table_cell(table, "%s", etr_format_bytes(e, sizeof(e),
                                                 (double)pool->best_fit_bytes));
    if (pool->peak_live_bytes > 0) {
      etr_table_cell(table, "%.2f",
                     (double)pool->size / (double)pool->peak_live_bytes);
    } else {
      etr_table_cell(table, "-");
    }
    etr_table_cell(table, "%u", pool->num_tensors);
    etr_table_cell(table, "%u", pool->num_storages);
  }
  etr_doc_bullet(doc, "all planned arenas: %s (lower bound %s, best fit %s)",
                 etr_format_bytes(a, sizeof(a), (double)memory->planned_total),
                 etr_format_bytes(b, sizeof(b),
                                  (double)memory->lower_bound_total),
                 etr_format_bytes(c, sizeof(c),
                                  (double)memory->best_fit_total));
  if (memory->temp_peak_known) {
    etr_doc_bullet(doc,
                   "temp (kernel scratch) arena: %s capacity, peak %s, "
                   "first reached at instruction %u:%u (`%s`)",
                   etr_format_bytes(a, sizeof(a),
                                    (double)memory->temp_capacity),
                   etr_format_bytes(b, sizeof(b), (double)memory->temp_peak),
                   memory->temp_peak_chain, memory->temp_peak_instruction,
                   etr_prof_instruction_name(v->method,
                                             memory->temp_peak_chain,
                                             memory->temp_peak_instruction));
  } else {
    etr_doc_bullet(doc,
                   "temp (kernel scratch) arena: %s capacity, never used "
                   "(peak %s)",
                   etr_format_bytes(a, sizeof(a),
                                    (double)memory->temp_capacity),
                   etr_format_bytes(b, sizeof(b), (double)memory->temp_peak));
  }
  etr_doc_bullet(doc,
                 "method structures (load-time arena): %s; constant tensors "
                 "(in the program or .ptd, not copied): %s",
                 etr_format_bytes(d, sizeof(d),
                                  (double)memory->method_arena_bytes),
                 etr_format_bytes(e, sizeof(e),
                                  (double)memory->constant_bytes));
  etr_svg_bar_t bars[5];
  const char *const names[5] = {"planned size", "tensors (no reuse)",
                                "tensors (observed)", "lower bound",
                                "etref best fit"};
  const double values[5] = {
      (double)memory->planned_total, (double)memory->tensor_total,
      (double)memory->used_total, (double)memory->lower_bound_total,
      (double)memory->best_fit_total};
  for (int i = 0; i < 5; ++i) {
    memset(&bars[i], 0, sizeof(bars[i]));
    bars[i].label = names[i];
    bars[i].value = values[i] / 1024.0;
    bars[i].color = (uint32_t)i;
  }
  etr_text_t svg;
  etr_text_init(&svg);
  etr_svg_bar_chart(&svg, "planned memory, all arenas (KiB)", "KiB", bars, 5,
                    0);
  etr_doc_figure(doc, etr_text_str(&svg), "memory.svg",
                 "planned memory against the lower bound");
  doc->failed |= svg.failed;
  etr_text_release(&svg);
}
