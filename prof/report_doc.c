// SPDX-License-Identifier: Apache-2.0
//
// The report document and its HTML and Markdown writers (see
// report_doc.h).
#include "prof/report_doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/text.h"

static char *vformat(const char *format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int needed = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (needed < 0) {
    return NULL;
  }
  char *text = (char *)malloc((size_t)needed + 1);
  if (text != NULL) {
    vsnprintf(text, (size_t)needed + 1, format, args);
  }
  return text;
}

static char *copy_string(const char *text) {
  size_t length = strlen(text);
  char *copy = (char *)malloc(length + 1);
  if (copy != NULL) {
    memcpy(copy, text, length + 1);
  }
  return copy;
}

void etr_doc_init(etr_doc_t *doc, const char *title) {
  memset(doc, 0, sizeof(*doc));
  doc->title = copy_string(title);
  doc->failed = doc->title == NULL;
}

static void release_table(etr_table_t *table) {
  if (table == NULL) {
    return;
  }
  for (uint32_t c = 0; c < table->columns; ++c) {
    free(table->headers[c]);
  }
  for (uint32_t i = 0; i < table->num_cells; ++i) {
    free(table->cells[i]);
  }
  free(table->cells);
  free(table);
}

void etr_doc_release(etr_doc_t *doc) {
  for (uint32_t b = 0; b < doc->num_blocks; ++b) {
    free(doc->blocks[b].text);
    free(doc->blocks[b].file);
    free(doc->blocks[b].alt);
    release_table(doc->blocks[b].table);
  }
  free(doc->blocks);
  free(doc->title);
  memset(doc, 0, sizeof(*doc));
}

static etr_doc_block_t *add_block(etr_doc_t *doc, etr_doc_kind_t kind) {
  if (doc->num_blocks == doc->capacity) {
    uint32_t capacity = doc->capacity != 0 ? doc->capacity * 2 : 32;
    etr_doc_block_t *grown = (etr_doc_block_t *)realloc(
        doc->blocks, capacity * sizeof(etr_doc_block_t));
    if (grown == NULL) {
      doc->failed = true;
      return NULL;
    }
    doc->blocks = grown;
    doc->capacity = capacity;
  }
  etr_doc_block_t *block = &doc->blocks[doc->num_blocks++];
  memset(block, 0, sizeof(*block));
  block->kind = kind;
  return block;
}

static void add_text(etr_doc_t *doc, etr_doc_kind_t kind, int level,
                     const char *format, va_list args) {
  char *text = vformat(format, args);
  etr_doc_block_t *block = text != NULL ? add_block(doc, kind) : NULL;
  if (block == NULL) {
    free(text);
    doc->failed = true;
    return;
  }
  block->text = text;
  block->level = level;
}

void etr_doc_heading(etr_doc_t *doc, int level, const char *format, ...) {
  va_list args;
  va_start(args, format);
  add_text(doc, ETR_DOC_HEADING, level < 1 ? 1 : level > 4 ? 4 : level,
           format, args);
  va_end(args);
}

void etr_doc_paragraph(etr_doc_t *doc, const char *format, ...) {
  va_list args;
  va_start(args, format);
  add_text(doc, ETR_DOC_PARAGRAPH, 0, format, args);
  va_end(args);
}

void etr_doc_bullet(etr_doc_t *doc, const char *format, ...) {
  va_list args;
  va_start(args, format);
  add_text(doc, ETR_DOC_BULLET, 0, format, args);
  va_end(args);
}

void etr_doc_code(etr_doc_t *doc, const char *format, ...) {
  va_list args;
  va_start(args, format);
  add_text(doc, ETR_DOC_CODE, 0, format, args);
  va_end(args);
}

etr_table_t *etr_doc_table(etr_doc_t *doc, const char *headers) {
  etr_table_t *table = (etr_table_t *)calloc(1, sizeof(etr_table_t));
  etr_doc_block_t *block = table != NULL ? add_block(doc, ETR_DOC_TABLE)
                                         : NULL;
  if (block == NULL) {
    free(table);
    doc->failed = true;
    return NULL;
  }
  block->table = table;
  const char *start = headers;
  while (*start != '\0' && table->columns < ETR_TABLE_MAX_COLUMNS) {
    size_t length = strcspn(start, "|");
    bool numeric = *start == '>';
    char *name = (char *)malloc(length + 1);
    if (name == NULL) {
      doc->failed = true;
      return table;
    }
    memcpy(name, start + numeric, length - numeric);
    name[length - numeric] = '\0';
    table->numeric[table->columns] = numeric;
    table->headers[table->columns++] = name;
    start += length + (start[length] == '|');
  }
  return table;
}

void etr_table_cell(etr_table_t *table, const char *format, ...) {
  if (table == NULL || table->failed) {
    return;
  }
  if (table->num_cells == table->capacity) {
    uint32_t capacity = table->capacity != 0 ? table->capacity * 2 : 64;
    char **grown = (char **)realloc(table->cells, capacity * sizeof(char *));
    if (grown == NULL) {
      table->failed = true;
      return;
    }
    table->cells = grown;
    table->capacity = capacity;
  }
  va_list args;
  va_start(args, format);
  char *text = vformat(format, args);
  va_end(args);
  if (text == NULL) {
    table->failed = true;
    return;
  }
  table->cells[table->num_cells++] = text;
}

