// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized reflection and replication padding
// kernels (reflection_pad1d/2d/3d, replication_pad2d/3d; movement/pad.c)
// against the reference kernels, on every ISA of this machine. Results
// must match bit for bit (a move keeps bytes).
//
// Sweeps: every op with and without the batch dim; innermost sizes over
// the vector edges (1, 2, 7, 8, 9, 16, 17, 33); paddings zero, positive,
// the largest reflection allows (size - 1), asymmetric, negative (crops)
// and mixed; one dtype of each element size and Bool; contiguous,
// non-contiguous and channels-last inputs, channels-last outs; special
// values; and the errors the reference reports (reflection pad >= size,
// an output of width 0, a wrong padding length, a wrong rank, a zero
// non-batch dim), which both kernels must refuse alike.
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/test/movement_test_util.h"

static uint64_t g_seed = 700000;

typedef struct pad_op {
  const char *name;
  int32_t spatial;
  bool reflect;
} pad_op_t;

static const pad_op_t kOps[] = {
    {"aten::reflection_pad1d.out", 1, true},
    {"aten::reflection_pad2d.out", 2, true},
    {"aten::reflection_pad3d.out", 3, true},
    {"aten::replication_pad2d.out", 2, false},
    {"aten::replication_pad3d.out", 3, false},
};

// One case: self of `rank` dims `sizes`, `padding` (2 * spatial entries);
// `fast` asserts every ISA took the optimized path.
static int run_pad(const pad_op_t *op, etr_scalar_type_t dtype, int32_t rank,
                   const int64_t *sizes, const int64_t *padding,
                   size_t num_padding, etr_diff_layout_t layout,
                   bool channels_last_out, bool fast) {
  etr_diff_case_t c;
  etr_diff_begin(&c, op->name, g_seed++,
                 "%s rank %d [%lld .. %lld] pad %lld,%lld%s",
                 etr_scalar_type_name(dtype), (int)rank, (long long)sizes[0],
                 (long long)sizes[rank - 1], (long long)padding[0],
                 (long long)padding[1], channels_last_out ? " cl out" : "");
  etr_diff_input(&c, dtype, rank, sizes, layout, ETR_FILL_SPECIAL);
  etr_diff_arg(&c, tt_ev_int_list(num_padding, padding));
  if (channels_last_out) {
    int64_t out_sizes[4];
    memcpy(out_sizes, sizes, sizeof(out_sizes));
    for (int32_t k = 0; k < op->spatial; ++k) {
      out_sizes[3 - k] += padding[2 * k] + padding[2 * k + 1];
    }
    etr_diff_out(&c, dtype, 4, out_sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    // Capacity for the padded shape (when the padding is valid).
    int64_t capacity = 64;
    for (int32_t d = 0; d < rank; ++d) {
      int32_t k = rank - 1 - d;
      int64_t size = sizes[d];
      if (k < op->spatial && 2 * (size_t)k + 1 < num_padding) {
        size += padding[2 * k] + padding[2 * k + 1];
      }
      capacity *= size > 1 ? size : 1;
    }
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 capacity);
  }
  etr_diff_return(&c, 2);
  etr_diff_tolerance_exact(&c);
  mt_key(&c, dtype, layout);
  // PyTorch implements no padding for Bool: both kernels refuse it.
  return mt_run(&c, fast && dtype != ETR_BOOL);
}

TT_TEST(diff_movement_pad, widths_and_paddings) {
  static const int64_t kWidths[] = {1, 2, 7, 8, 9, 16, 17, 33};
  int failures = 0;
  for (size_t o = 0; o < sizeof(kOps) / sizeof(kOps[0]); ++o) {
    const pad_op_t *op = &kOps[o];
    for (size_t w = 0; w < sizeof(kWidths) / sizeof(kWidths[0]); ++w) {
      int64_t width = kWidths[w];
      for (int batch = 0; batch < 2; ++batch) {
        int32_t rank = op->spatial + 1 + batch;
        int64_t sizes[5];
        for (int32_t d = 0; d < rank; ++d) {
          sizes[d] = 2 + (d + (int32_t)w) % 3;
        }
        sizes[rank - 1] = width;
        // Paddings per spatial dim k (0 = innermost): a pattern each.
        static const int64_t kPatterns[][2] = {
            {0, 0}, {1, 2}, {3, 0}, {-1, 2}, {2, -1}, {1, 1}};
        for (size_t p = 0; p < sizeof(kPatterns) / sizeof(kPatterns[0]);
             ++p) {
          int64_t padding[6];
          bool ok = true;
          for (int32_t k = 0; k < op->spatial; ++k) {
            int64_t size = sizes[rank - 1 - k];
            for (int side = 0; side < 2; ++side) {
              int64_t pad = kPatterns[(p + (size_t)k) % 6][side];
              if (op->reflect && pad >= size) {
                pad = size - 1;  // the largest reflection accepts
              }
              padding[2 * k + side] = pad;
            }
            ok = ok && size + padding[2 * k] + padding[2 * k + 1] >= 1;
          }
          etr_scalar_type_t dtype =
              kMovementFewDtypes[(w + p) % MOVEMENT_NUM_FEW_DTYPES];
          failures += run_pad(op, dtype, rank, sizes, padding,
                              2 * (size_t)op->spatial,
                              (etr_diff_layout_t)((w + p) % 2), false, ok);
        }
      }
    }
  }
  mt_summary("widths_and_paddings");
  cr_assert_eq(failures, 0, "%d padding cases disagree", failures);
}

