// SPDX-License-Identifier: Apache-2.0
//
// Methods: one ExecutionPlan of a loaded program, instantiated and ready to
// execute.
//
// etr_method_load turns the plan into runtime objects, all allocated up
// front:
//   - every EValue (Null, Int, Double, Bool, String, Tensor, IntList,
//     DoubleList, BoolList, TensorList, OptionalTensorList), with each index
//     the plan uses checked against the value table;
//   - tensors bound to their data: constants in place inside the program
//     (never copied), memory-planned tensors at
//     planned_buffer[memory_id - 1] + memory_offset (memory_id is 1-based
//     and non_const_buffer_sizes[0] is a reserved placeholder, as in
//     ExecuTorch), planned tensors with an initial value (mutable buffers)
//     filled from the mutable data segment, external constants resolved by
//     fully-qualified name in a .ptd data map, everything else left unbound
//     until an input or a kernel provides it;
//   - the instruction chain, each KernelCall bound to a kernel from the
//     registry (every missing operator is listed in one error), each
//     DelegateCall to an initialized backend.
// The planned buffers come from the caller or are allocated (zeroed) by the
// method, within a configurable cap. etr_method_execute then runs the chain
// with no allocation from malloc: only the preallocated scratch arena.
//
// Execution follows ExecuTorch's runtime (runtime/executor/method.cpp):
// KernelCall passes the argument EValues to the kernel; DelegateCall to the
// backend; MoveCall copies an EValue (the destination then aliases the
// source's tensor); JumpFalseCall jumps when its condition (a Bool, or a Bool
// tensor whose elements are not all true) is false; FreeCall unbinds a
// tensor's data. A step cap stops programs that loop forever.
#ifndef ETR_CORE_METHOD_H
#define ETR_CORE_METHOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/backend.h"
#include "core/data_map.h"
#include "core/error.h"
#include "core/evalue.h"
#include "core/event_tracer.h"
#include "core/kernel.h"
#include "core/platform.h"
#include "core/program.h"

