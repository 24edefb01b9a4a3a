// SPDX-License-Identifier: Apache-2.0
//
// The verifier: proves a program safe to run before anything runs, or lists
// what is wrong, naming the method, instruction, operator and values.
//
// Per method it checks:
//   - structure: every index in range, every union tag and EValue type as
//     the schema requires, list elements of the right kind, tensors with
//     valid dtypes, ranks, sizes and dim orders (the loader's checks, which
//     stop at the first problem);
//   - data: constants, segments, mutable-data and external data inside
//     their files; delegate blobs present;
//   - kernels and backends: every operator has a kernel, every delegate's
//     backend is registered;
//   - memory: every planned tensor inside its buffer and aligned to its
//     element size (loader), offsets aligned to 16 bytes as ExecuTorch plans
//     them (warning), and no two planned tensors sharing a byte while both
//     are live (planner/lifetime.h; tensors the program aliases on purpose
//     share a placement exactly and are one unit);
//   - a dry run of shapes and dtypes: each KernelCall's kernel checks its
//     arguments and resizes its outputs with ctx->dry_run set, so an output
//     too small for its result, a dtype the op refuses or a bad dim is found
//     before running; JumpFalseCall conditions must be Bool, FreeCall
//     targets tensors.
#ifndef ETR_VERIFIER_VERIFY_H
#define ETR_VERIFIER_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/data_map.h"
#include "core/error.h"
#include "core/kernel.h"
#include "core/program.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_severity {
  ETR_SEVERITY_ERROR = 0,
  ETR_SEVERITY_WARNING = 1,
} etr_severity_t;

typedef struct etr_diagnostic {
  etr_severity_t severity;
  etr_error_t code;
  char method[64];
  int32_t chain;        // -1 when not about one instruction
  int32_t instruction;  // -1 likewise
  char op[128];         // operator or instruction kind, "" when none
  char message[ETR_DIAG_MESSAGE_CAPACITY + 128];
} etr_diagnostic_t;

#define ETR_VERIFY_MAX_DIAGNOSTICS 256

typedef struct etr_verify_report {
  etr_diagnostic_t items[ETR_VERIFY_MAX_DIAGNOSTICS];
  size_t count;      // recorded (at most ETR_VERIFY_MAX_DIAGNOSTICS)
  size_t errors;     // all errors found, recorded or not
  size_t warnings;
  uint32_t methods;  // methods checked
} etr_verify_report_t;

typedef struct etr_verify_config {
  const etr_kernel_registry_t *kernels;
  const etr_backend_registry_t *backends;  // may be NULL
  const etr_data_map_t *external_data;     // may be NULL
  const char *method;  // only this method; NULL for all
} etr_verify_config_t;

// Verifies `program`; fills `report` (zeroed first). Returns ETR_OK when the
// report holds no error, InvalidProgram when it does (the diagnostics say
// what), or the error that stopped verification (out of memory).
etr_error_t etr_verify_program(const etr_program_t *program,
                               const etr_verify_config_t *config,
                               etr_verify_report_t *report);

// "error: method 'forward' chain 0 instruction 3 (aten::add.out): ..."
void etr_diagnostic_format(const etr_diagnostic_t *diagnostic, char *buffer,
                           size_t capacity);

#ifdef __cplusplus
}
#endif

#endif  // ETR_VERIFIER_VERIFY_H
