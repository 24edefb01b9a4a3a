// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the dtype conversions of the optimized
// _to_dim_order_copy and _to_copy kernels (ops_optimized/cast/) against
// the reference kernels, on every ISA this machine has. Every comparison
// is exact: each conversion is the reference's element conversion.
//
// Sweeps: Float to and from Long, Int, Bool, Half and BFloat16 over the
// 4/8/16-lane edges; values that round (int64 past 2^24 and 2^53, ties
// to even, INT64_MIN / INT64_MAX), floats outside int32 and int64 (NaN,
// infinities, 2^31, 2^63: the reference's INT64_MIN, wrapped for int32),
// NaN to Bool; contiguous and channels-last pairs; non-contiguous inputs,
// mixed layouts and other pairs (Int -> Long, Double -> Float) fall back;
// the mutable_buffer model's Long[1] -> Float.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/scalar_type.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/diff.h"
#include "ops_optimized/unary/unary.h"

static uint64_t g_seed = 72000;

static const char *const kOps[] = {"dim_order_ops::_to_dim_order_copy.out",
                                   "aten::_to_copy.out"};

// Values that probe the rounding and range edges, written into a dense
// input in place of a quarter of its elements.
static void fill_edges(etr_diff_case_t *c, etr_tensor_t *input) {
  if (!etr_tensor_is_dense(input)) {
    return;
  }
  static const int64_t kLongs[] = {
      INT64_MIN, INT64_MAX, ((int64_t)1 << 53) + 1, -((int64_t)1 << 53) - 1,
      ((int64_t)1 << 24) + 1, ((int64_t)1 << 24) + 3, -((int64_t)1 << 25) - 2,
      ((int64_t)1 << 62) + ((int64_t)1 << 38), 0, -1, 2147483647,
      -2147483648LL};
  static const float kFloats[] = {
      NAN, INFINITY, -INFINITY, 2147483648.0f, -2147483648.0f, 2147483520.0f,
      3.0e9f, -3.0e9f, 9.2233720e18f, -9.2233720e18f, 1e19f, -1e30f, -0.0f,
      0.5f, -0.5f, 1.5f, -2.5f, 1e-40f, 16777217.0f, 65520.0f, 3.4e38f};
  int64_t numel = etr_tensor_numel(input);
  for (int64_t i = 0; i < numel; ++i) {
    if ((etr_diff_next(c) & 3) != 0) {
      continue;
    }
    uint64_t pick = etr_diff_next(c);
    switch (input->dtype) {
      case ETR_LONG:
        ((int64_t *)input->data)[i] =
            (pick & 1) ? kLongs[pick / 2 % (sizeof(kLongs) / sizeof(kLongs[0]))]
                       : (int64_t)etr_diff_next(c);
        break;
      case ETR_INT:
        ((int32_t *)input->data)[i] = (int32_t)(uint32_t)etr_diff_next(c);
        break;
      case ETR_FLOAT:
        ((float *)input->data)[i] =
            kFloats[pick % (sizeof(kFloats) / sizeof(kFloats[0]))];
        break;
      case ETR_BOOL:
        ((uint8_t *)input->data)[i] = (uint8_t)pick;  // non-0/1 bytes too
        break;
      default:
        break;
    }
  }
}

