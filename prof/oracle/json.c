// SPDX-License-Identifier: Apache-2.0
//
// The JSON reader (see json.h): recursive descent over a bounded cursor.
// Children are gathered in a growable scratch list, then copied into the
// document's arena, so a node's items are one array.
#include "prof/oracle/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const char *text;
  size_t length;
  size_t position;
  uint32_t line;
  size_t line_start;
  etr_arena_t *arena;
  etr_diag_t *diag;
} parser_t;

static uint32_t column_of(const parser_t *p) {
  return (uint32_t)(p->position - p->line_start + 1);
}

static etr_error_t fail(parser_t *p, const char *what) {
  return ETR_FAIL(p->diag, ETR_ERR_INVALID_ARGUMENT,
                  "JSON line %u, column %u: %s", p->line, column_of(p), what);
}

static void skip_space(parser_t *p) {
  while (p->position < p->length) {
    char c = p->text[p->position];
    if (c == '\n') {
      ++p->line;
      p->line_start = p->position + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
    ++p->position;
  }
}

static bool take(parser_t *p, char c) {
  if (p->position < p->length && p->text[p->position] == c) {
    ++p->position;
    return true;
  }
  return false;
}

static bool take_word(parser_t *p, const char *word) {
  size_t n = strlen(word);
  if (p->length - p->position >= n &&
      memcmp(p->text + p->position, word, n) == 0) {
    p->position += n;
    return true;
  }
  return false;
}

static void *arena_copy(parser_t *p, const void *data, size_t size) {
  void *copy = etr_arena_alloc(p->arena, size == 0 ? 1 : size, 8);
  if (copy != NULL && size > 0) {
    memcpy(copy, data, size);
  }
  return copy;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool take_hex4(parser_t *p, uint32_t *out) {
  if (p->length - p->position < 4) {
    return false;
  }
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    int digit = hex_value(p->text[p->position + (size_t)i]);
    if (digit < 0) {
      return false;
    }
    value = value * 16 + (uint32_t)digit;
  }
  p->position += 4;
  *out = value;
  return true;
}

static size_t put_utf8(char *out, uint32_t code) {
  if (code < 0x80) {
    out[0] = (char)code;
    return 1;
  }
  if (code < 0x800) {
    out[0] = (char)(0xC0 | (code >> 6));
    out[1] = (char)(0x80 | (code & 0x3F));
    return 2;
  }
  if (code < 0x10000) {
    out[0] = (char)(0xE0 | (code >> 12));
    out[1] = (char)(0x80 | ((code >> 6) & 0x3F));
    out[2] = (char)(0x80 | (code & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (code >> 18));
  out[1] = (char)(0x80 | ((code >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((code >> 6) & 0x3F));
  out[3] = (char)(0x80 | (code & 0x3F));
  return 4;
}

// A string after its opening quote; the decoded text is never longer than
// the source, so one buffer of the source's size holds it.
static etr_error_t parse_string(parser_t *p, const char **out,
                                size_t *length_out) {
  size_t start = p->position;
  size_t end = start;
  while (end < p->length && p->text[end] != '"') {
    end += p->text[end] == '\\' ? 2 : 1;
  }
  if (end >= p->length) {
    return fail(p, "unterminated string");
  }
  char *decoded = (char *)etr_arena_alloc(p->arena, end - start + 1, 1);
  if (decoded == NULL) {
    return ETR_FAIL(p->diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory reading JSON");
  }
  size_t used = 0;
  while (p->position < end) {
    unsigned char c = (unsigned char)p->text[p->position];
    if (c < 0x20) {
      return fail(p, "control character inside a string");
    }
    if (c != '\\') {
      decoded[used++] = (char)c;
      ++p->position;
      continue;
    }
    ++p->position;
    char escape = p->text[p->position++];
    switch (escape) {
      case '"': decoded[used++] = '"'; break;
      case '\\': decoded[used++] = '\\'; break;
      case '/': decoded[used++] = '/'; break;
      case 'b': decoded[used++] = '\b'; break;
      case 'f': decoded[used++] = '\f'; break;
      case 'n': decoded[used++] = '\n'; break;
      case 'r': decoded[used++] = '\r'; break;
      case 't': decoded[used++] = '\t'; break;
      case 'u': {
        uint32_t code = 0;
        if (!take_hex4(p, &code)) {
          return fail(p, "\\u needs four hex digits");
        }
        if (code >= 0xD800 && code <= 0xDBFF) {
          uint32_t low = 0;
          if (!take_word(p, "\\u") || !take_hex4(p, &low) || low < 0xDC00 ||
              low > 0xDFFF) {
            return fail(p, "unpaired UTF-16 surrogate in \\u escape");
          }
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
          return fail(p, "unpaired UTF-16 surrogate in \\u escape");
        }
        if (code == 0) {
          return fail(p, "\\u0000 is not allowed in a string");
        }
        // \uXXXX is 6 source bytes and at most 3 UTF-8 bytes; a surrogate
        // pair is 12 and 4: the buffer is large enough.
        used += put_utf8(decoded + used, code);
        break;
      }
      default:
        return fail(p, "unknown escape in a string");
    }
  }
  decoded[used] = '\0';
  p->position = end + 1;
  *out = decoded;
  *length_out = used;
  return ETR_OK;
}

static etr_error_t parse_number(parser_t *p, etr_json_t *value) {
  size_t start = p->position;
  take(p, '-');
  if (take(p, '0')) {
    // no leading zeros
  } else if (p->position < p->length && p->text[p->position] >= '1' &&
             p->text[p->position] <= '9') {
    while (p->position < p->length && p->text[p->position] >= '0' &&
           p->text[p->position] <= '9') {
      ++p->position;
    }
  } else {
    return fail(p, "malformed number");
  }
  bool integral = true;
  if (take(p, '.')) {
    integral = false;
    size_t digits = p->position;
    while (p->position < p->length && p->text[p->position] >= '0' &&
           p->text[p->position] <= '9') {
      ++p->position;
    }
    if (p->position == digits) {
      return fail(p, "a digit must follow the decimal point");
    }
  }
  if (take(p, 'e') || take(p, 'E')) {
    integral = false;
    if (!take(p, '+')) {
      take(p, '-');
    }
    size_t digits = p->position;
    while (p->position < p->length && p->text[p->position] >= '0' &&
           p->text[p->position] <= '9') {
      ++p->position;
    }
    if (p->position == digits) {
      return fail(p, "a digit must follow the exponent");
    }
  }
  size_t n = p->position - start;
  char buffer[64];
  if (n >= sizeof(buffer)) {
    return fail(p, "number too long");
  }
  memcpy(buffer, p->text + start, n);
  buffer[n] = '\0';
  errno = 0;
  value->number = strtod(buffer, NULL);
  if (!isfinite(value->number)) {
    return fail(p, "number out of range");
  }
  value->type = ETR_JSON_NUMBER;
  if (integral) {
    errno = 0;
    long long integer = strtoll(buffer, NULL, 10);
    value->is_integer = errno == 0;
    value->integer = integer;
  } else if (value->number == floor(value->number) &&
             fabs(value->number) < 9.2e18) {
    value->is_integer = true;
    value->integer = (int64_t)value->number;
  }
  return ETR_OK;
}

// Scratch list of children (values and keys) while a container is read.
typedef struct {
  etr_json_t *items;
  const char **keys;
  uint32_t count;
  uint32_t capacity;
} children_t;

static bool push_child(children_t *list, const etr_json_t *item,
                       const char *key) {
  if (list->count == list->capacity) {
    uint32_t capacity = list->capacity ? list->capacity * 2 : 8;
    etr_json_t *items =
        (etr_json_t *)realloc(list->items, capacity * sizeof(etr_json_t));
    if (items == NULL) {
      return false;
    }
    list->items = items;
    const char **keys =
        (const char **)realloc((void *)list->keys, capacity * sizeof(char *));
    if (keys == NULL) {
      return false;
    }
    list->keys = keys;
    list->capacity = capacity;
  }
  list->items[list->count] = *item;
  list->keys[list->count] = key;
  ++list->count;
  return true;
}

static etr_error_t parse_value(parser_t *p, etr_json_t *value, int depth);

static etr_error_t finish_container(parser_t *p, children_t *list,
                                    etr_json_t *value, bool object) {
  value->count = list->count;
  value->items = (etr_json_t *)arena_copy(p, list->items,
                                          list->count * sizeof(etr_json_t));
  if (object) {
    value->keys = (const char **)arena_copy(p, (const void *)list->keys,
                                            list->count * sizeof(char *));
  }
  free(list->items);
  free((void *)list->keys);
  if (value->items == NULL || (object && value->keys == NULL)) {
    return ETR_FAIL(p->diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory reading JSON");
  }
  return ETR_OK;
}

static etr_error_t parse_container(parser_t *p, etr_json_t *value,
                                   bool object, int depth) {
  value->type = object ? ETR_JSON_OBJECT : ETR_JSON_ARRAY;
  children_t list = {0};
  etr_error_t status = ETR_OK;
  skip_space(p);
  if (take(p, object ? '}' : ']')) {
    return finish_container(p, &list, value, object);
  }
  for (;;) {
    const char *key = NULL;
    if (object) {
      skip_space(p);
      size_t key_length = 0;
      if (!take(p, '"')) {
        status = fail(p, "expected a string key");
        break;
      }
      status = parse_string(p, &key, &key_length);
      if (status != ETR_OK) {
        break;
      }
      skip_space(p);
      if (!take(p, ':')) {
        status = fail(p, "expected ':' after a key");
        break;
      }
    }
    etr_json_t child;
    status = parse_value(p, &child, depth + 1);
    if (status != ETR_OK) {
      break;
    }
    if (!push_child(&list, &child, key)) {
      status = ETR_FAIL(p->diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                        "out of memory reading JSON");
      break;
    }
    skip_space(p);
    if (take(p, ',')) {
      continue;
    }
    if (take(p, object ? '}' : ']')) {
      return finish_container(p, &list, value, object);
    }
    status = fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
    break;
  }
  free(list.items);
  free((void *)list.keys);
  return status;
}

static etr_error_t parse_value(parser_t *p, etr_json_t *value, int depth) {
  memset(value, 0, sizeof(*value));
  skip_space(p);
  value->line = p->line;
  value->column = column_of(p);
  if (depth > ETR_JSON_MAX_DEPTH) {
    return fail(p, "nested too deeply");
  }
  if (p->position >= p->length) {
    return fail(p, "unexpected end of the document");
  }
  char c = p->text[p->position];
  if (c == '{' || c == '[') {
    ++p->position;
    return parse_container(p, value, c == '{', depth);
  }
  if (c == '"') {
    ++p->position;
    value->type = ETR_JSON_STRING;
    return parse_string(p, &value->string, &value->length);
  }
  if (take_word(p, "true")) {
    value->type = ETR_JSON_BOOL;
    value->boolean = true;
    return ETR_OK;
  }
  if (take_word(p, "false")) {
    value->type = ETR_JSON_BOOL;
    return ETR_OK;
  }
  if (take_word(p, "null")) {
    value->type = ETR_JSON_NULL;
    return ETR_OK;
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    return parse_number(p, value);
  }
  return fail(p, "expected a value");
}

etr_error_t etr_json_parse(const char *text, size_t length,
                           etr_json_document_t *document, etr_diag_t *diag) {
  memset(document, 0, sizeof(*document));
  etr_arena_init_growable(&document->arena, 64 * 1024, 0);
  parser_t p = {
      .text = text,
      .length = length,
      .line = 1,
      .arena = &document->arena,
      .diag = diag,
  };
  // A UTF-8 byte order mark is tolerated, as many editors write one.
  if (length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
    p.position = p.line_start = 3;
  }
  etr_error_t status = parse_value(&p, &document->root, 0);
  if (status == ETR_OK) {
    skip_space(&p);
    if (p.position != p.length) {
      status = fail(&p, "unexpected text after the document");
    }
  }
  if (status != ETR_OK) {
    etr_json_release(document);
  }
  return status;
}

void etr_json_release(etr_json_document_t *document) {
  etr_arena_destroy(&document->arena);
  memset(document, 0, sizeof(*document));
}

const etr_json_t *etr_json_get(const etr_json_t *object, const char *key) {
  if (object == NULL || object->type != ETR_JSON_OBJECT) {
    return NULL;
  }
  const etr_json_t *found = NULL;
  for (uint32_t i = 0; i < object->count; ++i) {
    if (strcmp(object->keys[i], key) == 0) {
      found = &object->items[i];
    }
  }
  return found;
}

const char *etr_json_type_name(etr_json_type_t type) {
  switch (type) {
    case ETR_JSON_NULL: return "null";
    case ETR_JSON_BOOL: return "boolean";
    case ETR_JSON_NUMBER: return "number";
    case ETR_JSON_STRING: return "string";
    case ETR_JSON_ARRAY: return "array";
    case ETR_JSON_OBJECT: return "object";
  }
  return "unknown";
}

void etr_json_append_string(etr_text_t *out, const char *chars) {
  etr_text_append_raw(out, "\"", 1);
  for (const unsigned char *c = (const unsigned char *)chars;
       c != NULL && *c != '\0'; ++c) {
    switch (*c) {
      case '"': etr_text_append_raw(out, "\\\"", 2); break;
      case '\\': etr_text_append_raw(out, "\\\\", 2); break;
      case '\n': etr_text_append_raw(out, "\\n", 2); break;
      case '\r': etr_text_append_raw(out, "\\r", 2); break;
      case '\t': etr_text_append_raw(out, "\\t", 2); break;
      default:
        if (*c < 0x20) {
          etr_text_append(out, "\\u%04x", (unsigned)*c);
        } else {
          etr_text_append_raw(out, (const char *)c, 1);
        }
    }
  }
  etr_text_append_raw(out, "\"", 1);
}

void etr_json_append_number(etr_text_t *out, double value) {
  if (isnan(value)) {
    etr_text_append(out, "\"nan\"");
  } else if (isinf(value)) {
    etr_text_append(out, value > 0 ? "\"inf\"" : "\"-inf\"");
  } else {
    etr_text_append(out, "%.9g", value);
  }
}
