// SPDX-License-Identifier: Apache-2.0
//
// The platform layer: a monotonic clock and a log sink. Everything in etref
// that reads time or prints a message goes through here, so a port (or a
// test) replaces two functions instead of hunting for printf and
// clock_gettime calls.
#ifndef ETR_CORE_PLATFORM_H
#define ETR_CORE_PLATFORM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Nanoseconds from an arbitrary fixed origin; never goes backwards.
uint64_t etr_now_ns(void);

typedef enum etr_log_level {
  ETR_LOG_DEBUG = 0,
  ETR_LOG_INFO = 1,
  ETR_LOG_WARNING = 2,
  ETR_LOG_ERROR = 3,
  ETR_LOG_OFF = 4,
} etr_log_level_t;

// A sink receives each message that passes the level threshold, already
// formatted, with the source location that logged it.
typedef void (*etr_log_sink_fn)(etr_log_level_t level, const char *file,
                                int line, const char *message, void *user);

// Replaces the sink (NULL restores the default, which writes
// "etref <LEVEL> file:line] message" lines to stderr). Not thread-safe:
// set it once at start-up.
void etr_log_set_sink(etr_log_sink_fn sink, void *user);

// Messages below `level` are dropped (default: ETR_LOG_WARNING, or the
// level named by the ETREF_LOG environment variable: debug, info, warning,
// error, off).
void etr_log_set_level(etr_log_level_t level);
etr_log_level_t etr_log_get_level(void);

void etr_log_message(etr_log_level_t level, const char *file, int line,
                     const char *format, ...)
    __attribute__((format(printf, 4, 5)));

#define ETR_LOG(level, ...) \
  etr_log_message((level), __FILE__, __LINE__, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_PLATFORM_H
