// SPDX-License-Identifier: Apache-2.0
//
// How closely a kernel's floating output must match PyTorch's, per
// tolerance class (stored in each golden case) and dtype.
//
// An element passes when |actual - expected| <= atol + rtol * |expected|
// (torch.testing.assert_close's rule), NaN matches only NaN, and an
// infinity only the same infinity. Complex values compare their real and
// imaginary parts with the tolerance of the real dtype. Integer and bool
// outputs are always compared exactly, whatever the class.
//
// DEFAULT is torch.testing.assert_close's default (_DTYPE_PRECISIONS):
//   Half (1e-3, 1e-5), BFloat16 (1.6e-2, 1e-5), Float (1.3e-6, 1e-5),
//   Double (1e-7, 1e-7).
// The other classes depart from it, each for a reason the generator
// measures (datasets/ops/golden_stats.json, "calibration": how many cases
// of a class miss the default tolerance when PyTorch's own result is
// compared with the float64 result of the same call rounded once):
//   EXACT           ops that only move, select, compare or convert values
//                   (copies, views, cat, gather, sort, max, relu, where,
//                   rounding, dtype conversion): every value must be
//                   identical (NaN matches NaN; -0.0 matches +0.0).
//   TRANSCENDENTAL  exp, log, trig and hyperbolic functions, erf, sigmoid,
//                   gelu, elu, pow, rsqrt: PyTorch evaluates them in the
//                   dtype with SLEEF or vectorized polynomials (1-3.5 ulp,
//                   more near a function's zeros), while a reference
//                   evaluates in double and rounds once. Float rtol 4e-6
//                   (about 32 ulp), Half rtol 2e-3 (2 ulp).
//   ACCUMULATION    reductions, matmul, convolution, norms, pooling,
//                   softmax, resampling: the error grows with the number of
//                   terms and with the summation order, which PyTorch
//                   blocks and vectorizes. Float (1e-5, 1e-5); Half and
//                   BFloat16 sums are rounded to the dtype at PyTorch's
//                   block boundaries: Half (4e-3, 1e-3), BFloat16
//                   (3.2e-2, 1e-2).
//   LOW_PRECISION   cases where PyTorch's own result is outside its class
//                   of the float64 result (it keeps intermediates in Half
//                   or BFloat16, e.g. grid_sampler_2d): Half (1e-2, 1e-2),
//                   BFloat16 (8e-2, 5e-2), Float (1e-4, 1e-4), Double
//                   (1e-6, 1e-6). The generator drops cases outside even
//                   this class and lists them as PyTorch findings.
//   SHAPE_ONLY      random or uninitialized outputs (rand, randn, empty):
//                   only dtype and shape are compared.
//   PERMUTATION     randperm: the values, sorted, must be 0..n-1.
// The table is mirrored in datasets/ops/generate_golden.py (TOLERANCES),
// which calibrates cases against it; change both together.
#ifndef ETR_OPS_REFERENCE_GOLDEN_GOLDEN_TOLERANCE_H
#define ETR_OPS_REFERENCE_GOLDEN_GOLDEN_TOLERANCE_H

#include <stdbool.h>

#include "core/scalar_type.h"
#include "ops_reference/golden/golden_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_golden_tolerance {
  double rtol;
  double atol;
  bool exact;  // values must be identical (rtol and atol are 0)
} etr_golden_tolerance_t;

// The tolerance for an output of `dtype` in a case of class `tolerance`.
// Integral and bool dtypes, and the EXACT class, give exact; complex dtypes
// use their real dtype's entry; SHAPE_ONLY and PERMUTATION are handled by
// the caller and give exact here.
etr_golden_tolerance_t etr_golden_tolerance(
    etr_golden_tolerance_class_t tolerance, etr_scalar_type_t dtype);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_GOLDEN_GOLDEN_TOLERANCE_H
