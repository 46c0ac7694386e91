"""The ``person_copies`` stage: persons' histories of child rows published verbatim in a
relational release, against the control persons' rate
(:func:`~synthleak.games.person_copies.play_person_copies`).

It runs only on relational input; the training persons are the original's, the baseline the
control's persons. Two findings, in the copies harm class (:mod:`synthleak.harm`): whole
histories replayed (``copies.person_history``, real persons published verbatim) and a share of
a history copied (``copies.person_rows``).
"""

from __future__ import annotations

import numpy as np

from synthleak.attacks.base import AttackFamily
from synthleak.harm import FindingKey
from synthleak.stages.base import Context, Sections, Stage, StageOutput, needs_person_release
from synthleak.stages.copies import EXCESS_INTERVAL
from synthleak.threat import threat_model
from synthleak.verdicts import Finding, MetricKind


def _person_copies(ctx: Context, rng: np.random.Generator) -> StageOutput:
    """Deterministic: ``rng`` is not drawn from."""
    findings: list[Finding] = []
    notes: list[str] = []
    from synthleak.games.person_copies import play_person_copies

    assert ctx.relational is not None
    parts = ctx.relational
    ctx.log("verbatim copies of persons' histories (child rows), against the control's persons")
    res = play_person_copies(parts["original"], parts["synthetic"], parts["control"], root=ctx.root)
    section = res
    threat = threat_model(AttackFamily.NOBOX_MEMBERSHIP, "copies")
    common = {
        "root": ctx.root,
        "tables": list(res.tables),
        "baseline_of": "control persons",
        "compared_with": "control",
        "excess": EXCESS_INTERVAL.format("the baseline rate"),
    }
    findings.append(
        Finding(
            FindingKey.COPIES_PERSON_HISTORY,
            "Persons' whole histories replayed verbatim",
            MetricKind.RATE,
            res.whole,
            threat,
            common
            | {
                "rate": res.whole_rate,
                "baseline_rate": res.whole_control_rate,
                "people_published": res.n_whole,
                "persons_replayed_by_chance": res.whole_control_rate * res.n_persons,
                "min_rows": res.min_rows,
            },
            where=(
                (
                    f"{res.n_whole} training person(s) have their whole history replayed (their "
                    f"root keys are in report.json)",
                )
                if res.n_whole
                else ()
            ),
        )
    )
    findings.append(
        Finding(
            FindingKey.COPIES_PERSON_ROWS,
            f"Persons with at least {res.share_threshold:.0%} of their child rows copied",
            MetricKind.RATE,
            res.share,
            threat,
            common
            | {
                "rate": res.share_rate,
                "baseline_rate": res.share_control_rate,
                "people_published": 0,  # rows that recur by chance are not a person published
                "share": res.share_threshold,
            },
        )
    )
    return StageOutput(
        findings=tuple(findings), notes=tuple(notes), sections=Sections(person_copies=section)
    )


STAGE = Stage(
    "person_copies",
    "Verbatim copies of persons' histories (relational)",
    needs_person_release,
    _person_copies,
    kept=True,
)
