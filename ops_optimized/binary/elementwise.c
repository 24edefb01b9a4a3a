// SPDX-License-Identifier: Apache-2.0
//
// Elementwise operands, probes, fp32 staging and the binary driver (see
// elementwise.h).
#include "ops_optimized/binary/elementwise.h"

#include <string.h>

#include "core/scalar_type.h"
#include "ops_optimized/common/memo.h"
#include "ops_optimized/unary/unary.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/shape.h"

bool etr_ew_is_float_like(etr_scalar_type_t dtype) {
  return dtype == ETR_FLOAT || dtype == ETR_HALF || dtype == ETR_BFLOAT16;
}

// Real dtypes whose single value converts to float as a double would.
static bool constant_dtype(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_BYTE:
    case ETR_CHAR:
    case ETR_SHORT:
    case ETR_INT:
    case ETR_LONG:
    case ETR_HALF:
    case ETR_FLOAT:
    case ETR_DOUBLE:
    case ETR_BFLOAT16:
      return true;
    default:
      return false;
  }
}

bool etr_ew_operand_tensor(etr_ew_operand_t *operand,
                           const etr_tensor_t *tensor,
                           etr_scalar_type_t dtype,
                           etr_scalar_type_t round_to) {
  memset(operand, 0, sizeof(*operand));
  operand->tensor = tensor;
  operand->round_to = round_to;
  if (tensor == NULL) {
    return false;
  }
  if (tensor->dtype == dtype) {
    return true;
  }
  operand->constant = true;
  return constant_dtype(tensor->dtype) && etr_tensor_numel(tensor) == 1;
}

bool etr_ew_operand_scalar(etr_ew_operand_t *operand,
                           const etr_scalar_t *scalar,
                           etr_scalar_type_t round_to) {
  memset(operand, 0, sizeof(*operand));
  operand->scalar_shape.dim = 0;
  operand->scalar_shape.dtype =
      scalar->kind == ETR_SCALAR_DOUBLE ? ETR_DOUBLE : ETR_LONG;
  operand->tensor = &operand->scalar_shape;
  operand->constant = true;
  operand->round_to = round_to;
  operand->value = (float)etr_round_double(round_to, scalar->as_double);
  operand->value_ready = true;
  return scalar->kind != ETR_SCALAR_BOOL;
}

void etr_ew_operand_prepare(etr_ew_operand_t *operand) {
  if (operand->constant && !operand->value_ready) {
    const etr_tensor_t *t = operand->tensor;
    operand->value = (float)etr_round_double(
        operand->round_to, etr_load_double(t->dtype, t->data));
    operand->value_ready = true;
  }
}

// Field by field, not `*ctx`: the executor has just stored ctx's fields one
// by one, and a whole-struct copy reads them back with 16-byte loads that
// span several of those stores, which cannot be forwarded from the store
// buffer (a stall of ~20 cycles per call on Zen 5, most of a small call's
// time: perf annotate on full.out [1,1,16]).
etr_kernel_context_t etr_ew_probe_context(const etr_kernel_context_t *ctx) {
  return (etr_kernel_context_t){.diag = NULL,
                                .temp = ctx->temp,
                                .op_name = ctx->op_name,
                                .rng_state = ctx->rng_state,
                                .dry_run = ctx->dry_run,
                                .state = ctx->state,
                                .args_checked = ctx->args_checked,
                                .memo = ctx->memo};
}

bool etr_ew_scalar_arg(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args, size_t index, etr_scalar_t *out) {
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  return etr_arg_scalar(&probe, args, num_args, index, "scalar", out) ==
         ETR_OK;
}

void etr_ew_to_f32(etr_scalar_type_t dtype, size_t n, const void *x,
                   float *y) {
  const etr_f32_convert_kernels_t *k = etr_f32_convert_for(etr_isa_active());
  if (dtype == ETR_HALF) {
    k->from_f16(n, (const uint16_t *)x, y);
  } else if (dtype == ETR_BFLOAT16) {
    k->from_bf16(n, (const uint16_t *)x, y);
  } else {
    memcpy(y, x, n * sizeof(float));
  }
}

