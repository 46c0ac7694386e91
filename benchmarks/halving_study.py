"""Successive halving against the default selector on ground-truth risk maps.

Reads, for one dataset and generator, the two ground-truth maps (seeds 1 and 2, 200 + 200
datasets), the 100 + 100 screen of every record (seed 3), the 50 + 50 screen (seed 4, when it
exists) and the real successive-halving run (``riskmap_truth.py --engine halving``, seed 5), and
evaluates the candidates of the protocol in ``RESULTS_selectors.md`` ("A selector without a lossy
cut"):

* ``default``: cell-rarity prefilter to 10 %, the 100 + 100 screen read at the kept records;
* ``rarity20``, ``rarity40``: the same with a wider prefilter;
* ``halving_sim10``, ``halving_sim20``: the 50 + 50 screen of every record keeps the top 10 %
  (20 %), ranked by the 100 + 100 screen (independent pools: a simulation);
* ``halving``: the real design (one pool, first stage on its first half, small attack);
* ``halving_rarity``: the real first stage rank-averaged with cell rarity keeps the top 10 %,
  ranked by the 100 + 100 screen (a simulation);
* ``halving_rarity_real``: that design run for real (``--engine halving --prior rarity``);
* ``every``: the 100 + 100 screen of every record (the costly reference);
* ``two_pool_*`` (round "A second, independent pool"): a first stage's 20 best records screened
  again on a second 100 + 100 pool (the seed-5 screen, read at those records) and ranked by the
  mean of both AUCs (``_mean``) or the second pool's alone; first stage the default
  (``two_pool_default*``), a rarity cut to 40 % with 200 queries and 20 trees
  (``two_pool_r40q200*``) or every record with 100 queries and 10 trees (``two_pool_q100``);
  ``every_two_pools``: every record on both pools (not eligible);
* the baselines ``V_5`` (cosine) and cell rarity.

For every candidate: share of the strict and lenient true top-10 mean AUC, Spearman, precision
at 10, recall of the strict true top 10 by the records screened at full size, and the paired
top-10 difference against the better of ``V_5`` and cell rarity on the map (95 % interval from
the records' measurement noise, as ``selector_study.compare``).

Usage::

    python -m benchmarks.halving_study --data adult --generator baynet [--write]
    python -m benchmarks.halving_study --maps adult,census,acs-ma,acs-tx --table
    python -m benchmarks.halving_study --pairs german/baynet,acs-tx18/baynet --table
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from benchmarks.datasets import load_table
from benchmarks.provenance import RESULTS, Provenance
from benchmarks.selector_study import (
    RiskMapFile,
    compare,
    evaluate,
    find_maps,
    rank01,
    top_idx,
)
from synthleak.vulnerability import cell_rarity_scores, vulnerability_scores

STUDY = "selectors"
#: Candidates that screen only some records at full size (kept records scored 2 + AUC)
PREFILTERED = (
    "default",
    "rarity20",
    "rarity40",
    "halving_sim10",
    "halving_sim20",
    "halving",
    "halving_rarity",
    "halving_rarity_real",
    "halving_whole",
    "halving_whole_rarity",
    "every_q200_rescreen",
    "rarity40_q200",
    "two_pool_default_mean",
    "two_pool_default",
    "two_pool_r40q200_mean",
    "two_pool_r40q200",
    "two_pool_q100",
)
#: Records a two-pool design passes on to its second pool
TWO_POOL_KEEP = 20
LABELS = ("baynet", "synthpop-predictorsonehot")
#: Candidates by name: (label, eligible under the protocol's cost bar)
CANDIDATES = {
    "default": ("default: rarity prefilter 10 %, screen 100 + 100", True),
    "rarity20": ("rarity prefilter 20 %, screen 100 + 100", True),
    "rarity40": ("rarity prefilter 40 %, screen 100 + 100", False),
    "halving_sim10": ("halving, simulated: 50 + 50 screen keeps 10 %", False),
    "halving_sim20": ("halving, simulated: 50 + 50 screen keeps 20 %", False),
    "halving": ("halving, real: small first stage keeps 10 %", True),
    "halving_rarity": ("halving first stage + rarity keep 10 % (sim.)", True),
    "halving_rarity_real": ("halving first stage + rarity keep 10 % (real)", True),
    "every": ("screen 100 + 100, every record", False),
    "every_q100": ("every record, small attack (100 queries, 10 trees), 100 + 100", True),
    "rarity40_q200": ("rarity prefilter 40 %, small attack (200 q, 20 trees)", True),
    "halving_whole": ("halving on the whole pools: 100 q x 10 trees keeps 5 %", True),
    "halving_whole_rarity": ("halving on the whole pools, + rarity, keeps 5 %", True),
    "every_q200": ("every record, 200 queries, 20 trees (not eligible: 2.2x)", False),
    "every_q200_rescreen": ("every record 200 q, top 10 % re-screened full (3.2x)", False),
    "two_pool_default_mean": ("T1: default, its 20 best on a 2nd pool, mean AUC", True),
    "two_pool_default": ("T1b: default, its 20 best on a 2nd pool, 2nd AUC", True),
    "two_pool_r40q200_mean": ("T2: rarity 40 % small attack, 20 best on a 2nd pool, mean", True),
    "two_pool_r40q200": ("T2b: rarity 40 % small attack, 20 best on a 2nd pool, 2nd", True),
    "two_pool_q100": ("T4: every record 100 q x 10 trees, 20 best on a 2nd pool", True),
    "every_two_pools": ("every record on both pools, mean AUC (20x attacks)", False),
    "vk_cos_k5": ("`V_5` (cosine)", False),
    "rarity": ("cell rarity (pairs, 5 bins)", False),
}


def _stage(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """rows, final AUC, stage and stage-1 AUC of a halving run."""
    doc = json.loads(path.read_text())
    recs = doc["records"]

    def col(k: str) -> np.ndarray:
        return np.array([np.nan if r.get(k) is None else r[k] for r in recs], dtype=np.float64)

    rows = np.array([r["row"] for r in recs], dtype=np.int64)
    return (
        rows,
        col("auc"),
        col("stage").astype(np.int64),
        {"doc": doc, "stage1": col("stage1_auc")},
    )


def _kept_then(keep: np.ndarray, inner: np.ndarray, outer: np.ndarray) -> np.ndarray:
    """A prefiltered ranking: the kept records by ``inner`` above the others by ``outer``."""
    inner = np.where(np.isnan(inner), 0.5, inner)
    outer = np.where(np.isnan(outer), -np.inf, outer)
    return np.where(keep, 2.0 + inner, rank01(np.where(np.isinf(outer), -1e9, outer)))


def _top_mask(score: np.ndarray, k: int) -> np.ndarray:
    """A mask of the ``k`` records ``score`` ranks first."""
    keep = np.zeros(score.size, dtype=bool)
    keep[top_idx(score, k)] = True
    return keep


def _keep_top(score: np.ndarray, frac: float) -> np.ndarray:
    """The top share ``frac`` of the records (at least 10)."""
    return _top_mask(score, max(10, round(frac * score.size)))


def study(data: str, label: str, root: Path) -> dict | None:
    maps = find_maps(root, data, label)
    truth = maps.get(("riskmap", 200, 200), [])
    screen = maps.get(("screening", 100, 100), [])
    if len(truth) < 2 or not screen:
        print(f"[{data} {label}] truth maps or the 100 + 100 screen missing: skipped")
        return None
    a, b = truth[:2]
    rows = a.rows
    full = load_table(data)
    table = full.take(rows)
    rarity = cell_rarity_scores(table)
    vk = vulnerability_scores(table)
    s100 = screen[0].auc
    scores: dict[str, np.ndarray] = {
        "vk_cos_k5": vk,
        "rarity": rarity,
        "every": np.where(np.isnan(s100), 0.5, s100),
    }
    for frac, name in ((0.1, "default"), (0.2, "rarity20"), (0.4, "rarity40")):
        scores[name] = _kept_then(_keep_top(rarity, frac), s100, rarity)
    s50 = maps.get(("screening", 50, 50), [])
    if s50:
        for frac, name in ((0.1, "halving_sim10"), (0.2, "halving_sim20")):
            scores[name] = _kept_then(
                _keep_top(np.nan_to_num(s50[0].auc, nan=0.5), frac), s100, s50[0].auc
            )
    cost: dict = {}
    hpath = sorted((root / "riskmap").glob(f"{data}_{label}_S100_T100_Q1000_seed5_halving.json"))
    if hpath:
        hrows, hauc, hstage, extra = _stage(hpath[0])
        if not np.array_equal(hrows, rows):
            raise SystemExit(f"{hpath[0].name} audits other records than the truth maps")
        s1 = extra["stage1"]
        scores["halving"] = _kept_then(hstage == 2, hauc, s1)
        combo = rank01(np.nan_to_num(s1, nan=0.5)) + rank01(rarity)
        scores["halving_rarity"] = _kept_then(_keep_top(combo, 0.1), s100, combo)
        scores["halving_stage1_only"] = np.nan_to_num(s1, nan=0.5)
        doc = extra["doc"]
        cost["halving_wall_seconds"] = doc.get("wall_seconds")
        cost["halving_cpu_seconds"] = doc.get("cpu_seconds")
        cost["halving_config"] = doc["config"]
    rpath = root / "riskmap" / f"{data}_{label}_S100_T100_Q1000_seed5_halving-rarity.json"
    if rpath.is_file():
        hrows, hauc, hstage, extra = _stage(rpath)
        if not np.array_equal(hrows, rows):
            raise SystemExit(f"{rpath.name} audits other records than the truth maps")
        scores["halving_rarity_real"] = _kept_then(hstage == 2, hauc, extra["stage1"])
        cost["halving_rarity_wall_seconds"] = extra["doc"].get("wall_seconds")
    for (q, e), name in (((200, 20), "q200"), ((100, 10), "q100")):
        cheap = find_maps(root, data, label, queries=q, estimators=e).get(("screening", 100, 100))
        if not cheap:
            continue
        c = cheap[0]
        if not np.array_equal(c.rows, rows):
            raise SystemExit(f"{c.name} audits other records than the truth maps")
        cost[f"screen_{name}_wall_seconds"] = c.wall_seconds
        if name == "q200":
            scores["every_q200"] = np.where(np.isnan(c.auc), 0.5, c.auc)
            scores["every_q200_rescreen"] = _kept_then(
                _keep_top(scores["every_q200"], 0.1), s100, c.auc
            )
            scores["rarity40_q200"] = _kept_then(_keep_top(rarity, 0.4), c.auc, rarity)
        else:
            s1 = np.nan_to_num(c.auc, nan=0.5)
            scores["every_q100"] = s1
            scores["halving_whole"] = _kept_then(_keep_top(s1, 0.05), s100, c.auc)
            combo = rank01(s1) + rank01(rarity)
            scores["halving_whole_rarity"] = _kept_then(_keep_top(combo, 0.05), s100, combo)
    second = [m for m in screen if m.seed == 5]
    if second:
        _two_pools(scores, second[0], s100, rows)
    cost["screen100_wall_seconds"] = screen[0].wall_seconds
    cost["screen100_cpu_seconds"] = screen[0].cpu_seconds
    res = evaluate(scores, a.auc, b.auc)
    ok = ~(np.isnan(a.auc) | np.isnan(b.auc))
    # recall of the strict true top 10 by the records each design screens at full size
    t = ((a.auc + b.auc) / 2)[ok]
    true10 = top_idx(t, 10)
    for name, sc in scores.items():
        full_size = np.flatnonzero(sc[ok] >= 2.0)  # the kept records of a prefiltered ranking
        res[name]["recall_true_top10_screened"] = (
            float(np.isin(true10, full_size).mean()) if name in PREFILTERED else None
        )
    ref = (
        "vk_cos_k5"
        if res["vk_cos_k5"]["share_in_sample_top10"] >= res["rarity"]["share_in_sample_top10"]
        else "rarity"
    )
    a_hw, b_hw = (a.ci_high - a.ci_low) / 2, (b.ci_high - b.ci_low) / 2
    paired = {}
    for name in scores:
        if name in ("vk_cos_k5", "rarity"):
            continue
        paired[name] = compare(
            scores, a.auc, b.auc, a_hw, b_hw, chosen=name, ranked_by=name, against=(ref,)
        )[ref]
    res["_paired_vs_best_baseline"] = {"baseline": ref, **paired}
    res["_reference"]["truth_maps"] = [a.name, b.name]
    res["_reference"]["cost"] = cost
    return res


def _passed_on(first: np.ndarray) -> np.ndarray:
    """The records a first stage passes on to the second pool: its :data:`TWO_POOL_KEEP` best."""
    return _top_mask(first, TWO_POOL_KEEP)


def _two_pools(
    scores: dict[str, np.ndarray],
    second: RiskMapFile,
    s100: np.ndarray,
    rows: np.ndarray,
) -> None:
    """The two-pool candidates, from the first stages in ``scores`` and the seed-5 screen."""
    if not np.array_equal(second.rows, rows):
        raise SystemExit(f"{second.name} audits other records than the truth maps")
    s2 = np.nan_to_num(second.auc, nan=0.5)
    s1 = np.nan_to_num(s100, nan=0.5)
    first = scores["default"]
    keep = _passed_on(first)
    scores["two_pool_default_mean"] = _kept_then(keep, (s1 + s2) / 2, first)
    scores["two_pool_default"] = _kept_then(keep, s2, first)
    if "rarity40_q200" in scores:
        first = scores["rarity40_q200"]
        small = scores["every_q200"]  # the small attack's AUC of every record (nan as 0.5)
        keep = _passed_on(first)
        scores["two_pool_r40q200_mean"] = _kept_then(keep, (small + s2) / 2, first)
        scores["two_pool_r40q200"] = _kept_then(keep, s2, first)
    if "every_q100" in scores:
        first = scores["every_q100"]
        scores["two_pool_q100"] = _kept_then(_passed_on(first), s2, first)
    scores["every_two_pools"] = (s1 + s2) / 2


def variants(pairs: list[tuple[str, str]], root: Path) -> str:
    """Post-hoc: every combination of a rarity cut (10, 20, 40, 100 %) and a final ranking of
    the kept records (the 100 + 100 screen's AUC, its rank averaged with cell rarity's at weight
    0.25 or 0.5, or its 95 % lower bound), read from the maps' 100 + 100 screens; the share of
    the strict true top 10 on each map and the mean."""
    shares: dict[str, list[float]] = {}
    for data, label in pairs:
        maps = find_maps(root, data, label)
        a, b = maps[("riskmap", 200, 200)][:2]
        screen = maps[("screening", 100, 100)][0]
        rarity = cell_rarity_scores(load_table(data).take(a.rows))
        auc = np.nan_to_num(screen.auc, nan=0.5)
        low = np.nan_to_num(screen.ci_low, nan=0.0)
        scores: dict[str, np.ndarray] = {}
        for frac in (0.1, 0.2, 0.4, 1.0):
            keep = _keep_top(rarity, frac)
            for w in (0.0, 0.25, 0.5):
                inner = (1 - w) * rank01(auc) + w * rank01(rarity)
                scores[f"rarity {round(100 * frac)} %, AUC + {w} rarity"] = _kept_then(
                    keep, inner, rarity
                )
            scores[f"rarity {round(100 * frac)} %, lower bound"] = _kept_then(keep, low, rarity)
        for name, r in evaluate(scores, a.auc, b.auc).items():
            if not name.startswith("_"):
                shares.setdefault(name, []).append(r["share_in_sample_top10"])
    head = "| variant | " + " | ".join(f"{d} / {g}" for d, g in pairs) + " | mean |"
    lines = [head, "|---" * (len(pairs) + 2) + "|"]
    for name, v in shares.items():
        cells = " | ".join(f"{x:.3f}" for x in v)
        lines.append(f"| {name} | {cells} | {np.mean(v):.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=None)
    ap.add_argument("--generator", default="baynet", help="generator label as in the file names")
    ap.add_argument("--maps", default=None, help="comma-separated datasets, every generator label")
    ap.add_argument(
        "--pairs", default=None, help="comma-separated data/label pairs (e.g. german/baynet)"
    )
    ap.add_argument("--results-root", type=Path, default=RESULTS)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--table", action="store_true")
    ap.add_argument(
        "--variants", action="store_true", help="post-hoc cut and ranking variants (a table)"
    )
    args = ap.parse_args(argv)
    prov = Provenance.start(None if argv is None else ["halving_study.py", *argv])
    if args.pairs:
        pairs = [tuple(p.split("/", 1)) for p in args.pairs.split(",")]
    elif args.maps:
        pairs = [(d, g) for d in args.maps.split(",") for g in LABELS]
    elif args.data:
        pairs = [(args.data, args.generator)]
    else:
        ap.error("give --data (and --generator) or --maps")
    if args.variants:
        print(variants(pairs, args.results_root))
        return 0
    done = {}
    for data, label in pairs:
        res = study(data, label, args.results_root)
        if res is None:
            continue
        done[f"{data} / {label}"] = res
        if args.write:
            path = prov.write(STUDY, f"halving_{data}_{label}", res, root=args.results_root)
            print(f"wrote {path}")
    if args.table:
        print(table(done))
    return 0


def table(done: dict[str, dict]) -> str:
    """Share of the strict true top 10 (recall of the true top 10 at full size), one column per
    map, then the mean; and the paired differences against the better baseline."""
    maps = list(done)
    lines = ["| candidate | " + " | ".join(maps) + " | mean |", "|---" * (len(maps) + 2) + "|"]
    for name, (label, _) in CANDIDATES.items():
        cells, shares = [], []
        for m in maps:
            r = done[m].get(name)
            if r is None:
                cells.append("not run")
                continue
            shares.append(r["share_in_sample_top10"])
            rec = r.get("recall_true_top10_screened")
            cells.append(
                f"{r['share_in_sample_top10']:.3f}"
                + ("" if rec is None else f" ({round(10 * rec)})")
            )
        mean = f"{np.mean(shares):.3f}" if len(shares) == len(maps) else "-"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {mean} |")
    lines.append("")
    lines.append("| candidate | " + " | ".join(maps) + " |")
    lines.append("|---" * (len(maps) + 1) + "|")
    lines.append(
        "| better baseline | "
        + " | ".join(done[m]["_paired_vs_best_baseline"]["baseline"] for m in maps)
        + " |"
    )
    for name, (label, _) in CANDIDATES.items():
        cells = []
        for m in maps:
            c = done[m]["_paired_vs_best_baseline"].get(name)
            cells.append(
                "-"
                if c is None
                else f"{c['top10_diff']:+.3f} "
                f"[{c['top10_diff_ci'][0]:+.3f}, {c['top10_diff_ci'][1]:+.3f}]"
            )
        if any(c != "-" for c in cells):
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
