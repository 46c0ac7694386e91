"""The ``copies`` stage: verbatim copies of whole records and of every high-cardinality or
left-out column's values, against the control's rates (needs only the release).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from synthleak import partitioned
from synthleak.attacks.base import AttackFamily
from synthleak.harm import FindingKey
from synthleak.metrics.copies import (
    LONG_TEXT_CHARS,
    LONG_TEXT_LETTERS,
    CopyReport,
    LoneText,
    RareValues,
)
from synthleak.metrics.privacy import RiskEstimate, binomial_p, rate_excess, wilson_interval
from synthleak.results import StageRecord, StageStatus
from synthleak.stages.base import (
    CONTROL_NEEDED,
    Context,
    Sections,
    Stage,
    StageOutput,
    needs_synthetic,
)
from synthleak.threat import ThreatModel, threat_model
from synthleak.verdicts import ALPHA, Finding, MetricKind

#: Synthetic and control rows (at most, each) whose distance to the closest original record
#: the copies stage measures for near copies; every original record stays in the search.
NEAR_COPY_SAMPLE = 2_000


def _columns_of(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame[columns]`` with a default index, without copying a frame that is already so
    (at census scale a copy of every part is gigabytes)."""
    if list(frame.columns) != list(columns):
        frame = frame[columns]
    index = frame.index
    default = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
    return frame if default else frame.reset_index(drop=True)


def _copy_frames(ctx: Context) -> tuple[dict[str, pd.DataFrame], bool]:
    """The parts compared for verbatim copies, and whether they are the user's own values.

    When every part was given as a DataFrame (the command line always gives them so), the
    values are compared as the files hold them, every column included. Otherwise (a release
    the audit generated, or Tables given in Python) every part is decoded from its encoded
    table, so that all of them pass through the same float32 encoding and a copied value
    compares equal to its original.
    """
    names = ["original", "synthetic"] + (["control"] if ctx.control is not None else [])
    if all(n in ctx.frames for n in names):
        ori = ctx.frames["original"]
        if len(ctx.train) != len(ctx.original):
            ori = ori.iloc[ctx.train_rows]
        parts = {"original": ori} | {n: ctx.frames[n] for n in names[1:]}
        shared = [c for c in ori.columns if all(c in f.columns for f in parts.values())]
        return {n: _columns_of(f, shared) for n, f in parts.items()}, True
    assert ctx.synthetic is not None
    tables = {"original": ctx.train, "synthetic": ctx.synthetic, "control": ctx.control}
    return {n: t.to_frame() for n, t in tables.items() if t is not None}, False


def _copies(ctx: Context, rng: np.random.Generator) -> StageOutput:
    """Verbatim copies in the release: whole records (on the analysed columns) and the values
    of every high-cardinality column, left-out identifiers and free text included, each
    against the rate of the control's real non-members (columns at equal size); the long text
    one training record alone holds, with or without a control."""
    from synthleak.metrics.copies import copy_report, lone_text, rare_values

    frames, raw = _copy_frames(ctx)
    assert ctx.synthetic is not None
    left_out = [c for c in ctx.schema.excluded if c in frames["original"].columns]
    ctx.log(
        f"verbatim copies: {len(frames['synthetic'])} synthetic records and the values of "
        f"{'every column' if raw else 'the analysed columns'}"
    )
    rep = copy_report(
        frames["original"],
        frames["synthetic"],
        frames.get("control"),
        row_columns=list(ctx.schema.names),
        value_columns=left_out,
        schema=ctx.schema,
        near_sample=NEAR_COPY_SAMPLE,
        rng=rng,
        counter=partitioned.copies_counter(ctx.runtime.sub("copies")),  # by key range on a cluster
        nearest=partitioned.near_search(ctx.runtime.sub("near-copies")),  # by partition on one
        encoded=(ctx.train, ctx.synthetic, ctx.control),
    )
    rep = replace(rep, copied_rows=ctx.train_rows[rep.copied_rows].astype(np.int64))
    if "control" in frames:  # values one record holds: the control's lone values are the chance
        rv = rare_values(
            frames["original"], frames["synthetic"], frames["control"], ctx.schema.categorical_names
        )
        rows = ctx.train_rows[rv.released_rows].astype(np.int64)
        rep = replace(rep, rare_values=replace(rv, released_rows=rows))
    if left_out:  # long text one record holds: unambiguous, needs no control
        lt = lone_text(frames["original"], frames["synthetic"], left_out)
        rows = ctx.train_rows[lt.released_rows].astype(np.int64)
        rep = replace(rep, lone_text=replace(lt, released_rows=rows))
    roles = {c: "left out of the attacks" for c in left_out}
    return StageOutput(findings=tuple(copy_findings(rep, roles)), sections=Sections(copies=rep))


