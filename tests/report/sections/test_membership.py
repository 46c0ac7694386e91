"""The membership sections: per target, screen, risk map, epsilon."""

from __future__ import annotations

from synthleak.report.blocks import Figure, Paragraph, TableBlock
from synthleak.report.document import build_document
from synthleak.results import AuditResult


def test_riskmap_section_from_a_risk_map_result() -> None:
    import numpy as np

    from synthleak.data.schema import Schema
    from synthleak.findings import audit_result_from
    from synthleak.games.riskmap import RiskMapConfig, RiskMapResult
    from synthleak.metrics.ranking import RankValidation, SelectorAgreement

    n = 50
    i = np.arange(n)
    auc = np.stack([0.5 + 0.004 * i, 0.4 + 0.004 * i, 0.6 + 0.004 * i], axis=1)
    cfg = RiskMapConfig(
        "baynet:k=2", 50, 50, None, 100, 50, ("query",), {"query": {}}, 5, 100, 0, "x", "y", 500
    )
    rm = RiskMapResult(
        cfg,
        i + 100,
        {"query": auc},
        {"vulnerability": 0.01 * i, "rare_value": np.ones(n), "log_likelihood": 2 * np.ones(n)},
        RankValidation(n, 10, 0.2, {"vulnerability": SelectorAgreement(1.0, (0.9, 1.0), 1.0)}),
    )
    result = audit_result_from(
        rm,
        schema=Schema.from_json(
            '{"version": 1, "columns": [{"name": "a", "kind": "categorical", "categories": [0]}]}'
        ),
        source="run",
        command_line="synthleak report run",
    )
    assert result.findings[0].details["row"] == 149
    d = build_document(result)
    sec = next(s for s in d.sections if s.anchor == "riskmap")
    names = {b.name for b in sec.blocks if isinstance(b, Figure)}
    assert names == {"riskmap_auc", "riskmap_auc_vs_vk"}
    tables = [b for b in sec.blocks if isinstance(b, TableBlock)]
    assert tables[0].rows[0][1] == "1.000" and tables[1].rows[0][0] == "149"


def test_a_screened_audit_shows_the_screens_ranking_beside_v_k(
    sample_result: AuditResult,
) -> None:
    """Two-stage audit: the summary names the screen's riskiest records, 'Records at risk' sets
    its ranking beside V_k's, and the membership section says how its targets were chosen."""
    import dataclasses
    import math

    from synthleak.games.cost import power
    from synthleak.results import BudgetRecord, ScreenedRecord, ScreeningSection

    assert sample_result.vulnerability is not None
    vk = [r.row for r in sample_result.vulnerability.top]
    top = (
        ScreenedRecord(700, 1, 37, 0.91, 0.85, 0.97, ("age", "race")),  # 37th by V_k
        ScreenedRecord(vk[2], 2, 3, 0.88, 0.80, 0.95),
    )
    vk_top = (
        ScreenedRecord(vk[0], 0, 1, math.nan, math.nan, math.nan),  # not screened
        ScreenedRecord(vk[1], 5, 2, 0.70, 0.60, 0.80),
        ScreenedRecord(vk[2], 2, 3, 0.88, 0.80, 0.95),
    )
    plan = dataclasses.replace(sample_result.config.plan, screened_shadows=120)
    result = dataclasses.replace(
        sample_result,
        config=dataclasses.replace(sample_result.config, selector="screen", plan=plan),
        screening=ScreeningSection("baynet:k=2", 800, 50, 100, 100, 1000, top, vk_top),
        budget=BudgetRecord(120, 100, 30.0, 35.0, power(100), 12.0),
    )
    doc = build_document(result)
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert f"rows 700, {vk[2]} of the original" in summary
    records = next(s for s in doc.sections if s.anchor == "records")
    table = next(b for b in records.blocks if isinstance(b, TableBlock) and "V_k: row" in b.header)
    assert table.header[1] == "screen: row" and len(table.rows) == 3
    assert table.rows[0][:5] == ("1", "700", "0.910 (0.850 – 0.970)", "37", "age, race")
    assert table.rows[0][5:] == (str(vk[0]), "", "not screened")
    assert table.rows[1][4:] == ("(the combination)", str(vk[1]), "0.700", "5")
    assert table.rows[2][1:2] == ("",)
    text = " ".join(b.text for s in doc.sections for b in s.blocks if isinstance(b, Paragraph))
    assert "the 50 rarest of the 800 training records" in text
    assert "Targets are the records the two-stage screen ranks riskiest" in text
    assert "trains on 120 rather than 200 shadow datasets" in text
    assert AuditResult.from_json(result.to_json()).to_json() == result.to_json()


