"""Tests of the ``baynet`` and ``privbayes`` generators (synthleak.generators.baynet)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import mutual_info_score

import synthleak as sl
from synthleak.data.encoding import Discretiser
from synthleak.errors import InputError, NotFittedError
from synthleak.generators import list_generators, make_generator
from synthleak.generators.baynet import (
    BayNet,
    PrivBayes,
    _conditional_cdf,
    _MIScorer,
    exponential_logits,
    greedy_bayes,
    laplace_count_scale,
    mi_sensitivity,
    mutual_information,
)

CENSUS = "uk_census2011_teaching_50k.csv"


# ------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------
def _tvd(a: np.ndarray, b: np.ndarray, size: int) -> float:
    pa = np.bincount(a, minlength=size) / len(a)
    pb = np.bincount(b, minlength=size) / len(b)
    return 0.5 * float(np.abs(pa - pb).sum())


def _codes(disc: Discretiser, table: sl.Table) -> np.ndarray:
    return disc.transform(table).astype(np.int64)


def _one_way(a: np.ndarray, b: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """1-way TVD per column between code matrices ``a`` and ``b``."""
    return np.array([_tvd(a[:, f], b[:, f], int(sizes[f])) for f in range(a.shape[1])])


def _two_way(a: np.ndarray, b: np.ndarray, sizes: np.ndarray, f: int, g: int) -> float:
    """TVD of the (f, g) 2-way marginal between code matrices ``a`` and ``b``."""
    s = int(sizes[g])
    return _tvd(a[:, f] * s + a[:, g], b[:, f] * s + b[:, g], int(sizes[f]) * s)


def _mean_two_way(a: np.ndarray, b: np.ndarray, sizes: np.ndarray) -> float:
    d = len(sizes)
    return float(np.mean([_two_way(a, b, sizes, f, g) for f in range(d) for g in range(f + 1, d)]))


def _check_schema_output(syn: sl.Table, schema: sl.Schema, n: int) -> None:
    assert syn.schema == schema
    assert len(syn) == n
    sizes = np.array([c.size for c in schema.categorical])
    assert np.all(syn.codes >= 0) and np.all(syn.codes < sizes)
    assert syn.values.dtype == np.float32
    for j, col in enumerate(schema.continuous):
        v = syn.values[:, j]
        if not col.has_missing:
            assert not np.isnan(v).any(), col.name
        v = v[~np.isnan(v)]
        assert np.all(v >= col.low) and np.all(v <= col.high), col.name
        if col.integer:
            assert np.all(v == np.round(v)), col.name
    for j, col in enumerate(schema.categorical):
        if not col.has_missing:
            assert np.all(syn.codes[:, j] < len(col.categories)), col.name


# ------------------------------------------------------------------------------------------
# calibration functions (PrivBayes Lemma 1, Section 4.2, Algorithm 1)
# ------------------------------------------------------------------------------------------
def test_mi_sensitivity_matches_lemma_1() -> None:
    n = 1000
    binary = math.log(n) / n + (n - 1) / n * math.log(n / (n - 1))
    other = 2 / n * math.log((n + 1) / 2) + (n - 1) / n * math.log((n + 1) / (n - 1))
    assert mi_sensitivity(n, True) == pytest.approx(binary, rel=1e-12)
    assert mi_sensitivity(n, False) == pytest.approx(other, rel=1e-12)
    # hand-computed values for n = 1000
    assert mi_sensitivity(1000, True) == pytest.approx(0.0079073, rel=1e-4)
    assert mi_sensitivity(1000, False) == pytest.approx(0.0144281, rel=1e-4)
    # binary domains have the smaller sensitivity; both shrink like log(n)/n
    for m in (10, 100, 10_000):
        assert mi_sensitivity(m, True) < mi_sensitivity(m, False)
        assert mi_sensitivity(10 * m, False) < mi_sensitivity(m, False)
    with pytest.raises(InputError):
        mi_sensitivity(1, False)


def test_mi_sensitivity_bounds_the_change_of_one_record() -> None:
    # replace one record of a binary pair and check the MI moves by at most the bound
    rng = np.random.default_rng(3)
    n = 200
    bound = mi_sensitivity(n, True)
    for _ in range(200):
        x = rng.integers(0, 2, n)
        p = rng.integers(0, 2, n)
        x2, p2 = x.copy(), p.copy()
        i = rng.integers(n)
        x2[i], p2[i] = rng.integers(0, 2), rng.integers(0, 2)
        change = abs(mutual_information(x, 2, p, 2) - mutual_information(x2, 2, p2, 2))
        assert change <= bound + 1e-12


def test_exponential_logits_formula() -> None:
    mi = np.array([0.1, 0.5, 0.0])
    sens = np.array([0.01, 0.02, 0.01])
    out = exponential_logits(mi, sens, n_attributes=11, epsilon1=0.3)
    delta = 10 * sens / 0.3
    np.testing.assert_allclose(out, mi / (2 * delta))
    # larger budget -> sharper preference; half the budget halves every logit
    np.testing.assert_allclose(exponential_logits(mi, sens, 11, 0.15), out / 2)
    with pytest.raises(ValueError):
        exponential_logits(mi, sens, 1, 1.0)


def test_laplace_count_scale_is_the_paper_scale_times_n() -> None:
    d, k, eps2, n = 15, 2, 0.7, 1000
    paper_scale_on_distributions = 2 * (d - k) / (n * eps2)
    assert laplace_count_scale(d, k, eps2) == pytest.approx(n * paper_scale_on_distributions)
    assert laplace_count_scale(d, k, eps2) == pytest.approx(2 * 13 / 0.7)
    # the degree cannot exceed d - 1: one joint table is then measured
    assert laplace_count_scale(3, 5, 1.0) == pytest.approx(2.0)


def test_conditional_noise_has_the_calibrated_scale() -> None:
    # one attribute with 200 categories of 1,000 records each: no clipping, so the noisy
    # probabilities give back the Laplace noise; mean |noise| of Lap(b) is b
    size, per = 200, 1000
    schema = sl.Schema(
        (sl.data.schema.Column("a", sl.data.schema.ColumnKind.CATEGORICAL, tuple(range(size))),)
    )
    table = sl.Table.from_arrays(schema, np.repeat(np.arange(size), per)[:, None], None)
    eps, beta = 2.0, 0.3
    gen = PrivBayes(epsilon=eps, k=2, beta=beta).fit(table, rng=np.random.default_rng(0))
    cdf = gen.cdfs_[0]
    probs = np.diff(np.concatenate([[0.0], cdf]))
    noisy = probs * size * per  # counts up to the normalisation (total moves by ~sqrt(size)*b)
    b = laplace_count_scale(1, 2, (1 - beta) * eps)
    assert b == pytest.approx(2 / 1.4)
    dev = np.abs(noisy - noisy.mean())
    assert dev.mean() == pytest.approx(b, rel=0.2)


# ------------------------------------------------------------------------------------------
# mutual information and GreedyBayes
# ------------------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(5, 300),
    sizes=st.lists(st.integers(1, 6), min_size=4, max_size=4),
    seed=st.integers(0, 2**31 - 1),
)
def test_batched_mutual_information_matches_sklearn(n: int, sizes: list[int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    sz = np.array(sizes, dtype=np.int64)
    codes = np.stack([rng.integers(0, s, n) for s in sz]).astype(np.int64)
    codes[1] = np.where(rng.random(n) < 0.5, codes[0] % sz[1], codes[1])  # some dependence
    scorer = _MIScorer(codes, sz)
    got = scorer.scores(np.array([1, 2, 3]), (0,))
    want = [mutual_info_score(codes[c], codes[0]) for c in (1, 2, 3)]
    np.testing.assert_allclose(got, want, atol=1e-10)
    got2 = scorer.scores(np.array([2, 3]), (0, 1))
    want2 = [mutual_info_score(codes[c], codes[0] * 10 + codes[1]) for c in (2, 3)]
    np.testing.assert_allclose(got2, want2, atol=1e-10)
    for c in (1, 2):
        assert mutual_information(codes[c], int(sz[c]), codes[3], int(sz[3])) == pytest.approx(
            mutual_info_score(codes[c], codes[3]), abs=1e-10
        )


def test_mutual_information_with_large_parent_domains() -> None:
    # parent domains far larger than n take the np.unique relabelling path
    rng = np.random.default_rng(5)
    n = 300
    sizes = np.array([4, 900, 700])
    codes = np.stack([rng.integers(0, s, n) for s in sizes]).astype(np.int64)
    codes[0] = codes[1] % 4
    got = _MIScorer(codes, sizes).scores(np.array([0]), (1, 2))
    want = mutual_info_score(codes[0], codes[1] * 1000 + codes[2])
    assert got[0] == pytest.approx(want, abs=1e-10)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 400),
    child=st.integers(1, 5000),
    seed=st.integers(0, 2**31 - 1),
)
def test_wide_joint_domains_count_only_the_occupied_cells(n: int, child: int, seed: int) -> None:
    """A 4,000-level child under a parent set with many configurations: the joint counts come
    from the occupied cells (no table of every cell) and equal a full count table's."""
    from synthleak.generators.baynet import _cell_counts

    rng = np.random.default_rng(seed)
    cells = rng.integers(0, child * 50, (2, 3, n))
    want = np.bincount(cells.ravel())[cells]
    np.testing.assert_array_equal(_cell_counts(cells), want)
    sizes = np.array([child, 30, 40])
    codes = np.stack([rng.integers(0, s, n) for s in sizes]).astype(np.int64)
    got = _MIScorer(codes, sizes).scores(np.array([0]), (1, 2))
    assert got[0] == pytest.approx(
        mutual_info_score(codes[0], codes[1] * 100 + codes[2]), abs=1e-10
    )