void etr_ew_from_f32(etr_scalar_type_t dtype, size_t n, const float *x,
                     void *y) {
  const etr_f32_convert_kernels_t *k = etr_f32_convert_for(etr_isa_active());
  if (dtype == ETR_HALF) {
    k->to_f16(n, x, (uint16_t *)y);
  } else if (dtype == ETR_BFLOAT16) {
    k->to_bf16(n, x, (uint16_t *)y);
  } else {
    memcpy(y, x, n * sizeof(float));
  }
}

float etr_ew_load_f32(const etr_tensor_t *tensor, int64_t offset) {
  const void *element = etr_element_at(tensor, offset);
  switch (tensor->dtype) {
    case ETR_HALF:
      return etr_half_to_float(*(const uint16_t *)element);
    case ETR_BFLOAT16:
      return etr_bfloat16_to_float(*(const uint16_t *)element);
    default:
      return *(const float *)element;
  }
}

bool etr_binary_probe(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                      size_t num_args, bool scalar_other,
                      bool other_in_opmath, bool compare, size_t out_index,
                      etr_binary_call_t *call) {
  memset(call, 0, sizeof(*call));
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_scalar_t scalar;
  etr_scalar_type_t result;
  if (etr_arg_tensor(&probe, args, num_args, 0, "self", &self) != ETR_OK ||
      etr_arg_tensor(&probe, args, num_args, out_index, "out",
                     &call->out) != ETR_OK) {
    return false;
  }
  if (scalar_other) {
    if (!etr_ew_scalar_arg(ctx, args, num_args, 1, &scalar) ||
        etr_result_type_tensor_scalar(&probe, self, &scalar, &result) !=
            ETR_OK) {
      return false;
    }
  } else if (etr_arg_tensor(&probe, args, num_args, 1, "other", &other) !=
                 ETR_OK ||
             etr_result_type_tensors(&probe, self, other, &result) !=
                 ETR_OK) {
    return false;
  }
  if (!etr_ew_is_float_like(result) ||
      call->out->dtype != (compare ? ETR_BOOL : result)) {
    return false;
  }
  call->dtype = result;
  call->compare = compare;
  etr_scalar_type_t other_round = result;
  if (other_in_opmath && result != ETR_FLOAT &&
      (scalar_other || (other->dtype != result &&
                        etr_tensor_numel(other) == 1))) {
    other_round = ETR_FLOAT;
  }
  if (!etr_ew_operand_tensor(&call->a, self, result, result)) {
    return false;
  }
  return scalar_other
             ? etr_ew_operand_scalar(&call->b, &scalar, other_round)
             : etr_ew_operand_tensor(&call->b, other, result, other_round);
}

bool etr_binary_alpha(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                      size_t num_args, bool subtract,
                      etr_binary_call_t *call) {
  etr_scalar_t alpha;
  if (!etr_ew_scalar_arg(ctx, args, num_args, 2, &alpha) ||
      alpha.kind == ETR_SCALAR_BOOL) {
    return false;
  }
  // The reference rounds alpha to the op-math type, Float here.
  double rounded = etr_round_double(ETR_FLOAT, alpha.as_double);
  if (rounded == 1.0) {
    call->op = subtract ? ETR_BINARY_SUB : ETR_BINARY_ADD;
  } else if (rounded == -1.0) {
    call->op = subtract ? ETR_BINARY_ADD : ETR_BINARY_SUB;
  } else {
    call->op = ETR_BINARY_ADD_SCALED;
    call->params.alpha = subtract ? -rounded : rounded;
  }
  return true;
}

// ---------------------------------------------------------------------------
// The binary driver.

