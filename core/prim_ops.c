// SPDX-License-Identifier: Apache-2.0
//
// Prim ops (see prim_ops.h). Each writes its result into the trailing
// return slot, replacing that EValue as ExecuTorch does.
#include "core/prim_ops.h"

#include <math.h>
#include <string.h>

static void set_int(etr_evalue_t *out, int64_t value) {
  out->tag = ETR_TAG_INT;
  out->u.as_int = value;
}

static void set_double(etr_evalue_t *out, double value) {
  out->tag = ETR_TAG_DOUBLE;
  out->u.as_double = value;
}

static void set_bool(etr_evalue_t *out, bool value) {
  out->tag = ETR_TAG_BOOL;
  out->u.as_bool = value;
}

static etr_error_t type_error(etr_kernel_context_t *ctx,
                              const etr_evalue_t *a, const etr_evalue_t *b) {
  return ETR_FAIL(ctx->diag, ETR_ERR_INVALID_TYPE,
                  "%s does not accept (%s, %s)", ctx->op_name,
                  etr_tag_name(a->tag), b ? etr_tag_name(b->tag) : "-");
}

// ---------------------------------------------------------------------------
// Tensor queries.

etr_error_t etr_prim_sym_size_int(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  etr_tensor_t *self = NULL;
  int64_t dim = 0;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim));
  int64_t rank = self->dim;
  if (dim < 0) {
    dim += rank;
  }
  ETR_CHECK(ctx->diag, dim >= 0 && dim < rank, ETR_ERR_INVALID_ARGUMENT,
            "%s: dim %lld is out of range for a tensor of rank %lld",
            ctx->op_name, (long long)dim, (long long)rank);
  set_int(args[2], self->sizes[dim]);
  return ETR_OK;
}

etr_error_t etr_prim_sym_stride_int(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  etr_tensor_t *self = NULL;
  int64_t dim = 0;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim));
  int64_t rank = self->dim;
  if (dim < 0) {
    dim += rank;
  }
  ETR_CHECK(ctx->diag, dim >= 0 && dim < rank, ETR_ERR_INVALID_ARGUMENT,
            "%s: dim %lld is out of range for a tensor of rank %lld",
            ctx->op_name, (long long)dim, (long long)rank);
  set_int(args[2], self->strides[dim]);
  return ETR_OK;
}

// etref tensors never carry a storage offset: a view starts at its data
// pointer, so the offset an exported program can observe is always 0.
etr_error_t etr_prim_sym_storage_offset(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 2));
  etr_tensor_t *self = NULL;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  set_int(args[1], 0);
  return ETR_OK;
}

// c10::MemoryFormat numbering.
enum { FORMAT_CONTIGUOUS = 0, FORMAT_PRESERVE = 1, FORMAT_CHANNELS_LAST = 2,
       FORMAT_CHANNELS_LAST_3D = 3 };

// True when `tensor` is dense in the dim order given (sizes of 1 may have
// any stride, as in PyTorch's is_contiguous).
static bool dense_in_order(const etr_tensor_t *tensor, const uint8_t *order) {
  int64_t expected = 1;
  for (int32_t i = tensor->dim - 1; i >= 0; --i) {
    uint8_t d = order[i];
    if (tensor->sizes[d] != 1 && tensor->strides[d] != expected) {
      return false;
    }
    expected *= tensor->sizes[d];
  }
  return true;
}

etr_error_t etr_prim_sym_is_contiguous(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  etr_tensor_t *self = NULL;
  int64_t format = 0;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "memory_format", &format));
  static const uint8_t kContiguous[ETR_MAX_DIMS] = {0, 1, 2,  3,  4,  5,
                                                    6, 7, 8,  9,  10, 11,
                                                    12, 13, 14, 15};
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  static const uint8_t kChannelsLast3d[5] = {0, 2, 3, 4, 1};
  bool result = false;
  if (etr_tensor_numel(self) == 0) {
    result = format != FORMAT_PRESERVE;  // empty tensors count as dense
  } else if (format == FORMAT_CONTIGUOUS) {
    result = dense_in_order(self, kContiguous);
  } else if (format == FORMAT_CHANNELS_LAST) {
    result = self->dim == 4 && dense_in_order(self, kChannelsLast);
  } else if (format == FORMAT_CHANNELS_LAST_3D) {
    result = self->dim == 5 && dense_in_order(self, kChannelsLast3d);
  } else {
    return ETR_FAIL(ctx->diag, ETR_ERR_INVALID_ARGUMENT,
                    "%s: memory format %lld is not contiguous, channels_last "
                    "or channels_last_3d",
                    ctx->op_name, (long long)format);
  }
  set_bool(args[2], result);
  return ETR_OK;
}

