// SPDX-License-Identifier: Apache-2.0
//
// fp32 relu, AVX-512: 16 lanes, 2 vectors per iteration (streaming stores
// for an out that streams, common/stream.h); the tail
// uses a lane mask, so nothing past n is touched. NaN and -0.0 lanes are
// kept (x < 0 is false for both, as PyTorch: relu(-0.0) is -0.0): maxps
// (0, x) is 0 > x ? 0 : x, which returns its second operand x on NaN and
// on ties, so one instruction where a compare into a mask register and a
// blend were two (AMD Zen 5 issues one such compare a cycle).
#include <immintrin.h>

#include "ops_optimized/common/stream.h"
#include "ops_optimized/unary/unary.h"

void etr_f32_relu_avx512(size_t n, const float *x, float *y) {
  const __m512 zero = _mm512_setzero_ps();
  size_t i = 0;
  if (etr_stream_out(n, 1)) {  // streaming stores (common/stream.h)
    i = etr_stream_head(y, 64);
    if (i > 0) {
      __mmask16 lanes = (__mmask16)((1u << i) - 1);
      __m512 v = _mm512_maskz_loadu_ps(lanes, x);
      _mm512_mask_storeu_ps(y, lanes, _mm512_max_ps(zero, v));
    }
    for (; i + 32 <= n; i += 32) {
      etr_stream_prefetch(x, i, n, 32);
      __m512 a = _mm512_loadu_ps(x + i);
      __m512 b = _mm512_loadu_ps(x + i + 16);
      _mm512_stream_ps(y + i, _mm512_max_ps(zero, a));
      _mm512_stream_ps(y + i + 16, _mm512_max_ps(zero, b));
    }
    _mm_sfence();
  }
  for (; i + 32 <= n; i += 32) {
    __m512 a = _mm512_loadu_ps(x + i);
    __m512 b = _mm512_loadu_ps(x + i + 16);
    _mm512_storeu_ps(y + i, _mm512_max_ps(zero, a));
    _mm512_storeu_ps(y + i + 16, _mm512_max_ps(zero, b));
  }
  for (; i < n; i += 16) {
    size_t remaining = n - i;
    __mmask16 lanes = remaining >= 16 ? (__mmask16)0xffff
                                      : (__mmask16)((1u << remaining) - 1);
    __m512 v = _mm512_maskz_loadu_ps(lanes, x + i);
    _mm512_mask_storeu_ps(y + i, lanes, _mm512_max_ps(zero, v));
  }
}
