// SPDX-License-Identifier: Apache-2.0
//
// The tolerance policy (see policy.h): defaults, the operator table, and
// the policy file reader.
#include "prof/oracle/policy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/oracle/json.h"

static const char *const kClassNames[ETR_ORACLE_NUM_CLASSES] = {
    "movement",      "elementwise", "transcendental", "accumulation",
    "normalization", "quantize",    "quantized",
};

static const char *const kFloatKindNames[ETR_ORACLE_NUM_FLOAT_KINDS] = {
    "Float", "Double", "Half", "BFloat16"};

const char *etr_oracle_class_name(etr_oracle_class_t op_class) {
  return (unsigned)op_class < ETR_ORACLE_NUM_CLASSES ? kClassNames[op_class]
                                                     : NULL;
}

bool etr_oracle_class_from_name(const char *name, etr_oracle_class_t *out) {
  for (int c = 0; c < ETR_ORACLE_NUM_CLASSES; ++c) {
    if (strcmp(kClassNames[c], name) == 0) {
      *out = (etr_oracle_class_t)c;
      return true;
    }
  }
  return false;
}

// Operators by short name (between "::" and the overload), per class.
// Everything whose result is one of its inputs' values, or a copy of them,
// is movement (exact).
static const struct {
  const char *name;
  etr_oracle_class_t op_class;
} kOperators[] = {
    // movement: copies, views, indexing, selection, comparisons
    {"_clone_dim_order", ETR_ORACLE_MOVEMENT},
    {"_to_copy", ETR_ORACLE_MOVEMENT},
    {"_to_dim_order_copy", ETR_ORACLE_MOVEMENT},
    {"alias_copy", ETR_ORACLE_MOVEMENT},
    {"amax", ETR_ORACLE_MOVEMENT},
    {"amin", ETR_ORACLE_MOVEMENT},
    {"any", ETR_ORACLE_MOVEMENT},
    {"argmax", ETR_ORACLE_MOVEMENT},
    {"argmin", ETR_ORACLE_MOVEMENT},
    {"as_strided_copy", ETR_ORACLE_MOVEMENT},
    {"bitwise_and", ETR_ORACLE_MOVEMENT},
    {"bitwise_not", ETR_ORACLE_MOVEMENT},
    {"bitwise_or", ETR_ORACLE_MOVEMENT},
    {"bitwise_xor", ETR_ORACLE_MOVEMENT},
    {"cat", ETR_ORACLE_MOVEMENT},
    {"ceil", ETR_ORACLE_MOVEMENT},
    {"clamp", ETR_ORACLE_MOVEMENT},
    {"clone", ETR_ORACLE_MOVEMENT},
    {"constant_pad_nd", ETR_ORACLE_MOVEMENT},
    {"copy", ETR_ORACLE_MOVEMENT},
    {"copy_", ETR_ORACLE_MOVEMENT},
    {"diagonal_copy", ETR_ORACLE_MOVEMENT},
    {"embedding", ETR_ORACLE_MOVEMENT},
    {"eq", ETR_ORACLE_MOVEMENT},
    {"et_copy_index", ETR_ORACLE_MOVEMENT},
    {"et_view", ETR_ORACLE_MOVEMENT},
    {"expand_copy", ETR_ORACLE_MOVEMENT},
    {"fill", ETR_ORACLE_MOVEMENT},
    {"flip", ETR_ORACLE_MOVEMENT},
    {"floor", ETR_ORACLE_MOVEMENT},
    {"full", ETR_ORACLE_MOVEMENT},
    {"full_like", ETR_ORACLE_MOVEMENT},
    {"gather", ETR_ORACLE_MOVEMENT},
    {"ge", ETR_ORACLE_MOVEMENT},
    {"gt", ETR_ORACLE_MOVEMENT},
    {"hardtanh", ETR_ORACLE_MOVEMENT},
    {"index", ETR_ORACLE_MOVEMENT},
    {"index_put", ETR_ORACLE_MOVEMENT},
    {"index_select", ETR_ORACLE_MOVEMENT},
    {"isinf", ETR_ORACLE_MOVEMENT},
    {"isnan", ETR_ORACLE_MOVEMENT},
    {"le", ETR_ORACLE_MOVEMENT},
    {"logical_and", ETR_ORACLE_MOVEMENT},
    {"logical_not", ETR_ORACLE_MOVEMENT},
    {"logical_or", ETR_ORACLE_MOVEMENT},
    {"logical_xor", ETR_ORACLE_MOVEMENT},
    {"lt", ETR_ORACLE_MOVEMENT},
    {"masked_scatter", ETR_ORACLE_MOVEMENT},
    {"max", ETR_ORACLE_MOVEMENT},
    {"max_pool2d_with_indices", ETR_ORACLE_MOVEMENT},
    {"max_pool3d_with_indices", ETR_ORACLE_MOVEMENT},
    {"maximum", ETR_ORACLE_MOVEMENT},
    {"min", ETR_ORACLE_MOVEMENT},
    {"minimum", ETR_ORACLE_MOVEMENT},
    {"ne", ETR_ORACLE_MOVEMENT},
    {"neg", ETR_ORACLE_MOVEMENT},
    {"abs", ETR_ORACLE_MOVEMENT},
    {"nonzero", ETR_ORACLE_MOVEMENT},
    {"permute_copy", ETR_ORACLE_MOVEMENT},
    {"reflection_pad1d", ETR_ORACLE_MOVEMENT},
    {"reflection_pad2d", ETR_ORACLE_MOVEMENT},
    {"reflection_pad3d", ETR_ORACLE_MOVEMENT},
    {"relu", ETR_ORACLE_MOVEMENT},
    {"repeat", ETR_ORACLE_MOVEMENT},
    {"replication_pad2d", ETR_ORACLE_MOVEMENT},
    {"replication_pad3d", ETR_ORACLE_MOVEMENT},
    {"round", ETR_ORACLE_MOVEMENT},
    {"scalar_tensor", ETR_ORACLE_MOVEMENT},
    {"scatter", ETR_ORACLE_MOVEMENT},
    {"select_copy", ETR_ORACLE_MOVEMENT},
    {"select_scatter", ETR_ORACLE_MOVEMENT},
    {"sign", ETR_ORACLE_MOVEMENT},
    {"slice_copy", ETR_ORACLE_MOVEMENT},
    {"slice_scatter", ETR_ORACLE_MOVEMENT},
    {"sort", ETR_ORACLE_MOVEMENT},
    {"split_with_sizes_copy", ETR_ORACLE_MOVEMENT},
    {"squeeze_copy", ETR_ORACLE_MOVEMENT},
    {"sym_size", ETR_ORACLE_MOVEMENT},
    {"sym_numel", ETR_ORACLE_MOVEMENT},
    {"_local_scalar_dense", ETR_ORACLE_MOVEMENT},
    {"topk", ETR_ORACLE_MOVEMENT},
    {"trunc", ETR_ORACLE_MOVEMENT},
    {"unsqueeze_copy", ETR_ORACLE_MOVEMENT},
    {"upsample_nearest2d", ETR_ORACLE_MOVEMENT},
    {"view_copy", ETR_ORACLE_MOVEMENT},
    {"where", ETR_ORACLE_MOVEMENT},
    // elementwise arithmetic (correctly rounded)
    {"add", ETR_ORACLE_ELEMENTWISE},
    {"arange", ETR_ORACLE_ELEMENTWISE},
    {"choose_qparams", ETR_ORACLE_ELEMENTWISE},
    {"choose_qparams_per_token_asymmetric", ETR_ORACLE_ELEMENTWISE},
    {"dequantize_per_channel", ETR_ORACLE_ELEMENTWISE},
    {"dequantize_per_tensor", ETR_ORACLE_ELEMENTWISE},
    {"dequantize_per_token", ETR_ORACLE_ELEMENTWISE},
    {"div", ETR_ORACLE_ELEMENTWISE},
    {"fmod", ETR_ORACLE_ELEMENTWISE},
    {"leaky_relu", ETR_ORACLE_ELEMENTWISE},
    {"mul", ETR_ORACLE_ELEMENTWISE},
    {"reciprocal", ETR_ORACLE_ELEMENTWISE},
    {"remainder", ETR_ORACLE_ELEMENTWISE},
    {"rsqrt", ETR_ORACLE_ELEMENTWISE},
    {"sqrt", ETR_ORACLE_ELEMENTWISE},
    {"sub", ETR_ORACLE_ELEMENTWISE},
    // transcendental
    {"acos", ETR_ORACLE_TRANSCENDENTAL},
    {"acosh", ETR_ORACLE_TRANSCENDENTAL},
    {"asin", ETR_ORACLE_TRANSCENDENTAL},
    {"asinh", ETR_ORACLE_TRANSCENDENTAL},
    {"atan", ETR_ORACLE_TRANSCENDENTAL},
    {"atan2", ETR_ORACLE_TRANSCENDENTAL},
    {"atanh", ETR_ORACLE_TRANSCENDENTAL},
    {"cos", ETR_ORACLE_TRANSCENDENTAL},
    {"cosh", ETR_ORACLE_TRANSCENDENTAL},
    {"elu", ETR_ORACLE_TRANSCENDENTAL},
    {"erf", ETR_ORACLE_TRANSCENDENTAL},
    {"exp", ETR_ORACLE_TRANSCENDENTAL},
    {"expm1", ETR_ORACLE_TRANSCENDENTAL},
    {"gelu", ETR_ORACLE_TRANSCENDENTAL},
    {"grid_sampler_2d", ETR_ORACLE_TRANSCENDENTAL},
    {"log", ETR_ORACLE_TRANSCENDENTAL},
    {"log10", ETR_ORACLE_TRANSCENDENTAL},
    {"log1p", ETR_ORACLE_TRANSCENDENTAL},
    {"log2", ETR_ORACLE_TRANSCENDENTAL},
    {"pow", ETR_ORACLE_TRANSCENDENTAL},
    {"sigmoid", ETR_ORACLE_TRANSCENDENTAL},
    {"sin", ETR_ORACLE_TRANSCENDENTAL},
    {"sinh", ETR_ORACLE_TRANSCENDENTAL},
    {"tan", ETR_ORACLE_TRANSCENDENTAL},
    {"tanh", ETR_ORACLE_TRANSCENDENTAL},
    // accumulation (K-aware)
    {"_adaptive_avg_pool2d", ETR_ORACLE_ACCUMULATION},
    {"_embedding_bag", ETR_ORACLE_ACCUMULATION},
    {"adaptive_avg_pool1d", ETR_ORACLE_ACCUMULATION},
    {"addmm", ETR_ORACLE_ACCUMULATION},
    {"avg_pool1d", ETR_ORACLE_ACCUMULATION},
    {"avg_pool2d", ETR_ORACLE_ACCUMULATION},
    {"avg_pool3d", ETR_ORACLE_ACCUMULATION},
    {"bmm", ETR_ORACLE_ACCUMULATION},
    {"convolution", ETR_ORACLE_ACCUMULATION},
    {"cumsum", ETR_ORACLE_ACCUMULATION},
    {"linear", ETR_ORACLE_ACCUMULATION},
    {"mean", ETR_ORACLE_ACCUMULATION},
    {"mm", ETR_ORACLE_ACCUMULATION},
    {"prod", ETR_ORACLE_ACCUMULATION},
    {"scatter_add", ETR_ORACLE_ACCUMULATION},
    {"sum", ETR_ORACLE_ACCUMULATION},
    {"upsample_bilinear2d", ETR_ORACLE_ACCUMULATION},
    // normalization
    {"_cdist_forward", ETR_ORACLE_NORMALIZATION},
    {"_log_softmax", ETR_ORACLE_NORMALIZATION},
    {"_native_batch_norm_legit", ETR_ORACLE_NORMALIZATION},
    {"_native_batch_norm_legit_no_training", ETR_ORACLE_NORMALIZATION},
    {"_pdist_forward", ETR_ORACLE_NORMALIZATION},
    {"_softmax", ETR_ORACLE_NORMALIZATION},
    {"native_group_norm", ETR_ORACLE_NORMALIZATION},
    {"native_layer_norm", ETR_ORACLE_NORMALIZATION},
    {"scatter_reduce", ETR_ORACLE_NORMALIZATION},
    {"var", ETR_ORACLE_NORMALIZATION},
    // quantize
    {"quantize_per_channel", ETR_ORACLE_QUANTIZE},
    {"quantize_per_tensor", ETR_ORACLE_QUANTIZE},
    {"quantize_per_token", ETR_ORACLE_QUANTIZE},
};

