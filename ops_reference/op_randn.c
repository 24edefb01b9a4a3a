// SPDX-License-Identifier: Apache-2.0
//
// aten::randn.out: out (resized to `size`) = values drawn from the
// standard normal distribution.
//
// Values come from the seeded generator of support/reduce_random.h
// (SplitMix64 on ctx->rng_state, or the default seed when it is NULL):
// elements are filled in row-major logical order from pairs of standard
// normals (the polar method: two draws per attempt), each value rounded
// once to the dtype; elements 2j and 2j + 1 take pair j (an odd count's
// last element takes the first value of a pair of its own). A complex
// element takes one pair, real and imaginary parts each times sqrt(1/2)
// (variance 1/2, so the complex value has variance 1, as PyTorch does).
// PyTorch's own stream is not reproduced: the values are deterministic
// for a seed and normally distributed, not PyTorch's. A dry run resizes
// out and draws nothing.
//
// Errors: a negative or overflowing size, an out too small:
// InvalidArgument. Dtypes: Half, BFloat16, Float, Double and complex
// (others NotSupported, as PyTorch's "normal_kernel_cpu").
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce_random.h"
#include "ops_reference/support/shape.h"

// aten::randn.out
etr_error_t etr_ref_randn_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  const int64_t *size = NULL;
  size_t rank = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 0, "size", &size, &rank));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype,
                          ETR_DTYPES_FLOATING | ETR_DTYPES_COMPLEX));
  ETR_CHECK(ctx->diag, rank <= ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "%s: size has %zu dims, more than %d", etr_op_name(ctx), rank,
            ETR_MAX_DIMS);
  ETR_TRY(etr_resize_out(ctx, out, (int32_t)rank, size));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_reduce_rng_t rng;
  etr_reduce_rng_init(&rng, ctx);
  bool complex = etr_dtype_kind(out->dtype) == ETR_KIND_COMPLEX;
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  double second = 0.0;
  bool second_pending = false;  // a real out's odd element, ready
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    void *target = etr_element_at(out, iter.offsets[0]);
    if (complex) {
      etr_complex_t value;
      etr_reduce_rng_normal_pair(&rng, &value.real, &value.imag);
      value.real *= sqrt(0.5);
      value.imag *= sqrt(0.5);
      etr_store_complex(out->dtype, target, value);
    } else if (second_pending) {
      etr_store_double(out->dtype, target, second);
      second_pending = false;
    } else {
      double first = 0.0;
      etr_reduce_rng_normal_pair(&rng, &first, &second);
      etr_store_double(out->dtype, target, first);
      second_pending = true;
    }
  }
  return ETR_OK;
}
