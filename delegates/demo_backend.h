// SPDX-License-Identifier: Apache-2.0
//
// An example delegate: etref's implementation of ExecuTorch's demo backend
// "BackendWithCompilerDemo" (exir/backend/test/backend_with_compiler_demo.py
// lowers to it; runtime/executor/test/test_backend_compiler_lib.cpp is
// ExecuTorch's C++ runtime for it). It shows the delegate interface end to
// end on real .pte files that ExecuTorch's exporter writes.
//
// Processed blob (UTF-8 text, not NUL-terminated):
//   "<count>version:<v>#" then per op
//   "op:demo::<aten op>, numel:<n>, dtype:<torch dtype><debug_handle><h>#"
// Supported ops: demo::aten.mm.default (z = a @ x), demo::aten.add.Tensor
// (z = z + b) and demo::aten.sin.default (y = sin(x)); float32 only.
// DelegateCall arguments are the delegate's inputs then its output:
// [a, x, b, z] for mm/add graphs, [x, y] for sin.
// Compile spec 0 ("max_value") is a small little-endian integer that must be
// at most 4, as in ExecuTorch's version.
//
// Unlike ExecuTorch's test backend, the parser never reads past the blob
// (it does not rely on a terminating NUL), validates every number, and
// execute checks tensor shapes and dtypes instead of assuming 2x2 matrices.
#ifndef ETR_DELEGATES_DEMO_BACKEND_H
#define ETR_DELEGATES_DEMO_BACKEND_H

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_DEMO_BACKEND_ID "BackendWithCompilerDemo"

// The backend descriptor; register it with etr_backend_registry_add.
const etr_backend_t *etr_demo_backend(void);

#ifdef __cplusplus
}
#endif

#endif  // ETR_DELEGATES_DEMO_BACKEND_H
