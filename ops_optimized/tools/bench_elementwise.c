// SPDX-License-Identifier: Apache-2.0
//
// Throughput of the elementwise family's optimized kernels on every ISA of
// this machine against the reference kernels, on one core:
//
//   bazel run -c opt //ops_optimized/tools:bench_elementwise -- [--quick]
//       [--reps N] [--only LABEL-SUBSTRING] [--elements N]
//       [--stream-bytes B]
//
// Each op runs at two sizes: in cache (16 Ki elements a tensor, L2
// resident) and out of cache (16 Mi elements a tensor, far beyond L3, so
// DRAM bound); --elements adds a size of your own and --quick keeps only
// the in-cache one. Figures are GB/s of the bytes an ideal kernel moves
// (each input read once, the out written once, e.g. 12 bytes an element
// for a Float add), the speedup of AVX-512 (else the best ISA) over the
// reference, and for the transcendental ops also G elements/s on that
// ISA. Times are thread CPU time (CLOCK_THREAD_CPUTIME_ID), so other
// processes on a shared machine inflate them less than wall time would;
// each figure is the median of --reps repetitions (default 5) of a batch
// of calls sized to take at least 20 ms, the clock read around the batch.
// The reference, about 100x slower, is timed with one repetition.
// Kernels are called through their registered entry points.
#define _POSIX_C_SOURCE 200809L  // clock_gettime

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

static int g_reps = 5;

// How a benchmark builds its arguments.
typedef enum shape {
  SAME,           // self, other of n elements
  SAME_ALPHA,     // ... with alpha 2.5 (the double path)
  SCALAR,         // self, Scalar 0.5 (add.Scalar: alpha 1)
  BIAS,           // [n / 64, 64] op [64]
  PER_CHANNEL,    // [4, 64, n / 256, 1] op [1, 64, 1, 1]
  PER_CHANNEL_CL, // the same, channels-last
  COMPARE,        // same shapes, Bool out
  WHERE,          // Bool condition, self, other
  CLAMP,          // clamp.out(-0.5, 0.5)
  POW2,           // pow.Tensor_Scalar(2)
  UNARY,          // self only
  ELU,            // elu.out(alpha 1, scale 1, input_scale 1)
  ELU_SCALED,     // elu.out(alpha 1, scale 1, input_scale 0.5)
  GELU_NONE,
  GELU_TANH,
} shape_t;

typedef struct bench {
  const char *label;
  const char *op;
  shape_t shape;
  etr_scalar_type_t dtype;
  double bytes;       // per element
  bool elements_too;  // also report G elements/s
} bench_t;

