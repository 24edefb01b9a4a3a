// SPDX-License-Identifier: Apache-2.0
//
// The per-operator cost model (see cost_model.h). Operators are classified
// by their base name (namespace and overload stripped); argument positions
// are those of the ATen `.out` schemas the exporter emits (the return slot
// is the last argument).
#include "prof/cost_model.h"

#include <stdio.h>
#include <string.h>

#include "prof/tracer.h"

const char *etr_cost_class_name(etr_cost_class_t cost_class) {
  switch (cost_class) {
    case ETR_COST_CONVOLUTION: return "convolution";
    case ETR_COST_MATMUL: return "matmul";
    case ETR_COST_ELEMENTWISE: return "elementwise";
    case ETR_COST_REDUCTION: return "reduction";
    case ETR_COST_NORMALIZATION: return "normalization";
    case ETR_COST_SOFTMAX: return "softmax";
    case ETR_COST_POOLING: return "pooling";
    case ETR_COST_DATA_MOVEMENT: return "data movement";
    case ETR_COST_VIEW: return "view";
    case ETR_COST_CONTROL: return "control";
    case ETR_COST_DELEGATE: return "delegate";
    default: return "unknown";
  }
}

static const char *const kElementwise[] = {
    "abs", "acos", "acosh", "add", "addcdiv", "addcmul", "asin", "asinh",
    "atan", "atan2", "atanh", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "ceil", "clamp", "cos", "cosh", "div", "elu", "eq", "erf",
    "exp", "expm1", "floor", "floor_divide", "fmod", "ge", "gelu", "glu",
    "gt", "hardsigmoid", "hardswish", "hardtanh", "isinf", "isnan", "le",
    "leaky_relu", "lerp", "log", "log10", "log1p", "log2", "logical_and",
    "logical_not", "logical_or", "logical_xor", "logit", "lt", "masked_fill",
    "maximum", "minimum", "mul", "ne", "neg", "pow", "prelu", "reciprocal",
    "relu", "remainder", "round", "rsqrt", "rsub", "sigmoid", "sign", "silu",
    "sin", "sinh", "softplus", "sqrt", "sub", "tan", "tanh", "trunc",
    "where", "bitwise_left_shift", "bitwise_right_shift", "hypot", "mish",
    "native_dropout", "scalar_tensor", "copysign", "nan_to_num", "erfinv"};

static const char *const kReductions[] = {
    "sum", "mean", "amax", "amin", "argmax", "argmin", "any", "all", "prod",
    "logsumexp", "cumsum", "cumprod", "max", "min", "norm",
    "linalg_vector_norm", "_linalg_vector_norm", "sort", "topk", "median",
    "mode", "nansum"};

static const char *const kDataMovement[] = {
    "permute_copy", "view_copy", "clone", "_clone_dim_order",
    "_to_dim_order_copy", "_to_copy", "expand_copy", "cat", "slice_copy",
    "split_with_sizes_copy", "split_copy", "squeeze_copy", "unsqueeze_copy",
    "copy", "copy_", "select_copy", "constant_pad_nd", "full", "full_like",
    "fill", "zeros", "zeros_like", "ones", "ones_like", "arange", "repeat",
    "unbind_copy", "stack", "transpose_copy", "t_copy", "alias_copy",
    "as_strided_copy", "unfold_copy", "flip", "roll", "pixel_shuffle",
    "pixel_unshuffle", "index_put", "scatter", "scatter_add", "select_scatter",
    "slice_scatter", "diagonal_copy", "empty", "_empty_dim_order",
    "reflection_pad1d", "reflection_pad2d", "reflection_pad3d",
    "replication_pad1d", "replication_pad2d", "replication_pad3d",
    "upsample_nearest2d", "upsample_bilinear2d", "tril", "triu",
    "narrow_copy", "detach_copy", "lift_fresh_copy"};

static const char *const kGathers[] = {"embedding", "index_select", "gather",
                                       "index"};

static bool in_list(const char *name, const char *const *list, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(name, list[i]) == 0) {
      return true;
    }
  }
  return false;
}

#define IN(name, list) in_list((name), (list), sizeof(list) / sizeof(list[0]))

