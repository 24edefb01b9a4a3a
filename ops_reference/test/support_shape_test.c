// SPDX-License-Identifier: Apache-2.0
//
// support/shape.h, support/iter.h and support/reduce.h: dim normalization
// and its range errors, dim lists, broadcasting (PyTorch's rules and the
// error), broadcast views, slice bounds (Python's clamping), the strided
// iterator over broadcast operands, dim splits, reshaped copies, out
// resizing, and reduction shapes.
#include <string.h>

#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce.h"
#include "ops_reference/support/shape.h"
#include "ops_reference/test/test_util.h"

static etr_diag_t g_diag;

static etr_kernel_context_t context(void) {
  etr_diag_reset(&g_diag);
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &g_diag;
  ctx.op_name = "test::op";
  return ctx;
}

TT_TEST(shape, normalize_dim) {
  etr_kernel_context_t ctx = context();
  int32_t dim = -1;
  cr_expect_eq(etr_normalize_dim(&ctx, -1, 3, &dim), ETR_OK);
  cr_expect_eq(dim, 2);
  cr_expect_eq(etr_normalize_dim(&ctx, 2, 3, &dim), ETR_OK);
  cr_expect_eq(etr_normalize_dim(&ctx, 3, 3, &dim), ETR_ERR_INVALID_ARGUMENT);
  ctx = context();
  cr_expect_eq(etr_normalize_dim(&ctx, -4, 3, &dim), ETR_ERR_INVALID_ARGUMENT);
  // A 0-dim tensor accepts -1 and 0.
  ctx = context();
  cr_expect_eq(etr_normalize_dim(&ctx, -1, 0, &dim), ETR_OK);
  cr_expect_eq(dim, 0);
  cr_expect_eq(etr_normalize_dim(&ctx, 1, 0, &dim), ETR_ERR_INVALID_ARGUMENT);
  ctx = context();
  cr_expect_eq(etr_normalize_insert_dim(&ctx, -1, 2, &dim), ETR_OK);
  cr_expect_eq(dim, 2);
}

