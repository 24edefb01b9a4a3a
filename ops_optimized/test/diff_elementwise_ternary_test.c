// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the elementwise family's three-input ops,
// where.self_out and clamp.Tensor_out, against the reference kernels on
// every ISA of this machine. Both are exact (where copies values, clamp
// selects them), so every case compares bit for bit (ETR_DIFF_EXACT).
//
// where: Float and Int (the 4-byte SIMD kernel), Half (2 bytes), Bool (1),
// Double and Long (8), with Bool and uint8 conditions; the tile-edge
// sizes of 16 lanes; same shapes, a broadcast condition ([N, 1] and
// 0-dim), broadcast values ([C], 0-dim of the dtype and of another dtype,
// converted), the NCHW per-channel pattern contiguous and channels-last,
// non-contiguous inputs (which fall back), in place (out is self).
//
// clamp.Tensor: Float, Half, BFloat16; both bounds, min only, max only;
// bounds of self's shape, [C] rows, 0-dim tensors (of the dtype and of
// Double), per-channel [1, C, 1, 1] in both layouts; random and special
// values, NaN bounds included; in place.
//
// Dry runs (ctx->dry_run, every data pointer NULL) of these and of the
// parametrized unary ops must resize the out like the reference, return
// OK and not fall back.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

static uint64_t g_seed = 5000;

// The out (1-D with room, or exactly `sizes` in channels-last), the
// return slot; runs exactly.
static int finish(etr_diff_case_t *c, etr_scalar_type_t dtype, int32_t dim,
                  const int64_t *sizes, bool channels_last_out) {
  size_t out_index = c->num_args;
  int64_t numel = 1;
  for (int32_t i = 0; i < dim; ++i) {
    numel *= sizes[i];
  }
  if (channels_last_out) {
    etr_diff_out(c, dtype, dim, sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 numel + 8);
  }
  etr_diff_return(c, out_index);
  etr_diff_tolerance_exact(c);
  return etr_diff_run(c);
}

// An input that is a 0-dim tensor of `dtype` holding `value`.
static void zero_dim(etr_diff_case_t *c, etr_scalar_type_t dtype,
                     double value) {
  etr_diff_arg(c, tt_ev_tensor(tt_scalar_tensor(dtype, value)));
}

// Shapes of one where case: condition, self, other (dim 0 = 0-dim tensor
// of `zero_dim_dtype`), and the out.
typedef struct where_shapes {
  const char *what;
  int32_t dims[3];
  int64_t sizes[3][4];
  int32_t out_dim;
  int64_t out_sizes[4];
} where_shapes_t;

static int where_case(const where_shapes_t *w, etr_scalar_type_t dtype,
                      etr_scalar_type_t condition_dtype,
                      etr_scalar_type_t zero_dim_dtype,
                      etr_diff_layout_t layout, etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::where.self_out", g_seed++, "%s %s cond %s",
                 w->what, etr_scalar_type_name(condition_dtype),
                 etr_scalar_type_name(zero_dim_dtype));
  for (int i = 0; i < 3; ++i) {
    if (w->dims[i] == 0) {
      if (i == 0) {
        zero_dim(&c, condition_dtype, 1.0);
      } else {
        bool floating = etr_scalar_type_is_floating(zero_dim_dtype);
        zero_dim(&c, zero_dim_dtype,
                 i == 1 ? 2.5 : (floating ? -INFINITY : -7.0));
      }
      continue;
    }
    etr_diff_input(&c, i == 0 ? condition_dtype : dtype, w->dims[i],
                   w->sizes[i], layout, fill);
  }
  c.dtype = dtype;
  bool nhwc = layout == ETR_DIFF_CHANNELS_LAST && w->out_dim == 4;
  return finish(&c, dtype, w->out_dim, w->out_sizes, nhwc);
}

