"""Tests, small-sample rules and shrinkage: when does the page say a difference is real?

A finding that two groups differ comes from a test, never from whether two
intervals overlap (overlapping 95% intervals can hide a difference significant
at 1%, see Schenker & Gentleman 2001).  Game-independent; each game's findings
choose the comparisons, this module computes them, with scipy and statsmodels:

* two rates: Fisher's exact test when an expected cell count is below 5,
  else the two-proportion z-test; the difference comes with Newcombe's hybrid
  score interval (Newcombe 1998, method 10);
* two means: Welch's t-test, with the Welch-Satterthwaite interval;
* one mean against a value: the one-sample t-test; one rate against a value:
  the exact binomial test;
* the findings of one page: Holm's step-down correction of their p-values.

Newcombe's worked example, 56/70 against 48/80, gives +0.200 (0.0524 to 0.3339):

>>> c = compare_rates("a", 56, 70, "b", 48, 80)
>>> round(c.diff, 3), [round(x, 4) for x in c.ci95], c.test
(0.2, [0.0524, 0.3339], 'two-proportion z')
>>> holm([0.01, 0.04, 0.03])
[0.03, 0.06, 0.06]

A group is **too small to read** below :data:`MIN_N` observations: it is shown,
marked, and kept out of the findings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

#: Groups with fewer observations are marked "too small to read" and left out of findings.
MIN_N = 30
ALPHA = 0.05


def small(n: int | None) -> bool:
    """Fewer than :data:`MIN_N` observations: shown, but not read."""
    return (n or 0) < MIN_N


def badge(n: int | None) -> str:
    """The sample-size badge of a figure: ``n=1,234`` or ``n=12, too small to read``.

    >>> badge(250), badge(2)
    ('n=250', 'n=2, too small to read')
    """
    count = int(n or 0)
    return f"n={count:,}" + (", too small to read" if small(count) else "")


@dataclass(frozen=True, slots=True)
class Comparison:
    """One tested difference: ``a`` minus ``b`` (or ``a`` against a fixed value)."""

    what: str
    a: str
    b: str
    kind: str  # "rate" or "mean"
    n_a: int
    n_b: int
    value_a: float | None
    value_b: float | None
    diff: float | None
    ci95: tuple[float | None, float | None]
    p: float | None
    test: str
    #: Holm-adjusted p over the findings of the page (set by :func:`adjust`).
    p_adjusted: float | None = None

    @property
    def readable(self) -> bool:
        """Both groups are big enough to read and a test could be run."""
        return self.p is not None and not small(self.n_a) and (self.b_is_value or not small(self.n_b))

    @property
    def b_is_value(self) -> bool:
        return self.n_b == 0 and self.value_b is not None

    @property
    def significant(self) -> bool:
        p = self.p_adjusted if self.p_adjusted is not None else self.p
        return self.readable and p is not None and p < ALPHA

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Comparison:
        """A comparison as :meth:`to_json` wrote it (in ``summary.json``'s ``tests``)."""
        lo, hi = d["ci95"]
        return cls(
            d["what"],
            d["a"],
            d["b"],
            d["kind"],
            d["n_a"],
            d["n_b"],
            d["value_a"],
            d["value_b"],
            d["diff"],
            (lo, hi),
            d["p"],
            d["test"],
            d["p_holm"],
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "a": self.a,
            "b": self.b,
            "kind": self.kind,
            "n_a": self.n_a,
            "n_b": self.n_b,
            "value_a": self.value_a,
            "value_b": self.value_b,
            "diff": self.diff,
            "ci95": list(self.ci95),
            "test": self.test,
            "p": self.p,
            "p_holm": self.p_adjusted,
            "readable": self.readable,
            "significant": self.significant,
        }


def _float(x: Any) -> float:
    return float(x)


def compare_rates(a: str, k1: int, n1: int, b: str, k2: int, n2: int, what: str = "") -> Comparison:
    """Rate ``k1/n1`` minus ``k2/n2``: Newcombe interval; Fisher's exact test at small
    expected counts (any below 5), else the two-proportion z-test.

    >>> c = compare_rates("left", 3, 4, "right", 1, 4)
    >>> c.test, round(c.p or 0, 4)
    ('Fisher exact', 0.4857)
    >>> compare_rates("x", 0, 0, "y", 1, 2).p is None
    True
    """
    if not n1 or not n2:
        return Comparison(
            what,
            a,
            b,
            "rate",
            n1,
            n2,
            k1 / n1 if n1 else None,
            k2 / n2 if n2 else None,
            None,
            (None, None),
            None,
            "",
        )
    from scipy.stats import fisher_exact
    from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

    p1, p2 = k1 / n1, k2 / n2
    lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff")
    pooled = (k1 + k2) / (n1 + n2)
    expected = [n * pooled for n in (n1, n2)] + [n * (1 - pooled) for n in (n1, n2)]
    if min(expected) < 5:
        p = _float(fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue)
        test = "Fisher exact"
    elif pooled in (0.0, 1.0):
        p, test = 1.0, "two-proportion z"
    else:
        p = _float(proportions_ztest([k1, k2], [n1, n2])[1])
        test = "two-proportion z"
    return Comparison(what, a, b, "rate", n1, n2, p1, p2, p1 - p2, (_float(lo), _float(hi)), p, test)


def compare_means(
    a: str,
    moments_a: tuple[int, float | None, float | None],
    b: str,
    moments_b: tuple[int, float | None, float | None],
    what: str = "",
) -> Comparison:
    """Mean of ``a`` minus mean of ``b`` from (n, mean, sd): Welch's t-test and interval.

    >>> c = compare_means("a", (10, 1.0, 1.0), "b", (12, 0.0, 2.0))
    >>> round(c.p or 0, 4), c.test
    (0.1474, 'Welch t')
    """
    (n1, m1, s1), (n2, m2, s2) = moments_a, moments_b
    if n1 < 2 or n2 < 2 or m1 is None or m2 is None or s1 is None or s2 is None:
        return Comparison(what, a, b, "mean", n1, n2, m1, m2, None, (None, None), None, "")
    from scipy.stats import t as student
    from scipy.stats import ttest_ind_from_stats

    diff = m1 - m2
    v1, v2 = s1 * s1 / n1, s2 * s2 / n2
    se = math.sqrt(v1 + v2)
    if se == 0:
        p = 1.0 if diff == 0 else 0.0
        return Comparison(what, a, b, "mean", n1, n2, m1, m2, diff, (diff, diff), p, "Welch t")
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    half = _float(student.ppf(0.975, df)) * se
    p = _float(ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=False).pvalue)
    return Comparison(what, a, b, "mean", n1, n2, m1, m2, diff, (diff - half, diff + half), p, "Welch t")


