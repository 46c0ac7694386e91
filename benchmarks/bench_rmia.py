"""RMIA (``rmia``) against ``lira`` and ``query`` on identical shadow and test datasets.

One :class:`~synthleak.games.membership.MembershipGame` per generator on the paper's Adult (the
45,222 complete rows): the records ``V_5`` ranks first as targets, one shared pool of
``--shadows`` shadow and ``--tests`` test datasets (|D| = |D^s| = 1,000, |D_aux| = 10,000,
|D_test| = 5,000), every attack fitted per target on the same shadow datasets and scored on the
same test datasets:

* ``query``: 100,000 counting queries (all 32,767 subsets of Adult's 15 attributes), random
  forest of 100 trees of depth 10 (Meeus et al. (2023), Sec. 5.5);
* ``lira``: the registered default;
* ``rmia``: the registered default (``--rmia-params`` overrides), and ``rmiagamma2``, the same
  with ``gamma = 2``.

Reported: each target's AUC with its bootstrap interval, the mean over targets of the TPR at
FPR 0.1 and 0.01, and per attack pair the mean AUC difference with a paired t interval over the
targets, a stratified bootstrap interval over the test datasets (the fitted attacks held fixed)
and a Wilcoxon signed-rank p-value; and each attack's CPU seconds per target (fit + score).

Usage::

    python -m benchmarks.bench_rmia --generators baynet --shadows 500 --tests 200
"""

from __future__ import annotations

from benchmarks.bench_lira import compare_attacks
from synthleak.attacks.mia_rmia import RelativeMembershipAttack

STUDY = "rmia"


class RmiaGamma2(RelativeMembershipAttack):
    """``rmia`` with the likelihood-ratio threshold ``gamma = 2``."""

    name = "rmiagamma2"

    def __init__(self) -> None:
        super().__init__(gamma=2.0)


def main(argv: list[str] | None = None) -> int:
    return compare_attacks(
        argv,
        doc=__doc__,
        script="bench_rmia.py",
        study=STUDY,
        tuned="rmia",
        attacks=["query", "lira", "rmia", RmiaGamma2()],
        names=["query", "lira", "rmia", "rmiagamma2"],
        pairs=[("rmia", "lira"), ("rmia", "query"), ("rmia", "rmiagamma2")],
    )


if __name__ == "__main__":
    raise SystemExit(main())
