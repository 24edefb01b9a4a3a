// SPDX-License-Identifier: Apache-2.0
//
// The GEMM driver (see gemm.h): scratch from the arena or the stack, the
// choice of block sizes for what is available, and the loop nest around the
// active ISA's microkernel. Portable C; the per-ISA work is in the
// microkernels (gemm_<isa>.c).
#include <string.h>

#include "core/scalar_type.h"
#include "ops_optimized/gemm/gemm.h"

#define SCRATCH_ALIGNMENT 64

// A is read in place (not packed) when N or M is below these (etr_gemm).
#define DIRECT_A_MAX_N 256
#define DIRECT_A_MAX_M 48

typedef struct blocking {
  size_t mc;
  size_t nc;
  size_t kc;
  bool direct_a;   // A read in place (row-major fp32), not packed
  bool direct_b;   // B read in place, not packed
  bool c_scratch;  // results accumulate in an fp32 block (Half/BFloat16)
  bool b_resident; // all of B packed once (reused by every row block and,
                   // when its data does not change, every batch item)
  bool b_external; // all of B packed at load (problem->b_packed)
  bool a_external; // all of A packed at load (problem->a_packed)
} blocking_t;

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }
static size_t round_up(size_t value, size_t step) {
  return (value + step - 1) / step * step;
}

// Floats the blocking needs.
static size_t needed_floats(const blocking_t *blocks) {
  return (blocks->direct_a || blocks->a_external
              ? 0
              : blocks->mc * blocks->kc) +
         (blocks->direct_b || blocks->b_external ? 0
                                                 : blocks->kc * blocks->nc) +
         (blocks->c_scratch ? blocks->mc * blocks->nc : 0);
}

// The largest blocking up to the kernel's preferred one that fits in
// `available` floats: rows of A shrink first, then columns of B, then the
// K depth (which stays at least 1, so a micro-panel of each always fits
// the stack scratch).
static void choose_blocking(const etr_gemm_kernel_t *kernel, size_t m,
                            size_t n, size_t k, size_t available,
                            blocking_t *blocks) {
  size_t mr = kernel->mr;
  size_t nr = kernel->nr;
  blocks->kc = k == 0 ? 1 : min_size(k, kernel->kc);
  if (k > blocks->kc) {  // equal K blocks: no thin last block
    size_t count = (k + blocks->kc - 1) / blocks->kc;
    blocks->kc = round_up((k + count - 1) / count, 4);
  }
  // A read in place takes no scratch, so its row block is all of M: B's
  // blocks are then packed once each rather than once per row block.
  // Likewise an A packed at load.
  blocks->mc = (blocks->direct_a || blocks->a_external) && !blocks->c_scratch
                   ? round_up(m, mr)
                   : min_size(round_up(m, mr), kernel->mc);
  blocks->nc = min_size(round_up(n, nr), kernel->nc);
  while (needed_floats(blocks) > available) {
    if (blocks->mc > mr && !blocks->direct_a && !blocks->a_external) {
      blocks->mc = blocks->mc / 2 / mr * mr;
      blocks->mc = blocks->mc < mr ? mr : blocks->mc;
    } else if (blocks->nc > nr && !blocks->direct_b) {
      blocks->nc = blocks->nc / 2 / nr * nr;
      blocks->nc = blocks->nc < nr ? nr : blocks->nc;
    } else if (blocks->kc > 1) {
      size_t fixed = blocks->c_scratch ? blocks->mc * blocks->nc : 0;
      size_t per_k = (blocks->direct_a || blocks->a_external ? 0
                                                             : blocks->mc) +
                     (blocks->direct_b ? 0 : blocks->nc);
      per_k = per_k == 0 ? 1 : per_k;
      size_t fit = available > fixed ? (available - fixed) / per_k : 1;
      blocks->kc = fit >= 1 && fit < blocks->kc ? fit : blocks->kc / 2;
      blocks->kc = blocks->kc < 1 ? 1 : blocks->kc;
    } else {
      break;  // cannot happen with the stack scratch (checked by size)
    }
  }
}

