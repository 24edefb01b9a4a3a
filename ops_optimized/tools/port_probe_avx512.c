// SPDX-License-Identifier: Apache-2.0
//
// The probes of port_probe.c, compiled for AVX-512 (its registers and
// mask registers appear in the assembly and its clobbers): call only when
// etr_isa_available(ETR_ISA_AVX512).
#define _POSIX_C_SOURCE 200809L  // clock_gettime

#include <stdlib.h>
#include <time.h>

#include "ops_optimized/tools/port_probe.h"

#define ITERATIONS 20000000L

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static _Alignas(64) char g_buffer[16384 + 1024];

// The loop around a probe body: rcx counts down, rax walks the buffer
// 1 KiB a trip (wrapping at 16 KiB), k1 holds one 128-bit lane's mask
// for the masked store; the registers read are zeros (no denormals).
#define LOOP(body)                                                   \
  __asm__ volatile(                                                  \
      "vpxord %%zmm24, %%zmm24, %%zmm24\n\t"                          \
      "vmovaps %%zmm24, %%zmm25\n\t"                                  \
      "vmovaps %%zmm24, %%zmm30\n\t"                                  \
      "vmovaps %%zmm24, %%zmm31\n\t"                                  \
      "mov $0xf0, %%eax\n\t"                                         \
      "kmovw %%eax, %%k1\n\t"                                        \
      "mov $0xffff, %%eax\n\t"                                       \
      "kmovw %%eax, %%k2\n\t"                                        \
      "mov %0, %%rcx\n\t"                                            \
      "xor %%rdx, %%rdx\n"                                           \
      "1:\n\t"                                                       \
      "lea (%1,%%rdx), %%rax\n\t" body                               \
      "add $1024, %%rdx\n\t"                                         \
      "and $16383, %%rdx\n\t"                                        \
      "dec %%rcx\n\t"                                                \
      "jnz 1b\n"                                                     \
      :                                                              \
      : "r"(ITERATIONS), "r"(g_buffer)                               \
      : "rax", "rcx", "rdx", "k1", "k2", "memory", "xmm0", "xmm1", "xmm2",  \
        "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",      \
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",       \
        "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21",       \
        "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",       \
        "xmm28", "xmm29", "xmm30", "xmm31")

// 16 independent FMA chains (latency 4 at most: two pipes stay busy).
#define F(n) "vfmadd231ps %%zmm30, %%zmm31, %%zmm" #n "\n\t"
#define FMA16                                                           \
  F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) \
  F(13) F(14) F(15)

// Eight (sixteen) of an instruction, each writing its own register
// (zmm16..23) from two that never change (zmm24, zmm25), or reading or
// writing the buffer at eight (sixteen) lines.
#define R8(op)                                                        \
  op(16, 0) op(17, 64) op(18, 128) op(19, 192) op(20, 256) op(21, 320) \
  op(22, 384) op(23, 448)
#define R16(op)                                                        \
  R8(op) op(16, 512) op(17, 576) op(18, 640) op(19, 704) op(20, 768)  \
  op(21, 832) op(22, 896) op(23, 960)
#define LOAD_ZMM(r, off) "vmovups " #off "(%%rax), %%zmm" #r "\n\t"
#define LOAD_MASKED(r, off) \
  "vmovups " #off "(%%rax), %%zmm" #r "%{%%k2%}%{z%}\n\t"
#define LOAD_SPLIT(r, off) "vmovups " #off "+4(%%rax), %%zmm" #r "\n\t"
#define BROADCAST(r, off) "vbroadcastss " #off "(%%rax), %%zmm" #r "\n\t"
#define STORE_ZMM(r, off) "vmovups %%zmm24, " #off "(%%rax)\n\t"
#define STORE_YMM(r, off) "vmovups %%ymm24, " #off "(%%rax)\n\t"
#define STORE_LANE(r, off) "vmovups %%zmm24, " #off "(%%rax)%{%%k1%}\n\t"
#define SHUFPS(r, off) "vshufps $0x44, %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define PERMILPS(r, off) "vpermilps $0x55, %%zmm24, %%zmm" #r "\n\t"
#define SHUFPS_SPLAT(r, off) \
  "vshufps $0x55, %%zmm24, %%zmm24, %%zmm" #r "\n\t"
#define UNPCKLPS(r, off) "vunpcklps %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define PERMPS(r, off) "vpermps %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define ALIGND(r, off) "valignd $1, %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define SHUFF32X4(r, off) "vshuff32x4 $0x44, %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define PERMT2PS(r, off) "vpermt2ps %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define ADDPS(r, off) "vaddps %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define MINPS(r, off) "vminps %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define PANDD(r, off) "vpandd %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define TERNLOG(r, off) \
  "vpternlogd $0xf8, %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define RCP14PS(r, off) "vrcp14ps %%zmm24, %%zmm" #r "\n\t"
#define DIVPS(r, off) "vdivps %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define SCALEFPS(r, off) "vscalefps %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define RNDSCALEPS(r, off) "vrndscaleps $1, %%zmm24, %%zmm" #r "\n\t"
#define CVTPS2DQ(r, off) "vcvtps2dq %%zmm24, %%zmm" #r "\n\t"
#define PSLLD(r, off) "vpslld $23, %%zmm24, %%zmm" #r "\n\t"
#define BLENDMPS(r, off) "vblendmps %%zmm24, %%zmm25, %%zmm" #r "%{%%k1%}\n\t"
#define MOVAPS(r, off) "vmovaps %%zmm24, %%zmm" #r "\n\t"
#define PERMT2COPY(r, off) "vmovaps %%zmm24, %%zmm" #r "\n\t" \
  "vpermt2ps %%zmm24, %%zmm25, %%zmm" #r "\n\t"
