// SPDX-License-Identifier: Apache-2.0
//
// Tensor shape arithmetic, dim orders and strides, resizing within capacity,
// and the arena allocator's overflow checks.
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/evalue.h"
#include "core/tensor.h"

Test(tensor, strides_follow_dim_order) {
  float data[24];
  etr_tensor_t tensor;
  int64_t sizes[4] = {1, 2, 3, 4};
  cr_assert_eq(etr_tensor_init(&tensor, ETR_FLOAT, 4, sizes, data,
                               sizeof(data), NULL),
               ETR_OK);
  int64_t contiguous[4] = {24, 12, 4, 1};
  cr_assert_arr_eq(tensor.strides, contiguous, sizeof(contiguous));
  cr_assert(etr_tensor_is_contiguous(&tensor));
  uint8_t channels_last[4] = {0, 2, 3, 1};
  cr_assert_eq(etr_tensor_init_with_dim_order(&tensor, ETR_FLOAT, 4, sizes,
                                              channels_last, data,
                                              sizeof(data), NULL),
               ETR_OK);
  int64_t nhwc[4] = {24, 1, 8, 2};
  cr_assert_arr_eq(tensor.strides, nhwc, sizeof(nhwc));
  cr_assert(etr_dim_order_is_channels_last(tensor.dim_order, 4));
  cr_assert(etr_tensor_is_dense(&tensor));
  cr_assert_not(etr_tensor_is_contiguous(&tensor));
  char text[64];
  etr_tensor_describe(&tensor, text, sizeof(text));
  cr_assert_str_eq(text, "Float[1, 2, 3, 4] dim_order(0,2,3,1)");
}

Test(tensor, zero_sizes_count_as_one_in_strides) {
  int64_t sizes[3] = {2, 0, 3};
  uint8_t order[3] = {0, 1, 2};
  int64_t strides[3];
  etr_strides_from_dim_order(sizes, order, 3, strides);
  cr_assert_eq(strides[0], 3);
  cr_assert_eq(strides[1], 3);
  cr_assert_eq(strides[2], 1);
  etr_tensor_t tensor;
  cr_assert_eq(etr_tensor_init(&tensor, ETR_FLOAT, 3, sizes, NULL, 0, NULL),
               ETR_OK);
  cr_assert_eq(etr_tensor_numel(&tensor), 0);
  cr_assert_eq(etr_tensor_nbytes(&tensor), 0);
}

Test(tensor, zero_dim_has_one_element) {
  double value = 3.0;
  etr_tensor_t tensor;
  cr_assert_eq(etr_tensor_init(&tensor, ETR_DOUBLE, 0, NULL, &value,
                               sizeof(value), NULL),
               ETR_OK);
  cr_assert_eq(etr_tensor_numel(&tensor), 1);
  int64_t index[1] = {0};
  cr_assert_not(etr_index_next(index, tensor.sizes, 0));
}

Test(tensor, invalid_shapes_are_rejected) {
  etr_diag_t diag;
  int64_t negative[2] = {2, -1};
  int64_t numel;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_checked_numel(negative, 2, &numel, &diag),
               ETR_ERR_INVALID_PROGRAM);
  int64_t huge[3] = {INT64_MAX / 2, 3, 1};
  etr_diag_reset(&diag);
  cr_assert_eq(etr_checked_numel(huge, 3, &numel, &diag),
               ETR_ERR_INVALID_PROGRAM);
  int64_t big[2] = {INT64_MAX / 4 + 1, 1};  // 2^61 doubles = 2^64 bytes
  size_t nbytes;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_checked_nbytes(ETR_DOUBLE, big, 2, &nbytes, &diag),
               ETR_ERR_INVALID_PROGRAM);
  uint8_t repeated[2] = {0, 0};
  cr_assert_not(etr_dim_order_is_valid(repeated, 2));
  uint8_t out_of_range[2] = {0, 2};
  cr_assert_not(etr_dim_order_is_valid(out_of_range, 2));
  float data[4];
  int64_t sizes[2] = {2, 3};
  etr_tensor_t tensor;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_tensor_init(&tensor, ETR_FLOAT, 2, sizes, data,
                               sizeof(data), &diag),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(etr_tensor_init(&tensor, ETR_FLOAT, 17, sizes, data,
                               sizeof(data), NULL),
               ETR_ERR_INVALID_ARGUMENT);
}

Test(tensor, resize_within_capacity_only) {
  float data[6];
  int64_t sizes[2] = {2, 3};
  etr_tensor_t tensor;
  cr_assert_eq(etr_tensor_init(&tensor, ETR_FLOAT, 2, sizes, data,
                               sizeof(data), NULL),
               ETR_OK);
  int64_t smaller[2] = {1, 3};
  cr_assert_eq(etr_tensor_resize(&tensor, 2, smaller, NULL), ETR_OK);
  cr_assert_eq(tensor.strides[0], 3);
  int64_t flat[1] = {6};
  cr_assert_eq(etr_tensor_resize(&tensor, 1, flat, NULL), ETR_OK);
  cr_assert_eq(tensor.dim, 1);
  int64_t larger[2] = {3, 3};
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_tensor_resize(&tensor, 2, larger, &diag),
               ETR_ERR_INVALID_ARGUMENT);
  tensor.shape_dynamism = ETR_SHAPE_STATIC;
  cr_assert_eq(etr_tensor_resize(&tensor, 1, flat, NULL), ETR_OK);  // same
  cr_assert_eq(etr_tensor_resize(&tensor, 2, smaller, NULL),
               ETR_ERR_INVALID_ARGUMENT);
}

