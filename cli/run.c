// SPDX-License-Identifier: Apache-2.0
//
// `etref run`: load a .pte (or a .bpte bundled program), verify it (nothing
// runs unless the verifier accepts it), instantiate one
// method with the reference or optimized kernels, feed it inputs (.npy
// files, the bundle's test inputs, or seeded random tensors), execute it,
// print its outputs and a per-operator timing table, and optionally write
// the outputs as .npy and check them against expected .npy files or the
// bundle's expected outputs.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/inputs.h"
#include "core/bundled_program.h"
#include "core/file.h"
#include "core/method.h"
#include "core/npy.h"
#include "core/program.h"
#include "ops_optimized/fuse/fuse.h"
#include "ops_reference/support/element.h"
#include "planner/lifetime.h"
#include "planner/plan.h"
#include "prof/report.h"
#include "prof/stats.h"
#include "prof/tracer.h"

#define MAX_FILES 64

static const char kRunUsage[] =
    "usage: etref run PROGRAM [options]\n"
    "\n"
    "Runs a method of PROGRAM (.pte, or .bpte: a bundled program whose test\n"
    "sets are run and checked) and prints its outputs and a per-operator\n"
    "timing table.\n"
    "\n"
    "options:\n"
    "  --method NAME           method to run (default: forward, else the "
    "first)\n"
    "  --input FILE.npy        an input, in order; repeat once per input.\n"
    "                          Without inputs: the bundle's test inputs, or\n"
    "                          seeded random tensors (and the run says so)\n"
    "  --data FILE.ptd         external data file for external constants\n"
    "  --kernels reference|optimized   kernel library (default reference)\n"
    "  --output-dir DIR        write outputs as DIR/output_<k>.npy\n"
    "  --expected FILE.npy     expected output, in order; repeat; exit 3 on\n"
    "                          a mismatch beyond --rtol/--atol\n"
    "  --rtol R --atol A       tolerance (default 1e-5 and 1e-5)\n"
    "  --runs N                timed executions (default 1)\n"
    "  --warmup W              untimed executions first (default 0)\n"
    "  --seed S                seed for random inputs and random ops (0)\n"
    "  --plan program|greedy|best   memory plan: the program's own (default),\n"
    "                          ExecuTorch's greedy or etref's best fit, as\n"
    "                          re-planned by etref\n"
    "  --delegate LIB.so       load a delegate library (core/backend.h's\n"
    "                          ABI); repeat for several\n"
    "  --fuse                  with --kernels optimized: fuse each "
    "convolution\n"
    "                          with the batch norm and hardtanh/relu after it\n"
    "                          (ops_optimized/fuse/fuse.h; same output bits,\n"
    "                          the absorbed instructions write nothing)\n"
    "  --quiet                 print no output values or timing table\n";

typedef struct {
  const char *program_path;
  const char *method;
  const char *data_path;
  const char *output_dir;
  const char *inputs[MAX_FILES];
  size_t num_inputs;
  const char *expected[MAX_FILES];
  size_t num_expected;
  etr_kernel_variant_t variant;
  double rtol;
  double atol;
  long runs;
  long warmup;
  unsigned long long seed;
  const char *plan;  // NULL/"program", "greedy" or "best"
  int quiet;
  int fuse;
  const char *delegates[MAX_FILES];
  size_t num_delegates;
} run_options_t;

static int usage_error(const char *format, const char *detail) {
  fprintf(stderr, "etref run: ");
  fprintf(stderr, format, detail);
  fprintf(stderr, "\n\n%s", kRunUsage);
  return ETR_EXIT_USAGE;
}

static int parse_number(const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite(value) ||
      value < 0) {
    return 0;
  }
  *out = value;
  return 1;
}

static int parse_count(const char *text, long max, long *out) {
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0 || value > max) {
    return 0;
  }
  *out = value;
  return 1;
}

