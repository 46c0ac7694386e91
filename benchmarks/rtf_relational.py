"""REaLTabFormer's relational model (Solatorio and Dupriez 2023) as an external relational
generator, run through synthleak's ``command:`` spec on a small relational sample.

Two parts in one file:

* ``program INPUT OUTPUT N SEED``: the external program the ``command:`` spec runs. It reads the
  training tables from the folder ``INPUT`` (one CSV per table, SDV's multi-table metadata as
  ``INPUT/metadata.json``, as :class:`synthleak.generators.relational.CommandRelationalGenerator`
  writes them), trains REaLTabFormer's tabular model (GPT-2, from scratch) on the parent table
  without its key and its relational model (the parent model as encoder, a GPT-2 decoder) on
  the child rows of each parent, samples ``N`` parents and their child rows, and writes one CSV
  per table to ``OUTPUT`` with new keys. One parent table and one child table (REaLTabFormer's
  relational model is a parent-child pair). Everything runs offline on CPU with a small GPT-2
  (sizes below), trained for a fixed number of epochs (no critic).
* ``bench``: draws a small relational sample (``tests/games/person_parts.py``: persons and
  their visits, split into original, control and other people), fits
  ``command:"python benchmarks/rtf_relational.py program {input} {output} {n} {seed}"`` through
  :func:`synthleak.generators.relational.make_relational_generator`, samples a release as large
  as the original, and plays the person-level copy and membership games on it against the
  control; writes the figures and the cost as JSON.

Usage::

    nice -n 15 python benchmarks/rtf_relational.py bench --persons 200 --epochs 20 --name p200_e20

writes ``benchmarks/results/rtf_relational/<name>.json`` with the run's provenance
(``benchmarks/provenance.py``). Results: ``benchmarks/RESULTS_generators.md`` (relational
section).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# run as a script, this folder comes first on the path, and its datasets.py would hide the
# Hugging Face datasets package REaLTabFormer imports
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

#: The GPT-2 of both models: small enough to train on CPU in minutes.
N_LAYER, N_EMBD, N_HEAD = 2, 64, 4


def _offline() -> None:
    for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ[k] = "1"


def program(inp: Path, out: Path, n: int, seed: int, epochs: int) -> None:
    """The external generator (module docstring)."""
    _offline()
    import torch
    from realtabformer import REaLTabFormer
    from transformers import EncoderDecoderConfig, GPT2Config

    meta = json.loads((inp / "metadata.json").read_text())
    rels = meta.get("relationships", [])
    if len(rels) != 1:
        sys.exit(f"rtf_relational: one parent and one child table needed, got {len(rels)} links")
    rel = rels[0]
    parent, child = rel["parent_table_name"], rel["child_table_name"]
    pk, fk = rel["parent_primary_key"], rel["child_foreign_key"]
    child_pk = meta["tables"][child].get("primary_key")
    p_df = pd.read_csv(inp / f"{parent}.csv")
    c_df = pd.read_csv(inp / f"{child}.csv")
    join = "__rtf_join__"
    p_in = p_df.rename(columns={pk: join})
    c_in = c_df.drop(columns=[child_pk] if child_pk else []).rename(columns={fk: join})
    torch.manual_seed(seed)
    common = {
        "epochs": epochs,
        "batch_size": 16,
        "random_state": seed + 1,
        "report_to": "none",
        "disable_tqdm": True,
        "logging_strategy": "no",
        "save_strategy": "no",
        "use_cpu": True,
        "dataloader_pin_memory": False,
    }
    gpt2 = {"n_layer": N_LAYER, "n_embd": N_EMBD, "n_head": N_HEAD}
    with tempfile.TemporaryDirectory(prefix="rtf-rel-") as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = Path(tmp)
        dirs = {d: str(t / d) for d in ("checkpoints_dir", "samples_save_dir", "full_save_dir")}
        parent_model = REaLTabFormer(
            model_type="tabular", tabular_config=GPT2Config(**gpt2), **dirs, **common
        )
        parent_model.fit(p_in.drop(columns=[join]), device="cpu", n_critic=0)
        # 0.2.4's save writes its attributes as JSON but leaves full_save_dir a Path
        parent_model.full_save_dir = Path(dirs["full_save_dir"]).as_posix()
        parent_model.save(t / "parent")
        parent_path = next((t / "parent").iterdir())
        rel_config = EncoderDecoderConfig.from_encoder_decoder_configs(
            GPT2Config(**gpt2), GPT2Config(**gpt2)
        )
        child_model = REaLTabFormer(
            model_type="relational",
            relational_config=rel_config,
            parent_realtabformer_path=parent_path,
            output_max_length=None,
            **dirs,
            **common,
        )
        child_model.fit(df=c_in, in_df=p_in, join_on=join, device="cpu")
        parents = parent_model.sample(n_samples=n, gen_batch=128, device="cpu")
        parents = parents.iloc[:n].reset_index(drop=True)
        parents.insert(0, join, np.arange(n))
        children = child_model.sample(
            input_unique_ids=parents[join],
            input_df=parents.drop(columns=[join]),
            gen_batch=64,
            device="cpu",
        )
    children = children.reset_index()
    if join not in children.columns:  # REaLTabFormer returns the join key as the index
        children = children.rename(columns={children.columns[0]: join})
    out.mkdir(parents=True, exist_ok=True)
    parents.rename(columns={join: pk})[p_df.columns].to_csv(out / f"{parent}.csv", index=False)
    children = children.rename(columns={join: fk})
    if child_pk:
        children[child_pk] = np.arange(len(children))
    children[[c for c in c_df.columns if c in children.columns]].to_csv(
        out / f"{child}.csv", index=False
    )


def bench(args: argparse.Namespace) -> None:
    from tests.games.person_parts import parts

    from benchmarks.provenance import Provenance

    prov = Provenance.start()
    from synthleak.games.person import PersonMembershipGame
    from synthleak.games.person_copies import play_person_copies
    from synthleak.generators.relational import make_relational_generator

    original, control, _ = parts(args.seed, n_control=args.persons // 4)
    cmd = (
        f"{sys.executable} {Path(__file__).resolve()} program {{input}} {{output}} {{n}} "
        f"{{seed}} --epochs {args.epochs}"
    )
    spec = f'command:"{cmd}",timeout={args.timeout}'
    gen = make_relational_generator(spec)
    rng = np.random.default_rng(args.seed)
    t0, c0 = time.perf_counter(), time.process_time()
    child_cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    gen.fit(original, rng=rng)
    release = gen.sample(len(original.frames["person"]), rng=rng)
    child_cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter() - t0
    cpu = (child_cpu1.ru_utime + child_cpu1.ru_stime) - (child_cpu0.ru_utime + child_cpu0.ru_stime)
    cpu += time.process_time() - c0
    copies = play_person_copies(original, release, control)
    mia = PersonMembershipGame().run(original, release, control, seed=args.seed)
    best = mia.best_attack
    out = {
        "spec": spec,
        "persons": {
            "original": len(original.frames["person"]),
            "control": len(control.frames["person"]),
        },
        "release": {t: len(f) for t, f in release.frames.items()},
        "original_rows": {t: len(f) for t, f in original.frames.items()},
        "epochs": args.epochs,
        "gpt2": {"n_layer": N_LAYER, "n_embd": N_EMBD, "n_head": N_HEAD},
        "generator_wall_s": round(wall, 1),
        "generator_cpu_s": round(cpu, 1),
        "copies": {
            "person_history": [copies.whole.value, copies.whole.ci_low, copies.whole.ci_high],
            "person_rows": [copies.share.value, copies.share.ci_low, copies.share.ci_high],
            "row_copy_rate": copies.row_copy_rate,
            "row_copy_control_rate": copies.row_copy_control_rate,
        },
        "membership_person": {
            "best": mia.best,
            "evaluation_auc": [
                best.evaluation_auc.value,
                best.evaluation_auc.ci_low,
                best.evaluation_auc.ci_high,
            ],
        },
    }
    print(json.dumps(out, indent=1))
    if args.name:
        prov.write("rtf_relational", args.name, out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("program")
    p.add_argument("input", type=Path)
    p.add_argument("output", type=Path)
    p.add_argument("n", type=int)
    p.add_argument("seed", type=int)
    p.add_argument("--epochs", type=int, default=20)
    b = sub.add_parser("bench")
    b.add_argument("--persons", type=int, default=200)
    b.add_argument("--epochs", type=int, default=20)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--timeout", type=float, default=1800)
    b.add_argument("--name", default=None, help="write results/rtf_relational/NAME.json")
    args = ap.parse_args()
    if args.what == "program":
        program(args.input, args.output, args.n, args.seed, args.epochs)
    else:
        bench(args)


if __name__ == "__main__":
    main()
