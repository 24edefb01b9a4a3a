// SPDX-License-Identifier: Apache-2.0
//
// The packed, cache-blocked fp32 GEMM behind mm, addmm, bmm, linear and
// convolution (GotoBLAS/BLIS structure):
//
//   C[m][n] = alpha * sum_k A[m][k] * B[k][n] + beta * bias[m][n]
//
// Both operands are described as "sources" that know how to pack a block of
// themselves into the microkernel's panel format, so a strided fp32 matrix,
// a transposed weight, a Half/BFloat16 matrix (converted while packing) and
// an implicit im2col matrix of a convolution input all run through the same
// driver. A is seen as its K x M transpose (packed in panels of MR columns:
// panel[k * MR + i] = A[i][k]); B as K x N (panels of NR: panel[k * NR + j]
// = B[k][j]); the tails of the last panel are zero-filled.
//
// Loop nest (the transpose of BLIS's: the microkernel broadcasts A and
// loads vectors of B, so the L1-resident micro-panel is A's and the
// streamed one B's):
//   for ic in M by MC:   for pc in K by KC:   pack A[ic.., pc..]  (~L3)
//     for jc in N by NC:   pack B[pc.., jc..]                   (~L2)
//       for ir by MR:  for jr by NR:  microkernel MR x NR, kc deep
// With one column block, a plain fp32 A is packed a panel at a time
// instead, just before the panel's tiles, into a slot that stays in L1.
// The first K block stores its partial sums into C, later ones add to them
// and the last applies alpha and beta * bias, so C is written in fp32 and
// the epilogue runs once per element. When M is small and B is fp32 with
// unit column stride, B is read in place (no packing; edges use masked
// loads); a row-major fp32 A is read in place by kernels that can
// (ukernel_direct_a) when N or M is small, and its row block is then all
// of M.
//
// Scratch: the packed blocks come from ctx->temp (etr_arena_t), sized to
// what the arena has left (blocks shrink down to one micro-panel when it is
// small); when there is no arena or too little of it, the driver uses
// ETR_GEMM_STACK_SCRATCH_BYTES of stack with the smallest blocking. Half
// and BFloat16 results accumulate in an fp32 block of that scratch and are
// rounded once when the block is done. Nothing is allocated, and the
// driver never fails: any M, N, K (0 included) completes.
//
// Exactness: accumulation is fp32 FMA in k order within a K block, so for
// small-integer data (every partial sum exact) results are bit-identical to
// the reference's double sums; otherwise they are within the usual
// gamma_k bound. Accumulators start at +0.0 and the bias is added after the
// sum, so signed zeros come out as the reference's (alpha*sum + beta*bias).
#ifndef ETR_OPS_OPTIMIZED_GEMM_GEMM_H
#define ETR_OPS_OPTIMIZED_GEMM_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/scalar_type.h"
#include "ops_optimized/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

// Stack scratch used when ctx->temp is missing or nearly full.
#define ETR_GEMM_STACK_SCRATCH_BYTES 12288

// Scratch the driver would like from ctx->temp for the fastest blocking
// (packed A block + packed B block, plus an fp32 result block for Half and
// BFloat16 results). Less works too, down to nothing.
#define ETR_GEMM_PREFERRED_SCRATCH_BYTES (960 * 1024)

// Microkernel flags.
#define ETR_GEMM_ACCUMULATE 1u  // add C's current contents to the sums
#define ETR_GEMM_EPILOGUE 2u    // last K block: apply alpha and beta * bias
#define ETR_GEMM_B_PACKED 4u    // B is a zero-padded panel: full-width
                                // loads past nr are allowed

// The epilogue of one tile: out = alpha * sums + beta * bias, with bias at
// bias[i * bias_row_stride + j * (bias_per_row ? 0 : 1)] for tile row i,
// column j (bias_row_stride may be 0: one row broadcast to every row).
// Microkernels that set etr_gemm_kernel_t.fuses_post also apply, after
// the bias, a fused convolution's per-row post (etr_gemm_post_t): v =
// fma(v, post_scale[i], post_shift[i]) when post_scale is set, then v =
// min(post_high, max(post_low, v)) when post_clamp.
typedef struct etr_gemm_epilogue {
  float alpha;
  float beta;
  const float *bias;  // at the tile's origin; NULL: no bias
  ptrdiff_t bias_row_stride;
  bool bias_per_row;  // one value per row (column vector or scalar bias)
  const float *post_scale;  // at the tile's first row; NULL: none
  const float *post_shift;
  float post_low;
  float post_high;
  bool post_clamp;
} etr_gemm_epilogue_t;

