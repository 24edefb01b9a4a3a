// SPDX-License-Identifier: Apache-2.0
//
// Method loading, part 2: the plan's memory pools, inputs and outputs,
// operators (bound to kernels), instruction chains and delegates (see
// method.h). Values are parsed by method_values.c.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/method_internal.h"

enum { CHAIN_INPUTS = 0, CHAIN_OUTPUTS = 1, CHAIN_INSTRUCTIONS = 2 };
enum { INSTRUCTION_ARGS_TYPE = 0 };  // union: type at 0, value at 1
enum { CALL_INDEX = 0, CALL_ARGS = 1 };  // KernelCall and DelegateCall
enum { OPERATOR_NAME = 0, OPERATOR_OVERLOAD = 1 };
enum { DELEGATE_ID = 0, DELEGATE_PROCESSED = 1, DELEGATE_COMPILE_SPECS = 2 };
enum { REFERENCE_LOCATION = 0, REFERENCE_INDEX = 1 };
enum { SPEC_KEY = 0, SPEC_VALUE = 1 };

#define DEFAULT_MAX_PLANNED_BYTES ((size_t)1 << 30)
#define DEFAULT_MAX_METHOD_BYTES ((size_t)256 << 20)
// The kernels' scratch: 4 MiB holds the Winograd convolution's
// transformed weights (16 floats per channel pair) of layers up to 128 x
// 128 channels besides its transformed input (ops_optimized/conv/conv.h).
#define DEFAULT_TEMP_BYTES ((size_t)4 << 20)
#define DEFAULT_MAX_INSTRUCTIONS 10000000u

void etr_method_config_init(etr_method_config_t *config,
                            const etr_kernel_registry_t *kernels) {
  memset(config, 0, sizeof(*config));
  config->kernels = kernels;
  config->variant = ETR_KERNELS_REFERENCE;
}

const char *etr_instruction_kind_name(etr_instruction_kind_t kind) {
  switch (kind) {
    case ETR_INSTRUCTION_KERNEL_CALL:
      return "KernelCall";
    case ETR_INSTRUCTION_DELEGATE_CALL:
      return "DelegateCall";
    case ETR_INSTRUCTION_MOVE_CALL:
      return "MoveCall";
    case ETR_INSTRUCTION_JUMP_FALSE_CALL:
      return "JumpFalseCall";
    case ETR_INSTRUCTION_FREE_CALL:
      return "FreeCall";
    default:
      return "Unknown";
  }
}

void *etr_method_alloc(etr_method_t *method, size_t count, size_t size,
                       const char *what, etr_diag_t *diag) {
  void *memory = etr_arena_calloc(&method->arena, count, size, 16);
  if (memory == NULL) {
    ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
             "cannot allocate %zu x %zu bytes for %s: over the method's "
             "%zu-byte limit for load-time structures",
             count, size, what, method->config.max_method_bytes);
  }
  return memory;
}

