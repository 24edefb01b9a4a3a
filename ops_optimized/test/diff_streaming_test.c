// SPDX-License-Identifier: Apache-2.0
//
// The streaming-store loops (common/stream.h) of the fp32 microkernels that
// have them: relu, and add/sub/mul/div/maximum/minimum in their vector-
// vector, vector-scalar and scalar-vector forms, on every ISA of this
// machine, against the portable kernels bit for bit (the same IEEE
// operation per element); every op of the unary table, against the
// same ISA's ordinary loop (two calls under the threshold) bit for bit,
// as its polynomials may round differently from the portable ones; and
// add.out of a broadcast row through the op, whose runs stream because
// the whole call does (params->stream), against the reference kernel; the
// norm table's scale_stream and normalize_affine_stream against scale and
// normalize_affine of the same ISA bit for bit, and softmax, log_softmax
// and layer_norm rows through the ops (their drivers prefetch rows and
// stream outs past the threshold) against the reference kernels.
// The threshold is forced to kStreamBytes (etr_isa_force_stream_bytes),
// so both loops run on small arrays whatever this machine's cache: outs
// of the first streamed size + 37 floats (the streaming branch, plus a
// tail) start at every float offset within a 64-byte line, so the head
// before the first aligned vector runs with 0 to 15 lanes; one float
// before and after the out holds a canary that must survive. One call
// just under the threshold takes the ordinary loop. Inputs mix NaN,
// infinities, -0.0 and negative values.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/binary/binary.h"
#include "ops_optimized/common/stream.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/test/diff.h"
#include "ops_optimized/unary/unary.h"

enum { kLead = 16, kExtra = 37 };

static const size_t kStreamBytes = (size_t)256 << 10;

// The first out size that streams with `inputs` arrays beside it.
static size_t first_streamed(size_t inputs) {
  const size_t per = sizeof(float) * (inputs + 1);
  return (kStreamBytes + per - 1) / per;
}

static const float kCanary = -1234.5f;

// Deterministic inputs: fractions of both signs with specials mixed in.
static void fill(float *p, size_t n, uint32_t seed) {
  uint32_t state = seed;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    switch ((state >> 24) % 61) {
      case 0:
        p[i] = NAN;
        break;
      case 1:
        p[i] = INFINITY;
        break;
      case 2:
        p[i] = -INFINITY;
        break;
      case 3:
        p[i] = -0.0f;
        break;
      default:
        p[i] = (float)((int32_t)(state >> 8) % 20001 - 10000) / 64.0f;
    }
  }
}

static bool same(float a, float b) {
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

// Compares got[0..n) with want, and the canaries around got.
static int check(const float *got, const float *want, size_t n,
                 const char *what, etr_isa_t isa, size_t offset) {
  int bad = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!same(got[i], want[i]) && bad++ < 3) {
      cr_log_error("%s isa %s offset %zu n %zu at %zu: %a vs %a", what,
                   etr_isa_name(isa), offset, n, i, (double)got[i],
                   (double)want[i]);
    }
  }
  if (got[-1] != kCanary || got[n] != kCanary) {
    cr_log_error("%s isa %s offset %zu n %zu: canary overwritten", what,
                 etr_isa_name(isa), offset, n);
    ++bad;
  }
  return bad;
}

typedef struct buffers {
  float *a, *b, *want, *got;  // got has kLead floats before the out
  size_t n;
} buffers_t;

// n floats and a spare line, 64-byte aligned (aligned_alloc wants a size
// that is a multiple of the alignment).
static float *lines(size_t n) {
  return aligned_alloc(64, (n * sizeof(float) + 127) / 64 * 64);
}

static buffers_t make_buffers(size_t n) {
  buffers_t t = {.a = lines(n),
                 .b = lines(n),
                 .want = lines(n),
                 .got = lines(n + kLead),
                 .n = n};
  cr_assert(t.a != NULL && t.b != NULL && t.want != NULL && t.got != NULL);
  fill(t.a, n, 17u);
  fill(t.b, n, 91u);
  return t;
}

static void free_buffers(buffers_t *t) {
  free(t->a);
  free(t->b);
  free(t->want);
  free(t->got);
}

