// SPDX-License-Identifier: Apache-2.0
//
// The row depthwise kernel (ops_optimized/conv/depthwise_rows_avx2.c: 3x3,
// stride 1 or 2, padding 1, one channel at a time over zero-padded stack
// copies of its input rows, or at stride 1 on rows of 16 or more the rows
// in place, 3 out rows per register block, of one vector, or of two
// side by side inside rows read in place).
//   - Through aten::convolution.out against the reference kernel on every
//     ISA of this machine (conv_test_util.h), after asserting that
//     etr_depthwise_nchw_avx2 picks the kernel for each geometry (those
//     the blocked kernel does not take, and stride 1 on rows of 28 or
//     more): fewer than 8 channels, planes whose bands in the blocked
//     kernel would be too thin, the widest rows it takes (128), odd
//     and even input widths at stride 2, a batch of 2; random floats, exact
//     integers with NaN, +-inf and -0.0 inputs, one inf weight;
//     contiguous, strided and channels-last inputs. (At stride 2, and on
//     rows of 4, 8 or 16, the op now runs depthwise3x3_s2_avx2.c or
//     depthwise3x3_w4_avx2.c on AVX2 for these; this kernel on them is
//     tested by the direct calls below.)
//   - Called directly on out widths 1 to 9, 15 to 17, 31 to 33, 41 and 49
//     (the vector edges; two-vector blocks followed by the last vector,
//     or by one vector and the last), out heights 1 to 5, 8 and 9 (the
//     3-row block and its remainders), strides 1 and 2 (both input width
//     parities), 1, 3 and 8 channels, with input rows, input planes,
//     weights and out rows and planes apart by more than their sizes (the
//     out gaps must stay untouched), by conv_test_direct: bit for bit
//     against the scalar kernel on exact data with NaN, +-inf and -0.0
//     inputs (NaN for NaN) and against the FMA chains of
//     conv_test_fma_chain on random data, and with a fused post (batch
//     norm and clamp, either alone) against the chains followed by the
//     post, bit for bit on random data.
//   - The geometries it declines.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)

// n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
static const conv_case_t kTaken[] = {
    {1, 16, 34, 32, 16, 3, 3, 1, 1, 1, 16, true},    // 1088 out pixels
    {2, 9, 34, 33, 9, 3, 3, 1, 1, 1, 9, false},      // 33: a tail, batch 2
    {1, 3, 9, 17, 3, 3, 3, 1, 1, 1, 3, true},        // 3 channels
    {1, 1, 6, 5, 1, 3, 3, 1, 1, 1, 1, true},         // one channel, 5 wide
    {1, 5, 11, 31, 5, 3, 3, 2, 1, 1, 5, true},       // stride 2, odd width
    {1, 4, 10, 18, 4, 3, 3, 2, 1, 1, 4, false},      // stride 2, even width
    {1, 8, 9, 250, 8, 3, 3, 2, 1, 1, 8, true},       // blocked: bands of 2
    {1, 8, 40, 40, 8, 3, 3, 1, 1, 1, 8, true},       // 1600 out pixels
    {1, 2, 5, 255, 2, 3, 3, 2, 1, 1, 2, true},       // 128 out columns
    {1, 2, 3, 128, 2, 3, 3, 1, 1, 1, 2, true},       // 128 at stride 1
    {1, 16, 32, 32, 16, 3, 3, 1, 1, 1, 16, true},    // stride 1 from 28
    {1, 16, 28, 28, 16, 3, 3, 1, 1, 1, 16, false},   // wide: in place
};

// 5x5, padding 2, dilation 2, multiplier 2, stride 3, unequal strides,
// out rows of 129, and where the blocked kernel takes it (16 channels
// of 32x32 at stride 1 and 2, 28x28, 8 of 56x56 at stride 2 in bands).
static const conv_case_t kDeclined[] = {
    {1, 8, 16, 16, 8, 5, 5, 1, 2, 1, 8, true},
    {1, 3, 16, 16, 3, 3, 3, 1, 2, 1, 3, true},
    {1, 3, 16, 16, 3, 3, 3, 1, 2, 2, 3, true},
    {1, 3, 16, 16, 6, 3, 3, 1, 1, 1, 3, true},
    {1, 3, 16, 16, 3, 3, 3, 3, 1, 1, 3, true},
    {1, 2, 4, 129, 2, 3, 3, 1, 1, 1, 2, true},
    {1, 16, 32, 32, 16, 3, 3, 2, 1, 1, 16, true},
    {1, 16, 27, 27, 16, 3, 3, 1, 1, 1, 16, true},
    {1, 72, 16, 16, 72, 3, 3, 1, 1, 1, 72, true},
    {1, 8, 56, 56, 8, 3, 3, 2, 1, 1, 8, true},
};

