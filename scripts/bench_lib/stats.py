"""Rank correlation and percentiles for scripts/bench-fidelity (standard library only).

Run directly (`/usr/bin/python3 scripts/bench_lib/stats.py`) for a self-check against
hand-computed values.
"""

import math


def average_ranks(values):
    """1-based ranks of `values`; tied values all get the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        rank = (i + j) / 2.0 + 1.0  # mean of the 1-based positions i+1 .. j+1
        for k in range(i, j + 1):
            ranks[order[k]] = rank
        i = j + 1
    return ranks


def pearson(xs, ys):
    """Pearson correlation; None when fewer than two points or either side is constant."""
    n = len(xs)
    if n != len(ys):
        raise ValueError("pearson: lists of different lengths")
    if n < 2:
        return None
    mx = sum(xs) / n
    my = sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def spearman(xs, ys):
    """Spearman's rank correlation: the Pearson correlation of the average ranks (ties get
    the mean rank, as scipy.stats.spearmanr does). None when it is undefined (fewer than two
    points, or one side has a single distinct value)."""
    if len(xs) != len(ys):
        raise ValueError("spearman: lists of different lengths")
    return pearson(average_ranks(xs), average_ranks(ys))


def percentile(values, p):
    """The p-th percentile (0..100) with linear interpolation between the closest ranks
    (numpy's default, "linear"): position (n - 1) * p / 100 in the sorted values. None for an
    empty list."""
    if not values:
        return None
    if not 0 <= p <= 100:
        raise ValueError("percentile: p must be in [0, 100]")
    s = sorted(values)
    pos = (len(s) - 1) * p / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    frac = pos - lo
    return s[lo] + (s[hi] - s[lo]) * frac


def median(values):
    return percentile(values, 50)


def share_within(ratios, factor):
    """Share (0..1) of ratios in [1/factor, factor]; None for an empty list."""
    if not ratios:
        return None
    inside = sum(1 for r in ratios if 1.0 / factor <= r <= factor)
    return inside / len(ratios)


def geomean(values):
    if not values or any(v <= 0 for v in values):
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _close(a, b, tol=1e-12):
    return a is not None and abs(a - b) <= tol


def _self_check():
    # Ranks with ties: [10, 20, 20, 30] -> 1, 2.5, 2.5, 4.
    assert average_ranks([10, 20, 20, 30]) == [1.0, 2.5, 2.5, 4.0]
    assert average_ranks([3, 1, 2]) == [3.0, 1.0, 2.0]
    assert average_ranks([5, 5, 5]) == [2.0, 2.0, 2.0]

    # Perfect agreement and perfect disagreement (monotone, not linear).
    assert _close(spearman([1, 2, 3, 4], [1, 8, 27, 64]), 1.0)
    assert _close(spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1.0)

    # No ties: rho = 1 - 6 sum d^2 / (n (n^2 - 1)).
    # x = 1..5, y = [2, 1, 4, 3, 5]: d = [-1, 1, -1, 1, 0], sum d^2 = 4,
    # rho = 1 - 24 / 120 = 0.8.
    assert _close(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]), 0.8)

    # With ties: x = [1, 2, 3, 4], y = [1, 2, 2, 3] -> ranks y = [1, 2.5, 2.5, 4].
    # rank deviations: x: [-1.5, -0.5, 0.5, 1.5], y: [-1.5, 0, 0, 1.5]
    # sxy = 2.25 + 0 + 0 + 2.25 = 4.5, sxx = 5, syy = 4.5 -> 4.5 / sqrt(22.5) = 0.9486832980...
    assert _close(spearman([1, 2, 3, 4], [1, 2, 2, 3]), 4.5 / math.sqrt(22.5))
    assert _close(spearman([1, 2, 3, 4], [1, 2, 2, 3]), 0.9486832980505138)

    # Undefined cases.
    assert spearman([1], [2]) is None
    assert spearman([1, 2, 3], [7, 7, 7]) is None

    # Percentiles (numpy "linear"): [1, 2, 3, 4]: p50 at pos 1.5 -> 2.5; p10 at 0.3 -> 1.3;
    # p90 at 2.7 -> 3.7.
    assert _close(percentile([4, 1, 3, 2], 50), 2.5)
    assert _close(percentile([4, 1, 3, 2], 10), 1.3)
    assert _close(percentile([4, 1, 3, 2], 90), 3.7)
    assert _close(percentile([1, 2, 3, 4, 5], 50), 3.0)
    assert _close(percentile([7], 90), 7.0)
    assert _close(percentile([1, 2, 3, 4], 0), 1.0)
    assert _close(percentile([1, 2, 3, 4], 100), 4.0)
    assert percentile([], 50) is None
    assert _close(median([10, 0, 5]), 5.0)

    # Within 1.5x: 1/1.5 = 0.666..., so 0.7, 1.0, 1.5 are in; 0.6 and 1.6 are out.
    assert _close(share_within([0.6, 0.7, 1.0, 1.5, 1.6], 1.5), 3 / 5)
    assert share_within([], 1.5) is None

    assert _close(geomean([1, 4]), 2.0)
    print("stats.py: self-check passed")


if __name__ == "__main__":
    _self_check()
