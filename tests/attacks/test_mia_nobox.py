"""No-box membership attacks: definitions, invariances, input checks (the contract and its
oracles are in tests/attacks/test_contract.py through synthleak.testing.check_attack)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak import NotFittedError, Table
from synthleak.attacks.base import AttackFamily, list_attacks, make_attack
from synthleak.attacks.mia_nobox import (
    ClosestRecordSignal,
    DCRDiffAttack,
    DomiasAttack,
    NeighbourhoodAttack,
    closest_distances,
)
from synthleak.errors import InputError
from synthleak.metrics.privacy import auc
from synthleak.references import get as get_reference
from synthleak.vulnerability import pairwise_distances

NAMES = ["classifier", "dcr", "dcr-diff", "domias", "neighbourhood"]


def _split(t: Table, *sizes: int) -> list[Table]:
    edges = np.cumsum([0, *sizes])
    return [t.take(np.arange(a, b)) for a, b in itertools.pairwise(edges)]


def test_registered_in_the_nobox_family_with_references() -> None:
    infos = {i.name: i for i in list_attacks(AttackFamily.NOBOX_MEMBERSHIP)}
    assert set(NAMES) <= set(infos)
    for name in NAMES:
        assert infos[name].references and infos[name].doc
        for key in infos[name].references:
            get_reference(key)  # every cited work exists


def test_closest_distances_match_the_full_matrix(adult_1000: Table) -> None:
    recs, syn = _split(adult_1000, 300, 700)
    np.testing.assert_allclose(
        closest_distances(recs, syn), pairwise_distances(recs, syn).min(axis=1), atol=1e-12
    )
    d = closest_distances(recs, syn, metric="minkowski", p=1)
    ref = pairwise_distances(recs, syn, metric="minkowski", p=1).min(axis=1)
    np.testing.assert_allclose(d, ref, atol=1e-12)


def test_closest_record_signal_oracles(adult_1000: Table) -> None:
    members, _, controls, indep = _split(adult_1000, 300, 200, 300, 200)
    copy = ClosestRecordSignal().fit(members)  # synthetic = training data: maximal signal
    y = np.r_[np.ones(300), np.zeros(300)]
    assert auc(y, np.r_[copy.score(members), copy.score(controls)]) > 0.99
    other = ClosestRecordSignal().fit(indep)  # independent data
    assert abs(auc(y, np.r_[other.score(members), other.score(controls)]) - 0.5) < 0.08
    with pytest.raises(NotFittedError):
        ClosestRecordSignal().score(members)


def test_dcr_and_dcr_diff_definitions(adult_1000: Table) -> None:
    syn, ref, recs = _split(adult_1000, 400, 300, 100)
    rng = np.random.default_rng(0)
    dcr = make_attack("nobox-membership", "dcr").fit(syn, ref, rng=rng)
    np.testing.assert_allclose(dcr.score(recs), -pairwise_distances(recs, syn).min(axis=1))
    diff = DCRDiffAttack(floor=1e-3).fit(syn, ref, rng=rng)
    d_syn = pairwise_distances(recs, syn).min(axis=1)
    d_ref = pairwise_distances(recs, ref).min(axis=1)
    np.testing.assert_allclose(
        diff.score(recs), np.log(d_ref + 1e-3) - np.log(d_syn + 1e-3), atol=1e-9
    )


def test_exact_copies_score_highest_under_distance_attacks(adult_1000: Table) -> None:
    syn, ref, others = _split(adult_1000, 400, 300, 100)
    copies = syn.take(np.arange(5))
    recs = Table.concat([copies, others])
    for name in ("dcr", "dcr-diff"):
        s = make_attack("nobox-membership", name).fit(syn, ref, rng=np.random.default_rng(0))
        scores = s.score(recs)
        assert scores[:5].min() >= scores[5:].max(), name


def _tiny_categorical(n: int, seed: int) -> Table:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], n),
            "b": rng.choice(["u", "v"], n),
            "c": rng.choice(["p", "q"], n),
        }
    )
    df.loc[df["a"] == "x", "b"] = "u"  # a dependence for the network to find
    return Table.from_frame(df, sl.infer_schema(df))


@pytest.mark.parametrize("k", [1, 2])
def test_domias_densities_are_normalised(k: int) -> None:
    """Each side's smoothed network is a probability distribution over every cell."""
    t = _tiny_categorical(300, 1)
    syn, ref = _split(t, 200, 100)
    att = DomiasAttack(k=k, prior=1.5).fit(syn, ref, rng=np.random.default_rng(0))
    cells = pd.DataFrame(
        list(itertools.product(*(c.categories for c in t.schema.categorical))),
        columns=t.schema.names,
    )
    log_syn, log_ref = att.log_densities(Table.from_frame(cells, t.schema))
    assert np.exp(log_syn).sum() == pytest.approx(1.0, abs=1e-9)
    assert np.exp(log_ref).sum() == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(att.score(Table.from_frame(cells, t.schema)), log_syn - log_ref)


