// SPDX-License-Identifier: Apache-2.0
//
// Pieces shared by the report writers (report.c, report_sections.c,
// report_compare.c, export.c): number formatting and the section builders.
// Not a public interface.
#ifndef ETR_PROF_REPORT_INTERNAL_H
#define ETR_PROF_REPORT_INTERNAL_H

#include <stddef.h>

#include "prof/report.h"
#include "prof/report_doc.h"

// A time in microseconds with a precision that suits its size.
const char *etr_format_us(char *text, size_t capacity, double ns);
// A byte count as B / KiB / MiB.
const char *etr_format_bytes(char *text, size_t capacity, double bytes);
// A ratio: 1537, 16.88, 0.0033 (no exponent).
const char *etr_format_ratio(char *text, size_t capacity, double ratio);
// "-" when !known, else a number with 3 significant digits.
const char *etr_format_number(char *text, size_t capacity, double value,
                              bool known);

// Sections (report_sections.c).
void etr_report_timeline(etr_doc_t *doc, const etr_profile_report_t *report,
                         const etr_profile_variant_t *v);
void etr_report_op_table(etr_doc_t *doc, const etr_profile_report_t *report,
                         const etr_profile_variant_t *v);
void etr_report_top_ops(etr_doc_t *doc, const etr_profile_variant_t *v);
void etr_report_types(etr_doc_t *doc, const etr_profile_variant_t *v);
void etr_report_noise(etr_doc_t *doc, const etr_profile_report_t *report,
                      const etr_profile_variant_t *v);
void etr_report_roofline(etr_doc_t *doc, const etr_profile_report_t *report,
                         const etr_profile_variant_t *v);
void etr_report_memory(etr_doc_t *doc, const etr_profile_variant_t *v);

// Comparisons and overhead (report_compare.c).
void etr_report_speedup(etr_doc_t *doc, const etr_profile_report_t *report);
void etr_report_executorch(etr_doc_t *doc,
                           const etr_profile_report_t *report);
void etr_report_delegates(etr_doc_t *doc, const etr_profile_report_t *report);
void etr_report_overhead(etr_doc_t *doc, const etr_profile_report_t *report);

// One color per operator across the report: its rank in the first kernel
// library's summary by type (slowest first).
uint32_t etr_report_color(const etr_profile_report_t *report,
                          const char *name);

// The variant's name ("reference" / "optimized").
const char *etr_report_variant_name(const etr_profile_variant_t *v);

#endif  // ETR_PROF_REPORT_INTERNAL_H
