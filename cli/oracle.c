// SPDX-License-Identifier: Apache-2.0
//
// `etref compare`: the correctness oracle (prof/oracle/). Runs PROGRAM's
// method with the reference kernels and judges a candidate's values op by
// op: etref's optimized kernels, a delegate library, output .npy files, or
// an ETDump with intermediate outputs written by ExecuTorch's runtime.
//
//   etref compare PROGRAM.pte|.bpte --candidate KIND [options]
//
// Exit codes: 0 the candidate agrees, 3 it diverges (or nothing could be
// compared), 1 usage errors and unreadable files, 2 invalid programs,
// inputs, policies, maps, ETDumps or delegate libraries. See README.md,
// "etref compare", for the contract shared with the ETDump and map
// producers.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/inputs.h"
#include "core/file.h"
#include "core/method.h"
#include "core/platform.h"
#include "delegates/loader.h"
#include "prof/etdump_reader.h"
#include "prof/oracle/align.h"
#include "prof/oracle/capture.h"
#include "prof/oracle/oracle.h"
#include "prof/oracle/policy.h"
#include "prof/oracle/report.h"
#include "prof/oracle/sources.h"
#include "prof/oracle/values.h"

#define MAX_FILES 64
#define MAX_CASES 256

static const char kCompareUsage[] =
    "usage: etref compare PROGRAM --candidate KIND [options]\n"
    "\n"
    "Runs PROGRAM (.pte, or .bpte) with etref's reference kernels and judges\n"
    "a candidate op by op under a stated tolerance policy: max abs / rel\n"
    "error, ULP distance, cosine, SQNR, mismatch count, a verdict per op\n"
    "(agree, propagated, diverge) and the first op where it diverges.\n"
    "\n"
    "candidates (--candidate KIND):\n"
    "  optimized              etref's optimized kernels on PROGRAM\n"
    "  delegate:LIB.so        PROGRAM with the backends of a delegate\n"
    "                         library (core/backend.h's ABI); give the same\n"
    "                         model without delegation as\n"
    "                         --reference-program, with --map for\n"
    "                         op-level alignment\n"
    "  outputs:DIR|F1,F2,...  program outputs as .npy: DIR/*output_<k>.npy\n"
    "                         or a comma-separated list in output order\n"
    "  etdump:FILE.etdp       an ETDump with debug events (ExecuTorch's\n"
    "                         runtime, intermediate outputs logged) and its\n"
    "                         debug buffer (--debug-buffer, default\n"
    "                         FILE.bin beside it)\n"
    "\n"
    "options:\n"
    "  --reference-program REF.pte|.bpte  what the reference runs (default\n"
    "                         PROGRAM); instructions align by key only when\n"
    "                         it is PROGRAM\n"
    "  --map MAP.json         candidate-to-reference alignment (format\n"
    "                         etref-oracle-map, README)\n"
    "  --policy POLICY.json   tolerance overrides (format\n"
    "                         etref-oracle-policy, README)\n"
    "  --input FILE.npy       an input, in order; repeat per input\n"
    "  --bundled              inputs from the .bpte's test sets\n"
    "  --test-set K|all       which test set (default all)\n"
    "  --seed S               seeded random inputs otherwise (default 0)\n"
    "  --method NAME          method (default forward, else the first)\n"
    "  --data FILE.ptd        external data for the programs\n"
    "  --delegate LIB.so      a delegate library both sides load\n"
    "  --debug-buffer FILE    the ETDump's debug buffer\n"
    "  --intermediates on|off judge every op (default) or outputs only\n"
    "  --report DIR           write DIR/compare.html and DIR/compare.md\n"
    "  --json FILE            write the results as JSON (schema\n"
    "                         etref-compare, version 1)\n"
    "  --quiet                print only the verdict line\n"
    "\n"
    "exit codes: 0 agree, 3 diverge, 1 usage or unreadable file, 2 invalid\n"
    "program, input, policy, map, ETDump or delegate library\n";

typedef enum {
  CANDIDATE_NONE = 0,
  CANDIDATE_OPTIMIZED,
  CANDIDATE_DELEGATE,
  CANDIDATE_OUTPUTS,
  CANDIDATE_ETDUMP,
} candidate_kind_t;

static const char *const kKindNames[] = {"", "optimized", "delegate",
                                         "outputs", "etdump"};

