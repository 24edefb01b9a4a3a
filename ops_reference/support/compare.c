// SPDX-License-Identifier: Apache-2.0
//
// Comparison kernels (see compare.h).
#include "ops_reference/support/compare.h"

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/shape.h"

static int64_t compare_int(int64_t a, int64_t b, const void *state) {
  switch (*(const etr_comparison_t *)state) {
    case ETR_COMPARE_EQ:
      return a == b;
    case ETR_COMPARE_NE:
      return a != b;
    case ETR_COMPARE_LT:
      return a < b;
    case ETR_COMPARE_LE:
      return a <= b;
    case ETR_COMPARE_GT:
      return a > b;
    case ETR_COMPARE_GE:
      return a >= b;
    default:
      return 0;
  }
}

// IEEE comparisons: every one involving NaN is false except !=.
static double compare_double(double a, double b, const void *state) {
  switch (*(const etr_comparison_t *)state) {
    case ETR_COMPARE_EQ:
      return a == b;
    case ETR_COMPARE_NE:
      return a != b;
    case ETR_COMPARE_LT:
      return a < b;
    case ETR_COMPARE_LE:
      return a <= b;
    case ETR_COMPARE_GT:
      return a > b;
    case ETR_COMPARE_GE:
      return a >= b;
    default:
      return 0.0;
  }
}

static etr_complex_t compare_complex(etr_complex_t a, etr_complex_t b,
                                     const void *state) {
  bool equal = a.real == b.real && a.imag == b.imag;
  etr_comparison_t comparison = *(const etr_comparison_t *)state;
  etr_complex_t result = {comparison == ETR_COMPARE_EQ ? equal : !equal, 0.0};
  return result;
}

static const etr_binary_fns_t kOrderedFns = {compare_int, compare_double,
                                             NULL};
static const etr_binary_fns_t kEqualityFns = {compare_int, compare_double,
                                              compare_complex};

// Every dtype the comparisons read: the arithmetic ones and ComplexHalf
// (a Half tensor next to a complex zero-dim tensor compares in
// ComplexHalf, and eq/ne take ComplexHalf tensors).
#define COMPARE_DTYPES (ETR_DTYPES_NUMERIC | ETR_DTYPE_BIT(ETR_COMPLEX_HALF))

etr_error_t etr_comparison_kernel(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args,
                                  bool scalar_other,
                                  etr_comparison_t comparison) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_tensor_t other_scalar_tensor;
  uint64_t storage = 0;
  etr_tensor_t *out = NULL;
  etr_scalar_t scalar;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  if (scalar_other) {
    ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "other", &scalar));
    etr_scalar_to_tensor(&scalar, &other_scalar_tensor, &storage);
    other = &other_scalar_tensor;
  } else {
    ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "other", &other));
  }
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  // TensorIterator's order: the shapes broadcast, then the operands
  // promote, then the kernel refuses the dtype it is not built for.
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  ETR_TRY(etr_broadcast_shapes(ctx, self->dim, self->sizes, other->dim,
                               other->sizes, &dim, sizes));
  etr_scalar_type_t common;
  if (scalar_other) {
    ETR_TRY(etr_result_type_tensor_scalar(ctx, self, &scalar, &common));
  } else {
    ETR_TRY(etr_result_type_tensors(ctx, self, other, &common));
  }
  bool equality =
      comparison == ETR_COMPARE_EQ || comparison == ETR_COMPARE_NE;
  etr_dtype_set_t accepted =
      equality ? COMPARE_DTYPES : ETR_DTYPES_REAL_AND_BOOL;
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, COMPARE_DTYPES));
  ETR_TRY(etr_check_dtype(ctx, "other", other->dtype, COMPARE_DTYPES));
  ETR_TRY(etr_check_dtype(ctx, "the compared dtype", common, accepted));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, COMPARE_DTYPES));
  etr_elementwise_spec_t spec = {common, ETR_BOOL, false};
  return etr_binary_elementwise(ctx, self, other, out, &spec,
                                equality ? &kEqualityFns : &kOrderedFns,
                                &comparison);
}
