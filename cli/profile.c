// SPDX-License-Identifier: Apache-2.0
//
// `etref profile`: profiles one method of a program with the reference
// and/or optimized kernels and writes the report of prof/report.h (HTML +
// Markdown + SVG, CSV, JSON) and optionally an ETDump.
//
// Per kernel library, on one loaded method:
//   1. warm-up runs, then the timed runs with the timing tracer attached;
//   2. the tracer's own cost: whole executions alternating without and with
//      a recording tracer (ABBA order against drift), and, on two fresh
//      methods (one plain, one with the heaviest tracer: counters and
//      capture), outputs compared byte for byte after each execution;
//   3. counting runs with hardware counters, when the machine has them
//      (kept apart: reading counters costs a system call per sample);
//   4. with --debug-buffer, one capture run for ETDump debug events.
// Then ExecuTorch's runtime runs the same program (profile_executorch.c),
// and the report is written. Nothing runs before the verifier accepts the
// program.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/inputs.h"
#include "cli/profile.h"
#include "core/method.h"
#include "core/platform.h"
#include "ops_optimized/fuse/fuse.h"
#include "prof/etdump.h"
#include "prof/report.h"

static const char kProfileUsage[] =
    "usage: etref profile PROGRAM [options]\n"
    "\n"
    "Profiles a method of PROGRAM (.pte or .bpte) per instruction and writes\n"
    "a report: per-op times with their noise, FLOPs, bytes and roofline,\n"
    "counters where the machine has them, a timeline, memory per arena,\n"
    "reference vs optimized kernels, and ExecuTorch side by side.\n"
    "\n"
    "options:\n"
    "  --runs N                timed runs per kernel library (default 20)\n"
    "  --warmup W              untimed runs first (default 3)\n"
    "  --kernels reference|optimized|both   (default both)\n"
    "  --report DIR            write DIR/report.html, DIR/README.md (its\n"
    "                          Markdown twin) with .svg charts, and\n"
    "                          DIR/profile.csv, DIR/profile.json\n"
    "  --etdump FILE           write the timed runs as an ExecuTorch ETDump\n"
    "                          (the optimized runs of --kernels both go to\n"
    "                          FILE with .optimized before the extension)\n"
    "  --debug-buffer FILE     also capture every intermediate output of one\n"
    "                          more run into FILE (ETDump debug events;\n"
    "                          needs --etdump)\n"
    "  --csv FILE, --json FILE per-op figures (default in --report DIR)\n"
    "  --input FILE.npy        an input, in order; repeat once per input.\n"
    "                          Default: a bundle's first test case, else\n"
    "                          seeded random tensors\n"
    "  --data FILE.ptd         external data file\n"
    "  --method NAME           method (default forward, else the first)\n"
    "  --seed S                seed for random inputs and random ops (0)\n"
    "  --counters auto|papi|perf|off   hardware counters (default auto:\n"
    "                          PAPI, else perf_event)\n"
    "  --executorch auto|off|PYTHON   run ExecuTorch side by side with this\n"
    "                          interpreter (auto: $ETREF_PYTHON, else\n"
    "                          .venv/bin/python)\n"
    "  --executorch-etdump FILE   keep ExecuTorch's ETDump\n"
    "  --roofline env|measure  machine limits: ../shared/ENVIRONMENT.md's\n"
    "                          figures (default), or bandwidths measured here\n"
    "  --overhead-runs K       pairs of runs measuring the tracer's cost\n"
    "                          (default max(runs, 20); 0 skips)\n"
    "  --delegate LIB.so       load a delegate library (core/backend.h's\n"
    "                          ABI); repeat for several\n"
    "  --fuse                  fuse the optimized kernels' convolution blocks\n"
    "                          (ops_optimized/fuse/fuse.h): the absorbed "
    "batch\n"
    "                          norm and clamp rows show ~0 us; not with\n"
    "                          --debug-buffer (their values are never "
    "written)\n"
    "  --quiet                 print no tables\n";

#define MAX_FILES ETR_CLI_MAX_INPUTS

typedef struct {
  const char *program_path;
  const char *method;
  const char *data_path;
  const char *report_dir;
  const char *etdump_path;
  const char *debug_buffer_path;
  const char *csv_path;
  const char *json_path;
  const char *executorch;
  const char *executorch_etdump;
  const char *inputs[MAX_FILES];
  size_t num_inputs;
  const char *delegates[MAX_FILES];
  size_t num_delegates;
  long runs;
  long warmup;
  long overhead_runs;
  unsigned long long seed;
  bool reference;
  bool optimized;
  etr_counter_request_t counters;
  bool measure_roofline;
  bool quiet;
  bool fuse;
} profile_options_t;