typedef struct {
  const char *program;
  const char *reference_program;
  const char *data;
  const char *method;
  const char *candidate_text;
  candidate_kind_t kind;
  const char *candidate_source;
  const char *map;
  const char *policy;
  const char *report;
  const char *json;
  const char *debug_buffer;
  const char *inputs[MAX_FILES];
  size_t num_inputs;
  const char *delegates[MAX_FILES];
  size_t num_delegates;
  bool bundled;
  bool all_test_sets;
  long test_set;
  unsigned long long seed;
  bool intermediates;
  bool quiet;
} options_t;

static int usage_error(const char *format, const char *detail) {
  fprintf(stderr, "etref compare: ");
  fprintf(stderr, format, detail);
  fprintf(stderr, "\n\n%s", kCompareUsage);
  return ETR_EXIT_USAGE;
}

static int parse_candidate(const char *text, options_t *options) {
  options->candidate_text = text;
  static const struct {
    const char *prefix;
    candidate_kind_t kind;
  } kPrefixes[] = {{"delegate:", CANDIDATE_DELEGATE},
                   {"outputs:", CANDIDATE_OUTPUTS},
                   {"etdump:", CANDIDATE_ETDUMP}};
  if (strcmp(text, "optimized") == 0) {
    options->kind = CANDIDATE_OPTIMIZED;
    options->candidate_source = "etref optimized kernels";
    return 0;
  }
  for (size_t i = 0; i < sizeof(kPrefixes) / sizeof(kPrefixes[0]); ++i) {
    size_t n = strlen(kPrefixes[i].prefix);
    if (strncmp(text, kPrefixes[i].prefix, n) == 0) {
      if (text[n] == '\0') {
        return usage_error("--candidate %s needs a path", text);
      }
      options->kind = kPrefixes[i].kind;
      options->candidate_source = text + n;
      return 0;
    }
  }
  return usage_error("--candidate must be optimized, delegate:LIB.so, "
                     "outputs:DIR_OR_FILES or etdump:FILE.etdp, not '%s'",
                     text);
}

static int parse_options(int argc, char **argv, options_t *options) {
  memset(options, 0, sizeof(*options));
  options->intermediates = true;
  options->all_test_sets = true;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(kCompareUsage, stdout);
      return -1;
    }
    if (strcmp(arg, "--bundled") == 0) {
      options->bundled = true;
      continue;
    }
    if (strcmp(arg, "--quiet") == 0) {
      options->quiet = true;
      continue;
    }
    if (arg[0] == '-' && arg[1] == '-') {
      if (value == NULL) {
        return usage_error("option %s needs a value", arg);
      }
      ++i;
      if (strcmp(arg, "--candidate") == 0) {
        int code = parse_candidate(value, options);
        if (code != 0) {
          return code;
        }
      } else if (strcmp(arg, "--reference-program") == 0) {
        options->reference_program = value;
      } else if (strcmp(arg, "--map") == 0) {
        options->map = value;
      } else if (strcmp(arg, "--policy") == 0) {
        options->policy = value;
      } else if (strcmp(arg, "--report") == 0) {
        options->report = value;
      } else if (strcmp(arg, "--json") == 0) {
        options->json = value;
      } else if (strcmp(arg, "--data") == 0) {
        options->data = value;
      } else if (strcmp(arg, "--method") == 0) {
        options->method = value;
      } else if (strcmp(arg, "--debug-buffer") == 0) {
        options->debug_buffer = value;
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
      } else if (strcmp(arg, "--test-set") == 0) {
        if (strcmp(value, "all") == 0) {
          options->all_test_sets = true;
        } else {
          char *end = NULL;
          errno = 0;
          long k = strtol(value, &end, 10);
          if (errno != 0 || end == value || *end != '\0' || k < 0 ||
              k > 1000000) {
            return usage_error("--test-set needs a test set index or 'all', "
                               "not '%s'",
                               value);
          }
          options->all_test_sets = false;
          options->test_set = k;
        }
      } else if (strcmp(arg, "--seed") == 0) {
        char *end = NULL;
        errno = 0;
        options->seed = strtoull(value, &end, 10);
        if (errno != 0 || end == value || *end != '\0' || value[0] == '-') {
          return usage_error("--seed needs a non-negative integer, not '%s'",
                             value);
        }
      } else if (strcmp(arg, "--intermediates") == 0) {
        if (strcmp(value, "on") == 0) {
          options->intermediates = true;
        } else if (strcmp(value, "off") == 0) {
          options->intermediates = false;
        } else {
          return usage_error("--intermediates must be on or off, not '%s'",
                             value);
        }
      } else {
        return usage_error("unknown option '%s'", arg);
      }
      continue;
    }
    if (options->program != NULL) {
      return usage_error("unexpected argument '%s' (one PROGRAM only)", arg);
    }
    options->program = arg;
  }
  if (options->program == NULL) {
    return usage_error("%s", "missing PROGRAM");
  }
  if (options->kind == CANDIDATE_NONE) {
    return usage_error("%s", "missing --candidate");
  }
  if (options->bundled && options->num_inputs > 0) {
    return usage_error("%s", "--bundled and --input exclude each other");
  }
  if (options->debug_buffer != NULL && options->kind != CANDIDATE_ETDUMP) {
    return usage_error("%s", "--debug-buffer goes with --candidate etdump:");
  }
  return 0;
}

