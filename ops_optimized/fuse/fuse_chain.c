// SPDX-License-Identifier: Apache-2.0
//
// Fused elementwise chains (fuse.h): consecutive add/sub/mul/div, clamp,
// hardtanh and relu calls on one shape, each reading the previous one's
// out, the chain's (at most two) inputs or a one-element Float constant,
// computed tile by tile in one pass. to_edge writes hardswish as add 3,
// clamp 0, clamp 6, mul by the input, div 6 (hardsigmoid: the same without
// the mul), and a ResNet block ends in add + relu: five (two) passes over
// the tensor, each an instruction, become one.
//
// Each step runs the very microkernel its unfused kernel runs (the ISA's
// binary vv/vs/sv kernels, the unary CLAMP kernel, relu), on tiles of
// kTile floats held on the stack, so the bits are the unfused kernels'
// by construction; only the tensors between the steps are never written.
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/binary/binary.h"
#include "ops_optimized/fuse/fuse_graph.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary.h"

enum {
  kMaxSteps = 16,
  kTile = 1024,
};

// Where a step's operand comes from.
typedef enum operand {
  FROM_RUNNING = 0,  // the previous step's result (the tile)
  FROM_INPUT0,       // the chain's first input
  FROM_INPUT1,       // its second
  FROM_CONSTANT,     // the step's one-element constant
} operand_t;

typedef enum step_kind { STEP_BINARY = 0, STEP_CLAMP, STEP_RELU } step_kind_t;

typedef struct chain_step {
  step_kind_t kind;
  etr_binary_op_t op;  // STEP_BINARY: ADD, SUB, MUL or DIV
  operand_t a;         // STEP_BINARY: a op b; the others read a
  operand_t b;
  float constant;
  etr_unary_params_t params;  // STEP_CLAMP
} chain_step_t;

// One fused chain, bound to its first instruction as its kernel state.
typedef struct fused_chain {
  chain_step_t steps[kMaxSteps];  // one per instruction
  chain_step_t run[kMaxSteps];    // what the tiles compute (merge_clamps)
  uint32_t num_run;
  etr_instruction_t calls[kMaxSteps];  // the steps' instructions as loaded
  const char *names[kMaxSteps];
  uint32_t num_steps;
  // hardswish / hardsigmoid (find_hard): one pass of the ISA's fused
  // kernel instead of the steps' microkernels over tiles.
  bool hard;
  etr_f32_hard_params_t hard_params;
  etr_tensor_t *inputs[2];  // NULL when unused
  etr_tensor_t *target;     // the last step's out
  int32_t dim;              // the shape every tensor of the chain has
  int64_t sizes[ETR_MAX_DIMS];
} fused_chain_t;

uint64_t etr_fuse_chain_unfused_runs = 0;

static etr_error_t run_unfused(etr_kernel_context_t *ctx,
                               const fused_chain_t *f) {
  if (!ctx->dry_run) {
    ++etr_fuse_chain_unfused_runs;
  }
  return etr_fuse_run_steps(ctx, f->calls, f->names, f->num_steps);
}

static bool same_shape(const etr_tensor_t *t, int32_t dim,
                       const int64_t *sizes) {
  return t->dim == dim &&
         memcmp(t->sizes, sizes, (size_t)dim * sizeof(int64_t)) == 0;
}

// A dense Float tensor of the chain's shape in the default dim order.
static bool usable(const etr_tensor_t *t, const fused_chain_t *f) {
  return t != NULL && t->dtype == ETR_FLOAT &&
         same_shape(t, f->dim, f->sizes) && etr_tensor_is_contiguous(t) &&
         (t->data != NULL || etr_tensor_numel(t) == 0);
}

// Whether [a, a + n) and [b, b + n) overlap without being the same floats
// (the tiles read each input's floats before writing the out's same
// floats, so an out exactly over an input is fine).
static bool partly_overlap(const float *a, const float *b, size_t n) {
  if (a == b || n == 0) {
    return false;
  }
  uintptr_t x = (uintptr_t)a;
  uintptr_t y = (uintptr_t)b;
  return x < y + n * sizeof(float) && y < x + n * sizeof(float);
}

static const float *operand_at(operand_t from, const float *running,
                               const float *in0, const float *in1) {
  return from == FROM_RUNNING ? running : from == FROM_INPUT0 ? in0 : in1;
}