// "aten::convolution.out" -> "convolution".
static void base_name(const char *operator_name, char *base, size_t capacity) {
  const char *separator = strstr(operator_name, "::");
  const char *start = separator != NULL ? separator + 2 : operator_name;
  size_t length = strcspn(start, ".");
  if (length >= capacity) {
    length = capacity - 1;
  }
  memcpy(base, start, length);
  base[length] = '\0';
}

typedef struct {
  const etr_tensor_t *outputs[32];
  size_t num_outputs;
  const etr_tensor_t *inputs[32];
  size_t num_inputs;
} tensor_args_t;

static bool contains(const etr_tensor_t *const *list, size_t count,
                     const etr_tensor_t *tensor) {
  for (size_t i = 0; i < count; ++i) {
    if (list[i] == tensor) {
      return true;
    }
  }
  return false;
}

static void add_tensor(const etr_tensor_t **list, size_t *count,
                       const etr_tensor_t *tensor) {
  if (tensor != NULL && *count < 32 && !contains(list, *count, tensor)) {
    list[(*count)++] = tensor;
  }
}

// Outputs: the return slot (a tensor or a list); inputs: every other
// tensor argument. A delegate's arguments are all counted as inputs.
static void collect(const etr_instruction_t *instruction,
                    tensor_args_t *args) {
  memset(args, 0, sizeof(*args));
  size_t count = instruction->num_args;
  if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL && count > 0) {
    const etr_evalue_t *ret = instruction->args[count - 1];
    if (ret->tag == ETR_TAG_TENSOR) {
      add_tensor(args->outputs, &args->num_outputs, ret->u.as_tensor);
    } else if (ret->tag == ETR_TAG_LIST_TENSOR) {
      for (size_t k = 0; k < ret->u.as_tensor_list.length; ++k) {
        add_tensor(args->outputs, &args->num_outputs,
                   etr_tensor_list_get(ret, k));
      }
    }
    --count;
  }
  for (size_t a = 0; a < count; ++a) {
    const etr_evalue_t *value = instruction->args[a];
    if (value->tag == ETR_TAG_TENSOR &&
        !contains(args->outputs, args->num_outputs, value->u.as_tensor)) {
      add_tensor(args->inputs, &args->num_inputs, value->u.as_tensor);
    } else if (value->tag == ETR_TAG_LIST_TENSOR ||
               value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
      for (size_t k = 0; k < value->u.as_tensor_list.length; ++k) {
        const etr_tensor_t *tensor = etr_tensor_list_get(value, k);
        if (!contains(args->outputs, args->num_outputs, tensor)) {
          add_tensor(args->inputs, &args->num_inputs, tensor);
        }
      }
    }
  }
}

static double numel(const etr_tensor_t *tensor) {
  return tensor != NULL ? (double)etr_tensor_numel(tensor) : 0.0;
}

static double bytes_of(const etr_tensor_t *const *list, size_t count) {
  double total = 0;
  for (size_t i = 0; i < count; ++i) {
    total += (double)etr_tensor_numel(list[i]) *
             (double)etr_scalar_type_size(list[i]->dtype);
  }
  return total;
}

static const etr_tensor_t *tensor_arg(const etr_instruction_t *instruction,
                                      size_t index) {
  if (index >= instruction->num_args ||
      instruction->args[index]->tag != ETR_TAG_TENSOR) {
    return NULL;
  }
  return instruction->args[index]->u.as_tensor;
}

// Product of an int-list argument (a pooling window); a single value is
// repeated over `spatial` dims, as PyTorch does.
static double window(const etr_instruction_t *instruction, size_t index,
                     int spatial) {
  if (index >= instruction->num_args ||
      instruction->args[index]->tag != ETR_TAG_LIST_INT) {
    return 1.0;
  }
  size_t length = 0;
  const int64_t *values =
      etr_int_list_values(instruction->args[index], &length);
  if (values == NULL || length == 0) {
    return 1.0;
  }
  double product = 1.0;
  for (int d = 0; d < spatial; ++d) {
    product *= (double)values[length == 1 ? 0 : ((size_t)d < length ? d : 0)];
  }
  return product;
}

static double inner_size(const etr_tensor_t *tensor, int32_t dim) {
  if (tensor == NULL || dim < 0 || dim >= tensor->dim) {
    return 0.0;
  }
  return (double)tensor->sizes[dim];
}

