// SPDX-License-Identifier: Apache-2.0
//
// Reflection and replication padding over the last 1, 2 or 3 dims
// (reflection_pad1d/2d/3d, replication_pad2d/3d), as ATen's CPU kernels
// compute it (aten/src/ATen/native/cpu/PaddingKernel.cpp).
//
// `padding` has 2 * k entries, (before, after) pairs starting from the last
// dim: [left, right, top, bottom, front, back]. self has rank k + 1 or
// k + 2 (batch mode); in batch mode the batch dim may be 0 but every other
// dim must be non-zero, without it every dim must be (InvalidArgument, as
// PyTorch's "Expected 3D or 4D (batch mode) tensor with possibly 0 batch
// size and other non-zero dimensions"). Negative pads crop. Output size of
// a padded dim: size + before + after (computed without overflow), never
// negative; for k = 1 it must be >= 1, for k = 2 and 3 at least one padded
// dim must be >= 1 ("input ... is too small"). Reflection also needs
// before < size and after < size on every padded dim ("Padding size
// should be less than the corresponding input dimension"). All
// InvalidArgument.
//
// Output element j of a padded dim reads input element
//   reflect:   j < p ? 2p - j : j < size + p ? j : 2 (size + p - 1) - j
//   replicate: j < p ? p      : j < size + p ? j : size + p - 1
// plus max(0, -p) - max(0, p), with p the `before` pad; this stays inside
// [0, size) for every accepted padding (checked exhaustively for small
// sizes against PyTorch, and re-checked here at run time).
#ifndef ETR_OPS_REFERENCE_SUPPORT_MOVEMENT_PAD_H
#define ETR_OPS_REFERENCE_SUPPORT_MOVEMENT_PAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_movement_pad_mode {
  ETR_MOVEMENT_PAD_REFLECT = 0,
  ETR_MOVEMENT_PAD_REPLICATE = 1,
} etr_movement_pad_mode_t;

// The whole kernel: reads (self, padding, out, return slot), checks
// (dtypes: every real dtype and complex, not Bool or uint16/32/64, which
// PyTorch does not implement: NotSupported; the out dtype must equal
// self's), resizes out and pads `spatial_dims` (1..3) trailing dims.
etr_error_t etr_movement_pad_kernel(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    etr_movement_pad_mode_t mode,
                                    int32_t spatial_dims);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_MOVEMENT_PAD_H
