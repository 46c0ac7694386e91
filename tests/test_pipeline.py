from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from tests.stages.audit_helpers import TINY, by_key, figures

from synthleak import InputError, Table
from synthleak.pipeline import BUDGETS, STAGES, Budget, audit
from synthleak.results import AuditResult, StageStatus
from synthleak.verdicts import Verdict


def test_release_equal_to_original_is_maximal_risk(split) -> None:
    train, ctl, _ = split
    r = audit(train, synthetic=train, control=ctl, plan=TINY, seed=1, secret="income")
    f = by_key(r)
    assert f["membership.nobox"].estimate.value > 0.95
    assert f["membership.nobox"].verdict is Verdict.SEVERE
    assert f["singling_out.multivariate"].estimate.ci_low > 0.2
    assert f["linkability"].estimate.ci_low > 0.2
    aia = f["attribute.recon.release"]  # accuracy on training records minus on unseen ones
    assert aia.verdict in (Verdict.LEAK, Verdict.SEVERE) and aia.estimate.ci_low > 0
    assert aia.details["accuracy"] > aia.details["control_accuracy"]
    assert f["copies.exact"].verdict is Verdict.SEVERE
    assert r.utility is not None and r.utility.tvd3 < 1e-9
    assert r.first_finding().verdict is Verdict.SEVERE  # type: ignore[union-attr]


def test_independent_release_shows_no_leak(split) -> None:
    train, ctl, other = split
    r = audit(train, synthetic=other, control=ctl, plan=TINY, seed=1)
    f = by_key(r)
    for key in ("membership.nobox", "singling_out.multivariate", "linkability", "copies.exact"):
        e = f[key].estimate
        assert e.ci_low <= f[key].baseline + 0.02, key
    # one-sided: on a null release the AUC's interval covers 0.5 in about 95 % of the seeds
    # (tests/games/test_nobox.py); no seed may show a leak
    assert f["membership.nobox"].estimate.value < 0.58
    # without the generator the records are ranked by cell rarity, and the no-box game reports
    # the exposure of the same records the ranking puts first
    from synthleak.vulnerability import cell_rarity_scores

    v = r.vulnerability
    assert v is not None and v.method == "rarity" and (v.k, v.metric) == (0, "")
    expected = np.argsort(-cell_rarity_scores(train), kind="stable")[: len(v.top)]
    assert [t.row for t in v.top] == expected.tolist()
    assert r.nobox is not None
    assert [e.row for e in r.nobox.records] == [t.row for t in v.top]
    # at most two scored non-members per member, the rest of the control as the reference,
    # and the sizes stated
    assert r.nobox.member_rows.size == 150 and r.nobox.non_member_rows.size == 300
    assert r.nobox.n_reference == len(ctl) - 300
    assert any("150 of 1000 original records as members and 300" in n for n in r.nobox.notes)


def test_generator_audit_runs_every_stage_and_is_seeded(split) -> None:
    train, _, _ = split
    lines: list[str] = []
    a = audit(train, generator="indhist", secret="sex", plan=TINY, seed=3, log=lines.append)
    # the attribute game says what it will take and how far it is
    assert any("attribute inference games of 'sex': projected time" in x for x in lines)
    assert any("attribute inference games of 'sex': 6 of 6 games done" in x for x in lines)
    keys = set(by_key(a))
    assert {
        "singling_out.univariate",
        "linkability",
        "membership.nobox",
        "membership.black_box",
    } <= keys
    assert any(k.startswith("attribute.recon.m") for k in keys)
    assert a.membership is not None and len(a.membership.targets) == 2
    assert [t.selected_by for t in a.membership.targets] == ["screen", "random"]
    sc = a.screening  # the two-stage screen chose the target, beside V_k's ranking
    assert sc is not None and sc.n_candidates == 1000 - 500 and len(sc.top) == 10
    assert a.membership.targets[0].row == sc.top[0].row and sc.top[0].screen_rank == 1
    assert [r.vk_rank for r in sc.vk_top] == list(range(1, 11))
    assert sc.vk_top[0].row == a.vulnerability.top[0].row  # type: ignore[union-attr]
    assert a.budget is not None and a.budget.screen_seconds > 0
    assert a.privacy_utility and a.utility is not None
    assert a.vulnerability is not None
    assert len(a.vulnerability.top) == 10 and a.vulnerability.top[0].rank == 1
    assert not a.vulnerability.top[0].values  # records are masked by default
    measured = {s.name for s in a.stages if s.status is StageStatus.MEASURED}
    # attribute_sweep: secret="all" only; the person stages: relational input only;
    # membership_release: shadow releases, or a generator beside a given release, only
    person = {"person_membership", "person_copies", "person_risks", "person_attribute"}
    skipped = {"attribute_sweep", "membership_release", "person_shadow", *person}
    assert measured == {s.name for s in STAGES} - skipped
    b = audit(train, generator="indhist", secret="sex", plan=TINY, seed=3)

    def strip(r: AuditResult) -> dict:
        # config, stages and budget hold wall-clock times; everything else is seeded
        return {k: v for k, v in r.to_dict().items() if k not in ("config", "stages", "budget")}

    assert strip(a) == strip(b)
    assert AuditResult.from_json(a.to_json()).to_json() == a.to_json()


