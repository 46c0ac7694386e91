"""Which records are really most at risk? Selector scores against ground-truth risk maps.

Reads the risk maps written by ``benchmarks/riskmap_truth.py`` for one dataset and generator:

* two replicate ground-truth maps A and B of the same 1,000 records (seeds 1 and 2, independent
  fillers, shadow and test pools, forests);
* cheap stage-1 maps of the same records (seeds 3 and 4, fewer datasets) for the two-stage audit.

Truth is the per-record query-attack AUC averaged over A and B. For every selector score
(computed on the 1,000 audited records ``D``, as a data owner would) it reports the Spearman
correlation with the truth (bootstrap CI over records), the precision of its top 10 and top 50
against the true top 10 and top 50, and the mean true AUC of its top 10. The "true top 10" is
itself estimated from noisy maps, so two references are given:

* in-sample: the 10 records with the highest averaged AUC, measured on the same average (biased
  upwards by selection, the winner's curse: a conservative reference);
* cross-fit: the top 10 of map A measured on map B and vice versa, averaged (unbiased for the
  records it picks, but picking on a noisy map misses some true top records: a lenient one).

A selector's records are measured on the averaged truth; its ratio to each reference is the
"share of the true top-10 risk" it reaches.

Usage::

    python -m benchmarks.selector_study --data adult --generator baynet
    python -m benchmarks.selector_study --all          # every map found, one JSON per pair
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.datasets import load_table
from benchmarks.provenance import RESULTS, Provenance
from synthleak.data.encoding import Discretiser
from synthleak.data.table import Table
from synthleak.metrics.ranking import spearman_ci
from synthleak.runtime import stream_rng
from synthleak.vulnerability import (
    log_likelihood_scores,
    rare_value_scores,
    vulnerability_scores,
)

STUDY = "selectors"
TOP = (10, 50)
PREFILTER = (0.1, 0.2, 0.4)  # fractions of the records screened after a score's prefilter


@dataclass
class RiskMapFile:
    """One risk map: audited rows and the per-record query AUC with its 95 % CI."""

    name: str
    rows: np.ndarray
    auc: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    shadows: int
    tests: int
    seed: int
    cpu_seconds: float
    wall_seconds: float
    engine: str
    queries: int = 1000
    estimators: int = 100

    @classmethod
    def read(cls, path: Path) -> RiskMapFile:
        doc = json.loads(path.read_text())
        recs = doc["records"]
        key = "auc_query" if "auc_query" in recs[0] else "auc"

        def col(k: str) -> np.ndarray:
            return np.array([np.nan if r[k] is None else r[k] for r in recs], dtype=np.float64)

        return cls(
            path.stem,
            np.array([r["row"] for r in recs], dtype=np.int64),
            col(key),
            col(f"{key}_ci_low"),
            col(f"{key}_ci_high"),
            int(doc["config"]["n_shadow"]),
            int(doc["config"]["n_test"]),
            int(doc["config"]["seed"]),
            float(doc.get("cpu_seconds", np.nan)),
            float(doc.get("wall_seconds", np.nan)),
            str(doc["config"].get("engine", "riskmap")),
            int(doc["config"].get("n_queries", 1000)),
            int(doc["config"].get("n_estimators") or 100),
        )


def find_maps(
    root: Path, data: str, label: str, *, queries: int = 1000, estimators: int = 100
) -> dict[tuple[str, int, int], list[RiskMapFile]]:
    """(engine, shadows, tests) -> maps of one dataset and generator label, by seed: those of
    the attack with ``queries`` queries and ``estimators`` trees (default: the full attack)."""
    out: dict[tuple[str, int, int], list[RiskMapFile]] = {}
    for p in sorted((root / "riskmap").glob(f"{data}_{label}_S*_T*_Q*_seed*.json")):
        m = RiskMapFile.read(p)
        if (m.queries, m.estimators) != (queries, estimators):
            continue
        out.setdefault((m.engine, m.shadows, m.tests), []).append(m)
    for v in out.values():
        v.sort(key=lambda m: m.seed)
    return out


# --- candidate scores (prototypes; the chosen one lives in synthleak.vulnerability) -------------


def _binned_codes(table: Table, n_bins: int) -> np.ndarray:
    disc = Discretiser(table.schema, n_bins=n_bins, strategy="quantile", data=table)
    return disc.transform(table).astype(np.int64)


def cell_counts(codes: np.ndarray, order: int) -> np.ndarray:
    """``(n, S)``: for every subset of ``order`` columns, how many records share the record's
    cell."""
    n, f = codes.shape
    subsets = list(itertools.combinations(range(f), order))
    out = np.empty((n, len(subsets)), dtype=np.float64)
    for j, sub in enumerate(subsets):
        cols = codes[:, list(sub)]
        _, inv, cnt = np.unique(cols, axis=0, return_inverse=True, return_counts=True)
        out[:, j] = cnt[inv.ravel()]
    return out


def rarity_scores(table: Table, *, order: int, n_bins: int, agg: str) -> np.ndarray:
    """Cell rarity over all column subsets of size ``<= order`` (continuous columns binned)."""
    codes = _binned_codes(table, n_bins)
    counts = np.concatenate([cell_counts(codes, o) for o in range(1, order + 1)], axis=1)
    n = codes.shape[0]
    if agg == "inv":  # expected influence on counting queries: sum of 1 / count
        return (1.0 / counts).sum(axis=1)
    if agg == "nll":  # pseudo-log-likelihood of the cells
        return -np.log(counts / n).mean(axis=1)
    if agg == "uniq":  # number of subsets on which the record is unique (SUDA-like)
        return (counts == 1).sum(axis=1) + 1e-3 * (1.0 / counts).sum(axis=1)
    raise ValueError(agg)


def rank01(x: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return (rankdata(x) - 1) / max(x.size - 1, 1)


def binned_table(table: Table, n_bins: int = 10) -> Table:
    """Every column categorical: continuous columns cut at their quantiles (``n_bins`` bins)."""
    import pandas as pd

    from synthleak.data.profile import infer_schema

    codes = _binned_codes(table, n_bins)
    df = pd.DataFrame({f"c{j}": codes[:, j].astype(str) for j in range(codes.shape[1])})
    return Table.from_frame(df, infer_schema(df, categorical=list(df.columns)))


def candidate_scores(
    table: Table, population: Table | None = None, rows: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Every selector score studied, on the audited records ``table``.

    With ``population`` (the whole dataset) and ``rows`` (the audited rows in it), the three
    published scores are also computed on the population and read at ``rows`` (``*_pop``).
    """
    s: dict[str, np.ndarray] = {}
    for k in (1, 2, 5, 10, 20, 50):
        s[f"vk_cos_k{k}"] = vulnerability_scores(table, k=k)
    for p in (1, 2):
        s[f"vk_mink_p{p}_k5"] = vulnerability_scores(table, k=5, metric="minkowski", p=p)
    s["rare"] = rare_value_scores(table)
    s["loglik"] = log_likelihood_scores(table)
    s["loglik_b10"] = log_likelihood_scores(table, n_bins=10)
    for order, bins, agg in itertools.product((2, 3), (5, 10), ("inv", "nll", "uniq")):
        s[f"rarity_o{order}_b{bins}_{agg}"] = rarity_scores(
            table, order=order, n_bins=bins, agg=agg
        )
    if table.schema.continuous:
        s["vk_binned10_k5"] = vulnerability_scores(binned_table(table, 10), k=5)
    if population is not None and rows is not None:
        s["vk_cos_k5_pop"] = vulnerability_scores(population, k=5)[rows]
        s["rare_pop"] = rare_value_scores(population)[rows]
        s["loglik_pop"] = log_likelihood_scores(population)[rows]
    s["rankavg_vk_loglik"] = rank01(s["vk_cos_k5"]) + rank01(s["loglik"])
    s["rankavg_vk_loglik_rare"] = s["rankavg_vk_loglik"] + rank01(s["rare"])
    return s


