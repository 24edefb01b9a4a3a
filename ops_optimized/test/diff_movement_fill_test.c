// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the movement family's writing ops against the
// reference kernels, on every ISA of this machine: constant_pad_nd
// (padding, cropping, both, crops to nothing), repeat, slice_scatter and
// select_scatter (in place and not), full / full_like / fill.Scalar_out
// (Int, Double and Bool values into every dtype, values that overflow),
// the empty family (zero-filled outs), and split_with_sizes_copy, whose
// Tensor[] out argument the harness cannot build: it is compared here
// directly, on the same terms (fresh
// poisoned outs per ISA, bit-exact, both succeed or both fail, coverage
// records). Results must match bit for bit.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/movement_test_util.h"
#include "ops_reference/ops_reference.h"

static uint64_t g_seed = 100000;

TT_TEST(diff_movement_fill, constant_pad_nd) {
  static const int64_t kSelf[4] = {2, 3, 4, 5};
  static const struct {
    size_t count;
    int64_t pad[6];
    bool ok;
  } kPads[] = {
      {2, {1, 2}, true},          {4, {1, 1, 2, 0}, true},
      {6, {0, 0, 0, 0, 1, 1}, true}, {2, {-1, 2}, true},
      {4, {2, -1, -1, 1}, true},  {2, {0, 0}, true},
      {2, {-1, -1}, true},        {4, {0, 0, -2, -2}, true},
      {2, {-3, -3}, false},       {3, {1, 1, 1}, false},
  };
  etr_evalue_t *values[4] = {tt_ev_int(0), tt_ev_double(1.5), tt_ev_int(-7),
                             tt_ev_double(NAN)};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 3; ++layout) {
      for (size_t p = 0; p < sizeof(kPads) / sizeof(kPads[0]); ++p) {
        size_t v = (p + t) % 4;
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::constant_pad_nd.out", g_seed++,
                       "%s pad %zu value %zu", etr_scalar_type_name(dtype), p,
                       v);
        etr_diff_input(&c, dtype, 4, kSelf, (etr_diff_layout_t)layout,
                       ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int_list(kPads[p].count, kPads[p].pad));
        etr_diff_arg(&c, values[v]);
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     1024);
        etr_diff_return(&c, 3);
        // NaN or 1.5 into an integral dtype is refused by the reference.
        bool integral = !etr_scalar_type_is_floating(dtype) &&
                        !etr_scalar_type_is_complex(dtype) &&
                        dtype != ETR_BOOL;
        bool refused = integral && v == 3 && p != 5 && p != 6 && p != 7;
        failures += mt_run(&c, kPads[p].ok && !refused);
      }
    }
  }
  // A value the dtype cannot hold: refused.
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::constant_pad_nd.out", g_seed++, "300 into Byte");
  etr_diff_input(&c, ETR_BYTE, 2, (const int64_t[]){2, 2},
                 ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
  etr_diff_arg(&c, TT_EV_INTS(1, 1));
  etr_diff_arg(&c, tt_ev_int(300));
  etr_diff_out(&c, ETR_BYTE, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               16);
  etr_diff_return(&c, 3);
  failures += mt_run(&c, false);
  mt_summary("constant_pad_nd");
  cr_assert_eq(failures, 0, "%d constant_pad_nd cases disagree", failures);
}

