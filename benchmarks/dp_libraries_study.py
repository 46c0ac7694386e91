"""DP audit of the DP generators people install: empirical epsilon against each library's claim.

Every differentially private generator synthleak can run (its own ``privbayes`` and ``mst``,
dpmm 0.1.9's MST, AIM and PrivBayes, SmartNoise Synthesizers 1.0.8's MST, AIM, PATE-CTGAN and
DP-CTGAN) is played in the exact-knowledge membership game (the attacker knows every training
record but the target) against two worst-case targets, and its claim (epsilon, delta and the
neighbouring relation the library states) is tested with the Clopper-Pearson lower bound of
:func:`synthleak.findings.membership_epsilon` (threshold and attack chosen on one half of the
test datasets, the bound computed on the other half). Positive controls: PrivBayes with its
noise removed (``mutant-privbayes``) and a release that copies half of its training records
(``leaky``), both claiming epsilon = 1.

Datasets (the categorical Adult of Annamalai et al. (2024b): complete cases, age and hours per
week rounded to tens, 11 categorical columns; the schema of the whole table is public):

``worst``
    The worst-case neighbouring datasets of Annamalai et al. (2024b) (their ``worstcase`` with
    ``narrow``): ``x_T`` is the record ranked most vulnerable (``V_5``) of a 2,000-record sample;
    ``x`` a record that agrees with ``x_T`` on no column; ``y`` and ``z`` mix them column by
    column (``y`` takes ``x_T``'s value on even columns and ``x``'s on odd ones, ``z`` the other
    way round). The known dataset is ``{x, x_T, z}`` and the target, an outlier no dataset
    record equals, is ``y``; the data are narrowed to the first three columns (age, workclass,
    education). Add/remove (their ``addremove``): IN = ``{x, x_T, y}``, OUT = ``{x, x_T}``. For a
    claim stated for replacing a record (dpmm's PrivBayes; their ``edit``) IN = two of
    ``{x, x_T, z}`` plus ``y`` and OUT = the same two plus the third (they replace ``z``; the
    game draws which of the three, recorded as ``replaced_in_out``).
``screen``
    300 records of the categorical Adult (a fixed random sample), six columns (age, workclass,
    education, marital status, race, sex); the target is the record the two-stage screen ranks
    riskiest (:func:`synthleak.games.twostage.screened_targets`, run with ``baynet``, the
    noiseless model of PrivBayes, as a cheap stand-in for every generator: the screen only ranks
    records); exact knowledge of 199 other records (``train_size`` 200).

Attacks: the query attack over every subset of the columns, the distance attack and the
unfitted novelty attack (release records holding the target's smallest combinations of values
that no known record holds; rows run before it was added have it only where their releases
were kept, see ``--rescore``). On the
screen target, a row run with ``--run-dir`` also gets the value-presence test of
``benchmarks/dp_value_presence.py`` (a release holding the target's race, which no other
training record holds, is called IN; every test release a trial, no shadow datasets), which the
table states beside the game's verdict. Trial
counts are sized per generator from one measured fit (``--plan``): an audit can only certify an
epsilon below its ceiling (``ln`` of about a quarter of the evaluation datasets per class), so
epsilon = 4 needs 204 evaluation datasets per class (816 test datasets) and epsilon = 10 about
81,000 per class, out of reach for every generator here. Where a row's ceiling stays below the
claim the verdict is "inconclusive" and the row states the test datasets the claim needs and
their projected cost at the measured seconds per generator run.

synthcity's DP models (:data:`SYNTHCITY`) run in their own environment (``synthleak env create
synthcity``); a row whose generator is not registered or whose environment is absent is written
as "not run" with the reason.

Usage::

    nice -n 10 python -m benchmarks.dp_libraries_study --rows ours        # our generators
    nice -n 10 python -m benchmarks.dp_libraries_study --rows dpmm        # one library
    python -m benchmarks.dp_libraries_study --table                       # the Markdown table
    python -m benchmarks.dp_libraries_study --rows ours --quick           # smoke test

Each row is written to ``benchmarks/results/dp_study/<row>.json`` (with provenance) when it
finishes; a finished row is not run again, and with ``--run-dir`` an interrupted game resumes
from its stored generator runs. ``--rescore --run-dir DIR`` attacks a finished row's stored
releases again with the current attacks (after an attack is added), keeping the row's measured
cost and its first provenance (the new one is kept as ``rescored``). The dpmm and SmartNoise
environments are found as ``synthleak env list`` finds them (``$SYNTHLEAK_ENVS``).

References
----------
Annamalai, Ganev and De Cristofaro (2024b) (worst-case neighbouring datasets, audits of DP
synthetic-data generators). Jagielski et al. (2020) (Clopper-Pearson bounds). Meeus et al.
(2023) (``V_k``; query attack). McKenna et al. (2021, 2022) (MST, AIM). Zhang et al. (2017)
(PrivBayes). Rosenblatt et al. (2020) (PATE-CTGAN, DP-CTGAN).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.provenance import RESULTS, Provenance

STUDY = "dp_study"
OUT = RESULTS / STUDY
WORST_COLUMNS = ("age", "workclass", "education")
SCREEN_COLUMNS = ("age", "workclass", "education", "marital-status", "race", "sex")
SCREEN_RECORDS, SCREEN_TRAIN = 300, 200
SCREEN_SCREEN_TRAIN = 150  # half the records in every screening dataset, no fillers needed
ATTACKS = ("query", "distance", "novelty")
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Row:
    """One audit: a generator spec at one epsilon on one dataset, with its trial counts."""

    key: str
    group: str
    label: str  # the implementation, as the table names it
    spec: str
    epsilon: float
    dataset: str
    n_shadows: int
    n_tests: int
    note: str = ""
    skip: str = ""  # why the row is not run (measured cost), shown as "not run: ..."


def _rows() -> list[Row]:
    rows: list[Row] = []

    def add(
        group: str,
        label: str,
        spec: str,
        eps: float,
        ds: str,
        sh: int,
        te: int,
        note: str = "",
        skip: str = "",
    ) -> None:
        safe = "".join(c if c.isalnum() or c in "=.-" else "_" for c in spec)
        rows.append(Row(f"{ds}--{safe}", group, label, spec, eps, ds, sh, te, note, skip))

    # controls first: the audit must find them, or nothing else it says counts
    for ds in ("worst", "screen"):
        add(
            "controls",
            "PrivBayes without noise (mutant)",
            "mutant-privbayes:epsilon=1",
            1,
            ds,
            100,
            400,
        )
        add(
            "controls",
            "leaky (half the release copied)",
            "leaky:fraction=0.5,base=privbayes:epsilon=1",
            1,
            ds,
            100,
            400,
        )
    # our own generators: cheap enough for the ceiling of epsilon = 4 (816 test datasets)
    for ds in ("worst", "screen"):
        for eps in (1, 4, 10):
            add("ours", "synthleak privbayes", f"privbayes:epsilon={eps}", eps, ds, 200, 1000)
        if ds == "worst":
            for eps in (1, 4, 10):
                add("ours", "synthleak mst", f"mst:epsilon={eps},iters=100", eps, ds, 100, 1000)
        else:  # about 1 s a run on 200 records: the epsilon = 1 ceiling only
            add("ours", "synthleak mst", "mst:epsilon=1,iters=100", 1, ds, 50, 400)
    # power check: the same pipeline at an epsilon that barely protects anything
    add(
        "ours",
        "synthleak mst (power check)",
        "mst:epsilon=1000,iters=100",
        1000,
        "worst",
        100,
        1000,
    )
    # libraries in their own environments: seconds per fit, so the fewest trials whose ceiling
    # exceeds the claim (LIBRARY_TRIALS)
    for model in ("mst", "aim", "privbayes"):
        for eps in (1, 4):
            add(
                "dpmm",
                f"dpmm {model}",
                f"dpmm:{model}:epsilon={eps},n_iters=100",
                eps,
                "worst",
                *LIBRARY_TRIALS[eps],
            )
    for model in ("mst", "aim"):
        for eps in (1, 4):
            add(
                "smartnoise",
                f"smartnoise {model}",
                f"smartnoise:{model}:epsilon={eps}",
                eps,
                "worst",
                *LIBRARY_TRIALS[eps],
            )
    # the screen target too (its training records' only race = Other): the adapters hand
    # dpmm and SmartNoise the schema's domain, so a value only the target holds tests the
    # mechanism, not what the library learns outside its budget (synthcity's flaw)
    for spec in ("dpmm:mst", "dpmm:aim", "dpmm:privbayes", "smartnoise:mst", "smartnoise:aim"):
        extra = ",n_iters=100" if spec.startswith("dpmm") else ""
        group = spec.split(":")[0]
        for eps in (1, 4):
            add(
                group,
                spec.replace(":", " "),
                f"{spec}:epsilon={eps}{extra}",
                eps,
                "screen",
                *LIBRARY_TRIALS[eps],
            )
    for model in ("dpctgan", "patectgan"):
        for eps in (1, 4):
            add(
                "smartnoise-gan",
                f"smartnoise {model}",
                f"smartnoise:{model}:epsilon={eps},epochs=5,batch_size=100",
                eps,
                "screen",
                *LIBRARY_TRIALS[eps],
                "GANs need a batch of records: the screen dataset only",
                GAN_COST.get((model, eps), ""),
            )
    for name in SYNTHCITY:
        for eps in (1, 4):
            # DP-GAN's default delta bounds nothing on the worst case (DPGAN_DELTA)
            delta = ",delta=1e-5" if name == "synthcity:dpgan" else ""
            add(
                "synthcity",
                name.replace(":", " "),
                f"{name}:epsilon={eps}{delta}",
                eps,
                "worst",
                *SYNTHCITY_TRIALS.get((name, eps), LIBRARY_TRIALS[eps]),
                SYNTHCITY_WORST_NOTES.get(name, ""),
                _synthcity_cost(name, eps),
            )
    # The screen target is its training records' only race = Other, a value synthcity learns
    # from the records (benchmarks/dp_repro_synthcity_domain.py); its delta is small there
    # (PATE-GAN's 1/(n sqrt n) = 3.6e-4 at 199 records, against 0.35 on the worst case's two)
    # (PATE-GAN's row has more trials: it ran before the libraries' rows were sized)
    for name, delta, sh, te in (
        ("synthcity:pategan", "", 100, 200),
        ("synthcity:dpgan", ",delta=1e-5", *LIBRARY_TRIALS[1]),
    ):
        add(
            "synthcity",
            name.replace(":", " "),
            f"{name}:epsilon=1{delta}",
            1,
            "screen",
            sh,
            te,
            SYNTHCITY_NOTES[name],
        )
    return rows


#: Shadow and test datasets of a library's row at each claim: the fewest whose 95 % ceiling
#: exceeds the claim (12 evaluation datasets per class at epsilon = 1, 204 at epsilon = 4, at
#: the libraries' deltas), with 8 shadow datasets where a run costs up to a minute and 100 where
#: the 816 test datasets dwarf them anyway.
LIBRARY_TRIALS = {1: (8, 64), 4: (100, 816)}
#: synthcity's rows whose trials differ: PATE-GAN's delta of 0.35 on the worst case needs more
#: test datasets, and DP-GAN fails inside the library on about one run in seven
#: of the worst case's tiny tables (benchmarks/dp_repro_synthcity_dpgan.py), so its epsilon = 4
#: row has 1,100 test datasets for about 204 of each class to survive. PATE-GAN's numbers are
#: ``trials_needed`` x 4 at its worst-case delta, 1/(2 sqrt 2).
SYNTHCITY_TRIALS = {
    ("synthcity:pategan", 1): (8, 80),
    ("synthcity:pategan", 4): (100, 1264),
    ("synthcity:dpgan", 4): (100, 1100),
}
#: Why a SmartNoise GAN row is not run with its full trials: what a first try measured.
GAN_COST = {
    ("patectgan", 4): (
        "time: PATE-CTGAN trains until its accountant reaches the claim, so a larger epsilon "
        "costs more; a first try (2 workers, at low priority beside other jobs) finished no "
        "work unit of 4 runs in 50 min, at least 12.5 min a run against 54 s at epsilon = 1, "
        "so its 916 runs take at least 95 h"
    )
}
#: synthcity's DP models (in their own environment).
SYNTHCITY = ("synthcity:pategan", "synthcity:dpgan", "synthcity:aim")
#: Measured seconds per generator run on the worst-case datasets (3 records, 3 columns, 100
#: synthetic records) on this 2-core machine, where a row is not run: AIM's epsilon = 1 row
#: (worker kept warm), and the whole epsilon = 1 game per run for PATE-GAN (its 88 runs with
#: 2 workers, warm; 42 s was measured first with each run's start-up, under a load of 7 to 16).
SYNTHCITY_SECONDS = {"synthcity:aim": 28.5, "synthcity:pategan": 6.0}
#: What a first try of a row measured where it runs slower than its epsilon = 1 row.
SYNTHCITY_TRIED = {
    ("synthcity:aim", 4): (
        "a first try with 100 shadow and 816 test datasets (2 workers) stored 4 of its first 8 "
        "runs in 11 min, at least 70 s a run against 28.5 s at epsilon = 1, so its 916 runs "
        "take at least 9 h"
    )
}
#: synthcity's DP-GAN delta on the worst case (why a row also needs an explicit delta).
DPGAN_DELTA = (
    "synthcity's default delta = 1/m (m = floor(0.8 n) records trained on) is 1/2 and 1 at "
    "the worst case's 3 and 2 records, a claim that bounds nothing: a row needs an explicit "
    "delta (synthcity:dpgan:delta=1e-5)"
)


def _synthcity_cost(name: str, eps: float) -> str:
    """Why a synthcity row is not run: its measured cost at the row's trials."""
    seconds = SYNTHCITY_SECONDS.get(name)
    if seconds is None or name == "synthcity:dpgan" or eps == 1:
        return ""  # every synthcity row at epsilon = 1, and DP-GAN (with an explicit delta), run
    runs = sum(SYNTHCITY_TRIALS.get((name, eps), LIBRARY_TRIALS[eps]))
    text = (
        f"time: one run took {seconds:g} s (3 records, measured), the row's {runs:,} generator "
        f"runs about {runs * seconds / 3600:.0f} h"
    )
    tried = SYNTHCITY_TRIED.get((name, eps))
    return text + (f" at that rate; but {tried}" if tried else "")


