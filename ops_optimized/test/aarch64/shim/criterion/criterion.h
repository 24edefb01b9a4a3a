// SPDX-License-Identifier: Apache-2.0
//
// A Criterion-compatible subset for the aarch64 cross build of the
// differential tests (Criterion is not packaged for aarch64 here): Test()
// with .init/.fini, the cr_assert_* / cr_expect_* comparisons the tests
// use, cr_log_*. Tests register themselves from constructors; the runner
// (criterion_shim.c) runs each in a forked process, as Criterion does, so
// per-process state (the harness totals, static seeds) starts fresh.
// cr_assert* failures end the test; cr_expect* failures mark it failed and
// go on. Messages are optional printf-style format strings (a literal).
#ifndef ETR_AARCH64_SHIM_CRITERION_H
#define ETR_AARCH64_SHIM_CRITERION_H

#include <stdbool.h>
#include <stddef.h>

struct criterion_test_extra_data {
  void (*init)(void);
  void (*fini)(void);
  double timeout;
  bool disabled;
  const char *description;
  int signal;
  int exit_code;
};

typedef struct cr_shim_test {
  const char *suite;
  const char *name;
  void (*function)(void);
  struct criterion_test_extra_data extra;
  struct cr_shim_test *next;
} cr_shim_test_t;

void cr_shim_register(cr_shim_test_t *test);

// Records a failed check (message from `format`); a fatal one ends the
// test.
void cr_shim_fail(bool fatal, const char *file, int line,
                  const char *expression, const char *format, ...)
    __attribute__((format(printf, 5, 6)));

void cr_shim_log(const char *level, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#define Test(suite, name, ...)                                            \
  static void cr_shim_##suite##_##name(void);                             \
  static cr_shim_test_t cr_shim_test_##suite##_##name = {                 \
      #suite, #name, cr_shim_##suite##_##name, {__VA_ARGS__}, NULL};      \
  __attribute__((constructor)) static void                                \
      cr_shim_register_##suite##_##name(void) {                           \
    cr_shim_register(&cr_shim_test_##suite##_##name);                     \
  }                                                                       \
  static void cr_shim_##suite##_##name(void)

// "" __VA_ARGS__ turns an absent message into "" and a literal format
// into itself.
#define CR_SHIM_CHECK(fatal, condition, text, ...)                         \
  do {                                                                     \
    if (!(condition)) {                                                    \
      cr_shim_fail(fatal, __FILE__, __LINE__, text, "" __VA_ARGS__);       \
    }                                                                      \
  } while (0)

#define cr_assert(condition, ...) \
  CR_SHIM_CHECK(true, condition, #condition, __VA_ARGS__)
#define cr_expect(condition, ...) \
  CR_SHIM_CHECK(false, condition, #condition, __VA_ARGS__)
#define cr_assert_fail(...) CR_SHIM_CHECK(true, false, "fail", __VA_ARGS__)

#define CR_SHIM_COMPARE(fatal, a, op, b, ...) \
  CR_SHIM_CHECK(fatal, (a)op(b), #a " " #op " " #b, __VA_ARGS__)

#define cr_assert_eq(a, b, ...) CR_SHIM_COMPARE(true, a, ==, b, __VA_ARGS__)
#define cr_assert_neq(a, b, ...) CR_SHIM_COMPARE(true, a, !=, b, __VA_ARGS__)
#define cr_assert_lt(a, b, ...) CR_SHIM_COMPARE(true, a, <, b, __VA_ARGS__)
#define cr_assert_leq(a, b, ...) CR_SHIM_COMPARE(true, a, <=, b, __VA_ARGS__)
#define cr_assert_gt(a, b, ...) CR_SHIM_COMPARE(true, a, >, b, __VA_ARGS__)
#define cr_assert_geq(a, b, ...) CR_SHIM_COMPARE(true, a, >=, b, __VA_ARGS__)
#define cr_assert_null(p, ...) \
  CR_SHIM_CHECK(true, (p) == NULL, #p " == NULL", __VA_ARGS__)
#define cr_assert_not_null(p, ...) \
  CR_SHIM_CHECK(true, (p) != NULL, #p " != NULL", __VA_ARGS__)
#define cr_expect_eq(a, b, ...) CR_SHIM_COMPARE(false, a, ==, b, __VA_ARGS__)
#define cr_expect_neq(a, b, ...) CR_SHIM_COMPARE(false, a, !=, b, __VA_ARGS__)
#define cr_expect_lt(a, b, ...) CR_SHIM_COMPARE(false, a, <, b, __VA_ARGS__)
#define cr_expect_leq(a, b, ...) CR_SHIM_COMPARE(false, a, <=, b, __VA_ARGS__)
#define cr_expect_gt(a, b, ...) CR_SHIM_COMPARE(false, a, >, b, __VA_ARGS__)
#define cr_expect_geq(a, b, ...) CR_SHIM_COMPARE(false, a, >=, b, __VA_ARGS__)
#define cr_expect_null(p, ...) \
  CR_SHIM_CHECK(false, (p) == NULL, #p " == NULL", __VA_ARGS__)
#define cr_expect_not_null(p, ...) \
  CR_SHIM_CHECK(false, (p) != NULL, #p " != NULL", __VA_ARGS__)

#define cr_log_info(...) cr_shim_log("INFO", __VA_ARGS__)
#define cr_log_warn(...) cr_shim_log("WARN", __VA_ARGS__)
#define cr_log_error(...) cr_shim_log("ERROR", __VA_ARGS__)

#endif  // ETR_AARCH64_SHIM_CRITERION_H
