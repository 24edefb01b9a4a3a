// SPDX-License-Identifier: Apache-2.0
//
// aten::nonzero.out: out = the indices of the non-zero elements of self,
// one row per element in row-major order, one column per dim: [n, rank]
// (a 0-dim self gives [1, 0] or [0, 0]). NaN is non-zero, -0.0 is zero,
// a complex value is non-zero when either part is.
//
// The number of rows depends on the data, so out is resized after
// counting; an out whose capacity cannot hold [n, rank] fails with
// InvalidArgument (the program planned too little). A dry run cannot
// count: it resizes out to the largest possible result [numel, rank] when
// the capacity holds it, else to [0, rank], and succeeds; so a dry run's
// shape is an upper bound (or empty), not the real call's shape.
//
// Dtypes: every real dtype, Bool and complex (uint16/32/64 are
// NotSupported, as PyTorch's "nonzero_count_cpu"); out must be Long
// (InvalidArgument). Any layout in and out.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::nonzero.out
etr_error_t etr_ref_nonzero_out(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, ETR_LONG));
  int64_t sizes[2] = {etr_numel(self), self->dim};
  if (ctx->dry_run) {
    size_t bytes = 0;
    bool fits = etr_checked_nbytes(ETR_LONG, sizes, 2, &bytes, NULL) ==
                    ETR_OK &&
                bytes <= out->capacity_bytes;
    sizes[0] = fits ? sizes[0] : 0;
    return etr_resize_out(ctx, out, 2, sizes);
  }

  const etr_tensor_t *operands[1] = {self};
  etr_strided_iter_t iter;
  int64_t count = 0;
  etr_strided_iter_init(&iter, self->dim, self->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    count += etr_load_bool(self->dtype, etr_element_at(self, iter.offsets[0]))
                 ? 1
                 : 0;
  }
  sizes[0] = count;
  ETR_TRY(etr_resize_out(ctx, out, 2, sizes));
  int64_t row = 0;
  etr_strided_iter_init(&iter, self->dim, self->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    if (!etr_load_bool(self->dtype, etr_element_at(self, iter.offsets[0]))) {
      continue;
    }
    for (int32_t d = 0; d < self->dim; ++d) {
      etr_store_int64(ETR_LONG,
                      etr_element_at(out, row * out->strides[0] +
                                              d * out->strides[1]),
                      iter.index[d]);
    }
    ++row;
  }
  return ETR_OK;
}
