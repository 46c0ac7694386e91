"""Which columns can an attacker learn from a release? Attribute inference on every column.

:func:`attribute_sweep` plays the release attribute-inference game
(:class:`~synthleak.games.attribute_release.ReleaseAttributeGame`) once per column, each column in
turn the secret and every other column the attacker's quasi-identifiers. Each column's figure is the
excess of the attack's accuracy on the training records over its accuracy on control records
swapped into the same knowledge, so what the population's statistics let anyone infer ("age
predicts marital status") is not counted, and a memorised value is. Numeric columns are judged
by the right one of ``bins`` quantile bins of the release.

The columns are ranked by the lower bound of their excess, and every column's test is corrected
for the number of columns swept (Holm 1979), as the audit's findings are: a release that leaks
nothing flags any column at most ``alpha`` of the time. Columns that cannot be a secret (a
constant column, too many classes, a tolerance nothing fails) are listed with the reason.

The budget is per column: ``n_targets`` training records (and as many control records) are
attacked for each, so the sweep costs about ``columns x`` one release game.

References
----------
Annamalai, Gadotti and Rocher (2024) (the reconstruction attack and the randomised-secret
view); Raab, Nowok and Dibben (2024) (every target variable given the quasi-identifiers);
Holm (1979) (step-down correction).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from synthleak.data.release import Release
from synthleak.errors import InputError
from synthleak.games.attribute_release import ReleaseAttributeGame
from synthleak.games.secret import Measurement, SecretRule, validate_secret
from synthleak.games.singling_out import encode_release
from synthleak.metrics.privacy import RiskEstimate, holm_adjusted
from synthleak.runtime import Runtime, as_runtime
from synthleak.serde import IntArray, Result

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AttributeSweepResult", "SweptColumn", "attribute_sweep"]


@dataclass(frozen=True, repr=False)
class SweptColumn(Result):
    """One column as the secret.

    Attributes
    ----------
    column : str
    rule : str
        When a guess counts as right ("the exact class", or the quantile-bin rule).
    status : str
        ``measured``, ``too small to measure`` or ``not measured`` (the game's own status).
    accuracy, control_accuracy : float
        The attack's accuracy on training records and on swapped-in control records.
    excess : RiskEstimate
        ``accuracy - control_accuracy`` with its interval (baseline 0).
    p_value, p_holm : float
        One-sided p-value of "no excess", and corrected for every column swept.
    flagged : bool
        The corrected test rejects at ``alpha``: the release lets an attacker infer this column
        beyond what the population's statistics give.
    reason : str
        Why it was not measured, when it was not.
    n_attacked : int
        Training records attacked (their outcomes are in ``rows`` and ``right``).
    rows : IntArray
        The attacked training records (rows of the release's original).
    right : IntArray
        1 where the attack guessed the record's secret right.
    population_right : IntArray
        1 where a classifier trained on the control records alone guessed it right (empty
        unless the sweep ran with ``population_baseline``).
    values : tuple of str
        The secret of each record of :meth:`beyond_population`, in its order; empty unless the
        caller asked for the values (the audit's ``show_records``).
    """

    column: str
    rule: str
    status: str
    accuracy: float
    control_accuracy: float
    excess: RiskEstimate
    p_value: float
    p_holm: float = math.nan
    flagged: bool = False
    reason: str = ""
    n_attacked: int = 0
    rows: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    right: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    population_right: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    values: tuple[str, ...] = ()

    @property
    def population_accuracy(self) -> float:
        """Accuracy of the control-trained classifier on the attacked records (NaN without)."""
        n = self.population_right.size
        return float(self.population_right.mean()) if n else math.nan

    def beyond_population(self) -> np.ndarray:
        """The attacked records whose secret the attack inferred from the release while a
        classifier trained on the control records alone did not (rows of the original)."""
        if self.population_right.size != self.rows.size or not self.rows.size:
            return np.zeros(0, dtype=np.int64)
        hit = (self.right == 1) & (self.population_right == 0)
        return self.rows[hit].astype(np.int64)


@dataclass(frozen=True, repr=False)
class AttributeSweepResult(Result):
    """Every column ranked by its excess inference risk (see the module docstring).

    Attributes
    ----------
    attack : str
    n_targets : int or None
        Training records attacked per column (``None``: all).
    alpha : float
    columns : tuple of SweptColumn
        Measured columns first, by the lower bound of their excess (highest first).
    skipped : dict of str to str
        Columns that cannot be a secret, and why.
    seed : int
    """

    attack: str
    n_targets: int | None
    alpha: float
    columns: tuple[SweptColumn, ...]
    skipped: dict[str, str] = field(default_factory=dict)
    seed: int = 0

    @property
    def flagged(self) -> tuple[str, ...]:
        """The columns an attacker infers beyond the population's statistics."""
        return tuple(c.column for c in self.columns if c.flagged)

    def to_frame(self) -> pd.DataFrame:
        """One row per swept column, in rank order."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "column": c.column,
                    "rule": c.rule,
                    "status": c.status,
                    "accuracy": c.accuracy,
                    "control_accuracy": c.control_accuracy,
                    "excess": c.excess.value,
                    "ci_low": c.excess.ci_low,
                    "ci_high": c.excess.ci_high,
                    "p_holm": c.p_holm,
                    "flagged": c.flagged,
                }
                for c in self.columns
            ]
        )


def attribute_sweep(
    release: Release,
    *,
    seed: int,
    attack: str = "recon",
    attack_params: Mapping[str, Any] | None = None,
    n_targets: int | None = None,
    bins: int = 5,
    alpha: float = 0.05,
    left_out: Mapping[str, str] | None = None,
    runtime: Runtime | None = None,
    log: Callable[[str], None] | None = None,
    max_seconds: float | None = None,
    population_baseline: bool = False,
    part_size: int = 2000,
) -> AttributeSweepResult:
    """Attribute inference with every column as the secret, ranked by excess risk.

    Parameters
    ----------
    release : Release
        ``Release(original, synthetic, control)``; the control records give each column's
        distributional baseline, so they are required.
    seed : int
        Same seed, same result (each column's game draws from its own named streams).
    attack : str
        The attribute attack (default ``recon``, the linear reconstruction).
    attack_params : mapping, optional
        Its parameters (e.g. ``{"n_queries": 20000}``).
    n_targets : int, optional
        Training records attacked per column (the budget; default all).
    bins : int, default 5
        Quantile bins a numeric column is guessed among (the right bin counts as right).
    alpha : float, default 0.05
        Family-wise error rate of the flags over the columns swept.
    left_out : mapping, optional
        Columns left out of the analysis (identifiers, free text) and what they are: listed
        among the skipped columns.
    runtime : Runtime, optional
        Run directory (each column's game keeps its finished parts) and workers.
    log : callable, optional
        One line per column (with the time the columns left are projected to take) and the
        games' progress.
    max_seconds : float, optional
        Wall-time limit of the whole sweep: each column gets an equal share of the time left,
        and its game attacks the parts of its records that fit in it (at least one).
    population_baseline : bool
        Also keep, per attacked record, whether a classifier trained on the control records
        alone infers its secret (:meth:`SweptColumn.beyond_population`).
    part_size : int, default 2000
        Most records in one part of a column's game (parts share quasi-identifier values; see
        :class:`~synthleak.games.attribute_release.ReleaseAttributeGame`).
    """
    if not 0 < alpha < 1:
        raise InputError(f"alpha must lie in (0, 1), got {alpha!r}")
    if max_seconds is not None and not (
        isinstance(max_seconds, int | float)
        and not isinstance(max_seconds, bool)
        and max_seconds > 0
    ):
        raise InputError(f"max_seconds must be a positive number of seconds, got {max_seconds!r}")
    say = log or (lambda _msg: None)
    rt = as_runtime(runtime)
    original, synthetic, control = encode_release(release, "the attribute sweep")
    schema = original.schema  # one widened schema for the three tables
    encoded = Release(original, synthetic, control, schema)
    rule = SecretRule(bins=bins)
    skipped = {c: f"left out as {what}" for c, what in (left_out or {}).items()}
    results: list[SweptColumn] = []
    todo: list[tuple[int, str]] = []
    for i, col in enumerate(schema.names):
        if col in skipped:
            continue
        numeric = not schema[col].is_categorical
        try:
            validate_secret(schema, col, None, data=original, rule=rule if numeric else None)
        except InputError as exc:
            skipped[col] = str(exc)
            continue
        todo.append((i, col))
    from synthleak.games.cost import format_seconds

    started = time.perf_counter()
    for j, (i, col) in enumerate(todo):
        numeric = not schema[col].is_categorical
        elapsed = time.perf_counter() - started
        left = f", about {format_seconds(elapsed / j * (len(todo) - j))} left" if j else ""
        say(f"attribute sweep: column {j + 1} of {len(todo)}, '{col}'{left}")
        share = None
        if max_seconds is not None:
            share = max(1e-3, (float(max_seconds) - elapsed) / (len(todo) - j))
        game = ReleaseAttributeGame(
            col,
            None,
            attack=attack,
            attack_params=attack_params,
            n_targets=n_targets,
            secret_rule=rule if numeric else None,
            log=log,
            max_seconds=share,
            population_baseline=population_baseline,
            part_size=part_size,
        )
        try:
            res = game.run(encoded, seed=seed, runtime=rt.sub(f"sweep-{i}"))
        except InputError as exc:  # e.g. more classes across the parts than the attacks take
            skipped[col] = str(exc)
            continue
        d = res.difference
        measured = res.status is not Measurement.NOT_MEASURED and math.isfinite(d.difference)
        tr = res.training
        empty = np.zeros(0, dtype=np.int64)
        right = empty if tr is None or tr.right is None else tr.right.astype(np.int64)
        results.append(
            SweptColumn(
                col,
                rule.describe() if numeric else "the exact class",
                res.status.value,
                res.accuracy.value,
                res.control_accuracy.value,
                res.advantage,
                d.p_value if measured else math.nan,
                reason=res.reason,
                n_attacked=0 if tr is None else int(tr.rows.size),
                rows=empty if tr is None else tr.rows.astype(np.int64),
                right=right,
                population_right=(
                    empty
                    if tr is None or tr.population_right is None
                    else tr.population_right.astype(np.int64)
                ),
            )
        )
    adjusted = holm_adjusted([c.p_value for c in results])
    ranked = [
        SweptColumn(
            c.column,
            c.rule,
            c.status,
            c.accuracy,
            c.control_accuracy,
            c.excess,
            c.p_value,
            p,
            bool(math.isfinite(p) and p <= alpha),
            c.reason,
            c.n_attacked,
            c.rows,
            c.right,
            c.population_right,
        )
        for c, p in zip(results, adjusted, strict=True)
    ]
    ranked.sort(key=lambda c: (-np.nan_to_num(c.excess.ci_low, nan=-np.inf), c.column))
    return AttributeSweepResult(
        attack, n_targets, float(alpha), tuple(ranked), dict(skipped), int(seed)
    )
