"""The 'Attribute inference' section: one verdict per secret, from the attack on the release
(stage ``attribute_release``) and the randomised-secret game against the generator (stage
``attribute_game``). Both stages measure the same secret, so they share one section whose
verdict is the most telling of their findings.
"""

from __future__ import annotations

from typing import Any

from synthleak.games.attribute import AttackAccuracy
from synthleak.harm import FindingKey, attribute_game_key
from synthleak.references import cite
from synthleak.report.blocks import Paragraph, Section, attack_table, finding, fmt, verdict_text
from synthleak.results import AuditResult
from synthleak.verdicts import Verdict

#: Verdicts from the least to the most telling of a leak: a secret measured several ways (on the
#: release, in the game against the generator) reads as the most telling of its findings.
_SECRET_ORDER = (
    Verdict.NOT_MEASURED,
    Verdict.NO_EVIDENCE,
    Verdict.TOO_SMALL,
    Verdict.LEAK,
    Verdict.SEVERE,
)


def _classes(config: dict[str, Any]) -> str:
    """The classes an attribute game guesses among, in words (a numeric secret's quantile bins
    and, when the secret is missing somewhere, the missing values as a class of their own)."""
    labels = [str(x) for x in config.get("secret_classes") or ()]
    rule = config.get("secret_rule") or {}
    missing = "<missing>" in labels
    if rule:
        bins = len(labels) - int(missing)
        text = f"{len(labels)} classes: {bins} quantile bins of the secret"
    else:
        text = f"{len(labels)} classes of the secret"
    if missing:
        text += (
            ", and its missing values as a class of their own (some records have no value; a "
            "guess of 'missing' is right only for them)"
        )
    return text


def section(result: AuditResult) -> Section | None:
    """The secret's one verdict (the most telling of its findings), then each measurement with
    its finding's verdict and its baseline explained."""
    ga, rel = result.attribute, result.attribute_release
    if ga is None and rel is None:
        return None
    sec = Section("Attribute inference", "attribute")
    keys = ([FindingKey.ATTRIBUTE_RELEASE] if rel is not None else []) + (
        [attribute_game_key(a.attack, a.synthetic_size) for a in ga.accuracies]
        if ga is not None
        else []
    )
    found = [f for f in (finding(result, k) for k in keys) if f is not None]
    secret = str(
        (rel.config if rel is not None else ga.config if ga is not None else {}).get("secret", "")
    )
    if found:
        worst = max(found, key=lambda f: _SECRET_ORDER.index(f.verdict or Verdict.NOT_MEASURED))
        text = f"Verdict for the secret '{secret}': {verdict_text(worst)}"
        if len(found) > 1:
            text += (
                f", the most telling of its {len(found)} findings (from '{worst.title}'). Each "
                "measurement below prints its own finding's verdict: attribute inference on the "
                "release measures what this release reveals about its training records; the game "
                "against the generator measures what the generator reveals about a training set "
                "of the game's size, so the two can differ."
            )
        else:
            text += "."
        sec.blocks.append(Paragraph(text))
    if rel is not None:
        sec.blocks.append(
            Paragraph(
                "On the release: the reconstruction attack "
                f"({cite('annamalai2024linear', 'Sec. 4.2')}) guessed the secret of the training "
                f"records with accuracy {fmt(rel.accuracy.value)} and of people the generator "
                "never saw (control records swapped in) with accuracy "
                f"{fmt(rel.control_accuracy.value)}, the baseline: the figure is the excess of "
                f"the first over the second. The attack guesses among {_classes(rel.config)}; "
                f"always guessing the most common class gives {fmt(rel.majority_rate)}. This "
                f"finding's verdict: {verdict_text(finding(result, FindingKey.ATTRIBUTE_RELEASE))}"
                + (f" ({rel.reason})." if rel.reason else ".")
            )
        )
    if ga is not None:
        tolerance = (ga.config.get("secret_rule") or {}).get("rule") in ("absolute", "relative")
        baseline = (
            "the baseline is the best constant guess against the randomised secret under the "
            "tolerance"
            if tolerance
            else "the baseline is a uniform guess among them, 1/"
            f"{len(ga.config.get('secret_classes') or ()) or 'C'}"
        )

        def game_key(a: AttackAccuracy) -> str:
            return attribute_game_key(a.attack, a.synthetic_size)

        sec.blocks.append(
            attack_table(
                (
                    (
                        (a.attack, str(a.synthetic_size)),
                        a.accuracy,
                        (
                            fmt(a.accuracy.baseline),
                            fmt(a.auc),
                            verdict_text(finding(result, game_key(a))),
                        ),
                    )
                    for a in ga.accuracies
                ),
                lead=("attack", "synthetic records"),
                metric="accuracy",
                tail=("baseline", "AUC", "verdict"),
                caption="The randomised-secret game against the generator "
                f"({cite('annamalai2024linear', 'Sec. 4.1')}): the secret of one person per game "
                f"is replaced by a class drawn uniformly among the {_classes(ga.config)}; "
                f"{baseline}.",
            )
        )
    return sec
