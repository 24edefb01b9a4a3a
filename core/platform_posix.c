// SPDX-License-Identifier: Apache-2.0
//
// POSIX implementation of the platform layer (see platform.h).
#define _DEFAULT_SOURCE  // MAP_ANONYMOUS, madvise
#include "core/platform.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

uint64_t etr_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void default_sink(etr_log_level_t level, const char *file, int line,
                         const char *message, void *user) {
  (void)user;
  static const char *const kLevelNames[] = {"DEBUG", "INFO", "WARNING",
                                            "ERROR"};
  const char *base = strrchr(file, '/');
  fprintf(stderr, "etref %s %s:%d] %s\n",
          level <= ETR_LOG_ERROR ? kLevelNames[level] : "?",
          base != NULL ? base + 1 : file, line, message);
}

static etr_log_sink_fn g_sink = default_sink;
static void *g_sink_user = NULL;
static int g_level = -1;  // -1: not yet read from the environment

void etr_log_set_sink(etr_log_sink_fn sink, void *user) {
  g_sink = sink != NULL ? sink : default_sink;
  g_sink_user = sink != NULL ? user : NULL;
}

void etr_log_set_level(etr_log_level_t level) { g_level = (int)level; }

etr_log_level_t etr_log_get_level(void) {
  if (g_level < 0) {
    static const char *const kNames[] = {"debug", "info", "warning", "error",
                                         "off"};
    const char *wanted = getenv("ETREF_LOG");
    g_level = ETR_LOG_WARNING;
    for (int i = 0; wanted != NULL && i <= ETR_LOG_OFF; ++i) {
      if (strcmp(wanted, kNames[i]) == 0) {
        g_level = i;
      }
    }
  }
  return (etr_log_level_t)g_level;
}

void etr_log_message(etr_log_level_t level, const char *file, int line,
                     const char *format, ...) {
  if (level < etr_log_get_level() || level >= ETR_LOG_OFF) {
    return;
  }
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  g_sink(level, file, line, message, g_sink_user);
}

bool etr_pages_alloc(size_t bytes, etr_pages_t *pages) {
  enum { kLine = 64 };
  memset(pages, 0, sizeof(*pages));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const size_t huge = (size_t)2 << 20;
  if (bytes >= ETR_PAGES_HUGE_MIN_BYTES && bytes <= SIZE_MAX - huge) {
    // One huge page more than asked, so that the data can start on a
    // 2 MiB boundary and still hold `bytes`.
    size_t mapped = bytes + huge;
    void *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
      return false;
    }
    uintptr_t start = ((uintptr_t)base + huge - 1) / huge * huge;
    size_t usable = (mapped - (start - (uintptr_t)base)) / huge * huge;
    (void)madvise((void *)start, usable, MADV_HUGEPAGE);  // advice only
    pages->data = (uint8_t *)start;
    pages->base = base;
    pages->mapped = mapped;
    return true;
  }
#endif
  if (bytes > SIZE_MAX - kLine) {
    return false;
  }
  // calloc keeps large blocks as untouched zero pages; its address is only
  // 16-byte aligned (glibc puts a 16-byte header before a page), so the
  // data starts at the first cache line inside it.
  uint8_t *base = (uint8_t *)calloc(bytes + kLine, 1);
  if (base == NULL) {
    return false;
  }
  uintptr_t misalignment = (uintptr_t)base % kLine;
  pages->data = base + (misalignment == 0 ? 0 : kLine - misalignment);
  pages->base = base;
  return true;
}

void etr_pages_free(etr_pages_t *pages) {
  if (pages == NULL || pages->base == NULL) {
    return;
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (pages->mapped != 0) {
    munmap(pages->base, pages->mapped);
    memset(pages, 0, sizeof(*pages));
    return;
  }
#endif
  free(pages->base);
  memset(pages, 0, sizeof(*pages));
}
