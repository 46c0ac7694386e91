"""Which columns can an attacker learn from a release? Attribute inference on every column.

:func:`attribute_sweep` plays the release attribute-inference game
(:class:`~synthleak.games.attribute.ReleaseAttributeGame`) once per column, each column in turn
the secret and every other column the attacker's quasi-identifiers. Each column's figure is the
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from synthleak.errors import InputError
from synthleak.games.attribute import (
    Measurement,
    ReleaseAttributeGame,
    SecretRule,
    validate_secret,
)
from synthleak.games.base import Release
from synthleak.games.singling_out import encode_release
from synthleak.metrics.privacy import RiskEstimate, holm_adjusted
from synthleak.runtime import Runtime, as_runtime
from synthleak.serde import Result

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
        One line per column and the games' progress.
    """
    if not 0 < alpha < 1:
        raise InputError(f"alpha must lie in (0, 1), got {alpha!r}")
    say = log or (lambda _msg: None)
    rt = as_runtime(runtime)
    original, synthetic, control = encode_release(release, "the attribute sweep")
    schema = original.schema  # one widened schema for the three tables
    encoded = Release(original, synthetic, control, schema)
    rule = SecretRule(bins=bins)
    skipped = {c: f"left out as {what}" for c, what in (left_out or {}).items()}
    results: list[SweptColumn] = []
    for i, col in enumerate(schema.names):
        numeric = not schema[col].is_categorical
        try:
            validate_secret(schema, col, None, data=original, rule=rule if numeric else None)
        except InputError as exc:
            skipped[col] = str(exc)
            continue
        say(f"attribute sweep: column {i + 1} of {len(schema.names)}, '{col}'")
        game = ReleaseAttributeGame(
            col,
            None,
            attack=attack,
            attack_params=attack_params,
            n_targets=n_targets,
            secret_rule=rule if numeric else None,
            log=log,
        )
        try:
            res = game.run(encoded, seed=seed, runtime=rt.sub(f"sweep-{i}"))
        except InputError as exc:  # e.g. more classes across the parts than the attacks take
            skipped[col] = str(exc)
            continue
        d = res.difference
        measured = res.status is not Measurement.NOT_MEASURED and math.isfinite(d.difference)
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
        )
        for c, p in zip(results, adjusted, strict=True)
    ]
    ranked.sort(key=lambda c: (-np.nan_to_num(c.excess.ci_low, nan=-np.inf), c.column))
    return AttributeSweepResult(
        attack, n_targets, float(alpha), tuple(ranked), dict(skipped), int(seed)
    )