// Bytes the arena can still give in one piece.
static size_t arena_room(const etr_arena_t *arena) {
  if (arena == NULL) {
    return 0;
  }
  size_t room = arena->size > arena->used ? arena->size - arena->used : 0;
  if (arena->block_size != 0) {  // growable: a new block can be taken
    size_t left = SIZE_MAX;
    if (arena->limit != 0) {
      left = arena->limit > arena->reserved ? arena->limit - arena->reserved
                                            : 0;
    }
    room = room > left ? room : left;
  }
  return room;
}

static float load_float(etr_scalar_type_t dtype, const void *data,
                        ptrdiff_t index) {
  switch (dtype) {
    case ETR_HALF:
      return etr_half_to_float(((const etr_half_t *)data)[index]);
    case ETR_BFLOAT16:
      return etr_bfloat16_to_float(((const etr_bfloat16_t *)data)[index]);
    default:
      return ((const float *)data)[index];
  }
}

// Rounds an fp32 block of results into a Half or BFloat16 C with the
// epilogue, once per element: alpha * sum + beta * bias computed in double
// and rounded through float, as the reference stores a double result.
static void store_converted(const etr_gemm_problem_t *p, const float *block,
                            size_t block_stride, size_t row0, size_t rows,
                            size_t col0, size_t cols) {
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < cols; ++j) {
      double value = (double)p->alpha * (double)block[i * block_stride + j];
      if (p->bias != NULL) {
        ptrdiff_t at = (ptrdiff_t)(row0 + i) * p->bias_row_stride +
                       (ptrdiff_t)(col0 + j) * p->bias_col_stride;
        value += (double)p->beta * (double)load_float(p->c_dtype, p->bias,
                                                      at);
      }
      ptrdiff_t at = (ptrdiff_t)(row0 + i) * p->c_row_stride +
                     (ptrdiff_t)(col0 + j);
      if (p->c_dtype == ETR_HALF) {
        ((etr_half_t *)p->c)[at] = etr_float_to_half((float)value);
      } else {
        ((etr_bfloat16_t *)p->c)[at] = etr_float_to_bfloat16((float)value);
      }
    }
  }
}

// Packs a block of `source`: plain fp32 matrices with a unit stride use
// the ISA's packers, everything else the source's own.
static void pack_block(const etr_gemm_kernel_t *kernel,
                       const etr_gemm_source_t *source, size_t k0, size_t kc,
                       size_t x0, size_t xc, size_t width, float *dst) {
  if (source->pack == etr_gemm_pack_strided && source->dtype == ETR_FLOAT) {
    const float *origin = (const float *)source->data +
                          (ptrdiff_t)k0 * source->k_stride +
                          (ptrdiff_t)x0 * source->x_stride;
    if (source->x_stride == 1) {
      kernel->pack_rows(origin, source->k_stride, kc, xc, width, dst);
      return;
    }
    if (source->k_stride == 1) {
      kernel->pack_columns(origin, source->x_stride, kc, xc, width, dst);
      return;
    }
  }
  source->pack(source, k0, kc, x0, xc, width, dst);
}

// The A block (rows [ic, ic + rows), K block [pc, pc + kc)) the
// microkernels read: packed into a_packed, or A itself when read in place.
static const float *prepare_a(const etr_gemm_kernel_t *kernel,
                              const etr_gemm_problem_t *p,
                              const blocking_t *blocks, size_t pc, size_t kc,
                              size_t ic, size_t rows, float *a_packed) {
  if (blocks->direct_a) {
    return (const float *)p->a.data + (ptrdiff_t)pc +
           (ptrdiff_t)ic * p->a.x_stride;
  }
  if (blocks->a_external) {  // K block pc's panels, row ic on
    return p->a_packed->panels + pc * round_up(p->m, kernel->mr) + ic * kc;
  }
  pack_block(kernel, &p->a, pc, kc, ic, rows, kernel->mr, a_packed);
  return a_packed;
}