// The chain on floats [0, n): tile by tile, each step over the tile.
static void run_tiles(const fused_chain_t *f, size_t n, const float *in0,
                      const float *in1, float *out) {
  etr_isa_t isa = etr_isa_active();
  const etr_f32_binary_kernels_t *binary = etr_f32_binary_for(isa);
  etr_f32_unary_op_fn clamp = etr_f32_unary_op_for(ETR_UNARY_CLAMP, isa);
  etr_f32_unary_fn relu = etr_f32_relu_for(isa);
  float tile[kTile] __attribute__((aligned(64)));
  for (size_t at = 0; at < n; at += kTile) {
    size_t count = n - at < kTile ? n - at : kTile;
    const float *x0 = in0 != NULL ? in0 + at : NULL;
    const float *x1 = in1 != NULL ? in1 + at : NULL;
    for (uint32_t s = 0; s < f->num_run; ++s) {
      const chain_step_t *step = &f->run[s];
      // The last step writes the out; the others the tile.
      float *y = s + 1 == f->num_run ? out + at : tile;
      if (step->kind == STEP_BINARY) {
        const etr_binary_params_t params = {.alpha = 1.0};
        if (step->b == FROM_CONSTANT) {
          binary->vs[step->op](count, operand_at(step->a, tile, x0, x1),
                               step->constant, y, &params);
        } else if (step->a == FROM_CONSTANT) {
          binary->sv[step->op](count, step->constant,
                               operand_at(step->b, tile, x0, x1), y, &params);
        } else {
          binary->vv[step->op](count, operand_at(step->a, tile, x0, x1),
                               operand_at(step->b, tile, x0, x1), y, &params);
        }
      } else if (step->kind == STEP_CLAMP) {
        clamp(count, operand_at(step->a, tile, x0, x1), y, &step->params);
      } else {
        relu(count, operand_at(step->a, tile, x0, x1), y);
      }
    }
  }
}

static etr_error_t fused_chain_kernel(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  (void)args;
  (void)num_args;
  const fused_chain_t *f = (const fused_chain_t *)ctx->state;
  if (f == NULL) {
    return ETR_FAIL(ctx->diag, ETR_ERR_INVALID_STATE,
                    "fused elementwise kernel called without its state");
  }
  if (ctx->dry_run) {
    return run_unfused(ctx, f);
  }
  // A method input may have been bound to another tensor: the shapes and
  // layouts the chain was fused for, or the unfused kernels.
  bool ok = usable(f->target, f);
  for (int k = 0; k < 2 && ok; ++k) {
    ok = f->inputs[k] == NULL || usable(f->inputs[k], f);
  }
  size_t n = (size_t)etr_tensor_numel(f->target);
  float *out = (float *)f->target->data;
  const float *in0 = f->inputs[0] != NULL ? f->inputs[0]->data : NULL;
  const float *in1 = f->inputs[1] != NULL ? f->inputs[1]->data : NULL;
  if (!ok || (in0 != NULL && partly_overlap(in0, out, n)) ||
      (in1 != NULL && partly_overlap(in1, out, n))) {
    return run_unfused(ctx, f);
  }
  if (n > 0 && f->hard) {
    etr_f32_binary_for(etr_isa_active())->hard(n, in0, out, &f->hard_params);
  } else if (n > 0) {
    run_tiles(f, n, in0, in1, out);
  }
  return ETR_OK;
}

// ---------------------------------------------------------------------------
// Matching

typedef struct matcher {
  etr_method_t *m;
  const uint32_t *uses;
  fused_chain_t *f;
  uint32_t input_values[2];  // value indices of inputs[0..1]
} matcher_t;

static etr_tensor_t *tensor_at(const etr_method_t *m, uint32_t v) {
  return v < m->num_values && m->values[v].tag == ETR_TAG_TENSOR
             ? m->values[v].u.as_tensor
             : NULL;
}

// A one-element Float constant (the program's, or folded at load) of at
// most the chain's rank (broadcasting it leaves the shape as it is).
static bool constant_value(const matcher_t *x, uint32_t v, float *value) {
  const etr_tensor_t *t = tensor_at(x->m, v);
  if (t == NULL || t->dtype != ETR_FLOAT || etr_tensor_numel(t) != 1 ||
      t->data == NULL || t->dim > x->f->dim ||
      t->shape_dynamism != ETR_SHAPE_STATIC) {
    return false;
  }
  if (!etr_fuse_fixed_value(x->m, v)) {
    return false;
  }
  *value = *(const float *)t->data;
  return true;
}

