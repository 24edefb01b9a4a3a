// SPDX-License-Identifier: Apache-2.0
//
// Time of the direct convolution kernels of conv.h (depthwise and the
// few-channel stem kernel) on mobilenet_v2's and the cnn's shapes, called
// straight through etr_depthwise_for / etr_conv_direct_for for the active
// ISA, without the op's checks around them:
//
//   bazel run -c opt //ops_optimized/tools:conv_kernel_bench -- [--per-plane]
//       [--only SUBSTRING] [--reps N] [--dw blocked|rows]
//
// --per-plane calls the depthwise kernel once per channel plane
// (channels = 1), as a fused per-plane epilogue would, to show each
// call's setup. Times are thread CPU time (CLOCK_THREAD_CPUTIME_ID), the
// median of 31 batches of N calls (default 200). Exact small-integer data;
// NCHW, dense planes, bias. --dw calls one AVX2 depthwise kernel
// directly instead of etr_depthwise_nchw_avx2's pick (to compare them).
#define _POSIX_C_SOURCE 200809L  // clock_gettime

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"

typedef struct bench_case {
  const char *name;
  bool direct;  // the few-channel kernel; else depthwise
  int64_t channels;
  int64_t out_channels;
  int64_t size;  // square input planes
  int64_t stride;
  int64_t kernel;  // square, padding kernel / 2
} bench_case_t;

static const bench_case_t kCases[] = {
    {"dw 16x32x32 s1", false, 16, 16, 32, 1, 3},
    {"dw 48x32x32 s2", false, 48, 48, 32, 2, 3},
    {"dw 72x16x16 s1", false, 72, 72, 16, 1, 3},
    {"dw 72x16x16 s2", false, 72, 72, 16, 2, 3},
    {"dw 96x8x8 s1", false, 96, 96, 8, 1, 3},
    {"dw 96x8x8 s2", false, 96, 96, 8, 2, 3},
    {"dw 144x4x4 s1", false, 144, 144, 4, 1, 3},
    {"dw 192x4x4 s1", false, 192, 192, 4, 1, 3},
    {"dw 32x112x112 s1", false, 32, 32, 112, 1, 3},
    {"dw 96x112x112 s2", false, 96, 96, 112, 2, 3},
    // mobilenet_v2's other depthwise layers (at 224x224 input).
    {"dw 144x56x56 s1", false, 144, 144, 56, 1, 3},
    {"dw 144x56x56 s2", false, 144, 144, 56, 2, 3},
    {"dw 192x28x28 s1", false, 192, 192, 28, 1, 3},
    {"dw 192x28x28 s2", false, 192, 192, 28, 2, 3},
    {"dw 384x14x14 s1", false, 384, 384, 14, 1, 3},
    {"dw 576x14x14 s2", false, 576, 576, 14, 2, 3},
    {"dw 960x7x7 s1", false, 960, 960, 7, 1, 3},
    // Fewer than 8 channels: no channel blocks.
    {"dw 4x8x8 s1", false, 4, 4, 8, 1, 3},
    {"dw 4x16x16 s1", false, 4, 4, 16, 1, 3},
    {"dw 4x16x16 s2", false, 4, 4, 16, 2, 3},
    {"dw 4x28x28 s2", false, 4, 4, 28, 2, 3},
    // The same rows with the data in L2: the kernels' compute rate.
    {"dw 4x112x112 s1 (L2)", false, 4, 4, 112, 1, 3},
    {"dw 8x112x112 s2 (L2)", false, 8, 8, 112, 2, 3},
    // The benchmark's 5x5 rows, and MobileNetV3-Large's 5x5 at 28x28.
    {"dw 72x56x56 5x5 s2", false, 72, 72, 56, 2, 5},
    {"dw 8x56x56 5x5 s2 (L2)", false, 8, 8, 56, 2, 5},
    {"dw 240x28x28 5x5 s2", false, 240, 240, 28, 2, 5},
    {"dw 32x32x32 5x5 s2", false, 32, 32, 32, 2, 5},
    // Planes the blocked kernel takes in bands (and the one whose bands
    // would be too thin).
    {"dw 32x56x56 5x5 s1", false, 32, 32, 56, 1, 5},
    {"dw 16x112x112 5x5 s1", false, 16, 16, 112, 1, 5},
    {"dw 32x56x56 7x7 s1", false, 32, 32, 56, 1, 7},
    {"dw 32x112x112 7x7 s2", false, 32, 32, 112, 2, 7},
    {"dw 16x224x224 s2", false, 16, 16, 224, 2, 3},
    {"dw 672x14x14 5x5 s1", false, 672, 672, 14, 1, 5},
    // The other sizes of the square-plane 5x5 kernel.
    {"dw 256x16x16 5x5 s1", false, 256, 256, 16, 1, 5},
    {"dw 320x12x12 5x5 s1", false, 320, 320, 12, 1, 5},
    {"dw 8x13x13 5x5 s1", false, 8, 8, 13, 1, 5},
    // MobileNetV3's 5x5 layers on its last maps at small inputs (the
    // datasets' mobilenet_v3).
    {"dw 96x8x8 5x5 s2", false, 96, 96, 8, 2, 5},
    // Other even planes of at most 64 inputs at 5x5 stride 2
    // (depthwise5x5_s2_plane_avx512.c's generic split).
    {"dw 96x6x6 5x5 s2", false, 96, 96, 6, 2, 5},
    {"dw 96x4x4 5x5 s2", false, 96, 96, 4, 2, 5},
    {"dw 120x4x4 5x5 s1", false, 120, 120, 4, 1, 5},
    {"dw 120x28x28 5x5 s1", false, 120, 120, 28, 1, 5},
    // EfficientNet-B0's 5x5 at 56 -> 28 and 28, ConvNeXt-T's 7x7 at 56
    // and 28, and rows of 32.
    {"dw 144x56x56 5x5 s2", false, 144, 144, 56, 2, 5},
    {"dw 240x28x28 5x5 s1", false, 240, 240, 28, 1, 5},
    {"dw 96x56x56 7x7 s1", false, 96, 96, 56, 1, 7},
    {"dw 192x28x28 7x7 s1", false, 192, 192, 28, 1, 7},
    {"dw 64x32x32 5x5 s1", false, 64, 64, 32, 1, 5},
    {"stem 3x64x64 s2 16", true, 3, 16, 64, 2, 3},
    {"stem 3x32x32 s1 16", true, 3, 16, 32, 1, 3},
    {"stem 3x224x224 s2 32", true, 3, 32, 224, 2, 3},
    {"stem 7x7 3x96x96 s2 32", true, 3, 32, 96, 2, 7},
};

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

