// SPDX-License-Identifier: Apache-2.0
//
// The machine a profile ran on, and the limits its roofline uses.
//
// The roof figures default to the project's own measurements of its
// machines (../shared/ENVIRONMENT.md: Xeon Cascade Lake class at 2.5 GHz,
// one core: fp32 FMA about 147 GFLOP/s with AVX-512 and 84 with AVX2, a
// DRAM triad about 12 GB/s and an L2-resident triad about 88 GB/s, L2 1 MiB
// per core). Reports state them as such. The CPU actually present is read
// from /proc/cpuinfo and reported beside them; when it is not the machine
// those figures describe, `note` says so. etr_machine_measure replaces the
// two bandwidths with triads measured here (plain C, one core).
//
// Attainable performance for an op follows the roofline model:
// min(peak, arithmetic intensity x bandwidth), where the bandwidth is the
// L2 one when the op's bytes fit in L2 and the DRAM one otherwise. An op
// with no arithmetic (data movement) is placed against the bandwidth
// alone.
#ifndef ETR_PROF_MACHINE_H
#define ETR_PROF_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_machine {
  char cpu[128];            // /proc/cpuinfo "model name"
  char isa[64];             // "AVX-512F, AVX2, FMA" as detected
  uint32_t cpus;            // online CPUs
  double peak_gflops;       // compute roof
  double dram_gbs;          // bandwidth roofs
  double l2_gbs;
  uint64_t l2_bytes;
  char source[192];         // where the roofs come from
  char note[256];           // a caveat, or ""
} etr_machine_t;

// The CPU present, with ENVIRONMENT.md's roof figures.
void etr_machine_detect(etr_machine_t *machine);

// Measures the DRAM and L2 triad bandwidths on this machine (about a
// second) and uses them; the compute roof stays ENVIRONMENT.md's. Returns
// false (leaving the figures) when the buffers cannot be allocated.
bool etr_machine_measure(etr_machine_t *machine);

// Attainable GFLOP/s for `flops` over `bytes` (roofline), or, when flops is
// 0, the attainable GB/s. *memory_bound says which roof binds.
double etr_machine_attainable(const etr_machine_t *machine, double flops,
                              double bytes, bool *memory_bound);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_MACHINE_H