TT_TEST(diff_movement_fill, repeat) {
  static const struct {
    int32_t dim;
    int64_t sizes[2];
    size_t count;
    int64_t repeats[4];
    bool ok;
  } kRepeats[] = {
      {2, {2, 3}, 2, {2, 1}, true},     {2, {2, 3}, 2, {1, 3}, true},
      {2, {2, 3}, 2, {2, 2}, true},     {2, {2, 3}, 3, {3, 2, 1}, true},
      {2, {2, 3}, 2, {1, 1}, true},     {2, {2, 3}, 2, {0, 2}, true},
      {2, {2, 1}, 4, {2, 3, 4, 5}, true}, {1, {3}, 2, {4, 2}, true},
      {0, {0}, 1, {3}, true},           {2, {2, 3}, 1, {2}, false},
      {2, {17, 1}, 2, {1, 33}, true},
  };
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 2; ++layout) {
      for (size_t r = 0; r < sizeof(kRepeats) / sizeof(kRepeats[0]); ++r) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::repeat.out", g_seed++, "%s repeat %zu",
                       etr_scalar_type_name(dtype), r);
        etr_diff_input(&c, dtype, kRepeats[r].dim, kRepeats[r].sizes,
                       (etr_diff_layout_t)layout, ETR_FILL_SPECIAL);
        etr_diff_arg(&c, tt_ev_int_list(kRepeats[r].count,
                                        kRepeats[r].repeats));
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     2048);
        etr_diff_return(&c, 2);
        failures += mt_run(&c, kRepeats[r].ok);
      }
    }
  }
  mt_summary("repeat");
  cr_assert_eq(failures, 0, "%d repeat cases disagree", failures);
}

TT_TEST(diff_movement_fill, scatters) {
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 3; ++layout) {
      for (int inplace = 0; inplace < 2; ++inplace) {
        // slice_scatter: dim 0 [1:4], dim 1 [0:8:2], dim -1 [5:], a src of
        // the wrong shape.
        static const struct {
          int64_t dim, start, end, step;
          int64_t src[2];
          bool ok;
        } kSlices[] = {{0, 1, 4, 1, {3, 8}, true},
                       {1, 0, 8, 2, {6, 4}, true},
                       {-1, 5, 100, 1, {6, 3}, true},
                       {0, 1, 4, 1, {2, 8}, false}};
        for (size_t s = 0; s < 4; ++s) {
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::slice_scatter.out", g_seed++,
                         "%s slice %zu%s", etr_scalar_type_name(dtype), s,
                         inplace ? " in place" : "");
          etr_diff_input(&c, dtype, 2, (const int64_t[]){6, 8},
                         ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
          etr_diff_input(&c, dtype, 2, kSlices[s].src,
                         (etr_diff_layout_t)layout, ETR_FILL_SPECIAL);
          etr_diff_arg(&c, tt_ev_int(kSlices[s].dim));
          etr_diff_arg(&c, tt_ev_int(kSlices[s].start));
          etr_diff_arg(&c, tt_ev_int(kSlices[s].end));
          etr_diff_arg(&c, tt_ev_int(kSlices[s].step));
          if (inplace) {
            etr_diff_out_aliasing(&c, 0);
          } else {
            etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                         ETR_DIFF_CONTIGUOUS, 64);
          }
          etr_diff_return(&c, 6);
          failures += mt_run(&c, kSlices[s].ok);
        }
        // select_scatter on [4, 5, 6] (channels-last makes no sense at
        // rank 3; the src's layout varies).
        static const struct {
          int64_t dim, index;
          int64_t src[2];
        } kSelects[] = {{1, 2, {4, 6}}, {2, -1, {4, 5}}, {0, 3, {5, 6}}};
        for (size_t s = 0; s < 3; ++s) {
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::select_scatter.out", g_seed++,
                         "%s select %zu%s", etr_scalar_type_name(dtype), s,
                         inplace ? " in place" : "");
          etr_diff_input(&c, dtype, 3, (const int64_t[]){4, 5, 6},
                         ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
          etr_diff_input(&c, dtype, 2, kSelects[s].src,
                         (etr_diff_layout_t)layout, ETR_FILL_SPECIAL);
          etr_diff_arg(&c, tt_ev_int(kSelects[s].dim));
          etr_diff_arg(&c, tt_ev_int(kSelects[s].index));
          if (inplace) {
            etr_diff_out_aliasing(&c, 0);
          } else {
            etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                         ETR_DIFF_CONTIGUOUS, 128);
          }
          etr_diff_return(&c, 4);
          failures += mt_run(&c, true);
        }
      }
    }
  }
  mt_summary("scatter");
  cr_assert_eq(failures, 0, "%d scatter cases disagree", failures);
}

