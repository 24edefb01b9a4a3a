// SPDX-License-Identifier: Apache-2.0
//
// Test helpers for kernel tests (testonly): building tensors and EValues
// from literal arrays, calling a kernel by operator name the way the
// executor does, and comparing results with PyTorch's tolerances.
//
// Tensors come from literal values given as doubles (exact for every
// integer up to 2^53; complex tensors take interleaved real/imag pairs) and
// can be re-laid out as channels-last or as non-contiguous strided views
// holding the same logical values. Every allocation is released by
// tt_free_all(), which TT_TEST registers as each test's fini hook.
//
// Tolerances are those of torch.testing.assert_close's defaults:
//   Float    rtol 1.3e-6  atol 1e-5
//   Double   rtol 1e-7    atol 1e-7
//   Half     rtol 1e-3    atol 1e-5
//   BFloat16 rtol 1.6e-2  atol 1e-5
//   complex  as its value type, on each part
//   integral and Bool types: exact.
// A check passes when |actual - expected| <= atol + rtol * |expected|;
// NaN matches NaN and infinities must match exactly.
#ifndef ETR_OPS_REFERENCE_TEST_TEST_UTIL_H
#define ETR_OPS_REFERENCE_TEST_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/evalue.h"
#include "core/kernel.h"
#include "core/tensor.h"

