// SPDX-License-Identifier: Apache-2.0
//
// Load-time fusion of optimized kernels, the rewrite XNNPACK does when it
// is delegated a graph, done here without changing a single output bit
// (NaN payloads aside: when an fma meets several NaN operands, which one it
// returns depends on the instruction form the compiler picked, in the
// unfused kernels as in the fused one; NaNs stay NaNs, in the same places;
// pte_execute fuzzes exactly this equivalence).
//
// etr_opt_fuse_method looks, in a method loaded with the optimized kernels,
// for a convolution followed by an inference batch norm
// (_native_batch_norm_legit_no_training) and/or a hardtanh or relu, the
// block every CNN and MobileNet layer is made of, and binds the
// convolution's instruction to one kernel that computes all of them: the
// convolution writes straight into the last instruction's out and applies
// y = fma(y, alpha, beta) and the clamp to each tile while it is in L1
// (conv/conv.h, etr_conv_post_t). The batch norm's alpha and beta are
// computed once, at fusion, with the optimized batch norm's own arithmetic;
// the absorbed instructions stay in the chain (the tracer still sees them)
// with a kernel that does nothing.
//
// A group is fused only when it cannot be observed: the instructions are
// consecutive in one chain and no jump lands inside the group; every value
// between them (the convolution's out, the batch norm's three outs) is
// planned memory that nothing else reads, moves, frees or returns, and is
// in no tensor list; the batch norm's parameters are constants (Float
// vectors, one per out channel); every tensor is Float; each kernel's dry
// run accepts its call at fusion time. At run time a last out that shares
// bytes with the convolution's input (planners reuse the input's bytes,
// dead once the block ends) is computed in the convolution's own out and
// copied; a call that is not the fused path's case at all (a shape that
// changed, a layout or dtype the epilogue does not take, a convolution the
// optimized kernel sends to the reference) runs the three kernels one
// after another. Results never depend on fusing.
//
// Before that, constant folding: an instruction that only moves or
// dequantizes constants (permute_copy of a linear layer's weight,
// dequantize of a quantized weight, views and copies of constants; the
// list is kFoldable in fuse.c) and whose out nothing else writes, moves,
// frees or returns, runs once at fusion into memory of its own from the
// method's arena; its out stays bound there and the instruction does
// nothing (ETR_FUSION_FOLDED). Its readers see the same bytes the kernel
// would have written at every execution.
//
// Then elementwise chains (fuse_chain.c): consecutive add/sub/mul/div
// (alpha 1), clamp, hardtanh and relu calls on one Float shape, each
// reading the previous one's out, at most two other tensors of that shape
// and one-element Float constants (the program's or folded), with every
// value between them planned and read by the next step only: hardswish and
// hardsigmoid as to_edge decomposes them (add 3, clamp 0, clamp 6, mul,
// div 6), a residual add and its relu. The head computes the chain tile by
// tile with the steps' own microkernels (same bits); the other steps are
// absorbed, and folded instructions between them stay folded.
//
// Last, a max_pool2d_with_indices whose indices nothing reads (every
// exported CNN: the graph keeps only the values) gets a kernel that does
// not write them (ETR_FUSION_PRUNED); its values are the same.
//
// A fused convolution that takes the pixel-tile kernel (conv/conv.h;
// ResNet's layers on 12x12 and 6x6 planes), or would but for the shifted
// rows that sum in the same order, gets its constant weight packed for
// that kernel once, at fusion, into the method's arena: a call then packs
// nothing (etr_conv_prepack). The convolutions fusion leaves alone get
// the same (etr_opt_prepack_method, below).
//
// What fusing gives up: the intermediate values of the absorbed
// instructions are never written, so a method that captures intermediates
// (etref profile --debug-buffer, etref compare) must not be fused; the CLI
// refuses the combination.
#ifndef ETR_OPS_OPTIMIZED_FUSE_FUSE_H
#define ETR_OPS_OPTIMIZED_FUSE_FUSE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/method.h"
#include "ops_optimized/conv/conv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_fusion_stats {
  uint32_t groups;      // fused groups (one per head instruction)
  uint32_t absorbed;    // instructions absorbed into a head
  uint32_t batch_norms; // of which batch norms
  uint32_t clamps;      // of which hardtanh / relu
  uint32_t folded;      // instructions computed once, at fusion
  uint32_t pruned;      // max pools whose unread indices are not written
  uint32_t chains;      // fused elementwise chains (one per head)
  uint32_t chain_steps; // instructions they compute (heads included)
  uint32_t prepacked;   // instructions whose constant weights were packed
                        // at load (etr_opt_prepack_method's, and the
                        // pixel-tile kernel's of fused convolutions)
} etr_fusion_stats_t;

// Fuses what it can in `method` (loaded with ETR_KERNELS_OPTIMIZED; any
// other method is left alone). Load-time memory comes from the method's
// arena. `stats` may be NULL. MemoryAllocationFailed when the analysis
// cannot get its scratch or the arena is exhausted (what was rewritten by
// then stays correct); ETR_OK otherwise, also when nothing was fused.
etr_error_t etr_opt_fuse_method(etr_method_t *method,
                                etr_fusion_stats_t *stats, etr_diag_t *diag);

// Without fusing anything, constant weights packed once into the method's
// arena and bound to their instruction as its kernel state (ctx->state),
// so that a call packs nothing and computes the same bits (XNNPACK
// likewise packs a delegated layer's weights at init; fuse/prepack.c):
//   * each convolution that takes the pixel-tile kernel (or would but for
//     the shifted rows, which sum in the same order) with a constant
//     weight: the kernel's panels (conv.h's etr_conv_packed_t);
//   * each mm and addmm whose mat2 is a constant, or the out of an
//     instruction folded at fusion (a linear layer's transposed weight),
//     and whose product packs B: the GEMM's panels for that product
//     (gemm.h's etr_gemm_packed_b_t);
//   * each inference batch norm whose parameters are constants: its
//     per-channel alpha and beta (norm.h's etr_bn_packed_t), which a call
//     applies without working them out again.
// Only instructions of a method loaded with ETR_KERNELS_OPTIMIZED that
// have no kernel state yet: etr_opt_fuse_method packs what it fuses and
// then calls this; an instruction packed here is not fused afterwards.
// Returns how many were packed. Packing is an optimization: where the
// arena's cap stops it, the rest keep packing per call.
uint32_t etr_opt_prepack_method(etr_method_t *method);

// Executions of a fused group that took the unfused path, and those whose
// target overlapped the convolution's input, computed in the convolution's
// out and copied (tests and the CLI read them).
extern uint64_t etr_fuse_unfused_runs;
extern uint64_t etr_fuse_staged_runs;
// Executions of a fused elementwise chain that ran its steps' kernels one
// after another (a rebound input of another shape or layout, an out that
// partly overlaps an input).
extern uint64_t etr_fuse_chain_unfused_runs;

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_OPTIMIZED_FUSE_FUSE_H
