// SPDX-License-Identifier: Apache-2.0
//
// Integer elementwise arithmetic and sign (see integer.h).
#include "ops_optimized/binary/integer.h"

#include <string.h>

#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/plan.h"
#include "ops_optimized/common/args.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// The typed loops here are written for the compiler to vectorize, which
// GCC 12 does at -O2 only for loops that need no scalar epilogue: ask for
// it (clang vectorizes at -O2 already).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

bool etr_int_dtype(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_BYTE:
    case ETR_CHAR:
    case ETR_SHORT:
    case ETR_INT:
    case ETR_LONG:
      return true;
    default:
      return false;
  }
}

// etr_int_probe with the out's dtype given: self's, or Bool for a
// comparison (kept_dtype false).
static bool probe(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                  size_t num_args, bool scalar_other, size_t out_index,
                  bool kept_dtype, etr_int_call_t *call) {
  memset(call, 0, sizeof(*call));
  call->alpha = 1;
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  call->out = etr_opt_tensor_arg(args, num_args, out_index);
  if (self == NULL || call->out == NULL || !etr_int_dtype(self->dtype) ||
      call->out->dtype != (kept_dtype ? self->dtype : ETR_BOOL)) {
    return false;
  }
  call->a = self;
  if (!scalar_other) {
    call->b = etr_opt_tensor_arg(args, num_args, 1);
    return call->b != NULL && call->b->dtype == self->dtype;
  }
  etr_scalar_t scalar;
  etr_scalar_type_t result;
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  if (!etr_ew_scalar_arg(ctx, args, num_args, 1, &scalar) ||
      scalar.kind == ETR_SCALAR_DOUBLE ||
      etr_result_type_tensor_scalar(&probe, self, &scalar, &result) !=
          ETR_OK ||
      result != self->dtype) {
    return false;
  }
  call->value = etr_wrap_int64(result, scalar.as_int);
  return true;
}

bool etr_int_probe(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                   size_t num_args, bool scalar_other, size_t out_index,
                   etr_int_call_t *call) {
  return probe(ctx, args, num_args, scalar_other, out_index, true, call);
}

bool etr_int_probe_alpha(const etr_kernel_context_t *ctx,
                         etr_evalue_t **args, size_t num_args,
                         bool scalar_other, etr_int_call_t *call) {
  etr_scalar_t alpha;
  if (num_args != 5 ||
      !etr_int_probe(ctx, args, num_args, scalar_other, 3, call) ||
      !etr_ew_scalar_arg(ctx, args, num_args, 2, &alpha) ||
      alpha.kind != ETR_SCALAR_INT) {
    return false;
  }
  call->alpha = alpha.as_int;
  return true;
}

// One element. T is the storage type; values are exact in int64. x / -1
// is a wrapping negation (the caller stores the low bits).
static inline int64_t divide(etr_int_op_t op, int64_t a, int64_t b) {
  if (b == -1) {
    return op == ETR_INT_DIV_TRUNC || op == ETR_INT_DIV_FLOOR
               ? (int64_t)(0 - (uint64_t)a)
               : 0;
  }
  int64_t r = a % b;
  switch (op) {
    case ETR_INT_FMOD:
      return r;
    case ETR_INT_REMAINDER:
      return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
    case ETR_INT_DIV_TRUNC:
      return a / b;
    default:
      return a / b - (r != 0 && ((a < 0) != (b < 0)) ? 1 : 0);
  }
}

