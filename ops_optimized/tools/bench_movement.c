// SPDX-License-Identifier: Apache-2.0
//
// Times the movement family's optimized kernels against their reference
// twins on model-like shapes, side by side in one process: the reference
// kernel, then the optimized kernel on every ISA this machine has
// (etr_isa_force). Each timing is the median of 7 rounds; in each round
// every variant runs one batch sized to take about 20 ms, interleaved so
// load changes hit them alike (the machines are shared and noisy: compare
// ratios within one run). Prints one row per case: time per call, the
// speedup over the reference per ISA, and the effective bandwidth of the
// best ISA (bytes read + bytes written per second).
//
//   bazel run //ops_optimized/tools:bench_movement [-- filter]
//   bazel run //ops_optimized/tools:bench_movement -- --transpose
//
// A filter argument runs only the cases whose name contains it.
// --transpose times the transpose microkernels themselves (fp32 and fp16,
// cache-resident to DRAM-sized, narrow) per ISA: 21 interleaved rounds,
// min and median GB/s (read + write). On a loaded machine the min is the
// steadier figure.
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops_optimized/isa.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/test/kernel_table.h"
#include "ops_reference/test/test_util.h"

typedef struct bench_case {
  const char *name;
  const char *op;
  etr_kernel_fn reference;
  etr_kernel_fn optimized;
  etr_evalue_t *args[12];
  size_t num_args;
  double bytes;  // read + written per call
} bench_case_t;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a;
  double y = *(const double *)b;
  return x < y ? -1 : x > y;
}

// The kernels one case is timed with: the reference, then the optimized
// kernel per available ISA.
#define MAX_VARIANTS (1 + ETR_NUM_ISAS)
#define REPETITIONS 7

typedef struct variant {
  etr_kernel_fn kernel;
  int isa;  // -1: the reference
  long calls;
  double samples[REPETITIONS];
} variant_t;

// Runs `calls` calls of the variant; returns the seconds per call.
static double run_batch(bench_case_t *c, variant_t *v, long calls) {
  static uint8_t scratch[1 << 20];
  etr_arena_t temp;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag, .op_name = c->op,
                              .temp = &temp};
  etr_arena_init(&temp, scratch, sizeof(scratch));
  if (v->isa >= 0) {
    etr_isa_force((etr_isa_t)v->isa);
  }
  double begin = now();
  for (long i = 0; i < calls; ++i) {
    etr_arena_reset(&temp);
    if (v->kernel(&ctx, c->args, c->num_args) != ETR_OK) {
      fprintf(stderr, "%s: %s failed: %s\n", c->name, c->op, diag.message);
      exit(1);
    }
  }
  double seconds = (now() - begin) / (double)calls;
  etr_isa_reset();
  return seconds;
}

// Times every variant: a calibration batch each, then REPETITIONS rounds
// in which every variant runs one batch (interleaved, so load changes hit
// them alike); writes each variant's median seconds per call.
static void time_case(bench_case_t *c, variant_t *variants, size_t count) {
  for (size_t v = 0; v < count; ++v) {
    double once = run_batch(c, &variants[v], 1);  // also warms up
    variants[v].calls = once > 0.02 ? 1 : (long)(0.02 / (once + 1e-9)) + 1;
  }
  for (int rep = 0; rep < REPETITIONS; ++rep) {
    for (size_t v = 0; v < count; ++v) {
      variants[v].samples[rep] =
          run_batch(c, &variants[v], variants[v].calls);
    }
  }
  for (size_t v = 0; v < count; ++v) {
    qsort(variants[v].samples, REPETITIONS, sizeof(double),
          compare_doubles);
  }
}

// A tensor of random bytes.
static etr_tensor_t *random_tensor(etr_scalar_type_t dtype, int32_t dim,
                                   const int64_t *sizes) {
  etr_tensor_t *tensor = tt_tensor(dtype, dim, sizes, NULL);
  uint8_t *bytes = (uint8_t *)tensor->data;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  size_t count = etr_tensor_nbytes(tensor);
  for (size_t i = 0; i < count; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    bytes[i] = (uint8_t)(state >> 56);
    if (dtype == ETR_FLOAT && i % 4 == 3) {
      bytes[i] &= 0x3f;  // finite values
    }
  }
  return tensor;
}

static etr_evalue_t *out_ev(etr_scalar_type_t dtype, int32_t dim,
                            const int64_t *sizes, bool channels_last) {
  static const uint8_t kNhwc[4] = {0, 2, 3, 1};
  return tt_ev_tensor(channels_last
                          ? tt_out_dim_order(dtype, dim, sizes, kNhwc)
                          : tt_out(dtype, dim, sizes, 0));
}