// The part of "ns::name.overload" between "::" and '.', into `out`.
static void short_name(const char *op_name, char *out, size_t capacity) {
  const char *separator = strstr(op_name, "::");
  const char *bare = separator != NULL ? separator + 2 : op_name;
  const char *dot = strchr(bare, '.');
  size_t length = dot != NULL ? (size_t)(dot - bare) : strlen(bare);
  if (length >= capacity) {
    length = capacity - 1;
  }
  memcpy(out, bare, length);
  out[length] = '\0';
}

static void set_all(etr_oracle_policy_t *policy, etr_oracle_class_t op_class,
                    etr_oracle_tolerance_t tolerance) {
  for (int k = 0; k < ETR_ORACLE_NUM_FLOAT_KINDS; ++k) {
    policy->tolerance[op_class][k] = tolerance;
  }
}

void etr_oracle_policy_defaults(etr_oracle_policy_t *policy) {
  memset(policy, 0, sizeof(*policy));
  etr_oracle_tolerance_t base = {.k_factor = 1.0, .steps = 0,
                                 .local_steps = 0};
  etr_oracle_tolerance_t t = base;
  t.exact = true;
  set_all(policy, ETR_ORACLE_MOVEMENT, t);
  t = base;
  t.ulp = 2;
  set_all(policy, ETR_ORACLE_ELEMENTWISE, t);
  t = base;
  t.abs_eps = 10;
  t.rel_eps = 10;
  set_all(policy, ETR_ORACLE_TRANSCENDENTAL, t);
  t = base;
  t.k_aware = true;
  t.ulp = 1;
  t.norm_eps = 16;
  set_all(policy, ETR_ORACLE_ACCUMULATION, t);
  t = base;
  t.abs_eps = 64;
  t.rel_eps = 64;
  set_all(policy, ETR_ORACLE_NORMALIZATION, t);
  t = base;
  t.steps = 1;
  t.local_steps = 0;
  set_all(policy, ETR_ORACLE_QUANTIZE, t);
  t = base;
  t.steps = 1;
  t.local_steps = 1;
  set_all(policy, ETR_ORACLE_QUANTIZED, t);
  policy->default_class = ETR_ORACLE_ELEMENTWISE;
  policy->flush_denormals = true;
  snprintf(policy->source, sizeof(policy->source), "built-in defaults");
}