// The out at `offset` floats past a 64-byte boundary, canaries around it.
static float *out_at(buffers_t *t, size_t offset, size_t n) {
  float *y = t->got + kLead + offset;
  y[-1] = kCanary;
  y[n] = kCanary;
  return y;
}

// Streamed (first) and not (second) with `inputs` arrays beside the out.
static size_t test_size(size_t inputs, bool streamed) {
  return streamed ? first_streamed(inputs) + kExtra
                  : first_streamed(inputs) - 1;
}

TT_TEST(diff_streaming, relu) {
  etr_isa_force_stream_bytes(kStreamBytes);
  cr_assert(etr_stream_out(first_streamed(1), 1));
  cr_assert(!etr_stream_out(first_streamed(1) - 1, 1));
  buffers_t t = make_buffers(test_size(1, true));
  int bad = 0;
  int runs = 0;
  for (size_t s = 0; s < 2; ++s) {
    size_t n = test_size(1, s == 0);
    etr_f32_relu_for(ETR_ISA_SCALAR)(n, t.a, t.want);
    for (int isa = 1; isa < ETR_NUM_ISAS; ++isa) {
      if (!etr_isa_available((etr_isa_t)isa)) {
        continue;
      }
      for (size_t offset = 0; offset < 16; offset += 1 + 14 * s) {
        float *y = out_at(&t, offset, n);
        etr_f32_relu_for((etr_isa_t)isa)(n, t.a, y);
        bad += check(y, t.want, n, "relu", (etr_isa_t)isa, offset);
        ++runs;
      }
    }
  }
  free_buffers(&t);
  etr_isa_force_stream_bytes(0);
  cr_assert_eq(bad, 0, "%d relu mismatches", bad);
  cr_log_info("%d relu runs", runs);
}

TT_TEST(diff_streaming, binary) {
  static const etr_binary_op_t ops[] = {
      ETR_BINARY_ADD, ETR_BINARY_SUB,     ETR_BINARY_MUL,
      ETR_BINARY_DIV, ETR_BINARY_MAXIMUM, ETR_BINARY_MINIMUM};
  static const char *names[] = {"add", "sub", "mul", "div", "maximum",
                                "minimum"};
  etr_isa_force_stream_bytes(kStreamBytes);
  buffers_t t = make_buffers(test_size(1, true));
  const etr_binary_params_t params = {.alpha = 0.0};
  const etr_f32_binary_kernels_t *ref = etr_f32_binary_for(ETR_ISA_SCALAR);
  int bad = 0;
  int runs = 0;
  for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); ++o) {
    for (int form = 0; form < 3; ++form) {  // vv, vs, sv
      // vv reads two arrays beside the out, vs and sv one.
      size_t n = test_size(form == 0 ? 2 : 1, (o + (size_t)form) % 5 != 4);
      const float scalar = t.b[7];
      if (form == 0) {
        ref->vv[ops[o]](n, t.a, t.b, t.want, &params);
      } else if (form == 1) {
        ref->vs[ops[o]](n, t.a, scalar, t.want, &params);
      } else {
        ref->sv[ops[o]](n, scalar, t.b, t.want, &params);
      }
      for (int isa = 1; isa < ETR_NUM_ISAS; ++isa) {
        if (!etr_isa_available((etr_isa_t)isa)) {
          continue;
        }
        const etr_f32_binary_kernels_t *k =
            etr_f32_binary_for((etr_isa_t)isa);
        // Offsets 0..15 spread over the ops and forms.
        size_t offset = (o * 3 + (size_t)form) * 5 % 16;
        float *y = out_at(&t, offset, n);
        if (form == 0) {
          k->vv[ops[o]](n, t.a, t.b, y, &params);
        } else if (form == 1) {
          k->vs[ops[o]](n, t.a, scalar, y, &params);
        } else {
          k->sv[ops[o]](n, scalar, t.b, y, &params);
        }
        bad += check(y, t.want, n, names[o], (etr_isa_t)isa, offset);
        ++runs;
      }
    }
  }
  free_buffers(&t);
  etr_isa_force_stream_bytes(0);
  cr_assert_eq(bad, 0, "%d binary mismatches", bad);
  cr_assert_gt(runs, 0);
}

