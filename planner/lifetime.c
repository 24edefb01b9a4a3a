// SPDX-License-Identifier: Apache-2.0
//
// Liveness of planned storage (see lifetime.h). Planning and verification
// run before a method executes, so this may allocate.
#include "planner/lifetime.h"

#include <stdlib.h>
#include <string.h>

#define ET_VIEW "executorch_prim::et_view.default"
#define DEFAULT_MAX_BITSET_BYTES ((uint64_t)64 << 20)

// ---------------------------------------------------------------------------
// Bitsets of units.

static void bits_set(uint64_t *bits, uint32_t i) {
  bits[i / 64] |= (uint64_t)1 << (i % 64);
}

static bool bits_test(const uint64_t *bits, uint32_t i) {
  return (bits[i / 64] >> (i % 64)) & 1u;
}

// dst |= src; returns true when dst changed.
static bool bits_or(uint64_t *dst, const uint64_t *src, uint32_t words) {
  bool changed = false;
  for (uint32_t w = 0; w < words; ++w) {
    uint64_t merged = dst[w] | src[w];
    changed = changed || merged != dst[w];
    dst[w] = merged;
  }
  return changed;
}

static uint32_t bits_count(const uint64_t *bits, uint32_t words) {
  uint32_t count = 0;
  for (uint32_t w = 0; w < words; ++w) {
    count += (uint32_t)__builtin_popcountll(bits[w]);
  }
  return count;
}

// ---------------------------------------------------------------------------
// The method viewed as a flat instruction list with successors.

typedef struct {
  const etr_method_t *method;
  uint32_t num_instructions;             // P; position P is the end
  const etr_instruction_t **instruction;  // [P]
  uint32_t *jump_target;                 // [P]: JumpFalse destination or P+1
  uint32_t num_units;
  uint32_t words;                        // per unit set
  int32_t *own_unit;                     // [values]
  int32_t *alias_index;                  // [values]: index in aliasing, or -1
  uint32_t num_aliasing;
  uint64_t *points_to;  // [(P+1) * num_aliasing * words]: before each position
  uint64_t *live_in;    // [(P+1) * words]
  uint64_t *scratch;    // [4 * words]
  const etr_lifetime_options_t *options;
} flow_t;

static uint32_t value_of(const flow_t *f, const etr_evalue_t *item) {
  return (uint32_t)(item - f->method->values);
}

static bool is_tensor(const flow_t *f, uint32_t v) {
  return f->method->values[v].tag == ETR_TAG_TENSOR;
}

static bool is_et_view(const flow_t *f, const etr_instruction_t *instruction) {
  return instruction->kind == ETR_INSTRUCTION_KERNEL_CALL &&
         instruction->num_args == 3 &&
         strcmp(f->method->operators[instruction->callee].name, ET_VIEW) == 0;
}

static uint64_t *points_to_at(const flow_t *f, uint32_t position,
                              uint32_t alias) {
  return f->points_to +
         ((size_t)position * f->num_aliasing + alias) * f->words;
}

// Adds the units value v may point to (before `position`) to `set`.
static void add_targets(const flow_t *f, uint32_t position, uint32_t v,
                        uint64_t *set) {
  if (!is_tensor(f, v)) {
    return;
  }
  if (f->alias_index[v] >= 0) {
    bits_or(set, points_to_at(f, position, (uint32_t)f->alias_index[v]),
            f->words);
  } else if (f->own_unit[v] >= 0) {
    bits_set(set, (uint32_t)f->own_unit[v]);
  }
}

// The unit a write through v certainly hits, or -1 when v may point to
// several or none.
static int32_t definite_target(const flow_t *f, uint32_t position,
                               uint32_t v) {
  if (!is_tensor(f, v)) {
    return -1;
  }
  if (f->alias_index[v] < 0) {
    return f->own_unit[v];
  }
  const uint64_t *set =
      points_to_at(f, position, (uint32_t)f->alias_index[v]);
  if (bits_count(set, f->words) != 1) {
    return -1;
  }
  for (uint32_t w = 0; w < f->words; ++w) {
    if (set[w] != 0) {
      return (int32_t)(w * 64 + (uint32_t)__builtin_ctzll(set[w]));
    }
  }
  return -1;
}

// Calls visit(value, is_return_slot) for every tensor an instruction's
// argument list holds (list elements included).
typedef void (*arg_visitor_t)(flow_t *f, uint32_t position, uint32_t value,
                              bool returned, void *state);

static void visit_args(flow_t *f, uint32_t position,
                       const etr_instruction_t *instruction,
                       arg_visitor_t visit, void *state) {
  size_t n = instruction->num_args;
  for (size_t k = 0; k < n; ++k) {
    const etr_evalue_t *value = instruction->args[k];
    bool returned = k + 1 == n;
    if (value->tag == ETR_TAG_TENSOR) {
      visit(f, position, instruction->arg_indices[k], returned, state);
    } else if (value->tag == ETR_TAG_LIST_TENSOR ||
               value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
      for (size_t j = 0; j < value->u.as_tensor_list.length; ++j) {
        const etr_evalue_t *item = value->u.as_tensor_list.items[j];
        if (item != NULL && item->tag == ETR_TAG_TENSOR) {
          visit(f, position, value_of(f, item), returned, state);
        }
      }
    }
  }
}