etr_oracle_class_t etr_oracle_policy_class(const etr_oracle_policy_t *policy,
                                           const char *op_name,
                                           bool *known_out) {
  char bare[ETR_ORACLE_NAME_CAPACITY];
  short_name(op_name, bare, sizeof(bare));
  if (known_out != NULL) {
    *known_out = true;
  }
  // Later overrides win, and a full name beats a short one.
  for (uint32_t i = policy->num_overrides; i-- > 0;) {
    if (strcmp(policy->overrides[i].op, op_name) == 0) {
      return policy->overrides[i].op_class;
    }
  }
  for (uint32_t i = policy->num_overrides; i-- > 0;) {
    if (strcmp(policy->overrides[i].op, bare) == 0) {
      return policy->overrides[i].op_class;
    }
  }
  for (size_t i = 0; i < sizeof(kOperators) / sizeof(kOperators[0]); ++i) {
    if (strcmp(kOperators[i].name, bare) == 0) {
      return kOperators[i].op_class;
    }
  }
  if (known_out != NULL) {
    *known_out = false;
  }
  return policy->default_class;
}

static etr_oracle_float_kind_t float_kind(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_DOUBLE: return ETR_ORACLE_FLOAT64;
    case ETR_HALF: return ETR_ORACLE_FLOAT16;
    case ETR_BFLOAT16: return ETR_ORACLE_BFLOAT16;
    default: return ETR_ORACLE_FLOAT32;
  }
}