etr_error_t etr_prim_sym_numel(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 2));
  etr_tensor_t *self = NULL;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  set_int(args[1], etr_tensor_numel(self));
  return ETR_OK;
}

etr_error_t etr_prim_local_scalar_dense(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 2));
  etr_tensor_t *self = NULL;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_CHECK(ctx->diag, etr_tensor_numel(self) >= 1, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a tensor with at least one element", ctx->op_name);
  // Checked before the dry run returns: the verifier must refuse what the
  // real call refuses for its type (the switch below lists the same types).
  switch (self->dtype) {
    case ETR_BOOL:
    case ETR_BYTE:
    case ETR_CHAR:
    case ETR_SHORT:
    case ETR_INT:
    case ETR_LONG:
    case ETR_HALF:
    case ETR_BFLOAT16:
    case ETR_FLOAT:
    case ETR_DOUBLE:
      break;
    default:
      return ETR_FAIL(ctx->diag, ETR_ERR_NOT_SUPPORTED,
                      "%s: dtype %s is not supported", ctx->op_name,
                      etr_scalar_type_name(self->dtype));
  }
  if (ctx->dry_run) {
    // The value is data-dependent: produce a placeholder of the right tag.
    if (self->dtype == ETR_BOOL) {
      set_bool(args[1], false);
    } else if (etr_scalar_type_is_floating(self->dtype)) {
      set_double(args[1], 0.0);
    } else {
      set_int(args[1], 0);
    }
    return ETR_OK;
  }
  ETR_CHECK(ctx->diag, self->data != NULL, ETR_ERR_INVALID_ARGUMENT,
            "%s: the tensor has no memory", ctx->op_name);
  const void *data = self->data;
  switch (self->dtype) {
    case ETR_BOOL:
      set_bool(args[1], *(const bool *)data);
      return ETR_OK;
    case ETR_BYTE:
      set_int(args[1], *(const uint8_t *)data);
      return ETR_OK;
    case ETR_CHAR:
      set_int(args[1], *(const int8_t *)data);
      return ETR_OK;
    case ETR_SHORT:
      set_int(args[1], *(const int16_t *)data);
      return ETR_OK;
    case ETR_INT:
      set_int(args[1], *(const int32_t *)data);
      return ETR_OK;
    case ETR_LONG:
      set_int(args[1], *(const int64_t *)data);
      return ETR_OK;
    case ETR_HALF:
      set_double(args[1], etr_half_to_float(*(const etr_half_t *)data));
      return ETR_OK;
    case ETR_BFLOAT16:
      set_double(args[1],
                 etr_bfloat16_to_float(*(const etr_bfloat16_t *)data));
      return ETR_OK;
    case ETR_FLOAT:
      set_double(args[1], *(const float *)data);
      return ETR_OK;
    case ETR_DOUBLE:
      set_double(args[1], *(const double *)data);
      return ETR_OK;
    default:
      return ETR_FAIL(ctx->diag, ETR_ERR_NOT_SUPPORTED,
                      "%s: dtype %s is not supported", ctx->op_name,
                      etr_scalar_type_name(self->dtype));
  }
}

// ---------------------------------------------------------------------------
// Scalar arithmetic on Int/Double (and Bool for comparisons).

typedef enum { OP_ADD, OP_SUB, OP_MUL } algebra_op_t;

