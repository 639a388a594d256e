#!/usr/bin/env python3
"""Reference values for crates/xq-eval/src/stats.rs, computed independently with the Python
standard library (math.erf, math.log10) from the formulas of fastchess (elo_wdl.cpp,
elo_pentanomial.cpp, sprt.cpp) and Fishtest (stat_util.py: MLE_expected / LLR_logistic).
Run once: `python3 scripts/eval_stats_reference.py`; its output is pasted into
crates/xq-eval/tests/stats_reference.rs."""
import math

Z = 1.959963984540054
NELO = 800 / math.log(10)


def elo(s):
    return -400 * math.log10(1 / s - 1)


def phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def trinomial(w, d, l):
    n = w + d + l
    s = (w + d / 2) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s ** 2) / n
    se = math.sqrt(var / n)
    return dict(score=s, elo=elo(s), elo_lo=elo(s - Z * se), elo_hi=elo(s + Z * se),
                nelo=(s - 0.5) / math.sqrt(var) * NELO,
                los=0.5 * (1 + math.erf((w - l) / math.sqrt(2 * (w + l)))))


A = [0, 0.25, 0.5, 0.75, 1]


def penta(c):
    n = sum(c)
    f = [x / n for x in c]
    s = sum(fi * a for fi, a in zip(f, A))
    var = sum(fi * (a - s) ** 2 for fi, a in zip(f, A))
    se = math.sqrt(var / n)
    return dict(score=s, elo=elo(s), elo_lo=elo(s - Z * se), elo_hi=elo(s + Z * se),
                nelo=(s - 0.5) / math.sqrt(2 * var) * NELO,
                nelo_lo=(s - Z * se - 0.5) / math.sqrt(2 * var) * NELO,
                los=phi((s - 0.5) / se)), s, var, n


def mle(f, t, scores=A):
    # Newton on lambda for sum f_i d_i / (1 + lambda d_i) = 0 (a different solver from the Rust
    # bisection), starting at 0.
    d = [a - t for a in scores]
    lam = 0.0
    for _ in range(100):
        g = sum(fi * di / (1 + lam * di) for fi, di in zip(f, d))
        dg = -sum(fi * di * di / (1 + lam * di) ** 2 for fi, di in zip(f, d))
        step = g / dg
        new = lam - step
        # stay in the domain 1 + lambda d_i > 0
        while any(1 + new * di <= 0 for di in d):
            step /= 2
            new = lam - step
        lam = new
    return [fi / (1 + lam * di) for fi, di in zip(f, d)]


def profile_interval(counts, scores):
    """The 95% profile-likelihood interval of the mean score (Elo ends), with one virtual sample
    split between the worst and the best outcome; roots by regula falsi (Illinois), not the
    crate's bisection."""
    w = list(map(float, counts))
    w[0] += 0.5
    w[-1] += 0.5
    n = sum(w)
    f = [x / n for x in w]
    fitted = sum(fi * a for fi, a in zip(f, scores))

    def excess(t):
        p = mle(f, t, scores)
        return 2 * n * sum(fi * math.log(fi / pi) for fi, pi in zip(f, p) if fi > 0) - Z * Z

    def root(a, b):
        fa, fb, side = excess(a), excess(b), 0
        for _ in range(200):
            c = (a * fb - b * fa) / (fb - fa)
            fc = excess(c)
            if abs(fc) < 1e-12:
                return c
            if fc * fb > 0:
                b, fb = c, fc
                if side == -1:
                    fa /= 2
                side = -1
            else:
                a, fa = c, fc
                if side == 1:
                    fb /= 2
                side = 1
        return c

    eps = 1e-12
    return elo(root(fitted, scores[0] + eps)), elo(root(fitted, scores[-1] - eps))


def sprt(c, elo0, elo1, model, exact):
    _, s, var, n = penta(c)
    if model == "normalized":
        sg = math.sqrt(2 * var)
        s0, s1 = 0.5 + elo0 / NELO * sg, 0.5 + elo1 / NELO * sg
    else:
        s0, s1 = 1 / (1 + 10 ** (-elo0 / 400)), 1 / (1 + 10 ** (-elo1 / 400))
    if not exact:
        return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)
    r = [x if x > 0 else 1e-3 for x in c]
    nn = sum(r)
    f = [x / nn for x in r]
    p0, p1 = mle(f, s0), mle(f, s1)
    return nn * sum(fi * math.log(b / a) for fi, a, b in zip(f, p0, p1))


for wdl in [(30, 40, 10), (100, 250, 80), (7, 3, 0)]:
    print("trinomial", wdl, trinomial(*wdl))
    print("  profile interval", profile_interval(wdl[::-1], [0, 0.5, 1]))
for c in [[10, 50, 100, 60, 15], [1023, 4990, 9211, 5183, 1193], [3, 20, 50, 30, 7], [0, 0, 2, 1, 7],
          [0, 0, 0, 2, 8]]:
    print("pentanomial", c, penta(c)[0] if sum(c) > 10 else "")
    print("  profile interval", profile_interval(c, A))
    for model, e0, e1 in [("normalized", 0, 2), ("normalized", 0, 5), ("logistic", 0, 5)]:
        print("  sprt", model, e0, e1, "approx", repr(sprt(c, e0, e1, model, False)),
              "exact", repr(sprt(c, e0, e1, model, True)))