def test_the_epsilon_section_says_which_trials_the_bound_rests_on() -> None:
    """A bound from a rule fixed in advance rests on every test dataset; a selected attack's on
    the half it was not chosen on. The section says which."""
    from types import SimpleNamespace

    import numpy as np

    from synthleak.metrics.epsilon import empirical_epsilon
    from synthleak.report.sections.membership import epsilon_section as _epsilon

    y = np.arange(64) % 2 == 1
    scores = {"row 1 / novelty": y.astype(float), "row 1 / query": np.where(y, 0.9, 0.1)}
    texts = []
    for fixed in ({"row 1 / novelty": 0.5}, {}):
        est = empirical_epsilon(
            scores, y, rng=np.random.default_rng(0), claimed=1.0, fixed_rules=fixed
        )
        sec = _epsilon(SimpleNamespace(epsilon=est))  # type: ignore[arg-type]
        assert sec is not None
        texts.append(" ".join(b.text for b in sec.blocks if isinstance(b, Paragraph)))
    assert "fixed before any test dataset was seen (row 1 / novelty" in texts[0]
    assert "chosen on half of the test datasets" in texts[1]


def test_the_membership_figure_states_its_size_against_the_release(
    sample_result: AuditResult,
) -> None:
    """A game on fewer records than the release was trained on says so, with the direction of
    the bias, in its section and beside its figure wherever the figure is quoted (the issue:
    812 records against a release of 2,447, the note comparing them with the budget's 1,000)."""
    import dataclasses

    from synthleak.games.cost import power
    from synthleak.metrics.privacy import RiskEstimate
    from synthleak.report.document import _finding_text
    from synthleak.results import BudgetRecord
    from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel
    from synthleak.verdicts import Finding, MetricKind

    black_box = Finding(
        "membership.black_box",
        "Membership inference (shadow models)",
        MetricKind.AUC,
        RiskEstimate(0.86, 0.78, 0.93, 0.95, 100, 0.5),
        ThreatModel(AdversaryGoal.MEMBERSHIP, GeneratorAccess.BLACK_BOX, "the generator"),
    )

    def texts(budget: BudgetRecord | None) -> tuple[str, str]:
        r = dataclasses.replace(sample_result, budget=budget)
        sec = next(s for s in build_document(r).sections if s.anchor == "membership")
        body = " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))
        return body, _finding_text(r, black_box)

    smaller = BudgetRecord(
        200, 100, 10.0, 12.0, power(100), train_size=812, release_train_size=2447
    )
    body, headline = texts(smaller)
    said = (
        "Measured at 812 records, fewer than the release's 2,447: smaller training sets leak "
        "more, so this figure may overstate the release's risk."
    )
    assert said in body and said in headline
    same = dataclasses.replace(smaller, train_size=2447)
    body, headline = texts(same)
    assert "as many as the release was trained on" in body and "overstate" not in body
    assert "as many as the release was trained on" in headline
    # an older result that did not record the sizes states neither
    body, headline = texts(dataclasses.replace(smaller, train_size=0, release_train_size=0))
    assert "Measured" not in body and "Measured" not in headline


def test_a_resumed_part_states_the_time_of_every_run(sample_result: AuditResult) -> None:
    """A part resumed from an earlier, interrupted run states the seconds of every run
    together and says so (the issue: a resumed screen "took 0 s")."""
    import dataclasses

    from synthleak.games.cost import power
    from synthleak.results import BudgetRecord

    def budget_text(resumed: tuple[str, ...]) -> str:
        b = BudgetRecord(200, 100, 300.0, 280.0, power(100), 0.0, resumed=resumed)
        r = dataclasses.replace(sample_result, budget=b)
        sec = next(s for s in build_document(r).sections if s.anchor == "membership")
        return next(b.text for b in sec.blocks if b.text.startswith("Budget:"))  # type: ignore[union-attr]

    fresh = budget_text(())
    assert "took 4.7 min." in fresh and "earlier" not in fresh
    resumed = budget_text(("game",))
    assert "took 4.7 min (this run's and an earlier run's together: the work the" in resumed
    assert "kept from it and read back" in resumed