// `count` floats at a 64-byte boundary (NULL if out of memory).
static float *aligned_floats(int64_t count) {
  const size_t bytes = ((size_t)count * sizeof(float) + 63) / 64 * 64;
  return aligned_alloc(64, bytes > 0 ? bytes : 64);
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a;
  double y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#if defined(__x86_64__)
static void blocked_kernel(const etr_depthwise_args_t *args) {
  etr_depthwise_blocked_nchw_avx2(args, NULL);
}

static void rows_kernel(const etr_depthwise_args_t *args) {
  etr_depthwise_rows_nchw_avx2(args, NULL);
}
#endif

// One case (padding kernel / 2); false when memory runs out.
static bool run(const bench_case_t *k, etr_depthwise_fn kernel,
                bool per_plane, int reps) {
  const int64_t c = k->channels;
  const int64_t oc = k->out_channels;
  const int64_t h = k->size;
  const int64_t kk = k->kernel;
  const int64_t taps = kk * kk;
  const int64_t oh = (h + 2 * (kk / 2) - kk) / k->stride + 1;
  const int64_t group_channels = k->direct ? c : 1;
  etr_conv2d_geometry_t g = {
      .channels = group_channels, .in_h = h, .in_w = h, .out_h = oh,
      .out_w = oh, .kernel_h = kk, .kernel_w = kk, .stride_h = k->stride,
      .stride_w = k->stride, .pad_h = kk / 2, .pad_w = kk / 2,
      .dilation_h = 1, .dilation_w = 1, .in_stride_c = h * h,
      .in_stride_h = h, .in_stride_w = 1,
      .w_stride_oc = group_channels * taps, .w_stride_c = taps,
      .w_stride_h = kk, .w_stride_w = 1};
  // 64-byte aligned, as the planned pools the op reads in etref are
  // (core/platform.h): malloc put large buffers 16 bytes past a page,
  // every 64-byte load across two lines (the 5x5 stride-2 layer ran at
  // 72 GFLOP/s so, 82 aligned).
  float *input = aligned_floats(c * h * h);
  float *weight = aligned_floats(oc * group_channels * taps);
  float *bias = aligned_floats(oc);
  float *out = aligned_floats(oc * oh * oh);
  if (input == NULL || weight == NULL || bias == NULL || out == NULL) {
    free(input);
    free(weight);
    free(bias);
    free(out);
    return false;
  }
  for (int64_t i = 0; i < c * h * h; ++i) {
    input[i] = (float)(i % 7) - 3.0f;
  }
  for (int64_t i = 0; i < oc * group_channels * taps; ++i) {
    weight[i] = (float)(i % 5) - 2.0f;
  }
  for (int64_t i = 0; i < oc; ++i) {
    bias[i] = 1.0f;
  }
  etr_depthwise_args_t all = {
      .geometry = &g, .input = input, .weight = weight, .bias = bias,
      .bias_stride = 1, .out = out, .out_stride_c = oh * oh,
      .out_stride_h = oh, .out_stride_w = 1, .channels = oc,
      .multiplier = k->direct ? 1 : oc / c};
  enum { kBatches = 31 };
  double times[kBatches];
  for (int b = 0; b < kBatches; ++b) {
    double start = now_ns();
    for (int r = 0; r < reps; ++r) {
      if (!per_plane || k->direct) {
        kernel(&all);
        continue;
      }
      for (int64_t plane = 0; plane < oc; ++plane) {
        etr_depthwise_args_t one = all;
        one.input = input + plane / all.multiplier * h * h;
        one.weight = weight + plane * taps;
        one.bias = bias + plane;
        one.out = out + plane * oh * oh;
        one.channels = 1;
        one.multiplier = 1;
        kernel(&one);
      }
    }
    times[b] = (now_ns() - start) / reps;
  }
  qsort(times, kBatches, sizeof times[0], compare);
  double median = times[kBatches / 2];
  double flops = 2.0 * (double)(oc * oh * oh * taps * group_channels);
  printf("%-24s %10.3f us %8.1f GFLOP/s\n", k->name, median / 1000.0,
         flops / median);
  free(input);
  free(weight);
  free(bias);
  free(out);
  return true;
}

int main(int argc, char **argv) {
  bool per_plane = false;
  const char *only = NULL;
  int reps = 200;
  const char *dw = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--per-plane") == 0) {
      per_plane = true;
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--dw") == 0 && i + 1 < argc) {
      dw = argv[++i];
    } else {
      fprintf(stderr,
              "usage: conv_kernel_bench [--per-plane] [--only SUBSTRING] "
              "[--reps N] [--dw blocked|rows]\n");
      return 2;
    }
  }
  if (reps < 1) {
    reps = 1;
  }
  etr_isa_t isa = etr_isa_active();
  printf("ISA %s%s\n", etr_isa_name(isa),
         per_plane ? ", depthwise one plane per call" : "");
  for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
    const bench_case_t *k = &kCases[i];
    if (only != NULL && strstr(k->name, only) == NULL) {
      continue;
    }
    etr_depthwise_fn kernel = k->direct ? etr_conv_direct_for(isa)
                                        : etr_depthwise_for(isa, false);
