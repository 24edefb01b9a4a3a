// SPDX-License-Identifier: Apache-2.0
//
// Dtype rules shared by every kernel: dtype sets and kinds, PyTorch's type
// promotion (c10::promoteTypes and torch.result_type, including how Python
// numbers and zero-dim tensors take part), the canCast rule for out tensors,
// and the checks that turn a rejected dtype into an error naming the op.
//
// Error conventions used by every kernel in ops_reference/:
//   NotSupported     the op is not implemented for this dtype (PyTorch's
//                    "not implemented for 'Bool'", or a dtype etref does not
//                    handle yet, such as complex for some ops);
//   InvalidArgument  a dtype combination PyTorch's semantics reject (a
//                    Float result written into a Long out, mismatched out
//                    dtypes, unpromotable types).
#ifndef ETR_OPS_REFERENCE_SUPPORT_DTYPE_H
#define ETR_OPS_REFERENCE_SUPPORT_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/scalar_type.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// The result of a promotion PyTorch refuses (uint16 with int32, a quantized
// type with anything else).
#define ETR_SCALAR_TYPE_UNDEFINED ETR_NUM_SCALAR_TYPES

// A set of dtypes, one bit per etr_scalar_type_t value.
typedef uint32_t etr_dtype_set_t;
_Static_assert(ETR_NUM_SCALAR_TYPES <= 32, "a dtype set holds 32 types");

#define ETR_DTYPE_BIT(type) ((etr_dtype_set_t)1u << (unsigned)(type))
#define ETR_DTYPES_BOOL ETR_DTYPE_BIT(ETR_BOOL)
// The integer types ATen's "all types" dispatch covers (no uint16..64).
#define ETR_DTYPES_INTEGRAL                                               \
  (ETR_DTYPE_BIT(ETR_BYTE) | ETR_DTYPE_BIT(ETR_CHAR) |                    \
   ETR_DTYPE_BIT(ETR_SHORT) | ETR_DTYPE_BIT(ETR_INT) |                    \
   ETR_DTYPE_BIT(ETR_LONG))
#define ETR_DTYPES_FLOATING                                               \
  (ETR_DTYPE_BIT(ETR_HALF) | ETR_DTYPE_BIT(ETR_BFLOAT16) |                \
   ETR_DTYPE_BIT(ETR_FLOAT) | ETR_DTYPE_BIT(ETR_DOUBLE))
#define ETR_DTYPES_COMPLEX \
  (ETR_DTYPE_BIT(ETR_COMPLEX_FLOAT) | ETR_DTYPE_BIT(ETR_COMPLEX_DOUBLE))
#define ETR_DTYPES_REAL (ETR_DTYPES_INTEGRAL | ETR_DTYPES_FLOATING)
#define ETR_DTYPES_REAL_AND_BOOL (ETR_DTYPES_REAL | ETR_DTYPES_BOOL)
#define ETR_DTYPES_ALL (ETR_DTYPES_REAL_AND_BOOL | ETR_DTYPES_COMPLEX)
// uint16/32/64: PyTorch's CPU kernels accept them only in some ops (mul,
// div, eq, where, sum, the floating unary ops, fills and copies; not add
// or sub), and promote them only with themselves or a floating type.
#define ETR_DTYPES_WIDE_UNSIGNED                                          \
  (ETR_DTYPE_BIT(ETR_UINT16) | ETR_DTYPE_BIT(ETR_UINT32) |                \
   ETR_DTYPE_BIT(ETR_UINT64))
// Every dtype the element accessors compute on.
#define ETR_DTYPES_NUMERIC (ETR_DTYPES_ALL | ETR_DTYPES_WIDE_UNSIGNED)

// How a kernel computes on a dtype.
typedef enum etr_dtype_kind {
  ETR_KIND_BOOL = 0,      // Bool
  ETR_KIND_INTEGRAL = 1,  // int8..int64, uint8..uint64: computed in int64
  ETR_KIND_FLOATING = 2,  // Half, BFloat16, Float, Double: computed in double
  ETR_KIND_COMPLEX = 3,   // ComplexHalf/Float/Double: computed in double
  ETR_KIND_OTHER = 4,     // quantized, bit-packed, float8: no arithmetic
} etr_dtype_kind_t;

etr_dtype_kind_t etr_dtype_kind(etr_scalar_type_t type);

static inline bool etr_dtype_in(etr_scalar_type_t type, etr_dtype_set_t set) {
  return (unsigned)type < 32u && (set & ETR_DTYPE_BIT(type)) != 0;
}

