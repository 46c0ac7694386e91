"""The Attribute Inference Privacy Game with a randomised secret (§4.1).

One game:

1. the challenger samples ``D`` (``n`` records) from the data;
2. picks a target whose quasi-identifiers are unique in ``X`` (``targets_per_game`` distinct
   targets: an amortisation of ours, 1 by default as in the paper);
3. replaces the target's secret by a uniformly random class (``D'``);
4. fits the generator on ``D'`` and samples ``S`` of ``m`` records (for every ``m`` of the sweep);
5. hands ``S``, all quasi-identifiers ``X`` and the target's ``x_u`` to each attack;
6. records each attack's scores and guess against the randomised secret.

Games are work units of :func:`synthleak.runtime.run_units` (processes or a Dask cluster, resumable
run directory). A game draws all its randomness from ``unit_rng(seed, game, stream, ...)``, so the
result does not depend on the number of workers.

Discrete domain. The paper assumes discrete attributes (§3): continuous columns are discretised
before anything else (``bins`` bins per column, ``uniform`` over the schema range or ``quantile``
of the full data; missing values get their own bin), and the generator is trained on the
discretised table. Uniqueness of the target is judged on these discrete quasi-identifiers.

Sweep over m. For each game the generator is fitted once and sampled at every ``m`` (fresh
samples with their own seed), the attacks' work that depends only on ``X`` (e.g. the query
matrix of Adv_recon) is done once, and utility is measured on the same random marginals for every
``m``: the result for one ``m`` is identical whether it is run alone or inside a sweep.

Failures. A game fails as a whole (reported with its reason, never a crash) when the secret
takes a single value in ``D``, when no target has unique quasi-identifiers or when the generator
fails; an attack fails for one (game, m) when its linear program is not solved within its time
limit. Accuracy is computed over the games an attack finished, and the failures are listed.

Non-binary secrets (our extension of §7.6): the secret is randomised uniformly over its ``C``
classes, attacks score every class (Adv_recon solves one LP per class, one-vs-rest) and the
highest score wins; the accuracy baseline is ``1 / C``. AUC is reported for binary secrets only.

References
----------
Annamalai et al. (2024a), "A linear reconstruction approach for attribute inference attacks
against synthetic data", USENIX Security, Sec. 4.1 (game), Sec. 4.2-4.3 (attacks), Sec. 5.3
(utility), Sec. 6 (experiments: n = 1000, 500 games, m from 10 to 10^6, Acc_max in Sec. 6.4),
Sec. 7.6 (non-binary secrets).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from synthleak.attacks.aia_dcr import DCRAttack
from synthleak.attacks.aia_inference import InferenceAttack, InferenceModel
from synthleak.attacks.aia_reconstruction import (
    QueryMode,
    ReconstructionAttack,
    ReconstructionFailure,
)
from synthleak.data.encoding import Discretiser
from synthleak.data.schema import Column, ColumnKind, Schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.generators import make_generator
from synthleak.metrics.privacy import accuracy_estimate, auc, paired_accuracy_difference
from synthleak.metrics.utility import mre_from_codes, random_marginals, tvd_from_codes
from synthleak.runtime import RunStore, WorkUnit, run_units, unit_rng

# seed streams (second element of every unit_rng key after the game index)
_S_DATA, _S_TARGET, _S_FIT, _S_ATTACK_FIT, _S_SAMPLE, _S_ATTACK, _S_UTILITY, _S_COMPARE = range(8)


class AIAttack(str, Enum):
    """The attribute-inference attacks a game can run."""

    RECON = "recon"
    DCR = "dcr"
    INFER = "infer"


class BinStrategy(str, Enum):
    """How continuous columns are discretised."""

    UNIFORM = "uniform"
    QUANTILE = "quantile"


class GameFailure(RuntimeError):
    """A game that cannot be played (reported per game with its reason)."""


@dataclass
class AttributeGameResult:
    """Outcome of :meth:`AttributeGame.run`.

    Attributes
    ----------
    config : dict
    results : list of dict
        One entry per ``m``: ``{"m", "attacks": {name: {"accuracy", "accuracy_ci", "auc",
        "baseline", "n_games", "n_failed"}}, "utility": {"mre_gt10", "tvd3"}, "acc_max"}``.
    failures : list of dict
        ``{"game", "m" (or None for a whole game), "attack" (or None), "reason"}``.
    games : dict
        Per-game raw arrays (truth, scores, guesses) by game index, for further analysis.
    """

    config: dict[str, Any]
    results: list[dict[str, Any]]
    failures: list[dict[str, Any]]
    games: dict[int, dict[str, np.ndarray]] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config, "results": self.results, "failures": self.failures}


def discretise(
    table: Table, bins: int, strategy: BinStrategy | str = BinStrategy.UNIFORM
) -> tuple[np.ndarray, Schema]:
    """Codes (N, F) of every column and an all-categorical schema for them (bin indices)."""
    strategy = BinStrategy(strategy)
    disc = Discretiser(
        table.schema, bins, strategy.value, data=table if strategy is BinStrategy.QUANTILE else None
    )
    codes = disc.transform(table).astype(np.int64)
    cols = tuple(
        Column(c.name, ColumnKind.CATEGORICAL, categories=tuple(range(int(s))))
        for c, s in zip(table.schema.columns, disc.sizes, strict=True)
    )
    return codes, Schema(cols)


def unique_rows(codes: np.ndarray) -> np.ndarray:
    """Boolean mask of the rows whose values occur exactly once in ``codes``."""
    arr = np.ascontiguousarray(codes.astype(np.int32))
    view = arr.view(np.dtype((np.void, arr.dtype.itemsize * arr.shape[1]))).ravel()
    _, inv, cnt = np.unique(view, return_inverse=True, return_counts=True)
    return cnt[inv.ravel()] == 1


def _make_attack(name: AIAttack, cfg: dict[str, Any]) -> Any:
    if name is AIAttack.RECON:
        return ReconstructionAttack(
            order=cfg["order"],
            queries=cfg["queries"],
            max_queries=cfg["max_queries"],
            time_limit=cfg["time_limit"],
        )
    if name is AIAttack.DCR:
        return DCRAttack()
    return InferenceAttack(model=cfg["infer_model"], max_train=cfg["infer_max_train"])


def _guess(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Highest-scoring class per row, ties broken uniformly at random."""
    best = scores.max(axis=1, keepdims=True)
    tie = np.isclose(scores, best, rtol=0, atol=1e-9)
    pick = rng.random(scores.shape) * tie
    return np.argmax(pick, axis=1)