const etr_oracle_tolerance_t *etr_oracle_policy_tolerance(
    const etr_oracle_policy_t *policy, etr_oracle_class_t op_class,
    etr_scalar_type_t dtype) {
  if ((unsigned)op_class >= ETR_ORACLE_NUM_CLASSES) {
    op_class = policy->default_class;
  }
  return &policy->tolerance[op_class][float_kind(dtype)];
}

bool etr_oracle_policy_declares_quantized(const etr_oracle_policy_t *policy,
                                          uint32_t chain, uint32_t instruction,
                                          uint32_t output) {
  for (uint32_t i = 0; i < policy->num_quantized; ++i) {
    const etr_oracle_quantized_value_t *q = &policy->quantized[i];
    if (q->chain == chain && q->instruction == instruction &&
        q->output == output) {
      return true;
    }
  }
  return false;
}

// ---- the policy file -------------------------------------------------------

typedef struct {
  const char *origin;
  etr_diag_t *diag;
} reader_t;

static etr_error_t bad(const reader_t *r, const etr_json_t *at,
                       const char *what, const char *detail) {
  return ETR_FAIL(r->diag, ETR_ERR_INVALID_ARGUMENT,
                  "policy %s line %u: %s%s", r->origin,
                  at != NULL ? at->line : 0, what, detail);
}

