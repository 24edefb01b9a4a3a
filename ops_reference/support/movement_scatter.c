// SPDX-License-Identifier: Apache-2.0
//
// The gather/scatter checks and the scatter reference loop (see
// movement_scatter.h).
#include "ops_reference/support/movement_scatter.h"

#include <math.h>
#include <string.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

void etr_movement_nonempty_view(const etr_tensor_t *tensor,
                                etr_tensor_t *view) {
  *view = *tensor;
  if (tensor->dim == 0) {
    view->dim = 1;
    view->sizes[0] = 1;
    view->strides[0] = 0;
    view->dim_order[0] = 0;
  }
}

static int32_t nonempty_dim(const etr_tensor_t *tensor) {
  return tensor->dim > 0 ? tensor->dim : 1;
}

static int64_t nonempty_size(const etr_tensor_t *tensor, int32_t d) {
  return tensor->dim > 0 ? tensor->sizes[d] : 1;
}

etr_error_t etr_movement_check_gather(etr_kernel_context_t *ctx,
                                      const etr_tensor_t *self, int32_t dim,
                                      const etr_tensor_t *index) {
  if (etr_numel(index) == 0) {
    // ATen checks neither the index dtype nor the shapes when there is
    // nothing to gather.
    return ETR_OK;
  }
  ETR_TRY(etr_movement_check_index_dtype(ctx, "index", index));
  int32_t rank = nonempty_dim(self);
  ETR_CHECK(ctx->diag, nonempty_dim(index) == rank, ETR_ERR_INVALID_ARGUMENT,
            "%s: index tensor must have the same number of dimensions as "
            "input tensor (%d, not %d)",
            etr_op_name(ctx), (int)self->dim, (int)index->dim);
  for (int32_t d = 0; d < rank; ++d) {
    ETR_CHECK(ctx->diag,
              d == dim || nonempty_size(index, d) <= nonempty_size(self, d),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: size does not match at dimension %d: index has %lld, "
              "self %lld",
              etr_op_name(ctx), (int)d, (long long)nonempty_size(index, d),
              (long long)nonempty_size(self, d));
  }
  return ETR_OK;
}

etr_error_t etr_movement_check_scatter(etr_kernel_context_t *ctx,
                                       const etr_tensor_t *self, int32_t dim,
                                       const etr_tensor_t *index,
                                       const etr_tensor_t *src) {
  if (src != NULL) {
    ETR_CHECK(ctx->diag, src->dtype == self->dtype, ETR_ERR_INVALID_ARGUMENT,
              "%s: expected self.dtype (%s) to be equal to src.dtype (%s)",
              etr_op_name(ctx), etr_scalar_type_name(self->dtype),
              etr_scalar_type_name(src->dtype));
  }
  if (etr_numel(index) == 0) {
    // ATen checks neither the index dtype nor the shapes when there is
    // nothing to scatter (src's dtype still has to match).
    return ETR_OK;
  }
  ETR_TRY(etr_movement_check_index_dtype(ctx, "index", index));
  int32_t rank = nonempty_dim(self);
  ETR_CHECK(ctx->diag, nonempty_dim(index) == rank, ETR_ERR_INVALID_ARGUMENT,
            "%s: index tensor must have the same number of dimensions as "
            "self tensor (%d, not %d)",
            etr_op_name(ctx), (int)self->dim, (int)index->dim);
  ETR_CHECK(ctx->diag, src == NULL || nonempty_dim(src) == rank,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: src must have the same number of dimensions as self (%d, "
            "not %d)",
            etr_op_name(ctx), (int)self->dim, src != NULL ? (int)src->dim : 0);
  for (int32_t d = 0; d < rank; ++d) {
    int64_t size = nonempty_size(index, d);
    bool fits = (d == dim || size <= nonempty_size(self, d)) &&
                (src == NULL || size <= nonempty_size(src, d));
    ETR_CHECK(ctx->diag, fits, ETR_ERR_INVALID_ARGUMENT,
              "%s: expected index to be no larger than self apart from "
              "dimension %d and no larger than src (dim %d has %lld)",
              etr_op_name(ctx), (int)dim, (int)d, (long long)size);
  }
  return ETR_OK;
}

etr_error_t etr_movement_check_index_bounds(etr_kernel_context_t *ctx,
                                            const etr_tensor_t *index,
                                            int32_t dim, int64_t size) {
  const etr_tensor_t *operands[1] = {index};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, index->dim, index->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t value = etr_movement_load_index(index, iter.offsets[0]);
    ETR_CHECK(ctx->diag, value >= 0 && value < size, ETR_ERR_INVALID_ARGUMENT,
              "%s: index %lld is out of bounds for dimension %d with size "
              "%lld",
              etr_op_name(ctx), (long long)value, (int)dim, (long long)size);
  }
  return ETR_OK;
}

