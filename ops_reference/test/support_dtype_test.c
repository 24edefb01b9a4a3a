// SPDX-License-Identifier: Apache-2.0
//
// support/dtype.h against PyTorch: etr_promote_types vs torch.promote_types
// and etr_can_cast vs torch.can_cast over every pair of shared dtypes,
// torch.result_type for rank-1 and zero-dim tensors and Python numbers
// (generated/promotion_table.h), plus the dtype checks' error codes and
// c10's checked Scalar conversion.
#include <math.h>
#include <string.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/test/generated/promotion_table.h"
#include "ops_reference/test/test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static etr_diag_t g_diag;

static etr_kernel_context_t context(void) {
  etr_diag_reset(&g_diag);
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &g_diag;
  ctx.op_name = "test::op";
  return ctx;
}

TT_TEST(dtype, promote_types_matches_pytorch) {
  for (size_t i = 0; i < COUNT(kPromotionTable); ++i) {
    const promotion_row_t *row = &kPromotionTable[i];
    etr_scalar_type_t got = etr_promote_types(row->a, row->b);
    cr_expect_eq(got, row->result, "promote(%s, %s) = %s, PyTorch says %s",
                 etr_scalar_type_name(row->a), etr_scalar_type_name(row->b),
                 etr_scalar_type_name(got), etr_scalar_type_name(row->result));
  }
  cr_expect_eq(etr_promote_types(ETR_QINT8, ETR_FLOAT),
               ETR_SCALAR_TYPE_UNDEFINED);
  cr_expect_eq(etr_promote_types((etr_scalar_type_t)99, ETR_FLOAT),
               ETR_SCALAR_TYPE_UNDEFINED);
}

TT_TEST(dtype, can_cast_matches_pytorch) {
  for (size_t i = 0; i < COUNT(kCanCastTable); ++i) {
    const can_cast_row_t *row = &kCanCastTable[i];
    cr_expect_eq(etr_can_cast(row->from, row->to), row->allowed,
                 "can_cast(%s, %s) should be %d",
                 etr_scalar_type_name(row->from),
                 etr_scalar_type_name(row->to), row->allowed);
  }
}

TT_TEST(dtype, result_type_matches_pytorch) {
  for (size_t i = 0; i < COUNT(kResultTypeTable); ++i) {
    const result_type_row_t *row = &kResultTypeTable[i];
    etr_kernel_context_t ctx = context();
    etr_tensor_t *a = tt_tensor(row->tensor, TT_SIZES(2), NULL);
    etr_scalar_type_t got = ETR_SCALAR_TYPE_UNDEFINED;
    etr_error_t status;
    if (row->other_dim >= 0) {
      etr_tensor_t *b = row->other_dim == 1
                            ? tt_tensor(row->other, TT_SIZES(2), NULL)
                            : tt_scalar_tensor(row->other, 1.0);
      status = etr_result_type_tensors(&ctx, a, b, &got);
    } else {
      etr_scalar_t scalar = {(etr_scalar_kind_t)row->other, 1, 1.0};
      status = etr_result_type_tensor_scalar(&ctx, a, &scalar, &got);
    }
    cr_expect_eq(status, ETR_OK);
    cr_expect_eq(got, row->result,
                 "result_type(%s[2], other %d of rank %d) = %s, PyTorch "
                 "says %s",
                 etr_scalar_type_name(row->tensor), row->other,
                 row->other_dim, etr_scalar_type_name(got),
                 etr_scalar_type_name(row->result));
  }
}

