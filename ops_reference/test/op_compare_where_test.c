// SPDX-License-Identifier: Apache-2.0
//
// aten::gt/lt/eq (Tensor and Scalar overloads) and aten::where.self_out:
// values, comparison in the promoted dtype (int > 2.5; Half == 1.0001
// rounds the Scalar), NaN, broadcasting of two and three operands, strided
// inputs, any out dtype for comparisons, and the exact error codes.
#include <math.h>
#include <string.h>

#include "ops_reference/test/test_util.h"

static etr_error_t compare(const char *op, etr_tensor_t *a, etr_evalue_t *b,
                           etr_tensor_t *out) {
  return TT_CALL(op, tt_ev_tensor(a), b, tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(compare, scalar_overloads) {
  etr_tensor_t *i = tt_tensor(ETR_LONG, TT_SIZES(3), TT_VALUES(1, 3, 2));
  etr_tensor_t *out = tt_out(ETR_BOOL, TT_SIZES(3), 0);
  tt_expect_status(compare("aten::gt.Scalar_out", i, tt_ev_double(2.5), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 1, 0), 3);
  tt_expect_status(compare("aten::lt.Scalar_out", i, tt_ev_int(2), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(1, 0, 0), 3);
  tt_expect_status(compare("aten::eq.Scalar_out", i, tt_ev_int(2), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 0, 1), 3);
  // Half == 1.0001 compares in Half, where 1.0001 is 1.
  etr_tensor_t *h = tt_tensor(ETR_HALF, TT_SIZES(1), TT_VALUES(1));
  etr_tensor_t *out1 = tt_out(ETR_BOOL, TT_SIZES(1), 0);
  tt_expect_status(compare("aten::eq.Scalar_out", h, tt_ev_double(1.0001),
                           out1),
                   ETR_OK);
  tt_expect_values(out1, TT_VALUES(1), 1);
  // NaN compares false; the out may be any dtype (here Float).
  etr_tensor_t *f = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(NAN, 1));
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(compare("aten::gt.Scalar_out", f, tt_ev_int(0), out_f),
                   ETR_OK);
  tt_expect_values(out_f, TT_VALUES(0, 1), 2);
  // Bool tensors; complex equality.
  etr_tensor_t *b = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(2), 0);
  tt_expect_status(compare("aten::gt.Scalar_out", b, tt_ev_bool(false), out_b),
                   ETR_OK);
  tt_expect_values(out_b, TT_VALUES(1, 0), 2);
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(2),
                              TT_VALUES(1, 0, 1, 1));
  tt_expect_status(compare("aten::eq.Scalar_out", z, tt_ev_int(1), out_b),
                   ETR_OK);
  tt_expect_values(out_b, TT_VALUES(1, 0), 2);
  tt_expect_status(compare("aten::gt.Scalar_out", z, tt_ev_int(1), out_b),
                   ETR_ERR_NOT_SUPPORTED);
}

