// SPDX-License-Identifier: Apache-2.0
//
// The dense fast path of add.out, sub.out and mul.out (see elementwise.h):
// a call on Float (or, for add and sub, Long) tensors whose out already
// has the broadcast shape, every tensor dense and row-major, each input
// either out's own shape or a single element, alpha the Int 1. Such a call
// is valid by construction, so it skips the probe, the plan and the
// reference's checks and runs one microkernel call (Float) or one loop
// (Long) over the whole tensor: a tiny op's cost is then the executor's
// and the kernel's, not the setup's. The comparisons with a Scalar
// (eq/ne/lt/le/gt/ge.Scalar_out) have one too. Anything else returns
// false with nothing written, and the caller takes its general path. On
// an instruction's fixed arguments the arithmetic path decides once: the
// vouched calls after the first (ctx->args_checked) reuse its decision
// from ctx->memo.
#include "ops_optimized/binary/binary.h"
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/common/memo.h"
#include "ops_optimized/isa.h"
#include "ops_reference/support/element.h"

// How an input lines up with out: element i of out reads element i of it
// (VECTOR), or its one element (SCALAR).
typedef enum dense_role { ROLE_NONE, ROLE_VECTOR, ROLE_SCALAR } dense_role_t;

static dense_role_t role_of(const etr_tensor_t *input,
                            const etr_tensor_t *out, int64_t out_numel,
                            size_t element) {
  int64_t numel = 0;
  if (!etr_dense_row_major(input, &numel)) {
    return ROLE_NONE;
  }
  size_t out_bytes = (size_t)out_numel * element;
  if (numel == out_numel) {
    // In place (out is this input) reads each element before writing it.
    bool same = input->data == out->data;
    return same || etr_dense_disjoint(input->data, out_bytes, out->data,
                                      out_bytes)
               ? ROLE_VECTOR
               : ROLE_NONE;
  }
  return numel == 1 && etr_dense_disjoint(input->data, element, out->data,
                                          out_bytes)
             ? ROLE_SCALAR
             : ROLE_NONE;
}

// True when broadcasting a and b gives exactly out's shape (so resizing
// out would not change it).
static bool broadcasts_to_out(const etr_tensor_t *a, const etr_tensor_t *b,
                              const etr_tensor_t *out) {
  int32_t dim = a->dim > b->dim ? a->dim : b->dim;
  if (dim != out->dim) {
    return false;
  }
  for (int32_t i = 1; i <= dim; ++i) {
    int64_t sa = i <= a->dim ? a->sizes[a->dim - i] : 1;
    int64_t sb = i <= b->dim ? b->sizes[b->dim - i] : 1;
    int64_t size = sa == sb ? sa : (sa == 1 ? sb : (sb == 1 ? sa : -1));
    if (size != out->sizes[dim - i]) {
      return false;
    }
  }
  return true;
}

static void run_long(etr_binary_op_t op, int64_t n, const int64_t *a,
                     bool a_vector, const int64_t *b, bool b_vector,
                     int64_t *y) {
  // Wrapping 64-bit arithmetic, the reference's int64 op-math: b negated
  // for a subtraction, then one loop per operand pattern (which the
  // compiler vectorizes; a per-element choice kept it scalar).
  const uint64_t *x = (const uint64_t *)a;
  const uint64_t *z = (const uint64_t *)b;
  uint64_t *out = (uint64_t *)y;
  uint64_t sign = op == ETR_BINARY_ADD ? 1 : (uint64_t)-1;
  if (a_vector && b_vector) {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = x[i] + sign * z[i];
    }
  } else if (a_vector) {
    uint64_t z0 = sign * z[0];
    for (int64_t i = 0; i < n; ++i) {
      out[i] = x[i] + z0;
    }
  } else {
    uint64_t x0 = x[0];
    for (int64_t i = 0; i < n; ++i) {
      out[i] = x0 + sign * z[i];
    }
  }
}

// A call's decision: its dtype, length and how each input lines up with
// out. Kept in ctx->memo on an instruction's fixed arguments, so a
// vouched call (ctx->args_checked: the same tensors, shapes and data
// pointers) goes straight to run_plan. (An instruction's kernel, and so
// its op, never changes.)
typedef struct dense_plan {
  uint32_t mark;  // DENSE_MEMO_MARK once kept
  bool is_long;   // Long tensors, else Float
  dense_role_t role_a, role_b;
  int64_t n;
} dense_plan_t;

enum { DENSE_MEMO_MARK = 0x646e7331 };  // "dns1"

_Static_assert(sizeof(dense_plan_t) <= ETR_KERNEL_MEMO_BYTES,
               "dense_plan_t must fit a kernel memo");

