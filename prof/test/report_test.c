// SPDX-License-Identifier: Apache-2.0
//
// Statistics, cost model and report writers: percentiles as numpy computes
// them, the cost model's FLOPs and bytes on the CNN's real instructions,
// per-op and per-type statistics consistent with the recorded events, and
// a whole report (HTML, Markdown, SVG, CSV, JSON) written for two kernel
// libraries with every section present and the counters' note where
// counters are absent.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/cost_model.h"
#include "prof/machine.h"
#include "prof/memory.h"
#include "prof/report.h"
#include "prof/stats.h"
#include "prof/test/fixture.h"
#include "prof/tracer.h"

Test(stats, percentiles_interpolate_like_numpy) {
  // numpy.percentile([1, 2, 3, 4], [10, 50, 90]) == [1.3, 2.5, 3.7]
  double values[4] = {4, 1, 3, 2};
  etr_prof_samples_t samples;
  etr_prof_summarize(values, 4, &samples);
  cr_assert_float_eq(samples.p10, 1.3, 1e-12);
  cr_assert_float_eq(samples.p50, 2.5, 1e-12);
  cr_assert_float_eq(samples.p90, 3.7, 1e-12);
  cr_assert_eq(samples.min, 1);
  cr_assert_eq(samples.max, 4);
  cr_assert_eq(samples.mean, 2.5);
  cr_assert_eq(samples.total, 10);
  double one = 7;
  etr_prof_summarize(&one, 1, &samples);
  cr_assert_eq(samples.p10, 7);
  cr_assert_eq(samples.p90, 7);
  etr_prof_summarize(NULL, 0, &samples);
  cr_assert_eq(samples.count, 0);
}

Test(cost_model, cnn_instructions) {
  fixture_t cnn;
  fixture_open(&cnn, "cnn", "", NULL, ETR_KERNELS_REFERENCE, NULL);
  fixture_execute(&cnn);
  etr_prof_cost_t cost;
  // conv 3->16, 3x3, 32x32 out, bias: 2 * 16384 * 27 + 16384.
  etr_prof_cost(&cnn.method, 0, 0, &cost);
  cr_assert_eq(cost.cost_class, ETR_COST_CONVOLUTION);
  cr_assert(cost.flops_known);
  cr_assert_float_eq(cost.flops, 2.0 * 16384 * 27 + 16384, 1e-6);
  // Bytes: input 12288 + weight 1728 + bias 64 + output 65536.
  cr_assert_float_eq(cost.bytes, 12288 + 1728 + 64 + 65536, 1e-6);
  // conv 16->32 on 16x16: 2 * 8192 * 144 + 8192.
  etr_prof_cost(&cnn.method, 0, 4, &cost);
  cr_assert_float_eq(cost.flops, 2.0 * 8192 * 144 + 8192, 1e-6);
  // relu: 1 per element, 16384 elements in and out.
  etr_prof_cost(&cnn.method, 0, 2, &cost);
  cr_assert_eq(cost.cost_class, ETR_COST_ELEMENTWISE);
  cr_assert_float_eq(cost.flops, 16384, 1e-6);
  cr_assert_float_eq(cost.bytes, 2 * 65536, 1e-6);
  // max pool 2x2 with indices: 4096 outputs x 4 compares; reads 64 KiB,
  // writes 16 KiB of values and 32 KiB of int64 indices.
  etr_prof_cost(&cnn.method, 0, 3, &cost);
  cr_assert_eq(cost.cost_class, ETR_COST_POOLING);
  cr_assert_float_eq(cost.flops, 4096 * 4, 1e-6);
  cr_assert_float_eq(cost.bytes, 65536 + 16384 + 32768, 1e-6);
  // addmm [1,2048] x [2048,10] + bias: 2 * 10 * 2048 + 10.
  etr_prof_cost(&cnn.method, 0, 9, &cost);
  cr_assert_eq(cost.cost_class, ETR_COST_MATMUL);
  cr_assert_float_eq(cost.flops, 2.0 * 10 * 2048 + 10, 1e-6);
  // permute_copy moves, computes nothing.
  etr_prof_cost(&cnn.method, 0, 8, &cost);
  cr_assert_eq(cost.cost_class, ETR_COST_DATA_MOVEMENT);
  cr_assert_eq(cost.flops, 0);
  char shapes[192];
  etr_prof_describe_shapes(&cnn.method, 0, 3, shapes, sizeof(shapes));
  cr_assert_str_eq(shapes,
                   "Float[1,16,32,32] -> Float[1,16,16,16], Long[1,16,16,16]");
  fixture_close(&cnn);
}

