"""Same-run cross-check of synthleak's no-box membership attacks against Synth-MIA's own code.

Synth-MIA (Ward, Lin, Wang, Cheng 2025; public repository joshward96/Synth-MIA, MIT licence) is
not on the package index: a fetched copy of its repository (``--synthmia``) is imported by
``benchmarks/synthmia_driver.py`` (our glue code) in a child process of a separate virtual
environment (``--synthmia-python``) holding its dependencies. Nothing of Synth-MIA enters the
project.

For every dataset x generator cell:

1. ``--records`` training records and ``--control`` held-out records of the same population are
   drawn (disjoint, seed ``--seed``); the generator is fitted on the training records and samples
   ``--synthetic`` records.
2. ``NoBoxMembershipGame`` with every registered no-box attack (and its ensemble) is played on
   that release. Its split (``member_rows``, ``non_member_rows``; the reference is the rest of
   the control) and its selection/evaluation halves are then reused as they are: the four parts
   are written once to CSV and Synth-MIA's ten attacks score the same candidates (members then
   non-members) with the same reference and release.
3. Per attack and tool: AUC (95% stratified bootstrap CI, synthleak's ``auc_estimate``) and
   TPR at FPR 0.01 with its interval (``tpr_estimates``), on all candidates.
4. Attacks that compute the same statistic are paired; they agree when Synth-MIA's AUC lies in
   our 95% CI; the paired bootstrap CI of the AUC difference and the Spearman correlation of the
   two score vectors are given as well.
5. Strength, on the **evaluation half only** (the game's own halves): synthleak's best (chosen on
   the selection half by the game) and its ensemble (fitted on the selection half) against
   (a) Synth-MIA's attack with the highest selection-half AUC (the same protocol), and (b) the
   Synth-MIA attack with the highest evaluation-half AUC (picked after seeing the evaluation
   labels: biased upwards, a stricter bar). Paired stratified bootstrap over the evaluation
   candidates of the AUC difference (``--boot`` replicates): "weaker" when the 95% CI lies below
   0, "stronger" when above.
6. Timing: the whole game (every attack, the ensemble; copies and exposure off) against the sum
   of Synth-MIA's attack times (each including its encoding), both on the same files.

A Synth-MIA score that is not finite (NaN) is ranked lowest; the count is reported.

Usage::

    python benchmarks/crosscheck_synthmia.py --synthmia /tmp/synthmia \
        --synthmia-python /tmp/synthmia-venv/bin/python \
        [--datasets adult census acs-ma] [--generators baynet synthpop ctgan:epochs=30]
        [--records 2000] [--control 1000] [--synthetic 2000] [--seed 0]

Results: ``benchmarks/results/crosscheck/crosscheck_synthmia.json`` (with provenance), and a
markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.datasets import load_table  # noqa: E402
from benchmarks.provenance import Provenance  # noqa: E402

DRIVER = Path(__file__).resolve().parent / "synthmia_driver.py"

#: synthleak attack -> the Synth-MIA attack that computes the same statistic.
PAIRS = {
    "dcr": "DCR",
    "dcr-diff": "DCRDiff",
    "domias": "DOMIAS",
    "neighbourhood": "LocalNeighborhood",
    "classifier": "Classifier",
    "gen-lra": "GenLRA",
    "kde": "DensityEstimate",
    "mc": "MC",
    "dpi": "DPI",
    "logan": "LOGAN",
}


def _rank_auc(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """AUC of each row of ``s`` (replicates x candidates) against labels ``y`` (ties half)."""
    from scipy.stats import rankdata

    r = rankdata(s, axis=-1)
    pos = y.astype(bool)
    n_p, n_n = int(pos.sum()), int((~pos).sum())
    return (r[..., pos].sum(axis=-1) - n_p * (n_p + 1) / 2) / (n_p * n_n)


def paired_auc_diff(
    y: np.ndarray, a: np.ndarray, b: np.ndarray, rng: np.random.Generator, n_boot: int
) -> dict:  # type: ignore[type-arg]
    """AUC(a) - AUC(b) on the same candidates, with a paired stratified bootstrap 95% CI."""
    y = np.asarray(y).astype(bool)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    idx = np.concatenate(
        [
            rng.choice(pos, size=(n_boot, pos.size), replace=True),
            rng.choice(neg, size=(n_boot, neg.size), replace=True),
        ],
        axis=1,
    )
    yb = np.r_[np.ones(pos.size), np.zeros(neg.size)]
    d = _rank_auc(yb, a[idx]) - _rank_auc(yb, b[idx])
    diff = float(_rank_auc(y, a[None, :])[0] - _rank_auc(y, b[None, :])[0])
    lo, hi = (float(v) for v in np.quantile(d, [0.025, 0.975]))
    verdict = "stronger" if lo > 0 else "weaker" if hi < 0 else "not different"
    return {"diff": diff, "ci_low": lo, "ci_high": hi, "verdict": verdict}


def _tpr(y: np.ndarray, s: np.ndarray) -> dict:  # type: ignore[type-arg]
    from synthleak.games.nobox import tpr_estimates

    t = tpr_estimates(y, s, (0.01,))["0.01"]
    return {"value": t.value, "ci_low": t.ci_low, "ci_high": t.ci_high, "note": t.note}


def _auc(y: np.ndarray, s: np.ndarray, rng: np.random.Generator) -> dict:  # type: ignore[type-arg]
    from synthleak.metrics.privacy import auc_estimate

    e = auc_estimate(y, s, rng=rng)
    return {"value": e.value, "ci_low": e.ci_low, "ci_high": e.ci_high}


def run_synthmia(args: argparse.Namespace, folder: Path) -> tuple[dict, float]:  # type: ignore[type-arg]
    cmd = [
        args.synthmia_python,
        str(DRIVER),
        "--synthmia",
        args.synthmia,
        "--data",
        str(folder),
        "--seed",
        str(args.seed),
    ]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"Synth-MIA driver failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1]), wall


def cell(args: argparse.Namespace, dataset: str, spec: str) -> dict:  # type: ignore[type-arg]
    import synthleak as sl
    from synthleak.attacks.base import AttackFamily, list_attacks
    from synthleak.data.release import Release
    from synthleak.games.nobox import NoBoxMembershipGame, stack_scores
    from synthleak.generators import make_generator
    from synthleak.runtime import stream_rng

    full = load_table(dataset)
    rng = stream_rng(args.seed, f"crosscheck:{dataset}")
    rows = rng.permutation(full.n_rows)[: args.records + args.control]
    original = full.take(np.sort(rows[: args.records]))
    control = full.take(np.sort(rows[args.records :]))

    t0 = time.perf_counter()
    gen = make_generator(spec)
    gen_rng = stream_rng(args.seed, f"crosscheck-gen:{dataset}:{spec}")
    gen.fit(original, rng=gen_rng)
    synthetic = gen.sample(args.synthetic, rng=gen_rng)
    t_gen = time.perf_counter() - t0

    every = tuple(i.name for i in list_attacks(AttackFamily.NOBOX_MEMBERSHIP))
    game = NoBoxMembershipGame(attacks=every, copies=False, n_exposed=0)
    t0 = time.perf_counter()
    res = game.run(Release(original, synthetic, control), seed=args.seed)
    t_ours = time.perf_counter() - t0

    ref_rows = np.setdiff1d(np.arange(control.n_rows), res.non_member_rows)
    kinds = {c.name: c.kind.value for c in full.schema.columns}
    with tempfile.TemporaryDirectory(prefix="xcheck-") as tmp:
        folder = Path(tmp)
        parts = {
            "members": original.take(res.member_rows),
            "non_members": control.take(res.non_member_rows),
            "reference": control.take(ref_rows),
            "synthetic": synthetic if isinstance(synthetic, sl.Table) else None,
        }
        for name, part in parts.items():
            frame = part.to_frame() if part is not None else synthetic
            frame.to_csv(folder / f"{name}.csv", index=False)
        (folder / "kinds.json").write_text(json.dumps(kinds))
        theirs, wall_theirs = run_synthmia(args, folder)

    y = res.labels.astype(np.int64)
    sel = res.selection.astype(bool)
    ev = ~sel
    their_scores: dict[str, np.ndarray] = {}
    their_rows = {}
    for name, rec in theirs.items():
        if "scores" not in rec:
            their_rows[name] = {"error": rec.get("errors")}
            continue
        s = np.array([np.nan if v is None else v for v in rec["scores"]], dtype=float)
        if list(rec["labels"]) != list(y):
            raise RuntimeError(f"Synth-MIA {name} scored candidates in another order")
        n_nan = int(np.isnan(s).sum())
        s = np.where(np.isnan(s), -np.inf, s)
        s = np.where(np.isposinf(s), np.finfo(float).max, s)
        s = np.where(np.isneginf(s), -np.finfo(float).max, s)
        their_scores[name] = s
        m_rng = stream_rng(args.seed, f"crosscheck-metric:{name}")
        their_rows[name] = {
            "auc": _auc(y, s, m_rng),
            "tpr_0.01": _tpr(y, s),
            "selection_auc": float(_rank_auc(y[sel], s[sel][None, :])[0]),
            "evaluation_auc": float(_rank_auc(y[ev], s[ev][None, :])[0]),
            "seconds": rec["seconds"],
            "encoding": rec["encoding"],
            "nan_scores": n_nan,
            "errors": rec.get("errors"),
        }

    ours = {}
    for name, o in res.attacks.items():
        if o.error:
            ours[name] = {"error": o.error}
            continue
        t = o.tpr_intervals.get("0.01")
        ours[name] = {
            "auc": {"value": o.auc.value, "ci_low": o.auc.ci_low, "ci_high": o.auc.ci_high},
            "tpr_0.01": {
                "value": t.value if t else None,
                "ci_low": t.ci_low if t else None,
                "ci_high": t.ci_high if t else None,
            },
            "selection_auc": o.selection_auc,
            "evaluation_auc": o.evaluation_auc,
        }

    boot_rng = stream_rng(args.seed, f"crosscheck-boot:{dataset}:{spec}")
    same = {}
    from scipy.stats import spearmanr

    for mine, peer in PAIRS.items():
        if mine not in res.scores or peer not in their_scores:
            continue
        a, b = res.scores[mine], their_scores[peer]
        ci = ours[mine]["auc"]
        pv = their_rows[peer]["auc"]["value"]
        same[mine] = {
            "peer": peer,
            "ours_auc": ci["value"],
            "peer_auc": pv,
            "peer_in_our_ci": bool(ci["ci_low"] <= pv <= ci["ci_high"]),
            "paired_diff": paired_auc_diff(y, a, b, boot_rng, args.boot),
            "spearman": float(spearmanr(a, b).statistic),
        }

    strength: dict = {}  # type: ignore[type-arg]
    if their_scores and res.best is not None:
        peer_sel = max(their_scores, key=lambda a: their_rows[a]["selection_auc"])
        peer_post = max(their_scores, key=lambda a: their_rows[a]["evaluation_auc"])
        best_s = res.scores[res.best.attack]
        contenders = {"best": best_s}
        if res.ensemble is not None:
            stacked, _, _ = stack_scores(res.scores, y, sel)
            contenders["ensemble"] = stacked
        strength = {
            "ours_best": res.best.attack,
            "ours_best_eval_auc": res.best.auc.value,
            "ours_ensemble_eval_auc": res.ensemble.auc.value if res.ensemble else None,
            "peer_selected": peer_sel,
            "peer_selected_eval_auc": their_rows[peer_sel]["evaluation_auc"],
            "peer_posthoc": peer_post,
            "peer_posthoc_eval_auc": their_rows[peer_post]["evaluation_auc"],
            "n_evaluation": int(ev.sum()),
        }
        for cname, cs in contenders.items():
            for pname, p in (("selected", peer_sel), ("posthoc", peer_post)):
                strength[f"{cname}_vs_{pname}"] = paired_auc_diff(
                    y[ev], cs[ev], their_scores[p][ev], boot_rng, args.boot
                )
    theirs_seconds = float(sum(r["seconds"] for r in theirs.values() if "seconds" in r))
    return {
        "dataset": dataset,
        "generator": spec,
        "records": args.records,
        "control": args.control,
        "synthetic": args.synthetic,
        "members": int(res.member_rows.size),
        "non_members": int(res.non_member_rows.size),
        "reference": int(ref_rows.size),
        "generator_seconds": t_gen,
        "ours_seconds": t_ours,
        "synthmia_seconds": theirs_seconds,
        "synthmia_process_seconds": wall_theirs,
        "ours": ours,
        "synthmia": their_rows,
        "ours_best": res.best.attack if res.best else None,
        "same_statistic": same,
        "strength": strength,
        "notes": list(res.notes),
    }


def _f(v: float | None, d: int = 3) -> str:
    return "–" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{v:.{d}f}"


def markdown(cells: list[dict]) -> str:  # type: ignore[type-arg]
    lines = []
    for c in cells:
        lines.append(f"\n#### {c['dataset']} × {c['generator']}\n")
        lines.append(
            "| attack (ours / Synth-MIA) | our AUC [95% CI] | Synth-MIA AUC | in CI | "
            "paired diff [95% CI] | Spearman | our TPR@0.01 | Synth-MIA TPR@0.01 |"
        )
        lines.append("|---|---|---|---|---|---|---|---|")
        for mine, peer in PAIRS.items():
            o, t = c["ours"].get(mine, {}), c["synthmia"].get(peer, {})
            s = c["same_statistic"].get(mine)
            oa = o.get("auc")
            ta = t.get("auc")
            lines.append(
                f"| {mine} / {peer} | "
                + (f"{_f(oa['value'])} [{_f(oa['ci_low'])}, {_f(oa['ci_high'])}]" if oa else "–")
                + f" | {_f(ta['value']) if ta else 'failed'}"
                + (f" ({t['encoding']})" if ta and t.get("encoding") != "one-hot" else "")
                + f" | {('yes' if s['peer_in_our_ci'] else 'no') if s else '–'} | "
                + (
                    f"{s['paired_diff']['diff']:+.3f} [{s['paired_diff']['ci_low']:+.3f}, "
                    f"{s['paired_diff']['ci_high']:+.3f}]"
                    if s
                    else "–"
                )
                + f" | {_f(s['spearman'], 2) if s else '–'}"
                + f" | {_f(o['tpr_0.01']['value']) if oa else '–'}"
                + f" | {_f(t['tpr_0.01']['value']) if ta else '–'} |"
            )
        st = c["strength"]
        if st:
            lines.append("")
            lines.append(
                f"Evaluation half ({st['n_evaluation']} candidates): our best "
                f"`{st['ours_best']}` {_f(st['ours_best_eval_auc'])}, ensemble "
                f"{_f(st['ours_ensemble_eval_auc'])}; Synth-MIA selected `{st['peer_selected']}` "
                f"{_f(st['peer_selected_eval_auc'])}, post-hoc `{st['peer_posthoc']}` "
                f"{_f(st['peer_posthoc_eval_auc'])}."
            )
            for k in (
                "best_vs_selected",
                "best_vs_posthoc",
                "ensemble_vs_selected",
                "ensemble_vs_posthoc",
            ):
                if k in st:
                    d = st[k]
                    lines.append(
                        f"- {k.replace('_', ' ')}: {d['diff']:+.3f} "
                        f"[{d['ci_low']:+.3f}, {d['ci_high']:+.3f}] → {d['verdict']}"
                    )
        lines.append(
            f"\nTime: synthleak {c['ours_seconds']:.1f} s (game, all attacks + ensemble), "
            f"Synth-MIA {c['synthmia_seconds']:.1f} s (sum of its attacks), ratio "
            f"{c['synthmia_seconds'] / c['ours_seconds']:.1f}x."
        )
    return "\n".join(lines)


def summary(cells: list[dict]) -> str:  # type: ignore[type-arg]
    """One row per cell: the strength comparison on the evaluation half, agreement, times."""
    lines = [
        "| dataset | generator | our best (eval AUC) | ensemble | Synth-MIA selected | "
        "Synth-MIA post-hoc | best − selected [95% CI] | ensemble − selected [95% CI] | "
        "best − post-hoc [95% CI] | same-statistic pairs in our CI | time ours / Synth-MIA |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def d(x: dict) -> str:  # type: ignore[type-arg]
        return f"{x['diff']:+.3f} [{x['ci_low']:+.3f}, {x['ci_high']:+.3f}] {x['verdict']}"

    for c in cells:
        if "error" in c:
            lines.append(f"| {c['dataset']} | {c['generator']} | failed: {c['error']} |")
            continue
        st = c["strength"]
        same = c["same_statistic"]
        n_in = sum(v["peer_in_our_ci"] for v in same.values())
        lines.append(
            f"| {c['dataset']} | {c['generator']} | `{st['ours_best']}` "
            f"{_f(st['ours_best_eval_auc'])} | {_f(st['ours_ensemble_eval_auc'])} | "
            f"`{st['peer_selected']}` {_f(st['peer_selected_eval_auc'])} | "
            f"`{st['peer_posthoc']}` {_f(st['peer_posthoc_eval_auc'])} | "
            f"{d(st['best_vs_selected'])} | "
            + (d(st["ensemble_vs_selected"]) if "ensemble_vs_selected" in st else "–")
            + f" | {d(st['best_vs_posthoc'])} | {n_in}/{len(same)} | "
            f"{c['ours_seconds']:.1f} s / {c['synthmia_seconds']:.1f} s |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--synthmia", default="/tmp/synthmia")
    ap.add_argument("--synthmia-python", default="/tmp/synthmia-venv/bin/python")
    ap.add_argument("--datasets", nargs="+", default=["adult", "census", "acs-ma"])
    ap.add_argument("--generators", nargs="+", default=["baynet", "synthpop", "ctgan:epochs=30"])
    ap.add_argument("--records", type=int, default=2000)
    ap.add_argument("--control", type=int, default=1000)
    ap.add_argument("--synthetic", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--boot", type=int, default=2000)
    ap.add_argument("--name", default="crosscheck_synthmia")
    ap.add_argument(
        "--summarise",
        nargs="+",
        metavar="JSON",
        help="print the summary and per-cell tables of written results files, run nothing",
    )
    args = ap.parse_args()
    if args.summarise:
        cells = [c for f in args.summarise for c in json.loads(Path(f).read_text())["cells"]]
        print(summary(cells))
        print(markdown([c for c in cells if "error" not in c]))
        return
    prov = Provenance.start()
    cells = []
    for dataset in args.datasets:
        for spec in args.generators:
            print(f"[{time.strftime('%H:%M:%S')}] {dataset} x {spec}", file=sys.stderr)
            try:
                cells.append(cell(args, dataset, spec))
            except Exception as exc:  # reported in the output, the grid goes on
                cells.append({"dataset": dataset, "generator": spec, "error": repr(exc)})
                print(f"  failed: {exc!r}", file=sys.stderr)
                continue
            done = [c for c in cells if "error" not in c]
            doc = {"config": vars(args), "cells": cells}
            prov.write("crosscheck", args.name, doc)
            print(markdown(done[-1:]), flush=True)
    doc = {"config": vars(args), "cells": cells}
    path = prov.write("crosscheck", args.name, doc)
    print(f"\nwritten {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
