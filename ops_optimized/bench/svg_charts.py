# SPDX-License-Identifier: Apache-2.0
"""The benchmark report's charts, as self-contained SVG (no scripts, no
fonts or styles fetched from anywhere): per-case speedups over ExecuTorch,
a roofline plot of etref's optimized kernels, and whole-model latencies."""

import math
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple
from xml.sax.saxutils import escape

GROUPS = ["gemm", "conv", "elementwise", "reduction", "softmax", "norm", "pool", "resample",
          "movement"]
COLORS = {"gemm": "#1f77b4", "conv": "#d62728", "elementwise": "#2ca02c", "reduction": "#9467bd",
          "softmax": "#8c564b", "norm": "#e377c2", "pool": "#7f7f7f", "resample": "#bcbd22",
          "movement": "#17becf"}
RUNTIME_COLORS = ["#aaaaaa", "#1f77b4", "#17becf", "#ff7f0e", "#2ca02c"]


class Svg:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.items: List[str] = []

    def line(self, x1, y1, x2, y2, color="#000", width=1.0, dash="") -> None:
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"'
                          f' stroke="{color}" stroke-width="{width}"{extra}/>')

    def rect(self, x, y, w, h, color) -> None:
        self.items.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}"'
                          f' height="{h:.1f}" fill="{color}"/>')

    def circle(self, x, y, r, color, title="") -> None:
        tip = f"<title>{escape(title)}</title>" if title else ""
        self.items.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{color}"'
                          f' fill-opacity="0.75">{tip}</circle>')

    def text(self, x, y, content, size=11, anchor="start", color="#000", rotate=0) -> None:
        turn = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate else ""
        self.items.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}"'
                          f' font-family="sans-serif" text-anchor="{anchor}" fill="{color}"{turn}>'
                          f"{escape(str(content))}</text>")

    def write(self, path: Path) -> None:
        path.write_text(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}"'
            f' viewBox="0 0 {self.width} {self.height}">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(self.items)
            + "\n</svg>\n")


def _log_axis(low: float, high: float, start: float, end: float):
    span = math.log10(high) - math.log10(low)

    def place(value: float) -> float:
        value = min(max(value, low), high)
        return start + (math.log10(value) - math.log10(low)) / span * (end - start)

    return place


def speedup_chart(rows: Sequence[Dict[str, Any]], path: Path) -> None:
    """One row of dots per kernel family: the time of another runtime / etref
    optimized time per case (> 1: etref's optimized kernel faster), for
    etref's reference kernels, ExecuTorch's kernels and XNNPACK."""
    groups = [g for g in GROUPS if any(r["group"] == g for r in rows)]
    left, right, top, band = 110, 880, 50, 44
    svg = Svg(920, top + band * len(groups) + 60)
    x = _log_axis(0.1, 10000.0, left, right)
    svg.text(left, 20, "Speedup of etref optimized, per case (other time / etref optimized time;"
             " right of 1x: etref optimized faster)", 13)
    for tick in (0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000):
        svg.line(x(tick), top - 5, x(tick), top + band * len(groups), "#ddd" if tick != 1 else
                 "#000", 1 if tick != 1 else 1.5)
        svg.text(x(tick), top + band * len(groups) + 15, f"{tick:g}x", 10, "middle")
    for g, group in enumerate(groups):
        y0 = top + g * band
        svg.text(left - 8, y0 + band / 2 + 4, group, 11, "end")
        members = [r for r in rows if r["group"] == group]
        for i, row in enumerate(members):
            jitter = ((i * 7) % 11) / 11.0
            for key, color, offset in (("etref_reference", "#888888", 0.02),
                                       ("executorch", "#1f77b4", 0.33),
                                       ("executorch_xnnpack", "#ff7f0e", 0.64)):
                theirs, mine = row.get(key), row.get("etref_optimized")
                if theirs is None or mine is None or theirs <= 0 or mine <= 0:
                    continue
                value = theirs / mine
                svg.circle(x(value), y0 + band * (offset + 0.3 * jitter), 3, color,
                           f"{row['id']}: {value:.2f}x")
    legend_y = top + band * len(groups) + 38
    svg.circle(left, legend_y - 4, 4, "#888888")
    svg.text(left + 8, legend_y, "vs etref reference")
    svg.circle(left + 170, legend_y - 4, 4, "#1f77b4")
    svg.text(left + 178, legend_y, "vs ExecuTorch's kernels (pip runtime)")
    svg.circle(left + 450, legend_y - 4, 4, "#ff7f0e")
    svg.text(left + 458, legend_y, "vs ExecuTorch + XNNPACK delegate")
    svg.write(path)


