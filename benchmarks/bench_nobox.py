"""Benchmark of the no-box membership audit on the Anonymeter Adult files, with its peers.

Part 1 (speed). Every registered no-box attack fitted and scored, one after the other, at the
game's default split of the Anonymeter Adult files (39,084 training, 39,040 CTGAN synthetic,
9,758 control records: 4,879 members, 4,879 non-members, 4,879 reference), then the whole
``NoBoxMembershipGame`` with its default attacks and with every attack (V_k of all training
records, per-record exposure, the copy report and the ensemble included). Peer, measured in the
same run unless ``--skip-peer``: SDMetrics' ``DCRBaselineProtection`` on a subsample of
``--peer-rows`` training and synthetic rows (it takes minutes at full size), in a child process
of the peers venv (``/work/venvs/peers``, which holds sdmetrics and domias without touching the
shared environment).

Part 2 (cross-check, ``--cross-check``). The ``domias`` package (van Breugel et al. 2023, MIT
licence), run unchanged through its ``evaluate_performance`` with a generator that returns the
given release (its Wasserstein fidelity figure, which needs pykeops, and its LOGAN_0 baseline,
which no longer runs with ctgan 0.12, skipped), on exactly the members, non-members, reference
and synthetic records our attacks see (its KDE density estimator on the numeric encoding:
category codes and values). Two releases: the CTGAN file, and a bootstrap resample (3n rows) of
5,000 training records. Our AUCs come with 95% bootstrap CIs.

Part 3 (oracles, ``--oracles``). The oracle games of the tests, every figure: Adult and the UK
census teaching file (10k uniform sample), original 4,000 and control 1,000; releases: a
bootstrap resample of 3n rows, ``nonprivate`` with m = n, and five independent real samples.

Wall times depend on the machine's load (printed). Results go to
``benchmarks/results/nobox/bench_nobox.json``.

Synth-MIA (``--synthmia DIR``, a fetched copy of its public repository, run by
``synthmia_driver.py`` in its own venv ``--synthmia-python``): each of its ten attacks on the
same members, non-members, reference and release, one child process per attack, stopped after
``--synthmia-timeout`` seconds; measured in the same run as ours.

Part 4 (``--null-seeds N``). The null oracle of every registered attack and of the ensemble
over N replicates at the audit's shape, with the coverage of every AUC and TPR-at-FPR interval,
and a 3n-bootstrap copy oracle.

Usage: ``python benchmarks/bench_nobox.py [--peer-rows 4000] [--skip-peer] [--cross-check]
[--peers-python /work/venvs/peers/bin/python] [--oracles] [--null-seeds N] [--skip-speed]
[--synthmia /tmp/synthmia --synthmia-timeout 900]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import synthleak as sl
from benchmarks.provenance import Provenance
from synthleak.attacks.base import AttackFamily, list_attacks, make_attack
from synthleak.data.release import Release
from synthleak.games.nobox import DEFAULT_ATTACKS, NoBoxMembershipGame
from synthleak.metrics.privacy import auc_estimate

DATA = Path(
    os.environ.get(
        "SYNTHLEAK_SHARED_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets"
    )
)
OUT = Path(__file__).resolve().parent / "results" / "nobox" / "bench_nobox.json"

PEER_SDMETRICS = r"""
import json, sys, time
import pandas as pd
from sdmetrics.single_table import DCRBaselineProtection
real = pd.read_csv(sys.argv[1]); syn = pd.read_csv(sys.argv[2]); meta = json.loads(sys.argv[3])
t0 = time.perf_counter()
out = DCRBaselineProtection.compute_breakdown(real, syn, meta, "table")
print(json.dumps({"seconds": time.perf_counter() - t0, "result": out}, default=float))
"""

PEER_DOMIAS = r"""
import json, sys
import numpy as np, pandas as pd
import domias.evaluator
from domias.evaluator import evaluate_performance
from domias.models.generator import GeneratorInterface

# the Wasserstein fidelity figure of the synthetic data needs pykeops at these sizes, which does
# not build here; it is not part of any attack, so it is skipped (NaN)
domias.evaluator.compute_wd = lambda x_syn, x: float("nan")


# the LOGAN_0 baseline trains a CTGAN through private attributes that ctgan 0.12 no longer has
# (DataSampler.sample_data changed); it is replaced by a constant score (AUC 0.5, dropped from
# the output). The DOMIAS computation and every other baseline run unchanged.
class _NoLogan0:
    def __init__(self, *args, **kwargs):
        self._transformer = self
        self._discriminator = self

    def fit(self, data):
        return self

    def transform(self, x):
        return np.asarray(x, dtype=float)

    def __call__(self, x):
        import torch
        return torch.zeros(x.shape[0])