static int parse_options(int argc, char **argv, run_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->rtol = 1e-5;
  options->atol = 1e-5;
  options->runs = 1;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(kRunUsage, stdout);
      return -1;
    }
    if (strcmp(arg, "--quiet") == 0) {
      options->quiet = 1;
      continue;
    }
    if (strcmp(arg, "--fuse") == 0) {
      options->fuse = 1;
      continue;
    }
    if (arg[0] == '-' && arg[1] == '-') {
      if (value == NULL) {
        return usage_error("option %s needs a value", arg);
      }
      ++i;
      if (strcmp(arg, "--method") == 0) {
        options->method = value;
      } else if (strcmp(arg, "--data") == 0) {
        options->data_path = value;
      } else if (strcmp(arg, "--output-dir") == 0) {
        options->output_dir = value;
      } else if (strcmp(arg, "--input") == 0) {
        if (options->num_inputs == MAX_FILES) {
          return usage_error("too many --input files (at most %s)", "64");
        }
        options->inputs[options->num_inputs++] = value;
      } else if (strcmp(arg, "--delegate") == 0) {
        if (options->num_delegates == MAX_FILES) {
          return usage_error("too many --delegate libraries (at most %s)",
                             "64");
        }
        options->delegates[options->num_delegates++] = value;
      } else if (strcmp(arg, "--expected") == 0) {
        if (options->num_expected == MAX_FILES) {
          return usage_error("too many --expected files (at most %s)", "64");
        }
        options->expected[options->num_expected++] = value;
      } else if (strcmp(arg, "--kernels") == 0) {
        if (strcmp(value, "reference") == 0) {
          options->variant = ETR_KERNELS_REFERENCE;
        } else if (strcmp(value, "optimized") == 0) {
          options->variant = ETR_KERNELS_OPTIMIZED;
        } else {
          return usage_error("--kernels must be reference or optimized, not "
                             "'%s'",
                             value);
        }
      } else if (strcmp(arg, "--rtol") == 0) {
        if (!parse_number(value, &options->rtol)) {
          return usage_error("--rtol needs a non-negative number, not '%s'",
                             value);
        }
      } else if (strcmp(arg, "--atol") == 0) {
        if (!parse_number(value, &options->atol)) {
          return usage_error("--atol needs a non-negative number, not '%s'",
                             value);
        }
      } else if (strcmp(arg, "--runs") == 0) {
        if (!parse_count(value, 1000000, &options->runs) ||
            options->runs < 1) {
          return usage_error("--runs needs a count from 1 to 1000000, not "
                             "'%s'",
                             value);
        }
      } else if (strcmp(arg, "--warmup") == 0) {
        if (!parse_count(value, 1000000, &options->warmup)) {
          return usage_error("--warmup needs a count from 0 to 1000000, not "
                             "'%s'",
                             value);
        }
      } else if (strcmp(arg, "--plan") == 0) {
        if (strcmp(value, "program") != 0 && strcmp(value, "greedy") != 0 &&
            strcmp(value, "best") != 0) {
          return usage_error("--plan must be program, greedy or best, not "
                             "'%s'",
                             value);
        }
        options->plan = value;
      } else if (strcmp(arg, "--seed") == 0) {
        char *end = NULL;
        errno = 0;
        options->seed = strtoull(value, &end, 10);
        if (errno != 0 || end == value || *end != '\0' || value[0] == '-') {
          return usage_error("--seed needs a non-negative integer, not '%s'",
                             value);
        }
      } else {
        return usage_error("unknown option '%s'", arg);
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
  if (options->fuse && options->variant != ETR_KERNELS_OPTIMIZED) {
    return usage_error("%s", "--fuse needs --kernels optimized");
  }
  return 0;
}

static void print_value(const etr_evalue_t *value, const char *label,
                        uint32_t index) {
  switch (value->tag) {
    case ETR_TAG_INT:
      printf("%s %u: Int %lld\n", label, index, (long long)value->u.as_int);
      return;
    case ETR_TAG_DOUBLE:
      printf("%s %u: Double %.9g\n", label, index, value->u.as_double);
      return;
    case ETR_TAG_BOOL:
      printf("%s %u: Bool %s\n", label, index,
             value->u.as_bool ? "true" : "false");
      return;
    case ETR_TAG_TENSOR:
      break;
    default:
      printf("%s %u: %s\n", label, index, etr_tag_name(value->tag));
      return;
  }
  const etr_tensor_t *tensor = value->u.as_tensor;
  char shape[128];
  etr_tensor_describe(tensor, shape, sizeof(shape));
  printf("%s %u: %s", label, index, shape);
  int64_t numel = etr_tensor_numel(tensor);
  if (numel == 0 || tensor->data == NULL ||
      etr_scalar_type_is_complex(tensor->dtype)) {
    printf("\n");
    return;
  }
  double minimum = INFINITY;
  double maximum = -INFINITY;
  double sum = 0;
  int64_t position[ETR_MAX_DIMS] = {0};
  int64_t shown = 0;
  char preview[256] = "";
  size_t used = 0;
  do {
    double v = etr_load_double(tensor->dtype,
                               etr_element_at(tensor,
                                              etr_tensor_offset(tensor,
                                                                position)));
    minimum = v < minimum ? v : minimum;
    maximum = v > maximum ? v : maximum;
    sum += v;
    if (shown < 8 && used < sizeof(preview)) {
      int written = snprintf(preview + used, sizeof(preview) - used, "%s%.6g",
                             shown ? ", " : "", v);
      used += written > 0 ? (size_t)written : 0;
      ++shown;
    }
  } while (etr_index_next(position, tensor->sizes, tensor->dim));
  printf("  min %.6g max %.6g mean %.6g\n    [%s%s]\n", minimum, maximum,
         sum / (double)numel, preview, numel > shown ? ", ..." : "");
}

static int write_outputs(const run_options_t *options,
                         const etr_method_t *method, const char *prefix) {
  if (options->output_dir == NULL) {
    return ETR_EXIT_OK;
  }
  mkdir(options->output_dir, 0777);  // may exist; a failure shows on write
  for (uint32_t k = 0; k < method->num_outputs; ++k) {
    const etr_evalue_t *value = etr_method_output(method, k);
    if (value->tag != ETR_TAG_TENSOR) {
      continue;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/%soutput_%u.npy", options->output_dir,
             prefix, k);
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_error_t status = etr_npy_write_file(path, value->u.as_tensor, &diag);
    if (status == ETR_ERR_NOT_SUPPORTED) {
      fprintf(stderr, "etref: warning: %s; not written\n", diag.message);
    } else if (status != ETR_OK) {
      fprintf(stderr, "etref: error: %s\n", diag.message);
      return ETR_EXIT_USAGE;
    }
  }
  return ETR_EXIT_OK;
}

static void report_comparison(const char *what,
                              const etr_compare_report_t *report) {
  if (!report->shapes_match) {
    printf("%s: FAIL (dtype or shape differs)\n", what);
  } else if (report->mismatches > 0) {
    printf("%s: FAIL (%lld of %lld elements outside tolerance; first at %lld: "
           "%.9g vs expected %.9g; max abs err %.3g)\n",
           what, (long long)report->mismatches, (long long)report->numel,
           (long long)report->first_mismatch, report->first_actual,
           report->first_expected, report->max_abs_error);
  } else {
    printf("%s: PASS (max abs err %.3g, max rel err %.3g)\n", what,
           report->max_abs_error, report->max_rel_error);
  }
}

typedef struct {
  etr_cli_session_t session;
  etr_method_t method;
  // The per-operator table comes from the profiler's tracer (prof/), which
  // records every timed run into buffers sized when the method loads.
  etr_prof_t prof;
  uint32_t timed_runs;  // runs the tracer must hold (runs x test cases)
  // The inputs, set again before every execution: a memory plan may reuse
  // an input's bytes once the input is dead, so a second execution without
  // fresh inputs would read whatever the last kernel left there.
  etr_cli_inputs_t inputs;
  bool timing_started;  // warm-up done: the tracer keeps what follows
  // A replacement memory plan (--plan greedy|best).
  etr_memory_plan_t memory_plan;
  etr_planned_placement_t *placements;
  size_t *pool_sizes;
} run_state_t;

// Sets every input, then executes; warm-up runs first, then timed ones.
static int execute_runs(const run_options_t *options, run_state_t *state) {
  etr_diag_t diag;
  for (long i = 0; i < options->warmup + options->runs; ++i) {
    if (i == options->warmup && !state->timing_started) {
      etr_prof_reset(&state->prof);  // forget the warm-up runs
      state->timing_started = true;
    }
    etr_diag_reset(&diag);
    int code = etr_cli_inputs_set(&state->inputs, &state->method);
    if (code != ETR_EXIT_OK) {
      return code;
    }
    etr_error_t status = etr_method_execute(&state->method, &diag);
    if (status != ETR_OK) {
      return etr_cli_report(&diag, status);
    }
  }
  return ETR_EXIT_OK;
}

static void release_state(run_state_t *state) {
  etr_method_release(&state->method);
  etr_prof_release(&state->prof);
  etr_cli_inputs_release(&state->inputs);
  free(state->placements);
  free(state->pool_sizes);
  etr_cli_close(&state->session);
}

static const char *choose_method(const run_options_t *options,
                                 const etr_program_t *program) {
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
    return name.chars;
  }
  return "forward";
}

