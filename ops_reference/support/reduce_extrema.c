// SPDX-License-Identifier: Apache-2.0
//
// Maximum/minimum reductions with PyTorch's NaN and tie rules (see
// reduce_extrema.h).
#include "ops_reference/support/reduce_extrema.h"

#include <math.h>
#include <string.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/reduce.h"
#include "ops_reference/support/shape.h"

etr_error_t etr_extremum_check_nonempty(etr_kernel_context_t *ctx,
                                        const char *function,
                                        const etr_tensor_t *self,
                                        uint32_t mask, bool dims_named) {
  if (etr_numel(self) != 0) {
    return ETR_OK;
  }
  ETR_CHECK(ctx->diag, dims_named, ETR_ERR_INVALID_ARGUMENT,
            "%s: %s(): Expected reduction dim to be specified for "
            "input.numel() == 0",
            etr_op_name(ctx), function);
  for (int32_t d = 0; d < self->dim; ++d) {
    ETR_CHECK(ctx->diag, !((mask >> d) & 1u) || self->sizes[d] != 0,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: %s(): Expected reduction dim %d to have non-zero size",
              etr_op_name(ctx), function, (int)d);
  }
  return ETR_OK;
}

// True when `candidate` replaces `best` (see the header's rules).
static bool replaces(etr_scalar_type_t dtype, bool floating, bool is_max,
                     const void *candidate, const void *best) {
  if (floating) {
    double c = etr_load_double(dtype, candidate);
    double b = etr_load_double(dtype, best);
    if (isnan(b)) {
      return false;
    }
    if (isnan(c)) {
      return true;
    }
    return is_max ? c > b : c < b;
  }
  int64_t c = etr_load_int64(dtype, candidate);
  int64_t b = etr_load_int64(dtype, best);
  return is_max ? c > b : c < b;
}

void etr_extremum_reduce(const etr_tensor_t *self, uint32_t mask,
                         bool keepdim, bool is_max, etr_tensor_t *values,
                         etr_tensor_t *indices) {
  etr_tensor_t values_view;
  etr_tensor_t indices_view;
  const etr_tensor_t *operands[3] = {self, self, self};
  size_t values_slot = 0;
  size_t indices_slot = 0;
  size_t count = 1;
  if (values != NULL) {
    etr_reduction_out_view(self, mask, keepdim, values, &values_view);
    values_slot = count;
    operands[count++] = &values_view;
  }
  if (indices != NULL) {
    etr_reduction_out_view(self, mask, keepdim, indices, &indices_view);
    indices_slot = count;
    operands[count++] = &indices_view;
  }
  etr_dim_split_t split;
  etr_dim_split_init(&split, mask, operands, count);
  bool floating = etr_dtype_kind(self->dtype) == ETR_KIND_FLOATING;
  size_t element_size = etr_scalar_type_size(self->dtype);
  for (int64_t o = 0; o < split.outer_count; ++o) {
    int64_t base = etr_dim_split_outer(&split, 0, o);
    const void *best = NULL;
    int64_t best_index = 0;
    for (int64_t i = 0; i < split.inner_count; ++i) {
      const void *element =
          etr_element_at(self, base + etr_dim_split_inner(&split, 0, i));
      if (best == NULL ||
          replaces(self->dtype, floating, is_max, element, best)) {
        best = element;
        best_index = i;
      }
    }
    if (best == NULL) {
      continue;  // an empty slice; the callers refuse these
    }
    if (values != NULL) {
      memcpy(etr_element_at(values,
                            etr_dim_split_outer(&split, values_slot, o)),
             best, element_size);
    }
    if (indices != NULL) {
      etr_store_int64(
          indices->dtype,
          etr_element_at(indices, etr_dim_split_outer(&split, indices_slot, o)),
          best_index);
    }
  }
}
