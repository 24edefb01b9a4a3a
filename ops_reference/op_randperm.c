// SPDX-License-Identifier: Apache-2.0
//
// aten::randperm.out: out (resized to [n]) = a uniformly random
// permutation of 0..n-1.
//
// out is filled with 0..n-1 (each converted to out's dtype) and shuffled
// in place by Fisher-Yates, as ATen's randperm_cpu does: for i = 0..n-2,
// swap element i with element i + z, z uniform in [0, n - i) drawn from
// the seeded generator of support/reduce_random.h (SplitMix64 on
// ctx->rng_state, or the default seed when it is NULL) by unbiased
// rejection. Every permutation is equally likely; the stream is not
// PyTorch's (mt19937). A dry run resizes out and draws nothing.
//
// Errors: n < 0 or n - 1 not representable in out's dtype (integers: its
// range; Half n > 2049, Float n > 2^24 + 1, Double n > 2^53 + 1: ATen's
// limits of exact integers; BFloat16 has no limit and, as in PyTorch,
// rounds the values), an out too small: InvalidArgument. Dtypes: every
// real dtype (Bool, complex and uint16/32/64 are NotSupported, as
// PyTorch's "randperm" not implemented).
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/reduce_random.h"
#include "ops_reference/support/shape.h"

// The largest n ATen allows for `dtype` (every value below it exact).
static int64_t max_n(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_BYTE:
      return INT64_C(256);
    case ETR_CHAR:
      return INT64_C(128);
    case ETR_SHORT:
      return INT64_C(32768);
    case ETR_INT:
      return INT64_C(2147483648);
    case ETR_HALF:
      return INT64_C(2049);
    case ETR_FLOAT:
      return (INT64_C(1) << 24) + 1;
    case ETR_DOUBLE:
      return (INT64_C(1) << 53) + 1;
    default:  // Long, BFloat16
      return INT64_MAX;
  }
}

// aten::randperm.out
etr_error_t etr_ref_randperm_out(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  int64_t n = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 0, "n", &n));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_REAL));
  ETR_CHECK(ctx->diag, n >= 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: n must be non-negative, got %lld", etr_op_name(ctx),
            (long long)n);
  ETR_CHECK(ctx->diag, n <= max_n(out->dtype), ETR_ERR_INVALID_ARGUMENT,
            "%s: n = %lld is too large for %s", etr_op_name(ctx),
            (long long)n, etr_scalar_type_name(out->dtype));
  ETR_TRY(etr_resize_out(ctx, out, 1, &n));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  int64_t stride = out->strides[0];
  for (int64_t i = 0; i < n; ++i) {
    etr_store_int64(out->dtype, etr_element_at(out, i * stride), i);
  }
  etr_reduce_rng_t rng;
  etr_reduce_rng_init(&rng, ctx);
  size_t size = etr_scalar_type_size(out->dtype);
  for (int64_t i = 0; i + 1 < n; ++i) {
    int64_t j = i + (int64_t)etr_reduce_rng_below(&rng, (uint64_t)(n - i));
    uint8_t held[8];
    void *a = etr_element_at(out, i * stride);
    void *b = etr_element_at(out, j * stride);
    memcpy(held, a, size);
    memcpy(a, b, size);
    memcpy(b, held, size);
  }
  return ETR_OK;
}
