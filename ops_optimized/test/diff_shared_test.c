// SPDX-License-Identifier: Apache-2.0
//
// The optimized registrations that share the reference's code (ops with
// no compute to specialize: the sym_* queries, _local_scalar_dense,
// et_view, resize_, empty.out, empty_strided.out, _empty_dim_order.out,
// scalar_tensor.out; see their op files): each must exist, and on valid
// and invalid arguments give what the reference gives -- the same status
// and the same result (an int, bool or double bit for bit, or a tensor's
// dtype, shape, strides and bytes). Ops whose result is a tensor also go
// through the differential harness (diff.h), which records them for the
// coverage report.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/prim_ops.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

static etr_kernel_fn find_in(const etr_kernel_registration_t *table,
                             size_t count, const char *name) {
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(table[i].name, name) == 0) {
      return table[i].fn;
    }
  }
  return NULL;
}

static etr_kernel_fn reference_of(const char *name) {
  etr_kernel_fn fn =
      find_in(etr_reference_kernels, etr_reference_kernel_count, name);
  return fn != NULL ? fn
                    : find_in(etr_prim_kernels, etr_prim_kernel_count, name);
}

// A [2, 3, 4, 5] Float tensor laid out as `layout` (0 contiguous, 1
// channels-last, 2 non-contiguous), values 0.5 * i.
static etr_tensor_t *sample(int layout, int32_t dim) {
  static const int64_t kSizes[4] = {2, 3, 4, 5};
  const int64_t *sizes = kSizes + (4 - dim);
  etr_tensor_t *tensor = tt_tensor(ETR_FLOAT, dim, sizes, NULL);
  for (int64_t i = 0; i < etr_tensor_numel(tensor); ++i) {
    ((float *)tensor->data)[i] = 0.5f * (float)i;
  }
  if (layout == 1 && dim == 4) {
    return tt_channels_last(tensor);
  }
  return layout == 2 ? tt_noncontiguous(tensor) : tensor;
}

// Calls `op`'s reference and optimized kernels on the argument lists
// `build` makes (a fresh list per call) and compares the value at
// `result`.
typedef void (*build_fn)(int variant, etr_evalue_t **args);

static int compare(const char *op, build_fn build, int variant,
                   size_t num_args, size_t result) {
  etr_kernel_fn reference = reference_of(op);
  etr_kernel_fn optimized =
      find_in(etr_optimized_kernels, etr_optimized_kernel_count, op);
  cr_assert_not_null(reference, "no reference kernel for %s", op);
  cr_assert_not_null(optimized, "no optimized kernel for %s", op);
  etr_evalue_t *args[2][8];
  etr_error_t status[2];
  for (int k = 0; k < 2; ++k) {
    build(variant, args[k]);
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_kernel_context_t ctx = {.diag = &diag, .op_name = op};
    status[k] = (k == 0 ? reference : optimized)(&ctx, args[k], num_args);
  }
  if (status[0] != status[1]) {
    fprintf(stderr, "FAIL %s variant %d: reference %s, optimized %s\n", op,
            variant, etr_error_name(status[0]), etr_error_name(status[1]));
    return 1;
  }
  if (status[0] != ETR_OK) {
    return 0;
  }
  const etr_evalue_t *a = args[0][result];
  const etr_evalue_t *b = args[1][result];
  bool same = a->tag == b->tag;
  if (same && a->tag == ETR_TAG_TENSOR) {
    const etr_tensor_t *x = a->u.as_tensor;
    const etr_tensor_t *y = b->u.as_tensor;
    same = x->dtype == y->dtype && x->dim == y->dim &&
           memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->dim) ==
               0 &&
           memcmp(x->strides, y->strides, sizeof(int64_t) * (size_t)x->dim) ==
               0 &&
           memcmp(x->data, y->data, etr_tensor_nbytes(x)) == 0;
  } else if (same) {
    same = memcmp(&a->u, &b->u, sizeof(a->u)) == 0;
  }
  if (!same) {
    fprintf(stderr, "FAIL %s variant %d: results differ\n", op, variant);
    return 1;
  }
  return 0;
}