#if defined(__x86_64__)
    if (!k->direct && dw != NULL) {
      const int64_t oh = (k->size - 1) / k->stride + 1;
      const etr_conv2d_geometry_t g = {
          .in_h = k->size, .in_w = k->size, .out_h = oh, .out_w = oh,
          .kernel_h = k->kernel, .kernel_w = k->kernel,
          .stride_h = k->stride, .stride_w = k->stride,
          .pad_h = k->kernel / 2, .pad_w = k->kernel / 2, .dilation_h = 1,
          .dilation_w = 1, .in_stride_w = 1};
      const bool rows = strcmp(dw, "rows") == 0;
      const bool applies =
          rows ? etr_depthwise_rows_nchw_avx2_applies(&g, k->out_channels, 1)
               : etr_depthwise_blocked_nchw_avx2_applies(&g, k->out_channels,
                                                         1);
      if (!applies) {
        printf("%-24s (%s does not apply)\n", k->name, dw);
        continue;
      }
      kernel = rows ? rows_kernel : blocked_kernel;
    }
#endif
    if (kernel == NULL) {
      printf("%-24s (no direct kernel for this ISA)\n", k->name);
      continue;
    }
    if (!run(k, kernel, per_plane, reps)) {
      fprintf(stderr, "out of memory\n");
      return 1;
    }
  }
  return 0;
}