// ---- state --------------------------------------------------------------------

typedef struct {
  etr_cli_session_t candidate_session;  // PROGRAM
  etr_cli_session_t reference_session;  // --reference-program
  bool separate_reference;
  etr_backend_registry_t reference_backends;
  etr_backend_registry_t candidate_backends;
  etr_oracle_policy_t policy;
  etr_oracle_map_t map;
  bool has_map;
  etr_method_t reference;
  etr_method_t candidate;
  bool has_candidate_method;
  etr_oracle_capture_t capture;
  etr_etdump_t etdump;
  void *etdump_bytes;
  void *debug_buffer;
  size_t debug_buffer_size;
  const char *debug_buffer_path;
  char *output_files[MAX_FILES];  // outputs: candidate files (owned)
  size_t num_output_files;
  etr_cli_inputs_t inputs;
  etr_oracle_case_t cases[MAX_CASES];
  etr_oracle_result_t results[MAX_CASES];
  etr_oracle_values_t values[MAX_CASES];
  etr_oracle_alignment_t alignments[MAX_CASES];
  uint32_t num_cases;
  char command[8192];
  char inputs_text[512];
  char notes[ETR_ORACLE_MAX_NOTES][512];
  uint32_t num_notes;
} state_t;

static void add_note(state_t *state, const char *format, const char *detail) {
  if (state->num_notes < ETR_ORACLE_MAX_NOTES) {
    snprintf(state->notes[state->num_notes++], sizeof(state->notes[0]),
             format, detail);
  }
}

static void build_command(int argc, char **argv, char *out, size_t capacity) {
  size_t used = (size_t)snprintf(out, capacity, "etref");
  for (int i = 0; i < argc && used < capacity; ++i) {
    bool quote = strpbrk(argv[i], " \t\"'$") != NULL;
    int n = snprintf(out + used, capacity - used, quote ? " '%s'" : " %s",
                     argv[i]);
    used += n > 0 ? (size_t)n : 0;
  }
}

static const char *choose_method(const options_t *options,
                                 const etr_program_t *program) {
  if (options->method != NULL) {
    return options->method;
  }
  etr_fb_string_t name;
  uint32_t count = etr_program_method_count(program);
  for (uint32_t i = 0; i < count; ++i) {
    if (etr_program_method_name(program, i, &name, NULL) == ETR_OK &&
        strcmp(name.chars, "forward") == 0) {
      return "forward";
    }
  }
  if (count > 0 && etr_program_method_name(program, 0, &name, NULL) == ETR_OK) {
    return name.chars;
  }
  return "forward";
}

static int read_file(const char *path, void **bytes, size_t *size) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_read_file(path, 0, bytes, size, &diag);
  return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(&diag, status);
}

static int load_policy(const options_t *options, state_t *state) {
  etr_oracle_policy_defaults(&state->policy);
  if (options->policy == NULL) {
    return ETR_EXIT_OK;
  }
  void *bytes = NULL;
  size_t size = 0;
  int code = read_file(options->policy, &bytes, &size);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_oracle_policy_apply_json(
      &state->policy, (const char *)bytes, size, options->policy, &diag);
  free(bytes);
  return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(&diag, status);
}