// True when value v is in the instruction's return slot (or its list).
static bool is_returned(const flow_t *f, const etr_instruction_t *instruction,
                        uint32_t v) {
  if (instruction->num_args == 0) {
    return false;
  }
  const etr_evalue_t *slot = instruction->args[instruction->num_args - 1];
  if (slot->tag == ETR_TAG_TENSOR) {
    return instruction->arg_indices[instruction->num_args - 1] == v;
  }
  if (slot->tag == ETR_TAG_LIST_TENSOR) {
    for (size_t j = 0; j < slot->u.as_tensor_list.length; ++j) {
      const etr_evalue_t *item = slot->u.as_tensor_list.items[j];
      if (item != NULL && value_of(f, item) == v) {
        return true;
      }
    }
  }
  return false;
}

typedef struct {
  uint64_t *gen;     // units read
  uint64_t *kill;    // units certainly overwritten
  uint64_t *writes;  // units possibly written
  const etr_instruction_t *instruction;
  const bool *written_before;  // per value: an input or returned by a kernel
} effect_t;

static void kernel_arg(flow_t *f, uint32_t position, uint32_t v,
                       bool returned, void *state) {
  effect_t *e = (effect_t *)state;
  if (returned || is_returned(f, e->instruction, v)) {
    add_targets(f, position, v, e->writes);
    int32_t unit = definite_target(f, position, v);
    if (unit >= 0) {
      bits_set(e->kill, (uint32_t)unit);
    }
  } else {
    add_targets(f, position, v, e->gen);
  }
}

// A delegate's arguments mix inputs and outputs. One that nothing wrote
// before (and that is not a method input) can only be an output; anything
// else may be read, and every argument may be written.
static void delegate_arg(flow_t *f, uint32_t position, uint32_t v,
                         bool returned, void *state) {
  (void)returned;
  effect_t *e = (effect_t *)state;
  add_targets(f, position, v, e->writes);
  if (e->written_before[v]) {
    add_targets(f, position, v, e->gen);
  } else {
    int32_t unit = definite_target(f, position, v);
    if (unit >= 0) {
      bits_set(e->kill, (uint32_t)unit);
    }
  }
}

// gen/kill/writes of one position (the end reads the outputs).
static void effects(flow_t *f, uint32_t position, effect_t *e) {
  memset(e->gen, 0, f->words * sizeof(uint64_t));
  memset(e->kill, 0, f->words * sizeof(uint64_t));
  memset(e->writes, 0, f->words * sizeof(uint64_t));
  const etr_method_t *method = f->method;
  if (position == f->num_instructions) {
    for (uint32_t i = 0; i < method->num_outputs; ++i) {
      add_targets(f, position, method->outputs[i], e->gen);
    }
    return;
  }
  const etr_instruction_t *instruction = f->instruction[position];
  e->instruction = instruction;
  switch (instruction->kind) {
    case ETR_INSTRUCTION_KERNEL_CALL:
      visit_args(f, position, instruction, kernel_arg, e);
      return;
    case ETR_INSTRUCTION_DELEGATE_CALL:
      visit_args(f, position, instruction, delegate_arg, e);
      return;
    case ETR_INSTRUCTION_JUMP_FALSE_CALL:
      add_targets(f, position, instruction->operands[0], e->gen);
      return;
    case ETR_INSTRUCTION_MOVE_CALL:  // moves no data
    case ETR_INSTRUCTION_FREE_CALL:
      return;
  }
}

// Forward pass: which units each aliasing value may point to.
static void propagate_points_to(flow_t *f) {
  uint32_t p_end = f->num_instructions;
  size_t row = (size_t)f->num_aliasing * f->words;
  uint64_t *out = (uint64_t *)f->scratch;  // row words (allocated for it)
  // Entry: every aliasing value points to its own unit.
  for (uint32_t v = 0; v < f->method->num_values; ++v) {
    if (f->alias_index[v] >= 0 && f->own_unit[v] >= 0) {
      bits_set(points_to_at(f, 0, (uint32_t)f->alias_index[v]),
               (uint32_t)f->own_unit[v]);
    }
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t p = 0; p < p_end; ++p) {
      memcpy(out, points_to_at(f, p, 0), row * sizeof(uint64_t));
      const etr_instruction_t *instruction = f->instruction[p];
      int32_t target = -1;
      uint32_t source = 0;
      if (instruction->kind == ETR_INSTRUCTION_MOVE_CALL) {
        target = f->alias_index[instruction->operands[1]];
        source = instruction->operands[0];
      } else if (is_et_view(f, instruction)) {
        target = f->alias_index[instruction->arg_indices[2]];
        source = instruction->arg_indices[0];
      } else if (instruction->kind == ETR_INSTRUCTION_FREE_CALL) {
        int32_t freed = f->alias_index[instruction->operands[0]];
        if (freed >= 0) {
          memset(out + (size_t)freed * f->words, 0,
                 f->words * sizeof(uint64_t));
        }
      }
      if (target >= 0) {
        uint64_t *slot = out + (size_t)target * f->words;
        memset(slot, 0, f->words * sizeof(uint64_t));
        add_targets(f, p, source, slot);
      }
      uint32_t next[2] = {p + 1, f->jump_target[p]};
      for (int s = 0; s < 2; ++s) {
        if (next[s] <= p_end &&
            bits_or(points_to_at(f, next[s], 0), out, (uint32_t)row)) {
          changed = true;
        }
      }
    }
  }
}