#: How every copy finding's excess is computed (its details' ``excess``), from what it subtracts.
EXCESS_INTERVAL = "rate minus {} (Newcombe's interval, continuity-corrected)"


def copy_excess(
    successes: int, n: int, base_successes: int, base_n: int, *, confidence: float = 0.95
) -> RiskEstimate:
    """The excess of a copy rate over the control's: :func:`rate_excess` with Newcombe's
    continuity-corrected interval (his method 11), as the person-level copy figures use.

    Its verdict reads the interval's lower end against 0, and at the audit's sizes (an original
    four times its control, a release as large as the original) the uncorrected interval's
    lower end lies above 0 more often than the nominal 2.5 % when nothing is copied: in 3.06 %
    (Wilson 95 % interval 2.83 % to 3.31 %) of 20,000 releases of other people drawn from a
    table where 96 % of records recur, the rates where it errs most, against 2.48 % (2.27 % to
    2.70 %) corrected (``benchmarks/calibration_copies.py``, ``benchmarks/RESULTS_copies.md``).
    The value and Fisher's p-value are the same either way.
    """
    return rate_excess(successes, n, base_successes, base_n, confidence=confidence, continuity=True)


def copy_findings(rep: CopyReport, roles: dict[str, str] | None = None) -> list[Finding]:
    """The copy findings of a copy report.

    * ``copies.exact``: synthetic records identical to a training record; with a control, the
      excess over the share of control records identical to a training record (Newcombe's
      interval, continuity-corrected: :func:`copy_excess`);
      without one, the rate against a conservative chance rate, the upper end of the 95%
      interval of the duplicate rate within the original;
    * ``copies.columns``: with a control, the column whose values are found among ``m``
      training records most beyond how often they are found among ``m`` control records (equal
      size, :mod:`synthleak.metrics.copies`), with intervals simultaneous over every column
      checked (Bonferroni), so that picking the worst column does not inflate the figure; it is
      named only when it exceeds chance, and every column copied beyond chance is listed with
      both rates. Without a control, the share of the training records holding a long text one
      record alone holds that the release reproduces, against the stated chance rate
      (:data:`~synthleak.metrics.copies.LONE_TEXT_CHANCE`); the other columns are not measured;
    * ``copies.rare_values`` (with a control set): the share of the training records holding a
      categorical value no other record holds whose value the release holds, over the same
      share of the control records (:func:`synthleak.metrics.copies.rare_values`).

    Every finding's details hold ``people_published`` (distinct training records the finding's
    evidence shows verbatim in the release: whole records for ``copies.exact``, records whose
    lone long text is reproduced for ``copies.columns``, 0 for ``copies.rare_values``, whose
    values may be released by chance at the control's rate) and ``compared_with``
    (``"control"``, ``"chance"`` or ``"none"`` when not measured). Whole records of data with
    few distinct values match by chance, so ``copies.exact`` also holds
    ``copies_expected_by_chance``: the synthetic records a release of other people would hold
    identical to a training record (the baseline rate times the synthetic records).
    """
    roles = roles or {}
    threat = threat_model(AttackFamily.NOBOX_MEMBERSHIP, "copies")
    e = rep.synthetic_in_original
    where = []
    if rep.copied_rows.size:
        where.append(
            f"{rep.copied_rows.size} training record(s) appear verbatim in the release "
            "(their row numbers are in report.json)"
        )
    common = {
        "rate": e.value,
        "n_copied": int(rep.copied_rows.size),
        "people_published": int(np.unique(rep.copied_rows).size),
    }
    if rep.control_in_original is not None:
        base = rep.control_in_original
        exact = copy_excess(_count(e), e.n_trials, _count(base), base.n_trials)
        details: dict[str, Any] = common | {
            "copies_expected_by_chance": base.value * e.n_trials,
            "baseline_rate": base.value,
            "baseline_of": "control records",
            "compared_with": "control",
            "excess": EXCESS_INTERVAL.format("the baseline rate"),
        }
    else:
        chance = rep.chance_duplicate
        exact = replace(
            e,
            baseline=chance.ci_high,
            p_value=binomial_p(_count(e), e.n_trials, chance.ci_high),
        )
        details = common | {
            "copies_expected_by_chance": chance.value * e.n_trials,
            "baseline_rate": chance.ci_high,
            "baseline_of": "original records",
            "compared_with": "chance",
            "baseline": (
                f"the upper end of the 95% interval of the share of original records identical "
                f"to another original record ({chance.value:.4f} measured): a fresh record of "
                "the population equals a training record about as often as a training record "
                "equals another; the upper end keeps the test conservative without a control"
            ),
        }
    out = [
        Finding(
            FindingKey.COPIES_EXACT,
            "Exact copies of training records",
            MetricKind.RATE,
            exact,
            threat,
            details,
            where=tuple(where),
        )
    ]
    if rep.columns:
        out.append(_column_finding(rep, roles, threat))
    if rep.rare_values is not None:
        out.append(_rare_value_finding(rep.rare_values, threat))
    return out