static bool picked(const conv_case_t *p) {
  etr_conv2d_geometry_t g = conv_case_geometry(p);
  return etr_depthwise_rows_avx2_wins(&g, p->oc, p->oc / p->c);
}

TT_TEST(diff_depthwise_rows, through_the_op) {
  int failures = 0;
  for (size_t i = 0; i < COUNT(kTaken); ++i) {
    const conv_case_t *p = &kTaken[i];
    cr_assert(picked(p), "case %zu: the rows kernel is not picked", i);
    failures += run_taken_case(p, true);
  }
  cr_assert_eq(failures, 0, "%d rows depthwise cases disagree", failures);
}

TT_TEST(diff_depthwise_rows, declines) {
  for (size_t i = 0; i < COUNT(kDeclined); ++i) {
    cr_assert(!picked(&kDeclined[i]), "case %zu is picked", i);
  }
  etr_conv2d_geometry_t g = conv_case_geometry(&kTaken[0]);
  cr_assert(etr_depthwise_rows_nchw_avx2_applies(&g, 16, 1));
  g.stride_w = 2;  // unequal strides
  cr_assert(!etr_depthwise_rows_nchw_avx2_applies(&g, 16, 1));
  g = conv_case_geometry(&kTaken[0]);
  g.in_stride_w = 2;
  cr_assert(!etr_depthwise_rows_nchw_avx2_applies(&g, 16, 1));
  g = conv_case_geometry(&kTaken[0]);
  g.out_h += 1;  // not the geometry's out size
  cr_assert(!etr_depthwise_rows_nchw_avx2_applies(&g, 16, 1));
  g = conv_case_geometry(&kTaken[0]);
  g.channels_last = true;
  cr_assert(!etr_depthwise_rows_nchw_avx2_applies(&g, 16, 1));
}

enum {
  kRowGap = 3,     // input rows in_w + kRowGap apart
  kPlaneGap = 5,   // and planes a further kPlaneGap
  kWeightGap = 2,  // weight planes 9 + kWeightGap apart
};

static const int64_t kWidths[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,
                                  15, 16, 17, 31, 32, 33, 41, 49};
static const int64_t kHeights[] = {1, 2, 3, 4, 5, 8, 9};
static const int64_t kChannelCounts[] = {1, 3, 8};

TT_TEST(diff_depthwise_rows, vector_and_block_edges) {
  if (!etr_isa_available(ETR_ISA_AVX2)) {
    cr_log_warn("no AVX2 on this machine: the rows kernel is not run");
    return;
  }
  int bad = 0;
  uint32_t seed = 1;
  for (int64_t s = 1; s <= 2; ++s) {
    for (int even = 0; even < (s == 2 ? 2 : 1); ++even) {
      for (size_t wi = 0; wi < COUNT(kWidths); ++wi) {
        for (size_t hi = 0; hi < COUNT(kHeights); ++hi) {
          // Out size kHeights[hi] x kWidths[wi]; at stride 2 the input
          // is 2 out - 1 wide and high (odd) or, with `even`, 2 out.
          const int64_t in_h = s == 1 ? kHeights[hi]
                                      : 2 * kHeights[hi] - (even ? 0 : 1);
          const int64_t in_w = s == 1 ? kWidths[wi]
                                      : 2 * kWidths[wi] - (even ? 0 : 1);
          etr_conv2d_geometry_t g = conv_test_gapped_geometry(
              1, in_h, in_w, 3, s, 1, 1, kRowGap, kPlaneGap, kWeightGap);
          if (g.in_w < 1 || g.in_h < 1) {
            continue;
          }
          for (size_t ci = 0; ci < COUNT(kChannelCounts); ++ci) {
            const int64_t channels = kChannelCounts[ci];
            cr_assert(etr_depthwise_rows_nchw_avx2_applies(&g, channels, 1),
                      "out %lldx%lld stride %lld not taken",
                      (long long)g.out_h, (long long)g.out_w, (long long)s);
            bad += conv_test_direct(etr_depthwise_rows_nchw_avx2,
                                    conv_test_fma_chain,
                                    etr_conv_post_rows_avx2, &g, channels,
                                    1, seed++);
          }
        }
      }
    }
  }
  cr_assert_eq(bad, 0, "%d outputs differ", bad);
}

#else

TT_TEST(diff_depthwise_rows, not_x86) {
  cr_log_info("the rows depthwise kernel is x86 (AVX2) only");
}

#endif