static int load_map(const options_t *options, state_t *state,
                    const char *method) {
  if (options->map == NULL) {
    return ETR_EXIT_OK;
  }
  void *bytes = NULL;
  size_t size = 0;
  int code = read_file(options->map, &bytes, &size);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_oracle_map_parse((const char *)bytes, size,
                                            options->map, &state->map, &diag);
  free(bytes);
  if (status != ETR_OK) {
    return etr_cli_report(&diag, status);
  }
  state->has_map = true;
  if (state->map.method != NULL && strcmp(state->map.method, method) != 0) {
    fprintf(stderr,
            "etref: error: map %s is for method '%s', not '%s'\n",
            options->map, state->map.method, method);
    return ETR_EXIT_INVALID;
  }
  return ETR_EXIT_OK;
}

// outputs:DIR (files *output_<k>.npy) or outputs:F1,F2,...
static int collect_output_files(const options_t *options, state_t *state) {
  const char *source = options->candidate_source;
  struct stat info;
  if (stat(source, &info) == 0 && S_ISDIR(info.st_mode)) {
    for (size_t k = 0; k < MAX_FILES; ++k) {
      char suffix[32];
      snprintf(suffix, sizeof(suffix), "output_%zu.npy", k);
      // Prefer DIR/output_<k>.npy, else any single *output_<k>.npy.
      char path[4096];
      snprintf(path, sizeof(path), "%s/%s", source, suffix);
      if (stat(path, &info) != 0) {
        char pattern_path[4096];
        bool found = false;
        static const char *const kPrefixes[] = {"executorch_", "candidate_",
                                                "eager_"};
        for (size_t p = 0; p < 3 && !found; ++p) {
          snprintf(pattern_path, sizeof(pattern_path), "%s/%s%s", source,
                   kPrefixes[p], suffix);
          found = stat(pattern_path, &info) == 0;
        }
        if (!found) {
          break;
        }
        snprintf(path, sizeof(path), "%s", pattern_path);
      }
      state->output_files[state->num_output_files++] = strdup(path);
    }
    if (state->num_output_files == 0) {
      fprintf(stderr,
              "etref: error: %s holds no output_0.npy (nor "
              "executorch_/candidate_/eager_output_0.npy)\n",
              source);
      return ETR_EXIT_USAGE;
    }
    return ETR_EXIT_OK;
  }
  const char *start = source;
  while (*start != '\0') {
    const char *comma = strchr(start, ',');
    size_t length = comma != NULL ? (size_t)(comma - start) : strlen(start);
    if (length == 0 || state->num_output_files == MAX_FILES) {
      return usage_error("outputs: needs a directory or comma-separated "
                         ".npy files (at most 64), not '%s'",
                         source);
    }
    state->output_files[state->num_output_files++] = strndup(start, length);
    start += length + (comma != NULL ? 1 : 0);
  }
  return ETR_EXIT_OK;
}

static int load_etdump(const options_t *options, state_t *state) {
  size_t size = 0;
  int code = read_file(options->candidate_source, &state->etdump_bytes, &size);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_etdump_read((const uint8_t *)state->etdump_bytes,
                                       size, &state->etdump, &diag);
  if (status != ETR_OK) {
    etr_diag_prefix(&diag, "%s", options->candidate_source);
    return etr_cli_report(&diag, status);
  }
  if (etr_oracle_etdump_debug_blocks(&state->etdump) == 0) {
    fprintf(stderr,
            "etref: error: %s has no debug events (log intermediate outputs "
            "or at least program outputs when writing it: ExecuTorch's "
            "EventTracerDebugLogLevel, etref profile --debug-buffer)\n",
            options->candidate_source);
    return ETR_EXIT_INVALID;
  }
  static char default_buffer[4096];
  const char *buffer = options->debug_buffer;
  if (buffer == NULL) {
    const char *source = options->candidate_source;
    size_t length = strlen(source);
    const char *dot = strrchr(source, '.');
    const char *slash = strrchr(source, '/');
    if (dot != NULL && (slash == NULL || dot > slash)) {
      length = (size_t)(dot - source);
    }
    snprintf(default_buffer, sizeof(default_buffer), "%.*s.bin", (int)length,
             source);
    struct stat info;
    if (stat(default_buffer, &info) == 0) {
      buffer = default_buffer;
    }
  }
  bool needs_buffer = state->etdump.num_tensors > 0;
  if (buffer == NULL) {
    if (needs_buffer) {
      fprintf(stderr,
              "etref: error: %s logs tensors, whose bytes are in a separate "
              "debug buffer: give it with --debug-buffer FILE (looked for "
              "%s)\n",
              options->candidate_source, default_buffer);
      return ETR_EXIT_USAGE;
    }
    return ETR_EXIT_OK;
  }
  state->debug_buffer_path = buffer;
  return read_file(buffer, &state->debug_buffer, &state->debug_buffer_size);
}