TT_TEST(diff_elementwise_ternary, where) {
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_INT, ETR_HALF,
                                              ETR_BOOL, ETR_DOUBLE,
                                              ETR_LONG};
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  uint64_t specialized = etr_diff_stats()->specialized;
  for (size_t d = 0; d < sizeof(kDtypes) / sizeof(kDtypes[0]); ++d) {
    etr_scalar_type_t dtype = kDtypes[d];
    for (size_t s = 0; s < count; ++s) {
      int64_t n = sizes[s];
      const where_shapes_t shapes[] = {
          {"same", {2, 2, 2}, {{3, n}, {3, n}, {3, n}}, 2, {3, n}},
          {"cond [3,1]", {2, 2, 2}, {{3, 1}, {3, n}, {3, n}}, 2, {3, n}},
          {"self [n]", {2, 1, 2}, {{3, n}, {n}, {3, n}}, 2, {3, n}},
          {"0-dim other", {2, 2, 0}, {{3, n}, {3, n}, {0}}, 2, {3, n}},
          {"0-dim self, other", {2, 0, 0}, {{3, n}, {0}, {0}}, 2, {3, n}},
          {"0-dim cond", {0, 2, 2}, {{0}, {3, n}, {3, n}}, 2, {3, n}},
          {"nchw", {4, 4, 4}, {{2, 1, 1, n}, {2, 3, 1, n}, {1, 3, 1, 1}},
           4, {2, 3, 1, n}},
          {"per channel", {4, 4, 4},
           {{2, n, 1, 2}, {1, n, 1, 1}, {2, n, 1, 2}}, 4, {2, n, 1, 2}},
      };
      for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); ++k) {
        bool rank4 = shapes[k].out_dim == 4;
        for (int layout = 0; layout < 3; ++layout) {
          if ((layout == ETR_DIFF_CHANNELS_LAST) != rank4 &&
              layout != ETR_DIFF_CONTIGUOUS) {
            continue;
          }
          for (int fill = 0; fill < 2; ++fill) {
            failures += where_case(
                &shapes[k], dtype, fill ? ETR_BYTE : ETR_BOOL,
                fill ? ETR_DOUBLE : dtype, (etr_diff_layout_t)layout,
                fill ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM);
          }
        }
      }
      // In place: out is self.
      etr_diff_case_t c;
      etr_diff_begin(&c, "aten::where.self_out", g_seed++,
                     "in place n=%lld", (long long)n);
      etr_diff_input(&c, ETR_BOOL, 1, &n, ETR_DIFF_CONTIGUOUS,
                     ETR_FILL_RANDOM);
      etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS,
                     ETR_FILL_SPECIAL);
      etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS,
                     ETR_FILL_SPECIAL);
      etr_diff_out_aliasing(&c, 1);
      etr_diff_return(&c, 3);
      etr_diff_tolerance_exact(&c);
      failures += etr_diff_run(&c);
    }
  }
  cr_assert_eq(failures, 0, "%d where cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, specialized);
}

// Shapes of one clamp.Tensor case: self, min, max (dim -1 = None, 0 =
// 0-dim tensor of `zero_dim_dtype`).
typedef struct clamp_shapes {
  const char *what;
  int32_t dims[3];
  int64_t sizes[3][4];
} clamp_shapes_t;

static int clamp_case(const clamp_shapes_t *k, etr_scalar_type_t dtype,
                      etr_scalar_type_t zero_dim_dtype,
                      etr_diff_layout_t layout, etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::clamp.Tensor_out", g_seed++, "%s %s", k->what,
                 etr_scalar_type_name(zero_dim_dtype));
  for (int i = 0; i < 3; ++i) {
    if (k->dims[i] < 0) {
      etr_diff_arg(&c, tt_ev_none());
    } else if (k->dims[i] == 0) {
      zero_dim(&c, zero_dim_dtype, i == 1 ? -0.25 : 0.5);
    } else {
      etr_diff_input(&c, dtype, k->dims[i], k->sizes[i], layout, fill);
    }
  }
  c.dtype = dtype;
  return finish(&c, dtype, k->dims[0], k->sizes[0],
                layout == ETR_DIFF_CHANNELS_LAST && k->dims[0] == 4);
}

TT_TEST(diff_elementwise_ternary, clamp_tensor) {
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                              ETR_BFLOAT16};
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  uint64_t specialized = etr_diff_stats()->specialized;
  for (size_t d = 0; d < sizeof(kDtypes) / sizeof(kDtypes[0]); ++d) {
    for (size_t s = 0; s < count; ++s) {
      int64_t n = sizes[s];
      const clamp_shapes_t shapes[] = {
          {"both same", {2, 2, 2}, {{3, n}, {3, n}, {3, n}}},
          {"min only", {2, 2, -1}, {{3, n}, {3, n}, {0}}},
          {"max [n]", {2, -1, 1}, {{3, n}, {0}, {n}}},
          {"0-dim bounds", {2, 0, 0}, {{3, n}, {0}, {0}}},
          {"0-dim min, max [n]", {2, 0, 1}, {{3, n}, {0}, {n}}},
          {"per channel", {4, 4, 4},
           {{2, n, 1, 2}, {1, n, 1, 1}, {1, n, 1, 1}}},
      };
      for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); ++k) {
        for (int layout = 0; layout < 3; ++layout) {
          if (layout == ETR_DIFF_CHANNELS_LAST && shapes[k].dims[0] != 4) {
            continue;
          }
          for (int fill = 0; fill < 2; ++fill) {
            failures += clamp_case(
                &shapes[k], kDtypes[d], fill ? ETR_DOUBLE : kDtypes[d],
                (etr_diff_layout_t)layout,
                fill ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM);
          }
        }
      }
      // In place: out is self.
      etr_diff_case_t c;
      etr_diff_begin(&c, "aten::clamp.Tensor_out", g_seed++,
                     "in place n=%lld", (long long)n);
      etr_diff_input(&c, kDtypes[d], 1, &n, ETR_DIFF_CONTIGUOUS,
                     ETR_FILL_SPECIAL);
      etr_diff_input(&c, kDtypes[d], 1, &n, ETR_DIFF_CONTIGUOUS,
                     ETR_FILL_SPECIAL);
      etr_diff_input(&c, kDtypes[d], 1, &n, ETR_DIFF_CONTIGUOUS,
                     ETR_FILL_SPECIAL);
      etr_diff_out_aliasing(&c, 0);
      etr_diff_return(&c, 3);
      etr_diff_tolerance_exact(&c);
      failures += etr_diff_run(&c);
    }
  }
  cr_assert_eq(failures, 0, "%d clamp.Tensor cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, specialized);
}