static etr_error_t algebra(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, algebra_op_t op) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  const etr_evalue_t *a = args[0];
  const etr_evalue_t *b = args[1];
  if (a->tag == ETR_TAG_INT && b->tag == ETR_TAG_INT) {
    int64_t result = 0;
    bool overflow = op == OP_ADD   ? __builtin_add_overflow(a->u.as_int,
                                                            b->u.as_int,
                                                            &result)
                    : op == OP_SUB ? __builtin_sub_overflow(a->u.as_int,
                                                            b->u.as_int,
                                                            &result)
                                   : __builtin_mul_overflow(a->u.as_int,
                                                            b->u.as_int,
                                                            &result);
    ETR_CHECK(ctx->diag, !overflow, ETR_ERR_INVALID_ARGUMENT,
              "%s: int64 overflow on %lld and %lld", ctx->op_name,
              (long long)a->u.as_int, (long long)b->u.as_int);
    set_int(args[2], result);
    return ETR_OK;
  }
  bool numeric_a = a->tag == ETR_TAG_INT || a->tag == ETR_TAG_DOUBLE;
  bool numeric_b = b->tag == ETR_TAG_INT || b->tag == ETR_TAG_DOUBLE;
  if (!numeric_a || !numeric_b) {
    return type_error(ctx, a, b);
  }
  double x = a->tag == ETR_TAG_INT ? (double)a->u.as_int : a->u.as_double;
  double y = b->tag == ETR_TAG_INT ? (double)b->u.as_int : b->u.as_double;
  set_double(args[2], op == OP_ADD ? x + y : op == OP_SUB ? x - y : x * y);
  return ETR_OK;
}

static etr_error_t prim_add(etr_kernel_context_t *c, etr_evalue_t **a,
                            size_t n) {
  return algebra(c, a, n, OP_ADD);
}
static etr_error_t prim_sub(etr_kernel_context_t *c, etr_evalue_t **a,
                            size_t n) {
  return algebra(c, a, n, OP_SUB);
}
static etr_error_t prim_mul(etr_kernel_context_t *c, etr_evalue_t **a,
                            size_t n) {
  return algebra(c, a, n, OP_MUL);
}

// Python's floor division for doubles: a // b == (a - fmod(a, b)) / b,
// adjusted when the remainder's sign differs from the divisor's.
static double floor_divide_double(double a, double b) {
  if (b == 0) {
    return signbit(a) ? -INFINITY : INFINITY;
  }
  double mod = fmod(a, b);
  double quotient = (a - mod) / b;
  if (mod != 0 && signbit(b) != signbit(mod)) {
    return quotient - 1;
  }
  return quotient;
}

static etr_error_t check_int_division(etr_kernel_context_t *ctx, int64_t a,
                                      int64_t b) {
  ETR_CHECK(ctx->diag, b != 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: integer division by zero", ctx->op_name);
  ETR_CHECK(ctx->diag, !(a == INT64_MIN && b == -1), ETR_ERR_INVALID_ARGUMENT,
            "%s: int64 overflow dividing INT64_MIN by -1", ctx->op_name);
  return ETR_OK;
}

static etr_error_t prim_floordiv(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  const etr_evalue_t *a = args[0];
  const etr_evalue_t *b = args[1];
  if (a->tag == ETR_TAG_INT && b->tag == ETR_TAG_INT) {
    int64_t x = a->u.as_int;
    int64_t y = b->u.as_int;
    ETR_TRY(check_int_division(ctx, x, y));
    int64_t quotient = x / y;
    if ((x < 0) != (y < 0) && x % y != 0) {
      --quotient;
    }
    set_int(args[2], quotient);
    return ETR_OK;
  }
  bool numeric_a = a->tag == ETR_TAG_INT || a->tag == ETR_TAG_DOUBLE;
  bool numeric_b = b->tag == ETR_TAG_INT || b->tag == ETR_TAG_DOUBLE;
  if (!numeric_a || !numeric_b) {
    return type_error(ctx, a, b);
  }
  double x = a->tag == ETR_TAG_INT ? (double)a->u.as_int : a->u.as_double;
  double y = b->tag == ETR_TAG_INT ? (double)b->u.as_int : b->u.as_double;
  set_double(args[2], floor_divide_double(x, y));
  return ETR_OK;
}

static etr_error_t prim_truediv(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  double x = 0;
  double y = 0;
  const etr_evalue_t *a = args[0];
  const etr_evalue_t *b = args[1];
  if ((a->tag != ETR_TAG_INT && a->tag != ETR_TAG_DOUBLE) ||
      (b->tag != ETR_TAG_INT && b->tag != ETR_TAG_DOUBLE)) {
    return type_error(ctx, a, b);
  }
  x = a->tag == ETR_TAG_INT ? (double)a->u.as_int : a->u.as_double;
  y = b->tag == ETR_TAG_INT ? (double)b->u.as_int : b->u.as_double;
  set_double(args[2], x / y);
  return ETR_OK;
}

// floordiv.int and mod.int truncate toward zero, as C (and ExecuTorch) do.
static etr_error_t prim_int_division(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args,
                                     bool modulo) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  if (args[0]->tag != ETR_TAG_INT || args[1]->tag != ETR_TAG_INT) {
    return type_error(ctx, args[0], args[1]);
  }
  int64_t x = args[0]->u.as_int;
  int64_t y = args[1]->u.as_int;
  ETR_TRY(check_int_division(ctx, x, y));
  set_int(args[2], modulo ? x % y : x / y);
  return ETR_OK;
}

