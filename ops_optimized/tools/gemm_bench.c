// SPDX-License-Identifier: Apache-2.0
//
// Throughput of the GEMM family (mm, addmm, bmm, convolution) of the
// optimized kernels, against the reference kernels where those finish in
// reasonable time, on one core:
//
//   bazel run -c opt //ops_optimized/tools:gemm_bench -- [--isa NAME]
//       [--quick] [--reps N] [--peak GFLOPS] [--only SHAPE-SUBSTRING]
//       [--mobilenet] [--no-constant-weights]
//
// Kernels are called through their registered entry points with a 1 MiB
// scratch arena (the method's default ctx->temp) and a kernel memo, and,
// from the second call on, ctx->args_checked set, as a program's fixed
// calls are (core/method_fixed_args.c); a convolution's weight and bias
// are marked read-only constants (ctx->constant_args), as a program's
// are, unless --no-constant-weights. Times are thread CPU
// time (CLOCK_THREAD_CPUTIME_ID), so other processes on a shared machine
// inflate them less than wall time would; each figure is the median of
// --reps repetitions (default 7), each repeating the call for at least
// 20 ms. The fp32 FMA peak is measured the same way (24 independent FMA
// chains, AVX-512 when the CPU has it, else AVX2) and every GFLOP/s figure
// is also given as a percentage of it and of --peak (default 147: the
// peak quoted in /work/shared/ENVIRONMENT.md).
#define _POSIX_C_SOURCE 200809L  // clock_gettime

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/tools/fma_peak.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/test/test_util.h"

#define ARENA_BYTES (1u << 20)

static int g_reps = 7;
static const char *g_only = NULL;  // run only lines whose shape contains it
static double g_peak_measured = 0.0;
static double g_peak_quoted = 147.0;
static unsigned char g_arena_buffer[ARENA_BYTES] __attribute__((aligned(64)));

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a;
  double y = *(const double *)b;
  return x < y ? -1 : x > y;
}

// Median seconds per call of `kernel` on `args`.
// The next calls' ctx->constant_args (bench_conv sets it).
static uint64_t g_constant_args = 0;
static bool g_constant_weights = true;

static double time_kernel(etr_kernel_fn kernel, etr_evalue_t **args,
                          size_t num_args, int reps) {
  etr_arena_t arena;
  etr_diag_t diag;
  _Alignas(16) unsigned char memo[ETR_KERNEL_MEMO_BYTES] = {0};
  etr_kernel_context_t ctx = {.diag = &diag,
                              .temp = &arena,
                              .memo = memo,
                              .constant_args = g_constant_args};
  double samples[64];
  reps = reps > 64 ? 64 : reps;
  // Calibrate the inner count so one repetition takes >= 20 ms.
  long inner = 1;
  for (;;) {
    double start = cpu_seconds();
    for (long i = 0; i < inner; ++i) {
      etr_arena_init(&arena, g_arena_buffer, ARENA_BYTES);
      etr_diag_reset(&diag);
      if (kernel(&ctx, args, num_args) != ETR_OK) {
        fprintf(stderr, "kernel failed: %s\n", diag.message);
        exit(1);
      }
      // As the executor does for a program's static-shape calls after
      // their first success (core/method_fixed_args.c).
      ctx.args_checked = true;
    }
    double elapsed = cpu_seconds() - start;
    if (elapsed >= 0.02 || inner >= (1L << 24)) {
      break;
    }
    inner *= elapsed > 0.002 ? (long)(0.025 / elapsed) + 1 : 10;
  }
  for (int r = 0; r < reps; ++r) {
    double start = cpu_seconds();
    for (long i = 0; i < inner; ++i) {
      etr_arena_init(&arena, g_arena_buffer, ARENA_BYTES);
      kernel(&ctx, args, num_args);
    }
    samples[r] = (cpu_seconds() - start) / (double)inner;
  }
  qsort(samples, (size_t)reps, sizeof(double), compare_doubles);
  return samples[reps / 2];
}

