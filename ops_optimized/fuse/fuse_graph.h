// SPDX-License-Identifier: Apache-2.0
//
// What the fusion passes share (fuse.h): reading a loaded method's
// instructions and the references to its values. Internal to fuse/.
#ifndef ETR_OPS_OPTIMIZED_FUSE_FUSE_GRAPH_H
#define ETR_OPS_OPTIMIZED_FUSE_FUSE_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/method.h"
#include "ops_optimized/fuse/fuse.h"

// The kernel of an instruction whose work is done elsewhere (absorbed into
// a fused head, or folded at load).
etr_error_t etr_fuse_noop_kernel(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args);

// The operator name of a kernel call ("" for anything else).
const char *etr_fuse_op_name(const etr_method_t *m,
                             const etr_instruction_t *instruction);

// Whether a JumpFalseCall of `chain` lands on instruction `index`.
bool etr_fuse_is_jump_target(const etr_chain_t *chain, uint32_t index);

// References of value `v` among one instruction's arguments.
uint32_t etr_fuse_uses_in(const etr_instruction_t *instruction, uint32_t v);

// Every reference to each value (`uses` has num_values zeroed counters):
// instruction arguments and operands, the method's inputs and outputs.
void etr_fuse_count_uses(const etr_method_t *m, uint32_t *uses);

// Whether tensor `t` is an element of a tensor list some instruction other
// than `owner` passes (`owner`'s return list names its own outs).
bool etr_fuse_listed_elsewhere(const etr_method_t *m, const etr_tensor_t *t,
                               const etr_instruction_t *owner);

// Whether value `v` keeps its bytes from call to call: a constant of the
// program or its data file, or the out of an instruction folded at load
// (computed once into memory of its own, fuse_fold.c).
bool etr_fuse_fixed_value(const etr_method_t *m, uint32_t v);

// Runs a fused head's `count` instructions (copies as loaded, `names` their
// operators) one after another, as unfused: each with its own context
// (what the executor vouched for is the head's call, not the others'),
// the scratch arena reset before each; a failure names the step.
etr_error_t etr_fuse_run_steps(etr_kernel_context_t *ctx,
                               const etr_instruction_t *steps,
                               const char *const *names, uint32_t count);

// The dry run of one instruction's kernel (checks and resizes its outs).
bool etr_fuse_accepts(etr_method_t *m, const etr_instruction_t *instruction);

// The passes etr_opt_fuse_method runs, in this order. Each returns how
// many instructions it rewrote; `uses` is etr_fuse_count_uses's count.
uint32_t etr_fuse_fold_constants(etr_method_t *method, const uint32_t *uses);
etr_error_t etr_fuse_conv_groups(etr_method_t *method, const uint32_t *uses,
                                 etr_fusion_stats_t *stats, etr_diag_t *diag);
etr_error_t etr_fuse_elementwise_chains(etr_method_t *method,
                                        const uint32_t *uses,
                                        etr_fusion_stats_t *stats,
                                        etr_diag_t *diag);
uint32_t etr_fuse_prune_indices(etr_method_t *method, const uint32_t *uses);

#endif  // ETR_OPS_OPTIMIZED_FUSE_FUSE_GRAPH_H