static etr_error_t setup_planned_buffers(etr_method_t *method,
                                         const etr_fb_table_t *plan,
                                         etr_diag_t *diag) {
  etr_fb_vector_t sizes;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(plan, ETR_PLAN_NON_CONST_BUFFER_SIZES, 8,
                              &sizes, &present, diag));
  // Entry 0 is ExecuTorch's reserved placeholder for constants.
  uint32_t count = sizes.length > 0 ? sizes.length - 1 : 0;
  const etr_memory_plan_t *override = method->config.memory_plan;
  if (override != NULL) {
    ETR_CHECK(diag, override->num_pools >= count, ETR_ERR_INVALID_ARGUMENT,
              "the replacement memory plan has %u pools; the program uses %u",
              override->num_pools, count);
    count = override->num_pools;
  }
  method->num_planned_buffers = count;
  method->planned_buffers = (uint8_t **)etr_method_alloc(
      method, count, sizeof(uint8_t *), "planned buffers", diag);
  method->planned_sizes = (size_t *)etr_method_alloc(
      method, count, sizeof(size_t), "planned buffer sizes", diag);
  if (count > 0 &&
      (method->planned_buffers == NULL || method->planned_sizes == NULL)) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  size_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    int64_t size = override != NULL ? (int64_t)override->pool_sizes[i]
                                    : etr_fb_vector_i64(&sizes, i + 1);
    ETR_CHECK(diag, size >= 0 && (uint64_t)size <= SIZE_MAX,
              ETR_ERR_INVALID_PROGRAM,
              "planned buffer %u has invalid size %lld", i + 1,
              (long long)size);
    method->planned_sizes[i] = (size_t)size;
    ETR_CHECK(diag, etr_size_add(total, (size_t)size, &total),
              ETR_ERR_INVALID_PROGRAM, "planned buffer sizes overflow");
  }
  const etr_method_config_t *config = &method->config;
  if (config->planned_buffers != NULL) {
    ETR_CHECK(diag, config->num_planned_buffers >= count,
              ETR_ERR_INVALID_ARGUMENT,
              "the plan needs %u planned buffers but %zu were provided",
              count, config->num_planned_buffers);
    for (uint32_t i = 0; i < count; ++i) {
      ETR_CHECK(diag,
                config->planned_buffer_sizes[i] >= method->planned_sizes[i] &&
                    (method->planned_sizes[i] == 0 ||
                     config->planned_buffers[i] != NULL),
                ETR_ERR_INVALID_ARGUMENT,
                "planned buffer %u needs %zu bytes but %zu were provided",
                i + 1, method->planned_sizes[i],
                config->planned_buffer_sizes[i]);
      method->planned_buffers[i] = config->planned_buffers[i];
    }
    return ETR_OK;
  }
  ETR_CHECK(diag, total <= config->max_planned_bytes,
            ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "the plan needs %zu bytes of planned memory, over the %zu-byte "
            "limit",
            total, config->max_planned_bytes);
  method->planned_allocations = (etr_pages_t *)etr_method_alloc(
      method, count, sizeof(etr_pages_t), "planned buffers", diag);
  if (count > 0 && method->planned_allocations == NULL) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  method->owns_planned_buffers = true;
  for (uint32_t i = 0; i < count; ++i) {
    // Zeroed so that runs are deterministic even where a program reads a
    // planned buffer before writing it (uninitialized mutable state); an
    // unused pool's pages are never touched, so it costs nothing. Pools
    // start on a cache line (the planner's offsets are multiples of 16 or
    // more, and a tensor at a 64-byte offset then never splits a vector
    // store across two lines), large ones on transparent huge pages
    // (core/platform.h).
    ETR_CHECK(diag,
              etr_pages_alloc(method->planned_sizes[i],
                              &method->planned_allocations[i]),
              ETR_ERR_MEMORY_ALLOCATION_FAILED,
              "out of memory for planned buffer %u (%zu bytes)", i + 1,
              method->planned_sizes[i]);
    method->planned_buffers[i] = method->planned_allocations[i].data;
  }
  return ETR_OK;
}

// Reads a plan's [int] vector of value indices.
static etr_error_t parse_index_list(etr_method_t *method,
                                    const etr_fb_table_t *table,
                                    unsigned field, const char *what,
                                    uint32_t **out, uint32_t *count_out,
                                    etr_diag_t *diag) {
  etr_fb_vector_t list;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(table, field, 4, &list, &present, diag));
  uint32_t *indices = (uint32_t *)etr_method_alloc(method, list.length,
                                                   sizeof(uint32_t), what,
                                                   diag);
  if (indices == NULL) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  for (uint32_t i = 0; i < list.length; ++i) {
    int32_t index = etr_fb_vector_i32(&list, i);
    ETR_CHECK(diag, index >= 0 && (uint32_t)index < method->num_values,
              ETR_ERR_INVALID_PROGRAM, "%s %u refers to value %d of %u", what,
              i, (int)index, method->num_values);
    indices[i] = (uint32_t)index;
  }
  *out = indices;
  *count_out = list.length;
  return ETR_OK;
}

