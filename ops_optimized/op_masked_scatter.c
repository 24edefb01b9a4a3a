// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::masked_scatter.out when self, mask and out share one
// shape (no broadcast) and are contiguous, with a contiguous source: out
// = self by one move (skipped in place), then one pass over the mask
// bytes copying consecutive source elements into the True positions, by
// element size, branch-free (AVX-512, 4- and 8-byte elements: the
// movement table's expand kernel, vpexpandd/q a vector at a time; the
// True count likewise) -- the reference's result bit for bit, without its
// broadcast views and per-element dispatch. A source with fewer elements
// than the mask has True values, broadcasting, other layouts, outs that
// overlap the mask or source, and argument errors go to the reference
// kernel (ops_reference/op_masked_scatter.c), whose dry run checks and
// resizes first.
#include <string.h>

#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// The True positions of m[0..count) take consecutive source elements of
// type T without a branch on the (random) mask: each position blends its
// own value and the next source element with a bit mask (a ?: compiled to
// a branch), the next element read at an index clamped to the source's
// last (nothing past it is read), and the source index moves on by the
// mask bit. A branch and a memcpy call per element took 5 ns an element,
// slower than ExecuTorch's kernel.
#define SCATTER_TRUES(T)                                                   \
  do {                                                                     \
    T *y = (T *)out->data;                                                 \
    const T *s = (const T *)source->data;                                  \
    const int64_t last = etr_numel(source) - 1;                            \
    const int64_t n = count;                                               \
    int64_t j = 0;                                                         \
    for (int64_t i = 0; i < n; ++i) {                                      \
      int64_t keep = m[i] != 0;                                            \
      T next = s[j < last ? j : last];                                     \
      T select = (T)0 - (T)keep; /* all ones where kept */                 \
      y[i] = (T)((next & select) | (y[i] & (T)~select));                   \
      j += keep;                                                           \
    }                                                                      \
  } while (0)

// aten::masked_scatter.out
etr_error_t etr_opt_masked_scatter_out(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *mask = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *source = etr_opt_tensor_arg(args, num_args, 2);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || mask == NULL || source == NULL ||
      !etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_masked_scatter_out, ctx, args, num_args) !=
          ETR_OK) {
    return etr_opt_fallback(etr_ref_masked_scatter_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  bool simple = etr_tensor_same_shape(self, mask) &&
                etr_tensor_same_shape(self, out) &&
                etr_tensor_is_contiguous(self) &&
                etr_tensor_is_contiguous(mask) &&
                etr_tensor_is_contiguous(out) &&
                etr_tensor_is_contiguous(source) &&
                !etr_move_overlaps(out, self) &&
                !etr_move_overlaps(out, mask) && out->data != mask->data &&
                !etr_move_overlaps(out, source) && out->data != source->data;
  int64_t count = etr_numel(self);
  const uint8_t *m = (const uint8_t *)mask->data;
  int64_t trues =
      simple ? (int64_t)etr_move_count_trues(m, (size_t)count) : 0;
  if (!simple || trues > etr_numel(source)) {
    return etr_opt_fallback(etr_ref_masked_scatter_out, ctx, args, num_args);
  }
  size_t element = etr_scalar_type_size(self->dtype);
  if (out->data != self->data && count > 0) {
    memcpy(out->data, self->data, (size_t)count * element);
  }
  if (trues == 0) {
    return ETR_OK;
  }
  etr_move_expand_fn expand = etr_move_expand_for(etr_isa_active(), element);
  if (expand != NULL) {
    expand(out->data, m, source->data, (size_t)count);
    return ETR_OK;
  }
  switch (element) {
    case 1:
      SCATTER_TRUES(uint8_t);
      break;
    case 2:
      SCATTER_TRUES(uint16_t);
      break;
    case 4:
      SCATTER_TRUES(uint32_t);
      break;
    case 8:
      SCATTER_TRUES(uint64_t);
      break;
    default: {
      char *y = (char *)out->data;
      const char *s = (const char *)source->data;
      for (int64_t i = 0; i < count; ++i) {
        if (m[i] != 0) {
          memcpy(y + (size_t)i * element, s, element);
          s += element;
        }
      }
    }
  }
  return ETR_OK;
}