TT_TEST(diff_movement_fill, full_and_fill) {
  etr_evalue_t *values[] = {tt_ev_int(7),      tt_ev_double(2.5),
                            tt_ev_bool(true),  tt_ev_double(-0.0),
                            tt_ev_double(NAN), tt_ev_int(-1),
                            tt_ev_int(300),    tt_ev_double(1e40)};
  static const struct {
    int32_t dim;
    int64_t sizes[4];
  } kShapes[] = {{2, {3, 4}}, {1, {17}}, {0, {0}}, {2, {2, 0}},
                 {4, {2, 3, 4, 5}}, {1, {1}}};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); ++v) {
      for (size_t s = 0; s < sizeof(kShapes) / sizeof(kShapes[0]); ++s) {
        etr_diff_case_t c;
        etr_diff_begin(&c, "aten::full.out", g_seed++, "%s value %zu shape %zu",
                       etr_scalar_type_name(dtype), v, s);
        etr_diff_arg(&c, tt_ev_int_list((size_t)kShapes[s].dim,
                                        kShapes[s].sizes));
        etr_diff_arg(&c, values[v]);
        etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                     256);
        etr_diff_return(&c, 2);
        mt_key(&c, dtype, ETR_DIFF_CONTIGUOUS);
        failures += mt_run(&c, false);  // some values overflow: both refuse
        // The dense fast path takes outs already of `size` (row-major):
        // the exact shape, channels-last (general), another shape
        // (general, resized).
        for (int exact = 0; exact < 3; ++exact) {
          bool nhwc = exact == 1 && kShapes[s].dim == 4;
          if (exact == 1 && !nhwc) {
            continue;
          }
          etr_diff_begin(&c, "aten::full.out", g_seed++,
                         "%s value %zu shape %zu, %s out",
                         etr_scalar_type_name(dtype), v, s,
                         exact == 0 ? "exact" : nhwc ? "nhwc" : "other");
          etr_diff_arg(&c, tt_ev_int_list((size_t)kShapes[s].dim,
                                          kShapes[s].sizes));
          etr_diff_arg(&c, values[v]);
          if (exact == 2) {
            etr_diff_out(&c, dtype, 1, (const int64_t[]){3},
                         ETR_DIFF_CONTIGUOUS, 256);
          } else {
            etr_diff_out(&c, dtype, kShapes[s].dim, kShapes[s].sizes,
                         nhwc ? ETR_DIFF_CHANNELS_LAST : ETR_DIFF_CONTIGUOUS,
                         0);
          }
          etr_diff_return(&c, 2);
          mt_key(&c, dtype, ETR_DIFF_CONTIGUOUS);
          failures += mt_run(&c, false);
        }
        for (int layout = 0; layout < 3; ++layout) {
          bool nhwc = layout == ETR_DIFF_CHANNELS_LAST && kShapes[s].dim == 4;
          for (int op = 0; op < 2; ++op) {
            etr_diff_begin(&c, op ? "aten::full_like.out"
                                  : "aten::fill.Scalar_out",
                           g_seed++, "%s value %zu shape %zu%s",
                           etr_scalar_type_name(dtype), v, s,
                           nhwc ? " nhwc out" : "");
            etr_diff_input(&c, dtype, kShapes[s].dim, kShapes[s].sizes,
                           (etr_diff_layout_t)layout, ETR_FILL_RANDOM);
            etr_diff_arg(&c, values[v]);
            if (op) {
              etr_diff_arg(&c, tt_ev_none());
            }
            size_t out_index = c.num_args;
            if (nhwc) {
              etr_diff_out(&c, dtype, 4, kShapes[s].sizes,
                           ETR_DIFF_CHANNELS_LAST, 0);
            } else {
              etr_diff_out(&c, dtype, 1, (const int64_t[]){0},
                           ETR_DIFF_CONTIGUOUS, 256);
            }
            etr_diff_return(&c, out_index);
            failures += mt_run(&c, false);
          }
        }
      }
    }
  }
  mt_summary("full/fill");
  // Most of those cases are fast: at least 3 in 4 runs specialized.
  cr_assert_gt(etr_diff_stats()->specialized * 4, etr_diff_stats()->runs * 3,
               "full/fill fell back too often");
  cr_assert_eq(failures, 0, "%d full/fill cases disagree", failures);
}

