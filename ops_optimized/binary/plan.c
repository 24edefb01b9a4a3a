// SPDX-License-Identifier: Apache-2.0
//
// The elementwise loop planner (see plan.h).
#include "ops_optimized/binary/plan.h"

#include <string.h>

bool etr_plan_broadcast_shape(int32_t dim_a, const int64_t *sizes_a,
                              int32_t dim_b, const int64_t *sizes_b,
                              int32_t *dim_out, int64_t *sizes_out) {
  int32_t dim = dim_a > dim_b ? dim_a : dim_b;
  for (int32_t i = 0; i < dim; ++i) {
    // Aligned at the innermost dim; a missing dim counts as 1.
    int32_t ia = i - (dim - dim_a);
    int32_t ib = i - (dim - dim_b);
    int64_t a = ia >= 0 ? sizes_a[ia] : 1;
    int64_t b = ib >= 0 ? sizes_b[ib] : 1;
    if (a != b && a != 1 && b != 1) {
      return false;
    }
    sizes_out[i] = a == 1 ? b : a;
  }
  *dim_out = dim;
  return true;
}

// One loop dim: its extent and every operand's stride along it.
typedef struct plan_dim {
  int64_t size;
  int64_t strides[ETR_PLAN_MAX_OPERANDS];
} plan_dim_t;

// The stride of `input` along out's dim `d`, 0 where it broadcasts; false
// when its extent there is neither out's nor 1.
static bool input_stride(const etr_tensor_t *input, const etr_tensor_t *out,
                         int32_t d, int64_t *stride) {
  int32_t di = d - (out->dim - input->dim);
  if (di < 0) {
    *stride = 0;
    return true;
  }
  if (input->sizes[di] == out->sizes[d]) {
    *stride = out->sizes[d] == 1 ? 0 : input->strides[di];
    return true;
  }
  *stride = 0;
  return input->sizes[di] == 1;
}

bool etr_plan_init(etr_plan_t *plan, const etr_tensor_t *out,
                   const etr_tensor_t *const *inputs, size_t num_inputs) {
  memset(plan, 0, sizeof(*plan));
  if (num_inputs > ETR_PLAN_MAX_INPUTS || out->dim > ETR_MAX_DIMS ||
      !etr_tensor_is_dense(out)) {
    return false;
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    if (inputs[i]->dim > out->dim) {
      return false;
    }
  }
  size_t operands = num_inputs + 1;
  plan->num_operands = operands;
  // Out's dims outermost first in memory, size-1 dims dropped, each merged
  // into the one outside it when every operand steps through both as one.
  plan_dim_t dims[ETR_MAX_DIMS];
  int32_t count = 0;
  for (int32_t k = 0; k < out->dim; ++k) {
    int32_t d = out->dim_order[k];
    plan_dim_t dim;
    dim.size = out->sizes[d];
    dim.strides[0] = out->strides[d];
    for (size_t i = 0; i < num_inputs; ++i) {
      if (!input_stride(inputs[i], out, d, &dim.strides[i + 1])) {
        return false;
      }
    }
    if (dim.size == 1) {
      continue;
    }
    bool merge = count > 0;
    for (size_t j = 0; j < operands && merge; ++j) {
      merge = dims[count - 1].strides[j] == dim.strides[j] * dim.size;
    }
    if (merge) {
      dims[count - 1].size *= dim.size;
      for (size_t j = 0; j < operands; ++j) {
        dims[count - 1].strides[j] = dim.strides[j];
      }
    } else {
      dims[count++] = dim;
    }
  }
  plan->run = 1;
  plan->runs = 1;
  if (count == 0) {  // a single element: every operand at offset 0
    return true;
  }
  const plan_dim_t *inner = &dims[count - 1];
  if (inner->strides[0] != 1) {
    return false;
  }
  bool some_input_varies = num_inputs == 0;
  for (size_t i = 1; i < operands; ++i) {
    if (inner->strides[i] != 0 && inner->strides[i] != 1) {
      return false;
    }
    plan->run_broadcast[i] = inner->strides[i] == 0;
    some_input_varies |= !plan->run_broadcast[i];
  }
  if (!some_input_varies) {
    return false;
  }
  plan->run = inner->size;
  plan->outer_dim = count - 1;
  for (int32_t k = 0; k < count - 1; ++k) {
    plan->outer_sizes[k] = dims[k].size;
    plan->runs *= dims[k].size;
    for (size_t j = 0; j < operands; ++j) {
      plan->outer_strides[j][k] = dims[k].strides[j];
    }
  }
  return true;
}

void etr_plan_cursor_init(etr_plan_cursor_t *cursor) {
  memset(cursor, 0, sizeof(*cursor));
}

void etr_plan_cursor_carry(etr_plan_cursor_t *cursor,
                           const etr_plan_t *plan) {
  for (int32_t k = plan->outer_dim - 1; k >= 0; --k) {
    for (size_t j = 0; j < plan->num_operands; ++j) {
      cursor->offsets[j] += plan->outer_strides[j][k];
    }
    if (++cursor->index[k] < plan->outer_sizes[k]) {
      return;
    }
    for (size_t j = 0; j < plan->num_operands; ++j) {
      cursor->offsets[j] -= plan->outer_strides[j][k] * plan->outer_sizes[k];
    }
    cursor->index[k] = 0;
  }
}
