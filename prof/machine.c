// SPDX-License-Identifier: Apache-2.0
//
// Machine detection and roofline limits (see machine.h).
#define _POSIX_C_SOURCE 200809L
#include "prof/machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/platform.h"

// ../shared/ENVIRONMENT.md, "This machine's measured limits".
#define ENV_PEAK_AVX512_GFLOPS 147.0
#define ENV_PEAK_AVX2_GFLOPS 84.0
#define ENV_DRAM_GBS 12.0
#define ENV_L2_GBS 88.0
#define ENV_L2_BYTES (1u << 20)

static bool has_flag(const char *flags, const char *flag) {
  size_t length = strlen(flag);
  for (const char *at = strstr(flags, flag); at != NULL;
       at = strstr(at + 1, flag)) {
    bool starts = at == flags || at[-1] == ' ' || at[-1] == '\t';
    bool ends = at[length] == ' ' || at[length] == '\n' || at[length] == '\0';
    if (starts && ends) {
      return true;
    }
  }
  return false;
}

void etr_machine_detect(etr_machine_t *machine) {
  memset(machine, 0, sizeof(*machine));
  snprintf(machine->cpu, sizeof(machine->cpu), "unknown CPU");
  char flags[4096] = "";
  FILE *file = fopen("/proc/cpuinfo", "r");
  if (file != NULL) {
    char line[4096];
    bool have_name = false;
    bool have_flags = false;
    while (fgets(line, sizeof(line), file) != NULL) {
      char *colon = strchr(line, ':');
      if (colon == NULL) {
        continue;
      }
      char *value = colon + 1;
      while (*value == ' ') {
        ++value;
      }
      value[strcspn(value, "\n")] = '\0';
      if (!have_name && strncmp(line, "model name", 10) == 0) {
        snprintf(machine->cpu, sizeof(machine->cpu), "%s", value);
        have_name = true;
      } else if (!have_flags && strncmp(line, "flags", 5) == 0) {
        snprintf(flags, sizeof(flags), "%s", value);
        have_flags = true;
      }
    }
    fclose(file);
  }
  bool avx512 = has_flag(flags, "avx512f");
  bool avx2 = has_flag(flags, "avx2");
  snprintf(machine->isa, sizeof(machine->isa), "%s%s%s",
           avx512 ? "AVX-512F " : "", avx2 ? "AVX2 " : "",
           has_flag(flags, "fma") ? "FMA" : "");
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  machine->cpus = cpus > 0 ? (uint32_t)cpus : 1;
  machine->peak_gflops =
      avx512 ? ENV_PEAK_AVX512_GFLOPS : ENV_PEAK_AVX2_GFLOPS;
  machine->dram_gbs = ENV_DRAM_GBS;
  machine->l2_gbs = ENV_L2_GBS;
  machine->l2_bytes = ENV_L2_BYTES;
  snprintf(machine->source, sizeof(machine->source),
           "../shared/ENVIRONMENT.md (one core of the project's Xeon Cascade "
           "Lake machines: fp32 FMA %s %.0f GFLOP/s, DRAM triad %.0f GB/s, "
           "L2 triad %.0f GB/s)",
           avx512 ? "AVX-512" : "AVX2", machine->peak_gflops,
           machine->dram_gbs, machine->l2_gbs);
  if (strstr(machine->cpu, "Xeon") == NULL) {
    snprintf(machine->note, sizeof(machine->note),
             "this CPU (%.60s) is not the Xeon Cascade Lake those figures "
             "were measured on: treat %% of roofline as indicative, or "
             "re-measure the bandwidths with --roofline measure",
             machine->cpu);
  }
}

// Best-of-`passes` triad a = b + s * c over `count` floats, in GB/s
// (3 arrays of 4 bytes per element; write-allocate traffic not counted,
// as in STREAM).
static double triad(float *a, const float *b, const float *c, size_t count,
                    int passes) {
  double best = 0;
  for (int p = 0; p < passes; ++p) {
    uint64_t start = etr_now_ns();
    for (size_t i = 0; i < count; ++i) {
      a[i] = b[i] + 3.0f * c[i];
    }
    uint64_t elapsed = etr_now_ns() - start;
    double gbs = elapsed > 0 ? 12.0 * (double)count / (double)elapsed : 0;
    best = gbs > best ? gbs : best;
  }
  return best;
}

static double measure(size_t count, int passes, volatile float *sink) {
  float *a = (float *)aligned_alloc(64, count * sizeof(float));
  float *b = (float *)aligned_alloc(64, count * sizeof(float));
  float *c = (float *)aligned_alloc(64, count * sizeof(float));
  double gbs = 0;
  if (a != NULL && b != NULL && c != NULL) {
    for (size_t i = 0; i < count; ++i) {
      a[i] = 0.0f;
      b[i] = (float)(i & 1023);
      c[i] = 1.0f;
    }
    gbs = triad(a, b, c, count, passes);
    *sink = a[count / 2];
  }
  free(a);
  free(b);
  free(c);
  return gbs;
}

bool etr_machine_measure(etr_machine_t *machine) {
  volatile float sink = 0;
  // 3 x 64 MiB: far past any L3; 3 x 160 KiB: inside a 1 MiB L2.
  double dram = measure((size_t)16 << 20, 5, &sink);
  double l2 = measure((size_t)40 << 10, 400, &sink);
  if (dram <= 0 || l2 <= 0) {
    return false;
  }
  machine->dram_gbs = dram;
  machine->l2_gbs = l2;
  snprintf(machine->source, sizeof(machine->source),
           "bandwidths measured here (plain-C triad, one core, best of "
           "several passes: DRAM %.1f GB/s, L2 %.1f GB/s); compute roof from "
           "../shared/ENVIRONMENT.md (%.0f GFLOP/s)",
           dram, l2, machine->peak_gflops);
  return true;
}

double etr_machine_attainable(const etr_machine_t *machine, double flops,
                              double bytes, bool *memory_bound) {
  double bandwidth =
      bytes <= (double)machine->l2_bytes ? machine->l2_gbs : machine->dram_gbs;
  if (flops <= 0) {
    *memory_bound = true;
    return bandwidth;
  }
  double intensity = bytes > 0 ? flops / bytes : 1e30;
  double memory_roof = intensity * bandwidth;
  *memory_bound = memory_roof < machine->peak_gflops;
  return *memory_bound ? memory_roof : machine->peak_gflops;
}
