// SPDX-License-Identifier: Apache-2.0
//
// An example vendor delegate, "EtrefExampleVendor": a backend that serves
// a program's delegated subgraphs by running etref kernels inside them, and
// that can be made deliberately wrong, so the oracle (`etref compare`) has
// real candidates to catch and localize.
//
// Processed blob: a complete ExecuTorch program (.pte) of the delegated
// subgraph, as the AOT side (datasets/oracle/generate.py,
// EtrefExampleVendor.preprocess) emits it with ExecuTorch's own
// EdgeProgramManager.to_executorch; its method "forward" takes the
// delegate's inputs and returns its outputs, and its parameters are its own
// constants. init loads, verifies (verifier/verify.h: the blob is untrusted)
// and instantiates that program; execute sets the inputs, runs it and copies
// its outputs into the DelegateCall's output arguments. The DelegateCall's
// arguments are the inner method's inputs followed by its outputs.
//
// Kernels: etref's reference kernels, except the vendor's own
// "accelerated" ones, registered as the optimized variant of the inner
// registry: a direct fp32 2-D convolution (NCHW; other cases fall back to
// the reference) and quantized_decomposed::quantize_per_tensor(.tensor).out
// (round half to even, as ExecuTorch's runtime). Fault wrappers go on top.
//
// Debugging: when the outer method's tracer listens, every inner KernelCall
// reports its outputs with etr_backend_log_intermediate (debug id = the
// inner instruction index, name = the operator) and its time with
// etr_backend_log_event. The AOT side records, per delegate, which
// debug handles each inner instruction carries (PreprocessResult.
// debug_handle_map), and writes the oracle's map from them.
//
// Faults: compile spec "etref.fault" (a string) or, overriding it in the
// shared library (etr_example_vendor_backend_from_environment), the
// environment variable ETREF_EXAMPLE_FAULT, hold
//     MODE[:OP[@N][#D]]
//   MODE  off_by_one        the convolution's output-column loop stops one
//                           early: the last column is never written
//         fp16 | bf16       the op's float outputs are rounded to fp16 /
//                           bf16 precision (reduced-precision storage)
//         requant_trunc     quantize truncates toward zero instead of
//                           rounding half to even
//         requant_half_away quantize rounds half away from zero (differs
//                           only on exact ties)
//         none              no fault (the default)
//   OP    operator, full ("aten::convolution.out") or short ("convolution",
//         the part between "::" and "."); default per mode: convolution for
//         off_by_one, addmm for fp16/bf16, quantize_per_tensor for requant_*
//   N     which call of OP within one execution of one delegate (0-based);
//         default 1 for off_by_one (the second convolution), 0 otherwise;
//         '*' for every call
//   D     only in the delegate with this index in the outer method
//         (default: every delegate)
// A malformed fault string fails init with InvalidArgument. The faulty
// state is per delegate handle; kernels learn it through the handle that
// is executing (the inner method runs synchronously inside execute).
#ifndef ETR_DELEGATES_EXAMPLE_VENDOR_H
#define ETR_DELEGATES_EXAMPLE_VENDOR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_EXAMPLE_VENDOR_ID "EtrefExampleVendor"
#define ETR_EXAMPLE_VENDOR_FAULT_SPEC "etref.fault"
#define ETR_EXAMPLE_VENDOR_FAULT_ENV "ETREF_EXAMPLE_FAULT"

typedef enum etr_vendor_fault_mode {
  ETR_VENDOR_FAULT_NONE = 0,
  ETR_VENDOR_FAULT_OFF_BY_ONE = 1,
  ETR_VENDOR_FAULT_FP16 = 2,
  ETR_VENDOR_FAULT_BF16 = 3,
  ETR_VENDOR_FAULT_REQUANT_TRUNC = 4,
  ETR_VENDOR_FAULT_REQUANT_HALF_AWAY = 5,
} etr_vendor_fault_mode_t;

typedef struct etr_vendor_fault {
  etr_vendor_fault_mode_t mode;
  char op[96];          // full name ("aten::convolution.out") or short
  int64_t occurrence;   // -1 = every call
  int64_t delegate;     // -1 = every delegate
} etr_vendor_fault_t;

// Parses a fault string (see above); `length` bytes, not NUL-terminated.
// InvalidArgument with a message for anything else.
etr_error_t etr_vendor_fault_parse(const char *text, size_t length,
                                   etr_vendor_fault_t *fault,
                                   etr_diag_t *diag);

// True when `op_name` ("aten::convolution.out") is the fault's operator,
// named fully or by its short name ("convolution").
bool etr_vendor_fault_matches(const etr_vendor_fault_t *fault,
                              const char *op_name);

// "off_by_one:aten::convolution.out@1" (for messages and reports).
void etr_vendor_fault_describe(const etr_vendor_fault_t *fault, char *text,
                               size_t capacity);

// The backend descriptor (static storage) that etref links in: faults
// only from the program's compile spec, never from the environment, so a
// built-in copy stays a trustworthy reference while a loaded library is
// made wrong.
const etr_backend_t *etr_example_vendor_backend(void);

// The same backend honouring $ETREF_EXAMPLE_FAULT: what
// libetref_example_vendor.so exports.
const etr_backend_t *etr_example_vendor_backend_from_environment(void);

#ifdef __cplusplus
}
#endif

#endif  // ETR_DELEGATES_EXAMPLE_VENDOR_H