domias.evaluator.CTGAN = _NoLogan0
z = np.load(sys.argv[1])
mem, non, ref, syn = z["members"], z["non_members"], z["reference"], z["synthetic"]

class Release(GeneratorInterface):
    def fit(self, data):
        return self
    def generate(self, count):
        return pd.DataFrame(syn[:count], columns=[str(i) for i in range(syn.shape[1])])

dataset = np.concatenate([mem, non, ref])
log = evaluate_performance(Release(), dataset, len(mem), len(ref), training_epochs=1,
                           synthetic_sizes=[len(syn)], density_estimator="kde", device="cpu")
perf = log[len(syn)]["MIA_performance"]
print(json.dumps({k: v["aucroc"] for k, v in perf.items()}, default=float))
"""


def _load() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    return (
        pd.read_csv(DATA / "anonymeter_adults_train_reconstructed.csv"),
        pd.read_csv(DATA / "anonymeter_adults_syn_ctgan.csv"),
        pd.read_csv(DATA / "anonymeter_adults_control.csv"),
    )


def _split(enc, seed: int, n_non: int | None = None, n_ref: int | None = None):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    n_ctl = len(enc.control)
    n_non = n_ctl // 2 if n_non is None else n_non
    n_ref = n_ctl - n_non if n_ref is None else n_ref
    perm = rng.permutation(n_ctl)
    mem = rng.choice(len(enc.original), n_non, replace=False)
    return mem, perm[:n_non], perm[n_non : n_non + n_ref]


def speed(args: argparse.Namespace) -> dict:
    ori, syn, ctl = _load()
    enc = Release(ori, syn, ctl).encode()
    mem, non, ref = _split(enc, 0)
    records = sl.Table.concat([enc.original.take(mem), enc.control.take(non)])
    reference = enc.control.take(ref)
    # warm the numba kernels on a small problem so compilation is not timed
    small = sl.Table.concat([records.take(np.arange(50))])
    every = tuple(i.name for i in list_attacks(AttackFamily.NOBOX_MEMBERSHIP))
    for name in every:
        make_attack("nobox-membership", name).fit(
            enc.synthetic.take(np.arange(200)),
            reference.take(np.arange(100)),
            rng=np.random.default_rng(0),
        ).score(small)
    per_attack = {}
    t_all = time.perf_counter()
    cpu0 = time.process_time()
    for name in every:
        t0 = time.perf_counter()
        att = make_attack("nobox-membership", name).fit(
            enc.synthetic, reference, rng=np.random.default_rng(1)
        )
        att.score(records)
        per_attack[name] = time.perf_counter() - t0
    attacks_wall = time.perf_counter() - t_all
    attacks_cpu = time.process_time() - cpu0
    t0 = time.perf_counter()
    NoBoxMembershipGame().run(Release(ori, syn, ctl), seed=0)
    game_wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    NoBoxMembershipGame(attacks=every).run(Release(ori, syn, ctl), seed=0)
    game_every_wall = time.perf_counter() - t0
    print(
        f"ours (load {os.getloadavg()[0]:.1f}): attacks {per_attack}, together "
        f"{attacks_wall:.1f} s wall, {attacks_cpu:.1f} s CPU; whole game {game_wall:.1f} s "
        f"(default attacks), {game_every_wall:.1f} s (every attack)",
        flush=True,
    )
    ours = {
        "sizes": {
            "training": len(ori),
            "synthetic": len(syn),
            "control": len(ctl),
            "members": len(mem),
            "non_members": len(non),
            "reference": len(ref),
        },
        "attacks_seconds": per_attack,
        "attacks_total_seconds": attacks_wall,
        "attacks_total_cpu_seconds": attacks_cpu,
        "default_attacks": list(DEFAULT_ATTACKS),
        "game_seconds": game_wall,
        "game_every_attack_seconds": game_every_wall,
        "load_average_after_ours": os.getloadavg(),
    }
    if args.synthmia:
        ours["synthmia"] = synthmia_speed(
            args, ori.iloc[mem], ctl.iloc[non], ctl.iloc[ref], syn, enc
        )
    if args.skip_peer:
        return ours

    # the peer, same run: SDMetrics DCRBaselineProtection on a subsample
    rng = np.random.default_rng(2)
    meta = {
        "tables": {
            "table": {
                "columns": {
                    c: {
                        "sdtype": "categorical"
                        if c in enc.schema.categorical_names
                        else "numerical"
                    }
                    for c in ori.columns
                }
            }
        }
    }
    with tempfile.TemporaryDirectory() as tmp:
        rp, sp = Path(tmp) / "real.csv", Path(tmp) / "syn.csv"
        ori.iloc[rng.choice(len(ori), args.peer_rows, replace=False)].to_csv(rp, index=False)
        syn.iloc[rng.choice(len(syn), args.peer_rows, replace=False)].to_csv(sp, index=False)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [args.peers_python, "-c", PEER_SDMETRICS, str(rp), str(sp), json.dumps(meta)],
            capture_output=True,
            text=True,
            check=True,
        )
        peer_wall = time.perf_counter() - t0
    peer = json.loads(proc.stdout.strip().splitlines()[-1])
    # our own distance-to-closest-record computation at the peer's size, for a like-for-like ratio
    sub_r = enc.original.take(rng.choice(len(enc.original), args.peer_rows, replace=False))
    sub_s = enc.synthetic.take(rng.choice(len(enc.synthetic), args.peer_rows, replace=False))
    t0 = time.perf_counter()
    sl.vulnerability.nearest_neighbours(sub_s, sub_r, k=1)
    ours_same_size = time.perf_counter() - t0
    return ours | {
        "sdmetrics_dcr_baseline_protection": {
            "rows": args.peer_rows,
            "seconds_inside": peer["seconds"],
            "seconds_with_process_start": peer_wall,
            "result": peer["result"],
        },
        "ours_dcr_same_subsample_seconds": ours_same_size,
        "ratio_peer_subsample_over_our_full_attacks": peer["seconds"] / attacks_wall,
    }


def synthmia_speed(args, members, non_members, reference, synthetic, enc) -> dict:  # type: ignore[no-untyped-def]
    """Synth-MIA's attacks on the same members, non-members, reference and release, timed.

    One child process per attack (``synthmia_driver.py --attacks NAME`` in its own venv), each
    stopped after ``--synthmia-timeout`` seconds: a stopped attack is reported as "stopped after
    T s", never left out. The time is the driver's own measure of the attack (its encoding of
    the four tables included, as its README prescribes), not the process start.
    """
    from benchmarks.synthmia_driver import ATTACKS

    kinds = {
        c: ("categorical" if c in enc.schema.categorical_names else "continuous")
        for c in members.columns
    }
    out: dict = {}  # type: ignore[type-arg]
    with tempfile.TemporaryDirectory(prefix="nobox-synthmia-") as tmp:
        folder = Path(tmp)
        for name, frame in (
            ("members", members),
            ("non_members", non_members),
            ("reference", reference),
            ("synthetic", synthetic),
        ):
            frame.to_csv(folder / f"{name}.csv", index=False)
        (folder / "kinds.json").write_text(json.dumps(kinds))
        driver = Path(__file__).resolve().parent / "synthmia_driver.py"
        for name in ATTACKS:
            cmd = [args.synthmia_python, str(driver), "--synthmia", args.synthmia]
            cmd += ["--data", str(folder), "--attacks", name]
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(
                    cmd, capture_output=True, text=True, timeout=args.synthmia_timeout
                )
            except subprocess.TimeoutExpired:
                out[name] = {"stopped_after_seconds": args.synthmia_timeout}
                print(f"Synth-MIA {name}: stopped after {args.synthmia_timeout} s", flush=True)
                continue
            wall = time.perf_counter() - t0
            if proc.returncode != 0:
                out[name] = {"error": proc.stderr[-500:], "process_seconds": wall}
                continue
            rec = json.loads(proc.stdout.strip().splitlines()[-1])[name]
            out[name] = {
                "seconds": rec.get("seconds"),
                "process_seconds": wall,
                "encoding": rec.get("encoding"),
                "errors": rec.get("errors"),
            }
            print(f"Synth-MIA {name}: {out[name]}", flush=True)
    return out


def _numeric(t: sl.Table) -> np.ndarray:
    x = np.concatenate([t.codes.astype(np.float64), t.values.astype(np.float64)], axis=1)
    return np.nan_to_num(x, nan=-1.0)


def cross_check(args: argparse.Namespace) -> dict:
    ori, syn, ctl = _load()
    out = {}
    small = ori.sample(5000, random_state=7).reset_index(drop=True)
    releases = {
        # the CTGAN release of the whole training file
        "ctgan": (ori, syn),
        # a copying release; 5,000 training records keep the peer's per-row loops affordable
        "bootstrap_3n": (small, small.sample(15000, replace=True, random_state=5)),
    }
    for label, (train, release) in releases.items():
        enc = Release(train, release, ctl).encode()
        mem, non, ref = _split(enc, 3, n_non=1000, n_ref=2000)
        members, non_members = enc.original.take(mem), enc.control.take(non)
        reference = enc.control.take(ref)
        records = sl.Table.concat([members, non_members])
        y = np.r_[np.ones(len(mem)), np.zeros(len(non))]
        ours = {}
        for name in DEFAULT_ATTACKS:
            s = (
                make_attack("nobox-membership", name)
                .fit(enc.synthetic, reference, rng=np.random.default_rng(4))
                .score(records)
            )
            e = auc_estimate(y, s, rng=np.random.default_rng(6))
            ours[name] = {"auc": e.value, "ci": [e.ci_low, e.ci_high]}
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "data.npz"
            np.savez(
                path,
                members=_numeric(members),
                non_members=_numeric(non_members),
                reference=_numeric(reference),
                synthetic=_numeric(enc.synthetic),
            )
            t0 = time.perf_counter()
            proc = subprocess.run(
                [args.peers_python, "-c", PEER_DOMIAS, str(path)],
                capture_output=True,
                text=True,
            )
            if proc.returncode:
                peer = {"error": proc.stderr.strip().splitlines()[-1]}
            else:
                peer = json.loads(proc.stdout.strip().splitlines()[-1])
                peer.pop("LOGAN_0", None)  # replaced by a constant score (see PEER_DOMIAS)
            peer_seconds = time.perf_counter() - t0
        out[label] = {"ours": ours, "domias_package": peer, "domias_package_seconds": peer_seconds}
        print(label, json.dumps(out[label], default=float), flush=True)
    return out


def null_coverage(args: argparse.Namespace) -> dict:
    """Null oracle of every registered attack and the ensemble: ``--null-seeds`` replicates on
    Adult at the audit's 4:1 shape (original 4,000, control 1,000, release 4,000 other real
    records), counting how often each 95% AUC interval covers 0.5 and each TPR-at-FPR interval
    covers its FPR. Also one copy oracle (release: a 3n bootstrap of the training data)."""
    adult = sl.datasets.load_adult()
    every = tuple(i.name for i in list_attacks(AttackFamily.NOBOX_MEMBERSHIP))
    names = [*every, "ensemble"]
    auc_cover = dict.fromkeys(names, 0)
    tpr_cover = {a: {f"{f:g}": [0, 0] for f in (0.1, 0.01, 0.001)} for a in names}
    aucs: dict[str, list[float]] = {a: [] for a in names}
    t0 = time.perf_counter()
    for seed in range(args.null_seeds):
        p = np.random.default_rng(100 + seed).permutation(len(adult))
        o = adult.iloc[p[:4000]].reset_index(drop=True)
        c = adult.iloc[p[4000:5000]].reset_index(drop=True)
        syn = adult.iloc[p[5000:9000]]
        res = NoBoxMembershipGame(attacks=every, n_exposed=0, copies=False).run(
            Release(o, syn, c), seed=seed
        )
        assert res.ensemble is not None
        outs = {a: (res.attacks[a].auc, res.attacks[a].tpr_intervals) for a in every}
        outs["ensemble"] = (res.ensemble.auc, res.ensemble.tpr_at_fpr)
        for a, (est, tprs) in outs.items():
            aucs[a].append(est.value)
            auc_cover[a] += est.ci_low <= 0.5 <= est.ci_high
            for k, t in tprs.items():
                if t.value is not None and t.ci_low is not None and t.ci_high is not None:
                    tpr_cover[a][k][0] += t.ci_low <= t.fpr <= t.ci_high
                    tpr_cover[a][k][1] += 1
    null_seconds = time.perf_counter() - t0
    p = np.random.default_rng(0).permutation(len(adult))
    o = adult.iloc[p[:4000]].reset_index(drop=True)
    c = adult.iloc[p[4000:5000]].reset_index(drop=True)
    res = NoBoxMembershipGame(attacks=every, n_exposed=0, copies=False).run(
        Release(o, o.sample(12000, replace=True, random_state=1), c), seed=0
    )
    assert res.ensemble is not None and res.best is not None
    copy = {a: [x.auc.value, x.auc.ci_low, x.auc.ci_high] for a, x in res.attacks.items()}
    copy["best"] = [res.best.attack, res.best.auc.value, res.best.auc.ci_low, res.best.auc.ci_high]
    copy["ensemble"] = [res.ensemble.auc.value, res.ensemble.auc.ci_low, res.ensemble.auc.ci_high]
    copy["tpr_at_0.01"] = {
        a: [x.tpr_intervals["0.01"].value, x.tpr_intervals["0.01"].ci_low]
        for a, x in res.attacks.items()
    }
    out = {
        "seeds": args.null_seeds,
        "auc_ci_covers_half": auc_cover,
        "mean_auc": {a: float(np.mean(v)) for a, v in aucs.items()},
        "tpr_ci_covers_fpr": tpr_cover,
        "seconds": null_seconds,
        "copy_bootstrap_3n": copy,
    }
    print(json.dumps(out, indent=2, default=float), flush=True)
    return out


def oracles(args: argparse.Namespace) -> dict:
    """The oracle games of tests/games/test_nobox.py, every figure printed (original 4,000,
    control 1,000: the audit's 4:1 shape)."""
    from synthleak.generators import make_generator

    adult = sl.datasets.load_adult()
    census = pd.read_csv(DATA / "uk_census2011_teaching_nano_10k.csv").drop(
        columns=["row_index_in_full_file", "Person ID"]
    )
    out: dict = {}
    for dname, df in (("adult", adult), ("uk_census_10k", census)):
        perm = np.random.default_rng(0).permutation(len(df))
        ori = df.iloc[perm[:4000]].reset_index(drop=True)
        ctl = df.iloc[perm[4000:5000]].reset_index(drop=True)
        table = sl.Table.from_frame(ori, sl.infer_schema(ori))
        rng = np.random.default_rng(5)
        nonprivate = make_generator("nonprivate").fit(table, rng=rng).sample(4000, rng=rng)
        cases = {
            "bootstrap_3n": [(0, ori.sample(12000, replace=True, random_state=1))],
            "nonprivate_m_eq_n": [(0, nonprivate.to_frame())],
            "independent": [(s, None) for s in range(5)],
        }
        for case, runs in cases.items():
            for seed, syn in runs:
                o, c = ori, ctl
                if syn is None:  # independent replicates: a fresh draw of all three parts
                    p = np.random.default_rng(100 + seed).permutation(len(df))
                    o = df.iloc[p[:4000]].reset_index(drop=True)
                    c = df.iloc[p[4000:5000]].reset_index(drop=True)
                    syn = df.iloc[p[5000:9000]]
                res = NoBoxMembershipGame(n_exposed=0, copies=False).run(
                    Release(o, syn, c), seed=seed
                )
                row = {
                    a: [o.auc.value, o.auc.ci_low, o.auc.ci_high] for a, o in res.attacks.items()
                }
                assert res.best is not None
                row["best"] = [
                    res.best.attack,
                    res.best.auc.value,
                    res.best.auc.ci_low,
                    res.best.auc.ci_high,
                    res.best.selection_auc,
                ]
                out[f"{dname}/{case}/seed{seed}"] = row
                print(dname, case, seed, json.dumps(row, default=float), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer-rows", type=int, default=4000)
    ap.add_argument("--peers-python", default="/work/venvs/peers/bin/python")
    ap.add_argument("--cross-check", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--skip-peer", action="store_true")
    ap.add_argument("--oracles", action="store_true")
    ap.add_argument("--null-seeds", type=int, default=0)
    ap.add_argument("--synthmia", default=None, help="fetched Synth-MIA repository (timing peer)")
    ap.add_argument("--synthmia-python", default="/tmp/synthmia-venv/bin/python")
    ap.add_argument("--synthmia-timeout", type=float, default=900.0)
    args = ap.parse_args()
    prov = Provenance.start()
    doc: dict = json.loads(OUT.read_text()) if OUT.exists() else {}  # keep the other part
    doc |= {
        "command": " ".join([sys.executable, *sys.argv]),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "load_average_start": os.getloadavg(),
    }
    try:
        doc["commit"] = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        doc["commit"] = None
    if not args.skip_speed:
        doc["speed"] = speed(args)
        print(json.dumps(doc["speed"], indent=2, default=float), flush=True)
    if args.cross_check:
        doc["cross_check"] = cross_check(args)
    if args.oracles:
        doc["oracles"] = oracles(args)
    if args.null_seeds:
        doc["null_coverage"] = null_coverage(args)
    doc["load_average_end"] = os.getloadavg()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    doc = {"provenance": prov.to_dict(), **doc}
    OUT.write_text(json.dumps(doc, indent=2, default=float) + "\n")
    print(f"written {OUT}")


if __name__ == "__main__":
    main()
