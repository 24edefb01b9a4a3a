// SPDX-License-Identifier: Apache-2.0
//
// Force-included (-include) by fuzz/oss_fuzz_build.sh into every file it
// compiles. glibc's <complex.h> defines C11's CMPLX/CMPLXF only for
// compilers reporting GCC >= 4.7, which clang (reporting 4.2) does not, so
// the complex paths of ops_reference/ fail to link under clang. clang has
// the same builtin glibc would use.
#if defined(__clang__) && !defined(CMPLX)
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#define CMPLXL(x, y) __builtin_complex((long double)(x), (long double)(y))
#endif