def mean_against(
    a: str, moments: tuple[int, float | None, float | None], value: float, what: str = ""
) -> Comparison:
    """A mean against a fixed value (the dealer's edge against 0): one-sample t-test.

    >>> c = mean_against("edge", (5, 3.4, 2.302172886644267), 0.0)
    >>> round(c.p or 0, 4)
    0.0299
    """
    n, m, s = moments
    if n < 2 or m is None or s is None:
        return Comparison(what, a, str(value), "mean", n, 0, m, value, None, (None, None), None, "")
    from scipy.stats import t as student

    diff = m - value
    se = s / math.sqrt(n)
    if se == 0:
        p = 1.0 if diff == 0 else 0.0
        return Comparison(what, a, str(value), "mean", n, 0, m, value, diff, (diff, diff), p, "one-sample t")
    tq = _float(student.ppf(0.975, n - 1))
    p = _float(2 * student.sf(abs(diff / se), n - 1))
    return Comparison(
        what, a, str(value), "mean", n, 0, m, value, diff, (diff - tq * se, diff + tq * se), p, "one-sample t"
    )


def rate_against(a: str, k: int, n: int, value: float, what: str = "") -> Comparison:
    """A rate against a fixed value (a coin's 50%): the exact binomial test.

    >>> round(rate_against("won", 7, 10, 0.5).p or 0, 5)
    0.34375
    """
    if not n:
        return Comparison(what, a, str(value), "rate", 0, 0, None, value, None, (None, None), None, "")
    from scipy.stats import binomtest

    from pipeline.report.stats import wilson

    lo, hi = wilson(k, n)
    assert lo is not None and hi is not None
    p = _float(binomtest(k, n, value).pvalue)
    return Comparison(
        what,
        a,
        str(value),
        "rate",
        n,
        0,
        k / n,
        value,
        k / n - value,
        (lo - value, hi - value),
        p,
        "exact binomial",
    )


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (statsmodels' ``multipletests``)."""
    if not pvalues:
        return []
    from statsmodels.stats.multitest import multipletests

    return [_float(p) for p in multipletests(list(pvalues), method="holm")[1]]


def adjust(comparisons: Sequence[Comparison]) -> list[Comparison]:
    """Holm's correction across the readable comparisons of a page (the others get none)."""
    readable = [c for c in comparisons if c.readable]
    adjusted = dict(zip(map(id, readable), holm([c.p for c in readable if c.p is not None]), strict=True))
    return [replace(c, p_adjusted=adjusted.get(id(c))) for c in comparisons]


def sentence(c: Comparison, unit: str = "points") -> str:
    """What a comparison says, with the difference, its interval, the test and the adjusted p."""
    if c.diff is None or c.p is None:
        return f"{c.what}: too few hands to test."
    lo, hi = c.ci95
    if c.kind == "rate":
        diff = (
            f"{c.diff * 100:+.1f} percentage points (95% CI {(lo or 0) * 100:+.1f} to {(hi or 0) * 100:+.1f})"
        )
    else:
        diff = f"{c.diff:+.3f} {unit} (95% CI {lo:+.3f} to {hi:+.3f})"
    p = c.p_adjusted if c.p_adjusted is not None else c.p
    sizes = badge(c.n_a) if c.b_is_value else f"{badge(c.n_a)}] against [{badge(c.n_b)}"
    if not c.readable:
        verdict = "too small to read"
    elif c.significant:
        verdict = "a real difference at the 5% level"
    else:
        verdict = "not distinguishable from chance"
    adj = "Holm-adjusted " if c.p_adjusted is not None else ""
    return f"{c.what}: {diff}; {c.test} test, {adj}{_p(p)} [{sizes}]: {verdict}."


def _p(p: float) -> str:
    """
    >>> _p(0.0001), _p(0.0123)
    ('p < 0.001', 'p = 0.012')
    """
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


# --------------------------------------------------------------------------
# Empirical-Bayes shrinkage of per-player rates


@dataclass(frozen=True, slots=True)
class BetaPrior:
    """The population's Beta prior for a rate, fitted to the groups' counts: its
    ``mean`` and its ``strength`` (alpha + beta, in pseudo-observations; infinite
    when the groups differ no more than chance would make them: every group's
    rate is then the mean)."""

    mean: float
    strength: float

    @property
    def alpha(self) -> float:
        return self.mean * self.strength

    @property
    def beta(self) -> float:
        return (1 - self.mean) * self.strength

    def shrink(self, k: int, n: int) -> float:
        """The posterior mean of a group's rate: ``(k + alpha) / (n + alpha + beta)``."""
        if math.isinf(self.strength):
            return self.mean
        return (k + self.alpha) / (n + self.strength)


#: Bounds on the prior strength alpha + beta (in pseudo-observations) the search
#: looks within; past its upper one, the limit (infinite) is compared.
_STRENGTH = (0.5, 1e7)


def fit_prior(counts: Sequence[tuple[int, int]]) -> BetaPrior | None:
    """Fit a beta-binomial to ``(k, n)`` counts by maximum likelihood (scipy).

    The prior's mean is the population's rate, its strength how far groups
    really differ.  With no spread beyond chance the likelihood grows with the
    strength without end: its limit, the binomial of the pooled rate, is the
    maximum, and every group shrinks to the pooled rate.  None when no group
    has a trial.

    >>> prior = fit_prior([(5, 10)] * 20)
    >>> prior.mean, prior.strength, prior.shrink(10, 10)
    (0.5, inf, 0.5)
    >>> spread = fit_prior([(10, 100), (90, 100), (15, 100), (85, 100), (50, 100)])
    >>> 0.1 < spread.shrink(10, 100) < 0.15
    True
    """
    data = [(k, n) for k, n in counts if n > 0]
    if not data:
        return None
    total_k, total_n = sum(k for k, _ in data), sum(n for _, n in data)
    pooled = total_k / total_n
    if len(data) < 3 or total_k in (0, total_n):
        return BetaPrior(pooled, math.inf)
    import numpy as np
    from scipy.optimize import minimize
    from scipy.stats import betabinom, binom

    ks = np.array([k for k, _ in data])
    ns = np.array([n for _, n in data])

    def nll(x: Any) -> float:
        mu = 1 / (1 + math.exp(-x[0]))
        s = math.exp(x[1])
        return -float(betabinom.logpmf(ks, ns, mu * s, (1 - mu) * s).sum())

    start = [math.log(pooled / (1 - pooled)), math.log(20.0)]
    bounds = [(-12.0, 12.0), (math.log(_STRENGTH[0]), math.log(_STRENGTH[1]))]
    result = minimize(nll, start, method="L-BFGS-B", bounds=bounds)
    limit = -float(binom.logpmf(ks, ns, pooled).sum())  # the likelihood as the strength grows without end
    if limit <= float(result.fun) + 1e-9:
        return BetaPrior(pooled, math.inf)
    mu = 1 / (1 + math.exp(-float(result.x[0])))
    return BetaPrior(mu, math.exp(float(result.x[1])))