static etr_error_t prim_floordiv_int(etr_kernel_context_t *c,
                                     etr_evalue_t **a, size_t n) {
  return prim_int_division(c, a, n, false);
}
static etr_error_t prim_mod(etr_kernel_context_t *c, etr_evalue_t **a,
                            size_t n) {
  return prim_int_division(c, a, n, true);
}

typedef enum { CMP_EQ, CMP_GT, CMP_LT, CMP_GE, CMP_LE } compare_op_t;

static bool compare_doubles(double x, double y, compare_op_t op) {
  switch (op) {
    case CMP_EQ:
      return x == y;
    case CMP_GT:
      return x > y;
    case CMP_LT:
      return x < y;
    case CMP_GE:
      return x >= y;
    default:
      return x <= y;
  }
}

static bool compare_ints(int64_t x, int64_t y, compare_op_t op) {
  switch (op) {
    case CMP_EQ:
      return x == y;
    case CMP_GT:
      return x > y;
    case CMP_LT:
      return x < y;
    case CMP_GE:
      return x >= y;
    default:
      return x <= y;
  }
}

static etr_error_t compare(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, compare_op_t op) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  const etr_evalue_t *a = args[0];
  const etr_evalue_t *b = args[1];
  if (a->tag == ETR_TAG_INT && b->tag == ETR_TAG_INT) {
    set_bool(args[2], compare_ints(a->u.as_int, b->u.as_int, op));
    return ETR_OK;
  }
  if (a->tag == ETR_TAG_BOOL && b->tag == ETR_TAG_BOOL) {
    set_bool(args[2], compare_ints(a->u.as_bool, b->u.as_bool, op));
    return ETR_OK;
  }
  bool numeric_a = a->tag == ETR_TAG_INT || a->tag == ETR_TAG_DOUBLE;
  bool numeric_b = b->tag == ETR_TAG_INT || b->tag == ETR_TAG_DOUBLE;
  if (!numeric_a || !numeric_b) {
    return type_error(ctx, a, b);
  }
  double x = a->tag == ETR_TAG_INT ? (double)a->u.as_int : a->u.as_double;
  double y = b->tag == ETR_TAG_INT ? (double)b->u.as_int : b->u.as_double;
  set_bool(args[2], compare_doubles(x, y, op));
  return ETR_OK;
}

static etr_error_t prim_eq(etr_kernel_context_t *c, etr_evalue_t **a,
                           size_t n) {
  return compare(c, a, n, CMP_EQ);
}
static etr_error_t prim_gt(etr_kernel_context_t *c, etr_evalue_t **a,
                           size_t n) {
  return compare(c, a, n, CMP_GT);
}
static etr_error_t prim_lt(etr_kernel_context_t *c, etr_evalue_t **a,
                           size_t n) {
  return compare(c, a, n, CMP_LT);
}
static etr_error_t prim_ge(etr_kernel_context_t *c, etr_evalue_t **a,
                           size_t n) {
  return compare(c, a, n, CMP_GE);
}
static etr_error_t prim_le(etr_kernel_context_t *c, etr_evalue_t **a,
                           size_t n) {
  return compare(c, a, n, CMP_LE);
}