def _column_finding(rep: CopyReport, roles: dict[str, str], threat: ThreatModel) -> Finding:
    """``copies.columns``: equal-size rates with a control; long text one record holds
    without one (:func:`copy_findings`)."""
    lt = rep.lone_text
    published = 0 if lt is None else int(np.unique(lt.released_rows).size)
    lone_lines: list[str] = []
    if lt is not None and lt.released:
        lone_lines.append(
            f"{lt.released} training record(s) hold a long text that no other training record "
            f"holds and the release reproduces verbatim (columns "
            f"{', '.join(lt.released_columns)}; the training rows are in report.json)"
        )
    cols = [c for c in rep.columns if c.synthetic_in_original_m and c.synthetic_in_control_m]
    if not cols:
        return _column_finding_without_control(rep, lt, published, lone_lines, threat)
    conf = 1 - ALPHA / len(cols)
    excess = {}
    for c in cols:
        ori, ctl = c.synthetic_in_original_m, c.synthetic_in_control_m
        assert ori is not None and ctl is not None
        excess[c.column] = copy_excess(
            _count(ori), ori.n_trials, _count(ctl), ctl.n_trials, confidence=conf
        )
    lines = []
    for c in cols:
        ori, ctl = c.synthetic_in_original_m, c.synthetic_in_control_m
        assert ori is not None and ctl is not None
        if excess[c.column].ci_low > 0:
            role = f" ({roles[c.column]})" if c.column in roles else ""
            lines.append(
                f"column '{c.column}'{role}: {ori.value:.1%} of the synthetic values are found "
                f"among {c.equal_size} training records, against {ctl.value:.1%} among "
                f"{c.equal_size} control records (equal size)"
            )
    worst = max(excess, key=lambda k: (excess[k].ci_low, k))
    w = excess[worst]
    # "some column is copied beyond chance": Bonferroni over the columns, as the simultaneous
    # intervals (each column's exact test, the smallest p times the number of columns)
    ps = [e.p_value for e in excess.values() if math.isfinite(e.p_value)]
    p_any = min(1.0, len(cols) * min(ps)) if ps else math.nan
    est = RiskEstimate(w.value, w.ci_low, w.ci_high, 0.95, w.n_trials, 0.0, p_any)
    above = w.value > 0
    details: dict[str, Any] = {
        "columns_checked": len(cols),
        "interval": f"simultaneous over {len(cols)} column(s) (Bonferroni)",
        "compared_with": "control",
        "people_published": published,
        "equal_size": cols[0].equal_size,
        "excess": (
            "share of the synthetic values found among m training records minus the share found "
            "among m control records, m the smaller part's size (Newcombe's interval, "
            "continuity-corrected)"
        ),
    }
    if above:
        details["column"] = worst
    title = "Column values copied verbatim" + (
        f" (worst column: '{worst}')" if above else " (no column exceeds chance)"
    )
    return Finding(
        FindingKey.COPIES_COLUMNS,
        title,
        MetricKind.RATE,
        est,
        threat,
        details,
        where=(*lines, *lone_lines),
    )