#: What a synthcity row's reader must know (REPRODUCTION.md gives the detail).
SYNTHCITY_NOTES = {
    "synthcity:dpgan": DPGAN_DELTA.replace("a row needs", "so each row is run with"),
    "synthcity:pategan": (
        "library bug: the student discriminator trains on the real records outside the PATE "
        "accountant (benchmarks/dp_repro_synthcity_pategan.py), so no DP claim holds"
    ),
}
#: The worst-case rows' notes: PATE-GAN's adds synthcity's delta at the two OUT records.
SYNTHCITY_WORST_NOTES = {
    **SYNTHCITY_NOTES,
    "synthcity:pategan": SYNTHCITY_NOTES["synthcity:pategan"]
    + "; delta = 1/(n sqrt n) = 0.35 at n = 2 caps what the test datasets can certify",
}


# --- data -----------------------------------------------------------------------------------


def adult() -> Any:
    from benchmarks.reproduce_dp_audit import adult_categorical

    return adult_categorical(None)


def worst_case_table(full: Any, *, substitute: bool = False) -> tuple[Any, int, dict[str, Any]]:
    """Annamalai et al.'s worst-case datasets (module docstring): rows x, x_T, y (add/remove) or
    x, x_T, z, y (substitute); the target is y, the last row."""
    import synthleak as sl
    from synthleak.games.targets import Targets

    sample = full.take(np.sort(np.random.default_rng(0).choice(len(full), 2000, replace=False)))
    xt = int(Targets.top(1).resolve(sample, seed=0).rows[0])
    codes = sample.codes
    disagree = np.flatnonzero((codes != codes[xt]).all(axis=1))
    x = int(disagree[np.random.default_rng(1).integers(disagree.size)])
    even = np.arange(codes.shape[1]) % 2 == 0
    y = np.where(even, codes[xt], codes[x])
    z = np.where(even, codes[x], codes[xt])
    mixed = np.stack([codes[x], codes[xt], z, y] if substitute else [codes[x], codes[xt], y])
    table = sl.Table(sample.schema, mixed, np.zeros((len(mixed), 0)))
    table = table.select(list(WORST_COLUMNS))
    roles = ["x", "x_T (V_5 top of a 2,000-record sample)", "z", "y (the target)"]
    info = {
        "records": table.to_frame().astype(str).to_dict("records"),
        "roles": roles if substitute else [roles[0], roles[1], roles[3]],
    }
    return table, len(mixed) - 1, info


