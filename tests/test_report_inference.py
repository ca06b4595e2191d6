"""The report's intervals and tests against published worked values and scipy's
own results for the same inputs (fixed numbers here, so a change shows)."""

from __future__ import annotations

import random

import pytest

from pipeline.report.inference import (
    MIN_N,
    adjust,
    badge,
    compare_means,
    compare_rates,
    fit_prior,
    holm,
    mean_against,
    rate_against,
)
from pipeline.report.stats import mean_interval


def test_newcombe_interval_published_example() -> None:
    # Newcombe (1998), Stat Med 17:873, table II, example (a): 56/70 - 48/80, method 10.
    c = compare_rates("a", 56, 70, "b", 48, 80)
    assert c.diff == pytest.approx(0.2)
    assert c.ci95[0] == pytest.approx(0.0524, abs=5e-5)
    assert c.ci95[1] == pytest.approx(0.3339, abs=5e-5)
    # statsmodels proportions_ztest on the same counts
    assert c.test == "two-proportion z" and c.p == pytest.approx(0.00804508136819656)


def test_fisher_exact_at_small_counts() -> None:
    # scipy.stats.fisher_exact([[1, 9], [8, 2]]).pvalue
    c = compare_rates("left", 1, 10, "right", 8, 10)
    assert c.test == "Fisher exact"
    assert c.p == pytest.approx(0.005477494641581329)
    assert not c.readable  # 10 hands a side: too small to read, whatever p says


def test_welch_t_matches_scipy() -> None:
    # scipy.stats.ttest_ind([1..5], [2, 4, ..., 12], equal_var=False): t = -2.376, df = 6.972
    c = compare_means("a", (5, 3.0, 1.5811388300841898), "b", (6, 7.0, 3.7416573867739413))
    assert c.p == pytest.approx(0.04928433820673053)
    assert c.ci95[0] == pytest.approx(-7.98346869562883)
    assert c.ci95[1] == pytest.approx(-0.016531304371169675)


def test_normal_interval_for_means() -> None:
    # scipy.stats.norm.interval(0.95, loc=2, scale=1/sqrt(3)), as the contract names it
    m = mean_interval([1.0, 2.0, 3.0])
    assert m.ci95[0] == pytest.approx(0.8684142659238281)
    assert m.ci95[1] == pytest.approx(3.1315857340761717)
    # Two identical hands: no interval, not "+1.000 (+1.000 to +1.000)".
    assert mean_interval([1.0, 1.0]).ci95 == [None, None]


def test_one_sample_tests() -> None:
    # scipy.stats.ttest_1samp([1, 2, 3, 4, 7], 0).pvalue; scipy.stats.binomtest(7, 10).pvalue
    c = mean_against("edge", (5, 3.4, 2.302172886644267), 0.0)
    assert c.p == pytest.approx(0.02986696837235546)
    assert rate_against("won", 7, 10, 0.5).p == pytest.approx(0.34375)


def test_holm_matches_statsmodels() -> None:
    # statsmodels.stats.multitest.multipletests([0.01, 0.04, 0.03], method="holm")
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    big = compare_rates("a", 560, 700, "b", 480, 800)
    other = compare_rates("c", 300, 600, "d", 290, 600)
    tiny = compare_rates("e", 1, 2, "f", 0, 2)
    done = adjust([big, other, tiny])
    assert done[2].p_adjusted is None and not done[2].significant  # too small: not in the family
    assert done[0].p_adjusted == pytest.approx(min(1.0, 2 * (big.p or 0)))
    assert done[0].significant and not done[1].significant


def test_shrinkage_toward_the_population() -> None:
    # Groups that differ only by chance all shrink (nearly) to the population rate.
    same = fit_prior([(5, 10)] * 20)
    assert same is not None and same.mean == pytest.approx(0.5, abs=1e-3)
    assert same.shrink(1, 1) == pytest.approx(0.5, abs=0.01)
    # Players who differ less than chance would make them: the likelihood's limit
    # (every rate the pooled one), not a strength the search stopped at.
    rng = random.Random(3)
    rates = [(k, 2000) for k in (int(rng.gauss(330, 5)) for _ in range(40))]
    close = fit_prior(rates)
    pooled = sum(k for k, _ in rates) / sum(n for _, n in rates)
    assert close is not None and close.shrink(rates[0][0], 2000) == pooled == close.shrink(400, 2000)
    # Groups that really differ keep most of their spread at large n.
    spread = fit_prior([(10, 100), (90, 100), (15, 100), (85, 100), (50, 100)])
    assert spread is not None
    assert 0.1 < spread.shrink(10, 100) < 0.15
    # A player with one hand moves almost all the way to the population.
    assert abs(spread.shrink(1, 1) - spread.mean) < 0.2
    assert fit_prior([]) is None


def test_badges() -> None:
    assert badge(MIN_N) == f"n={MIN_N}"
    assert badge(MIN_N - 1).endswith("too small to read")