// In place (y == a), as add_ and the runtime's in-place outs do.
TT_TEST(diff_streaming, in_place) {
  etr_isa_force_stream_bytes(kStreamBytes);
  buffers_t t = make_buffers(test_size(2, true));
  size_t n = t.n;
  const etr_binary_params_t params = {.alpha = 0.0};
  etr_f32_binary_for(ETR_ISA_SCALAR)->vv[ETR_BINARY_ADD](n, t.a, t.b, t.want,
                                                         &params);
  int bad = 0;
  for (int isa = 1; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    float *y = out_at(&t, 3, n);
    memcpy(y, t.a, n * sizeof(float));
    etr_f32_binary_for((etr_isa_t)isa)->vv[ETR_BINARY_ADD](n, y, t.b, y,
                                                           &params);
    bad += check(y, t.want, n, "add in place", (etr_isa_t)isa, 3);
  }
  free_buffers(&t);
  etr_isa_force_stream_bytes(0);
  cr_assert_eq(bad, 0, "%d in-place mismatches", bad);
}

// Every op of the unary table (clamp as hardtanh uses it), each on every
// ISA with its out at an offset of its own.
TT_TEST(diff_streaming, unary_table) {
  etr_isa_force_stream_bytes(kStreamBytes);
  buffers_t t = make_buffers(test_size(1, true));
  size_t n = t.n;
  const etr_unary_params_t params = {.low = -1.0f,
                                     .high = 6.0f,
                                     .slope = 0.01f,
                                     .negcoef = 1.0f,
                                     .poscoef = 1.0f,
                                     .input_scale = 1.0f,
                                     .log_base = 0.6931471805599453,
                                     .exponent = 1.5};
  int bad = 0;
  int runs = 0;
  for (int op = 0; op < ETR_UNARY_NUM_OPS; ++op) {
    for (int isa = 1; isa < ETR_NUM_ISAS; ++isa) {
      if (!etr_isa_available((etr_isa_t)isa)) {
        continue;
      }
      etr_f32_unary_op_fn k =
          etr_f32_unary_op_for((etr_unary_op_t)op, (etr_isa_t)isa);
      // The ordinary loop: the out in two calls, each under the threshold.
      size_t first = test_size(1, false);
      k(first, t.a, t.want, &params);
      k(n - first, t.a + first, t.want + first, &params);
      size_t offset = ((size_t)op * 7 + (size_t)isa) % 16;
      float *y = out_at(&t, offset, n);
      k(n, t.a, y, &params);
      char what[32];
      snprintf(what, sizeof what, "unary op %d", op);
      bad += check(y, t.want, n, what, (etr_isa_t)isa, offset);
      ++runs;
    }
  }
  free_buffers(&t);
  etr_isa_force_stream_bytes(0);
  cr_assert_eq(bad, 0, "%d unary mismatches", bad);
  cr_log_info("%d unary runs", runs);
}

