// SPDX-License-Identifier: Apache-2.0
//
// A small document model for the profile report, written twice: as one
// self-contained HTML file (inline CSS and SVG; no script, no network) and
// as its Markdown twin (figures as .svg files beside it). Blocks are
// headings, paragraphs, bullet items, code blocks, tables and figures.
//
// Paragraph, bullet and cell text is plain text with two inline marks both
// writers understand: `code` and **bold**. Everything else is escaped for
// HTML (and '|' for Markdown table cells).
#ifndef ETR_PROF_REPORT_DOC_H
#define ETR_PROF_REPORT_DOC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_TABLE_MAX_COLUMNS 32

typedef struct etr_table {
  uint32_t columns;
  char *headers[ETR_TABLE_MAX_COLUMNS];
  bool numeric[ETR_TABLE_MAX_COLUMNS];  // right-aligned
  char **cells;                         // rows * columns, row-major
  uint32_t num_cells;
  uint32_t capacity;
  bool failed;
} etr_table_t;

typedef enum etr_doc_kind {
  ETR_DOC_HEADING = 0,
  ETR_DOC_PARAGRAPH = 1,
  ETR_DOC_BULLET = 2,
  ETR_DOC_CODE = 3,
  ETR_DOC_TABLE = 4,
  ETR_DOC_FIGURE = 5,
} etr_doc_kind_t;

typedef struct etr_doc_block {
  etr_doc_kind_t kind;
  int level;        // headings: 1..4
  char *text;       // text, code, SVG source or alt text
  char *file;       // figures: the .svg file of the Markdown twin
  char *alt;        // figures: caption and alt text
  etr_table_t *table;
} etr_doc_block_t;

typedef struct etr_doc {
  char *title;
  etr_doc_block_t *blocks;
  uint32_t num_blocks;
  uint32_t capacity;
  bool failed;  // out of memory somewhere: writing fails
} etr_doc_t;

void etr_doc_init(etr_doc_t *doc, const char *title);
void etr_doc_release(etr_doc_t *doc);

void etr_doc_heading(etr_doc_t *doc, int level, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void etr_doc_paragraph(etr_doc_t *doc, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void etr_doc_bullet(etr_doc_t *doc, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void etr_doc_code(etr_doc_t *doc, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

// A table whose columns are named in `headers`, separated by '|'; a name
// starting with '>' is a numeric (right-aligned) column. Fill it with
// etr_table_cell, row after row. NULL when out of memory.
etr_table_t *etr_doc_table(etr_doc_t *doc, const char *headers);
void etr_table_cell(etr_table_t *table, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

// A figure: `svg` (copied) inline in HTML, written to `file` for Markdown
// and shown there with `alt`.
void etr_doc_figure(etr_doc_t *doc, const char *svg, const char *file,
                    const char *alt);

// Writes the HTML document. AccessFailed when the file cannot be written,
// MemoryAllocationFailed when the document could not be built.
etr_error_t etr_doc_write_html(const etr_doc_t *doc, const char *path,
                               etr_diag_t *diag);

// Writes the Markdown twin to `directory`/`name` and every figure to
// `directory`/<its file>.
etr_error_t etr_doc_write_markdown(const etr_doc_t *doc,
                                   const char *directory, const char *name,
                                   etr_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_REPORT_DOC_H
