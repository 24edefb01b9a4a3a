// SPDX-License-Identifier: Apache-2.0
//
// Internal interface between the parts of method loading (method_load.c,
// method_values.c) and execution (method_execute.c). Not for users.
#ifndef ETR_CORE_METHOD_INTERNAL_H
#define ETR_CORE_METHOD_INTERNAL_H

#include "core/method.h"

// Field ids of schema/program.fbs tables used by the method code.
enum { ETR_EVALUE_VAL_TYPE = 0 };  // union: type at 0, value at 1
enum {
  ETR_KERNEL_TYPE_NONE = 0,
  ETR_KERNEL_TYPE_NULL = 1,
  ETR_KERNEL_TYPE_INT = 2,
  ETR_KERNEL_TYPE_BOOL = 3,
  ETR_KERNEL_TYPE_DOUBLE = 4,
  ETR_KERNEL_TYPE_TENSOR = 5,
  ETR_KERNEL_TYPE_STRING = 6,
  ETR_KERNEL_TYPE_INT_LIST = 7,
  ETR_KERNEL_TYPE_DOUBLE_LIST = 8,
  ETR_KERNEL_TYPE_BOOL_LIST = 9,
  ETR_KERNEL_TYPE_TENSOR_LIST = 10,
  ETR_KERNEL_TYPE_OPTIONAL_TENSOR_LIST = 11,
};

// Parses every EValue of the plan's `values` vector into method->values.
// Planned buffers must already be set up.
etr_error_t etr_method_parse_values(etr_method_t *method,
                                    const etr_fb_vector_t *values,
                                    etr_diag_t *diag);

// Allocates `count` zeroed elements from the method's load arena, failing
// with MemoryAllocationFailed (naming `what`) when the cap is reached.
void *etr_method_alloc(etr_method_t *method, size_t count, size_t size,
                       const char *what, etr_diag_t *diag);

// Sets etr_instruction_t.args_fixed (and memo, constant_args) of every
// KernelCall (method_fixed_args.c).
// Chains, inputs and values must be parsed.
etr_error_t etr_method_mark_fixed_args(etr_method_t *method,
                                       etr_diag_t *diag);

#endif  // ETR_CORE_METHOD_INTERNAL_H
