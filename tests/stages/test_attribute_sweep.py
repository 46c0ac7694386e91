"""The ``attribute_sweep`` stage of the audit (:mod:`synthleak.stages.attribute_sweep`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from tests.stages.audit_helpers import TINY

from synthleak.pipeline import STAGES, audit


def test_a_column_has_one_figure_named_or_swept(split, monkeypatch) -> None:
    """A column's attribute-inference figure under a rule is the same whether the audit names
    it as the secret or sweeps every column: the same game (seed, records, control swaps,
    attack, quasi-identifiers), a categorical and a numeric secret alike."""
    import synthleak.pipeline as audit_module
    from synthleak.games.secret import SecretRule

    cols = ["age", "education", "sex", "race", "income"]
    train, ctl, other = (t.to_frame()[cols].iloc[:400] for t in split)
    monkeypatch.setattr(
        audit_module,
        "STAGES",
        tuple(st for st in STAGES if st.name in {"attribute_release", "attribute_sweep"}),
    )
    kw = {"plan": replace(TINY, aia_records=100, aia_queries=1000), "seed": 2}
    swept = audit(train, synthetic=other, control=ctl, secret="all", **kw)
    every = {f.key: f for f in swept.findings}
    for secret, rule in (("income", None), ("age", SecretRule(bins=5))):
        named = audit(train, synthetic=other, control=ctl, secret=secret, secret_rule=rule, **kw)
        (one,) = [f for f in named.findings if f.key == "attribute.recon.release"]
        two = every[f"attribute.sweep.{secret}"]
        a, b = one.estimate, two.estimate
        assert np.isfinite(a.value)
        assert (a.value, a.ci_low, a.ci_high, a.n_trials) == (
            b.value,
            b.ci_low,
            b.ci_high,
            b.n_trials,
        )