// The loops, per storage type and op (the op switch hoisted by the
// compiler out of the constant-op instantiations).
#define INT_RUNS(T)                                                       \
  static void run_##T(etr_int_op_t op, size_t n, const T *a,              \
                      const T *b, T value, T *y) {                        \
    switch (op) {                                                         \
      case ETR_INT_FMOD:                                                  \
        for (size_t i = 0; i < n; ++i) {                                  \
          y[i] = (T)divide(ETR_INT_FMOD, a[i], b != NULL ? b[i] : value); \
        }                                                                 \
        break;                                                            \
      case ETR_INT_REMAINDER:                                             \
        for (size_t i = 0; i < n; ++i) {                                  \
          y[i] = (T)divide(ETR_INT_REMAINDER, a[i],                       \
                           b != NULL ? b[i] : value);                     \
        }                                                                 \
        break;                                                            \
      case ETR_INT_DIV_TRUNC:                                             \
        for (size_t i = 0; i < n; ++i) {                                  \
          y[i] = (T)divide(ETR_INT_DIV_TRUNC, a[i],                       \
                           b != NULL ? b[i] : value);                     \
        }                                                                 \
        break;                                                            \
      default:                                                            \
        for (size_t i = 0; i < n; ++i) {                                  \
          y[i] = (T)divide(ETR_INT_DIV_FLOOR, a[i],                       \
                           b != NULL ? b[i] : value);                     \
        }                                                                 \
        break;                                                            \
    }                                                                     \
  }

INT_RUNS(uint8_t)
INT_RUNS(int8_t)
INT_RUNS(int16_t)
INT_RUNS(int32_t)
INT_RUNS(int64_t)
#undef INT_RUNS

static inline bool is_division(etr_int_op_t op) {
  return op <= ETR_INT_DIV_FLOOR;
}

// add, sub, mul, maximum, minimum on values exact in int64: the wrapping
// int64 op-math of the reference (the caller stores the low bits).
static inline int64_t combine(etr_int_op_t op, int64_t x, int64_t z,
                              uint64_t alpha) {
  switch (op) {
    case ETR_INT_ADD:
      return (int64_t)((uint64_t)x + alpha * (uint64_t)z);
    case ETR_INT_SUB:
      return (int64_t)((uint64_t)x - alpha * (uint64_t)z);
    case ETR_INT_MUL:
      return (int64_t)((uint64_t)x * (uint64_t)z);
    case ETR_INT_MAXIMUM:
      return x < z ? z : x;
    default:
      return z < x ? z : x;
  }
}

// One run of an arithmetic op: a or b NULL reads a0 or b0 throughout.
// Each op gets its own loops (OP a constant), which the compiler
// vectorizes.
#define ARITH_LOOPS(T, OP)                                              \
  if (a != NULL && b != NULL) {                                         \
    for (size_t i = 0; i < n; ++i) {                                    \
      y[i] = (T)combine(OP, a[i], b[i], alpha);                         \
    }                                                                   \
  } else if (a != NULL) {                                               \
    for (size_t i = 0; i < n; ++i) {                                    \
      y[i] = (T)combine(OP, a[i], b0, alpha);                           \
    }                                                                   \
  } else {                                                              \
    for (size_t i = 0; i < n; ++i) {                                    \
      y[i] = (T)combine(OP, a0, b[i], alpha);                           \
    }                                                                   \
  }
#define ARITH_RUNS(T)                                                   \
  static void arith_##T(etr_int_op_t op, size_t n, const T *a, T a0,    \
                        const T *b, T b0, uint64_t alpha, T *y) {       \
    switch (op) {                                                       \
      case ETR_INT_ADD: ARITH_LOOPS(T, ETR_INT_ADD) break;              \
      case ETR_INT_SUB: ARITH_LOOPS(T, ETR_INT_SUB) break;              \
      case ETR_INT_MUL: ARITH_LOOPS(T, ETR_INT_MUL) break;              \
      case ETR_INT_MAXIMUM: ARITH_LOOPS(T, ETR_INT_MAXIMUM) break;      \
      default: ARITH_LOOPS(T, ETR_INT_MINIMUM) break;                   \
    }                                                                   \
  }

ARITH_RUNS(uint8_t)
ARITH_RUNS(int8_t)
ARITH_RUNS(int16_t)
ARITH_RUNS(int32_t)
ARITH_RUNS(int64_t)
#undef ARITH_RUNS
#undef ARITH_LOOPS