# The default audit's shadow-model path at a small size: a two-stage screen picks 2 targets.
ORACLE_PLAN = replace(
    TINY, mia_targets=2, shadows=60, tests=60, screen_datasets=30, screened_shadows=60
)


@pytest.fixture
def disjoint_generator(adult_table: Table, monkeypatch: pytest.MonkeyPatch) -> str:
    """A generator whose releases carry no information about its training data: it ignores
    them and samples real records of the population that are not in the training data (every
    Adult record outside ``split``'s first part; registered for one test, inline runs only).

    The pool is the whole rest of the population, not a small fixed sample: drawn with
    replacement from 1,000 fixed records, every seed's release shares that one sample's chance
    overlap with the training data (e.g. of ``fnlwgt`` values), so the seeds are not
    independent draws of the null."""
    from synthleak.generators.base import _REGISTRY, BaseGenerator, GeneratorInfo

    train_rows = np.random.default_rng(5).choice(len(adult_table), 3000, replace=False)[:1000]
    reference = adult_table.take(np.setdiff1d(np.arange(len(adult_table)), train_rows))

    class Disjoint(BaseGenerator):
        def fit(self, table: Table, *, rng: np.random.Generator) -> Disjoint:
            self.schema_ = table.schema
            return self

        def sample(self, n: int, *, rng: np.random.Generator) -> Table:
            return reference.take(rng.choice(len(reference), n, replace=True))

    name = "test-disjoint-sample"
    monkeypatch.setitem(_REGISTRY, name, GeneratorInfo(name, Disjoint, (), "test only"))
    return name


def test_default_audit_null_and_copy_oracles(split, disjoint_generator: str) -> None:
    """The whole default audit (two-stage screen, then the game) on a generator that releases a
    disjoint real sample: over six seeds no finding is a leak, the membership interval covers
    0.5 and its estimate is not biased upwards by the screen having picked the targets (the
    game measures them on its own datasets). A generator that resamples its training data is
    found leaking."""
    train = split[0]
    leaks, covered, aucs = 0, 0, []
    for seed in range(6):
        r = audit(train, generator=disjoint_generator, plan=ORACLE_PLAN, seed=seed)
        by = by_key(r)
        leaks += any(f.verdict in (Verdict.LEAK, Verdict.SEVERE) for f in r.findings)
        m = by["membership.black_box"].estimate
        covered += m.ci_low <= 0.5 <= m.ci_high
        aucs.append(m.value)
    assert leaks <= 1  # Holm over the findings: a false alarm in at most 5 % of audits
    assert covered >= 5
    assert abs(float(np.mean(aucs)) - 0.5) < 0.1  # six estimates of sd ~0.1 around 0.5
    # a copy puts a member in the release about 0.63 of the time (m draws from n records):
    # AUC about 0.8, which 60 test datasets (30 held out of the selection) cannot always show
    copy = audit(train, generator="nonprivate", plan=replace(ORACLE_PLAN, tests=120), seed=0)
    assert by_key(copy)["membership.black_box"].verdict in (Verdict.LEAK, Verdict.SEVERE)


