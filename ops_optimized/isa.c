// SPDX-License-Identifier: Apache-2.0
//
// ISA detection (see isa.h): CPUID through the compiler's
// __builtin_cpu_supports on x86-64 (which also checks that the OS saves the
// AVX/AVX-512 register state), NEON by architecture on aarch64.
#include "ops_optimized/isa.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

static const char *const kNames[ETR_NUM_ISAS] = {"scalar", "avx2", "avx512",
                                                 "neon"};

const char *etr_isa_name(etr_isa_t isa) {
  return (unsigned)isa < ETR_NUM_ISAS ? kNames[isa] : "unknown";
}

static bool detect(etr_isa_t isa) {
  switch (isa) {
    case ETR_ISA_SCALAR:
      return true;
#if defined(__x86_64__)
    case ETR_ISA_AVX2:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case ETR_ISA_AVX512:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return true;
#endif
    default:
      return false;
  }
}

// -1: not yet detected.
static int g_available[ETR_NUM_ISAS] = {-1, -1, -1, -1};
static int g_active = -1;

bool etr_isa_available(etr_isa_t isa) {
  if ((unsigned)isa >= ETR_NUM_ISAS) {
    return false;
  }
  if (g_available[isa] < 0) {
    g_available[isa] = detect(isa) ? 1 : 0;
  }
  return g_available[isa] == 1;
}

static etr_isa_t best_available(void) {
  if (etr_isa_available(ETR_ISA_AVX512)) {
    return ETR_ISA_AVX512;
  }
  if (etr_isa_available(ETR_ISA_AVX2)) {
    return ETR_ISA_AVX2;
  }
  if (etr_isa_available(ETR_ISA_NEON)) {
    return ETR_ISA_NEON;
  }
  return ETR_ISA_SCALAR;
}

static etr_isa_t choose(etr_isa_t wanted) {
  return etr_isa_available(wanted) ? wanted : best_available();
}

void etr_isa_reset(void) {
  etr_isa_t isa = best_available();
  const char *requested = getenv("ETREF_ISA");
  for (int i = 0; requested != NULL && i < ETR_NUM_ISAS; ++i) {
    if (strcmp(requested, kNames[i]) == 0) {
      isa = choose((etr_isa_t)i);
    }
  }
  g_active = (int)isa;
}

etr_isa_t etr_isa_active(void) {
  if (g_active < 0) {
    etr_isa_reset();
  }
  return (etr_isa_t)g_active;
}

etr_isa_t etr_isa_force(etr_isa_t isa) {
  g_active = (int)choose(isa);
  return (etr_isa_t)g_active;
}

bool etr_isa_split_wide_divide(void) {
  static int split = -1;
  if (split < 0) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    split = __builtin_cpu_is("intel") ? 1 : 0;
#else
    split = 0;
#endif
  }
  return split == 1;
}

static int g_slow_divide = -1;  // etr_isa_force_slow_divide's; -1 detect

bool etr_isa_slow_divide(void) {
  if (g_slow_divide >= 0) {
    return g_slow_divide == 1;
  }
#if defined(__x86_64__)
  return etr_isa_split_wide_divide();  // Intel
#else
  return true;  // as before the Zen 2 measurement: not measured on Arm
#endif
}

void etr_isa_force_slow_divide(int slow) {
  g_slow_divide = slow < 0 ? -1 : slow != 0;
}

static int g_narrow_lookups = -1;  // etr_isa_force_narrow_lookups'

bool etr_isa_narrow_lookups(void) {
  static int detected = -1;
  if (g_narrow_lookups >= 0) {
    return g_narrow_lookups == 1;
  }
  if (detected < 0) {
    const char *requested = getenv("ETREF_NARROW_LOOKUPS");
    if (requested != NULL && (strcmp(requested, "0") == 0 ||
                              strcmp(requested, "1") == 0)) {
      detected = requested[0] == '1';
    } else {
#if defined(__x86_64__)
      __builtin_cpu_init();
      detected = __builtin_cpu_is("amd") ? 1 : 0;
#else
      detected = 0;
#endif
    }
  }
  return detected == 1;
}

void etr_isa_force_narrow_lookups(int narrow) {
  g_narrow_lookups = narrow < 0 ? -1 : narrow != 0;
}

bool etr_isa_has_avx512_bf16(void) {
  static int has = -1;
  if (has < 0) {
    has = 0;
#if defined(__x86_64__)
    // CPUID leaf 7, subleaf 1: EAX bit 5 is AVX512_BF16 (read directly:
    // not every compiler's __builtin_cpu_supports knows the name). The
    // register state is the one ETR_ISA_AVX512 already checks.
    unsigned eax = 0;
    unsigned ebx = 0;
    unsigned ecx = 0;
    unsigned edx = 0;
    if (etr_isa_available(ETR_ISA_AVX512) &&
        __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 5))) {
      has = 1;
    }
#endif
  }
  return has == 1;
}

// The size in bytes of the level-3 cache this core reaches, from CPUID's
// cache descriptors (Intel leaf 4, AMD leaf 0x8000001d, one subleaf per
// cache until type 0: ways x partitions x line size x sets), or 0 when
// they name none (or not x86). AMD's older leaf 0x80000006 gives the
// whole package's: 320 MiB on an EPYC VM whose core's L3 is 32 MiB.
static size_t l3_bytes(void) {
#if defined(__x86_64__)
  unsigned eax = 0;
  unsigned ebx = 0;
  unsigned ecx = 0;
  unsigned edx = 0;
  __builtin_cpu_init();
  const unsigned leaf = __builtin_cpu_is("amd") ? 0x8000001du : 4u;
  if (leaf == 0x8000001du &&
      (__get_cpuid_max(0x80000000u, NULL) < leaf ||
       !__get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) ||
       (ecx & (1u << 22)) == 0)) {  // TOPOEXT: the leaf is there
    return 0;
  }
  for (unsigned i = 0; i < 16; ++i) {
    if (!__get_cpuid_count(leaf, i, &eax, &ebx, &ecx, &edx) ||
        (eax & 0x1fu) == 0) {
      break;
    }
    if (((eax >> 5) & 0x7u) == 3) {
      return (size_t)((ebx >> 22) + 1) * (((ebx >> 12) & 0x3ffu) + 1) *
             ((ebx & 0xfffu) + 1) * ((size_t)ecx + 1);
    }
  }
#endif
  return 0;
}

size_t etr_isa_stream_bytes_known = 0;

size_t etr_isa_stream_bytes_detect(void) {
  static size_t detected = 0;
  if (detected == 0) {
    // Half the L3, at most 64 MiB: on Intel, leaf 4 names the L3 the whole
    // socket shares (480 MiB on the Xeon of 2026-12-06, family 6 model
    // 167, a 2-vCPU guest), whose half (240 MiB) left 64-192 MB of arrays
    // to ordinary stores: neg on 16 Mi floats 20.6 GB/s against 28.5
    // streaming, add 16.0 against 23.7 (bench_elementwise --stream-bytes,
    // medians of 5); from 4 Mi floats down the two were within 3%.
    const size_t cap = (size_t)64 << 20;
    size_t l3 = l3_bytes();
    detected = l3 >= ((size_t)1 << 20) && l3 / 2 < cap ? l3 / 2 : cap;
  }
  etr_isa_stream_bytes_known = detected;
  return detected;
}

void etr_isa_force_stream_bytes(size_t bytes) {
  etr_isa_stream_bytes_known = bytes;
}
