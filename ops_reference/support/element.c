// SPDX-License-Identifier: Apache-2.0
//
// Element loads, stores and conversions (see element.h). Every access goes
// through memcpy so unaligned views and strict aliasing stay well defined.
#include "ops_reference/support/element.h"

#include <math.h>
#include <string.h>

// One typed load per storage type; memcpy keeps unaligned and aliased
// accesses defined and compiles to a plain move.
#define ETR_DEFINE_LOAD(name, type)               \
  static inline type name(const void *element) { \
    type value;                                   \
    memcpy(&value, element, sizeof(value));       \
    return value;                                 \
  }
ETR_DEFINE_LOAD(load_u8, uint8_t)
ETR_DEFINE_LOAD(load_i8, int8_t)
ETR_DEFINE_LOAD(load_i16, int16_t)
ETR_DEFINE_LOAD(load_i32, int32_t)
ETR_DEFINE_LOAD(load_i64, int64_t)
ETR_DEFINE_LOAD(load_u16, uint16_t)
ETR_DEFINE_LOAD(load_u32, uint32_t)
ETR_DEFINE_LOAD(load_u64, uint64_t)
ETR_DEFINE_LOAD(load_f32, float)
ETR_DEFINE_LOAD(load_f64, double)

#define STORE(type, element, value)               \
  do {                                            \
    type stored_ = (type)(value);                 \
    memcpy((element), &stored_, sizeof(stored_)); \
  } while (0)

int64_t etr_double_to_int64(double value) {
  // -2^63 and 2^63 are exact doubles; NaN and anything outside [-2^63, 2^63)
  // is what x86's cvttsd2si reports as INT64_MIN.
  if (isnan(value) || value < -9223372036854775808.0 ||
      value >= 9223372036854775808.0) {
    return INT64_MIN;
  }
  return (int64_t)value;
}

double etr_load_double(etr_scalar_type_t dtype, const void *element) {
  switch (dtype) {
    case ETR_BOOL:
      return load_u8(element) != 0 ? 1.0 : 0.0;
    case ETR_BYTE:
      return (double)load_u8(element);
    case ETR_CHAR:
      return (double)load_i8(element);
    case ETR_SHORT:
      return (double)load_i16(element);
    case ETR_INT:
      return (double)load_i32(element);
    case ETR_LONG:
      return (double)load_i64(element);
    case ETR_UINT16:
      return (double)load_u16(element);
    case ETR_UINT32:
      return (double)load_u32(element);
    case ETR_UINT64:
      return (double)load_u64(element);
    case ETR_HALF:
      return (double)etr_half_to_float(load_u16(element));
    case ETR_BFLOAT16:
      return (double)etr_bfloat16_to_float(load_u16(element));
    case ETR_FLOAT:
      return (double)load_f32(element);
    case ETR_DOUBLE:
      return load_f64(element);
    case ETR_COMPLEX_HALF:
    case ETR_COMPLEX_FLOAT:
    case ETR_COMPLEX_DOUBLE:
      return etr_load_complex(dtype, element).real;
    default:
      return 0.0;
  }
}

int64_t etr_load_int64(etr_scalar_type_t dtype, const void *element) {
  switch (dtype) {
    case ETR_BOOL:
      return load_u8(element) != 0 ? 1 : 0;
    case ETR_BYTE:
      return load_u8(element);
    case ETR_CHAR:
      return load_i8(element);
    case ETR_SHORT:
      return load_i16(element);
    case ETR_INT:
      return load_i32(element);
    case ETR_LONG:
      return load_i64(element);
    case ETR_UINT16:
      return load_u16(element);
    case ETR_UINT32:
      return load_u32(element);
    case ETR_UINT64:
      return (int64_t)load_u64(element);
    case ETR_HALF:
    case ETR_BFLOAT16:
    case ETR_FLOAT:
    case ETR_DOUBLE:
    case ETR_COMPLEX_HALF:
    case ETR_COMPLEX_FLOAT:
    case ETR_COMPLEX_DOUBLE:
      return etr_double_to_int64(etr_load_double(dtype, element));
    default:
      return 0;
  }
}

etr_complex_t etr_load_complex(etr_scalar_type_t dtype, const void *element) {
  etr_complex_t result = {0.0, 0.0};
  const char *bytes = (const char *)element;
  switch (dtype) {
    case ETR_COMPLEX_HALF:
      result.real = etr_half_to_float(load_u16(bytes));
      result.imag = etr_half_to_float(load_u16(bytes + 2));
      return result;
    case ETR_COMPLEX_FLOAT:
      result.real = load_f32(bytes);
      result.imag = load_f32(bytes + 4);
      return result;
    case ETR_COMPLEX_DOUBLE:
      result.real = load_f64(bytes);
      result.imag = load_f64(bytes + 8);
      return result;
    default:
      result.real = etr_load_double(dtype, element);
      return result;
  }
}

bool etr_load_bool(etr_scalar_type_t dtype, const void *element) {
  if (etr_scalar_type_is_complex(dtype)) {
    etr_complex_t value = etr_load_complex(dtype, element);
    return value.real != 0.0 || value.imag != 0.0;
  }
  // NaN compares unequal to 0, so it is true, as in PyTorch.
  return etr_scalar_type_is_floating(dtype)
             ? etr_load_double(dtype, element) != 0.0
             : etr_load_int64(dtype, element) != 0;
}