static const bench_t kBenches[] = {
    {"add f32", "aten::add.out", SAME, ETR_FLOAT, 12, false},
    {"add f32 alpha=2.5", "aten::add.out", SAME_ALPHA, ETR_FLOAT, 12, false},
    {"add.Scalar f32", "aten::add.Scalar_out", SCALAR, ETR_FLOAT, 8, false},
    {"mul f32", "aten::mul.out", SAME, ETR_FLOAT, 12, false},
    {"div f32", "aten::div.out", SAME, ETR_FLOAT, 12, false},
    {"maximum f32", "aten::maximum.out", SAME, ETR_FLOAT, 12, false},
    {"add [N,64]+[64] f32", "aten::add.out", BIAS, ETR_FLOAT, 8, false},
    {"mul NCHW*[1,C,1,1] f32", "aten::mul.out", PER_CHANNEL, ETR_FLOAT, 8,
     false},
    {"mul NHWC*[1,C,1,1] f32", "aten::mul.out", PER_CHANNEL_CL, ETR_FLOAT, 8,
     false},
    {"add f16", "aten::add.out", SAME, ETR_HALF, 6, false},
    {"add bf16", "aten::add.out", SAME, ETR_BFLOAT16, 6, false},
    {"lt f32 -> Bool", "aten::lt.Tensor_out", COMPARE, ETR_FLOAT, 9, false},
    {"add i64", "aten::add.out", SAME, ETR_LONG, 24, false},
    {"mul i64", "aten::mul.out", SAME, ETR_LONG, 24, false},
    {"lt i64 -> Bool", "aten::lt.Tensor_out", COMPARE, ETR_LONG, 17, false},
    {"where f32", "aten::where.self_out", WHERE, ETR_FLOAT, 13, false},
    {"clamp f32", "aten::clamp.out", CLAMP, ETR_FLOAT, 8, false},
    {"pow 2 f32", "aten::pow.Tensor_Scalar_out", POW2, ETR_FLOAT, 8, false},
    {"neg f32", "aten::neg.out", UNARY, ETR_FLOAT, 8, false},
    {"sqrt f32", "aten::sqrt.out", UNARY, ETR_FLOAT, 8, false},
    {"rsqrt f32", "aten::rsqrt.out", UNARY, ETR_FLOAT, 8, true},
    {"exp f32", "aten::exp.out", UNARY, ETR_FLOAT, 8, true},
    {"log f32", "aten::log.out", UNARY, ETR_FLOAT, 8, true},
    {"sigmoid f32", "aten::sigmoid.out", UNARY, ETR_FLOAT, 8, true},
    {"tanh f32", "aten::tanh.out", UNARY, ETR_FLOAT, 8, true},
    {"gelu none f32", "aten::gelu.out", GELU_NONE, ETR_FLOAT, 8, true},
    {"elu f32", "aten::elu.out", ELU, ETR_FLOAT, 8, true},
    {"elu input_scale=0.5 f32", "aten::elu.out", ELU_SCALED, ETR_FLOAT, 8,
     true},
    {"gelu tanh f32", "aten::gelu.out", GELU_TANH, ETR_FLOAT, 8, true},
    {"sigmoid f16", "aten::sigmoid.out", UNARY, ETR_HALF, 4, true},
    {"relu f16", "aten::relu.out", UNARY, ETR_HALF, 4, false},
    {"relu bf16", "aten::relu.out", UNARY, ETR_BFLOAT16, 4, false},
    {"floor f32", "aten::floor.out", UNARY, ETR_FLOAT, 8, false},
    {"sign f32", "aten::sign.out", UNARY, ETR_FLOAT, 8, false},
    {"reciprocal f32", "aten::reciprocal.out", UNARY, ETR_FLOAT, 8, false},
    {"fmod f32", "aten::fmod.Tensor_out", SAME, ETR_FLOAT, 12, false},
    {"remainder f32", "aten::remainder.Tensor_out", SAME, ETR_FLOAT, 12,
     false},
    {"expm1 f32", "aten::expm1.out", UNARY, ETR_FLOAT, 8, true},
    {"log2 f32", "aten::log2.out", UNARY, ETR_FLOAT, 8, true},
    {"log1p f32", "aten::log1p.out", UNARY, ETR_FLOAT, 8, true},
    {"sinh f32", "aten::sinh.out", UNARY, ETR_FLOAT, 8, true},
    {"asinh f32", "aten::asinh.out", UNARY, ETR_FLOAT, 8, true},
    {"erf f32", "aten::erf.out", UNARY, ETR_FLOAT, 8, true},
    {"sin f32", "aten::sin.out", UNARY, ETR_FLOAT, 8, true},
    {"tan f32", "aten::tan.out", UNARY, ETR_FLOAT, 8, true},
    {"atan f32", "aten::atan.out", UNARY, ETR_FLOAT, 8, true},
    {"asin f32", "aten::asin.out", UNARY, ETR_FLOAT, 8, true},
    {"atan2 f32", "aten::atan2.out", SAME, ETR_FLOAT, 12, true},
    {"pow f32", "aten::pow.Tensor_Tensor_out", SAME, ETR_FLOAT, 12, true},
};

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a;
  double y = *(const double *)b;
  return x < y ? -1 : x > y;
}

