// SPDX-License-Identifier: Apache-2.0
//
// Dry runs of the elementwise kernels added with the bitwise, rounding,
// division and transcendental families: with ctx->dry_run (a method's
// load-time check) and every data pointer NULL, each optimized kernel
// must return the reference's status, resize out to the reference's shape
// without touching data, and not fall back (the cases it specializes
// answer a dry run themselves).
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

typedef enum dry_shape {
  UNARY,        // self [3, 5] -> out of the dtype (or `out_dtype`)
  TENSORS,      // self [3, 5], other [5]
  SCALAR,       // self [3, 5], Scalar 3
  SCALAR_MODE,  // self [3, 5], Scalar 3, "floor"
  TENSORS_MODE, // self [3, 5], other [5], "trunc"
  SCALAR_BASE,  // Scalar 2.5, exponent [3, 5]
} dry_shape_t;

typedef struct dry_case {
  const char *op;
  dry_shape_t shape;
  etr_scalar_type_t dtype;
  etr_scalar_type_t out_dtype;
} dry_case_t;

static const dry_case_t kCases[] = {
    {"aten::sin.out", UNARY, ETR_HALF, ETR_HALF},
    {"aten::cos.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::tan.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::asin.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::acos.out", UNARY, ETR_BFLOAT16, ETR_BFLOAT16},
    {"aten::atan.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::sinh.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::cosh.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::asinh.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::acosh.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::atanh.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::erf.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::expm1.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::log2.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::log10.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::log1p.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::ceil.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::floor.out", UNARY, ETR_INT, ETR_INT},
    {"aten::round.out", UNARY, ETR_HALF, ETR_HALF},
    {"aten::trunc.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::sign.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::reciprocal.out", UNARY, ETR_FLOAT, ETR_FLOAT},
    {"aten::isnan.out", UNARY, ETR_FLOAT, ETR_BOOL},
    {"aten::isinf.out", UNARY, ETR_LONG, ETR_BOOL},
    {"aten::logical_not.out", UNARY, ETR_HALF, ETR_BOOL},
    {"aten::logical_not.out", UNARY, ETR_BOOL, ETR_BOOL},
    {"aten::bitwise_not.out", UNARY, ETR_SHORT, ETR_SHORT},
    {"aten::bitwise_and.Tensor_out", TENSORS, ETR_INT, ETR_INT},
    {"aten::bitwise_or.Tensor_out", TENSORS, ETR_BOOL, ETR_BOOL},
    {"aten::bitwise_xor.Scalar_out", SCALAR, ETR_LONG, ETR_LONG},
    {"aten::logical_and.out", TENSORS, ETR_BOOL, ETR_BOOL},
    {"aten::logical_or.out", TENSORS, ETR_BOOL, ETR_BOOL},
    {"aten::logical_xor.out", TENSORS, ETR_BOOL, ETR_BOOL},
    {"aten::atan2.out", TENSORS, ETR_HALF, ETR_HALF},
    {"aten::pow.Tensor_Tensor_out", TENSORS, ETR_FLOAT, ETR_FLOAT},
    {"aten::pow.Scalar_out", SCALAR_BASE, ETR_FLOAT, ETR_FLOAT},
    {"aten::fmod.Tensor_out", TENSORS, ETR_LONG, ETR_LONG},
    {"aten::fmod.Scalar_out", SCALAR, ETR_FLOAT, ETR_FLOAT},
    {"aten::remainder.Tensor_out", TENSORS, ETR_BFLOAT16, ETR_BFLOAT16},
    {"aten::remainder.Scalar_out", SCALAR, ETR_LONG, ETR_LONG},
    {"aten::div.Scalar_mode_out", SCALAR_MODE, ETR_INT, ETR_INT},
    {"aten::div.Scalar_mode_out", SCALAR_MODE, ETR_HALF, ETR_HALF},
    {"aten::div.out_mode", TENSORS_MODE, ETR_CHAR, ETR_CHAR},
    {"aten::div.out_mode", TENSORS_MODE, ETR_FLOAT, ETR_FLOAT},
};

static etr_kernel_fn find_kernel(const etr_kernel_registration_t *table,
                                 size_t count, const char *name) {
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(table[i].name, name) == 0) {
      return table[i].fn;
    }
  }
  return NULL;
}

static etr_tensor_t *no_data(etr_scalar_type_t dtype, int32_t dim,
                             const int64_t *sizes) {
  etr_tensor_t *t = tt_tensor(dtype, dim, sizes, NULL);
  t->data = NULL;
  return t;
}

// The arguments of `c` with a fresh out (1-D, empty, room for 64).
static size_t build(const dry_case_t *c, etr_tensor_t *out,
                    etr_evalue_t **args) {
  static const int64_t kSelf[2] = {3, 5};
  size_t n = 0;
  if (c->shape == SCALAR_BASE) {
    args[n++] = tt_ev_double(2.5);
  }
  args[n++] = tt_ev_tensor(no_data(c->dtype, 2, kSelf));
  switch (c->shape) {
    case TENSORS:
    case TENSORS_MODE:
      args[n++] = tt_ev_tensor(no_data(c->dtype, 1, &kSelf[1]));
      break;
    case SCALAR:
    case SCALAR_MODE:
      args[n++] = tt_ev_int(3);
      break;
    default:
      break;
  }
  if (c->shape == SCALAR_MODE) {
    args[n++] = tt_ev_string("floor");
  } else if (c->shape == TENSORS_MODE) {
    args[n++] = tt_ev_string("trunc");
  }
  args[n] = tt_ev_tensor(out);
  args[n + 1] = args[n];
  return n + 2;
}

TT_TEST(diff_elementwise_dry_run, new_elementwise_kernels) {
  for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
    const dry_case_t *c = &kCases[i];
    etr_tensor_t *outs[2];
    etr_error_t status[2];
    for (int variant = 0; variant < 2; ++variant) {
      etr_kernel_fn kernel =
          variant == 0
              ? find_kernel(etr_reference_kernels, etr_reference_kernel_count,
                            c->op)
              : find_kernel(etr_optimized_kernels, etr_optimized_kernel_count,
                            c->op);
      cr_assert_not_null(kernel, "%s", c->op);
      outs[variant] = tt_out(c->out_dtype, 1, (const int64_t[]){0}, 64);
      outs[variant]->data = NULL;
      etr_evalue_t *args[8];
      size_t num_args = build(c, outs[variant], args);
      etr_diag_t diag;
      etr_diag_reset(&diag);
      etr_kernel_context_t ctx = {.diag = &diag, .op_name = c->op,
                                  .dry_run = true};
      uint64_t fallbacks = etr_opt_fallback_calls;
      status[variant] = kernel(&ctx, args, num_args);
      if (variant == 1) {
        cr_expect_eq(etr_opt_fallback_calls, fallbacks,
                     "%s (%s): the dry run fell back", c->op,
                     etr_scalar_type_name(c->dtype));
      }
    }
    cr_expect_eq(status[0], ETR_OK, "%s (%s): reference status %d", c->op,
                 etr_scalar_type_name(c->dtype), (int)status[0]);
    cr_expect_eq(status[1], status[0], "%s (%s): status", c->op,
                 etr_scalar_type_name(c->dtype));
    cr_expect(etr_tensor_same_shape(outs[0], outs[1]), "%s (%s): out shape",
              c->op, etr_scalar_type_name(c->dtype));
  }
}