void etr_store_int64(etr_scalar_type_t dtype, void *element, int64_t value) {
  // Integral targets wrap through the unsigned type of their width, which
  // is well defined in C (modular), as PyTorch's casts behave on every
  // platform it supports.
  switch (dtype) {
    case ETR_BOOL:
      STORE(uint8_t, element, value != 0 ? 1 : 0);
      return;
    case ETR_BYTE:
      STORE(uint8_t, element, (uint8_t)(uint64_t)value);
      return;
    case ETR_CHAR:
      STORE(int8_t, element, (int8_t)(uint8_t)(uint64_t)value);
      return;
    case ETR_SHORT:
      STORE(int16_t, element, (int16_t)(uint16_t)(uint64_t)value);
      return;
    case ETR_INT:
      STORE(int32_t, element, (int32_t)(uint32_t)(uint64_t)value);
      return;
    case ETR_LONG:
      STORE(int64_t, element, value);
      return;
    case ETR_UINT16:
      STORE(uint16_t, element, (uint16_t)(uint64_t)value);
      return;
    case ETR_UINT32:
      STORE(uint32_t, element, (uint32_t)(uint64_t)value);
      return;
    case ETR_UINT64:
      STORE(uint64_t, element, (uint64_t)value);
      return;
    case ETR_HALF:
      STORE(etr_half_t, element, etr_float_to_half((float)value));
      return;
    case ETR_BFLOAT16:
      STORE(etr_bfloat16_t, element, etr_float_to_bfloat16((float)value));
      return;
    case ETR_FLOAT:
      STORE(float, element, (float)value);
      return;
    case ETR_DOUBLE:
      STORE(double, element, (double)value);
      return;
    case ETR_COMPLEX_HALF:
    case ETR_COMPLEX_FLOAT:
    case ETR_COMPLEX_DOUBLE: {
      etr_complex_t complex_value = {(double)value, 0.0};
      etr_store_complex(dtype, element, complex_value);
      return;
    }
    default:
      return;
  }
}

void etr_store_double(etr_scalar_type_t dtype, void *element, double value) {
  switch (dtype) {
    case ETR_BOOL:
      STORE(uint8_t, element, value != 0.0 ? 1 : 0);
      return;
    case ETR_HALF:
      STORE(etr_half_t, element, etr_float_to_half((float)value));
      return;
    case ETR_BFLOAT16:
      STORE(etr_bfloat16_t, element, etr_float_to_bfloat16((float)value));
      return;
    case ETR_FLOAT:
      STORE(float, element, (float)value);
      return;
    case ETR_DOUBLE:
      STORE(double, element, value);
      return;
    case ETR_COMPLEX_HALF:
    case ETR_COMPLEX_FLOAT:
    case ETR_COMPLEX_DOUBLE: {
      etr_complex_t complex_value = {value, 0.0};
      etr_store_complex(dtype, element, complex_value);
      return;
    }
    case ETR_UINT64:
      // Through int64 values from 2^63 up would saturate; c10 converts
      // those directly (1e19 stays 1e19).
      if (value >= 9223372036854775808.0 && value < 18446744073709551616.0) {
        STORE(uint64_t, element, (uint64_t)value);
        return;
      }
      etr_store_int64(dtype, element, etr_double_to_int64(value));
      return;
    default:
      etr_store_int64(dtype, element, etr_double_to_int64(value));
      return;
  }
}

void etr_store_complex(etr_scalar_type_t dtype, void *element,
                       etr_complex_t value) {
  char *bytes = (char *)element;
  switch (dtype) {
    case ETR_COMPLEX_HALF:
      STORE(etr_half_t, bytes, etr_float_to_half((float)value.real));
      STORE(etr_half_t, bytes + 2, etr_float_to_half((float)value.imag));
      return;
    case ETR_COMPLEX_FLOAT:
      STORE(float, bytes, (float)value.real);
      STORE(float, bytes + 4, (float)value.imag);
      return;
    case ETR_COMPLEX_DOUBLE:
      STORE(double, bytes, value.real);
      STORE(double, bytes + 8, value.imag);
      return;
    case ETR_BOOL:
      STORE(uint8_t, element, value.real != 0.0 || value.imag != 0.0);
      return;
    default:
      etr_store_double(dtype, element, value.real);
      return;
  }
}

void etr_convert_element(etr_scalar_type_t dst_dtype, void *dst,
                         etr_scalar_type_t src_dtype, const void *src) {
  if (dst_dtype == src_dtype) {
    memmove(dst, src, etr_scalar_type_size(src_dtype));
    return;
  }
  if (etr_scalar_type_is_complex(src_dtype)) {
    etr_store_complex(dst_dtype, dst, etr_load_complex(src_dtype, src));
  } else if (etr_scalar_type_is_floating(src_dtype)) {
    etr_store_double(dst_dtype, dst, etr_load_double(src_dtype, src));
  } else {
    etr_store_int64(dst_dtype, dst, etr_load_int64(src_dtype, src));
  }
}

double etr_round_double(etr_scalar_type_t dtype, double value) {
  uint8_t scratch[16];
  etr_store_double(dtype, scratch, value);
  return etr_load_double(dtype, scratch);
}

int64_t etr_wrap_int64(etr_scalar_type_t dtype, int64_t value) {
  uint8_t scratch[16];
  etr_store_int64(dtype, scratch, value);
  return etr_load_int64(dtype, scratch);
}

etr_complex_t etr_round_complex(etr_scalar_type_t dtype, etr_complex_t value) {
  uint8_t scratch[16];
  etr_store_complex(dtype, scratch, value);
  return etr_load_complex(dtype, scratch);
}