// A dense tensor of values in [0.5, 1.5) (alternating in sign for Float).
static etr_tensor_t *tensor(etr_scalar_type_t dtype, int32_t dim,
                            const int64_t *sizes, bool channels_last) {
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  etr_tensor_t *t = calloc(1, sizeof(*t));
  int64_t numel = 1;
  for (int32_t i = 0; i < dim; ++i) {
    numel *= sizes[i];
  }
  size_t bytes = (size_t)numel * etr_scalar_type_size(dtype);
  uint8_t *data = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (t == NULL || data == NULL) {
    fprintf(stderr, "bench_elementwise: out of memory\n");
    exit(1);
  }
  etr_error_t status =
      channels_last ? etr_tensor_init_with_dim_order(
                          t, dtype, dim, sizes, kChannelsLast, data, bytes,
                          NULL)
                    : etr_tensor_init(t, dtype, dim, sizes, data, bytes, NULL);
  if (status != ETR_OK) {
    fprintf(stderr, "bench_elementwise: bad tensor\n");
    exit(1);
  }
  for (int64_t i = 0; i < numel; ++i) {
    float v = 0.5f + (float)((uint64_t)i * 2654435761u % 1000) / 1000.0f;
    switch (dtype) {
      case ETR_FLOAT:
        ((float *)data)[i] = i & 1 ? v : -v;
        break;
      case ETR_HALF:
        ((uint16_t *)data)[i] = etr_float_to_half(v);
        break;
      case ETR_BFLOAT16:
        ((uint16_t *)data)[i] = etr_float_to_bfloat16(v);
        break;
      case ETR_LONG:
        ((int64_t *)data)[i] = (int64_t)((uint64_t)i * 2654435761u % 1000);
        break;
      default:
        data[i] = i % 3 == 0;
        break;
    }
  }
  return t;
}

static etr_evalue_t *value(etr_tag_t tag) {
  etr_evalue_t *e = calloc(1, sizeof(*e));
  e->tag = tag;
  return e;
}
static etr_evalue_t *ev_tensor(etr_tensor_t *t) {
  etr_evalue_t *e = value(ETR_TAG_TENSOR);
  e->u.as_tensor = t;
  return e;
}
static etr_evalue_t *ev_double(double d) {
  etr_evalue_t *e = value(ETR_TAG_DOUBLE);
  e->u.as_double = d;
  return e;
}
static etr_evalue_t *ev_int(int64_t i) {
  etr_evalue_t *e = value(ETR_TAG_INT);
  e->u.as_int = i;
  return e;
}
static etr_evalue_t *ev_string(const char *s) {
  etr_evalue_t *e = value(ETR_TAG_STRING);
  e->u.as_string.data = s;
  e->u.as_string.length = strlen(s);
  return e;
}

