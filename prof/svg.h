// SPDX-License-Identifier: Apache-2.0
//
// Inline SVG charts for the profile report: primitives (rectangles with
// hover tooltips through <title>, lines, escaped text), a horizontal bar
// chart with optional min-max whiskers (noise) and a reference line, and a
// log-log roofline chart. Plain SVG 1.1: no script, no fonts or images
// fetched, so the report stays self-contained.
#ifndef ETR_PROF_SVG_H
#define ETR_PROF_SVG_H

#include <stdbool.h>
#include <stdint.h>

#include "prof/text.h"

#ifdef __cplusplus
extern "C" {
#endif

// A categorical color (cycles through a palette of 12).
const char *etr_svg_color(uint32_t index);

void etr_svg_begin(etr_text_t *out, double width, double height);
void etr_svg_end(etr_text_t *out);

// `anchor` is "start", "middle" or "end"; text is escaped.
void etr_svg_text(etr_text_t *out, double x, double y, const char *anchor,
                  double size, const char *fill, const char *text);
// `tooltip` (may be NULL) shows on hover.
void etr_svg_rect(etr_text_t *out, double x, double y, double width,
                  double height, const char *fill, const char *tooltip);
void etr_svg_line(etr_text_t *out, double x1, double y1, double x2,
                  double y2, const char *stroke, double stroke_width,
                  bool dashed);

typedef struct etr_svg_bar {
  const char *label;
  double value;
  bool has_range;  // draw a whisker from low to high
  double low;
  double high;
  uint32_t color;
} etr_svg_bar_t;

// Horizontal bars, one per row, scaled to the largest value (or high);
// `reference` > 0 draws a dashed vertical line there (1.0 for speedups).
// `unit` follows each value ("ms", "x", "KiB").
void etr_svg_bar_chart(etr_text_t *out, const char *title, const char *unit,
                       const etr_svg_bar_t *bars, uint32_t count,
                       double reference);

typedef struct etr_svg_point {
  const char *label;  // tooltip
  const char *group;  // legend entry (one per color)
  double intensity;  // FLOP per byte
  double gflops;
  uint32_t color;
} etr_svg_point_t;

// A roofline: compute roof at `peak` GFLOP/s, memory roofs of `dram` and
// `l2` GB/s, and one point per op (log-log).
void etr_svg_roofline(etr_text_t *out, const char *title, double peak,
                      double dram, double l2, const etr_svg_point_t *points,
                      uint32_t count);

#ifdef __cplusplus
}
#endif

#endif  // ETR_PROF_SVG_H
