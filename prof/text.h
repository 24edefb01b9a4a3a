// SPDX-License-Identifier: Apache-2.0
//
// A growable text buffer with printf-style appends, for the report writers
// (SVG charts, HTML, Markdown, JSON, CSV), which run after the method and
// may allocate. An allocation failure sets `failed` and makes later appends
// no-ops; writers check it once at the end.
#ifndef ETR_PROF_TEXT_H
#define ETR_PROF_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_text {
  char *data;  // NUL-terminated (NULL until the first append)
  size_t length;
  size_t capacity;
  bool failed;
} etr_text_t;

void etr_text_init(etr_text_t *text);
void etr_text_release(etr_text_t *text);

void etr_text_append(etr_text_t *text, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void etr_text_append_raw(etr_text_t *text, const char *chars, size_t length);

// Appends `chars` with &, <, >, " escaped for HTML and XML (SVG).
void etr_text_append_escaped(etr_text_t *text, const char *chars);

// The contents ("" when empty).
const char *etr_text_str(const etr_text_t *text);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_TEXT_H