// Backward pass: units live before each position.
static void propagate_liveness(flow_t *f, const bool *written_before) {
  uint32_t p_end = f->num_instructions;
  uint32_t words = f->words;
  uint64_t *live_out = f->scratch + (size_t)f->num_aliasing * words;
  effect_t e = {live_out + words, live_out + 2 * words, live_out + 3 * words,
                NULL, written_before};
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t step = 0; step <= p_end; ++step) {
      uint32_t p = p_end - step;
      memset(live_out, 0, words * sizeof(uint64_t));
      if (p < p_end) {
        uint32_t next[2] = {p + 1, f->jump_target[p]};
        for (int s = 0; s < 2; ++s) {
          if (next[s] <= p_end) {
            bits_or(live_out, f->live_in + (size_t)next[s] * words, words);
          }
        }
      }
      effects(f, p, &e);
      uint64_t *in = f->live_in + (size_t)p * words;
      for (uint32_t w = 0; w < words; ++w) {
        uint64_t value = e.gen[w] | (live_out[w] & ~e.kill[w]);
        changed = changed || value != in[w];
        in[w] = value;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Units.

typedef struct {
  uint32_t value;
  uint32_t memory_id;
  uint64_t offset;
  uint64_t size;
} placed_t;

static int by_placement(const void *x, const void *y) {
  const placed_t *a = (const placed_t *)x;
  const placed_t *b = (const placed_t *)y;
  if (a->memory_id != b->memory_id) {
    return a->memory_id < b->memory_id ? -1 : 1;
  }
  if (a->offset != b->offset) {
    return a->offset < b->offset ? -1 : 1;
  }
  if (a->size != b->size) {
    return a->size < b->size ? -1 : 1;
  }
  return a->value < b->value ? -1 : a->value > b->value;
}

static etr_error_t build_physical_units(const etr_method_t *method,
                                        etr_lifetimes_t *lifetimes,
                                        etr_diag_t *diag) {
  uint32_t n = method->num_values;
  placed_t *placed = (placed_t *)calloc((size_t)n + 1, sizeof(placed_t));
  lifetimes->units =
      (etr_alloc_unit_t *)calloc((size_t)n + 1, sizeof(etr_alloc_unit_t));
  ETR_CHECK(diag, placed != NULL && lifetimes->units != NULL,
            ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory in lifetime analysis");
  uint32_t count = 0;
  for (uint32_t v = 0; v < n; ++v) {
    const etr_value_info_t *info = &method->value_info[v];
    if (method->values[v].tag == ETR_TAG_TENSOR &&
        info->storage == ETR_STORAGE_PLANNED) {
      placed[count++] = (placed_t){v, info->memory_id, info->memory_offset,
                                   info->nbytes};
    }
  }
  qsort(placed, count, sizeof(placed_t), by_placement);
  for (uint32_t i = 0; i < count; ++i) {
    const placed_t *p = &placed[i];
    etr_alloc_unit_t *unit =
        lifetimes->num_units > 0 ? &lifetimes->units[lifetimes->num_units - 1]
                                 : NULL;
    if (unit == NULL || unit->memory_id != p->memory_id ||
        unit->program_offset != p->offset || unit->size != p->size) {
      unit = &lifetimes->units[lifetimes->num_units++];
      unit->memory_id = p->memory_id;
      unit->size = p->size;
      unit->program_offset = p->offset;
      unit->first_value = p->value;
    }
    unit->first_value =
        p->value < unit->first_value ? p->value : unit->first_value;
    ++unit->num_values;
    lifetimes->unit_of_value[p->value] = (int32_t)(lifetimes->num_units - 1);
  }
  free(placed);
  return ETR_OK;
}

static uint32_t find_root(uint32_t *parent, uint32_t v);
static void unite(uint32_t *parent, uint32_t a, uint32_t b);

// Linear-order first write and first read of every value (for the view
// rule); UINT32_MAX when never.
static void first_accesses(const etr_method_t *method, uint32_t *first_write,
                           uint32_t *first_read, bool *written) {
  uint32_t position = 0;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    const etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i, ++position) {
      const etr_instruction_t *instruction = &chain->instructions[i];
      if (instruction->kind != ETR_INSTRUCTION_KERNEL_CALL &&
          instruction->kind != ETR_INSTRUCTION_DELEGATE_CALL) {
        continue;
      }
      bool delegate = instruction->kind == ETR_INSTRUCTION_DELEGATE_CALL;
      size_t n = instruction->num_args;
      for (size_t k = 0; k < n; ++k) {
        const etr_evalue_t *value = instruction->args[k];
        uint32_t v = instruction->arg_indices[k];
        bool returned =
            delegate || k + 1 == n || instruction->arg_indices[n - 1] == v;
        if (value->tag == ETR_TAG_TENSOR) {
          uint32_t *slot = returned ? &first_write[v] : &first_read[v];
          *slot = position < *slot ? position : *slot;
          written[v] = written[v] || returned;
        } else if (value->tag == ETR_TAG_LIST_TENSOR && k + 1 == n) {
          for (size_t j = 0; j < value->u.as_tensor_list.length; ++j) {
            const etr_evalue_t *item = value->u.as_tensor_list.items[j];
            if (item != NULL) {
              uint32_t w = (uint32_t)(item - method->values);
              first_write[w] = position < first_write[w] ? position
                                                         : first_write[w];
              written[w] = true;
            }
          }
        } else if (value->tag == ETR_TAG_LIST_TENSOR ||
                   value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
          for (size_t j = 0; j < value->u.as_tensor_list.length; ++j) {
            const etr_evalue_t *item = value->u.as_tensor_list.items[j];
            if (item != NULL) {
              uint32_t w = (uint32_t)(item - method->values);
              first_read[w] = position < first_read[w] ? position
                                                       : first_read[w];
            }
          }
        }
      }
    }
  }
}

static bool same_placement(const etr_value_info_t *a,
                           const etr_value_info_t *b) {
  return a->memory_id == b->memory_id && a->memory_offset == b->memory_offset &&
         a->nbytes == b->nbytes;
}

static bool is_planned(const etr_method_t *method, uint32_t v) {
  return method->values[v].tag == ETR_TAG_TENSOR &&
         method->value_info[v].storage == ETR_STORAGE_PLANNED;
}

static bool has_initial_value(const etr_value_info_t *info);

// Logical units (see lifetime.h): union-find over planned values.
static etr_error_t build_logical_units(const etr_method_t *method,
                                       etr_lifetimes_t *lifetimes,
                                       etr_diag_t *diag) {
  uint32_t n = method->num_values;
  size_t slots = (size_t)n + 1;
  uint32_t *parent = (uint32_t *)malloc(slots * sizeof(uint32_t));
  uint32_t *first_write = (uint32_t *)malloc(slots * sizeof(uint32_t));
  uint32_t *first_read = (uint32_t *)malloc(slots * sizeof(uint32_t));
  bool *written = (bool *)calloc(slots, sizeof(bool));
  int32_t *unit_of_root = (int32_t *)malloc(slots * sizeof(int32_t));
  lifetimes->units =
      (etr_alloc_unit_t *)calloc(slots, sizeof(etr_alloc_unit_t));
  if (parent == NULL || first_write == NULL || first_read == NULL ||
      written == NULL || unit_of_root == NULL || lifetimes->units == NULL) {
    free(parent);
    free(first_write);
    free(first_read);
    free(written);
    free(unit_of_root);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory in lifetime analysis");
  }
  for (uint32_t v = 0; v < n; ++v) {
    parent[v] = v;
    first_write[v] = UINT32_MAX;
    first_read[v] = UINT32_MAX;
    unit_of_root[v] = -1;
  }
  first_accesses(method, first_write, first_read, written);
  // In-place results share memory with the argument they overwrite.
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    const etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *instruction = &chain->instructions[i];
      if (instruction->kind != ETR_INSTRUCTION_KERNEL_CALL ||
          instruction->num_args < 2) {
        continue;
      }
      uint32_t r = instruction->arg_indices[instruction->num_args - 1];
      if (!is_planned(method, r)) {
        continue;
      }
      for (size_t k = 0; k + 1 < instruction->num_args; ++k) {
        uint32_t a = instruction->arg_indices[k];
        if (a != r && is_planned(method, a) &&
            same_placement(&method->value_info[a], &method->value_info[r])) {
          unite(parent, a, r);
        }
      }
    }
  }
  // Tensors moved into the same value (the outputs of torch.cond branches)
  // share one buffer, as ExecuTorch plans them: whichever branch ran, the
  // value after the branches reads that buffer.
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    const etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *move = &chain->instructions[i];
      if (move->kind != ETR_INSTRUCTION_MOVE_CALL ||
          !is_planned(method, move->operands[0])) {
        continue;
      }
      for (uint32_t c2 = 0; c2 < method->num_chains; ++c2) {
        const etr_chain_t *other_chain = &method->chains[c2];
        for (uint32_t j = 0; j < other_chain->num_instructions; ++j) {
          const etr_instruction_t *other = &other_chain->instructions[j];
          if (other->kind == ETR_INSTRUCTION_MOVE_CALL &&
              other->operands[1] == move->operands[1] &&
              is_planned(method, other->operands[0])) {
            unite(parent, move->operands[0], other->operands[0]);
          }
        }
      }
    }
  }
  // Static views: nothing writes them; they read their base's bytes.
  for (uint32_t v = 0; v < n; ++v) {
    if (!is_planned(method, v) || written[v] ||
        has_initial_value(&method->value_info[v])) {
      continue;
    }
    uint32_t best = UINT32_MAX;
    for (uint32_t w = 0; w < n; ++w) {
      if (w != v && is_planned(method, w) && written[w] &&
          same_placement(&method->value_info[w], &method->value_info[v]) &&
          first_write[w] <= first_read[v] &&
          (best == UINT32_MAX || first_write[w] > first_write[best])) {
        best = w;
      }
    }
    if (best != UINT32_MAX) {
      unite(parent, v, best);
    }
  }
  for (uint32_t v = 0; v < n; ++v) {
    if (!is_planned(method, v)) {
      continue;
    }
    uint32_t root = find_root(parent, v);
    if (unit_of_root[root] < 0) {
      unit_of_root[root] = (int32_t)lifetimes->num_units++;
      etr_alloc_unit_t *unit = &lifetimes->units[unit_of_root[root]];
      unit->memory_id = method->value_info[v].memory_id;
      unit->program_offset = method->value_info[v].memory_offset;
      unit->first_value = v;
    }
    etr_alloc_unit_t *unit = &lifetimes->units[unit_of_root[root]];
    unit->size = method->value_info[v].nbytes > unit->size
                     ? method->value_info[v].nbytes
                     : unit->size;
    ++unit->num_values;
    lifetimes->unit_of_value[v] = unit_of_root[root];
  }
  free(parent);
  free(first_write);
  free(first_read);
  free(written);
  free(unit_of_root);
  return ETR_OK;
}

