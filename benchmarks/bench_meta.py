"""The meta classifier (``meta``) against ``lira``, ``query`` and ``rmia`` on identical datasets.

One :class:`~synthleak.games.membership.MembershipGame` per generator on the paper's Adult (the
45,222 complete rows): the records ``V_5`` ranks first as targets, one shared pool of
``--shadows`` shadow and ``--tests`` test datasets (|D| = |D^s| = 1,000, |D_aux| = 10,000,
|D_test| = 5,000), every attack fitted per target on the same shadow datasets and scored on the
same test datasets:

* ``query``: 100,000 counting queries (all 32,767 subsets of Adult's 15 attributes), random
  forest of 100 trees of depth 10 (Meeus et al. (2023), Sec. 5.5);
* ``lira`` and ``rmia``: the registered defaults;
* ``meta``: the registered default (``--meta-params`` overrides): a logistic regression over the
  cross-fitted ``lira``, ``rmia`` and ``query`` signals and the target's distance statistics.

Reported: each target's AUC with its bootstrap interval, the mean over targets of the TPR at
FPR 0.1 and 0.01, and per attack pair the mean AUC difference with a paired t interval over the
targets, a stratified bootstrap interval over the test datasets (the fitted attacks held fixed)
and a Wilcoxon signed-rank p-value; and each attack's CPU seconds per target (fit + score).

Usage::

    python -m benchmarks.bench_meta --generators "baynet;synthpop:predictors=onehot"
"""

from __future__ import annotations

from benchmarks.bench_lira import compare_attacks

STUDY = "meta"


def main(argv: list[str] | None = None) -> int:
    return compare_attacks(
        argv,
        doc=__doc__,
        script="bench_meta.py",
        study=STUDY,
        tuned="meta",
        attacks=["query", "lira", "rmia", "meta"],
        names=["query", "lira", "rmia", "meta"],
        pairs=[("meta", "lira"), ("meta", "query"), ("meta", "rmia")],
    )


if __name__ == "__main__":
    raise SystemExit(main())
