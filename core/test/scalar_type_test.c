// SPDX-License-Identifier: Apache-2.0
//
// Scalar type numbering, sizes and names against ExecuTorch's table, and the
// half/bfloat16 conversions against exhaustive and boundary cases.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "core/scalar_type.h"

Test(scalar_type, numbers_sizes_and_names_match_executorch) {
  // (number, size, name) as in ExecuTorch's scalar_type.h.
  static const struct {
    int number;
    size_t size;
    const char *name;
  } expected[] = {
      {0, 1, "Byte"},          {1, 1, "Char"},         {2, 2, "Short"},
      {3, 4, "Int"},           {4, 8, "Long"},         {5, 2, "Half"},
      {6, 4, "Float"},         {7, 8, "Double"},       {8, 4, "ComplexHalf"},
      {9, 8, "ComplexFloat"},  {10, 16, "ComplexDouble"}, {11, 1, "Bool"},
      {12, 1, "QInt8"},        {13, 1, "QUInt8"},      {14, 4, "QInt32"},
      {15, 2, "BFloat16"},     {16, 1, "QUInt4x2"},    {17, 1, "QUInt2x4"},
      {18, 1, "Bits1x8"},      {19, 1, "Bits2x4"},     {20, 1, "Bits4x2"},
      {21, 1, "Bits8"},        {22, 2, "Bits16"},      {23, 1, "Float8_e5m2"},
      {24, 1, "Float8_e4m3fn"}, {25, 1, "Float8_e5m2fnuz"},
      {26, 1, "Float8_e4m3fnuz"}, {27, 2, "UInt16"},   {28, 4, "UInt32"},
      {29, 8, "UInt64"},
  };
  for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i) {
    etr_scalar_type_t type = (etr_scalar_type_t)expected[i].number;
    cr_assert(etr_scalar_type_is_valid(expected[i].number));
    cr_assert_eq(etr_scalar_type_size(type), expected[i].size, "%s",
                 expected[i].name);
    cr_assert_str_eq(etr_scalar_type_name(type), expected[i].name);
  }
  cr_assert_not(etr_scalar_type_is_valid(-1));
  cr_assert_not(etr_scalar_type_is_valid(30));
  cr_assert_eq(etr_scalar_type_size((etr_scalar_type_t)30), 0);
  cr_assert_str_eq(etr_scalar_type_name((etr_scalar_type_t)99), "Invalid");
}

Test(scalar_type, classification) {
  cr_assert(etr_scalar_type_is_floating(ETR_HALF));
  cr_assert(etr_scalar_type_is_floating(ETR_BFLOAT16));
  cr_assert_not(etr_scalar_type_is_floating(ETR_COMPLEX_FLOAT));
  cr_assert(etr_scalar_type_is_integral(ETR_UINT64, false));
  cr_assert_not(etr_scalar_type_is_integral(ETR_BOOL, false));
  cr_assert(etr_scalar_type_is_integral(ETR_BOOL, true));
  cr_assert(etr_scalar_type_is_quantized(ETR_QUINT8));
  cr_assert(etr_scalar_type_is_complex(ETR_COMPLEX_DOUBLE));
  cr_assert(etr_scalar_type_is_unsigned(ETR_BYTE));
  cr_assert_not(etr_scalar_type_is_unsigned(ETR_CHAR));
  cr_assert_str_eq(etr_scalar_type_numpy_descr(ETR_FLOAT), "<f4");
  cr_assert_null(etr_scalar_type_numpy_descr(ETR_BFLOAT16));
}

static uint32_t bits_of(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

Test(half, every_half_round_trips_through_float) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float value = etr_half_to_float((etr_half_t)bits);
    if (isnan(value)) {
      cr_assert(isnan(etr_half_to_float(etr_float_to_half(value))));
      continue;
    }
    cr_assert_eq(etr_float_to_half(value), bits, "half 0x%04x", bits);
  }
}