// Values whose units hold state from the program (mutable buffers with an
// initial value, or named ones).
static bool has_initial_value(const etr_value_info_t *info) {
  return info->storage == ETR_STORAGE_PLANNED &&
         (info->data_buffer_index > 0 || info->fully_qualified_name != NULL);
}

// ---------------------------------------------------------------------------
// Interval mode (the fallback): every unit occupies [first, last] use of
// anything that may alias it.

static uint32_t find_root(uint32_t *parent, uint32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];
    v = parent[v];
  }
  return v;
}

static void unite(uint32_t *parent, uint32_t a, uint32_t b) {
  uint32_t ra = find_root(parent, a);
  uint32_t rb = find_root(parent, b);
  if (ra != rb) {
    parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
  }
}

typedef struct {
  uint32_t *parent;
  uint32_t *first;
  uint32_t *last;
} interval_state_t;

static void touch(interval_state_t *s, uint32_t v, uint32_t position) {
  uint32_t root = find_root(s->parent, v);
  s->first[root] = position < s->first[root] ? position : s->first[root];
  s->last[root] = s->last[root] == UINT32_MAX || position > s->last[root]
                      ? position
                      : s->last[root];
}

static void touch_arg(flow_t *f, uint32_t position, uint32_t v, bool returned,
                      void *state) {
  (void)f;
  (void)returned;
  touch((interval_state_t *)state, v, position);
}