def test_greedy_bayes_finds_planted_dependencies() -> None:
    # chain a -> b (copy), c independent, d = xor-like function of (a, c)
    rng = np.random.default_rng(1)
    n = 2000
    a = rng.integers(0, 4, n)
    b = (a + (rng.random(n) < 0.05)) % 4
    c = rng.integers(0, 3, n)
    d = (a * 3 + c) % 5
    codes = np.stack([a, b, c, d]).astype(np.int64)
    sizes = np.array([4, 4, 3, 5])
    for seed in range(4):
        order, parents = greedy_bayes(codes, sizes, 2, math.inf, np.random.default_rng(seed))
        assert sorted(order) == [0, 1, 2, 3]
        pos = {attr: i for i, attr in enumerate(order)}
        net = dict(zip(order, parents, strict=True))
        assert all(len(ps) == min(2, i) for i, ps in enumerate(parents))
        assert all(pos[p] < pos[x] for x, ps in net.items() for p in ps)  # a DAG in order
        if pos[3] >= 2:  # d found with both its causes when they are available
            assert {0, 2} <= set(net[3]) or pos[0] > pos[3] or pos[2] > pos[3]
        if pos[1] > pos[0]:
            assert 0 in net[1]


def test_exponential_mechanism_is_random_at_small_epsilon_and_greedy_at_large() -> None:
    rng = np.random.default_rng(2)
    n = 500
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.1, rng.integers(0, 3, n), a)  # a noisy copy (no exact MI ties)
    codes = np.stack([a, b, rng.integers(0, 3, n), rng.integers(0, 3, n)]).astype(np.int64)
    sizes = np.array([3, 3, 3, 3])
    # a huge budget reproduces the noiseless choice
    for seed in range(5):
        o1, p1 = greedy_bayes(codes, sizes, 1, math.inf, np.random.default_rng(seed))
        o2, p2 = greedy_bayes(codes, sizes, 1, 1e9, np.random.default_rng(seed))
        assert (o1, p1) == (o2, p2)
    # a tiny budget: the near-copy pair (0, 1) is adjacent in the order only by chance
    adjacent = 0
    trials = 200
    for seed in range(trials):
        order, _ = greedy_bayes(codes, sizes, 1, 1e-6, np.random.default_rng(seed))
        adjacent += abs(order.index(0) - order.index(1)) == 1
    assert 0.3 < adjacent / trials < 0.7  # uniform random orders: 1/2
    for seed in range(20):  # noiseless: the copy is always chosen right after its twin
        order, _ = greedy_bayes(codes, sizes, 1, math.inf, np.random.default_rng(seed))
        assert abs(order.index(0) - order.index(1)) == 1