// NotSupported unless `type` is in `set`: "<op>: <what> has dtype Bool,
// which this kernel does not support".
etr_error_t etr_check_dtype(etr_kernel_context_t *ctx, const char *what,
                            etr_scalar_type_t type, etr_dtype_set_t set);

// InvalidArgument unless `actual == expected` ("<op>: out has dtype Double
// but Float is required").
etr_error_t etr_check_dtype_equal(etr_kernel_context_t *ctx, const char *what,
                                  etr_scalar_type_t actual,
                                  etr_scalar_type_t expected);

// c10::promoteTypes: the smallest type both `a` and `b` convert to without
// changing category. ETR_SCALAR_TYPE_UNDEFINED when PyTorch refuses.
etr_scalar_type_t etr_promote_types(etr_scalar_type_t a, etr_scalar_type_t b);

// Same, failing with InvalidArgument when PyTorch refuses the pair.
etr_error_t etr_promote_types_checked(etr_kernel_context_t *ctx,
                                      etr_scalar_type_t a,
                                      etr_scalar_type_t b,
                                      etr_scalar_type_t *out);

// The dtype a Python number has on its own: Int -> Long, Double -> Double,
// Bool -> Bool.
etr_scalar_type_t etr_scalar_dtype(const etr_scalar_t *scalar);

// torch.result_type over several operands. Operands fall in three priority
// groups: tensors with dim > 0, zero-dim tensors, and wrapped numbers
// (Scalars). A lower group changes the result only when it is of a higher
// category (bool < integral < floating < complex); a floating Python number
// counts as the default dtype Float. So int32[2] + 2.5 is Float,
// int8[2] + 1000 is Int8, float16[2] + float64 zero-dim is Half, and
// int32[2] + float64 zero-dim is Double.
typedef struct etr_result_type {
  etr_scalar_type_t dim_result;
  etr_scalar_type_t zero_dim_result;
  etr_scalar_type_t wrapped_result;
  bool failed;  // some promotion inside a group was refused
} etr_result_type_t;

void etr_result_type_init(etr_result_type_t *state);
void etr_result_type_add_tensor(etr_result_type_t *state,
                                const etr_tensor_t *tensor);
void etr_result_type_add_scalar(etr_result_type_t *state,
                                const etr_scalar_t *scalar);
// The promoted dtype, or InvalidArgument when a promotion was refused.
etr_error_t etr_result_type_get(etr_kernel_context_t *ctx,
                                const etr_result_type_t *state,
                                etr_scalar_type_t *out);

// Shorthands for the two common shapes: tensor op tensor, tensor op scalar.
etr_error_t etr_result_type_tensors(etr_kernel_context_t *ctx,
                                    const etr_tensor_t *a,
                                    const etr_tensor_t *b,
                                    etr_scalar_type_t *out);
etr_error_t etr_result_type_tensor_scalar(etr_kernel_context_t *ctx,
                                          const etr_tensor_t *a,
                                          const etr_scalar_t *b,
                                          etr_scalar_type_t *out);

// c10::canCast: false when writing `from` into `to` would lose a category:
// complex -> real, floating -> integral, non-bool -> bool.
bool etr_can_cast(etr_scalar_type_t from, etr_scalar_type_t to);

// InvalidArgument unless etr_can_cast(result, out): "<op>: result type Float
// can't be cast to the desired output type Long".
etr_error_t etr_check_can_cast(etr_kernel_context_t *ctx,
                               etr_scalar_type_t result, etr_scalar_type_t out);

// Integral and Bool dtypes map to the default floating dtype Float (what
// PyTorch's float-only unary ops and true division compute in); every other
// dtype maps to itself.
etr_scalar_type_t etr_to_floating(etr_scalar_type_t type);

// Real value type of a complex dtype (ComplexFloat -> Float); a real dtype
// maps to itself.
etr_scalar_type_t etr_complex_value_type(etr_scalar_type_t type);

// c10's checked Scalar conversion (Scalar::to<T>, c10::overflows):
// InvalidArgument "value cannot be converted to type Char without
// overflow" when `scalar` lies outside the range of `type`. Unsigned
// targets also accept Int scalars down to -max (they wrap, as c10 allows:
// -1 into uint8 is 255, -256 is refused) but no negative Double (-2.5 or
// -0.5 into uint8 is refused, -0.0 fits); integral targets refuse NaN and
// inf; floating targets accept inf and nan but not finite values beyond
// their largest finite value; Bool accepts anything.
etr_error_t etr_check_scalar_fits(etr_kernel_context_t *ctx, const char *what,
                                  const etr_scalar_t *scalar,
                                  etr_scalar_type_t type);

// "aten::add.out" or "kernel" when the context carries no name.
const char *etr_op_name(const etr_kernel_context_t *ctx);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_DTYPE_H