#define GETEXPPS(r, off) "vgetexpps %%zmm24, %%zmm" #r "\n\t"

static void fma_only(void) { LOOP(FMA16); }

#define PROBE(name, op)                                   \
  static void name##_alone(void) { LOOP(R8(op)); }        \
  static void name##_fma8(void) { LOOP(FMA16 R8(op)); }   \
  static void name##_fma16(void) { LOOP(FMA16 R16(op)); }
PROBE(load_zmm, LOAD_ZMM)
PROBE(load_masked, LOAD_MASKED)
PROBE(load_split, LOAD_SPLIT)
PROBE(broadcast, BROADCAST)
PROBE(store_zmm, STORE_ZMM)
PROBE(store_ymm, STORE_YMM)
PROBE(store_lane, STORE_LANE)
PROBE(shufps, SHUFPS)
PROBE(permilps, PERMILPS)
PROBE(shufps_splat, SHUFPS_SPLAT)
PROBE(unpcklps, UNPCKLPS)
PROBE(permps, PERMPS)
PROBE(alignd, ALIGND)
PROBE(shuff32x4, SHUFF32X4)
PROBE(permt2ps, PERMT2PS)
PROBE(addps, ADDPS)
PROBE(minps, MINPS)
PROBE(pandd, PANDD)
PROBE(ternlog, TERNLOG)
PROBE(rcp14ps, RCP14PS)
PROBE(divps, DIVPS)
PROBE(scalefps, SCALEFPS)
PROBE(rndscaleps, RNDSCALEPS)
PROBE(cvtps2dq, CVTPS2DQ)
PROBE(pslld, PSLLD)
PROBE(blendmps, BLENDMPS)
PROBE(getexpps, GETEXPPS)
PROBE(movaps, MOVAPS)
PROBE(permt2copy, PERMT2COPY)

#define ENTRY(name, label) \
  {label, name##_alone, name##_fma8, name##_fma16}

const etr_probe_t etr_port_probes[] = {
    ENTRY(load_zmm, "vmovups zmm <- mem (load)"),
    ENTRY(load_masked, "vmovups zmm{k}{z} <- mem (all lanes)"),
    ENTRY(load_split, "vmovups zmm <- mem (across 2 lines)"),
    ENTRY(broadcast, "vbroadcastss zmm <- mem"),
    ENTRY(store_zmm, "vmovups mem <- zmm (store)"),
    ENTRY(store_ymm, "vmovups mem <- ymm (store)"),
    ENTRY(store_lane, "vmovups mem{k} <- zmm (1 lane of 4)"),
    ENTRY(shufps, "vshufps (in-lane)"),
    ENTRY(permilps, "vpermilps imm (in-lane)"),
    ENTRY(shufps_splat, "vshufps x, x (in-lane splat)"),
    ENTRY(unpcklps, "vunpcklps (in-lane)"),
    ENTRY(permps, "vpermps (cross-lane)"),
    ENTRY(alignd, "valignd (cross-lane)"),
    ENTRY(shuff32x4, "vshuff32x4 (cross-lane)"),
    ENTRY(permt2ps, "vpermt2ps (two tables)"),
    ENTRY(addps, "vaddps"),
    ENTRY(minps, "vminps"),
    ENTRY(pandd, "vpandd"),
    ENTRY(ternlog, "vpternlogd"),
    ENTRY(rcp14ps, "vrcp14ps"),
    ENTRY(divps, "vdivps"),
    ENTRY(scalefps, "vscalefps"),
    ENTRY(rndscaleps, "vrndscaleps"),
    ENTRY(cvtps2dq, "vcvtps2dq"),
    ENTRY(pslld, "vpslld (shift by immediate)"),
    ENTRY(blendmps, "vblendmps (masked)"),
    ENTRY(getexpps, "vgetexpps"),
    ENTRY(movaps, "vmovaps zmm <- zmm"),
    ENTRY(permt2copy, "vmovaps + vpermt2ps"),
};

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a;
  double y = *(const double *)b;
  return x < y ? -1 : x > y;
}

// Median seconds per iteration of `run` over `rounds` rounds.
static double seconds_per_iteration(void (*run)(void), int rounds) {
  double t[64];
  for (int r = 0; r < rounds; ++r) {
    double start = now_seconds();
    run();
    t[r] = (now_seconds() - start) / (double)ITERATIONS;
  }
  qsort(t, (size_t)rounds, sizeof(double), compare_doubles);
  return t[rounds / 2];
}

// A chain of dependent additions, eight a trip: one cycle each.
static void add_chain(void) {
  long x = 0;
  __asm__ volatile(
      "mov %1, %%rcx\n"
      "1:\n\t"
      "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
      "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
      "dec %%rcx\n\t"
      "jnz 1b\n"
      : "+r"(x)
      : "r"(ITERATIONS)
      : "rcx");
}


const size_t etr_num_port_probes =
    sizeof(etr_port_probes) / sizeof(etr_port_probes[0]);

double etr_port_probe_ghz(int rounds) {
  return 8.0 / seconds_per_iteration(add_chain, rounds) * 1e-9;
}

double etr_port_probe_cycles(void (*run)(void), int rounds, double ghz) {
  return seconds_per_iteration(run, rounds) * ghz * 1e9;
}

void etr_port_probe_fma_only(void) { fma_only(); }