TT_TEST(dtype, result_type_refuses_unpromotable) {
  etr_kernel_context_t ctx = context();
  etr_tensor_t *a = tt_tensor(ETR_UINT16, TT_SIZES(2), NULL);
  etr_tensor_t *b = tt_tensor(ETR_INT, TT_SIZES(2), NULL);
  etr_scalar_type_t got;
  cr_expect_eq(etr_result_type_tensors(&ctx, a, b, &got),
               ETR_ERR_INVALID_ARGUMENT);
  cr_expect(strstr(g_diag.message, "test::op") != NULL);
  ctx = context();
  cr_expect_eq(etr_promote_types_checked(&ctx, ETR_QINT8, ETR_FLOAT, &got),
               ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(dtype, checks_and_kinds) {
  etr_kernel_context_t ctx = context();
  cr_expect_eq(etr_check_dtype(&ctx, "self", ETR_BOOL, ETR_DTYPES_REAL),
               ETR_ERR_NOT_SUPPORTED);
  cr_expect(strstr(g_diag.message, "Bool") != NULL, "names the dtype: %s",
            g_diag.message);
  ctx = context();
  cr_expect_eq(etr_check_dtype(&ctx, "self", ETR_HALF, ETR_DTYPES_FLOATING),
               ETR_OK);
  cr_expect_eq(etr_check_dtype_equal(&ctx, "out", ETR_FLOAT, ETR_DOUBLE),
               ETR_ERR_INVALID_ARGUMENT);
  ctx = context();
  cr_expect_eq(etr_check_can_cast(&ctx, ETR_FLOAT, ETR_LONG),
               ETR_ERR_INVALID_ARGUMENT);
  cr_expect(strstr(g_diag.message, "can't be cast") != NULL);
  cr_expect_eq(etr_dtype_kind(ETR_BOOL), ETR_KIND_BOOL);
  cr_expect_eq(etr_dtype_kind(ETR_UINT32), ETR_KIND_INTEGRAL);
  cr_expect_eq(etr_dtype_kind(ETR_BFLOAT16), ETR_KIND_FLOATING);
  cr_expect_eq(etr_dtype_kind(ETR_COMPLEX_HALF), ETR_KIND_COMPLEX);
  cr_expect_eq(etr_dtype_kind(ETR_QINT8), ETR_KIND_OTHER);
  cr_expect_eq(etr_to_floating(ETR_INT), ETR_FLOAT);
  cr_expect_eq(etr_to_floating(ETR_BOOL), ETR_FLOAT);
  cr_expect_eq(etr_to_floating(ETR_HALF), ETR_HALF);
  cr_expect_eq(etr_complex_value_type(ETR_COMPLEX_DOUBLE), ETR_DOUBLE);
  cr_expect(!etr_dtype_in((etr_scalar_type_t)40, ETR_DTYPES_ALL));
}

TT_TEST(dtype, scalar_fits) {
  struct {
    etr_scalar_t scalar;
    etr_scalar_type_t type;
    bool fits;
  } cases[] = {
      {{ETR_SCALAR_INT, 300, 300.0}, ETR_BYTE, false},
      {{ETR_SCALAR_INT, -1, -1.0}, ETR_BYTE, true},   // wraps to 255
      {{ETR_SCALAR_INT, -300, -300.0}, ETR_BYTE, false},
      {{ETR_SCALAR_INT, 127, 127.0}, ETR_CHAR, true},
      {{ETR_SCALAR_INT, -129, -129.0}, ETR_CHAR, false},
      {{ETR_SCALAR_DOUBLE, 0, 1.5}, ETR_INT, true},
      {{ETR_SCALAR_DOUBLE, 0, INFINITY}, ETR_INT, false},
      {{ETR_SCALAR_DOUBLE, 0, 1e40}, ETR_FLOAT, false},
      {{ETR_SCALAR_DOUBLE, 0, INFINITY}, ETR_FLOAT, true},
      {{ETR_SCALAR_DOUBLE, 0, 70000.0}, ETR_HALF, false},
      {{ETR_SCALAR_INT, 2, 2.0}, ETR_BOOL, true},
      {{ETR_SCALAR_INT, INT64_MAX, 9.2e18}, ETR_LONG, true},
      // Review fix (c10::overflows, PyTorch 2.13's full.out): a negative
      // Double never fits an unsigned dtype (its lowest() is 0), while a
      // negative Int wraps down to -max.
      {{ETR_SCALAR_DOUBLE, 0, -2.5}, ETR_BYTE, false},
      {{ETR_SCALAR_DOUBLE, 0, -0.5}, ETR_BYTE, false},
      {{ETR_SCALAR_DOUBLE, 0, -1.0}, ETR_UINT16, false},
      {{ETR_SCALAR_DOUBLE, 0, -1.0}, ETR_UINT64, false},
      {{ETR_SCALAR_DOUBLE, 0, -0.0}, ETR_BYTE, true},
      {{ETR_SCALAR_DOUBLE, 0, 255.0}, ETR_BYTE, true},
      {{ETR_SCALAR_DOUBLE, 0, 255.5}, ETR_BYTE, false},
      {{ETR_SCALAR_DOUBLE, 0, -2.5}, ETR_CHAR, true},
      {{ETR_SCALAR_DOUBLE, 0, -128.5}, ETR_CHAR, false},
      {{ETR_SCALAR_DOUBLE, 0, NAN}, ETR_BYTE, false},
      {{ETR_SCALAR_INT, -255, -255.0}, ETR_BYTE, true},
      {{ETR_SCALAR_INT, -256, -256.0}, ETR_BYTE, false},
      {{ETR_SCALAR_INT, -256, -256.0}, ETR_UINT16, true},
      {{ETR_SCALAR_INT, INT64_MIN, -9.2e18}, ETR_UINT64, true},
  };
  for (size_t i = 0; i < COUNT(cases); ++i) {
    etr_kernel_context_t ctx = context();
    etr_error_t status =
        etr_check_scalar_fits(&ctx, "value", &cases[i].scalar, cases[i].type);
    cr_expect_eq(status, cases[i].fits ? ETR_OK : ETR_ERR_INVALID_ARGUMENT,
                 "case %zu", i);
  }
}
