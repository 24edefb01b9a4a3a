// SPDX-License-Identifier: Apache-2.0
//
// The optimized convolution's plan memo (op_convolution.c: a vouched call,
// ctx->args_checked, reuses the path and geometry its first call left in
// ctx->memo): on each path (depthwise, direct, pointwise, GEMM) the second,
// vouched call computes the reference's bits again; a weight that became
// non-finite between calls still sends padded depthwise/direct calls to
// the GEMM (the weight scan is a data check, made on every call); a memo
// left by another call is ignored unless the call is vouched for; a plan
// made for another ISA is made again (the AVX-512 direct kernel has no
// AVX2 twin); a weight the executor says is read-only constant data
// (ctx->constant_args) is scanned once, on its first call, and a NaN in
// it still sends the padded calls to the GEMM. Data: small integers, so
// every order of summation is exact.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/test/test_util.h"

typedef struct conv_shape {
  int64_t c, h, oc, k, stride, pad, groups;
  const char *path;  // the path it takes on AVX-512, for messages
} conv_shape_t;

static const conv_shape_t kShapes[] = {
    {8, 6, 8, 3, 1, 1, 8, "depthwise"},
    {3, 20, 16, 3, 2, 1, 1, "direct"},
    {12, 4, 20, 1, 1, 0, 1, "pointwise"},
    {6, 7, 10, 3, 1, 1, 1, "GEMM"},
};

typedef struct conv_call {
  etr_tensor_t *weight;
  etr_tensor_t *out;
  etr_evalue_t *args[11];
} conv_call_t;

static etr_tensor_t *integers(int32_t dim, const int64_t *sizes, int seed) {
  etr_tensor_t *t = tt_tensor(ETR_FLOAT, dim, sizes, NULL);
  float *data = (float *)t->data;
  for (int64_t i = 0; i < etr_tensor_numel(t); ++i) {
    data[i] = (float)((i * 7 + seed * 3) % 9 - 4);
  }
  return t;
}

// The arguments of `s`, with an out of its own.
static void make_call(const conv_shape_t *s, conv_call_t *call) {
  int64_t oh = (s->h + 2 * s->pad - s->k) / s->stride + 1;
  etr_tensor_t *x = integers(4, (const int64_t[]){1, s->c, s->h, s->h}, 1);
  call->weight = integers(
      4, (const int64_t[]){s->oc, s->c / s->groups, s->k, s->k}, 2);
  etr_tensor_t *bias = integers(1, (const int64_t[]){s->oc}, 3);
  call->out = tt_out(ETR_FLOAT, 4, (const int64_t[]){1, s->oc, oh, oh}, 0);
  etr_evalue_t *args[11] = {
      tt_ev_tensor(x),
      tt_ev_tensor(call->weight),
      tt_ev_tensor(bias),
      TT_EV_INTS(s->stride, s->stride),
      TT_EV_INTS(s->pad, s->pad),
      TT_EV_INTS(1, 1),
      tt_ev_bool(false),
      TT_EV_INTS(0, 0),
      tt_ev_int(s->groups),
      tt_ev_tensor(call->out),
      NULL};
  args[10] = args[9];
  memcpy(call->args, args, sizeof(args));
}

// The reference's result for the call's current data, into a copy.
static etr_tensor_t *reference(conv_call_t *call) {
  etr_tensor_t *out = tt_out(ETR_FLOAT, call->out->dim, call->out->sizes,
                             0);
  etr_evalue_t *args[11];
  memcpy(args, call->args, sizeof(args));
  args[9] = args[10] = tt_ev_tensor(out);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag};
  cr_assert_eq(etr_ref_convolution_out(&ctx, args, 11), ETR_OK, "%s",
               diag.message);
  return out;
}

// Runs the optimized kernel with `memo`, vouched or not, over an out
// filled with NaN first, and compares with the reference bit for bit
// (NaN where it has NaN).
static void check_constant(const conv_shape_t *s, conv_call_t *call,
                           void *memo, bool vouched, uint64_t constant_args,
                           const char *what);

static void check(const conv_shape_t *s, conv_call_t *call, void *memo,
                  bool vouched, const char *what) {
  check_constant(s, call, memo, vouched, 0, what);
}

// Runs the optimized kernel on the call with `memo`, vouched or not,
// telling it which arguments are read-only constants.
static void run_optimized(const conv_shape_t *s, conv_call_t *call,
                          void *memo, bool vouched, uint64_t constant_args) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag,
                              .args_checked = vouched,
                              .memo = memo,
                              .constant_args = constant_args};
  cr_assert_eq(etr_opt_convolution_out(&ctx, call->args, 11), ETR_OK,
               "%s: %s", s->path, diag.message);
}

// A vouched call; whether out element 0 (channel 0's top-left corner) is
// NaN.
static bool corner_is_nan(const conv_shape_t *s, conv_call_t *call,
                          void *memo, uint64_t constant_args) {
  run_optimized(s, call, memo, true, constant_args);
  return isnan(((const float *)call->out->data)[0]);
}

