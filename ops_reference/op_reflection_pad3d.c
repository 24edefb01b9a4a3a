// SPDX-License-Identifier: Apache-2.0
//
// aten::reflection_pad3d.out: out = self padded on its last 3 dims by
// reflection of its edge elements (each pad must be smaller than the dim it
// pads; negative pads crop).
//
// Shapes, checks and the index rule are support/movement_pad.h's: self of
// rank 4 or 5 (batch mode), padding of 6 entries, every violation
// InvalidArgument. Every real dtype and complex; Bool and uint16/32/64 are
// NotSupported, as PyTorch does not implement them. The out dtype must
// equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/movement_pad.h"

// aten::reflection_pad3d.out
etr_error_t etr_ref_reflection_pad3d_out(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args, size_t num_args) {
  return etr_movement_pad_kernel(ctx, args, num_args,
                                 ETR_MOVEMENT_PAD_REFLECT, 3);
}
