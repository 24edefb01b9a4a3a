// SPDX-License-Identifier: Apache-2.0
//
// The prim ops every exported program needs besides ATen kernels: symbolic
// size arithmetic (aten::sym_size.int, aten::sym_numel, aten::sym_stride.int,
// aten::sym_storage_offset, aten::sym_is_contiguous,
// executorch_prim::add.Scalar, floordiv, ...), aten::_local_scalar_dense,
// and executorch_prim::et_view.default (a view that shares its input's
// memory) and et_copy_index.tensor (used by lowered map/scan loops).
// Semantics follow ExecuTorch's kernels/prim_ops, except that integer
// division and modulo by zero (or INT64_MIN / -1), which crash ExecuTorch,
// are errors here. Under ctx->dry_run they check and resize but touch no
// tensor data (_local_scalar_dense then yields a placeholder value).
#ifndef ETR_CORE_PRIM_OPS_H
#define ETR_CORE_PRIM_OPS_H

#include <stddef.h>

#include "core/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const etr_kernel_registration_t etr_prim_kernels[];
extern const size_t etr_prim_kernel_count;

// The prim kernels that read only tensor metadata, callable by name so the
// optimized library can register them as its own (ops_optimized/op_sym_*.c,
// op_local_scalar_dense.c, op_et_view.c: no compute to specialize).
etr_error_t etr_prim_sym_size_int(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args);
etr_error_t etr_prim_sym_stride_int(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args);
etr_error_t etr_prim_sym_storage_offset(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args, size_t num_args);
etr_error_t etr_prim_sym_is_contiguous(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args);
etr_error_t etr_prim_sym_numel(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args);
etr_error_t etr_prim_local_scalar_dense(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args, size_t num_args);
etr_error_t etr_prim_et_view(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_PRIM_OPS_H