static void kernel_cost(const char *base, const etr_instruction_t *instruction,
                        const tensor_args_t *args, etr_prof_cost_t *cost) {
  double out = 0;
  for (size_t i = 0; i < args->num_outputs; ++i) {
    out += numel(args->outputs[i]);
  }
  const etr_tensor_t *first_output =
      args->num_outputs > 0 ? args->outputs[0] : NULL;
  double in = args->num_inputs > 0 ? numel(args->inputs[0]) : 0;
  cost->flops_known = true;
  if (strcmp(base, "convolution") == 0) {
    const etr_tensor_t *weight = tensor_arg(instruction, 1);
    bool transposed = instruction->num_args > 6 &&
                      instruction->args[6]->tag == ETR_TAG_BOOL &&
                      instruction->args[6]->u.as_bool;
    double channels = inner_size(weight, 0);
    double per = channels > 0 ? numel(weight) / channels : 0;
    cost->cost_class = ETR_COST_CONVOLUTION;
    cost->flops = 2.0 * (transposed ? in : numel(first_output)) * per;
    if (tensor_arg(instruction, 2) != NULL) {
      cost->flops += numel(first_output);
    }
  } else if (strcmp(base, "mm") == 0 || strcmp(base, "bmm") == 0) {
    const etr_tensor_t *self = tensor_arg(instruction, 0);
    cost->cost_class = ETR_COST_MATMUL;
    cost->flops = 2.0 * numel(first_output) *
                  inner_size(self, self != NULL ? self->dim - 1 : 0);
  } else if (strcmp(base, "addmm") == 0 || strcmp(base, "baddbmm") == 0) {
    const etr_tensor_t *left = tensor_arg(instruction, 1);
    cost->cost_class = ETR_COST_MATMUL;
    cost->flops = 2.0 * numel(first_output) *
                      inner_size(left, left != NULL ? left->dim - 1 : 0) +
                  numel(first_output);
  } else if (strcmp(base, "linear") == 0) {
    const etr_tensor_t *input = tensor_arg(instruction, 0);
    cost->cost_class = ETR_COST_MATMUL;
    cost->flops = 2.0 * numel(first_output) *
                  inner_size(input, input != NULL ? input->dim - 1 : 0);
    if (tensor_arg(instruction, 2) != NULL) {
      cost->flops += numel(first_output);
    }
  } else if (strstr(base, "batch_norm") != NULL) {
    cost->cost_class = ETR_COST_NORMALIZATION;
    cost->flops = 4.0 * in;
  } else if (strcmp(base, "native_layer_norm") == 0 ||
             strcmp(base, "native_group_norm") == 0) {
    cost->cost_class = ETR_COST_NORMALIZATION;
    cost->flops = 8.0 * in;
  } else if (strcmp(base, "_softmax") == 0 ||
             strcmp(base, "_log_softmax") == 0 ||
             strcmp(base, "softmax") == 0) {
    cost->cost_class = ETR_COST_SOFTMAX;
    cost->flops = 5.0 * in;
  } else if (strstr(base, "pool") != NULL) {
    int spatial = strstr(base, "1d") ? 1 : strstr(base, "3d") ? 3 : 2;
    cost->cost_class = ETR_COST_POOLING;
    if (strstr(base, "adaptive") != NULL) {
      cost->flops = in;
    } else {
      double per = window(instruction, 1, spatial);
      cost->flops = numel(first_output) *
                    (per + (strstr(base, "avg") != NULL ? 1.0 : 0.0));
    }
  } else if (strcmp(base, "var") == 0 || strcmp(base, "std") == 0 ||
             strcmp(base, "var_mean") == 0) {
    cost->cost_class = ETR_COST_REDUCTION;
    cost->flops = 3.0 * in;
  } else if (IN(base, kReductions)) {
    cost->cost_class = ETR_COST_REDUCTION;
    cost->flops = in;
  } else if (IN(base, kElementwise)) {
    size_t operands = args->num_inputs > 1 ? args->num_inputs - 1 : 1;
    cost->cost_class = ETR_COST_ELEMENTWISE;
    cost->flops = numel(first_output) * (double)operands;
  } else if (IN(base, kGathers)) {
    cost->cost_class = ETR_COST_DATA_MOVEMENT;
    cost->flops = 0;
  } else if (IN(base, kDataMovement)) {
    cost->cost_class = ETR_COST_DATA_MOVEMENT;
    cost->flops = 0;
  } else {
    cost->cost_class = ETR_COST_UNKNOWN;
    cost->flops_known = false;
    cost->flops = 0;
  }
}