static etr_error_t read_number(const reader_t *r, const etr_json_t *value,
                               const char *key, double limit, double *out) {
  if (value->type != ETR_JSON_NUMBER || value->number < 0 ||
      value->number > limit) {
    char detail[160];
    snprintf(detail, sizeof(detail), "%s must be a number from 0 to %g", key,
             limit);
    return bad(r, value, "", detail);
  }
  *out = value->number;
  return ETR_OK;
}

static etr_error_t read_tolerance_fields(const reader_t *r,
                                         const etr_json_t *object,
                                         etr_oracle_tolerance_t *tolerance,
                                         bool allow_dtypes) {
  if (object->type != ETR_JSON_OBJECT) {
    return bad(r, object, "a class entry must be an object", "");
  }
  for (uint32_t i = 0; i < object->count; ++i) {
    const char *key = object->keys[i];
    const etr_json_t *value = &object->items[i];
    double number = 0;
    if (strcmp(key, "exact") == 0 || strcmp(key, "k_aware") == 0) {
      if (value->type != ETR_JSON_BOOL) {
        return bad(r, value, key, " must be true or false");
      }
      if (key[0] == 'e') {
        tolerance->exact = value->boolean;
      } else {
        tolerance->k_aware = value->boolean;
      }
    } else if (strcmp(key, "ulp") == 0) {
      ETR_TRY(read_number(r, value, key, 1e15, &tolerance->ulp));
    } else if (strcmp(key, "abs_eps") == 0) {
      ETR_TRY(read_number(r, value, key, 1e15, &tolerance->abs_eps));
    } else if (strcmp(key, "rel_eps") == 0) {
      ETR_TRY(read_number(r, value, key, 1e15, &tolerance->rel_eps));
    } else if (strcmp(key, "norm_eps") == 0) {
      ETR_TRY(read_number(r, value, key, 1e15, &tolerance->norm_eps));
    } else if (strcmp(key, "k_factor") == 0) {
      ETR_TRY(read_number(r, value, key, 1e6, &tolerance->k_factor));
    } else if (strcmp(key, "max_mismatch_fraction") == 0) {
      ETR_TRY(read_number(r, value, key, 1.0,
                          &tolerance->max_mismatch_fraction));
    } else if (strcmp(key, "steps") == 0 || strcmp(key, "local_steps") == 0) {
      ETR_TRY(read_number(r, value, key, 1e9, &number));
      if (!value->is_integer) {
        return bad(r, value, key, " must be an integer");
      }
      if (key[0] == 's') {
        tolerance->steps = value->integer;
      } else {
        tolerance->local_steps = value->integer;
      }
    } else if (strcmp(key, "dtypes") == 0 && allow_dtypes) {
      // read by the caller
    } else {
      return bad(r, value, "unknown tolerance field: ", key);
    }
  }
  return ETR_OK;
}

static etr_error_t read_classes(const reader_t *r, etr_oracle_policy_t *policy,
                                const etr_json_t *classes) {
  if (classes->type != ETR_JSON_OBJECT) {
    return bad(r, classes, "\"classes\" must be an object", "");
  }
  for (uint32_t i = 0; i < classes->count; ++i) {
    etr_oracle_class_t op_class;
    if (!etr_oracle_class_from_name(classes->keys[i], &op_class)) {
      return bad(r, &classes->items[i], "unknown class: ", classes->keys[i]);
    }
    const etr_json_t *entry = &classes->items[i];
    for (int k = 0; k < ETR_ORACLE_NUM_FLOAT_KINDS; ++k) {
      ETR_TRY(read_tolerance_fields(r, entry, &policy->tolerance[op_class][k],
                                    true));
    }
    const etr_json_t *dtypes = etr_json_get(entry, "dtypes");
    if (dtypes == NULL) {
      continue;
    }
    if (dtypes->type != ETR_JSON_OBJECT) {
      return bad(r, dtypes, "\"dtypes\" must be an object", "");
    }
    for (uint32_t d = 0; d < dtypes->count; ++d) {
      int kind = -1;
      for (int k = 0; k < ETR_ORACLE_NUM_FLOAT_KINDS; ++k) {
        if (strcmp(kFloatKindNames[k], dtypes->keys[d]) == 0) {
          kind = k;
        }
      }
      if (kind < 0) {
        return bad(r, &dtypes->items[d],
                   "dtypes are Float, Double, Half or BFloat16, not ",
                   dtypes->keys[d]);
      }
      ETR_TRY(read_tolerance_fields(r, &dtypes->items[d],
                                    &policy->tolerance[op_class][kind],
                                    false));
    }
  }
  return ETR_OK;
}

