"""The report's document model (paragraphs, bullets, tables, figures in sections) and the
number formatting every section shares. The writers lay these blocks out; the sections
(:mod:`synthleak.report.sections`) fill them."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from synthleak.references import Reference
from synthleak.results import AuditResult
from synthleak.verdicts import ALPHA, Finding, Verdict, p_text


@dataclass(frozen=True)
class Paragraph:
    text: str
    emphasis: bool = False


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]


@dataclass(frozen=True)
class TableBlock:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""


@dataclass(frozen=True)
class Figure:
    name: str  # file stem, unique within the report
    png: bytes
    caption: str


@dataclass(frozen=True)
class Links:
    """Links to other files of a report (relative paths), one per line: ``(text, href)``."""

    items: tuple[tuple[str, str], ...]


Block = Paragraph | Bullets | TableBlock | Figure | Links


@dataclass
class Section:
    title: str
    anchor: str
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Document:
    title: str
    sections: list[Section]
    references: tuple[Reference, ...] = ()  # the works the text cites, as listed in the report


def fmt(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def span(low: Any, high: Any, digits: int = 3) -> str:
    """An interval as ``low – high``; ``n/a`` once when neither end is defined."""
    if fmt(low) == fmt(high) == "n/a":
        return "n/a"
    return f"{fmt(low, digits)} – {fmt(high, digits)}"


def ci(f: Finding) -> str:
    return span(f.estimate.ci_low, f.estimate.ci_high)


#: Persons a report table lists by their root key (report.json keeps more).
PERSONS_SHOWN = 20


def persons_table(
    keys: Sequence[object], n_total: int, root: str, kept: int, head: str, tail: str
) -> TableBlock:
    """Persons listed by their root key, :data:`PERSONS_SHOWN` at most: the caption is
    ``head``, then (when some are left out) how many of ``n_total`` are shown and that
    report.json lists up to ``kept``, then ``tail``."""
    shown = keys[:PERSONS_SHOWN]
    first = (
        f" (the first {len(shown)} of {n_total}; report.json lists up to {kept})"
        if n_total - len(shown)
        else ""
    )
    return TableBlock(
        (f"person ({root} key)",), tuple((str(k),) for k in shown), f"{head}{first}{tail}"
    )


def attack_table(
    rows: Iterable[tuple[tuple[str, ...], Any, tuple[str, ...]]],
    *,
    lead: tuple[str, ...],
    tail: tuple[str, ...],
    caption: str,
    metric: str = "AUC",
) -> TableBlock:
    """The table of attacks a section shows: one row per attack (or target and attack), each
    ``(lead cells, estimate, tail cells)``; the estimate (anything with ``value``, ``ci_low``
    and ``ci_high``) fills the columns ``metric`` and "95% CI" between the ``lead`` and
    ``tail`` columns."""
    return TableBlock(
        (*lead, metric, "95% CI", *tail),
        tuple(
            (*cells, fmt(est.value), span(est.ci_low, est.ci_high), *more)
            for cells, est, more in rows
        ),
        caption,
    )


def finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def finding(result: AuditResult, key: str) -> Finding | None:
    """The finding of ``key``: a :class:`~synthleak.harm.FindingKey`, or a key built by
    :func:`~synthleak.results.attribute_game_key` or :func:`~synthleak.results.sweep_key` (a
    section's table shows its verdict, not a judgement of its own)."""
    return next((f for f in result.findings if f.key == key), None)


def verdict_text(f: Finding | None) -> str:
    """The wording of a finding's verdict (:class:`Verdict`), or "not measured" without one."""
    return (f.verdict or Verdict.NOT_MEASURED).value if f is not None else "not measured"


def p_cell(f: Finding) -> str:
    """ "alone / after Holm" p-values of a finding, for the findings table; the Holm value is
    printed so that it agrees with the decision (``> 0.050`` when just above 5 %)."""
    if f.verdict is Verdict.NOT_MEASURED or not finite(f.p_value):
        return "n/a"
    holm = pv(f.p_holm, ALPHA) if finite(f.p_holm) else "n/a"
    return f"{pv(f.p_value)} / {holm}"


def pv(p: float, alpha: float | None = None) -> str:
    text = p_text(p, alpha)
    return text[2:] if text.startswith("= ") else text
