"""Values one record holds, found in a release (``metrics.copies.rare_values``): exact counts,
null oracles at the audit's shapes, and the leaks it is for."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.metrics.copies import rare_values
from synthleak.metrics.privacy import rate_excess


def test_counts_lone_values_by_record() -> None:
    original = pd.DataFrame({"a": ["x", "y", "y", None], "b": [1, 2, 3, 3]})
    control = pd.DataFrame({"a": ["z", "x", None], "b": [2.0, 7.0, 3.0]})
    synthetic = pd.DataFrame({"a": ["y", "z", None], "b": [1.0, 9.0, 9.0]})
    rv = rare_values(original, synthetic, control, ["a", "b"])
    # lone values: a = none in the original ('x' is also a control value, missing is left out),
    # 'z' in the control; b = 1 (original row 0) and 7 (control row 1), 2 and 3 are shared
    assert (rv.n_original, rv.released_original) == (1, 1)  # row 0's b = 1, released as 1.0
    assert (rv.n_control, rv.released_control) == (2, 1)  # row 0's 'z' released, row 1's 7 not
    assert rv.released_rows.tolist() == [0] and rv.released_columns == ("b",)


@pytest.fixture(scope="module")
def population(adult_df: pd.DataFrame) -> pd.DataFrame:
    """Adult's categorical columns and a diagnosis-like code drawn from 20,000 codes with
    Zipf-like frequencies, so that many records hold a code no other record of a sample does."""
    rng = np.random.default_rng(7)
    cat = adult_df.select_dtypes(exclude="number").reset_index(drop=True)
    weights = 1.0 / np.arange(1, 20_001) ** 1.1
    codes = rng.choice(20_000, len(cat), p=weights / weights.sum())
    return cat.assign(code=[f"C{c:05d}" for c in codes])


def _split(population: pd.DataFrame, seed: int, n_o: int, n_c: int):
    rows = np.random.default_rng(seed).permutation(len(population))
    take = lambda a, b: population.iloc[rows[a:b]].reset_index(drop=True)  # noqa: E731
    return take(0, n_o), take(n_o, n_o + n_c), take(n_o + n_c, 2 * n_o + n_c)


@pytest.mark.parametrize(("n_o", "n_c"), [(2000, 500), (1000, 1000)])
def test_null_oracle_covers_zero(population: pd.DataFrame, n_o: int, n_c: int) -> None:
    """A release of other people of the same population (it carries nothing of the training
    records): the excess's 95 % interval covers 0 about as often as it claims, at the command
    line's shapes (original four times the control, and equal halves), over 40 seeds."""
    misses, measured = 0, 0
    for seed in range(40):
        original, control, release = _split(population, seed, n_o, n_c)
        rv = rare_values(original, release, control, list(original.columns))
        est = rate_excess(rv.released_original, rv.n_original, rv.released_control, rv.n_control)
        measured += rv.n_original > 20 and rv.n_control > 5
        misses += not est.ci_low <= 0 <= est.ci_high
    assert measured == 40  # the code column gives every seed lone values on both sides
    assert misses <= 5  # nominal 2 of 40; P(> 5 misses) < 1.5 % at the nominal rate


def test_finds_a_domain_learnt_from_the_training_records(population: pd.DataFrame) -> None:
    """PrivBayes at epsilon = 1 given a domain read from its training records (as synthcity's
    DP plugins read theirs): the control's lone codes are outside it, the training records'
    inside, so only the latter reach the release. A copy, the other end, releases them all."""
    original, control, _ = _split(population, 0, 2000, 500)
    table = sl.Table.from_frame(original, sl.infer_schema(original))
    gen = sl.make_generator("privbayes:epsilon=1").fit(table, rng=np.random.default_rng(0))
    release = gen.sample(2000, rng=np.random.default_rng(1)).to_frame()
    rv = rare_values(original, release, control, list(original.columns))
    est = rate_excess(rv.released_original, rv.n_original, rv.released_control, rv.n_control)
    assert rv.released_control == 0 and est.ci_low > 0
    copy = rare_values(original, original, control, list(original.columns))
    assert copy.released_original == copy.n_original and copy.released_control == 0
    est = rate_excess(copy.released_original, copy.n_original, 0, copy.n_control)
    assert est.ci_low > 0.5


def test_the_audit_reports_it_against_the_control(population: pd.DataFrame) -> None:
    """The audit's finding on a release whose generator read its domain from the training
    records: measurable, with the released training rows listed; none without a control."""
    original, control, _ = _split(population, 1, 1500, 500)
    table = sl.Table.from_frame(original, sl.infer_schema(original))
    gen = sl.make_generator("privbayes:epsilon=1").fit(table, rng=np.random.default_rng(0))
    release = gen.sample(1500, rng=np.random.default_rng(1)).to_frame()
    plan = sl.BudgetPlan(
        n_attacks=100,
        mia_targets=0,
        mia_controls=0,
        shadows=0,
        tests=0,
        n=100,
        mia_attacks=(),
        aia_games=0,
    )
    r = sl.audit(original, synthetic=release, control=control, plan=plan, seed=0)
    (f,) = [f for f in r.findings if f.key == "copies.rare_values"]
    assert f.verdict in (sl.Verdict.LEAK, sl.Verdict.SEVERE) and f.details["control_released"] == 0
    rv = r.copies.rare_values  # type: ignore[union-attr]
    assert rv is not None and rv.released_rows.size == f.details["released"] > 0
    assert set(original.iloc[rv.released_rows]["code"]) <= set(release["code"]) | {None}
    alone = sl.audit(original, synthetic=release, plan=plan, seed=0)
    assert "copies.rare_values" not in {f.key for f in alone.findings}
    # the report's copies section states both counts, or why nothing was compared
    from dataclasses import replace

    from synthleak.report.document import build_document

    def copies_text(result: sl.AuditResult) -> str:
        (sec,) = [s for s in build_document(result).sections if s.anchor == "copies"]
        return " ".join(getattr(b, "text", "") for b in sec.blocks)

    said = f"{rv.released_original} of the {rv.n_original} training records holding"
    assert said in copies_text(r) and f"against 0 of the {rv.n_control} control" in copies_text(r)
    none = replace(r, copies=replace(r.copies, rare_values=replace(rv, n_control=0)))
    assert "so this was not measured" in copies_text(none)