static etr_error_t interval_mode(flow_t *f, etr_lifetimes_t *lifetimes,
                                 etr_diag_t *diag) {
  const etr_method_t *method = f->method;
  uint32_t n = method->num_values;
  uint32_t p_end = f->num_instructions;
  interval_state_t s = {(uint32_t *)malloc(((size_t)n + 1) * 4),
                        (uint32_t *)malloc(((size_t)n + 1) * 4),
                        (uint32_t *)malloc(((size_t)n + 1) * 4)};
  if (s.parent == NULL || s.first == NULL || s.last == NULL) {
    free(s.parent);
    free(s.first);
    free(s.last);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory in lifetime analysis");
  }
  for (uint32_t v = 0; v < n; ++v) {
    s.parent[v] = v;
    s.first[v] = UINT32_MAX;
    s.last[v] = UINT32_MAX;
  }
  for (uint32_t p = 0; p < p_end; ++p) {
    const etr_instruction_t *instruction = f->instruction[p];
    if (instruction->kind == ETR_INSTRUCTION_MOVE_CALL) {
      unite(s.parent, instruction->operands[0], instruction->operands[1]);
    } else if (is_et_view(f, instruction)) {
      unite(s.parent, instruction->arg_indices[0],
            instruction->arg_indices[2]);
    }
  }
  // Values at the same placement share bytes: one class too.
  for (uint32_t v = 0; v < n; ++v) {
    int32_t unit = lifetimes->unit_of_value[v];
    if (unit >= 0) {
      unite(s.parent, v, lifetimes->units[unit].first_value);
    }
  }
  for (uint32_t p = 0; p < p_end; ++p) {
    const etr_instruction_t *instruction = f->instruction[p];
    if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL ||
        instruction->kind == ETR_INSTRUCTION_DELEGATE_CALL) {
      visit_args(f, p, instruction, touch_arg, &s);
    } else {
      touch(&s, instruction->operands[0], p);
      if (instruction->kind == ETR_INSTRUCTION_MOVE_CALL) {
        touch(&s, instruction->operands[1], p);
      }
    }
  }
  for (uint32_t i = 0; i < method->num_inputs; ++i) {
    touch(&s, method->inputs[i], 0);
  }
  for (uint32_t i = 0; i < method->num_outputs; ++i) {
    touch(&s, method->outputs[i], p_end);
  }
  // Loops: a class live inside [target, jump] is live over all of it.
  bool changed = true;
  for (uint32_t round = 0; changed && round < 64; ++round) {
    changed = false;
    for (uint32_t p = 0; p < p_end; ++p) {
      uint32_t target = f->jump_target[p];
      if (target > p) {
        continue;
      }
      for (uint32_t v = 0; v < n; ++v) {
        if (s.parent[v] != v || s.last[v] == UINT32_MAX || s.last[v] < target ||
            s.first[v] > p) {
          continue;
        }
        if (s.first[v] > target || s.last[v] < p) {
          s.first[v] = s.first[v] < target ? s.first[v] : target;
          s.last[v] = s.last[v] > p ? s.last[v] : p;
          changed = true;
        }
      }
    }
  }
  for (uint32_t u = 0; u < lifetimes->num_units; ++u) {
    etr_alloc_unit_t *unit = &lifetimes->units[u];
    uint32_t root = find_root(s.parent, unit->first_value);
    bool used = s.last[root] != UINT32_MAX;
    unit->start = used ? s.first[root] : 0;
    unit->end = used ? s.last[root] : 0;
    if (unit->end == p_end) {
      unit->kind = ETR_UNIT_OUTPUT;
    }
  }
  // Inputs from 0; state (and, in this mode, anything first touched by a
  // read we cannot tell from a write) over everything.
  for (uint32_t i = 0; i < method->num_inputs; ++i) {
    int32_t unit = lifetimes->unit_of_value[method->inputs[i]];
    if (unit >= 0) {
      lifetimes->units[unit].start = 0;
      lifetimes->units[unit].kind = ETR_UNIT_INPUT;
      if (f->options != NULL && f->options->inputs_live_whole_method) {
        lifetimes->units[unit].end = p_end;
      }
    }
  }
  for (uint32_t v = 0; v < n; ++v) {
    int32_t unit = lifetimes->unit_of_value[v];
    if (unit >= 0 && has_initial_value(&method->value_info[v])) {
      lifetimes->units[unit].start = 0;
      lifetimes->units[unit].end = p_end;
      lifetimes->units[unit].kind = ETR_UNIT_STATE;
    }
  }
  free(s.parent);
  free(s.first);
  free(s.last);
  return ETR_OK;
}