def test_options_object_and_keywords_are_one_audit(split) -> None:
    """``options=`` and the keyword arguments build the same audit; the result records the
    options as its config, and they run the same audit again."""
    from synthleak.results import AuditOptions

    train, ctl, other = split
    opts = AuditOptions(plan=TINY, seed=2, secret="sex", quasi_ids=("age", "race"))
    a = audit(train, synthetic=other, control=ctl, options=opts)
    b = audit(
        train,
        synthetic=other,
        control=ctl,
        plan=TINY,
        seed=2,
        secret="sex",
        quasi_ids=["age", "race"],
    )
    assert a.config.options == opts == b.config.options
    assert [f.estimate for f in a.findings] == [f.estimate for f in b.findings]
    again = audit(train, synthetic=other, control=ctl, options=a.config.options)
    assert [f.estimate for f in again.findings] == [f.estimate for f in a.findings]
    with pytest.raises(InputError, match="not both"):
        audit(train, synthetic=other, options=opts, seed=3)
    with pytest.raises(InputError, match=r"unknown argument.*sead"):
        audit(train, synthetic=other, sead=3)


def test_release_only_audit_says_what_is_missing(split) -> None:
    train, _, other = split
    r = audit(train, synthetic=other, plan=TINY)
    missing = {s.name: s for s in r.not_measured()}
    assert {"singling_out", "linkability", "membership_nobox", "membership"} <= set(missing)
    assert "control set" in missing["membership_nobox"].needs
    # nothing measured is never "no evidence": only the exact-copy check runs without a control
    # (against the duplicates within the original); column copies need the control's rates
    by = by_key(r)
    assert set(by) == {"copies.exact", "copies.columns"}
    assert by["copies.exact"].details["baseline_of"] == "original records"
    assert by["copies.columns"].verdict is Verdict.NOT_MEASURED
    assert "control" in by["copies.columns"].details["not_measured"]
    # each names the input by its flag and its Python argument, as reports go to both users
    for stage, name in [("linkability", "control"), ("membership", "generator")]:
        assert f"--{name}" in missing[stage].needs and f"{name}=" in missing[stage].needs
    assert "--secret" in missing["attribute_release"].needs


def test_bad_input(split) -> None:
    train, _, _ = split
    with pytest.raises(InputError, match="nothing to audit"):
        audit(train)
    with pytest.raises(InputError, match="secret 'nope' is not a column") as exc:
        audit(train, synthetic=train, secret="nope")
    assert exc.value.parameter == "secret"
    with pytest.raises(InputError, match="quasi_ids"):
        audit(train, synthetic=train, quasi_ids=["nope"])
    with pytest.raises(InputError, match="unknown budget"):
        audit(train, synthetic=train, budget="huge")
    with pytest.raises(InputError, match="original must be a pandas DataFrame"):
        audit([1, 2, 3], synthetic=train)  # type: ignore[arg-type]


def test_budgets_grow() -> None:
    q, s, p = (BUDGETS[b] for b in (Budget.QUICK, Budget.STANDARD, Budget.PAPER))
    assert q.shadows < s.shadows < p.shadows and q.n_attacks < s.n_attacks <= p.n_attacks
    assert p.shadows == 4000 and p.tests == 200 and p.n == 1000  # Table 1 of Meeus et al. (2023)
    # the meta classifier runs wherever lira does (as strong on the measured Adult games)
    assert [("lira" in b.mia_attacks, "meta" in b.mia_attacks) for b in (q, s, p)] == [
        (False, False),
        (True, True),
        (True, True),
    ]