static int run_cast(size_t op, etr_scalar_type_t from, etr_scalar_type_t to,
                    int32_t rank, const int64_t *sizes,
                    etr_diff_layout_t layout, etr_diff_layout_t out_layout) {
  etr_diff_case_t c;
  etr_diff_begin(&c, kOps[op], g_seed++, "%s -> %s rank %d [%lld..%lld] %d/%d",
                 etr_scalar_type_name(from), etr_scalar_type_name(to),
                 (int)rank, (long long)(rank > 0 ? sizes[0] : 0),
                 (long long)(rank > 0 ? sizes[rank - 1] : 0), (int)layout,
                 (int)out_layout);
  etr_tensor_t *input =
      etr_diff_input(&c, from, rank, sizes, layout, ETR_FILL_SPECIAL);
  if (from != ETR_BOOL || layout != ETR_DIFF_NONCONTIGUOUS) {
    fill_edges(&c, input);
  }
  etr_diff_arg(&c, tt_ev_bool(false));
  bool nhwc = out_layout == ETR_DIFF_CHANNELS_LAST && rank == 4;
  if (op == 0) {
    etr_diff_arg(&c, nhwc ? TT_EV_INTS(0, 2, 3, 1) : tt_ev_none());
  } else {
    etr_diff_arg(&c, nhwc ? tt_ev_int(2) : tt_ev_none());
  }
  if (rank == 4) {
    etr_diff_out(&c, to, 4, sizes, out_layout, 0);
  } else {
    etr_diff_out(&c, to, 1, (const int64_t[]){0}, 0,
                 etr_tensor_numel(input) + 8);
  }
  etr_diff_return(&c, 3);
  etr_diff_key_conversion(&c, to);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

static const etr_scalar_type_t kOthers[] = {ETR_LONG, ETR_INT, ETR_BOOL,
                                            ETR_HALF, ETR_BFLOAT16};

TT_TEST(diff_cast, float_pairs) {
  int failures = 0;
  int64_t edges[10];
  size_t num_edges = etr_diff_edge_sizes(16, edges);
  for (size_t op = 0; op < 2; ++op) {
    for (size_t t = 0; t < sizeof(kOthers) / sizeof(kOthers[0]); ++t) {
      for (size_t e = 0; e < num_edges; ++e) {
        failures += run_cast(op, kOthers[t], ETR_FLOAT, 1, &edges[e], 0, 0);
        failures += run_cast(op, ETR_FLOAT, kOthers[t], 1, &edges[e], 0, 0);
      }
      // Layouts: contiguous and channels-last pairs specialize; a
      // non-contiguous input or a layout change falls back.
      static const int64_t kImage[4] = {2, 9, 5, 6};
      for (int layout = 0; layout < 3; ++layout) {
        for (int out_layout = 0; out_layout < 3; out_layout += 2) {
          failures += run_cast(op, kOthers[t], ETR_FLOAT, 4, kImage,
                               (etr_diff_layout_t)layout,
                               (etr_diff_layout_t)out_layout);
          failures += run_cast(op, ETR_FLOAT, kOthers[t], 4, kImage,
                               (etr_diff_layout_t)layout,
                               (etr_diff_layout_t)out_layout);
        }
      }
    }
    // The mutable_buffer model's Long[1] -> Float; 0-dim; other pairs
    // (fallback).
    failures += run_cast(op, ETR_LONG, ETR_FLOAT, 1, (const int64_t[]){1}, 0,
                         0);
    failures += run_cast(op, ETR_LONG, ETR_FLOAT, 0, NULL, 0, 0);
    failures += run_cast(op, ETR_INT, ETR_LONG, 1, &edges[5], 0, 0);
    failures += run_cast(op, ETR_DOUBLE, ETR_FLOAT, 1, &edges[5], 0, 0);
    failures += run_cast(op, ETR_FLOAT, ETR_CHAR, 1, &edges[5], 0, 0);
  }
  cr_assert_eq(failures, 0, "%d conversion cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// The fp32 -> BFloat16 microkernels themselves (unary/unary.h), every
// table this machine can run, element for element against
// etr_float_to_bfloat16: 32-element blocks with a denormal and without
// (AVX512_BF16's VCVTNE2PS2BF16 flushes denormals; such blocks take the
// integer path), NaNs with payloads in either half (signalling too),
// ties, values that round up to the next binade or to infinity, and
// nothing written past n.
static int check_to_bf16(const char *name,
                         void (*to_bf16)(size_t, const float *, uint16_t *),
                         uint64_t seed) {
  enum { kBlocks = 12, kN = 32 * kBlocks + 9, kGuard = 40 };
  static const uint32_t kSpecial[] = {
      0x7f800001u, 0xff800001u, 0x7fbfffffu, 0x7fc00001u, 0xffffffffu,
      0x7f80ffffu, 0x7fa50000u, 0x7f800000u, 0xff800000u, 0x80000000u,
      0x00000000u, 0x3f808000u, 0x3f818000u, 0x3f80ffffu, 0x7f7fffffu,
      0xff7f8000u, 0x7f7f7fffu, 0x00800000u, 0x80808000u, 0x3fffffffu};
  // Denormals that round to a nonzero BFloat16 (a flush would show).
  static const uint32_t kDenormals[] = {0x807fffffu, 0x007f8000u,
                                        0x80018000u};
  float x[kN];
  uint16_t y[kN + kGuard];
  uint64_t state = seed;
  for (int i = 0; i < kN; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t bits = (uint32_t)(state >> 32);
    if ((bits & 0x7f800000u) == 0) {
      bits |= 0x00800000u;  // no denormals but the ones placed below
    }
    if (i % 7 == 3) {
      bits = kSpecial[(state >> 8) % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
    }
    // Denormals in blocks 3 (first lane), 7 (last lane) and the tail.
    if (i == 3 * 32) {
      bits = kDenormals[0];
    } else if (i == 7 * 32 + 31) {
      bits = kDenormals[1];
    } else if (i == kN - 2) {
      bits = kDenormals[2];
    }
    memcpy(&x[i], &bits, sizeof(bits));
  }
  int failures = 0;
  for (size_t n = 0; n <= (size_t)kN; n += n < 70 ? 1 : 31) {
    for (int i = 0; i < kN + kGuard; ++i) {
      y[i] = 0xabcd;
    }
    to_bf16(n, x, y);
    for (size_t i = 0; i < (size_t)kN + kGuard; ++i) {
      uint16_t want = 0xabcd;
      if (i < n) {
        etr_bfloat16_t b = etr_float_to_bfloat16(x[i]);
        memcpy(&want, &b, sizeof(want));
      }
      if (y[i] != want && failures++ < 5) {
        uint32_t bits;
        memcpy(&bits, &x[i < (size_t)kN ? i : 0], sizeof(bits));
        cr_log_error("%s: n %zu element %zu (0x%08x): 0x%04x, want 0x%04x",
                     name, n, i, i < (size_t)kN ? bits : 0u, y[i], want);
      }
    }
  }
  return failures;
}

TT_TEST(diff_cast, to_bf16_kernels) {
  int failures = 0;
  int tables = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (etr_isa_available((etr_isa_t)isa)) {
      failures += check_to_bf16(etr_isa_name((etr_isa_t)isa),
                                etr_f32_convert_for((etr_isa_t)isa)->to_bf16,
                                0x5eed0000u + (uint64_t)isa);
      ++tables;
    }
  }
#if defined(__x86_64__)
  // With AVX512_BF16 the AVX-512 table above is its kernel; the integer
  // one runs too.
  if (etr_isa_available(ETR_ISA_AVX512)) {
    failures += check_to_bf16("avx512 integer", etr_f32_convert_avx512.to_bf16,
                              0x5eed1000u);
    ++tables;
  }
  cr_log_info("AVX512_BF16: %s", etr_isa_has_avx512_bf16() ? "yes" : "no");
#endif
  cr_assert_eq(failures, 0, "%d BFloat16 conversions disagree", failures);
  cr_assert_gt(tables, 1);
}
