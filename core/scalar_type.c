// SPDX-License-Identifier: Apache-2.0
//
// Scalar type table and half/bfloat16 conversions (see scalar_type.h).
#include "core/scalar_type.h"

#include <string.h>

typedef struct {
  const char *name;
  size_t size;
  const char *numpy_descr;
} type_info_t;

// Indexed by etr_scalar_type_t; sizes follow ExecuTorch's C types.
static const type_info_t kTypes[ETR_NUM_SCALAR_TYPES] = {
    [ETR_BYTE] = {"Byte", 1, "|u1"},
    [ETR_CHAR] = {"Char", 1, "|i1"},
    [ETR_SHORT] = {"Short", 2, "<i2"},
    [ETR_INT] = {"Int", 4, "<i4"},
    [ETR_LONG] = {"Long", 8, "<i8"},
    [ETR_HALF] = {"Half", 2, "<f2"},
    [ETR_FLOAT] = {"Float", 4, "<f4"},
    [ETR_DOUBLE] = {"Double", 8, "<f8"},
    [ETR_COMPLEX_HALF] = {"ComplexHalf", 4, NULL},
    [ETR_COMPLEX_FLOAT] = {"ComplexFloat", 8, "<c8"},
    [ETR_COMPLEX_DOUBLE] = {"ComplexDouble", 16, "<c16"},
    [ETR_BOOL] = {"Bool", 1, "|b1"},
    [ETR_QINT8] = {"QInt8", 1, NULL},
    [ETR_QUINT8] = {"QUInt8", 1, NULL},
    [ETR_QINT32] = {"QInt32", 4, NULL},
    [ETR_BFLOAT16] = {"BFloat16", 2, NULL},
    [ETR_QUINT4X2] = {"QUInt4x2", 1, NULL},
    [ETR_QUINT2X4] = {"QUInt2x4", 1, NULL},
    [ETR_BITS1X8] = {"Bits1x8", 1, NULL},
    [ETR_BITS2X4] = {"Bits2x4", 1, NULL},
    [ETR_BITS4X2] = {"Bits4x2", 1, NULL},
    [ETR_BITS8] = {"Bits8", 1, NULL},
    [ETR_BITS16] = {"Bits16", 2, NULL},
    [ETR_FLOAT8_E5M2] = {"Float8_e5m2", 1, NULL},
    [ETR_FLOAT8_E4M3FN] = {"Float8_e4m3fn", 1, NULL},
    [ETR_FLOAT8_E5M2FNUZ] = {"Float8_e5m2fnuz", 1, NULL},
    [ETR_FLOAT8_E4M3FNUZ] = {"Float8_e4m3fnuz", 1, NULL},
    [ETR_UINT16] = {"UInt16", 2, "<u2"},
    [ETR_UINT32] = {"UInt32", 4, "<u4"},
    [ETR_UINT64] = {"UInt64", 8, "<u8"},
};

_Static_assert(ETR_NUM_SCALAR_TYPES == 30, "ScalarType numbering changed");
_Static_assert(ETR_BOOL == 11 && ETR_BFLOAT16 == 15 && ETR_UINT64 == 29,
               "ScalarType numbers must match ExecuTorch");

bool etr_scalar_type_is_valid(int type) {
  return type >= 0 && type < ETR_NUM_SCALAR_TYPES;
}

size_t etr_scalar_type_size(etr_scalar_type_t type) {
  return etr_scalar_type_is_valid((int)type) ? kTypes[type].size : 0;
}

const char *etr_scalar_type_name(etr_scalar_type_t type) {
  return etr_scalar_type_is_valid((int)type) ? kTypes[type].name : "Invalid";
}

const char *etr_scalar_type_numpy_descr(etr_scalar_type_t type) {
  return etr_scalar_type_is_valid((int)type) ? kTypes[type].numpy_descr : NULL;
}

bool etr_scalar_type_is_floating(etr_scalar_type_t type) {
  return type == ETR_HALF || type == ETR_BFLOAT16 || type == ETR_FLOAT ||
         type == ETR_DOUBLE;
}

bool etr_scalar_type_is_complex(etr_scalar_type_t type) {
  return type == ETR_COMPLEX_HALF || type == ETR_COMPLEX_FLOAT ||
         type == ETR_COMPLEX_DOUBLE;
}

bool etr_scalar_type_is_integral(etr_scalar_type_t type, bool include_bool) {
  switch (type) {
    case ETR_BYTE:
    case ETR_CHAR:
    case ETR_SHORT:
    case ETR_INT:
    case ETR_LONG:
    case ETR_UINT16:
    case ETR_UINT32:
    case ETR_UINT64:
      return true;
    case ETR_BOOL:
      return include_bool;
    default:
      return false;
  }
}

bool etr_scalar_type_is_quantized(etr_scalar_type_t type) {
  return type == ETR_QINT8 || type == ETR_QUINT8 || type == ETR_QINT32 ||
         type == ETR_QUINT4X2 || type == ETR_QUINT2X4;
}

bool etr_scalar_type_is_unsigned(etr_scalar_type_t type) {
  return type == ETR_BYTE || type == ETR_UINT16 || type == ETR_UINT32 ||
         type == ETR_UINT64;
}

static uint32_t float_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

static float bits_float(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

float etr_half_to_float(etr_half_t value) {
  uint32_t sign = (uint32_t)(value & 0x8000u) << 16;
  uint32_t exponent = (value >> 10) & 0x1fu;
  uint32_t mantissa = value & 0x3ffu;
  if (exponent == 0x1f) {  // infinity or NaN
    return bits_float(sign | 0x7f800000u | (mantissa << 13));
  }
  if (exponent == 0) {
    if (mantissa == 0) {
      return bits_float(sign);
    }
    // Subnormal half: value = mantissa * 2^-24, exact in float.
    float magnitude = (float)mantissa * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

etr_half_t etr_float_to_half(float value) {
  uint32_t bits = float_bits(value);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  uint32_t abs_bits = bits & 0x7fffffffu;
  if (abs_bits >= 0x7f800000u) {  // infinity or NaN
    uint16_t nan_payload = abs_bits > 0x7f800000u ? 0x200u : 0;
    return (etr_half_t)(sign | 0x7c00u | nan_payload |
                        ((abs_bits >> 13) & 0x3ffu));
  }
  if (abs_bits >= 0x477ff000u) {  // rounds to >= 65520: overflow
    return (etr_half_t)(sign | 0x7c00u);
  }
  if (abs_bits < 0x38800000u) {  // below the smallest normal half (2^-14)
    // Scale so the half subnormal unit (2^-24) becomes 1, then round to
    // nearest even in float arithmetic, which is exact here.
    float magnitude = bits_float(abs_bits) * 16777216.0f;
    float rounded = magnitude + 8388608.0f - 8388608.0f;  // RNE to integer
    return (etr_half_t)(sign | (uint16_t)rounded);
  }
  uint32_t mantissa_odd = (abs_bits >> 13) & 1u;
  abs_bits += 0xfffu + mantissa_odd;  // round to nearest even on bit 13
  return (etr_half_t)(sign | (uint16_t)((abs_bits - 0x38000000u) >> 13));
}

float etr_bfloat16_to_float(etr_bfloat16_t value) {
  return bits_float((uint32_t)value << 16);
}

etr_bfloat16_t etr_float_to_bfloat16(float value) {
  uint32_t bits = float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return (etr_bfloat16_t)((bits >> 16) | 0x40u);  // quiet NaN, keep sign
  }
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb;
  return (etr_bfloat16_t)(bits >> 16);
}
