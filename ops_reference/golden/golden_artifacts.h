// SPDX-License-Identifier: Apache-2.0
//
// Golden cases whose expected values are a documented PyTorch artifact
// that etref's reference kernels deliberately do not reproduce, with the
// evidence. The golden vectors (datasets/golden/, written by
// datasets/ops/generate_golden.py) are PyTorch 2.13 eager on the machine
// that generated them, and a few values there depend on that machine
// rather than on the op.
//
// golden_test treats a listed case neither as passed nor as failed: it
// reports it as a "known PyTorch artifact", counts it separately, and
// still checks it strictly. The case must be the one named (same source
// string at that index, so a renumbered file is caught), the kernel must
// return OK, and every output element must match except those the
// artifact's kind explains (for VECTORIZED_FMOD_OVERFLOW: PyTorch's NaN
// where the kernel's value is not NaN and |self / other| overflows the
// dtype). An entry whose case passes outright is stale and fails the test,
// so the list cannot silently outlive the data it describes.
#ifndef ETR_OPS_REFERENCE_GOLDEN_GOLDEN_ARTIFACTS_H
#define ETR_OPS_REFERENCE_GOLDEN_GOLDEN_ARTIFACTS_H

#include <stddef.h>
#include <stdint.h>

typedef enum etr_golden_artifact_kind {
  // PyTorch's CPU fmod (and remainder, built on it) runs contiguous and
  // scalar-broadcast inner loops through Vectorized<T>::fmod, which on
  // x86 AVX2 and AVX-512 builds is Sleef's fmod: it returns NaN whenever
  // |self / other| overflows the dtype (1.0 fmod 4.9e-324, 1e30f fmod
  // 1e-30f). Its scalar loop, ATEN_CPU_CAPABILITY=default and C's fmod
  // return the exact remainder (0 for 1.0 fmod 4.9e-324), which etref
  // keeps. Which elements take the vectorized loop depends on the CPU
  // capability, the layout after TensorIterator's coalescing, the inner
  // length (blocks of 8 doubles or 16 floats, the tail is scalar) and,
  // for 32768 elements or more, the thread count (each thread's chunk
  // has its own scalar tail), so the NaN is not a property of the op.
  // Measured on PyTorch 2.13.0+cpu: ones(n) fmod full(n, 4.9e-324) is NaN
  // at [0, n - n % 8) with AVX2 and AVX-512 (fmod is not built for
  // AVX-512 and falls back to AVX2) and nowhere with default; for
  // n = 40003 the exact elements are {40000..40002} with one thread and
  // {20000, 20001, 40002} with two; a transposed operand gives no NaN.
  ETR_GOLDEN_ARTIFACT_VECTORIZED_FMOD_OVERFLOW = 0,
} etr_golden_artifact_kind_t;

typedef struct etr_golden_artifact {
  const char *kernel;    // "aten::fmod.Tensor_out"
  uint32_t case_index;   // the case's position in the kernel's golden file
  const char *source;    // the case's source string, checked
  etr_golden_artifact_kind_t kind;
  const char *reason;    // one line for the report
} etr_golden_artifact_t;

static const etr_golden_artifact_t kEtrGoldenArtifacts[] = {
    // The float64 specials grid [10, 1] op [1, 10]: row values 1, -1, 2.5
    // and DBL_MAX against the smallest subnormal 4.9e-324 (column 5) give
    // NaN in PyTorch (vectorized: the inner dim of 10 runs columns 0..7
    // through Sleef) and the exact 0, -0, 0, 0 here.
    {"aten::fmod.Tensor_out", 30, "boundary:specials_grid.fmod.torch.float64",
     ETR_GOLDEN_ARTIFACT_VECTORIZED_FMOD_OVERFLOW,
     "PyTorch's vectorized (Sleef, AVX2) fmod gives NaN for x fmod "
     "4.9e-324; its scalar path and etref give the exact 0"},
    {"aten::remainder.Tensor_out", 38,
     "boundary:specials_grid.remainder.torch.float64",
     ETR_GOLDEN_ARTIFACT_VECTORIZED_FMOD_OVERFLOW,
     "remainder is built on the same vectorized fmod: NaN for x remainder "
     "4.9e-324 in PyTorch, the exact 0 in its scalar path and etref"},
};

static const size_t kEtrGoldenArtifactCount =
    sizeof(kEtrGoldenArtifacts) / sizeof(kEtrGoldenArtifacts[0]);

#endif  // ETR_OPS_REFERENCE_GOLDEN_GOLDEN_ARTIFACTS_H
