// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized _embedding_bag kernel
// (ops_optimized/op_embedding_bag.c) against the reference kernel, on
// every ISA of this machine. All four outputs must match bit for bit: the
// optimized kernel adds a bag's rows in the reference's order, in fp32
// (Half and BFloat16 weights too, rounded once as ATen rounds them).
//
// Sweeps: embedding widths over the vector edges; bags that are empty,
// single and long (several rows repeated); include_last_offset both ways
// (and a last offset short of n, where sum and mean cover different
// positions); Long and Int indices and offsets (mixed); per-sample
// weights; special values; Float, Half and BFloat16 weights (a Half mean
// over 2051 rows, whose count rounds to 2052 in Half); mode sum and mean,
// and max and padding_idx (fallback); refused values (offsets[0] != 0,
// decreasing offsets, an offset past n, an index out of range).
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/test/movement_test_util.h"

static uint64_t g_seed = 910000;

typedef struct bag_case {
  etr_scalar_type_t dtype;
  int64_t rows;
  int64_t columns;
  int64_t n;
  const int64_t *offsets;
  int64_t num_offsets;
  etr_scalar_type_t index_dtype;
  etr_scalar_type_t offset_dtype;
  int64_t mode;
  bool per_sample_weights;
  bool include_last_offset;
  int64_t padding_idx;
  int64_t bad_index;  // 0: none; else the last index
  bool fast;
  bool positive;  // weights in (0, 2] instead of special values
} bag_case_t;

static int run_bag(const bag_case_t *b) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::_embedding_bag.out", g_seed++,
                 "%s D %lld n %lld bags %lld mode %lld%s%s pad %lld",
                 etr_scalar_type_name(b->dtype), (long long)b->columns,
                 (long long)b->n, (long long)b->num_offsets,
                 (long long)b->mode, b->per_sample_weights ? " psw" : "",
                 b->include_last_offset ? " last" : "",
                 (long long)b->padding_idx);
  etr_diff_input(&c, b->dtype, 2, (const int64_t[]){b->rows, b->columns}, 0,
                 b->positive ? ETR_FILL_POSITIVE : ETR_FILL_SPECIAL);
  int64_t *values = tt_alloc((size_t)(b->n > 0 ? b->n : 1) * 8);
  for (int64_t i = 0; i < b->n; ++i) {
    values[i] = etr_diff_range(&c, 0, b->rows - 1);
  }
  if (b->bad_index != 0 && b->n > 0) {
    values[b->n - 1] = b->bad_index;
  }
  mt_index(&c, b->index_dtype, 1, (const int64_t[]){b->n}, values, 0);
  mt_index(&c, b->offset_dtype, 1, (const int64_t[]){b->num_offsets},
           b->offsets, 0);
  etr_diff_arg(&c, tt_ev_bool(false));
  etr_diff_arg(&c, tt_ev_int(b->mode));
  etr_diff_arg(&c, tt_ev_bool(false));
  if (b->per_sample_weights) {
    etr_diff_input(&c, b->dtype, 1, (const int64_t[]){b->n}, 0,
                   ETR_FILL_RANDOM);
  } else {
    etr_diff_arg(&c, tt_ev_none());
  }
  etr_diff_arg(&c, tt_ev_bool(b->include_last_offset));
  etr_diff_arg(&c, tt_ev_int(b->padding_idx));
  etr_scalar_type_t index_out = b->index_dtype == ETR_LONG ||
                                        b->offset_dtype == ETR_LONG
                                    ? ETR_LONG
                                    : ETR_INT;
  int64_t capacity = (b->num_offsets + 1) * (b->columns + 1) + b->n + 8;
  etr_diff_out(&c, b->dtype, 1, (const int64_t[]){0}, 0, capacity);
  for (int k = 0; k < 3; ++k) {
    etr_diff_out(&c, index_out, 1, (const int64_t[]){0}, 0, capacity);
  }
  size_t outs[4] = {9, 10, 11, 12};
  etr_diff_out_list(&c, 4, outs);
  etr_diff_tolerance_exact(&c);
  mt_key(&c, b->dtype, 0);
  return mt_run(&c, b->fast);
}

