// SPDX-License-Identifier: Apache-2.0
//
// The tolerance policy (see policy.h): defaults, lookups, and the policy
// in words and as JSON. The operator table is policy_table.c, the file
// reader policy_file.c.
#include "prof/oracle/policy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/oracle/json.h"
#include "prof/oracle/policy_internal.h"

static const char *const kClassNames[ETR_ORACLE_NUM_CLASSES] = {
    "movement",      "elementwise", "transcendental", "accumulation",
    "normalization", "quantize",    "quantized",
};

const char *const etr_oracle_float_kind_names[ETR_ORACLE_NUM_FLOAT_KINDS] = {
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
  for (size_t i = 0; i < etr_oracle_operator_class_count; ++i) {
    if (strcmp(etr_oracle_operator_classes[i].name, bare) == 0) {
      return etr_oracle_operator_classes[i].op_class;
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
        etr_text_append(out, "; %s: ", etr_oracle_float_kind_names[k]);
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
                      etr_oracle_float_kind_names[k]);
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