// Comparisons of values exact in int64, into 0/1 bytes (a Bool out).
static inline uint8_t compare_values(etr_compare_op_t op, int64_t x,
                                     int64_t z) {
  switch (op) {
    case ETR_COMPARE_OP_EQ:
      return x == z;
    case ETR_COMPARE_OP_NE:
      return x != z;
    case ETR_COMPARE_OP_LT:
      return x < z;
    case ETR_COMPARE_OP_LE:
      return x <= z;
    case ETR_COMPARE_OP_GT:
      return x > z;
    default:
      return x >= z;
  }
}

#define COMPARE_LOOPS(OP)                                               \
  if (a != NULL && b != NULL) {                                         \
    for (size_t i = 0; i < n; ++i) {                                    \
      y[i] = compare_values(OP, a[i], b[i]);                            \
    }                                                                   \
  } else if (a != NULL) {                                               \
    for (size_t i = 0; i < n; ++i) {                                    \
      y[i] = compare_values(OP, a[i], b0);                              \
    }                                                                   \
  } else {                                                              \
    for (size_t i = 0; i < n; ++i) {                                    \
      y[i] = compare_values(OP, a0, b[i]);                              \
    }                                                                   \
  }
#define COMPARE_RUNS(T)                                                 \
  static void compare_##T(etr_compare_op_t op, size_t n, const T *a,    \
                          T a0, const T *b, T b0, uint8_t *y) {         \
    switch (op) {                                                       \
      case ETR_COMPARE_OP_EQ: COMPARE_LOOPS(ETR_COMPARE_OP_EQ) break;   \
      case ETR_COMPARE_OP_NE: COMPARE_LOOPS(ETR_COMPARE_OP_NE) break;   \
      case ETR_COMPARE_OP_LT: COMPARE_LOOPS(ETR_COMPARE_OP_LT) break;   \
      case ETR_COMPARE_OP_LE: COMPARE_LOOPS(ETR_COMPARE_OP_LE) break;   \
      case ETR_COMPARE_OP_GT: COMPARE_LOOPS(ETR_COMPARE_OP_GT) break;   \
      default: COMPARE_LOOPS(ETR_COMPARE_OP_GE) break;                  \
    }                                                                   \
  }

COMPARE_RUNS(uint8_t)
COMPARE_RUNS(int8_t)
COMPARE_RUNS(int16_t)
COMPARE_RUNS(int32_t)
COMPARE_RUNS(int64_t)
#undef COMPARE_RUNS
#undef COMPARE_LOOPS

// One run of an arithmetic op or comparison; a NULL operand is the
// constant at `a0` or `b0` (an element of the dtype).
static void arith(etr_scalar_type_t dtype, const etr_int_call_t *call,
                  size_t n, const void *a, const void *a0, const void *b,
                  const void *b0, void *y) {
  int64_t va = a0 != NULL ? etr_load_int64(dtype, a0) : 0;
  int64_t vb = b0 != NULL ? etr_load_int64(dtype, b0) : 0;
  etr_int_op_t op = call->op;
  uint64_t alpha = (uint64_t)call->alpha;
  if (op == ETR_INT_COMPARE) {
    etr_compare_op_t c = call->compare;
    switch (dtype) {
      case ETR_BYTE:
        compare_uint8_t(c, n, a, (uint8_t)va, b, (uint8_t)vb, y);
        break;
      case ETR_CHAR:
        compare_int8_t(c, n, a, (int8_t)va, b, (int8_t)vb, y);
        break;
      case ETR_SHORT:
        compare_int16_t(c, n, a, (int16_t)va, b, (int16_t)vb, y);
        break;
      case ETR_INT:
        compare_int32_t(c, n, a, (int32_t)va, b, (int32_t)vb, y);
        break;
      default:
        compare_int64_t(c, n, a, va, b, vb, y);
        break;
    }
    return;
  }
  switch (dtype) {
    case ETR_BYTE:
      arith_uint8_t(op, n, a, (uint8_t)va, b, (uint8_t)vb, alpha, y);
      break;
    case ETR_CHAR:
      arith_int8_t(op, n, a, (int8_t)va, b, (int8_t)vb, alpha, y);
      break;
    case ETR_SHORT:
      arith_int16_t(op, n, a, (int16_t)va, b, (int16_t)vb, alpha, y);
      break;
    case ETR_INT:
      arith_int32_t(op, n, a, (int32_t)va, b, (int32_t)vb, alpha, y);
      break;
    default:
      arith_int64_t(op, n, a, va, b, vb, alpha, y);
      break;
  }
}

