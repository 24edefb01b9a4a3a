// SPDX-License-Identifier: Apache-2.0
//
// What one core's AVX-512 pipes do side by side: for each instruction a
// kernel spends beside its FMAs (loads, broadcasts, stores, shuffles), its
// throughput alone and the cycles it adds to a block of 16 independent
// 512-bit FMAs, which is what it costs a compute-bound kernel:
//
//   bazel run -c opt //ops_optimized/tools:port_probe [-- --rounds N]
//
// Each probe is a loop of exact instructions (inline assembly in
// port_probe_avx512.c: a compiler would hoist or drop them) run 20 M
// times, the median of --rounds (default 5) in wall time; cycles come
// from the clock measured on a chain of dependent integer additions (one
// a cycle on every x86 core). Loads and stores touch one new line each,
// cycling through 16 KiB (L1). Read the columns as "what 8 (16) of these
// cost a kernel that issues 16 FMAs": "/op" is the cycles each adds.
//
// AMD Zen 4 (EPYC, KVM, 2026-12-04, --rounds 9, two runs): 16 FMAs in
// 15.6-16.0 cycles. Loads and broadcasts: 8 beside them free, 16 add
// 0.5-0.9 cycles each. Stores add 1.7-1.9 cycles each at 512 bits, 0.8-0.9
// at 256 (a lane-masked 512-bit one as a whole one): they do not overlap
// the FMAs. In-lane shuffles (vshufps, vunpcklps; and, 2026-12-05,
// vpermilps with an immediate and a vshufps splat of one register) are
// free even 16 to 16; cross-lane ones (vpermps, valignd, vshuff32x4)
// free 8 to 16, 0.3 each at 16; vpermt2ps 0.8-0.95 each at either
// count. So on Zen 4 a kernel bound by its FMAs has room for about one
// load or cross-lane shuffle per two FMAs, and each store costs about two
// FMAs.
//
// 2026-12-05, --rounds 9: loads alone run at about one per 1.65 cycles
// (8 in 13.3), beside the FMAs too (16 FMAs and 16 loads in 26.5
// cycles: the loads' own pace), so a kernel bound by its loads is
// bound at that rate whatever its FMAs. A lane-masked load with every
// lane set costs what a plain one does (13.4, 26.5); one across two
// cache lines about 2.1 cycles (8 alone in 16.9, 16 beside the FMAs in
// 32.6).
//
// The same guest, 2026-12-05, one run: the arithmetic beside the FMAs of
// the table-driven transcendental kernels (unary/vmath.h). Free even 16
// to 16: vaddps, vminps, vpandd, vpslld, vrndscaleps, vcvtps2dq,
// vgetexpps, vblendmps and vmovaps between registers (renamed away, so
// vpermt2ps's copy of its table costs nothing beyond the permute's 1.0).
// vpternlogd 0.3-0.4 each; vscalefps free 8 to 16, 1.0 each at 16;
// vrcp14ps 1.0 each; vdivps 4-5 each (48 cycles for 8 alone). So a
// vf_table_poly vector costs about one cycle per row (a lookup) and one
// per multiply-add, and work moved to additions, comparisons, selects and
// integer steps is nearly free there.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/isa.h"
#include "ops_optimized/tools/port_probe.h"

int main(int argc, char **argv) {
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: port_probe [--rounds N]\n");
      return 1;
    }
  }
  if (rounds < 1 || rounds > 64) {
    fprintf(stderr, "port_probe: --rounds must be 1 to 64\n");
    return 1;
  }
  if (!etr_isa_available(ETR_ISA_AVX512)) {
    fprintf(stderr, "port_probe: this CPU has no AVX-512\n");
    return 2;
  }
  const double ghz = etr_port_probe_ghz(rounds);
  const double fma =
      etr_port_probe_cycles(etr_port_probe_fma_only, rounds, ghz);
  printf("clock %.2f GHz (dependent integer adds); 16 independent 512-bit"
         " FMAs: %.2f cycles\n\n",
         ghz, fma);
  printf("cycles a loop trip: 8 of the instruction alone; 8 and 16 of it"
         " beside the 16 FMAs, and the cycles each adds to them\n\n");
  printf("%-36s %7s %7s %7s %7s %7s\n", "instruction", "8", "16F+8",
         "/op", "16F+16", "/op");
  for (size_t p = 0; p < etr_num_port_probes; ++p) {
    const etr_probe_t *probe = &etr_port_probes[p];
    double alone = etr_port_probe_cycles(probe->alone, rounds, ghz);
    double eight = etr_port_probe_cycles(probe->with_fma8, rounds, ghz);
    double sixteen = etr_port_probe_cycles(probe->with_fma16, rounds, ghz);
    printf("%-36s %7.2f %7.2f %7.2f %7.2f %7.2f\n", probe->name, alone,
           eight, (eight - fma) / 8.0, sixteen, (sixteen - fma) / 16.0);
  }
  return 0;
}
