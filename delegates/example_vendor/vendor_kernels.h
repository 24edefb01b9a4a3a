// SPDX-License-Identifier: Apache-2.0
//
// Internal to the example vendor delegate: the inner kernel registry (the
// reference kernels, the vendor's own kernels and the fault wrappers) and
// the per-execution fault state the kernels consult.
#ifndef ETR_DELEGATES_EXAMPLE_VENDOR_KERNELS_H
#define ETR_DELEGATES_EXAMPLE_VENDOR_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "delegates/example_vendor/example_vendor.h"

// What the kernels of one executing delegate need to know. Set by the
// backend around each inner execution (kernel functions take no user
// pointer; the inner method runs synchronously on this thread).
typedef struct etr_vendor_state {
  etr_vendor_fault_t fault;
  const etr_kernel_registry_t *registry;  // the inner registry
  int64_t delegate_index;  // of the delegate executing
  int64_t target_calls;    // calls of the fault's op so far this execution
  uint64_t faults_applied; // over the handle's life, for messages
} etr_vendor_state_t;

extern _Thread_local etr_vendor_state_t *etr_vendor_current;

// Builds the inner registry: prim ops and reference kernels (reference
// variant), the vendor's own kernels and, for `fault`, its wrappers
// (optimized variant, which the inner method selects). InvalidArgument
// when the fault names an op it cannot apply to.
etr_error_t etr_vendor_build_registry(etr_kernel_registry_t *registry,
                                      const etr_vendor_fault_t *fault,
                                      etr_diag_t *diag);

// Counts a call of `op_name` and says whether this call is to be faulty
// under `mode` (the current state's fault has that mode, names this op,
// this occurrence and this delegate).
bool etr_vendor_fault_hits(const char *op_name, etr_vendor_fault_mode_t mode);

#endif  // ETR_DELEGATES_EXAMPLE_VENDOR_KERNELS_H