def _play_game(shared: dict[str, Any], game: int) -> dict[str, np.ndarray]:
    """One attribute inference game (a work unit)."""
    cfg = shared["config"]
    codes: np.ndarray = shared["codes"]
    sizes: np.ndarray = shared["sizes"]
    schema: Schema = shared["schema"]
    seed, n, ms = int(cfg["seed"]), int(cfg["n"]), [int(m) for m in cfg["m"]]
    F = codes.shape[1] - 1
    C = int(sizes[F])
    rows = unit_rng(seed, game, _S_DATA).choice(codes.shape[0], size=n, replace=False)
    D = codes[rows]
    X, y = D[:, :F], D[:, F]
    if np.unique(y).size < 2:
        raise GameFailure("the secret takes a single value in the sampled dataset D")
    uniq = np.flatnonzero(unique_rows(X))
    if uniq.size == 0:
        raise GameFailure("no record of D has unique quasi-identifiers")
    rng_t = unit_rng(seed, game, _S_TARGET)
    k = min(int(cfg["targets_per_game"]), uniq.size)
    targets = np.sort(rng_t.choice(uniq, size=k, replace=False))
    y_new = y.copy()
    y_new[targets] = rng_t.integers(0, C, size=k)
    Dp = D.copy()
    Dp[:, F] = y_new
    try:
        gen = make_generator(cfg["generator"]).fit(
            Table.from_arrays(schema, Dp, None), rng=unit_rng(seed, game, _S_FIT)
        )
    except InputError:
        raise
    except Exception as exc:
        raise GameFailure(
            f"generator {cfg['generator']} failed to fit: {type(exc).__name__}: {exc}"
        ) from exc
    attacks = [AIAttack(a) for a in cfg["attacks"]]
    fitted = {
        a: _make_attack(a, cfg).fit(X, sizes[:F], rng=unit_rng(seed, game, _S_ATTACK_FIT, i))
        for i, a in enumerate(attacks)
    }
    marg = (
        random_marginals(
            F + 1, 3, int(cfg["utility_marginals"]), rng=unit_rng(seed, game, _S_UTILITY)
        )
        if F + 1 >= 3
        else np.zeros((0, 3), dtype=np.int64)
    )
    out: dict[str, np.ndarray] = {
        "truth": y_new[targets].astype(np.int64),
        "targets": targets.astype(np.int64),
    }
    M = len(ms)
    mre, tvd = np.full(M, np.nan), np.full(M, np.nan)
    res = {
        a: (
            np.full((M, k, C), np.nan),
            np.full((M, k), -1, dtype=np.int64),
            np.full(M, np.nan),
            ["" for _ in ms],
        )
        for a in attacks
    }
    for mi, m in enumerate(ms):
        S = gen.sample(m, rng=unit_rng(seed, game, _S_SAMPLE, m)).codes.astype(np.int64)
        for i, a in enumerate(attacks):
            scores, guesses, secs, fails = res[a]
            rng_a = unit_rng(seed, game, _S_ATTACK, m, i)
            t0 = time.perf_counter()
            try:
                sc = fitted[a].score(S[:, :F], S[:, F], targets, C, rng=rng_a)
            except ReconstructionFailure as exc:
                fails[mi] = str(exc)
                continue
            secs[mi] = time.perf_counter() - t0
            scores[mi] = sc
            guesses[mi] = _guess(sc, rng_a)
        if len(marg):
            mre[mi] = mre_from_codes(D, S, sizes, marg, float(cfg["mre_threshold"]))
            tvd[mi] = tvd_from_codes(D, S, sizes, marg)
    for a, (scores, guesses, secs, fails) in res.items():
        out[f"scores_{a.value}"] = scores
        out[f"guess_{a.value}"] = guesses
        out[f"seconds_{a.value}"] = secs
        out[f"fail_{a.value}"] = np.array(fails, dtype="U200")
    out["mre"], out["tvd"] = mre, tvd
    return out