// A test whose allocations are freed when it ends.
#define TT_TEST(suite, name, ...) \
  Test(suite, name, .fini = tt_free_all, ##__VA_ARGS__)

// Literal helpers: TT_SIZES(2, 3) expands to "2, (const int64_t[]){2, 3}"
// (rank, sizes); TT_VALUES(1, 2.5) to a const double array.
#define TT_COUNT_(...) \
  (sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define TT_SIZES(...) \
  (int32_t) TT_COUNT_(__VA_ARGS__), (const int64_t[]) { __VA_ARGS__ }
#define TT_VALUES(...) ((const double[]){__VA_ARGS__})
#define TT_INTS(...) TT_COUNT_(__VA_ARGS__), (const int64_t[]){__VA_ARGS__}

void tt_free_all(void);
// malloc that tt_free_all releases (zero-filled).
void *tt_alloc(size_t bytes);

// A contiguous tensor with `values` (NULL: zeros) in row-major order.
etr_tensor_t *tt_tensor(etr_scalar_type_t dtype, int32_t dim,
                        const int64_t *sizes, const double *values);
// Same for int64 values that a double cannot hold exactly.
etr_tensor_t *tt_tensor_i64(etr_scalar_type_t dtype, int32_t dim,
                            const int64_t *sizes, const int64_t *values);
// A 0-dim tensor.
etr_tensor_t *tt_scalar_tensor(etr_scalar_type_t dtype, double value);
// An out tensor: zeros, contiguous, whose memory holds `capacity`
// elements (at least its numel; pass 0 for exactly its numel).
etr_tensor_t *tt_out(etr_scalar_type_t dtype, int32_t dim,
                     const int64_t *sizes, int64_t capacity);
// An out tensor with an explicit dim order (e.g. channels-last).
etr_tensor_t *tt_out_dim_order(etr_scalar_type_t dtype, int32_t dim,
                               const int64_t *sizes,
                               const uint8_t *dim_order);

// The same logical values in another layout:
// channels-last (rank 4, dim order 0,2,3,1);
etr_tensor_t *tt_channels_last(const etr_tensor_t *tensor);
// a non-contiguous view: every stride doubled and the innermost dims
// stored transposed when rank >= 2, inside a larger buffer filled with a
// poison value (NaN or 0x5a bytes) so reading a gap shows up;
etr_tensor_t *tt_noncontiguous(const etr_tensor_t *tensor);
// a copy converted to another dtype.
etr_tensor_t *tt_cast(const etr_tensor_t *tensor, etr_scalar_type_t dtype);

// Logical element `index` (row-major) as double / int64 / imag part.
double tt_get(const etr_tensor_t *tensor, int64_t index);
int64_t tt_get_i64(const etr_tensor_t *tensor, int64_t index);
double tt_get_imag(const etr_tensor_t *tensor, int64_t index);

// EValues (owned by the test).
etr_evalue_t *tt_ev_tensor(etr_tensor_t *tensor);
etr_evalue_t *tt_ev_none(void);
etr_evalue_t *tt_ev_int(int64_t value);
etr_evalue_t *tt_ev_double(double value);
etr_evalue_t *tt_ev_bool(bool value);
etr_evalue_t *tt_ev_string(const char *value);
etr_evalue_t *tt_ev_int_list(size_t length, const int64_t *values);
etr_evalue_t *tt_ev_double_list(size_t length, const double *values);
etr_evalue_t *tt_ev_bool_list(size_t length, const bool *values);
// Tensor[]; tt_ev_optional_tensor_list accepts NULL entries (None).
etr_evalue_t *tt_ev_tensor_list(size_t length, etr_tensor_t *const *tensors);
etr_evalue_t *tt_ev_optional_tensor_list(size_t length,
                                         etr_tensor_t *const *tensors);
#define TT_EV_INTS(...) tt_ev_int_list(TT_INTS(__VA_ARGS__))
#define TT_EV_NO_INTS tt_ev_int_list(0, NULL)  // an empty int[]
#define TT_TENSORS(...)                                                   \
  (sizeof((etr_tensor_t *const[]){__VA_ARGS__}) / sizeof(etr_tensor_t *)), \
      (etr_tensor_t *const[]) {                                          \
    __VA_ARGS__                                                          \
  }

// Generated cases (case_types.h): the tensor (NULL when absent), an out
// tensor for it that starts 1-D with room to spare so the kernel must
// resize it, an int-list EValue, and an expectation of shape and values.
#include "ops_reference/test/case_types.h"
etr_tensor_t *tt_case_tensor(const tt_case_tensor_t *literal);
etr_tensor_t *tt_case_out(const tt_case_tensor_t *expected);
etr_evalue_t *tt_ev_case_ints(const tt_case_ints_t *ints);
void tt_expect_case(const etr_tensor_t *actual,
                    const tt_case_tensor_t *expected);

// The layouts every layout-sensitive test runs in.
typedef enum tt_layout {
  TT_CONTIGUOUS = 0,
  TT_NONCONTIGUOUS = 1,
  TT_CHANNELS_LAST = 2,  // rank-4 tensors only; others stay contiguous
  TT_NUM_LAYOUTS = 3,
} tt_layout_t;
// `tensor` (or NULL) re-laid out; the logical values are unchanged.
etr_tensor_t *tt_relayout(const etr_tensor_t *tensor, tt_layout_t layout);
const char *tt_layout_name(tt_layout_t layout);

// The kernel registered under `op_name` in the table under test (NULL when
// absent); see test/kernel_table.h.
etr_kernel_fn tt_find_kernel(const char *op_name);

// Calls the kernel for `op_name` with `args` and returns its status; the
// diagnostic is kept in tt_last_diag() (and printed when it fails). Every
// call is preceded by a dry run (ctx->dry_run, every tensor's data NULL)
// that must agree with it: same status, or OK when the real call fails on
// values, and the same out shapes.
etr_error_t tt_call(const char *op_name, etr_evalue_t **args,
                    size_t num_args);
#define TT_CALL(op_name, ...)                                              \
  tt_call(op_name, (etr_evalue_t *[]){__VA_ARGS__},                        \
          sizeof((etr_evalue_t *[]){__VA_ARGS__}) / sizeof(etr_evalue_t *))
const etr_diag_t *tt_last_diag(void);

// Expectations (criterion cr_expect: a failure is reported and the test
// continues). `what` labels the message.
void tt_expect_shape(const etr_tensor_t *actual, int32_t dim,
                     const int64_t *sizes);
// Values in row-major order (complex: interleaved pairs); the count must
// equal numel (twice numel for complex).
void tt_expect_values(const etr_tensor_t *actual, const double *expected,
                      size_t count);
void tt_expect_values_i64(const etr_tensor_t *actual, const int64_t *expected,
                          size_t count);
// Shape, dtype and values of `actual` against `expected`.
void tt_expect_tensor(const etr_tensor_t *actual,
                      const etr_tensor_t *expected);
// Status and (on failure) that the diag recorded the same code.
void tt_expect_status(etr_error_t actual, etr_error_t expected);

// The tolerance for a dtype, as documented above.
void tt_tolerance(etr_scalar_type_t dtype, double *rtol, double *atol);

#endif  // ETR_OPS_REFERENCE_TEST_TEST_UTIL_H
