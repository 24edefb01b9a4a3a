// SPDX-License-Identifier: Apache-2.0
//
// col2im by column-row scatter into a double plane (see fold.h).
#include "ops_optimized/fold/fold.h"

#include <string.h>

#include "core/arena.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/shape.h"

// The first block index b >= 0 along one dim whose tap `k` lands inside
// the image ([0, size)), and how many consecutive blocks do.
static void block_range(int64_t size, int64_t blocks, int64_t stride,
                        int64_t offset, int64_t *first, int64_t *count) {
  // position(b) = b * stride + offset, offset = k * dil - pad.
  int64_t lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  int64_t hi_position = size - 1 - offset;  // b * stride <= this
  int64_t hi = hi_position < 0 ? -1 : hi_position / stride;
  hi = hi < blocks - 1 ? hi : blocks - 1;
  *first = lo;
  *count = hi >= lo ? hi - lo + 1 : 0;
}

bool etr_col2im_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                    const etr_fold_params_t *f, etr_tensor_t *out) {
  if (self->dtype != ETR_FLOAT || out->dtype != ETR_FLOAT ||
      !etr_tensor_is_contiguous(self) || !etr_tensor_is_contiguous(out) ||
      ctx->temp == NULL) {
    return false;
  }
  int64_t height = f->output[0];
  int64_t width = f->output[1];
  size_t plane = (size_t)(height * width);
  double *sums = etr_arena_alloc(ctx->temp, plane * sizeof(double), 64);
  if (sums == NULL) {
    return false;
  }
  int64_t blocks[2];
  for (int s = 0; s < 2; ++s) {
    blocks[s] = (f->output[s] + 2 * f->padding[s] -
                 f->dilation[s] * (f->kernel[s] - 1) - 1) /
                    f->stride[s] +
                1;
  }
  int64_t taps = f->kernel[0] * f->kernel[1];
  int64_t batch = self->dim == 3 ? self->sizes[0] : 1;
  int64_t channels = self->sizes[self->dim - 2] / taps;
  int64_t columns = self->sizes[self->dim - 1];  // nbh * nbw
  const float *x = (const float *)self->data;
  float *y = (float *)out->data;
  const etr_reduce_kernels_t *reduce =
      etr_reduce_kernels_for(etr_isa_active());
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      memset(sums, 0, plane * sizeof(double));
      for (int64_t i = 0; i < f->kernel[0]; ++i) {
        int64_t bh0 = 0;
        int64_t nbh = 0;
        block_range(height, blocks[0], f->stride[0],
                    i * f->dilation[0] - f->padding[0], &bh0, &nbh);
        for (int64_t j = 0; j < f->kernel[1]; ++j) {
          int64_t bw0 = 0;
          int64_t nbw = 0;
          int64_t offset_w = j * f->dilation[1] - f->padding[1];
          block_range(width, blocks[1], f->stride[1], offset_w, &bw0, &nbw);
          const float *row =
              x + ((n * channels + c) * taps + i * f->kernel[1] + j) *
                      columns;
          for (int64_t bh = bh0; bh < bh0 + nbh; ++bh) {
            int64_t yy = bh * f->stride[0] + i * f->dilation[0] -
                         f->padding[0];
            const float *src = row + bh * blocks[1] + bw0;
            double *dst = sums + yy * width + bw0 * f->stride[1] + offset_w;
            if (f->stride[1] == 1) {
              reduce->accumulate_f64((size_t)nbw, src, dst);
            } else {
              for (int64_t b = 0; b < nbw; ++b) {
                dst[b * f->stride[1]] += (double)src[b];
              }
            }
          }
        }
      }
      reduce->round_f64(plane, sums,
                        y + (n * channels + c) * (int64_t)plane);
    }
  }
  return true;
}