static int usage_error(const char *format, const char *detail) {
  fprintf(stderr, "etref profile: ");
  fprintf(stderr, format, detail);
  fprintf(stderr, "\n\n%s", kProfileUsage);
  return ETR_EXIT_USAGE;
}

static bool parse_count(const char *text, long max, long *out) {
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0 || value > max) {
    return false;
  }
  *out = value;
  return true;
}

static int parse_value(profile_options_t *options, const char *arg,
                       const char *value) {
  if (strcmp(arg, "--runs") == 0) {
    if (!parse_count(value, 100000, &options->runs) || options->runs < 1) {
      return usage_error("--runs needs a count from 1 to 100000, not '%s'",
                         value);
    }
  } else if (strcmp(arg, "--warmup") == 0) {
    if (!parse_count(value, 100000, &options->warmup)) {
      return usage_error("--warmup needs a count from 0 to 100000, not '%s'",
                         value);
    }
  } else if (strcmp(arg, "--overhead-runs") == 0) {
    if (!parse_count(value, 100000, &options->overhead_runs)) {
      return usage_error("--overhead-runs needs a count, not '%s'", value);
    }
  } else if (strcmp(arg, "--kernels") == 0) {
    options->reference = strcmp(value, "reference") == 0 ||
                         strcmp(value, "both") == 0;
    options->optimized = strcmp(value, "optimized") == 0 ||
                         strcmp(value, "both") == 0;
    if (!options->reference && !options->optimized) {
      return usage_error("--kernels must be reference, optimized or both, "
                         "not '%s'",
                         value);
    }
  } else if (strcmp(arg, "--counters") == 0) {
    if (strcmp(value, "auto") == 0) {
      options->counters = ETR_COUNTERS_AUTO;
    } else if (strcmp(value, "papi") == 0) {
      options->counters = ETR_COUNTERS_ONLY_PAPI;
    } else if (strcmp(value, "perf") == 0) {
      options->counters = ETR_COUNTERS_ONLY_PERF;
    } else if (strcmp(value, "off") == 0) {
      options->counters = ETR_COUNTERS_OFF;
    } else {
      return usage_error("--counters must be auto, papi, perf or off, not "
                         "'%s'",
                         value);
    }
  } else if (strcmp(arg, "--roofline") == 0) {
    if (strcmp(value, "env") != 0 && strcmp(value, "measure") != 0) {
      return usage_error("--roofline must be env or measure, not '%s'",
                         value);
    }
    options->measure_roofline = strcmp(value, "measure") == 0;
  } else if (strcmp(arg, "--seed") == 0) {
    char *end = NULL;
    errno = 0;
    options->seed = strtoull(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || value[0] == '-') {
      return usage_error("--seed needs a non-negative integer, not '%s'",
                         value);
    }
  } else if (strcmp(arg, "--input") == 0) {
    if (options->num_inputs == MAX_FILES) {
      return usage_error("too many --input files (at most %s)", "64");
    }
    options->inputs[options->num_inputs++] = value;
  } else if (strcmp(arg, "--delegate") == 0) {
    if (options->num_delegates == MAX_FILES) {
      return usage_error("too many --delegate libraries (at most %s)", "64");
    }
    options->delegates[options->num_delegates++] = value;
  } else {
    const char **slot =
        strcmp(arg, "--method") == 0          ? &options->method
        : strcmp(arg, "--data") == 0          ? &options->data_path
        : strcmp(arg, "--report") == 0        ? &options->report_dir
        : strcmp(arg, "--etdump") == 0        ? &options->etdump_path
        : strcmp(arg, "--debug-buffer") == 0  ? &options->debug_buffer_path
        : strcmp(arg, "--csv") == 0           ? &options->csv_path
        : strcmp(arg, "--json") == 0          ? &options->json_path
        : strcmp(arg, "--executorch") == 0    ? &options->executorch
        : strcmp(arg, "--executorch-etdump") == 0
            ? &options->executorch_etdump
            : NULL;
    if (slot == NULL) {
      return usage_error("unknown option '%s'", arg);
    }
    *slot = value;
  }
  return 0;
}