def _compare_attacks(
    config: dict[str, Any],
    games: dict[int, dict[str, np.ndarray]],
    attacks: list[AIAttack],
    mi: int,
) -> list[dict[str, Any]]:
    """Paired comparison of every two attacks at size index ``mi`` on the secrets both scored.

    Accuracy difference with a bootstrap CI that resamples whole games (the targets of one game
    share ``S``) and an exact McNemar p-value: "a beats b" is a claim about this difference.
    """
    out = []
    for i, a in enumerate(attacks):
        for j in range(i + 1, len(attacks)):
            b = attacks[j]
            ca, cb, cl = [], [], []
            for g, arr in games.items():
                if str(arr[f"fail_{a.value}"][mi]) or str(arr[f"fail_{b.value}"][mi]):
                    continue
                ca.append(arr[f"guess_{a.value}"][mi] == arr["truth"])
                cb.append(arr[f"guess_{b.value}"][mi] == arr["truth"])
                cl.append(np.full(arr["truth"].size, g))
            if not ca:
                continue
            cmp = paired_accuracy_difference(
                np.concatenate(ca),
                np.concatenate(cb),
                clusters=np.concatenate(cl),
                rng=unit_rng(int(config["seed"]), _S_COMPARE, mi, i, j),
            )
            out.append(
                {
                    "a": a.value,
                    "b": b.value,
                    "difference": cmp.difference,
                    "difference_ci": [cmp.ci_low, cmp.ci_high],
                    "p_value": cmp.p_value,
                    "n_targets": cmp.n,
                    "a_only": cmp.a_only,
                    "b_only": cmp.b_only,
                }
            )
    return out


def _reason(error: str) -> str:
    head, _, rest = error.partition(": ")
    msg = rest if head == "GameFailure" else error
    return msg.rsplit(" at ", 1)[0] if " at attribute.py:" in msg else msg