static void check_constant(const conv_shape_t *s, conv_call_t *call,
                           void *memo, bool vouched, uint64_t constant_args,
                           const char *what) {
  etr_tensor_t *expected = reference(call);
  float *got = (float *)call->out->data;
  int64_t n = etr_tensor_numel(call->out);
  for (int64_t i = 0; i < n; ++i) {
    got[i] = NAN;
  }
  run_optimized(s, call, memo, vouched, constant_args);
  const float *want = (const float *)expected->data;
  for (int64_t i = 0; i < n; ++i) {
    bool same = isnan(want[i]) ? isnan(got[i])
                               : memcmp(&got[i], &want[i], 4) == 0;
    cr_assert(same, "%s path, %s: element %lld is %g, the reference's %g",
              s->path, what, (long long)i, got[i], want[i]);
  }
}

static bool all_zero(const unsigned char *bytes, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (bytes[i] != 0) {
      return false;
    }
  }
  return true;
}

TT_TEST(diff_conv_memo, vouched_calls_compute_the_same) {
  for (size_t k = 0; k < sizeof(kShapes) / sizeof(kShapes[0]); ++k) {
    _Alignas(16) unsigned char memo[ETR_KERNEL_MEMO_BYTES] = {0};
    conv_call_t call;
    make_call(&kShapes[k], &call);
    check(&kShapes[k], &call, memo, false, "first call");
    cr_expect(!all_zero(memo, sizeof(memo)), "%s: no plan kept",
              kShapes[k].path);
    check(&kShapes[k], &call, memo, true, "vouched call");
    // Only the data changed: a NaN weight, which padded depthwise and
    // direct calls must not skip over in the padding.
    ((float *)call.weight->data)[0] = NAN;
    check(&kShapes[k], &call, memo, true, "NaN weight");
  }
}

TT_TEST(diff_conv_memo, another_calls_memo_is_ignored_unless_vouched) {
  _Alignas(16) unsigned char memo[ETR_KERNEL_MEMO_BYTES] = {0};
  conv_call_t first;
  make_call(&kShapes[3], &first);
  check(&kShapes[3], &first, memo, false, "the memo's call");
  for (size_t k = 0; k < 3; ++k) {
    conv_call_t call;
    make_call(&kShapes[k], &call);
    check(&kShapes[k], &call, memo, false, "another call's memo");
  }
}

TT_TEST(diff_conv_memo, a_plan_for_another_isa_is_made_again) {
  if (!etr_isa_available(ETR_ISA_AVX512) ||
      !etr_isa_available(ETR_ISA_AVX2)) {
    return;  // an x86 machine's case (aarch64 has NEON alone)
  }
  for (size_t k = 0; k < sizeof(kShapes) / sizeof(kShapes[0]); ++k) {
    _Alignas(16) unsigned char memo[ETR_KERNEL_MEMO_BYTES] = {0};
    conv_call_t call;
    make_call(&kShapes[k], &call);
    etr_isa_force(ETR_ISA_AVX512);
    check(&kShapes[k], &call, memo, false, "AVX-512 first call");
    etr_isa_force(ETR_ISA_AVX2);
    check(&kShapes[k], &call, memo, true, "AVX2 vouched call");
    etr_isa_reset();
  }
}

// The weight (argument 1) and bias (2) marked read-only constants.
static const uint64_t kConstantWeight = 0x6;

TT_TEST(diff_conv_memo, a_constant_weight_is_scanned_once) {
  for (size_t k = 0; k < 2; ++k) {  // the padded paths: depthwise, direct
    const conv_shape_t *s = &kShapes[k];
    // The depthwise case runs the portable kernel, which skips padding
    // taps on every machine (the AVX2 one reads a zero-padded copy, so a
    // NaN weight would show in the corner whether scanned or not).
    if (k == 0) {
      etr_isa_force(ETR_ISA_SCALAR);
    }
    _Alignas(16) unsigned char memo[ETR_KERNEL_MEMO_BYTES] = {0};
    conv_call_t call;
    make_call(s, &call);
    check_constant(s, &call, memo, false, kConstantWeight, "first call");
    check_constant(s, &call, memo, true, kConstantWeight, "vouched call");
    // The executor never changes a constant's bytes; changing them here
    // shows the vouched call kept its scan. Weight element 0 is channel
    // 0's top-left tap, which for out element 0 falls on the padding: the
    // reference gives 0 x NaN = NaN there, the path that skips padding
    // taps a number.
    // (The direct kernel reads its padding as zeros at that corner, so
    // only the depthwise one shows it.)
    float *w = (float *)call.weight->data;
    w[0] = NAN;
    if (k == 0) {
      cr_expect(!corner_is_nan(s, &call, memo, kConstantWeight),
                "%s: the constant weight was scanned again", s->path);
      cr_expect(corner_is_nan(s, &call, memo, 0),
                "%s: a weight that is not constant was not scanned",
                s->path);
    }
    // Without the constant bit the scan is made on every call.
    check_constant(s, &call, memo, true, 0, "NaN weight, not constant");
    // A constant weight with a NaN from its first call on.
    _Alignas(16) unsigned char fresh[ETR_KERNEL_MEMO_BYTES] = {0};
    check_constant(s, &call, fresh, false, kConstantWeight,
                   "NaN constant weight, first call");
    check_constant(s, &call, fresh, true, kConstantWeight,
                   "NaN constant weight, vouched call");
    etr_isa_reset();
  }
}