static etr_error_t parse_operators(etr_method_t *method,
                                   const etr_fb_table_t *plan,
                                   etr_diag_t *diag) {
  etr_fb_vector_t operators;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(plan, ETR_PLAN_OPERATORS, 4, &operators,
                              &present, diag));
  method->num_operators = operators.length;
  method->operators = (etr_operator_t *)etr_method_alloc(
      method, operators.length, sizeof(etr_operator_t), "operators", diag);
  if (method->operators == NULL) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  for (uint32_t i = 0; i < operators.length; ++i) {
    etr_fb_table_t op;
    etr_fb_string_t name;
    etr_fb_string_t overload;
    ETR_TRY(etr_fb_vector_table(&operators, i, &op, diag));
    ETR_TRY(etr_fb_string_field(&op, OPERATOR_NAME, &name, &present, diag));
    ETR_CHECK(diag, present && name.length > 0, ETR_ERR_INVALID_PROGRAM,
              "operator %u has no name", i);
    ETR_TRY(etr_fb_string_field(&op, OPERATOR_OVERLOAD, &overload, &present,
                                diag));
    size_t length = (size_t)name.length + 1 + overload.length + 1;
    char *full = (char *)etr_method_alloc(method, length, 1, "operator name",
                                          diag);
    if (full == NULL) {
      return ETR_ERR_MEMORY_ALLOCATION_FAILED;
    }
    snprintf(full, length, "%s%s%s", name.chars,
             overload.length > 0 ? "." : "", overload.chars);
    method->operators[i].name = full;
    method->operators[i].entry =
        etr_registry_find(method->config.kernels, full);
  }
  return ETR_OK;
}

// Reads a KernelCall/DelegateCall argument list.
static etr_error_t parse_call_args(etr_method_t *method,
                                   const etr_fb_table_t *call,
                                   etr_instruction_t *instruction,
                                   etr_diag_t *diag) {
  etr_fb_vector_t args;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(call, CALL_ARGS, 4, &args, &present, diag));
  uint32_t *indices = (uint32_t *)etr_method_alloc(
      method, args.length, sizeof(uint32_t), "arguments", diag);
  etr_evalue_t **values = (etr_evalue_t **)etr_method_alloc(
      method, args.length, sizeof(etr_evalue_t *), "arguments", diag);
  if (args.length > 0 && (indices == NULL || values == NULL)) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  for (uint32_t j = 0; j < args.length; ++j) {
    int32_t index = etr_fb_vector_i32(&args, j);
    ETR_CHECK(diag, index >= 0 && (uint32_t)index < method->num_values,
              ETR_ERR_INVALID_PROGRAM, "argument %u refers to value %d of %u",
              j, (int)index, method->num_values);
    indices[j] = (uint32_t)index;
    values[j] = &method->values[index];
  }
  instruction->arg_indices = indices;
  instruction->args = values;
  instruction->num_args = args.length;
  return ETR_OK;
}

static etr_error_t check_value_index(const etr_method_t *method, int32_t index,
                                     const char *what, etr_diag_t *diag) {
  ETR_CHECK(diag, index >= 0 && (uint32_t)index < method->num_values,
            ETR_ERR_INVALID_PROGRAM, "%s refers to value %d of %u", what,
            (int)index, method->num_values);
  return ETR_OK;
}