// One (K block, column block) of the product for packed A rows
// [row0, row0 + rows): packs B unless it is read in place and runs the
// microkernel over the tiles. `c` is the block's C (row0, col0) with row
// stride c_stride; `epilogue` the block's, its bias at (row0, col0).
// With `a_slot`, A is not packed yet: each row panel is packed into the
// slot right before its tiles.
static void run_block(const etr_gemm_kernel_t *kernel,
                      const etr_gemm_problem_t *p, const blocking_t *blocks,
                      const float *a_packed, float *a_slot, float *b_packed,
                      const float *b_ready, size_t pc,
                      size_t kc, size_t col0, size_t cols, size_t rows,
                      float *c, ptrdiff_t c_stride, unsigned flags,
                      const etr_gemm_epilogue_t *epilogue,
                      ptrdiff_t bias_col_stride, size_t row0) {
  size_t mr = kernel->mr;
  size_t nr = kernel->nr;
  const float *b = NULL;
  ptrdiff_t b_stride = 0;
  // A plain fp32 B to pack for packed A rows: the first row panel's
  // products read it in place and write the packed panels as they go
  // (ukernel_pack_b), so its loads from memory overlap their FMAs instead
  // of a copy running first; the other row panels read the packed ones.
  // Not when B's rows lie a multiple of 4 KiB apart: read in place, a
  // micro-panel's rows then share one L1 set, which evicts the rows
  // fetched ahead before their use (mm 1024^3 and 2048^3 gained nothing
  // fused; mm 256^3-768^3, rows 1-3 KiB apart, 2%: paired gemm_bench
  // runs). conv nchw 256x56^2 k1 -> 64 (rows 12544 bytes apart) went
  // 127.5 -> 151.5 GFLOP/s (gemm_bench, Intel Xeon).
  const float *b_source = NULL;
  if (blocks->direct_b) {
    b = (const float *)p->b.data + (ptrdiff_t)pc * p->b.k_stride +
        (ptrdiff_t)col0;
    b_stride = p->b.k_stride;
  } else {
    if (b_ready != NULL) {  // resident B: this K block's panels, col0 on
      b = b_ready + pc * round_up(p->n, nr) + col0 * kc;
    } else if (kernel->ukernel_pack_b != NULL && !blocks->direct_a &&
               p->b.pack == etr_gemm_pack_strided &&
               p->b.dtype == ETR_FLOAT && p->b.x_stride == 1 &&
               ((p->b.k_stride * (ptrdiff_t)sizeof(float)) % 1024 != 0 ||
                p->b.k_stride * (ptrdiff_t)sizeof(float) < 4096)) {
      b_source = (const float *)p->b.data + (ptrdiff_t)pc * p->b.k_stride +
                 (ptrdiff_t)col0;
      b = b_packed;
    } else {
      pack_block(kernel, &p->b, pc, kc, col0, cols, nr, b_packed);
      b = b_packed;
    }
    b_stride = (ptrdiff_t)nr;
    flags |= ETR_GEMM_B_PACKED;
  }
  for (size_t ir = 0; ir < rows; ir += mr) {
    const float *a_panel = a_packed + ir * kc;
    if (a_slot != NULL) {
      pack_block(kernel, &p->a, pc, kc, row0 + ir, min_size(mr, rows - ir),
                 mr, a_slot);
      a_panel = a_slot;
    }
    if (blocks->direct_a) {  // a_packed is A's (row0, pc) element
      a_panel = a_packed + (ptrdiff_t)ir * p->a.x_stride;
    }
    etr_gemm_epilogue_t tile = *epilogue;
    if (tile.post_scale != NULL) {  // the post's rows at this tile's first
      tile.post_scale += row0 + ir;
      tile.post_shift += row0 + ir;
    }
    for (size_t jr = 0; jr < cols; jr += nr) {
      const float *b_panel = blocks->direct_b ? b + jr : b + jr * kc;
      if (tile.bias != NULL) {
        tile.bias = epilogue->bias + (ptrdiff_t)ir * epilogue->bias_row_stride +
                    (ptrdiff_t)jr * bias_col_stride;
      }
      float *c_tile = c + (ptrdiff_t)ir * c_stride + (ptrdiff_t)jr;
      if (blocks->direct_a) {
        kernel->ukernel_direct_a(kc, a_panel, p->a.x_stride, b_panel,
                                 b_stride, c_tile, c_stride,
                                 min_size(mr, rows - ir),
                                 min_size(nr, cols - jr), flags, &tile);
      } else if (b_source != NULL && ir == 0) {
        kernel->ukernel_pack_b(kc, a_panel, b_source + jr, p->b.k_stride,
                               c_tile, c_stride, min_size(mr, rows - ir),
                               min_size(nr, cols - jr),
                               flags & ~ETR_GEMM_B_PACKED, &tile,
                               b_packed + jr * kc);
      } else {
        kernel->ukernel(kc, a_panel, b_panel, b_stride, c_tile, c_stride,
                        min_size(mr, rows - ir), min_size(nr, cols - jr),
                        flags, &tile);
      }
      if (p->post != NULL && !kernel->fuses_post &&
          (flags & ETR_GEMM_EPILOGUE) != 0) {
        p->post->apply(p->post, c_tile, c_stride, p->post_row0 + row0 + ir,
                       min_size(mr, rows - ir), min_size(nr, cols - jr));
      }
    }
  }
}