#define MAX_CASES 64
static bench_case_t g_cases[MAX_CASES];
static size_t g_count = 0;

static bench_case_t *add_case(const char *name, const char *op,
                              etr_kernel_fn reference,
                              etr_kernel_fn optimized, double bytes) {
  bench_case_t *c = &g_cases[g_count++];
  memset(c, 0, sizeof(*c));
  c->name = name;
  c->op = op;
  c->reference = reference;
  c->optimized = optimized;
  c->bytes = bytes;
  return c;
}

#define ARGS(c, ...)                                                      \
  do {                                                                    \
    etr_evalue_t *list_[] = {__VA_ARGS__};                                \
    (c)->num_args = sizeof(list_) / sizeof(list_[0]);                     \
    memcpy((c)->args, list_, sizeof(list_));                              \
  } while (0)

static void build_cases(void) {
  // permute_copy: the transposed linear weight (fp32, fp16), NCHW <-> NHWC.
  {
    int64_t w[2] = {1024, 1024};
    etr_evalue_t *out = out_ev(ETR_FLOAT, 2, w, false);
    bench_case_t *c = add_case("transpose 1024x1024 f32",
                               "aten::permute_copy.out",
                               etr_ref_permute_copy_out,
                               etr_opt_permute_copy_out, 8.0 * 1024 * 1024);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, w)), TT_EV_INTS(1, 0),
         out, out);
    int64_t v[2] = {4096, 1024};
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){1024, 4096}, false);
    c = add_case("transpose 4096x1024 f32", "aten::permute_copy.out",
                 etr_ref_permute_copy_out, etr_opt_permute_copy_out,
                 32.0 * 1024 * 1024);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, v)), TT_EV_INTS(1, 0),
         out, out);
    out = out_ev(ETR_HALF, 2, w, false);
    c = add_case("transpose 1024x1024 f16", "aten::permute_copy.out",
                 etr_ref_permute_copy_out, etr_opt_permute_copy_out,
                 4.0 * 1024 * 1024);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_HALF, 2, w)), TT_EV_INTS(1, 0),
         out, out);
    int64_t nchw[4] = {1, 64, 56, 56};
    int64_t nhwc[4] = {1, 56, 56, 64};
    out = out_ev(ETR_FLOAT, 4, nhwc, false);
    c = add_case("NCHW->NHWC 1x64x56x56 f32", "aten::permute_copy.out",
                 etr_ref_permute_copy_out, etr_opt_permute_copy_out,
                 8.0 * 64 * 56 * 56);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 4, nchw)),
         TT_EV_INTS(0, 2, 3, 1), out, out);
    out = out_ev(ETR_FLOAT, 4, nchw, false);
    c = add_case("NHWC->NCHW 1x56x56x64 f32", "aten::permute_copy.out",
                 etr_ref_permute_copy_out, etr_opt_permute_copy_out,
                 8.0 * 64 * 56 * 56);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 4, nhwc)),
         TT_EV_INTS(0, 3, 1, 2), out, out);
    // The transformer's head split: [B, S, H, D] -> [B, H, S, D].
    int64_t bshd[4] = {1, 128, 8, 64};
    out = out_ev(ETR_FLOAT, 4, (const int64_t[]){1, 8, 128, 64}, false);
    c = add_case("heads 1x128x8x64 f32 (0,2,1,3)", "aten::permute_copy.out",
                 etr_ref_permute_copy_out, etr_opt_permute_copy_out,
                 8.0 * 128 * 8 * 64);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 4, bshd)),
         TT_EV_INTS(0, 2, 1, 3), out, out);
  }
  // Copies and layout changes.
  {
    int64_t big[4] = {1, 256, 56, 56};
    etr_evalue_t *out = out_ev(ETR_FLOAT, 4, big, false);
    bench_case_t *c = add_case("clone 1x256x56x56 f32", "aten::clone.out",
                               etr_ref_clone_out, etr_opt_clone_out,
                               8.0 * 256 * 56 * 56);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 4, big)), tt_ev_none(),
         out, out);
    int64_t nchw[4] = {1, 64, 56, 56};
    out = out_ev(ETR_FLOAT, 4, nchw, true);
    c = add_case("clone_dim_order -> NHWC 1x64x56x56",
                 "dim_order_ops::_clone_dim_order.out",
                 etr_ref_clone_dim_order_out, etr_opt_clone_dim_order_out,
                 8.0 * 64 * 56 * 56);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 4, nchw)),
         tt_ev_bool(false), TT_EV_INTS(0, 2, 3, 1), out, out);
    int64_t row[2] = {1, 1024};
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){64, 1024}, false);
    c = add_case("expand 1x1024 -> 64x1024 f32", "aten::expand_copy.out",
                 etr_ref_expand_copy_out, etr_opt_expand_copy_out,
                 4.0 * 64 * 1024 + 4096);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, row)),
         TT_EV_INTS(64, 1024), tt_ev_bool(false), out, out);
    int64_t column[2] = {1024, 1};
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){1024, 64}, false);
    c = add_case("expand 1024x1 -> 1024x64 f32", "aten::expand_copy.out",
                 etr_ref_expand_copy_out, etr_opt_expand_copy_out,
                 4.0 * 64 * 1024 + 4096);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, column)),
         TT_EV_INTS(1024, 64), tt_ev_bool(false), out, out);
    int64_t flat[2] = {512, 2048};
    out = out_ev(ETR_FLOAT, 3, (const int64_t[]){512, 32, 64}, false);
    c = add_case("view_copy 512x2048 f32", "aten::view_copy.out",
                 etr_ref_view_copy_out, etr_opt_view_copy_out,
                 8.0 * 512 * 2048);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, flat)),
         TT_EV_INTS(512, 32, 64), out, out);
    int64_t small[2] = {1, 64};
    out = out_ev(ETR_FLOAT, 3, (const int64_t[]){1, 1, 64}, false);
    c = add_case("view_copy 1x64 f32 (LSTM step)", "aten::view_copy.out",
                 etr_ref_view_copy_out, etr_opt_view_copy_out, 8.0 * 64);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, small)),
         TT_EV_INTS(1, 1, 64), out, out);
    int64_t cache[2] = {1024, 1024};
    etr_evalue_t *target = tt_ev_tensor(random_tensor(ETR_FLOAT, 2, cache));
    c = add_case("copy_ 1024x1024 f32 (buffer write-back)", "aten::copy_",
                 etr_ref_copy_inplace, etr_opt_copy_inplace,
                 8.0 * 1024 * 1024);
    ARGS(c, target, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, cache)),
         tt_ev_bool(false), tt_ev_none());
  }
  // Joining, splitting, slicing, padding, tiling, filling.
  {
    int64_t half[4] = {1, 64, 56, 56};
    etr_tensor_t *parts[2] = {random_tensor(ETR_FLOAT, 4, half),
                              random_tensor(ETR_FLOAT, 4, half)};
    etr_evalue_t *out = out_ev(ETR_FLOAT, 4, (const int64_t[]){1, 128, 56, 56},
                               false);
    bench_case_t *c = add_case("cat dim 1 2x(1x64x56x56)", "aten::cat.out",
                               etr_ref_cat_out, etr_opt_cat_out,
                               16.0 * 64 * 56 * 56);
    ARGS(c, tt_ev_tensor_list(2, parts), tt_ev_int(1), out, out);
    int64_t gates[2] = {64, 256};
    etr_tensor_t *pair[2] = {random_tensor(ETR_FLOAT, 2, gates),
                             random_tensor(ETR_FLOAT, 2, gates)};
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){64, 512}, false);
    c = add_case("cat dim -1 2x(64x256)", "aten::cat.out", etr_ref_cat_out,
                 etr_opt_cat_out, 16.0 * 64 * 256);
    ARGS(c, tt_ev_tensor_list(2, pair), tt_ev_int(-1), out, out);
    int64_t wide[2] = {1024, 1024};
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){1024, 512}, false);
    c = add_case("slice_copy [:, 256:768] 1024x1024",
                 "aten::slice_copy.Tensor_out",
                 etr_ref_slice_copy_tensor_out, etr_opt_slice_copy_tensor_out,
                 8.0 * 1024 * 512);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, wide)), tt_ev_int(1),
         tt_ev_int(256), tt_ev_int(768), tt_ev_int(1), out, out);
    int64_t image[4] = {1, 64, 56, 56};
    out = out_ev(ETR_FLOAT, 4, (const int64_t[]){1, 64, 58, 58}, false);
    c = add_case("constant_pad_nd 1x64x56x56 +1", "aten::constant_pad_nd.out",
                 etr_ref_constant_pad_nd_out, etr_opt_constant_pad_nd_out,
                 4.0 * 64 * (56 * 56 + 58 * 58));
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 4, image)),
         TT_EV_INTS(1, 1, 1, 1), tt_ev_double(0.0), out, out);
    int64_t tile[2] = {64, 64};
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){256, 256}, false);
    c = add_case("repeat 64x64 x(4,4)", "aten::repeat.out", etr_ref_repeat_out,
                 etr_opt_repeat_out, 4.0 * (256 * 256 + 64 * 64));
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, tile)), TT_EV_INTS(4, 4),
         out, out);
    // The kernel benchmark's repeat case: four copies of a 256 KiB row.
    int64_t block[2] = {64, 1024};
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){256, 1024}, false);
    c = add_case("repeat 64x1024 x(4,1)", "aten::repeat.out",
                 etr_ref_repeat_out, etr_opt_repeat_out,
                 4.0 * (256 * 1024 + 64 * 1024));
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, block)),
         TT_EV_INTS(4, 1), out, out);
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){1024, 1024}, false);
    c = add_case("full 1024x1024 f32 1.5", "aten::full.out", etr_ref_full_out,
                 etr_opt_full_out, 4.0 * 1024 * 1024);
    ARGS(c, TT_EV_INTS(1024, 1024), tt_ev_double(1.5), out, out);
  }
  // Index-taking ops.
  {
    int64_t vocab[2] = {32000, 512};
    int64_t tokens[128];
    for (int i = 0; i < 128; ++i) {
      tokens[i] = (i * 7919) % 32000;
    }
    etr_evalue_t *out = out_ev(ETR_FLOAT, 2, (const int64_t[]){128, 512},
                               false);
    bench_case_t *c = add_case("embedding 32000x512 x128 tokens",
                               "aten::embedding.out", etr_ref_embedding_out,
                               etr_opt_embedding_out, 8.0 * 128 * 512);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, vocab)),
         tt_ev_tensor(tt_tensor_i64(ETR_LONG, 1, (const int64_t[]){128},
                                    tokens)),
         tt_ev_int(-1), tt_ev_bool(false), tt_ev_bool(false), out, out);
    // The kernel benchmark's embedding case: 512 scattered rows of 1 KiB
    // from an 8 MiB table.
    int64_t table8[2] = {8192, 256};
    int64_t rows512[512];
    for (int i = 0; i < 512; ++i) {
      rows512[i] = ((int64_t)i * 2654435761LL) % 8192;
    }
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){512, 256}, false);
    c = add_case("embedding 8192x256 x512 rows", "aten::embedding.out",
                 etr_ref_embedding_out, etr_opt_embedding_out,
                 8.0 * 512 * 256);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, table8)),
         tt_ev_tensor(tt_tensor_i64(ETR_LONG, 1, (const int64_t[]){512},
                                    rows512)),
         tt_ev_int(-1), tt_ev_bool(false), tt_ev_bool(false), out, out);
    int64_t table[2] = {256, 1024};
    int64_t picks[256];
    for (int i = 0; i < 256; ++i) {
      picks[i] = (i * 37) % 1024;
    }
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){256, 256}, false);
    c = add_case("index_select dim -1 256x1024 -> 256x256",
                 "aten::index_select.out", etr_ref_index_select_out,
                 etr_opt_index_select_out, 8.0 * 256 * 256);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, table)), tt_ev_int(-1),
         tt_ev_tensor(tt_tensor_i64(ETR_LONG, 1, (const int64_t[]){256},
                                    picks)),
         out, out);
    int64_t *gathered = (int64_t *)tt_alloc(sizeof(int64_t) * 256 * 256);
    for (int i = 0; i < 256 * 256; ++i) {
      gathered[i] = (i * 131) % 1024;
    }
    out = out_ev(ETR_FLOAT, 2, (const int64_t[]){256, 256}, false);
    c = add_case("gather dim -1 256x1024 idx 256x256", "aten::gather.out",
                 etr_ref_gather_out, etr_opt_gather_out, 16.0 * 256 * 256);
    ARGS(c, tt_ev_tensor(random_tensor(ETR_FLOAT, 2, table)), tt_ev_int(-1),
         tt_ev_tensor(tt_tensor_i64(ETR_LONG, 2, (const int64_t[]){256, 256},
                                    gathered)),
         tt_ev_bool(false), out, out);
    // KV cache [1, 1024 positions, 8 heads, 64]: one position written.
    int64_t kv[4] = {1, 1024, 8, 64};
    etr_tensor_t *cache = random_tensor(ETR_FLOAT, 4, kv);
    etr_tensor_t *step = tt_tensor_i64(ETR_LONG, 1, (const int64_t[]){1},
                                       (const int64_t[]){517});
    etr_tensor_t *entries[2] = {NULL, step};
    etr_evalue_t *self = tt_ev_tensor(cache);
    c = add_case("index_put KV 1x1024x8x64 in place", "aten::index_put.out",
                 etr_ref_index_put_out, etr_opt_index_put_out, 8.0 * 8 * 64);
    ARGS(c, self, tt_ev_optional_tensor_list(2, entries),
         tt_ev_tensor(random_tensor(ETR_FLOAT, 4,
                                    (const int64_t[]){1, 1, 8, 64})),
         tt_ev_bool(false), self, self);
    out = out_ev(ETR_FLOAT, 4, kv, false);
    c = add_case("index_put KV 1x1024x8x64 out", "aten::index_put.out",
                 etr_ref_index_put_out, etr_opt_index_put_out,
                 8.0 * 1024 * 8 * 64);
    ARGS(c, self, tt_ev_optional_tensor_list(2, entries),
         tt_ev_tensor(random_tensor(ETR_FLOAT, 4,
                                    (const int64_t[]){1, 1, 8, 64})),
         tt_ev_bool(false), out, out);
  }
}