static etr_error_t prim_sym_max_min(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    bool maximum) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  if (args[0]->tag != ETR_TAG_INT || args[1]->tag != ETR_TAG_INT) {
    return type_error(ctx, args[0], args[1]);
  }
  int64_t x = args[0]->u.as_int;
  int64_t y = args[1]->u.as_int;
  set_int(args[2], maximum ? (x > y ? x : y) : (x < y ? x : y));
  return ETR_OK;
}

static etr_error_t prim_sym_max(etr_kernel_context_t *c, etr_evalue_t **a,
                                size_t n) {
  return prim_sym_max_min(c, a, n, true);
}
static etr_error_t prim_sym_min(etr_kernel_context_t *c, etr_evalue_t **a,
                                size_t n) {
  return prim_sym_max_min(c, a, n, false);
}

static etr_error_t prim_neg(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 2));
  const etr_evalue_t *a = args[0];
  if (a->tag == ETR_TAG_INT) {
    ETR_CHECK(ctx->diag, a->u.as_int != INT64_MIN, ETR_ERR_INVALID_ARGUMENT,
              "%s: int64 overflow negating INT64_MIN", ctx->op_name);
    set_int(args[1], -a->u.as_int);
    return ETR_OK;
  }
  if (a->tag == ETR_TAG_DOUBLE) {
    set_double(args[1], -a->u.as_double);
    return ETR_OK;
  }
  return type_error(ctx, a, NULL);
}

static etr_error_t prim_sym_not(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 2));
  if (args[0]->tag != ETR_TAG_BOOL) {
    return type_error(ctx, args[0], NULL);
  }
  set_bool(args[1], !args[0]->u.as_bool);
  return ETR_OK;
}

static etr_error_t prim_sym_ite(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  if (args[0]->tag != ETR_TAG_BOOL) {
    return type_error(ctx, args[0], NULL);
  }
  const etr_evalue_t *chosen = args[0]->u.as_bool ? args[1] : args[2];
  if (chosen->tag != ETR_TAG_INT && chosen->tag != ETR_TAG_DOUBLE &&
      chosen->tag != ETR_TAG_BOOL) {
    return type_error(ctx, chosen, NULL);
  }
  etr_evalue_t copy = *chosen;
  *args[3] = copy;
  return ETR_OK;
}

static etr_error_t prim_sym_float(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 2));
  const etr_evalue_t *a = args[0];
  switch (a->tag) {
    case ETR_TAG_INT:
      set_double(args[1], (double)a->u.as_int);
      return ETR_OK;
    case ETR_TAG_DOUBLE:
      set_double(args[1], a->u.as_double);
      return ETR_OK;
    case ETR_TAG_BOOL:
      set_double(args[1], a->u.as_bool ? 1.0 : 0.0);
      return ETR_OK;
    default:
      return type_error(ctx, a, NULL);
  }
}

// Converts a double to int64, refusing values that do not fit (a C cast of
// those is undefined behaviour).
static etr_error_t double_to_int(etr_kernel_context_t *ctx, double value,
                                 int64_t *out) {
  ETR_CHECK(ctx->diag, value >= -9223372036854775808.0 &&
                           value < 9223372036854775808.0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: %g does not fit in an int64", ctx->op_name, value);
  *out = (int64_t)value;
  return ETR_OK;
}

static etr_error_t prim_sym_int(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 2));
  const etr_evalue_t *a = args[0];
  int64_t result = 0;
  switch (a->tag) {
    case ETR_TAG_INT:
      result = a->u.as_int;
      break;
    case ETR_TAG_DOUBLE:
      ETR_TRY(double_to_int(ctx, a->u.as_double, &result));
      break;
    case ETR_TAG_BOOL:
      result = a->u.as_bool;
      break;
    default:
      return type_error(ctx, a, NULL);
  }
  set_int(args[1], result);
  return ETR_OK;
}

typedef enum { ROUND_CEIL, ROUND_HALF_EVEN, ROUND_TRUNC } rounding_t;

