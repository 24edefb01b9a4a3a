// SPDX-License-Identifier: Apache-2.0
//
// aten::sort.values: values = self sorted along `dim` (ascending, or
// descending when `descending`), indices = where each value was.
//
// Arguments: (self, dim, descending, values, indices, return slot: a
// TensorList [values, indices]).
//
// Order (support/reduce_sort.h): NaN sorts as the largest value (last
// ascending, first descending) and equal values (0.0 and -0.0 included)
// keep their original order, which is PyTorch's stable=True sort. PyTorch's
// default sort gives the same values but may order the indices of equal
// values differently on slices longer than 16 (std::sort); etref always
// sorts stably. A 0-dim self gives itself and index 0. A bad dim and outs
// too small are InvalidArgument. No scratch: the slice is copied into the
// outs and heap-sorted there.
//
// Dtypes: every real dtype, Bool and uint16/32/64 (compared as unsigned);
// complex is NotSupported ("Sort does not support complex dtypes on CPU").
// values must have self's dtype and indices must be Long
// (InvalidArgument). Any layout in and out.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce_sort.h"
#include "ops_reference/support/shape.h"

// aten::sort.values
etr_error_t etr_ref_sort_values(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = -1;
  bool descending = false;
  etr_tensor_t *values = NULL;
  etr_tensor_t *indices = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "descending", &descending));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "values", &values));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "indices", &indices));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          ETR_DTYPES_REAL_AND_BOOL | ETR_DTYPES_WIDE_UNSIGNED));
  ETR_TRY(etr_check_dtype_equal(ctx, "values", values->dtype, self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "indices", indices->dtype, ETR_LONG));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  ETR_TRY(etr_resize_out_like(ctx, values, self));
  ETR_TRY(etr_resize_out_like(ctx, indices, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  uint32_t mask = self->dim > 0 ? 1u << dim : 0u;
  const etr_tensor_t *operands[3] = {self, values, indices};
  etr_dim_split_t split;
  etr_dim_split_init(&split, mask, operands, 3);
  int64_t value_stride = split.inner_dim > 0 ? split.inner_strides[1][0] : 0;
  int64_t index_stride = split.inner_dim > 0 ? split.inner_strides[2][0] : 0;
  for (int64_t o = 0; o < split.outer_count; ++o) {
    int64_t in_base = etr_dim_split_outer(&split, 0, o);
    etr_sort_slots_t slots = {
        self->dtype,
        descending,
        etr_element_at(values, etr_dim_split_outer(&split, 1, o)),
        value_stride,
        etr_element_at(indices, etr_dim_split_outer(&split, 2, o)),
        index_stride,
    };
    for (int64_t i = 0; i < split.inner_count; ++i) {
      etr_sort_slot_set(
          &slots, i,
          etr_element_at(self, in_base + etr_dim_split_inner(&split, 0, i)),
          i);
    }
    etr_sort_slots(&slots, split.inner_count);
  }
  return ETR_OK;
}