// ---------------------------------------------------------------------------
// Exact mode.

static etr_error_t exact_mode(flow_t *f, etr_lifetimes_t *lifetimes,
                              etr_diag_t *diag) {
  const etr_method_t *method = f->method;
  uint32_t p_end = f->num_instructions;
  uint32_t positions = p_end + 1;
  uint32_t words = f->words;
  uint32_t n = method->num_values;
  bool *written_before = (bool *)calloc((size_t)n + 1, sizeof(bool));
  uint64_t *state = (uint64_t *)calloc(words, sizeof(uint64_t));
  uint64_t *inputs = (uint64_t *)calloc(words, sizeof(uint64_t));
  lifetimes->words_per_unit = (positions + 63) / 64;
  lifetimes->occupancy = (uint64_t *)calloc(
      (size_t)lifetimes->num_units * lifetimes->words_per_unit + 1,
      sizeof(uint64_t));
  if (written_before == NULL || state == NULL || inputs == NULL ||
      lifetimes->occupancy == NULL) {
    free(written_before);
    free(state);
    free(inputs);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory in lifetime analysis");
  }
  // A delegate argument counts as possibly read when it is an input or some
  // KernelCall returns it (so it holds data the delegate may consume).
  for (uint32_t i = 0; i < method->num_inputs; ++i) {
    written_before[method->inputs[i]] = true;
  }
  for (uint32_t p = 0; p < p_end; ++p) {
    const etr_instruction_t *instruction = f->instruction[p];
    if (instruction->kind != ETR_INSTRUCTION_KERNEL_CALL ||
        instruction->num_args == 0) {
      continue;
    }
    const etr_evalue_t *slot = instruction->args[instruction->num_args - 1];
    if (slot->tag == ETR_TAG_TENSOR) {
      written_before[instruction->arg_indices[instruction->num_args - 1]] =
          true;
    } else if (slot->tag == ETR_TAG_LIST_TENSOR) {
      for (size_t j = 0; j < slot->u.as_tensor_list.length; ++j) {
        const etr_evalue_t *item = slot->u.as_tensor_list.items[j];
        if (item != NULL) {
          written_before[value_of(f, item)] = true;
        }
      }
    }
  }
  propagate_points_to(f);
  propagate_liveness(f, written_before);

  // State: live at the start but defined by no input; plus initial values.
  for (uint32_t i = 0; i < method->num_inputs; ++i) {
    add_targets(f, 0, method->inputs[i], inputs);
  }
  for (uint32_t w = 0; w < words; ++w) {
    state[w] = f->live_in[w] & ~inputs[w];
  }
  for (uint32_t v = 0; v < n; ++v) {
    int32_t unit = lifetimes->unit_of_value[v];
    if (unit >= 0 && has_initial_value(&method->value_info[v])) {
      bits_set(state, (uint32_t)unit);
    }
  }
  bool keep_inputs =
      f->options != NULL && f->options->inputs_live_whole_method;
  uint64_t *e_bits = f->scratch + (size_t)f->num_aliasing * words;
  effect_t e = {e_bits + words, e_bits + 2 * words, e_bits + 3 * words, NULL,
                written_before};
  uint32_t row = lifetimes->words_per_unit;
  for (uint32_t p = 0; p < positions; ++p) {
    effects(f, p, &e);
    const uint64_t *live = f->live_in + (size_t)p * words;
    for (uint32_t u = 0; u < lifetimes->num_units; ++u) {
      bool occupied = bits_test(live, u) || bits_test(e.writes, u) ||
                      bits_test(state, u) ||
                      (bits_test(inputs, u) && (p == 0 || keep_inputs));
      if (occupied) {
        lifetimes->occupancy[(size_t)u * row + p / 64] |= (uint64_t)1
                                                          << (p % 64);
      }
      if (p == p_end && bits_test(e.gen, u)) {
        lifetimes->units[u].kind = ETR_UNIT_OUTPUT;
      }
    }
  }
  for (uint32_t u = 0; u < lifetimes->num_units; ++u) {
    etr_alloc_unit_t *unit = &lifetimes->units[u];
    if (bits_test(inputs, u)) {
      unit->kind = ETR_UNIT_INPUT;
    }
    if (bits_test(state, u)) {
      unit->kind = ETR_UNIT_STATE;
    }
    const uint64_t *bits = lifetimes->occupancy + (size_t)u * row;
    unit->start = 0;
    unit->end = 0;
    bool any = false;
    for (uint32_t p = 0; p < positions; ++p) {
      if (bits_test(bits, p)) {
        unit->start = any ? unit->start : p;
        unit->end = p;
        any = true;
      }
    }
  }
  free(written_before);
  free(state);
  free(inputs);
  return ETR_OK;
}

