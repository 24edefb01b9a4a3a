// SPDX-License-Identifier: Apache-2.0
//
// Reading and writing single tensor elements of any arithmetic dtype as one
// of three computation types: double, int64 or complex (two doubles).
//
// Reference kernels compute floating dtypes in double, integral and bool
// dtypes in int64 and complex dtypes in double pairs, and round the result
// to the op's result dtype before storing (etr_round_double,
// etr_wrap_int64), so a Half add still rounds like PyTorch's.
//
// Conversions follow c10's static_cast rules (c10/util/TypeCast.h):
//   * floating -> integral truncates toward zero through int64, then wraps
//     to the target width (so -1.0 -> uint8 is 255); NaN and values outside
//     int64 become INT64_MIN first, which is what x86 produces;
//   * anything -> Bool is "!= 0" (NaN is true; a complex value is true when
//     either part is non-zero);
//   * complex -> real keeps the real part; real -> complex has imag 0;
//   * Half and BFloat16 go through float (int64 -> Half is
//     float_to_half((float)v), double -> Half is float_to_half((float)v)).
//
// The per-element functions switch on the dtype; a dtype outside
// ETR_DTYPES_ALL plus uint16/32/64 and ComplexHalf reads as 0 and is not
// written. Kernels reject such dtypes before their loops (etr_check_dtype),
// so the loops never meet one.
#ifndef ETR_OPS_REFERENCE_SUPPORT_ELEMENT_H
#define ETR_OPS_REFERENCE_SUPPORT_ELEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/scalar_type.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_complex {
  double real;
  double imag;
} etr_complex_t;

// Address of the element `offset` elements (not bytes) from tensor->data.
static inline void *etr_element_at(const etr_tensor_t *tensor,
                                   int64_t offset) {
  return (char *)tensor->data +
         offset * (int64_t)etr_scalar_type_size(tensor->dtype);
}

double etr_load_double(etr_scalar_type_t dtype, const void *element);
int64_t etr_load_int64(etr_scalar_type_t dtype, const void *element);
etr_complex_t etr_load_complex(etr_scalar_type_t dtype, const void *element);
bool etr_load_bool(etr_scalar_type_t dtype, const void *element);

void etr_store_double(etr_scalar_type_t dtype, void *element, double value);
void etr_store_int64(etr_scalar_type_t dtype, void *element, int64_t value);
void etr_store_complex(etr_scalar_type_t dtype, void *element,
                       etr_complex_t value);

// Converts one element from `src_dtype` to `dst_dtype` (a plain byte copy
// when the dtypes are equal, which also covers dtypes without arithmetic).
void etr_convert_element(etr_scalar_type_t dst_dtype, void *dst,
                         etr_scalar_type_t src_dtype, const void *src);

// `value` rounded to what `dtype` holds and read back as double (Float:
// nearest float; Half: nearest half; integral: truncated and wrapped).
double etr_round_double(etr_scalar_type_t dtype, double value);
// `value` wrapped to the width of an integral `dtype` (Bool: 0/1).
int64_t etr_wrap_int64(etr_scalar_type_t dtype, int64_t value);
etr_complex_t etr_round_complex(etr_scalar_type_t dtype, etr_complex_t value);

// c10's floating -> int64 conversion described above, without undefined
// behaviour for NaN or out-of-range values.
int64_t etr_double_to_int64(double value);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_ELEMENT_H