// Computes an mr x nr tile (mr <= MR, nr <= NR) of C at `c` (row stride
// c_stride, unit column stride) from kc steps of a packed A micro-panel
// (a[k * MR + i]) and B rows (b[k * b_stride + j], j < nr; when
// ETR_GEMM_B_PACKED is set b_stride is NR and columns nr..NR-1 are zeros).
// Writes exactly rows < mr and columns < nr of C and reads B only within
// its nr columns unless B is packed.
typedef void (*etr_gemm_ukernel_fn)(size_t kc, const float *a,
                                    const float *b, ptrdiff_t b_stride,
                                    float *c, ptrdiff_t c_stride, size_t mr,
                                    size_t nr, unsigned flags,
                                    const etr_gemm_epilogue_t *epilogue);

// Packs a plain fp32 block into ceil(xc / width) panels (format as
// etr_gemm_pack_fn): "rows" reads element (k, x) at src[k * stride + x]
// (unit stride along X), "columns" at src[x * stride + k] (unit stride
// along K: a transpose).
typedef void (*etr_gemm_pack_f32_fn)(const float *src, ptrdiff_t stride,
                                     size_t kc, size_t xc, size_t width,
                                     float *dst);

// The same microkernel reading a plain B in place (b_stride apart, as
// without ETR_GEMM_B_PACKED) and writing each B row it reads, NR wide with
// zeros past nr, to `packed`: the packed panel later row panels read.
typedef void (*etr_gemm_ukernel_pack_b_fn)(
    size_t kc, const float *a, const float *b, ptrdiff_t b_stride, float *c,
    ptrdiff_t c_stride, size_t mr, size_t nr, unsigned flags,
    const etr_gemm_epilogue_t *epilogue, float *packed);

// The same microkernel reading A in place: A[i][k] at a[i * a_stride + k]
// (a row-major A, not packed); rows >= mr are not read.
typedef void (*etr_gemm_ukernel_direct_a_fn)(
    size_t kc, const float *a, ptrdiff_t a_stride, const float *b,
    ptrdiff_t b_stride, float *c, ptrdiff_t c_stride, size_t mr, size_t nr,
    unsigned flags, const etr_gemm_epilogue_t *epilogue);

// One row of C (M = 1) from a row of A (a[k * a_stride]) and an fp32 B
// with unit column stride (B[k][j] at b[k * b_stride + j]), the whole K at
// once, with the epilogue (bias at the row's origin).
typedef void (*etr_gemm_gemv_fn)(size_t kc, size_t n, const float *a,
                                 ptrdiff_t a_stride, const float *b,
                                 ptrdiff_t b_stride, float *c,
                                 const etr_gemm_epilogue_t *epilogue);

typedef struct etr_gemm_kernel {
  etr_gemm_ukernel_fn ukernel;
  etr_gemm_ukernel_direct_a_fn ukernel_direct_a;  // NULL: always pack A
  etr_gemm_ukernel_pack_b_fn ukernel_pack_b;  // NULL: B packed on its own
  etr_gemm_gemv_fn gemv;  // NULL: M = 1 runs the microkernel
  etr_gemm_pack_f32_fn pack_rows;
  etr_gemm_pack_f32_fn pack_columns;
  size_t mr;
  size_t nr;
  size_t kc;  // preferred K block
  size_t mc;  // preferred rows of A per packed block (multiple of mr)
  size_t nc;  // preferred columns of B per packed block (multiple of nr)
  size_t direct_b_max_m;  // read B in place when M is at most this
  // A shorter tile of the same ISA (NULL: none); the driver takes it when
  // it pads enough fewer rows of M, or when its wide form fits N and it
  // pads no more rows (etr_gemm).
  const struct etr_gemm_kernel *narrow;
  // The same rows with more columns a step (NULL: none); the driver takes
  // it when its panels pad N little more (at most 5%) than this one's.
  const struct etr_gemm_kernel *wide;
  // The microkernels apply etr_gemm_epilogue_t's post fields.
  bool fuses_post;
} etr_gemm_kernel_t;

// The microkernel and blocking of `isa` (the scalar one when the ISA has
// none in this build).
const etr_gemm_kernel_t *etr_gemm_kernel_for(etr_isa_t isa);

// Per-ISA microkernels (only those of the build's architecture exist).
void etr_gemm_f32_ukernel_scalar(size_t kc, const float *a, const float *b,
                                 ptrdiff_t b_stride, float *c,
                                 ptrdiff_t c_stride, size_t mr, size_t nr,
                                 unsigned flags,
                                 const etr_gemm_epilogue_t *epilogue);