TT_TEST(shape, dim_lists) {
  etr_kernel_context_t ctx = context();
  uint32_t mask = 0;
  cr_expect_eq(etr_dim_list_mask(&ctx, NULL, 0, false, 3, &mask), ETR_OK);
  cr_expect_eq(mask, 7u);
  const int64_t dims[] = {0, -1};
  cr_expect_eq(etr_dim_list_mask(&ctx, dims, 2, true, 3, &mask), ETR_OK);
  cr_expect_eq(mask, 5u);
  const int64_t twice[] = {1, -2};
  cr_expect_eq(etr_dim_list_mask(&ctx, twice, 2, true, 3, &mask),
               ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(shape, broadcasting) {
  etr_kernel_context_t ctx = context();
  const int64_t a[] = {2, 1, 3};
  const int64_t b[] = {4, 1};
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  cr_expect_eq(etr_broadcast_shapes(&ctx, 3, a, 2, b, &dim, sizes), ETR_OK);
  cr_expect(dim == 3 && sizes[0] == 2 && sizes[1] == 4 && sizes[2] == 3);
  const int64_t c[] = {2};
  cr_expect_eq(etr_broadcast_shapes(&ctx, 3, a, 1, c, &dim, sizes),
               ETR_ERR_INVALID_ARGUMENT);
  // Zero-size dims broadcast against 1, not against other sizes.
  ctx = context();
  const int64_t zero[] = {0, 3};
  const int64_t one[] = {1, 3};
  cr_expect_eq(etr_broadcast_shapes(&ctx, 2, zero, 2, one, &dim, sizes),
               ETR_OK);
  cr_expect_eq(sizes[0], 0);
  etr_tensor_t *t = tt_tensor(ETR_FLOAT, TT_SIZES(3, 1), NULL);
  const int64_t target[] = {2, 3, 4};
  cr_expect(etr_can_broadcast_to(t, 3, target));
  etr_tensor_t view;
  cr_expect_eq(etr_broadcast_view(&ctx, t, 3, target, &view), ETR_OK);
  cr_expect(view.strides[0] == 0 && view.strides[1] == 1 &&
            view.strides[2] == 0);
  const int64_t wrong[] = {2, 4};
  cr_expect_eq(etr_broadcast_view(&ctx, t, 2, wrong, &view),
               ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(shape, slice_bounds) {
  struct {
    int64_t size, start, end, step;
    bool has_start, has_end;
    int64_t first, length;
  } cases[] = {
      {5, -100, 100, 2, true, true, 0, 3},  // [0, 2, 4]
      {5, 4, 1, 1, true, true, 4, 0},
      {5, 0, 0, 1, false, false, 0, 5},
      {5, -2, 0, 1, true, false, 3, 2},
      {5, 7, 9, 1, true, true, 5, 0},
      {5, 1, INT64_MAX, INT64_MAX, true, true, 1, 1},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    etr_kernel_context_t ctx = context();
    int64_t first = -1;
    int64_t length = -1;
    cr_expect_eq(etr_slice_bounds(&ctx, cases[i].size, cases[i].has_start,
                                  cases[i].start, cases[i].has_end,
                                  cases[i].end, cases[i].step, &first,
                                  &length),
                 ETR_OK);
    cr_expect(first == cases[i].first && length == cases[i].length,
              "case %zu: first %lld length %lld", i, (long long)first,
              (long long)length);
  }
  etr_kernel_context_t ctx = context();
  int64_t first = 0;
  int64_t length = 0;
  cr_expect_eq(etr_slice_bounds(&ctx, 5, false, 0, false, 0, 0, &first,
                                &length),
               ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(iter, walks_broadcast_operands_in_logical_order) {
  etr_kernel_context_t ctx = context();
  etr_tensor_t *a = tt_noncontiguous(
      tt_tensor(ETR_INT, TT_SIZES(2, 3), TT_VALUES(0, 1, 2, 3, 4, 5)));
  etr_tensor_t *b = tt_tensor(ETR_INT, TT_SIZES(3), TT_VALUES(10, 20, 30));
  etr_tensor_t b_view;
  cr_expect_eq(etr_broadcast_view(&ctx, b, 2, a->sizes, &b_view), ETR_OK);
  const etr_tensor_t *operands[2] = {a, &b_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 2, a->sizes, operands, 2);
  int64_t seen = 0;
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t x = etr_load_int64(ETR_INT, etr_element_at(a, iter.offsets[0]));
    int64_t y =
        etr_load_int64(ETR_INT, etr_element_at(&b_view, iter.offsets[1]));
    cr_expect_eq(x, seen);
    cr_expect_eq(y, 10 * (seen % 3 + 1));
    ++seen;
  }
  cr_expect_eq(seen, 6);
  // Zero-size and zero-dim shapes.
  etr_strided_iter_init(&iter, 2, (const int64_t[]){0, 3}, operands, 1);
  cr_expect(etr_strided_iter_done(&iter));
  etr_strided_iter_init(&iter, 0, NULL, operands, 1);
  cr_expect(!etr_strided_iter_done(&iter));
  etr_strided_iter_next(&iter);
  cr_expect(etr_strided_iter_done(&iter));
}

TT_TEST(iter, dim_split_and_copies) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3, 2),
                              TT_VALUES(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  const etr_tensor_t *operands[1] = {x};
  etr_dim_split_t split;
  etr_dim_split_init(&split, 1u << 1, operands, 1);  // inner: dim 1
  cr_expect(split.outer_count == 4 && split.inner_count == 3);
  // Outer position 1 is (0, *, 1); inner position 2 adds 2 * stride 2.
  cr_expect_eq(etr_dim_split_outer(&split, 0, 1), 1);
  cr_expect_eq(etr_dim_split_inner(&split, 0, 2), 4);

  etr_tensor_t *reshaped = tt_out(ETR_DOUBLE, TT_SIZES(3, 4), 0);
  etr_copy_reshaped(reshaped, tt_noncontiguous(x));
  tt_expect_values(reshaped, TT_VALUES(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
                   12);
  etr_tensor_t *copy = tt_out(ETR_LONG, TT_SIZES(2, 3, 2), 0);
  etr_copy_strided(copy, x);
  cr_expect_eq(tt_get_i64(copy, 11), 11);
}

TT_TEST(shape, resize_and_reduction_shapes) {
  etr_kernel_context_t ctx = context();
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2, 3), 0);
  cr_expect_eq(etr_resize_out(&ctx, out, 2, (const int64_t[]){3, 2}), ETR_OK);
  cr_expect_eq(etr_resize_out(&ctx, out, 1, (const int64_t[]){7}),
               ETR_ERR_INVALID_ARGUMENT);
  cr_expect(strstr(g_diag.message, "test::op") != NULL, "%s", g_diag.message);
  ctx = context();
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3, 4), NULL);
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  etr_reduction_shape(x, 5u, false, &dim, sizes);
  cr_expect(dim == 1 && sizes[0] == 3);
  etr_reduction_shape(x, 5u, true, &dim, sizes);
  cr_expect(dim == 3 && sizes[0] == 1 && sizes[1] == 3 && sizes[2] == 1);
  etr_tensor_t *reduced = tt_out(ETR_FLOAT, TT_SIZES(3), 0);
  etr_tensor_t view;
  etr_reduction_out_view(x, 5u, false, reduced, &view);
  cr_expect(view.dim == 3 && view.strides[0] == 0 && view.strides[1] == 1 &&
            view.strides[2] == 0);
}