// Times etr_move_transpose_for(isa, size) on rows x columns.
static void bench_transpose(size_t size, size_t rows, size_t columns) {
  enum { ROUNDS = 21 };
  size_t bytes = rows * columns * size;
  uint8_t *src = (uint8_t *)tt_alloc(bytes);
  uint8_t *dst = (uint8_t *)tt_alloc(bytes);
  memset(src, 1, bytes);
  double samples[ETR_NUM_ISAS][ROUNDS];
  for (int round = 0; round < ROUNDS; ++round) {
    for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
      if (!etr_isa_available((etr_isa_t)isa)) {
        continue;
      }
      etr_move_transpose_fn transpose =
          etr_move_transpose_for((etr_isa_t)isa, size);
      double begin = now();
      transpose(rows, columns, src, columns * size, dst, rows * size);
      samples[isa][round] = now() - begin;
    }
  }
  printf("transpose x%-2zu %5zux%-6zu", size * 8, rows, columns);
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    qsort(samples[isa], ROUNDS, sizeof(double), compare_doubles);
    printf("  %6s %6.1f / %6.1f", etr_isa_name((etr_isa_t)isa),
           2.0 * (double)bytes / samples[isa][0] * 1e-9,
           2.0 * (double)bytes / samples[isa][ROUNDS / 2] * 1e-9);
  }
  printf("   GB/s min-time / median\n");
  fflush(stdout);
  tt_free_all();
}

