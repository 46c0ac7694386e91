"""A small numpy/pandas generator for ``bench_envgen.py``, runnable in-process and in an env.

``ChowLiu``: continuous columns cut into quantile bins, a Chow-Liu tree (maximum spanning tree
of pairwise mutual information) fitted on the discretised table, records sampled along the tree
and continuous values drawn uniformly within their bin. DataFrame API (``fit(df)``,
``sample(n)``), global numpy RNG (seeded by the caller), no synthleak import: the same file runs
as ``python:envgen_chowliu:ChowLiu`` and as ``env:ENV:/path/envgen_chowliu.py:ChowLiu``.
"""

from __future__ import annotations

import os

import numpy as np  # the global RNG on purpose, like third-party generators (seeded by the caller)
import pandas as pd


class ChowLiu:
    synthleak_format = "pandas"

    def __init__(self, bins: int = 10) -> None:
        self.bins = bins

    def fit(self, df: pd.DataFrame) -> None:
        log = os.environ.get("ENVGEN_PID_LOG")
        if log:  # which processes fitted: the benchmark counts the env workers started
            with open(log, "a") as fh:
                fh.write(f"{os.getpid()}\n")
        self.columns = list(df.columns)
        self.codes, self.levels, self.edges = [], [], {}
        for name in self.columns:
            s = df[name]
            if pd.api.types.is_numeric_dtype(s):
                v = s.to_numpy(dtype=float)
                edges = np.unique(np.nanquantile(v, np.linspace(0, 1, self.bins + 1)))
                code = np.clip(np.searchsorted(edges, v, side="right") - 1, 0, len(edges) - 2)
                code = np.where(np.isnan(v), len(edges) - 1, code)
                self.edges[name] = edges
                self.levels.append(len(edges))
            else:
                cats, code = np.unique(s.astype(str).where(s.notna(), "\x00"), return_inverse=True)
                self.edges[name] = cats
                self.levels.append(len(cats))
            self.codes.append(code.astype(np.int64))
        x = np.column_stack(self.codes)
        d = x.shape[1]
        mi = np.zeros((d, d))
        for i in range(d):
            for j in range(i + 1, d):
                joint = np.zeros((self.levels[i], self.levels[j]))
                np.add.at(joint, (x[:, i], x[:, j]), 1.0)
                p = joint / joint.sum()
                pi, pj = p.sum(1, keepdims=True), p.sum(0, keepdims=True)
                nz = p > 0
                mi[i, j] = mi[j, i] = float((p[nz] * np.log(p[nz] / (pi @ pj)[nz])).sum())
        # Prim's maximum spanning tree from column 0
        parent = {0: None}
        while len(parent) < d:
            best = max(
                ((mi[i, j], i, j) for i in parent for j in range(d) if j not in parent),
                key=lambda t: t[0],
            )
            parent[best[2]] = best[1]
        self.order = list(parent)
        self.parent = parent
        self.tables = {}
        for j, i in parent.items():
            if i is None:
                self.tables[j] = np.bincount(x[:, j], minlength=self.levels[j]) + 0.0
            else:
                t = np.zeros((self.levels[i], self.levels[j]))
                np.add.at(t, (x[:, i], x[:, j]), 1.0)
                self.tables[j] = t + 1e-9

    def sample(self, n: int) -> pd.DataFrame:
        codes = {}
        for j in self.order:
            i = self.parent[j]
            if i is None:
                p = self.tables[j] / self.tables[j].sum()
                codes[j] = np.random.choice(len(p), size=n, p=p)  # noqa: NPY002
            else:
                t = self.tables[j][codes[i]]
                cdf = np.cumsum(t / t.sum(1, keepdims=True), axis=1)
                codes[j] = np.minimum((cdf < np.random.random((n, 1))).sum(1), t.shape[1] - 1)  # noqa: NPY002
        out = {}
        for j, name in enumerate(self.columns):
            ref, c = self.edges[name], codes[j]
            if ref.dtype.kind == "f":
                lo, hi = ref[np.minimum(c, len(ref) - 2)], ref[np.minimum(c + 1, len(ref) - 1)]
                v = lo + (hi - lo) * np.random.random(n)  # noqa: NPY002
                out[name] = np.where(c == len(ref) - 1, np.nan, v)
            else:
                vals = ref[c].astype(object)
                out[name] = np.where(vals == "\x00", None, vals)
        return pd.DataFrame(out, columns=self.columns)
