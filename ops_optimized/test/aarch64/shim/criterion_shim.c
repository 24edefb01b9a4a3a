// SPDX-License-Identifier: Apache-2.0
//
// The runner of the Criterion-compatible shim (criterion/criterion.h):
// runs every registered test (or those whose "suite::name" contains one of
// the command-line arguments) in a forked child, in suite/name order,
// prints one line per test and a Criterion-like synthesis, and exits 1
// when any test failed or crashed.
#define _POSIX_C_SOURCE 200809L  // fork, waitpid, clock_gettime under -std=c11

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "criterion/criterion.h"

#define MAX_TESTS 4096

static cr_shim_test_t *g_tests[MAX_TESTS];
static size_t g_count = 0;
static bool g_failed = false;  // in the child: a check of this test failed

void cr_shim_register(cr_shim_test_t *test) {
  if (g_count < MAX_TESTS) {
    g_tests[g_count++] = test;
  }
}

void cr_shim_fail(bool fatal, const char *file, int line,
                  const char *expression, const char *format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  fprintf(stderr, "[----] %s:%d: %s failed: %s%s%s\n", file, line,
          fatal ? "Assertion" : "Expectation", expression,
          message[0] ? ": " : "", message);
  g_failed = true;
  if (fatal) {
    fflush(stderr);
    _exit(1);  // the child's exit status reports the failure
  }
}

void cr_shim_log(const char *level, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "[%s] ", level);
  vfprintf(stderr, format, args);
  fprintf(stderr, "\n");
  va_end(args);
}

static int compare_tests(const void *a, const void *b) {
  const cr_shim_test_t *x = *(const cr_shim_test_t *const *)a;
  const cr_shim_test_t *y = *(const cr_shim_test_t *const *)b;
  int order = strcmp(x->suite, y->suite);
  return order != 0 ? order : strcmp(x->name, y->name);
}

static bool selected(const cr_shim_test_t *test, int argc, char **argv) {
  if (argc < 2) {
    return true;
  }
  char id[256];
  snprintf(id, sizeof(id), "%s::%s", test->suite, test->name);
  for (int i = 1; i < argc; ++i) {
    if (strstr(id, argv[i]) != NULL) {
      return true;
    }
  }
  return false;
}

// Runs one test in this (child) process; the exit status is the verdict.
static void run_child(const cr_shim_test_t *test) {
  if (test->extra.init != NULL) {
    test->extra.init();
  }
  test->function();
  if (test->extra.fini != NULL) {
    test->extra.fini();
  }
  fflush(stdout);
  fflush(stderr);
  _exit(g_failed ? 1 : 0);
}

int main(int argc, char **argv) {
  qsort(g_tests, g_count, sizeof(g_tests[0]), compare_tests);
  int tested = 0;
  int failing = 0;
  int crashing = 0;
  for (size_t i = 0; i < g_count; ++i) {
    const cr_shim_test_t *test = g_tests[i];
    if (test->extra.disabled || !selected(test, argc, argv)) {
      continue;
    }
    ++tested;
    struct timespec start;
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child == 0) {
      run_child(test);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) < 0) {
      status = 1 << 8;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) +
                     1e-9 * (double)(end.tv_nsec - start.tv_nsec);
    const char *verdict = "PASS";
    if (WIFSIGNALED(status)) {
      verdict = "CRASH";
      ++crashing;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      verdict = "FAIL";
      ++failing;
    }
    fprintf(stderr, "[%s] %s::%s: (%.2fs)\n", verdict, test->suite,
            test->name, seconds);
  }
  fprintf(stderr,
          "[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | "
          "Crashing: %d\n",
          tested, tested - failing - crashing, failing, crashing);
  return failing + crashing == 0 && tested > 0 ? 0 : 1;
}
