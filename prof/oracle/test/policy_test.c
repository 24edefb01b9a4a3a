// SPDX-License-Identifier: Apache-2.0
//
// The tolerance policy and the JSON reader behind it: the operator table,
// file overrides (classes, per-dtype refinements, op classes, declared
// quantized values), every malformed document refused with a message
// naming the line, a failed file leaving the policy untouched, and the
// policy's own JSON read back to the same policy.
#include <criterion/criterion.h>
#include <string.h>

#include "prof/oracle/json.h"
#include "prof/oracle/policy.h"

static etr_oracle_policy_t g_policy;

static etr_error_t apply(const char *text, etr_diag_t *diag) {
  etr_diag_reset(diag);
  return etr_oracle_policy_apply_json(&g_policy, text, strlen(text),
                                      "test.json", diag);
}

Test(policy, operator_classes) {
  etr_oracle_policy_defaults(&g_policy);
  bool known = false;
  cr_assert_eq(etr_oracle_policy_class(&g_policy, "aten::convolution.out",
                                       &known),
               ETR_ORACLE_ACCUMULATION);
  cr_assert(known);
  cr_assert_eq(etr_oracle_policy_class(&g_policy, "aten::relu.out", NULL),
               ETR_ORACLE_MOVEMENT);
  cr_assert_eq(etr_oracle_policy_class(&g_policy, "aten::gelu.out", NULL),
               ETR_ORACLE_TRANSCENDENTAL);
  cr_assert_eq(etr_oracle_policy_class(
                   &g_policy, "quantized_decomposed::quantize_per_tensor.out",
                   NULL),
               ETR_ORACLE_QUANTIZE);
  cr_assert_eq(etr_oracle_policy_class(&g_policy, "aten::_softmax.out", NULL),
               ETR_ORACLE_NORMALIZATION);
  cr_assert_eq(etr_oracle_policy_class(&g_policy, "vendor::mystery.out",
                                       &known),
               ETR_ORACLE_ELEMENTWISE);
  cr_assert_not(known);
  const etr_oracle_tolerance_t *t =
      etr_oracle_policy_tolerance(&g_policy, ETR_ORACLE_ACCUMULATION,
                                  ETR_HALF);
  cr_assert(t->k_aware);
  cr_assert_eq(t->norm_eps, 16);
  cr_assert(etr_oracle_policy_tolerance(&g_policy, ETR_ORACLE_MOVEMENT,
                                        ETR_FLOAT)
                ->exact);
  cr_assert_eq(etr_oracle_policy_tolerance(&g_policy, ETR_ORACLE_QUANTIZE,
                                           ETR_CHAR)
                   ->local_steps,
               0);
}