// One run of n elements: each operand a vector (pointer) or one value.
typedef struct binary_run {
  const void *a;  // NULL: a_value
  const void *b;  // NULL: b_value
  float a_value;
  float b_value;
  void *y;
} binary_run_t;

// An fp32 run.
static void run_f32(const etr_binary_call_t *call,
                    const etr_f32_binary_kernels_t *k, size_t n,
                    const float *a, float a_value, const float *b,
                    float b_value, void *y) {
  if (call->compare) {
    uint8_t *bytes = (uint8_t *)y;
    if (a != NULL && b != NULL) {
      k->compare_vv[call->compare_op](n, a, b, bytes);
    } else if (a != NULL) {
      k->compare_vs[call->compare_op](n, a, b_value, bytes);
    } else {
      k->compare_vs[etr_compare_mirror(call->compare_op)](n, b, a_value,
                                                          bytes);
    }
    return;
  }
  float *out = (float *)y;
  if (a != NULL && b != NULL) {
    k->vv[call->op](n, a, b, out, &call->params);
  } else if (a != NULL) {
    k->vs[call->op](n, a, b_value, out, &call->params);
  } else {
    k->sv[call->op](n, a_value, b, out, &call->params);
  }
}

// A Half/BFloat16 run, a chunk at a time through fp32.
static void run_staged(const etr_binary_call_t *call,
                       const etr_f32_binary_kernels_t *k, size_t n,
                       const binary_run_t *run) {
  float a_buffer[ETR_EW_CHUNK];
  float b_buffer[ETR_EW_CHUNK];
  float y_buffer[ETR_EW_CHUNK];
  const uint16_t *a = (const uint16_t *)run->a;
  const uint16_t *b = (const uint16_t *)run->b;
  for (size_t done = 0; done < n; done += ETR_EW_CHUNK) {
    size_t m = n - done < ETR_EW_CHUNK ? n - done : ETR_EW_CHUNK;
    if (a != NULL) {
      etr_ew_to_f32(call->dtype, m, a + done, a_buffer);
    }
    if (b != NULL) {
      etr_ew_to_f32(call->dtype, m, b + done, b_buffer);
    }
    if (call->compare) {
      run_f32(call, k, m, a != NULL ? a_buffer : NULL, run->a_value,
              b != NULL ? b_buffer : NULL, run->b_value,
              (uint8_t *)run->y + done);
    } else {
      run_f32(call, k, m, a != NULL ? a_buffer : NULL, run->a_value,
              b != NULL ? b_buffer : NULL, run->b_value, y_buffer);
      etr_ew_from_f32(call->dtype, m, y_buffer, (uint16_t *)run->y + done);
    }
  }
}

// Element `offset` of a Float, Half or BFloat16 array as fp32.
static inline float element_f32(etr_scalar_type_t dtype, const void *data,
                                int64_t offset) {
  if (dtype == ETR_FLOAT) {
    return ((const float *)data)[offset];
  }
  uint16_t bits = ((const uint16_t *)data)[offset];
  return dtype == ETR_HALF ? etr_half_to_float(bits)
                           : etr_bfloat16_to_float(bits);
}

// One operand's place in a run: a vector at `base + offset`, or the value
// there (or its constant) when it does not vary along the run.
typedef struct run_operand {
  const uint8_t *base;  // NULL for a constant
  int slot;             // plan operand index
  bool vector;
} run_operand_t;

static inline void operand_in_run(const run_operand_t *operand,
                                  etr_scalar_type_t dtype, size_t element,
                                  const etr_plan_cursor_t *cursor,
                                  const void **pointer, float *value) {
  if (operand->base == NULL) {
    return;  // the constant already in *value
  }
  int64_t offset = cursor->offsets[operand->slot];
  if (operand->vector) {
    *pointer = operand->base + (size_t)offset * element;
  } else {
    *value = element_f32(dtype, operand->base, offset);
  }
}

