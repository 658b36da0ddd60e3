#!/usr/bin/env python3
"""Reference Student-t quantiles for tests/test_stats.c and tests/test_compare.c.

Independent of nbrun's C code: mpmath's regularized incomplete beta (betainc) at 50 digits,
inverted by bisection on t. P(T > t) = I_x(df/2, 1/2) / 2 with x = df / (df + t^2); for
x >= 1/2 the complement 1 - I_y(1/2, df/2) with y = t^2 / (df + t^2) is used. Run:
python3 tests/tools/t_quantile_ref.py (needs the mpmath package).
"""
import mpmath as mp

mp.mp.dps = 50
HALF = mp.mpf(1) / 2


def upper_tail(t, df):
    x = df / (df + t * t)
    if x < HALF:
        return mp.betainc(df / 2, HALF, 0, x, regularized=True) / 2
    y = t * t / (df + t * t)
    return (1 - mp.betainc(HALF, df / 2, 0, y, regularized=True)) / 2


def t_quantile(p, df):
    p, df = mp.mpf(p), mp.mpf(df)
    if p < HALF:
        return -t_quantile(1 - p, df)
    lo, hi = mp.mpf(0), (mp.mpf(10) ** 7 if df < 10 else mp.mpf(50))
    for _ in range(250):
        mid = (lo + hi) / 2
        if upper_tail(mid, df) > 1 - p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


CASES = [("0.975", "1"), ("0.975", "1.2"), ("0.975", "2"), ("0.975", "2.5"), ("0.975", "3"),
         ("0.975", "5"), ("0.975", "10"), ("0.975", "29"), ("0.975", "30"), ("0.975", "40.7"),
         ("0.975", "120"), ("0.975", "1000000"), ("0.95", "1"), ("0.95", "7.3"), ("0.995", "4"),
         ("0.9995", "1"), ("0.6", "3"), ("0.025", "1.2"), ("0.99", "100"), ("0.975", "0.5")]

if __name__ == "__main__":
    p = mp.mpf("0.975")
    print("closed form df 1:", mp.nstr(mp.tan(mp.pi * (p - HALF)), 17))
    print("closed form df 2:", mp.nstr((2 * p - 1) * mp.sqrt(2 / (4 * p * (1 - p))), 17))
    for p, df in CASES:
        print(p, df, mp.nstr(t_quantile(p, df), 17))
