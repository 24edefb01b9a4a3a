// SPDX-License-Identifier: Apache-2.0
//
// The platform layer: a monotonic clock, a log sink and the memory of large
// buffers. Everything in etref that reads time or prints a message goes
// through here, so a port (or a test) replaces a few functions instead of
// hunting for printf and clock_gettime calls.
#ifndef ETR_CORE_PLATFORM_H
#define ETR_CORE_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
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

// Zeroed memory for a large, long-lived buffer (a method's planned pools),
// its pages untouched until written. From ETR_PAGES_HUGE_MIN_BYTES up, on
// Linux, an anonymous mapping whose 2 MiB-aligned interior is advised to
// be backed by transparent huge pages (madvise MADV_HUGEPAGE; a kernel
// with them disabled ignores the advice): one TLB entry then covers 2 MiB
// instead of 4 KiB, and an op streaming a 64 MiB tensor stops walking the
// page tables every 4 KiB (sigmoid, tanh and exp from DRAM 17-24% faster,
// a streaming copy 7%, on the Intel Xeon of 2026-11-29). Below it, or on
// other systems, calloc. `data` is 64-byte aligned (the 2 MiB boundary for
// a mapping).
#define ETR_PAGES_HUGE_MIN_BYTES ((size_t)2 << 20)

typedef struct etr_pages {
  uint8_t *data;  // `bytes` usable bytes, zeroed
  void *base;     // what etr_pages_free releases
  size_t mapped;  // bytes mapped at base; 0 when base came from calloc
} etr_pages_t;

// False (and *pages zeroed) when the memory is not there.
bool etr_pages_alloc(size_t bytes, etr_pages_t *pages);
// Releases what etr_pages_alloc gave (a zeroed etr_pages_t is a no-op).
void etr_pages_free(etr_pages_t *pages);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_PLATFORM_H