// True when the two sessions hold the same program bytes.
static bool same_program(const state_t *state) {
  if (!state->separate_reference) {
    return true;
  }
  const etr_program_t *a = &state->candidate_session.program;
  const etr_program_t *b = &state->reference_session.program;
  return a->size == b->size && memcmp(a->data, b->data, a->size) == 0;
}

static int load_method(const etr_program_t *program, const char *name,
                       etr_cli_session_t *session,
                       const etr_backend_registry_t *backends,
                       etr_kernel_variant_t variant,
                       const etr_event_tracer_t *tracer,
                       unsigned long long seed, etr_method_t *method) {
  etr_method_config_t config;
  etr_method_config_init(&config, &session->kernels);
  config.variant = variant;
  config.backends = backends;
  config.external_data = session->has_data ? &session->data : NULL;
  config.tracer = tracer;
  config.seed = seed;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_method_load(program, name, &config, method, &diag);
  return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(&diag, status);
}

static int verify(etr_cli_session_t *session,
                  const etr_backend_registry_t *backends, const char *method) {
  // etr_cli_verify reads the session's registry: lend it these backends.
  etr_backend_registry_t saved = session->backends;
  session->backends = *backends;
  int code = etr_cli_verify(session, method, false, stdout);
  session->backends = saved;
  return code;
}

// ---- one comparison ----------------------------------------------------------

static int run_candidate(const options_t *options, state_t *state,
                         uint32_t index, int32_t test_set,
                         etr_oracle_values_t *values) {
  etr_oracle_case_t *kase = &state->cases[index];
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (options->kind == CANDIDATE_OPTIMIZED ||
      options->kind == CANDIDATE_DELEGATE) {
    etr_oracle_capture_init(&state->capture, values, options->intermediates);
    etr_error_t status =
        etr_oracle_capture_bind(&state->capture, &state->candidate, &diag);
    if (status != ETR_OK) {
      return etr_cli_report(&diag, status);
    }
    // The tracer struct moved into place after the method loaded.
    state->candidate.config.tracer = &state->capture.tracer;
    int code = etr_cli_inputs_set(&state->inputs, &state->candidate);
    if (code != ETR_EXIT_OK) {
      return code;
    }
    uint64_t start = etr_now_ns();
    status = etr_method_execute(&state->candidate, &diag);
    kase->candidate_ns = etr_now_ns() - start;
    state->candidate.config.tracer = NULL;
    if (status != ETR_OK) {
      // A candidate that fails to run diverges: judged with what it wrote.
      snprintf(kase->candidate_failure, sizeof(kase->candidate_failure),
               "%s [%s]", diag.message, etr_error_name(status));
      values->failed = true;
    }
    etr_diag_t capture_diag;
    etr_diag_reset(&capture_diag);
    status = etr_oracle_capture_status(&state->capture, &capture_diag);
    etr_oracle_capture_release(&state->capture);
    return status == ETR_OK ? ETR_EXIT_OK
                            : etr_cli_report(&capture_diag, status);
  }
  if (options->kind == CANDIDATE_OUTPUTS) {
    etr_error_t status = etr_oracle_values_from_npy(
        (const char *const *)state->output_files, state->num_output_files,
        values, &diag);
    return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(&diag, status);
  }
  int32_t block = etr_oracle_etdump_block(&state->etdump, test_set, index);
  if (block < 0) {
    fprintf(stderr,
            "etref: error: %s has no block with debug events for %s (it "
            "holds %u)\n",
            options->candidate_source, kase->name,
            etr_oracle_etdump_debug_blocks(&state->etdump));
    return ETR_EXIT_INVALID;
  }
  etr_error_t status = etr_oracle_values_from_etdump(
      &state->etdump, (uint32_t)block, (const uint8_t *)state->debug_buffer,
      state->debug_buffer_size, values, &diag);
  if (status != ETR_OK) {
    etr_diag_prefix(&diag, "%s", options->candidate_source);
    return etr_cli_report(&diag, status);
  }
  return ETR_EXIT_OK;
}

