// SPDX-License-Identifier: Apache-2.0
//
// A per-operator cost model: how much arithmetic an instruction does and
// how many bytes it must move, from its operator and its arguments' shapes
// (as the run left them), so a report can turn times into GFLOP/s and GB/s
// and place each op under the machine's roofline.
//
// FLOPs count multiply-adds as 2 (benchdnn's convention):
//   convolution   2 * out_numel * (C_in / groups) * prod(kernel)  (+ bias)
//                 (transposed: 2 * in_numel * (C_out / groups) * prod(kernel))
//   mm / bmm      2 * M * K * N (per batch); addmm / baddbmm / linear add
//                 M * N for the bias
//   elementwise   1 per output element and operand beyond the first (add,
//                 mul, relu, sigmoid... a transcendental counts as 1 too,
//                 so their GFLOP/s are a floor)
//   reductions    1 per input element (sum, mean, amax, argmax, any...);
//                 var / std 3
//   norms         batch norm 4, layer / group norm 8 per element
//   softmax       5 per element (max, subtract, exp, sum, divide)
//   pooling       out_numel * prod(kernel) (avg adds 1 for the divide);
//                 adaptive pools 1 per input element
//   data movement 0 (copies, permutes, cat, slices, pads, gathers...)
// Bytes moved are compulsory traffic: every distinct tensor argument read
// once and every output written once, at the element size of its dtype; a
// gather (embedding, index_select, index, gather) reads only the rows it
// returns. Views (executorch_prim::et_view) and scalar prim ops move 0.
// Real kernels move more (re-reads, packing), so GB/s is "effective".
#ifndef ETR_PROF_COST_MODEL_H
#define ETR_PROF_COST_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/method.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_cost_class {
  ETR_COST_UNKNOWN = 0,
  ETR_COST_CONVOLUTION,
  ETR_COST_MATMUL,
  ETR_COST_ELEMENTWISE,
  ETR_COST_REDUCTION,
  ETR_COST_NORMALIZATION,
  ETR_COST_SOFTMAX,
  ETR_COST_POOLING,
  ETR_COST_DATA_MOVEMENT,
  ETR_COST_VIEW,
  ETR_COST_CONTROL,   // MoveCall, JumpFalseCall, FreeCall, scalar prim ops
  ETR_COST_DELEGATE,  // opaque: bytes of its arguments, FLOPs unknown
} etr_cost_class_t;

typedef struct etr_prof_cost {
  etr_cost_class_t cost_class;
  bool flops_known;  // false for unknown ops and delegates
  double flops;      // per execution of the instruction
  double bytes;      // read + written, per execution
} etr_prof_cost_t;

// "convolution", "matmul", "elementwise", ...
const char *etr_cost_class_name(etr_cost_class_t cost_class);

// The cost of one execution of (chain, index) with the shapes its
// arguments have now.
void etr_prof_cost(const etr_method_t *method, uint32_t chain,
                   uint32_t index, etr_prof_cost_t *cost);

// "Float[1,3,32,32], Float[16,3,3,3] -> Float[1,16,32,32]": the tensor
// arguments that are read, then the outputs (truncated to `capacity`).
void etr_prof_describe_shapes(const etr_method_t *method, uint32_t chain,
                              uint32_t index, char *text, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_COST_MODEL_H
