// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target npy_parse: the .npy reader (core/npy.h), how every tensor
// enters `etref run`. Parse the image; on success read every byte of the
// tensor it describes and describe it as the CLI prints it.
//
// Faults: crashes and sanitizer reports; rejections without a message; an
// accepted array whose rank, dtype or dim order is invalid, or whose data
// is not inside the input (ASan sees the reads; the check below catches a
// pointer that is inside an allocation but not this one).
#include <stdio.h>
#include <stdlib.h>

#include "core/npy.h"
#include "fuzz/common/fuzz_common.h"

#define TARGET "npy_parse"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > ETR_FUZZ_MAX_INPUT_BYTES) {
    return 0;
  }
  uint8_t *copy = etr_fuzz_copy(data, size);
  etr_tensor_t tensor;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = etr_npy_parse(copy, size, &tensor, &diag);
  etr_fuzz_check_rejection(TARGET, "etr_npy_parse", status, &diag);
  if (status == ETR_OK) {
    if (tensor.dim < 0 || tensor.dim > ETR_MAX_DIMS ||
        !etr_scalar_type_is_valid((int)tensor.dtype) ||
        !etr_dim_order_is_valid(tensor.dim_order, tensor.dim)) {
      etr_fuzz_fault(TARGET, "accepted an invalid tensor (rank %d)",
                     (int)tensor.dim);
    }
    size_t nbytes = etr_tensor_nbytes(&tensor);
    const uint8_t *begin = (const uint8_t *)tensor.data;
    if (nbytes > 0 &&
        (begin < copy || begin > copy + size || nbytes > size ||
         (size_t)(begin - copy) > size - nbytes)) {
      etr_fuzz_fault(TARGET, "tensor data (%zu bytes) is not inside the input",
                     nbytes);
    }
    if (nbytes > 0 && etr_fuzz_touch(tensor.data, nbytes) == 1) {
      fputc(' ', stderr);
    }
    char text[512];
    etr_tensor_describe(&tensor, text, sizeof(text));
  }
  free(copy);
  return 0;
}