// fp32 C: partial sums live in C between K blocks.
static void gemm_direct(const etr_gemm_kernel_t *kernel,
                        const etr_gemm_problem_t *p, const blocking_t *blocks,
                        float *a_packed, float *b_packed,
                        const float *b_ready) {
  float *c = (float *)p->c;
  etr_gemm_epilogue_t epilogue = {.alpha = p->alpha,
                                  .beta = p->beta,
                                  .bias_row_stride = p->bias_row_stride,
                                  .bias_per_row = p->bias_col_stride == 0};
  if (p->post != NULL && kernel->fuses_post) {
    // Rows of the product from here; run_block adds each tile's row.
    epilogue.post_scale =
        p->post->scale != NULL ? p->post->scale + p->post_row0 : NULL;
    epilogue.post_shift =
        p->post->shift != NULL ? p->post->shift + p->post_row0 : NULL;
    epilogue.post_low = p->post->low;
    epilogue.post_high = p->post->high;
    epilogue.post_clamp = true;
  }
  // With one column block, each packed A panel serves one row of tiles
  // and is done: a plain fp32 A is then packed a panel at a time, right
  // before its tiles, into one slot that stays in L1, rather than as a
  // whole block into scratch that spills to L2 (whose writes are line
  // fills from L2). mm 256^3 +2.5% in gemm_bench, 1.02x as a program;
  // A read in place takes N below 256, so this is mainly N = 256. Not
  // for an im2col A: an NHWC convolution's (64x56^2 k3 -> 64) went
  // 0.988x packed a panel at a time (paired runs, Intel Xeon of
  // 2026-12-04).
  const bool a_by_panel = !blocks->direct_a && !blocks->a_external &&
                          p->a.pack == etr_gemm_pack_strided &&
                          p->a.dtype == ETR_FLOAT && p->n <= blocks->nc;
  for (size_t ic = 0; ic < p->m; ic += blocks->mc) {
    size_t rows = min_size(blocks->mc, p->m - ic);
    size_t pc = 0;
    do {
      size_t kc = min_size(blocks->kc, p->k - pc);
      unsigned flags = (pc > 0 ? ETR_GEMM_ACCUMULATE : 0u) |
                       (pc + kc >= p->k ? ETR_GEMM_EPILOGUE : 0u);
      const float *a_block =
          a_by_panel ? a_packed
                     : prepare_a(kernel, p, blocks, pc, kc, ic, rows, a_packed);
      for (size_t jc = 0; jc < p->n; jc += blocks->nc) {
        size_t cols = min_size(blocks->nc, p->n - jc);
        if (p->bias != NULL) {
          epilogue.bias = (const float *)p->bias +
                          (ptrdiff_t)ic * p->bias_row_stride +
                          (ptrdiff_t)jc * p->bias_col_stride;
        }
        run_block(kernel, p, blocks, a_block, a_by_panel ? a_packed : NULL,
                  b_packed, b_ready, pc, kc, jc, cols, rows,
                  c + (ptrdiff_t)ic * p->c_row_stride + (ptrdiff_t)jc,
                  p->c_row_stride, flags, &epilogue, p->bias_col_stride,
                  ic);
      }
      pc += kc;
    } while (pc < p->k);
  }
}