void etr_gemm_f32_ukernel_avx2(size_t kc, const float *a, const float *b,
                               ptrdiff_t b_stride, float *c,
                               ptrdiff_t c_stride, size_t mr, size_t nr,
                               unsigned flags,
                               const etr_gemm_epilogue_t *epilogue);
void etr_gemm_f32_ukernel_avx512(size_t kc, const float *a, const float *b,
                                 ptrdiff_t b_stride, float *c,
                                 ptrdiff_t c_stride, size_t mr, size_t nr,
                                 unsigned flags,
                                 const etr_gemm_epilogue_t *epilogue);
void etr_gemm_f32_ukernel_pack_b_avx512(
    size_t kc, const float *a, const float *b, ptrdiff_t b_stride, float *c,
    ptrdiff_t c_stride, size_t mr, size_t nr, unsigned flags,
    const etr_gemm_epilogue_t *epilogue, float *packed);
void etr_gemm_f32_ukernel_8x32_pack_b_avx512(
    size_t kc, const float *a, const float *b, ptrdiff_t b_stride, float *c,
    ptrdiff_t c_stride, size_t mr, size_t nr, unsigned flags,
    const etr_gemm_epilogue_t *epilogue, float *packed);
void etr_gemm_f32_ukernel_8x48_pack_b_avx512(
    size_t kc, const float *a, const float *b, ptrdiff_t b_stride, float *c,
    ptrdiff_t c_stride, size_t mr, size_t nr, unsigned flags,
    const etr_gemm_epilogue_t *epilogue, float *packed);
void etr_gemm_f32_ukernel_direct_a_avx2(
    size_t kc, const float *a, ptrdiff_t a_stride, const float *b,
    ptrdiff_t b_stride, float *c, ptrdiff_t c_stride, size_t mr, size_t nr,
    unsigned flags, const etr_gemm_epilogue_t *epilogue);
void etr_gemm_f32_ukernel_direct_a_avx512(
    size_t kc, const float *a, ptrdiff_t a_stride, const float *b,
    ptrdiff_t b_stride, float *c, ptrdiff_t c_stride, size_t mr, size_t nr,
    unsigned flags, const etr_gemm_epilogue_t *epilogue);
void etr_gemm_f32_ukernel_8x32_avx512(size_t kc, const float *a,
                                      const float *b, ptrdiff_t b_stride,
                                      float *c, ptrdiff_t c_stride, size_t mr,
                                      size_t nr, unsigned flags,
                                      const etr_gemm_epilogue_t *epilogue);
void etr_gemm_f32_ukernel_8x32_direct_a_avx512(
    size_t kc, const float *a, ptrdiff_t a_stride, const float *b,
    ptrdiff_t b_stride, float *c, ptrdiff_t c_stride, size_t mr, size_t nr,
    unsigned flags, const etr_gemm_epilogue_t *epilogue);
void etr_gemm_f32_ukernel_8x48_avx512(size_t kc, const float *a,
                                      const float *b, ptrdiff_t b_stride,
                                      float *c, ptrdiff_t c_stride, size_t mr,
                                      size_t nr, unsigned flags,
                                      const etr_gemm_epilogue_t *epilogue);
void etr_gemm_f32_ukernel_8x48_direct_a_avx512(
    size_t kc, const float *a, ptrdiff_t a_stride, const float *b,
    ptrdiff_t b_stride, float *c, ptrdiff_t c_stride, size_t mr, size_t nr,
    unsigned flags, const etr_gemm_epilogue_t *epilogue);
void etr_gemm_f32_gemv_avx2(size_t kc, size_t n, const float *a,
                            ptrdiff_t a_stride, const float *b,
                            ptrdiff_t b_stride, float *c,
                            const etr_gemm_epilogue_t *epilogue);
void etr_gemm_f32_gemv_avx512(size_t kc, size_t n, const float *a,
                              ptrdiff_t a_stride, const float *b,
                              ptrdiff_t b_stride, float *c,
                              const etr_gemm_epilogue_t *epilogue);
// etr_gemm_f32_gemv_avx512 for N < 16 when B's rows are packed end to
// end (b_stride == n) and a_stride == 1 (gemv_narrow_avx512.c): B read as
// a flat array in whole vectors. False, with nothing written, for other
// shapes and strides.
bool etr_gemm_f32_gemv_narrow_avx512(size_t kc, size_t n, const float *a,
                                     ptrdiff_t a_stride, const float *b,
                                     ptrdiff_t b_stride, float *c,
                                     const etr_gemm_epilogue_t *epilogue);