// Re-plans method `name` with etref's planner (--plan greedy|best) into
// state->plan; the method then loads with it instead of the program's.
static int replan(const run_options_t *options, run_state_t *state,
                  const char *name, etr_diag_t *diag) {
  etr_method_config_t config;
  etr_method_config_init(&config, &state->session.kernels);
  config.backends = &state->session.backends;
  config.external_data =
      state->session.has_data ? &state->session.data : NULL;
  config.allow_missing = true;
  etr_method_t scratch;
  etr_error_t status =
      etr_method_load(&state->session.program, name, &config, &scratch, diag);
  if (status != ETR_OK) {
    return etr_cli_report(diag, status);
  }
  etr_lifetime_options_t lifetime_options = {
      .granularity = ETR_UNITS_LOGICAL};
  etr_lifetimes_t lifetimes;
  etr_plan_t plan;
  memset(&plan, 0, sizeof(plan));
  status = etr_lifetimes_compute(&scratch, &lifetime_options, &lifetimes,
                                 diag);
  if (status == ETR_OK) {
    status = strcmp(options->plan, "greedy") == 0
                 ? etr_plan_executorch_greedy(&lifetimes,
                                              ETR_PLAN_DEFAULT_ALIGNMENT, 0,
                                              &plan, diag)
                 : etr_plan_best_fit(&lifetimes, ETR_PLAN_DEFAULT_ALIGNMENT,
                                     &plan, diag);
  }
  if (status == ETR_OK) {
    status = etr_plan_check(&lifetimes, &plan, ETR_PLAN_DEFAULT_ALIGNMENT,
                            diag);
  }
  if (status == ETR_OK) {
    free(state->placements);
    free(state->pool_sizes);
    uint32_t pools = scratch.num_planned_buffers > plan.num_pools
                         ? scratch.num_planned_buffers
                         : plan.num_pools;
    state->placements = (etr_planned_placement_t *)calloc(
        lifetimes.num_values + 1, sizeof(etr_planned_placement_t));
    state->pool_sizes = (size_t *)calloc(pools + 1, sizeof(size_t));
    if (state->placements == NULL || state->pool_sizes == NULL) {
      status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                        "out of memory re-planning");
    } else {
      etr_plan_to_memory_plan(&lifetimes, &plan, pools, state->placements,
                              state->pool_sizes, &state->memory_plan);
      if (!options->quiet) {
        printf("memory plan: etref %s, %llu bytes (the program's: %zu)\n",
               options->plan, (unsigned long long)etr_plan_total(&plan),
               etr_method_planned_bytes(&scratch));
      }
    }
  }
  etr_plan_release(&plan);
  etr_lifetimes_release(&lifetimes);
  etr_method_release(&scratch);
  return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(diag, status);
}

