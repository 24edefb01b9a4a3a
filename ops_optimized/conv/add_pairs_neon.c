// SPDX-License-Identifier: Apache-2.0
//
// out[2i] += a[i], out[2i + 1] += b[i] (conv.h), and the storing twin
// out[2i] = (a[i] + 0) + bias, NEON: vld2q/vst2q
// (de)interleave 8 outs as even and odd halves; the last 3 or fewer in C.
#include <arm_neon.h>

#include "ops_optimized/conv/conv.h"

void etr_conv_add_pairs_neon(size_t n, const float *a, const float *b,
                             float *out) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4x2_t o = vld2q_f32(out + 2 * i);
    o.val[0] = vaddq_f32(o.val[0], vld1q_f32(a + i));
    o.val[1] = vaddq_f32(o.val[1], vld1q_f32(b + i));
    vst2q_f32(out + 2 * i, o);
  }
  for (; i < n; ++i) {
    out[2 * i] += a[i];
    out[2 * i + 1] += b[i];
  }
}

void etr_conv_put_pairs_neon(size_t n, const float *a, const float *b,
                             float bias, float *out) {
  const float32x4_t zero = vdupq_n_f32(0.0f);
  const float32x4_t vbias = vdupq_n_f32(bias);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4x2_t o;
    o.val[0] = vaddq_f32(vaddq_f32(vld1q_f32(a + i), zero), vbias);
    o.val[1] = vaddq_f32(vaddq_f32(vld1q_f32(b + i), zero), vbias);
    vst2q_f32(out + 2 * i, o);
  }
  for (; i < n; ++i) {
    out[2 * i] = (a[i] + 0.0f) + bias;
    out[2 * i + 1] = (b[i] + 0.0f) + bias;
  }
}
