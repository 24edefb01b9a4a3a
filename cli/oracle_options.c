// SPDX-License-Identifier: Apache-2.0
//
// `etref compare`'s usage and option parsing (see oracle.h).
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/oracle.h"

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

const char *const etr_compare_kind_names[] = {"", "optimized", "delegate",
                                         "outputs", "etdump"};

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

int etr_compare_parse_options(int argc, char **argv, options_t *options) {
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

int etr_compare_usage_error(const char *format, const char *detail) {
  return usage_error(format, detail);
}