Test(machine, roofline_is_the_smaller_roof) {
  etr_machine_t machine;
  etr_machine_detect(&machine);
  cr_assert_gt(machine.peak_gflops, 0);
  cr_assert_neq(machine.cpu[0], '\0');
  bool memory_bound;
  // 1 FLOP per byte from DRAM (2 MiB > L2): bandwidth-bound at dram GB/s.
  double roof = etr_machine_attainable(&machine, 2e6, 2e6, &memory_bound);
  cr_assert(memory_bound);
  cr_assert_float_eq(roof, machine.dram_gbs, 1e-9);
  // 1000 FLOP per byte: compute-bound.
  roof = etr_machine_attainable(&machine, 1e9, 1e6, &memory_bound);
  cr_assert(!memory_bound);
  cr_assert_float_eq(roof, machine.peak_gflops, 1e-9);
  // No arithmetic: the L2 bandwidth for a small op.
  roof = etr_machine_attainable(&machine, 0, 1024, &memory_bound);
  cr_assert_float_eq(roof, machine.l2_gbs, 1e-9);
}

static char *read_text(const char *path) {
  FILE *file = fopen(path, "rb");
  cr_assert_not_null(file, "%s was not written", path);
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = (char *)calloc((size_t)size + 1, 1);
  cr_assert_eq(fread(text, 1, (size_t)size, file), (size_t)size);
  fclose(file);
  return text;
}

