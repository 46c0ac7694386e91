"""The one-call audit: ``audit(original, synthetic=None, generator=None, ...) -> AuditResult``.

What it runs, in order:

1. **Vulnerability ranking** of the original records (V_k, Meeus et al. (2023), eq. 5).
2. **No-box risks of the released synthetic data** (the attacker sees only the release), each
   measured against a control set of real records the generator never saw: singling out
   (univariate and multivariate), linkability, a distance-to-closest-record membership signal,
   and reconstruction attribute inference when a secret column is given.
3. **Utility**: MRE over 3-way marginal counts above 10 and average 3-way TVD (Annamalai et al.
   (2024a), Sec. 5.3).
4. **Black-box shadow-model membership inference** when the generator is known: the most
   vulnerable records plus random records as a control, budget-sized.

When only a generator spec is given, a random ``control_fraction`` of the original is held out as
the control set, the generator is fit on the rest and releases as many records. When a synthetic
file is given without a control set, the control-based risks are skipped with a note: without
records the generator never saw, population-level inference cannot be told apart from a leak.
"""

from __future__ import annotations

import datetime as _dt
import platform
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthleak.attacks.base import AttackFamily, make_attack
from synthleak.attacks.linkability import LinkabilityAttack
from synthleak.attacks.mia_nobox import ClosestRecordSignal
from synthleak.attacks.singling_out import make_singling_out_attack
from synthleak.data.schema import Schema, infer_schema
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.singling_out import (
    LinkabilityGame,
    RiskResult,
    SinglingOutGame,
    check_same_columns,
)
from synthleak.generators import make_generator
from synthleak.metrics.privacy import RiskEstimate, accuracy_estimate, auc_estimate, roc_curve
from synthleak.metrics.utility import utility_report
from synthleak.results import (
    AuditResult,
    Finding,
    MetricKind,
    attribute_findings,
    attribute_threat,
    membership_findings,
)
from synthleak.runtime import unit_rng
from synthleak.runtime.progress import progress_bar
from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel
from synthleak.vulnerability import rank_records

Log = Callable[[str], None]


class Budget(str, Enum):
    """How much compute the audit spends (more attacks and shadow models, narrower intervals)."""

    QUICK = "quick"
    STANDARD = "standard"
    PAPER = "paper"


@dataclass(frozen=True)
class BudgetPlan:
    """Sizes behind a :class:`Budget`."""

    n_attacks: int  # singling-out predicates, linkability targets, DCR members/non-members
    mia_targets: int  # most vulnerable records attacked with shadow models
    mia_controls: int  # random records attacked as a control
    shadows: int
    tests: int
    n: int  # training records per shadow dataset
    mia_attacks: tuple[str, ...]
    aia_games: int


BUDGETS: dict[Budget, BudgetPlan] = {
    Budget.QUICK: BudgetPlan(300, 3, 2, 200, 100, 500, ("query", "distance"), 60),
    Budget.STANDARD: BudgetPlan(
        1000, 5, 5, 1000, 200, 1000, ("query", "distance", "groundhog"), 200
    ),
    Budget.PAPER: BudgetPlan(
        2000, 10, 10, 4000, 200, 1000, ("query", "distance", "groundhog", "attention"), 500
    ),
}