def test_conditional_cdf_falls_back_to_marginal_for_unseen_parents() -> None:
    joint = np.array([[3.0, 1.0], [0.0, 0.0], [1.0, 3.0]])  # config 1 never seen
    flat = _conditional_cdf(joint).reshape(3, 2)
    np.testing.assert_allclose(flat[0], [0.75, 1.0])
    np.testing.assert_allclose(flat[1] - 1, [0.5, 1.0])  # marginal (4, 4) / 8
    np.testing.assert_allclose(flat[2] - 2, [0.25, 1.0])
    empty = _conditional_cdf(np.zeros((2, 4))).reshape(2, 4)
    np.testing.assert_allclose(empty[0], [0.25, 0.5, 0.75, 1.0])


# ------------------------------------------------------------------------------------------
# generator behaviour
# ------------------------------------------------------------------------------------------
def test_registered_with_parameters() -> None:
    infos = {i.name: i for i in list_generators()}
    assert {p.name: p.default for p in infos["baynet"].params} == {"k": 2, "bins": 20}
    assert {p.name: p.default for p in infos["privbayes"].params} == {
        "epsilon": 1.0,
        "k": 2,
        "bins": 20,
        "beta": 0.3,
    }
    assert infos["privbayes"].differentially_private and not infos["baynet"].differentially_private
    g = make_generator("privbayes:epsilon=0.5,k=3,beta=0.5")
    assert isinstance(g, PrivBayes) and (g.epsilon, g.k, g.beta) == (0.5, 3, 0.5)
    assert isinstance(make_generator("baynet"), BayNet)


