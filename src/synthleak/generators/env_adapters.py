"""Classes the ``env:`` worker runs for the named DP-library adapters (``dpmm:mst``, ...).

This file is run by path in the library's own environment (``synthleak env create dpmm``), by the
worker of :mod:`synthleak.generators.envworker_protocol`: it imports neither synthleak nor
numpy/pandas at module level, and the libraries only inside ``fit``. Each class follows the
worker's generator contract (``fit(data, *, columns, seed)`` on a DataFrame whose categorical
columns are text and continuous columns floats; ``sample(n, *, seed)`` returning a DataFrame).

The training schema is treated as public, as for synthleak's own DP generators: categories and
the ``[low, high]`` range of each continuous column are given to the library, so no privacy
budget is spent on learning the domain. What each library then spends, and on which
neighbouring relation, is declared on the synthleak side
(:mod:`synthleak.generators.env`, named adapters).
"""

from __future__ import annotations

from typing import Any

#: dpmm's pipeline class for each model name.
DPMM_MODELS = {"mst": "MSTPipeline", "aim": "AIMPipeline", "privbayes": "PrivBayesPipeline"}
#: SmartNoise synthesizer name for each model name.
SMARTNOISE_MODELS = {
    "mst": "mst",
    "aim": "aim",
    "patectgan": "patectgan",
    "dpctgan": "dpctgan",
}


def _restore(frame: Any, columns: list[dict[str, Any]]) -> Any:
    """Missing categories back as ``None``; columns in schema order."""
    names = [c["name"] for c in columns]
    return frame.loc[:, names] if list(frame.columns) != names else frame


class Dpmm:
    """A dpmm 0.1.9 pipeline (``MSTPipeline``, ``AIMPipeline``, ``PrivBayesPipeline``).

    dpmm bins continuous columns with its own binner; with the schema's bounds given as the
    domain, ``binner_type="uniform"`` spends no budget (``proc_epsilon=0``, the default here),
    while ``"priv-tree"`` spends ``proc_epsilon`` more. ``n_jobs=1``: the worker is one process
    of a pool that already uses the cores.
    """

    synthleak_format = "pandas"

    def __init__(
        self,
        model: str = "mst",
        epsilon: float = 1.0,
        delta: float = 1e-5,
        n_bins: int = 20,
        binner_type: str = "uniform",
        proc_epsilon: float = 0.0,
        n_iters: int | None = None,
    ) -> None:
        if model not in DPMM_MODELS:
            raise ValueError(f"dpmm model {model!r} is not one of {sorted(DPMM_MODELS)}")
        self.model = model
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.n_bins = int(n_bins)
        self.binner_type = binner_type
        self.proc_epsilon = float(proc_epsilon)
        self.n_iters = n_iters

    def fit(self, data: Any, *, columns: list[dict[str, Any]], seed: int) -> None:
        import dpmm.pipelines as pipelines

        cls = getattr(pipelines, DPMM_MODELS[self.model])
        domain: dict[str, dict[str, Any]] = {}
        for c in columns:
            if c["kind"] == "categorical":
                domain[c["name"]] = {"categories": list(c["categories"])}
            elif c["kind"] == "continuous":
                domain[c["name"]] = {"lower": c["low"], "upper": c["high"]}
            else:
                raise ValueError(f"column {c['name']!r}: dpmm adapters take no datetime columns")
        gen_kwargs = {} if self.n_iters is None else {"n_iters": int(self.n_iters)}
        proc_eps = self.proc_epsilon if self.proc_epsilon > 0 else None
        self.pipeline = cls(
            epsilon=self.epsilon,
            delta=self.delta,
            n_jobs=1,
            gen_kwargs=gen_kwargs,
            binner_type=self.binner_type,
            proc_epsilon=proc_eps,
            n_bins=self.n_bins,
        )
        self.columns = columns
        self.pipeline.fit(data, domain=domain, random_state=seed)

    def sample(self, n: int, *, seed: int) -> Any:
        out = self.pipeline.generate(n_records=n, random_state=seed)
        return _restore(out, self.columns)