// C = A B for `batch` dense row-major products laid end to end (A m x k,
// B k x n, C m x n), 1 <= n <= 16 (gemm_small_avx512.c): each C row one
// vector, sums in k order from 0 by FMA; no scratch. For the small
// products the general driver's planning and tiles dwarf (bmm's [4, 16,
// 16] attention products).
void etr_gemm_small_f32_avx512(size_t batch, size_t m, size_t n, size_t k,
                               const float *a, const float *b, float *c);
void etr_gemm_f32_ukernel_neon(size_t kc, const float *a, const float *b,
                               ptrdiff_t b_stride, float *c,
                               ptrdiff_t c_stride, size_t mr, size_t nr,
                               unsigned flags,
                               const etr_gemm_epilogue_t *epilogue);

void etr_gemm_pack_rows_f32_scalar(const float *src, ptrdiff_t stride,
                                   size_t kc, size_t xc, size_t width,
                                   float *dst);
void etr_gemm_pack_columns_f32_scalar(const float *src, ptrdiff_t stride,
                                      size_t kc, size_t xc, size_t width,
                                      float *dst);
void etr_gemm_pack_rows_f32_avx2(const float *src, ptrdiff_t stride,
                                 size_t kc, size_t xc, size_t width,
                                 float *dst);
void etr_gemm_pack_rows_f32_avx512(const float *src, ptrdiff_t stride,
                                   size_t kc, size_t xc, size_t width,
                                   float *dst);
void etr_gemm_pack_columns_f32_avx512(const float *src, ptrdiff_t stride,
                                      size_t kc, size_t xc, size_t width,
                                      float *dst);

// ---------------------------------------------------------------------------
// Sources: a K x X matrix (X = M for A, N for B) packed on demand.

typedef struct etr_gemm_source etr_gemm_source_t;

// Packs rows [k0, k0 + kc) and columns [x0, x0 + xc) of the source into
// ceil(xc / width) panels of kc * width floats at `dst` (panel p, row k,
// column x at dst[p * kc * width + k * width + x]); columns past xc in the
// last panel are zeros.
typedef void (*etr_gemm_pack_fn)(const etr_gemm_source_t *source, size_t k0,
                                 size_t kc, size_t x0, size_t xc,
                                 size_t width, float *dst);

struct etr_gemm_source {
  etr_gemm_pack_fn pack;
  const void *data;           // element (k, x) at data[k * k_stride +
  etr_scalar_type_t dtype;    //   x * x_stride] for plain matrices
  ptrdiff_t k_stride;         // elements
  ptrdiff_t x_stride;
  const void *generator;      // parameters of generated sources (im2col)
};

// Packs a plain strided matrix of Float, Half or BFloat16.
void etr_gemm_pack_strided(const etr_gemm_source_t *source, size_t k0,
                           size_t kc, size_t x0, size_t xc, size_t width,
                           float *dst);

// A plain matrix source: element (k, x) at data[k * k_stride + x *
// x_stride] of `dtype` (Float, Half or BFloat16).
static inline etr_gemm_source_t etr_gemm_matrix(const void *data,
                                                etr_scalar_type_t dtype,
                                                ptrdiff_t k_stride,
                                                ptrdiff_t x_stride) {
  etr_gemm_source_t source = {etr_gemm_pack_strided, data, dtype,
                              k_stride, x_stride, NULL};
  return source;
}

// ---------------------------------------------------------------------------
// The driver.

// A per-row pass over each finished fp32 tile of C (a fused convolution's
// batch norm and clamp, conv/conv.h): for row r of the product (plus the
// problem's post_row0), v = fma(v, scale[r], shift[r]) when scale is set,
// then v = min(high, max(low, v)) (bit for bit v < low ? low : v, then
// v > high ? high : v). Microkernels with fuses_post apply it in registers
// before the store; for the others the driver calls `apply` on each tile
// right after its last K block, with `rows` x `cols` of C at `c` (row
// stride c_stride) starting at row `row0` of the product (plus post_row0).
// Not applied to Half/BFloat16 C.
typedef struct etr_gemm_post {
  const float *scale;  // NULL: no affine step
  const float *shift;
  float low;
  float high;
  void (*apply)(const struct etr_gemm_post *post, float *c,
                ptrdiff_t c_stride, size_t row0, size_t rows, size_t cols);
  const void *state;
} etr_gemm_post_t;

struct etr_gemm_packed_a;
struct etr_gemm_packed_b;

