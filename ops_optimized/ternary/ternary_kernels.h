// SPDX-License-Identifier: Apache-2.0
//
// The three-input microkernels (ternary.h), written once: a
// ternary_<isa>.c file includes its ../unary/simd_<isa>.h, defines
// ETR_TERNARY_KERNELS as the name of its table and includes this file.
// An input's address at element i is p + i * inc, so a broadcast input
// (inc 0) keeps loading its splat buffer; the last partial vector is
// masked or buffered by the primitives.
#ifndef ETR_TERNARY_KERNELS
#error "define ETR_TERNARY_KERNELS and include a simd_<isa>.h first"
#endif

#include "ops_optimized/ternary/ternary.h"

_Static_assert(ETR_VF_LANES <= ETR_TERNARY_SPLAT,
               "a broadcast input's splat covers one vector");

// vf_select is a bitwise blend on every ISA, so the bits of a and b (NaN
// payloads, integers stored in float lanes) are copied unchanged.
static void where32(size_t n, const uint8_t *c, size_t c_inc, const float *a,
                    size_t a_inc, const float *b, size_t b_inc, float *y) {
  size_t i = 0;
  for (; i + ETR_VF_LANES <= n; i += ETR_VF_LANES) {
    etr_vm take_a = vm_load_bytes(c + i * c_inc);
    vf_store(y + i, vf_select(take_a, vf_load(a + i * a_inc),
                              vf_load(b + i * b_inc)));
  }
  if (i < n) {
    size_t left = n - i;
    etr_vm take_a = vm_load_bytes_n(c + i * c_inc, left);
    vf_store_n(y + i,
               vf_select(take_a, vf_load_n(a + i * a_inc, left),
                         vf_load_n(b + i * b_inc, left)),
               left);
  }
}

static inline etr_vf clamp_step(etr_vf x, etr_vf low, etr_vf high) {
  // x < low is false for a NaN x, which is kept; a NaN bound wins.
  x = vf_select(vm_or(vf_lt(x, low), vf_isnan(low)), low, x);
  return vf_select(vm_or(vf_lt(high, x), vf_isnan(high)), high, x);
}

static void clamp3(size_t n, const float *x, size_t x_inc, const float *low,
                   size_t low_inc, const float *high, size_t high_inc,
                   float *y) {
  size_t i = 0;
  for (; i + ETR_VF_LANES <= n; i += ETR_VF_LANES) {
    vf_store(y + i, clamp_step(vf_load(x + i * x_inc),
                               vf_load(low + i * low_inc),
                               vf_load(high + i * high_inc)));
  }
  if (i < n) {
    size_t left = n - i;
    vf_store_n(y + i,
               clamp_step(vf_load_n(x + i * x_inc, left),
                          vf_load_n(low + i * low_inc, left),
                          vf_load_n(high + i * high_inc, left)),
               left);
  }
}

const etr_ternary_kernels_t ETR_TERNARY_KERNELS = {where32, clamp3};
