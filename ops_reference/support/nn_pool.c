// SPDX-License-Identifier: Apache-2.0
//
// N-d pooling shapes and windows (see nn_pool.h).
#include "ops_reference/support/nn_pool.h"

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/pool.h"
#include "ops_reference/support/shape.h"

etr_error_t etr_nn_pool_check_input(etr_kernel_context_t *ctx,
                                    const etr_tensor_t *input,
                                    int32_t spatial) {
  bool ok = input->dim == spatial + 1 || input->dim == spatial + 2;
  int32_t first = input->dim == spatial + 2 ? 1 : 0;
  for (int32_t d = first; ok && d < input->dim; ++d) {
    ok = input->sizes[d] > 0;
  }
  ETR_CHECK(ctx->diag, ok, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a %dD or %dD (batch mode) input with non-zero "
            "non-batch dims, got rank %d",
            etr_op_name(ctx), (int)(spatial + 1), (int)(spatial + 2),
            (int)input->dim);
  return ETR_OK;
}

etr_error_t etr_nn_pool_out_shape(etr_kernel_context_t *ctx,
                                  const etr_tensor_t *input,
                                  const etr_nn_pool_t *pool,
                                  int64_t *sizes_out) {
  ETR_TRY(etr_nn_pool_check_input(ctx, input, pool->spatial));
  int32_t first = input->dim - pool->spatial;
  for (int32_t d = 0; d < input->dim; ++d) {
    sizes_out[d] = input->sizes[d];
  }
  for (int32_t s = 0; s < pool->spatial; ++s) {
    ETR_CHECK(ctx->diag,
              pool->kernel[s] > 0 && pool->stride[s] > 0 &&
                  pool->dilation[s] > 0,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: kernel size, stride and dilation must be greater than "
              "zero, got %lld, %lld, %lld",
              etr_op_name(ctx), (long long)pool->kernel[s],
              (long long)pool->stride[s], (long long)pool->dilation[s]);
    ETR_CHECK(ctx->diag,
              pool->padding[s] >= 0 && pool->padding[s] <= pool->kernel[s] / 2,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: pad should be at least 0 and at most half of kernel size, "
              "got pad %lld for kernel %lld",
              etr_op_name(ctx), (long long)pool->padding[s],
              (long long)pool->kernel[s]);
    int64_t size = 0;
    ETR_CHECK(ctx->diag,
              etr_pool_output_size(input->sizes[first + s], pool->kernel[s],
                                   pool->padding[s], pool->stride[s],
                                   pool->dilation[s], pool->ceil_mode, &size),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: pooling parameters overflow int64", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, size >= 1, ETR_ERR_INVALID_ARGUMENT,
              "%s: calculated output size %lld is too small",
              etr_op_name(ctx), (long long)size);
    sizes_out[first + s] = size;
  }
  return ETR_OK;
}

// The shape checks bound every window: start = o * stride - pad lies in
// [-pad, in + pad) and the window span in [1, in + 2 pad], so none of the
// sums below overflows.
void etr_nn_avg_window(const etr_nn_pool_t *pool, int32_t s, int64_t o,
                       int64_t in, int64_t *start, int64_t *end,
                       int64_t *padded_count) {
  int64_t first = o * pool->stride[s] - pool->padding[s];
  int64_t last = first + pool->kernel[s];
  int64_t padded_end = in + pool->padding[s];
  last = last < padded_end ? last : padded_end;
  *padded_count = last - first;
  *start = first > 0 ? first : 0;
  *end = last < in ? last : in;
}

void etr_nn_max_window(const etr_nn_pool_t *pool, int32_t s, int64_t o,
                       int64_t in, int64_t *first, int64_t *count) {
  int64_t start = o * pool->stride[s] - pool->padding[s];
  int64_t dilation = pool->dilation[s];
  int64_t stop = start + (pool->kernel[s] - 1) * dilation + 1;
  if (start < 0) {
    start += ((-start + dilation - 1) / dilation) * dilation;
  }
  int64_t limit = stop < in ? stop : in;
  *first = start;
  // Counting taps keeps every position below `limit`: no `+= dilation`
  // past it, which could overflow for a huge dilation.
  *count = start < limit ? (limit - start - 1) / dilation + 1 : 0;
}

