// SPDX-License-Identifier: Apache-2.0
//
// aten::_pdist_forward.out: out = the p-norm distances between every pair
// of rows i < j of self [N, M], in the order (0,1), (0,2), ..., (0,N-1),
// (1,2), ...: N (N - 1) / 2 values (none for N < 2).
//
// Distances (as ATen's pdist, measured on PyTorch 2.13), with d the
// differences of one pair of rows:
//   p = 0    the number of non-zero d (a NaN d makes it NaN);
//   p = 1    sum |d|;      p = 2    sqrt(sum d^2);
//   p = inf or -inf   max |d|, NaN propagating (unlike cdist);
//   other p  (sum |d|^p)^(1/p), negative p and NaN included (the functional
//            torch.pdist refuses p < 0; _pdist_forward computes it).
// M = 0 gives 0. Computed in double and rounded once to the dtype.
//
// Errors: self not of rank 2, an N whose pair count overflows, an out of
// another dtype or too small: InvalidArgument (ATen's kernel reads any
// rank as [size(0), size(1)] garbage; torch.pdist refuses it). ATen also
// insists on a contiguous self; the reference reads through strides and
// accepts any layout. Dtypes: Float and Double (others NotSupported, as
// PyTorch's "pdist" not implemented).
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/shape.h"

// Distance between rows i and j of self.
static double pair_distance(const etr_tensor_t *self, int64_t i, int64_t j,
                            double p) {
  int64_t columns = self->sizes[1];
  double total = 0.0;
  for (int64_t c = 0; c < columns; ++c) {
    int64_t column = c * self->strides[1];
    double d = etr_load_double(self->dtype,
                               etr_element_at(self, i * self->strides[0] +
                                                        column)) -
               etr_load_double(self->dtype,
                               etr_element_at(self, j * self->strides[0] +
                                                        column));
    double magnitude = fabs(d);
    if (p == 0.0) {
      total += isnan(d) ? NAN : (d != 0.0 ? 1.0 : 0.0);
    } else if (p == 1.0) {
      total += magnitude;
    } else if (p == 2.0) {
      total += d * d;
    } else if (isinf(p)) {
      total = (isnan(magnitude) || magnitude > total) ? magnitude : total;
      if (isnan(total)) {
        break;  // NaN propagates
      }
    } else {
      total += pow(magnitude, p);
    }
  }
  if (p == 0.0 || p == 1.0 || isinf(p)) {
    return total;
  }
  return p == 2.0 ? sqrt(total) : pow(total, 1.0 / p);
}

// aten::_pdist_forward.out
etr_error_t etr_ref_pdist_forward_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  double p = 2.0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 1, "p", &p));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  const etr_dtype_set_t kFloat = ETR_DTYPE_BIT(ETR_FLOAT) |
                                 ETR_DTYPE_BIT(ETR_DOUBLE);
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, kFloat));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_rank(ctx, "self", self, 2));
  int64_t rows = self->sizes[0];
  int64_t pairs = 0;
  ETR_CHECK(ctx->diag,
            rows < 2 || etr_checked_mul(rows, rows - 1, &pairs),
            ETR_ERR_INVALID_ARGUMENT, "%s: %lld rows have too many pairs",
            etr_op_name(ctx), (long long)rows);
  pairs /= 2;
  ETR_TRY(etr_resize_out(ctx, out, 1, &pairs));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  int64_t k = 0;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = i + 1; j < rows; ++j, ++k) {
      etr_store_double(out->dtype, etr_element_at(out, k * out->strides[0]),
                       pair_distance(self, i, j, p));
    }
  }
  return ETR_OK;
}