class SmartNoise:
    """A SmartNoise Synthesizer 1.0.8 (``mst``, ``aim``, ``patectgan``, ``dpctgan``).

    Continuous columns get transformers with the schema's bounds (``BinTransformer`` with
    ``n_bins`` bins for the marginal models, ``MinMaxTransformer`` for the GANs), categorical
    columns a label encoding of the schema's categories (one-hot after it for the GANs) in which
    a missing value is one more category; every transformer is fitted on the schema's domain
    before SmartNoise sees the data, so SmartNoise spends no budget on preprocessing and learns
    nothing outside its claim from the records.
    ``options`` are passed to the synthesizer (``epochs``, ``batch_size``, ...).
    """

    synthleak_format = "pandas"

    def __init__(
        self,
        model: str = "mst",
        epsilon: float = 1.0,
        delta: float | None = None,
        n_bins: int = 20,
        **options: Any,
    ) -> None:
        if model not in SMARTNOISE_MODELS:
            raise ValueError(
                f"smartnoise model {model!r} is not one of {sorted(SMARTNOISE_MODELS)}"
            )
        self.model = model
        self.epsilon = float(epsilon)
        self.delta = delta
        self.n_bins = int(n_bins)
        self.options = options

    def fit(self, data: Any, *, columns: list[dict[str, Any]], seed: int) -> None:
        from snsynth import Synthesizer
        from snsynth.transform import (
            BinTransformer,
            ChainTransformer,
            LabelTransformer,
            MinMaxTransformer,
            OneHotEncoder,
        )

        kwargs = dict(self.options)
        if self.delta is not None:
            kwargs["delta"] = float(self.delta)
        if self.model in ("patectgan", "dpctgan"):
            kwargs.setdefault("verbose", False)
        gan = self.model in ("patectgan", "dpctgan")
        constraints: dict[str, Any] = {}
        categorical, continuous = [], []
        for c in columns:
            if c["kind"] == "categorical":
                categorical.append(c["name"])
                # missing values travel as a category of their own (below): no null code, which
                # SmartNoise would otherwise sample in columns that had no missing values
                label = LabelTransformer(nullable=False)
                constraints[c["name"]] = (
                    ChainTransformer([label, OneHotEncoder()]) if gan else label
                )
            elif c["kind"] == "continuous":
                continuous.append(c["name"])
                if gan:
                    constraints[c["name"]] = MinMaxTransformer(
                        lower=c["low"], upper=c["high"], nullable=c["nullable"]
                    )
                else:
                    constraints[c["name"]] = BinTransformer(
                        bins=self.n_bins, lower=c["low"], upper=c["high"], nullable=c["nullable"]
                    )
            else:
                raise ValueError(f"column {c['name']!r}: smartnoise adapters take no datetimes")
        # every transformer is fitted on the schema's domain, never on the records: an encoder
        # fitted on the data would learn which categories occur, outside the claim (a category
        # only the target holds would tell IN from OUT); SmartNoise then fits nothing itself
        for c in columns:
            if c["kind"] == "categorical":
                domain: list[Any] = [str(v) for v in c["categories"]]
                domain += ["\x00missing"] if c.get("nullable") else []
            else:
                domain = [float(c["low"]), float(c["high"])]
            constraints[c["name"]].fit(domain)
        self.synth = Synthesizer.create(
            SMARTNOISE_MODELS[self.model], epsilon=self.epsilon, **kwargs
        )
        self.columns = columns
        frame = data.copy()
        for name in categorical:  # SmartNoise's label encoder sorts values: no None among them
            frame[name] = frame[name].astype(object).where(frame[name].notna(), "\x00missing")
        self.missing_token = "\x00missing"
        self.synth.fit(
            frame,
            transformer=constraints,
            categorical_columns=categorical,
            continuous_columns=continuous,
            nullable=any(c["nullable"] for c in columns if c["kind"] == "continuous"),
            preprocessor_eps=0.0,
        )

    def sample(self, n: int, *, seed: int) -> Any:
        import pandas as pd

        out = self.synth.sample(n)
        names = [c["name"] for c in self.columns]
        frame = out if isinstance(out, pd.DataFrame) else pd.DataFrame(list(out), columns=names)
        for c in self.columns:
            if c["kind"] == "categorical":
                col = frame[c["name"]].astype(object)
                frame[c["name"]] = col.where(col != self.missing_token, None)
        return _restore(frame, self.columns)


#: synthcity 0.2.12 plugin module (under ``synthcity.plugins``) for each model name.
SYNTHCITY_MODELS = {
    "ddpm": "generic.plugin_ddpm",
    "arf": "generic.plugin_arf",
    "nflow": "generic.plugin_nflow",
    "pategan": "privacy.plugin_pategan",
    "dpgan": "privacy.plugin_dpgan",
    "aim": "privacy.plugin_aim",
}
#: Token for a missing category (synthcity's encoders take no missing values).
MISSING = "\x00missing"
#: Suffix of the indicator column of a continuous column with missing values.
MISSING_FLAG = "\x00is_missing"


