"""Attribute inference of a continuous secret: synthleak and Anonymeter's InferenceEvaluator, same
run, same data, same success rule.

Data: Anonymeter's Adult example (``../shared/datasets/anonymeter_adults_*.csv``, missing marker
``?``): the reconstructed training split as the original, its CTGAN synthetic data, the control
split. Secret ``age`` or ``hr_per_week``, every other column the attacker's knowledge (as
Anonymeter's example notebook), a guess right when within a relative tolerance of the true value
(synthleak's ``SecretRule(tolerance=0.05, kind="relative")``: ``|guess - secret| <= 0.05 *
|secret|``; Anonymeter 1.1.0's ``regression=True`` rule with its fixed tolerance 0.05 divides by
the guess instead, ``|guess - secret| <= 0.05 * guess``: the same rule up to the boundary, e.g.
for a true age of 40 ours accepts 38 to 42, Anonymeter's 39 to 42).

Anonymeter pins numpy<1.27, so it runs in its own virtual environment (default
``/tmp/anonymeter-venv``: ``python -m venv /tmp/anonymeter-venv``, then
``/tmp/anonymeter-venv/bin/pip install anonymeter``) through a subprocess; it is never imported
here. Both tools attack ``--n-attacks`` training records with the nearest-neighbour guess
(Anonymeter's attack; synthleak's ``dcr``) and report their control figure:

* Anonymeter: success rate on training records and on control records (the control set itself
  is the attacked population), and the risk ``(attack - control) / (1 - control)`` with its
  interval;
* synthleak: accuracy on training records, on control records swapped into the same knowledge,
  and their difference (the excess) with Newcombe's interval.

synthpop's disclosure measures (DiSCO, repU; Raab, Nowok and Dibben 2024) are R only: no Python
route exists, so they are compared from their published definitions in RESULTS_aia.md, not run.

Run:  python benchmarks/compare_anonymeter_inference.py [--n-attacks 2000] [--seeds 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import pandas as pd

import synthleak as sl
from synthleak.games.attribute_release import ReleaseAttributeGame
from synthleak.games.secret import SecretRule

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets"

_DRIVER = """
import json, sys, time
import pandas as pd
from anonymeter.evaluators import InferenceEvaluator
args = json.loads(sys.argv[1])
read = lambda n: pd.read_csv(args["data"] + f"/anonymeter_adults_{n}.csv", na_values=["?"])
ori, syn, ctl = read("train_reconstructed"), read("syn_ctgan"), read("control")
out = []
for secret in args["secrets"]:
    for seed in range(args["seeds"]):
        import numpy as np
        np.random.seed(seed)
        aux = [c for c in ori.columns if c != secret]
        t = time.perf_counter()
        ev = InferenceEvaluator(ori=ori, syn=syn, control=ctl, aux_cols=aux, secret=secret,
                                regression=True, n_attacks=args["n_attacks"])
        ev.evaluate(n_jobs=1)
        res = ev.results()
        r = ev.risk()
        out.append({"secret": secret, "seed": seed, "seconds": time.perf_counter() - t,
                    "attack_rate": res.attack_rate.value, "attack_err": res.attack_rate.error,
                    "control_rate": res.control_rate.value, "control_err": res.control_rate.error,
                    "risk": r.value, "risk_ci": list(r.ci)})
print(json.dumps(out))
"""


def _frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    read = lambda name: pd.read_csv(DATA / f"anonymeter_adults_{name}.csv", na_values=["?"])  # noqa: E731
    return read("train_reconstructed"), read("syn_ctgan"), read("control")


def run_anonymeter(python: str, secrets: list[str], n_attacks: int, seeds: int) -> list[dict]:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(_DRIVER)
    cfg = {"data": str(DATA), "secrets": secrets, "n_attacks": n_attacks, "seeds": seeds}
    done = subprocess.run(
        [python, f.name, json.dumps(cfg)], capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"anonymeter failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_synthleak(secrets: list[str], tol: float, n_attacks: int, seeds: int) -> list[dict]:
    ori, syn, ctl = _frames()
    out = []
    for secret in secrets:
        for seed in range(seeds):
            t = time.perf_counter()
            game = ReleaseAttributeGame(
                secret,
                attack="dcr",
                n_targets=n_attacks,
                secret_rule=SecretRule(tolerance=tol, kind="relative"),
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = game.run(sl.Release(ori, syn, ctl), seed=seed)
            d = r.difference
            out.append(
                {
                    "secret": secret,
                    "seed": seed,
                    "seconds": time.perf_counter() - t,
                    "accuracy": r.accuracy.value,
                    "accuracy_ci": [r.accuracy.ci_low, r.accuracy.ci_high],
                    "control_accuracy": r.control_accuracy.value,
                    "control_ci": [r.control_accuracy.ci_low, r.control_accuracy.ci_high],
                    "excess": d.difference,
                    "excess_ci": [d.ci_low, d.ci_high],
                }
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="/tmp/anonymeter-venv/bin/python")
    ap.add_argument("--secrets", default="age,hr_per_week")
    ap.add_argument("--n-attacks", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    secrets = args.secrets.split(",")
    tol = 0.05  # Anonymeter's fixed tolerance of evaluate_inference_guesses
    anon = run_anonymeter(args.python, secrets, args.n_attacks, args.seeds)
    ours = run_synthleak(secrets, tol, args.n_attacks, args.seeds)
    for a, s in zip(anon, ours, strict=True):
        print(
            f"{a['secret']:<12} seed {a['seed']}: anonymeter attack {a['attack_rate']:.3f} "
            f"(+-{a['attack_err']:.3f}) control {a['control_rate']:.3f} (+-{a['control_err']:.3f}) "
            f"risk {a['risk']:.3f} [{a['risk_ci'][0]:.3f}, {a['risk_ci'][1]:.3f}] "
            f"{a['seconds']:.1f} s | synthleak accuracy {s['accuracy']:.3f} control "
            f"{s['control_accuracy']:.3f} excess {s['excess']:+.3f} "
            f"[{s['excess_ci'][0]:+.3f}, {s['excess_ci'][1]:+.3f}] {s['seconds']:.1f} s"
        )
    if args.out is not None:
        args.out.write_text(json.dumps({"anonymeter": anon, "synthleak": ours}, indent=1))


if __name__ == "__main__":
    main()
