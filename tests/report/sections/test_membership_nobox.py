"""The no-box membership section (report/sections/membership_nobox.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from synthleak.data.release import Release
from synthleak.games.nobox import NoBoxMembershipGame
from synthleak.report.blocks import Paragraph, TableBlock, fmt
from synthleak.report.sections.membership_nobox import section
from synthleak.results import AuditResult


def test_every_attack_has_a_row_and_the_strongest_is_named(sample_result: AuditResult) -> None:
    from tests.conftest import make_mixed_frame

    rng = np.random.default_rng(4)
    ori, ctl = make_mixed_frame(300, rng), make_mixed_frame(300, rng)
    syn = pd.concat([ori.iloc[:150], make_mixed_frame(150, rng)], ignore_index=True)
    nb = NoBoxMembershipGame(n_exposed=0, copies=False).run(Release(ori, syn, ctl), seed=0)
    sec = section(dataclasses.replace(sample_result, nobox=nb))
    assert sec is not None and sec.anchor == "nobox"
    table = next(b for b in sec.blocks if isinstance(b, TableBlock))
    assert {row[0]: row[1] for row in table.rows} == {
        name: fmt(o.auc.value) for name, o in nb.attacks.items()
    }
    assert nb.best is not None
    texts = [b.text for b in sec.blocks if isinstance(b, Paragraph)]
    strongest = next(t for t in texts if t.startswith("Strongest attack"))
    assert f"'{nb.best.attack}', AUC {fmt(nb.best.auc.value)}" in strongest
    # the sample audit has no no-box finding: its verdict reads "not measured", never a guess
    assert strongest.endswith("Verdict: not measured.")
    assert section(dataclasses.replace(sample_result, nobox=None)) is None