// Half/BFloat16 C: each (row block, column block) accumulates over all of
// K in an fp32 block, then is rounded into C once.
static void gemm_converted(const etr_gemm_kernel_t *kernel,
                           const etr_gemm_problem_t *p,
                           const blocking_t *blocks, float *a_packed,
                           float *b_packed, float *c_block) {
  etr_gemm_epilogue_t plain = {.alpha = 1.0f};
  ptrdiff_t stride = (ptrdiff_t)blocks->nc;
  for (size_t ic = 0; ic < p->m; ic += blocks->mc) {
    size_t rows = min_size(blocks->mc, p->m - ic);
    for (size_t jc = 0; jc < p->n; jc += blocks->nc) {
      size_t cols = min_size(blocks->nc, p->n - jc);
      size_t pc = 0;
      do {
        size_t kc = min_size(blocks->kc, p->k - pc);
        unsigned flags = pc > 0 ? ETR_GEMM_ACCUMULATE : 0u;
        const float *a_block = prepare_a(kernel, p, blocks, pc, kc, ic, rows,
                                      a_packed);
        run_block(kernel, p, blocks, a_block, NULL, b_packed, NULL, pc, kc,
                  jc, cols, rows, c_block, stride, flags, &plain, 0, 0);
        pc += kc;
      } while (pc < p->k);
      store_converted(p, c_block, (size_t)stride, ic, rows, jc, cols);
    }
  }
}

static const void *offset_data(const void *data, etr_scalar_type_t dtype,
                               ptrdiff_t elements) {
  return data == NULL ? NULL
                      : (const uint8_t *)data +
                            elements * (ptrdiff_t)etr_scalar_type_size(dtype);
}

// Floats of all of B packed (resident): every K row of round_up(N, NR)
// columns.
static size_t resident_floats(const etr_gemm_kernel_t *kernel,
                              const etr_gemm_problem_t *p) {
  return round_up(p->n, kernel->nr) * p->k;
}

// All of B packed (resident_floats of them at `dst`): each K block of `kc`
// rows (the last one shorter), every column panel.
static void pack_resident_b(const etr_gemm_kernel_t *kernel,
                            const etr_gemm_problem_t *p, size_t kc,
                            float *dst) {
  size_t pc = 0;
  do {
    size_t rows = min_size(kc, p->k - pc);
    pack_block(kernel, &p->b, pc, rows, 0, p->n, kernel->nr,
               dst + pc * round_up(p->n, kernel->nr));
    pc += rows;
  } while (pc < p->k);
}

// One product. `packed_for` remembers whose B the resident panels hold, so
// batch items sharing B (a convolution's weights) pack it once.
static void run_one(const etr_gemm_kernel_t *kernel,
                    const etr_gemm_problem_t *p, const blocking_t *blocks,
                    float *scratch, const void **packed_for) {
  if (p->m == 1 && kernel->gemv != NULL && blocks->direct_b &&
      !blocks->c_scratch && p->a.pack == etr_gemm_pack_strided &&
      p->a.dtype == ETR_FLOAT) {
    etr_gemm_epilogue_t epilogue = {.alpha = p->alpha,
                                    .beta = p->beta,
                                    .bias = (const float *)p->bias,
                                    .bias_per_row = p->bias_col_stride == 0};
    kernel->gemv(p->k, p->n, (const float *)p->a.data, p->a.k_stride,
                 (const float *)p->b.data, p->b.k_stride, (float *)p->c,
                 &epilogue);
    if (p->post != NULL) {
      p->post->apply(p->post, (float *)p->c, p->c_row_stride, p->post_row0,
                     1, p->n);
    }
    return;
  }
  float *a_packed = scratch;
  float *b_packed =
      a_packed + (blocks->direct_a || blocks->a_external
                      ? 0
                      : blocks->mc * blocks->kc);
  if (blocks->c_scratch) {
    float *c_block =
        b_packed + (blocks->direct_b ? 0 : blocks->kc * blocks->nc);
    gemm_converted(kernel, p, blocks, a_packed, b_packed, c_block);
    return;
  }
  const float *b_ready = NULL;
  if (blocks->b_external) {
    b_ready = p->b_packed->panels;
  } else if (blocks->b_resident) {
    if (*packed_for != p->b.data) {
      pack_resident_b(kernel, p, blocks->kc, b_packed);
      *packed_for = p->b.data;
    }
    b_ready = b_packed;
  }
  gemm_direct(kernel, p, blocks, a_packed, b_packed, b_ready);
}