Test(tensor, non_contiguous_views_iterate_in_logical_order) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  int64_t sizes[2] = {2, 3};
  etr_tensor_t tensor;
  cr_assert_eq(etr_tensor_init(&tensor, ETR_FLOAT, 2, sizes, data,
                               sizeof(data), NULL),
               ETR_OK);
  // The transpose as a view: sizes [3, 2], strides [1, 3].
  tensor.sizes[0] = 3;
  tensor.sizes[1] = 2;
  tensor.strides[0] = 1;
  tensor.strides[1] = 3;
  cr_assert_not(etr_tensor_is_contiguous(&tensor));
  float expected[6] = {0, 3, 1, 4, 2, 5};
  int64_t index[2] = {0, 0};
  int i = 0;
  do {
    cr_assert_eq(data[etr_tensor_offset(&tensor, index)], expected[i++]);
  } while (etr_index_next(index, tensor.sizes, 2));
  cr_assert_eq(i, 6);
}

Test(arena, fixed_arena_aligns_and_refuses_overflow) {
  _Alignas(64) uint8_t buffer[256];
  etr_arena_t arena;
  etr_arena_init(&arena, buffer, sizeof(buffer));
  void *a = etr_arena_alloc(&arena, 3, 1);
  void *b = etr_arena_alloc(&arena, 8, 16);
  cr_assert_not_null(a);
  cr_assert_not_null(b);
  cr_assert_eq((uintptr_t)b % 16, 0);
  cr_assert_null(etr_arena_alloc(&arena, 1000, 1));
  cr_assert_null(etr_arena_alloc(&arena, SIZE_MAX, 16));
  cr_assert_null(etr_arena_alloc(&arena, 8, 3));  // not a power of two
  cr_assert_null(etr_arena_calloc(&arena, SIZE_MAX / 2, 4, 8));
  size_t peak = arena.peak;
  etr_arena_reset(&arena);
  cr_assert_eq(arena.used, 0);
  cr_assert_eq(arena.peak, peak);
  size_t rounded;
  cr_assert_not(etr_size_align_up(SIZE_MAX - 2, 16, &rounded));
  cr_assert(etr_size_align_up(17, 16, &rounded));
  cr_assert_eq(rounded, 32);
}

Test(arena, rewind_hands_the_same_bytes_out_again) {
  _Alignas(64) uint8_t buffer[256];
  etr_arena_t arena;
  etr_arena_init(&arena, buffer, sizeof(buffer));
  cr_assert_not_null(etr_arena_alloc(&arena, 10, 1));
  etr_arena_mark_t mark = etr_arena_mark(&arena);
  void *first = etr_arena_alloc(&arena, 100, 16);
  cr_assert_not_null(first);
  cr_assert_not_null(etr_arena_alloc(&arena, 100, 16));
  cr_assert_null(etr_arena_alloc(&arena, 100, 16));  // full
  etr_arena_rewind(&arena, mark);
  cr_assert_eq(arena.used, mark.used);
  cr_assert_eq(etr_arena_alloc(&arena, 100, 16), first);
  // Reset below the mark: rewinding must not move `used` forward.
  etr_arena_reset(&arena);
  etr_arena_rewind(&arena, mark);
  cr_assert_eq(arena.used, 0);
}

Test(arena, growable_arena_respects_its_limit) {
  etr_arena_t arena;
  etr_arena_init_growable(&arena, 1024, 8192);
  for (int i = 0; i < 6; ++i) {
    cr_assert_not_null(etr_arena_alloc(&arena, 1000, 8));
  }
  cr_assert_null(etr_arena_alloc(&arena, 4000, 8));
  cr_assert_null(etr_arena_alloc(&arena, SIZE_MAX - 10, 8));
  etr_arena_destroy(&arena);
}

Test(evalue, int_lists_unbox_through_their_items) {
  etr_evalue_t items[2] = {{.tag = ETR_TAG_INT}, {.tag = ETR_TAG_INT}};
  items[0].u.as_int = 4;
  items[1].u.as_int = -1;
  etr_evalue_t *refs[2] = {&items[0], &items[1]};
  int64_t scratch[2];
  etr_evalue_t list = {.tag = ETR_TAG_LIST_INT};
  list.u.as_int_list.items = refs;
  list.u.as_int_list.unboxed = scratch;
  list.u.as_int_list.length = 2;
  size_t length = 0;
  const int64_t *values = etr_int_list_values(&list, &length);
  cr_assert_eq(length, 2);
  cr_assert_eq(values[0], 4);
  items[0].u.as_int = 7;  // a SymInt updated at run time
  values = etr_int_list_values(&list, &length);
  cr_assert_eq(values[0], 7);
  items[1].tag = ETR_TAG_DOUBLE;
  cr_assert_null(etr_int_list_values(&list, &length));
  cr_assert_str_eq(etr_tag_name(ETR_TAG_LIST_OPTIONAL_TENSOR),
                   "ListOptionalTensor");
}

Test(tensor, shapes_whose_strides_overflow_are_refused) {
  int64_t sizes[3] = {0, (int64_t)1 << 40, (int64_t)1 << 40};
  int64_t numel = -1;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_checked_numel(sizes, 3, &numel, &diag),
               ETR_ERR_INVALID_PROGRAM);
  etr_tensor_t tensor;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_tensor_init(&tensor, ETR_FLOAT, 3, sizes, NULL, 0, &diag),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(diag.code, ETR_ERR_INVALID_ARGUMENT, "diag records %s",
               etr_error_name(diag.code));
}
