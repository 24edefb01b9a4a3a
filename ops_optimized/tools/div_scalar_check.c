// SPDX-License-Identifier: Apache-2.0
//
// Checks the division-by-one-float kernel (binary_kernels.h,
// div_by_scalar_vs: a multiply and two FMA corrections in place of a
// divide) against the divide, bit for bit, on every ISA this machine has:
//
//   bazel run -c opt //ops_optimized/tools:div_scalar_check -- [--quick]
//       [--ftz] [DIVISORS]
//
// For each divisor b (significands of special shape: 1, 1 + ulp, all
// ones, 1.5, 3, 5, 7, 10, pi; then DIVISORS seeded random ones, default
// 200, over the whole range the kernel takes, |b| in [2^-30, 2^30], both
// signs) every significand of a in [1, 2) is divided, at exponents that
// put the quotient near both ends of the kernel's range and in the
// middle, both signs. Scaling a by a power of two scales the exact
// quotient and its rounding alike, so within the range this covers every
// a. --quick takes 2^16 significands (spread over [1, 2)) and 20 random
// divisors (a smaller sweep runs in the suite:
// diff_elementwise_division_test). --ftz (x86) runs with denormals flushed
// (MXCSR FTZ and DAZ), the divide too. Prints the first mismatches (a, b,
// both results) and exits 1 on any.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <xmmintrin.h>  // _mm_getcsr, _mm_setcsr
#endif

#include "ops_optimized/binary/binary.h"
#include "ops_optimized/isa.h"

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof(u));
  return u;
}

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof(f));
  return f;
}

static uint64_t g_state = 0x9e3779b97f4a7c15ull;

static uint32_t next_random(void) {  // xorshift64*
  g_state ^= g_state >> 12;
  g_state ^= g_state << 25;
  g_state ^= g_state >> 27;
  return (uint32_t)((g_state * 0x2545f4914f6cdd1dull) >> 32);
}

int main(int argc, char **argv) {
  bool quick = false;
  long random_divisors = 200;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = true;
      random_divisors = 20;
    } else if (strcmp(argv[i], "--ftz") == 0) {
#if defined(__x86_64__)
      _mm_setcsr(_mm_getcsr() | 0x8040u);  // FTZ (bit 15) and DAZ (bit 6)
#else
      fprintf(stderr, "div_scalar_check: --ftz is for x86 only\n");
      return 2;
#endif
    } else {
      char *end = NULL;
      random_divisors = strtol(argv[i], &end, 10);
      if (end == argv[i] || *end != '\0' || random_divisors < 0) {
        fprintf(stderr,
                "usage: div_scalar_check [--quick] [--ftz] [DIVISORS]\n");
        return 2;
      }
    }
  }
  const uint32_t count = quick ? (1u << 16) : (1u << 23);
  const uint32_t step = (1u << 23) / count;
  float *a = malloc(sizeof(float) * count);
  float *y = malloc(sizeof(float) * count);
  if (a == NULL || y == NULL) {
    fprintf(stderr, "div_scalar_check: out of memory\n");
    return 2;
  }
  static const float kSpecial[] = {1.0f, 1.0f + 0x1p-23f, 2.0f - 0x1p-23f,
                                   1.5f, 3.0f, 5.0f, 7.0f, 10.0f,
                                   3.14159265f};
  const size_t specials = sizeof(kSpecial) / sizeof(kSpecial[0]);
  long mismatches = 0;
  long checked = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_f32_binary_vs_fn divide =
        etr_f32_binary_for((etr_isa_t)isa)->vs[ETR_BINARY_DIV];
    g_state = 0x9e3779b97f4a7c15ull;
    for (long d = 0; d < (long)specials + random_divisors; ++d) {
      float b;
      if (d < (long)specials) {
        b = kSpecial[d] * (d % 2 == 0 ? 1.0f : -1.0f);
      } else {  // exponent in [-30, 29], random significand and sign
        uint32_t r = next_random();
        uint32_t exponent = (uint32_t)(127 - 30 + (int)(r % 60));
        b = float_of((next_random() & 0x807fffffu) | (exponent << 23));
      }
      const int b_exponent = ilogbf(b);
      // Exponents of a: quotients near 2^-70 (astride the kernel's lower
      // end), 1 and 2^70 for this b.
      static const int kQuotientExponents[] = {-70, -69, -1, 0, 1, 69};
      for (size_t e = 0; e < 6; ++e) {
        const int exponent = kQuotientExponents[e] + b_exponent;
        for (int sign = 0; sign < 2; ++sign) {
          for (uint32_t i = 0; i < count; ++i) {
            float m = float_of(0x3f800000u | (i * step));
            a[i] = ldexpf(sign ? -m : m, exponent);
          }
          divide(count, a, b, y, &(etr_binary_params_t){0});
          for (uint32_t i = 0; i < count; ++i) {
            float want = a[i] / b;
            if (bits_of(want) != bits_of(y[i])) {
              if (++mismatches <= 10) {
                printf("%s: %a / %a = %a, kernel %a\n",
                       etr_isa_name((etr_isa_t)isa), (double)a[i],
                       (double)b, (double)want, (double)y[i]);
              }
            }
          }
          checked += count;
        }
      }
    }
  }
  printf("div_scalar_check: %ld divisions, %ld mismatches\n", checked,
         mismatches);
  free(a);
  free(y);
  return mismatches == 0 ? 0 : 1;
}