def test_domias_finds_an_overrepresented_cell() -> None:
    """A release that over-produces one configuration scores it above the others."""
    t = _tiny_categorical(600, 2)
    ref = t.take(np.arange(300))
    syn_df = t.take(np.arange(300, 600)).to_frame()
    syn_df.iloc[:150] = ["z", "v", "q"]
    syn = Table.from_frame(syn_df, t.schema)
    att = DomiasAttack().fit(syn, ref, rng=np.random.default_rng(0))
    probe = Table.from_frame(
        pd.DataFrame({"a": ["z", "y"], "b": ["v", "u"], "c": ["q", "p"]}), t.schema
    )
    s = att.score(probe)
    assert s[0] > 1.0 > s[1]


def test_domias_pools_without_stacking_as_if_stacked(
    adult_1000: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pooled bins, counts and structure sample read the release and the reference side by
    side; they are what the stacked table gives (bins fitted on it, its keys counted, its rows
    sampled)."""
    from synthleak.attacks import mia_nobox
    from synthleak.data.encoding import Discretiser, count_keys, merge_counts
    from synthleak.generators import baynet

    syn, ref = _split(adult_1000, 500, 300)
    stacked = Table.concat([syn, ref])
    side = Discretiser(syn.schema, 7, "quantile", data=[syn, ref])
    whole = Discretiser(syn.schema, 7, "quantile", data=stacked)
    assert np.array_equal(side.transform(stacked), whole.transform(stacked))
    keys = whole.transform(stacked)[:, 0].astype(np.int64)
    merged = merge_counts([count_keys(keys[:500]), count_keys(keys[500:])])
    expected = count_keys(keys)
    assert all(
        np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(merged, expected, strict=True)
    )

    seen: list[np.ndarray] = []
    original = baynet.greedy_bayes

    def spy(data: np.ndarray, *args: object, **kwargs: object) -> object:
        seen.append(data.copy())
        return original(data, *args, **kwargs)

    monkeypatch.setattr(baynet, "greedy_bayes", spy)
    for cap in (200, 10_000):  # a sample of the pooled records (forced small here), then all
        monkeypatch.setattr(mia_nobox, "STRUCTURE_SAMPLE", cap)
        att = DomiasAttack().fit(syn, ref, rng=np.random.default_rng(3))
        codes = att.discretiser_.transform(stacked).astype(np.int64)
        rows = np.arange(800)
        if cap < 800:
            rows = np.sort(np.random.default_rng(3).choice(800, cap, replace=False))
        assert np.array_equal(seen[-1], codes[rows].T)


def test_neighbourhood_radius_and_counts(adult_1000: Table) -> None:
    syn, ref, recs = _split(adult_1000, 400, 300, 50)
    att = NeighbourhoodAttack(k=2, quantile=0.5).fit(syn, ref, rng=np.random.default_rng(0))
    d_ref_syn = np.sort(pairwise_distances(ref, syn), axis=1)[:, 1]
    assert att.radius_ == pytest.approx(float(np.quantile(d_ref_syn, 0.5)), abs=1e-12)
    c_syn = (pairwise_distances(recs, syn) <= att.radius_ + 1e-12).sum(axis=1)
    c_ref = (pairwise_distances(recs, ref) <= att.radius_ + 1e-12).sum(axis=1)
    expected = np.log((c_syn + 0.5) / 400) - np.log((c_ref + 0.5) / 300)
    np.testing.assert_allclose(att.score(recs), expected, atol=1e-9)


def test_classifier_scores_are_log_odds_of_synthetic(adult_1000: Table) -> None:
    syn, ref, recs = _split(adult_1000, 400, 300, 50)
    att = make_attack("nobox-membership", "classifier", max_iter=20)
    att.fit(syn, ref, rng=np.random.default_rng(0))
    from synthleak.attacks.mia_nobox import _binned, _features

    x, _ = _features(recs)
    p = att.model_.predict_proba(_binned(x, att.edges_))[:, 1]
    np.testing.assert_allclose(att.score(recs), np.log(p / (1 - p)), atol=1e-6)


def test_classifier_bins_only_wide_numeric_columns_into_equal_counts() -> None:
    from synthleak.attacks.mia_nobox import _bin_edges, _binned

    rng = np.random.default_rng(0)
    wide = rng.normal(size=10_000)
    wide[::100] = np.nan
    narrow = rng.integers(0, 40, size=10_000).astype(np.float64)
    codes = rng.integers(0, 300, size=10_000).astype(np.float64)  # a categorical column
    x = np.c_[wide, narrow, codes]
    edges = _bin_edges(x, np.array([False, False, True]))
    assert edges[1] is None and edges[2] is None and edges[0] is not None
    b = _binned(x, edges)
    np.testing.assert_array_equal(b[:, 1:], x[:, 1:])
    assert np.isnan(b[::100, 0]).all()
    counts = np.unique(b[~np.isnan(b[:, 0]), 0], return_counts=True)[1]
    assert len(counts) <= 255 and counts.max() - counts.min() <= 2
    # the order of the values is kept: a bin holds a range
    keep = ~np.isnan(wide)
    assert (np.diff(b[keep, 0][np.argsort(wide[keep])]) >= 0).all()


@pytest.mark.parametrize("name", NAMES)
def test_input_errors_are_one_line_and_name_the_parameter(name: str, adult_1000: Table) -> None:
    syn, ref = _split(adult_1000, 200, 200)
    other = sl.Table.from_frame(
        adult_1000.to_frame().iloc[:50], sl.infer_schema(adult_1000.to_frame().iloc[:50])
    )
    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match="synthetic and reference must share one schema"):
        make_attack("nobox-membership", name).fit(syn, other, rng=rng)
    with pytest.raises(InputError, match="reference has no records"):
        make_attack("nobox-membership", name).fit(syn, ref.take([]), rng=rng)
    att = make_attack("nobox-membership", name).fit(syn, ref, rng=rng)
    with pytest.raises(InputError, match="records must share the schema"):
        att.score(other)


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("dcr", {"metric": "hamming"}, "metric='hamming' is invalid: metric must be one of cosine"),
        ("dcr-diff", {"floor": 0}, "floor=0 is invalid: floor must be a number > 0"),
        ("domias", {"k": 0}, "k=0 is invalid: k must be an integer >= 1"),
        ("domias", {"bins": 1.5}, "bins=1.5 is invalid"),
        (
            "neighbourhood",
            {"quantile": 1.5},
            r"quantile=1.5 is invalid: quantile must be a number in \(0, 1\]",
        ),
        (
            "classifier",
            {"max_leaf_nodes": 1},
            "max_leaf_nodes=1 is invalid: max_leaf_nodes must be an integer >= 2",
        ),
    ],
)
def test_bad_hyperparameters_fail_at_fit(
    name: str, params: dict, match: str, adult_1000: Table
) -> None:
    syn, ref = _split(adult_1000, 200, 200)
    att = make_attack("nobox-membership", name, **params)  # construction only stores them
    with pytest.raises(InputError, match=match):
        att.fit(syn, ref, rng=np.random.default_rng(0))


def test_declared_constraints_reject_bad_hyperparameters_by_name() -> None:
    """The hyperparameters are declared (``_parameter_constraints``) and checked when ``fit``
    starts, before any input is looked at: a bad value raises InputError naming it."""
    import numpy as np

    from synthleak.attacks.mia_nobox import (
        ClassifierAttack,
        DCRDiffAttack,
        DCRMembershipAttack,
        DomiasAttack,
        NeighbourhoodAttack,
    )
    from synthleak.errors import InputError

    cases = [
        (DCRMembershipAttack(metric="manhattan"), "metric"),
        (DCRMembershipAttack(p=0.5), "p"),
        (DCRDiffAttack(floor=0), "floor"),
        (DomiasAttack(k=0), "k"),
        (DomiasAttack(bins=2.5), "bins"),
        (DomiasAttack(prior=-1.0), "prior"),
        (NeighbourhoodAttack(quantile=1.5), "quantile"),
        (NeighbourhoodAttack(k=0), "k"),
        (ClassifierAttack(max_leaf_nodes=1), "max_leaf_nodes"),
        (ClassifierAttack(learning_rate=0.0), "learning_rate"),
        (ClassifierAttack(max_iter=True), "max_iter"),
    ]
    for attack, parameter in cases:
        with pytest.raises(InputError, match=f"^{parameter}=") as exc:
            attack.fit(None, None, rng=np.random.default_rng(0))
        assert exc.value.parameter == parameter