// add.out of a [rows, columns] tensor and a broadcast [columns] row
// through the op (binary/elementwise.c's rows kernel): rows of 1024 and
// 256 floats, whose runs stream because the call's arrays reach the
// threshold, rows of 257 (each row starting at another float of a line:
// heads of 0 to 15 lanes), rows of 255 (too short a run: the ordinary
// loop), and a call under the threshold; then sub.out and div.out of the
// row by the tensor (the row first) and mul.out of [160, 16, 16] by
// [160, 1, 1] (one value a row, splatted), each against the reference
// kernel bit for bit.
TT_TEST(diff_streaming, broadcast_rows) {
  etr_isa_force_stream_bytes(kStreamBytes);
  static const int64_t kShapes[][2] = {
      {64, 1024}, {160, 256}, {131, 257}, {161, 255}, {15, 1024}};
  int failures = 0;
  for (size_t s = 0; s < sizeof(kShapes) / sizeof(kShapes[0]); ++s) {
    const int64_t *sizes = kShapes[s];
    etr_diff_case_t c;
    etr_diff_begin(&c, "aten::add.out", 70000 + s, "[%lld, %lld] + row",
                   (long long)sizes[0], (long long)sizes[1]);
    etr_diff_input(&c, ETR_FLOAT, 2, sizes, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    etr_diff_input(&c, ETR_FLOAT, 1, sizes + 1, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    etr_diff_arg(&c, tt_ev_int(1));
    etr_diff_out(&c, ETR_FLOAT, 2, sizes, ETR_DIFF_CONTIGUOUS, 0);
    etr_diff_return(&c, 3);
    etr_diff_tolerance_exact(&c);
    failures += etr_diff_run(&c);
  }
  for (int division = 0; division < 2; ++division) {
    static const int64_t kRows[2] = {131, 257};
    etr_diff_case_t c;
    etr_diff_begin(&c, division ? "aten::div.out" : "aten::sub.out",
                   70100 + division, "row %s [131, 257]",
                   division ? "/" : "-");
    etr_diff_input(&c, ETR_FLOAT, 1, kRows + 1, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    etr_diff_input(&c, ETR_FLOAT, 2, kRows, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    if (!division) {
      etr_diff_arg(&c, tt_ev_int(1));
    }
    etr_diff_out(&c, ETR_FLOAT, 2, kRows, ETR_DIFF_CONTIGUOUS, 0);
    etr_diff_return(&c, division ? 2 : 3);
    etr_diff_tolerance_exact(&c);
    failures += etr_diff_run(&c);
  }
  {
    static const int64_t kPlanes[3] = {160, 16, 16};
    static const int64_t kScales[3] = {160, 1, 1};
    etr_diff_case_t c;
    etr_diff_begin(&c, "aten::mul.out", 70102,
                   "[160, 16, 16] * [160, 1, 1]");
    etr_diff_input(&c, ETR_FLOAT, 3, kPlanes, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    etr_diff_input(&c, ETR_FLOAT, 3, kScales, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    etr_diff_out(&c, ETR_FLOAT, 3, kPlanes, ETR_DIFF_CONTIGUOUS, 0);
    etr_diff_return(&c, 2);
    etr_diff_tolerance_exact(&c);
    failures += etr_diff_run(&c);
  }
  etr_isa_force_stream_bytes(0);
  cr_assert_eq(failures, 0, "%d broadcast mismatches", failures);
}

// The detected threshold is half a last-level cache of at least 1 MiB,
// or the 64 MiB fallback: a sane size either way.
TT_TEST(diff_streaming, detected_threshold) {
  size_t bytes = etr_isa_stream_bytes();
  cr_log_info("streaming from %zu KiB of arrays", bytes >> 10);
  cr_assert_geq(bytes, (size_t)512 << 10);
  cr_assert_leq(bytes, (size_t)1 << 30);
}

// scale_stream and normalize_affine_stream (with and without w and b) on
// every ISA that has them, rows of 0 to 40 floats and 1001 at every float
// offset within a line (the head before the first aligned vector: 0 to 15
// lanes, or the whole row), against the same ISA's scale and
// normalize_affine bit for bit, canaries around the out.
TT_TEST(diff_streaming, norm_kernels) {
  enum { kMax = 1001 };
  buffers_t t = make_buffers(kMax);
  float *w = lines(kMax);
  float *b = lines(kMax);
  cr_assert(w != NULL && b != NULL);
  fill(w, kMax, 5u);
  fill(b, kMax, 6u);
  int bad = 0;
  int runs = 0;
  for (int isa = 1; isa < ETR_NUM_ISAS; ++isa) {
    const etr_norm_kernels_t *k = etr_norm_kernels_for((etr_isa_t)isa);
    if (!etr_isa_available((etr_isa_t)isa) || k->scale_stream == NULL) {
      continue;
    }
    cr_assert_not_null(k->normalize_affine_stream);
    for (size_t n = 0; n <= kMax; n = n < 40 ? n + 1 : kMax + (n == kMax)) {
      for (size_t offset = 0; offset < 16; ++offset) {
        for (int form = 0; form < 3; ++form) {
          float *y = out_at(&t, offset, n);
          if (form == 0) {
            memcpy(t.want, t.a, n * sizeof(float));
            k->scale(n, t.want, 0.3f);
            k->scale_stream(n, t.a, 0.3f, y);
          } else {
            const float *wf = form == 1 ? w : NULL;
            const float *bf = form == 1 ? b : NULL;
            k->normalize_affine(n, t.a, 1.25f, 0x1p-30f, 0.7f, wf, bf,
                                t.want);
            k->normalize_affine_stream(n, t.a, 1.25f, 0x1p-30f, 0.7f, wf, bf,
                                       y);
          }
          etr_stream_fence();
          char what[48];
          snprintf(what, sizeof what, "norm %s",
                   form == 0 ? "scale" : form == 1 ? "affine" : "normalize");
          bad += check(y, t.want, n, what, (etr_isa_t)isa, offset);
          ++runs;
        }
      }
    }
  }
  free(w);
  free(b);
  free_buffers(&t);
  cr_assert_eq(bad, 0, "%d norm kernel mismatches", bad);
  // The x86 ISAs have them (NEON and scalar have no streaming stores).
  bool x86 = etr_isa_available(ETR_ISA_AVX2) ||
             etr_isa_available(ETR_ISA_AVX512);
  cr_assert(runs > 0 || !x86,
            "an x86 ISA without the norm table's streaming kernels");
}

// Softmax, log-softmax and layer norm through the ops with the threshold
// forced to 4 KiB, so their rows prefetch and (softmax, layer norm) go
// out with streaming stores: rows of 1001 (each starting at another float
// of a line), 768, 5, and 5000 (longer than the rows the drivers
// prefetch), out of place and in place, against the reference kernels
// with diff_norm_test's bounds.
TT_TEST(diff_streaming, norm_ops) {
  etr_isa_force_stream_bytes(4096);
  static const int64_t kShapes[][2] = {{37, 1001}, {9, 768}, {300, 5},
                                       {3, 5000}};
  const double u = 0x1p-24;
  int failures = 0;
  uint64_t seed = 71000;
  for (size_t s = 0; s < sizeof(kShapes) / sizeof(kShapes[0]); ++s) {
    const int64_t *sizes = kShapes[s];
    double n = (double)sizes[1];
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (int log = 0; log < 2; ++log) {
        etr_diff_case_t c;
        etr_diff_begin(&c,
                       log ? "aten::_log_softmax.out" : "aten::_softmax.out",
                       seed++, "[%lld, %lld]%s", (long long)sizes[0],
                       (long long)sizes[1], in_place ? " in place" : "");
        etr_diff_input(&c, ETR_FLOAT, 2, sizes, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_RANDOM);
        etr_diff_arg(&c, tt_ev_int(1));
        etr_diff_arg(&c, tt_ev_bool(false));
        if (in_place) {
          etr_diff_out_aliasing(&c, 0);
        } else {
          etr_diff_out(&c, ETR_FLOAT, 2, sizes, ETR_DIFF_CONTIGUOUS, 0);
        }
        etr_diff_return(&c, 3);
        if (log) {
          etr_diff_tolerance_bound(&c, (16 + n / 32 + 2 * log1p(n)) * u,
                                   2 * u);
        } else {
          etr_diff_tolerance_bound(&c, 2 * u / n, (16 + n / 32) * u);
        }
        failures += etr_diff_run(&c);
      }
      for (int affine = 0; affine < 2; ++affine) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::native_layer_norm.out", seed++,
                       "[%lld, %lld]%s%s", (long long)sizes[0],
                       (long long)sizes[1], affine ? " affine" : "",
                       in_place ? " in place" : "");
        etr_diff_input(&c, ETR_FLOAT, 2, sizes, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_RANDOM);
        etr_diff_arg(&c, tt_ev_int_list(1, sizes + 1));
        for (int p = 0; p < 2; ++p) {
          if (affine) {
            etr_diff_input(&c, ETR_FLOAT, 1, sizes + 1, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_RANDOM);
          } else {
            etr_diff_arg(&c, tt_ev_none());
          }
        }
        etr_diff_arg(&c, tt_ev_double(1e-5));
        if (in_place) {
          etr_diff_out_aliasing(&c, 0);
        } else {
          etr_diff_out(&c, ETR_FLOAT, 2, sizes, ETR_DIFF_CONTIGUOUS, 0);
        }
        for (int stat = 0; stat < 2; ++stat) {  // mean, rstd: resized
          etr_diff_out(&c, ETR_FLOAT, 1, (const int64_t[]){0},
                       ETR_DIFF_CONTIGUOUS, sizes[0] + 8);
        }
        size_t outs[3] = {5, 6, 7};
        etr_diff_out_list(&c, 3, outs);
        etr_diff_tolerance_bound(&c, 64 * u, 4 * u);
        failures += etr_diff_run(&c);
      }
    }
  }
  etr_isa_force_stream_bytes(0);
  cr_assert_eq(failures, 0, "%d streamed norm rows disagree", failures);
}
