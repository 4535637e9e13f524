"""Small statistics for paired benchmark cells, standard library only.

Paired differences: the arms of one repetition block ran back to back on the
same server, so their difference cancels most of the drift of a noisy host.
The 95% interval is Student's t on the differences (two-sided).
"""

import math

# Two-sided 95% critical values of Student's t (0.975 quantile) by degrees
# of freedom; between listed values the next smaller df is used (wider,
# so the interval errs on the cautious side).
_T975 = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365,
    8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160,
    14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
    20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
    26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021,
    60: 2.000, 120: 1.980,
}
_Z975 = 1.960


def t975(df):
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    if df in _T975:
        return _T975[df]
    if df > 120:
        return _Z975
    return _T975[max(k for k in _T975 if k <= df)]


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("median of nothing")
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2


def mean(xs):
    if not xs:
        raise ValueError("mean of nothing")
    return sum(xs) / len(xs)


def stdev(xs):
    """Sample standard deviation (n - 1)."""
    if len(xs) < 2:
        raise ValueError("stdev needs two values")
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def cv(xs):
    """Coefficient of variation (stdev / mean), None when undefined."""
    if len(xs) < 2:
        return None
    m = mean(xs)
    return None if m == 0 else stdev(xs) / abs(m)


def paired_interval(diffs):
    """(mean, low, high) of the 95% paired-t interval of the differences."""
    n = len(diffs)
    if n < 2:
        raise ValueError("a paired interval needs two pairs")
    m = mean(diffs)
    half = t975(n - 1) * stdev(diffs) / math.sqrt(n)
    return m, m - half, m + half


def percentile(sorted_xs, p):
    """Nearest-rank percentile of an already sorted list (p in 0..100)."""
    if not sorted_xs:
        raise ValueError("percentile of nothing")
    rank = max(1, math.ceil(p / 100.0 * len(sorted_xs)))
    return sorted_xs[min(rank, len(sorted_xs)) - 1]