// The arguments of `b` on n elements a tensor; returns their count.
static size_t build_args(const bench_t *b, int64_t n, etr_evalue_t **args) {
  int64_t flat[1] = {n};
  int64_t matrix[2] = {n / 64, 64};
  int64_t row[1] = {64};
  int64_t nchw[4] = {4, 64, n / 256, 1};
  int64_t channel[4] = {1, 64, 1, 1};
  etr_scalar_type_t dtype = b->dtype;
  size_t count = 0;
  etr_tensor_t *out = NULL;
  switch (b->shape) {
    case SAME:
    case SAME_ALPHA:
    case COMPARE:
      args[count++] = ev_tensor(tensor(dtype, 1, flat, false));
      args[count++] = ev_tensor(tensor(dtype, 1, flat, false));
      if (strncmp(b->op, "aten::add", 9) == 0) {
        args[count++] = b->shape == SAME_ALPHA ? ev_double(2.5) : ev_int(1);
      }
      out = tensor(b->shape == COMPARE ? ETR_BOOL : dtype, 1, flat, false);
      break;
    case SCALAR:
      args[count++] = ev_tensor(tensor(dtype, 1, flat, false));
      args[count++] = ev_double(0.5);
      args[count++] = ev_int(1);
      out = tensor(dtype, 1, flat, false);
      break;
    case BIAS:
      args[count++] = ev_tensor(tensor(dtype, 2, matrix, false));
      args[count++] = ev_tensor(tensor(dtype, 1, row, false));
      args[count++] = ev_int(1);
      out = tensor(dtype, 2, matrix, false);
      break;
    case PER_CHANNEL:
    case PER_CHANNEL_CL: {
      bool cl = b->shape == PER_CHANNEL_CL;
      args[count++] = ev_tensor(tensor(dtype, 4, nchw, cl));
      args[count++] = ev_tensor(tensor(dtype, 4, channel, false));
      out = tensor(dtype, 4, nchw, cl);
      break;
    }
    case WHERE:
      args[count++] = ev_tensor(tensor(ETR_BOOL, 1, flat, false));
      args[count++] = ev_tensor(tensor(dtype, 1, flat, false));
      args[count++] = ev_tensor(tensor(dtype, 1, flat, false));
      out = tensor(dtype, 1, flat, false);
      break;
    case CLAMP:
      args[count++] = ev_tensor(tensor(dtype, 1, flat, false));
      args[count++] = ev_double(-0.5);
      args[count++] = ev_double(0.5);
      out = tensor(dtype, 1, flat, false);
      break;
    case POW2:
      args[count++] = ev_tensor(tensor(dtype, 1, flat, false));
      args[count++] = ev_int(2);
      out = tensor(dtype, 1, flat, false);
      break;
    case ELU:
    case ELU_SCALED:
      args[count++] = ev_tensor(tensor(dtype, 1, flat, false));
      args[count++] = ev_int(1);
      args[count++] = ev_int(1);
      args[count++] =
          b->shape == ELU ? ev_int(1) : ev_double(0.5);
      out = tensor(dtype, 1, flat, false);
      break;
    case UNARY:
    case GELU_NONE:
    case GELU_TANH:
      args[count++] = ev_tensor(tensor(dtype, 1, flat, false));
      if (b->shape != UNARY) {
        args[count++] = ev_string(b->shape == GELU_NONE ? "none" : "tanh");
      }
      out = tensor(dtype, 1, flat, false);
      break;
  }
  args[count] = ev_tensor(out);
  args[count + 1] = args[count];
  return count + 2;
}

static void free_args(etr_evalue_t **args, size_t count) {
  for (size_t i = 0; i + 1 < count; ++i) {  // the last slot repeats one
    if (args[i]->tag == ETR_TAG_TENSOR) {
      free(args[i]->u.as_tensor->data);
      free(args[i]->u.as_tensor);
    }
    free(args[i]);
  }
}

// Median seconds a call over `reps` repetitions of >= 20 ms each (one
// call a repetition when `once`).
static double time_calls(etr_kernel_fn fn, const char *op,
                         etr_evalue_t **args, size_t count, int reps,
                         bool once) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag, .op_name = op};
  if (fn(&ctx, args, count) != ETR_OK) {
    fprintf(stderr, "bench_elementwise: %s failed: %s\n", op, diag.message);
    exit(1);
  }
  // The clock is read around a batch of calls, never per call: thread
  // CPU time is a system call (about 0.6 us on a KVM guest, AMD Zen 4),
  // which read per call had added 12% to tanh's time on 16 Ki floats and
  // 30% to neg's. The batch is sized once so that it takes >= 20 ms.
  long calls = 1;
  while (!once) {
    double start = cpu_seconds();
    for (long i = 0; i < calls; ++i) {
      fn(&ctx, args, count);
    }
    double elapsed = cpu_seconds() - start;
    if (elapsed >= 0.02 || calls >= (1L << 24)) {
      break;
    }
    calls *= elapsed > 0.002 ? (long)(0.025 / elapsed) + 1 : 10;
  }
  double samples[64];
  reps = reps > 64 ? 64 : reps;
  for (int r = 0; r < reps; ++r) {
    double start = cpu_seconds();
    for (long i = 0; i < calls; ++i) {
      fn(&ctx, args, count);
    }
    samples[r] = (cpu_seconds() - start) / (double)calls;
  }
  qsort(samples, (size_t)reps, sizeof(double), compare_doubles);
  return samples[reps / 2];
}