void etr_doc_figure(etr_doc_t *doc, const char *svg, const char *file,
                    const char *alt) {
  etr_doc_block_t *block = add_block(doc, ETR_DOC_FIGURE);
  if (block == NULL) {
    return;
  }
  block->text = copy_string(svg);
  block->file = copy_string(file);
  block->alt = copy_string(alt);
  if (block->text == NULL || block->file == NULL || block->alt == NULL) {
    doc->failed = true;
  }
}

// ---- inline marks -----------------------------------------------------

// Writes `text` as HTML: escaped, `code` and **bold** turned into tags.
static void html_inline(etr_text_t *out, const char *text) {
  bool in_code = false;
  bool in_bold = false;
  for (const char *c = text; *c != '\0'; ++c) {
    if (*c == '`') {
      etr_text_append(out, in_code ? "</code>" : "<code>");
      in_code = !in_code;
    } else if (!in_code && c[0] == '*' && c[1] == '*') {
      etr_text_append(out, in_bold ? "</b>" : "<b>");
      in_bold = !in_bold;
      ++c;
    } else {
      char one[2] = {*c, '\0'};
      etr_text_append_escaped(out, one);
    }
  }
  if (in_code) {
    etr_text_append(out, "</code>");
  }
  if (in_bold) {
    etr_text_append(out, "</b>");
  }
}

static const char kStyle[] =
    "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;"
    "margin:2em auto;max-width:1400px;padding:0 1em;color:#1d2330;"
    "line-height:1.45}"
    "h1{font-size:1.6em}h2{font-size:1.3em;margin-top:2em;border-bottom:"
    "1px solid #d8dde6;padding-bottom:.2em}h3{font-size:1.1em}"
    "code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;"
    "font-size:.9em}pre{background:#f4f6f9;padding:.8em;overflow-x:auto;"
    "white-space:pre-wrap}code{background:#f4f6f9;padding:0 .2em}"
    ".scroll{overflow-x:auto;margin:1em 0}"
    "table{border-collapse:collapse;font-size:.85em}"
    "th,td{border:1px solid #d8dde6;padding:.25em .5em;vertical-align:top}"
    "th{background:#eef1f6;position:sticky;top:0}"
    "tr:nth-child(even) td{background:#fafbfc}td.n{text-align:right;"
    "font-variant-numeric:tabular-nums;white-space:nowrap}"
    "figure{margin:1em 0}figcaption{font-size:.85em;color:#555}"
    "svg{max-width:100%;height:auto}";

static void html_table(etr_text_t *out, const etr_table_t *table) {
  etr_text_append(out, "<div class=\"scroll\"><table>\n<tr>");
  for (uint32_t c = 0; c < table->columns; ++c) {
    etr_text_append(out, "<th>");
    html_inline(out, table->headers[c]);
    etr_text_append(out, "</th>");
  }
  etr_text_append(out, "</tr>\n");
  uint32_t columns = table->columns != 0 ? table->columns : 1;
  for (uint32_t i = 0; i < table->num_cells; ++i) {
    uint32_t c = i % columns;
    if (c == 0) {
      etr_text_append(out, "<tr>");
    }
    etr_text_append(out, table->numeric[c] ? "<td class=\"n\">" : "<td>");
    html_inline(out, table->cells[i]);
    etr_text_append(out, "</td>");
    if (c + 1 == columns || i + 1 == table->num_cells) {
      etr_text_append(out, "</tr>\n");
    }
  }
  etr_text_append(out, "</table></div>\n");
}