// True when some element of b (any layout) is zero.
static bool has_zero(const etr_tensor_t *b) {
  const etr_tensor_t *operands[1] = {b};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, b->dim, b->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    if (etr_load_int64(b->dtype, etr_element_at(b, iter.offsets[0])) == 0) {
      return true;
    }
  }
  return false;
}

// One run; the broadcast operand (if any) as `value`.
static void run(etr_scalar_type_t dtype, etr_int_op_t op, size_t n,
                const void *a, const void *b, int64_t value, void *y) {
  switch (dtype) {
    case ETR_BYTE:
      run_uint8_t(op, n, a, b, (uint8_t)value, y);
      break;
    case ETR_CHAR:
      run_int8_t(op, n, a, b, (int8_t)value, y);
      break;
    case ETR_SHORT:
      run_int16_t(op, n, a, b, (int16_t)value, y);
      break;
    case ETR_INT:
      run_int32_t(op, n, a, b, (int32_t)value, y);
      break;
    default:
      run_int64_t(op, n, a, b, value, y);
      break;
  }
}

etr_error_t etr_int_execute(etr_kernel_context_t *ctx,
                            const etr_int_call_t *call, bool *handled) {
  const etr_tensor_t *a = call->a;
  const etr_tensor_t *b = call->b;
  etr_tensor_t *out = call->out;
  int32_t dim = a->dim;
  int64_t sizes[ETR_MAX_DIMS];
  *handled = false;
  if (b != NULL) {
    if (!etr_plan_broadcast_shape(a->dim, a->sizes, b->dim, b->sizes, &dim,
                                  sizes)) {
      return ETR_OK;
    }
  } else {
    memcpy(sizes, a->sizes, (size_t)a->dim * sizeof(int64_t));
  }
  // Any zero divisor, even for an empty result (the reference kernels
  // differ there: remainder raises, fmod does not), is the reference's to
  // judge. A Scalar divisor is known even in a dry run (no data then).
  bool division = is_division(call->op);
  if (division &&
      (b != NULL ? !ctx->dry_run && has_zero(b) : call->value == 0)) {
    return ETR_OK;
  }
  *handled = true;
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run || etr_tensor_numel(out) == 0) {
    return ETR_OK;
  }
  const etr_tensor_t *inputs[2] = {a, b};
  etr_plan_t plan;
  if (!etr_plan_init(&plan, out, inputs, b != NULL ? 2 : 1)) {
    *handled = false;
    return ETR_OK;
  }
  size_t size = etr_scalar_type_size(a->dtype);
  size_t out_size = etr_scalar_type_size(out->dtype);
  size_t n = (size_t)plan.run;
  etr_plan_cursor_t cursor;
  etr_plan_cursor_init(&cursor);
  // The Scalar b as an element of the dtype (already wrapped to it).
  uint8_t scalar[8];
  etr_store_int64(a->dtype, scalar, call->value);
  for (int64_t r = 0; r < plan.runs; ++r) {
    uint8_t *y = (uint8_t *)out->data + (size_t)cursor.offsets[0] * out_size;
    const uint8_t *x = (const uint8_t *)a->data +
                       (size_t)cursor.offsets[1] * size;
    if (!division) {
      const uint8_t *z = b != NULL ? (const uint8_t *)b->data +
                                         (size_t)cursor.offsets[2] * size
                                   : scalar;
      bool a_constant = plan.run_broadcast[1];
      bool b_constant = b == NULL || plan.run_broadcast[2];
      arith(a->dtype, call, n, a_constant ? NULL : x, a_constant ? x : NULL,
            b_constant ? NULL : z, b_constant ? z : NULL, y);
    } else if (b == NULL) {
      run(a->dtype, call->op, n, x, NULL, call->value, y);
    } else {
      const uint8_t *z = (const uint8_t *)b->data +
                         (size_t)cursor.offsets[2] * size;
      if (plan.run_broadcast[2]) {
        run(a->dtype, call->op, n, x, NULL, etr_load_int64(b->dtype, z), y);
      } else if (plan.run_broadcast[1]) {
        // A constant dividend: run element by element through a copy.
        int64_t dividend = etr_load_int64(a->dtype, x);
        for (size_t i = 0; i < n; ++i) {
          int64_t divisor = etr_load_int64(b->dtype, z + i * size);
          etr_store_int64(a->dtype, y + i * size,
                          divide(call->op, dividend, divisor));
        }
      } else {
        run(a->dtype, call->op, n, x, z, 0, y);
      }
    }
    etr_plan_cursor_next(&cursor, &plan);
  }
  return ETR_OK;
}