// A static Float tensor of the chain's shape in the default dim order.
static bool chain_tensor(const matcher_t *x, const etr_tensor_t *t) {
  return t != NULL && t->dtype == ETR_FLOAT &&
         t->shape_dynamism == ETR_SHAPE_STATIC &&
         same_shape(t, x->f->dim, x->f->sizes) && etr_tensor_is_contiguous(t);
}

// Where operand value `v` of step `s` comes from (`running` is the value
// the previous step wrote; none for step 0). False if from none of them.
static bool classify(matcher_t *x, uint32_t v, uint32_t running, uint32_t s,
                     operand_t *from, float *constant) {
  if (s > 0 && v == running) {
    *from = FROM_RUNNING;
    return true;
  }
  if (constant_value(x, v, constant)) {
    *from = FROM_CONSTANT;
    return true;
  }
  for (int k = 0; k < 2; ++k) {
    if (x->f->inputs[k] != NULL && x->input_values[k] == v) {
      *from = (operand_t)(FROM_INPUT0 + k);
      return true;
    }
  }
  etr_tensor_t *t = tensor_at(x->m, v);
  for (int k = 0; k < 2; ++k) {
    if (x->f->inputs[k] == NULL) {
      if (!chain_tensor(x, t)) {
        return false;
      }
      x->f->inputs[k] = t;
      x->input_values[k] = v;
      *from = (operand_t)(FROM_INPUT0 + k);
      return true;
    }
  }
  return false;
}

static bool read_limit(const etr_evalue_t *v, bool *present, float *limit) {
  double value;
  if (v->tag == ETR_TAG_NONE) {
    *present = false;
    return true;
  }
  if (v->tag == ETR_TAG_INT) {
    value = (double)v->u.as_int;
  } else if (v->tag == ETR_TAG_DOUBLE) {
    value = v->u.as_double;
  } else {
    return false;
  }
  // Limits past the float range (and NaN) take the kernels' own checks.
  if (!(fabs(value) <= (double)FLT_MAX)) {
    return false;
  }
  *present = true;
  *limit = (float)value;
  return true;
}

static bool alpha_is_one(const etr_evalue_t *v) {
  return (v->tag == ETR_TAG_INT && v->u.as_int == 1) ||
         (v->tag == ETR_TAG_DOUBLE && v->u.as_double == 1.0);
}

// Reads instruction `in` as step `s` of the chain (the previous step's
// out is `running`); returns its out's value index, or UINT32_MAX when it
// is not a step the chain can take.
static uint32_t read_step(matcher_t *x, const etr_instruction_t *in,
                          uint32_t s, uint32_t running) {
  if (in->kind != ETR_INSTRUCTION_KERNEL_CALL || in->state != NULL ||
      in->fusion != ETR_FUSION_NONE || in->num_args < 3) {
    return UINT32_MAX;
  }
  const char *name = etr_fuse_op_name(x->m, in);
  chain_step_t step = {0};
  size_t operands = 1;
  if (in->kernel == etr_opt_add_out && in->num_args == 5 &&
      strcmp(name, "aten::add.out") == 0 && alpha_is_one(in->args[2])) {
    step = (chain_step_t){.kind = STEP_BINARY, .op = ETR_BINARY_ADD};
    operands = 2;
  } else if (in->kernel == etr_opt_sub_out && in->num_args == 5 &&
             strcmp(name, "aten::sub.out") == 0 && alpha_is_one(in->args[2])) {
    step = (chain_step_t){.kind = STEP_BINARY, .op = ETR_BINARY_SUB};
    operands = 2;
  } else if (in->kernel == etr_opt_mul_out && in->num_args == 4 &&
             strcmp(name, "aten::mul.out") == 0) {
    step = (chain_step_t){.kind = STEP_BINARY, .op = ETR_BINARY_MUL};
    operands = 2;
  } else if (in->kernel == etr_opt_div_out && in->num_args == 4 &&
             strcmp(name, "aten::div.out") == 0) {
    step = (chain_step_t){.kind = STEP_BINARY, .op = ETR_BINARY_DIV};
    operands = 2;
  } else if (in->kernel == etr_opt_relu_out && in->num_args == 3 &&
             strcmp(name, "aten::relu.out") == 0) {
    step.kind = STEP_RELU;
  } else if ((in->kernel == etr_opt_clamp_out &&
              strcmp(name, "aten::clamp.out") == 0) ||
             (in->kernel == etr_opt_hardtanh_out &&
              strcmp(name, "aten::hardtanh.out") == 0)) {
    bool has_low = false;
    bool has_high = false;
    step.kind = STEP_CLAMP;
    step.params.low = -INFINITY;
    step.params.high = INFINITY;
    bool hardtanh = in->kernel == etr_opt_hardtanh_out;
    if (in->num_args != 5 ||
        !read_limit(in->args[1], &has_low, &step.params.low) ||
        !read_limit(in->args[2], &has_high, &step.params.high) ||
        (hardtanh ? !(has_low && has_high) : !(has_low || has_high))) {
      return UINT32_MAX;
    }
    if (!has_low) {
      step.params.low = -INFINITY;
    }
    if (!has_high) {
      step.params.high = INFINITY;
    }
  } else {
    return UINT32_MAX;
  }
  // The out: the schema's last argument, returned in the last slot too.
  uint32_t out = in->arg_indices[in->num_args - 1];
  if (in->arg_indices[in->num_args - 2] != out ||
      !chain_tensor(x, tensor_at(x->m, out))) {
    return UINT32_MAX;
  }
  operand_t from[2] = {FROM_RUNNING, FROM_RUNNING};
  float constant = 0.0f;
  int constants = 0;
  bool reads_running = false;
  for (size_t k = 0; k < operands; ++k) {
    float value = 0.0f;
    if (!classify(x, in->arg_indices[k], running, s, &from[k], &value)) {
      return UINT32_MAX;
    }
    if (from[k] == FROM_CONSTANT) {
      constant = value;
      ++constants;
    }
    reads_running = reads_running || from[k] == FROM_RUNNING;
  }
  // After the first step, every step continues the chain; a unary step
  // and a binary one have at most one constant.
  if ((s > 0 && !reads_running) || constants > (int)operands - 1 ||
      out == x->input_values[0] || out == x->input_values[1]) {
    return UINT32_MAX;
  }
  step.a = from[0];
  step.b = from[1];
  step.constant = constant;
  x->f->steps[s] = step;
  x->f->calls[s] = *in;
  x->f->names[s] = name;
  return out;
}

