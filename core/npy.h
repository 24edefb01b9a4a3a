// SPDX-License-Identifier: Apache-2.0
//
// NumPy .npy files: how tensors go in and out of etref (the format numpy
// and PyTorch users already have).
//
// A .npy file is the magic "\x93NUMPY", a version (1.0, 2.0 or 3.0), a
// little-endian header length (uint16 for 1.0, uint32 after), and an ASCII
// Python dict such as {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), } padded with spaces to a newline, then the raw data.
//
// The reader treats the file as untrusted: it parses the header with a small
// strict scanner (no eval), accepts only the keys above, little-endian or
// byte-sized dtypes etref knows, at most ETR_MAX_DIMS dimensions, and
// requires the data to be exactly as long as the shape says (checked with
// overflow-safe arithmetic). A Fortran-order array becomes a tensor with
// the reversed dim order, so no data is moved.
#ifndef ETR_CORE_NPY_H
#define ETR_CORE_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_npy_array {
  etr_tensor_t tensor;  // data points into `owned`
  void *owned;
} etr_npy_array_t;

// Parses a .npy image in memory. On success `tensor` describes the array and
// points at its data inside `data` (which must outlive it); the data is
// aligned to its element size when `data` is 64-byte aligned and the header
// length is a multiple of 16 (numpy writes 64). InvalidArgument with a
// message for anything malformed or unsupported.
etr_error_t etr_npy_parse(const uint8_t *data, size_t size,
                          etr_tensor_t *tensor, etr_diag_t *diag);

// Reads and parses a .npy file (at most max_bytes; 0 = 4 GiB). The data is
// moved to an aligned position when the header leaves it misaligned.
etr_error_t etr_npy_load_file(const char *path, size_t max_bytes,
                              etr_npy_array_t *array, etr_diag_t *diag);

void etr_npy_array_release(etr_npy_array_t *array);

// Writes `tensor` (any strides) as a C-order version 1.0 .npy file.
// BFloat16 has no numpy dtype and is written as float32 (exact). Types with
// no numpy equivalent (quantized, bit-packed, float8) are NotSupported.
etr_error_t etr_npy_write_file(const char *path, const etr_tensor_t *tensor,
                               etr_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_NPY_H
