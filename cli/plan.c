// SPDX-License-Identifier: Apache-2.0
//
// `etref plan`: re-plans programs' memory and compares the plans: the
// program's own (ExecuTorch's), etref's reproduction of ExecuTorch's greedy,
// etref's best fit, and the lower bound (planner/plan.h). With --report DIR
// it writes DIR/README.md and DIR/planner.svg for all programs given.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/method.h"
#include "planner/lifetime.h"
#include "planner/plan.h"

static const char kPlanUsage[] =
    "usage: etref plan PROGRAM... [--report DIR]\n"
    "\n"
    "For each method of each PROGRAM: planned bytes of the program's own\n"
    "plan, of ExecuTorch's greedy as etref reproduces it, of etref's best\n"
    "fit, and the lower bound (largest total of simultaneously live bytes).\n"
    "A PROGRAM with external data uses the .ptd next to it (same stem).\n"
    "--report DIR writes DIR/README.md and DIR/planner.svg.\n";

#define MAX_ROWS 128

typedef struct {
  char program[256];
  char method[64];
  uint32_t units;
  uint64_t executorch;
  uint64_t greedy;
  uint64_t best;
  uint64_t lower;
  bool exact;
} plan_row_t;

static bool has_xnnpack(const etr_method_t *method) {
  for (uint32_t i = 0; i < method->num_delegates; ++i) {
    const char *id = method->delegates[i].backend_id;
    if (id != NULL && (strstr(id, "nnpack") || strstr(id, "NNPACK"))) {
      return true;
    }
  }
  return false;
}

static int plan_method(const etr_cli_session_t *session, const char *path,
                       const char *name, plan_row_t *row) {
  etr_method_config_t config;
  etr_method_config_init(&config, &session->kernels);
  config.backends = &session->backends;
  config.external_data = session->has_data ? &session->data : NULL;
  config.allow_missing = true;
  etr_method_t method;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status =
      etr_method_load(&session->program, name, &config, &method, &diag);
  if (status != ETR_OK) {
    return etr_cli_report(&diag, status);
  }
  etr_lifetime_options_t options = {.granularity = ETR_UNITS_LOGICAL};
  etr_lifetimes_t lifetimes;
  etr_plan_t greedy;
  etr_plan_t best;
  memset(&greedy, 0, sizeof(greedy));
  memset(&best, 0, sizeof(best));
  status = etr_lifetimes_compute(&method, &options, &lifetimes, &diag);
  if (status == ETR_OK) {
    status = etr_plan_executorch_greedy(
        &lifetimes, ETR_PLAN_DEFAULT_ALIGNMENT,
        has_xnnpack(&method) ? ETR_PLAN_XNNPACK_PADDING : 0, &greedy, &diag);
  }
  if (status == ETR_OK) {
    status = etr_plan_best_fit(&lifetimes, ETR_PLAN_DEFAULT_ALIGNMENT, &best,
                               &diag);
  }
  if (status == ETR_OK) {
    snprintf(row->program, sizeof(row->program), "%s", path);
    snprintf(row->method, sizeof(row->method), "%s", name);
    row->units = lifetimes.num_units;
    row->executorch = etr_method_planned_bytes(&method);
    row->greedy = etr_plan_total(&greedy);
    row->best = etr_plan_total(&best);
    row->lower = etr_plan_lower_bound(&lifetimes, ETR_PLAN_DEFAULT_ALIGNMENT);
    row->exact = lifetimes.occupancy != NULL;
  }
  etr_plan_release(&greedy);
  etr_plan_release(&best);
  etr_lifetimes_release(&lifetimes);
  etr_method_release(&method);
  return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(&diag, status);
}

// The .ptd beside `path` (same stem), or NULL when there is none.
static const char *sibling_data(const char *path, char *buffer,
                                size_t capacity) {
  const char *dot = strrchr(path, '.');
  size_t stem = dot != NULL ? (size_t)(dot - path) : strlen(path);
  snprintf(buffer, capacity, "%.*s.ptd", (int)stem, path);
  struct stat info;
  return stat(buffer, &info) == 0 ? buffer : NULL;
}

static double percent(uint64_t value, uint64_t reference) {
  return reference != 0 ? 100.0 * (double)value / (double)reference : 0.0;
}