OPTIONAL = {"torch": "torch", "ctgan": "ctgan", "distributed": "dask", "mbi": "mbi"}


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("synthleak", "numpy", "pandas", "scikit-learn", "scipy", "torch", "dask"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return out


def _as_table(data: pd.DataFrame | Table, schema: Schema | None) -> Table:
    if isinstance(data, Table):
        return data
    if schema is None:
        raise InputError("a DataFrame needs a schema: pass the original as a Table or give schema=")
    return Table.from_frame(data, schema)


def _record_values(frame: pd.DataFrame | None, table: Table, row: int) -> dict[str, str]:
    rec = (frame.iloc[row] if frame is not None else table.take([row]).to_frame().iloc[0]).to_dict()
    return {str(k): ("" if pd.isna(v) else str(v)) for k, v in rec.items()}


def _risk_finding(key: str, title: str, res: RiskResult, threat: ThreatModel) -> Finding:
    """A risk finding; its baseline is 0 (an attack that does no better on the real records than
    on the control records). The random-guess success rate stays in the details."""
    r = res.risk
    est = RiskEstimate(r.value, r.ci_low, r.ci_high, r.confidence, r.n_trials, 0.0)
    return Finding(key, title, MetricKind.RISK, est, threat, res.summary())


def _default_link_columns(schema: Schema, quasi_ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split the columns into two halves for linkability (quasi-identifiers first when given)."""
    names = list(quasi_ids) + [c for c in schema.names if c not in set(quasi_ids)]
    half = max(1, len(names) // 2)
    return names[:half], names[half:] or names[:1]


class _Auditor:
    def __init__(self, seed: int, log: Log) -> None:
        self.seed = seed
        self.log = log
        self.findings: list[Finding] = []
        self.notes: list[str] = []
        self._stream = 0

    def rng(self) -> np.random.Generator:
        """A fresh generator per stage, keyed by stage order, independent of workers."""
        self._stream += 1
        return unit_rng(self.seed, 7_000 + self._stream)


def audit(
    original: pd.DataFrame | Table,
    *,
    synthetic: pd.DataFrame | Table | None = None,
    control: pd.DataFrame | Table | None = None,
    generator: str | None = None,
    secret: str | None = None,
    quasi_ids: Sequence[str] = (),
    budget: Budget | str = Budget.STANDARD,
    plan: BudgetPlan | None = None,
    schema: Schema | None = None,
    seed: int = 0,
    workers: int = 1,
    cluster: Any = None,
    run_dir: str | Path | None = None,
    control_fraction: float = 0.2,
    k: int = 5,
    progress: bool = False,
    log: Log | None = None,
    sources: dict[str, str] | None = None,
) -> AuditResult:
    """Audit a synthetic release (or a generator) against the real records behind it.

    Parameters
    ----------
    original : DataFrame or Table
        The real records the synthetic data was (or will be) generated from.
    synthetic : DataFrame or Table, optional
        The released synthetic data. Without it, ``generator`` is fit on the original.
    control : DataFrame or Table, optional
        Real records from the same population that the generator never saw.
    generator : str, optional
        Generator spec (``baynet:k=2``, ...). Enables the black-box shadow-model MIA.
    secret : str, optional
        A sensitive column: enables attribute inference.
    quasi_ids : sequence of str
        Columns the attacker knows about people (default: every other column).
    budget : Budget
        ``quick``, ``standard`` or ``paper`` (see :data:`BUDGETS`).
    plan : BudgetPlan, optional
        Explicit sizes, overriding ``budget``.
    schema : Schema, optional
        Defaults to the schema inferred on the original.
    seed : int
        Same seed, same result (whatever ``workers`` or ``cluster``).
    workers, cluster, run_dir, progress
        Passed to the shadow-model game (resumable with ``run_dir``).
    control_fraction : float
        Share of the original held out as control when a generator is fit here.
    k : int
        Neighbours of the vulnerability score.
    log : callable, optional
        Receives one line per stage (the CLI prints them).
    sources : dict, optional
        Names of the inputs (paths) for the report.

    Returns
    -------
    AuditResult

    References
    ----------
    Meeus et al. (2023) (vulnerability, MIA), Annamalai et al. (2024a) (attribute inference,
    utility), Giomi et al. (2023) (singling out, linkability), Plasencia Palacios (2024)
    (contrastive singling out).
    """
    say: Log = log or (lambda _msg: None)
    try:
        plan = plan or BUDGETS[Budget(budget)]
    except ValueError:
        raise InputError(f"unknown budget {budget!r}: use quick, standard or paper") from None
    if synthetic is None and generator is None:
        raise InputError(
            "nothing to audit: give the released synthetic data (--synthetic) or a --generator"
        )
    if not 0 < control_fraction < 1:
        raise InputError(f"control_fraction must lie in (0, 1), got {control_fraction}")
    frame = original if isinstance(original, pd.DataFrame) else None
    sch = schema or (original.schema if isinstance(original, Table) else infer_schema(original))
    ori = _as_table(original, sch)
    syn = _as_table(synthetic, sch) if synthetic is not None else None
    ctl = _as_table(control, sch) if control is not None else None
    for name, t in (("synthetic", syn), ("control", ctl)):
        if t is not None:
            check_same_columns(original=ori, **{name: t})
    if secret is not None and secret not in sch:
        raise InputError(
            f"--secret {secret!r} is not a column: the columns are {', '.join(sch.names)}"
        )
    unknown = [q for q in quasi_ids if q not in sch]
    if unknown:
        raise InputError(
            f"--quasi-ids names unknown column(s) {unknown}: the columns are {', '.join(sch.names)}"
        )
    if len(ori) <= k:
        raise InputError(f"the original has {len(ori)} records: an audit needs more than k = {k}")

    aud = _Auditor(seed, say)
    for mod, extra in OPTIONAL.items():
        if find_spec(mod) is None:
            aud.notes.append(
                f"optional package '{mod}' is not installed: the parts that need it are skipped "
                f"(install with pip install 'synthleak[{extra}]')"
            )

    # --- data roles ------------------------------------------------------------------------
    train, train_rows = ori, np.arange(len(ori))
    if syn is None:
        assert generator is not None
        if ctl is None:
            rng = aud.rng()
            perm = rng.permutation(len(ori))
            n_ctl = max(1, round(control_fraction * len(ori)))
            ctl = ori.take(np.sort(perm[:n_ctl]))
            train_rows = np.sort(perm[n_ctl:])
            train = ori.take(train_rows)
            aud.notes.append(
                f"{n_ctl} original records ({control_fraction:.0%}) were held out as the control set; "
                f"'{generator}' was fit on the other {len(train)} records"
            )
        say(
            f"fitting {generator} on {len(train)} records and generating {len(train)} synthetic records"
        )
        gen_rng = aud.rng()
        syn = make_generator(generator).fit(train, rng=gen_rng).sample(len(train), rng=gen_rng)
    else:
        aud.rng()  # keep stage streams aligned whether or not a generator ran
    assert syn is not None

    # --- 1. vulnerability ---------------------------------------------------------------------
    say(f"ranking {len(train)} records by vulnerability (V_{k}, cosine)")
    ranking = rank_records(train, "distance", k=k)
    assert ranking.scores is not None
    scores = np.empty(len(train))
    scores[ranking.rows] = ranking.scores
    top_n = min(10, len(train))
    vulnerability = {
        "method": "distance",
        "k": k,
        "metric": "cosine",
        "n_records": len(train),
        "scores": scores.tolist(),
        "top": [
            {
                "rank": i + 1,
                "row": int(train_rows[r]),
                "score": float(ranking.scores[i]),
                "record": _record_values(frame, ori, int(train_rows[r])),
            }
            for i, r in enumerate(ranking.rows[:top_n])
        ],
    }

    # --- 2. no-box risks ------------------------------------------------------------------------
    if ctl is None:
        aud.notes.append(
            "no control set was given (--control): singling out, linkability and the distance-based "
            "membership signal need real records the generator never saw, so they were skipped"
        )
    else:
        _nobox(aud, train, syn, ctl, plan, quasi_ids)

    privacy_utility: list[dict[str, Any]] = []
    if secret is not None:
        if generator is not None:
            privacy_utility += _attribute_game(
                aud, ori, generator, secret, quasi_ids, plan, workers, cluster, run_dir, progress
            )
        elif ctl is not None:
            _release_reconstruction(aud, train, syn, ctl, secret, quasi_ids, plan)
        else:
            aud.notes.append(
                "attribute inference needs a control set (--control) or the generator (--generator) "
                "to have a baseline; it was skipped"
            )

    # --- 3. utility ---------------------------------------------------------------------------
    say("utility: MRE over 3-way marginals and 3-TVD")
    utility = utility_report(train, syn, rng=aud.rng())

    # --- 4. black-box membership inference ---------------------------------------------------
    membership = None
    if generator is not None:
        membership = _membership(
            aud,
            ori,
            generator,
            plan,
            ranking.rows,
            train_rows,
            k,
            workers,
            cluster,
            run_dir,
            progress,
        )

    config = {
        "original": (sources or {}).get("original", "original"),
        "synthetic": (sources or {}).get("synthetic"),
        "control": (sources or {}).get("control"),
        "generator": generator,
        "secret": secret,
        "quasi_ids": list(quasi_ids),
        "budget": Budget(budget).value,
        "plan": plan.__dict__ | {"mia_attacks": list(plan.mia_attacks)},
        "seed": seed,
        "confidence": 0.95,
        "command_line": " ".join(["synthleak", *sys.argv[1:]])
        if sys.argv and "synthleak" in sys.argv[0]
        else "python API",
        "versions": _versions(),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "n_original": len(ori),
        "n_synthetic": len(syn),
        "n_control": len(ctl) if ctl is not None else 0,
    }
    return AuditResult(
        config=config,
        schema=sch.to_dict(),
        vulnerability=vulnerability,
        findings=tuple(aud.findings),
        membership=membership,
        utility=utility,
        privacy_utility=tuple(privacy_utility),
        notes=tuple(aud.notes),
    )


def _nobox(
    aud: _Auditor, train: Table, syn: Table, ctl: Table, plan: BudgetPlan, quasi_ids: Sequence[str]
) -> None:
    no_box = GeneratorAccess.NO_BOX
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)  # the verdict carries it
        game = SinglingOutGame(train, syn, ctl, n_attacks=plan.n_attacks)
        for mode, title in (
            ("univariate", "Singling out (univariate)"),
            ("multivariate", "Singling out (multivariate)"),
        ):
            aud.log(f"singling out ({mode}, {plan.n_attacks} predicates)")
            try:
                res = game.run(make_singling_out_attack(mode), rng=aud.rng(), mode=mode)
            except InputError as exc:
                aud.notes.append(f"{title} was not scored: {exc}")
                continue
            threat = ThreatModel(
                AdversaryGoal.SINGLING_OUT,
                no_box,
                "nothing but the synthetic data; success means a predicate drawn from it matches exactly one real record",
                {"mode": mode, "n_attacks": plan.n_attacks},
            )
            aud.findings.append(_risk_finding(f"singling_out.{mode}", title, res, threat))
        aud.log("linkability")
        aux_a, aux_b = _default_link_columns(train.schema, quasi_ids)
        res = LinkabilityGame(train, syn, ctl, n_attacks=plan.n_attacks).run(
            LinkabilityAttack(aux_a, aux_b, n_neighbors=1), rng=aud.rng()
        )
        threat = ThreatModel(
            AdversaryGoal.LINKABILITY,
            no_box,
            f"two separate pieces of information about each target: columns {aux_a} and columns {aux_b}",
            {"aux_a": aux_a, "aux_b": aux_b, "n_neighbors": 1},
        )
        aud.findings.append(_risk_finding("linkability", "Linkability", res, threat))
    aud.log("distance-to-closest-record membership signal")
    rng = aud.rng()
    n = min(plan.n_attacks, len(train), len(ctl))
    members = train.take(rng.choice(len(train), n, replace=False))
    others = ctl.take(rng.choice(len(ctl), n, replace=False))
    signal = ClosestRecordSignal().fit(syn)
    y = np.r_[np.ones(n, dtype=bool), np.zeros(n, dtype=bool)]
    s = np.r_[signal.score(members), signal.score(others)]
    est = auc_estimate(y, s, rng=rng)
    fpr, tpr = roc_curve(y, s)
    threat = ThreatModel(
        AdversaryGoal.MEMBERSHIP,
        no_box,
        "the candidate records whose membership they test, and the released synthetic data",
        {"n_members": n, "n_non_members": n},
    )
    aud.findings.append(
        Finding(
            "membership.closest_record",
            "Membership signal (distance to closest synthetic record)",
            MetricKind.AUC,
            est,
            threat,
            {"n_members": n, "n_non_members": n, "roc": {"fpr": fpr.tolist(), "tpr": tpr.tolist()}},
        )
    )


def _membership(
    aud: _Auditor,
    ori: Table,
    generator: str,
    plan: BudgetPlan,
    ranked_rows: np.ndarray,
    train_rows: np.ndarray,
    k: int,
    workers: int,
    cluster: Any,
    run_dir: str | Path | None,
    progress: bool,
) -> dict[str, Any] | None:
    from synthleak.games.membership import MembershipGame, load_membership_attacks

    known = set(load_membership_attacks())
    attacks = []
    for a in plan.mia_attacks:
        try:
            if a not in known:
                raise InputError(f"membership attack '{a}' is not registered")
            make_attack(AttackFamily.MEMBERSHIP, a)
        except InputError as exc:  # MissingExtraError included: a note, never a crash
            aud.notes.append(f"membership attack '{a}' was skipped: {exc}")
            continue
        attacks.append(a)
    if not attacks:
        aud.notes.append("no membership attack could run: the shadow-model stage was skipped")
        return None
    top = [int(train_rows[r]) for r in ranked_rows[: plan.mia_targets]]
    rng = aud.rng()
    pool = np.setdiff1d(np.arange(len(ori)), top)
    controls = [int(r) for r in rng.choice(pool, min(plan.mia_controls, pool.size), replace=False)]
    targets = top + controls
    n = min(plan.n, max(2, (len(ori) - len(targets)) // 3))
    aud.log(
        f"black-box membership inference: {len(targets)} targets, {plan.shadows} shadow and "
        f"{plan.tests} test datasets of {n} records through '{generator}'"
    )
    game = MembershipGame(
        generator,
        n=n,
        m=n,
        n_shadow=plan.shadows,
        n_test=plan.tests,
        attacks=attacks,
        workers=workers,
        cluster=cluster,
        run_dir=run_dir,
        progress=progress,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(
            ori,
            targets,
            seed=aud.seed,
            selected_by=["distance"] * len(top) + ["random"] * len(controls),
        )
    doc = res.to_dict()
    doc["generator"] = generator
    doc["config"] = {**doc["config"], "shadows": plan.shadows, "tests": plan.tests}
    doc["threat"] = ThreatModel(
        AdversaryGoal.MEMBERSHIP,
        GeneratorAccess.BLACK_BOX,
        f"the target record, and auxiliary records from the same population ({doc['config'].get('aux_size')} "
        f"records) to train shadow models on datasets of {n} records",
        {"n": n, "shadows": plan.shadows, "tests": plan.tests},
    ).to_dict()
    aud.findings.extend(membership_findings(doc, ThreatModel.from_dict(doc["threat"])))
    return doc


def _attribute_game(
    aud: _Auditor,
    ori: Table,
    generator: str,
    secret: str,
    quasi_ids: Sequence[str],
    plan: BudgetPlan,
    workers: int,
    cluster: Any,
    run_dir: str | Path | None,
    progress: bool,
) -> list[dict[str, Any]]:
    """The randomised-secret attribute-inference game against the generator.

    Annamalai et al. (2024a), Sec. 4.1.
    """
    from synthleak.games.attribute import AttributeGame

    n = min(plan.n, len(ori) // 2)
    aud.log(
        f"attribute inference of '{secret}': {plan.aia_games} games of {n} records through '{generator}'"
    )
    game = AttributeGame(
        generator,
        secret,
        list(quasi_ids) or None,
        n=n,
        m=[n],
        games=plan.aia_games,
        attacks=("recon", "dcr", "infer"),
        time_limit=120.0,
    )
    with progress_bar("attribute-inference games", enabled=progress) as bar:
        res = game.run(
            ori,
            seed=aud.seed,
            workers=workers,
            cluster=cluster,
            run_dir=Path(run_dir) / "aia" if run_dir is not None else None,
            progress=bar,
        )
    doc = res.to_dict()
    findings, points, _ = attribute_findings(doc, attribute_threat(doc["config"]))
    aud.findings.extend(findings)
    if res.failures:
        aud.notes.append(
            f"attribute inference: {len(res.failures)} game/attack runs failed and were left out "
            f"(first reason: {res.failures[0]['reason']})"
        )
    return [dict(p, label=f"{generator} (AIA)") for p in points]


def _release_reconstruction(
    aud: _Auditor,
    train: Table,
    syn: Table,
    ctl: Table,
    secret: str,
    quasi_ids: Sequence[str],
    plan: BudgetPlan,
) -> None:
    """No-box reconstruction attack on the released data, with the control set as baseline.

    The attacker knows the quasi-identifiers of ``plan.n`` training records and reconstructs their
    secrets from the synthetic data (Annamalai et al. (2024a), Sec. 4.2); the same attack on as
    many control records (never seen by the generator) gives the accuracy that population-level
    inference alone reaches.
    """
    from synthleak.attacks.aia_reconstruction import ReconstructionAttack
    from synthleak.games.attribute import AttributeGame, unique_rows

    aud.log(f"attribute inference of '{secret}' by reconstruction from the released data")
    prep = AttributeGame("nonprivate", secret, list(quasi_ids) or None, n=1, m=1, games=1)
    both = Table.concat([train, syn, ctl])
    codes, sizes, _schema, _labels = prep.prepare(both)
    tr, sy, ct = np.split(codes, [len(train), len(train) + len(syn)])
    n_classes = int(sizes[-1])
    rng = aud.rng()
    accs = {}
    for name, part in (("train", tr), ("control", ct)):
        x = part[rng.choice(len(part), min(plan.n, len(part)), replace=False)]
        targets = np.flatnonzero(unique_rows(x[:, :-1]))
        attack = ReconstructionAttack(time_limit=120.0).fit(x[:, :-1], sizes[:-1], rng=rng)
        scores = attack.score(sy[:, :-1], sy[:, -1], targets, n_classes, rng=rng)
        accs[name] = scores.argmax(axis=1) == x[targets, -1]
    base = float(accs["control"].mean()) if accs["control"].size else float("nan")
    est = accuracy_estimate(accs["train"], baseline=base)
    threat = ThreatModel(
        AdversaryGoal.ATTRIBUTE,
        GeneratorAccess.NO_BOX,
        f"the quasi-identifiers of {min(plan.n, len(train))} training records (not their secret "
        f"'{secret}') and the released synthetic data",
        {"n_known": min(plan.n, len(train))},
    )
    aud.findings.append(
        Finding(
            "attribute.recon.release",
            f"Attribute inference of '{secret}' by reconstruction (released data)",
            MetricKind.ACCURACY,
            est,
            threat,
            {"control_accuracy": base, "n_control_targets": int(accs["control"].size)},
        )
    )
