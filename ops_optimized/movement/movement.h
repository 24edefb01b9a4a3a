// SPDX-License-Identifier: Apache-2.0
//
// The data-movement family: a strided byte-move engine and its per-ISA
// microkernels. Every movement kernel (permute, cat, clone, slice, select,
// expand, repeat, pad, the scatters, the index-taking ops) is a view of
// its input plus a move of elements that keep their bytes, so the engine
// works by element size (1, 2, 4, 8 or 16 bytes), never by dtype.
//
// etr_move_strided() takes one logical shape and a byte layout for each
// side, drops size-1 dims, orders the rest by the destination's strides,
// merges dims that are contiguous on both sides and then runs one of:
//   rows       both innermost strides are one element: memcpy per row
//              (one memcpy for a dense copy);
//   replicate  rows whose next dim out has source stride 0 (an expanded
//              row): the replicate microkernel writes them all;
//   broadcast  the source's innermost stride is 0: the fill microkernel
//              replicates one element along the row;
//   transpose  one side is unit-stride on the innermost dim and the other
//              on another dim (a 2-D transpose, NCHW <-> NHWC, the weight
//              transpose `linear` exports as permute_copy): the transpose
//              microkernel of the active ISA, tile by tile;
//   evens      the destination unit-stride and the source every other
//              element (4- or 8-byte elements): the evens microkernel;
//   strided    anything else: an element loop by element size.
//
// Microkernels, one ISA per file (movement/<kind>_<isa>.c), with the
// selection in the *_scalar.c file:
//   transpose: dst[c * dst_stride + r] = src[r * src_stride + c] for a
//              rows x columns block of 1/2/4/8-byte elements (strides in
//              bytes); tiles in registers, edges scalar or masked, nothing
//              read or written outside the block;
//   fill:      `count` copies of one element of 1..16 bytes;
//   replicate: `rows` copies of one row of bytes at a destination stride
//              (an expand of a row, the rows-of-a-broadcast move);
//   rows:      `rows` short rows of bytes between two strides;
//   evens:     every other element of a row, packed.
// No allocation, no scratch.
#ifndef ETR_OPS_OPTIMIZED_MOVEMENT_MOVEMENT_H
#define ETR_OPS_OPTIMIZED_MOVEMENT_MOVEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/common/check.h"
#include "ops_optimized/common/memo.h"
#include "ops_optimized/isa.h"
#include "ops_reference/support/movement_scatter.h"

// ---------------------------------------------------------------------------
// Microkernels.

// Transposes a rows x columns block: element (r, c) of the source, at
// src + r * src_stride + c * element_size, goes to dst + c * dst_stride +
// r * element_size. Strides in bytes; rows and columns may be 0.
typedef void (*etr_move_transpose_fn)(size_t rows, size_t columns,
                                      const void *src, size_t src_stride,
                                      void *dst, size_t dst_stride);

#define ETR_MOVE_DECLARE_TRANSPOSE(isa)                                     \
  void etr_move_transpose_x8_##isa(size_t rows, size_t columns,             \
                                   const void *src, size_t src_stride,      \
                                   void *dst, size_t dst_stride);           \
  void etr_move_transpose_x16_##isa(size_t rows, size_t columns,            \
                                    const void *src, size_t src_stride,     \
                                    void *dst, size_t dst_stride);          \
  void etr_move_transpose_x32_##isa(size_t rows, size_t columns,            \
                                    const void *src, size_t src_stride,     \
                                    void *dst, size_t dst_stride);          \
  void etr_move_transpose_x64_##isa(size_t rows, size_t columns,            \
                                    const void *src, size_t src_stride,     \
                                    void *dst, size_t dst_stride);
ETR_MOVE_DECLARE_TRANSPOSE(scalar)
ETR_MOVE_DECLARE_TRANSPOSE(avx2)
ETR_MOVE_DECLARE_TRANSPOSE(neon)
// AVX-512 has a 32-bit kernel only; its table uses AVX2's for the others.
void etr_move_transpose_x32_avx512(size_t rows, size_t columns,
                                   const void *src, size_t src_stride,
                                   void *dst, size_t dst_stride);

// Runs `tiles` (a transpose of the same signature) over a rows x columns
// transpose block by block (512 bytes' worth of elements each way), outer
// loop over rows: the shared cache blocking of every ISA's transpose.
void etr_move_transpose_blocks(etr_move_transpose_fn tiles,
                               size_t element_size, size_t rows,
                               size_t columns, const void *src,
                               size_t src_stride, void *dst,
                               size_t dst_stride);