static int load_method(const run_options_t *options, run_state_t *state,
                       const char *name, etr_diag_t *diag) {
  bool replanned = options->plan != NULL &&
                   strcmp(options->plan, "program") != 0;
  if (replanned) {
    int code = replan(options, state, name, diag);
    if (code != ETR_EXIT_OK) {
      return code;
    }
  }
  etr_prof_config_t prof_config;
  etr_prof_config_init(&prof_config);
  prof_config.max_runs = state->timed_runs;
  etr_prof_release(&state->prof);
  etr_prof_init(&state->prof, &prof_config);
  etr_method_config_t config;
  etr_method_config_init(&config, &state->session.kernels);
  config.variant = options->variant;
  config.backends = &state->session.backends;
  config.external_data =
      options->data_path != NULL ? &state->session.data : NULL;
  config.tracer = &state->prof.tracer;
  config.seed = options->seed;
  config.memory_plan = replanned ? &state->memory_plan : NULL;
  etr_error_t status = etr_method_load(&state->session.program, name, &config,
                                       &state->method, diag);
  if (status != ETR_OK) {
    return etr_cli_report(diag, status);
  }
  if (options->fuse) {
    etr_fusion_stats_t stats;
    status = etr_opt_fuse_method(&state->method, &stats, diag);
    if (status != ETR_OK) {
      return etr_cli_report(diag, status);
    }
    if (!options->quiet) {
      printf("fused: %u convolution blocks (%u batch norms, %u clamps "
             "absorbed, %u with weights packed at load), %u elementwise "
             "chains (%u ops), %u constant instructions folded, %u max "
             "pools without their unread indices\n",
             stats.groups, stats.batch_norms, stats.clamps, stats.prepacked,
             stats.chains, stats.chain_steps, stats.folded, stats.pruned);
    }
  } else if (options->variant == ETR_KERNELS_OPTIMIZED) {
    uint32_t packed = etr_opt_prepack_method(&state->method);
    if (packed > 0 && !options->quiet) {
      printf("optimized: %u constant weights (convolutions, mm/addmm, "
             "linear) and batch-norm parameters packed at load\n",
             packed);
    }
  }
  status = etr_prof_bind(&state->prof, &state->method, diag);
  return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(diag, status);
}