// A rows call kept in ctx->memo: on an instruction's fixed arguments the
// same tensors at the same addresses make the same one kernel call, which
// the vouched calls after the first make straight away (no probe, plan or
// resize: mobilenet_v3's [1, 96, 4, 4] * [1, 96, 1, 1] scale spent about
// 200 ns a call in them, more than in its 96 rows).
typedef struct rows_memo {
  uint32_t mark;  // ROWS_MEMO_MARK once kept
  int32_t isa;    // the ISA `kernel` is of
  etr_f32_binary_rows_fn kernel;
  etr_binary_rows_t rows;
  etr_binary_params_t params;
} rows_memo_t;

enum { ROWS_MEMO_MARK = 0x726f7731 };  // "row1"

_Static_assert(sizeof(rows_memo_t) <= ETR_KERNEL_MEMO_BYTES,
               "rows_memo_t must fit a kernel memo");

bool etr_binary_rows_memo_run(const etr_kernel_context_t *ctx) {
  const rows_memo_t *kept = etr_opt_vouched_memo(ctx, ROWS_MEMO_MARK);
  if (kept == NULL || kept->isa != (int32_t)etr_isa_active()) {
    return false;
  }
  kept->kernel(&kept->rows, &kept->params);
  return true;
}

// A Float call of an op with a rows kernel (binary.h): the innermost
// outer dim's runs in one kernel call, the plan's other outer dims walked
// by the cursor (none for [C, H, W] op [C, 1, 1]). A constant operand
// reads its value with stride 0. A call of one kernel call on two tensor
// operands is kept in ctx->memo (when there is one): a constant's value
// may come from a tensor's data, which a vouched call may change.
static void run_rows(const etr_kernel_context_t *ctx,
                     const etr_binary_call_t *call,
                     const etr_f32_binary_kernels_t *k,
                     const etr_plan_t *plan, const run_operand_t *ra,
                     const run_operand_t *rb, float *out) {
  const int32_t last = plan->outer_dim - 1;
  etr_plan_t outer = *plan;  // the groups of rows
  outer.outer_dim = last;
  outer.runs = plan->runs / plan->outer_sizes[last];
  etr_binary_rows_t rows = {
      .rows = (size_t)plan->outer_sizes[last],
      .n = (size_t)plan->run,
      .a_vector = ra->vector,
      .b_vector = rb->vector,
      .y_stride = (ptrdiff_t)plan->outer_strides[0][last]};
  rows.a_stride = ra->base != NULL
                      ? (ptrdiff_t)plan->outer_strides[ra->slot][last]
                      : 0;
  rows.b_stride = rb->base != NULL
                      ? (ptrdiff_t)plan->outer_strides[rb->slot][last]
                      : 0;
  etr_plan_cursor_t cursor;
  etr_plan_cursor_init(&cursor);
  for (int64_t g = 0; g < outer.runs; ++g) {
    rows.a = ra->base != NULL
                 ? (const float *)ra->base + cursor.offsets[ra->slot]
                 : &call->a.value;
    rows.b = rb->base != NULL
                 ? (const float *)rb->base + cursor.offsets[rb->slot]
                 : &call->b.value;
    rows.y = out + cursor.offsets[0];
    k->rows[call->op](&rows, &call->params);
    etr_plan_cursor_next(&cursor, &outer);
  }
  if (ctx->memo != NULL && outer.runs == 1 && ra->base != NULL &&
      rb->base != NULL) {
    *(rows_memo_t *)ctx->memo = (rows_memo_t){
        .mark = ROWS_MEMO_MARK,
        .isa = (int32_t)etr_isa_active(),
        .kernel = k->rows[call->op],
        .rows = rows,
        .params = call->params,
    };
  }
}