static etr_error_t read_ops(const reader_t *r, etr_oracle_policy_t *policy,
                            const etr_json_t *ops) {
  if (ops->type != ETR_JSON_OBJECT) {
    return bad(r, ops, "\"ops\" must be an object", "");
  }
  for (uint32_t i = 0; i < ops->count; ++i) {
    const etr_json_t *value = &ops->items[i];
    etr_oracle_class_t op_class;
    if (value->type != ETR_JSON_STRING ||
        !etr_oracle_class_from_name(value->string, &op_class)) {
      return bad(r, value, "an op's class must be a class name, for ",
                 ops->keys[i]);
    }
    if (policy->num_overrides == ETR_ORACLE_MAX_OVERRIDES ||
        strlen(ops->keys[i]) >= ETR_ORACLE_NAME_CAPACITY ||
        ops->keys[i][0] == '\0') {
      return bad(r, value, "too many \"ops\" entries or a bad name: ",
                 ops->keys[i]);
    }
    etr_oracle_op_override_t *o = &policy->overrides[policy->num_overrides++];
    snprintf(o->op, sizeof(o->op), "%s", ops->keys[i]);
    o->op_class = op_class;
  }
  return ETR_OK;
}

static etr_error_t read_index(const reader_t *r, const etr_json_t *object,
                              const char *key, bool required, uint32_t *out) {
  const etr_json_t *value = etr_json_get(object, key);
  if (value == NULL) {
    if (required) {
      return bad(r, object, "missing field: ", key);
    }
    *out = 0;
    return ETR_OK;
  }
  if (value->type != ETR_JSON_NUMBER || !value->is_integer ||
      value->integer < 0 || value->integer > UINT32_MAX) {
    return bad(r, value, key, " must be a non-negative integer");
  }
  *out = (uint32_t)value->integer;
  return ETR_OK;
}

static etr_error_t read_quantized(const reader_t *r,
                                  etr_oracle_policy_t *policy,
                                  const etr_json_t *list) {
  if (list->type != ETR_JSON_ARRAY) {
    return bad(r, list, "\"quantized_values\" must be an array", "");
  }
  for (uint32_t i = 0; i < list->count; ++i) {
    const etr_json_t *item = &list->items[i];
    if (item->type != ETR_JSON_OBJECT) {
      return bad(r, item, "a quantized value must be an object", "");
    }
    for (uint32_t k = 0; k < item->count; ++k) {
      const char *key = item->keys[k];
      if (strcmp(key, "chain") != 0 && strcmp(key, "instruction") != 0 &&
          strcmp(key, "output") != 0) {
        return bad(r, &item->items[k], "unknown field: ", key);
      }
    }
    if (policy->num_quantized == ETR_ORACLE_MAX_OVERRIDES) {
      return bad(r, item, "too many quantized values", "");
    }
    etr_oracle_quantized_value_t *q =
        &policy->quantized[policy->num_quantized];
    ETR_TRY(read_index(r, item, "chain", false, &q->chain));
    ETR_TRY(read_index(r, item, "instruction", true, &q->instruction));
    ETR_TRY(read_index(r, item, "output", false, &q->output));
    ++policy->num_quantized;
  }
  return ETR_OK;
}

