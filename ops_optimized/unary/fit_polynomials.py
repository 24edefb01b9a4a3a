#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fits the polynomial and rational approximations of vmath.h and prints
them as C literals: float, or double for the rational function vmath.h
evaluates in double. Deterministic (Chebyshev nodes, no randomness).

Each fit is a weighted minimax fit by Lawson's iteratively reweighted
least squares (rational ones by Loeb's linearization), against mpmath at
40 digits. The weights make the printed error the one that matters: the
relative error of the function the polynomial is part of. vmath.h's
comments name the fit each constant array comes from; the end-to-end
error bounds (in float ULPs, rounding included) are stated and tested in
ops_optimized/test/diff_elementwise_unary_test.c and, for gelu,
diff_elementwise_gelu_test.c.

Usage: python3 ops_optimized/unary/fit_polynomials.py  (needs numpy, mpmath)
       python3 ops_optimized/unary/fit_polynomials.py --gelu-tables \
           > ops_optimized/unary/vmath_gelu_tables.h
       python3 ops_optimized/unary/fit_polynomials.py --abs-tables \
           > ops_optimized/unary/vmath_abs_tables.h
The second form writes the per-interval coefficient tables of gelu's
AVX-512 table path (vmath.h's vf_gelu_rows), the third those of tanh's
and sigmoid's (vf_table_poly).
"""
import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 40


def cheb(a, b, n):
    k = np.arange(n)
    return (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (k + 0.5) / n)


def lawson(basis, target, weight, xs, iters=60):
    a = np.array([basis(x) for x in xs], dtype=float)
    t = np.array(target, dtype=float)
    w = np.array(weight, dtype=float)
    lw = np.ones(len(xs)) / len(xs)
    for _ in range(iters):
        sw = np.sqrt(lw) * w
        c, *_ = np.linalg.lstsq(a * sw[:, None], t * sw, rcond=None)
        err = np.abs((a @ c - t) * w)
        lw = lw * np.maximum(err, 1e-300)
        lw /= lw.sum()
    return c, np.abs((a @ c - t) * w).max()


def loeb(zs, values, n, m, iters=80):
    """P (degree n) / Q (degree m, Q(0) = 1) ~ values, relative error."""
    previous_q = np.ones(len(zs))
    lw = np.ones(len(zs)) / len(zs)
    best = None
    for _ in range(iters):
        a = np.hstack([np.array([zs ** k for k in range(n + 1)]).T,
                       -(values[:, None] *
                         np.array([zs ** k for k in range(1, m + 1)]).T)])
        sw = np.sqrt(lw) / (values * previous_q)
        c, *_ = np.linalg.lstsq(a * sw[:, None], values * sw, rcond=None)
        p, q = c[:n + 1], np.concatenate([[1.0], c[n + 1:]])
        qz = np.polyval(q[::-1], zs)
        err = np.abs(np.polyval(p[::-1], zs) / qz / values - 1)
        if best is None or err.max() < best[0]:
            best = (err.max(), p, q)
        previous_q = qz
        lw = lw * np.maximum(err, 1e-300)
        lw /= lw.sum()
    return best


def show(name, coefficients, error, note, in_double=False):
    literals = ", ".join(("%.17g" % c) if in_double else
                         ("%.9gf" % np.float32(c)) for c in coefficients)
    print("// %s: %s; max weighted error %.3g" % (name, note, error))
    print("{%s}" % literals)


def power_basis(degree):
    return lambda x: [x ** k for k in range(degree + 1)]


# gelu's table paths: a = |x| = c + t, c = i / 8 for i in [0, 31], |t|
# <= 1/16 (t >= 0 for i = 0); per interval a polynomial of degree 5 in t
# for Phi(-a) (approximate="none") or (1 - tanh(u(a))) / 2 (approximate=
# "tanh"), and gelu = max(0, x) - a P(t) (x (1 - P) for x >= 0, x P
# below) in one multiply-add: 5.2e-8 relative. Relative error, since Phi
# is tiny on the left. The coefficients are rounded to float one at a
# time from the constant term on, the others refitted after each
# rounding. (The table of x itself it replaced, intervals of 1/4 over
# [-4, 4), needed degree 6 for 4.5e-8: a row and a multiply-add more a
# vector.) The narrow tables, for CPUs where a 16-entry lookup (one
# single-source vpermps) is cheaper than a 32-entry one (vpermt2ps; AMD
# Zen 4, isa.h's etr_isa_narrow_lookups): c = i / 4 for i in [0, 15],
# |t| <= 1/8. There degree 5 holds the error of degree 6 (4.4e-8, the
# coefficients' rounding dominating both) for a < 3.375 (entries 0 to
# 13), not above (9.6e-8 and 1.8e-7 on the last two, 1.2e-7 and 2.9e-7
# for the tanh form). Those two only weigh on gelu for x < 0: for x > 0
# gelu = x (1 - P), and P's relative error reaches it multiplied by P /
# (1 - P) < 1e-3. So the narrow table (*16) has degree 5, and vmath.h
# takes it for -3.375 < x < 3.875; a lane at or below -3.375 takes the
# tail table (*16Tail), degree 6 (3.3e-8 and 4.5e-8 over every entry),
# which the narrow path had everywhere before: a lookup and a
# multiply-add more a vector.
GELU_TABLES = {"": dict(step=0.125, degree=5, entries=32),
               "16": dict(step=0.25, degree=5, entries=16),
               "16Tail": dict(step=0.25, degree=6, entries=16)}
# The entries of the narrow table that gelu takes for x < 0 (a < 3.375):
# its header gives their error apart from the others'.
GELU_NARROW_NEGATIVE_ENTRIES = 14


def gelu_phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def gelu_tanh_phi(x):
    inner = mp.sqrt(2 / mp.pi) * (x + mp.mpf("0.044715") * x ** 3)
    return (1 + mp.tanh(inner)) / 2


def fit_rounded(target, weight, ts, degree, first=0):
    """Coefficients 0..degree of a power-basis fit to target at ts, each
    rounded to float in turn from `first` on (those below stay 0) with
    the higher ones refitted (weighted by Lawson) after each rounding."""
    basis = np.array([power_basis(degree)(t) for t in ts])
    rounded = np.zeros(degree + 1)
    for k in range(first, degree + 1):
        residual = target - basis[:, :k] @ rounded[:k]
        c, _ = lawson(lambda t: power_basis(degree)(t)[k:], residual,
                      weight, ts)
        rounded[k] = np.float32(c[0])
    return rounded


def fit_gelu_table(f, step, degree, entries):
    """The table and each entry's relative error."""
    table = np.zeros((degree + 1, entries))
    worst = []
    for i in range(entries):
        low = 0.0 if i == 0 else -step / 2 * 1.0001
        ts = cheb(low, step / 2 * 1.0001, 80)
        basis = np.array([power_basis(degree)(t) for t in ts])
        values = np.array([float(f(-(mp.mpf(i) * step + mp.mpf(t))))
                           for t in ts])
        rounded = fit_rounded(values, 1 / values, ts, degree)
        worst.append(np.abs((basis @ rounded - values) / values).max())
        table[:, i] = rounded
    return table, worst


def print_c_table(name, table):
    """A static const float NAME[rows][entries] of table's rows, 4 a
    line."""
    print("static const float %s[%d][%d] = {"
          % (name, len(table), len(table[0])))
    for row in table:
        literals = ["%.9g" % np.float32(c) for c in row]
        literals = [c + ("f" if any(ch in c for ch in ".e") else ".0f")
                    for c in literals]
        print("    {")
        for j in range(0, len(row), 4):
            print("        " + ", ".join(literals[j:j + 4]) + ",")
        print("    },")
    print("};")


def print_gelu_tables():
    print("// SPDX-License-Identifier: Apache-2.0\n//\n"
          "// Generated by ops_optimized/unary/fit_polynomials.py "
          "--gelu-tables; do not\n// edit. The coefficient tables of "
          "vmath.h's vf_gelu_rows: entry i of row k\n// is the "
          "coefficient of t^k of the polynomial for Phi(-a) (each "
          "table's Phi\n// below), a = |x| = i / 8 + t, |t| <= 1/16, i in "
          "[0, 31]; in the narrow\n// tables (*16, *16Tail) a = "
          "i / 4 + t, |t| <= 1/8, i in [0, 15].")
    print("#ifndef ETR_OPS_OPTIMIZED_UNARY_VMATH_GELU_TABLES_H")
    print("#define ETR_OPS_OPTIMIZED_UNARY_VMATH_GELU_TABLES_H")
    for suffix, shape in GELU_TABLES.items():
        for name, f, what in (
                ("kGeluErfTable", gelu_phi,
                 "Phi(x) = erfc(-x / sqrt 2) / 2"),
                ("kGeluTanhTable", gelu_tanh_phi,
                 "(1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2")):
            table, errors = fit_gelu_table(f, **shape)
            if suffix == "16":
                below = GELU_NARROW_NEGATIVE_ENTRIES
                print("\n// %s;\n// max relative error %.3g on entries 0 to "
                      "%d, %.3g on the others." % (what, max(errors[:below]),
                                                   below - 1,
                                                   max(errors[below:])))
            else:
                print("\n// %s;\n// max relative error %.3g."
                      % (what, max(errors)))
            print_c_table(name + suffix, table)
    print("\n#endif  // ETR_OPS_OPTIMIZED_UNARY_VMATH_GELU_TABLES_H")


# The table path of tanh (AVX-512): 32 intervals of a = |x| that widen
# with a, 8 to each binade of u = a + 1/2: [0, 1/2) in sixteenths, [1/2,
# 3/2) in eighths, [3/2, 7/2) in quarters, [7/2, 7) in halves, and the
# last one [7, TANH_TABLE_CAP], past which tanh is 1 in float (over it
# tanh moves by 1.2e-6 only). The kernel reads interval j off u's
# exponent and top 3 mantissa bits (u's bits >> 20, u capped below 8,
# which is j + 1008: entry (j + 16) mod 32 holds it, so no subtraction is
# needed) and its left edge c as u with the other bits cleared, minus
# 1/2; t = a - c is in [0, width] (slightly below 0 where a + 1/2 rounds
# up to an edge). Per interval f(c + t) = hi + t P(t) (fit_hi_poly), hi
# = f(c) rounded to float (interval 0: hi = 0 and tanh = t P(t)), with no
# row for the rest of f(c): the kernel's last multiply-add adds t P to
# hi, rounded once. The fit's error (4e-8 relative, up to half an ULP of
# hi from hi's rounding, and the ULP of tanh's float is at least hi's)
# and that rounding keep the result within 1.5 ULP of tanh, so within 1
# ULP of its correctly rounded float. The row of that rest (hi + (lo + t
# P(t)), 1.9e-8) took a lookup and an addition more: 8% of the
# throughput on Zen 4. P of degree 3 (4 in t), where uniform quarters
# needed degree 6 for 1.4e-9 (degree 5: 3.6e-8 on [1/8, 3/8]): the narrow
# intervals go where tanh bends, near 0. Relative error; the coefficients
# are rounded to float one at a time from the lowest on, the others
# refitted after each.
TANH_TABLE_CAP = 9.125
TANH_TABLE_OFFSET = 0.5  # u = a + 1/2
TANH_TABLE_DEGREE = 4
TANH_TABLE_ROTATE = 16  # (bits of 0.5f >> 20) mod 32


def tanh_intervals():
    """The [left, right] of each interval of the tanh table."""
    intervals = []
    for binade in range(4):
        width = TANH_TABLE_OFFSET * 2.0 ** binade / 8
        for k in range(8):
            left = TANH_TABLE_OFFSET * (2.0 ** binade - 1) + k * width
            intervals.append((left, left + width))
    intervals[-1] = (intervals[-1][0], TANH_TABLE_CAP)
    return intervals


def fit_hi_poly(f, c, ts, degree, g=None):
    """One interval's column, f(c + t) = hi + t P(t) at the points ts: hi
    = f(c) rounded to float, then P's coefficients rounded as fit_rounded
    does, and its error relative to g (f unless given: the function of
    which f is a part)."""
    values = [f(c + mp.mpf(t)) for t in ts]
    hi = float(np.float32(float(f(c))))
    residual = np.array([float(v - mp.mpf(hi)) for v in values])
    fvalues = np.array([float((g or f)(c + mp.mpf(t))) for t in ts])
    basis = np.array([power_basis(degree)(t) for t in ts])
    rounded = fit_rounded(residual, 1 / fvalues, ts, degree, first=1)
    err = np.abs((basis @ rounded - residual) / fvalues).max()
    return np.concatenate(([hi], rounded[1:])), err


def fit_abs_table(f, last_high, step, entries, degree):
    table = np.zeros((degree + 1, entries))  # hi, then P's coefficients
    worst = 0.0
    for i in range(entries):
        low = 0.0 if i == 0 else -step / 2 * 1.0001
        high = (last_high - i * step if i == entries - 1
                else step / 2) * 1.0001
        table[:, i], err = fit_hi_poly(f, mp.mpf(i) * step,
                                       cheb(low, high, 120), degree)
        worst = max(worst, err)
    return table, worst


def fit_tanh_table(f=mp.tanh, linear_first=False):
    """The table of f over tanh_intervals (tanh's, and erf's: erf bends
    about as tanh does, and is 1 in float from 3.92). `linear_first`:
    the first interval's column is f(t) - t = t P(t) (hi 0), for a kernel
    that adds t itself (vmath_explog.h's vf_erf: erf'(0) = 2 / sqrt(pi)
    rounded to float is 5.4e-8 off, which cost 2 ULP near 0; 2 / sqrt(pi)
    - 1 rounded is off by 5e-8 of 0.128)."""
    degree = TANH_TABLE_DEGREE
    table = np.zeros((degree + 1, 32))  # hi, P's coefficients
    worst = 0.0
    for j, (left, right) in enumerate(tanh_intervals()):
        width = right - left
        # t dips below 0 by half an ulp of u = a + 1 at most: 2^-20 of
        # the binade's widths.
        low = 0.0 if j == 0 else -width * 2.0 ** -19
        ts = cheb(low, width * 1.0001, 120)
        if linear_first and j == 0:
            column, err = fit_hi_poly(lambda v: f(v) - v, mp.mpf(left), ts,
                                      degree, g=f)
        else:
            column, err = fit_hi_poly(f, mp.mpf(left), ts, degree)
        table[:, (j + TANH_TABLE_ROTATE) % 32] = column
        worst = max(worst, err)
    return table, worst


# sigmoid's table path (AVX-512) takes a = |x| < 7.75: s = sigmoid(-a) =
# 1 / (1 + e^a) from a table of intervals as tanh's (c = i / 4, |t| <=
# 1/8, the last interval to 7.875), hi + t P(t) as tanh's, P of degree
# 3 (degree 4 in t: 4.4e-8 relative, 1.6e-8 with a row of lo; the former
# table of x itself needed intervals of 1/2 and degree 5 for 1.2e-8), and
# sigmoid(x) = 1 - s for x >= 0 (s <= 1/2: the subtraction loses
# nothing, and sigmoid's bound is 2 ULP).
SIGMOID_TABLE_END = 7.75
SIGMOID_TABLE = dict(step=0.25, entries=32, degree=4)


def print_tables():
    print("// SPDX-License-Identifier: Apache-2.0\n//\n"
          "// Generated by ops_optimized/unary/fit_polynomials.py "
          "--abs-tables; do not\n// edit. The coefficient tables of "
          "vmath.h's vf_tanh, vf_erf and vf_sigmoid\n// table paths, one "
          "column an interval c + t of a = |x|: row 0 is f(c)\n// rounded to "
          "float (hi), row k the coefficient of t^k: f = hi + t P(t).")
    print("#ifndef ETR_OPS_OPTIMIZED_UNARY_VMATH_ABS_TABLES_H")
    print("#define ETR_OPS_OPTIMIZED_UNARY_VMATH_ABS_TABLES_H")
    tanh_table, tanh_worst = fit_tanh_table()
    print("\n// f(a) = tanh(a), a up to %g; interval j (tanh_intervals in\n"
          "// fit_polynomials.py: sixteenths, eighths, quarters, halves) in "
          "entry\n// (j + %d) mod 32; max relative error of the fit, "
          "coefficients rounded:\n// %.3g."
          % (TANH_TABLE_CAP, TANH_TABLE_ROTATE, tanh_worst))
    print_c_table("kTanhTable", tanh_table)
    erf_table, erf_worst = fit_tanh_table(mp.erf, linear_first=True)
    print("\n// f(a) = erf(a), a up to %g, on tanh's intervals, the first "
          "one's column\n// for f(t) - t; max relative error of the fit, "
          "coefficients rounded:\n// %.3g."
          % (TANH_TABLE_CAP, erf_worst))
    print_c_table("kErfTable", erf_table)
    sigmoid_table, sigmoid_worst = fit_abs_table(
        lambda a: 1 / (1 + mp.exp(a)), SIGMOID_TABLE_END + 0.125,
        **SIGMOID_TABLE)
    print("\n// f(a) = sigmoid(-a) = 1 / (1 + e^a), a < %g; interval i (c "
          "= i / %g) in\n// entry i; max relative error of the fit, "
          "coefficients rounded: %.3g."
          % (SIGMOID_TABLE_END, 1 / SIGMOID_TABLE["step"], sigmoid_worst))
    print_c_table("kSigmoidTable", sigmoid_table)
    print("\n#endif  // ETR_OPS_OPTIMIZED_UNARY_VMATH_ABS_TABLES_H")


def main():
    if "--gelu-tables" in sys.argv[1:]:
        print_gelu_tables()
        return
    if "--abs-tables" in sys.argv[1:]:
        print_tables()
        return
    # e^r = 1 + r + r^2 Q(r) and expm1(r) = r + r^2 Q(r), |r| <= ln2/2;
    # weight |r|: the relative error of expm1 (and of exp).
    half_ln2 = 0.5 * float(mp.log(2)) * 1.01
    rs = cheb(-half_ln2, half_ln2, 2000)
    rs = rs[np.abs(rs) > 1e-6]
    target = [float((mp.expm1(mp.mpf(r)) - r) / mp.mpf(r) ** 2) for r in rs]
    c, e = lawson(power_basis(5), target, np.abs(rs), rs)
    show("kExpQ", c, e, "Q(r), e^r = 1 + r + r^2 Q(r) on |r| <= ln2/2")

    # log1p(f) = f - f^2/2 + f^3 P(f), f in [sqrt(1/2) - 1, sqrt(2) - 1];
    # weight f^2: relative error of log1p.
    fs = cheb(np.sqrt(0.5) - 1 - 1e-4, np.sqrt(2) - 1 + 1e-4, 3000)
    fs = fs[np.abs(fs) > 1e-5]
    target = [float((mp.log1p(mp.mpf(f)) - f + mp.mpf(f) ** 2 / 2) /
                    mp.mpf(f) ** 3) for f in fs]
    c, e = lawson(power_basis(7), target, fs * fs, fs)
    show("kLogP", c, e, "P(f), log(1+f) = f - f^2/2 + f^3 P(f)")

    # e^r = 1 + r + r^2 Q(r) on [0, ln2] (vf_tanh's floor reduction).
    ln2 = float(mp.log(2))
    rs = cheb(-1e-3, ln2 * 1.001, 3000)
    rs = rs[np.abs(rs) > 1e-6]
    target = [float((mp.expm1(mp.mpf(r)) - r) / mp.mpf(r) ** 2) for r in rs]
    c, e = lawson(power_basis(4), target, np.abs(rs), rs)
    show("kExpQ01", c, e, "Q(r), e^r = 1 + r + r^2 Q(r) on [0, ln2]")

    # tanh(x) = x + x^3 P(x^2), |x| < ln2/2; weight x^2: relative error.
    us = cheb(1e-8, (ln2 / 2 * 1.001) ** 2, 2000)
    target = [float((mp.tanh(mp.sqrt(u)) - mp.sqrt(u)) / mp.mpf(u) ** 1.5)
              for u in us]
    c, e = lawson(power_basis(3), target, us, us)
    show("kTanhP", c, e, "P(u), tanh(x) = x + x^3 P(x^2), |x| < ln2/2")

    # tan(r) = r + r^3 T(r^2), |r| <= 0.7925 (pi/4 and the float rounding
    # of the quadrant's n, as sin and cos); weight r^2: the error r^3 dT
    # relative to tan(r) ~ r (vmath_trig.h's kTanTf).
    us = cheb(1e-10, 0.7925 ** 2, 2000)
    target = [float((mp.tan(mp.sqrt(mp.mpf(u))) - mp.sqrt(mp.mpf(u))) /
                    mp.mpf(u) ** 1.5) for u in us]
    c, e = lawson(power_basis(6), target, us, us)
    show("kTanTf", c, e, "T(u), tan(r) = r + r^3 T(r^2), |r| <= 0.7925")

    # erf(z) = z P(z^2), |z| < 0.6; relative error.
    us = cheb(0, 0.6 ** 2, 2000)
    target = [float(mp.erf(mp.sqrt(u)) / mp.sqrt(u)) if u > 0
              else float(2 / mp.sqrt(mp.pi)) for u in us]
    c, e = lawson(power_basis(5), target, [1 / 1.1283791671] * len(us), us)
    show("kErfP", c, e, "P(u), erf(z) = z P(z^2), |z| < 0.6")

    # erfc(a / sqrt 2) = exp(-a^2 / 2) P(a) / Q(a), a = |x| in [0.77, 15]
    # (gelu's argument itself, so no rounded a / sqrt 2 enters); relative
    # error.
    xs = cheb(0.77, 15.0, 3000)
    values = np.array([float(mp.erfc(mp.mpf(x) / mp.sqrt(2)) *
                             mp.exp(mp.mpf(x) ** 2 / 2)) for x in xs])
    e, p, q = loeb(xs, values, 4, 5)
    show("kErfcP", p, e,
         "numerator, erfc(a/sqrt2) e^(a^2/2) = P(a)/Q(a), a >= 0.77", True)
    show("kErfcQ", q, e, "denominator (Q(0) = 1)", True)


if __name__ == "__main__":
    main()
