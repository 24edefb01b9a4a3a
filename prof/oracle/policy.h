// SPDX-License-Identifier: Apache-2.0
//
// The oracle's tolerance policy: which op class each operator belongs to,
// and, per class and floating dtype, how far a candidate value may lie
// from the reference value. The model is stated in every report and JSON
// (etr_oracle_policy_describe), in the manner of oneDNN's benchdnn: a
// verdict is only as good as the tolerance it was judged by.
//
// Per element, with r the reference value, c the candidate's and eps the
// machine epsilon of the output dtype (2^-23 Float, 2^-10 Half, 2^-7
// BFloat16, 2^-52 Double; u = eps / 2 the unit roundoff), c agrees with r
// when both are the same non-finite value (NaN with NaN, +inf with +inf,
// -inf with -inf) or both are finite and
//     |c - r| <= abs_eps * eps + rel_eps * eps * |r| + ulp * ulp(r)
//                + (k_aware ? k_factor * 2 * gamma_K * M : 0)
//                + (flush_denormals ? smallest normal : 0)
// where ulp(r) is the spacing of the dtype at r, gamma_K = K u / (1 - K u)
// (Higham's bound for a K-term sum: reference and candidate each within
// gamma_K * M of the exact result, hence 2 gamma_K M apart at most), K the
// op's accumulation length (a convolution's C_in/groups * kernel size
// + bias, a matmul's inner dimension + bias, a reduction's reduced count)
// and M the magnitude of the terms: the reference op run on the absolute
// values of its inputs. `exact` classes require identical bits (any NaN
// matching any NaN). Integer and Bool outputs are exact unless quantized;
// quantized outputs (integers of quantize ops, or declared) agree when
// |c - r| <= steps, and, when the op was re-run on exactly the
// candidate's inputs, <= local_steps. A tensor agrees when at most
// max_mismatch_fraction of its elements fall outside (0: none may) and,
// when norm_eps > 0, its relative L2 error passes benchdnn's norm check:
//     ||c - r||_2 <= norm_eps * eps * sqrt(K) * ||r||_2
// (sqrt(K) for K-aware classes, 1 otherwise: the probabilistic growth of
// rounding errors in a K-term sum, Higham and Mary 2019). The element
// bound is a worst case, loose for long sums; the norm check catches what
// hides under it, such as a GEMM's output stored at fp16 precision.
//
// Classes and their defaults:
//   movement        exact (copies, views, concatenation, indexing, max
//                   pooling, relu/clamp, comparisons: results are inputs)
//   elementwise     ulp 2 (correctly rounded arithmetic, double rounding
//                   through fp32 for Half/BFloat16)
//   transcendental  abs_eps 10, rel_eps 10 (XNNPACK's unary testers allow
//                   2-10 eps mixed for exp, tanh, gelu)
//   accumulation    k_aware, ulp 1, norm_eps 16 (convolution, matmul
//                   family, sum, mean, average pooling)
//   normalization   abs_eps 64, rel_eps 64 (softmax, layer/group/batch
//                   norm, var: benchdnn's constant-multiple-of-eps model)
//   quantize        steps 1, local_steps 0 (quantize_per_tensor/_channel)
//   quantized       steps 1, local_steps 1 (declared quantized outputs)
// Operators the table does not know get `default_class` (elementwise).
//
// A policy file (--policy FILE.json, format "etref-oracle-policy" version
// 1) overrides any of this; see README.md, "Tolerance policy".
#ifndef ETR_PROF_ORACLE_POLICY_H
#define ETR_PROF_ORACLE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/scalar_type.h"
#include "prof/text.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_oracle_class {
  ETR_ORACLE_MOVEMENT = 0,
  ETR_ORACLE_ELEMENTWISE = 1,
  ETR_ORACLE_TRANSCENDENTAL = 2,
  ETR_ORACLE_ACCUMULATION = 3,
  ETR_ORACLE_NORMALIZATION = 4,
  ETR_ORACLE_QUANTIZE = 5,
  ETR_ORACLE_QUANTIZED = 6,
  ETR_ORACLE_NUM_CLASSES = 7,
} etr_oracle_class_t;

// "movement", "elementwise", ...; NULL for an invalid class.
const char *etr_oracle_class_name(etr_oracle_class_t op_class);
// The class named `name`, or false.
bool etr_oracle_class_from_name(const char *name, etr_oracle_class_t *out);

