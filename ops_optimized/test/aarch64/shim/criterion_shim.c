// SPDX-License-Identifier: Apache-2.0
//
// The runner of the Criterion-compatible shim (criterion/criterion.h):
// runs every registered test (or those whose "suite::name" contains one of
// the command-line arguments) in a forked child, up to CRITERION_JOBS
// children at a time (default 1; each child's output goes to a temporary
// file printed when it ends, so outputs never interleave), prints one line
// per test and a Criterion-like synthesis, and exits 1 when any test
// failed or crashed.
#define _POSIX_C_SOURCE 200809L  // fork, waitpid, clock_gettime under -std=c11

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
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

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct running {
  pid_t pid;
  const cr_shim_test_t *test;
  FILE *output;
  double start;
} running_t;

// Starts `test` in a child whose output goes to a fresh temporary file.
static running_t start_test(const cr_shim_test_t *test) {
  running_t run = {.pid = -1, .test = test, .start = seconds_now()};
  run.output = tmpfile();
  fflush(stdout);
  fflush(stderr);
  run.pid = fork();
  if (run.pid == 0) {
    if (run.output != NULL) {
      dup2(fileno(run.output), STDOUT_FILENO);
      dup2(fileno(run.output), STDERR_FILENO);
    }
    run_child(test);
  }
  return run;
}

// Reports a finished child; returns 0 pass, 1 fail, 2 crash.
static int finish_test(running_t *run, int status) {
  if (run->output != NULL) {
    rewind(run->output);
    char buffer[4096];
    size_t read = 0;
    while ((read = fread(buffer, 1, sizeof(buffer), run->output)) > 0) {
      fwrite(buffer, 1, read, stderr);
    }
    fclose(run->output);
  }
  int verdict = 0;
  if (run->pid < 0) {
    verdict = 1;
  } else if (WIFSIGNALED(status)) {
    verdict = 2;
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    verdict = 1;
  }
  static const char *const kNames[3] = {"PASS", "FAIL", "CRASH"};
  fprintf(stderr, "[%s] %s::%s: (%.2fs)\n", kNames[verdict],
          run->test->suite, run->test->name, seconds_now() - run->start);
  return verdict;
}

int main(int argc, char **argv) {
  qsort(g_tests, g_count, sizeof(g_tests[0]), compare_tests);
  const char *jobs_text = getenv("CRITERION_JOBS");
  int jobs = jobs_text != NULL ? atoi(jobs_text) : 1;
  jobs = jobs < 1 ? 1 : jobs > 64 ? 64 : jobs;
  running_t running[64];
  int active = 0;
  int tested = 0;
  int failing = 0;
  int crashing = 0;
  size_t next = 0;
  for (;;) {
    while (active < jobs && next < g_count) {
      const cr_shim_test_t *test = g_tests[next++];
      if (test->extra.disabled || !selected(test, argc, argv)) {
        continue;
      }
      ++tested;
      running[active++] = start_test(test);
    }
    if (active == 0) {
      break;
    }
    int status = 0;
    pid_t done = wait(&status);
    if (done < 0 && errno == EINTR) {
      continue;
    }
    int slot = -1;
    for (int i = 0; i < active && slot < 0; ++i) {
      slot = running[i].pid == done ? i : -1;
    }
    for (int i = 0; i < active && slot < 0; ++i) {
      slot = running[i].pid < 0 ? i : -1;  // a fork that failed
    }
    if (slot < 0) {
      break;  // nothing left to reap
    }
    int verdict = finish_test(&running[slot], status);
    failing += verdict == 1;
    crashing += verdict == 2;
    running[slot] = running[--active];
  }
  fprintf(stderr,
          "[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | "
          "Crashing: %d\n",
          tested, tested - failing - crashing, failing, crashing);
  return failing + crashing == 0 && tested > 0 ? 0 : 1;
}
