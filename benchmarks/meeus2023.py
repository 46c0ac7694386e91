"""Shared set-up of the reproductions of Meeus et al. (2023): Table 2, Table 3, Fig. 3a/4.

One place for the dataset Omega, its |D_aux| and |D_test|, the paper's published figures, the
default generator specs and the names of result files and run directories, so
``python -m benchmarks.reproduce_attention --run-dir DIR`` finds the shadow datasets that
``python -m benchmarks.reproduce_table2 --run-dir DIR`` stored.

Data options (``--data``)
-------------------------
``complete``
    Adult without missing values (45,222 rows), the paper's Adult: its code loads these rows and
    its 10 published distance targets are our V_5 top 10 there. |D_aux| = 10,000,
    |D_test| = 5,000 as Table 1.
``full``
    All 48,842 Adult rows, missing values as categories (the runs of the first two sessions).
``census``
    The 50,000-record subset of the UK 2011 Census Microdata Teaching File that reprosyn and TAPAS
    ship (``uk_census2011_teaching_50k.csv`` in the shared datasets; 6 of the 10 regions,
    household residents only), the 17 variables as categorical columns (``Person ID`` dropped),
    as the paper's "17 categorical columns".

    The paper's census Omega is the full file (569,741 records), with |D_aux| = 50,000 and
    |D_test| = 25,000 (Table 1). Our Omega has 50,000 records, so both sizes are Table 1's scaled
    by 2/3: |D_aux| = 33,300 and |D_test| = 16,650 (49,950 of the 49,960 or so non-target
    records). This keeps what the game depends on: D_aux and D_test disjoint, in the paper's 2:1
    ratio, and large against |D| = 1,000 (33x and 17x; the paper 50x and 25x), so that two
    shadow datasets share about 3 % of their records (the paper 2 %, its Adult 10 %). Keeping
    the paper's *proportions* of Omega instead (8.8 % and 4.4 %) would give 4,388 and 2,194
    records: shadow datasets sharing 23 % of their records, a game much further from the
    paper's. Targets are selected on our 50,000 records, not on 569,741: the V_k of a record is
    its distance to its 5 nearest neighbours among 50,000, so our census targets are the most
    isolated records of the subset.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import synthleak as sl
from benchmarks.datasets import load_table
from synthleak.games.targets import Targets

#: The paper's generators: synthpop as the Python port reprosyn runs (one-hot predictors), baynet.
GENERATORS = "synthpop:predictors=onehot,baynet"
SELECTORS = ("random", "rare", "loglik", "distance")


@dataclass(frozen=True)
class Omega:
    """One ``--data`` option: which dataset, how it is labelled, and its Table 1 sizes."""

    name: str
    family: str  # "adult" or "census": which columns of the paper's tables apply
    aux_size: int
    test_size: int
    label_suffix: str  # appended to result-file and run-directory labels
    help: str


DATA: dict[str, Omega] = {
    "complete": Omega(
        "complete",
        "adult",
        10_000,
        5_000,
        "",
        "the 45,222 Adult rows without a missing value, the paper's Adult (its code loads them, "
        "and its 10 distance targets are our V_5 top 10 there)",
    ),
    "full": Omega(
        "full",
        "adult",
        10_000,
        5_000,
        "_fulldata",
        "all 48,842 Adult rows, missing values as categories (the first sessions' runs)",
    ),
    "census": Omega(
        "census",
        "census",
        33_300,
        16_650,
        "",
        "the 50,000-record UK Census 2011 teaching-file subset of reprosyn/TAPAS, 17 categorical "
        "columns; |D_aux| = 33,300 and |D_test| = 16,650 "
        "(Table 1's 50,000 and 25,000 scaled by 2/3)",
    ),
}

#: Table 2 (query-based attack) and Table 3 (target attention) of the paper: mean, s.d. of AUC.
PAPER: dict[str, dict[str, dict[str, dict[str, tuple[float, float]]]]] = {
    "query": {
        "adult": {
            "synthpop": {
                "random": (0.613, 0.084),
                "rare": (0.699, 0.113),
                "loglik": (0.742, 0.033),
                "distance": (0.804, 0.072),
            },
            "baynet": {
                "random": (0.618, 0.120),
                "rare": (0.704, 0.140),
                "loglik": (0.787, 0.057),
                "distance": (0.810, 0.110),
            },
        },
        "census": {
            "synthpop": {
                "random": (0.732, 0.046),
                "rare": (0.802, 0.044),
                "loglik": (0.790, 0.041),
                "distance": (0.879, 0.021),
            },
            "baynet": {
                "random": (0.535, 0.055),
                "rare": (0.644, 0.086),
                "loglik": (0.731, 0.090),
                "distance": (0.858, 0.040),
            },
        },
    },
    "attention": {
        "adult": {
            "synthpop": {
                "random": (0.609, 0.112),
                "rare": (0.691, 0.103),
                "loglik": (0.765, 0.027),
                "distance": (0.797, 0.038),
            },
            "baynet": {
                "random": (0.594, 0.083),
                "rare": (0.638, 0.104),
                "loglik": (0.745, 0.068),
                "distance": (0.763, 0.103),
            },
        },
        "census": {
            "synthpop": {
                "random": (0.727, 0.038),
                "rare": (0.783, 0.030),
                "loglik": (0.770, 0.046),
                "distance": (0.838, 0.041),
            },
            "baynet": {
                "random": (0.535, 0.035),
                "rare": (0.587, 0.079),
                "loglik": (0.674, 0.085),
                "distance": (0.737, 0.118),
            },
        },
    },
}


def paper_value(
    attack: str, data: str, generator: str, selector: str
) -> tuple[float, float] | None:
    """The paper's (mean, s.d.) for one cell, or None (``generator`` may carry parameters)."""
    gen = generator.split(":")[0].split()[0]
    return PAPER.get(attack, {}).get(DATA[data].family, {}).get(gen, {}).get(selector)


def add_data_argument(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--data",
        choices=tuple(DATA),
        default="complete",
        help="; ".join(f"{k}: {v.help}" for k, v in DATA.items()),
    )


def load_omega(data: str) -> sl.Table:
    """Omega, the dataset targets are selected on and D_aux / D_test are drawn from."""
    if DATA[data].family == "census":
        return load_table("census")
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
    appended for the full Adult, ``census_`` prepended for the census)."""
    name, _, params = spec.partition(":")
    label = "-".join([name] + [p.replace("=", "") for p in params.split(",") if p])
    prefix = "census_" if DATA[data].family == "census" else ""
    return prefix + label + DATA[data].label_suffix


def run_dir_name(spec: str, data: str, shadows: int, pool: str) -> str:
    """The run directory of one generator's pool under ``--run-dir``."""
    return f"{spec_label(spec, data)}-{shadows}-{pool}"


def selector_targets(selectors: list[str] | tuple[str, ...], per_selector: int) -> Targets:
    """``per_selector`` targets of each selector (``random``, ``rare``, ``loglik``,
    ``distance``), V_k with k = 5 as the paper; the game selects them on Omega with its seed."""
    out = Targets.top(per_selector, selectors[0], k=5)
    for sel in selectors[1:]:
        out = out + Targets.top(per_selector, sel, k=5)
    return out