// ---------------------------------------------------------------------------

uint32_t etr_lifetime_position(const etr_method_t *method, uint32_t chain,
                               uint32_t index) {
  uint32_t base = 0;
  for (uint32_t c = 0; c < chain && c < method->num_chains; ++c) {
    base += method->chains[c].num_instructions;
  }
  return base + index;
}

static void release_flow(flow_t *f) {
  free(f->instruction);
  free(f->jump_target);
  free(f->own_unit);
  free(f->alias_index);
  free(f->points_to);
  free(f->live_in);
  free(f->scratch);
}

// Sets up the flat instruction view; picks the aliasing values.
static etr_error_t prepare_flow(flow_t *f, const etr_method_t *method,
                                const etr_lifetimes_t *lifetimes,
                                etr_diag_t *diag) {
  uint32_t p_end = etr_lifetime_position(method, method->num_chains, 0);
  uint32_t n = method->num_values;
  f->method = method;
  f->num_instructions = p_end;
  f->num_units = lifetimes->num_units;
  f->words = (lifetimes->num_units + 63) / 64 + 1;
  f->instruction = (const etr_instruction_t **)calloc(
      (size_t)p_end + 1, sizeof(etr_instruction_t *));
  f->jump_target = (uint32_t *)calloc((size_t)p_end + 1, sizeof(uint32_t));
  f->own_unit = (int32_t *)calloc((size_t)n + 1, sizeof(int32_t));
  f->alias_index = (int32_t *)calloc((size_t)n + 1, sizeof(int32_t));
  ETR_CHECK(diag,
            f->instruction != NULL && f->jump_target != NULL &&
                f->own_unit != NULL && f->alias_index != NULL,
            ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory in lifetime analysis");
  for (uint32_t c = 0, base = 0; c < method->num_chains; ++c) {
    const etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *instruction = &chain->instructions[i];
      f->instruction[base + i] = instruction;
      f->jump_target[base + i] =
          instruction->kind == ETR_INSTRUCTION_JUMP_FALSE_CALL
              ? base + instruction->operands[1]
              : p_end + 1;  // none
    }
    base += chain->num_instructions;
  }
  for (uint32_t v = 0; v < n; ++v) {
    f->own_unit[v] = lifetimes->unit_of_value[v];
    f->alias_index[v] = -1;
  }
  for (uint32_t p = 0; p < p_end; ++p) {
    const etr_instruction_t *instruction = f->instruction[p];
    uint32_t target = UINT32_MAX;
    if (instruction->kind == ETR_INSTRUCTION_MOVE_CALL) {
      target = instruction->operands[1];
    } else if (is_et_view(f, instruction)) {
      target = instruction->arg_indices[2];
    }
    if (target != UINT32_MAX && is_tensor(f, target) &&
        f->alias_index[target] < 0) {
      f->alias_index[target] = (int32_t)f->num_aliasing++;
    }
  }
  return ETR_OK;
}