int64_t etr_nn_integer_lowest(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_CHAR:
      return INT8_MIN;
    case ETR_SHORT:
      return INT16_MIN;
    case ETR_INT:
      return INT32_MIN;
    case ETR_LONG:
      return INT64_MIN;
    default:
      return 0;  // Byte and the wider unsigned types
  }
}

void etr_nn_avg_pool(const etr_tensor_t *in, const etr_nn_pool_t *pool,
                     const etr_nn_avg_options_t *options, etr_tensor_t *out) {
  int32_t spatial = pool->spatial;
  bool floating = etr_dtype_kind(in->dtype) == ETR_KIND_FLOATING;
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t start[ETR_NN_MAX_SPATIAL];
    int64_t end[ETR_NN_MAX_SPATIAL];
    int64_t padded = 1;
    int64_t inside = 1;
    bool empty = false;
    for (int32_t s = 0; s < spatial; ++s) {
      int64_t count = 0;
      etr_nn_avg_window(pool, s, iter.index[2 + s], in->sizes[2 + s],
                        &start[s], &end[s], &count);
      padded = etr_saturating_mul(padded, count);
      empty = empty || start[s] >= end[s];
      inside *= end[s] - start[s];
    }
    void *target = etr_element_at(out, iter.offsets[0]);
    if (empty) {  // unreachable with checked shapes; ATen leaves 0
      etr_store_int64(out->dtype, target, 0);
      continue;
    }
    int64_t base = iter.index[0] * in->strides[0] +
                   iter.index[1] * in->strides[1];
    int64_t position[ETR_NN_MAX_SPATIAL];
    for (int32_t s = 0; s < spatial; ++s) {
      position[s] = start[s];
    }
    double sum = 0.0;
    uint64_t int_sum = 0;
    for (;;) {
      int64_t offset = base;
      for (int32_t s = 0; s < spatial; ++s) {
        offset += position[s] * in->strides[2 + s];
      }
      const void *element = etr_element_at(in, offset);
      if (floating) {
        sum += etr_load_double(in->dtype, element);
      } else {
        int_sum += (uint64_t)etr_load_int64(in->dtype, element);
      }
      int32_t s = spatial - 1;
      while (s >= 0 && ++position[s] == end[s]) {
        position[s] = start[s];
        --s;
      }
      if (s < 0) {
        break;
      }
    }
    int64_t divisor = options->has_divisor        ? options->divisor
                      : options->count_include_pad ? padded
                                                   : inside;
    if (floating) {
      etr_store_double(out->dtype, target, sum / (double)divisor);
    } else {
      etr_store_int64(out->dtype, target,
                      etr_nn_trunc_div((int64_t)int_sum, divisor));
    }
  }
}

void etr_nn_adaptive_avg_pool(const etr_tensor_t *in, etr_tensor_t *out) {
  int32_t spatial = in->dim - 2;
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t start[ETR_NN_MAX_SPATIAL];
    int64_t end[ETR_NN_MAX_SPATIAL];
    int64_t position[ETR_NN_MAX_SPATIAL];
    int64_t count = 1;
    for (int32_t s = 0; s < spatial; ++s) {
      start[s] = etr_nn_adaptive_start(iter.index[2 + s], out->sizes[2 + s],
                                       in->sizes[2 + s]);
      end[s] = etr_nn_adaptive_end(iter.index[2 + s], out->sizes[2 + s],
                                   in->sizes[2 + s]);
      position[s] = start[s];
      count *= end[s] - start[s];
    }
    int64_t base = iter.index[0] * in->strides[0] +
                   iter.index[1] * in->strides[1];
    double sum = 0.0;
    for (;;) {
      int64_t offset = base;
      for (int32_t s = 0; s < spatial; ++s) {
        offset += position[s] * in->strides[2 + s];
      }
      sum += etr_load_double(in->dtype, etr_element_at(in, offset));
      int32_t s = spatial - 1;
      while (s >= 0 && ++position[s] == end[s]) {
        position[s] = start[s];
        --s;
      }
      if (s < 0) {
        break;
      }
    }
    etr_store_double(out->dtype, etr_element_at(out, iter.offsets[0]),
                     sum / (double)count);
  }
}