// The microkernel a product runs and whether it reads A and B in place.
static const etr_gemm_kernel_t *plan_product(const etr_gemm_problem_t *p,
                                             etr_isa_t isa,
                                             blocking_t *blocks) {
  const etr_gemm_kernel_t *kernel = etr_gemm_kernel_for(isa);
  // The shorter tile when it pads enough fewer rows to pay for its lower
  // FMA-per-load ratio (about 12% slower on large products): M = 8, 16,
  // 32, 64 (12 rows would pad 4, 8, 4, 8). Or when its wide form takes
  // the product (below) and pads no more rows: 8 x 48 does as many FMAs
  // per step as 12 x 32 with fewer loads, and ran mm 768^3 +5.6%, 1024^3
  // +1.9%, 512^3 +3.5%, conv nchw 64x56^2 k1 -> 256 +8.4%, 128x28^2 k3
  // +5%, addmm 256x1024x1024 +9% (paired gemm_bench runs, Intel Xeon).
  const etr_gemm_kernel_t *narrow = kernel->narrow;
  if (narrow != NULL &&
      (round_up(p->m, narrow->mr) * 112 < round_up(p->m, kernel->mr) * 100 ||
       (narrow->wide != NULL &&
        round_up(p->n, narrow->wide->nr) * 100 <=
            round_up(p->n, narrow->nr) * 105 &&
        round_up(p->m, narrow->mr) <= round_up(p->m, kernel->mr)))) {
    kernel = narrow;
  }
  // More columns a step when that pads N at most 5% more (8 x 48 for the
  // 8-row tile: 11 loads per 24 FMAs against 10 per 16).
  if (kernel->wide != NULL &&
      round_up(p->n, kernel->wide->nr) * 100 <=
          round_up(p->n, kernel->nr) * 105) {
    kernel = kernel->wide;
  }
  *blocks = (blocking_t){.c_scratch = p->c_dtype != ETR_FLOAT};
  // A row-major fp32 A is read in place where the kernel can and N is
  // small (a product with few columns would spend as long packing A as
  // multiplying) or M is (one or two row panels). Otherwise A is packed:
  // twelve rows read in place, a row apart, ran the 12 x 32 microkernel 7%
  // slower than a packed panel on an Intel Xeon (family 6 model 167; as
  // fast on AMD Zen 5), and large products went 3-5% faster packed.
  // Except where packing A would pack B again for every row block: more
  // than one block of rows and a B too large to stay packed beside the A
  // block. Read in place, A is all of M one block and each B block is
  // packed once. mm 1024^3 packed B four times (25% of its time in perf)
  // and went 1.21x faster in place, 768^3 1.07x, 2048^3 1.08x, linear
  // [512,512] x W^T 1.18x, 512^3 1.01x (paired gemm_bench medians, AMD
  // Zen 5; AVX2 kernel there 1.08x / 1.01x / 0.99x).
  const bool b_repacked =
      p->m > kernel->mc &&
      resident_floats(kernel, p) + kernel->mc * kernel->kc >
          ETR_GEMM_PREFERRED_SCRATCH_BYTES / sizeof(float);
  blocks->direct_a = kernel->ukernel_direct_a != NULL &&
                     p->a.pack == etr_gemm_pack_strided &&
                     p->a.dtype == ETR_FLOAT && p->a.k_stride == 1 &&
                     (p->n < DIRECT_A_MAX_N || p->m < DIRECT_A_MAX_M ||
                      b_repacked);
  blocks->direct_b = p->b.pack == etr_gemm_pack_strided &&
                     p->b.dtype == ETR_FLOAT && p->b.x_stride == 1 &&
                     p->m <= kernel->direct_b_max_m;
  return kernel;
}

