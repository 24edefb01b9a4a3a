// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized nonzero kernel
// (ops_optimized/op_nonzero.c) against the reference kernel, on every ISA
// this machine has: the index rows must match bit for bit.
//
// Sweeps: ranks 0 to 4, sizes over the vector edges, densities from all
// zero to all non-zero (every third element zeroed, -0.0 among them, NaN
// counting as non-zero; a Half or BFloat16 denormal too); Float, Double,
// Half, BFloat16, Long, Int, Byte and Bool; non-contiguous inputs
// (fallback); outs row-major and with dim order (1, 0) (ExecuTorch's
// plan for nonzero's result); an out too small for the result (the
// reference's InvalidArgument). Float rows around the SIMD steps (8 and
// 16 floats), dense and sparse, with NaN and -0.0 on lane edges; Bool and
// Byte rows around the byte kernels' steps (8, 32, 64 bytes), Byte values
// with only their high or low bit set.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 130000;

// nonzero's out: with `transposed`, [numel, rank] in dim order (1, 0), as
// ExecuTorch's exporter plans nonzero's result, resized by the kernel;
// else a row-major one of `capacity` elements.
static void add_out(etr_diff_case_t *c, int64_t numel, int32_t rank,
                    bool transposed, int64_t capacity) {
  if (!transposed) {
    etr_diff_out(c, ETR_LONG, 1, (const int64_t[]){0}, 0, capacity);
    return;
  }
  etr_diff_out(c, ETR_LONG, 2, (const int64_t[]){numel, rank}, 0, 8);
  etr_tensor_t *spec = c->args[c->num_args - 1]->u.as_tensor;
  spec->dim_order[0] = 1;
  spec->dim_order[1] = 0;
  spec->strides[0] = 1;
  spec->strides[1] = numel;
}