static int compare_case(const options_t *options, state_t *state,
                        int32_t test_set, const char *name) {
  if (state->num_cases == MAX_CASES) {
    fprintf(stderr, "etref: error: at most %d test sets\n", MAX_CASES);
    return ETR_EXIT_USAGE;
  }
  uint32_t index = state->num_cases;
  etr_oracle_case_t *kase = &state->cases[index];
  memset(kase, 0, sizeof(*kase));
  snprintf(kase->name, sizeof(kase->name), "%s", name);
  kase->bundled_test_set = test_set;
  etr_oracle_values_t *values = &state->values[index];
  etr_oracle_values_init(values, 0);
  ++state->num_cases;  // released on every path from here
  kase->candidate = values;
  kase->alignment = &state->alignments[index];
  kase->result = &state->results[index];
  int code = run_candidate(options, state, index, test_set, values);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_oracle_align(
      values, state->has_map ? &state->map : NULL, same_program(state),
      options->intermediates, &state->alignments[index], &diag);
  if (status != ETR_OK) {
    return etr_cli_report(&diag, status);
  }
  code = etr_cli_inputs_set(&state->inputs, &state->reference);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  etr_oracle_judge_config_t config = {
      .policy = &state->policy,
      .alignment = &state->alignments[index],
      .intermediates = options->intermediates,
  };
  status = etr_oracle_judge(&state->reference, &config, &state->results[index],
                            &diag);
  if (status != ETR_OK) {
    return etr_cli_report(&diag, status);
  }
  return ETR_EXIT_OK;
}

// ---- inputs and cases -----------------------------------------------------

static const etr_bundled_program_t *bundle_of(state_t *state) {
  if (state->candidate_session.is_bundle) {
    return &state->candidate_session.bundle;
  }
  if (state->separate_reference && state->reference_session.is_bundle) {
    return &state->reference_session.bundle;
  }
  return NULL;
}

static int run_cases(const options_t *options, state_t *state,
                     const char *method) {
  if (options->num_inputs > 0) {
    int code = etr_cli_inputs_from_files(&state->inputs, &state->reference,
                                         options->inputs,
                                         options->num_inputs);
    if (code != ETR_EXIT_OK) {
      return code;
    }
    snprintf(state->inputs_text, sizeof(state->inputs_text),
             "%zu .npy file%s (--input)", options->num_inputs,
             options->num_inputs == 1 ? "" : "s");
    return compare_case(options, state, -1, "inputs from --input");
  }
  if (options->bundled) {
    const etr_bundled_program_t *bundle = bundle_of(state);
    if (bundle == NULL) {
      fprintf(stderr, "etref: error: --bundled needs PROGRAM or the "
                      "reference program to be a .bpte bundled program\n");
      return ETR_EXIT_USAGE;
    }
    etr_diag_t diag;
    etr_diag_reset(&diag);
    uint32_t suites = etr_bundled_suite_count(bundle);
    for (uint32_t s = 0; s < suites; ++s) {
      etr_bundled_suite_t suite;
      etr_error_t status = etr_bundled_suite(bundle, s, &suite, &diag);
      if (status != ETR_OK) {
        return etr_cli_report(&diag, status);
      }
      if (strcmp(suite.method_name, method) != 0) {
        continue;
      }
      uint32_t count = suite.test_cases.length;
      if (!options->all_test_sets && options->test_set >= (long)count) {
        fprintf(stderr, "etref: error: --test-set %ld: the bundle has %u "
                        "test sets for method '%s'\n",
                options->test_set, count, method);
        return ETR_EXIT_USAGE;
      }
      if (options->all_test_sets) {
        snprintf(state->inputs_text, sizeof(state->inputs_text),
                 "all %u bundled test sets", count);
      } else {
        snprintf(state->inputs_text, sizeof(state->inputs_text),
                 "bundled test set %ld of %u", options->test_set, count);
      }
      for (uint32_t c = 0; c < count; ++c) {
        if (!options->all_test_sets && (long)c != options->test_set) {
          continue;
        }
        etr_cli_inputs_release(&state->inputs);
        int code = etr_cli_inputs_from_bundle(&state->inputs, &suite, c);
        if (code != ETR_EXIT_OK) {
          return code;
        }
        char name[64];
        snprintf(name, sizeof(name), "bundled test set %u", c);
        code = compare_case(options, state, (int32_t)c, name);
        if (code != ETR_EXIT_OK) {
          return code;
        }
      }
      return ETR_EXIT_OK;
    }
    fprintf(stderr, "etref: error: the bundle has no test sets for method "
                    "'%s'\n", method);
    return ETR_EXIT_INVALID;
  }
  bool has_tensor_inputs = false;
  for (uint32_t k = 0; k < state->reference.num_inputs; ++k) {
    has_tensor_inputs =
        has_tensor_inputs ||
        etr_method_input(&state->reference, k)->tag == ETR_TAG_TENSOR;
  }
  if (has_tensor_inputs && (options->kind == CANDIDATE_OUTPUTS ||
                            options->kind == CANDIDATE_ETDUMP)) {
    fprintf(stderr,
            "etref: error: the candidate's values come from files: give the "
            "inputs that produced them with --input or --bundled (random "
            "inputs would compare different computations)\n");
    return ETR_EXIT_USAGE;
  }
  int code = etr_cli_inputs_random(&state->inputs, &state->reference,
                                   options->seed);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  snprintf(state->inputs_text, sizeof(state->inputs_text),
           "seeded random inputs (seed %llu; floats uniform in [-1, 1), "
           "integers in [0, 10))",
           options->seed);
  char name[64];
  snprintf(name, sizeof(name), "seeded random inputs (seed %llu)",
           options->seed);
  return compare_case(options, state, -1, name);
}