Test(half, known_values_and_rounding) {
  cr_assert_eq(etr_float_to_half(1.0f), 0x3c00);
  cr_assert_eq(etr_float_to_half(-2.0f), 0xc000);
  cr_assert_eq(etr_float_to_half(65504.0f), 0x7bff);
  cr_assert_eq(etr_float_to_half(65519.0f), 0x7bff);  // rounds down
  cr_assert_eq(etr_float_to_half(65520.0f), 0x7c00);  // ties to even: inf
  cr_assert_eq(etr_float_to_half(INFINITY), 0x7c00);
  cr_assert_eq(etr_float_to_half(-0.0f), 0x8000);
  cr_assert_eq(etr_float_to_half(5.9604644775390625e-8f), 0x0001);
  cr_assert_eq(etr_float_to_half(2.98023223876953125e-8f), 0x0000);  // tie
  cr_assert_eq(etr_float_to_half(8.940696716308594e-8f), 0x0002);  // tie up
  cr_assert_eq(etr_float_to_half(1e-10f), 0x0000);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
  cr_assert_eq(etr_float_to_half(1.00048828125f), 0x3c00);
  cr_assert_eq(etr_float_to_half(1.00146484375f), 0x3c02);
  cr_assert(isnan(etr_half_to_float(etr_float_to_half(NAN))));
  cr_assert_float_eq(etr_half_to_float(0x3555), 0.333251953125f, 0.0f);
}

Test(bfloat16, conversions_round_to_nearest_even) {
  cr_assert_eq(etr_float_to_bfloat16(1.0f), 0x3f80);
  cr_assert_eq(bits_of(etr_bfloat16_to_float(0x3f80)), bits_of(1.0f));
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even.
  cr_assert_eq(etr_float_to_bfloat16(1.00390625f), 0x3f80);
  cr_assert_eq(etr_float_to_bfloat16(1.01171875f), 0x3f82);
  cr_assert_eq(etr_float_to_bfloat16(INFINITY), 0x7f80);
  cr_assert_eq(etr_float_to_bfloat16(-0.0f), 0x8000);
  cr_assert(isnan(etr_bfloat16_to_float(etr_float_to_bfloat16(NAN))));
  cr_assert(isnan(etr_bfloat16_to_float(etr_float_to_bfloat16(-NAN))));
  // The largest float rounds to infinity in bfloat16.
  cr_assert_eq(etr_float_to_bfloat16(3.4028234663852886e38f), 0x7f80);
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float value = etr_bfloat16_to_float((etr_bfloat16_t)bits);
    if (!isnan(value)) {
      cr_assert_eq(etr_float_to_bfloat16(value), bits);
    }
  }
}

Test(error, codes_and_names_match_executorch) {
  static const struct {
    int code;
    const char *name;
  } expected[] = {
      {0x00, "Ok"},
      {0x01, "Internal"},
      {0x02, "InvalidState"},
      {0x03, "EndOfMethod"},
      {0x04, "AlreadyLoaded"},
      {0x10, "NotSupported"},
      {0x11, "NotImplemented"},
      {0x12, "InvalidArgument"},
      {0x13, "InvalidType"},
      {0x14, "OperatorMissing"},
      {0x15, "RegistrationExceedingMaxKernels"},
      {0x16, "RegistrationAlreadyRegistered"},
      {0x20, "NotFound"},
      {0x21, "MemoryAllocationFailed"},
      {0x22, "AccessFailed"},
      {0x23, "InvalidProgram"},
      {0x24, "InvalidExternalData"},
      {0x25, "OutOfResources"},
      {0x30, "DelegateInvalidCompatibility"},
      {0x31, "DelegateMemoryAllocationFailed"},
      {0x32, "DelegateInvalidHandle"},
  };
  for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i) {
    cr_assert(etr_error_is_known(expected[i].code));
    cr_assert_str_eq(etr_error_name((etr_error_t)expected[i].code),
                     expected[i].name);
  }
  cr_assert_not(etr_error_is_known(0x05));
  cr_assert_str_eq(etr_error_name((etr_error_t)0x99), "Unknown");
}

Test(error, diag_keeps_the_first_error_and_prefixes) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(ETR_FAIL(&diag, ETR_ERR_INVALID_PROGRAM, "bad %d", 7),
               ETR_ERR_INVALID_PROGRAM);
  cr_assert_eq(ETR_FAIL(&diag, ETR_ERR_INTERNAL, "second"), ETR_ERR_INTERNAL);
  cr_assert_eq(diag.code, ETR_ERR_INVALID_PROGRAM);
  etr_diag_prefix(&diag, "value %u", 3u);
  cr_assert_str_eq(diag.message, "value 3: bad 7");
  cr_assert_not_null(strstr(diag.file, "scalar_type_test.c"));
  cr_assert_eq(ETR_FAIL(NULL, ETR_ERR_INTERNAL, "no diag"), ETR_ERR_INTERNAL);
}