# --- evaluation -----------------------------------------------------------------------------------


def top_idx(score: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores (ties by index); nan scores last."""
    s = np.where(np.isnan(score), -np.inf, score)
    return np.argsort(-s, kind="stable")[:k]


def precision(score: np.ndarray, truth: np.ndarray, k: int) -> float:
    return float(np.isin(top_idx(score, k), top_idx(truth, k)).mean())


def evaluate(
    scores: dict[str, np.ndarray], a: np.ndarray, b: np.ndarray, *, seed: int = 0
) -> dict[str, dict]:
    """Every score against the truth ``(a + b) / 2`` (records with an undefined AUC dropped)."""
    ok = ~(np.isnan(a) | np.isnan(b))
    truth = (a + b) / 2
    t = truth[ok]
    ref_in = {k: float(t[top_idx(t, k)].mean()) for k in TOP}
    ref_cross = {
        k: float((b[ok][top_idx(a[ok], k)].mean() + a[ok][top_idx(b[ok], k)].mean()) / 2)
        for k in TOP
    }
    out: dict[str, dict] = {
        "_reference": {
            "n_records": int(ok.sum()),
            "top_in_sample": ref_in,
            "top_cross_fit": ref_cross,
            "mean_auc": float(t.mean()),
            "reliability_spearman": spearman_ci(
                a[ok], b[ok], rng=stream_rng(seed, "reliability"), n_boot=500
            ),
        }
    }
    for name, s in scores.items():
        sc = s[ok]
        rho, lo, hi = spearman_ci(sc, t, rng=stream_rng(seed, "spearman", len(out)), n_boot=500)
        row: dict = {"spearman": rho, "spearman_ci": [lo, hi]}
        for k in TOP:
            sel = top_idx(sc, k)
            row[f"precision_at_{k}"] = precision(sc, t, k)
            row[f"mean_auc_top{k}"] = float(t[sel].mean())
            row[f"share_in_sample_top{k}"] = float(t[sel].mean() / ref_in[k])
            row[f"share_cross_fit_top{k}"] = float(t[sel].mean() / ref_cross[k])
        for frac in PREFILTER:
            m = max(10, round(frac * t.size))
            row[f"recall_top10_in_top{round(100 * frac)}%"] = float(
                np.isin(top_idx(t, 10), top_idx(sc, m)).mean()
            )
        out[name] = row
    return out


#: The selector chosen on the design maps (RESULTS_selectors.md) and the scores it is compared with.
CHOSEN = "stage1_S100_T100|top10%_rarity_o2_b5_inv"
BASELINES = ("vk_cos_k5", "rare", "loglik", "rarity_o2_b5_inv")


def compare(
    scores: dict[str, np.ndarray],
    a: np.ndarray,
    b: np.ndarray,
    a_hw: np.ndarray,
    b_hw: np.ndarray,
    *,
    chosen: str = CHOSEN,
    ranked_by: str = "stage1_S100_T100",
    against: tuple[str, ...] = BASELINES,
    seed: int = 0,
) -> dict[str, dict]:
    """The chosen selector against each baseline on one map.

    * top-10 mean true AUC difference, with a 95 % interval from the measurement noise of the
      records in one set but not the other (per-record s.e. from the two maps' CIs);
    * Spearman difference with a paired bootstrap interval over records, for the screen of every
      record (``ranked_by``): the prefilter leaves the other records unranked.
    """
    from synthleak.metrics.ranking import spearman

    ok = ~(np.isnan(a) | np.isnan(b))
    t = ((a + b) / 2)[ok]
    var = (((a_hw / 1.96) ** 2 + (b_hw / 1.96) ** 2) / 4)[ok]
    out: dict[str, dict] = {}
    if chosen not in scores:
        return out
    c = scores[chosen][ok]
    sel_c = set(top_idx(c, 10).tolist())
    r = scores.get(ranked_by, scores[chosen])[ok]
    rng = stream_rng(seed, "compare")
    idx = rng.integers(0, t.size, (500, t.size))
    for name in against:
        if name not in scores:
            continue
        o = scores[name][ok]
        sel_o = set(top_idx(o, 10).tolist())
        only_c, only_o = sorted(sel_c - sel_o), sorted(sel_o - sel_c)
        diff = (t[only_c].sum() - t[only_o].sum()) / 10
        se = np.sqrt(var[only_c].sum() + var[only_o].sum()) / 10
        boots = np.array([spearman(r[i], t[i]) - spearman(o[i], t[i]) for i in idx])
        out[name] = {
            "top10_diff": float(diff),
            "top10_diff_ci": [float(diff - 1.96 * se), float(diff + 1.96 * se)],
            "spearman_diff": float(spearman(r, t) - spearman(o, t)),
            "spearman_diff_ci": [
                float(np.quantile(boots, 0.025)),
                float(np.quantile(boots, 0.975)),
            ],
        }
    return out


def stage1_scores(
    stage1: RiskMapFile, base: dict[str, np.ndarray], rows: np.ndarray
) -> dict[str, np.ndarray]:
    """Two-stage selectors: a cheap map's AUC alone and combined with a score (rank average)."""
    if not np.array_equal(stage1.rows, rows):
        raise SystemExit(f"{stage1.name} audits other records than the ground-truth maps")
    auc = np.where(np.isnan(stage1.auc), 0.5, stage1.auc)
    tag = f"stage1_S{stage1.shadows}_T{stage1.tests}" + (
        "" if stage1.engine == "screening" else f"_{stage1.engine}"
    )
    out = {tag: auc}
    for name in ("vk_cos_k5", "loglik", "rarity_o2_b5_inv", "rarity_o2_b10_inv"):
        if name in base:
            out[f"{tag}+{name}"] = rank01(auc) + rank01(base[name])
    # prefilter: screen only the score's top fraction; the others rank below every screened one,
    # in the order of the prefilter score (their screened AUC is not known to such an audit)
    for name in ("vk_cos_k5", "rarity_o2_b5_inv"):
        for frac in PREFILTER:
            if name in base:
                keep = np.zeros(auc.size, dtype=bool)
                keep[top_idx(base[name], max(10, round(frac * auc.size)))] = True
                out[f"{tag}|top{round(100 * frac)}%_{name}"] = np.where(
                    keep, 2.0 + auc, rank01(base[name])
                )
    return out


def study(data: str, label: str, root: Path) -> dict | None:
    maps = find_maps(root, data, label)
    truth_cfg = max(
        (c for c in maps if c[0] == "riskmap"),
        key=lambda c: (len(maps[c]) >= 2, c[1] + c[2]),
        default=None,
    )
    if truth_cfg is None or len(maps[truth_cfg]) < 2:
        print(f"[{data} {label}] fewer than two replicate ground-truth maps: skipped")
        return None
    a, b = maps[truth_cfg][:2]
    if not np.array_equal(a.rows, b.rows):
        raise SystemExit(f"{a.name} and {b.name} audit different records")
    full = load_table(data)
    scores = candidate_scores(full.take(a.rows), full, a.rows)
    for cfg, ms in maps.items():
        if cfg == truth_cfg:
            continue
        for m in ms[:1]:  # the lowest seed (later seeds are other rounds' second pools)
            scores.update(stage1_scores(m, scores, a.rows))
    res = evaluate(scores, a.auc, b.auc)
    res["_compare"] = compare(
        scores, a.auc, b.auc, (a.ci_high - a.ci_low) / 2, (b.ci_high - b.ci_low) / 2
    )
    res["_reference"]["truth_maps"] = [a.name, b.name]
    res["_reference"]["truth_ci_halfwidth_median"] = float(
        np.nanmedian(np.concatenate([(a.ci_high - a.ci_low) / 2, (b.ci_high - b.ci_low) / 2]))
    )
    res["_reference"]["cost"] = {
        m.name: {"cpu_seconds": m.cpu_seconds, "wall_seconds": m.wall_seconds}
        for ms in maps.values()
        for m in ms
    }
    return res


def print_study(title: str, res: dict, keys: Callable[[str], bool] = lambda _k: True) -> None:
    ref = res["_reference"]
    rel = ref["reliability_spearman"]
    print(
        f"\n== {title}: {ref['n_records']} records, mean AUC {ref['mean_auc']:.3f}, "
        f"replicate Spearman {rel[0]:.3f} [{rel[1]:.3f}, {rel[2]:.3f}], "
        f"median CI half-width {ref['truth_ci_halfwidth_median']:.3f}"
    )
    print(
        f"   true top-10 mean AUC: in-sample {ref['top_in_sample'][10]:.3f}, "
        f"cross-fit {ref['top_cross_fit'][10]:.3f}; top-50: {ref['top_in_sample'][50]:.3f} / "
        f"{ref['top_cross_fit'][50]:.3f}"
    )
    print(
        f"   {'score':<34} {'spearman [CI]':>24} {'p@10':>5} {'p@50':>5} "
        f"{'AUC@10':>7} {'share in/cross':>15}"
    )
    for name, r in res.items():
        if name.startswith("_") or not keys(name):
            continue
        print(
            f"   {name:<34} {r['spearman']:+.3f} [{r['spearman_ci'][0]:+.3f}, "
            f"{r['spearman_ci'][1]:+.3f}] {r['precision_at_10']:5.2f} {r['precision_at_50']:5.2f} "
            f"{r['mean_auc_top10']:7.3f} {r['share_in_sample_top10']:7.3f}/"
            f"{r['share_cross_fit_top10']:.3f}"
        )


def print_compare(res: dict) -> None:
    for name, c in res.get("_compare", {}).items():
        print(
            f"   chosen - {name:<18} top-10 AUC {c['top10_diff']:+.3f} "
            f"[{c['top10_diff_ci'][0]:+.3f}, {c['top10_diff_ci'][1]:+.3f}]; screen's Spearman "
            f"{c['spearman_diff']:+.3f} [{c['spearman_diff_ci'][0]:+.3f}, "
            f"{c['spearman_diff_ci'][1]:+.3f}]"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=None)
    ap.add_argument("--generator", default="baynet", help="generator label as in the file names")
    ap.add_argument("--all", action="store_true", help="every dataset and generator found")
    ap.add_argument("--results-root", type=Path, default=RESULTS)
    ap.add_argument("--write", action="store_true", help="write the results JSON")
    ap.add_argument("--table", action="store_true", help="print a markdown summary table")
    ap.add_argument(
        "--brief", action="store_true", help="print only the published scores and the chosen one"
    )
    args = ap.parse_args(argv)
    prov = Provenance.start(None if argv is None else ["selector_study.py", *argv])
    pairs: list[tuple[str, str]] = []
    if args.all:
        for p in sorted((args.results_root / "riskmap").glob("*_seed1.json")):
            data, label = p.stem.split("_")[:2]
            if (data, label) not in pairs:
                pairs.append((data, label))
    elif args.data:
        pairs = [(args.data, args.generator)]
    else:
        ap.error("give --data (and --generator) or --all")
    brief = {"vk_cos_k1", "vk_cos_k5", "vk_cos_k20", "vk_mink_p1_k5", "vk_mink_p2_k5", "rare"}
    brief |= {"loglik", "rarity_o2_b5_inv", "stage1_S100_T100", "stage1_S50_T50", CHOSEN}

    def keep(name: str) -> bool:
        return not args.brief or name in brief

    done: dict[str, dict] = {}
    for data, label in pairs:
        res = study(data, label, args.results_root)
        if res is None:
            continue
        done[f"{data} / {label}"] = res
        print_study(f"{data} / {label}", res, keys=keep)
        print_compare(res)
        if args.write:
            path = prov.write(STUDY, f"{data}_{label}", res, root=args.results_root)
            print(f"   wrote {path}")
    if args.table:
        print(markdown_table(done))
        print(score_table(done))
    return 0


#: Columns of the score table: (header, score name).
SCORE_COLUMNS = (
    ("`V_1`", "vk_cos_k1"),
    ("`V_5`", "vk_cos_k5"),
    ("`V_20`", "vk_cos_k20"),
    ("`V_5` Minkowski p=1", "vk_mink_p1_k5"),
    ("`V_5` Minkowski p=2", "vk_mink_p2_k5"),
    ("rare value", "rare"),
    ("log-likelihood", "loglik"),
    ("cell rarity", "rarity_o2_b5_inv"),
    ("screen 100 + 100", "stage1_S100_T100"),
)


def score_table(done: dict[str, dict]) -> str:
    """Spearman with the true per-record AUC (top-10 / top-50 precision) of every published
    score, one row per map."""
    head = " | ".join(h for h, _ in SCORE_COLUMNS)
    lines = [f"| map | {head} |", "|---" * (len(SCORE_COLUMNS) + 1) + "|"]
    for title, res in done.items():
        cells = []
        for _, key in SCORE_COLUMNS:
            r = res.get(key)
            cells.append(
                "not run"
                if r is None
                else f"{r['spearman']:.2f} "
                f"({r['precision_at_10']:.1f} / {r['precision_at_50']:.2f})"
            )
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: Rows of the summary table: (label, score name).
TABLE_ROWS = (
    ("`V_5` (cosine, the paper)", "vk_cos_k5"),
    ("`V_5` (Minkowski p = 1)", "vk_mink_p1_k5"),
    ("rare value", "rare"),
    ("log-likelihood", "loglik"),
    ("cell rarity (pairs, 5 bins, 1/count)", "rarity_o2_b5_inv"),
    ("screen 50 + 50, every record", "stage1_S50_T50"),
    ("screen 100 + 100, every record", "stage1_S100_T100"),
    ("**chosen**: cell-rarity prefilter 10 %, screen 100 + 100", CHOSEN),
)


def markdown_table(done: dict[str, dict]) -> str:
    """One row per map and selector: shares of the strict and lenient true top-10 mean AUC,
    Spearman [CI], top-10 and top-50 precision."""
    lines = [
        "| map | selector | share of strict top-10 | share of lenient top-10 | Spearman [95 % CI] "
        "| p@10 | p@50 |",
        "|---|---|---|---|---|---|---|",
    ]
    for title, res in done.items():
        ref = res["_reference"]
        lines.append(
            f"| {title} | *true top 10: strict {ref['top_in_sample'][10]:.3f}, lenient "
            f"{ref['top_cross_fit'][10]:.3f}; replicate Spearman "
            f"{ref['reliability_spearman'][0]:.3f}* | | | | | |"
        )
        for label, key in TABLE_ROWS:
            r = res.get(key)
            if r is None:
                lines.append(f"| | {label} | not run | | | | |")
                continue
            lines.append(
                f"| | {label} | {r['share_in_sample_top10']:.3f} "
                f"| {r['share_cross_fit_top10']:.3f} "
                f"| {r['spearman']:+.3f} [{r['spearman_ci'][0]:+.3f}, {r['spearman_ci'][1]:+.3f}] "
                f"| {r['precision_at_10']:.1f} | {r['precision_at_50']:.2f} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
