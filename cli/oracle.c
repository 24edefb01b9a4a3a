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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/oracle.h"
#include "core/platform.h"

void etr_compare_add_note(state_t *state, const char *format,
                          const char *detail) {
  if (state->num_notes < ETR_ORACLE_MAX_NOTES) {
    snprintf(state->notes[state->num_notes++], sizeof(state->notes[0]),
             format, detail);
  }
}

// The command line, with the ETREF_* environment variables that shaped the
// run (a delegate library's fault switch, say) in front.
static void build_command(int argc, char **argv, char *out, size_t capacity) {
  extern char **environ;
  size_t used = 0;
  out[0] = '\0';
  for (char **variable = environ; variable != NULL && *variable != NULL;
       ++variable) {
    if (strncmp(*variable, "ETREF_", 6) == 0 &&
        strncmp(*variable, "ETREF_PYTHON=", 13) != 0 && used < capacity) {
      int n = snprintf(out + used, capacity - used, "%s ", *variable);
      used += n > 0 ? (size_t)n : 0;
    }
  }
  if (used < capacity) {
    int n = snprintf(out + used, capacity - used, "etref");
    used += n > 0 ? (size_t)n : 0;
  }
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

bool etr_compare_same_program(const state_t *state) {
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
  int code = etr_compare_run_candidate(options, state, index, test_set, values);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_oracle_align(
      values, state->has_map ? &state->map : NULL,
      etr_compare_same_program(state),
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
      if (options->kind == CANDIDATE_OUTPUTS && options->all_test_sets &&
          count > 1) {
        // .npy outputs are one execution's: judging every test set against
        // them would call all but one wrong.
        fprintf(stderr, "etref: error: outputs: files hold one execution's "
                        "outputs and the bundle has %u test sets: name the "
                        "one that produced them with --test-set K\n",
                count);
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

// ---- setup and the command --------------------------------------------------

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
      .candidate_kind = etr_compare_kind_names[options->kind],
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
  int code = etr_compare_load_policy(options, state);
  if (code == ETR_EXIT_OK) {
    code = etr_compare_open_sessions(options, state);
  }
  if (code != ETR_EXIT_OK) {
    return code;
  }
  etr_cli_session_t *reference_session = state->separate_reference
                                             ? &state->reference_session
                                             : &state->candidate_session;
  const char *method = choose_method(options, &reference_session->program);
  code = etr_compare_load_map(options, state, method);
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
    code = etr_compare_collect_output_files(options, state);
  }
  if (code == ETR_EXIT_OK && options->kind == CANDIDATE_ETDUMP) {
    code = etr_compare_load_etdump(options, state);
  }
  if (code != ETR_EXIT_OK) {
    return code;
  }
  bool same = etr_compare_same_program(state);
  if (!same && !state->has_map && options->intermediates) {
    etr_compare_add_note(state,
             "The candidate ran %s, not the reference program, and no --map "
             "says how their values correspond: only program outputs are "
             "compared.",
             options->program);
  }
  if (options->kind == CANDIDATE_OUTPUTS) {
    etr_compare_add_note(state, "%s",
                         "The candidate gave program outputs only: no op "
                          "is compared and a divergence cannot be located.");
  }
  if (options->kind == CANDIDATE_DELEGATE) {
    etr_compare_add_note(state,
                         "Candidate: %s loaded for PROGRAM's delegates; the "
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
  int code = etr_compare_parse_options(argc, argv, &options);
  if (code != 0) {
    return code < 0 ? ETR_EXIT_OK : code;
  }
  static state_t state;  // large (registries, cases); one per process
  memset(&state, 0, sizeof(state));
  code = compare(&options, &state, argc, argv);
  release(&state);
  return code;
}