static etr_error_t prim_rounding(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args,
                                 rounding_t mode) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 2));
  if (args[0]->tag != ETR_TAG_DOUBLE) {
    return type_error(ctx, args[0], NULL);
  }
  double value = args[0]->u.as_double;
  double rounded = mode == ROUND_CEIL    ? ceil(value)
                   : mode == ROUND_TRUNC ? trunc(value)
                                         : nearbyint(value);  // ties to even
  int64_t result = 0;
  ETR_TRY(double_to_int(ctx, rounded, &result));
  set_int(args[1], result);
  return ETR_OK;
}

static etr_error_t prim_ceil(etr_kernel_context_t *c, etr_evalue_t **a,
                             size_t n) {
  return prim_rounding(c, a, n, ROUND_CEIL);
}
static etr_error_t prim_round(etr_kernel_context_t *c, etr_evalue_t **a,
                              size_t n) {
  return prim_rounding(c, a, n, ROUND_HALF_EVEN);
}
static etr_error_t prim_trunc(etr_kernel_context_t *c, etr_evalue_t **a,
                              size_t n) {
  return prim_rounding(c, a, n, ROUND_TRUNC);
}

// ---------------------------------------------------------------------------
// Views and copies.

// et_view(self, size, out): `out` takes the requested sizes (one -1 is
// inferred) and shares self's memory.
etr_error_t etr_prim_et_view(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  const int64_t *size = NULL;
  size_t rank = 0;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "size", &size, &rank));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_CHECK(ctx->diag, self->dtype == out->dtype, ETR_ERR_INVALID_ARGUMENT,
            "%s: self is %s but out is %s", ctx->op_name,
            etr_scalar_type_name(self->dtype),
            etr_scalar_type_name(out->dtype));
  ETR_CHECK(ctx->diag, rank == (size_t)out->dim, ETR_ERR_INVALID_ARGUMENT,
            "%s: %zu sizes for an output of rank %d", ctx->op_name, rank,
            (int)out->dim);
  ETR_CHECK(ctx->diag, etr_tensor_is_contiguous(self),
            ETR_ERR_NOT_SUPPORTED,
            "%s: viewing a non-contiguous tensor is not supported",
            ctx->op_name);
  int64_t sizes[ETR_MAX_DIMS];
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < rank; ++i) {
    sizes[i] = size[i];
    if (size[i] == -1) {
      ETR_CHECK(ctx->diag, inferred < 0, ETR_ERR_INVALID_ARGUMENT,
                "%s: at most one size may be -1", ctx->op_name);
      inferred = (int)i;
      continue;
    }
    ETR_CHECK(ctx->diag, size[i] >= 0 &&
                             !__builtin_mul_overflow(known, size[i], &known),
              ETR_ERR_INVALID_ARGUMENT, "%s: invalid size %lld",
              ctx->op_name, (long long)size[i]);
  }
  int64_t numel = etr_tensor_numel(self);
  if (inferred >= 0) {
    ETR_CHECK(ctx->diag, known != 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: cannot infer a -1 size beside a zero size", ctx->op_name);
    sizes[inferred] = numel / known;
  }
  int64_t view_numel = 1;
  for (size_t i = 0; i < rank; ++i) {
    view_numel *= sizes[i];  // bounded by numel, checked just below
  }
  ETR_CHECK(ctx->diag, view_numel == numel, ETR_ERR_INVALID_ARGUMENT,
            "%s: a view of %lld elements cannot hold %lld", ctx->op_name,
            (long long)view_numel, (long long)numel);
  // The view shares self's memory, so its capacity is self's.
  out->data = self->data;
  out->capacity_bytes = self->capacity_bytes;
  etr_shape_dynamism_t dynamism = out->shape_dynamism;
  out->shape_dynamism = ETR_SHAPE_DYNAMIC_BOUND;
  etr_error_t status = etr_tensor_resize(out, out->dim, sizes, ctx->diag);
  out->shape_dynamism = dynamism;
  return status;
}