static etr_error_t parse_instruction(etr_method_t *method,
                                     const etr_fb_table_t *serialized,
                                     uint32_t num_instructions,
                                     etr_instruction_t *instruction,
                                     etr_diag_t *diag) {
  uint8_t type = 0;
  etr_fb_table_t call;
  ETR_TRY(etr_fb_union_field(serialized, INSTRUCTION_ARGS_TYPE, &type, &call,
                             diag));
  int32_t first = 0;
  int32_t second = 0;
  switch (type) {
    case ETR_INSTRUCTION_KERNEL_CALL:
    case ETR_INSTRUCTION_DELEGATE_CALL: {
      instruction->kind = (etr_instruction_kind_t)type;
      ETR_TRY(etr_fb_i32(&call, CALL_INDEX, 0, &first, diag));
      uint32_t limit = type == ETR_INSTRUCTION_KERNEL_CALL
                           ? method->num_operators
                           : method->num_delegates;
      ETR_CHECK(diag, first >= 0 && (uint32_t)first < limit,
                ETR_ERR_INVALID_PROGRAM, "%s index %d is out of range (%u)",
                type == ETR_INSTRUCTION_KERNEL_CALL ? "operator" : "delegate",
                (int)first, limit);
      instruction->callee = (uint32_t)first;
      ETR_TRY(parse_call_args(method, &call, instruction, diag));
      if (type == ETR_INSTRUCTION_KERNEL_CALL) {
        instruction->kernel = etr_registry_select(
            method->operators[first].entry, method->config.variant);
      }
      return ETR_OK;
    }
    case ETR_INSTRUCTION_MOVE_CALL:
      instruction->kind = ETR_INSTRUCTION_MOVE_CALL;
      ETR_TRY(etr_fb_i32(&call, 0, 0, &first, diag));
      ETR_TRY(etr_fb_i32(&call, 1, 0, &second, diag));
      ETR_TRY(check_value_index(method, first, "MoveCall source", diag));
      ETR_TRY(check_value_index(method, second, "MoveCall target", diag));
      break;
    case ETR_INSTRUCTION_JUMP_FALSE_CALL:
      instruction->kind = ETR_INSTRUCTION_JUMP_FALSE_CALL;
      ETR_TRY(etr_fb_i32(&call, 0, 0, &first, diag));
      ETR_TRY(etr_fb_i32(&call, 1, 0, &second, diag));
      ETR_TRY(check_value_index(method, first, "JumpFalseCall condition",
                                diag));
      ETR_CHECK(diag, second >= 0 && (uint32_t)second <= num_instructions,
                ETR_ERR_INVALID_PROGRAM,
                "JumpFalseCall destination %d is outside the chain's %u "
                "instructions",
                (int)second, num_instructions);
      break;
    case ETR_INSTRUCTION_FREE_CALL:
      instruction->kind = ETR_INSTRUCTION_FREE_CALL;
      ETR_TRY(etr_fb_i32(&call, 0, 0, &first, diag));
      ETR_TRY(check_value_index(method, first, "FreeCall", diag));
      break;
    default:
      return ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                      "unknown instruction type %u", (unsigned)type);
  }
  instruction->operands[0] = (uint32_t)first;
  instruction->operands[1] = (uint32_t)second;
  return ETR_OK;
}

static etr_error_t parse_chains(etr_method_t *method,
                                const etr_fb_table_t *plan, etr_diag_t *diag) {
  etr_fb_vector_t chains;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(plan, ETR_PLAN_CHAINS, 4, &chains, &present,
                              diag));
  method->num_chains = chains.length;
  method->chains = (etr_chain_t *)etr_method_alloc(
      method, chains.length, sizeof(etr_chain_t), "chains", diag);
  if (method->chains == NULL) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  for (uint32_t c = 0; c < chains.length; ++c) {
    etr_fb_table_t chain;
    etr_fb_vector_t instructions;
    ETR_TRY(etr_fb_vector_table(&chains, c, &chain, diag));
    ETR_TRY(etr_fb_vector_field(&chain, CHAIN_INSTRUCTIONS, 4, &instructions,
                                &present, diag));
    etr_chain_t *out = &method->chains[c];
    out->num_instructions = instructions.length;
    out->instructions = (etr_instruction_t *)etr_method_alloc(
        method, instructions.length, sizeof(etr_instruction_t),
        "instructions", diag);
    if (out->instructions == NULL) {
      return ETR_ERR_MEMORY_ALLOCATION_FAILED;
    }
    for (uint32_t i = 0; i < instructions.length; ++i) {
      etr_fb_table_t serialized;
      etr_error_t status =
          etr_fb_vector_table(&instructions, i, &serialized, diag);
      if (status == ETR_OK) {
        status = parse_instruction(method, &serialized, instructions.length,
                                   &out->instructions[i], diag);
      }
      if (status != ETR_OK) {
        etr_diag_prefix(diag, "chain %u instruction %u", c, i);
        return status;
      }
    }
  }
  return ETR_OK;
}