static int parse_options(int argc, char **argv, profile_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->runs = 20;
  options->warmup = 3;
  options->overhead_runs = -1;
  options->reference = true;
  options->optimized = true;
  options->counters = ETR_COUNTERS_AUTO;
  options->executorch = "auto";
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(kProfileUsage, stdout);
      return -1;
    }
    if (strcmp(arg, "--quiet") == 0) {
      options->quiet = true;
      continue;
    }
    if (strcmp(arg, "--fuse") == 0) {
      options->fuse = true;
      continue;
    }
    if (arg[0] == '-' && arg[1] == '-') {
      if (i + 1 >= argc) {
        return usage_error("option %s needs a value", arg);
      }
      int code = parse_value(options, arg, argv[++i]);
      if (code != 0) {
        return code;
      }
      continue;
    }
    if (options->program_path != NULL) {
      return usage_error("unexpected argument '%s' (one PROGRAM only)", arg);
    }
    options->program_path = arg;
  }
  if (options->program_path == NULL) {
    return usage_error("%s", "missing PROGRAM");
  }
  if (options->debug_buffer_path != NULL && options->etdump_path == NULL) {
    return usage_error("%s", "--debug-buffer needs --etdump");
  }
  if (options->fuse && options->debug_buffer_path != NULL) {
    return usage_error("%s", "--fuse and --debug-buffer do not go together: "
                             "a fused block never writes the intermediate "
                             "values the debug buffer would capture");
  }
  if (options->overhead_runs < 0) {
    options->overhead_runs = options->runs > 20 ? options->runs : 20;
  }
  return 0;
}

typedef struct {
  etr_cli_session_t session;
  etr_cli_inputs_t inputs;
  etr_method_t methods[2];
  etr_prof_t timing[2];
  etr_prof_t counting[2];
  etr_prof_t capture;
  bool captured;
  etr_profile_report_t report;
  char method_name[256];
  char command[8192];
  char inputs_note[1024];
  int32_t bundled_case;  // the bundle's test case the inputs came from, or -1
  char paths[4][4096];  // csv, json, etdump (optimized), notes
  uint64_t load_span[2][2];  // per kernel library: load start and end
} profile_state_t;

static const char *choose_method(const profile_options_t *options,
                                 const etr_program_t *program, char *buffer,
                                 size_t capacity) {
  if (options->method != NULL) {
    return options->method;
  }
  etr_fb_string_t name;
  for (uint32_t i = 0; i < etr_program_method_count(program); ++i) {
    if (etr_program_method_name(program, i, &name, NULL) == ETR_OK &&
        strcmp(name.chars, "forward") == 0) {
      return "forward";
    }
  }
  if (etr_program_method_count(program) > 0 &&
      etr_program_method_name(program, 0, &name, NULL) == ETR_OK) {
    snprintf(buffer, capacity, "%s", name.chars);
    return buffer;
  }
  return "forward";
}

static int load(const profile_options_t *options, profile_state_t *state,
                etr_kernel_variant_t variant, const etr_event_tracer_t *tracer,
                etr_method_t *method, uint64_t *load_span) {
  etr_method_config_t config;
  etr_method_config_init(&config, &state->session.kernels);
  config.variant = variant;
  config.backends = &state->session.backends;
  config.external_data =
      state->session.has_data ? &state->session.data : NULL;
  config.tracer = tracer;
  config.seed = options->seed;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  uint64_t started = etr_now_ns();
  etr_error_t status = etr_method_load(&state->session.program,
                                       state->report.method, &config, method,
                                       &diag);
  if (status == ETR_OK && options->fuse &&
      variant == ETR_KERNELS_OPTIMIZED) {
    etr_fusion_stats_t fused;
    status = etr_opt_fuse_method(method, &fused, &diag);
    snprintf(state->report.fusion_note, sizeof(state->report.fusion_note),
             "optimized kernels fused at load (--fuse, "
             "ops_optimized/fuse/fuse.h): %u convolution blocks absorbing "
             "%u batch norms and %u hardtanh/relu (%u with weights "
             "packed at load), %u elementwise chains computing %u ops in "
             "one pass, %u constant-only instructions folded (their rows "
             "show ~0 us), %u max pools without their unread indices",
             fused.groups, fused.batch_norms, fused.clamps, fused.prepacked,
             fused.chains, fused.chain_steps, fused.folded, fused.pruned);
  } else if (status == ETR_OK && variant == ETR_KERNELS_OPTIMIZED) {
    etr_opt_prepack_method(method);
  }
  if (load_span != NULL) {  // start and end, etr_now_ns
    load_span[0] = started;
    load_span[1] = etr_now_ns();
  }
  return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(&diag, status);
}

// Sets the inputs and executes `count` times; *elapsed_ns (may be NULL)
// receives the last execution's wall time.
static int execute(profile_state_t *state, etr_method_t *method, long count,
                   uint64_t *elapsed_ns) {
  for (long i = 0; i < count; ++i) {
    int code = etr_cli_inputs_set(&state->inputs, method);
    if (code != ETR_EXIT_OK) {
      return code;
    }
    etr_diag_t diag;
    etr_diag_reset(&diag);
    uint64_t started = etr_now_ns();
    etr_error_t status = etr_method_execute(method, &diag);
    if (elapsed_ns != NULL) {
      *elapsed_ns = etr_now_ns() - started;
    }
    if (status != ETR_OK) {
      return etr_cli_report(&diag, status);
    }
  }
  return ETR_EXIT_OK;
}