static void print_row(FILE *out, const plan_row_t *row, bool markdown) {
  if (markdown) {
    fprintf(out,
            "| `%s` | %s | %u | %llu | %llu | %llu | %llu | %.1f%% |\n",
            row->program, row->method, row->units,
            (unsigned long long)row->executorch,
            (unsigned long long)row->greedy, (unsigned long long)row->best,
            (unsigned long long)row->lower,
            percent(row->best, row->executorch));
    return;
  }
  fprintf(out, "%-48s %-10s %6u %12llu %12llu %12llu %12llu %7.1f%%%s\n",
          row->program, row->method, row->units,
          (unsigned long long)row->executorch,
          (unsigned long long)row->greedy, (unsigned long long)row->best,
          (unsigned long long)row->lower,
          percent(row->best, row->executorch),
          row->exact ? "" : " (interval liveness)");
}

// A grouped bar chart: per program, the four plans as % of ExecuTorch's.
static void write_svg(FILE *out, const plan_row_t *rows, size_t count) {
  const int bar = 10;
  const int group = 4 * bar + 14;
  const int left = 230;
  const int top = 40;
  int height = top + (int)count * group + 40;
  int width = left + 460;
  static const char *const colors[4] = {"#888888", "#4477aa", "#228833",
                                        "#ccbb44"};
  static const char *const labels[4] = {
      "ExecuTorch's plan", "etref: ExecuTorch's greedy", "etref: best fit",
      "lower bound"};
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
          "height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n",
          width, height);
  fprintf(out, "<text x=\"%d\" y=\"18\" font-size=\"13\">Planned memory, "
               "%% of the program's own (ExecuTorch) plan</text>\n",
          left);
  for (int k = 0; k < 4; ++k) {
    fprintf(out,
            "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" "
            "fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
            10 + k * 170, height - 18, colors[k], 24 + k * 170, height - 9,
            labels[k]);
  }
  double scale = 3.0;  // pixels per percent
  for (size_t i = 0; i < count; ++i) {
    const plan_row_t *row = &rows[i];
    int y = top + (int)i * group;
    const char *name = strrchr(row->program, '/');
    char label[160];
    if (name != NULL && name - row->program > 0) {
      const char *dir = name - 1;
      while (dir > row->program && *(dir - 1) != '/') {
        --dir;
      }
      snprintf(label, sizeof(label), "%.*s", (int)(name - dir), dir);
    } else {
      snprintf(label, sizeof(label), "%.150s", row->program);
    }
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
            left - 8, y + 2 * bar + 4, label);
    uint64_t values[4] = {row->executorch, row->greedy, row->best,
                          row->lower};
    for (int k = 0; k < 4; ++k) {
      double p = percent(values[k], row->executorch);
      fprintf(out,
              "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
              "fill=\"%s\"/><text x=\"%.1f\" y=\"%d\" font-size=\"9\">"
              "%.1f%%</text>\n",
              left, y + k * bar, p * scale, bar - 1, colors[k],
              left + p * scale + 3, y + k * bar + 8, p);
    }
  }
  fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
               "stroke=\"#000\" stroke-dasharray=\"3,3\"/>\n",
          left + (int)(100 * scale), top - 6, left + (int)(100 * scale),
          top + (int)count * group);
  fprintf(out, "</svg>\n");
}