@pytest.mark.parametrize(
    "spec",
    [
        "baynet:k=0",
        "baynet:bins=0",
        "privbayes:epsilon=0",
        "privbayes:epsilon=-1",
        "privbayes:beta=1",
        "privbayes:beta=0",
    ],
)
def test_bad_parameters_raise_input_error(spec: str, adult_1000: sl.Table) -> None:
    with pytest.raises(InputError):
        make_generator(spec).fit(adult_1000, rng=np.random.default_rng(0))


def test_sample_before_fit_and_bad_n(adult_1000: sl.Table) -> None:
    with pytest.raises(NotFittedError):
        BayNet().sample(5, rng=np.random.default_rng(0))
    g = BayNet().fit(adult_1000.take(np.arange(100)), rng=np.random.default_rng(0))
    with pytest.raises(InputError):
        g.sample(-1, rng=np.random.default_rng(0))
    assert len(g.sample(0, rng=np.random.default_rng(0))) == 0


def test_too_large_tables_raise_input_error(adult_1000: sl.Table) -> None:
    small = adult_1000.select(["age", "fnlwgt", "hours-per-week"])
    with pytest.raises(InputError, match="lower k or the number of bins"):
        BayNet(k=2, bins=5000).fit(small, rng=np.random.default_rng(0))


@pytest.mark.parametrize(
    "spec", ["baynet:k=2", "baynet:k=1", "privbayes:epsilon=1,k=2", "privbayes:epsilon=0.1,k=3"]
)
def test_output_has_schema_columns_types_and_domains(spec: str, adult_1000: sl.Table) -> None:
    g = make_generator(spec).fit(adult_1000, rng=np.random.default_rng(0))
    syn = g.sample(700, rng=np.random.default_rng(1))
    _check_schema_output(syn, adult_1000.schema, 700)
    frame = syn.to_frame()
    assert list(frame.columns) == adult_1000.schema.names
    net = g.network_
    assert sorted(a for a, _ in net) == sorted(adult_1000.schema.names)


def test_missing_values_are_modelled(mixed_frame: pd.DataFrame) -> None:
    schema = sl.infer_schema(mixed_frame)
    table = sl.Table.from_frame(mixed_frame, schema)
    syn = (
        BayNet(k=2)
        .fit(table, rng=np.random.default_rng(0))
        .sample(4000, rng=np.random.default_rng(1))
    )
    _check_schema_output(syn, schema, 4000)
    for name in ("colour", "height"):
        real = mixed_frame[name].isna().mean()
        fake = syn.to_frame()[name].isna().mean()
        assert abs(real - fake) < 0.03, name