static bool same_outputs(const etr_method_t *a, const etr_method_t *b) {
  for (uint32_t k = 0; k < a->num_outputs; ++k) {
    const etr_evalue_t *x = etr_method_output(a, k);
    const etr_evalue_t *y = etr_method_output(b, k);
    if (x->tag != y->tag) {
      return false;
    }
    if (x->tag != ETR_TAG_TENSOR) {
      if (memcmp(&x->u, &y->u, sizeof(x->u)) != 0) {
        return false;
      }
      continue;
    }
    size_t bytes = etr_tensor_nbytes(x->u.as_tensor);
    if (bytes != etr_tensor_nbytes(y->u.as_tensor) ||
        (bytes != 0 &&
         memcmp(x->u.as_tensor->data, y->u.as_tensor->data, bytes) != 0)) {
      return false;
    }
  }
  return true;
}

// What one measured execution cost.
typedef struct {
  double wall_ns;
  double cpu_ns;
  double instructions;
  bool has_instructions;
} cost_t;

static uint64_t thread_cpu_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

// Sets the inputs, then executes once measuring wall time, thread CPU time
// and (when `counters` has them) instructions retired.
static int execute_measured(profile_state_t *state, etr_method_t *method,
                            etr_counters_t *counters, int instructions,
                            cost_t *cost) {
  int code = etr_cli_inputs_set(&state->inputs, method);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  uint64_t before[ETR_PROF_MAX_COUNTERS];
  uint64_t after[ETR_PROF_MAX_COUNTERS];
  bool counted = instructions >= 0 && etr_counters_read(counters, before);
  uint64_t cpu = thread_cpu_ns();
  uint64_t wall = etr_now_ns();
  etr_error_t status = etr_method_execute(method, &diag);
  cost->wall_ns = (double)(etr_now_ns() - wall);
  cost->cpu_ns = (double)(thread_cpu_ns() - cpu);
  counted = counted && etr_counters_read(counters, after);
  cost->has_instructions = counted;
  cost->instructions =
      counted ? (double)(after[instructions] - before[instructions]) : 0;
  return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(&diag, status);
}

static double percent_change(double from, double to) {
  return from > 0 ? 100.0 * (to - from) / from : 0;
}

