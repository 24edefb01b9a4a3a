// SPDX-License-Identifier: Apache-2.0
//
// Reading whole files into 64-byte-aligned memory (for .pte, .bpte, .ptd
// and .npy inputs), with a size cap so a huge or endless file (a FIFO, a
// device) is refused instead of exhausting memory.
#ifndef ETR_CORE_FILE_H
#define ETR_CORE_FILE_H

#include <stddef.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

// Reads `path` into a new buffer (free() it) of *size_out bytes followed by
// one zero byte. AccessFailed when it cannot be opened or read (the message
// names the path and the OS error); MemoryAllocationFailed when larger than
// `max_bytes` (0 = 4 GiB) or out of memory.
etr_error_t etr_read_file(const char *path, size_t max_bytes, void **data_out,
                          size_t *size_out, etr_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_FILE_H