// Completes an empty-family case begun by the caller: its out (`out_kind`
// 0: [0], resized by the kernel; 1: preshaped contiguous; 2: preshaped
// channels-last), return slot and coverage key, then runs it; `ok`: the
// call must succeed and specialize.
static int run_empty(etr_diff_case_t *c, etr_scalar_type_t dtype,
                     int32_t dim, const int64_t *sizes, int out_kind,
                     bool ok) {
  etr_diff_layout_t layout =
      out_kind == 2 ? ETR_DIFF_CHANNELS_LAST : ETR_DIFF_CONTIGUOUS;
  if (out_kind == 0) {
    etr_diff_out(c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 1024);
  } else {
    etr_diff_out(c, dtype, dim, sizes, layout, 0);
  }
  etr_diff_return(c, 2);
  mt_key(c, dtype, layout);
  return mt_run(c, ok);
}

// The empty family zero-fills its out (the reference's choice, for
// deterministic runs): every dtype, outs resized from [0] and preshaped
// (contiguous and channels-last), the memory formats, strides and dim
// orders each op takes, and those it refuses. Every accepted call must
// specialize (one fill after the reference's dry run).
TT_TEST(diff_movement_fill, empty_family) {
  static const struct {
    int32_t dim;
    int64_t sizes[4];
  } kShapes[] = {{2, {3, 4}}, {1, {17}}, {0, {0}}, {2, {2, 0}},
                 {4, {2, 3, 4, 5}}, {4, {1, 16, 7, 9}}};
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (size_t s = 0; s < sizeof(kShapes) / sizeof(kShapes[0]); ++s) {
      int32_t dim = kShapes[s].dim;
      const int64_t *sizes = kShapes[s].sizes;
      bool rank4 = dim == 4;
      for (int out_kind = 0; out_kind < 3; ++out_kind) {
        bool nhwc = out_kind == 2;
        if (nhwc && !rank4) {
          continue;
        }
        // empty.out: memory_format None, contiguous (0), channels-last (2:
        // rank 4 only), preserve (1: refused).
        static const int64_t kFormats[] = {-1, 0, 2, 1};
        for (size_t f = 0; f < 4; ++f) {
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::empty.out", g_seed++,
                         "%s shape %zu out %d format %lld",
                         etr_scalar_type_name(dtype), s, out_kind,
                         (long long)kFormats[f]);
          etr_diff_arg(&c, tt_ev_int_list((size_t)dim, sizes));
          etr_diff_arg(&c, kFormats[f] < 0 ? tt_ev_none()
                                           : tt_ev_int(kFormats[f]));
          bool ok = kFormats[f] != 1 && (kFormats[f] != 2 || rank4);
          failures += run_empty(&c, dtype, dim, sizes, out_kind, ok);
        }
        // empty_strided.out: contiguous strides, transposed ones (out keeps
        // its own layout), a length mismatch and a negative stride.
        for (int strides = 0; strides < 4; ++strides) {
          int64_t stride[5] = {0};  // (one more for the length mismatch)
          size_t count = (size_t)dim;
          int64_t step = 1;
          for (int32_t d = dim - 1; d >= 0; --d) {
            stride[strides == 1 ? dim - 1 - d : d] = step;
            step *= sizes[d] > 0 ? sizes[d] : 1;
          }
          if (strides == 2) {
            count = (size_t)dim + 1;  // one stride too many
          }
          if (strides == 3 && dim > 0) {
            stride[0] = -1;
          }
          etr_diff_case_t c;
          etr_diff_begin(&c, "aten::empty_strided.out", g_seed++,
                         "%s shape %zu out %d strides %d",
                         etr_scalar_type_name(dtype), s, out_kind, strides);
          etr_diff_arg(&c, tt_ev_int_list((size_t)dim, sizes));
          etr_diff_arg(&c, tt_ev_int_list(count, stride));
          failures += run_empty(&c, dtype, dim, sizes, out_kind,
                                strides < 2 || (strides == 3 && dim == 0));
        }
        // _empty_dim_order.out (preshaped outs): None, the out's own
        // order, the other one.
        for (int order = 0; order < 3 && out_kind > 0; ++order) {
          uint8_t dim_order[4] = {0, 1, 2, 3};
          bool other = order == 2;
          if (nhwc != other && rank4) {
            memcpy(dim_order, kChannelsLast, sizeof(dim_order));
          }
          int64_t as_ints[4];
          for (int32_t d = 0; d < dim; ++d) {
            as_ints[d] = dim_order[d];
          }
          etr_diff_case_t c;
          etr_diff_begin(&c, "dim_order_ops::_empty_dim_order.out", g_seed++,
                         "%s shape %zu out %d order %d",
                         etr_scalar_type_name(dtype), s, out_kind, order);
          etr_diff_arg(&c, tt_ev_int_list((size_t)dim, sizes));
          etr_diff_arg(&c, order == 0 ? tt_ev_none()
                                      : tt_ev_int_list((size_t)dim, as_ints));
          // None needs a contiguous out; an order must be the out's own.
          bool ok = order == 0 ? !nhwc : !(other && rank4);
          failures += run_empty(&c, dtype, dim, sizes, out_kind, ok);
        }
      }
    }
  }
  mt_summary("empty family");
  cr_assert_eq(failures, 0, "%d empty-family cases disagree", failures);
}