// sym_size / sym_stride (self, dim, result): dims in and out of range.
static void build_dim_query(int variant, etr_evalue_t **args) {
  static const int64_t kDims[] = {0, 3, -1, -4, 4, -5};
  args[0] = tt_ev_tensor(sample(variant % 3, 4));
  args[1] = tt_ev_int(kDims[variant % 6]);
  args[2] = tt_ev_int(-1);
}

// sym_numel / sym_storage_offset (self, result).
static void build_tensor_query(int variant, etr_evalue_t **args) {
  args[0] = tt_ev_tensor(sample(variant % 3, 1 + variant % 4));
  args[1] = tt_ev_int(-1);
}

// sym_is_contiguous (self, memory_format, result): formats 0 (contiguous),
// 2 (channels-last), 1 (refused).
static void build_is_contiguous(int variant, etr_evalue_t **args) {
  args[0] = tt_ev_tensor(sample(variant % 3, 4));
  args[1] = tt_ev_int((variant / 3) % 3);
  args[2] = tt_ev_bool(false);
}

// _local_scalar_dense (self, result): one element of several dtypes, and
// a tensor of several elements (refused).
static void build_local_scalar(int variant, etr_evalue_t **args) {
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_LONG, ETR_BOOL,
                                              ETR_HALF, ETR_DOUBLE};
  etr_tensor_t *tensor =
      variant == 5 ? sample(0, 2) : tt_scalar_tensor(kDtypes[variant], 3.0);
  args[0] = tt_ev_tensor(tensor);
  args[1] = tt_ev_double(0.0);
}

TT_TEST(diff_shared, metadata_queries) {
  int failures = 0;
  for (int v = 0; v < 18; ++v) {
    failures += compare("aten::sym_size.int", build_dim_query, v, 3, 2);
    failures += compare("aten::sym_stride.int", build_dim_query, v, 3, 2);
    failures +=
        compare("aten::sym_is_contiguous", build_is_contiguous, v, 3, 2);
  }
  for (int v = 0; v < 12; ++v) {
    failures += compare("aten::sym_numel", build_tensor_query, v, 2, 1);
    failures += compare("aten::sym_storage_offset", build_tensor_query, v, 2,
                        1);
  }
  for (int v = 0; v < 6; ++v) {
    failures +=
        compare("aten::_local_scalar_dense", build_local_scalar, v, 2, 1);
  }
  cr_assert_eq(failures, 0, "%d shared-kernel cases disagree", failures);
}

// et_view (self, size, out): an inferred size, an impossible one.
static void build_et_view(int variant, etr_evalue_t **args) {
  args[0] = tt_ev_tensor(sample(0, 3));
  args[1] = variant == 0 ? TT_EV_INTS(4, -1) : TT_EV_INTS(7, -1);
  args[2] = tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(4, 15), 0));
}

TT_TEST(diff_shared, et_view) {
  int failures = 0;
  for (int v = 0; v < 2; ++v) {
    failures += compare("executorch_prim::et_view.default", build_et_view, v,
                        3, 2);
  }
  cr_assert_eq(failures, 0, "%d et_view cases disagree", failures);
}

