// SPDX-License-Identifier: Apache-2.0
//
// aten::sort.values: values = self sorted along `dim` (ascending, or
// descending when `descending`), indices = where each value was.
//
// Arguments: (self, dim, descending, values, indices, return slot: a
// TensorList [values, indices]).
//
// Order: NaN sorts as the largest value (last ascending, first
// descending). Equal values (and 0.0 versus -0.0, and NaNs) are left in
// the order PyTorch 2.13's CPU kernel leaves them, reproduced exactly
// (support/reduce_sort.h): libstdc++'s std::sort (introsort) on the
// (value, index) pairs of each slice, except that a self whose stride
// along dim is 0 keeps indices 0..n-1, and that a rank-1 integer self of
// at least 32768 elements sorted ascending is sorted stably (ATen's radix
// sort path; for uint16/32/64 that path is not implemented, so such a
// sort is NotSupported, as in PyTorch). A 0-dim self gives itself and
// index 0. A bad dim and outs too small are InvalidArgument. No scratch:
// each slice is copied into the outs and sorted there.
//
// Dtypes: every real dtype, Bool and uint16/32/64 (compared as unsigned);
// complex is NotSupported ("Sort does not support complex dtypes on CPU").
// values must have self's dtype and indices must be Long
// (InvalidArgument). Any layout in and out.
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce_sort.h"
#include "ops_reference/support/shape.h"

// ATen's threshold for its radix sort (at::internal::GRAIN_SIZE).
#define RADIX_SORT_MIN_NUMEL 32768

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
  bool radix = self->dim == 1 && !descending &&
               etr_scalar_type_is_integral(self->dtype, false) &&
               self->sizes[0] >= RADIX_SORT_MIN_NUMEL;
  ETR_CHECK(ctx->diag,
            !(radix && etr_dtype_in(self->dtype, ETR_DTYPES_WIDE_UNSIGNED)),
            ETR_ERR_NOT_SUPPORTED,
            "%s: \"parallel_sort1d_kernel\" not implemented for '%s' (an "
            "ascending sort of %lld elements)",
            etr_op_name(ctx), etr_scalar_type_name(self->dtype),
            (long long)self->sizes[0]);
  ETR_TRY(etr_resize_out_like(ctx, values, self));
  ETR_TRY(etr_resize_out_like(ctx, indices, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  uint32_t mask = self->dim > 0 ? 1u << dim : 0u;
  const etr_tensor_t *operands[3] = {self, values, indices};
  etr_dim_split_t split;
  etr_dim_split_init(&split, mask, operands, 3);
  bool has_dim = split.inner_dim > 0;
  int64_t count = split.inner_count;
  for (int64_t o = 0; o < split.outer_count; ++o) {
    int64_t in_base = etr_dim_split_outer(&split, 0, o);
    etr_sort_array_t array = {
        .dtype = self->dtype,
        .descending = descending,
        .stored = count,
        .values = etr_element_at(values, etr_dim_split_outer(&split, 1, o)),
        .value_stride = has_dim ? split.inner_strides[1][0] : 0,
        .indices = etr_element_at(indices, etr_dim_split_outer(&split, 2, o)),
        .index_stride = has_dim ? split.inner_strides[2][0] : 0,
    };
    for (int64_t i = 0; i < count; ++i) {
      etr_sort_pair_t pair = {{0}, i};
      memcpy(pair.raw,
             etr_element_at(self, in_base + etr_dim_split_inner(&split, 0, i)),
             etr_scalar_type_size(self->dtype));
      etr_sort_set(&array, i, &pair);
    }
    if (radix) {
      etr_sort_stable(&array, count);
    } else if (!(has_dim && split.inner_strides[0][0] == 0)) {
      etr_sort_std_sort(&array, 0, count);
    }
  }
  return ETR_OK;
}