// ---------------------------------------------------------------------------
// split_with_sizes_copy: Tensor[] outs, compared directly.

static void record_coverage(const char *op, etr_scalar_type_t dtype,
                            etr_diff_layout_t layout, etr_isa_t isa,
                            bool specialized) {
  static const char *const kLayouts[] = {"contiguous", "noncontiguous",
                                         "channels_last"};
  const char *path = getenv("ETREF_DIFF_COVERAGE");
  FILE *file = path != NULL ? fopen(path, "a") : NULL;
  if (file != NULL) {
    fprintf(file, "%s,%s,%s,%s,%d\n", op, etr_scalar_type_name(dtype),
            kLayouts[layout], etr_isa_name(isa), specialized ? 1 : 0);
    fclose(file);
  }
}

// Runs `kernel` on self split along dim into pieces of `sizes`, with fresh
// poisoned outs; returns its status and the outs. `preshaped` outs already
// have their piece's shape (the dense fast path takes only those); others
// are [0] with room to grow. `twice`: a call that passes is made again as
// an executor repeats an instruction with fixed arguments (the same memo,
// ctx->args_checked set) on outs poisoned again, and that call's status
// and outs are returned.
static etr_error_t run_split(etr_kernel_fn kernel, etr_tensor_t *self,
                             size_t count, const int64_t *sizes, int64_t dim,
                             bool preshaped, bool twice,
                             etr_tensor_t **outs) {
  int32_t along = (int32_t)(dim < 0 ? dim + self->dim : dim);
  for (size_t i = 0; i < count; ++i) {
    int64_t piece[ETR_MAX_DIMS];
    memcpy(piece, self->sizes, sizeof(piece));
    piece[along] = sizes[i] < 0 ? 0 : sizes[i];  // (an invalid split)
    outs[i] = preshaped ? tt_out(self->dtype, self->dim, piece, 0)
                        : tt_out(self->dtype, 1, (const int64_t[]){0}, 256);
    if (outs[i]->data != NULL) {
      memset(outs[i]->data, 0x5a, outs[i]->capacity_bytes);
    }
  }
  etr_evalue_t *list = tt_ev_tensor_list(count, outs);
  etr_evalue_t *args[5] = {tt_ev_tensor(self), tt_ev_int_list(count, sizes),
                           tt_ev_int(dim), list, list};
  etr_diag_t diag;
  etr_diag_reset(&diag);
  _Alignas(16) unsigned char memo[ETR_KERNEL_MEMO_BYTES] = {0};
  etr_kernel_context_t ctx = {.diag = &diag, .op_name = "split",
                              .memo = memo};
  etr_error_t status = kernel(&ctx, args, 5);
  if (status != ETR_OK || !twice) {
    return status;
  }
  for (size_t i = 0; i < count; ++i) {
    if (outs[i]->data != NULL) {
      memset(outs[i]->data, 0x5a, outs[i]->capacity_bytes);
    }
  }
  ctx.args_checked = true;
  return kernel(&ctx, args, 5);
}

