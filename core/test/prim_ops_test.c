// SPDX-License-Identifier: Apache-2.0
//
// The prim ops against the semantics of ExecuTorch's kernels/prim_ops (and
// Python's, which they follow), plus the errors where ExecuTorch would crash
// (integer division and modulo by zero).
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/prim_ops.h"

static etr_kernel_fn find(const char *name) {
  for (size_t i = 0; i < etr_prim_kernel_count; ++i) {
    if (strcmp(etr_prim_kernels[i].name, name) == 0) {
      return etr_prim_kernels[i].fn;
    }
  }
  cr_assert_fail("no prim op %s", name);
  return NULL;
}

static etr_evalue_t int_value(int64_t v) {
  etr_evalue_t e = {.tag = ETR_TAG_INT};
  e.u.as_int = v;
  return e;
}

static etr_evalue_t double_value(double v) {
  etr_evalue_t e = {.tag = ETR_TAG_DOUBLE};
  e.u.as_double = v;
  return e;
}

static etr_evalue_t bool_value(bool v) {
  etr_evalue_t e = {.tag = ETR_TAG_BOOL};
  e.u.as_bool = v;
  return e;
}

// Calls a two-operand prim op; returns the status, result in *out.
static etr_error_t call2(const char *name, etr_evalue_t a, etr_evalue_t b,
                         etr_evalue_t *out) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag, .op_name = name};
  etr_evalue_t result = {.tag = ETR_TAG_NONE};
  etr_evalue_t *args[3] = {&a, &b, &result};
  etr_error_t status = find(name)(&ctx, args, 3);
  *out = result;
  return status;
}

static etr_error_t call1(const char *name, etr_evalue_t a, etr_evalue_t *out) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag, .op_name = name};
  etr_evalue_t result = {.tag = ETR_TAG_NONE};
  etr_evalue_t *args[2] = {&a, &result};
  etr_error_t status = find(name)(&ctx, args, 2);
  *out = result;
  return status;
}

Test(prim_ops, integer_arithmetic_and_python_floor_division) {
  etr_evalue_t r;
  cr_assert_eq(call2("executorch_prim::add.Scalar", int_value(3),
                     int_value(4), &r),
               ETR_OK);
  cr_assert_eq(r.tag, ETR_TAG_INT);
  cr_assert_eq(r.u.as_int, 7);
  cr_assert_eq(call2("executorch_prim::mul.Scalar", int_value(3),
                     double_value(0.5), &r),
               ETR_OK);
  cr_assert_eq(r.tag, ETR_TAG_DOUBLE);
  cr_assert_float_eq(r.u.as_double, 1.5, 0);
  cr_assert_eq(call2("executorch_prim::add.Scalar", int_value(INT64_MAX),
                     int_value(1), &r),
               ETR_ERR_INVALID_ARGUMENT);
  static const int64_t cases[][3] = {
      {7, 2, 3}, {-7, 2, -4}, {7, -2, -4}, {-7, -2, 3}, {6, 3, 2}, {-6, 3, -2}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    cr_assert_eq(call2("executorch_prim::floordiv.Scalar",
                       int_value(cases[i][0]), int_value(cases[i][1]), &r),
                 ETR_OK);
    cr_assert_eq(r.u.as_int, cases[i][2], "%lld // %lld",
                 (long long)cases[i][0], (long long)cases[i][1]);
  }
  cr_assert_eq(call2("executorch_prim::floordiv.Scalar", double_value(-7.5),
                     int_value(2), &r),
               ETR_OK);
  cr_assert_float_eq(r.u.as_double, -4.0, 0);
  cr_assert_eq(call2("executorch_prim::floordiv.Scalar", double_value(1.0),
                     double_value(0.0), &r),
               ETR_OK);
  cr_assert(isinf(r.u.as_double) && r.u.as_double > 0);
  cr_assert_eq(call2("executorch_prim::truediv.Scalar", int_value(7),
                     int_value(2), &r),
               ETR_OK);
  cr_assert_float_eq(r.u.as_double, 3.5, 0);
}

