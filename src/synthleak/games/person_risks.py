"""Singling out and linkability of persons in a relational release: Anonymeter's two games
(Giomi et al. (2023), Secs. 4.1 and 4.2) on the person-level view.

In a relational release the unit of privacy is the person: a root row with all their child rows.
Both games are played on the person-level view (:func:`~synthleak.data.relational.person_views`:
one row per person, their child rows summarised by counts, statistics, value counts and
sequence ends), the original's persons against the control's, exactly as the audit's
``singling_out`` and ``linkability`` stages play them on one table. That is correct at person
level as it stands: the view has one row per person, so a predicate matching "exactly one row"
matches one person, and the persons (not their child rows) are the sampled units, so the
original's and the control's persons are exchangeable when nothing leaks and the singling-out
game's equal-size design applies to persons unchanged. What this module adds is the person's
name and the person-level question:

* :func:`play_person_singling_out`: per attack, the root keys of the original's persons whom a
  predicate matches alone while it matches no control person (never a child row number), taken
  from the game's own counts (its ``counter``), so the persons named are those behind the
  reported successes; and, as the row-level figure, the same game on the root table's own
  columns, without the child rows (the difference is what the child rows add);
* :func:`play_person_linkability`: the two sources the adversary links are a person's root row
  (``aux_a``: the root table's own columns, say a customer file) and their history (``aux_b``:
  the child-row summaries, say a transaction log without names); the persons linked are named by
  root key; and, as the row-level figure, the same game on the root table's own columns alone,
  its columns split in two halves as the audit's record-level ``linkability`` stage splits a
  table's (the link the root rows allow without the child rows).

A predicate or a link can succeed on one person by chance, so the lists are read with the risks'
intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from synthleak.attacks.predicates import CountRequest, Matches, answer_requests
from synthleak.data.release import EncodedRelease, Release
from synthleak.errors import InputError
from synthleak.games.linkability import LinkabilityResult
from synthleak.games.singling_out import SinglingOutResult
from synthleak.metrics.privacy import RiskEstimate
from synthleak.serde import Result

__all__ = [
    "AUDIT_ATTACKS",
    "PersonLinkabilityResult",
    "PersonRisksResult",
    "PersonSinglingOutResult",
    "play_person_linkability",
    "play_person_singling_out",
    "root_link_columns",
]

#: The singling-out attacks played on persons (those of the audit's ``singling_out`` stage).
AUDIT_ATTACKS = ("univariate", "multivariate")
#: Candidate predicates the row-level figure's multivariate attack tries per predicate asked (a
#: root table of few columns holds few distinct conjunctions: the attack's own cap of ten million
#: candidates would take minutes to find that out).
ROOT_ATTEMPTS_PER_PREDICATE = 1000
#: Root keys listed per attack (singling out: the first, in predicate order; linkability: the
#: first, in root-table order).
MAX_KEYS = 100


@dataclass(frozen=True, repr=False)
class PersonSinglingOutResult(Result):
    """Outcome of :func:`play_person_singling_out`.

    Attributes
    ----------
    persons : SinglingOutResult
        The game on the person-level view: its risks are those of persons.
    singled_out : dict of str to list
        Per attack, the root keys of the original's persons that a predicate matches alone
        while it matches no control person (at most :data:`MAX_KEYS`, distinct, in predicate
        order).
    n_singled_out : dict of str to int
        Per attack, how many distinct persons those are.
    root_rows : SinglingOutResult, optional
        The row-level figure: the same game on the root table's own columns (``None`` when it
        could not be played; ``root_rows_note`` says why).
    root_rows_note : str
    root : str
    """

    persons: SinglingOutResult
    singled_out: dict[str, list[Any]]
    n_singled_out: dict[str, int]
    root_rows: SinglingOutResult | None
    root_rows_note: str
    root: str


class _Recorder:
    """A predicate counter that keeps the matches of the original's predicates.

    The game counts in one call per table: on the original two requests per attack (its random
    baseline, then its predicates with their matching rows), on the control one per attack.
    """

    def __init__(self, counter: Any, n_attacks: int) -> None:
        self.counter = counter or answer_requests
        self.n_attacks = n_attacks
        self.original: list[Matches] = []
        self.control: list[Matches] = []

    def __call__(self, table: Any, requests: Sequence[CountRequest]) -> list[Any]:
        answers = list(self.counter(table, requests))
        if len(requests) == 2 * self.n_attacks and not self.original:
            self.original = [a for a in answers[1::2] if isinstance(a, Matches)]
        elif len(requests) == self.n_attacks:
            self.control = [a for a in answers if isinstance(a, Matches)]
        return answers


def _own_columns(names: Sequence[str], child_tables: Sequence[str]) -> list[str]:
    """The root table's own columns of a person-level view (a child table ``t``'s summaries are
    named ``t.<...>``)."""
    prefixes = tuple(f"{t}." for t in child_tables)
    return [c for c in names if not c.startswith(prefixes)]


def _root_release(enc: EncodedRelease, own: list[str]) -> Release:
    """The three parts on the root table's own columns alone (the row-level figures' input)."""
    control = None if enc.control is None else enc.control.select(own)
    return Release(enc.original.select(own), enc.synthetic.select(own), control)


def play_person_singling_out(
    release: Release,
    keys: Sequence[Any] | np.ndarray,
    *,
    root: str,
    child_tables: Sequence[str],
    attacks: Sequence[str] = AUDIT_ATTACKS,
    n_attacks: int,
    seed: int,
    attack_params: Mapping[str, Mapping[str, Any]] | None = None,
    counter: Any = None,
    root_rows: bool = True,
) -> PersonSinglingOutResult:
    """Play singling out on persons (module docstring).

    Parameters
    ----------
    release : Release
        The person-level views of the original, the release and the control (one row per
        person; DataFrames or the audit's encoded tables).
    keys : sequence
        The root key of each row of ``release.original``, in order.
    root : str
        The table of persons (for the result's wording).
    child_tables : sequence of str
        The root's descendant tables, whose summaries the view names ``table.<...>``.
    attacks, n_attacks, seed, attack_params
        As :func:`synthleak.stages.singling_out.play_singling_out`.
    counter : callable, optional
        The game's predicate counter (default: in this process).
    root_rows : bool, default True
        Also play the game on the root table's own columns (the row-level figure); there the
        multivariate attack tries at most :data:`ROOT_ATTEMPTS_PER_PREDICATE` candidates per
        predicate asked.
    """
    from synthleak.games.singling_out import SinglingOutGame

    enc = release.encode()
    if enc.control is None:
        raise InputError("singling out of persons needs the control's persons (control)")
    keys = _check_keys(keys, len(enc.original))
    params = None if attack_params is None else {k: dict(v) for k, v in attack_params.items()}
    game = SinglingOutGame(tuple(attacks), n_attacks=n_attacks, attack_params=params)
    rec = _Recorder(counter, len(tuple(attacks)))
    persons = game.run(Release(enc.original, enc.synthetic, enc.control), seed=seed, counter=rec)
    if not len(rec.original) == len(rec.control) == len(persons.attacks):
        # the game's counting calls changed shape: naming persons from them would be wrong
        raise RuntimeError(
            "the singling-out game counted its predicates in an unexpected pattern "
            f"({len(rec.original)} original and {len(rec.control)} control match lists for "
            f"{len(persons.attacks)} attacks): the persons singled out cannot be named"
        )
    singled: dict[str, list[Any]] = {}
    n_singled: dict[str, int] = {}
    for res, m_o, m_c in zip(persons.attacks, rec.original, rec.control, strict=True):
        hit = np.flatnonzero((m_o.counts == 1) & (m_c.counts == 0))
        rows = [int(m_o.rows_of(int(i))[0]) for i in hit]
        distinct = list(dict.fromkeys(rows))
        singled[res.attack] = [_plain(keys[r]) for r in distinct[:MAX_KEYS]]
        n_singled[res.attack] = len(distinct)
    own = _own_columns(enc.schema.names, child_tables)
    rr, note = None, f"table {root!r} has no column of its own beside its key"
    if not root_rows:
        note = "not asked for (root_rows=False)"
    elif own:
        try:
            cap = {"max_attempts": ROOT_ATTEMPTS_PER_PREDICATE * int(n_attacks)}
            root_params = {k: dict(v) for k, v in (params or {}).items()}
            if "multivariate" in attacks:
                root_params["multivariate"] = cap | root_params.get("multivariate", {})
            root_game = SinglingOutGame(
                tuple(attacks), n_attacks=n_attacks, attack_params=root_params
            )
            rr, vacuous = _without_vacuous_intervals(
                root_game.run(_root_release(enc, own), seed=seed, counter=counter)
            )
            note = "; ".join(vacuous)
        except InputError as exc:  # a root table too narrow for an attack's predicates
            note = f"on the {len(own)} column(s) of table {root!r} alone: {exc}"
    return PersonSinglingOutResult(persons, singled, n_singled, rr, note, root)


def _without_vacuous_intervals(res: SinglingOutResult) -> tuple[SinglingOutResult, list[str]]:
    """The row-level game's result with every attack whose risk interval spans all of 0 to 1
    made "not measured", and one line per such attack saying why and what it needs.

    On a root table of few columns against a small control the multivariate attack's
    predicates often all single out one original row (an attack rate of 1) while the
    equal-size excess, read at the control's size, is not distinguishable from 0: the risk
    (the excess over one minus the control's rate) is then 1 and its interval 0 to 1, a figure
    that says nothing either way.
    """
    attacks, lines = [], []
    for a in res.attacks:
        r = a.risk
        if a.measured and r.ci_low <= 0.0 and r.ci_high >= 1.0:
            why = (
                f"not measured: its {r.confidence:.0%} interval spans every risk from 0 to 1 "
                f"({a.n_success} of {a.n_attacks} predicates single out one row of the original, "
                f"{a.n_control_success} one of the control's {res.design.n_control}); it needs a "
                "larger control set"
            )
            nan = float("nan")
            a = replace(
                a,
                measured=False,
                note=why,
                risk=RiskEstimate(nan, nan, nan, r.confidence, r.n_trials, r.baseline),
            )
            lines.append(f"{a.attack}: {why}")
        attacks.append(a)
    return replace(res, attacks=tuple(attacks)), lines


@dataclass(frozen=True, repr=False)
class PersonLinkabilityResult(Result):
    """Outcome of :func:`play_person_linkability`.

    Attributes
    ----------
    persons : LinkabilityResult
        The game on the person-level view, linking ``aux_a`` (the root row) to ``aux_b`` (the
        child-row summaries); its risk is that of persons.
    linked : list
        Root keys of the original's targets whose two halves were linked (at most
        :data:`MAX_KEYS`).
    n_linked : int
    root : str
    root_rows : LinkabilityResult, optional
        The row-level figure: the game on the root table's own columns, ``root_aux_a`` linked to
        ``root_aux_b`` (``None`` when it could not be played; ``root_rows_note`` says why).
    root_rows_note : str
    """

    persons: LinkabilityResult
    linked: list[Any]
    n_linked: int
    root: str
    root_rows: LinkabilityResult | None = None
    root_rows_note: str = ""


def root_link_columns(own: Sequence[str]) -> tuple[list[str], list[str]]:
    """The two halves of the root table's own columns the row-level linkability figure links:
    the first half and the rest, as the record-level ``linkability`` stage splits a table's
    columns (:func:`synthleak.stages.linkability._default_link_columns`). Empty halves when
    the root has fewer than two columns of its own."""
    own = list(own)
    if len(own) < 2:
        return [], []
    half = len(own) // 2
    return own[:half], own[half:]


def play_person_linkability(
    release: Release,
    keys: Sequence[Any] | np.ndarray,
    *,
    root: str,
    child_tables: Sequence[str],
    aux_a: Sequence[str] | None = None,
    aux_b: Sequence[str] | None = None,
    n_attacks: int,
    n_neighbors: int = 1,
    seed: int,
    search: Any = None,
    root_rows: bool = True,
) -> PersonLinkabilityResult:
    """Play linkability on persons (module docstring).

    ``release``, ``keys``, ``root`` and ``child_tables`` as :func:`play_person_singling_out`;
    ``aux_a`` defaults to the root table's own columns of the view and ``aux_b`` to its
    child-row summaries. ``n_attacks``, ``n_neighbors`` and ``seed`` as
    :func:`synthleak.stages.linkability.play_linkability`; ``search`` is the game's
    nearest-neighbour search (default: the attack's own). With ``root_rows`` (default) the
    game is also played on the root table's own columns alone, the halves of
    :func:`root_link_columns` linked (the row-level figure), with the same seed and search.
    """
    from synthleak.games.linkability import LinkabilityGame

    enc = release.encode()
    if enc.control is None:
        raise InputError("linkability of persons needs the control's persons (control)")
    keys = _check_keys(keys, len(enc.original))
    names = list(enc.schema.names)
    own = _own_columns(names, child_tables)
    a = list(aux_a) if aux_a is not None else own
    b = list(aux_b) if aux_b is not None else [c for c in names if c not in set(own)]
    if not a or not b:
        raise InputError(
            f"linkability of persons links a person's row of table {root!r} to their child rows: "
            f"the view has {len(own)} column(s) of the root and {len(names) - len(own)} of the "
            "child rows; give aux_a and aux_b"
        )
    game = LinkabilityGame(a, b, n_attacks=n_attacks, n_neighbors=n_neighbors)
    res = game.run(Release(enc.original, enc.synthetic, enc.control), seed=seed, search=search)
    rows = res.attacks[0].linked_rows if res.attacks else ()
    rr, note = None, "not asked for (root_rows=False)"
    if root_rows:
        ra, rb = root_link_columns(own)
        if not ra:
            note = (
                f"table {root!r} has {len(own)} column(s) of its own beside its key: linking two "
                "parts of its rows needs at least two"
            )
        else:
            root_game = LinkabilityGame(ra, rb, n_attacks=n_attacks, n_neighbors=n_neighbors)
            rr = root_game.run(_root_release(enc, own), seed=seed, search=search)
            note = ""
    return PersonLinkabilityResult(
        res, [_plain(keys[r]) for r in rows[:MAX_KEYS]], len(rows), root, rr, note
    )


@dataclass(frozen=True, repr=False)
class PersonRisksResult(Result):
    """Singling out and linkability of persons (the audit's ``person_risks`` stage).

    Attributes
    ----------
    singling_out : PersonSinglingOutResult
    linkability : PersonLinkabilityResult, optional
        ``None`` when the view lacks root or child columns to link (``linkability_note``).
    linkability_note : str
    """

    singling_out: PersonSinglingOutResult
    linkability: PersonLinkabilityResult | None
    linkability_note: str = ""


def _check_keys(keys: Sequence[Any] | np.ndarray, n: int) -> np.ndarray:
    out = np.asarray(keys, dtype=object)
    if len(out) != n:
        raise InputError(
            f"keys holds {len(out)} root keys for {n} persons of the original: give one key per "
            "row of the original's person-level view"
        )
    return out


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