Test(policy, overrides) {
  etr_oracle_policy_defaults(&g_policy);
  etr_diag_t diag;
  cr_assert_eq(apply("{\"format\": \"etref-oracle-policy\", \"version\": 1,\n"
                     " \"default_class\": \"transcendental\",\n"
                     " \"flush_denormals\": false,\n"
                     " \"classes\": {\"elementwise\": {\"ulp\": 4, "
                     "\"dtypes\": {\"Half\": {\"ulp\": 1, \"abs_eps\": 2}}},\n"
                     "   \"quantize\": {\"steps\": 2, \"local_steps\": 1}},\n"
                     " \"ops\": {\"vendor::mystery.out\": \"movement\",\n"
                     "          \"relu\": \"elementwise\"},\n"
                     " \"quantized_values\": [{\"instruction\": 5}]}",
                     &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(etr_oracle_policy_tolerance(&g_policy, ETR_ORACLE_ELEMENTWISE,
                                           ETR_FLOAT)
                   ->ulp,
               4);
  const etr_oracle_tolerance_t *half = etr_oracle_policy_tolerance(
      &g_policy, ETR_ORACLE_ELEMENTWISE, ETR_HALF);
  cr_assert_eq(half->ulp, 1);
  cr_assert_eq(half->abs_eps, 2);
  cr_assert_eq(etr_oracle_policy_tolerance(&g_policy, ETR_ORACLE_QUANTIZE,
                                           ETR_BYTE)
                   ->steps,
               2);
  cr_assert_eq(etr_oracle_policy_class(&g_policy, "vendor::mystery.out", NULL),
               ETR_ORACLE_MOVEMENT);
  cr_assert_eq(etr_oracle_policy_class(&g_policy, "aten::relu.out", NULL),
               ETR_ORACLE_ELEMENTWISE, "a short name overrides the table");
  cr_assert_eq(etr_oracle_policy_class(&g_policy, "x::unknown.out", NULL),
               ETR_ORACLE_TRANSCENDENTAL);
  cr_assert_not(g_policy.flush_denormals);
  cr_assert(etr_oracle_policy_declares_quantized(&g_policy, 0, 5, 0));
  cr_assert_not(etr_oracle_policy_declares_quantized(&g_policy, 0, 5, 1));
  cr_assert_str_eq(g_policy.source, "test.json");
}

static void refused(const char *text, const char *needle) {
  etr_oracle_policy_defaults(&g_policy);
  etr_oracle_policy_t before = g_policy;
  etr_diag_t diag;
  cr_assert_eq(apply(text, &diag), ETR_ERR_INVALID_ARGUMENT, "accepted: %s",
               text);
  cr_assert(strstr(diag.message, needle) != NULL, "'%s' lacks '%s'",
            diag.message, needle);
  cr_assert(memcmp(&before, &g_policy, sizeof(before)) == 0,
            "a refused file changed the policy");  // both from one memset
}

#define HEAD "{\"format\": \"etref-oracle-policy\", \"version\": 1, "

Test(policy, malformed_files_are_refused) {
  refused("", "unexpected end");
  refused("{", "expected a string key");
  refused("[1, 2]", "must be a JSON object");
  refused("{\"version\": 1}", "\"format\"");
  refused("{\"format\": \"etref-oracle-policy\", \"version\": 2}",
          "\"version\" must be 1");
  refused(HEAD "\"classes\": {\"bogus\": {}}}", "unknown class: bogus");
  refused(HEAD "\"classes\": {\"elementwise\": {\"ulps\": 1}}}",
          "unknown tolerance field: ulps");
  refused(HEAD "\"classes\": {\"elementwise\": {\"ulp\": -1}}}",
          "ulp must be a number from 0");
  refused(HEAD "\"classes\": {\"elementwise\": {\"ulp\": \"2\"}}}",
          "ulp must be a number");
  refused(HEAD "\"classes\": {\"quantize\": {\"steps\": 1.5}}}",
          "steps must be an integer");
  refused(HEAD "\"classes\": {\"elementwise\": {\"exact\": 1}}}",
          "exact must be true or false");
  refused(HEAD "\"classes\": {\"elementwise\": {\"dtypes\": {\"Int\": {}}}}}",
          "dtypes are Float, Double, Half or BFloat16");
  refused(HEAD "\"ops\": {\"aten::relu.out\": \"fast\"}}",
          "an op's class must be a class name");
  refused(HEAD "\"quantized_values\": [{\"output\": 0}]}",
          "missing field: instruction");
  refused(HEAD "\"quantized_values\": [{\"instruction\": -1}]}",
          "instruction must be a non-negative integer");
  refused(HEAD "\"surprise\": true}", "unknown field: surprise");
  refused(HEAD "\"classes\": {\"elementwise\": {\"ulp\": 1,}}}",
          "expected a string key");
  refused("{\"format\": \"etref-oracle-policy\", \"version\": 1} extra",
          "unexpected text after the document");
  refused(HEAD "\"description\": \"tab\there\"}", "control character");
}

Test(policy, errors_name_the_line) {
  etr_oracle_policy_defaults(&g_policy);
  etr_diag_t diag;
  cr_assert_neq(apply("{\"format\": \"etref-oracle-policy\",\n\"version\": 1,"
                      "\n\n\"classes\": {\"nope\": {}}}",
                      &diag),
                ETR_OK);
  cr_assert(strstr(diag.message, "line 4") != NULL, "%s", diag.message);
}

Test(policy, own_json_reads_back) {
  etr_oracle_policy_defaults(&g_policy);
  etr_diag_t diag;
  cr_assert_eq(apply(HEAD "\"ops\": {\"my\\\"op\": \"movement\"}, "
                          "\"classes\": {\"normalization\": {\"dtypes\": "
                          "{\"BFloat16\": {\"rel_eps\": 3}}}}}",
                     &diag),
               ETR_OK, "%s", diag.message);
  etr_oracle_policy_t first = g_policy;
  etr_text_t text;
  etr_text_init(&text);
  etr_oracle_policy_to_json(&first, &text);
  etr_oracle_policy_defaults(&g_policy);
  cr_assert_eq(apply(etr_text_str(&text), &diag), ETR_OK, "%s\n%s",
               diag.message, etr_text_str(&text));
  for (int c = 0; c < ETR_ORACLE_NUM_CLASSES; ++c) {
    for (int k = 0; k < ETR_ORACLE_NUM_FLOAT_KINDS; ++k) {
      const etr_oracle_tolerance_t *a = &first.tolerance[c][k];
      const etr_oracle_tolerance_t *b = &g_policy.tolerance[c][k];
      cr_assert(a->exact == b->exact && a->ulp == b->ulp &&
                    a->abs_eps == b->abs_eps && a->rel_eps == b->rel_eps &&
                    a->k_aware == b->k_aware && a->k_factor == b->k_factor &&
                    a->steps == b->steps && a->local_steps == b->local_steps &&
                    a->max_mismatch_fraction == b->max_mismatch_fraction &&
                    a->norm_eps == b->norm_eps,
                "class %d dtype %d differs after the round trip", c, k);
    }
  }
  cr_assert_eq(g_policy.num_overrides, 1);
  cr_assert_str_eq(g_policy.overrides[0].op, "my\"op");
  etr_text_release(&text);
  etr_text_t model;
  etr_text_init(&model);
  etr_oracle_policy_describe(&g_policy, &model);
  cr_assert(strstr(etr_text_str(&model), "gamma_K") != NULL);
  cr_assert(strstr(etr_text_str(&model), "BFloat16") != NULL);
  etr_text_release(&model);
}

// ---- the JSON reader --------------------------------------------------------

Test(json, values_and_escapes) {
  const char *text =
      "\xEF\xBB\xBF {\"a\": [1, -2.5e3, true, false, null],"
      " \"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\","
      " \"big\": 12345678901234, \"f\": 2.0, \"a\": 7}";
  etr_json_document_t doc;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_json_parse(text, strlen(text), &doc, &diag), ETR_OK, "%s",
               diag.message);
  const etr_json_t *a = etr_json_get(&doc.root, "a");
  cr_assert_eq(a->type, ETR_JSON_NUMBER, "the last duplicate wins");
  cr_assert_eq(a->integer, 7);
  const etr_json_t *s = etr_json_get(&doc.root, "s");
  cr_assert_str_eq(s->string,
                   "q\"\\/\b\f\n\r\t\xC3\xA9\xF0\x9F\x98\x80");
  cr_assert(etr_json_get(&doc.root, "big")->is_integer);
  cr_assert_eq(etr_json_get(&doc.root, "big")->integer, 12345678901234LL);
  cr_assert(etr_json_get(&doc.root, "f")->is_integer);
  cr_assert_eq(doc.root.items[0].count, 5);
  cr_assert_eq(doc.root.items[0].items[1].number, -2500.0);
  cr_assert_not(doc.root.items[0].items[1].is_integer == false &&
                doc.root.items[0].items[1].integer != -2500);
  etr_json_release(&doc);
}

Test(json, malformed) {
  static const char *const kBad[] = {
      "01", "1.", "1e", "-", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00x\"",
      "\"\\u0000\"", "\"\\q\"", "[1 2]", "{\"a\" 1}", "{\"a\": }", "tru",
      "\"unterminated", "[", "1e999", "{\"a\":1}}",
  };
  for (size_t i = 0; i < sizeof(kBad) / sizeof(kBad[0]); ++i) {
    etr_json_document_t doc;
    etr_diag_t diag;
    etr_diag_reset(&diag);
    cr_assert_eq(etr_json_parse(kBad[i], strlen(kBad[i]), &doc, &diag),
                 ETR_ERR_INVALID_ARGUMENT, "accepted %s", kBad[i]);
    cr_assert(strstr(diag.message, "JSON line 1, column") != NULL, "%s",
              diag.message);
  }
}

Test(json, depth_is_capped) {
  char text[400];
  memset(text, '[', 200);
  memset(text + 200, ']', 200);
  etr_json_document_t doc;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_json_parse(text, sizeof(text), &doc, &diag),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert(strstr(diag.message, "nested too deeply") != NULL);
  etr_diag_reset(&diag);
  cr_assert_eq(etr_json_parse(text + 200 - 50, 100, &doc, &diag), ETR_OK,
               "%s", diag.message);
  etr_json_release(&doc);
}

Test(json, writer_escapes) {
  etr_text_t text;
  etr_text_init(&text);
  etr_json_append_string(&text, "a\"b\\c\n\x01");
  etr_json_append_number(&text, 1.0 / 0.0);
  cr_assert_str_eq(etr_text_str(&text), "\"a\\\"b\\\\c\\n\\u0001\"\"inf\"");
  etr_text_release(&text);
}