// The transpose microkernel of `isa` for elements of `element_size` bytes
// (1, 2, 4 or 8); NULL for other sizes (the engine then loops).
etr_move_transpose_fn etr_move_transpose_for(etr_isa_t isa,
                                             size_t element_size);

// Writes `count` copies of the `element_size`-byte element at `element`
// (1 <= element_size <= 16) to dst, contiguously.
typedef void (*etr_move_fill_fn)(void *dst, size_t count,
                                 size_t element_size, const void *element);
void etr_move_fill_scalar(void *dst, size_t count, size_t element_size,
                          const void *element);
void etr_move_fill_avx2(void *dst, size_t count, size_t element_size,
                        const void *element);
void etr_move_fill_avx512(void *dst, size_t count, size_t element_size,
                          const void *element);
void etr_move_fill_neon(void *dst, size_t count, size_t element_size,
                        const void *element);
etr_move_fill_fn etr_move_fill_for(etr_isa_t isa);

// Writes `rows` copies of the `bytes` bytes at src, the first at dst and
// each next one `dst_stride` (>= bytes) bytes further; nothing else read
// or written.
typedef void (*etr_move_replicate_fn)(void *dst, size_t dst_stride,
                                      size_t rows, const void *src,
                                      size_t bytes);
void etr_move_replicate_scalar(void *dst, size_t dst_stride, size_t rows,
                               const void *src, size_t bytes);
void etr_move_replicate_avx2(void *dst, size_t dst_stride, size_t rows,
                             const void *src, size_t bytes);
void etr_move_replicate_avx512(void *dst, size_t dst_stride, size_t rows,
                               const void *src, size_t bytes);
etr_move_replicate_fn etr_move_replicate_for(etr_isa_t isa);

// Copies `rows` rows of `bytes` bytes, row r from src + r * src_stride to
// dst + r * dst_stride (dst_stride >= bytes; no row overlaps the source);
// nothing else read or written. The short rows of a strided move (a pad's
// or a slice's), which one memcpy call each spent most of their time
// calling.
typedef void (*etr_move_rows_fn)(void *dst, size_t dst_stride,
                                 const void *src, ptrdiff_t src_stride,
                                 size_t rows, size_t bytes);
void etr_move_rows_scalar(void *dst, size_t dst_stride, const void *src,
                          ptrdiff_t src_stride, size_t rows, size_t bytes);
void etr_move_rows_avx2(void *dst, size_t dst_stride, const void *src,
                        ptrdiff_t src_stride, size_t rows, size_t bytes);
void etr_move_rows_avx512(void *dst, size_t dst_stride, const void *src,
                          ptrdiff_t src_stride, size_t rows, size_t bytes);
etr_move_rows_fn etr_move_rows_for(etr_isa_t isa);

// Copies `count` elements of `element_size` bytes from every other element
// of src (src[0], src[2], ... src[2 * (count - 1)]) to dst, contiguously:
// a slice with step 2, the real parts of a complex tensor, as_strided's
// every-other view. Reads nothing past src[2 * (count - 1)].
typedef void (*etr_move_evens_fn)(void *dst, const void *src, size_t count);
#define ETR_MOVE_DECLARE_EVENS(isa)                                         \
  void etr_move_evens_x32_##isa(void *dst, const void *src, size_t count);  \
  void etr_move_evens_x64_##isa(void *dst, const void *src, size_t count);
ETR_MOVE_DECLARE_EVENS(scalar)
ETR_MOVE_DECLARE_EVENS(avx2)
ETR_MOVE_DECLARE_EVENS(avx512)
ETR_MOVE_DECLARE_EVENS(neon)
// The evens microkernel of `isa` for 4- or 8-byte elements; NULL for other
// sizes (the engine then loops).
etr_move_evens_fn etr_move_evens_for(etr_isa_t isa, size_t element_size);

// Copies `count` elements of `element_size` bytes from src backwards
// (dst[i] = src[-i]: src is the last element of the run in memory) to
// dst, contiguously: a flip's innermost dim. Reads nothing before
// src[-(count - 1)].
typedef void (*etr_move_reverse_fn)(void *dst, const void *src,
                                    size_t count);
