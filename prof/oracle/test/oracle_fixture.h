// SPDX-License-Identifier: Apache-2.0
//
// Test helpers for the oracle: registries, programs and inputs from
// datasets/ (tests run from the runfiles root), a captured candidate run,
// alignment plus judging in one call, and the localization assertion the
// fault tests share. Failures abort the test through Criterion.
#ifndef ETR_PROF_ORACLE_TEST_FIXTURE_H
#define ETR_PROF_ORACLE_TEST_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/kernel.h"
#include "core/method.h"
#include "core/npy.h"
#include "core/program.h"
#include "prof/oracle/align.h"
#include "prof/oracle/oracle.h"
#include "prof/oracle/policy.h"
#include "prof/oracle/values.h"

// Prim ops, reference and optimized kernels.
const etr_kernel_registry_t *ofx_kernels(void);

// The built-in backends (demo, example vendor), then `extra` (may be NULL)
// replacing any with its id.
void ofx_backends(etr_backend_registry_t *registry,
                  const etr_backend_t *extra);

void ofx_load_program(etr_program_t *program, const char *path);
void ofx_load_method(etr_method_t *method, const etr_program_t *program,
                     etr_kernel_variant_t variant,
                     const etr_backend_registry_t *backends);
void ofx_load_npy(etr_npy_array_t *array, const char *path);
void ofx_set_input(etr_method_t *method, uint32_t index,
                   const etr_tensor_t *tensor);

// Executes once with the capture tracer; asserts success.
void ofx_capture(etr_method_t *method, etr_oracle_values_t *values,
                 bool intermediates);

void ofx_load_map(etr_oracle_map_t *map, const char *path);

// Aligns and judges (policy NULL = the defaults); asserts success.
void ofx_judge(etr_method_t *reference, const etr_oracle_values_t *candidate,
               const etr_oracle_map_t *map, bool same_program,
               const etr_oracle_policy_t *policy,
               etr_oracle_alignment_t *alignment,
               etr_oracle_result_t *result);

// The result diverges, its first diverging op is reference instruction
// `instruction` (chain 0) with operator `op`, no later op diverges (they
// agree, propagate or are not compared) and every op before it agrees
// (nothing before the first divergence can be propagated: in-tolerance
// differences carried through agree).
void ofx_assert_localized(const etr_oracle_result_t *result,
                          uint32_t instruction, const char *op);

// Every op and output agrees or propagates; the verdict is agree.
void ofx_assert_agrees(const etr_oracle_result_t *result);

#endif  // ETR_PROF_ORACLE_TEST_FIXTURE_H