// `transposed`: the out is [numel, rank] with dim order (1, 0) (add_out).
static int run_nonzero(etr_scalar_type_t dtype, int32_t rank,
                       const int64_t *sizes, etr_diff_layout_t layout,
                       etr_diff_fill_t fill, int64_t capacity,
                       bool transposed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::nonzero.out", g_seed++, "%s rank %d fill %d%s",
                 etr_scalar_type_name(dtype), (int)rank, (int)fill,
                 transposed ? " out (1, 0)" : "");
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  int64_t numel = etr_tensor_numel(self);
  if (layout == ETR_DIFF_CONTIGUOUS && fill != ETR_FILL_ZERO) {
    size_t element = etr_scalar_type_size(dtype);
    for (int64_t i = 0; i < numel; i += 3) {
      memset((char *)self->data + i * (int64_t)element, 0, element);
    }
    if (dtype == ETR_FLOAT && numel > 1) {
      ((float *)self->data)[1] = -0.0f;
    }
    if ((dtype == ETR_HALF || dtype == ETR_BFLOAT16) && numel > 2) {
      ((uint16_t *)self->data)[1] = 0x8000;  // -0.0
      ((uint16_t *)self->data)[2] = 0x0001;  // the smallest denormal
    }
  }
  add_out(&c, numel, rank, transposed,
          capacity >= 0 ? capacity : numel * (rank > 0 ? rank : 1) + 8);
  etr_diff_return(&c, 1);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_nonzero, densities_and_dtypes) {
  int failures = 0;
  static const etr_scalar_type_t kDtypes[] = {
      ETR_FLOAT, ETR_DOUBLE, ETR_HALF, ETR_BFLOAT16,
      ETR_LONG,  ETR_INT,    ETR_BYTE, ETR_BOOL};
  static const int64_t kSizes[][4] = {
      {1, 1, 1, 1}, {7, 1, 1, 1}, {3, 17, 1, 1}, {2, 3, 5, 1}, {2, 3, 4, 9}};
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_ZERO, ETR_FILL_POSITIVE};
  for (size_t t = 0; t < sizeof(kDtypes) / sizeof(kDtypes[0]); ++t) {
    for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
      for (size_t f = 0; f < 4; ++f) {
        int32_t rank = (int32_t)(s == 0 ? 0 : s < 4 ? s : 4);
        for (int transposed = 0; transposed < 2; ++transposed) {
          failures += run_nonzero(kDtypes[t], rank, kSizes[s], 0, kFills[f],
                                  -1, transposed);
        }
      }
    }
  }
  int64_t sizes[3] = {4, 5, 6};
  failures += run_nonzero(ETR_FLOAT, 3, sizes, ETR_DIFF_NONCONTIGUOUS,
                          ETR_FILL_RANDOM, -1, false);
  failures += run_nonzero(ETR_LONG, 3, sizes, 0, ETR_FILL_POSITIVE, 9, false);
  cr_assert_eq(failures, 0, "%d nonzero cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// A Float input of uniform values in [-1, 1) (none zero) kept non-zero at
// every `keep`-th element only (0: all kept), NaN at elements 15 and 16
// and -0.0 at 31 and 32 when there are so many.
static int run_nonzero_kept(int32_t rank, const int64_t *sizes, int keep,
                            bool transposed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::nonzero.out", g_seed++,
                 "Float rank %d [.. %lld] keep %d%s", (int)rank,
                 (long long)sizes[rank - 1], keep,
                 transposed ? " out (1, 0)" : "");
  etr_tensor_t *self = etr_diff_input(&c, ETR_FLOAT, rank, sizes, 0,
                                      ETR_FILL_RANDOM);
  int64_t numel = etr_tensor_numel(self);
  float *x = (float *)self->data;
  for (int64_t i = 0; i < numel; ++i) {
    if (x[i] == 0.0f || (keep > 0 && i % keep != 0)) {
      x[i] = 0.0f;
    }
  }
  for (int64_t i = 15; i <= 32 && i < numel; i += i == 16 ? 15 : 1) {
    x[i] = i < 30 ? NAN : -0.0f;
  }
  add_out(&c, numel, rank, transposed, numel * rank + 8);
  etr_diff_return(&c, 1);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_nonzero, float_rows_over_vector_edges) {
  static const int64_t kRows[] = {1,  7,  8,  9,  15, 16, 17,
                                  31, 32, 33, 63, 64, 65, 100};
  static const int kKeep[] = {0, 2, 3, 17};
  int failures = 0;
  for (size_t l = 0; l < sizeof(kRows) / sizeof(kRows[0]); ++l) {
    for (int32_t rank = 1; rank <= 3; ++rank) {
      int64_t sizes[3] = {3, 2, 2};
      sizes[rank - 1] = kRows[l];
      for (size_t k = 0; k < sizeof(kKeep) / sizeof(kKeep[0]); ++k) {
        for (int transposed = 0; transposed < 2; ++transposed) {
          failures += run_nonzero_kept(rank, sizes, kKeep[k], transposed);
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d nonzero cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// A Bool or Byte input non-zero at every `keep`-th element (0: none; 1:
// all), the Byte values cycling through 1, 0x80, 0xff and 0x7f.
static int run_nonzero_bytes(etr_scalar_type_t dtype, int32_t rank,
                             const int64_t *sizes, int keep,
                             bool transposed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::nonzero.out", g_seed++,
                 "%s rank %d [.. %lld] keep %d%s",
                 etr_scalar_type_name(dtype), (int)rank,
                 (long long)sizes[rank - 1], keep,
                 transposed ? " out (1, 0)" : "");
  etr_tensor_t *self =
      etr_diff_input(&c, dtype, rank, sizes, 0, ETR_FILL_ZERO);
  int64_t numel = etr_tensor_numel(self);
  uint8_t *x = (uint8_t *)self->data;
  static const uint8_t kValues[4] = {1, 0x80, 0xff, 0x7f};
  for (int64_t i = 0; i < numel; ++i) {
    bool set = keep > 0 && i % keep == 0;
    x[i] = !set ? 0 : (dtype == ETR_BOOL ? 1 : kValues[(i / keep) % 4]);
  }
  add_out(&c, numel, rank, transposed, numel * rank + 8);
  etr_diff_return(&c, 1);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_nonzero, byte_rows_over_vector_edges) {
  static const int64_t kRows[] = {1,  7,  8,  9,   31,  32,  33,
                                  63, 64, 65, 127, 128, 129, 200};
  static const int kKeep[] = {0, 1, 2, 3, 17};
  static const etr_scalar_type_t kDtypes[] = {ETR_BOOL, ETR_BYTE};
  int failures = 0;
  for (size_t t = 0; t < 2; ++t) {
    for (size_t l = 0; l < sizeof(kRows) / sizeof(kRows[0]); ++l) {
      for (int32_t rank = 1; rank <= 2; ++rank) {
        int64_t sizes[2] = {3, 2};
        sizes[rank - 1] = kRows[l];
        for (size_t k = 0; k < sizeof(kKeep) / sizeof(kKeep[0]); ++k) {
          for (int transposed = 0; transposed < 2; ++transposed) {
            failures += run_nonzero_bytes(kDtypes[t], rank, sizes, kKeep[k],
                                          transposed);
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d nonzero cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}
