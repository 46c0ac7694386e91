"""Singling out and linkability of persons (:mod:`synthleak.games.person_risks`): the null and
copy oracles at the audit's size ratio (four original persons per control person)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from tests.games.person_parts import parts, replay

from synthleak.data.relational import RelationalData, person_views
from synthleak.data.release import Release
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.person_risks import (
    PersonLinkabilityResult,
    PersonSinglingOutResult,
    play_person_linkability,
    play_person_singling_out,
    root_link_columns,
)

SEEDS = range(4)
N = 100  # predicates and link targets


def views(original: RelationalData, synthetic: RelationalData, control: RelationalData):
    v = person_views({"original": original, "synthetic": synthetic, "control": control})
    return Release(v["original"], v["synthetic"], v["control"]), v["original"].index.to_numpy()


def play(release: Release, keys: np.ndarray, seed: int, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        so = play_person_singling_out(
            release, keys, root="person", child_tables=["visit"], n_attacks=N, seed=seed, **kw
        )
        link = play_person_linkability(
            release, keys, root="person", child_tables=["visit"], n_attacks=N, seed=seed
        )
    return so, link


def test_null_oracle_a_release_of_other_people_shows_no_risk() -> None:
    for seed in SEEDS:
        original, control, others = parts(seed, n_control=50)
        so, link = play(*views(original, others, control), seed, root_rows=False)
        for res in so.persons.attacks:
            assert res.measured and res.risk.ci_low == 0.0, (seed, res.attack)
        assert link.persons.attacks[0].risk.ci_low == 0.0, seed
        assert so.root_rows is None and "root_rows=False" in so.root_rows_note
        # the row-level figure: other people's root rows link no more than the control's
        assert link.root_rows is not None and link.root_rows.attacks[0].risk.ci_low == 0.0, seed


@pytest.mark.parametrize("seed", SEEDS)
def test_copy_oracle_persons_singled_out_and_linked_by_root_key(seed: int) -> None:
    original, control, _ = parts(seed, n_control=50)
    keys = set(original.frames["person"]["pid"])
    so, link = play(*views(original, replay(original, 10**7), control), seed, root_rows=False)
    for res in so.persons.attacks:
        assert res.risk.ci_low > 0.9, res.attack
        named = so.singled_out[res.attack]
        # every success that no control person shares names one person of the original
        assert set(named) <= keys and len(named) == so.n_singled_out[res.attack] > 50
    res = link.persons.attacks[0]
    assert res.aux_a == ("age", "sex", "income", "region")
    assert all(c.startswith("visit.") for c in res.aux_b)
    assert res.risk.ci_low > 0.4
    assert set(link.linked) <= keys and len(link.linked) == link.n_linked == res.n_success
    # the row-level figure: the root rows copied link one half of their columns to the other
    assert link.root_rows is not None and link.root_rows_note == ""
    rows = link.root_rows.attacks[0]
    assert (rows.aux_a, rows.aux_b) == (("age", "sex"), ("income", "region"))
    assert rows.risk.ci_low > 0.3


def test_the_row_level_figure_plays_the_root_table_alone() -> None:
    original, control, _ = parts(0, n_control=50)
    so, _ = play(*views(original, replay(original, 10**7), control), 0)
    assert so.root_rows is not None and so.root_rows_note == ""
    for res in so.root_rows.attacks:
        used = {c.column for c in res.columns}
        assert used <= {"age", "sex", "income", "region"}
        assert res.risk.ci_low > 0.5  # the root rows are copied too
    again = PersonSinglingOutResult.from_json(so.to_json())
    assert again.same_as(so)


def test_a_row_level_interval_from_0_to_1_is_not_measured_with_what_it_needs() -> None:
    """The root rows copied, 20 control persons: every multivariate predicate singles out an
    original row (attack rate 1, so the risk is 1 whenever the excess is above 0) while the
    excess at the control's size is not distinguishable from 0; its interval would read 0 to 1.
    It says "not measured" and what it needs instead; the univariate attack still finds the
    copy."""
    original, control, _ = parts(0, n_control=20)
    release, keys = views(original, replay(original, 10**7), control)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        so = play_person_singling_out(
            release, keys, root="person", child_tables=["visit"], n_attacks=N, seed=0
        )
    assert so.root_rows is not None
    rows = {a.attack: a for a in so.root_rows.attacks}
    multi = rows["multivariate"]
    assert not multi.measured and np.isnan([multi.risk.value, multi.risk.ci_low]).all()
    assert multi.n_success == multi.n_attacks > 0  # the counts stay
    assert "spans every risk from 0 to 1" in multi.note and "larger control set" in multi.note
    assert so.root_rows_note == f"multivariate: {multi.note}"
    assert rows["univariate"].measured and rows["univariate"].risk.ci_low > 0.9
    for res in so.root_rows.attacks:  # no measured figure anywhere spans all of 0 to 1
        assert not (res.measured and res.risk.ci_low <= 0 and res.risk.ci_high >= 1)
    assert PersonSinglingOutResult.from_json(so.to_json()).same_as(so)


def test_bad_arguments() -> None:
    original, control, others = parts(1, n_control=20)
    release, keys = views(original, others, control)
    with pytest.raises(InputError, match="one key per row"):
        play_person_singling_out(
            release, keys[:-1], root="person", child_tables=["visit"], n_attacks=N, seed=0
        )
    with pytest.raises(InputError, match="control"):
        play_person_linkability(
            Release(release.original, release.synthetic),
            keys,
            root="person",
            child_tables=["visit"],
            n_attacks=N,
            seed=0,
        )
    with pytest.raises(InputError, match="give aux_a and aux_b"):
        play_person_linkability(release, keys, root="person", child_tables=[], n_attacks=N, seed=0)
    link = play_person_linkability(
        release, keys, root="person", child_tables=["visit"], n_attacks=20, seed=0
    )
    assert PersonLinkabilityResult.from_json(link.to_json()).same_as(link)
    assert link.root_rows is not None


def test_root_link_columns_and_a_root_too_narrow_to_link() -> None:
    assert root_link_columns(["a", "b", "c"]) == (["a"], ["b", "c"])
    assert root_link_columns(["a"]) == ([], [])
    original, control, others = parts(2, n_control=20)
    narrow = {
        name: RelationalData(
            d.schema,
            {"person": d.frames["person"][["pid", "age"]], "visit": d.frames["visit"]},
        )
        for name, d in (("o", original), ("c", control), ("s", others))
    }
    release, keys = views(narrow["o"], narrow["s"], narrow["c"])
    link = play_person_linkability(
        release, keys, root="person", child_tables=["visit"], n_attacks=20, seed=0
    )
    assert link.persons.attacks[0].aux_a == ("age",)  # persons are still linked
    assert link.root_rows is None and "needs at least two" in link.root_rows_note
    off = play_person_linkability(
        release, keys, root="person", child_tables=["visit"], n_attacks=20, seed=0, root_rows=False
    )
    assert off.root_rows is None and "root_rows=False" in off.root_rows_note