static int bench_transposes(void) {
  static const size_t kShapes[][2] = {{256, 256},  {1000, 1000},
                                      {1024, 1024}, {2048, 2048},
                                      {4096, 1024}, {64, 3136},
                                      {3, 50000}};
  for (size_t size = 8; size >= 1; size /= 2) {
    for (size_t s = 0; s < sizeof(kShapes) / sizeof(kShapes[0]); ++s) {
      bench_transpose(size, kShapes[s][0], kShapes[s][1]);
    }
  }
  return 0;
}

// test_util's kernel lookup (unused here: kernels are called directly).
const etr_kernel_registration_t *tt_kernel_table(size_t *count) {
  *count = etr_optimized_kernel_count;
  return etr_optimized_kernels;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--transpose") == 0) {
    return bench_transposes();
  }
  build_cases();
  const char *filter = argc > 1 ? argv[1] : NULL;
  variant_t variants[MAX_VARIANTS];
  size_t count = 0;
  printf("%-40s %10s", "case", "reference");
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (etr_isa_available((etr_isa_t)isa)) {
      printf(" %17s", etr_isa_name((etr_isa_t)isa));
    }
  }
  printf(" %9s\n", "best GB/s");
  for (size_t i = 0; i < g_count; ++i) {
    bench_case_t *c = &g_cases[i];
    if (filter != NULL && strstr(c->name, filter) == NULL) {
      continue;
    }
    count = 0;
    variants[count++] = (variant_t){.kernel = c->reference, .isa = -1};
    for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
      if (etr_isa_available((etr_isa_t)isa)) {
        variants[count++] = (variant_t){.kernel = c->optimized, .isa = isa};
      }
    }
    time_case(c, variants, count);
    double reference = variants[0].samples[REPETITIONS / 2];
    double best = reference;
    printf("%-40s %8.3fms", c->name, reference * 1e3);
    for (size_t v = 1; v < count; ++v) {
      double t = variants[v].samples[REPETITIONS / 2];
      best = t < best ? t : best;
      printf(" %8.4fms %6.1fx", t * 1e3, reference / t);
    }
    printf(" %9.2f\n", c->bytes / best * 1e-9);
    fflush(stdout);
  }
  tt_free_all();
  return 0;
}
