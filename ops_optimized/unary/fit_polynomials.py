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
ops_optimized/test/diff_elementwise_unary_test.c.

Usage: python3 ops_optimized/unary/fit_polynomials.py  (needs numpy, mpmath)
"""
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


def main():
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
