// SPDX-License-Identifier: Apache-2.0
//
// aten::topk.values: the k largest (or, when not `largest`, smallest)
// elements of self along `dim` and their indices.
//
// Arguments: (self, k, dim, largest, sorted, values, indices, return slot:
// a TensorList [values, indices]).
//
// The elements taken are the first k of the stable order of
// support/reduce_sort.h (descending for largest, ascending otherwise): NaN
// counts as the largest value, and among equal values the lower index is
// taken first. PyTorch's topk takes the same values but breaks ties in an
// order set by std::nth_element/partial_sort, so the indices of equal
// values may differ from it. The result is always in that order, whatever
// `sorted` says (PyTorch leaves the order unspecified when sorted=False).
// k must lie in [0, size of dim] (InvalidArgument, "selected index k out
// of range"); a 0-dim self counts as size 1 and gives itself and index 0
// for k 0 or 1, as PyTorch does. Outs have self's shape with dim of size
// k. Bad dims and outs too small are InvalidArgument.
//
// Dtypes: every real dtype; Bool, complex and uint16/32/64 are
// NotSupported ("topk does not support bool dtypes on CPU"). values must
// have self's dtype and indices must be Long (InvalidArgument). Any layout
// in and out. No scratch: a heap of the k best is kept in the outs.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce_sort.h"
#include "ops_reference/support/shape.h"

// aten::topk.values
etr_error_t etr_ref_topk_values(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t k = 0;
  int64_t dim_arg = -1;
  bool largest = true;
  bool sorted = true;
  etr_tensor_t *values = NULL;
  etr_tensor_t *indices = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 8));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "k", &k));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "dim", &dim_arg));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 3, "largest", &largest));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "sorted", &sorted));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 5, "values", &values));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "indices", &indices));
  (void)sorted;  // the result is always sorted (see above)
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL));
  ETR_TRY(etr_check_dtype_equal(ctx, "values", values->dtype, self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "indices", indices->dtype, ETR_LONG));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t size = self->dim > 0 ? self->sizes[dim] : 1;
  ETR_CHECK(ctx->diag, k >= 0 && k <= size, ETR_ERR_INVALID_ARGUMENT,
            "%s: selected index k out of range (k = %lld, dim size %lld)",
            etr_op_name(ctx), (long long)k, (long long)size);
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t d = 0; d < self->dim; ++d) {
    sizes[d] = d == dim ? k : self->sizes[d];
  }
  ETR_TRY(etr_resize_out(ctx, values, self->dim, sizes));
  ETR_TRY(etr_resize_out(ctx, indices, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  if (self->dim == 0) {
    etr_sort_slots_t slots = {self->dtype, largest, values->data, 0,
                              indices->data, 0};
    etr_sort_slot_set(&slots, 0, self->data, 0);
    return ETR_OK;
  }

  // self and the outs share their outer dims; each is split on its own.
  uint32_t mask = 1u << dim;
  const etr_tensor_t *in_operands[1] = {self};
  const etr_tensor_t *out_operands[2] = {values, indices};
  etr_dim_split_t in_split;
  etr_dim_split_t out_split;
  etr_dim_split_init(&in_split, mask, in_operands, 1);
  etr_dim_split_init(&out_split, mask, out_operands, 2);
  for (int64_t o = 0; o < out_split.outer_count && k > 0; ++o) {
    int64_t in_base = etr_dim_split_outer(&in_split, 0, o);
    etr_sort_slots_t slots = {
        self->dtype,
        largest,
        etr_element_at(values, etr_dim_split_outer(&out_split, 0, o)),
        out_split.inner_strides[0][0],
        etr_element_at(indices, etr_dim_split_outer(&out_split, 1, o)),
        out_split.inner_strides[1][0],
    };
    // The first k elements form a heap whose root is the one that comes
    // last in the order; every later element that comes before the root
    // replaces it.
    for (int64_t i = 0; i < size; ++i) {
      const void *element =
          etr_element_at(self, in_base + etr_dim_split_inner(&in_split, 0, i));
      if (i < k) {
        etr_sort_slot_set(&slots, i, element, i);
        if (i == k - 1) {
          for (int64_t slot = k / 2 - 1; slot >= 0; --slot) {
            etr_sort_sift_down(&slots, slot, k);
          }
        }
        continue;
      }
      etr_sort_key_t candidate = etr_sort_load_key(self->dtype, element, i);
      etr_sort_key_t root = etr_sort_slot_key(&slots, 0);
      if (etr_sort_key_before(self->dtype, largest, &candidate, &root)) {
        etr_sort_slot_set(&slots, 0, element, i);
        etr_sort_sift_down(&slots, 0, k);
      }
    }
    etr_sort_slots(&slots, k);
  }
  return ETR_OK;
}