static etr_tensor_t *random_tensor(int32_t dim, const int64_t *sizes) {
  etr_tensor_t *t = tt_tensor(ETR_FLOAT, dim, sizes, NULL);
  float *data = (float *)t->data;
  int64_t numel = etr_tensor_numel(t);
  uint64_t state = 0x9e3779b97f4a7c15ull ^ (uint64_t)numel;
  for (int64_t i = 0; i < numel; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    data[i] = (float)((double)(state >> 40) / 16777216.0 - 0.5);
  }
  return t;
}

// One line: name, shape, flops per call, optimized and (optional)
// reference kernels on the same arguments.
static double report(const char *name, const char *shape, double flops,
                     etr_kernel_fn optimized, etr_kernel_fn reference,
                     etr_evalue_t **args, size_t num_args) {
  if (g_only != NULL && strstr(shape, g_only) == NULL) {
    return 0.0;
  }
  double t_opt = time_kernel(optimized, args, num_args, g_reps);
  double gflops = flops / t_opt * 1e-9;
  printf("%-12s %-34s %10.2f us %8.1f GFLOP/s %6.1f%% %6.1f%%", name, shape,
         t_opt * 1e6, gflops,
         g_peak_measured > 0 ? 100.0 * gflops / g_peak_measured : 0.0,
         100.0 * gflops / g_peak_quoted);
  if (reference != NULL) {
    double t_ref = time_kernel(reference, args, num_args, 3);
    printf(" %10.1f us  x%.1f", t_ref * 1e6, t_ref / t_opt);
  }
  printf("\n");
  fflush(stdout);
  return t_opt;
}

static void bench_mm(int64_t m, int64_t n, int64_t k, bool with_reference) {
  etr_tensor_t *a = random_tensor(2, (const int64_t[]){m, k});
  etr_tensor_t *b = random_tensor(2, (const int64_t[]){k, n});
  etr_tensor_t *out = tt_out(ETR_FLOAT, 2, (const int64_t[]){m, n}, 0);
  etr_evalue_t *args[4] = {tt_ev_tensor(a), tt_ev_tensor(b),
                           tt_ev_tensor(out), NULL};
  args[3] = args[2];
  char shape[64];
  snprintf(shape, sizeof(shape), "%lldx%lldx%lld", (long long)m,
           (long long)n, (long long)k);
  report("mm", shape, 2.0 * (double)(m * n * k), etr_opt_mm_out,
         with_reference ? etr_ref_mm_out : NULL, args, 4);
}

static void bench_addmm(int64_t m, int64_t n, int64_t k) {
  etr_tensor_t *bias = random_tensor(1, (const int64_t[]){n});
  etr_tensor_t *a = random_tensor(2, (const int64_t[]){m, k});
  etr_tensor_t *b = random_tensor(2, (const int64_t[]){k, n});
  etr_tensor_t *out = tt_out(ETR_FLOAT, 2, (const int64_t[]){m, n}, 0);
  etr_evalue_t *args[7] = {tt_ev_tensor(bias), tt_ev_tensor(a),
                           tt_ev_tensor(b),    tt_ev_int(1),
                           tt_ev_int(1),       tt_ev_tensor(out), NULL};
  args[6] = args[5];
  char shape[64];
  snprintf(shape, sizeof(shape), "%lldx%lldx%lld + bias[%lld]", (long long)m,
           (long long)n, (long long)k, (long long)n);
  report("addmm", shape, 2.0 * (double)(m * n * k), etr_opt_addmm_out,
         etr_ref_addmm_out, args, 7);
}

static void bench_linear(int64_t rows, int64_t in, int64_t out_features) {
  etr_tensor_t *x = random_tensor(2, (const int64_t[]){rows, in});
  etr_tensor_t *w = random_tensor(2, (const int64_t[]){out_features, in});
  etr_tensor_t *bias = random_tensor(1, (const int64_t[]){out_features});
  etr_tensor_t *out =
      tt_out(ETR_FLOAT, 2, (const int64_t[]){rows, out_features}, 0);
  etr_evalue_t *args[5] = {tt_ev_tensor(x), tt_ev_tensor(w),
                           tt_ev_tensor(bias), tt_ev_tensor(out), NULL};
  args[4] = args[3];
  char shape[64];
  snprintf(shape, sizeof(shape), "[%lld,%lld] x W[%lld,%lld]^T",
           (long long)rows, (long long)in, (long long)out_features,
           (long long)in);
  report("linear", shape, 2.0 * (double)(rows * in * out_features),
         etr_opt_linear_out, rows * in * out_features <= (1 << 20)
                                 ? etr_ref_linear_out
                                 : NULL,
         args, 5);
}

