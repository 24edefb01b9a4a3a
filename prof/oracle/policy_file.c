// SPDX-License-Identifier: Apache-2.0
//
// The tolerance policy file reader (see policy.h,
// etr_oracle_policy_apply_json): every key checked, every value typed and
// ranged, the policy changed entirely or not at all.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/oracle/json.h"
#include "prof/oracle/policy_internal.h"

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
        if (strcmp(etr_oracle_float_kind_names[k], dtypes->keys[d]) == 0) {
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