static etr_error_t write_file(const char *path, const etr_text_t *text,
                              etr_diag_t *diag) {
  ETR_CHECK(diag, !text->failed, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory writing %s", path);
  FILE *file = fopen(path, "wb");
  ETR_CHECK(diag, file != NULL, ETR_ERR_ACCESS_FAILED, "cannot write %s",
            path);
  bool ok = fwrite(etr_text_str(text), 1, text->length, file) == text->length;
  ok = fclose(file) == 0 && ok;
  ETR_CHECK(diag, ok, ETR_ERR_ACCESS_FAILED, "cannot write %s", path);
  return ETR_OK;
}

static bool tables_ok(const etr_doc_t *doc) {
  for (uint32_t b = 0; b < doc->num_blocks; ++b) {
    if (doc->blocks[b].table != NULL && doc->blocks[b].table->failed) {
      return false;
    }
  }
  return !doc->failed;
}

etr_error_t etr_doc_write_html(const etr_doc_t *doc, const char *path,
                               etr_diag_t *diag) {
  ETR_CHECK(diag, tables_ok(doc), ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory building the report");
  etr_text_t out;
  etr_text_init(&out);
  etr_text_append(&out,
                  "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                  "charset=\"utf-8\"><title>");
  etr_text_append_escaped(&out, doc->title);
  etr_text_append(&out, "</title>\n<style>%s</style></head><body>\n",
                  kStyle);
  bool in_list = false;
  for (uint32_t b = 0; b < doc->num_blocks; ++b) {
    const etr_doc_block_t *block = &doc->blocks[b];
    if (in_list && block->kind != ETR_DOC_BULLET) {
      etr_text_append(&out, "</ul>\n");
      in_list = false;
    }
    switch (block->kind) {
      case ETR_DOC_HEADING:
        etr_text_append(&out, "<h%d>", block->level);
        html_inline(&out, block->text);
        etr_text_append(&out, "</h%d>\n", block->level);
        break;
      case ETR_DOC_PARAGRAPH:
        etr_text_append(&out, "<p>");
        html_inline(&out, block->text);
        etr_text_append(&out, "</p>\n");
        break;
      case ETR_DOC_BULLET:
        if (!in_list) {
          etr_text_append(&out, "<ul>\n");
          in_list = true;
        }
        etr_text_append(&out, "<li>");
        html_inline(&out, block->text);
        etr_text_append(&out, "</li>\n");
        break;
      case ETR_DOC_CODE:
        etr_text_append(&out, "<pre>");
        etr_text_append_escaped(&out, block->text);
        etr_text_append(&out, "</pre>\n");
        break;
      case ETR_DOC_TABLE:
        html_table(&out, block->table);
        break;
      case ETR_DOC_FIGURE:
        etr_text_append(&out, "<figure>%s<figcaption>", block->text);
        html_inline(&out, block->alt);
        etr_text_append(&out, "</figcaption></figure>\n");
        break;
    }
  }
  if (in_list) {
    etr_text_append(&out, "</ul>\n");
  }
  etr_text_append(&out, "</body></html>\n");
  etr_error_t status = write_file(path, &out, diag);
  etr_text_release(&out);
  return status;
}

// Markdown table cells: '|' escaped, newlines flattened.
static void markdown_cell(etr_text_t *out, const char *text) {
  for (const char *c = text; *c != '\0'; ++c) {
    if (*c == '|') {
      etr_text_append(out, "\\|");
    } else if (*c == '\n') {
      etr_text_append(out, " ");
    } else {
      etr_text_append_raw(out, c, 1);
    }
  }
}

static void markdown_table(etr_text_t *out, const etr_table_t *table) {
  etr_text_append(out, "|");
  for (uint32_t c = 0; c < table->columns; ++c) {
    etr_text_append(out, " ");
    markdown_cell(out, table->headers[c]);
    etr_text_append(out, " |");
  }
  etr_text_append(out, "\n|");
  for (uint32_t c = 0; c < table->columns; ++c) {
    etr_text_append(out, table->numeric[c] ? " ---: |" : " --- |");
  }
  etr_text_append(out, "\n");
  uint32_t columns = table->columns != 0 ? table->columns : 1;
  for (uint32_t i = 0; i < table->num_cells; ++i) {
    uint32_t c = i % columns;
    etr_text_append(out, c == 0 ? "| " : " ");
    markdown_cell(out, table->cells[i]);
    etr_text_append(out, " |");
    if (c + 1 == columns || i + 1 == table->num_cells) {
      etr_text_append(out, "\n");
    }
  }
  etr_text_append(out, "\n");
}

etr_error_t etr_doc_write_markdown(const etr_doc_t *doc,
                                   const char *directory, const char *name,
                                   etr_diag_t *diag) {
  ETR_CHECK(diag, tables_ok(doc), ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory building the report");
  etr_text_t out;
  etr_text_init(&out);
  etr_error_t status = ETR_OK;
  bool in_list = false;
  for (uint32_t b = 0; b < doc->num_blocks && status == ETR_OK; ++b) {
    const etr_doc_block_t *block = &doc->blocks[b];
    if (in_list && block->kind != ETR_DOC_BULLET) {
      etr_text_append(&out, "\n");
      in_list = false;
    }
    switch (block->kind) {
      case ETR_DOC_HEADING:
        etr_text_append(&out, "%.*s %s\n\n", block->level, "####",
                        block->text);
        break;
      case ETR_DOC_PARAGRAPH:
        etr_text_append(&out, "%s\n\n", block->text);
        break;
      case ETR_DOC_BULLET:
        etr_text_append(&out, "- %s\n", block->text);
        in_list = true;
        break;
      case ETR_DOC_CODE:
        etr_text_append(&out, "```\n%s\n```\n\n", block->text);
        break;
      case ETR_DOC_TABLE:
        markdown_table(&out, block->table);
        break;
      case ETR_DOC_FIGURE: {
        etr_text_append(&out, "![%s](%s)\n\n", block->alt,
                        block->file);
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", directory, block->file);
        etr_text_t svg;
        etr_text_init(&svg);
        etr_text_append(&svg, "%s\n", block->text);
        status = write_file(path, &svg, diag);
        etr_text_release(&svg);
        break;
      }
    }
  }
  if (status == ETR_OK) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", directory, name);
    status = write_file(path, &out, diag);
  }
  etr_text_release(&out);
  return status;
}