void etr_gemm(const etr_gemm_problem_t *p, const etr_gemm_batch_t *batch,
              etr_arena_t *temp, etr_isa_t isa) {
  if (p->m == 0 || p->n == 0 ||
      (batch != NULL && (batch->count[0] == 0 || batch->count[1] == 0))) {
    return;
  }
  blocking_t blocks;
  const etr_gemm_kernel_t *kernel = plan_product(p, isa, &blocks);
  // B packed at load, for this microkernel and this B; its K blocks are
  // checked once the blocking is chosen.
  const etr_gemm_packed_b_t *packed = p->b_packed;
  blocks.b_external = packed != NULL && batch == NULL && !blocks.direct_b &&
                      !blocks.c_scratch && packed->kernel == kernel &&
                      packed->from == p->b.data &&
                      packed->k_stride == p->b.k_stride &&
                      packed->x_stride == p->b.x_stride &&
                      packed->n == p->n && packed->k == p->k;
  // Likewise A.
  const etr_gemm_packed_a_t *packed_a = p->a_packed;
  blocks.a_external = packed_a != NULL && batch == NULL &&
                      !blocks.direct_a && !blocks.c_scratch &&
                      packed_a->kernel == kernel &&
                      packed_a->from == p->a.data &&
                      packed_a->k_stride == p->a.k_stride &&
                      packed_a->x_stride == p->a.x_stride &&
                      packed_a->m == p->m && packed_a->k == p->k;

  _Alignas(SCRATCH_ALIGNMENT) float stack[ETR_GEMM_STACK_SCRATCH_BYTES /
                                          sizeof(float)];
  float *scratch = stack;
  size_t available = sizeof(stack) / sizeof(float);
  blocking_t wanted = blocks;
  choose_blocking(kernel, p->m, p->n, p->k, SIZE_MAX, &wanted);
  size_t wanted_floats = needed_floats(&wanted);
  // Keep all of B packed when it is packed at all, goes to fp32 C, fits
  // the preferred scratch next to the A block, and its panels are read
  // again: by a second row block or by batch items sharing B. With one
  // row block and nothing shared, packing all of B first only moves the
  // packing out of the products' way (where ukernel_pack_b overlaps it
  // with them) and out of L2: conv nchw 64x56^2 k1 -> 256 (one block of
  // 256 rows, B 800 KB packed) went 126 -> 131 GFLOP/s (gemm_bench,
  // medians of 10 alternated rounds, Intel Xeon).
  bool b_shared =
      batch != NULL && ((batch->count[0] > 1 && batch->b[0] == 0) ||
                        (batch->count[1] > 1 && batch->b[1] == 0));
  bool resident_candidate = !blocks.direct_b && !blocks.c_scratch &&
                            !blocks.b_external &&
                            (b_shared || p->m > wanted.mc);
  size_t a_floats =
      blocks.direct_a || blocks.a_external ? 0 : wanted.mc * wanted.kc;
  if (resident_candidate &&
      resident_floats(kernel, p) + a_floats <=
          ETR_GEMM_PREFERRED_SCRATCH_BYTES / sizeof(float) &&
      resident_floats(kernel, p) + a_floats > wanted_floats) {
    wanted_floats = resident_floats(kernel, p) + a_floats;
  }
  size_t wanted_bytes = wanted_floats * sizeof(float);
  if (wanted_bytes > sizeof(stack)) {
    size_t room = arena_room(temp);
    room = room > SCRATCH_ALIGNMENT ? room - SCRATCH_ALIGNMENT : 0;
    size_t bytes = min_size(room, wanted_bytes) / SCRATCH_ALIGNMENT *
                   SCRATCH_ALIGNMENT;
    float *taken = bytes > sizeof(stack)
                       ? (float *)etr_arena_alloc(temp, bytes,
                                                  SCRATCH_ALIGNMENT)
                       : NULL;
    if (taken != NULL) {
      scratch = taken;
      available = bytes / sizeof(float);
    }
  }
  choose_blocking(kernel, p->m, p->n, p->k, available, &blocks);
  if ((blocks.b_external && blocks.kc != packed->kc) ||
      (blocks.a_external && blocks.kc != packed_a->kc)) {
    // Scratch too small for the K block A or B was packed in: pack as
    // usual.
    blocks.b_external = false;
    blocks.a_external = false;
    choose_blocking(kernel, p->m, p->n, p->k, available, &blocks);
  }
  blocks.b_resident =
      !blocks.direct_b && !blocks.c_scratch && !blocks.b_external &&
      (b_shared || p->m > blocks.mc) &&
      resident_floats(kernel, p) +
              (blocks.direct_a || blocks.a_external
                   ? 0
                   : blocks.mc * blocks.kc) <=
          available;
  const void *packed_for = NULL;
  if (batch == NULL) {
    run_one(kernel, p, &blocks, scratch, &packed_for);
    return;
  }
  for (size_t i = 0; i < batch->count[0]; ++i) {
    for (size_t j = 0; j < batch->count[1]; ++j) {
      ptrdiff_t bi = (ptrdiff_t)i;
      ptrdiff_t bj = (ptrdiff_t)j;
      etr_gemm_problem_t one = *p;
      one.a.data = offset_data(p->a.data, p->a.dtype,
                               bi * batch->a[0] + bj * batch->a[1]);
      one.b.data = offset_data(p->b.data, p->b.dtype,
                               bi * batch->b[0] + bj * batch->b[1]);
      one.c = (void *)offset_data(p->c, p->c_dtype,
                                  bi * batch->c[0] + bj * batch->c[1]);
      one.bias = offset_data(p->bias, p->c_dtype,
                             bi * batch->bias[0] + bj * batch->bias[1]);
      one.post_row0 = p->post_row0 + i * batch->post_row[0] +
                      j * batch->post_row[1];
      run_one(kernel, &one, &blocks, scratch, &packed_for);
    }
  }
}