def test_tiny_tables_and_high_degree() -> None:
    df = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": [1.0, 2.5, 3.0, 2.0]})
    schema = sl.infer_schema(df)
    table = sl.Table.from_frame(df, schema)
    syn = (
        BayNet(k=5)
        .fit(table, rng=np.random.default_rng(0))
        .sample(50, rng=np.random.default_rng(0))
    )
    _check_schema_output(syn, schema, 50)
    one = sl.Table.from_frame(df[["a"]], schema.select(["a"]))
    syn1 = (
        PrivBayes(epsilon=1.0)
        .fit(one, rng=np.random.default_rng(0))
        .sample(10, rng=np.random.default_rng(0))
    )
    _check_schema_output(syn1, schema.select(["a"]), 10)
    with pytest.raises(InputError):
        BayNet().fit(table.take(np.arange(1)), rng=np.random.default_rng(0))


@pytest.mark.parametrize("spec", ["baynet:k=2", "privbayes:epsilon=1,k=2"])
def test_same_seed_same_output(spec: str, adult_1000: sl.Table) -> None:
    def run(seed: int) -> sl.Table:
        g = make_generator(spec).fit(adult_1000, rng=np.random.default_rng(seed))
        return g.sample(500, rng=np.random.default_rng(seed + 1))

    assert run(7).equals(run(7))
    assert not run(7).equals(run(8))


def test_privbayes_at_infinite_epsilon_is_baynet(adult_1000: sl.Table) -> None:
    for k in (1, 2):
        a = make_generator(f"baynet:k={k}").fit(adult_1000, rng=np.random.default_rng(11))
        b = make_generator(f"privbayes:epsilon=inf,k={k}").fit(
            adult_1000, rng=np.random.default_rng(11)
        )
        assert a.network_ == b.network_
        assert a.sample(1000, rng=np.random.default_rng(5)).equals(
            b.sample(1000, rng=np.random.default_rng(5))
        )


# ------------------------------------------------------------------------------------------
# fidelity
# ------------------------------------------------------------------------------------------
def test_baynet_keeps_one_way_marginals_on_adult(adult_1000: sl.Table) -> None:
    disc = Discretiser(adult_1000.schema, 20)
    g = BayNet(k=2).fit(adult_1000, rng=np.random.default_rng(0))
    syn = g.sample(5000, rng=np.random.default_rng(1))
    tvd = _one_way(_codes(disc, adult_1000), _codes(disc, syn), disc.sizes)
    assert tvd.max() <= 0.05, dict(zip(adult_1000.schema.names, tvd.round(3), strict=True))


def _edge_tvd(real: np.ndarray, syn: np.ndarray, sizes: np.ndarray, gen: object) -> float:
    """Mean 2-way TVD over the (child, parent) edges of fitted network ``gen``."""
    edges = [(c, p) for c, ps in zip(gen.order_, gen.parents_, strict=True) for p in ps]  # type: ignore[attr-defined]
    return float(np.mean([_two_way(real, syn, sizes, c, p) for c, p in edges]))


def test_baynet_keeps_network_edges_far_better_than_indhist(adult_1000: sl.Table) -> None:
    disc = Discretiser(adult_1000.schema, 20)
    real = _codes(disc, adult_1000)
    bay, ind = [], []
    for seed in range(3):
        g = BayNet(k=2).fit(adult_1000, rng=np.random.default_rng(seed))
        h = make_generator("indhist").fit(adult_1000, rng=np.random.default_rng(seed))
        syn_g = _codes(disc, g.sample(len(adult_1000), rng=np.random.default_rng(seed + 50)))
        syn_h = _codes(disc, h.sample(len(adult_1000), rng=np.random.default_rng(seed + 50)))
        bay.append(_edge_tvd(real, syn_g, disc.sizes, g))
        ind.append(_edge_tvd(real, syn_h, disc.sizes, g))  # the same edges, under indhist
    assert np.mean(bay) < 0.6 * np.mean(ind), (bay, ind)


