// SPDX-License-Identifier: Apache-2.0
//
// Built only into the aarch64 test binary: the kernels must run their NEON
// paths there. run.sh sets ETREF_ISA=neon; etr_isa_active() must then be
// NEON, NEON must be available, and the x86 ISAs must not be.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/isa.h"

Test(aarch64, isa_is_neon) {
  const char *requested = getenv("ETREF_ISA");
  cr_assert(requested != NULL && strcmp(requested, "neon") == 0,
            "run with ETREF_ISA=neon");
  cr_assert_eq(etr_isa_active(), ETR_ISA_NEON, "active ISA is %s",
               etr_isa_name(etr_isa_active()));
  cr_assert(etr_isa_available(ETR_ISA_NEON));
  cr_assert(!etr_isa_available(ETR_ISA_AVX2));
  cr_assert(!etr_isa_available(ETR_ISA_AVX512));
  cr_assert_eq(etr_isa_force(ETR_ISA_SCALAR), ETR_ISA_SCALAR);
  etr_isa_reset();
  cr_assert_eq(etr_isa_active(), ETR_ISA_NEON);
}