static etr_kernel_fn find(const etr_kernel_registration_t *table,
                          size_t count, const char *name) {
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(table[i].name, name) == 0) {
      return table[i].fn;
    }
  }
  return NULL;
}

static void run(const bench_t *b, int64_t n) {
  etr_evalue_t *args[8];
  size_t count = build_args(b, n, args);
  etr_kernel_fn reference =
      find(etr_reference_kernels, etr_reference_kernel_count, b->op);
  etr_kernel_fn optimized =
      find(etr_optimized_kernels, etr_optimized_kernel_count, b->op);
  if (reference == NULL || optimized == NULL) {
    fprintf(stderr, "bench_elementwise: no kernel for %s\n", b->op);
    exit(1);
  }
  double bytes = b->bytes * (double)n;
  double t_reference = time_calls(reference, b->op, args, count, 1, true);
  printf("%-24s %9lld %8.2f", b->label, (long long)n,
         bytes / t_reference / 1e9);
  double best = 0;
  double best_time = 0;
  uint64_t fallbacks = etr_opt_fallback_calls;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      printf(" %8s", "-");
      continue;
    }
    etr_isa_force((etr_isa_t)isa);
    double t = time_calls(optimized, b->op, args, count, g_reps, false);
    printf(" %8.2f", bytes / t / 1e9);
    best = t_reference / t;  // the last available ISA is the best one
    best_time = t;
  }
  etr_isa_reset();
  printf("  %7.1fx", best);
  if (b->elements_too) {
    printf("  %.2f Gel/s", (double)n / best_time / 1e9);
  }
  printf("%s\n", etr_opt_fallback_calls != fallbacks ? "  FELL BACK" : "");
  fflush(stdout);
  free_args(args, count);
}

int main(int argc, char **argv) {
  bool quick = false;
  const char *only = NULL;
  int64_t extra = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      g_reps = atoi(argv[++i]);
      g_reps = g_reps < 1 ? 1 : g_reps;
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else if (strcmp(argv[i], "--elements") == 0 && i + 1 < argc) {
      extra = atoll(argv[++i]) / 256 * 256;
    } else if (strcmp(argv[i], "--stream-bytes") == 0 && i + 1 < argc) {
      // The streaming-store threshold (common/stream.h), forced: 0
      // streams every out, a huge value none.
      etr_isa_force_stream_bytes((size_t)strtoull(argv[++i], NULL, 10));
    } else {
      fprintf(stderr,
              "usage: bench_elementwise [--quick] [--reps N] [--only LABEL] "
              "[--elements N] [--stream-bytes B]\n");
      return 2;
    }
  }
  int64_t sizes[3] = {16384, quick ? 0 : 16777216, extra};
  printf("GB/s (bytes an ideal kernel moves / thread CPU time), median of "
         "%d\n%-24s %9s %8s %8s %8s %8s %8s  %8s\n",
         g_reps, "op", "elements", "ref", "scalar", "avx2", "avx512", "neon",
         "best/ref");
  for (int s = 0; s < 3; ++s) {
    if (sizes[s] <= 0) {
      continue;
    }
    for (size_t b = 0; b < sizeof(kBenches) / sizeof(kBenches[0]); ++b) {
      if (only == NULL || strstr(kBenches[b].label, only) != NULL) {
        run(&kBenches[b], sizes[s]);
      }
    }
  }
  return 0;
}
