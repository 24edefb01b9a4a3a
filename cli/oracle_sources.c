// SPDX-License-Identifier: Apache-2.0
//
// What `etref compare` reads (see oracle.h): the sessions and delegate
// libraries, the policy, the map, and the candidate's values.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/oracle.h"
#include "core/file.h"
#include "core/platform.h"
#include "prof/oracle/sources.h"

static int read_file(const char *path, void **bytes, size_t *size) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_read_file(path, 0, bytes, size, &diag);
  return status == ETR_OK ? ETR_EXIT_OK : etr_cli_report(&diag, status);
}

int etr_compare_load_policy(const options_t *options, state_t *state) {
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

int etr_compare_load_map(const options_t *options, state_t *state,
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
int etr_compare_collect_output_files(const options_t *options,
                                     state_t *state) {
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
      return etr_compare_usage_error(
          "outputs: needs a directory or comma-separated .npy files (at "
          "most 64), not '%s'",
          source);
    }
    state->output_files[state->num_output_files++] = strndup(start, length);
    start += length + (comma != NULL ? 1 : 0);
  }
  return ETR_EXIT_OK;
}

int etr_compare_load_etdump(const options_t *options, state_t *state) {
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

int etr_compare_run_candidate(const options_t *options, state_t *state,
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

int etr_compare_open_sessions(const options_t *options, state_t *state) {
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
