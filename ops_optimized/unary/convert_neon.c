// SPDX-License-Identifier: Apache-2.0
//
// fp32 <-> Half/BFloat16 conversions, AArch64 NEON: 4 elements a step; the
// tail goes through a stack buffer, so nothing past n is touched. FCVTN
// rounds to nearest even (FPCR default) and keeps NaNs quiet with their
// upper payload bits, as etr_float_to_half; BFloat16 rounds with integer
// arithmetic exactly as etr_float_to_bfloat16.
#include <arm_neon.h>
#include <string.h>

#include "ops_optimized/unary/unary.h"

static inline void from_f16_4(const uint16_t *x, float *y) {
  vst1q_f32(y, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(x))));
}

static inline void from_bf16_4(const uint16_t *x, float *y) {
  vst1q_f32(y, vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(x), 16)));
}

static inline void to_f16_4(const float *x, uint16_t *y) {
  vst1_u16(y, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(x))));
}

static inline void to_bf16_4(const float *x, uint16_t *y) {
  float32x4_t v = vld1q_f32(x);
  uint32x4_t bits = vreinterpretq_u32_f32(v);
  uint32x4_t upper = vshrq_n_u32(bits, 16);
  uint32x4_t bias = vaddq_u32(vandq_u32(upper, vdupq_n_u32(1)),
                              vdupq_n_u32(0x7fff));
  uint32x4_t rounded = vshrq_n_u32(vaddq_u32(bits, bias), 16);
  uint32x4_t quiet = vorrq_u32(upper, vdupq_n_u32(0x40));
  uint32x4_t is_number = vceqq_f32(v, v);
  vst1_u16(y, vmovn_u32(vbslq_u32(is_number, rounded, quiet)));
}

#define ETR_CONVERT_LOOP(name, in_type, out_type, STEP)      \
  static void name(size_t n, const in_type *x, out_type *y) { \
    size_t i = 0;                                             \
    for (; i + 4 <= n; i += 4) {                              \
      STEP(x + i, y + i);                                     \
    }                                                         \
    if (i < n) {                                              \
      in_type in[4] = {0};                                    \
      out_type out[4];                                        \
      memcpy(in, x + i, (n - i) * sizeof(in_type));           \
      STEP(in, out);                                          \
      memcpy(y + i, out, (n - i) * sizeof(out_type));         \
    }                                                         \
  }

ETR_CONVERT_LOOP(from_f16_neon, uint16_t, float, from_f16_4)
ETR_CONVERT_LOOP(from_bf16_neon, uint16_t, float, from_bf16_4)
ETR_CONVERT_LOOP(to_f16_neon, float, uint16_t, to_f16_4)
ETR_CONVERT_LOOP(to_bf16_neon, float, uint16_t, to_bf16_4)
#undef ETR_CONVERT_LOOP

const etr_f32_convert_kernels_t etr_f32_convert_neon = {
    from_f16_neon, from_bf16_neon, to_f16_neon, to_bf16_neon};