// Whether value `v` (a step's out, read by the next step only) is planned
// memory nothing else references.
static bool private_between(const matcher_t *x, uint32_t v,
                            const etr_instruction_t *producer,
                            const etr_instruction_t *consumer) {
  return x->m->value_info[v].storage == ETR_STORAGE_PLANNED &&
         x->uses[v] == etr_fuse_uses_in(producer, v) +
                           etr_fuse_uses_in(consumer, v) &&
         !etr_fuse_listed_elsewhere(x->m, x->m->values[v].u.as_tensor,
                                    producer);
}

// A clamp with no upper limit followed by one with no lower limit (how
// to_edge writes clamp(x, 0, 6)) is one clamp of both limits: x < low ->
// low, then > high -> high, as the two steps compute it (NaN kept, -0.0
// not below +0.0). The steps' calls stay as they are (the unfused runs).
static void merge_clamps(fused_chain_t *f) {
  uint32_t kept = 0;
  for (uint32_t s = 0; s < f->num_steps; ++s) {
    chain_step_t *step = &f->steps[s];
    chain_step_t *last = kept > 0 ? &f->run[kept - 1] : NULL;
    if (last != NULL && last->kind == STEP_CLAMP &&
        step->kind == STEP_CLAMP && step->a == FROM_RUNNING &&
        last->params.high == INFINITY && step->params.low == -INFINITY) {
      last->params.high = step->params.high;
      continue;
    }
    f->run[kept++] = *step;
  }
  f->num_run = kept;
}

// Whether the steps to run are hardswish (x + c, a clamp, times x, / d)
// or hardsigmoid (the same without the product) as to_edge writes them,
// over the chain's first input: then f->hard and its parameters. On
// mobilenet_v3's 16x32x32 hardswish (Zen 2) the tiles' four passes took
// 5.95 us, the fused kernel 2.55 (etref profile --fuse).
static void find_hard(fused_chain_t *f) {
  f->hard = false;
  const chain_step_t *r = f->run;
  const uint32_t n = f->num_run;
  if ((n != 3 && n != 4) || r[0].kind != STEP_BINARY ||
      r[0].op != ETR_BINARY_ADD || r[0].a != FROM_INPUT0 ||
      r[0].b != FROM_CONSTANT || r[1].kind != STEP_CLAMP ||
      r[1].a != FROM_RUNNING || r[n - 1].kind != STEP_BINARY ||
      r[n - 1].op != ETR_BINARY_DIV || r[n - 1].a != FROM_RUNNING ||
      r[n - 1].b != FROM_CONSTANT) {
    return;
  }
  bool x_first = false;
  if (n == 4) {
    const chain_step_t *mul = &r[2];
    const bool running_x = mul->a == FROM_RUNNING && mul->b == FROM_INPUT0;
    x_first = mul->a == FROM_INPUT0 && mul->b == FROM_RUNNING;
    if (mul->kind != STEP_BINARY || mul->op != ETR_BINARY_MUL ||
        !(running_x || x_first)) {
      return;
    }
  }
  f->hard = true;
  f->hard_params = (etr_f32_hard_params_t){
      .add = r[0].constant,
      .low = r[1].params.low,
      .high = r[1].params.high,
      .divisor = r[n - 1].constant,
      .times_x = n == 4,
      .x_first = x_first,
  };
}