// ---------------------------------------------------------------------------
// Dry runs of the unary and three-input kernels: the optimized kernel must
// check, resize out to the reference's shape and return OK without
// touching data (every data pointer is NULL), and must not fall back.

static etr_tensor_t *no_data(etr_scalar_type_t dtype, int32_t dim,
                             const int64_t *sizes) {
  etr_tensor_t *t = tt_tensor(dtype, dim, sizes, NULL);
  t->data = NULL;
  return t;
}

// Runs `op` in a dry run with the reference and the optimized kernel;
// `inputs` are the arguments before the out, given as a builder so each
// variant gets fresh tensors.
static void dry_run(const char *op, size_t num_inputs,
                    etr_evalue_t *(*input)(size_t index)) {
  etr_tensor_t *outs[2];
  etr_error_t status[2];
  for (int variant = 0; variant < 2; ++variant) {
    etr_kernel_fn kernel = NULL;
    const etr_kernel_registration_t *table =
        variant == 0 ? etr_reference_kernels : etr_optimized_kernels;
    size_t count =
        variant == 0 ? etr_reference_kernel_count : etr_optimized_kernel_count;
    for (size_t i = 0; i < count; ++i) {
      if (strcmp(table[i].name, op) == 0) {
        kernel = table[i].fn;
      }
    }
    cr_assert_not_null(kernel, "%s", op);
    etr_evalue_t *args[8];
    for (size_t i = 0; i < num_inputs; ++i) {
      args[i] = input(i);
    }
    outs[variant] = tt_out(ETR_HALF, 1, (const int64_t[]){0}, 64);
    outs[variant]->data = NULL;
    args[num_inputs] = tt_ev_tensor(outs[variant]);
    args[num_inputs + 1] = args[num_inputs];
    etr_diag_t diag;
    etr_diag_reset(&diag);
    etr_kernel_context_t ctx = {.diag = &diag, .op_name = op,
                                .dry_run = true};
    uint64_t fallbacks = etr_opt_fallback_calls;
    status[variant] = kernel(&ctx, args, num_inputs + 2);
    if (variant == 1) {
      cr_expect_eq(etr_opt_fallback_calls, fallbacks, "%s fell back", op);
    }
  }
  cr_expect_eq(status[0], ETR_OK, "%s", op);
  cr_expect_eq(status[1], ETR_OK, "%s", op);
  cr_expect(etr_tensor_same_shape(outs[0], outs[1]), "%s: out shape", op);
}

static etr_evalue_t *half_3x5(void) {
  return tt_ev_tensor(no_data(ETR_HALF, 2, (const int64_t[]){3, 5}));
}
static etr_evalue_t *unary_input(size_t index) {
  return index == 0 ? half_3x5() : tt_ev_string("tanh");
}
static etr_evalue_t *clamp_input(size_t index) {
  return index == 0 ? half_3x5() : tt_ev_double(index == 1 ? -1.0 : 1.0);
}
static etr_evalue_t *pow_input(size_t index) {
  return index == 0 ? half_3x5() : tt_ev_double(0.5);
}
static etr_evalue_t *where_input(size_t index) {
  if (index == 0) {
    return tt_ev_tensor(no_data(ETR_BOOL, 2, (const int64_t[]){3, 1}));
  }
  if (index == 2) {  // a 0-dim Double other, converted when running
    etr_tensor_t *t = tt_scalar_tensor(ETR_DOUBLE, 1.0);
    t->data = NULL;
    return tt_ev_tensor(t);
  }
  return tt_ev_tensor(no_data(ETR_HALF, 1, (const int64_t[]){5}));
}
static etr_evalue_t *clamp_tensor_input(size_t index) {
  return index == 0   ? half_3x5()
         : index == 1 ? tt_ev_none()
                      : tt_ev_tensor(no_data(ETR_HALF, 1,
                                             (const int64_t[]){5}));
}

TT_TEST(diff_elementwise_ternary, dry_run) {
  dry_run("aten::exp.out", 1, unary_input);
  dry_run("aten::gelu.out", 2, unary_input);
  dry_run("aten::clamp.out", 3, clamp_input);
  dry_run("aten::hardtanh.out", 3, clamp_input);
  dry_run("aten::pow.Tensor_Scalar_out", 2, pow_input);
  dry_run("aten::where.self_out", 3, where_input);
  dry_run("aten::clamp.Tensor_out", 3, clamp_tensor_input);
}