// One value in the reduction's op-math type.
typedef struct accumulator {
  int64_t integer;  // Bool and integral kinds
  double real;      // floating and complex kinds
  double imag;
} accumulator_t;

static accumulator_t load(etr_scalar_type_t dtype, const void *element) {
  accumulator_t value = {0, 0.0, 0.0};
  switch (etr_dtype_kind(dtype)) {
    case ETR_KIND_COMPLEX: {
      etr_complex_t c = etr_load_complex(dtype, element);
      value.real = c.real;
      value.imag = c.imag;
      break;
    }
    case ETR_KIND_FLOATING:
      value.real = etr_load_double(dtype, element);
      break;
    default:
      value.integer = etr_load_int64(dtype, element);
      break;
  }
  return value;
}

static void store(etr_scalar_type_t dtype, void *element,
                  accumulator_t value) {
  switch (etr_dtype_kind(dtype)) {
    case ETR_KIND_COMPLEX: {
      etr_complex_t c = {value.real, value.imag};
      etr_store_complex(dtype, element, c);
      return;
    }
    case ETR_KIND_FLOATING:
      etr_store_double(dtype, element, value.real);
      return;
    default:
      etr_store_int64(dtype, element, value.integer);
      return;
  }
}

// Largest and smallest value of an integral dtype (the identities of amin
// and amax when self is left out).
static int64_t integral_limit(etr_scalar_type_t dtype, bool highest) {
  switch (dtype) {
    case ETR_BYTE:
      return highest ? UINT8_MAX : 0;
    case ETR_CHAR:
      return highest ? INT8_MAX : INT8_MIN;
    case ETR_SHORT:
      return highest ? INT16_MAX : INT16_MIN;
    case ETR_INT:
      return highest ? INT32_MAX : INT32_MIN;
    default:
      return highest ? INT64_MAX : INT64_MIN;
  }
}

static accumulator_t identity(etr_scalar_type_t dtype,
                              etr_movement_reduce_t reduce) {
  accumulator_t value = {0, 0.0, 0.0};
  etr_dtype_kind_t kind = etr_dtype_kind(dtype);
  if (reduce == ETR_MOVEMENT_PROD) {
    value.integer = 1;
    value.real = 1.0;
  } else if (reduce == ETR_MOVEMENT_AMAX || reduce == ETR_MOVEMENT_AMIN) {
    bool is_min = reduce == ETR_MOVEMENT_AMIN;
    value.real = is_min ? INFINITY : -INFINITY;
    value.integer = kind == ETR_KIND_BOOL ? (is_min ? 1 : 0)
                                          : integral_limit(dtype, is_min);
  }
  return value;
}

// The op-math type the reduction rounds to after every step.
static etr_scalar_type_t opmath(etr_scalar_type_t dtype) {
  return etr_complex_value_type(dtype) == ETR_DOUBLE ? ETR_DOUBLE : ETR_FLOAT;
}

static accumulator_t combine(etr_scalar_type_t dtype,
                             etr_movement_reduce_t reduce, accumulator_t acc,
                             accumulator_t v) {
  etr_dtype_kind_t kind = etr_dtype_kind(dtype);
  etr_scalar_type_t op = opmath(dtype);
  accumulator_t r = acc;
  if (reduce == ETR_MOVEMENT_ASSIGN) {
    return v;
  }
  if (kind == ETR_KIND_BOOL) {
    bool a = acc.integer != 0;
    bool b = v.integer != 0;
    bool is_or = reduce == ETR_MOVEMENT_SUM || reduce == ETR_MOVEMENT_MEAN ||
                 reduce == ETR_MOVEMENT_AMAX;
    r.integer = is_or ? (a || b) : (a && b);
    return r;
  }
  if (kind == ETR_KIND_INTEGRAL) {
    switch (reduce) {
      case ETR_MOVEMENT_PROD:
        r.integer = (int64_t)((uint64_t)acc.integer * (uint64_t)v.integer);
        break;
      case ETR_MOVEMENT_AMAX:
        r.integer = acc.integer < v.integer ? v.integer : acc.integer;
        break;
      case ETR_MOVEMENT_AMIN:
        r.integer = v.integer < acc.integer ? v.integer : acc.integer;
        break;
      default:
        r.integer = (int64_t)((uint64_t)acc.integer + (uint64_t)v.integer);
        break;
    }
    r.integer = etr_wrap_int64(dtype, r.integer);
    return r;
  }
  if (kind == ETR_KIND_COMPLEX) {
    if (reduce == ETR_MOVEMENT_PROD) {
      double ac = etr_round_double(op, acc.real * v.real);
      double bd = etr_round_double(op, acc.imag * v.imag);
      double ad = etr_round_double(op, acc.real * v.imag);
      double bc = etr_round_double(op, acc.imag * v.real);
      r.real = etr_round_double(op, ac - bd);
      r.imag = etr_round_double(op, ad + bc);
    } else {
      r.real = etr_round_double(op, acc.real + v.real);
      r.imag = etr_round_double(op, acc.imag + v.imag);
    }
    return r;
  }
  switch (reduce) {
    case ETR_MOVEMENT_PROD:
      r.real = etr_round_double(op, acc.real * v.real);
      break;
    case ETR_MOVEMENT_AMAX:  // std::max(self, src), a NaN src wins
      r.real = isnan(v.real) ? v.real : (acc.real < v.real ? v.real
                                                           : acc.real);
      break;
    case ETR_MOVEMENT_AMIN:  // std::min(self, src), a NaN src wins
      r.real = isnan(v.real) ? v.real : (v.real < acc.real ? v.real
                                                           : acc.real);
      break;
    default:
      r.real = etr_round_double(op, acc.real + v.real);
      break;
  }
  return r;
}