static void bench_bmm(int64_t batch, int64_t m, int64_t n, int64_t k) {
  etr_tensor_t *a = random_tensor(3, (const int64_t[]){batch, m, k});
  etr_tensor_t *b = random_tensor(3, (const int64_t[]){batch, k, n});
  etr_tensor_t *out = tt_out(ETR_FLOAT, 3, (const int64_t[]){batch, m, n},
                             0);
  etr_evalue_t *args[4] = {tt_ev_tensor(a), tt_ev_tensor(b),
                           tt_ev_tensor(out), NULL};
  args[3] = args[2];
  char shape[64];
  snprintf(shape, sizeof(shape), "%lld x %lldx%lldx%lld", (long long)batch,
           (long long)m, (long long)n, (long long)k);
  report("bmm", shape, 2.0 * (double)(batch * m * n * k), etr_opt_bmm_out,
         etr_ref_bmm_out, args, 4);
}

// A 2-D convolution, NCHW or channels-last, square kernel.
static double bench_conv(int64_t c, int64_t h, int64_t oc, int64_t kernel,
                         int64_t stride, int64_t pad, int64_t groups,
                         bool channels_last, bool with_reference) {
  int64_t oh = (h + 2 * pad - kernel) / stride + 1;
  etr_tensor_t *x = random_tensor(4, (const int64_t[]){1, c, h, h});
  etr_tensor_t *w =
      random_tensor(4, (const int64_t[]){oc, c / groups, kernel, kernel});
  etr_tensor_t *bias = random_tensor(1, (const int64_t[]){oc});
  etr_tensor_t *out = tt_out(ETR_FLOAT, 4, (const int64_t[]){1, oc, oh, oh},
                             0);
  if (channels_last) {
    static const uint8_t kOrder[4] = {0, 2, 3, 1};
    x = tt_channels_last(x);
    out = tt_out_dim_order(ETR_FLOAT, 4, (const int64_t[]){1, oc, oh, oh},
                           kOrder);
  }
  etr_evalue_t *args[11] = {
      tt_ev_tensor(x),
      tt_ev_tensor(w),
      tt_ev_tensor(bias),
      tt_ev_int_list(2, (const int64_t[]){stride, stride}),
      tt_ev_int_list(2, (const int64_t[]){pad, pad}),
      TT_EV_INTS(1, 1),
      tt_ev_bool(false),
      TT_EV_INTS(0, 0),
      tt_ev_int(groups),
      tt_ev_tensor(out),
      NULL};
  args[10] = args[9];
  char shape[80];
  snprintf(shape, sizeof(shape), "%s %lldx%lld^2 k%lld s%lld g%lld ->%lld",
           channels_last ? "nhwc" : "nchw", (long long)c, (long long)h,
           (long long)kernel, (long long)stride, (long long)groups,
           (long long)oc);
  double flops = 2.0 * (double)(oh * oh * oc) * (double)(c / groups) *
                 (double)(kernel * kernel);
  g_constant_args = g_constant_weights ? 0x6 : 0;  // weight, bias
  double seconds =
      report(groups == c && groups > 1 ? "depthwise" : "conv", shape, flops,
             etr_opt_convolution_out,
             with_reference ? etr_ref_convolution_out : NULL, args, 11);
  g_constant_args = 0;
  return seconds;
}

