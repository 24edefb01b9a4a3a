// SPDX-License-Identifier: Apache-2.0
//
// Differential testing of optimized kernels against their reference twins.
//
// A test builds a case (op name, arguments, tolerance) with the etr_diff_*
// builders, then etr_diff_run() calls the reference kernel once and the
// optimized kernel once per ISA this machine has (scalar, AVX2, AVX-512,
// NEON; ops_optimized/isa.h), each time on fresh output tensors built from
// the same specification, and compares: both succeed or both reject (any
// error code), outputs have the same dtype and shape, NaNs sit in the same
// places, and every element is within the case's tolerance:
//   EXACT     bit for bit (NaN payloads aside, -0.0 != +0.0) — for data
//             movement, integer ops, and float math made exact by
//             construction (ETR_FILL_EXACT_INT: small integers whose every
//             fp32 partial sum is exact, as oneDNN's benchdnn does, so
//             GEMM, conv and reductions must agree whatever the order);
//   ULP(n)    within n units in the last place of the output dtype, for
//             elementwise and transcendental ops;
//   BOUND     |a - b| <= atol + rtol * |b| with the caller's atol/rtol, for
//             accumulations (use etr_diff_accumulation_bound for GEMM-like
//             ops: a gamma_k style bound from the data).
// Every run must also leave its inputs as they were (the runs share them)
// and its outs' spare bytes past their elements as fresh outs hold them
// (0x5a), so a kernel writing where it must not fails even where ASan
// sees no overflow.
// Failures print op, case label, dtype, ISA, shapes, seed, the first bad
// element with both values, and a repro command; ETREF_DIFF_ONLY=<case id>
// (printed) reruns only that case. Each run also records whether the
// optimized kernel specialized the case or fell back to the reference
// (etr_opt_fallback_calls); with ETREF_DIFF_COVERAGE=<file> those records
// are appended as CSV (op,dtype,layout,isa,specialized) for the coverage
// report.
//
// Kernels get a 4 MiB scratch arena in ctx->temp (reset before every call),
// as a method's default. Memory comes from ops_reference/test/test_util.h
// (tt_alloc), released by tt_free_all (TT_TEST registers it).
#ifndef ETR_OPS_OPTIMIZED_TEST_DIFF_H
#define ETR_OPS_OPTIMIZED_TEST_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/evalue.h"
#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/isa.h"
#include "ops_reference/test/test_util.h"

typedef enum etr_diff_fill {
  ETR_FILL_RANDOM = 0,     // floats uniform in [-1, 1); ints in [-10, 10]
  ETR_FILL_POSITIVE = 1,   // floats in [0.1, 2); ints in [1, 10]
  ETR_FILL_EXACT_INT = 2,  // integers in [-4, 4] (exact fp32 sums)
  ETR_FILL_SPECIAL = 3,    // NaN, +-inf, -0.0, denormals, extremes mixed in
  ETR_FILL_ZERO = 4,
} etr_diff_fill_t;

typedef enum etr_diff_layout {
  ETR_DIFF_CONTIGUOUS = 0,
  ETR_DIFF_NONCONTIGUOUS = 1,  // strided view (ops_reference test_util)
  ETR_DIFF_CHANNELS_LAST = 2,  // rank 4 (others stay contiguous)
} etr_diff_layout_t;

typedef enum etr_diff_tolerance_kind {
  ETR_DIFF_EXACT = 0,
  ETR_DIFF_ULP = 1,
  ETR_DIFF_BOUND = 2,
} etr_diff_tolerance_kind_t;

typedef struct etr_diff_tolerance {
  etr_diff_tolerance_kind_t kind;
  double ulp;   // ULP
  double atol;  // BOUND
  double rtol;  // BOUND
} etr_diff_tolerance_t;

#define ETR_DIFF_MAX_ARGS 24

typedef struct etr_diff_case {
  const char *op;
  char label[160];
  uint64_t seed;   // the case's data seed (printed for repro)
  uint64_t rng;    // generator state
  etr_diff_tolerance_t tolerance;
  size_t num_args;
  etr_evalue_t *args[ETR_DIFF_MAX_ARGS];
  // Out specifications: for arg i, a tensor (or tensor list) to build
  // fresh for every run; NULL for ordinary inputs.
  const etr_tensor_t *out_spec[ETR_DIFF_MAX_ARGS];
  size_t out_list_length[ETR_DIFF_MAX_ARGS];  // >0: a Tensor[] of outs
  const size_t *out_list_indices[ETR_DIFF_MAX_ARGS];  // its out args
  int32_t aliases[ETR_DIFF_MAX_ARGS];  // out arg i aliases input arg j
  etr_diff_layout_t layout;            // of the inputs, for coverage
  etr_scalar_type_t dtype;             // the case's main dtype
  bool converting;                     // recorded as "dtype -> out_dtype"
  etr_scalar_type_t out_dtype;         // (etr_diff_key_conversion)
} etr_diff_case_t;