// ---- setup and the command ------------------------------------------------------

static int open_sessions(const options_t *options, state_t *state) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  int code = etr_cli_open(&state->candidate_session, options->program,
                          options->data, &diag);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  code = etr_cli_load_delegates(&state->candidate_session.backends,
                                options->delegates, options->num_delegates,
                                options->quiet);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  state->reference_backends = state->candidate_session.backends;
  state->candidate_backends = state->candidate_session.backends;
  if (options->reference_program != NULL) {
    etr_diag_reset(&diag);
    code = etr_cli_open(&state->reference_session,
                        options->reference_program, options->data, &diag);
    if (code != ETR_EXIT_OK) {
      return code;
    }
    state->separate_reference = true;
  }
  if (options->kind == CANDIDATE_DELEGATE) {
    const char *library = options->candidate_source;
    code = etr_cli_load_delegates(&state->candidate_backends, &library, 1,
                                  options->quiet);
  }
  return code;
}

static void release(state_t *state) {
  for (uint32_t c = 0; c < state->num_cases; ++c) {
    etr_oracle_result_release(&state->results[c]);
    etr_oracle_alignment_release(&state->alignments[c]);
    etr_oracle_values_release(&state->values[c]);
  }
  etr_method_release(&state->candidate);
  etr_method_release(&state->reference);
  etr_cli_inputs_release(&state->inputs);
  etr_oracle_map_release(&state->map);
  etr_etdump_release(&state->etdump);
  free(state->etdump_bytes);
  free(state->debug_buffer);
  for (size_t i = 0; i < state->num_output_files; ++i) {
    free(state->output_files[i]);
  }
  if (state->separate_reference) {
    etr_cli_close(&state->reference_session);
  }
  etr_cli_close(&state->candidate_session);
}