// Every convolution of datasets/models/mobilenet_v2 (c, h, oc, kernel,
// stride, groups; padding kernel / 2), and their total.
static void bench_mobilenet(void) {
  static const int64_t kLayers[][6] = {
      {3, 64, 16, 3, 2, 1},      {16, 32, 16, 3, 1, 16},
      {16, 32, 8, 1, 1, 1},      {8, 32, 48, 1, 1, 1},
      {48, 32, 48, 3, 2, 48},    {48, 16, 12, 1, 1, 1},
      {12, 16, 72, 1, 1, 1},     {72, 16, 72, 3, 1, 72},
      {72, 16, 12, 1, 1, 1},     {12, 16, 72, 1, 1, 1},
      {72, 16, 72, 3, 2, 72},    {72, 8, 16, 1, 1, 1},
      {16, 8, 96, 1, 1, 1},      {96, 8, 96, 3, 1, 96},
      {96, 8, 16, 1, 1, 1},      {16, 8, 96, 1, 1, 1},
      {96, 8, 96, 3, 2, 96},     {96, 4, 24, 1, 1, 1},
      {24, 4, 144, 1, 1, 1},     {144, 4, 144, 3, 1, 144},
      {144, 4, 24, 1, 1, 1},     {24, 4, 144, 1, 1, 1},
      {144, 4, 144, 3, 1, 144},  {144, 4, 32, 1, 1, 1},
      {32, 4, 192, 1, 1, 1},     {192, 4, 192, 3, 1, 192},
      {192, 4, 32, 1, 1, 1},     {32, 4, 128, 1, 1, 1}};
  double total = 0.0;
  for (size_t i = 0; i < sizeof(kLayers) / sizeof(kLayers[0]); ++i) {
    const int64_t *l = kLayers[i];
    total += bench_conv(l[0], l[1], l[2], l[3], l[4], l[3] / 2, l[5], false,
                        false);
  }
  printf("mobilenet_v2: the 28 convolutions take %.1f us per run\n",
         total * 1e6);
}