TT_TEST(diff_movement_fill, split_with_sizes_copy) {
  static const struct {
    int64_t dim;
    size_t count;
    int64_t sizes[3];
    bool ok;
  } kSplits[] = {{0, 3, {1, 2, 3}, true}, {1, 3, {2, 0, 3}, true},
                 {-1, 1, {4}, true},      {2, 2, {1, 3}, true},
                 {0, 2, {1, 2}, false},   {1, 3, {1, 1, 3}, true},
                 {2, 3, {1, 1, 2}, true}, {0, 2, {4, 3}, false},
                 {1, 2, {-1, 6}, false}};
  const int64_t shape[3] = {6, 5, 4};
  const char *op = "aten::split_with_sizes_copy.out";
  int failures = 0;
  for (size_t t = 0; t < MOVEMENT_NUM_DTYPES; ++t) {
    etr_scalar_type_t dtype = kMovementDtypes[t];
    for (int layout = 0; layout < 4; ++layout) {
      bool preshaped = layout >= 2;  // layouts 2, 3: 0, 1 with exact outs
      for (size_t s = 0; s < sizeof(kSplits) / sizeof(kSplits[0]); ++s) {
        etr_diff_case_t scratch;
        etr_diff_begin(&scratch, op, g_seed++, "input");
        etr_tensor_t *self = etr_diff_input(&scratch, dtype, 3, shape,
                                            (etr_diff_layout_t)(layout % 2),
                                            ETR_FILL_SPECIAL);
        etr_tensor_t *expected[3];
        etr_error_t expected_status =
            run_split(etr_ref_split_with_sizes_copy_out, self,
                      kSplits[s].count, kSplits[s].sizes, kSplits[s].dim,
                      preshaped, false, expected);
        cr_assert_eq(expected_status == ETR_OK, kSplits[s].ok);
        for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
          if (!etr_isa_available((etr_isa_t)isa)) {
            continue;
          }
          etr_isa_force((etr_isa_t)isa);
          uint64_t fallbacks = etr_opt_fallback_calls;
          etr_tensor_t *actual[3];
          etr_error_t status =
              run_split(etr_opt_split_with_sizes_copy_out, self,
                        kSplits[s].count, kSplits[s].sizes, kSplits[s].dim,
                        preshaped, true, actual);
          bool specialized = etr_opt_fallback_calls == fallbacks;
          record_coverage(op, dtype, (etr_diff_layout_t)(layout % 2),
                          (etr_isa_t)isa, specialized);
          etr_isa_reset();
          bool ok = status == expected_status &&
                    specialized == kSplits[s].ok;
          for (size_t i = 0; ok && status == ETR_OK && i < kSplits[s].count;
               ++i) {
            ok = etr_tensor_same_shape(expected[i], actual[i]) &&
                 memcmp(expected[i]->data, actual[i]->data,
                        etr_tensor_nbytes(actual[i])) == 0;
          }
          if (!ok) {
            fprintf(stderr, "DIFF FAIL %s %s split %zu layout %d ISA %s\n", op,
                    etr_scalar_type_name(dtype), s, layout,
                    etr_isa_name((etr_isa_t)isa));
            ++failures;
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d split_with_sizes_copy cases disagree",
               failures);
}