// The tracer's cost on `method` (loaded with the timing tracer attached),
// then outputs with and without the heaviest tracer on fresh methods.
static int measure_overhead(const profile_options_t *options,
                            profile_state_t *state,
                            etr_profile_variant_t *variant,
                            etr_method_t *method) {
  uint32_t pairs = (uint32_t)options->overhead_runs;
  if (pairs == 0) {
    return ETR_EXIT_OK;
  }
  static etr_prof_t traced;
  etr_prof_config_t config;
  etr_prof_config_init(&config);
  config.max_runs = pairs;
  etr_prof_init(&traced, &config);
  etr_counters_t counters;
  etr_counters_open(&counters, options->counters);
  int instructions = -1;
  for (uint32_t c = 0; c < counters.num_counters; ++c) {
    instructions =
        strcmp(counters.names[c], "instructions") == 0 ? (int)c : instructions;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_prof_bind(&traced, method, &diag);
  // Six sample arrays: wall, cpu, instructions, without and with.
  double *samples = (double *)calloc((size_t)pairs * 6, sizeof(double));
  int code = status == ETR_OK && samples != NULL
                 ? ETR_EXIT_OK
                 : etr_cli_report(&diag,
                                  status != ETR_OK
                                      ? status
                                      : ETR_ERR_MEMORY_ALLOCATION_FAILED);
  bool has_instructions = instructions >= 0;
  const etr_event_tracer_t *timing_tracer = method->config.tracer;
  for (uint32_t p = 0; p < pairs && code == ETR_EXIT_OK; ++p) {
    // ABBA: alternate which goes first so slow drifts cancel.
    for (int half = 0; half < 2 && code == ETR_EXIT_OK; ++half) {
      bool tracing = (p % 2 == 0) == (half == 1);
      method->config.tracer = tracing ? &traced.tracer : NULL;
      cost_t cost = {0};
      code = execute_measured(state, method, &counters, instructions, &cost);
      double *base = samples + (tracing ? 3 * (size_t)pairs : 0);
      base[p] = cost.wall_ns;
      base[pairs + p] = cost.cpu_ns;
      base[2 * (size_t)pairs + p] = cost.instructions;
      has_instructions = has_instructions && cost.has_instructions;
    }
  }
  method->config.tracer = timing_tracer;
  etr_counters_close(&counters);
  if (code == ETR_EXIT_OK) {
    etr_profile_overhead_t *o = &variant->overhead;
    o->measured = true;
    o->pairs = pairs;
    etr_prof_summarize(samples, pairs, &o->plain);
    etr_prof_summarize(samples + pairs, pairs, &o->plain_cpu);
    etr_prof_summarize(samples + 2 * (size_t)pairs, pairs,
                       &o->plain_instructions);
    etr_prof_summarize(samples + 3 * (size_t)pairs, pairs, &o->traced);
    etr_prof_summarize(samples + 4 * (size_t)pairs, pairs, &o->traced_cpu);
    etr_prof_summarize(samples + 5 * (size_t)pairs, pairs,
                       &o->traced_instructions);
    o->percent = percent_change(o->plain.p50, o->traced.p50);
    o->cpu_percent = percent_change(o->plain_cpu.p50, o->traced_cpu.p50);
    o->has_instructions = has_instructions;
    o->instructions_percent = percent_change(o->plain_instructions.p50,
                                             o->traced_instructions.p50);
  }
  free(samples);
  etr_prof_release(&traced);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  // Bitwise: fresh methods, one plain, one with counters and capture, the
  // same inputs, compared after every execution (stateful programs too).
  static etr_prof_t heavy;
  etr_prof_config_init(&config);
  config.max_runs = (uint32_t)options->warmup + 1;
  config.counters = options->counters;
  config.capture_bytes = 4u << 20;
  etr_prof_init(&heavy, &config);
  static etr_method_t bare;
  static etr_method_t loaded;
  code = load(options, state, variant->variant, NULL, &bare, NULL);
  if (code == ETR_EXIT_OK) {
    code = load(options, state, variant->variant, &heavy.tracer, &loaded,
                NULL);
  }
  if (code == ETR_EXIT_OK &&
      etr_prof_bind(&heavy, &loaded, &diag) != ETR_OK) {
    code = etr_cli_report(&diag, diag.code);
  }
  variant->overhead.outputs_identical = code == ETR_EXIT_OK;
  for (long run = 0; run <= options->warmup && code == ETR_EXIT_OK; ++run) {
    code = execute(state, &bare, 1, NULL);
    if (code == ETR_EXIT_OK) {
      code = execute(state, &loaded, 1, NULL);
    }
    variant->overhead.outputs_identical =
        variant->overhead.outputs_identical && code == ETR_EXIT_OK &&
        same_outputs(&bare, &loaded);
  }
  etr_method_release(&bare);
  etr_method_release(&loaded);
  etr_prof_release(&heavy);
  return code;
}

static int count_and_capture(const profile_options_t *options,
                             profile_state_t *state, uint32_t index,
                             etr_method_t *method) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_prof_config_t config;
  etr_prof_config_init(&config);
  config.max_runs = options->runs < 10 ? (uint32_t)options->runs : 10;
  config.counters = options->counters;
  etr_prof_t *counting = &state->counting[index];
  etr_prof_init(counting, &config);
  const etr_event_tracer_t *timing_tracer = method->config.tracer;
  int code = ETR_EXIT_OK;
  if (counting->counters.source != ETR_COUNTERS_NONE) {
    if (etr_prof_bind(counting, method, &diag) != ETR_OK) {
      return etr_cli_report(&diag, diag.code);
    }
    method->config.tracer = &counting->tracer;
    code = execute(state, method, config.max_runs, NULL);
  }
  if (code == ETR_EXIT_OK && index == 0 &&
      options->debug_buffer_path != NULL) {
    etr_prof_config_init(&config);
    config.capture_bytes = 256u << 20;
    etr_prof_init(&state->capture, &config);
    if (etr_prof_bind(&state->capture, method, &diag) != ETR_OK) {
      return etr_cli_report(&diag, diag.code);
    }
    state->captured = true;
    method->config.tracer = &state->capture.tracer;
    code = execute(state, method, 1, NULL);
  }
  method->config.tracer = timing_tracer;
  return code;
}