TT_TEST(compare, tensor_overloads) {
  static const etr_scalar_type_t kTypes[] = {
      ETR_BYTE, ETR_CHAR, ETR_SHORT, ETR_INT, ETR_LONG,
      ETR_HALF, ETR_BFLOAT16, ETR_FLOAT, ETR_DOUBLE};
  for (size_t k = 0; k < sizeof(kTypes) / sizeof(kTypes[0]); ++k) {
    etr_tensor_t *a = tt_noncontiguous(
        tt_tensor(kTypes[k], TT_SIZES(2, 2), TT_VALUES(1, 5, 3, 7)));
    etr_tensor_t *b = tt_tensor(kTypes[k], TT_SIZES(2), TT_VALUES(3, 5));
    etr_tensor_t *out = tt_out(ETR_BOOL, TT_SIZES(2, 2), 0);
    tt_expect_status(compare("aten::gt.Tensor_out", a, tt_ev_tensor(b), out),
                     ETR_OK);
    tt_expect_values(out, TT_VALUES(0, 0, 0, 1), 4);
    tt_expect_status(compare("aten::lt.Tensor_out", a, tt_ev_tensor(b), out),
                     ETR_OK);
    tt_expect_values(out, TT_VALUES(1, 0, 0, 0), 4);
    tt_expect_status(compare("aten::eq.Tensor_out", a, tt_ev_tensor(b), out),
                     ETR_OK);
    tt_expect_values(out, TT_VALUES(0, 1, 1, 0), 4);
  }
  // Mixed dtypes compare in the promoted dtype: int 2 > Float 1.5.
  etr_tensor_t *i = tt_tensor(ETR_INT, TT_SIZES(1), TT_VALUES(2));
  etr_tensor_t *f = tt_scalar_tensor(ETR_DOUBLE, 1.5);
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(1), 0);
  tt_expect_status(compare("aten::gt.Tensor_out", i, tt_ev_tensor(f), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(1), 1);
  // Shapes that do not broadcast; out too small.
  etr_tensor_t *three = tt_tensor(ETR_INT, TT_SIZES(3), NULL);
  etr_tensor_t *two = tt_tensor(ETR_INT, TT_SIZES(2), NULL);
  etr_tensor_t *out2 = tt_out(ETR_BOOL, TT_SIZES(3), 0);
  tt_expect_status(compare("aten::lt.Tensor_out", three, tt_ev_tensor(two),
                           out2),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *square = tt_tensor(ETR_INT, TT_SIZES(3, 3), NULL);
  tt_expect_status(compare("aten::lt.Tensor_out", square, tt_ev_tensor(three),
                           out2),
                   ETR_ERR_INVALID_ARGUMENT);
}

static etr_error_t where(etr_tensor_t *condition, etr_tensor_t *a,
                         etr_tensor_t *b, etr_tensor_t *out) {
  return TT_CALL("aten::where.self_out", tt_ev_tensor(condition),
                 tt_ev_tensor(a), tt_ev_tensor(b), tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

TT_TEST(where, values_broadcasting_and_promotion) {
  etr_tensor_t *condition = tt_tensor(ETR_BOOL, TT_SIZES(2, 1),
                                      TT_VALUES(1, 0));
  etr_tensor_t *a = tt_noncontiguous(
      tt_tensor(ETR_FLOAT, TT_SIZES(2, 3), TT_VALUES(1, 2, 3, 4, 5, 6)));
  etr_tensor_t *b = tt_scalar_tensor(ETR_FLOAT, -1);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
  tt_expect_status(where(condition, a, b, out), ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 3));
  tt_expect_values(out, TT_VALUES(1, 2, 3, -1, -1, -1), 6);
  // int tensor and zero-dim Double -> Double; uint8 condition accepted.
  etr_tensor_t *u8 = tt_tensor(ETR_BYTE, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *i = tt_tensor(ETR_INT, TT_SIZES(2), TT_VALUES(1, 2));
  etr_tensor_t *d = tt_scalar_tensor(ETR_DOUBLE, 1.5);
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(where(u8, i, d, out_d), ETR_OK);
  tt_expect_values(out_d, TT_VALUES(1, 1.5), 2);
  // Complex and Bool values are just selected.
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_DOUBLE, TT_SIZES(2),
                              TT_VALUES(1, 2, 3, 4));
  etr_tensor_t *out_z = tt_out(ETR_COMPLEX_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(where(u8, z, tt_scalar_tensor(ETR_COMPLEX_DOUBLE, 0),
                         out_z),
                   ETR_OK);
  tt_expect_values(out_z, TT_VALUES(1, 2, 0, 0), 4);
  // Empty condition.
  etr_tensor_t *empty = tt_tensor(ETR_BOOL, TT_SIZES(0), NULL);
  etr_tensor_t *out_e = tt_out(ETR_FLOAT, TT_SIZES(0), 0);
  tt_expect_status(where(empty, b, b, out_e), ETR_OK);
  tt_expect_shape(out_e, TT_SIZES(0));
}

TT_TEST(where, rejects) {
  etr_tensor_t *f = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(where(f, f, f, out), ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *c = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(where(c, f, f, out_d), ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *three = tt_tensor(ETR_FLOAT, TT_SIZES(3), NULL);
  tt_expect_status(where(c, f, three, out), ETR_ERR_INVALID_ARGUMENT);
}

// Review fix: a Half tensor next to a complex zero-dim tensor promotes to
// ComplexHalf, which PyTorch 2.13's eq and ne compute (and lt refuses:
// "lt_cpu" not implemented for 'ComplexHalf'). PyTorch:
// eq([1, 2, nan] half, tensor(1+0j)) = [True, False, False]; against
// 2049+0j (complex128) a Half 2049 (stored as 2048) compares equal since
// both round to Half. ComplexHalf tensors themselves compare too.
TT_TEST(compare, complex_half_equality) {
  etr_tensor_t *h =
      tt_tensor(ETR_HALF, TT_SIZES(3), TT_VALUES(1, 2, NAN));
  etr_tensor_t *one = tt_scalar_tensor(ETR_COMPLEX_FLOAT, 1.0);
  etr_tensor_t *out = tt_out(ETR_BOOL, TT_SIZES(3), 0);
  tt_expect_status(compare("aten::eq.Tensor_out", h, tt_ev_tensor(one), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(1, 0, 0), 3);
  tt_expect_status(compare("aten::ne.Tensor_out", h, tt_ev_tensor(one), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 1, 1), 3);
  // The zero-dim complex first; an imaginary part makes every element
  // differ; any out dtype (Float) is fine.
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(3), 0);
  tt_expect_status(TT_CALL("aten::eq.Tensor_out", tt_ev_tensor(one),
                           tt_ev_tensor(h), tt_ev_tensor(out_f),
                           tt_ev_tensor(out_f)),
                   ETR_OK);
  tt_expect_values(out_f, TT_VALUES(1, 0, 0), 3);
  etr_tensor_t *one_i = tt_tensor(ETR_COMPLEX_FLOAT, 0, NULL,
                                  TT_VALUES(1, 1));
  tt_expect_status(compare("aten::eq.Tensor_out", h, tt_ev_tensor(one_i),
                           out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 0, 0), 3);
  etr_tensor_t *big = tt_tensor(ETR_HALF, TT_SIZES(1), TT_VALUES(2049));
  etr_tensor_t *out1 = tt_out(ETR_BOOL, TT_SIZES(1), 0);
  tt_expect_status(compare("aten::eq.Tensor_out", big,
                           tt_ev_tensor(tt_scalar_tensor(ETR_COMPLEX_DOUBLE,
                                                         2049.0)),
                           out1),
                   ETR_OK);
  tt_expect_values(out1, TT_VALUES(1), 1);
  etr_tensor_t *ch = tt_cast(h, ETR_COMPLEX_HALF);
  tt_expect_status(compare("aten::eq.Tensor_out", ch, tt_ev_tensor(ch), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(1, 1, 0), 3);
  tt_expect_status(compare("aten::eq.Scalar_out", ch, tt_ev_int(1), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(1, 0, 0), 3);
  etr_tensor_t *out_ch = tt_out(ETR_COMPLEX_HALF, TT_SIZES(3), 0);
  tt_expect_status(compare("aten::lt.Tensor_out", h, tt_ev_tensor(h), out_ch),
                   ETR_OK);
  tt_expect_status(compare("aten::lt.Tensor_out", h, tt_ev_tensor(one), out),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(compare("aten::lt.Scalar_out", ch, tt_ev_int(1), out),
                   ETR_ERR_NOT_SUPPORTED);
}

// Review fix: shapes are checked before dtypes, as TensorIterator does:
// PyTorch 2.13 reports "The size of tensor a (3) must match the size of
// tensor b (4)" for lt on complex tensors and for uint16 with int32, and
// only with matching shapes the refused promotion (InvalidArgument) or
// the missing kernel (NotSupported).
TT_TEST(compare, shape_mismatch_reported_before_dtype) {
  etr_tensor_t *out = tt_out(ETR_BOOL, TT_SIZES(4), 0);
  etr_tensor_t *c3 = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(3), NULL);
  etr_tensor_t *c4 = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(4), NULL);
  tt_expect_status(compare("aten::lt.Tensor_out", c3, tt_ev_tensor(c4), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(compare("aten::lt.Tensor_out", c3, tt_ev_tensor(c3), out),
                   ETR_ERR_NOT_SUPPORTED);
  etr_tensor_t *u3 = tt_tensor(ETR_UINT16, TT_SIZES(3), NULL);
  etr_tensor_t *u4 = tt_tensor(ETR_UINT16, TT_SIZES(4), NULL);
  tt_expect_status(compare("aten::lt.Tensor_out", u3, tt_ev_tensor(u4), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(compare("aten::lt.Tensor_out", u3, tt_ev_tensor(u3), out),
                   ETR_ERR_NOT_SUPPORTED);
  etr_tensor_t *i4 = tt_tensor(ETR_INT, TT_SIZES(4), NULL);
  tt_expect_status(compare("aten::eq.Tensor_out", u3, tt_ev_tensor(i4), out),
                   ETR_ERR_INVALID_ARGUMENT);
  cr_expect(strstr(tt_last_diag()->message, "must match") != NULL, "%s",
            tt_last_diag()->message);
}
