// SPDX-License-Identifier: Apache-2.0
//
// A small JSON reader for the oracle's input files (the tolerance policy
// and the candidate-to-reference map), which are untrusted: RFC 8259
// syntax only (no comments, no trailing commas), nesting at most
// ETR_JSON_MAX_DEPTH deep, strings decoded to UTF-8 (\u escapes and
// surrogate pairs included; a NUL inside a string is refused), numbers
// kept as double and, when integral and in range, as int64. Every node
// lives in one arena released with the document. A malformed document
// gives InvalidArgument with "line L, column C: what was expected".
#ifndef ETR_PROF_ORACLE_JSON_H
#define ETR_PROF_ORACLE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "prof/text.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_JSON_MAX_DEPTH 64

typedef enum etr_json_type {
  ETR_JSON_NULL = 0,
  ETR_JSON_BOOL = 1,
  ETR_JSON_NUMBER = 2,
  ETR_JSON_STRING = 3,
  ETR_JSON_ARRAY = 4,
  ETR_JSON_OBJECT = 5,
} etr_json_type_t;

typedef struct etr_json etr_json_t;

struct etr_json {
  etr_json_type_t type;
  bool boolean;
  double number;
  bool is_integer;  // the number is integral and fits int64
  int64_t integer;
  const char *string;  // NUL-terminated UTF-8 (STRING)
  size_t length;       // bytes of `string`
  // ARRAY: items; OBJECT: items with their keys (same index).
  etr_json_t *items;
  const char **keys;
  uint32_t count;
  uint32_t line;  // where the value starts, for messages
  uint32_t column;
};

typedef struct etr_json_document {
  etr_json_t root;
  etr_arena_t arena;
} etr_json_document_t;

// Parses `length` bytes (need not be NUL-terminated).
etr_error_t etr_json_parse(const char *text, size_t length,
                           etr_json_document_t *document, etr_diag_t *diag);

void etr_json_release(etr_json_document_t *document);

// The value of `key` in an object (the last one if repeated), or NULL.
const etr_json_t *etr_json_get(const etr_json_t *object, const char *key);

// Appends `chars` as a JSON string literal (quotes, escapes; bytes below
// 0x20 as \u00XX).
void etr_json_append_string(etr_text_t *out, const char *chars);

// Appends a number; non-finite values, which JSON cannot hold, as the
// strings "inf", "-inf" and "nan".
void etr_json_append_number(etr_text_t *out, double value);

// "null", "boolean", "number", "string", "array", "object".
const char *etr_json_type_name(etr_json_type_t type);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_ORACLE_JSON_H