// Inputs from --input files, or seeded random tensors.
static int set_inputs(const run_options_t *options, run_state_t *state) {
  if (options->num_inputs > 0) {
    return etr_cli_inputs_from_files(&state->inputs, &state->method,
                                     options->inputs, options->num_inputs);
  }
  int code = etr_cli_inputs_random(&state->inputs, &state->method,
                                   options->seed);
  if (code == ETR_EXIT_OK && state->inputs.random && !options->quiet) {
    printf("no --input given: using seeded random inputs (seed %llu; floats "
           "uniform in [-1, 1), integers in [0, 10))\n",
           options->seed);
  }
  return code;
}

static int check_expected(const run_options_t *options, run_state_t *state,
                          etr_diag_t *diag) {
  if (options->num_expected == 0) {
    return ETR_EXIT_OK;
  }
  const etr_method_t *method = &state->method;
  if (options->num_expected > method->num_outputs) {
    fprintf(stderr, "etref: error: %zu --expected files for %u outputs\n",
            options->num_expected, method->num_outputs);
    return ETR_EXIT_INVALID;
  }
  int result = ETR_EXIT_OK;
  for (size_t k = 0; k < options->num_expected; ++k) {
    etr_npy_array_t expected;
    etr_error_t status =
        etr_npy_load_file(options->expected[k], 0, &expected, diag);
    if (status != ETR_OK) {
      return etr_cli_report(diag, status);
    }
    const etr_evalue_t *output = etr_method_output(method, (uint32_t)k);
    char what[64];
    snprintf(what, sizeof(what), "output %zu vs expected", k);
    if (output->tag != ETR_TAG_TENSOR) {
      printf("%s: FAIL (output is %s, not a tensor)\n", what,
             etr_tag_name(output->tag));
      result = ETR_EXIT_MISMATCH;
    } else {
      etr_compare_report_t report;
      etr_compare_tensors(output->u.as_tensor, &expected.tensor,
                          options->rtol, options->atol, &report);
      report_comparison(what, &report);
      if (!etr_compare_passed(&report)) {
        result = ETR_EXIT_MISMATCH;
      }
    }
    etr_npy_array_release(&expected);
  }
  return result;
}

static void print_outputs(const run_options_t *options,
                          const etr_method_t *method) {
  if (options->quiet) {
    return;
  }
  for (uint32_t k = 0; k < method->num_outputs; ++k) {
    print_value(etr_method_output(method, k), "output", k);
  }
}

