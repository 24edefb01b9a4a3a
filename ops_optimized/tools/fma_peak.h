// SPDX-License-Identifier: Apache-2.0
//
// The fp32 FMA throughput of one core, for the benchmarks' "% of peak":
// 24 independent chains of fused multiply-adds (enough to cover the FMA
// latency on two ports), timed in thread CPU time.
#ifndef ETR_OPS_OPTIMIZED_TOOLS_FMA_PEAK_H
#define ETR_OPS_OPTIMIZED_TOOLS_FMA_PEAK_H

// GFLOP/s of the widest FMA this CPU has (AVX-512, else AVX2; 0 when
// neither).
double etr_bench_fma_peak_gflops(void);

double etr_bench_fma_peak_avx512(void);
double etr_bench_fma_peak_avx2(void);

#endif  // ETR_OPS_OPTIMIZED_TOOLS_FMA_PEAK_H