def _column_finding_without_control(
    rep: CopyReport,
    lt: LoneText | None,
    published: int,
    lone_lines: list[str],
    threat: ThreatModel,
) -> Finding:
    """``copies.columns`` without a control: the long text one record holds, against the
    stated chance rate; every other column is not measured."""
    other = [c.column for c in rep.columns if lt is None or c.column not in lt.columns]
    details: dict[str, Any] = {"people_published": published}
    if other:
        details["not_measured_columns"] = other
    if lt is None or lt.n_original == 0:
        nan = float("nan")
        details |= {
            "compared_with": "none",
            "not_measured": (
                "needs a control set to give each column's chance rate (no column left out of "
                "the attacks as an identifier or free text holds a long text that one record "
                "alone holds, the one copy that is unambiguous without it)"
            ),
        }
        return Finding(
            FindingKey.COPIES_COLUMNS,
            "Column values copied verbatim",
            MetricKind.RATE,
            RiskEstimate(nan, nan, nan, 0.95, 0, 0.0),
            threat,
            details,
        )
    lo, hi = wilson_interval(lt.released, lt.n_original)
    p = binomial_p(lt.released, lt.n_original, lt.chance_rate)
    est = RiskEstimate(lt.released / lt.n_original, lo, hi, 0.95, lt.n_original, lt.chance_rate, p)
    details |= {
        "compared_with": "chance",
        "records": lt.n_original,
        "released": lt.released,
        "columns": list(lt.columns),
        "assumption": (
            f"a generator that never saw a record reproduces a long text that record alone holds "
            f"(at least {LONG_TEXT_CHARS} characters, {LONG_TEXT_LETTERS} of them letters, not a "
            f"date) with probability at most {lt.chance_rate:g}; without a control this is the "
            "only column check with a chance rate"
        ),
    }
    return Finding(
        FindingKey.COPIES_COLUMNS,
        "Long text one training record holds, copied verbatim",
        MetricKind.RATE,
        est,
        threat,
        details,
        where=tuple(lone_lines),
    )


def copy_checks_not_measured(findings: Sequence[Finding]) -> tuple[StageRecord, ...]:
    """The copy checks that ran without an answer, as records for the summary's not-measured
    list: a copy finding that is not measured, and the columns that a no-control audit cannot
    compare (``details["not_measured_columns"]``)."""
    out = []
    for f in findings:
        if not f.key.startswith("copies."):
            continue
        if f.details.get("not_measured") and not math.isfinite(f.estimate.value):
            no_rate = f.key == FindingKey.COPIES_COLUMNS
            reason = (
                "no column has a chance rate without a control, and no column left out as an "
                "identifier or free text holds a long text that one record alone holds"
                if no_rate
                else str(f.details["not_measured"])
            )
            out.append(
                StageRecord(
                    f.key,
                    f.title,
                    StageStatus.NOT_MEASURED,
                    reason,
                    CONTROL_NEEDED if no_rate else "",
                )
            )
        elif f.details.get("not_measured_columns"):
            cols = ", ".join(f"'{c}'" for c in f.details["not_measured_columns"])
            out.append(
                StageRecord(
                    f.key,
                    f"Verbatim copies of the values of column(s) {cols}",
                    StageStatus.NOT_MEASURED,
                    "no chance rate for these columns without a control",
                    CONTROL_NEEDED,
                )
            )
    return tuple(out)


def _rare_value_finding(rv: RareValues, threat: ThreatModel) -> Finding:
    """``copies.rare_values``: lone training values in the release, over the control's rate."""
    est = copy_excess(rv.released_original, rv.n_original, rv.released_control, rv.n_control)
    details: dict[str, Any] = {
        "records": rv.n_original,
        "released": rv.released_original,
        "control_records": rv.n_control,
        "control_released": rv.released_control,
        "columns": list(rv.released_columns),
        "excess": EXCESS_INTERVAL.format("the control's rate"),
        "compared_with": "control",
        "people_published": 0,  # a value, not a record; the control releases lone values too
    }
    if not (rv.n_original and rv.n_control):
        details["compared_with"] = "none"
        details["not_measured"] = (
            "needs records holding a categorical value that no other record holds, in the "
            f"original and in the control (found {rv.n_original} and {rv.n_control}): a "
            "larger control set, or data with rarer values"
        )
    where: tuple[str, ...] = ()
    if rv.released_original:
        where = (
            f"{rv.released_original} of the {rv.n_original} training records holding a value no "
            f"other record holds find it in the release, against {rv.released_control} of the "
            f"{rv.n_control} control records, the chance rate (columns "
            f"{', '.join(rv.released_columns)}; the training rows are in report.json, or in "
            "report-records.json.gz beside it when the list is long)",
        )
    return Finding(
        FindingKey.COPIES_RARE_VALUES,
        "Values only one record holds, found in the release",
        MetricKind.RATE,
        est,
        threat,
        details,
        where=where,
    )


def _count(e: RiskEstimate) -> int:
    """The successes behind a rate estimate."""
    return round(e.value * e.n_trials) if e.n_trials else 0


STAGE = Stage("copies", "Verbatim copies", needs_synthetic, _copies, kept=True)
