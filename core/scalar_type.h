// SPDX-License-Identifier: Apache-2.0
//
// Scalar types, numbered exactly as ExecuTorch's ScalarType (schema/
// scalar_type.fbs and runtime/core/portable_type/scalar_type.h, which follow
// c10::ScalarType), with element sizes, names and classification, plus the
// float16 and bfloat16 conversions every kernel uses.
//
// Half and BFloat16 values are stored as their raw 16-bit patterns
// (etr_half_t, etr_bfloat16_t); arithmetic is done in float after conversion,
// as PyTorch's CPU kernels do.
#ifndef ETR_CORE_SCALAR_TYPE_H
#define ETR_CORE_SCALAR_TYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_scalar_type {
  ETR_BYTE = 0,   // uint8
  ETR_CHAR = 1,   // int8
  ETR_SHORT = 2,  // int16
  ETR_INT = 3,    // int32
  ETR_LONG = 4,   // int64
  ETR_HALF = 5,   // IEEE binary16
  ETR_FLOAT = 6,
  ETR_DOUBLE = 7,
  ETR_COMPLEX_HALF = 8,
  ETR_COMPLEX_FLOAT = 9,
  ETR_COMPLEX_DOUBLE = 10,
  ETR_BOOL = 11,
  ETR_QINT8 = 12,
  ETR_QUINT8 = 13,
  ETR_QINT32 = 14,
  ETR_BFLOAT16 = 15,
  ETR_QUINT4X2 = 16,
  ETR_QUINT2X4 = 17,
  ETR_BITS1X8 = 18,
  ETR_BITS2X4 = 19,
  ETR_BITS4X2 = 20,
  ETR_BITS8 = 21,
  ETR_BITS16 = 22,
  ETR_FLOAT8_E5M2 = 23,
  ETR_FLOAT8_E4M3FN = 24,
  ETR_FLOAT8_E5M2FNUZ = 25,
  ETR_FLOAT8_E4M3FNUZ = 26,
  ETR_UINT16 = 27,
  ETR_UINT32 = 28,
  ETR_UINT64 = 29,
  ETR_NUM_SCALAR_TYPES = 30,
} etr_scalar_type_t;

typedef uint16_t etr_half_t;      // raw IEEE binary16 bits
typedef uint16_t etr_bfloat16_t;  // raw bfloat16 bits (upper half of a float)

// True for the values 0..29 above (every number ExecuTorch defines).
bool etr_scalar_type_is_valid(int type);

// Element size in bytes; 0 for an invalid type.
size_t etr_scalar_type_size(etr_scalar_type_t type);

// ExecuTorch's name ("Float", "BFloat16"), or "Invalid".
const char *etr_scalar_type_name(etr_scalar_type_t type);

// numpy's dtype descriptor for .npy files ("<f4"), or NULL when numpy has no
// equivalent (bfloat16, quantized, bit-packed and float8 types).
const char *etr_scalar_type_numpy_descr(etr_scalar_type_t type);

bool etr_scalar_type_is_floating(etr_scalar_type_t type);  // half bf16 f32 f64
bool etr_scalar_type_is_complex(etr_scalar_type_t type);
// Integer types (signed and unsigned); `include_bool` adds Bool.
bool etr_scalar_type_is_integral(etr_scalar_type_t type, bool include_bool);
bool etr_scalar_type_is_quantized(etr_scalar_type_t type);
bool etr_scalar_type_is_unsigned(etr_scalar_type_t type);  // Byte, UInt16..64

// Conversions with round-to-nearest-even; NaN stays NaN (quiet), overflow
// goes to infinity, float32 subnormals and binary16 subnormals are handled.
float etr_half_to_float(etr_half_t value);
etr_half_t etr_float_to_half(float value);
float etr_bfloat16_to_float(etr_bfloat16_t value);
etr_bfloat16_t etr_float_to_bfloat16(float value);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_SCALAR_TYPE_H