// Floating dtypes a tolerance can be set for (index into the table).
typedef enum etr_oracle_float_kind {
  ETR_ORACLE_FLOAT32 = 0,
  ETR_ORACLE_FLOAT64 = 1,
  ETR_ORACLE_FLOAT16 = 2,
  ETR_ORACLE_BFLOAT16 = 3,
  ETR_ORACLE_NUM_FLOAT_KINDS = 4,
} etr_oracle_float_kind_t;

typedef struct etr_oracle_tolerance {
  bool exact;
  double ulp;
  double abs_eps;
  double rel_eps;
  bool k_aware;
  double k_factor;
  int64_t steps;
  int64_t local_steps;
  double max_mismatch_fraction;
  double norm_eps;  // 0: no norm check
} etr_oracle_tolerance_t;

#define ETR_ORACLE_MAX_OVERRIDES 256
#define ETR_ORACLE_NAME_CAPACITY 128

typedef struct etr_oracle_op_override {
  char op[ETR_ORACLE_NAME_CAPACITY];  // full or short operator name
  etr_oracle_class_t op_class;
} etr_oracle_op_override_t;

// A reference output declared quantized (judged in integer steps).
typedef struct etr_oracle_quantized_value {
  uint32_t chain;
  uint32_t instruction;
  uint32_t output;  // flattened position among the instruction's outputs
} etr_oracle_quantized_value_t;

typedef struct etr_oracle_policy {
  etr_oracle_tolerance_t tolerance[ETR_ORACLE_NUM_CLASSES]
                                  [ETR_ORACLE_NUM_FLOAT_KINDS];
  etr_oracle_class_t default_class;
  bool flush_denormals;  // a subnormal reference matches zero (FTZ/DAZ)
  etr_oracle_op_override_t overrides[ETR_ORACLE_MAX_OVERRIDES];
  uint32_t num_overrides;
  etr_oracle_quantized_value_t quantized[ETR_ORACLE_MAX_OVERRIDES];
  uint32_t num_quantized;
  char source[256];  // "built-in defaults" or the policy file's path
} etr_oracle_policy_t;

// The defaults described above.
void etr_oracle_policy_defaults(etr_oracle_policy_t *policy);

// Applies a policy document (JSON text) on top of `policy`. Format:
//   {"format": "etref-oracle-policy", "version": 1,
//    "default_class": "elementwise", "flush_denormals": true,
//    "classes": {"<class>": {<tolerance fields>,
//                            "dtypes": {"Half": {<tolerance fields>}}}},
//    "ops": {"aten::gelu.out": "<class>", "my_op": "<class>"},
//    "quantized_values": [{"chain": 0, "instruction": 5, "output": 0}]}
// Tolerance fields: exact (bool), ulp, abs_eps, rel_eps, k_factor,
// norm_eps, max_mismatch_fraction (numbers >= 0), k_aware (bool), steps,
// local_steps (integers >= 0). A class's fields apply to every float
// dtype, then "dtypes" entries (Float, Double, Half, BFloat16) refine one.
// Unknown keys, wrong types and out-of-range values are InvalidArgument
// naming the key; `origin` names the file in messages.
etr_error_t etr_oracle_policy_apply_json(etr_oracle_policy_t *policy,
                                         const char *text, size_t length,
                                         const char *origin,
                                         etr_diag_t *diag);

// The class of an operator ("aten::convolution.out"): an override, else
// the built-in table, else default_class.
etr_oracle_class_t etr_oracle_policy_class(const etr_oracle_policy_t *policy,
                                           const char *op_name,
                                           bool *known_out);

// The tolerance for a class and output dtype (non-float dtypes read the
// Float entry, of which only steps / local_steps / max_mismatch_fraction
// matter).
const etr_oracle_tolerance_t *etr_oracle_policy_tolerance(
    const etr_oracle_policy_t *policy, etr_oracle_class_t op_class,
    etr_scalar_type_t dtype);

// True when the output is declared quantized.
bool etr_oracle_policy_declares_quantized(const etr_oracle_policy_t *policy,
                                          uint32_t chain, uint32_t instruction,
                                          uint32_t output);

// The tolerance model in words (Markdown-friendly lines).
void etr_oracle_policy_describe(const etr_oracle_policy_t *policy,
                                etr_text_t *out);

// The effective policy as a JSON object (the same format the file uses).
void etr_oracle_policy_to_json(const etr_oracle_policy_t *policy,
                               etr_text_t *out);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ORACLE_POLICY_H