// et_copy_index(copy_to, copy_from, index): writes copy_from as slice
// `index` of copy_to, growing copy_to's first dimension to index + 1.
static etr_error_t et_copy_index(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  etr_tensor_t *copy_to = NULL;
  etr_tensor_t *copy_from = NULL;
  int64_t index = 0;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "copy_to", &copy_to));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "copy_from", &copy_from));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "index", &index));
  ETR_CHECK(ctx->diag, index >= 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: index %lld is negative", ctx->op_name, (long long)index);
  ETR_CHECK(ctx->diag, copy_to->dtype == copy_from->dtype &&
                           copy_to->dim == copy_from->dim + 1,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: copy_to must have copy_from's dtype and one more dimension",
            ctx->op_name);
  ETR_CHECK(ctx->diag, etr_tensor_is_contiguous(copy_to) &&
                           etr_tensor_is_contiguous(copy_from),
            ETR_ERR_NOT_SUPPORTED, "%s: tensors must be contiguous",
            ctx->op_name);
  int64_t sizes[ETR_MAX_DIMS];
  sizes[0] = index + 1;
  for (int32_t i = 0; i < copy_from->dim; ++i) {
    ETR_CHECK(ctx->diag, copy_to->sizes[i + 1] == copy_from->sizes[i],
              ETR_ERR_INVALID_ARGUMENT,
              "%s: copy_to and copy_from shapes differ at dim %d",
              ctx->op_name, (int)i);
    sizes[i + 1] = copy_from->sizes[i];
  }
  ETR_TRY(etr_tensor_resize(copy_to, copy_to->dim, sizes, ctx->diag));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  size_t slice = etr_tensor_nbytes(copy_from);
  size_t offset = 0;
  ETR_CHECK(ctx->diag,
            etr_size_mul((size_t)index, slice, &offset) &&
                slice <= etr_tensor_nbytes(copy_to) - offset,
            ETR_ERR_INVALID_ARGUMENT, "%s: slice %lld is out of bounds",
            ctx->op_name, (long long)index);
  if (slice != 0) {
    memcpy((uint8_t *)copy_to->data + offset, copy_from->data, slice);
  }
  return ETR_OK;
}

const etr_kernel_registration_t etr_prim_kernels[] = {
    {"aten::sym_size.int", etr_prim_sym_size_int},
    {"aten::sym_numel", etr_prim_sym_numel},
    {"aten::sym_stride.int", etr_prim_sym_stride_int},
    {"aten::sym_storage_offset", etr_prim_sym_storage_offset},
    {"aten::sym_is_contiguous", etr_prim_sym_is_contiguous},
    {"aten::_local_scalar_dense", etr_prim_local_scalar_dense},
    {"executorch_prim::sym_max.Scalar", prim_sym_max},
    {"executorch_prim::sym_min.Scalar", prim_sym_min},
    {"executorch_prim::add.Scalar", prim_add},
    {"executorch_prim::sub.Scalar", prim_sub},
    {"executorch_prim::mul.Scalar", prim_mul},
    {"executorch_prim::floordiv.Scalar", prim_floordiv},
    {"executorch_prim::truediv.Scalar", prim_truediv},
    {"executorch_prim::sym_float.Scalar", prim_sym_float},
    {"executorch_prim::sym_int.Scalar", prim_sym_int},
    {"executorch_prim::eq.Scalar", prim_eq},
    {"executorch_prim::gt.Scalar", prim_gt},
    {"executorch_prim::lt.Scalar", prim_lt},
    {"executorch_prim::ge.Scalar", prim_ge},
    {"executorch_prim::le.Scalar", prim_le},
    {"executorch_prim::neg.Scalar", prim_neg},
    {"executorch_prim::sym_not.Scalar", prim_sym_not},
    {"executorch_prim::sym_ite.Scalar", prim_sym_ite},
    {"executorch_prim::floordiv.int", prim_floordiv_int},
    {"executorch_prim::mod.int", prim_mod},
    {"executorch_prim::mod.Scalar", prim_mod},
    {"executorch_prim::ceil.Scalar", prim_ceil},
    {"executorch_prim::round.Scalar", prim_round},
    {"executorch_prim::trunc.Scalar", prim_trunc},
    {"executorch_prim::et_copy_index.tensor", et_copy_index},
    {"executorch_prim::et_view.default", etr_prim_et_view},
};

const size_t etr_prim_kernel_count =
    sizeof(etr_prim_kernels) / sizeof(etr_prim_kernels[0]);