static int write_report(const char *dir, const plan_row_t *rows,
                        size_t count, int argc, char **argv) {
  mkdir(dir, 0777);
  char path[4096];
  snprintf(path, sizeof(path), "%s/planner.svg", dir);
  FILE *svg = fopen(path, "w");
  snprintf(path, sizeof(path), "%s/README.md", dir);
  FILE *md = fopen(path, "w");
  if (svg == NULL || md == NULL) {
    fprintf(stderr, "etref plan: cannot write the report in '%s'\n", dir);
    if (svg != NULL) {
      fclose(svg);
    }
    if (md != NULL) {
      fclose(md);
    }
    return ETR_EXIT_USAGE;
  }
  write_svg(svg, rows, count);
  fclose(svg);
  fprintf(md, "# Memory planning: ExecuTorch's plan vs etref's\n\n");
  fprintf(md, "Generated by `etref plan` (planner/, cli/plan.c); regenerate "
              "with:\n\n```\nbazel run //:etref -- plan");
  for (int i = 1; i < argc; ++i) {
    fprintf(md, " %s", argv[i]);
  }
  fprintf(md, "\n```\n(from the repository root).\n\n");
  fprintf(md,
          "Bytes of planned (activation) memory per method, summed over "
          "pools, for: the plan stored in the program by ExecuTorch's "
          "exporter; ExecuTorch's default greedy algorithm re-run by etref on "
          "its own lifetime analysis; etref's best fit; and the lower bound "
          "(the largest total of aligned bytes live at one point, which no "
          "plan can beat). Sizes are aligned to 16 bytes as ExecuTorch's; "
          "XNNPACK programs add ExecuTorch's 64-byte pool padding to the "
          "greedy plan.\n\n");
  fprintf(md, "![planned memory](planner.svg)\n\n");
  fprintf(md, "| program | method | tensors | ExecuTorch plan | etref greedy "
              "| etref best | lower bound | best / ExecuTorch |\n");
  fprintf(md, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  uint64_t total_executorch = 0;
  uint64_t total_best = 0;
  size_t greedy_matches = 0;
  for (size_t i = 0; i < count; ++i) {
    print_row(md, &rows[i], true);
    total_executorch += rows[i].executorch;
    total_best += rows[i].best;
    greedy_matches += rows[i].greedy == rows[i].executorch;
  }
  fprintf(md,
          "\nOver these programs etref's best fit needs %llu bytes where "
          "ExecuTorch's plans need %llu (%.1f%%). etref's reproduction of "
          "ExecuTorch's greedy gives exactly the stored size for %zu of %zu "
          "methods.\n\n",
          (unsigned long long)total_best,
          (unsigned long long)total_executorch,
          percent(total_best, total_executorch), greedy_matches, count);
  fprintf(md,
          "Notes:\n\n"
          "- Lifetimes come from a dataflow analysis over the instruction "
          "chain (planner/lifetime.h): MoveCall and et_view aliasing, "
          "JumpFalse branches and loops, state (mutable buffers) kept for "
          "the whole method, outputs to the end. Two branches of a "
          "`torch.cond` never run together, so their tensors may share "
          "memory; ExecuTorch plans each branch separately and reserves the "
          "space of all of them, which is why its greedy on its own "
          "lifetimes is larger for the `cond` program than the same greedy "
          "on etref's.\n"
          "- As ExecuTorch's, the plans let an input's memory be reused "
          "after its last use (so inputs must be set before every "
          "execution).\n"
          "- `//planner/test:planner_test` checks these numbers, checks "
          "every plan for conflicts, and runs each program with etref's best "
          "plan: outputs are bitwise identical to the program's own plan.\n");
  fclose(md);
  printf("wrote %s/README.md and %s/planner.svg\n", dir, dir);
  return ETR_EXIT_OK;
}

int etr_cli_plan(int argc, char **argv) {
  const char *report = NULL;
  static plan_row_t rows[MAX_ROWS];
  size_t count = 0;
  int code = ETR_EXIT_OK;
  int programs = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0) {
      fputs(kPlanUsage, stdout);
      return ETR_EXIT_OK;
    }
    if (strcmp(argv[i], "--report") == 0 && i + 1 < argc) {
      report = argv[++i];
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "etref plan: unknown option '%s'\n\n%s", argv[i],
              kPlanUsage);
      return ETR_EXIT_USAGE;
    } else {
      ++programs;
    }
  }
  if (programs == 0) {
    fprintf(stderr, "etref plan: missing PROGRAM\n\n%s", kPlanUsage);
    return ETR_EXIT_USAGE;
  }
  printf("%-48s %-10s %6s %12s %12s %12s %12s %8s\n", "program", "method",
         "tensors", "ExecuTorch", "greedy", "best", "lower", "best/ET");
  for (int i = 1; i < argc && code == ETR_EXIT_OK; ++i) {
    if (strcmp(argv[i], "--report") == 0) {
      ++i;
      continue;
    }
    static etr_cli_session_t session;
    char data_buffer[4096];
    etr_diag_t diag;
    etr_diag_reset(&diag);
    code = etr_cli_open(&session, argv[i],
                        sibling_data(argv[i], data_buffer,
                                     sizeof(data_buffer)),
                        &diag);
    for (uint32_t m = 0; code == ETR_EXIT_OK &&
                         m < etr_program_method_count(&session.program);
         ++m) {
      etr_fb_string_t name;
      if (etr_program_method_name(&session.program, m, &name, &diag) !=
              ETR_OK ||
          count == MAX_ROWS) {
        code = ETR_EXIT_INVALID;
        break;
      }
      code = plan_method(&session, argv[i], name.chars, &rows[count]);
      if (code == ETR_EXIT_OK) {
        print_row(stdout, &rows[count++], false);
      }
    }
    etr_cli_close(&session);
  }
  if (code == ETR_EXIT_OK && report != NULL) {
    code = write_report(report, rows, count, argc, argv);
  }
  return code;
}