def roof_percent_chart(rows: Sequence[Dict[str, Any]], path: Path) -> None:
    """One row of dots per kernel family: etref optimized's rate as a % of
    the attainable rate this run measured for the case (GFLOP/s against
    min(peak, intensity x bandwidth); GB/s against the bandwidth of the
    case's cache level and access pattern)."""
    groups = [g for g in GROUPS if any(r["group"] == g and r.get("roof_percent") is not None
                                       for r in rows)]
    left, right, top, band = 110, 880, 50, 36
    svg = Svg(920, top + band * len(groups) + 60)

    def x(percent: float) -> float:
        return left + min(max(percent, 0.0), 150.0) / 150.0 * (right - left)

    svg.text(left, 20, "etref optimized as % of this run's measured roofline, per case"
             " (GFLOP/s or GB/s)", 13)
    for tick in (0, 25, 50, 70, 80, 100, 125, 150):
        strong = tick in (70, 80, 100)
        svg.line(x(tick), top - 5, x(tick), top + band * len(groups), "#999" if strong else "#ddd",
                 1.0, "" if tick == 100 else ("4,3" if strong else ""))
        svg.text(x(tick), top + band * len(groups) + 15, f"{tick}%", 10, "middle")
    for g, group in enumerate(groups):
        y0 = top + g * band
        svg.text(left - 8, y0 + band / 2 + 4, group, 11, "end")
        members = [r for r in rows if r["group"] == group and r.get("roof_percent") is not None]
        for i, row in enumerate(members):
            jitter = ((i * 7) % 11) / 11.0
            svg.circle(x(row["roof_percent"]), y0 + band * (0.15 + 0.7 * jitter), 3,
                       COLORS.get(group, "#000"), f"{row['id']}: {row['roof_percent']:.0f}%")
    svg.text(left, top + band * len(groups) + 38, "dashed: the targets' 70% (conv2d) and 80%"
             " (GEMM, memory-bound elementwise); values above 150% drawn at 150%", 10)
    svg.write(path)


def roofline_chart(rows: Sequence[Dict[str, Any]], roof, path: Path) -> None:
    """Attained GFLOP/s of etref's optimized kernels against arithmetic
    intensity, under this run's measured roofs (peak; triad bandwidth per
    level)."""
    left, right, top, bottom = 70, 860, 40, 470
    svg = Svg(900, 540)
    x = _log_axis(0.01, 1000.0, left, right)
    y = _log_axis(0.01, 1000.0, bottom, top)
    svg.text(left, 20, f"Roofline: etref optimized, one core (measured peak {roof.peak:.0f}"
             " GFLOP/s; triad bandwidth per level)", 13)
    for tick in (0.01, 0.1, 1, 10, 100, 1000):
        svg.line(x(tick), top, x(tick), bottom, "#eee")
        svg.text(x(tick), bottom + 15, f"{tick:g}", 10, "middle")
        svg.line(left, y(tick), right, y(tick), "#eee")
        svg.text(left - 5, y(tick) + 4, f"{tick:g}", 10, "end")
    svg.text((left + right) / 2, bottom + 32, "arithmetic intensity (FLOP per byte moved)", 11,
             "middle")
    svg.text(22, (top + bottom) / 2, "GFLOP/s", 11, "middle", rotate=-90)
    svg.line(left, y(roof.peak), right, y(roof.peak), "#000", 1.5)
    for level, dash in (("L1", "2,2"), ("L2", "6,3"), ("L3", "9,3,2,3"), ("DRAM", "")):
        bandwidth = roof.best(level, "triad")[0] if level in roof.bandwidth else None
        if bandwidth is None:
            continue
        knee = roof.peak / bandwidth
        svg.line(x(0.01), y(0.01 * bandwidth), x(knee), y(roof.peak), "#555", 1, dash)
        svg.text(x(0.012), y(0.012 * bandwidth) - 4, f"{level} {bandwidth:.0f} GB/s", 9)
    for row in rows:
        if row["flops"] <= 0 or row.get("rate") is None:
            continue
        svg.circle(x(row["flops"] / max(row["bytes"], 1)), y(row["rate"]), 3.5,
                   COLORS.get(row["group"], "#000"), f"{row['id']}: {row['rate']:.1f} GFLOP/s")
    for i, group in enumerate(g for g in GROUPS if g != "movement"):
        svg.circle(left + 10 + i * 95, 510, 4, COLORS[group])
        svg.text(left + 18 + i * 95, 514, group, 10)
    svg.write(path)


def models_chart(latencies: Dict[str, Dict[str, float]], runtimes: Sequence[Tuple[str, str]],
                 path: Path) -> None:
    """Whole-model latency per runtime (log scale, seconds per forward)."""
    left, right, top, band = 110, 760, 50, 26 * len(runtimes) + 16
    svg = Svg(900, top + band * len(latencies) + 50)
    times = [max(v, 1e-9) for per_model in latencies.values() for v in per_model.values()]
    low = 10 ** math.floor(math.log10(max(min(times), 1e-7)))
    high = 10 ** math.ceil(math.log10(max(times)))
    x = _log_axis(low, high, left, right)
    svg.text(left, 20, "Whole-model latency, one thread (median thread CPU time per forward,"
             " log scale)", 13)
    models = list(latencies)
    tick = low
    while tick <= high * 1.0001:
        svg.line(x(tick), top - 5, x(tick), top + band * len(models), "#ddd")
        label = f"{tick * 1e3:g} ms" if tick >= 1e-3 else f"{tick * 1e6:g} us"
        svg.text(x(tick), top + band * len(models) + 15, label, 10, "middle")
        tick *= 10
    for m, model in enumerate(models):
        y0 = top + m * band
        svg.text(left - 8, y0 + band / 2, model, 12, "end")
        for r, (key, label) in enumerate(runtimes):
            value = max(latencies[model][key], 1e-9)
            color = RUNTIME_COLORS[r % len(RUNTIME_COLORS)]
            svg.rect(left, y0 + r * 26, x(value) - left, 20, color)
            text = f"{value * 1e3:.3g} ms" if value >= 1e-3 else f"{value * 1e6:.3g} us"
            svg.text(x(value) + 4, y0 + r * 26 + 14, f"{label}: {text}", 10)
    svg.write(path)