TT_TEST(diff_movement_pad, dtypes_and_layouts) {
  int failures = 0;
  for (size_t o = 0; o < sizeof(kOps) / sizeof(kOps[0]); ++o) {
    const pad_op_t *op = &kOps[o];
    // Rank 4 whatever the op (the batch mode of 2-D, the plain mode of
    // 3-D, rank 4 is refused by 1-D), so channels-last applies.
    int64_t sizes[4] = {2, 5, 6, 19};
    int64_t padding[6] = {3, 2, 1, 4, 1, 0};
    if (op->spatial == 1) {
      sizes[0] = 5;
      sizes[1] = 23;
    }
    int32_t rank = op->spatial == 1 ? 2 : 4;
    for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
      for (int layout = 0; layout < 3; ++layout) {
        failures += run_pad(op, kMovementDtypes[t], rank, sizes, padding,
                            2 * (size_t)op->spatial,
                            (etr_diff_layout_t)layout, false, true);
      }
      if (rank == 4) {
        failures += run_pad(op, kMovementDtypes[t], rank, sizes, padding,
                            2 * (size_t)op->spatial, ETR_DIFF_CHANNELS_LAST,
                            true, true);
      }
    }
  }
  mt_summary("dtypes_and_layouts");
  cr_assert_eq(failures, 0, "%d padding cases disagree", failures);
}

TT_TEST(diff_movement_pad, models_and_errors) {
  int failures = 0;
  // A segmentation-style 2-D reflection pad and a 3-D replication pad of
  // real sizes; an empty batch.
  failures += run_pad(&kOps[1], ETR_FLOAT, 4, (const int64_t[]){1, 32, 64, 64},
                      (const int64_t[]){3, 3, 3, 3}, 4, ETR_DIFF_CONTIGUOUS,
                      false, true);
  failures += run_pad(&kOps[4], ETR_FLOAT, 5,
                      (const int64_t[]){1, 4, 8, 16, 16},
                      (const int64_t[]){1, 1, 1, 1, 1, 1}, 6,
                      ETR_DIFF_CONTIGUOUS, false, true);
  failures += run_pad(&kOps[0], ETR_FLOAT, 3, (const int64_t[]){0, 3, 8},
                      (const int64_t[]){2, 2}, 2, ETR_DIFF_CONTIGUOUS, false,
                      true);
  for (size_t o = 0; o < sizeof(kOps) / sizeof(kOps[0]); ++o) {
    const pad_op_t *op = &kOps[o];
    int32_t rank = op->spatial + 1;
    int64_t sizes[4] = {3, 3, 3, 3};
    int64_t equal[6] = {3, 0, 3, 0, 3, 0};    // reflection: pad == size
    int64_t crop_all[6] = {-2, -1, -3, 0, -3, 0};  // width 0
    failures += run_pad(op, ETR_FLOAT, rank, sizes, equal,
                        2 * (size_t)op->spatial, ETR_DIFF_CONTIGUOUS, false,
                        !op->reflect);
    failures += run_pad(op, ETR_FLOAT, rank, sizes, crop_all,
                        2 * (size_t)op->spatial, ETR_DIFF_CONTIGUOUS, false,
                        false);
    // Wrong padding length, wrong rank, a zero non-batch dim.
    failures += run_pad(op, ETR_FLOAT, rank, sizes, equal,
                        2 * (size_t)op->spatial - 1, ETR_DIFF_CONTIGUOUS,
                        false, false);
    failures += run_pad(op, ETR_FLOAT, op->spatial, sizes, crop_all,
                        2 * (size_t)op->spatial, ETR_DIFF_CONTIGUOUS, false,
                        false);
    int64_t zero[5] = {2, 0, 3, 3, 3};
    failures += run_pad(op, ETR_FLOAT, op->spatial + 2, zero, equal,
                        2 * (size_t)op->spatial, ETR_DIFF_CONTIGUOUS, false,
                        false);
  }
  mt_summary("models_and_errors");
  cr_assert_eq(failures, 0, "%d padding cases disagree", failures);
}
