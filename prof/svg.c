// SPDX-License-Identifier: Apache-2.0
//
// Inline SVG charts (see svg.h).
#include "prof/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const kPalette[12] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#2f4b7c", "#a05195"};

const char *etr_svg_color(uint32_t index) { return kPalette[index % 12]; }

void etr_svg_begin(etr_text_t *out, double width, double height) {
  etr_text_append(out,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                  "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                  "font-family=\"sans-serif\">\n"
                  "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
                  "fill=\"#ffffff\"/>\n",
                  width, height, width, height, width, height);
}

void etr_svg_end(etr_text_t *out) { etr_text_append(out, "</svg>"); }

void etr_svg_text(etr_text_t *out, double x, double y, const char *anchor,
                  double size, const char *fill, const char *text) {
  etr_text_append(out,
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
                  "font-size=\"%.1f\" fill=\"%s\">",
                  x, y, anchor, size, fill);
  etr_text_append_escaped(out, text);
  etr_text_append(out, "</text>\n");
}

void etr_svg_rect(etr_text_t *out, double x, double y, double width,
                  double height, const char *fill, const char *tooltip) {
  etr_text_append(out,
                  "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                  "height=\"%.2f\" fill=\"%s\"",
                  x, y, width > 0 ? width : 0, height > 0 ? height : 0, fill);
  if (tooltip == NULL) {
    etr_text_append(out, "/>\n");
    return;
  }
  etr_text_append(out, "><title>");
  etr_text_append_escaped(out, tooltip);
  etr_text_append(out, "</title></rect>\n");
}

void etr_svg_line(etr_text_t *out, double x1, double y1, double x2,
                  double y2, const char *stroke, double stroke_width,
                  bool dashed) {
  etr_text_append(out,
                  "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
                  "stroke=\"%s\" stroke-width=\"%.2f\"%s/>\n",
                  x1, y1, x2, y2, stroke, stroke_width,
                  dashed ? " stroke-dasharray=\"4 3\"" : "");
}

static void format_value(char *text, size_t capacity, double value,
                         const char *unit) {
  double magnitude = fabs(value);
  const char *format = magnitude >= 100   ? "%.0f %s"
                       : magnitude >= 10  ? "%.1f %s"
                       : magnitude >= 0.1 ? "%.2f %s"
                                          : "%.3g %s";
  snprintf(text, capacity, format, value, unit);
}

void etr_svg_bar_chart(etr_text_t *out, const char *title, const char *unit,
                       const etr_svg_bar_t *bars, uint32_t count,
                       double reference) {
  const double label_width = 300;
  const double plot_width = 520;
  const double row = 20;
  const double top = 34;
  double width = label_width + plot_width + 110;
  double height = top + row * (count > 0 ? count : 1) + 16;
  double largest = reference;
  for (uint32_t i = 0; i < count; ++i) {
    double high = bars[i].has_range ? bars[i].high : bars[i].value;
    largest = high > largest ? high : largest;
  }
  if (largest <= 0) {
    largest = 1;
  }
  double scale = plot_width / largest;
  etr_svg_begin(out, width, height);
  etr_svg_text(out, 8, 20, "start", 14, "#1d2330", title);
  for (uint32_t i = 0; i < count; ++i) {
    const etr_svg_bar_t *bar = &bars[i];
    double y = top + row * i;
    char value[64];
    format_value(value, sizeof(value), bar->value, unit);
    char tooltip[320];
    if (bar->has_range) {
      char low[64];
      char high[64];
      format_value(low, sizeof(low), bar->low, unit);
      format_value(high, sizeof(high), bar->high, unit);
      snprintf(tooltip, sizeof(tooltip), "%s: %s (min %s, max %s)",
               bar->label, value, low, high);
    } else {
      snprintf(tooltip, sizeof(tooltip), "%s: %s", bar->label, value);
    }
    etr_svg_text(out, label_width - 6, y + 14, "end", 11, "#1d2330",
                 bar->label);
    etr_svg_rect(out, label_width, y + 3, bar->value * scale, row - 6,
                 etr_svg_color(bar->color), tooltip);
    double end = bar->value * scale;
    if (bar->has_range) {
      double low = label_width + bar->low * scale;
      double high = label_width + bar->high * scale;
      etr_svg_line(out, low, y + row / 2, high, y + row / 2, "#1d2330", 1,
                   false);
      etr_svg_line(out, low, y + 5, low, y + row - 5, "#1d2330", 1, false);
      etr_svg_line(out, high, y + 5, high, y + row - 5, "#1d2330", 1, false);
      end = bar->high * scale;
    }
    etr_svg_text(out, label_width + end + 6, y + 14, "start", 11, "#333",
                 value);
  }
  if (reference > 0) {
    double x = label_width + reference * scale;
    etr_svg_line(out, x, top - 4, x, top + row * count, "#555", 1, true);
  }
  etr_svg_end(out);
}