typedef struct etr_gemm_problem {
  size_t m;
  size_t n;
  size_t k;
  etr_gemm_source_t a;  // K x M: A transposed (k_stride = A's column
                        // stride, x_stride = A's row stride)
  etr_gemm_source_t b;  // K x N
  void *c;              // M x N, unit column stride
  etr_scalar_type_t c_dtype;  // Float, Half or BFloat16
  ptrdiff_t c_row_stride;
  float alpha;
  float beta;
  const void *bias;     // NULL: none (also when beta == 0: not read);
                        // of c_dtype
  ptrdiff_t bias_row_stride;
  ptrdiff_t bias_col_stride;  // 0 or 1
  const etr_gemm_post_t *post;  // NULL: none (fp32 C only)
  size_t post_row0;             // added to the rows post->apply sees
  // B packed at load (etr_gemm_prepack_b), or NULL: used when it was packed
  // from this B's data, for the microkernel and K blocks this call takes
  // (no batch); otherwise B is packed as usual.
  const struct etr_gemm_packed_b *b_packed;
  // A packed at load (etr_gemm_prepack_a), or NULL: likewise used when it
  // was packed from this A's data for this call's microkernel and K
  // blocks (no batch).
  const struct etr_gemm_packed_a *a_packed;
} etr_gemm_problem_t;

// Independent products over a 2-level batch (bmm: {B, 1}; grouped
// convolution: {N, groups}): product (i, j) reads A, B and bias and writes
// C at their origin plus i * stride[0] + j * stride[1] elements.
typedef struct etr_gemm_batch {
  size_t count[2];
  ptrdiff_t a[2];
  ptrdiff_t b[2];
  ptrdiff_t c[2];
  ptrdiff_t bias[2];
  size_t post_row[2];  // added to the problem's post_row0
} etr_gemm_batch_t;

// All of a constant B packed once, as the panels etr_gemm would pack it
// (every K block, every column panel) for one product shape.
typedef struct etr_gemm_packed_b {
  const float *panels;
  const void *from;  // B's data and strides when packed
  ptrdiff_t k_stride;
  ptrdiff_t x_stride;
  const etr_gemm_kernel_t *kernel;
  size_t kc;         // the K block it was packed in
  size_t n;
  size_t k;
} etr_gemm_packed_b_t;

// For a product whose B no call can change (a constant weight): B packed
// as etr_gemm(p, NULL, ..., isa) would pack it, into memory from `arena`;
// NULL when that call would read B in place, rounds to Half/BFloat16, or
// the arena has no room. Set as p->b_packed, a call then packs nothing of
// B (XNNPACK likewise packs a layer's weights at init).
const etr_gemm_packed_b_t *etr_gemm_prepack_b(const etr_gemm_problem_t *p,
                                              etr_isa_t isa,
                                              etr_arena_t *arena);

// All of a constant A packed once: each K block's row panels, as
// etr_gemm would pack them for one product shape. A call then packs
// nothing of A and takes all of M as one row block (as when it reads A in
// place), so B is packed once per block too.
typedef struct etr_gemm_packed_a {
  const float *panels;
  const void *from;  // A's data and strides when packed
  ptrdiff_t k_stride;
  ptrdiff_t x_stride;
  const etr_gemm_kernel_t *kernel;
  size_t kc;         // the K block it was packed in
  size_t m;
  size_t k;
} etr_gemm_packed_a_t;

// For a product whose A no call can change (a transposed convolution's
// weight): A packed as etr_gemm(p, NULL, ..., isa) would pack it, into
// memory from `arena`; NULL when that call would read A in place, rounds
// to Half/BFloat16, or the arena has no room. Set as p->a_packed.
const etr_gemm_packed_a_t *etr_gemm_prepack_a(const etr_gemm_problem_t *p,
                                              etr_isa_t isa,
                                              etr_arena_t *arena);

// Runs the product (or each product of `batch`, which may be NULL) with
// `isa`'s microkernel, taking scratch once from `temp` (may be NULL) or the
// stack. A, B and bias must not overlap C (partial sums are stored in C
// before the last K block reads the bias): callers check with
// etr_gemm_overlaps and fall back.
void etr_gemm(const etr_gemm_problem_t *problem,
              const etr_gemm_batch_t *batch, etr_arena_t *temp,
              etr_isa_t isa);

// True when memory [a, a + a_bytes) and [b, b + b_bytes) overlap.
static inline bool etr_gemm_overlaps(const void *a, size_t a_bytes,
                                     const void *b, size_t b_bytes) {
  uintptr_t a0 = (uintptr_t)a;
  uintptr_t b0 = (uintptr_t)b;
  return a_bytes != 0 && b_bytes != 0 && a0 < b0 + b_bytes &&
         b0 < a0 + a_bytes;
}

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_OPTIMIZED_GEMM_GEMM_H
