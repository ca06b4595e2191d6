"""The interval estimates of the reports, as plain functions.

A *rate* is a count ``k`` of successes out of ``n`` trials, with the Wilson
score interval at 95% (it behaves at 0, at n and for small n, where the
textbook normal interval does not):

>>> wilson(0, 10)
(0.0, 0.2775327998628892)
>>> [round(x, 4) for x in wilson(5, 10)]
[0.2366, 0.7634]
>>> rate(3, 4).to_json()["rate"]
0.75
>>> rate(0, 0).to_json()
{'k': 0, 'n': 0, 'rate': None, 'ci95': [None, None]}

A mean comes with the normal interval the contract names (docs/reports.md),
mean +- z * sd / sqrt(n), from the sample standard deviation (n - 1 in the
denominator).  Below 30 values it is narrower than Student's t would be (t =
2.045 at n = 30, 4.303 at n = 3): the reports mark such figures too small
to read and keep them out of the findings.

>>> m = mean_interval([1.0, 2.0, 3.0])
>>> m.mean, m.sd, [round(x, 4) for x in m.ci95]
(2.0, 1.0, [0.8684, 3.1316])
>>> mean_interval([2.0]).ci95
[None, None]

Two identical values have sd 0: no interval can be told from them, so none is
given (a zero-width interval would claim a certainty two hands cannot give):

>>> mean_interval([1.0, 1.0]).ci95
[None, None]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: The 97.5% quantile of the standard normal distribution.
Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | tuple[None, None]:
    """The Wilson score interval of ``k`` successes in ``n`` trials; (None, None) when n = 0."""
    if not 0 <= k <= n:
        raise ValueError(f"a rate needs 0 <= k <= n, not k={k}, n={n}")
    if n == 0:
        return None, None
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # At k = 0 and k = n the bound is exactly 0 or 1; say so rather than round.
    low = 0.0 if k == 0 else centre - half
    high = 1.0 if k == n else centre + half
    return low, high


@dataclass(frozen=True, slots=True)
class Rate:
    """``k`` of ``n`` with its Wilson 95% interval."""

    k: int
    n: int

    @property
    def value(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def ci95(self) -> tuple[float, float] | tuple[None, None]:
        return wilson(self.k, self.n)

    def to_json(self) -> dict[str, Any]:
        """The contract's rate object: ``{"k", "n", "rate", "ci95"}``."""
        return {"k": self.k, "n": self.n, "rate": self.value, "ci95": list(self.ci95)}


def rate(k: int | None, n: int | None) -> Rate:
    """A :class:`Rate`, reading SQL's NULL (an empty group) as 0."""
    return Rate(int(k or 0), int(n or 0))


@dataclass(frozen=True, slots=True)
class MeanInterval:
    """A sample mean with its sample standard deviation and normal 95% interval."""

    n: int
    mean: float | None
    sd: float | None

    @property
    def ci95(self) -> list[float | None]:
        """The normal 95% interval (None without two values, or with no spread at all)."""
        if self.mean is None or self.sd is None or self.n < 2 or self.sd == 0:
            return [None, None]
        half = Z95 * self.sd / math.sqrt(self.n)
        return [self.mean - half, self.mean + half]


def mean_interval(values: Sequence[float]) -> MeanInterval:
    """Mean, sample sd and normal interval of ``values`` (sd None when fewer than 2)."""
    n = len(values)
    if n == 0:
        return MeanInterval(0, None, None)
    mean = math.fsum(values) / n
    if n < 2:
        return MeanInterval(n, mean, None)
    var = math.fsum((x - mean) ** 2 for x in values) / (n - 1)
    return MeanInterval(n, mean, math.sqrt(var))


def from_moments(n: int | None, mean: float | None, sd: float | None) -> MeanInterval:
    """A :class:`MeanInterval` from aggregates SQL computed (count, avg, stddev_samp)."""
    count = int(n or 0)
    return MeanInterval(count, mean if count else None, sd if count >= 2 else None)
