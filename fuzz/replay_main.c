// SPDX-License-Identifier: Apache-2.0
//
// Replays inputs through a harness's LLVMFuzzerTestOneInput without a
// fuzzing engine: what `bazel test //fuzz:<target>_replay` runs over the
// regression corpus (every crash ever found) and the seed corpus, with gcc
// and under --config=asan, and what the coverage and Valgrind scripts use.
//
// Usage: <target>_replay [--suffix=.pte] [--optional] PATH... [--min=N]
//   PATH         a file, or a directory read recursively (sorted, so runs
//                are reproducible; names starting with '.' and README.md
//                are skipped)
//   --suffix=S   only files ending in S in the directories that follow
//                ("" resets)
//   --optional   the next path may be missing (an empty regression corpus)
//   --min=N      fail unless at least N inputs ran
//
// Each input must return within 60 s (a hang is a failure). Without ASan
// (whose LeakSanitizer checks at exit) each input is also checked for
// leaks, as SQLite's fuzzcheck does: this file interposes malloc and
// friends (forwarding to glibc's __libc_* entry points) to count live
// allocations, which must be the same before and after each call.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ETR_REPLAY_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ETR_REPLAY_ASAN 1
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

#define MAX_SECONDS_PER_INPUT 60.0

#ifndef ETR_REPLAY_ASAN
// Live allocations, counted by the interposed allocator below (glibc
// exports its implementation as __libc_*; symbols defined in the executable
// take precedence for every shared object, so the kernels' and loaders'
// allocations are counted too).
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *pointer, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
void __libc_free(void *pointer);

static long g_live_allocations;

static void *counted(void *pointer) {
  if (pointer != NULL) {
    __atomic_add_fetch(&g_live_allocations, 1, __ATOMIC_RELAXED);
  }
  return pointer;
}

void *malloc(size_t size) { return counted(__libc_malloc(size)); }

void *calloc(size_t count, size_t size) {
  return counted(__libc_calloc(count, size));
}

void *memalign(size_t alignment, size_t size) {
  return counted(__libc_memalign(alignment, size));
}

void *aligned_alloc(size_t alignment, size_t size) {
  return counted(__libc_memalign(alignment, size));
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) {
    return EINVAL;
  }
  void *pointer = counted(__libc_memalign(alignment, size));
  if (pointer == NULL) {
    return ENOMEM;
  }
  *out = pointer;
  return 0;
}

void *realloc(void *pointer, size_t size) {
  void *result = __libc_realloc(pointer, size);
  if (pointer == NULL) {
    return counted(result);
  }
  if (size == 0 && result == NULL) {  // glibc frees
    __atomic_sub_fetch(&g_live_allocations, 1, __ATOMIC_RELAXED);
  }
  return result;
}

void free(void *pointer) {
  if (pointer != NULL) {
    __atomic_sub_fetch(&g_live_allocations, 1, __ATOMIC_RELAXED);
    __libc_free(pointer);
  }
}
#endif

static size_t g_ran;
static int g_failures;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool ends_with(const char *text, const char *suffix) {
  size_t a = strlen(text);
  size_t b = strlen(suffix);
  return a >= b && strcmp(text + a - b, suffix) == 0;
}

static void run_file(const char *path) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    ++g_failures;
    return;
  }
  fseek(file, 0, SEEK_END);
  long length = ftell(file);
  fseek(file, 0, SEEK_SET);
  size_t size = length > 0 ? (size_t)length : 0;
  uint8_t *data = (uint8_t *)malloc(size > 0 ? size : 1);
  if (data == NULL || fread(data, 1, size, file) != size) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    ++g_failures;
    fclose(file);
    free(data);
    return;
  }
  fclose(file);
  fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
#ifndef ETR_REPLAY_ASAN
  long before = __atomic_load_n(&g_live_allocations, __ATOMIC_RELAXED);
#endif
  double start = now_seconds();
  LLVMFuzzerTestOneInput(data, size);
  double seconds = now_seconds() - start;
#ifndef ETR_REPLAY_ASAN
  long after = __atomic_load_n(&g_live_allocations, __ATOMIC_RELAXED);
  if (after != before) {
    fprintf(stderr, "replay: FAIL %s: %ld more allocations live after the "
            "call than before (a leak)\n", path, after - before);
    ++g_failures;
  }
#endif
  if (seconds > MAX_SECONDS_PER_INPUT) {
    fprintf(stderr, "replay: FAIL %s took %.1f s (a hang)\n", path, seconds);
    ++g_failures;
  }
  free(data);
  ++g_ran;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path, const char *suffix, bool optional) {
  struct stat st;
  if (stat(path, &st) != 0) {
    if (!optional) {
      fprintf(stderr, "replay: FAIL %s does not exist\n", path);
      ++g_failures;
    }
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    run_file(path);
    return;
  }
  DIR *dir = opendir(path);
  if (dir == NULL) {
    fprintf(stderr, "replay: FAIL cannot list %s\n", path);
    ++g_failures;
    return;
  }
  size_t count = 0;
  size_t capacity = 0;
  char **names = NULL;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
    if (entry->d_name[0] == '.' || strcmp(entry->d_name, "README.md") == 0) {
      continue;
    }
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 64;
      names = (char **)realloc(names, capacity * sizeof(char *));
    }
    size_t length = strlen(path) + strlen(entry->d_name) + 2;
    names[count] = (char *)malloc(length);
    snprintf(names[count], length, "%s/%s", path, entry->d_name);
    ++count;
  }
  closedir(dir);
  qsort(names, count, sizeof(char *), compare_names);
  for (size_t i = 0; i < count; ++i) {
    struct stat child;
    if (stat(names[i], &child) == 0 && S_ISDIR(child.st_mode)) {
      run_path(names[i], suffix, false);
    } else if (suffix[0] == '\0' || ends_with(names[i], suffix)) {
      run_file(names[i]);
    }
    free(names[i]);
  }
  free(names);
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize != NULL) {
    LLVMFuzzerInitialize(&argc, &argv);
  }
  // stdio allocates its buffers on first use; do it before measuring.
  fprintf(stdout, "replay: %d argument(s)\n", argc - 1);
  fflush(stdout);
  const char *suffix = "";
  bool optional = false;
  size_t minimum = 0;
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--suffix=", 9) == 0) {
      suffix = argv[i] + 9;
    } else if (strcmp(argv[i], "--optional") == 0) {
      optional = true;
    } else if (strncmp(argv[i], "--min=", 6) == 0) {
      minimum = (size_t)strtoull(argv[i] + 6, NULL, 10);
    } else {
      run_path(argv[i], suffix, optional);
      optional = false;
    }
  }
  if (g_ran < minimum) {
    fprintf(stderr, "replay: FAIL only %zu inputs ran, expected at least %zu\n",
            g_ran, minimum);
    ++g_failures;
  }
  printf("replay: %zu inputs, %d failures\n", g_ran, g_failures);
  return g_failures == 0 ? 0 : 1;
}
