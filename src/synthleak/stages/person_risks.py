"""The ``person_risks`` stage: singling out and linkability of persons in a relational release,
Anonymeter's games on the person-level view against the control's persons
(:mod:`synthleak.games.person_risks`).

It runs only on relational input, in place of the ``singling_out`` and ``linkability`` stages
(which then do not apply): the same games on the same one-row-per-person view, labelled as
persons, with the persons singled out or linked named by their root key, and the row-level
figures of the root table (both games on its own columns alone) beside them.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from synthleak import partitioned
from synthleak.attacks.base import AttackFamily
from synthleak.errors import InputError
from synthleak.harm import FindingKey, person_singling_out_key
from synthleak.runtime.seeding import game_seed
from synthleak.stages.base import (
    Context,
    Sections,
    Stage,
    StageOutput,
    needs_person_release,
    release_tables,
    risk_finding,
)
from synthleak.threat import threat_model
from synthleak.verdicts import Finding


def _person_risks(ctx: Context, rng: np.random.Generator) -> StageOutput:
    findings: list[Finding] = []
    notes: list[str] = []
    from synthleak.games.person_risks import (
        PersonRisksResult,
        play_person_linkability,
        play_person_singling_out,
    )

    assert ctx.relational is not None and ctx.root is not None and ctx.frame is not None
    seed = game_seed(rng)
    n = ctx.plan.n_attacks
    root = ctx.root
    children = ctx.relational["original"].schema.descendants(root)
    keys = ctx.frame.index.to_numpy()  # the person-level view: one row per root key
    release = release_tables(ctx)
    ctx.log(f"singling out and linkability of persons ({n} predicates and link targets each)")
    so = play_person_singling_out(
        release,
        keys,
        root=root,
        child_tables=children,
        n_attacks=n,
        seed=seed,
        counter=partitioned.predicate_counter(ctx.runtime.sub("person-singling-out")),
    )
    if so.persons.design.correction != "none":
        notes.append(f"Singling out of persons: {so.persons.design.note}")
    for res in so.persons.attacks:
        title = f"Singling out of persons ({res.attack})"
        if not res.measured:
            notes.append(f"{title} was not measured: {res.note}")
            continue
        threat = threat_model(
            AttackFamily.SINGLING_OUT, "singling_out", {"attack": res.attack, "n_attacks": n}
        )
        f = risk_finding(ctx, person_singling_out_key(res.attack), title, res, threat)
        more = {"root": root, "n_persons_singled_out": so.n_singled_out.get(res.attack, 0)}
        findings.append(replace(f, details=f.details | more))
    link, note = None, ""
    try:
        link = play_person_linkability(
            release,
            keys,
            root=root,
            child_tables=children,
            n_attacks=n,
            seed=seed,
            search=partitioned.link_search(ctx.runtime.sub("person-linkability")),
        )
    except InputError as exc:  # the view lacks root or child columns to link
        note = str(exc)
        notes.append(f"Linkability of persons was not measured: {note}")
    if link is not None:
        lres = link.persons.attacks[0]
        threat = threat_model(
            AttackFamily.LINKABILITY,
            "linkability",
            {"aux_a": list(lres.aux_a), "aux_b": list(lres.aux_b), "n_neighbors": lres.n_neighbors},
            aux_a=list(lres.aux_a),
            aux_b=list(lres.aux_b),
        )
        title = f"Linkability of persons (a row of '{root}' to their child rows)"
        f = risk_finding(ctx, FindingKey.LINKABILITY_PERSONS, title, lres, threat)
        more = {"root": root, "n_persons_linked": link.n_linked}
        findings.append(replace(f, details=f.details | more))
    section = PersonRisksResult(so, link, note)
    return StageOutput(
        findings=tuple(findings), notes=tuple(notes), sections=Sections(person_risks=section)
    )


STAGE = Stage(
    "person_risks",
    "Singling out and linkability of persons (relational)",
    needs_person_release,
    _person_risks,
    kept=True,
)
