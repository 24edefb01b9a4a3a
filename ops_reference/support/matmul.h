// SPDX-License-Identifier: Apache-2.0
//
// The one matrix product behind mm, bmm, addmm and linear:
//
//   out[i][j] = beta * bias[i][j] + alpha * sum_k a[i][k] * b[k][j]
//
// on 2-D strided views (so transposed weights, batch slices and broadcast
// biases are views, never copies). Sums accumulate in double for floating
// dtypes (PyTorch accumulates Half/BFloat16 in float; double is at least
// as accurate), in int64 with wrap-around for integers (equal to ATen's
// same-width wrap-around after truncation) and in double pairs for complex.
// With beta == 0 the bias is not read, so NaN in it does not propagate
// (BLAS semantics, as PyTorch documents for addmm).
#ifndef ETR_OPS_REFERENCE_SUPPORT_MATMUL_H
#define ETR_OPS_REFERENCE_SUPPORT_MATMUL_H

#include <stdbool.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// Multiplies an [n, k] view `a` by a [k, m] view `b` into the [n, m] view
// `out`; `bias` is NULL or an [n, m] (broadcast) view. All share one dtype,
// which must be real or complex (the caller checks). alpha and beta are
// truncated to integers for integral dtypes, as ATen converts them.
void etr_matmul(etr_tensor_t *out, const etr_tensor_t *a,
                const etr_tensor_t *b, const etr_tensor_t *bias,
                const etr_scalar_t *alpha, const etr_scalar_t *beta);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_MATMUL_H