Test(prim_ops, division_by_zero_is_an_error_not_a_crash) {
  etr_evalue_t r;
  cr_assert_eq(call2("executorch_prim::floordiv.Scalar", int_value(1),
                     int_value(0), &r),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(call2("executorch_prim::floordiv.int", int_value(1),
                     int_value(0), &r),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(call2("executorch_prim::mod.int", int_value(1), int_value(0),
                     &r),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(call2("executorch_prim::mod.Scalar", int_value(INT64_MIN),
                     int_value(-1), &r),
               ETR_ERR_INVALID_ARGUMENT);
  // C semantics (truncation), as ExecuTorch's floordiv.int and mod.int.
  cr_assert_eq(call2("executorch_prim::floordiv.int", int_value(-7),
                     int_value(2), &r),
               ETR_OK);
  cr_assert_eq(r.u.as_int, -3);
  cr_assert_eq(call2("executorch_prim::mod.int", int_value(-7), int_value(2),
                     &r),
               ETR_OK);
  cr_assert_eq(r.u.as_int, -1);
}

Test(prim_ops, comparisons_and_conversions) {
  etr_evalue_t r;
  cr_assert_eq(call2("executorch_prim::lt.Scalar", int_value(2),
                     double_value(2.5), &r),
               ETR_OK);
  cr_assert(r.tag == ETR_TAG_BOOL && r.u.as_bool);
  cr_assert_eq(call2("executorch_prim::eq.Scalar", bool_value(true),
                     bool_value(true), &r),
               ETR_OK);
  cr_assert(r.u.as_bool);
  cr_assert_eq(call2("executorch_prim::sym_max.Scalar", int_value(-3),
                     int_value(5), &r),
               ETR_OK);
  cr_assert_eq(r.u.as_int, 5);
  cr_assert_eq(call2("executorch_prim::sym_max.Scalar", int_value(-3),
                     double_value(5), &r),
               ETR_ERR_INVALID_TYPE);
  cr_assert_eq(call1("executorch_prim::round.Scalar", double_value(2.5), &r),
               ETR_OK);
  cr_assert_eq(r.u.as_int, 2);  // half to even, as Python's round
  cr_assert_eq(call1("executorch_prim::round.Scalar", double_value(3.5), &r),
               ETR_OK);
  cr_assert_eq(r.u.as_int, 4);
  cr_assert_eq(call1("executorch_prim::ceil.Scalar", double_value(-1.5), &r),
               ETR_OK);
  cr_assert_eq(r.u.as_int, -1);
  cr_assert_eq(call1("executorch_prim::trunc.Scalar", double_value(-1.7), &r),
               ETR_OK);
  cr_assert_eq(r.u.as_int, -1);
  cr_assert_eq(call1("executorch_prim::sym_int.Scalar", double_value(1e300),
                     &r),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(call1("executorch_prim::sym_int.Scalar", double_value(NAN),
                     &r),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(call1("executorch_prim::sym_float.Scalar", int_value(3), &r),
               ETR_OK);
  cr_assert_float_eq(r.u.as_double, 3.0, 0);
  cr_assert_eq(call1("executorch_prim::neg.Scalar", int_value(INT64_MIN), &r),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(call1("executorch_prim::sym_not.Scalar", bool_value(false), &r),
               ETR_OK);
  cr_assert(r.u.as_bool);
}

Test(prim_ops, sym_ite_picks_a_branch) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag, .op_name = "sym_ite"};
  etr_evalue_t condition = bool_value(false);
  etr_evalue_t a = int_value(1);
  etr_evalue_t b = int_value(2);
  etr_evalue_t out = {.tag = ETR_TAG_NONE};
  etr_evalue_t *args[4] = {&condition, &a, &b, &out};
  cr_assert_eq(find("executorch_prim::sym_ite.Scalar")(&ctx, args, 4), ETR_OK);
  cr_assert_eq(out.u.as_int, 2);
}

Test(prim_ops, tensor_queries) {
  float data[24];
  int64_t sizes[4] = {1, 2, 3, 4};
  uint8_t nhwc[4] = {0, 2, 3, 1};
  etr_tensor_t tensor;
  cr_assert_eq(etr_tensor_init_with_dim_order(&tensor, ETR_FLOAT, 4, sizes,
                                              nhwc, data, sizeof(data), NULL),
               ETR_OK);
  etr_evalue_t self = {.tag = ETR_TAG_TENSOR};
  self.u.as_tensor = &tensor;
  etr_evalue_t r;
  cr_assert_eq(call2("aten::sym_size.int", self, int_value(-1), &r), ETR_OK);
  cr_assert_eq(r.u.as_int, 4);
  cr_assert_eq(call2("aten::sym_size.int", self, int_value(4), &r),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(call2("aten::sym_stride.int", self, int_value(1), &r), ETR_OK);
  cr_assert_eq(r.u.as_int, 1);  // channels are innermost
  cr_assert_eq(call1("aten::sym_numel", self, &r), ETR_OK);
  cr_assert_eq(r.u.as_int, 24);
  cr_assert_eq(call1("aten::sym_storage_offset", self, &r), ETR_OK);
  cr_assert_eq(r.u.as_int, 0);
  cr_assert_eq(call2("aten::sym_is_contiguous", self, int_value(0), &r),
               ETR_OK);
  cr_assert_not(r.u.as_bool);
  cr_assert_eq(call2("aten::sym_is_contiguous", self, int_value(2), &r),
               ETR_OK);
  cr_assert(r.u.as_bool);
  cr_assert_eq(call2("aten::sym_is_contiguous", self, int_value(1), &r),
               ETR_ERR_INVALID_ARGUMENT);
  data[0] = 2.5f;
  cr_assert_eq(call1("aten::_local_scalar_dense", self, &r), ETR_OK);
  cr_assert_float_eq(r.u.as_double, 2.5, 0);
}

// Found by fuzz/kernel_diff (fuzz/regression/kernel_diff/): the dry run
// accepted a dtype the real call refuses, so the verifier passed programs
// that then failed at run time.
Test(prim_ops, local_scalar_dense_dry_run_refuses_unsupported_dtypes) {
  double data[2] = {1.0, 2.0};
  int64_t sizes[1] = {1};
  etr_tensor_t tensor;
  cr_assert_eq(etr_tensor_init(&tensor, ETR_COMPLEX_DOUBLE, 1, sizes, data,
                               sizeof(data), NULL),
               ETR_OK);
  etr_evalue_t self = {.tag = ETR_TAG_TENSOR};
  self.u.as_tensor = &tensor;
  etr_evalue_t result = {.tag = ETR_TAG_INT};
  etr_evalue_t *args[2] = {&self, &result};
  for (int dry_run = 0; dry_run < 2; ++dry_run) {
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_kernel_context_t ctx = {.diag = &diag,
                                .op_name = "aten::_local_scalar_dense",
                                .dry_run = dry_run != 0};
    cr_assert_eq(find("aten::_local_scalar_dense")(&ctx, args, 2),
                 ETR_ERR_NOT_SUPPORTED, "dry_run %d", dry_run);
  }
}

Test(prim_ops, et_view_shares_memory_and_infers_one_size) {
  float data[12];
  int64_t sizes[2] = {3, 4};
  etr_tensor_t self;
  etr_tensor_t out;
  cr_assert_eq(etr_tensor_init(&self, ETR_FLOAT, 2, sizes, data, sizeof(data),
                               NULL),
               ETR_OK);
  // An unbound static output of the planned shape, as et_view's out is in
  // a program.
  int64_t planned[3] = {2, 2, 3};
  memset(&out, 0, sizeof(out));
  out.dtype = ETR_FLOAT;
  out.dim = 3;
  for (int i = 0; i < 3; ++i) {
    out.sizes[i] = planned[i];
    out.dim_order[i] = (uint8_t)i;
  }
  out.shape_dynamism = ETR_SHAPE_STATIC;
  etr_evalue_t items[3] = {int_value(6), int_value(-1), int_value(1)};
  etr_evalue_t *refs[3] = {&items[0], &items[1], &items[2]};
  int64_t scratch[3];
  etr_evalue_t size = {.tag = ETR_TAG_LIST_INT};
  size.u.as_int_list.items = refs;
  size.u.as_int_list.unboxed = scratch;
  size.u.as_int_list.length = 3;
  etr_evalue_t self_value = {.tag = ETR_TAG_TENSOR};
  self_value.u.as_tensor = &self;
  etr_evalue_t out_value = {.tag = ETR_TAG_TENSOR};
  out_value.u.as_tensor = &out;
  etr_evalue_t *args[3] = {&self_value, &size, &out_value};
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag, .op_name = "et_view"};
  etr_kernel_fn view = find("executorch_prim::et_view.default");
  cr_assert_eq(view(&ctx, args, 3), ETR_OK, "%s", diag.message);
  cr_assert_eq(out.data, data);
  cr_assert_eq(out.sizes[0], 6);
  cr_assert_eq(out.sizes[1], 2);
  cr_assert_eq(out.sizes[2], 1);
  items[1] = int_value(5);  // 6 * 5 != 12
  etr_diag_reset(&diag);
  cr_assert_eq(view(&ctx, args, 3), ETR_ERR_INVALID_ARGUMENT);
  items[0] = int_value(-1);
  items[1] = int_value(-1);
  etr_diag_reset(&diag);
  cr_assert_eq(view(&ctx, args, 3), ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(view(&ctx, args, 2), ETR_ERR_INVALID_PROGRAM);
}

Test(prim_ops, et_copy_index_grows_the_destination) {
  float to_data[6] = {0};
  float from_data[2] = {1.0f, 2.0f};
  int64_t to_sizes[2] = {3, 2};
  int64_t from_sizes[1] = {2};
  etr_tensor_t copy_to;
  etr_tensor_t copy_from;
  cr_assert_eq(etr_tensor_init(&copy_to, ETR_FLOAT, 2, to_sizes, to_data,
                               sizeof(to_data), NULL),
               ETR_OK);
  cr_assert_eq(etr_tensor_init(&copy_from, ETR_FLOAT, 1, from_sizes,
                               from_data, sizeof(from_data), NULL),
               ETR_OK);
  etr_evalue_t to = {.tag = ETR_TAG_TENSOR};
  to.u.as_tensor = &copy_to;
  etr_evalue_t from = {.tag = ETR_TAG_TENSOR};
  from.u.as_tensor = &copy_from;
  etr_evalue_t r;
  // Without an Int index the op refuses the argument.
  cr_assert_eq(call2("executorch_prim::et_copy_index.tensor", to, from, &r),
               ETR_ERR_INVALID_TYPE);
  etr_evalue_t index = int_value(1);
  etr_evalue_t *args[3] = {&to, &from, &index};
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag, .op_name = "et_copy_index"};
  etr_kernel_fn copy = find("executorch_prim::et_copy_index.tensor");
  cr_assert_eq(copy(&ctx, args, 3), ETR_OK, "%s", diag.message);
  cr_assert_eq(copy_to.sizes[0], 2);
  cr_assert_float_eq(to_data[2], 1.0f, 0);
  cr_assert_float_eq(to_data[3], 2.0f, 0);
  index = int_value(3);  // would need 4 rows of capacity
  etr_diag_reset(&diag);
  cr_assert_eq(copy(&ctx, args, 3), ETR_ERR_INVALID_ARGUMENT);
  index = int_value(-1);
  etr_diag_reset(&diag);
  cr_assert_eq(copy(&ctx, args, 3), ETR_ERR_INVALID_ARGUMENT);
}