def test_one_record_identity_across_sections(split) -> None:
    """With a control held out of the original, every section names a record by its row in the
    original as given: the ranking's top records, their scores, the no-box exposure records and
    members, the copies (the issue: rows 6433 / 6590 in one table, 3266 / 3348 in another)."""
    train = split[0]
    r = audit(train, generator="nonprivate", plan=TINY, seed=4)
    assert r.vulnerability is not None and r.nobox is not None and r.copies is not None
    v, nb = r.vulnerability, r.nobox
    held_out = np.flatnonzero(np.isnan(v.scores))
    assert v.scores.size == len(train) and held_out.size == r.config.n_control
    top = {t.row for t in v.top}
    assert not top & set(held_out.tolist())
    for t in v.top:
        assert v.scores[t.row] == pytest.approx(t.score)
    exposed = {rec.row for rec in nb.records if rec.selected_by == "v_k"}
    assert exposed == top  # the same V_k ranking, the same people, the same numbers
    assert not set(nb.member_rows.tolist()) & set(held_out.tolist())
    assert set(nb.non_member_rows.tolist()) <= set(held_out.tolist())
    assert not set(r.copies.copied_rows.tolist()) & set(held_out.tolist())
    # the screen's records say where they stand out, the same as the ranking's same records
    assert r.screening is not None
    cols = {t.row: t.rare_columns for t in v.top}
    for t in (*r.screening.top, *r.screening.vk_top):
        assert t.row not in held_out
        if t.row in cols:
            assert t.rare_columns == cols[t.row]
    assert any(t.rare_columns for t in r.screening.vk_top)
    # the audit's screen (screen_design's default): one pool, the full attack
    from synthleak.games.twostage import screen_design

    want = screen_design(r.config.sizes.mia_targets, len(train) - r.config.n_control)
    assert r.screening.n_screened == want["n_screened"]
    assert r.screening.second_pool == 0 and want["second_pool"] is None
    assert r.screening.first_queries == r.screening.n_queries == want["n_queries"]
    screened = {t.row for t in r.screening.top}
    assert r.membership is not None
    chosen = {t.row for t in r.membership.targets if t.selected_by == "screen"}
    assert chosen and chosen <= screened
    # the game's datasets beside what the release was trained on (the audit's split)
    assert r.budget is not None
    assert r.budget.train_size == r.membership.config.train_size
    assert r.budget.release_train_size == len(train) - r.config.n_control
    assert r.budget.train_size < r.budget.release_train_size
    assert any(f"fewer than the {r.budget.release_train_size} the release" in n for n in r.notes)


def test_an_audit_of_compact_parts_encoded_once_is_the_same_audit(split) -> None:
    """The command line reads each part, profiles it and keeps it compact (categoricals,
    small integers), and hands its encoding to the audit: the same result, records shown."""
    from synthleak.data.io import encode_frames

    train, ctl, other = (t.to_frame() for t in split)
    for i, df in enumerate((train, ctl, other)):
        df.insert(0, "person_id", np.arange(len(df)) + 10_000 * i)
        df["name"] = [f"Person {j} of street {7 * j + i}" for j in range(len(df))]
    release = train.copy()
    release.loc[release.index[:200], "name"] = other["name"].iloc[:200].to_numpy()
    parts = {"original": train, "synthetic": release, "control": ctl}
    enc = encode_frames({k: (lambda v=v: v) for k, v in parts.items()}, compact=True)
    assert isinstance(enc.frames["original"]["workclass"].dtype, pd.CategoricalDtype)
    kw = {"plan": TINY, "seed": 3, "show_records": True}
    plain = audit(train, synthetic=release, control=ctl, **kw)
    frames = enc.frames
    once = audit(
        frames["original"],
        synthetic=frames["synthetic"],
        control=frames["control"],
        encoded=enc,
        **kw,
    )
    assert figures(once) == figures(plain)
    assert once.vulnerability is not None and once.vulnerability.top[0].values
    with pytest.raises(InputError, match="encoded was made from other data"):
        audit(train, synthetic=release, control=ctl, encoded=enc, **kw)
    with pytest.raises(InputError, match="schema differs from the schema encoded"):
        audit(
            frames["original"],
            synthetic=frames["synthetic"],
            control=frames["control"],
            schema=enc.schema.select(list(enc.schema.names[:3])),
            encoded=enc,
            **kw,
        )