#ifdef __cplusplus
extern "C" {
#endif

// A memory plan that replaces the program's own (planner/ computes them):
// pool i + 1 gets pool_sizes[i] bytes, and each planned tensor value v is
// placed at placements[v]. Values that are not planned in the program
// ignore their entry. The method checks the new plan exactly as it checks
// the program's (every tensor inside its pool, aligned).
typedef struct etr_planned_placement {
  uint32_t memory_id;  // 1-based, as in the program
  uint64_t offset;
} etr_planned_placement_t;

typedef struct etr_memory_plan {
  const size_t *pool_sizes;
  uint32_t num_pools;
  const etr_planned_placement_t *placements;  // one per value
  uint32_t num_values;
} etr_memory_plan_t;

typedef struct etr_method_config {
  const etr_kernel_registry_t *kernels;    // required
  etr_kernel_variant_t variant;            // reference or optimized
  const etr_backend_registry_t *backends;  // may be NULL (no delegates)
  const etr_data_map_t *external_data;     // .ptd constants; may be NULL

  // Planned memory. When `planned_buffers` is NULL the method allocates one
  // zeroed buffer per planned pool, `max_planned_bytes` in all (0 = 1 GiB).
  // Otherwise planned_buffers[i] (num_planned_buffers entries, sizes in
  // planned_buffer_sizes) serves memory_id i + 1 and must be at least as
  // large as the plan says.
  uint8_t *const *planned_buffers;
  const size_t *planned_buffer_sizes;
  size_t num_planned_buffers;
  size_t max_planned_bytes;
  // When set, the method uses this plan instead of the program's.
  const etr_memory_plan_t *memory_plan;

  size_t max_method_bytes;  // load-time structures; 0 = 256 MiB
  size_t temp_bytes;        // kernel scratch arena; 0 = 4 MiB
  uint64_t max_instructions;  // per execute; 0 = 10,000,000 (ExecuTorch's)
  // Wall-time budget per execute in nanoseconds, checked between
  // instructions (a single kernel is not interrupted); 0 = none. Fuzzers
  // and services running untrusted programs set it with small memory caps.
  uint64_t max_execute_ns;
  const etr_event_tracer_t *tracer;  // may be NULL
  uint64_t seed;  // seeds the generator random ops draw from

  // Load even when operators have no kernel or delegates name a backend
  // that is not registered (for inspection and verification, which report
  // them). Such instructions fail with OperatorMissing / NotFound if run.
  bool allow_missing;
} etr_method_config_t;

// Fills a config with the defaults above for `kernels`.
void etr_method_config_init(etr_method_config_t *config,
                            const etr_kernel_registry_t *kernels);

typedef enum etr_instruction_kind {
  ETR_INSTRUCTION_KERNEL_CALL = 1,
  ETR_INSTRUCTION_DELEGATE_CALL = 2,
  ETR_INSTRUCTION_MOVE_CALL = 3,
  ETR_INSTRUCTION_JUMP_FALSE_CALL = 4,
  ETR_INSTRUCTION_FREE_CALL = 5,
} etr_instruction_kind_t;

// "KernelCall", "DelegateCall", ...
const char *etr_instruction_kind_name(etr_instruction_kind_t kind);

typedef enum etr_fusion_role {
  ETR_FUSION_NONE = 0,
  ETR_FUSION_HEAD = 1,
  ETR_FUSION_ABSORBED = 2,
  ETR_FUSION_FOLDED = 3,  // computed once at load; its out is bound to
                          // memory of its own and the kernel does nothing
  ETR_FUSION_PRUNED = 4,  // a kernel that skips an out nothing reads
} etr_fusion_role_t;

typedef struct etr_instruction {
  etr_instruction_kind_t kind;
  // KernelCall: operator index; DelegateCall: delegate index.
  uint32_t callee;
  // KernelCall / DelegateCall arguments (value indices and EValues).
  const uint32_t *arg_indices;
  etr_evalue_t **args;
  size_t num_args;
  etr_kernel_fn kernel;  // KernelCall
  // KernelCall: passed to the kernel as ctx->state; NULL unless a
  // load-time pass (ops_optimized/fuse/fuse.h) set it.
  const void *state;
  // KernelCall: ETR_FUSION_HEAD when `kernel` also computes the next
  // `fused_count` instructions, which are then ETR_FUSION_ABSORBED or
  // ETR_FUSION_FOLDED (their kernel does nothing, and the executor steps
  // over them unless a tracer times each instruction; never jump
  // targets). ETR_FUSION_NONE for every instruction of a
  // method no pass touched.
  uint8_t fusion;
  uint8_t fused_count;
  // KernelCall: set at load when every argument can only ever be what it
  // is now, apart from tensor data: each tensor (list elements too) has a
  // static shape and memory of its own (planned or constant), and no
  // input, MoveCall, FreeCall, delegate or kernel return slot can rebind
  // the value or any Int of its lists (method_fixed_args.c).
  bool args_fixed;
  // KernelCall: set after a call of an `args_fixed` instruction returned
  // ETR_OK; the executor then skips its argument check and tells its
  // kernel so (etr_kernel_context_t.args_checked).
  bool args_checked;
  // KernelCall, `args_fixed` only: the kernel's etr_kernel_context_t.memo
  // (ETR_KERNEL_MEMO_BYTES from the method's arena); NULL otherwise.
  void *memo;
  // KernelCall, `args_fixed` only: bit a set when args[a] is a tensor of
  // read-only constant bytes (etr_kernel_context_t.constant_args).
  uint64_t constant_args;
  // MoveCall: from, to. JumpFalseCall: condition value, destination.
  // FreeCall: value.
  uint32_t operands[2];
} etr_instruction_t;

typedef struct etr_chain {
  etr_instruction_t *instructions;
  uint32_t num_instructions;
} etr_chain_t;

typedef struct etr_operator {
  const char *name;  // "aten::add.out" (name + "." + overload)
  const etr_kernel_entry_t *entry;  // registry entry; NULL for none
} etr_operator_t;

// Where a tensor value's bytes come from.
typedef enum etr_tensor_storage {
  ETR_STORAGE_UNBOUND = 0,   // set by an input, a kernel (et_view) or a move
  ETR_STORAGE_CONSTANT = 1,  // inside the program file (read-only)
  ETR_STORAGE_PLANNED = 2,   // in a planned buffer
  ETR_STORAGE_EXTERNAL = 3,  // in the .ptd data map (read-only)
} etr_tensor_storage_t;

typedef struct etr_value_info {
  etr_tensor_storage_t storage;  // tensors only
  uint32_t memory_id;            // PLANNED: 1-based pool
  uint64_t memory_offset;        // PLANNED: byte offset in the pool
  size_t nbytes;                 // bytes at the planned (upper-bound) shape
  uint32_t data_buffer_index;    // CONSTANT / initialized mutable buffer
  const char *fully_qualified_name;  // EXTERNAL or named mutable buffer
} etr_value_info_t;

typedef struct etr_delegate_instance {
  const char *backend_id;
  const etr_backend_t *backend;
  void *handle;
  bool initialized;
} etr_delegate_instance_t;

typedef struct etr_method {
  const etr_program_t *program;
  const char *name;
  etr_method_config_t config;

  etr_evalue_t *values;
  etr_value_info_t *value_info;
  uint32_t num_values;

  uint32_t *inputs;  // value indices
  uint32_t num_inputs;
  uint32_t *outputs;
  uint32_t num_outputs;

  etr_operator_t *operators;
  uint32_t num_operators;
  etr_chain_t *chains;
  uint32_t num_chains;
  etr_delegate_instance_t *delegates;
  uint32_t num_delegates;

  // Planned pools: pool i serves memory_id i + 1.
  uint8_t **planned_buffers;
  size_t *planned_sizes;
  uint32_t num_planned_buffers;
  bool owns_planned_buffers;
  etr_pages_t *planned_allocations;  // the owned pools' memory

  etr_arena_t arena;  // load-time structures (growable, freed on release)
  etr_arena_t temp;   // kernel scratch (fixed)
  void *temp_buffer;
  uint64_t rng_state;
  uint64_t executions;     // completed etr_method_execute calls
  uint64_t last_instruction_count;
} etr_method_t;

// Instantiates method `name` of `program` (which must outlive it).
// NotFound for an unknown method or backend, OperatorMissing when kernels
// are missing (all of them named), InvalidProgram for anything malformed,
// NotSupported for valid features etref lacks, MemoryAllocationFailed when a
// cap is exceeded. On failure *method is released and zeroed.
etr_error_t etr_method_load(const etr_program_t *program, const char *name,
                            const etr_method_config_t *config,
                            etr_method_t *method, etr_diag_t *diag);

// Destroys delegate handles and frees what the method allocated.
void etr_method_release(etr_method_t *method);

// Copies (planned input) or binds (unplanned input) `value` as input
// `index`. Tensors must have the input's dtype; a static-shape input must
// match exactly, a dynamic one may take any shape within its planned
// capacity and rank. Int/Double/Bool inputs must match the plan's tag.
// InvalidArgument (message says why) on a mismatch.
etr_error_t etr_method_set_input(etr_method_t *method, uint32_t index,
                                 const etr_evalue_t *value, etr_diag_t *diag);

// Convenience for a tensor input.
etr_error_t etr_method_set_input_tensor(etr_method_t *method, uint32_t index,
                                        const etr_tensor_t *tensor,
                                        etr_diag_t *diag);

// Runs every chain once. On failure the message names the chain,
// instruction index, operator and error.
etr_error_t etr_method_execute(etr_method_t *method, etr_diag_t *diag);

// Called for every instruction a dry run could not accept: chain,
// instruction index, status, and the message in `diag`.
typedef void (*etr_dry_run_fn)(void *user, const etr_method_t *method,
                               uint32_t chain, uint32_t instruction,
                               etr_error_t status, const etr_diag_t *diag);

// The verifier's shape and dtype dry run: visits every instruction once, in
// order (both sides of every branch), calling each kernel with
// ctx->dry_run set so it checks its arguments and resizes its outputs
// without touching tensor data; MoveCalls are performed, jumps ignored,
// delegates skipped. Tensors are checked as at run time (bound to memory,
// no output in read-only data), except method inputs that the caller binds
// at run time. Leaves the method's tensors resized: load a fresh method to
// execute. Returns the number of instructions reported.
uint32_t etr_method_dry_run(etr_method_t *method, etr_dry_run_fn report,
                            void *user);

// The input / output EValue `index` (NULL when out of range).
const etr_evalue_t *etr_method_input(const etr_method_t *method,
                                     uint32_t index);
const etr_evalue_t *etr_method_output(const etr_method_t *method,
                                      uint32_t index);

// Total bytes of planned memory (sum of pools).
size_t etr_method_planned_bytes(const etr_method_t *method);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_METHOD_H