TT_TEST(diff_movement_embedding_bag, bags_and_widths) {
  int failures = 0;
  static const int64_t kColumns[] = {1, 3, 8, 16, 17, 64};
  // n = 12 positions: empty bags at the start, middle and end.
  static const int64_t kOffsets[] = {0, 0, 3, 3, 4, 10, 12};
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                              ETR_BFLOAT16};
  for (size_t k = 0; k < sizeof(kColumns) / sizeof(kColumns[0]); ++k) {
    for (int64_t mode = 0; mode < 2; ++mode) {
      for (size_t t = 0; t < 3; ++t) {
        for (int last = 0; last < 2; ++last) {
          for (int psw = 0; psw < 2; ++psw) {
            if (psw && mode != 0) {
              continue;
            }
            bag_case_t b = {kDtypes[t], 7, kColumns[k], 12, kOffsets, 7,
                            (k + (size_t)last) % 2 ? ETR_INT : ETR_LONG,
                            (k + (size_t)psw) % 2 ? ETR_LONG : ETR_INT, mode,
                            psw == 1, last == 1, -1, 0, true, false};
            failures += run_bag(&b);
          }
        }
      }
    }
  }
  static const int64_t kOne[] = {0};
  bag_case_t long_mean = {ETR_HALF, 50, 3, 2051, kOne, 1, ETR_LONG,
                          ETR_LONG, 1, false, false, -1, 0, true, true};
  failures += run_bag(&long_mean);
  // A last offset short of n with include_last_offset (sum and mean cover
  // different positions); a single bag; no indices.
  static const int64_t kShort[] = {0, 2, 5};
  static const int64_t kSingle[] = {0};
  for (int64_t mode = 0; mode < 2; ++mode) {
    bag_case_t shorter = {ETR_FLOAT, 5, 9, 8, kShort, 3, ETR_LONG, ETR_LONG,
                          mode, false, true, -1, 0, true, false};
    failures += run_bag(&shorter);
    bag_case_t single = {ETR_FLOAT, 50, 33, 40, kSingle, 1, ETR_LONG,
                         ETR_LONG, mode, false, false, -1, 0, true, false};
    failures += run_bag(&single);
    bag_case_t none = {ETR_FLOAT, 5, 9, 0, kSingle, 1, ETR_LONG, ETR_LONG,
                       mode, false, false, -1, 0, true, false};
    failures += run_bag(&none);
  }
  mt_summary("bags_and_widths");
  cr_assert_eq(failures, 0, "%d embedding_bag cases disagree", failures);
}

TT_TEST(diff_movement_embedding_bag, fallbacks_and_refusals) {
  int failures = 0;
  static const int64_t kOffsets[] = {0, 0, 3, 3, 4, 10, 12};
  bag_case_t base = {ETR_FLOAT, 7, 8, 12, kOffsets, 7, ETR_LONG, ETR_LONG,
                     0, false, false, -1, 0, false, false};
  bag_case_t max = base;
  max.mode = 2;
  failures += run_bag(&max);
  bag_case_t padded = base;
  padded.padding_idx = 2;
  failures += run_bag(&padded);
  bag_case_t bad_index = base;
  bad_index.bad_index = 7;
  failures += run_bag(&bad_index);
  static const int64_t kNotZero[] = {1, 3, 12};
  static const int64_t kDecreasing[] = {0, 5, 3};
  static const int64_t kPastEnd[] = {0, 3, 13};
  const int64_t *refused[3] = {kNotZero, kDecreasing, kPastEnd};
  for (int k = 0; k < 3; ++k) {
    bag_case_t b = base;
    b.offsets = refused[k];
    b.num_offsets = 3;
    failures += run_bag(&b);
  }
  mt_summary("fallbacks_and_refusals");
  cr_assert_eq(failures, 0, "%d embedding_bag cases disagree", failures);
}