etr_error_t etr_binary_execute(etr_kernel_context_t *ctx,
                               etr_binary_call_t *call, bool *handled) {
  const etr_tensor_t *a = call->a.tensor;
  const etr_tensor_t *b = call->b.tensor;
  etr_tensor_t *out = call->out;
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  *handled = false;
  if ((call->a.constant && call->b.constant) ||
      !etr_plan_broadcast_shape(a->dim, a->sizes, b->dim, b->sizes, &dim,
                                sizes)) {
    return ETR_OK;
  }
  *handled = true;
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run || etr_tensor_numel(out) == 0) {
    return ETR_OK;
  }
  // The planned inputs are the non-constant operands.
  const etr_tensor_t *inputs[2];
  size_t num_inputs = 0;
  int a_slot = -1;
  int b_slot = -1;
  if (!call->a.constant) {
    a_slot = (int)++num_inputs;
    inputs[a_slot - 1] = a;
  }
  if (!call->b.constant) {
    b_slot = (int)++num_inputs;
    inputs[b_slot - 1] = b;
  }
  etr_plan_t plan;
  if (!etr_plan_init(&plan, out, inputs, num_inputs)) {
    *handled = false;
    return ETR_OK;
  }
  etr_ew_operand_prepare(&call->a);
  etr_ew_operand_prepare(&call->b);
  const etr_f32_binary_kernels_t *k = etr_f32_binary_for(etr_isa_active());
  size_t element = etr_scalar_type_size(call->dtype);
  size_t out_element = etr_scalar_type_size(out->dtype);
  run_operand_t ra = {a_slot > 0 ? (const uint8_t *)a->data : NULL, a_slot,
                      a_slot > 0 && !plan.run_broadcast[a_slot]};
  run_operand_t rb = {b_slot > 0 ? (const uint8_t *)b->data : NULL, b_slot,
                      b_slot > 0 && !plan.run_broadcast[b_slot]};
  // A Float out whose arrays reach the streaming size (common/stream.h),
  // in runs of 1 KiB or more (a bias row, say): every run streams, as the
  // whole out would in one call (the rows kernels fence once a call).
  size_t touched = (size_t)etr_tensor_numel(out) * out_element;
  touched += ra.base != NULL ? (size_t)etr_tensor_numel(a) * element : 0;
  touched += rb.base != NULL ? (size_t)etr_tensor_numel(b) * element : 0;
  call->params.stream = call->dtype == ETR_FLOAT && !call->compare &&
                        plan.run >= 256 &&
                        touched >= etr_isa_stream_bytes();
  // Division only on short runs or streamed ones: the per-run kernels
  // divide by a value without the divider where it is slow
  // (div_by_scalar_vs) and split vector divisions (the Intel tables),
  // which the rows kernel does not; on long runs the per-run overhead is
  // small anyway, but a streamed call's runs fence one by one and DRAM
  // binds either way.
  if (call->dtype == ETR_FLOAT && !call->compare && plan.outer_dim > 0 &&
      k->rows[call->op] != NULL &&
      (call->op != ETR_BINARY_DIV || plan.run < 256 ||
       call->params.stream)) {
    run_rows(ctx, call, k, &plan, &ra, &rb, (float *)out->data);
    return ETR_OK;
  }
  etr_plan_cursor_t cursor;
  etr_plan_cursor_init(&cursor);
  for (int64_t r = 0; r < plan.runs; ++r) {
    binary_run_t run = {NULL, NULL, call->a.value, call->b.value,
                        (uint8_t *)out->data +
                            (size_t)cursor.offsets[0] * out_element};
    operand_in_run(&ra, call->dtype, element, &cursor, &run.a, &run.a_value);
    operand_in_run(&rb, call->dtype, element, &cursor, &run.b, &run.b_value);
    if (call->dtype == ETR_FLOAT) {
      run_f32(call, k, (size_t)plan.run, run.a, run.a_value, run.b,
              run.b_value, run.y);
    } else {
      run_staged(call, k, (size_t)plan.run, &run);
    }
    etr_plan_cursor_next(&cursor, &plan);
  }
  return ETR_OK;
}
