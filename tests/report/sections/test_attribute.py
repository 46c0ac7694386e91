"""The attribute inference section (report/sections/attribute.py)."""

from __future__ import annotations

from synthleak.report.blocks import Paragraph, TableBlock
from synthleak.report.document import build_document


def test_the_attribute_section_states_one_verdict_per_secret_and_its_baseline() -> None:
    """A secret measured several ways reads as the most telling of its findings, once, at the
    top of its section (each row keeps its finding's verdict); the game's baseline names its
    classes, a numeric secret's missing values among them."""
    import dataclasses

    from tests.report.conftest import make_every_state_result

    from synthleak.verdicts import Verdict

    result = make_every_state_result()
    labels = ["[1, 2)", "[2, 3)", "[3, 4)", "[4, 5)", "[5, 6]", "<missing>"]
    config = {
        "secret": "income",
        "secret_classes": labels,
        "secret_rule": {"rule": "bin", "tolerance": None, "bins": 5},
    }
    result = dataclasses.replace(
        result, attribute=dataclasses.replace(result.attribute, config=config)
    )
    doc = build_document(result)
    sec = next(s for s in doc.sections if s.anchor == "attribute")
    texts = [b.text for b in sec.blocks if isinstance(b, Paragraph)]
    order = [Verdict.NOT_MEASURED, Verdict.NO_EVIDENCE, Verdict.TOO_SMALL, Verdict.LEAK]
    order.append(Verdict.SEVERE)
    game = [f for f in result.findings if f.key.startswith("attribute.") and ".m500" in f.key]
    worst = max(game, key=lambda f: order.index(f.verdict))
    assert texts[0].startswith(f"Verdict for the secret 'income': {worst.verdict.value}, ")
    assert f"'{worst.title}'" in texts[0]
    assert sum("Verdict for the secret" in t for t in texts) == 1
    (table,) = [b for b in sec.blocks if isinstance(b, TableBlock)]
    assert "6 classes: 5 quantile bins" in table.caption and "missing values" in table.caption
    assert "1/6" in table.caption