static int write_outputs(const options_t *options, state_t *state,
                         const char *method, int exit_code) {
  etr_oracle_report_t report = {
      .command = state->command,
      .program = options->program,
      .reference_program = options->reference_program != NULL
                               ? options->reference_program
                               : options->program,
      .method = method,
      .candidate_kind = kKindNames[options->kind],
      .candidate_source = options->candidate_source,
      .map_path = options->map,
      .inputs = state->inputs_text,
      .map = state->has_map ? &state->map : NULL,
      .policy = &state->policy,
      .intermediates = options->intermediates,
      .cases = state->cases,
      .num_cases = state->num_cases,
      .num_notes = state->num_notes,
      .verdict = etr_oracle_report_verdict(state->cases, state->num_cases),
      .exit_code = exit_code,
  };
  for (uint32_t n = 0; n < state->num_notes; ++n) {
    report.notes[n] = state->notes[n];
  }
  if (!options->quiet) {
    etr_oracle_print_summary(&report, stdout);
  } else {
    printf("verdict: %s (exit %d)\n",
           etr_oracle_verdict_name(report.verdict), exit_code);
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  if (options->json != NULL) {
    etr_error_t status = etr_oracle_write_json(&report, options->json, &diag);
    if (status != ETR_OK) {
      return etr_cli_report(&diag, status);
    }
  }
  if (options->report != NULL) {
    etr_error_t status =
        etr_oracle_write_report(&report, options->report, &diag);
    if (status != ETR_OK) {
      return etr_cli_report(&diag, status);
    }
    if (!options->quiet) {
      printf("report: %s/compare.html (and compare.md)\n", options->report);
    }
  }
  return ETR_EXIT_OK;
}

static int compare(const options_t *options, state_t *state, int argc,
                   char **argv) {
  build_command(argc, argv, state->command, sizeof(state->command));
  int code = load_policy(options, state);
  if (code == ETR_EXIT_OK) {
    code = open_sessions(options, state);
  }
  if (code != ETR_EXIT_OK) {
    return code;
  }
  etr_cli_session_t *reference_session = state->separate_reference
                                             ? &state->reference_session
                                             : &state->candidate_session;
  const char *method = choose_method(options, &reference_session->program);
  code = load_map(options, state, method);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  // Nothing runs before the verifier accepts it: the reference program,
  // and PROGRAM when etref runs it as the candidate.
  bool runs_candidate = options->kind == CANDIDATE_OPTIMIZED ||
                        options->kind == CANDIDATE_DELEGATE;
  code = verify(reference_session, &state->reference_backends, method);
  if (code != ETR_EXIT_OK && options->kind == CANDIDATE_DELEGATE &&
      !state->separate_reference) {
    fprintf(stderr,
            "etref: hint: the reference side runs PROGRAM with etref's own "
            "backends; give the model exported without delegation as "
            "--reference-program (and a --map)\n");
  }
  if (code == ETR_EXIT_OK && runs_candidate) {
    code = verify(&state->candidate_session, &state->candidate_backends,
                  method);
  }
  if (code != ETR_EXIT_OK) {
    return code;
  }
  code = load_method(&reference_session->program, method, reference_session,
                     &state->reference_backends, ETR_KERNELS_REFERENCE, NULL,
                     options->seed, &state->reference);
  if (code == ETR_EXIT_OK && runs_candidate) {
    // The tracer is attached per run (capture.h); its hooks only run then.
    code = load_method(&state->candidate_session.program, method,
                       &state->candidate_session, &state->candidate_backends,
                       options->kind == CANDIDATE_OPTIMIZED
                           ? ETR_KERNELS_OPTIMIZED
                           : ETR_KERNELS_REFERENCE,
                       NULL, options->seed, &state->candidate);
    state->has_candidate_method = code == ETR_EXIT_OK;
  }
  if (code == ETR_EXIT_OK && options->kind == CANDIDATE_OUTPUTS) {
    code = collect_output_files(options, state);
  }
  if (code == ETR_EXIT_OK && options->kind == CANDIDATE_ETDUMP) {
    code = load_etdump(options, state);
  }
  if (code != ETR_EXIT_OK) {
    return code;
  }
  bool same = same_program(state);
  if (!same && !state->has_map && options->intermediates) {
    add_note(state,
             "The candidate ran %s, not the reference program, and no --map "
             "says how their values correspond: only program outputs are "
             "compared.",
             options->program);
  }
  if (options->kind == CANDIDATE_OUTPUTS) {
    add_note(state, "%s", "The candidate gave program outputs only: no op "
                          "is compared and a divergence cannot be located.");
  }
  if (options->kind == CANDIDATE_DELEGATE) {
    add_note(state, "Candidate: %s loaded for PROGRAM's delegates; the "
                    "rest of PROGRAM runs etref's reference kernels.",
             options->candidate_source);
  }
  code = run_cases(options, state, method);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  etr_oracle_verdict_t verdict =
      etr_oracle_report_verdict(state->cases, state->num_cases);
  int exit_code =
      verdict == ETR_ORACLE_AGREE ? ETR_EXIT_OK : ETR_EXIT_MISMATCH;
  code = write_outputs(options, state, method, exit_code);
  return code != ETR_EXIT_OK ? code : exit_code;
}

int etr_cli_compare(int argc, char **argv) {
  options_t options;
  int code = parse_options(argc, argv, &options);
  if (code != 0) {
    return code < 0 ? ETR_EXIT_OK : code;
  }
  static state_t state;  // large (registries, cases); one per process
  memset(&state, 0, sizeof(state));
  code = compare(&options, &state, argc, argv);
  release(&state);
  return code;
}