def screen_table(full: Any, *, workers: int) -> tuple[Any, int, dict[str, Any]]:
    """300 records, six columns; the target the screen ranks riskiest (baynet stand-in)."""
    from synthleak.games.twostage import screen_records
    from synthleak.runtime import Runtime

    rows = np.sort(np.random.default_rng(0).choice(len(full), SCREEN_RECORDS, replace=False))
    table = full.take(rows).select(list(SCREEN_COLUMNS))
    cache = OUT / "screen_target.json"
    if cache.exists():  # the screen is deterministic: every process of the study shares it
        info = json.loads(cache.read_text())
        return table, int(info["target_row"]), info
    res = screen_records(
        table,
        "baynet",
        seed=0,
        runtime=Runtime(workers=workers),
        prefilter=None,
        train_size=SCREEN_SCREEN_TRAIN,
        n_queries=2 ** len(SCREEN_COLUMNS) - 1,
    )
    order = res.top(3)
    target = int(order[0])
    auc = {int(r): float(a) for r, a in zip(res.rows, res.auc, strict=False) if int(r) in order}
    info = {
        "target_record": table.take([target]).to_frame().astype(str).to_dict("records")[0],
        "screen": "baynet, 100 shadow + 100 test datasets of 150 records, every record screened",
        "screen_auc_top3": auc,
        "target_row": target,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(info, indent=1, default=str) + "\n")
    return table, target, info