// Exact mode is sound unless a MoveCall source's tensor is later rebound
// (it is shared with the move's target): then use intervals.
static bool exact_mode_sound(const flow_t *f) {
  for (uint32_t p = 0; p < f->num_instructions; ++p) {
    const etr_instruction_t *move = f->instruction[p];
    if (move->kind != ETR_INSTRUCTION_MOVE_CALL) {
      continue;
    }
    uint32_t source = move->operands[0];
    for (uint32_t q = 0; q < f->num_instructions; ++q) {
      const etr_instruction_t *other = f->instruction[q];
      if ((is_et_view(f, other) && other->arg_indices[2] == source) ||
          (other->kind == ETR_INSTRUCTION_FREE_CALL &&
           other->operands[0] == source) ||
          (other->kind == ETR_INSTRUCTION_MOVE_CALL &&
           other->operands[1] == source)) {
        return false;
      }
    }
  }
  return true;
}

etr_error_t etr_lifetimes_compute(const etr_method_t *method,
                                  const etr_lifetime_options_t *options,
                                  etr_lifetimes_t *lifetimes,
                                  etr_diag_t *diag) {
  memset(lifetimes, 0, sizeof(*lifetimes));
  uint32_t n = method->num_values;
  lifetimes->num_values = n;
  lifetimes->unit_of_value = (int32_t *)malloc(((size_t)n + 1) * 4);
  ETR_CHECK(diag, lifetimes->unit_of_value != NULL,
            ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory in lifetime analysis");
  for (uint32_t v = 0; v < n; ++v) {
    lifetimes->unit_of_value[v] = -1;
  }
  bool logical =
      options != NULL && options->granularity == ETR_UNITS_LOGICAL;
  etr_error_t status = logical ? build_logical_units(method, lifetimes, diag)
                               : build_physical_units(method, lifetimes, diag);
  flow_t f;
  memset(&f, 0, sizeof(f));
  f.options = options;
  if (status == ETR_OK) {
    status = prepare_flow(&f, method, lifetimes, diag);
  }
  lifetimes->num_positions = f.num_instructions + 1;
  if (status == ETR_OK) {
    uint64_t cap = options != NULL && options->max_bitset_bytes != 0
                       ? options->max_bitset_bytes
                       : DEFAULT_MAX_BITSET_BYTES;
    uint64_t positions = (uint64_t)f.num_instructions + 1;
    uint64_t words = (uint64_t)f.words;
    uint64_t needed = 8 * (positions * (f.num_aliasing + 1) * words +
                           (uint64_t)lifetimes->num_units *
                               ((positions + 63) / 64));
    bool exact = needed <= cap && exact_mode_sound(&f);
    if (exact) {
      f.points_to = (uint64_t *)calloc(
          positions * f.num_aliasing * words + 1, sizeof(uint64_t));
      f.live_in = (uint64_t *)calloc(positions * words, sizeof(uint64_t));
      f.scratch = (uint64_t *)calloc((f.num_aliasing + 4) * words,
                                     sizeof(uint64_t));
      exact = f.points_to != NULL && f.live_in != NULL && f.scratch != NULL;
    }
    status = exact ? exact_mode(&f, lifetimes, diag)
                   : interval_mode(&f, lifetimes, diag);
  }
  release_flow(&f);
  if (status != ETR_OK) {
    etr_lifetimes_release(lifetimes);
  }
  return status;
}

void etr_lifetimes_release(etr_lifetimes_t *lifetimes) {
  if (lifetimes != NULL) {
    free(lifetimes->units);
    free(lifetimes->unit_of_value);
    free(lifetimes->occupancy);
    memset(lifetimes, 0, sizeof(*lifetimes));
  }
}

bool etr_unit_occupies(const etr_lifetimes_t *lifetimes, uint32_t u,
                       uint32_t position) {
  const etr_alloc_unit_t *unit = &lifetimes->units[u];
  if (position < unit->start || position > unit->end) {
    return false;
  }
  if (lifetimes->occupancy == NULL) {
    return true;
  }
  return bits_test(lifetimes->occupancy +
                       (size_t)u * lifetimes->words_per_unit,
                   position);
}

bool etr_units_conflict(const etr_lifetimes_t *lifetimes, uint32_t a,
                        uint32_t b) {
  const etr_alloc_unit_t *x = &lifetimes->units[a];
  const etr_alloc_unit_t *y = &lifetimes->units[b];
  if (x->end < y->start || x->start > y->end) {
    return false;
  }
  if (lifetimes->occupancy == NULL) {
    return true;
  }
  uint32_t from = (x->start > y->start ? x->start : y->start) / 64;
  uint32_t to = (x->end < y->end ? x->end : y->end) / 64;
  const uint64_t *rx =
      lifetimes->occupancy + (size_t)a * lifetimes->words_per_unit;
  const uint64_t *ry =
      lifetimes->occupancy + (size_t)b * lifetimes->words_per_unit;
  for (uint32_t w = from; w <= to; ++w) {
    if (rx[w] & ry[w]) {
      return true;
    }
  }
  return false;
}
