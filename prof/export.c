// SPDX-License-Identifier: Apache-2.0
//
// CSV and JSON outputs of the profile report (see report.h). Times are in
// microseconds; absent counters are empty (CSV) or null (JSON), never 0,
// with the reason beside them.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "prof/report_internal.h"
#include "prof/text.h"

static etr_error_t write_text(const char *path, const etr_text_t *text,
                              etr_diag_t *diag) {
  ETR_CHECK(diag, !text->failed, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory writing %s", path);
  FILE *file = fopen(path, "wb");
  ETR_CHECK(diag, file != NULL, ETR_ERR_ACCESS_FAILED, "cannot write %s",
            path);
  bool ok = fwrite(etr_text_str(text), 1, text->length, file) == text->length;
  ok = fclose(file) == 0 && ok;
  ETR_CHECK(diag, ok, ETR_ERR_ACCESS_FAILED, "cannot write %s", path);
  return ETR_OK;
}

// ---- CSV -----------------------------------------------------------------

static void csv_field(etr_text_t *out, const char *text, bool last) {
  if (strpbrk(text, ",\"\n") != NULL) {
    etr_text_append(out, "\"");
    for (const char *c = text; *c != '\0'; ++c) {
      if (*c == '"') {
        etr_text_append(out, "\"\"");
      } else {
        etr_text_append_raw(out, c, 1);
      }
    }
    etr_text_append(out, "\"");
  } else {
    etr_text_append(out, "%s", text);
  }
  etr_text_append(out, last ? "\n" : ",");
}

static void csv_number(etr_text_t *out, double value, bool known) {
  if (known && isfinite(value)) {
    etr_text_append(out, "%.6g,", value);
  } else {
    etr_text_append(out, ",");
  }
}

etr_error_t etr_profile_write_csv(const etr_profile_report_t *report,
                                  const char *path, etr_diag_t *diag) {
  etr_text_t out;
  etr_text_init(&out);
  etr_text_append(&out,
                  "runtime,kernels,chain,instruction,operator,kernel,shapes,"
                  "calls_per_run,us_per_run,mean_us,p10_us,p50_us,p90_us,"
                  "min_us,max_us,percent,flops,bytes,gflops_per_s,gb_per_s,"
                  "roofline_percent,bound,cycles,instructions,cache_misses,"
                  "branch_misses,counters_note\n");
  static const char *const kCounters[4] = {"cycles", "instructions",
                                           "cache-misses", "branch-misses"};
  for (uint32_t v = 0; v < report->num_variants; ++v) {
    const etr_profile_variant_t *variant = &report->variants[v];
    const etr_prof_stats_t *stats = &variant->stats;
    for (uint32_t r = 0; r < stats->num_rows; ++r) {
      const etr_prof_row_t *row = &stats->rows[r];
      etr_row_rates_t rates;
      etr_profile_row_rates(&report->machine, row, &rates);
      etr_text_append(&out, "etref,%s,%u,%u,", etr_report_variant_name(variant),
                      row->chain, row->instruction);
      csv_field(&out, row->name, false);
      csv_field(&out, row->kernel, false);
      csv_field(&out, row->shapes, false);
      csv_number(&out, row->calls_per_run, true);
      csv_number(&out, row->per_run_ns / 1e3, true);
      csv_number(&out, row->time.mean / 1e3, true);
      csv_number(&out, row->time.p10 / 1e3, true);
      csv_number(&out, row->time.p50 / 1e3, true);
      csv_number(&out, row->time.p90 / 1e3, true);
      csv_number(&out, row->time.min / 1e3, true);
      csv_number(&out, row->time.max / 1e3, true);
      csv_number(&out, row->percent, true);
      csv_number(&out, row->cost.flops, row->cost.flops_known);
      csv_number(&out, row->cost.bytes, true);
      bool computes = row->cost.flops_known && row->cost.flops > 0;
      csv_number(&out, rates.gflops, rates.has_rate && computes);
      csv_number(&out, rates.gbs, rates.has_rate);
      csv_number(&out, rates.roof_percent,
                 rates.has_rate && row->cost.flops_known);
      etr_text_append(&out, "%s,",
                      !rates.has_rate || !row->cost.flops_known ? ""
                      : rates.memory_bound                       ? "memory"
                                                                 : "compute");
      for (int k = 0; k < 4; ++k) {
        bool found = false;
        for (uint32_t c = 0; c < stats->num_counters && row->has_counters;
             ++c) {
          if (strcmp(stats->counter_names[c], kCounters[k]) == 0) {
            csv_number(&out, row->counters[c], true);
            found = true;
          }
        }
        if (!found) {
          etr_text_append(&out, ",");
        }
      }
      csv_field(&out, stats->num_counters > 0 ? "" : stats->counter_note,
                true);
    }
  }
  if (report->has_executorch) {
    const etr_executorch_profile_t *et = &report->executorch;
    for (uint32_t r = 0; r < et->num_rows; ++r) {
      const etr_executorch_row_t *row = &et->rows[r];
      etr_text_append(&out, "executorch,,%lld,%d,", (long long)row->chain,
                      row->instruction);
      csv_field(&out, row->name, false);
      // kernel and shapes empty, 8 timing fields, 12 empty after them.
      etr_text_append(&out, ",,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g"
                            ",,,,,,,,,,,,\n",
                      row->time.count / (double)et->runs,
                      row->per_run_ns / 1e3, row->time.mean / 1e3,
                      row->time.p10 / 1e3, row->time.p50 / 1e3,
                      row->time.p90 / 1e3, row->time.min / 1e3,
                      row->time.max / 1e3);
    }
  }
  etr_error_t status = write_text(path, &out, diag);
  etr_text_release(&out);
  return status;
}

// ---- JSON ----------------------------------------------------------------

static void json_string(etr_text_t *out, const char *text) {
  etr_text_append(out, "\"");
  for (const unsigned char *c = (const unsigned char *)text; *c != '\0';
       ++c) {
    if (*c == '"' || *c == '\\') {
      etr_text_append(out, "\\%c", *c);
    } else if (*c < 0x20) {
      etr_text_append(out, "\\u%04x", *c);
    } else {
      etr_text_append(out, "%c", *c);
    }
  }
  etr_text_append(out, "\"");
}

static void json_number(etr_text_t *out, double value, bool known) {
  if (known && isfinite(value)) {
    etr_text_append(out, "%.9g", value);
  } else {
    etr_text_append(out, "null");
  }
}

static void json_samples(etr_text_t *out, const etr_prof_samples_t *s) {
  etr_text_append(out,
                  "{\"count\": %u, \"min\": %.6f, \"p10\": %.6f, "
                  "\"p50\": %.6f, \"p90\": %.6f, \"max\": %.6f, "
                  "\"mean\": %.6f}",
                  s->count, s->min / 1e3, s->p10 / 1e3, s->p50 / 1e3,
                  s->p90 / 1e3, s->max / 1e3, s->mean / 1e3);
}

// Every recorded duration of (chain, instruction), in run order.
static void json_raw(etr_text_t *out, const etr_prof_t *timing,
                     const etr_prof_row_t *row) {
  etr_text_append(out, "[");
  bool first = true;
  for (uint32_t e = 0; e < timing->num_events; ++e) {
    const etr_prof_event_t *event = &timing->events[e];
    if (event->chain == row->chain && event->instruction == row->instruction) {
      etr_text_append(out, "%s%.3f", first ? "" : ", ",
                      (double)(event->end_ns - event->start_ns) / 1e3);
      first = false;
    }
  }
  etr_text_append(out, "]");
}

static void json_row(etr_text_t *out, const etr_profile_report_t *report,
                     const etr_prof_t *timing, const etr_prof_stats_t *stats,
                     const etr_prof_row_t *row) {
  etr_row_rates_t rates;
  etr_profile_row_rates(&report->machine, row, &rates);
  etr_text_append(out, "{\"chain\": %u, \"instruction\": %u, \"operator\": ",
                  row->chain, row->instruction);
  json_string(out, row->name);
  etr_text_append(out, ", \"kernel\": ");
  json_string(out, row->kernel);
  etr_text_append(out, ", \"shapes\": ");
  json_string(out, row->shapes);
  etr_text_append(out, ", \"calls_per_run\": %.6g, \"time_us\": ",
                  row->calls_per_run);
  json_samples(out, &row->time);
  etr_text_append(out, ", \"raw_us\": ");
  json_raw(out, timing, row);
  etr_text_append(out, ", \"first_us\": %.6f, \"us_per_run\": %.6f, "
                       "\"percent\": %.4f, \"cost_class\": ",
                  row->first_ns / 1e3, row->per_run_ns / 1e3, row->percent);
  json_string(out, etr_cost_class_name(row->cost.cost_class));
  etr_text_append(out, ", \"flops\": ");
  json_number(out, row->cost.flops, row->cost.flops_known);
  etr_text_append(out, ", \"bytes\": %.0f, \"gflops_per_s\": ",
                  row->cost.bytes);
  bool computes = row->cost.flops_known && row->cost.flops > 0;
  json_number(out, rates.gflops, rates.has_rate && computes);
  etr_text_append(out, ", \"gb_per_s\": ");
  json_number(out, rates.gbs, rates.has_rate);
  etr_text_append(out, ", \"roofline_percent\": ");
  json_number(out, rates.roof_percent, rates.has_rate && row->cost.flops_known);
  etr_text_append(out, ", \"counters\": ");
  if (row->has_counters) {
    etr_text_append(out, "{");
    for (uint32_t c = 0; c < stats->num_counters; ++c) {
      etr_text_append(out, "%s", c ? ", " : "");
      json_string(out, stats->counter_names[c]);
      etr_text_append(out, ": %.0f", row->counters[c]);
    }
    etr_text_append(out, "}");
  } else {
    etr_text_append(out, "null");
  }
  etr_text_append(out, "}");
}

static void json_memory(etr_text_t *out, const etr_prof_memory_t *memory) {
  etr_text_append(out, "{\"arenas\": [");
  for (uint32_t p = 0; p < memory->num_pools; ++p) {
    const etr_prof_pool_t *pool = &memory->pools[p];
    etr_text_append(
        out,
        "%s{\"mem_id\": %u, \"planned_bytes\": %llu, \"tensor_bytes\": %llu, "
        "\"observed_bytes\": %llu, \"lower_bound_bytes\": %llu, "
        "\"peak_position\": %u, \"best_fit_bytes\": %llu, \"tensors\": %u, "
        "\"storages\": %u}",
        p ? ", " : "", pool->memory_id, (unsigned long long)pool->size,
        (unsigned long long)pool->tensor_bytes,
        (unsigned long long)pool->used_bytes,
        (unsigned long long)pool->peak_live_bytes, pool->peak_position,
        (unsigned long long)pool->best_fit_bytes, pool->num_tensors,
        pool->num_storages);
  }
  etr_text_append(
      out,
      "], \"planned_total\": %llu, \"lower_bound_total\": %llu, "
      "\"best_fit_total\": %llu, \"temp_capacity\": %zu, \"temp_peak\": %zu, "
      "\"method_arena_bytes\": %zu, \"constant_bytes\": %llu, \"note\": ",
      (unsigned long long)memory->planned_total,
      (unsigned long long)memory->lower_bound_total,
      (unsigned long long)memory->best_fit_total, memory->temp_capacity,
      memory->temp_peak, memory->method_arena_bytes,
      (unsigned long long)memory->constant_bytes);
  json_string(out, memory->note);
  etr_text_append(out, "}");
}

static void json_variant(etr_text_t *out, const etr_profile_report_t *report,
                         const etr_profile_variant_t *variant) {
  const etr_prof_stats_t *stats = &variant->stats;
  etr_text_append(out, "{\"kernels\": ");
  json_string(out, etr_report_variant_name(variant));
  etr_text_append(out, ", \"runs\": %u, \"run_time_us\": ", stats->runs);
  json_samples(out, &stats->run_time);
  etr_text_append(out, ", \"run_raw_us\": [");
  for (uint32_t r = 0; r < variant->timing->num_runs; ++r) {
    const etr_prof_run_t *run = &variant->timing->runs[r];
    etr_text_append(out, "%s%.3f", r ? ", " : "",
                    (double)(run->end_ns - run->start_ns) / 1e3);
  }
  etr_text_append(out, "], \"instructions_us_per_run\": %.6f, \"dropped\": ",
                  stats->instructions_per_run_ns / 1e3);
  char drops[256];
  etr_prof_describe_drops(variant->timing, drops, sizeof(drops));
  json_string(out, drops);
  const etr_profile_overhead_t *o = &variant->overhead;
  etr_text_append(out, ", \"tracer_overhead\": ");
  if (o->measured) {
    etr_text_append(out, "{\"pairs\": %u, \"without_us\": ", o->pairs);
    json_samples(out, &o->plain);
    etr_text_append(out, ", \"with_us\": ");
    json_samples(out, &o->traced);
    etr_text_append(out, ", \"percent\": %.4f, \"cpu_without_us\": ",
                    o->percent);
    json_samples(out, &o->plain_cpu);
    etr_text_append(out, ", \"cpu_with_us\": ");
    json_samples(out, &o->traced_cpu);
    etr_text_append(out, ", \"cpu_percent\": %.4f, \"instructions_without\": ",
                    o->cpu_percent);
    json_number(out, o->plain_instructions.p50, o->has_instructions);
    etr_text_append(out, ", \"instructions_with\": ");
    json_number(out, o->traced_instructions.p50, o->has_instructions);
    etr_text_append(out, ", \"instructions_percent\": ");
    json_number(out, o->instructions_percent, o->has_instructions);
    etr_text_append(out, ", \"outputs_identical\": %s}",
                    o->outputs_identical ? "true" : "false");
  } else {
    etr_text_append(out, "null");
  }
  etr_text_append(out, ", \"memory\": ");
  json_memory(out, &variant->memory);
  etr_text_append(out, ", \"instructions\": [\n");
  for (uint32_t r = 0; r < stats->num_rows; ++r) {
    etr_text_append(out, "%s    ", r ? ",\n" : "");
    json_row(out, report, variant->timing, stats, &stats->rows[r]);
  }
  etr_text_append(out, "], \"types\": [\n");
  for (uint32_t t = 0; t < stats->num_types; ++t) {
    const etr_prof_type_row_t *type = &stats->types[t];
    etr_text_append(out, "%s    {\"operator\": ", t ? ",\n" : "");
    json_string(out, type->name);
    etr_text_append(out,
                    ", \"count\": %u, \"calls_per_run\": %.6g, \"avg_us\": "
                    "%.6f, \"us_per_run\": %.6f, \"percent\": %.4f, "
                    "\"cdf_percent\": %.4f, \"flops_per_run\": %.6g, "
                    "\"bytes_per_run\": %.6g}",
                    type->instructions, type->calls_per_run,
                    type->mean_ns / 1e3, type->per_run_ns / 1e3,
                    type->percent, type->cdf_percent, type->flops_per_run,
                    type->bytes_per_run);
  }
  etr_text_append(out, "], \"delegate_events\": [");
  for (uint32_t d = 0; d < stats->num_delegates; ++d) {
    const etr_prof_delegate_row_t *row = &stats->delegates[d];
    etr_text_append(out, "%s{\"chain\": %u, \"instruction\": %u, "
                         "\"debug_id\": %lld, \"name\": ",
                    d ? ", " : "", row->chain, row->instruction,
                    (long long)row->debug_id);
    json_string(out, row->name);
    etr_text_append(out, ", \"time_us\": ");
    json_samples(out, &row->time);
    etr_text_append(out, "}");
  }
  etr_text_append(out, "]}");
}

etr_error_t etr_profile_write_json(const etr_profile_report_t *report,
                                   const char *path, etr_diag_t *diag) {
  etr_text_t out;
  etr_text_init(&out);
  etr_text_append(&out, "{\n  \"program\": ");
  json_string(&out, report->program);
  etr_text_append(&out, ",\n  \"method\": ");
  json_string(&out, report->method);
  etr_text_append(&out, ",\n  \"command\": ");
  json_string(&out, report->command);
  etr_text_append(&out, ",\n  \"inputs\": ");
  json_string(&out, report->inputs);
  etr_text_append(&out,
                  ",\n  \"runs\": %u,\n  \"warmup\": %u,\n  \"load_us\": "
                  "%.3f,\n  \"machine\": {\"cpu\": ",
                  report->runs, report->warmup, (double)report->load_ns / 1e3);
  const etr_machine_t *machine = &report->machine;
  json_string(&out, machine->cpu);
  etr_text_append(&out, ", \"isa\": ");
  json_string(&out, machine->isa);
  etr_text_append(&out,
                  ", \"cpus\": %u, \"peak_gflops\": %.3f, \"dram_gbs\": "
                  "%.3f, \"l2_gbs\": %.3f, \"l2_bytes\": %llu, \"source\": ",
                  machine->cpus, machine->peak_gflops, machine->dram_gbs,
                  machine->l2_gbs, (unsigned long long)machine->l2_bytes);
  json_string(&out, machine->source);
  etr_text_append(&out, ", \"note\": ");
  json_string(&out, machine->note);
  const etr_prof_stats_t *stats = &report->variants[0].stats;
  etr_text_append(&out, "},\n  \"counters\": {\"source\": ");
  json_string(&out, etr_counter_source_name(stats->counter_source));
  etr_text_append(&out, ", \"names\": [");
  for (uint32_t c = 0; c < stats->num_counters; ++c) {
    etr_text_append(&out, "%s", c ? ", " : "");
    json_string(&out, stats->counter_names[c]);
  }
  etr_text_append(&out, "], \"note\": ");
  json_string(&out, stats->counter_note);
  etr_text_append(&out, "},\n  \"variants\": [\n  ");
  for (uint32_t v = 0; v < report->num_variants; ++v) {
    etr_text_append(&out, "%s", v ? ",\n  " : "");
    json_variant(&out, report, &report->variants[v]);
  }
  etr_text_append(&out, "],\n  \"executorch\": {\"available\": %s, \"note\": ",
                  report->has_executorch ? "true" : "false");
  json_string(&out, report->executorch_note);
  if (report->has_executorch) {
    const etr_executorch_profile_t *et = &report->executorch;
    etr_text_append(&out, ", \"runs\": %u, \"skipped\": %u, \"execute_us\": ",
                    et->runs, et->skipped);
    json_samples(&out, &et->execute);
    etr_text_append(&out, ", \"instructions\": [");
    for (uint32_t r = 0; r < et->num_rows; ++r) {
      etr_text_append(&out, "%s{\"chain\": %lld, \"instruction\": %d, "
                            "\"event\": ",
                      r ? ", " : "", (long long)et->rows[r].chain,
                      et->rows[r].instruction);
      json_string(&out, et->rows[r].name);
      etr_text_append(&out, ", \"time_us\": ");
      json_samples(&out, &et->rows[r].time);
      etr_text_append(&out, "}");
    }
    etr_text_append(&out, "]");
  }
  etr_text_append(&out, "},\n  \"files\": [");
  for (uint32_t f = 0; f < report->num_files; ++f) {
    etr_text_append(&out, "%s", f ? ", " : "");
    json_string(&out, report->files[f]);
  }
  etr_text_append(&out, "]\n}\n");
  etr_error_t status = write_text(path, &out, diag);
  etr_text_release(&out);
  return status;
}