def test_privbayes_error_grows_as_epsilon_shrinks(adult_table: sl.Table) -> None:
    train = adult_table.sample(3000, rng=np.random.default_rng(4))
    disc = Discretiser(train.schema, 20)
    real = _codes(disc, train)
    errors = {}
    for eps in (0.1, 1.0, 10.0, math.inf):
        vals = []
        for seed in range(5):  # the root (first rng draw) is shared across epsilons: paired seeds
            g = PrivBayes(epsilon=eps, k=2).fit(train, rng=np.random.default_rng(seed))
            syn = _codes(disc, g.sample(3000, rng=np.random.default_rng(seed + 10)))
            vals.append(
                _one_way(real, syn, disc.sizes).mean() + _mean_two_way(real, syn, disc.sizes)
            )
        errors[eps] = float(np.mean(vals))
    assert errors[0.1] > errors[1.0] + 0.05, errors
    assert errors[1.0] > errors[10.0] + 0.05, errors
    assert errors[10.0] > errors[math.inf] + 0.2, errors


@pytest.fixture(scope="module")
def census(shared_datasets: Path) -> sl.Table:
    path = shared_datasets / CENSUS
    if not path.is_file():
        pytest.skip(f"{CENSUS} not found in {shared_datasets}: the census fidelity test needs it")
    df = pd.read_csv(path).drop(columns=["Person ID"])
    df = df.sample(5000, random_state=0).reset_index(drop=True)
    schema = sl.infer_schema(df, categorical=list(df.columns))
    return sl.Table.from_frame(df, schema)


def test_baynet_fidelity_on_uk_census(census: sl.Table) -> None:
    disc = Discretiser(census.schema, 20)
    real = _codes(disc, census)
    g = BayNet(k=2).fit(census, rng=np.random.default_rng(0))
    syn = g.sample(5000, rng=np.random.default_rng(1))
    _check_schema_output(syn, census.schema, 5000)
    syn_codes = _codes(disc, syn)
    tvd = _one_way(real, syn_codes, disc.sizes)
    assert tvd.max() <= 0.05, tvd
    ind = make_generator("indhist").fit(census, rng=np.random.default_rng(0))
    syn_ind = _codes(disc, ind.sample(5000, rng=np.random.default_rng(1)))
    bay, indv = _edge_tvd(real, syn_codes, disc.sizes, g), _edge_tvd(real, syn_ind, disc.sizes, g)
    assert bay < 0.5 * indv, (bay, indv)


@pytest.mark.slow
def test_noiseless_network_matches_datasynthesizer(shared_datasets: Path, tmp_path: Path) -> None:
    """Same root, same data: GreedyBayes picks the same parents as DataSynthesizer (epsilon=0).

    Slow (DataSynthesizer opens a process pool per step) and needs ``pip install DataSynthesizer``.
    Columns are categorical with no constant column, so mutual-information ties do not arise.
    """
    describer_mod = pytest.importorskip("DataSynthesizer.DataDescriber")
    path = shared_datasets / CENSUS
    if not path.is_file():
        pytest.skip(f"{CENSUS} not found in {shared_datasets}")
    df = pd.read_csv(path).drop(columns=["Person ID", "Residence Type"]).iloc[:, :8]
    df = df.sample(1000, random_state=1).reset_index(drop=True)
    csv = tmp_path / "train.csv"
    df.to_csv(csv, index=False)
    schema = sl.infer_schema(df, categorical=list(df.columns))
    disc = Discretiser(schema, 20)
    codes = np.ascontiguousarray(_codes(disc, sl.Table.from_frame(df, schema)).T)
    for seed in range(3):
        describer = describer_mod.DataDescriber(category_threshold=30)
        describer.describe_dataset_in_correlated_attribute_mode(
            str(csv),
            k=2,
            epsilon=0,
            attribute_to_is_categorical=dict.fromkeys(df.columns, True),
            seed=seed,
        )
        theirs = [(c, sorted(ps)) for c, ps in describer.bayesian_network]
        root = schema.names.index(describer.bayesian_network[0][1][0])
        rng_seed = next(
            s for s in range(1000) if np.random.default_rng(s).integers(len(df.columns)) == root
        )
        order, parents = greedy_bayes(
            codes, disc.sizes, 2, math.inf, np.random.default_rng(rng_seed)
        )
        names = schema.names
        mine = [
            (names[o], sorted(names[p] for p in ps))
            for o, ps in zip(order[1:], parents[1:], strict=True)
        ]
        assert mine == theirs