void etr_prof_cost(const etr_method_t *method, uint32_t chain,
                   uint32_t index, etr_prof_cost_t *cost) {
  memset(cost, 0, sizeof(*cost));
  const etr_instruction_t *instruction =
      etr_prof_instruction(method, chain, index);
  if (instruction == NULL) {
    return;
  }
  if (instruction->kind != ETR_INSTRUCTION_KERNEL_CALL &&
      instruction->kind != ETR_INSTRUCTION_DELEGATE_CALL) {
    cost->cost_class = ETR_COST_CONTROL;
    cost->flops_known = true;
    return;
  }
  // Fused away or folded at load (ops_optimized/fuse/fuse.h): no work at
  // run time (the head of a fused block is costed as its convolution).
  if (instruction->fusion == ETR_FUSION_ABSORBED ||
      instruction->fusion == ETR_FUSION_FOLDED) {
    cost->cost_class = ETR_COST_CONTROL;
    cost->flops_known = true;
    return;
  }
  tensor_args_t args;
  collect(instruction, &args);
  if (instruction->kind == ETR_INSTRUCTION_DELEGATE_CALL) {
    cost->cost_class = ETR_COST_DELEGATE;
    cost->bytes = bytes_of(args.inputs, args.num_inputs);
    return;
  }
  const char *name = etr_prof_instruction_name(method, chain, index);
  if (strncmp(name, "executorch_prim::et_view", 24) == 0) {
    cost->cost_class = ETR_COST_VIEW;
    cost->flops_known = true;
    return;
  }
  if (strncmp(name, "executorch_prim::", 17) == 0 ||
      strncmp(name, "aten::sym_", 10) == 0 ||
      strncmp(name, "aten::_local_scalar_dense", 25) == 0) {
    cost->cost_class = ETR_COST_CONTROL;
    cost->flops_known = true;
    return;
  }
  char base[96];
  base_name(name, base, sizeof(base));
  kernel_cost(base, instruction, &args, cost);
  double written = bytes_of(args.outputs, args.num_outputs);
  if (IN(base, kGathers)) {
    // Rows gathered: the indices, and the output's bytes read and written.
    double indices = 0;
    for (size_t i = 0; i < args.num_inputs; ++i) {
      if (!etr_scalar_type_is_floating(args.inputs[i]->dtype)) {
        indices += bytes_of(&args.inputs[i], 1);
      }
    }
    cost->bytes = indices + 2.0 * written;
  } else {
    cost->bytes = bytes_of(args.inputs, args.num_inputs) + written;
  }
}

static void describe(const etr_tensor_t *tensor, char *text,
                     size_t capacity) {
  size_t used = (size_t)snprintf(text, capacity, "%s[",
                                 etr_scalar_type_name(tensor->dtype));
  for (int32_t d = 0; d < tensor->dim && used < capacity; ++d) {
    used += (size_t)snprintf(text + used, capacity - used, "%s%lld",
                             d ? "," : "", (long long)tensor->sizes[d]);
  }
  if (used < capacity) {
    snprintf(text + used, capacity - used, "]");
  }
}

void etr_prof_describe_shapes(const etr_method_t *method, uint32_t chain,
                              uint32_t index, char *text, size_t capacity) {
  text[0] = '\0';
  const etr_instruction_t *instruction =
      etr_prof_instruction(method, chain, index);
  if (instruction == NULL || capacity == 0) {
    return;
  }
  tensor_args_t args;
  collect(instruction, &args);
  size_t used = 0;
  char one[96];
  for (size_t i = 0; i < args.num_inputs && used + 1 < capacity; ++i) {
    describe(args.inputs[i], one, sizeof(one));
    used += (size_t)snprintf(text + used, capacity - used, "%s%s",
                             i ? ", " : "", one);
  }
  for (size_t i = 0; i < args.num_outputs && used + 1 < capacity; ++i) {
    describe(args.outputs[i], one, sizeof(one));
    used += (size_t)snprintf(text + used, capacity - used, "%s%s",
                             i ? ", " : " -> ", one);
  }
}
