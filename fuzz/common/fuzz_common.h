// SPDX-License-Identifier: Apache-2.0
//
// What every etref fuzz harness shares: the caps that keep a hostile input
// from running for an hour or taking all memory, the registries `etref run`
// builds (plus the optimized kernels), aligned copies of the input, and the
// fault report that turns a broken invariant into a crash the fuzzer keeps.
//
// A harness (fuzz/<target>.c) defines LLVMFuzzerTestOneInput and nothing
// else with external linkage; libFuzzer, AFL++ (libAFLDriver), OSS-Fuzz and
// the replay driver (fuzz/replay_main.c, what `bazel test` runs) all call
// it. Inputs the loaders or the verifier reject are expected and return 0;
// a fault is a crash, a hang, a leak, a sanitizer report, or a call to
// etr_fuzz_fault (a broken invariant such as an error without a message,
// or reference and optimized kernels disagreeing).
#ifndef ETR_FUZZ_COMMON_FUZZ_COMMON_H
#define ETR_FUZZ_COMMON_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/error.h"
#include "core/kernel.h"

// Caps for methods the harnesses instantiate (core/method.h): small enough
// that a valid-but-huge program is rejected quickly, large enough for every
// program in datasets/models.
#define ETR_FUZZ_MAX_PLANNED_BYTES ((size_t)16 << 20)
#define ETR_FUZZ_MAX_METHOD_BYTES ((size_t)32 << 20)
#define ETR_FUZZ_MAX_INSTRUCTIONS 100000u
#define ETR_FUZZ_MAX_EXECUTE_NS 2000000000ull  // 2 s per execute
// Largest input a harness looks at (bigger ones return at once); the
// campaign runs with -max_len below this.
#define ETR_FUZZ_MAX_INPUT_BYTES ((size_t)4 << 20)

// Prim ops, reference kernels (etr_cli_build_kernels, as `etref run`) and
// the optimized kernels as their ETR_KERNELS_OPTIMIZED variants. Built on
// first use and kept for the process (not a leak: one static object).
const etr_kernel_registry_t *etr_fuzz_kernels(void);

// The backends `etref` links (etr_cli_build_backends: the demo delegate).
const etr_backend_registry_t *etr_fuzz_backends(void);

// A copy of `size` bytes in a 64-byte aligned allocation of exactly `size`
// bytes (at least 1), so ASan flags any read past the input. free() it.
// Aborts when memory runs out (a harness cannot continue without it).
uint8_t *etr_fuzz_copy(const uint8_t *data, size_t size);

// Reports a broken invariant and aborts, which every engine records as a
// crash: "etref-fuzz: FAULT in <target>: <message>".
void etr_fuzz_fault(const char *target, const char *format, ...)
    __attribute__((format(printf, 2, 3), noreturn));

// Checks the error-reporting contract of a failed call: the status is a
// known code and the diag carries a message (every etref rejection names
// what is wrong). Faults otherwise.
void etr_fuzz_check_rejection(const char *target, const char *what,
                              etr_error_t status, const etr_diag_t *diag);

// Reads every byte of [data, data + size) so ASan checks that the range a
// loader handed out really is inside an allocation. Returns a checksum
// (use it, so the reads are not optimized away).
uint64_t etr_fuzz_touch(const void *data, size_t size);

// FNV-1a of the input: a deterministic per-input choice (ISA, fill).
uint64_t etr_fuzz_hash(const uint8_t *data, size_t size);

#endif  // ETR_FUZZ_COMMON_FUZZ_COMMON_H