// The chain that starts at instruction `i` of `chain`: fills `f` and
// returns how many instructions after the head it spans (absorbed steps
// and folded instructions between them), 0 when there is no chain of two
// steps or more.
static uint32_t match(etr_method_t *m, const uint32_t *uses,
                      const etr_chain_t *chain, uint32_t i,
                      fused_chain_t *f) {
  const etr_instruction_t *head = &chain->instructions[i];
  if (head->kind != ETR_INSTRUCTION_KERNEL_CALL || head->num_args < 3) {
    return 0;
  }
  const etr_tensor_t *first_out =
      tensor_at(m, head->arg_indices[head->num_args - 1]);
  if (first_out == NULL || first_out->dim > ETR_MAX_DIMS) {
    return 0;
  }
  *f = (fused_chain_t){.dim = first_out->dim};
  memcpy(f->sizes, first_out->sizes, (size_t)first_out->dim * sizeof(int64_t));
  matcher_t x = {m, uses, f, {UINT32_MAX, UINT32_MAX}};
  uint32_t running = read_step(&x, head, 0, UINT32_MAX);
  if (running == UINT32_MAX) {
    return 0;
  }
  uint32_t steps = 1;
  uint32_t span = 0;  // instructions after the head the chain covers
  const etr_instruction_t *producer = head;
  for (uint32_t next = i + 1;
       next < chain->num_instructions && steps < kMaxSteps && next - i < 255;
       ++next) {
    const etr_instruction_t *in = &chain->instructions[next];
    if (etr_fuse_is_jump_target(chain, next)) {
      break;
    }
    if (in->fusion == ETR_FUSION_FOLDED) {
      continue;  // does nothing at run time
    }
    fused_chain_t saved = *f;
    matcher_t before = x;
    uint32_t out = read_step(&x, in, steps, running);
    if (out == UINT32_MAX || !private_between(&x, running, producer, in)) {
      *f = saved;
      x = before;
      break;
    }
    running = out;
    producer = in;
    ++steps;
    span = next - i;
  }
  if (steps < 2) {
    return 0;
  }
  f->num_steps = steps;
  for (uint32_t s = 0; s < steps; ++s) {
    if (!etr_fuse_accepts(m, &f->calls[s])) {
      return 0;
    }
  }
  merge_clamps(f);
  find_hard(f);
  f->target = tensor_at(m, running);
  return span;
}

etr_error_t etr_fuse_elementwise_chains(etr_method_t *method,
                                        const uint32_t *uses,
                                        etr_fusion_stats_t *stats,
                                        etr_diag_t *diag) {
  fused_chain_t *found = malloc(sizeof(*found));
  if (found == NULL) {
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "fusion analysis of method '%s'", method->name);
  }
  etr_error_t status = ETR_OK;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      uint32_t span = match(method, uses, chain, i, found);
      if (span == 0) {
        continue;
      }
      fused_chain_t *f = etr_arena_alloc(&method->arena, sizeof(*f), 64);
      if (f == NULL) {
        status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                          "fusion of method '%s': arena exhausted",
                          method->name);
        break;
      }
      *f = *found;
      etr_instruction_t *head = &chain->instructions[i];
      head->kernel = fused_chain_kernel;
      head->state = f;
      head->fusion = ETR_FUSION_HEAD;
      head->fused_count = (uint8_t)span;
      for (uint32_t s = 1; s <= span; ++s) {
        etr_instruction_t *gone = &chain->instructions[i + s];
        if (gone->fusion == ETR_FUSION_NONE) {
          gone->kernel = etr_fuse_noop_kernel;
          gone->fusion = ETR_FUSION_ABSORBED;
        }
      }
      ++stats->chains;
      stats->chain_steps += f->num_steps;
      stats->absorbed += f->num_steps - 1;
      i += span;
    }
  }
  free(found);
  return status;
}
