// SPDX-License-Identifier: Apache-2.0
//
// The probes of port_probe.c (port_probe_avx512.c).
#ifndef ETR_OPS_OPTIMIZED_TOOLS_PORT_PROBE_H
#define ETR_OPS_OPTIMIZED_TOOLS_PORT_PROBE_H

#include <stddef.h>

// Eight of one instruction per loop trip alone; eight and sixteen
// beside 16 FMAs.
typedef struct etr_probe {
  const char *name;
  void (*alone)(void);
  void (*with_fma8)(void);
  void (*with_fma16)(void);
} etr_probe_t;

extern const etr_probe_t etr_port_probes[];
extern const size_t etr_num_port_probes;

// The clock, from a chain of dependent integer additions.
double etr_port_probe_ghz(int rounds);
// Median cycles per loop trip of a probe over `rounds` runs.
double etr_port_probe_cycles(void (*run)(void), int rounds, double ghz);
// 16 independent FMAs a trip.
void etr_port_probe_fma_only(void);

#endif  // ETR_OPS_OPTIMIZED_TOOLS_PORT_PROBE_H
