// SPDX-License-Identifier: Apache-2.0
//
// Picks the FMA peak measurement for this CPU (fma_peak.h).
#include "ops_optimized/tools/fma_peak.h"

#include "ops_optimized/isa.h"

double etr_bench_fma_peak_gflops(void) {
#if defined(__x86_64__)
  if (etr_isa_available(ETR_ISA_AVX512)) {
    return etr_bench_fma_peak_avx512();
  }
  if (etr_isa_available(ETR_ISA_AVX2)) {
    return etr_bench_fma_peak_avx2();
  }
#endif
  return 0.0;
}
