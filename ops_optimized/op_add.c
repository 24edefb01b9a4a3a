// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::add.out and aten::add.Scalar_out: out = self + alpha *
// other for Float, Half and BFloat16 results (binary/elementwise.h: same
// shape, a 0-dim or Scalar operand, bias-style and per-channel
// broadcasts, contiguous or channels-last). alpha 1 (or -1) adds (or
// subtracts) in float; any other alpha computes a + alpha * b in double
// and rounds once, as the reference. add.out on Long or Int tensors of
// one dtype (same shape, or a one-element other), dense with the same
// strides, runs a typed loop: a + alpha * b in wrapping 64-bit arithmetic
// then wrapped to the dtype, exactly the reference's int64 op-math (no
// per-element dtype dispatch; there is no SIMD 64-bit multiply worth
// having). Everything else, and argument errors, go to the reference
// kernels (ops_reference/op_add.c).
// .out calls on dense Float or Long tensors whose out already has the
// result shape try binary/dense.c first (no probe, no plan).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/common/check.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// Dense, same shape, the same strides wherever a stride matters.
static bool same_dense_layout(const etr_tensor_t *a, const etr_tensor_t *b) {
  if (!etr_tensor_same_shape(a, b) || !etr_tensor_is_dense(a) ||
      !etr_tensor_is_dense(b)) {
    return false;
  }
  for (int32_t d = 0; d < a->dim; ++d) {
    if (a->sizes[d] > 1 && a->strides[d] != b->strides[d]) {
      return false;
    }
  }
  return true;
}

// out = self + alpha * other on Long or Int tensors; false (nothing
// written) when the case is not one handled here. Runs after the
// reference's dry run accepted the arguments and resized out. out may be
// self (in place: each element reads only its own inputs); any other
// overlap is left to the reference.
static bool add_integers(const etr_tensor_t *self, const etr_tensor_t *other,
                         int64_t alpha, etr_tensor_t *out) {
  etr_scalar_type_t dtype = self->dtype;
  if ((dtype != ETR_LONG && dtype != ETR_INT) || other->dtype != dtype ||
      out->dtype != dtype || !same_dense_layout(self, out)) {
    return false;
  }
  bool broadcast = !etr_tensor_same_shape(self, other);
  if (broadcast ? etr_tensor_numel(other) != 1
                : !same_dense_layout(self, other)) {
    return false;
  }
  size_t n = (size_t)etr_tensor_numel(out);
  if (n == 0) {
    return true;
  }
  size_t bytes = n * etr_scalar_type_size(dtype);
  const uint8_t *y = (const uint8_t *)out->data;
  const uint8_t *b = (const uint8_t *)other->data;
  size_t b_bytes = broadcast ? etr_scalar_type_size(dtype) : bytes;
  if (y < b + b_bytes && b < y + bytes && !(b == y && !broadcast)) {
    return false;
  }
  const uint8_t *a = (const uint8_t *)self->data;
  if (y < a + bytes && a < y + bytes && a != y) {
    return false;
  }
  uint64_t scale = (uint64_t)alpha;
  if (dtype == ETR_LONG) {
    const int64_t *x = self->data;
    const int64_t *z = other->data;
    int64_t *result = out->data;
    for (size_t i = 0; i < n; ++i) {
      uint64_t term = scale * (uint64_t)z[broadcast ? 0 : i];
      result[i] = (int64_t)((uint64_t)x[i] + term);
    }
  } else {
    const int32_t *x = self->data;
    const int32_t *z = other->data;
    int32_t *result = out->data;
    for (size_t i = 0; i < n; ++i) {
      uint64_t term = scale * (uint64_t)(int64_t)z[broadcast ? 0 : i];
      result[i] = (int32_t)(uint32_t)((uint64_t)(int64_t)x[i] + term);
    }
  }
  return true;
}

// The integer path of add.out: probes, validates with the reference's dry
// run, then add_integers. *handled says whether it took the case.
static etr_error_t add_integer_tensors(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args,
                                       bool *handled) {
  *handled = false;
  etr_scalar_t alpha;
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_tensor_t *out = NULL;
  if (num_args != 5 || args[0] == NULL || args[0]->tag != ETR_TAG_TENSOR ||
      args[1] == NULL || args[1]->tag != ETR_TAG_TENSOR || args[3] == NULL ||
      args[3]->tag != ETR_TAG_TENSOR) {
    return ETR_OK;
  }
  self = args[0]->u.as_tensor;
  other = args[1]->u.as_tensor;
  out = args[3]->u.as_tensor;
  if ((self->dtype != ETR_LONG && self->dtype != ETR_INT) ||
      other->dtype != self->dtype || out->dtype != self->dtype ||
      !etr_ew_scalar_arg(ctx, args, num_args, 2, &alpha) ||
      alpha.kind != ETR_SCALAR_INT) {
    return ETR_OK;
  }
  if (etr_opt_check(etr_ref_add_out, ctx, args, num_args) != ETR_OK) {
    return ETR_OK;  // the reference reports it
  }
  if (ctx->dry_run) {
    *handled = true;
    return ETR_OK;
  }
  *handled = add_integers(self, other, alpha.as_int, out);
  return ETR_OK;
}

static etr_error_t add(etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args, bool scalar_other,
                       etr_kernel_fn reference) {
  etr_binary_call_t call;
  if (num_args != 5 ||
      !etr_binary_probe(ctx, args, num_args, scalar_other, false, false, 3,
                        &call) ||
      !etr_binary_alpha(ctx, args, num_args, false, &call)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  bool handled = false;
  etr_error_t status = etr_binary_execute(ctx, &call, &handled);
  return handled ? status : etr_opt_fallback(reference, ctx, args, num_args);
}

// aten::add.out
etr_error_t etr_opt_add_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  if (etr_binary_dense(args, num_args, ETR_BINARY_ADD, ctx->dry_run)) {
    return ETR_OK;
  }
  bool handled = false;
  etr_error_t status = add_integer_tensors(ctx, args, num_args, &handled);
  if (handled) {
    return status;
  }
  return add(ctx, args, num_args, false, etr_ref_add_out);
}

// aten::add.Scalar_out
etr_error_t etr_opt_add_scalar_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  return add(ctx, args, num_args, true, etr_ref_add_scalar_out);
}
