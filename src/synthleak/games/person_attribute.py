"""Attribute inference of a person's attribute from their child rows and a relational release.

The adversary knows a person's history (their child rows: transactions, visits, household
members) and wants an attribute of their root row (an income band, a region, a diagnosis). In
the release they look for what histories like this one say about the attribute.
:func:`play_person_attribute` is the release attribute-inference game
(:class:`~synthleak.games.attribute_release.ReleaseAttributeGame`, Annamalai et al. (2024a),
Sec. 4.2) on the person-level view (:func:`~synthleak.data.relational.person_views`: one row per
person), with a column of the root table as the secret and the child-row summaries (counts,
statistics, value counts, sequence ends) as what the adversary knows. The game's baseline is
unchanged and correct at person level: the same attack on control persons swapped in for
training persons, whose histories the generator never saw; the excess accuracy on the training
persons is the leak, with Newcombe's interval.

The persons inferred are named by their root key: the attacked training persons whose secret
the attack infers right while a classifier trained on the control persons alone (what the
population's statistics let anyone infer, without the release) does not. Some of them are
inferred by chance, as control persons are: read the list with the excess's interval.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from synthleak.data.release import Release
from synthleak.errors import InputError
from synthleak.games.attribute_release import ReleaseAttributeResult
from synthleak.runtime import Runtime
from synthleak.serde import Result

if TYPE_CHECKING:
    from synthleak.games.secret import SecretRule

__all__ = ["PersonAttributeResult", "play_person_attribute"]

#: Root keys of inferred persons listed (the first, in the order attacked).
MAX_KEYS = 100


@dataclass(frozen=True, repr=False)
class PersonAttributeResult(Result):
    """Outcome of :func:`play_person_attribute`.

    Attributes
    ----------
    game : ReleaseAttributeResult
        The release attribute game on the person-level view (its records are persons).
    secret : str
        The root table's column inferred.
    known : tuple of str
        The view's columns the adversary knows (by default the child-row summaries).
    inferred : list
        Root keys of the attacked training persons whose secret the attack infers right and
        the population's classifier does not (at most :data:`MAX_KEYS`).
    n_inferred : int
    root : str
    """

    game: ReleaseAttributeResult
    secret: str
    known: tuple[str, ...]
    inferred: list[Any]
    n_inferred: int
    root: str


def play_person_attribute(
    release: Release,
    keys: Sequence[Any] | np.ndarray,
    *,
    root: str,
    child_tables: Sequence[str],
    secret: str,
    known: Sequence[str] | None = None,
    attack: str = "recon",
    attack_params: Mapping[str, Any] | None = None,
    n_targets: int | None = None,
    part_size: int = 2000,
    secret_rule: SecretRule | None = None,
    seed: int,
    runtime: Runtime | None = None,
    log: Callable[[str], None] | None = None,
) -> PersonAttributeResult:
    """Infer the root column ``secret`` of persons from their child rows (module docstring).

    Parameters
    ----------
    release : Release
        The person-level views of the original, the release and the control (one row per
        person; DataFrames or the audit's encoded tables).
    keys : sequence
        The root key of each row of ``release.original``, in order.
    root : str
        The table of persons.
    child_tables : sequence of str
        The root's descendant tables, whose summaries the view names ``table.<...>``.
    secret : str
        A column of the root table (categorical, or numeric and binned by the game).
    known : sequence of str, optional
        What the adversary knows of each person (default: every child-row summary).
    attack, attack_params, n_targets, part_size, secret_rule, seed, runtime, log
        As :func:`synthleak.stages.attribute_release.play_attribute_release`.
    """
    from synthleak import partitioned
    from synthleak.games.attribute_release import ReleaseAttributeGame

    enc = release.encode()
    if enc.control is None:
        raise InputError("attribute inference of persons needs the control's persons (control)")
    keys = np.asarray(keys, dtype=object)
    if len(keys) != len(enc.original):
        raise InputError(
            f"keys holds {len(keys)} root keys for {len(enc.original)} persons of the original: "
            "give one key per row of the original's person-level view"
        )
    prefixes = tuple(f"{t}." for t in child_tables)
    names = list(enc.schema.names)
    own = [c for c in names if not c.startswith(prefixes)]
    if secret not in own:
        raise InputError(
            f"secret {secret!r} is not a column of table {root!r}: person-level attribute "
            f"inference infers a person's own attribute ({', '.join(own) or 'none'})"
        )
    q = list(known) if known is not None else [c for c in names if c.startswith(prefixes)]
    if not q:
        raise InputError(
            f"table {root!r} has no child rows summarised in the view: give known, the columns "
            "the adversary knows"
        )
    game = ReleaseAttributeGame(
        secret,
        q,
        attack=attack,
        attack_params=attack_params,
        n_targets=n_targets,
        part_size=part_size,
        log=log,
        secret_rule=secret_rule,
        population_baseline=True,
    )
    res = game.run(
        Release(enc.original, enc.synthetic, enc.control),
        seed=seed,
        runtime=partitioned.driver_runtime(runtime or Runtime()),
    )
    rows: list[int] = []
    t = res.training
    if t is not None and t.right is not None and t.population_right is not None:
        hit = (np.asarray(t.right) == 1) & (np.asarray(t.population_right) == 0)
        rows = [int(r) for r in np.asarray(t.rows)[hit]]
    return PersonAttributeResult(
        res,
        secret,
        tuple(q),
        [_plain(keys[r]) for r in rows[:MAX_KEYS]],
        len(rows),
        root,
    )


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