void etr_move_reverse_x32_avx2(void *dst, const void *src, size_t count);
void etr_move_reverse_x64_avx2(void *dst, const void *src, size_t count);
void etr_move_reverse_x32_avx512(void *dst, const void *src, size_t count);
void etr_move_reverse_x64_avx512(void *dst, const void *src, size_t count);
// The reverse microkernel of `isa` for 4- or 8-byte elements; NULL for
// other sizes and ISAs without one (the engine then loops).
etr_move_reverse_fn etr_move_reverse_for(etr_isa_t isa,
                                         size_t element_size);

// masked_scatter's copy: the True bytes of mask[0, count) (any non-zero
// byte) take consecutive elements of src, dst[i] = src[k] for the k-th
// True i; dst's other elements are left alone. Returns the number of
// src elements taken (the caller checks beforehand that src has them;
// nothing past them is read).
typedef size_t (*etr_move_expand_fn)(void *dst, const uint8_t *mask,
                                     const void *src, size_t count);
size_t etr_move_expand_x32_avx512(void *dst, const uint8_t *mask,
                                  const void *src, size_t count);
size_t etr_move_expand_x64_avx512(void *dst, const uint8_t *mask,
                                  const void *src, size_t count);
// The expand microkernel of `isa` for 4- or 8-byte elements; NULL for
// other sizes and ISAs without one (the caller loops).
etr_move_expand_fn etr_move_expand_for(etr_isa_t isa, size_t element_size);
// The number of non-zero bytes of mask[0, count).
size_t etr_move_count_trues(const uint8_t *mask, size_t count);
size_t etr_move_count_trues_avx512(const uint8_t *mask, size_t count);

// ---------------------------------------------------------------------------
// The engine (movement/move.c).

// The most dims etr_move_strided takes (repeat reads each dim as two).
#define ETR_MOVE_MAX_DIMS (2 * ETR_MAX_DIMS)

// Moves the elements of a (dim, sizes) box, dim <= ETR_MOVE_MAX_DIMS:
// element i of src (offset sum(i_d * src_strides[d]) elements) to the same
// logical position of dst. Strides in elements (0 for a broadcast source
// dim). dst must not overlap src unless both are the same memory with the
// same strides (a no-op).
void etr_move_strided(size_t element_size, int32_t dim, const int64_t *sizes,
                      void *dst, const int64_t *dst_strides, const void *src,
                      const int64_t *src_strides);

// dst = src element by element (same shape, same element size; any
// strides): etr_copy_strided without a dtype conversion.
void etr_move_tensor(etr_tensor_t *dst, const etr_tensor_t *src);

// How etr_move_strided moves its innermost dim (and, for some kinds, the
// one outside it): worked out once per move (move.c's plan_move).
typedef enum etr_move_kind {
  MOVE_ROWS = 0,
  MOVE_BROADCAST = 1,
  MOVE_TRANSPOSE = 2,
  MOVE_STRIDED = 3,
  MOVE_REPLICATE = 4,
  MOVE_ROW_BLOCK = 5,
  MOVE_EVENS = 6,
  MOVE_REVERSE = 7,
} etr_move_kind_t;

typedef struct etr_move_plan {
  etr_move_kind_t kind;
  size_t element_size;
  int64_t count;       // elements per row (the innermost dim)
  int64_t dst_step;    // innermost strides (bytes), for MOVE_STRIDED
  int64_t src_step;
  // MOVE_TRANSPOSE: rows x columns, source unit-stride along columns.
  // MOVE_REPLICATE: `rows` copies of a row, dst_stride bytes apart.
  // MOVE_ROW_BLOCK: `rows` rows, src_step and dst_stride bytes apart.
  size_t rows;
  size_t columns;
  size_t src_stride;
  size_t dst_stride;
  union {  // the kind's microkernel
    etr_move_transpose_fn transpose;
    etr_move_fill_fn fill;
    etr_move_replicate_fn replicate;
    etr_move_rows_fn copy_rows;
    etr_move_evens_fn evens;
    etr_move_reverse_fn reverse;
  };
} etr_move_plan_t;

// A move of etr_move_strided worked out once, to be made again on other
// data pointers (an instruction's vouched calls, from ctx->memo): at most
// ETR_MOVE_KEPT_DIMS outer dims around the plan's inner loop.
enum { ETR_MOVE_KEPT_DIMS = 3 };

typedef enum etr_move_kept_kind {
  ETR_MOVE_KEPT_NOTHING = 0,  // no elements, or each onto itself
  ETR_MOVE_KEPT_COPY,         // one copy of `bytes`
  ETR_MOVE_KEPT_PLAN,         // the plan over the outer dims
} etr_move_kept_kind_t;