// Lists every operator a KernelCall uses that has no kernel, in one error.
static etr_error_t check_kernels_bound(const etr_method_t *method,
                                       etr_diag_t *diag) {
  char missing[ETR_DIAG_MESSAGE_CAPACITY];
  size_t used = 0;
  size_t count = 0;
  missing[0] = '\0';
  for (uint32_t op = 0; op < method->num_operators; ++op) {
    bool used_by_call = false;
    for (uint32_t c = 0; c < method->num_chains && !used_by_call; ++c) {
      const etr_chain_t *chain = &method->chains[c];
      for (uint32_t i = 0; i < chain->num_instructions; ++i) {
        const etr_instruction_t *instruction = &chain->instructions[i];
        if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL &&
            instruction->callee == op) {
          used_by_call = true;
          break;
        }
      }
    }
    if (!used_by_call || method->operators[op].entry != NULL) {
      continue;
    }
    ++count;
    if (used < sizeof(missing)) {
      int written = snprintf(missing + used, sizeof(missing) - used, "%s%s",
                             count > 1 ? ", " : "",
                             method->operators[op].name);
      used += written > 0 ? (size_t)written : 0;
    }
  }
  ETR_CHECK(diag, count == 0, ETR_ERR_OPERATOR_MISSING,
            "%zu operator%s without a registered kernel: %s", count,
            count == 1 ? "" : "s", missing);
  return ETR_OK;
}

// etr_backend_init_context_t.named_data: the program's named data. A
// missing key is the backend's to report (it may probe), so nothing is
// recorded in the load's diagnostics.
static etr_error_t backend_named_data(const etr_backend_init_context_t *context,
                                      const char *key, const uint8_t **data,
                                      size_t *size) {
  return etr_program_named_data(context->program, key, data, size, NULL);
}

