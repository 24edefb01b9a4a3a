// SPDX-License-Identifier: Apache-2.0
//
// The reference kernels: one simple C kernel per operator, the oracle the
// optimized kernels are tested against.
//
// Every kernel has the signature of core/kernel.h (etr_kernel_fn) and is
// called with the out-variant schema's arguments in schema order plus one
// trailing return slot (the out tensor again, or a TensorList of the outs
// for ops with several). Kernels resize their outs to the result shape,
// read inputs through their strides (so non-contiguous and channels-last
// inputs work), write outs in the outs' own layout, never allocate and
// never abort. With ctx->dry_run set, a kernel checks its arguments and
// resizes its outs exactly as in a real call and returns without touching
// tensor data (data pointers may be NULL); checks that depend on values
// (integer division by zero, index_put's bounds) happen only in real calls.
//
// Status codes (see support/dtype.h for the dtype conventions):
//   OK; InvalidProgram for a wrong argument count; InvalidType for an
//   argument of the wrong EValue tag; InvalidArgument for values PyTorch
//   rejects (bad dims, shapes that do not match, outs too small, dtype
//   combinations that cannot be cast); NotSupported for a dtype the op is
//   not implemented for.
//
// Naming: etr_ref_<op>_<overload>, with the op's leading underscore
// dropped (aten::_softmax.out -> etr_ref_softmax_out) and the file named
// likewise (op_softmax.c), as ExecuTorch's portable kernels are named.
#ifndef ETR_OPS_REFERENCE_OPS_REFERENCE_H
#define ETR_OPS_REFERENCE_OPS_REFERENCE_H

#include <stddef.h>

#include "core/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

// Every reference kernel, by operator name ("aten::add.out").
extern const etr_kernel_registration_t etr_reference_kernels[];
extern const size_t etr_reference_kernel_count;

#define ETR_REFERENCE_KERNEL(name)                                        \
  etr_error_t name(etr_kernel_context_t *ctx, etr_evalue_t **args,        \
                   size_t num_args)

// Arithmetic (op_add.c, op_sub.c, op_mul.c, op_div.c, op_remainder.c).
ETR_REFERENCE_KERNEL(etr_ref_add_out);          // aten::add.out
ETR_REFERENCE_KERNEL(etr_ref_add_scalar_out);   // aten::add.Scalar_out
ETR_REFERENCE_KERNEL(etr_ref_sub_out);          // aten::sub.out
ETR_REFERENCE_KERNEL(etr_ref_sub_scalar_out);   // aten::sub.Scalar_out
ETR_REFERENCE_KERNEL(etr_ref_mul_out);          // aten::mul.out
ETR_REFERENCE_KERNEL(etr_ref_mul_scalar_out);   // aten::mul.Scalar_out
ETR_REFERENCE_KERNEL(etr_ref_div_out);          // aten::div.out
ETR_REFERENCE_KERNEL(etr_ref_div_out_mode);     // aten::div.out_mode
ETR_REFERENCE_KERNEL(etr_ref_div_scalar_out);   // aten::div.Scalar_out
// aten::remainder.Scalar_out
ETR_REFERENCE_KERNEL(etr_ref_remainder_scalar_out);
// aten::remainder.Tensor_out
ETR_REFERENCE_KERNEL(etr_ref_remainder_tensor_out);
// aten::pow.Tensor_Scalar_out
ETR_REFERENCE_KERNEL(etr_ref_pow_tensor_scalar_out);

// Unary and activation functions.
ETR_REFERENCE_KERNEL(etr_ref_neg_out);       // aten::neg.out
ETR_REFERENCE_KERNEL(etr_ref_exp_out);       // aten::exp.out
ETR_REFERENCE_KERNEL(etr_ref_sqrt_out);      // aten::sqrt.out
ETR_REFERENCE_KERNEL(etr_ref_rsqrt_out);     // aten::rsqrt.out
ETR_REFERENCE_KERNEL(etr_ref_sigmoid_out);   // aten::sigmoid.out
ETR_REFERENCE_KERNEL(etr_ref_tanh_out);      // aten::tanh.out
ETR_REFERENCE_KERNEL(etr_ref_relu_out);      // aten::relu.out
ETR_REFERENCE_KERNEL(etr_ref_hardtanh_out);  // aten::hardtanh.out
ETR_REFERENCE_KERNEL(etr_ref_clamp_out);     // aten::clamp.out
ETR_REFERENCE_KERNEL(etr_ref_gelu_out);      // aten::gelu.out