// Runs every test case of every suite (or of --method's suite).
static int run_bundle(const run_options_t *options, run_state_t *state,
                      etr_diag_t *diag) {
  int result = ETR_EXIT_OK;
  uint32_t suites = etr_bundled_suite_count(&state->session.bundle);
  uint32_t cases_run = 0;
  for (uint32_t s = 0; s < suites; ++s) {
    etr_bundled_suite_t suite;
    etr_error_t status =
        etr_bundled_suite(&state->session.bundle, s, &suite, diag);
    if (status != ETR_OK) {
      return etr_cli_report(diag, status);
    }
    if (options->method != NULL && strcmp(options->method, suite.method_name)) {
      continue;
    }
    etr_method_release(&state->method);
    // The tracer holds every timed run of this suite's cases.
    state->timed_runs = (uint32_t)options->runs * suite.test_cases.length;
    int code = load_method(options, state, suite.method_name, diag);
    if (code != ETR_EXIT_OK) {
      return code;
    }
    for (uint32_t c = 0; c < suite.test_cases.length; ++c) {
      uint32_t num_inputs = 0;
      uint32_t num_expected = 0;
      status = etr_bundled_case_counts(&suite, c, &num_inputs, &num_expected,
                                       diag);
      if (status != ETR_OK) {
        etr_diag_prefix(diag, "test set %u case %u", s, c);
        return etr_cli_report(diag, status);
      }
      code = etr_cli_inputs_from_bundle(&state->inputs, &suite, c);
      if (code != ETR_EXIT_OK) {
        return code;
      }
      code = execute_runs(options, state);
      if (code != ETR_EXIT_OK) {
        return code;
      }
      ++cases_run;
      char prefix[32];
      snprintf(prefix, sizeof(prefix), "case%u_", c);
      code = write_outputs(options, &state->method, prefix);
      if (code != ETR_EXIT_OK) {
        return code;
      }
      for (uint32_t k = 0; k < num_expected; ++k) {
        etr_bundled_value_t expected;
        status = etr_bundled_case_value(&suite, c, true, k, &expected, diag);
        if (status != ETR_OK) {
          return etr_cli_report(diag, status);
        }
        const etr_evalue_t *output = etr_method_output(&state->method, k);
        char what[160];
        snprintf(what, sizeof(what), "method '%s' test case %u output %u",
                 suite.method_name, c, k);
        if (output == NULL || expected.value.tag != ETR_TAG_TENSOR ||
            output->tag != ETR_TAG_TENSOR) {
          bool same = output != NULL && output->tag == expected.value.tag &&
                      memcmp(&output->u, &expected.value.u,
                             sizeof(output->u)) == 0;
          printf("%s: %s\n", what, same ? "PASS" : "FAIL (value differs)");
          result = same ? result : ETR_EXIT_MISMATCH;
          continue;
        }
        etr_compare_report_t report;
        etr_compare_tensors(output->u.as_tensor, &expected.tensor,
                            options->rtol, options->atol, &report);
        report_comparison(what, &report);
        if (!etr_compare_passed(&report)) {
          result = ETR_EXIT_MISMATCH;
        }
      }
    }
  }
  if (cases_run == 0) {
    fprintf(stderr, "etref: error: the bundle has no test set%s%s\n",
            options->method ? " for method " : "",
            options->method ? options->method : "");
    return ETR_EXIT_INVALID;
  }
  printf("%u bundled test case%s run, %s\n", cases_run,
         cases_run == 1 ? "" : "s",
         result == ETR_EXIT_OK ? "all passed" : "some FAILED");
  return result;
}

// The per-operator table from the tracer's timed runs.
static void print_timing(const run_options_t *options, run_state_t *state) {
  etr_prof_stats_t stats;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (etr_prof_stats_compute(&state->prof, NULL, &stats, &diag) != ETR_OK) {
    printf("no timing recorded\n");
    return;
  }
  etr_profile_print_table(&stats, etr_kernel_variant_name(options->variant),
                          stdout);
  etr_prof_stats_release(&stats);
  char drops[256];
  etr_prof_describe_drops(&state->prof, drops, sizeof(drops));
  if (strcmp(drops, "nothing dropped") != 0) {
    printf("(%s)\n", drops);
  }
}

int etr_cli_run(int argc, char **argv) {
  run_options_t options;
  int code = parse_options(argc, argv, &options);
  if (code != 0) {
    return code < 0 ? ETR_EXIT_OK : code;
  }
  static run_state_t state;  // large (registries); one run per process
  memset(&state, 0, sizeof(state));
  etr_diag_t diag;
  etr_diag_reset(&diag);
  state.timed_runs = (uint32_t)options.runs;
  code = etr_cli_open(&state.session, options.program_path, options.data_path,
                      &diag);
  if (code == ETR_EXIT_OK) {
    code = etr_cli_load_delegates(&state.session.backends, options.delegates,
                                  options.num_delegates, options.quiet);
  }
  if (code == ETR_EXIT_OK) {
    // Nothing runs before the verifier accepts the program.
    code = etr_cli_verify(&state.session, options.method, false, stdout);
  }
  if (code == ETR_EXIT_OK && state.session.is_bundle &&
      options.num_inputs == 0) {
    code = run_bundle(&options, &state, &diag);
  } else if (code == ETR_EXIT_OK) {
    code = load_method(&options, &state, choose_method(&options,
                                                       &state.session.program),
                       &diag);
    if (code == ETR_EXIT_OK) {
      code = set_inputs(&options, &state);
    }
    if (code == ETR_EXIT_OK) {
      code = execute_runs(&options, &state);
    }
    if (code == ETR_EXIT_OK) {
      print_outputs(&options, &state.method);
      code = write_outputs(&options, &state.method, "");
    }
    if (code == ETR_EXIT_OK) {
      code = check_expected(&options, &state, &diag);
    }
  }
  if ((code == ETR_EXIT_OK || code == ETR_EXIT_MISMATCH) && !options.quiet) {
    printf("\n");
    print_timing(&options, &state);
  }
  release_state(&state);
  return code;
}
