"""MIDST shadows only: meta-classifier variants of the given-release attack on leave-shadows-out
folds, with the signals computed once (issue 53).

``benchmarks/midst.py --only cv`` refits the whole attack for every configuration; most choices
(how many records, which examples, which signals, the records' own values) change only the
meta-classifier's examples, so this script computes the signals once and compares the variants
on the same folds. It reads the ``train`` split (the 30 shadow models) only, never ``dev`` or
``final``.

``signals``: for ``--records`` training records drawn from each shadow (as
:meth:`ShadowReleaseAttack.fit_shadows` draws them) and for every shadow's 200 labelled
challenge points, the signals (distances at 1, 5 and 20 neighbours on the values, on
population ranks and on the release's normal scores, the per-column distances in ranks,
``dcr-diff``, ``domias``) on all 30 shadow releases, saved to ``--cache``. The population ranks
are those of the 30 training sets (a record of them ranked among the others); the normal scores
depend on the release alone, so no fold makes them again; the no-box reference is 5,000 of
their records outside the drawn records and the challenge points.

``variants``: the 30 shadows in 3 folds (the order of ``midst.py --only cv``); for each fold
the meta-classifier (the attack's features and settings) is fitted on examples of the other 20
shadows, calibrated on those 20, and scores the held-out shadows' challenge points, calibrated
on the same 20; the official rule on the 6,000 pooled points. Every example leaves two shadows
out of its calibration, as the attack's do. With ``--data`` (the protocol of record), the
signals in population ranks are made again per fold with the fitting shadows' training sets
alone as the population (:func:`fold_signals`): without it a held-out shadow's members are
population records and most of its non-members are not, which ranks reveal.

A variant's keywords (``--config``): ``per`` (records per shadow), ``neg`` (non-member
examples per record), ``source`` (source examples), ``values`` (the record's own values as
features), ``sig`` (the signals used), ``bags`` (that many meta-classifiers, seeds 0 to
``bags - 1``, averaged), ``challenge`` (the fitting shadows' labelled challenge points as
examples too, each leaving its shadow and one other out of its calibration),
``release_ranks`` (each score replaced by its rank among its own release's points before
pooling), ``model`` (the meta-classifier's parameters that differ from the attack's:
``learning_rate``, ``max_leaf_nodes``, ...), ``folds`` and ``seed`` (the fold order).

Usage::

    OMP_NUM_THREADS=1 nice -n 15 python benchmarks/midst_folds.py signals --data MIDST_DIR \
        --generator tabddpm --cache /tmp/tabddpm_1500.npz
    nice -n 15 python benchmarks/midst_folds.py variants --cache /tmp/tabddpm_1500.npz \
        --data MIDST_DIR --generator tabddpm \
        --config '{"neg4src": {"per": 1500, "neg": 4, "source": true}}'
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score, roc_curve

from synthleak.attacks.mia_shadow_release import (
    _NOBOX,
    _SAMPLE,
    META_CLASSIFIER,
    ShadowReleaseAttack,
)
from synthleak.data.io import encode_frames
from synthleak.data.shadow_releases import read_shadow_releases

BASE = (
    "dist@1",
    "dist@5",
    "dist@20",
    "quantile-dist@1",
    "quantile-dist@5",
    "quantile-dist@20",
    "nobox:dcr-diff",
)


def _shadows(data: Path, generator: str, per: int) -> dict:
    """The shadows encoded together, the population (their training sets), the drawn records
    (``per`` from each shadow, as the attack draws them) and the challenge points."""
    if "final" in str(data.resolve()).lower():
        raise SystemExit("refusing a path naming the final split")
    shadows = read_shadow_releases(data / generator / "train")
    parts = {"population": pd.concat([s.training for s in shadows], ignore_index=True)}
    for s in shadows:
        parts[f"r{s.name}"] = s.release
    parts["challenge"] = pd.concat([s.challenge for s in shadows], ignore_index=True)
    enc = encode_frames(parts)
    sizes = np.array([len(s.training) for s in shadows])
    starts = np.r_[0, np.cumsum(sizes)]
    rng = _SAMPLE.rng(0)
    idx = [starts[k] + rng.choice(int(sizes[k]), per, replace=False) for k in range(len(shadows))]
    pop = enc.tables["population"]
    return {
        "shadows": shadows,
        "schema": enc.schema,
        "population": pop,
        "releases": [enc.tables[f"r{s.name}"] for s in shadows],
        "starts": starts,
        "pool": pop.take(np.concatenate(idx)),
        "challenge": enc.tables["challenge"],
        "rng": rng,
    }


def _rank_ready(atk: ShadowReleaseAttack, population) -> None:
    """``atk`` ranks values among ``population`` (as ``fit_shadows`` sets it up)."""
    atk._fit_quantiles(population)
    atk._population_keys = set(population.row_keys().tolist())


def signals(data: Path, generator: str, per: int, cache: Path) -> None:
    w = _shadows(data, generator, per)
    shadows, pop, rels, starts = w["shadows"], w["population"], w["releases"], w["starts"]
    pool, ch, rng = w["pool"], w["challenge"], w["rng"]
    m = len(shadows)
    atk = ShadowReleaseAttack(nobox=("dcr-diff", "domias"))
    t0 = time.process_time()
    atk._schema = w["schema"]
    _rank_ready(atk, pop)
    keys = pop.row_keys()
    atk._train_keys = [set(keys[starts[j] : starts[j + 1]].tolist()) for j in range(m)]
    src = np.repeat(np.arange(m), per)
    excluded = set(pool.row_keys().tolist()) | set(ch.row_keys().tolist())
    free = np.flatnonzero([k not in excluded for k in keys.tolist()])
    atk._reference_idx = rng.choice(free, 5000, replace=False)
    atk._population = pop
    atk._ref_member = atk._membership(keys[atk._reference_idx])

    views = [atk._view(r) for r in rels]

    def on_all(points):  # (n, m, s)
        ranks = atk._quantiles(points, points=True)
        return np.stack(
            [
                atk._signals(points, v, atk._reference(j), _NOBOX.rng(0, j), ranks=ranks)
                for j, v in enumerate(views)
            ],
            axis=1,
        )

    np.savez_compressed(
        cache,
        P=on_all(pool),
        C=on_all(ch),
        pmem=atk._membership(pool.row_keys()),
        src=src,
        cmem=atk._membership(ch.row_keys()),
        csrc=np.repeat(np.arange(m), [len(s.challenge) for s in shadows]),
        clab=np.concatenate([s.labels for s in shadows]).astype(bool),
        pval=np.column_stack([pool.codes, atk._quantiles(pool, True).values]).astype(float),
        cval=np.column_stack([ch.codes, atk._quantiles(ch, True).values]).astype(float),
        names=np.array(atk.signal_names),
        per=per,
    )
    print(f"signals: {time.process_time() - t0:.0f} s CPU", flush=True)


def fold_signals(data: Path, generator: str, d: dict, seed: int, folds: int) -> list:
    """Per fold, the cache's signals with those in population ranks (``quantile-dist@k``,
    ``marginal:*``) made again with the population of the fitting shadows alone: a held-out
    shadow stands for a target, whose training set the attacker does not hold. With every
    shadow in the population (the cache), a held-out shadow's members are population records
    and most of its non-members are not, which the ranks reveal (on TabDDPM the per-column
    distances gained 0.05 of AUC from it, and none without it)."""
    w = _shadows(data, generator, int(d["per"]))
    pop, rels, starts = w["population"], w["releases"], w["starts"]
    names = list(d["names"])
    atk = ShadowReleaseAttack()
    qi = np.array([names.index(f"quantile-dist@{k}") for k in atk.scales], dtype=int)
    mi = np.array([i for i, n in enumerate(names) if n.startswith("marginal:")], dtype=int)
    m = len(rels)
    order = np.random.default_rng([seed, 53]).permutation(m)
    out = []
    for held in np.array_split(order, folds):
        fit = [j for j in order if j not in set(held.tolist())]
        rows = np.concatenate([np.arange(starts[j], starts[j + 1]) for j in fit])
        _rank_ready(atk, pop.take(rows))
        P, C = d["P"].copy(), d["C"].copy()
        prow = np.flatnonzero(np.isin(d["src"], fit))
        crow = np.flatnonzero(np.isin(d["csrc"], held))
        qp = atk._quantiles(w["pool"].take(prow), points=True)
        qc = atk._quantiles(w["challenge"].take(crow), points=True)
        for j in range(m):
            qr = atk._quantiles(rels[j])
            for q, r, arr in ((qp, prow, P), (qc, crow, C)):
                if arr is P and j not in fit:
                    continue  # a drawn record is only ever seen on the fitting shadows
                arr[r[:, None], j, qi[None, :]] = atk._scale_distances(q, qr)
                if mi.size:
                    arr[r[:, None], j, mi[None, :]] = atk._marginals(q.values, qr.values)
        out.append((P, C))
    return out


def official(y: np.ndarray, s: np.ndarray) -> float:
    fpr, tpr, _ = roc_curve(y, s)
    return float(tpr[fpr < 0.1].max())


def variant(
    d,
    per=500,
    neg=2,
    source=False,
    values=False,
    sig=BASE,
    folds=3,
    seed=0,
    per_fold=None,
    bags=1,
    challenge=False,
    release_ranks=False,
    model=None,
) -> dict[str, object]:
    P, C, pmem, src = d["P"], d["C"], d["pmem"], d["src"]
    cmem, csrc, clab = d["cmem"], d["csrc"], d["clab"]
    names, drawn = list(d["names"]), int(d["per"])
    cols = [names.index(s) for s in sig]
    m = P.shape[1]
    order = np.random.default_rng([seed, 53]).permutation(m)
    scores, labels = [], []
    for f, held in enumerate(np.array_split(order, folds)):
        if per_fold is not None:  # the signals made with this fold's population
            P, C = per_fold[f]
        fit = np.array([j for j in order if j not in set(held.tolist())])
        pos = {j: a for a, j in enumerate(fit)}
        rng = np.random.default_rng([seed, 1])
        ii, jj, kk = [], [], []
        for i in np.flatnonzero(np.isin(src, fit) & (np.arange(src.size) % drawn < per)):
            mem = pmem[i, fit]
            s0 = pos[src[i]]
            holds = mem.copy()
            holds[s0] = False
            outs = np.flatnonzero(~mem)
            js = [*np.flatnonzero(holds), *rng.choice(outs, min(outs.size, neg), replace=False)]
            ks = [s0] * len(js)
            if source:  # a member example of its own shadow, one OUT shadow left out too
                js.append(s0)
                ks.append(int(rng.choice(outs)))
            ii += [i] * len(js)
            jj += js
            kk += ks
        ii, jj, kk = map(np.asarray, (ii, jj, kk))
        pf = P[:, fit][:, :, cols]
        use = np.ones((ii.size, fit.size), bool)
        use[np.arange(ii.size), jj] = False
        use[np.arange(ii.size), kk] = False
        x = ShadowReleaseAttack._features(pf[ii, jj], pf[ii], pmem[ii][:, fit], use)
        y = pmem[ii][:, fit][np.arange(ii.size), jj]
        if values:
            x = np.column_stack([x, d["pval"][ii]])
        cf = C[:, fit][:, :, cols]
        if challenge:  # the fitting shadows' labelled challenge points, two shadows left out
            ci = np.flatnonzero(np.isin(csrc, fit))
            cj = np.array([pos[j] for j in csrc[ci]])
            ck = np.array([rng.choice(np.delete(np.arange(fit.size), a)) for a in cj])
            cuse = np.ones((ci.size, fit.size), bool)
            cuse[np.arange(ci.size), cj] = False
            cuse[np.arange(ci.size), ck] = False
            xc = ShadowReleaseAttack._features(cf[ci, cj], cf[ci], cmem[ci][:, fit], cuse)
            if values:
                xc = np.column_stack([xc, d["cval"][ci]])
            x, y = np.concatenate([x, xc]), np.r_[y, clab[ci].astype(bool)]
        test = np.flatnonzero(np.isin(csrc, held))
        xt = ShadowReleaseAttack._features(
            C[test, csrc[test]][:, cols], cf[test], cmem[test][:, fit], None
        )
        if values:
            xt = np.column_stack([xt, d["cval"][test]])
        st = np.zeros(len(xt))
        params = {"max_iter": ShadowReleaseAttack().max_iter, **META_CLASSIFIER} | (model or {})
        for b in range(bags):
            clf = HistGradientBoostingClassifier(**params, random_state=b)
            st += clf.fit(x, y).predict_proba(xt)[:, 1] / bags
        if release_ranks:  # each score as its rank among its own release's points
            for j in np.unique(csrc[test]):
                at = csrc[test] == j
                st[at] = (rankdata(st[at]) - 0.5) / at.sum()  # tied scores share a rank
        scores.append(st)
        labels.append(clab[test])
    s, y = np.concatenate(scores), np.concatenate(labels)
    return {
        "official_tpr_at_fpr_0.1": round(official(y, s), 4),
        "auc": round(float(roc_auc_score(y, s)), 4),
        "per_fold": [round(official(a, b), 3) for a, b in zip(labels, scores, strict=True)],
        "n_examples_last_fold": int(x.shape[0]),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("signals", "variants"))
    ap.add_argument("--data", type=Path)
    ap.add_argument("--generator", choices=("tabddpm", "tabsyn"), default="tabddpm")
    ap.add_argument("--records", type=int, default=1500)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--config", default='{"base": {}}', help="JSON: name -> variant keywords")
    args = ap.parse_args(argv)
    if args.mode == "signals":
        if args.data is None:
            raise SystemExit("--data is needed for signals")
        signals(args.data, args.generator, args.records, args.cache)
        return 0
    d = dict(np.load(args.cache))
    made: dict[tuple[int, int], list] = {}
    for name, cfg in json.loads(args.config).items():
        t0 = time.process_time()
        if args.data is not None:  # the held-out shadows' training sets out of the ranks
            key = (int(cfg.get("seed", 0)), int(cfg.get("folds", 3)))
            if key not in made:
                made[key] = fold_signals(args.data, args.generator, d, *key)
            cfg = cfg | {"per_fold": made[key]}
        out = variant(d, **cfg)
        cfg.pop("per_fold", None)
        print(name, json.dumps(cfg), json.dumps(out), f"{time.process_time() - t0:.0f} s CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
