// SPDX-License-Identifier: Apache-2.0
//
// Error codes and diagnostics.
//
// etr_error_t uses ExecuTorch's numbering (runtime/core/error.h) so a code
// printed by etref means the same thing as one printed by ExecuTorch. Codes
// are grouped by range: 0x0x runtime, 0x1x kernels and registration, 0x2x
// resources and programs, 0x3x delegates.
//
// Nothing in etref aborts on bad input. A failing function returns a code
// and, when the caller passed an etr_diag_t, records a message together with
// the file and line that detected the problem (in the manner of SQLite's
// SQLITE_CORRUPT_BKPT), so a rejected program can say exactly what is wrong.
#ifndef ETR_CORE_ERROR_H
#define ETR_CORE_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_error {
  ETR_OK = 0x00,
  ETR_ERR_INTERNAL = 0x01,
  ETR_ERR_INVALID_STATE = 0x02,
  ETR_ERR_END_OF_METHOD = 0x03,
  ETR_ERR_ALREADY_LOADED = 0x04,

  ETR_ERR_NOT_SUPPORTED = 0x10,
  ETR_ERR_NOT_IMPLEMENTED = 0x11,
  ETR_ERR_INVALID_ARGUMENT = 0x12,
  ETR_ERR_INVALID_TYPE = 0x13,
  ETR_ERR_OPERATOR_MISSING = 0x14,
  ETR_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS = 0x15,
  ETR_ERR_REGISTRATION_ALREADY_REGISTERED = 0x16,

  ETR_ERR_NOT_FOUND = 0x20,
  ETR_ERR_MEMORY_ALLOCATION_FAILED = 0x21,
  ETR_ERR_ACCESS_FAILED = 0x22,
  ETR_ERR_INVALID_PROGRAM = 0x23,
  ETR_ERR_INVALID_EXTERNAL_DATA = 0x24,
  ETR_ERR_OUT_OF_RESOURCES = 0x25,

  ETR_ERR_DELEGATE_INVALID_COMPATIBILITY = 0x30,
  ETR_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED = 0x31,
  ETR_ERR_DELEGATE_INVALID_HANDLE = 0x32,
} etr_error_t;

// Returns ExecuTorch's name for `code` ("InvalidProgram"), or "Unknown".
const char *etr_error_name(etr_error_t code);

// True when `code` is one of the values above.
int etr_error_is_known(int code);

#define ETR_DIAG_MESSAGE_CAPACITY 512

// The first error recorded wins: later records are ignored until reset, so
// the message names the root cause rather than the last caller to notice it.
typedef struct etr_diag {
  etr_error_t code;
  const char *file;  // source file that detected the error (static string)
  int line;
  char message[ETR_DIAG_MESSAGE_CAPACITY];
} etr_diag_t;

void etr_diag_reset(etr_diag_t *diag);

// Records (code, file, line, formatted message) into `diag` unless it is NULL
// or already holds an error; always returns `code` so callers can write
// `return etr_diag_set(...)`. A message longer than the capacity is cut.
etr_error_t etr_diag_set(etr_diag_t *diag, etr_error_t code, const char *file,
                         int line, const char *format, ...)
    __attribute__((format(printf, 5, 6)));
etr_error_t etr_diag_vset(etr_diag_t *diag, etr_error_t code,
                          const char *file, int line, const char *format,
                          va_list args);

// Prefixes the message already recorded with "<context>: " (used by callers
// that add where an error happened, such as "instruction 12 (aten::add.out)").
void etr_diag_prefix(etr_diag_t *diag, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#define ETR_FAIL(diag, code, ...) \
  etr_diag_set((diag), (code), __FILE__, __LINE__, __VA_ARGS__)

// Returns from the enclosing function with `code` and a message naming the
// failed condition when `cond` is false. For checks on untrusted input.
#define ETR_CHECK(diag, cond, code, ...)                 \
  do {                                                   \
    if (!(cond)) {                                       \
      return ETR_FAIL((diag), (code), __VA_ARGS__);      \
    }                                                    \
  } while (0)

// Propagates a non-OK status from an expression.
#define ETR_TRY(expr)                        \
  do {                                       \
    etr_error_t etr_try_status_ = (expr);    \
    if (etr_try_status_ != ETR_OK) {         \
      return etr_try_status_;                \
    }                                        \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_ERROR_H