const etr_gemm_packed_b_t *etr_gemm_prepack_b(const etr_gemm_problem_t *p,
                                              etr_isa_t isa,
                                              etr_arena_t *arena) {
  if (p->m == 0 || p->n == 0 || p->k == 0 || p->b.data == NULL) {
    return NULL;
  }
  blocking_t blocks;
  const etr_gemm_kernel_t *kernel = plan_product(p, isa, &blocks);
  if (blocks.direct_b || blocks.c_scratch) {
    return NULL;
  }
  // The K block of etr_gemm's blocking, which only a scratch too small
  // for one A panel of it would shrink (never with B packed: the stack
  // holds one).
  choose_blocking(kernel, p->m, p->n, p->k, SIZE_MAX, &blocks);
  etr_gemm_packed_b_t *packed =
      etr_arena_alloc(arena, sizeof(*packed), SCRATCH_ALIGNMENT);
  float *panels = etr_arena_alloc(
      arena, resident_floats(kernel, p) * sizeof(float), SCRATCH_ALIGNMENT);
  if (packed == NULL || panels == NULL) {
    return NULL;
  }
  pack_resident_b(kernel, p, blocks.kc, panels);
  *packed = (etr_gemm_packed_b_t){.panels = panels,
                                  .from = p->b.data,
                                  .k_stride = p->b.k_stride,
                                  .x_stride = p->b.x_stride,
                                  .kernel = kernel,
                                  .kc = blocks.kc,
                                  .n = p->n,
                                  .k = p->k};
  return packed;
}

const etr_gemm_packed_a_t *etr_gemm_prepack_a(const etr_gemm_problem_t *p,
                                              etr_isa_t isa,
                                              etr_arena_t *arena) {
  if (p->m == 0 || p->n == 0 || p->k == 0 || p->a.data == NULL) {
    return NULL;
  }
  blocking_t blocks;
  const etr_gemm_kernel_t *kernel = plan_product(p, isa, &blocks);
  if (blocks.direct_a || blocks.c_scratch) {
    return NULL;
  }
  blocks.a_external = true;  // the K block of etr_gemm's blocking
  choose_blocking(kernel, p->m, p->n, p->k, SIZE_MAX, &blocks);
  const size_t rows = round_up(p->m, kernel->mr);
  etr_gemm_packed_a_t *packed =
      etr_arena_alloc(arena, sizeof(*packed), SCRATCH_ALIGNMENT);
  float *panels = etr_arena_alloc(arena, rows * p->k * sizeof(float),
                                  SCRATCH_ALIGNMENT);
  if (packed == NULL || panels == NULL) {
    return NULL;
  }
  // Each K block of kc rows (the last one shorter), every row panel.
  size_t pc = 0;
  do {
    size_t kc = min_size(blocks.kc, p->k - pc);
    pack_block(kernel, &p->a, pc, kc, 0, p->m, kernel->mr,
               panels + pc * rows);
    pc += kc;
  } while (pc < p->k);
  *packed = (etr_gemm_packed_a_t){.panels = panels,
                                  .from = p->a.data,
                                  .k_stride = p->a.k_stride,
                                  .x_stride = p->a.x_stride,
                                  .kernel = kernel,
                                  .kc = blocks.kc,
                                  .m = p->m,
                                  .k = p->k};
  return packed;
}
