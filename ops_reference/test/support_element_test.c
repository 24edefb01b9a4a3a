// SPDX-License-Identifier: Apache-2.0
//
// support/element.h: loads and stores of every dtype, c10's conversion
// rules (float -> int truncation through int64 and wrap, NaN and
// out-of-range, anything -> Bool, complex -> real), rounding helpers.
// Expected values follow PyTorch 2.13 (e.g. tensor([-1.0]).to(uint8) is
// 255, tensor([300.7]).to(int8) is 44).
#include <math.h>
#include <string.h>

#include "ops_reference/support/element.h"
#include "ops_reference/test/test_util.h"

TT_TEST(element, round_trips_every_dtype) {
  static const etr_scalar_type_t kTypes[] = {
      ETR_BOOL, ETR_BYTE, ETR_CHAR, ETR_SHORT, ETR_INT, ETR_LONG,
      ETR_HALF, ETR_BFLOAT16, ETR_FLOAT, ETR_DOUBLE, ETR_UINT16, ETR_UINT32,
      ETR_UINT64, ETR_COMPLEX_HALF, ETR_COMPLEX_FLOAT, ETR_COMPLEX_DOUBLE};
  for (size_t i = 0; i < sizeof(kTypes) / sizeof(kTypes[0]); ++i) {
    uint8_t buffer[16];
    etr_store_double(kTypes[i], buffer, 1.0);
    cr_expect_eq(etr_load_double(kTypes[i], buffer), 1.0, "%s",
                 etr_scalar_type_name(kTypes[i]));
    etr_store_int64(kTypes[i], buffer, 0);
    cr_expect_eq(etr_load_int64(kTypes[i], buffer), 0);
    cr_expect(!etr_load_bool(kTypes[i], buffer));
  }
}

TT_TEST(element, c10_conversions) {
  uint8_t buffer[16];
  etr_store_double(ETR_BYTE, buffer, -1.0);
  cr_expect_eq(etr_load_int64(ETR_BYTE, buffer), 255);
  etr_store_double(ETR_CHAR, buffer, 300.7);
  cr_expect_eq(etr_load_int64(ETR_CHAR, buffer), 44);
  etr_store_double(ETR_INT, buffer, -2.9);
  cr_expect_eq(etr_load_int64(ETR_INT, buffer), -2);
  cr_expect_eq(etr_double_to_int64(NAN), INT64_MIN);
  cr_expect_eq(etr_double_to_int64(1e300), INT64_MIN);
  cr_expect_eq(etr_double_to_int64(-9223372036854775808.0), INT64_MIN);
  cr_expect_eq(etr_double_to_int64(9.0e18), (int64_t)9.0e18);
  etr_store_double(ETR_BOOL, buffer, NAN);
  cr_expect_eq(buffer[0], 1);
  etr_store_double(ETR_BOOL, buffer, -0.0);
  cr_expect_eq(buffer[0], 0);
  etr_store_int64(ETR_SHORT, buffer, 70000);
  cr_expect_eq(etr_load_int64(ETR_SHORT, buffer), 70000 - 65536);
  // Half and BFloat16 round to nearest even through float.
  etr_store_double(ETR_HALF, buffer, 2049.0);
  cr_expect_eq(etr_load_double(ETR_HALF, buffer), 2048.0);
  etr_store_double(ETR_BFLOAT16, buffer, 1.0 + 1.0 / 256.0);
  cr_expect_eq(etr_load_double(ETR_BFLOAT16, buffer), 1.0);
  etr_store_int64(ETR_FLOAT, buffer, 16777217);
  cr_expect_eq(etr_load_double(ETR_FLOAT, buffer), 16777216.0);
  // Complex <-> real.
  etr_complex_t z = {1.5, -2.0};
  etr_store_complex(ETR_DOUBLE, buffer, z);
  cr_expect_eq(etr_load_double(ETR_DOUBLE, buffer), 1.5);
  etr_store_complex(ETR_BOOL, buffer, (etr_complex_t){0.0, 1.0});
  cr_expect_eq(buffer[0], 1);
  etr_store_double(ETR_COMPLEX_FLOAT, buffer, 3.0);
  etr_complex_t back = etr_load_complex(ETR_COMPLEX_FLOAT, buffer);
  cr_expect(back.real == 3.0 && back.imag == 0.0);
  // etr_convert_element picks the path by source kind.
  int64_t big = (1LL << 53) + 1;
  int64_t target = 0;
  etr_convert_element(ETR_LONG, &target, ETR_LONG, &big);
  cr_expect_eq(target, big);
  float f = 0.0f;
  etr_convert_element(ETR_FLOAT, &f, ETR_LONG, &big);
  cr_expect_eq(f, (float)big);
}

TT_TEST(element, rounding_helpers) {
  cr_expect_eq(etr_round_double(ETR_FLOAT, 0.1), (double)0.1f);
  cr_expect_eq(etr_round_double(ETR_LONG, -3.7), -3.0);
  cr_expect_eq(etr_wrap_int64(ETR_BYTE, 256 + 7), 7);
  cr_expect_eq(etr_wrap_int64(ETR_BOOL, 5), 1);
  etr_complex_t z =
      etr_round_complex(ETR_COMPLEX_FLOAT, (etr_complex_t){0.1, 0.2});
  cr_expect(z.real == (double)0.1f && z.imag == (double)0.2f);
}
