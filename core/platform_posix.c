// SPDX-License-Identifier: Apache-2.0
//
// POSIX implementation of the platform layer (see platform.h).
#define _POSIX_C_SOURCE 200809L
#include "core/platform.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
