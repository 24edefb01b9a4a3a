// SPDX-License-Identifier: Apache-2.0
//
// Scans and products: the microkernels (fp32 in, double accumulators, one
// table per ISA) and the drivers of the optimized cumsum and prod kernels.
//
// A dense input is seen in memory order as [outer, r, inner] with r the
// scanned or reduced dim (reduce/reduce.h's plan):
//   cumsum   inner > 1: `cumsum_cols` runs down each [r, inner] slab with
//            one double accumulator per column, vectorized across the
//            columns (the reference's sequential sum per column, so the
//            result is bit-exact); inner == 1: a row scan, inherently
//            sequential, four rows interleaved in portable C (same order,
//            bit-exact).
//   prod     inner > 1: `prod_cols`, a double product per column in the
//            reference's order (bit-exact); inner == 1: `prod_rows`, each
//            row's product in several double lanes combined at the end --
//            another order than the reference's, so a product of fp32
//            values may differ from it by the rounding of n - 1 double
//            products (within one float ulp once rounded, unless a partial
//            product overflows or underflows double, which needs more than
//            eight fp32 extremes in a row).
// Long and Int (wrapping integer sums and products, exact in any order)
// run in portable C in the drivers. Tails are masked or scalar: nothing
// past a row or a column block is read or written.
#ifndef ETR_OPS_OPTIMIZED_SCAN_SCAN_H
#define ETR_OPS_OPTIMIZED_SCAN_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/isa.h"

typedef struct etr_scan_kernels {
  // y[j * stride + i] = (float)(x[0 * stride + i] + ... + x[j * stride + i])
  // summed in double, for j < r, i < n (y may be x).
  void (*cumsum_cols)(size_t r, size_t n, size_t stride, const float *x,
                      float *y);
  // y[i] = product of x[j * stride + i] over j < r, in double.
  void (*prod_cols)(size_t r, size_t n, size_t stride, const float *x,
                    double *y);
  // y[o] = product of the n floats of row o (x + o * n), in double.
  void (*prod_rows)(size_t rows, size_t n, const float *x, double *y);
} etr_scan_kernels_t;

extern const etr_scan_kernels_t etr_scan_kernels_scalar;
extern const etr_scan_kernels_t etr_scan_kernels_avx2;
extern const etr_scan_kernels_t etr_scan_kernels_avx512;
extern const etr_scan_kernels_t etr_scan_kernels_neon;

// The table for `isa` (scalar when that ISA is not built in).
const etr_scan_kernels_t *etr_scan_kernels_for(etr_isa_t isa);

// ---------------------------------------------------------------------------
// Drivers: compute an already checked call (the reference's dry run
// validated the arguments and resized the outs); false, with nothing
// written, for a case they do not handle (the caller falls back). self
// and out dense with the same dim order. Half and BFloat16 are staged
// through fp32 in `temp` (ctx->temp; false without room there for one
// outer slab). Their scans sum in float, ATen's accumulation type for
// them and the reference's (bit-exact); their products are rounded to
// their dtype once more: within one ulp of the reference's double
// results rounded once.

// cumsum along `dim` (normalized; 0 for a 0-dim self): Float, Half,
// BFloat16, Long and Int, each into its own dtype.
bool etr_cumsum_run(etr_arena_t *temp, const etr_tensor_t *self, int32_t dim,
                    etr_tensor_t *out);

// The product over the dims in `mask` (prod.out: every dim) into out
// shaped by the reference (keepdim as given): Float, Half, BFloat16 and
// Long, each into its own dtype.
bool etr_prod_run(etr_arena_t *temp, const etr_tensor_t *self, uint32_t mask,
                  bool keepdim, etr_tensor_t *out);

#endif  // ETR_OPS_OPTIMIZED_SCAN_SCAN_H