typedef struct etr_move_kept {
  uint32_t mark;  // the keeper's (etr_move_strided_kept leaves it alone)
  etr_move_kept_kind_t kind;
  size_t bytes;
  int32_t dim;  // outer dims
  int64_t sizes[ETR_MOVE_KEPT_DIMS];
  int64_t dst[ETR_MOVE_KEPT_DIMS];  // bytes
  int64_t src[ETR_MOVE_KEPT_DIMS];
  etr_move_plan_t plan;
} etr_move_kept_t;

// etr_move_strided, which also describes the move in *kept (mark left
// alone): true when it fits (every move but those with more than
// ETR_MOVE_KEPT_DIMS outer dims), for etr_move_kept_run to repeat.
bool etr_move_strided_kept(size_t element_size, int32_t dim,
                           const int64_t *sizes, void *dst,
                           const int64_t *dst_strides, const void *src,
                           const int64_t *src_strides, etr_move_kept_t *kept);

// The move *kept describes, from src to dst (the same strides and shape
// as when it was kept; only the data pointers may differ).
void etr_move_kept_run(const etr_move_kept_t *kept, void *dst,
                       const void *src);

_Static_assert(sizeof(etr_move_kept_t) <= ETR_KERNEL_MEMO_BYTES,
               "etr_move_kept_t must fit a kernel memo");

// A kernel's move kept in ctx->memo under its `mark`: on a vouched call
// (ctx->args_checked) whose memo holds it, the move from args[src]'s data
// to args[dst]'s and true; false, nothing done (no argument read: an
// unvouched call's arguments are not checked yet), otherwise.
static inline bool etr_move_memo_run(const etr_kernel_context_t *ctx,
                                     uint32_t mark, etr_evalue_t **args,
                                     size_t dst, size_t src) {
  const etr_move_kept_t *kept = etr_opt_vouched_memo(ctx, mark);
  if (kept == NULL) {
    return false;
  }
  etr_move_kept_run(kept, args[dst]->u.as_tensor->data,
                    args[src]->u.as_tensor->data);
  return true;
}

// etr_move_strided, kept in ctx->memo (when there is one and the move
// fits) under `mark` for etr_move_memo_run.
static inline void etr_move_strided_memo(etr_kernel_context_t *ctx,
                                         uint32_t mark, size_t element_size,
                                         int32_t dim, const int64_t *sizes,
                                         void *dst, const int64_t *dst_strides,
                                         const void *src,
                                         const int64_t *src_strides) {
  etr_move_kept_t kept;
  if (etr_move_strided_kept(element_size, dim, sizes, dst, dst_strides, src,
                            src_strides, &kept) &&
      ctx->memo != NULL) {
    kept.mark = mark;
    *(etr_move_kept_t *)ctx->memo = kept;
  }
}

// memcpy(dst, src, bytes) for buffers that do not overlap, with the
// vector loop of etr_move_rows_avx512 for copies of 2 to 16 KiB on
// AVX-512: glibc's memcpy takes `rep movsb` from 4 KiB on Zen 5, which
// ran a 4 KiB copy held in L1 in 31 ns against the loop's 17, 16 KiB in
// 105 against 65 (both L1-resident, repeated; from 32 KiB, source and
// destination past L1, memcpy is the faster). Inline, so that the small
// copies (a few dozen bytes in cat, split and slice) stay one memcpy call.
void etr_move_copy_mid(void *dst, const void *src, size_t bytes);
static inline void etr_move_copy(void *dst, const void *src, size_t bytes) {
  if (bytes > 2048 && bytes <= 16384) {
    etr_move_copy_mid(dst, src, bytes);
    return;
  }
  memcpy(dst, src, bytes);
}

// Every element of `tensor` (any strides) = the element at `element`.
void etr_move_fill_tensor(etr_tensor_t *tensor, const void *element);

// Strides (in elements) that read `tensor` as shape (dim, sizes) in its
// own row-major element order -- the semantics of view/reshape -- when
// the two shapes differ only by dims of size 1 (squeeze, unsqueeze and
// most view_copy calls) or `tensor` is contiguous. False otherwise.
bool etr_move_reshape_strides(const etr_tensor_t *tensor, int32_t dim,
                              const int64_t *sizes, int64_t *strides);

// True when the bytes `a` and `b` span intersect without being the very
// same elements (same data, strides and shape): such a move would depend
// on the order elements are copied in, so kernels leave it to the
// reference.
bool etr_move_overlaps(const etr_tensor_t *a, const etr_tensor_t *b);