# --- one row --------------------------------------------------------------------------------


def claim_of(spec: str, train_sizes: tuple[int, int]) -> tuple[float, float, str]:
    """(epsilon, delta, neighbouring) the generator claims; a delta that depends on the training
    size (SmartNoise's GANs and synthcity's PATE-GAN: 1 / (n sqrt n); synthcity's DP-GAN:
    1 / floor(0.8 n)) is the adapter's own, taken at the smaller of the IN and OUT sizes (the
    larger delta: the weaker claim)."""
    from synthleak.generators import claimed_delta, claimed_epsilon, make_generator

    gen = make_generator(spec)
    eps, delta = claimed_epsilon(gen), claimed_delta(gen)
    if delta is None:  # known once fitted on n records: the adapter's formula at that n
        gen.n_train_ = min(train_sizes)
        delta = claimed_delta(gen)
    if delta is None:
        raise RuntimeError(f"{spec} declares no delta at {min(train_sizes)} records")
    neighbouring = getattr(gen, "claimed_neighbouring", "add_remove")
    assert eps is not None
    return float(eps), float(delta), str(neighbouring)


def dataset(
    data: dict[str, Any], name: str, substitute: bool, args: argparse.Namespace
) -> tuple[Any, int, dict[str, Any]]:
    """The study's dataset ``name`` (built once per process)."""
    key = f"{name}-substitute" if substitute and name == "worst" else name
    if key not in data:
        full = data.setdefault("_adult", adult())
        if name == "worst":
            data[key] = worst_case_table(full, substitute=substitute)
        else:
            data[key] = screen_table(full, workers=args.workers)
    return data[key]