static int prepare_inputs(const profile_options_t *options,
                          profile_state_t *state, const etr_method_t *method) {
  if (options->num_inputs > 0) {
    size_t used = 0;
    for (size_t i = 0; i < options->num_inputs; ++i) {
      used += (size_t)snprintf(state->inputs_note + used,
                               sizeof(state->inputs_note) - used, "%s`%s`",
                               i ? ", " : "", options->inputs[i]);
      if (used >= sizeof(state->inputs_note)) {
        break;
      }
    }
    return etr_cli_inputs_from_files(&state->inputs, method, options->inputs,
                                     options->num_inputs);
  }
  if (state->session.is_bundle) {
    etr_diag_t diag;
    etr_diag_reset(&diag);
    uint32_t suites = etr_bundled_suite_count(&state->session.bundle);
    for (uint32_t s = 0; s < suites; ++s) {
      etr_bundled_suite_t suite;
      etr_error_t status =
          etr_bundled_suite(&state->session.bundle, s, &suite, &diag);
      if (status != ETR_OK) {
        return etr_cli_report(&diag, status);
      }
      if (strcmp(suite.method_name, method->name) == 0) {
        snprintf(state->inputs_note, sizeof(state->inputs_note),
                 "the bundle's test set %u, case 0", s);
        state->bundled_case = 0;
        return etr_cli_inputs_from_bundle(&state->inputs, &suite, 0);
      }
    }
  }
  snprintf(state->inputs_note, sizeof(state->inputs_note),
           "seeded random tensors (seed %llu; floats uniform in [-1, 1), "
           "integers in [0, 10))",
           options->seed);
  return etr_cli_inputs_random(&state->inputs, method, options->seed);
}