def _parse_ms(m: int | Sequence[int]) -> list[int]:
    ms = [int(m)] if isinstance(m, int | np.integer) else [int(v) for v in m]
    if not ms or any(v < 1 for v in ms):
        raise InputError(f"synthetic sizes m must be positive integers, got {ms}")
    return sorted(set(ms), key=ms.index)


class AttributeGame:
    """Attribute Inference Privacy Game with a randomised secret, swept over synthetic sizes.

    Parameters
    ----------
    generator : str
        Generator spec (``nonprivate``, ``indhist``, ``baynet:k=2``, ``rap``, ...).
    secret : str
        The secret column (categorical; binary in the paper, any number of classes here).
    quasi_ids : sequence of str, optional
        Quasi-identifier columns (default: every other column).
    n : int
        Records in the original dataset ``D`` (1000 in the paper).
    m : int or sequence of int
        Synthetic size(s); a sequence runs the sweep of §6.3 with one fit per game.
    games : int
        Repetitions (500 in the paper).
    attacks : sequence of str
        Any of ``recon``, ``dcr``, ``infer``.
    queries : QueryMode
        ``conditional`` (default) or ``marginal`` answers for Adv_recon.
    order : int
        k of Adv_recon's k-way queries (3).
    max_queries : int, optional
        Random subset of Adv_recon's queries (all by default).
    time_limit : float
        Seconds allowed to one linear program; beyond, that (game, m) fails for recon.
    targets_per_game : int
        Distinct unique targets randomised in each game (1 = the paper's game).
    bins, bin_strategy :
        Discretisation of continuous columns.
    utility_marginals : int
        Random 3-way marginals for MRE_{>10} and 3-TVD (same set for every m of a game).
    infer_model, infer_max_train :
        Classifier of Adv_infer and its training-set cap.

    References
    ----------
    Annamalai et al. (2024a), Sec. 4.1 and 6.
    """

    def __init__(
        self,
        generator: str,
        secret: str,
        quasi_ids: Sequence[str] | None = None,
        *,
        n: int = 1000,
        m: int | Sequence[int] = 100_000,
        games: int = 500,
        attacks: Sequence[str] = ("recon", "dcr", "infer"),
        queries: QueryMode | str = QueryMode.CONDITIONAL,
        order: int = 3,
        max_queries: int | None = None,
        time_limit: float = 600.0,
        targets_per_game: int = 1,
        bins: int = 10,
        bin_strategy: BinStrategy | str = BinStrategy.UNIFORM,
        utility_marginals: int = 50,
        mre_threshold: float = 10.0,
        infer_model: InferenceModel | str = InferenceModel.RF,
        infer_max_train: int = 20_000,
    ) -> None:
        self.generator = generator
        self.secret = secret
        self.quasi_ids = quasi_ids
        self.n = n
        self.m = m
        self.games = games
        self.attacks = attacks
        self.queries = queries
        self.order = order
        self.max_queries = max_queries
        self.time_limit = time_limit
        self.targets_per_game = targets_per_game
        self.bins = bins
        self.bin_strategy = bin_strategy
        self.utility_marginals = utility_marginals
        self.mre_threshold = mre_threshold
        self.infer_model = infer_model
        self.infer_max_train = infer_max_train

    def _validate(self, table: Table) -> tuple[list[str], list[AIAttack], list[int]]:
        schema = table.schema
        if self.secret not in schema:
            raise InputError(
                f"unknown secret column {self.secret!r}: the columns are {', '.join(schema.names)}"
            )
        if not schema[self.secret].is_categorical:
            raise InputError(
                f"the secret column {self.secret!r} is continuous: declare it --categorical "
                "(the attack infers a discrete secret)"
            )
        qi = (
            list(self.quasi_ids)
            if self.quasi_ids
            else [c for c in schema.names if c != self.secret]
        )
        for c in qi:
            if c not in schema:
                raise InputError(
                    f"unknown quasi-identifier {c!r}: the columns are {', '.join(schema.names)}"
                )
        if self.secret in qi:
            raise InputError(
                f"the secret {self.secret!r} cannot also be a quasi-identifier: remove it from --quasi-ids"
            )
        if len(set(qi)) != len(qi):
            raise InputError("a quasi-identifier is listed twice: list each column once")
        if len(qi) < self.order - 1:
            raise InputError(
                f"{self.order}-way queries need at least {self.order - 1} quasi-identifiers, got {len(qi)}"
            )
        if not 1 <= self.n <= len(table):
            raise InputError(
                f"--n must be between 1 and the {len(table)} records of the data, got {self.n}"
            )
        if self.games < 1:
            raise InputError(f"--games must be at least 1, got {self.games}")
        if self.targets_per_game < 1:
            raise InputError(f"targets per game must be at least 1, got {self.targets_per_game}")
        try:
            attacks = [AIAttack(a) for a in self.attacks]
        except ValueError:
            raise InputError(
                f"unknown attack in {list(self.attacks)}: choose from {', '.join(a.value for a in AIAttack)}"
            ) from None
        if not attacks:
            raise InputError("give at least one attack (--attacks recon,dcr,infer)")
        try:
            QueryMode(self.queries)
            BinStrategy(self.bin_strategy)
            InferenceModel(self.infer_model)
        except ValueError as exc:
            raise InputError(f"{exc}: check --queries / --bin-strategy / --infer-model") from None
        if self.bins < 1:
            raise InputError(f"--bins must be at least 1, got {self.bins}")
        make_generator(self.generator)  # validates the spec early (InputError)
        return qi, list(dict.fromkeys(attacks)), _parse_ms(self.m)

    def prepare(self, table: Table) -> tuple[np.ndarray, np.ndarray, Schema, list[str]]:
        """Discretised codes ``[X | y]`` (secret last, classes re-coded 0..C-1), sizes, schema, class labels."""
        qi, _, _ = self._validate(table)
        sub = table.select([*qi, self.secret])
        codes, schema = discretise(sub, self.bins, self.bin_strategy)
        present = np.unique(codes[:, -1])
        if present.size < 2:
            raise InputError(
                f"the secret {self.secret!r} takes a single value in the data: choose another secret"
            )
        codes[:, -1] = np.searchsorted(present, codes[:, -1])
        col = sub.schema[self.secret]
        labels = [
            str(col.categories[c]) if c < len(col.categories) else "<missing>"
            for c in present.tolist()
        ]
        cols = list(schema.columns)
        cols[-1] = Column(
            self.secret, ColumnKind.CATEGORICAL, categories=tuple(range(present.size))
        )
        schema = Schema(tuple(cols))
        sizes = np.array([c.size for c in schema.columns], dtype=np.int64)
        return codes, sizes, schema, labels

    def run(
        self,
        data: Table,
        *,
        seed: int = 0,
        workers: int = 1,
        cluster: str | Any | None = None,
        run_dir: str | Path | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> AttributeGameResult:
        """Play ``games`` games and aggregate accuracy, AUC and utility per ``m``.

        Parameters
        ----------
        data : Table
            The population the original datasets are sampled from.
        seed : int
            Run seed: same seed, same result whatever ``workers`` / ``cluster``.
        workers, cluster, run_dir, progress :
            See :func:`synthleak.runtime.run_units`; ``run_dir`` makes the run resumable.
        """
        qi, attacks, ms = self._validate(data)
        codes, sizes, schema, labels = self.prepare(data)
        first = unit_rng(int(seed), 0, _S_DATA).choice(codes.shape[0], size=self.n, replace=False)
        if not unique_rows(codes[first, :-1]).any():
            raise InputError(
                "no record has unique quasi-identifiers in a sampled dataset: "
                "add quasi-identifiers (--quasi-ids), use more bins or a larger --n"
            )
        C = int(sizes[-1])
        config: dict[str, Any] = {
            "generator": self.generator,
            "secret": self.secret,
            "secret_classes": labels,
            "quasi_ids": qi,
            "n": int(self.n),
            "m": ms,
            "games": int(self.games),
            "attacks": [a.value for a in attacks],
            "queries": QueryMode(self.queries).value,
            "order": int(self.order),
            "max_queries": self.max_queries,
            "time_limit": float(self.time_limit),
            "targets_per_game": int(self.targets_per_game),
            "bins": int(self.bins),
            "bin_strategy": BinStrategy(self.bin_strategy).value,
            "utility_marginals": int(self.utility_marginals),
            "mre_threshold": float(self.mre_threshold),
            "infer_model": InferenceModel(self.infer_model).value,
            "infer_max_train": int(self.infer_max_train),
            "seed": int(seed),
            "data_rows": int(codes.shape[0]),
            "data_sha256": hashlib.sha256(np.ascontiguousarray(codes).tobytes()).hexdigest()[:16],
        }
        shared = {"config": config, "codes": codes, "sizes": sizes, "schema": schema}
        units = [WorkUnit(f"game-{g:06d}", (g,)) for g in range(self.games)]
        store = RunStore(run_dir, config) if run_dir is not None else None
        try:
            out = run_units(
                _play_game,
                units,
                shared=shared,
                workers=workers,
                cluster=cluster,
                store=store,
                progress=progress,
            )
            result = self._aggregate(config, out, attacks, ms, C)
            if store is not None:
                store.write_json("result.json", result.to_dict())
        finally:
            if store is not None:
                store.close()
        return result

    @staticmethod
    def _aggregate(
        config: dict[str, Any], out: dict[str, Any], attacks: list[AIAttack], ms: list[int], C: int
    ) -> AttributeGameResult:
        failures: list[dict[str, Any]] = []
        games: dict[int, dict[str, np.ndarray]] = {}
        for key, r in sorted(out.items()):
            g = int(key.split("-")[1])
            if not r.ok:
                failures.append(
                    {"game": g, "m": None, "attack": None, "reason": _reason(r.error or "")}
                )
                continue
            games[g] = r.arrays
        if not games:
            reasons = sorted({f["reason"] for f in failures})
            raise InputError(
                f"every game failed ({'; '.join(reasons)[:300]}): check the data and options"
            )
        results = []
        for mi, m in enumerate(ms):
            entry: dict[str, Any] = {"m": m, "attacks": {}}
            for a in attacks:
                truth, scores, guesses = [], [], []
                n_failed = 0
                for g, arr in games.items():
                    reason = str(arr[f"fail_{a.value}"][mi])
                    if reason:
                        n_failed += 1
                        failures.append({"game": g, "m": m, "attack": a.value, "reason": reason})
                        continue
                    truth.append(arr["truth"])
                    scores.append(arr[f"scores_{a.value}"][mi])
                    guesses.append(arr[f"guess_{a.value}"][mi])
                if not truth:
                    entry["attacks"][a.value] = {
                        "accuracy": None,
                        "accuracy_ci": [None, None],
                        "auc": None,
                        "baseline": 1.0 / C,
                        "n_games": 0,
                        "n_failed": n_failed,
                    }
                    continue
                t = np.concatenate(truth)
                s = np.concatenate(scores)
                gs = np.concatenate(guesses)
                est = accuracy_estimate(gs == t, baseline=1.0 / C)
                auc_v = auc(t, s[:, 1]) if C == 2 and np.unique(t).size == 2 else None
                secs = np.array(
                    [arr[f"seconds_{a.value}"][mi] for arr in games.values()], dtype=float
                )
                entry["attacks"][a.value] = {
                    "accuracy": est.value,
                    "accuracy_ci": [est.ci_low, est.ci_high],
                    "auc": auc_v,
                    "baseline": 1.0 / C,
                    "n_games": len(truth),
                    "n_targets": int(t.size),
                    "n_failed": n_failed,
                    "mean_seconds": float(np.nanmean(secs)) if np.isfinite(secs).any() else None,
                }
            entry["comparisons"] = _compare_attacks(config, games, attacks, mi)
            mre = np.array([arr["mre"][mi] for arr in games.values()])
            tvd = np.array([arr["tvd"][mi] for arr in games.values()])
            entry["utility"] = {
                "mre_gt10": float(np.nanmean(mre)) if np.isfinite(mre).any() else None,
                "tvd3": float(np.nanmean(tvd)) if np.isfinite(tvd).any() else None,
            }
            accs = [v["accuracy"] for v in entry["attacks"].values() if v["accuracy"] is not None]
            entry["acc_max"] = max(accs) if accs else None
            results.append(entry)
        return AttributeGameResult(config, results, failures, games)