void etr_svg_roofline(etr_text_t *out, const char *title, double peak,
                      double dram, double l2, const etr_svg_point_t *points,
                      uint32_t count) {
  const double left = 70;
  const double top = 40;
  const double plot_width = 620;
  const double plot_height = 360;
  double width = left + plot_width + 360;
  double height = top + plot_height + 50;
  // Axes: intensity 2^-6 .. 2^8 FLOP/byte, performance 10^-3 .. 10^3.
  const double x_min = -6 * log10(2.0);
  const double x_max = 8 * log10(2.0);
  const double y_min = -3;
  const double y_max = 3;
#define X(v) (left + (log10(v) - x_min) / (x_max - x_min) * plot_width)
#define Y(v) (top + plot_height - (log10(v) - y_min) / (y_max - y_min) * \
                                      plot_height)
  etr_svg_begin(out, width, height);
  etr_svg_text(out, 8, 16, "start", 14, "#1d2330", title);
  etr_svg_rect(out, left, top, plot_width, plot_height, "#fafbfc", NULL);
  char label[64];
  for (int e = (int)y_min; e <= (int)y_max; ++e) {
    double y = Y(pow(10, e));
    etr_svg_line(out, left, y, left + plot_width, y, "#e3e7ee", 1, false);
    snprintf(label, sizeof(label), "%g", pow(10, e));
    etr_svg_text(out, left - 6, y + 4, "end", 10, "#555", label);
  }
  for (int e = -6; e <= 8; e += 2) {
    double x = X(pow(2, e));
    etr_svg_line(out, x, top, x, top + plot_height, "#e3e7ee", 1, false);
    snprintf(label, sizeof(label), "%g", pow(2, e));
    etr_svg_text(out, x, top + plot_height + 14, "middle", 10, "#555", label);
  }
  etr_svg_text(out, left + plot_width / 2, top + plot_height + 32, "middle",
               11, "#333", "arithmetic intensity (FLOP / byte, compulsory)");
  etr_svg_text(out, left, top - 6, "end", 11, "#333", "GFLOP/s");
  // Roofs: min(peak, intensity * bandwidth), drawn as two segments each.
  const double bandwidths[2] = {l2, dram};
  const char *const names[2] = {"L2", "DRAM"};
  for (int b = 0; b < 2; ++b) {
    double ridge = peak / bandwidths[b];
    double x0 = pow(10, x_min);
    double y0 = x0 * bandwidths[b];
    double y_low = y0 < pow(10, y_min) ? pow(10, y_min) : y0;
    double x_low = y_low / bandwidths[b];
    etr_svg_line(out, X(x_low), Y(y_low), X(ridge), Y(peak), "#8892a6", 1.5,
                 b == 1);
    snprintf(label, sizeof(label), "%s %.0f GB/s", names[b], bandwidths[b]);
    etr_svg_text(out, X(x_low) + 4, Y(y_low) - 6, "start", 10, "#555", label);
  }
  double ridge = peak / dram < peak / l2 ? peak / dram : peak / l2;
  etr_svg_line(out, X(ridge), Y(peak), left + plot_width, Y(peak), "#8892a6",
               1.5, false);
  snprintf(label, sizeof(label), "peak %.0f GFLOP/s", peak);
  etr_svg_text(out, left + plot_width - 4, Y(peak) - 6, "end", 10, "#555",
               label);
  for (uint32_t i = 0; i < count; ++i) {
    const etr_svg_point_t *point = &points[i];
    if (point->intensity <= 0 || point->gflops <= 0) {
      continue;
    }
    double intensity = point->intensity;
    double gflops = point->gflops;
    intensity = fmin(fmax(intensity, pow(10, x_min)), pow(10, x_max));
    gflops = fmin(fmax(gflops, pow(10, y_min)), pow(10, y_max));
    char tooltip[256];
    snprintf(tooltip, sizeof(tooltip), "%s: %.3g FLOP/B, %.3g GFLOP/s",
             point->label, point->intensity, point->gflops);
    etr_text_append(out,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" "
                    "fill-opacity=\"0.85\" stroke=\"#1d2330\" "
                    "stroke-width=\"0.5\"><title>",
                    X(intensity), Y(gflops), etr_svg_color(point->color));
    etr_text_append_escaped(out, tooltip);
    etr_text_append(out, "</title></circle>\n");
  }
  // Legend: one entry per distinct color.
  double legend_y = top + 8;
  for (uint32_t i = 0; i < count && legend_y < top + plot_height; ++i) {
    bool first = true;
    for (uint32_t k = 0; k < i; ++k) {
      first = first && points[k].color != points[i].color;
    }
    if (!first || points[i].intensity <= 0 || points[i].gflops <= 0) {
      continue;
    }
    etr_svg_rect(out, left + plot_width + 14, legend_y, 10, 10,
                 etr_svg_color(points[i].color), NULL);
    etr_svg_text(out, left + plot_width + 30, legend_y + 9, "start", 10,
                 "#333", points[i].group);
    legend_y += 16;
  }
#undef X
#undef Y
  etr_svg_end(out);
}