Test(report, every_output_of_a_two_library_profile) {
  static etr_prof_t timing[2];
  static etr_prof_t counting[2];
  static fixture_t cnn[2];
  static etr_profile_report_t report;
  memset(&report, 0, sizeof(report));
  etr_diag_t diag;
  etr_diag_reset(&diag);
  for (int v = 0; v < 2; ++v) {
    etr_prof_config_t config;
    etr_prof_config_init(&config);
    config.max_runs = 3;
    etr_prof_init(&timing[v], &config);
    // No counters requested: every output must say so, never print zeros.
    etr_prof_init(&counting[v], &config);
    fixture_open(&cnn[v], "cnn", "", NULL, (etr_kernel_variant_t)v,
                 &timing[v].tracer);
    cr_assert_eq(etr_prof_bind(&timing[v], &cnn[v].method, &diag), ETR_OK);
    for (int r = 0; r < 3; ++r) {
      fixture_execute(&cnn[v]);
    }
    etr_profile_variant_t *variant = &report.variants[v];
    variant->variant = (etr_kernel_variant_t)v;
    variant->method = &cnn[v].method;
    variant->timing = &timing[v];
    cr_assert_eq(etr_prof_stats_compute(&timing[v], &counting[v],
                                        &variant->stats, &diag),
                 ETR_OK, "%s", diag.message);
    cr_assert_eq(etr_prof_memory_compute(&timing[v], &cnn[v].method,
                                         &variant->memory, &diag),
                 ETR_OK);
    variant->overhead.measured = true;
    variant->overhead.pairs = 1;
    variant->overhead.outputs_identical = true;
  }
  const etr_prof_stats_t *stats = &report.variants[0].stats;
  cr_assert_eq(stats->runs, 3);
  cr_assert_eq(stats->num_rows, 10);
  cr_assert_eq(stats->num_types, 7);  // 7 operators in the CNN
  cr_assert_eq(stats->num_counters, 0);
  cr_assert_str_eq(stats->counter_note, "hardware counters not requested");
  double percent = 0;
  for (uint32_t r = 0; r < stats->num_rows; ++r) {
    cr_assert_eq(stats->rows[r].calls, 3);
    cr_assert_eq(stats->rows[r].instruction, r);
    cr_assert_leq(stats->rows[r].time.min, stats->rows[r].time.p50);
    cr_assert_leq(stats->rows[r].time.p50, stats->rows[r].time.max);
    percent += stats->rows[r].percent;
  }
  cr_assert_float_eq(percent, 100.0, 1e-9);
  cr_assert_float_eq(stats->types[stats->num_types - 1].cdf_percent, 100.0,
                     1e-9);
  const etr_prof_row_t *conv = etr_prof_stats_row(stats, 0, 4);
  cr_assert_not_null(conv);
  cr_assert_str_eq(conv->name, "aten::convolution.out");
  cr_assert_str_eq(conv->kernel, "reference");

  report.program = "datasets/models/cnn/model.pte";
  report.method = "forward";
  report.command = "bazel run //:etref -- profile test";
  report.inputs = "the test's";
  report.runs = 3;
  report.num_variants = 2;
  etr_machine_detect(&report.machine);
  snprintf(report.executorch_note, sizeof(report.executorch_note),
           "not run (a unit test)");
  const char *directory = getenv("TEST_TMPDIR");
  cr_assert_not_null(directory);
  char path[1024];
  cr_assert_eq(etr_profile_report_write(&report, directory, &diag), ETR_OK,
               "%s", diag.message);
  snprintf(path, sizeof(path), "%s/report.html", directory);
  char *html = read_text(path);
  cr_assert(strncmp(html, "<!DOCTYPE html>", 15) == 0);
  cr_assert_null(strstr(html, "<script"), "the report must need no script");
  // Self-contained: nothing fetched (the SVG namespace URI is not a fetch).
  cr_assert_null(strstr(html, "src=\"http"));
  cr_assert_null(strstr(html, "href=\"http"));
  static const char *const kSections[] = {
      "Summary", "Timeline of one run", "Per-op table in run order",
      "Summary by operator type", "Roofline", "Memory per arena",
      "Reference vs optimized kernels", "ExecuTorch side by side",
      "The tracer's own cost", "<svg", "counters: <b>not available here</b>"};
  for (size_t i = 0; i < sizeof(kSections) / sizeof(kSections[0]); ++i) {
    cr_assert_not_null(strstr(html, kSections[i]), "missing: %s",
                       kSections[i]);
  }
  free(html);
  snprintf(path, sizeof(path), "%s/README.md", directory);
  char *markdown = read_text(path);
  cr_assert_not_null(strstr(markdown, "![timeline of the median run]"
                                      "(timeline_reference.svg)"));
  cr_assert_not_null(strstr(markdown, "hardware counters not requested"));
  free(markdown);
  snprintf(path, sizeof(path), "%s/timeline_optimized.svg", directory);
  free(read_text(path));
  snprintf(path, sizeof(path), "%s/profile.csv", directory);
  cr_assert_eq(etr_profile_write_csv(&report, path, &diag), ETR_OK);
  char *csv = read_text(path);
  // Absent counters: empty cells and the reason, never zeros.
  cr_assert_not_null(strstr(csv, ",,,,hardware counters not requested\n"));
  free(csv);
  snprintf(path, sizeof(path), "%s/profile.json", directory);
  cr_assert_eq(etr_profile_write_json(&report, path, &diag), ETR_OK);
  char *json = read_text(path);
  cr_assert_not_null(strstr(json, "\"counters\": null"));
  cr_assert_not_null(strstr(json, "\"raw_us\": ["));
  free(json);
  for (int v = 0; v < 2; ++v) {
    etr_prof_stats_release(&report.variants[v].stats);
    etr_prof_memory_release(&report.variants[v].memory);
    fixture_close(&cnn[v]);
    etr_prof_release(&timing[v]);
    etr_prof_release(&counting[v]);
  }
}
