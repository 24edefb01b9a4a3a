// SPDX-License-Identifier: Apache-2.0
//
// The growable text buffer (see text.h).
#include "prof/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void etr_text_init(etr_text_t *text) { memset(text, 0, sizeof(*text)); }

void etr_text_release(etr_text_t *text) {
  free(text->data);
  memset(text, 0, sizeof(*text));
}

static bool reserve(etr_text_t *text, size_t extra) {
  if (text->failed) {
    return false;
  }
  if (text->length + extra + 1 <= text->capacity) {
    return true;
  }
  size_t capacity = text->capacity != 0 ? text->capacity : 256;
  while (capacity < text->length + extra + 1) {
    if (capacity > ((size_t)-1) / 2) {
      text->failed = true;
      return false;
    }
    capacity *= 2;
  }
  char *grown = (char *)realloc(text->data, capacity);
  if (grown == NULL) {
    text->failed = true;
    return false;
  }
  text->data = grown;
  text->capacity = capacity;
  return true;
}

void etr_text_append_raw(etr_text_t *text, const char *chars, size_t length) {
  if (!reserve(text, length)) {
    return;
  }
  memcpy(text->data + text->length, chars, length);
  text->length += length;
  text->data[text->length] = '\0';
}

void etr_text_append(etr_text_t *text, const char *format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int needed = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (needed >= 0 && reserve(text, (size_t)needed)) {
    vsnprintf(text->data + text->length, (size_t)needed + 1, format, args);
    text->length += (size_t)needed;
  } else if (needed < 0) {
    text->failed = true;
  }
  va_end(args);
}

void etr_text_append_escaped(etr_text_t *text, const char *chars) {
  for (const char *c = chars; *c != '\0'; ++c) {
    switch (*c) {
      case '&':
        etr_text_append_raw(text, "&amp;", 5);
        break;
      case '<':
        etr_text_append_raw(text, "&lt;", 4);
        break;
      case '>':
        etr_text_append_raw(text, "&gt;", 4);
        break;
      case '"':
        etr_text_append_raw(text, "&quot;", 6);
        break;
      default:
        etr_text_append_raw(text, c, 1);
        break;
    }
  }
}

const char *etr_text_str(const etr_text_t *text) {
  return text->data != NULL ? text->data : "";
}
