// SPDX-License-Identifier: Apache-2.0
//
// Event tracer hooks: how a profiler (prof/) or an oracle observes a method
// while it executes.
//
// The executor calls these hooks when a tracer is attached and costs one
// NULL check per instruction when none is. A tracer reads the clock itself
// (etr_now_ns) so it decides what to measure; `instruction` hooks receive the
// method, the chain and the instruction index (ExecuTorch's instruction_id),
// and the end hook the instruction's status. After a KernelCall or
// DelegateCall the tracer may read the instruction's output values from the
// method (etr_method_instruction) to capture intermediate outputs.
//
// The struct's layout is part of the delegate ABI (core/backend.h): new
// hooks go at the end, with a new ETR_BACKEND_ABI_VERSION.
#ifndef ETR_CORE_EVENT_TRACER_H
#define ETR_CORE_EVENT_TRACER_H

#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct etr_method;
struct etr_evalue;

typedef struct etr_event_tracer {
  void *user;
  // Around one etr_method_execute call.
  void (*begin_execute)(void *user, const struct etr_method *method);
  void (*end_execute)(void *user, const struct etr_method *method,
                      etr_error_t status);
  // Around one instruction.
  void (*begin_instruction)(void *user, const struct etr_method *method,
                            uint32_t chain, uint32_t instruction);
  void (*end_instruction)(void *user, const struct etr_method *method,
                          uint32_t chain, uint32_t instruction,
                          etr_error_t status);
  // An event inside a delegate (a backend reports its own sub-steps, as
  // ExecuTorch's delegates do with log_profiling_delegate): `name` and
  // `debug_id` identify it within the delegate; times are etr_now_ns().
  void (*delegate_event)(void *user, const struct etr_method *method,
                         uint32_t delegate_index, const char *name,
                         int64_t debug_id, uint64_t start_ns,
                         uint64_t end_ns);
  // A value a delegate computed inside its subgraph (ExecuTorch's
  // log_intermediate_output_delegate), reported by the backend during its
  // execute (etr_backend_log_intermediate): `name` (may be NULL) or
  // `debug_id` (-1 when none) identifies it within the delegate. `value` is
  // valid only during the call; a tracer copies what it keeps. May be NULL.
  void (*delegate_intermediate)(void *user, const struct etr_method *method,
                                uint32_t delegate_index, const char *name,
                                int64_t debug_id,
                                const struct etr_evalue *value);
} etr_event_tracer_t;

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_EVENT_TRACER_H