// ATen's mean: the sum rounded to the dtype, divided by the count (itself
// a tensor of the dtype, 0 replaced by 1); integers divide with floor.
static void store_mean(etr_scalar_type_t dtype, void *element,
                       accumulator_t sum, int64_t count) {
  store(dtype, element, sum);
  accumulator_t s = load(dtype, element);
  etr_dtype_kind_t kind = etr_dtype_kind(dtype);
  if (kind == ETR_KIND_INTEGRAL) {
    int64_t c = etr_wrap_int64(dtype, count);
    c = c == 0 ? 1 : c;
    int64_t q = 0;
    if (c == -1) {
      q = (int64_t)(0u - (uint64_t)s.integer);
    } else {
      q = s.integer / c;
      if (s.integer % c != 0 && ((s.integer < 0) != (c < 0))) {
        q -= 1;
      }
    }
    s.integer = q;
  } else {
    double c = etr_round_double(etr_complex_value_type(dtype), (double)count);
    c = c == 0.0 ? 1.0 : c;
    s.real = etr_round_double(opmath(dtype), s.real / c);
    s.imag = etr_round_double(opmath(dtype), s.imag / c);
  }
  store(dtype, element, s);
}

void etr_movement_scatter(const etr_tensor_t *self, int32_t dim,
                          const etr_tensor_t *index, const etr_tensor_t *src,
                          const void *value, etr_movement_reduce_t reduce,
                          bool include_self, etr_tensor_t *out) {
  etr_copy_strided(out, self);
  if (etr_numel(index) == 0) {
    return;
  }
  etr_tensor_t self_view;
  etr_tensor_t out_view;
  etr_tensor_t index_view;
  etr_tensor_t src_view;
  etr_movement_nonempty_view(self, &self_view);
  etr_movement_nonempty_view(out, &out_view);
  etr_movement_nonempty_view(index, &index_view);
  if (src != NULL) {
    etr_movement_nonempty_view(src, &src_view);
  }
  etr_scalar_type_t dtype = out->dtype;
  accumulator_t fixed_value = value != NULL ? load(dtype, value)
                                            : identity(dtype, reduce);
  const etr_tensor_t *operands[2] = {&out_view, &self_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, self_view.dim, self_view.sizes, operands, 2);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    const int64_t *t = iter.index;
    int64_t index_base = 0;
    int64_t src_base = 0;
    bool inside = true;
    for (int32_t d = 0; d < self_view.dim && inside; ++d) {
      if (d != dim) {
        inside = t[d] < index_view.sizes[d];
        index_base += t[d] * index_view.strides[d];
        src_base += src != NULL ? t[d] * src_view.strides[d] : 0;
      }
    }
    if (!inside) {
      continue;
    }
    bool keep_self = include_self || reduce == ETR_MOVEMENT_ASSIGN;
    accumulator_t acc =
        keep_self ? load(dtype, etr_element_at(self, iter.offsets[1]))
                  : identity(dtype, reduce);
    int64_t matches = 0;
    for (int64_t i = 0; i < index_view.sizes[dim]; ++i) {
      int64_t target = etr_movement_load_index(
          index, index_base + i * index_view.strides[dim]);
      if (target != t[dim]) {
        continue;
      }
      accumulator_t v =
          src != NULL
              ? load(dtype, etr_element_at(src, src_base +
                                                    i * src_view.strides[dim]))
              : fixed_value;
      acc = combine(dtype, reduce, acc, v);
      ++matches;
    }
    if (matches == 0) {
      continue;
    }
    void *element = etr_element_at(out, iter.offsets[0]);
    if (reduce == ETR_MOVEMENT_MEAN) {
      store_mean(dtype, element, acc, matches + (include_self ? 1 : 0));
    } else {
      store(dtype, element, acc);
    }
  }
}