static etr_error_t apply(const reader_t *r, etr_oracle_policy_t *policy,
                         const etr_json_t *root) {
  if (root->type != ETR_JSON_OBJECT) {
    return bad(r, root, "the policy must be a JSON object", "");
  }
  const etr_json_t *format = etr_json_get(root, "format");
  if (format == NULL || format->type != ETR_JSON_STRING ||
      strcmp(format->string, "etref-oracle-policy") != 0) {
    return bad(r, format != NULL ? format : root,
               "\"format\" must be \"etref-oracle-policy\"", "");
  }
  const etr_json_t *version = etr_json_get(root, "version");
  if (version == NULL || version->type != ETR_JSON_NUMBER ||
      !version->is_integer || version->integer != 1) {
    return bad(r, version != NULL ? version : root,
               "\"version\" must be 1 (the only version this etref reads)",
               "");
  }
  for (uint32_t i = 0; i < root->count; ++i) {
    const char *key = root->keys[i];
    const etr_json_t *value = &root->items[i];
    if (strcmp(key, "format") == 0 || strcmp(key, "version") == 0 ||
        strcmp(key, "description") == 0) {
      continue;
    }
    if (strcmp(key, "classes") == 0) {
      ETR_TRY(read_classes(r, policy, value));
    } else if (strcmp(key, "ops") == 0) {
      ETR_TRY(read_ops(r, policy, value));
    } else if (strcmp(key, "quantized_values") == 0) {
      ETR_TRY(read_quantized(r, policy, value));
    } else if (strcmp(key, "default_class") == 0) {
      if (value->type != ETR_JSON_STRING ||
          !etr_oracle_class_from_name(value->string,
                                      &policy->default_class)) {
        return bad(r, value, "\"default_class\" must be a class name", "");
      }
    } else if (strcmp(key, "flush_denormals") == 0) {
      if (value->type != ETR_JSON_BOOL) {
        return bad(r, value, "\"flush_denormals\" must be true or false",
                   "");
      }
      policy->flush_denormals = value->boolean;
    } else {
      return bad(r, value, "unknown field: ", key);
    }
  }
  return ETR_OK;
}

etr_error_t etr_oracle_policy_apply_json(etr_oracle_policy_t *policy,
                                         const char *text, size_t length,
                                         const char *origin,
                                         etr_diag_t *diag) {
  etr_json_document_t document;
  etr_error_t status = etr_json_parse(text, length, &document, diag);
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "policy %s", origin);
    return status;
  }
  reader_t reader = {.origin = origin, .diag = diag};
  // Applied to a copy: a policy is changed entirely or not at all.
  etr_oracle_policy_t *updated =
      (etr_oracle_policy_t *)malloc(sizeof(etr_oracle_policy_t));
  if (updated == NULL) {
    etr_json_release(&document);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory reading policy %s", origin);
  }
  *updated = *policy;
  status = apply(&reader, updated, &document.root);
  etr_json_release(&document);
  if (status == ETR_OK) {
    *policy = *updated;
    snprintf(policy->source, sizeof(policy->source), "%s", origin);
  }
  free(updated);
  return status;
}

// ---- describing it -------------------------------------------------------

static void describe_tolerance(const etr_oracle_tolerance_t *t,
                               etr_oracle_class_t op_class, etr_text_t *out) {
  if (op_class == ETR_ORACLE_QUANTIZE || op_class == ETR_ORACLE_QUANTIZED) {
    etr_text_append(out, "|c - r| <= %lld step%s (%lld when re-run on the "
                    "candidate's own inputs)",
                    (long long)t->steps, t->steps == 1 ? "" : "s",
                    (long long)t->local_steps);
    return;
  }
  if (t->exact) {
    etr_text_append(out, "bitwise equal");
    return;
  }
  bool any = false;
  etr_text_append(out, "|c - r| <= ");
  if (t->abs_eps > 0) {
    etr_text_append(out, "%g eps", t->abs_eps);
    any = true;
  }
  if (t->rel_eps > 0) {
    etr_text_append(out, "%s%g eps |r|", any ? " + " : "", t->rel_eps);
    any = true;
  }
  if (t->ulp > 0) {
    etr_text_append(out, "%s%g ulp(r)", any ? " + " : "", t->ulp);
    any = true;
  }
  if (t->k_aware) {
    etr_text_append(out, "%s%g x 2 gamma_K M", any ? " + " : "",
                    t->k_factor);
    any = true;
  }
  if (!any) {
    etr_text_append(out, "0");
  }
  if (t->norm_eps > 0) {
    etr_text_append(out, ", and ||c - r||_2 <= %g eps %s||r||_2", t->norm_eps,
                    t->k_aware ? "sqrt(K) " : "");
  }
}