class Synthcity:
    """A synthcity 0.2.12 plugin (``ddpm``, ``arf``, ``nflow``, ``pategan``, ``dpgan``,
    ``aim``), on the CPU.

    synthcity's encoders take no missing values: a missing category travels as a category of
    its own, and a continuous column with missing values as the column (missing values set to
    its lower bound) plus an indicator column; the sample is put back (a value whose indicator
    is set is missing). ``options`` are the plugin's keyword arguments (``n_iter``,
    ``batch_size``, ``epsilon``, ...); the seed is the plugin's ``random_state`` and
    ``generate``'s. The plugin module is imported directly, not through ``Plugins()``, which
    would import every plugin on each worker start.

    ``aim``: synthcity's AIM takes each column's observed distinct values as its domain and
    does not discretise, so continuous columns are cut here into ``n_bins`` equal-width bins of
    the schema's ``[low, high]`` (public) and sampled uniformly within their bin. Its
    ``generate`` runs the whole mechanism again on every call (and again while its output has
    fewer rows than asked for, spending the budget each time), so the adapter runs it once, on
    the first sample, and draws every sample from that one output (post-processing).
    """

    synthleak_format = "pandas"

    def __init__(self, model: str = "ddpm", n_bins: int = 20, **options: Any) -> None:
        if model not in SYNTHCITY_MODELS:
            raise ValueError(f"synthcity model {model!r} is not one of {sorted(SYNTHCITY_MODELS)}")
        self.model = model
        self.n_bins = int(n_bins)
        self.options = options

    def fit(self, data: Any, *, columns: list[dict[str, Any]], seed: int) -> None:
        import importlib
        import tempfile
        from pathlib import Path as _Path

        import numpy as np

        module = importlib.import_module(f"synthcity.plugins.{SYNTHCITY_MODELS[self.model]}")
        binned = self.model == "aim"
        frame = data.copy()
        for c in columns:
            name = c["name"]
            if c["kind"] == "categorical":
                col = frame[name].astype(object)
                frame[name] = col.where(col.notna(), MISSING)
            elif c["kind"] == "continuous" and binned:
                values = frame[name].astype(float)
                width = (c["high"] - c["low"]) / self.n_bins or 1.0
                codes = np.clip(np.floor((values - c["low"]) / width), 0, self.n_bins - 1)
                text = codes.map(lambda v: MISSING if v != v else str(int(v)))
                frame[name] = text.astype(object)
            elif c["kind"] == "continuous":
                values = frame[name].astype(float)
                if c["nullable"]:
                    flag = values.isna()
                    frame[name + MISSING_FLAG] = flag.astype(int).astype(str)
                    values = values.where(~flag, c["low"])
                frame[name] = values
            else:
                raise ValueError(f"column {name!r}: synthcity adapters take no datetime columns")
        self.workspace = tempfile.mkdtemp(prefix="synthleak-synthcity-")
        import torch

        torch.set_num_threads(1)  # one worker per process of a pool that already uses the cores
        kwargs = dict(self.options)
        kwargs.update(
            device=torch.device("cpu"),
            random_state=int(seed) % (2**31),
            workspace=_Path(self.workspace),
        )
        if binned:  # one run of the mechanism, no rows dropped as duplicates (docstring)
            kwargs.update(sampling_patience=1, strict=False)
        self.plugin = module.plugin(**kwargs)
        self.columns = columns
        self.output: Any = None
        self.plugin.fit(frame)

    def close(self) -> None:
        """Remove the plugin's workspace (its metric caches); the worker calls this on drop."""
        import shutil

        workspace = getattr(self, "workspace", None)
        if workspace:
            shutil.rmtree(workspace, ignore_errors=True)

    def sample(self, n: int, *, seed: int) -> Any:
        import numpy as np

        rng = np.random.default_rng(seed)
        if self.model == "aim":
            if self.output is None:
                run = self.plugin.generate(count=n, random_state=int(seed) % (2**31))
                self.output = run.dataframe().reset_index(drop=True)
            rows = rng.permutation(len(self.output))
            if len(rows) < n:  # fewer rows than asked for: draw the rest from the same output
                rows = np.concatenate([rows, rng.integers(0, len(rows), n - len(rows))])
            out = self.output.iloc[rows[:n]].reset_index(drop=True)
        else:
            out = self.plugin.generate(count=n, random_state=int(seed) % (2**31)).dataframe()
            out = out.reset_index(drop=True)
        for c in self.columns:
            name = c["name"]
            if c["kind"] == "categorical":
                col = out[name].astype(object).astype(str)
                out[name] = col.where(col != MISSING, None)
            elif self.model == "aim":
                col = out[name].astype(object).astype(str)
                missing = (col == MISSING).to_numpy()
                code = np.where(missing, 0, col.where(~missing, "0").astype(float)).astype(float)
                width = (c["high"] - c["low"]) / self.n_bins
                value = c["low"] + (code + rng.random(len(out))) * width
                out[name] = np.where(missing, np.nan, np.minimum(value, c["high"]))
            elif c["nullable"]:
                flag = out.pop(name + MISSING_FLAG).astype(str) == "1"
                out[name] = out[name].astype(float).where(~flag, float("nan"))
        return _restore(out, self.columns)