// out = a op b on the plan's pattern.
static void run_plan(const dense_plan_t *p, etr_binary_op_t op,
                     const void *a, const void *b, void *y) {
  if (p->is_long) {
    run_long(op, p->n, a, p->role_a == ROLE_VECTOR, b,
             p->role_b == ROLE_VECTOR, y);
    return;
  }
  const etr_f32_binary_kernels_t *k = etr_f32_binary_for(etr_isa_active());
  const etr_binary_params_t params = {.alpha = 0.0};
  const float *x = a;
  const float *z = b;
  if (p->role_a == ROLE_VECTOR && p->role_b == ROLE_VECTOR) {
    k->vv[op]((size_t)p->n, x, z, y, &params);
  } else if (p->role_a == ROLE_VECTOR) {
    k->vs[op]((size_t)p->n, x, z[0], y, &params);
  } else {
    k->sv[op]((size_t)p->n, x[0], z, y, &params);
  }
}

// Decides a call (see etr_binary_dense) into *p; false when it is not one
// the dense path takes.
static bool plan_dense(etr_evalue_t **args, size_t num_args,
                       etr_binary_op_t op, dense_plan_t *p) {
  bool has_alpha = op == ETR_BINARY_ADD || op == ETR_BINARY_SUB;
  size_t out_index = has_alpha ? 3 : 2;
  if (num_args != out_index + 2) {
    return false;
  }
  int64_t alpha = 0;
  if (has_alpha && (!etr_dense_int_arg(args, 2, &alpha) || alpha != 1)) {
    return false;
  }
  const etr_tensor_t *a = etr_dense_tensor_arg(args, 0);
  const etr_tensor_t *b = etr_dense_tensor_arg(args, 1);
  const etr_tensor_t *out = etr_dense_tensor_arg(args, out_index);
  if (a == NULL || b == NULL || out == NULL || a->dtype != out->dtype ||
      b->dtype != out->dtype ||
      !(out->dtype == ETR_FLOAT || (out->dtype == ETR_LONG && has_alpha)) ||
      !broadcasts_to_out(a, b, out)) {
    return false;
  }
  int64_t n = 0;
  if (!etr_dense_row_major(out, &n)) {
    return false;
  }
  size_t element = out->dtype == ETR_FLOAT ? sizeof(float) : sizeof(int64_t);
  *p = (dense_plan_t){
      .mark = DENSE_MEMO_MARK,
      .is_long = out->dtype == ETR_LONG,
      .role_a = role_of(a, out, n, element),
      .role_b = role_of(b, out, n, element),
      .n = n,
  };
  return p->role_a != ROLE_NONE && p->role_b != ROLE_NONE &&
         !(p->role_a == ROLE_SCALAR && p->role_b == ROLE_SCALAR);
}

bool etr_binary_dense(etr_kernel_context_t *ctx, etr_evalue_t **args,
                      size_t num_args, etr_binary_op_t op) {
  size_t out_index = op == ETR_BINARY_ADD || op == ETR_BINARY_SUB ? 3 : 2;
  const dense_plan_t *kept = etr_opt_vouched_memo(ctx, DENSE_MEMO_MARK);
  if (kept != NULL) {
    run_plan(kept, op, args[0]->u.as_tensor->data,
             args[1]->u.as_tensor->data, args[out_index]->u.as_tensor->data);
    return true;
  }
  if (etr_binary_rows_memo_run(ctx)) {
    return true;
  }
  dense_plan_t plan;
  if (!plan_dense(args, num_args, op, &plan)) {
    return false;
  }
  if (ctx->dry_run) {
    return true;
  }
  run_plan(&plan, op, args[0]->u.as_tensor->data,
           args[1]->u.as_tensor->data, args[out_index]->u.as_tensor->data);
  if (ctx->memo != NULL) {
    *(dense_plan_t *)ctx->memo = plan;
  }
  return true;
}

bool etr_compare_dense_scalar(etr_evalue_t **args, size_t num_args,
                              etr_compare_op_t op, bool dry_run) {
  if (num_args != 4 || args[1] == NULL ||
      (args[1]->tag != ETR_TAG_INT && args[1]->tag != ETR_TAG_DOUBLE)) {
    return false;
  }
  const etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 2);
  int64_t n = 0;
  int64_t out_numel = 0;
  if (self == NULL || out == NULL || self->dtype != ETR_FLOAT ||
      out->dtype != ETR_BOOL ||
      !etr_dense_has_shape(out, self->dim, self->sizes) ||
      !etr_dense_row_major(self, &n) ||
      !etr_dense_row_major(out, &out_numel) ||
      !etr_dense_disjoint(self->data, (size_t)n * sizeof(float), out->data,
                          (size_t)n)) {
    return false;
  }
  if (dry_run) {
    return true;
  }
  // The Scalar rounded to the result dtype (Float), as the reference
  // wraps it in a tensor (etr_ew_operand_scalar).
  double scalar = args[1]->tag == ETR_TAG_INT ? (double)args[1]->u.as_int
                                              : args[1]->u.as_double;
  float value = (float)etr_round_double(ETR_FLOAT, scalar);
  const etr_f32_binary_kernels_t *k = etr_f32_binary_for(etr_isa_active());
  k->compare_vs[op]((size_t)n, self->data, value, out->data);
  return true;
}
