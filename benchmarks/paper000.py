"""Shared set-up of the reproductions of Meeus et al. (2023) (Table 2, Table 3, Fig. 3a/4).

One place for the dataset Omega, the default generator specs and the names of result files and
run directories, so ``reproduce_attention.py --run-dir DIR`` finds the shadow datasets that
``reproduce_table2.py --run-dir DIR`` stored.
"""

from __future__ import annotations

import argparse

import synthleak as sl

#: The paper's generators: synthpop as the Python port reprosyn runs (one-hot predictors), baynet.
GENERATORS = "synthpop:predictors=onehot,baynet"


def add_data_argument(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--data",
        choices=("complete", "full"),
        default="complete",
        help="complete: the 45,222 Adult rows without a missing value, the paper's Adult (its code "
        "loads them, and its 10 distance targets are our V_5 top 10 there); full: all 48,842 rows, "
        "missing values as categories (the runs before 2026-11-22, third session)",
    )


def load_omega(data: str) -> sl.Table:
    """Omega, the dataset targets are selected on and D_aux / D_test are drawn from."""
    df = sl.datasets.load_adult(complete_cases=data == "complete")
    return sl.Table.from_frame(df, sl.infer_schema(df))


def split_generators(text: str) -> list[str]:
    """``"synthpop,baynet:k=1,bins=10"`` -> ``["synthpop", "baynet:k=1,bins=10"]``.

    A comma-separated token with ``=`` but no ``:`` continues the parameters of the spec before it.
    """
    specs: list[str] = []
    for tok in (t.strip() for t in text.split(",")):
        if not tok:
            continue
        if specs and "=" in tok and ":" not in tok:
            specs[-1] += "," + tok
        else:
            specs.append(tok)
    return specs


def spec_label(spec: str, data: str = "complete") -> str:
    """A file-name-safe label: ``baynet:k=1,bins=10`` -> ``baynet-k1-bins10`` (``_fulldata``
    appended for the full Adult)."""
    name, _, params = spec.partition(":")
    label = "-".join([name] + [p.replace("=", "") for p in params.split(",") if p])
    return label + ("" if data == "complete" else "_fulldata")


def run_dir_name(spec: str, data: str, shadows: int, pool: str) -> str:
    """The run directory of one generator's pool under ``--run-dir``."""
    return f"{spec_label(spec, data)}-{shadows}-{pool}"