void etr_oracle_policy_describe(const etr_oracle_policy_t *policy,
                                etr_text_t *out) {
  etr_text_append(out,
                  "Tolerance policy: %s. Per element, reference r and "
                  "candidate c agree when both are the same non-finite value "
                  "or both are finite within the class's bound; eps is the "
                  "output dtype's machine epsilon, ulp(r) its spacing at r, "
                  "gamma_K = K u / (1 - K u) with u = eps/2 and K the op's "
                  "accumulation length, M the reference op run on the "
                  "absolute values of its inputs.%s\n",
                  policy->source,
                  policy->flush_denormals
                      ? " Subnormal differences up to the smallest normal "
                        "number are accepted (FTZ/DAZ, as XNNPACK runs)."
                      : "");
  for (int c = 0; c < ETR_ORACLE_NUM_CLASSES; ++c) {
    etr_text_append(out, "- %s: ", kClassNames[c]);
    describe_tolerance(&policy->tolerance[c][ETR_ORACLE_FLOAT32],
                       (etr_oracle_class_t)c, out);
    for (int k = 1; k < ETR_ORACLE_NUM_FLOAT_KINDS; ++k) {
      if (memcmp(&policy->tolerance[c][k],
                 &policy->tolerance[c][ETR_ORACLE_FLOAT32],
                 sizeof(etr_oracle_tolerance_t)) != 0) {
        etr_text_append(out, "; %s: ", kFloatKindNames[k]);
        describe_tolerance(&policy->tolerance[c][k], (etr_oracle_class_t)c,
                           out);
      }
    }
    if (policy->tolerance[c][0].max_mismatch_fraction > 0) {
      etr_text_append(out, "; up to %g of the elements may exceed it",
                      policy->tolerance[c][0].max_mismatch_fraction);
    }
    etr_text_append(out, "\n");
  }
  etr_text_append(out,
                  "- Integer and Bool outputs that are not quantized: exact. "
                  "Unknown operators: %s.\n",
                  kClassNames[policy->default_class]);
}

static void tolerance_json(const etr_oracle_tolerance_t *t, etr_text_t *out) {
  etr_text_append(out,
                  "{\"exact\": %s, \"ulp\": %.17g, \"abs_eps\": %.17g, "
                  "\"rel_eps\": %.17g, \"k_aware\": %s, \"k_factor\": %.17g, "
                  "\"steps\": %lld, \"local_steps\": %lld, "
                  "\"max_mismatch_fraction\": %.17g, \"norm_eps\": %.17g",
                  t->exact ? "true" : "false", t->ulp, t->abs_eps, t->rel_eps,
                  t->k_aware ? "true" : "false", t->k_factor,
                  (long long)t->steps, (long long)t->local_steps,
                  t->max_mismatch_fraction, t->norm_eps);
}

void etr_oracle_policy_to_json(const etr_oracle_policy_t *policy,
                               etr_text_t *out) {
  etr_text_append(out,
                  "{\"format\": \"etref-oracle-policy\", \"version\": 1, "
                  "\"default_class\": \"%s\", \"flush_denormals\": %s, "
                  "\"classes\": {",
                  kClassNames[policy->default_class],
                  policy->flush_denormals ? "true" : "false");
  for (int c = 0; c < ETR_ORACLE_NUM_CLASSES; ++c) {
    etr_text_append(out, "%s\"%s\": ", c ? ", " : "", kClassNames[c]);
    tolerance_json(&policy->tolerance[c][ETR_ORACLE_FLOAT32], out);
    etr_text_append(out, ", \"dtypes\": {");
    for (int k = 1; k < ETR_ORACLE_NUM_FLOAT_KINDS; ++k) {
      etr_text_append(out, "%s\"%s\": ", k > 1 ? ", " : "",
                      kFloatKindNames[k]);
      tolerance_json(&policy->tolerance[c][k], out);
      etr_text_append(out, "}");
    }
    etr_text_append(out, "}}");
  }
  etr_text_append(out, "}, \"ops\": {");
  for (uint32_t i = 0; i < policy->num_overrides; ++i) {
    etr_text_append(out, "%s", i ? ", " : "");
    etr_json_append_string(out, policy->overrides[i].op);
    etr_text_append(out, ": \"%s\"",
                    kClassNames[policy->overrides[i].op_class]);
  }
  etr_text_append(out, "}, \"quantized_values\": [");
  for (uint32_t i = 0; i < policy->num_quantized; ++i) {
    const etr_oracle_quantized_value_t *q = &policy->quantized[i];
    etr_text_append(out,
                    "%s{\"chain\": %u, \"instruction\": %u, \"output\": %u}",
                    i ? ", " : "", q->chain, q->instruction, q->output);
  }
  etr_text_append(out, "]}");
}