// Reflection (`reflect`) or replication padding of the last
// `spatial_dims` (1..3) dims of self into out (movement/pad.c): `padding`
// as the reference reads it ([left, right, top, bottom, front, back]),
// already checked and out already resized by the reference's dry run;
// same dtype, no overlap, any strides. False, with nothing written, when
// the index rule would leave the input (never for checked arguments).
bool etr_move_pad(etr_tensor_t *out, const etr_tensor_t *self,
                  const int64_t *padding, int32_t spatial_dims,
                  bool reflect);

// out = self, then index/src (or `value`, one element of out's dtype,
// when src is NULL) scattered along `dim` by `reduce`
// (movement/scatter.c): assignment for every dtype, sum, prod, amax and
// amin for Float and Long, and for Half and BFloat16 into a dense out (in
// an fp32 copy of out in `temp`, ctx->temp, rounded back once: false
// without room there), include_self or not; the arguments already
// checked and out resized by the reference's dry run. One pass over the
// index in row-major order, the reference's order per target (bit-exact).
// False, with nothing written, for an index entry out of range (the
// reference reports it), mean, other dtypes, and outs that overlap an
// input (other than self exactly, in place).
bool etr_move_scatter(etr_arena_t *temp, etr_tensor_t *out,
                      const etr_tensor_t *self, int32_t dim,
                      const etr_tensor_t *index, const etr_tensor_t *src,
                      const void *value, etr_movement_reduce_t reduce,
                      bool include_self);

// ---------------------------------------------------------------------------
// Index-taking moves (movement/index.c). Index tensors are Long or Int,
// any layout, read in row-major order.

// Entry k (row-major) of the Long/Int tensor `index`.
int64_t etr_move_index_at(const etr_tensor_t *index, int64_t k);

// True when every entry of `index` lies in [0, size), or in [-size, size)
// when `wrap` (negative entries count from the end). Contiguous indices
// take etr_move_in_range_for(the active ISA).
bool etr_move_indices_in_range(const etr_tensor_t *index, int64_t size,
                               bool wrap);

// Whether entries[0, count) (int64 when `is_long`, else int32) all lie in
// [low, size), low <= 0 < size < 2^62.
typedef bool (*etr_move_in_range_fn)(const void *entries, bool is_long,
                                     size_t count, int64_t low,
                                     int64_t size);
bool etr_move_in_range_scalar(const void *entries, bool is_long,
                              size_t count, int64_t low, int64_t size);
bool etr_move_in_range_avx2(const void *entries, bool is_long, size_t count,
                            int64_t low, int64_t size);
bool etr_move_in_range_avx512(const void *entries, bool is_long,
                              size_t count, int64_t low, int64_t size);
etr_move_in_range_fn etr_move_in_range_for(etr_isa_t isa);

// dst[i * dst_step] = src[i * src_step + position(i) * src_along] for
// i < count, where position(i) is the Long/Int entry index[i * index_step]
// plus wrap_size when negative (pass 0 when entries are never negative).
// Steps in elements of `element_size` bytes; entries must be in range.
void etr_move_gather_elements(size_t element_size,
                              etr_scalar_type_t index_dtype, int64_t count,
                              void *dst, int64_t dst_step, const void *src,
                              int64_t src_step, int64_t src_along,
                              const void *index, int64_t index_step,
                              int64_t wrap_size);

// out[..., k, ...] = self[..., index(k), ...] along `dim`, for k over the
// entries of `index` in row-major order: `out` has self's shape with dim
// `dim` of size numel(index) (a view of the real out when the index has
// several dims). Entries must be in range (negative ones wrap when `wrap`).
// Dense operands gather whole rows with memcpy (single elements with typed
// loads); strided ones move one slice per entry.
void etr_move_index_select(etr_tensor_t *out, const etr_tensor_t *self,
                           int32_t dim, const etr_tensor_t *index, bool wrap);

// ---------------------------------------------------------------------------
// Kernel helpers.

// True when `tensor` and `other` are tensors of the same element size and
// dtype (a move keeps bytes, so the dtypes must be equal).
static inline bool etr_move_same_dtype(const etr_tensor_t *tensor,
                                       const etr_tensor_t *other) {
  return tensor != NULL && other != NULL && tensor->dtype == other->dtype;
}

#endif  // ETR_OPS_OPTIMIZED_MOVEMENT_MOVEMENT_H