// Comparisons and selection (op_gt.c, op_lt.c, op_eq.c, op_where.c).
ETR_REFERENCE_KERNEL(etr_ref_gt_scalar_out);  // aten::gt.Scalar_out
ETR_REFERENCE_KERNEL(etr_ref_gt_tensor_out);  // aten::gt.Tensor_out
ETR_REFERENCE_KERNEL(etr_ref_lt_scalar_out);  // aten::lt.Scalar_out
ETR_REFERENCE_KERNEL(etr_ref_lt_tensor_out);  // aten::lt.Tensor_out
ETR_REFERENCE_KERNEL(etr_ref_eq_scalar_out);  // aten::eq.Scalar_out
ETR_REFERENCE_KERNEL(etr_ref_eq_tensor_out);  // aten::eq.Tensor_out
ETR_REFERENCE_KERNEL(etr_ref_where_self_out);  // aten::where.self_out

// Linear algebra.
ETR_REFERENCE_KERNEL(etr_ref_mm_out);      // aten::mm.out
ETR_REFERENCE_KERNEL(etr_ref_bmm_out);     // aten::bmm.out
ETR_REFERENCE_KERNEL(etr_ref_addmm_out);   // aten::addmm.out
ETR_REFERENCE_KERNEL(etr_ref_linear_out);  // aten::linear.out

// Convolution, pooling, normalization.
ETR_REFERENCE_KERNEL(etr_ref_convolution_out);  // aten::convolution.out
// aten::max_pool2d_with_indices.out
ETR_REFERENCE_KERNEL(etr_ref_max_pool2d_with_indices_out);
ETR_REFERENCE_KERNEL(etr_ref_avg_pool2d_out);           // aten::avg_pool2d.out
// aten::_adaptive_avg_pool2d.out
ETR_REFERENCE_KERNEL(etr_ref_adaptive_avg_pool2d_out);
// aten::_native_batch_norm_legit_no_training.out
ETR_REFERENCE_KERNEL(etr_ref_native_batch_norm_legit_no_training_out);
// aten::native_layer_norm.out
ETR_REFERENCE_KERNEL(etr_ref_native_layer_norm_out);
ETR_REFERENCE_KERNEL(etr_ref_softmax_out);       // aten::_softmax.out
ETR_REFERENCE_KERNEL(etr_ref_log_softmax_out);   // aten::_log_softmax.out

// Reductions.
ETR_REFERENCE_KERNEL(etr_ref_sum_intlist_out);  // aten::sum.IntList_out
ETR_REFERENCE_KERNEL(etr_ref_mean_out);         // aten::mean.out
ETR_REFERENCE_KERNEL(etr_ref_any_all_out);      // aten::any.all_out

// Creation.
ETR_REFERENCE_KERNEL(etr_ref_full_out);       // aten::full.out
ETR_REFERENCE_KERNEL(etr_ref_full_like_out);  // aten::full_like.out

// Data movement and copies.
ETR_REFERENCE_KERNEL(etr_ref_permute_copy_out);    // aten::permute_copy.out
ETR_REFERENCE_KERNEL(etr_ref_view_copy_out);       // aten::view_copy.out
ETR_REFERENCE_KERNEL(etr_ref_expand_copy_out);     // aten::expand_copy.out
// aten::unsqueeze_copy.out
ETR_REFERENCE_KERNEL(etr_ref_unsqueeze_copy_out);
// aten::squeeze_copy.dims_out
ETR_REFERENCE_KERNEL(etr_ref_squeeze_copy_dims_out);
// aten::slice_copy.Tensor_out
ETR_REFERENCE_KERNEL(etr_ref_slice_copy_tensor_out);
// aten::select_copy.int_out
ETR_REFERENCE_KERNEL(etr_ref_select_copy_int_out);
// aten::split_with_sizes_copy.out
ETR_REFERENCE_KERNEL(etr_ref_split_with_sizes_copy_out);
ETR_REFERENCE_KERNEL(etr_ref_cat_out);            // aten::cat.out
ETR_REFERENCE_KERNEL(etr_ref_slice_scatter_out);  // aten::slice_scatter.out
ETR_REFERENCE_KERNEL(etr_ref_index_put_out);      // aten::index_put.out
ETR_REFERENCE_KERNEL(etr_ref_clone_out);          // aten::clone.out
ETR_REFERENCE_KERNEL(etr_ref_copy_out);           // aten::copy.out
ETR_REFERENCE_KERNEL(etr_ref_copy_inplace);       // aten::copy_
ETR_REFERENCE_KERNEL(etr_ref_to_copy_out);        // aten::_to_copy.out
// dim_order_ops::_to_dim_order_copy.out
ETR_REFERENCE_KERNEL(etr_ref_to_dim_order_copy_out);
// dim_order_ops::_clone_dim_order.out
ETR_REFERENCE_KERNEL(etr_ref_clone_dim_order_out);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_OPS_REFERENCE_H