static etr_error_t init_delegate(etr_method_t *method,
                                 const etr_fb_table_t *serialized,
                                 etr_delegate_instance_t *instance,
                                 etr_diag_t *diag) {
  etr_fb_string_t id;
  bool present = false;
  ETR_TRY(etr_fb_string_field(serialized, DELEGATE_ID, &id, &present, diag));
  ETR_CHECK(diag, present && id.length > 0, ETR_ERR_INVALID_PROGRAM,
            "delegate has no backend id");
  instance->backend_id = id.chars;
  // The blob and compile specs are checked whether or not the backend is
  // linked in, so a verifier sees bad references in any program.
  etr_fb_table_t reference;
  ETR_TRY(etr_fb_table_field(serialized, DELEGATE_PROCESSED, &reference,
                             &present, diag));
  ETR_CHECK(diag, present, ETR_ERR_INVALID_PROGRAM,
            "delegate '%s' has no processed data reference", id.chars);
  uint8_t location = 0;
  uint32_t index = 0;
  ETR_TRY(etr_fb_u8(&reference, REFERENCE_LOCATION, 0, &location, diag));
  ETR_TRY(etr_fb_u32(&reference, REFERENCE_INDEX, 0, &index, diag));
  const uint8_t *processed = NULL;
  size_t processed_size = 0;
  ETR_TRY(etr_program_delegate_data(method->program, location, index,
                                    &processed, &processed_size, diag));
  etr_fb_vector_t specs;
  ETR_TRY(etr_fb_vector_field(serialized, DELEGATE_COMPILE_SPECS, 4, &specs,
                              &present, diag));
  etr_compile_spec_t *compile_specs = (etr_compile_spec_t *)etr_method_alloc(
      method, specs.length, sizeof(etr_compile_spec_t), "compile specs", diag);
  if (specs.length > 0 && compile_specs == NULL) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  for (uint32_t i = 0; i < specs.length; ++i) {
    etr_fb_table_t spec;
    etr_fb_string_t key;
    etr_fb_vector_t value;
    ETR_TRY(etr_fb_vector_table(&specs, i, &spec, diag));
    ETR_TRY(etr_fb_string_field(&spec, SPEC_KEY, &key, &present, diag));
    ETR_TRY(etr_fb_vector_field(&spec, SPEC_VALUE, 1, &value, &present, diag));
    compile_specs[i].key = key.chars;
    compile_specs[i].value = etr_fb_vector_bytes(&value);
    compile_specs[i].value_size = value.length;
  }

  const etr_backend_t *backend =
      etr_backend_registry_find(method->config.backends, id.chars);
  if (backend == NULL && method->config.allow_missing) {
    return ETR_OK;  // left uninitialized; DelegateCall fails with NotFound
  }
  ETR_CHECK(diag, backend != NULL, ETR_ERR_NOT_FOUND,
            "backend '%s' is not registered in etref (the program delegates "
            "part of its graph to it; re-export without that partitioner or "
            "link a backend with this id)",
            id.chars);
  ETR_CHECK(diag,
            backend->is_available == NULL || backend->is_available(backend),
            ETR_ERR_NOT_FOUND, "backend '%s' is not available on this machine",
            id.chars);
  etr_backend_init_context_t context = {
      .method_name = method->name,
      .program = method->program,
      .method_arena = &method->arena,
      .diag = diag,
      .named_data = backend_named_data,
  };
  etr_error_t status =
      backend->init(backend, &context, processed, processed_size,
                    compile_specs, specs.length, &instance->handle);
  if (status != ETR_OK) {
    ETR_FAIL(diag, status, "backend '%s' failed to initialize", id.chars);
    return status;
  }
  instance->backend = backend;
  instance->initialized = true;
  return ETR_OK;
}

static etr_error_t parse_delegates(etr_method_t *method,
                                   const etr_fb_table_t *plan,
                                   etr_diag_t *diag) {
  etr_fb_vector_t delegates;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(plan, ETR_PLAN_DELEGATES, 4, &delegates,
                              &present, diag));
  method->num_delegates = delegates.length;
  method->delegates = (etr_delegate_instance_t *)etr_method_alloc(
      method, delegates.length, sizeof(etr_delegate_instance_t), "delegates",
      diag);
  if (method->delegates == NULL) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  return ETR_OK;
}

static etr_error_t init_delegates(etr_method_t *method,
                                  const etr_fb_table_t *plan,
                                  etr_diag_t *diag) {
  etr_fb_vector_t delegates;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(plan, ETR_PLAN_DELEGATES, 4, &delegates,
                              &present, diag));
  for (uint32_t i = 0; i < delegates.length; ++i) {
    etr_fb_table_t serialized;
    etr_error_t status = etr_fb_vector_table(&delegates, i, &serialized, diag);
    if (status == ETR_OK) {
      status = init_delegate(method, &serialized, &method->delegates[i], diag);
    }
    if (status != ETR_OK) {
      etr_diag_prefix(diag, "delegate %u", i);
      return status;
    }
  }
  return ETR_OK;
}

static void apply_config_defaults(etr_method_config_t *config) {
  if (config->max_planned_bytes == 0) {
    config->max_planned_bytes = DEFAULT_MAX_PLANNED_BYTES;
  }
  if (config->max_method_bytes == 0) {
    config->max_method_bytes = DEFAULT_MAX_METHOD_BYTES;
  }
  if (config->temp_bytes == 0) {
    config->temp_bytes = DEFAULT_TEMP_BYTES;
  }
  if (config->max_instructions == 0) {
    config->max_instructions = DEFAULT_MAX_INSTRUCTIONS;
  }
}