// The tensor-producing ops through the harness (both succeed or both
// refuse; out shape, strides and bytes alike).
TT_TEST(diff_shared, creation_and_resize) {
  int failures = 0;
  uint64_t seed = 800000;
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_LONG, ETR_BOOL,
                                              ETR_HALF, ETR_COMPLEX_FLOAT};
  for (size_t t = 0; t < 5; ++t) {
    etr_diff_case_t c;
    // empty.out: contiguous and channels-last formats, a negative size.
    for (int variant = 0; variant < 3; ++variant) {
      etr_diff_begin(&c, "aten::empty.out", seed++, "variant %d", variant);
      etr_diff_arg(&c, variant == 2 ? TT_EV_INTS(2, -3)
                                    : TT_EV_INTS(2, 3, 4, 5));
      etr_diff_arg(&c, variant == 1 ? tt_ev_int(2) : tt_ev_none());
      etr_diff_out(&c, kDtypes[t], 4, (const int64_t[]){2, 3, 4, 5},
                   variant == 1 ? ETR_DIFF_CHANNELS_LAST : 0, 64);
      etr_diff_return(&c, 2);
      c.dtype = kDtypes[t];
      etr_diff_tolerance_exact(&c);
      failures += etr_diff_run(&c);
    }
    // empty_strided.out: dense strides, and strides no dim order has.
    etr_diff_begin(&c, "aten::empty_strided.out", seed++, "dense");
    etr_diff_arg(&c, TT_EV_INTS(3, 4));
    etr_diff_arg(&c, TT_EV_INTS(4, 1));
    etr_diff_out(&c, kDtypes[t], 2, (const int64_t[]){1, 1}, 0, 64);
    etr_diff_return(&c, 2);
    c.dtype = kDtypes[t];
    failures += etr_diff_run(&c);
    etr_diff_begin(&c, "aten::empty_strided.out", seed++, "gapped");
    etr_diff_arg(&c, TT_EV_INTS(3, 4));
    etr_diff_arg(&c, TT_EV_INTS(8, 1));
    etr_diff_out(&c, kDtypes[t], 2, (const int64_t[]){1, 1}, 0, 64);
    etr_diff_return(&c, 2);
    c.dtype = kDtypes[t];
    failures += etr_diff_run(&c);
    // _empty_dim_order.out: none, the default order, channels-last.
    for (int variant = 0; variant < 3; ++variant) {
      etr_diff_begin(&c, "dim_order_ops::_empty_dim_order.out", seed++,
                     "variant %d", variant);
      etr_diff_arg(&c, TT_EV_INTS(2, 3, 4, 5));
      etr_diff_arg(&c, variant == 0   ? tt_ev_none()
                       : variant == 1 ? TT_EV_INTS(0, 1, 2, 3)
                                      : TT_EV_INTS(0, 2, 3, 1));
      etr_diff_out(&c, kDtypes[t], 4, (const int64_t[]){2, 3, 4, 5},
                   variant == 2 ? ETR_DIFF_CHANNELS_LAST : 0, 64);
      etr_diff_return(&c, 2);
      c.dtype = kDtypes[t];
      failures += etr_diff_run(&c);
    }
    // scalar_tensor.out: an int, a double, a bool, one too big for Bool.
    etr_evalue_t *values[4] = {tt_ev_int(7), tt_ev_double(-2.5),
                               tt_ev_bool(true), tt_ev_int(300)};
    for (int v = 0; v < 4; ++v) {
      etr_diff_begin(&c, "aten::scalar_tensor.out", seed++, "value %d", v);
      etr_diff_arg(&c, values[v]);
      etr_diff_out(&c, kDtypes[t], 0, NULL, 0, 16);
      etr_diff_return(&c, 1);
      c.dtype = kDtypes[t];
      failures += etr_diff_run(&c);
    }
    // resize_: grow within capacity, shrink, a new rank, a negative size.
    static const int64_t kNewSizes[4][3] = {
        {2, 3, 5}, {2, 2, 1}, {6, 5, 0}, {2, -1, 3}};
    for (int v = 0; v < 4; ++v) {
      etr_diff_begin(&c, "aten::resize_", seed++, "variant %d", v);
      etr_tensor_t *self =
          etr_diff_input(&c, kDtypes[t], 3, (const int64_t[]){2, 3, 4}, 0,
                         ETR_FILL_RANDOM);
      (void)self;
      etr_diff_arg(&c, tt_ev_int_list(v == 2 ? 2 : 3, kNewSizes[v]));
      etr_diff_arg(&c, tt_ev_none());
      etr_diff_out_aliasing(&c, 0);
      c.dtype = kDtypes[t];
      failures += etr_diff_run(&c);
    }
  }
  cr_assert_eq(failures, 0, "%d shared-kernel cases disagree", failures);
}