int main(int argc, char **argv) {
  bool quick = false;
  bool mobilenet = false;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      g_reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--no-constant-weights") == 0) {
      g_constant_weights = false;
    } else if (strcmp(argv[i], "--mobilenet") == 0) {
      mobilenet = true;
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      g_only = argv[++i];
    } else if (strcmp(argv[i], "--peak") == 0 && i + 1 < argc) {
      g_peak_quoted = atof(argv[++i]);
    } else if (strcmp(argv[i], "--isa") == 0 && i + 1 < argc) {
      const char *name = argv[++i];
      for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
        if (strcmp(name, etr_isa_name((etr_isa_t)isa)) == 0) {
          etr_isa_force((etr_isa_t)isa);
        }
      }
    } else {
      fprintf(stderr,
              "usage: gemm_bench [--isa NAME] [--quick] [--reps N] "
              "[--peak GFLOPS] [--only SHAPE-SUBSTRING] [--mobilenet]\n");
      return 1;
    }
  }
  g_reps = g_reps < 1 ? 1 : g_reps;
  g_peak_measured = etr_bench_fma_peak_gflops();
  printf("ISA %s; measured fp32 FMA peak %.1f GFLOP/s (one core, thread "
         "CPU time); quoted peak %.1f\n",
         etr_isa_name(etr_isa_active()), g_peak_measured, g_peak_quoted);
  printf("%-12s %-34s %13s %16s %7s %7s %13s %s\n", "op", "shape",
         "time/call", "throughput", "%meas", "%quot", "reference",
         "speedup");
  if (mobilenet) {
    bench_mobilenet();
    tt_free_all();
    return 0;
  }
  static const int64_t squares[] = {64, 128, 256, 384, 512, 768, 1024, 2048};
  for (size_t s = 0; s < sizeof(squares) / sizeof(squares[0]); ++s) {
    if (quick && squares[s] > 512) {
      break;
    }
    bench_mm(squares[s], squares[s], squares[s], squares[s] <= 256);
  }
  // Shapes of datasets/models (transformer, mlp, cnn, mobilenet_v2 heads).
  bench_addmm(16, 64, 64);
  bench_addmm(16, 128, 64);
  bench_addmm(16, 64, 128);
  bench_addmm(4, 64, 32);
  bench_addmm(1, 10, 2048);
  bench_addmm(1, 10, 128);
  bench_addmm(256, 1024, 1024);  // the bench's addmm-256x1024x1024
  bench_bmm(4, 16, 16, 16);
  bench_linear(16, 64, 64);
  bench_linear(512, 512, 512);
  // cnn
  bench_conv(3, 32, 16, 3, 1, 1, 1, false, true);
  bench_conv(16, 16, 32, 3, 1, 1, 1, false, true);
  // mobilenet_v2 (a selection of its 28 convolutions)
  bench_conv(3, 64, 16, 3, 2, 1, 1, false, true);
  bench_conv(16, 32, 16, 3, 1, 1, 16, false, true);
  bench_conv(16, 32, 8, 1, 1, 0, 1, false, true);
  bench_conv(8, 32, 48, 1, 1, 0, 1, false, true);
  bench_conv(48, 32, 48, 3, 2, 1, 48, false, true);
  bench_conv(72, 16, 72, 3, 1, 1, 72, false, true);
  bench_conv(72, 16, 12, 1, 1, 0, 1, false, true);
  bench_conv(144, 4, 144, 3, 1, 1, 144, false, true);
  bench_conv(32, 4, 128, 1, 1, 0, 1, false, true);
  // datasets/models/resnet's 3x3 layers (stride 1 and 2).
  bench_conv(32, 24, 32, 3, 1, 1, 1, false, false);
  bench_conv(64, 12, 64, 3, 1, 1, 1, false, false);
  bench_conv(128, 6, 128, 3, 1, 1, 1, false, false);
  bench_conv(32, 24, 64, 3, 2, 1, 1, false, false);
  bench_conv(64, 12, 128, 3, 2, 1, 1, false, false);
  // Larger, ResNet/MobileNet-like layers; a 224x224 stem.
  bench_conv(3, 224, 32, 3, 2, 1, 1, false, false);
  bench_conv(64, 56, 64, 3, 1, 1, 1, false, false);
  bench_conv(64, 56, 64, 3, 1, 1, 1, true, false);
  bench_conv(256, 56, 64, 1, 1, 0, 1, false, false);
  bench_conv(256, 56, 64, 1, 1, 0, 1, true, false);
  bench_conv(64, 56, 256, 1, 1, 0, 1, false, false);  // conv1x1-64to256-56
  bench_conv(128, 28, 128, 3, 1, 1, 1, false, false);
  bench_conv(128, 56, 128, 3, 2, 1, 1, false, false);
  bench_conv(64, 56, 128, 3, 2, 1, 1, false, false);  // conv3x3s2-64-56
  bench_conv(32, 112, 32, 3, 1, 1, 32, false, false);
  bench_conv(32, 112, 32, 3, 1, 1, 32, true, false);
  // The bench's dwconv3x3s2-96-112 (input in L3) and 8 of its channels
  // (in L2): the wide stride-2 depthwise rows.
  bench_conv(96, 112, 96, 3, 2, 1, 96, false, false);
  bench_conv(8, 112, 8, 3, 2, 1, 8, false, false);
  // Depthwise 5x5 and 7x7: the bench's dwconv5x5-672-14 and
  // dwconv5x5s2-72-56, ConvNeXt-like 7x7, planes of 8 and 10 rows.
  bench_conv(672, 14, 672, 5, 1, 2, 672, false, false);
  bench_conv(72, 56, 72, 5, 2, 2, 72, false, false);
  bench_conv(96, 28, 96, 7, 1, 3, 96, false, false);
  bench_conv(240, 28, 240, 5, 2, 2, 240, false, false);
  bench_conv(120, 10, 120, 5, 1, 2, 120, false, false);
  bench_conv(120, 8, 120, 5, 1, 2, 120, false, false);
  // datasets/models/mobilenet_v3's 5x5 depthwise layers: 4x4 outputs.
  bench_conv(96, 8, 96, 5, 2, 2, 96, false, false);
  bench_conv(120, 4, 120, 5, 1, 2, 120, false, false);
  tt_free_all();
  return 0;
}