// Starts a case. `seed` seeds the data; `label` names it ("n=17 bcast").
void etr_diff_begin(etr_diff_case_t *c, const char *op, uint64_t seed,
                    const char *label_format, ...)
    __attribute__((format(printf, 4, 5)));

// Inputs: a tensor of `dtype`, shape (dim, sizes), laid out as `layout`
// and filled per `fill` from the case's generator. Appends it as the next
// argument and returns it.
etr_tensor_t *etr_diff_input(etr_diff_case_t *c, etr_scalar_type_t dtype,
                             int32_t dim, const int64_t *sizes,
                             etr_diff_layout_t layout, etr_diff_fill_t fill);

// A Float input of the floats around each of the `count` seams (a
// kernel's interval edges and switches): the 4 below it (towards zero),
// the seam and the 3 above, each with both signs, count * 16 values.
// Appends it as the next argument and returns it.
etr_tensor_t *etr_diff_seams_input(etr_diff_case_t *c, const float *seams,
                                   int count);

// The seams of unary/vmath.h's binade tables (vf_odd_binade_table: tanh
// and erf on AVX-512) for |x|: the edges of their intervals (sixteenths
// to 1/2, eighths to 3/2, quarters to 7/2, halves to 7: where |x| + 1/2
// rounds up to an edge, the lane is in the next interval with t just
// below 0), 7.5, where |x| + 1/2 reaches its cap below 8, and the cap at
// 9.125. Writes kEtrDiffBinadeSeams floats to `seams`.
enum { kEtrDiffBinadeSeams = 33 };
void etr_diff_binade_table_seams(float *seams);
// An input given by the caller (appended as is).
void etr_diff_arg(etr_diff_case_t *c, etr_evalue_t *value);

// An out tensor of `dtype` shaped `sizes`, `layout`, with `spare` extra
// elements of capacity (kernels must resize within it). Appended; built
// fresh for each run.
void etr_diff_out(etr_diff_case_t *c, etr_scalar_type_t dtype, int32_t dim,
                  const int64_t *sizes, etr_diff_layout_t layout,
                  int64_t spare);
// An out that is the same tensor as input argument `input_index` (in-place
// aliasing): each run gets its own copy of that input, used for both.
void etr_diff_out_aliasing(etr_diff_case_t *c, size_t input_index);
// The trailing return slot of a multi-out op: a Tensor[] of the out
// arguments at `indices` (already appended with etr_diff_out).
void etr_diff_out_list(etr_diff_case_t *c, size_t count,
                       const size_t *indices);
// The trailing return slot of a single-out op: the out at `index` again.
void etr_diff_return(etr_diff_case_t *c, size_t index);

// Keys the case's coverage records as a conversion, "In -> Out" (the
// input's dtype, then `out_dtype`), as coverage_report.py keys the models'
// converting calls (_to_copy, _to_dim_order_copy, copy).
void etr_diff_key_conversion(etr_diff_case_t *c, etr_scalar_type_t out_dtype);

void etr_diff_tolerance_exact(etr_diff_case_t *c);
void etr_diff_tolerance_ulp(etr_diff_case_t *c, double ulp);
void etr_diff_tolerance_bound(etr_diff_case_t *c, double atol, double rtol);
// Widens a bound tolerance by one rounding to `dtype` of results that
// already differ by it: for Half 2^-10 |ref| (2^-24 for its subnormals),
// for BFloat16 2^-7 |ref| (2^-133); other dtypes unchanged.
void etr_diff_tolerance_add_rounding(etr_diff_case_t *c,
                                     etr_scalar_type_t dtype);

// A GEMM-style bound for a result that sums k products of values bounded
// by |a| <= max_a, |b| <= max_b computed in `dtype`: gamma_k * k * max_a *
// max_b with gamma_k = k u / (1 - k u) (Higham), doubled for the two
// accumulation orders compared.
double etr_diff_accumulation_bound(etr_scalar_type_t dtype, int64_t k,
                                   double max_a, double max_b);

// Runs the case (reference once, optimized per ISA) and returns the number
// of failing comparisons (0 = agreed on every ISA). Prints failures.
// Returns 0 without running when ETREF_DIFF_ONLY names another case.
int etr_diff_run(etr_diff_case_t *c);

// Random helpers from the case's generator.
uint64_t etr_diff_next(etr_diff_case_t *c);
int64_t etr_diff_range(etr_diff_case_t *c, int64_t low, int64_t high);

// Totals since the process started (for a closing summary line).
typedef struct etr_diff_stats {
  uint64_t cases;
  uint64_t runs;          // optimized runs (cases x ISAs)
  uint64_t specialized;   // runs that did not fall back
  uint64_t failures;
} etr_diff_stats_t;
const etr_diff_stats_t *etr_diff_stats(void);

// The tile-edge sizes every elementwise sweep uses for a vector of `width`
// lanes: 0, 1, w-1, w, w+1, 2w-1, 2w, 3w+1, 4w+3 and a large one (1000 +
// w/2). Writes up to 10 sizes; returns how many.
size_t etr_diff_edge_sizes(int64_t width, int64_t *sizes);

#endif  // ETR_OPS_OPTIMIZED_TEST_DIFF_H
