// SPDX-License-Identifier: Apache-2.0
//
// The quantize / dequantize drivers (quant.h): check that a case is one
// the microkernels take, then walk input and out in memory order as
// [blocks, channels, inner], reading each channel's scale and zero point
// the way the reference does (support/quantize.h) and handing each run of
// `inner` elements to the active ISA's microkernel.
#include <string.h>

#include "ops_optimized/quant/quant.h"
#include "ops_reference/support/shape.h"

// Zero points the dequantize kernels take: q - zp stays inside int32 for
// every int8/uint8 q.
#define ETR_QUANT_MAX_ZERO_POINT ((int64_t)1 << 30)

// The memory walk of a case: `blocks` x `channels` runs of `inner`
// contiguous elements, run (b, c) at offset (b * channels + c) * inner,
// using channel c's parameters.
typedef struct quant_walk {
  size_t blocks;
  size_t channels;
  size_t inner;
} quant_walk_t;

static bool byte_ranges_overlap(const etr_tensor_t *a, const etr_tensor_t *b) {
  const uint8_t *a_begin = (const uint8_t *)a->data;
  const uint8_t *b_begin = (const uint8_t *)b->data;
  size_t a_bytes = etr_tensor_nbytes(a);
  size_t b_bytes = etr_tensor_nbytes(b);
  return a_begin < b_begin + b_bytes && b_begin < a_begin + a_bytes;
}

// Input and out dense, with the same shape and the same strides wherever
// a stride matters (so one memory walk serves both), not overlapping.
static bool plan_walk(const etr_tensor_t *input, const etr_tensor_t *out,
                      const etr_quant_params_t *params, quant_walk_t *walk) {
  if (!etr_tensor_same_shape(input, out) || !etr_tensor_is_dense(input) ||
      !etr_tensor_is_dense(out)) {
    return false;
  }
  for (int32_t d = 0; d < input->dim; ++d) {
    if (input->sizes[d] > 1 && input->strides[d] != out->strides[d]) {
      return false;
    }
  }
  size_t numel = (size_t)etr_tensor_numel(input);
  if (numel > 0 && (input->data == NULL || out->data == NULL ||
                    byte_ranges_overlap(input, out))) {
    return false;
  }
  // An empty tensor has no runs (and its parameter tensors may be empty).
  walk->blocks = numel > 0 ? 1 : 0;
  walk->channels = numel > 0 ? 1 : 0;
  walk->inner = numel;
  if (params->granularity == ETR_QUANT_PER_CHANNEL && numel > 0 &&
      input->sizes[params->axis] > 1) {
    // Dense: the channel axis's stride is the product of the sizes inside
    // it in memory, so runs of `stride` elements share a channel.
    walk->channels = (size_t)input->sizes[params->axis];
    walk->inner = (size_t)input->strides[params->axis];
    walk->blocks = numel / (walk->channels * walk->inner);
  } else if (params->granularity != ETR_QUANT_PER_TENSOR &&
             params->granularity != ETR_QUANT_PER_CHANNEL) {
    return false;
  }
  return true;
}

static double scale_of(const etr_quant_params_t *params, size_t channel) {
  return params->granularity == ETR_QUANT_PER_TENSOR
             ? params->scale
             : etr_quant_param_double(params->scales, (int64_t)channel);
}

static int64_t zero_point_of(const etr_quant_params_t *params,
                             size_t channel) {
  if (params->granularity == ETR_QUANT_PER_TENSOR) {
    return params->zero_point;
  }
  return params->zero_points == NULL
             ? 0
             : etr_quant_param_int64(params->zero_points, (int64_t)channel);
}

// Every zero point of the walk within [-limit, limit].
static bool zero_points_within(const etr_quant_params_t *params,
                               const quant_walk_t *walk, int64_t limit) {
  for (size_t c = 0; c < walk->channels; ++c) {
    int64_t zero_point = zero_point_of(params, c);
    if (zero_point < -limit || zero_point > limit) {
      return false;
    }
  }
  return true;
}

bool etr_quant_run_quantize(const etr_tensor_t *input, etr_tensor_t *out,
                            const etr_quant_params_t *params,
                            int64_t quant_min, int64_t quant_max) {
  // The microkernels clamp in float and convert the result, which must
  // then lie in the out dtype's range. The reference's checks leave
  // quant_max below it (and quant_min above) possible, with every value
  // clamped to that bound and wrapped as ExecuTorch's integer cast does:
  // the reference computes those.
  int64_t lower = 0;
  int64_t upper = 0;
  etr_quant_dtype_range(out->dtype, &lower, &upper);
  quant_walk_t walk;
  if (input->dtype != ETR_FLOAT ||
      (out->dtype != ETR_CHAR && out->dtype != ETR_BYTE) ||
      quant_min < lower || quant_min > upper || quant_max < lower ||
      quant_max > upper ||
      !plan_walk(input, out, params, &walk) ||
      !zero_points_within(params, &walk, INT32_MAX)) {
    return false;
  }
  const etr_quant_kernels_t *k = etr_quant_kernels_for(etr_isa_active());
  const float *x = (const float *)input->data;
  for (size_t c = 0; c < walk.channels; ++c) {
    etr_quantize_f32_params_t p;
    p.inverse_scale = etr_quant_inverse_scale(scale_of(params, c));
    p.zero_point = (float)zero_point_of(params, c);
    p.low = (float)quant_min;
    p.high = (float)quant_max;
    for (size_t b = 0; b < walk.blocks; ++b) {
      size_t offset = (b * walk.channels + c) * walk.inner;
      if (out->dtype == ETR_CHAR) {
        k->quantize_s8(walk.inner, x + offset, (int8_t *)out->data + offset,
                       &p);
      } else {
        k->quantize_u8(walk.inner, x + offset, (uint8_t *)out->data + offset,
                       &p);
      }
    }
  }
  return true;
}

bool etr_quant_run_dequantize(const etr_tensor_t *input, etr_tensor_t *out,
                              const etr_quant_params_t *params) {
  quant_walk_t walk;
  if ((input->dtype != ETR_CHAR && input->dtype != ETR_BYTE) ||
      out->dtype != ETR_FLOAT || !plan_walk(input, out, params, &walk) ||
      !zero_points_within(params, &walk, ETR_QUANT_MAX_ZERO_POINT)) {
    return false;
  }
  const etr_quant_kernels_t *k = etr_quant_kernels_for(etr_isa_active());
  float *y = (float *)out->data;
  for (size_t c = 0; c < walk.channels; ++c) {
    float scale = (float)scale_of(params, c);
    int32_t zero_point = (int32_t)zero_point_of(params, c);
    for (size_t b = 0; b < walk.blocks; ++b) {
      size_t offset = (b * walk.channels + c) * walk.inner;
      if (input->dtype == ETR_CHAR) {
        k->dequantize_s8(walk.inner, (const int8_t *)input->data + offset,
                         y + offset, zero_point, scale);
      } else {
        k->dequantize_u8(walk.inner, (const uint8_t *)input->data + offset,
                         y + offset, zero_point, scale);
      }
    }
  }
  return true;
}