static int profile_variant(const profile_options_t *options,
                           profile_state_t *state, uint32_t index,
                           etr_kernel_variant_t kind) {
  etr_profile_variant_t *variant = &state->report.variants[index];
  variant->variant = kind;
  etr_prof_config_t config;
  etr_prof_config_init(&config);
  config.max_runs = (uint32_t)options->runs;
  etr_prof_t *timing = &state->timing[index];
  etr_prof_init(timing, &config);
  etr_method_t *method = &state->methods[index];
  uint64_t *span = state->load_span[index];
  int code = load(options, state, kind, &timing->tracer, method, span);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  if (index == 0) {
    state->report.load_ns = span[1] - span[0];
    code = prepare_inputs(options, state, method);
    if (code != ETR_EXIT_OK) {
      return code;
    }
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (etr_prof_bind(timing, method, &diag) != ETR_OK) {
    return etr_cli_report(&diag, diag.code);
  }
  code = execute(state, method, options->warmup, NULL);
  etr_prof_reset(timing);
  if (code == ETR_EXIT_OK) {
    code = execute(state, method, options->runs, NULL);
  }
  if (code == ETR_EXIT_OK) {
    code = measure_overhead(options, state, variant, method);
  }
  if (code == ETR_EXIT_OK) {
    code = count_and_capture(options, state, index, method);
  }
  if (code != ETR_EXIT_OK) {
    return code;
  }
  variant->method = method;
  variant->timing = timing;
  etr_error_t status = etr_prof_stats_compute(timing, &state->counting[index],
                                              &variant->stats, &diag);
  // Free the hardware counters for the next kernel library's runs (a VM
  // may not schedule two counter groups at once); the statistics keep
  // their names and notes.
  etr_counters_close(&state->counting[index].counters);
  if (status == ETR_OK) {
    status = etr_prof_memory_compute(timing, method, &variant->memory, &diag);
  }
  return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(&diag, status);
}

// "bazel run //:etref -- profile ARGS", quoting what needs quotes, with
// the ETREF_PYTHON that chose ExecuTorch's interpreter when it was set.
static void build_command(int argc, char **argv, char *command,
                          size_t capacity) {
  const char *python = getenv("ETREF_PYTHON");
  size_t used = 0;
  if (python != NULL && python[0] != '\0') {
    used = (size_t)snprintf(command, capacity, "ETREF_PYTHON=%s ", python);
    used = used < capacity ? used : capacity - 1;
  }
  used += (size_t)snprintf(command + used, capacity - used,
                           "bazel run //:etref -- profile");
  for (int i = 1; i < argc && used < capacity; ++i) {
    bool quote = strpbrk(argv[i], " \t'\"$") != NULL || argv[i][0] == '\0';
    used += (size_t)snprintf(command + used, capacity - used,
                             quote ? " '%s'" : " %s", argv[i]);
  }
}

// FILE.etdp -> FILE.optimized.etdp (or FILE.optimized).
static void optimized_path(const char *path, char *out, size_t capacity) {
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (dot == NULL || (slash != NULL && dot < slash)) {
    snprintf(out, capacity, "%s.optimized", path);
  } else {
    snprintf(out, capacity, "%.*s.optimized%s", (int)(dot - path), path, dot);
  }
}

static void add_file(etr_profile_report_t *report, const char *path,
                     const char *note) {
  if (report->num_files < ETR_PROFILE_MAX_FILES) {
    report->files[report->num_files] = path;
    report->file_notes[report->num_files++] = note;
  }
}

static int write_etdumps(const profile_options_t *options,
                         profile_state_t *state) {
  etr_profile_report_t *report = &state->report;
  for (uint32_t v = 0; v < report->num_variants; ++v) {
    const char *path = options->etdump_path;
    if (v == 1) {
      optimized_path(options->etdump_path, state->paths[2],
                     sizeof(state->paths[2]));
      path = state->paths[2];
    }
    const etr_prof_t *profs[2] = {&state->timing[v], &state->capture};
    uint32_t count = v == 0 && state->captured ? 2 : 1;
    etr_etdump_options_t etdump_options;
    etr_etdump_options_init(&etdump_options);
    etdump_options.debug_events = v == 0 && state->captured;
    // As ExecuTorch's bundled-input runs: the test case, for the oracle
    // (etref compare --bundled) to find its run.
    etdump_options.bundled_input_index = state->bundled_case;
    // A "Default" block as ExecuTorch's: etref loads a method in one step,
    // so Program::load_method and Method::init share its interval.
    etdump_options.load_start_ns = state->load_span[v][0];
    etdump_options.load_end_ns = state->load_span[v][1];
    etdump_options.init_start_ns = state->load_span[v][0];
    etdump_options.init_end_ns = state->load_span[v][1];
    etr_etdump_summary_t summary;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_error_t status = etr_etdump_write(
        profs, count, &etdump_options, path,
        v == 0 ? options->debug_buffer_path : NULL, &summary, &diag);
    if (status != ETR_OK) {
      return etr_cli_report(&diag, status);
    }
    add_file(report, path,
             v == 1 ? "ETDump of the optimized kernels' timed runs"
             : state->captured
                 ? "ETDump of the first kernel library's timed runs, then "
                   "one capture run with debug events (intermediate "
                   "outputs)"
                 : "ETDump (size-prefixed ED00 FlatBuffer) of the first "
                   "kernel library's timed runs; ExecuTorch's Inspector "
                   "opens it");
    if (!options->quiet) {
      printf("wrote %s: %u blocks, %u profile events, %u debug events\n",
             path, summary.blocks, summary.profile_events,
             summary.debug_events);
    }
  }
  if (state->captured) {
    add_file(report, options->debug_buffer_path,
             "debug buffer of the capture run (pass it to the Inspector's "
             "debug_buffer_path)");
  }
  return ETR_EXIT_OK;
}

static int write_outputs(const profile_options_t *options,
                         profile_state_t *state) {
  etr_profile_report_t *report = &state->report;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  const char *csv = options->csv_path;
  const char *json = options->json_path;
  if (options->report_dir != NULL) {
    if (csv == NULL) {
      snprintf(state->paths[0], sizeof(state->paths[0]), "%s/profile.csv",
               options->report_dir);
      csv = state->paths[0];
    }
    if (json == NULL) {
      snprintf(state->paths[1], sizeof(state->paths[1]), "%s/profile.json",
               options->report_dir);
      json = state->paths[1];
    }
  }
  if (csv != NULL) {
    add_file(report, csv, "per-op figures, one row per instruction");
  }
  if (json != NULL) {
    add_file(report, json, "everything in this report, machine-readable");
  }
  etr_error_t status = ETR_OK;
  if (csv != NULL) {
    status = etr_profile_write_csv(report, csv, &diag);
  }
  if (status == ETR_OK && json != NULL) {
    status = etr_profile_write_json(report, json, &diag);
  }
  if (status == ETR_OK && options->report_dir != NULL) {
    status = etr_profile_report_write(report, options->report_dir, &diag);
  }
  if (status != ETR_OK) {
    return etr_cli_report(&diag, status);
  }
  if (!options->quiet && options->report_dir != NULL) {
    printf("wrote %s/report.html and %s/README.md\n", options->report_dir,
           options->report_dir);
  }
  return ETR_EXIT_OK;
}

static void print_summary(const profile_options_t *options,
                          const profile_state_t *state) {
  const etr_profile_report_t *report = &state->report;
  if (options->quiet) {
    return;
  }
  for (uint32_t v = 0; v < report->num_variants; ++v) {
    const etr_profile_variant_t *variant = &report->variants[v];
    printf("\n");
    etr_profile_print_table(&variant->stats,
                            etr_kernel_variant_name(variant->variant), stdout);
    const etr_profile_overhead_t *o = &variant->overhead;
    if (o->measured) {
      printf("tracer overhead over %u alternating pairs (medians): wall "
             "%+.2f%% (%.2f vs %.2f us), thread CPU %+.2f%%",
             o->pairs, o->percent, o->traced.p50 / 1e3, o->plain.p50 / 1e3,
             o->cpu_percent);
      if (o->has_instructions) {
        printf(", instructions %+.4f%% (%.0f vs %.0f)",
               o->instructions_percent, o->traced_instructions.p50,
               o->plain_instructions.p50);
      }
      printf("; outputs %s\n",
             o->outputs_identical ? "bitwise identical" : "DIFFER");
    }
  }
  const etr_prof_stats_t *stats = &report->variants[0].stats;
  if (stats->num_counters > 0) {
    printf("\nhardware counters: %s", etr_counter_source_name(
                                          stats->counter_source));
    printf("%s%s\n", stats->counter_note[0] ? " (" : "",
           stats->counter_note[0] ? stats->counter_note : "");
  } else {
    printf("\nhardware counters: not available: %s\n", stats->counter_note);
  }
  printf("ExecuTorch: %s\n", report->executorch_note);
}

int etr_cli_profile(int argc, char **argv) {
  profile_options_t options;
  int code = parse_options(argc, argv, &options);
  if (code != 0) {
    return code < 0 ? ETR_EXIT_OK : code;
  }
  if (options.report_dir != NULL) {
    mkdir(options.report_dir, 0777);  // may exist; a failure shows on write
  }
  static profile_state_t state;
  memset(&state, 0, sizeof(state));
  state.bundled_case = -1;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  code = etr_cli_open(&state.session, options.program_path,
                      options.data_path, &diag);
  if (code == ETR_EXIT_OK) {
    code = etr_cli_load_delegates(&state.session.backends, options.delegates,
                                  options.num_delegates, options.quiet);
  }
  if (code == ETR_EXIT_OK) {
    code = etr_cli_verify(&state.session, options.method, false, stdout);
  }
  etr_profile_report_t *report = &state.report;
  build_command(argc, argv, state.command, sizeof(state.command));
  report->program = options.program_path;
  report->method = choose_method(&options, &state.session.program,
                                 state.method_name, sizeof(state.method_name));
  report->command = state.command;
  report->inputs = state.inputs_note;
  report->runs = (uint32_t)options.runs;
  report->warmup = (uint32_t)options.warmup;
  etr_machine_detect(&report->machine);
  if (code == ETR_EXIT_OK && options.measure_roofline &&
      !etr_machine_measure(&report->machine)) {
    fprintf(stderr, "etref: warning: could not measure the bandwidths; "
                    "using ENVIRONMENT.md's\n");
  }
  if (code == ETR_EXIT_OK && options.reference) {
    code = profile_variant(&options, &state, report->num_variants++,
                           ETR_KERNELS_REFERENCE);
  }
  if (code == ETR_EXIT_OK && options.optimized) {
    code = profile_variant(&options, &state, report->num_variants++,
                           ETR_KERNELS_OPTIMIZED);
  }
  if (code == ETR_EXIT_OK) {
    etr_cli_executorch_request_t request = {
        .python = options.executorch,
        .program = options.program_path,
        .method = report->method,
        .data_path = options.data_path,
        .input_paths = options.inputs,
        .num_input_paths = (uint32_t)options.num_inputs,
        .inputs = &state.inputs,
        .warmup = (uint32_t)options.warmup,
        .runs = (uint32_t)options.runs,
        .keep_etdump = options.executorch_etdump,
    };
    if (state.session.is_bundle) {
      snprintf(report->executorch_note, sizeof(report->executorch_note),
               "not run: ExecuTorch's runtime loads .pte files, and this is "
               "a bundled program (.bpte)");
    } else {
      etr_cli_profile_executorch(&request, report);
    }
    if (report->has_executorch && options.executorch_etdump != NULL) {
      add_file(report, options.executorch_etdump,
               "ExecuTorch's own ETDump of the same program");
    }
  }
  if (code == ETR_EXIT_OK && options.etdump_path != NULL) {
    code = write_etdumps(&options, &state);
  }
  if (code == ETR_EXIT_OK) {
    code = write_outputs(&options, &state);
  }
  if (code == ETR_EXIT_OK) {
    print_summary(&options, &state);
  }
  for (uint32_t v = 0; v < 2; ++v) {
    etr_prof_stats_release(&report->variants[v].stats);
    etr_prof_memory_release(&report->variants[v].memory);
    etr_method_release(&state.methods[v]);
    etr_prof_release(&state.timing[v]);
    etr_prof_release(&state.counting[v]);
  }
  if (state.captured) {
    etr_prof_release(&state.capture);
  }
  etr_executorch_profile_release(&report->executorch);
  etr_cli_inputs_release(&state.inputs);
  etr_cli_close(&state.session);
  return code;
}