def run_row(row: Row, data: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    from synthleak.errors import BaselineWarning
    from synthleak.findings import membership_epsilon
    from synthleak.games.membership import MembershipGame
    from synthleak.games.targets import Targets
    from synthleak.metrics.epsilon import trials_needed
    from synthleak.runtime import Runtime, stream_rng

    _, _, neighbouring = claim_of(row.spec, (2, 2))
    table, target, info = dataset(data, row.dataset, neighbouring == "substitute", args)
    # worst case: IN = {x, x_T, y}, OUT = {x, x_T} (add/remove) or {x, x_T, z} (substitute)
    n = 3 if row.dataset == "worst" else SCREEN_TRAIN
    sizes = (n, n) if neighbouring == "substitute" else (n, n - 1)
    eps, delta, _ = claim_of(row.spec, sizes)
    if neighbouring == "substitute" and row.dataset == "worst":
        from synthleak.runtime import unit_rng

        # the record the game's exact design replaces (its seed path: pool 1, pool id 2, 0)
        picked = unit_rng(0, 1, 2, 0).choice(len(table) - 1, n, replace=False)
        info = {**info, "replaced_in_out": info["roles"][int(picked[-1])]}
    if args.quick:
        n_shadows, n_tests = 8, 24
    else:  # --shadows/--tests: more trials where a library turns out cheap enough
        n_shadows, n_tests = args.shadows or row.n_shadows, args.tests or row.n_tests
    ncols = len(WORST_COLUMNS) if row.dataset == "worst" else len(SCREEN_COLUMNS)
    game = MembershipGame(
        row.spec,
        targets=Targets.rows([target], label=row.dataset),
        knowledge="exact",
        neighbouring=neighbouring,
        train_size=n,
        synthetic_size=n if row.dataset == "screen" else 100,
        n_shadows=n_shadows,
        n_tests=n_tests,
        attacks=ATTACKS,
        attack_params={"query": {"n_queries": 2**ncols - 1}},
        batch_size=4,
    )
    runtime = Runtime(
        workers=args.workers, run_dir=None if args.run_dir is None else args.run_dir / row.key
    )
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        result = game.run(table, seed=0, runtime=runtime)
    seconds = time.perf_counter() - t0
    est = membership_epsilon(
        result,
        rng=stream_rng(0, "dp_study.epsilon"),
        claimed=eps,
        delta=delta,
        neighbouring=neighbouring,
        confidence=CONFIDENCE,
    )
    runs = result.failures.total_datasets
    per_run = seconds / max(runs, 1)
    need = trials_needed(
        eps,
        confidence=CONFIDENCE,
        delta=delta,
        neighbouring=neighbouring,
        game_neighbouring=result.config.neighbouring,
    )
    t = result.targets[0]
    presence = None
    if row.dataset == "screen" and args.run_dir is not None:
        from benchmarks.dp_value_presence import presence_test

        # the flaw's own test (dp_value_presence.py): the target is its training datasets'
        # only record of its race, so a release holding that race tells IN from OUT
        presence = presence_test(
            args.run_dir / row.key,
            [("race", str(info["target_record"]["race"]))],
            epsilon=eps,
            delta=delta,
            neighbouring=neighbouring,
        )
    return {
        "row": row.key,
        "group": row.group,
        "implementation": row.label,
        "generator": row.spec,
        "dataset": row.dataset,
        "dataset_info": info,
        "train_size": n,
        "game_neighbouring": result.config.neighbouring,
        "claim": {"epsilon": eps, "delta": delta, "neighbouring": neighbouring},
        "n_shadows": n_shadows,
        "n_tests": n_tests,
        "verdict": est.verdict.value,
        "lower_bound_95": est.lower_bound,
        "bounds": est.bounds,
        "ceiling_95": est.ceilings[str(CONFIDENCE)],
        "ceilings": est.ceilings,
        "attack": est.attack,
        "tp": est.tp,
        "fp": est.fp,
        "n_evaluation_per_class": [est.n_evaluation_in, est.n_evaluation_out],
        "mu": est.mu,
        "mu_ci": list(est.mu_ci),
        "auc": {k: o.auc.value for k, o in t.attacks.items()},
        "auc_ci": {k: [o.auc.ci_low, o.auc.ci_high] for k, o in t.attacks.items()},
        "message": est.message,
        "failed_datasets": result.failures.failed_datasets,
        "failure_messages": list(result.failures.messages)[:3],
        "seconds": round(seconds, 1),
        "seconds_per_generator_run": round(per_run, 3),
        "evaluation_per_class_needed": need,
        "projected_hours_for_ceiling": None
        if need is None
        else round((4 * need + n_shadows) * per_run / 3600, 1),
        "note": row.note,
        "value_presence": presence,
    }


#: The screen target is its training records' only race = Other, and synthcity learns each
#: column's values from the training records (label encoders, strict mode's filter): only IN
#: releases can hold the value (benchmarks/dp_repro_synthcity_domain.py).
DOMAIN_CAUSE = (
    "cause: a library bug, synthcity learns each column's values from the training records "
    "outside the budget, and the target is the only race = Other, so only releases of "
    "datasets holding it can hold that value (benchmarks/dp_repro_synthcity_domain.py)"
)


#: Violations followed to their cause, and library bugs a verdict cannot show (the table prints
#: them beside the verdict). SmartNoise DP-CTGAN's violation at epsilon = 1 was caused by
#: synthleak's adapter and is gone since its fix (its row before the fix:
#: ``results/dp_study/before_adapter_fix/``); synthcity's on the screen target is the library's.
CAUSES: dict[str, str] = {
    "worst--synthcity_pategan_epsilon=1": (
        "but no DP guarantee holds: a library bug found in its code, the student discriminator "
        "trains on the training records outside the PATE accountant "
        "(benchmarks/dp_repro_synthcity_pategan.py); the novelty attack tells IN from OUT "
        "releases (best AUC) where the fitted attacks, taught by 8 shadow datasets, score "
        "below 0.5; the bound stays 0 (80 test datasets, and synthcity's delta of 0.35 at "
        "n = 2 leaves little to certify)"
    ),
    "worst--synthcity_pategan_epsilon=4": (
        "but no DP guarantee holds (the library bug of the epsilon = 1 row); the attacks tell "
        "IN from OUT releases (best AUC), a signal the claim allows (epsilon = 4, and "
        "synthcity's delta of 0.35 at n = 2)"
    ),
    "screen--synthcity_pategan_epsilon=1": DOMAIN_CAUSE,
    "screen--synthcity_dpgan_epsilon=1_delta=1e-5": (
        "shown by the novelty attack's rule, fixed in advance (a release holding a value no "
        "known record holds, here race = Other, is IN), on all 64 test releases; the fitted "
        "attacks, taught by 8 shadow datasets, did not show it (the query attack's threshold "
        "flagged all 16 IN and 9 of 16 OUT evaluation releases); " + DOMAIN_CAUSE
    ),
}


#: A row's measured cost, kept when its stored releases are attacked again (``--rescore``).
COST_FIELDS = ("seconds", "seconds_per_generator_run", "projected_hours_for_ceiling")


def not_run(row: Row, reason: str) -> dict[str, Any]:
    return {
        "row": row.key,
        "group": row.group,
        "implementation": row.label,
        "generator": row.spec,
        "dataset": row.dataset,
        "claim": {"epsilon": row.epsilon},
        "verdict": "not run",
        "reason": reason,
    }


def registered(spec: str) -> str | None:
    """Why ``spec`` cannot run here (None when it can)."""
    from synthleak.errors import InputError
    from synthleak.generators import make_generator

    try:
        make_generator(spec)
    except InputError as exc:
        if "unknown generator" in str(exc):
            return f"{spec.rsplit(':', 1)[0]} is not registered"
        return str(exc)
    return None


# --- table ----------------------------------------------------------------------------------


def _fmt(x: Any, nd: int = 2) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


#: The "s per run" of rows that were resumed: the JSON's figure times only the last resumption.
SECONDS_NOTES: dict[str, str] = {
    "worst--synthcity_pategan_epsilon=4": "4.8 (wall per run, 2 workers, its last 51 min)",
    "screen--synthcity_pategan_epsilon=1": "8.5 (wall per run, 2 workers, shared machine)",
    "worst--dpmm_mst_epsilon=4_n_iters=100": (
        "14 (wall per run of its last resumption, 2 workers, shared machine)"
    ),
    "worst--dpmm_aim_epsilon=4_n_iters=100": "6.3 (wall per run, 2 workers, load 5-6)",
    "screen--smartnoise_dpctgan_epsilon=4_epochs=5_batch_size=100": (
        "5.5 (wall per run, 2 workers, shared machine)"
    ),
    "screen--synthcity_dpgan_epsilon=1_delta=1e-5": (
        "59.6 (wall per run, 2 workers, beside tests for most of it)"
    ),
    "screen--smartnoise_aim_epsilon=4": (
        "12 (wall per run of its last 684 runs, 2 workers at low priority beside tests and "
        "other studies; its first 232 in an earlier session; attacks in a last resumption)"
    ),
    "worst--synthcity_aim_epsilon=1": (
        "103 (wall per run, 2 workers; for most of it at an equal share of the machine beside "
        "risk maps and tests; 28.5 s in its first run)"
    ),
    "worst--smartnoise_aim_epsilon=4": (
        "3.0 to 3.9 (wall per run of each of its three resumptions, 2 workers at low priority "
        "beside tests and other studies)"
    ),
    "screen--smartnoise_mst_epsilon=4": (
        "4.3 (wall per run, 2 workers, beside tests for two thirds of it; 2.2 alone)"
    ),
}


#: A pause longer than this between two stored work units is a resumption, not a unit's time.
RESUMED_AFTER = 1800.0


def _own_rate(row: Row, run_dir: Path | None) -> tuple[float, str] | None:
    """Wall seconds per run of ``row``'s own stored work units (of 4 datasets each), over the
    longest stretch of at least 3 units finished without a pause (the study's workers side by
    side), and how to say so; None with fewer."""
    db = None if run_dir is None else run_dir / row.key / "catalogue.sqlite"
    if db is None or not db.is_file():
        return None
    import sqlite3

    with sqlite3.connect(db) as con:
        rows = con.execute(
            "SELECT finished FROM units WHERE status = 'ok' AND key LIKE 'gen-%'"
        ).fetchall()
    times = np.sort([t for (t,) in rows])
    best: np.ndarray = times[:0]
    for stretch in np.split(times, np.flatnonzero(np.diff(times) > RESUMED_AFTER) + 1):
        best = stretch if stretch.size > best.size else best
    if best.size < 3:
        return None
    seconds = float(best[-1] - best[0]) / (4 * (best.size - 1))
    return seconds, f"at its own {seconds:.0f} s a run so far (wall, {best.size} units of 4)"


def _rate(row: Row, docs: dict[str, dict[str, Any]]) -> tuple[float, str] | None:
    """Seconds a run of ``row``'s generator took in its epsilon = 1 row on the same target (the
    wall time per run with the study's 2 workers), and how to say so; None without one."""
    if row.epsilon == 1:
        return None
    sibling = docs.get(row.key.replace(f"epsilon={row.epsilon:g}", "epsilon=1", 1))
    seconds = None if sibling is None else sibling.get("seconds_per_generator_run")
    if not seconds:
        return None
    return seconds, f"at its epsilon = 1 row's {seconds:g} s a run (2 workers)"


def _stored_units(row: Row, run_dir: Path | None) -> list[Path]:
    """The generator work units ``row``'s game has stored in ``run_dir``."""
    return [] if run_dir is None else list((run_dir / row.key / "units").glob("gen-*.npz"))


def _duration(seconds: float) -> str:
    """``seconds`` as a reader takes them in: minutes up to two hours, then hours."""
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def _unfinished(row: Row, run_dir: Path | None, docs: dict[str, dict[str, Any]]) -> str:
    """What a row without a result reached: its stored generator runs (resumable; the game's
    sizes as its run directory records them, which ``--shadows``/``--tests`` may have changed),
    and the time the rest needs at its own rate so far (:func:`_own_rate`), else at the rate of
    the same generator's epsilon = 1 row."""
    units = _stored_units(row, run_dir)
    shadows, tests = row.n_shadows, row.n_tests
    if units and run_dir is not None and (run_dir / row.key / "run.json").is_file():
        config = json.loads((run_dir / row.key / "run.json").read_text())["config"]
        shadows, tests = config["n_shadow"], config["n_test"]
    runs = shadows + tests
    done = min(4 * len(units), runs)
    rate = _own_rate(row, run_dir) or _rate(row, docs)
    rest = "" if rate is None else f"about {_duration((runs - done) * rate[0])} {rate[1]}"
    if not units:
        return f"not run (time): {runs:,} runs{rest and ', ' + rest}; the study's command runs it"
    return (
        f"not finished (time): {done:,} of {runs:,} generator runs ({shadows:,} shadow / {tests:,} "
        f"test datasets) stored{rest and '; the rest ' + rest}; resumable with --run-dir"
    )


def table(out: Path, run_dir: Path | None = None) -> str:
    lines = [
        "| implementation | claim (eps, delta, relation) | target | trials (shadow / test); "
        "attacks | eps lower bound 95 % [90 %] | ceiling 95 % | verdict | best AUC | s per run |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    order = {r.key: i for i, r in enumerate(_rows())}
    docs = []
    for p in sorted(out.glob("*.json")):
        d = json.loads(p.read_text())
        if "row" in d:
            docs.append(d)
    by_key = {d["row"]: d for d in docs}
    for r in _rows():
        if r.key in by_key:
            continue
        if r.skip and not _stored_units(r, run_dir):  # not run for a stated reason (measured cost)
            docs.append(not_run(r, r.skip))
        else:
            docs.append({**not_run(r, _unfinished(r, run_dir, by_key)), "missing": True})
    docs.sort(key=lambda d: order.get(d["row"], 10**6))
    for d in docs:
        c = d["claim"]
        if d["verdict"] == "not run":
            reason = d["reason"] if d.get("missing") else f"not run: {d['reason']}"
            lines.append(
                f"| {d['implementation']} | eps {c['epsilon']:g} | {d['dataset']} | — | — | — "
                f"| {reason} | — | — |"
            )
            continue
        aucs = {k: v for k, v in d["auc"].items() if v == v}
        best = max(aucs, key=aucs.__getitem__, default=None)
        auc = f"{_fmt(aucs[best])} ({best})" if best else "—"
        verdict = d["verdict"]
        if verdict == "inconclusive" and d.get("evaluation_per_class_needed"):
            need = d["evaluation_per_class_needed"]
            hrs = d["projected_hours_for_ceiling"]
            verdict += f" (needs {4 * need:,} test datasets, ~{hrs} h)"
        elif verdict == "inconclusive":
            verdict += " (ceiling out of reach)"
        if d.get("failed_datasets"):  # dropped, so the trials are fewer than the row's
            runs = d["n_shadows"] + d["n_tests"]
            verdict += (
                f" ({d['failed_datasets']} of {runs} runs failed inside the library and were "
                f"dropped: {d['n_evaluation_per_class'][0]} IN and "
                f"{d['n_evaluation_per_class'][1]} OUT evaluation datasets left)"
            )
        if d["row"] in CAUSES:
            verdict += f"; {CAUSES[d['row']]}"
        if d.get("value_presence"):
            v = d["value_presence"]
            verdict += (
                f"; value-presence test (a release holding the target's "
                f"{' and '.join(f'{c} = {x}' for c, x in v['cells'])} is IN): {v['tp']} of "
                f"{v['n_in']} IN and {v['fp']} of {v['n_out']} OUT test releases, epsilon >= "
                f"{v['bounds']['0.95']:.2f} at 95 % (ceiling {v['ceilings']['0.95']:.2f}): "
                f"{v['verdict']}"
            )
        lines.append(
            f"| {d['implementation']} | {c['epsilon']:g}, {c['delta']:.2g}, {c['neighbouring']} "
            f"| {d['dataset']} | {d['n_shadows']} / {d['n_tests']}; "
            f"{', '.join(a[0] for a in d['auc'])} "
            f"| {_fmt(d['lower_bound_95'])} [{_fmt(d['bounds'].get('0.9'))}] "
            f"| {_fmt(d['ceiling_95'])} | {verdict} | {auc} "
            f"| {SECONDS_NOTES.get(d['row']) or _fmt(d['seconds_per_generator_run'], 3)} |"
        )
    return "\n".join(lines) + "\n"


# --- main -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="*", default=[], help="groups or row keys to run")
    parser.add_argument("--eps", type=float, nargs="*", default=None, help="only these epsilons")
    parser.add_argument("--table", action="store_true", help="write the Markdown table")
    parser.add_argument("--quick", action="store_true", help="smoke test: 8 + 24 datasets")
    parser.add_argument("--shadows", type=int, default=None, help="shadow datasets (the row's)")
    parser.add_argument("--tests", type=int, default=None, help="test datasets (the row's)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--run-dir", type=Path, default=None, help="resumable run directory")
    parser.add_argument("--out-dir", type=Path, default=OUT)
    parser.add_argument("--list", action="store_true", help="list the rows and exit")
    parser.add_argument(
        "--despite-cost",
        action="store_true",
        help="also run the rows the table reports as not run for their measured cost",
    )
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="attack a finished row's stored releases again (--run-dir) with the current "
        "attacks, keeping the row's measured cost",
    )
    args = parser.parse_args(argv)
    if args.rescore and args.run_dir is None:
        parser.error("--rescore reads the stored releases: give --run-dir")
    rows = [
        r
        for r in _rows()
        if (r.group in args.rows or r.key in args.rows or "all" in args.rows)
        and (args.eps is None or r.epsilon in args.eps)
    ]
    if args.list:
        for r in _rows():
            print(r.key, r.group, r.spec, r.n_shadows, r.n_tests)
        return 0
    out = args.out_dir if not args.quick else args.out_dir / "quick"
    data: dict[str, Any] = {}
    for row in rows:
        name = row.key
        path = out / f"{name}.json"
        before = json.loads(path.read_text()) if path.exists() else None
        if args.rescore:
            if before is None or before.get("crashed") or "seconds" not in before:
                print(f"[{time.strftime('%H:%M:%S')}] {name}: not run before, skipped")
                continue
            if not (args.run_dir / name / "units").is_dir():
                print(f"[{time.strftime('%H:%M:%S')}] {name}: no stored releases, skipped")
                continue
        elif before is not None and not before.get("crashed"):
            print(f"[{time.strftime('%H:%M:%S')}] {name}: done before, skipped", flush=True)
            continue
        prov = Provenance.start()
        stored = _generated(args.run_dir / name) if args.rescore else None
        why = (None if args.despite_cost else row.skip or None) or registered(row.spec)
        if why is not None:
            doc = not_run(row, why)
        else:
            print(f"[{time.strftime('%H:%M:%S')}] {name}: start", flush=True)
            try:
                doc = run_row(row, data, args)
            except Exception as exc:  # a library's failure is a result of the study
                traceback.print_exc()
                doc = not_run(row, f"failed: {type(exc).__name__}: {str(exc)[:300]}")
                doc["crashed"] = True  # recorded for the table, run again by the next command
        path.parent.mkdir(parents=True, exist_ok=True)
        if args.rescore and before is not None and doc.get("seconds") is not None:
            # the generator runs came from the run directory: their cost is the first run's
            if _generated(args.run_dir / name) != stored:
                raise SystemExit(f"{name}: releases were missing from {args.run_dir}: not rescored")
            for key in COST_FIELDS:
                doc[key] = before.get(key)
            doc = {"provenance": before["provenance"], "rescored": prov.to_dict(), **doc}
        else:
            doc = {"provenance": prov.to_dict(), **doc}
        path.write_text(json.dumps(doc, indent=1, default=_json_default) + "\n")
        print(
            f"[{time.strftime('%H:%M:%S')}] {name}: {doc['verdict']} "
            f"lb95 {doc.get('lower_bound_95')} ceiling {doc.get('ceiling_95')} "
            f"auc {doc.get('auc')} ({doc.get('seconds')} s)",
            flush=True,
        )
    if args.table:
        text = table(out, args.run_dir)
        (out / "table.md").write_text(text)
        sys.stdout.write(text)
    return 0


def _generated(row_dir: Path) -> int:
    """Generator units stored in a row's run directory."""
    return len(list((row_dir / "units").glob("gen-*.npz")))


def _json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


if __name__ == "__main__":
    raise SystemExit(main())