static etr_error_t load_plan(etr_method_t *method, const etr_fb_table_t *plan,
                             etr_diag_t *diag) {
  etr_fb_string_t name;
  etr_fb_vector_t values;
  bool present = false;
  ETR_TRY(etr_fb_string_field(plan, ETR_PLAN_NAME, &name, &present, diag));
  method->name = name.chars;
  ETR_TRY(setup_planned_buffers(method, plan, diag));
  ETR_TRY(etr_fb_vector_field(plan, ETR_PLAN_VALUES, 4, &values, &present,
                              diag));
  ETR_TRY(etr_method_parse_values(method, &values, diag));
  ETR_TRY(parse_index_list(method, plan, ETR_PLAN_INPUTS, "input",
                           &method->inputs, &method->num_inputs, diag));
  ETR_TRY(parse_index_list(method, plan, ETR_PLAN_OUTPUTS, "output",
                           &method->outputs, &method->num_outputs, diag));
  ETR_TRY(parse_operators(method, plan, diag));
  ETR_TRY(parse_delegates(method, plan, diag));
  ETR_TRY(parse_chains(method, plan, diag));
  ETR_TRY(etr_method_mark_fixed_args(method, diag));
  // Backends first: a program that delegates to a backend etref lacks is
  // best explained by naming the backend, not the kernels it may also miss.
  ETR_TRY(init_delegates(method, plan, diag));
  if (!method->config.allow_missing) {
    ETR_TRY(check_kernels_bound(method, diag));
  }
  method->temp_buffer = aligned_alloc(64, method->config.temp_bytes);
  ETR_CHECK(diag, method->temp_buffer != NULL,
            ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory for the %zu-byte scratch arena",
            method->config.temp_bytes);
  etr_arena_init(&method->temp, method->temp_buffer,
                 method->config.temp_bytes);
  return ETR_OK;
}

etr_error_t etr_method_load(const etr_program_t *program, const char *name,
                            const etr_method_config_t *config,
                            etr_method_t *method, etr_diag_t *diag) {
  memset(method, 0, sizeof(*method));
  ETR_CHECK(diag, program != NULL && name != NULL && config != NULL &&
                      config->kernels != NULL,
            ETR_ERR_INVALID_ARGUMENT,
            "etr_method_load needs a program, a method name and a config "
            "with a kernel registry");
  ETR_CHECK(diag, (unsigned)config->variant < ETR_NUM_KERNEL_VARIANTS,
            ETR_ERR_INVALID_ARGUMENT, "invalid kernel variant %d",
            (int)config->variant);
  etr_fb_table_t plan;
  ETR_TRY(etr_program_find_method(program, name, &plan, diag));
  method->program = program;
  method->config = *config;
  apply_config_defaults(&method->config);
  method->rng_state = config->seed;
  etr_arena_init_growable(&method->arena, 64 * 1024,
                          method->config.max_method_bytes);
  etr_error_t status = load_plan(method, &plan, diag);
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "method '%s'", name);
    etr_method_release(method);
  }
  return status;
}

void etr_method_release(etr_method_t *method) {
  if (method == NULL) {
    return;
  }
  for (uint32_t i = 0; i < method->num_delegates && method->delegates; ++i) {
    etr_delegate_instance_t *instance = &method->delegates[i];
    if (instance->initialized && instance->backend->destroy != NULL) {
      instance->backend->destroy(instance->backend, instance->handle);
    }
  }
  if (method->owns_planned_buffers) {
    for (uint32_t i = 0; i < method->num_planned_buffers; ++i) {
      etr_pages_free(&method->planned_allocations[i]);
    }
  }
  free(method->temp_buffer);
  etr_arena_destroy(&method->arena);
  memset(method, 0, sizeof(*method));
}

size_t etr_method_planned_bytes(const etr_method_t *method) {
  size_t total = 0;
  for (uint32_t i = 0; i < method->num_planned_buffers; ++i) {
    total += method->planned_sizes[i];
  }
  return total;
}