etr_error_t etr_int_arith(etr_kernel_context_t *ctx, etr_evalue_t **args,
                          size_t num_args, etr_int_op_t op,
                          bool scalar_other, bool *handled) {
  *handled = false;
  etr_int_call_t call;
  bool alpha = op == ETR_INT_ADD || op == ETR_INT_SUB;
  bool probed = alpha ? etr_int_probe_alpha(ctx, args, num_args,
                                            scalar_other, &call)
                      : num_args == 4 && etr_int_probe(ctx, args, num_args,
                                                       scalar_other, 2,
                                                       &call);
  if (!probed) {
    return ETR_OK;
  }
  call.op = op;
  return etr_int_execute(ctx, &call, handled);
}

etr_error_t etr_int_compare(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args, etr_compare_op_t compare,
                            bool scalar_other, bool *handled) {
  *handled = false;
  etr_int_call_t call;
  if (num_args != 4 ||
      !probe(ctx, args, num_args, scalar_other, 2, false, &call)) {
    return ETR_OK;
  }
  call.op = ETR_INT_COMPARE;
  call.compare = compare;
  return etr_int_execute(ctx, &call, handled);
}

#define SIGN_RUN(T)                                                  \
  static void sign_##T(size_t n, const T *x, T *y) {                 \
    for (size_t i = 0; i < n; ++i) {                                 \
      y[i] = (T)((x[i] > 0) - (x[i] < 0));                           \
    }                                                                \
  }
SIGN_RUN(uint8_t)
SIGN_RUN(int8_t)
SIGN_RUN(int16_t)
SIGN_RUN(int32_t)
SIGN_RUN(int64_t)
#undef SIGN_RUN

etr_error_t etr_int_sign_execute(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *self, etr_tensor_t *out,
                                 bool *handled) {
  *handled = false;
  if (!etr_int_dtype(self->dtype) || out->dtype != self->dtype) {
    return ETR_OK;
  }
  *handled = true;
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run || etr_tensor_numel(out) == 0) {
    return ETR_OK;
  }
  const etr_tensor_t *inputs[1] = {self};
  etr_plan_t plan;
  if (!etr_plan_init(&plan, out, inputs, 1)) {
    *handled = false;
    return ETR_OK;
  }
  size_t size = etr_scalar_type_size(self->dtype);
  size_t n = (size_t)plan.run;
  etr_plan_cursor_t cursor;
  etr_plan_cursor_init(&cursor);
  for (int64_t r = 0; r < plan.runs; ++r) {
    void *y = (uint8_t *)out->data + (size_t)cursor.offsets[0] * size;
    const void *x = (const uint8_t *)self->data +
                    (size_t)cursor.offsets[1] * size;
    switch (self->dtype) {
      case ETR_BYTE:
        sign_uint8_t(n, x, y);
        break;
      case ETR_CHAR:
        sign_int8_t(n, x, y);
        break;
      case ETR_SHORT:
        sign_int16_t(n, x, y);
        break;
      case ETR_INT:
        sign_int32_t(n, x, y);
        break;
      default:
        sign_int64_t(n, x, y);
        break;
    }
    etr_plan_cursor_next(&cursor, &plan);
  }
  return ETR_OK;
}
