"""Closest-distance membership baseline.

Features of a synthetic dataset: the generalised cosine distance (eq. 5) from the target to its
``k`` nearest synthetic records (sorted), and the number of synthetic records within a few radii
of the target (radius 0 counts exact copies). A random forest learns IN/OUT from these features on
the shadow datasets. This is the "distance to closest record" family of attacks that compares
synthetic records to the target directly (Meeus et al. (2023), Sec. 3, first class of methods),
run inside the same shadow-modelling game as the other attacks so its AUC is comparable.

References
----------
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 3 (distance-based MIAs) and Sec. 4, eq. (5) (the distance).

Notes
-----
Threat model: the attacker knows the target record and the schema's ranges (for min-max scaling);
knowledge of the generator only enters through the shadow datasets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from synthleak.attacks.base import AttackFamily, AttackInfo, register_attack
from synthleak.attacks.mia_query import ForestMembershipAttack
from synthleak.constraints import N_JOBS, Interval, SequenceOf, constraints
from synthleak.data.table import Table
from synthleak.errors import check_fitted
from synthleak.queries import TableStack, stack_tables
from synthleak.vulnerability import target_distances

DEFAULT_RADII = (0.0, 0.02, 0.05, 0.1, 0.2)


def stack_distances(stack: TableStack, target: Table) -> np.ndarray:
    """Generalised cosine distance (eq. 5) from ``target`` to every record of every dataset.

    ``(B, m)`` float32; :func:`synthleak.vulnerability.target_distances` on the stacked records.
    """
    b, m = stack.codes.shape[:2]
    flat = Table(
        stack.schema,
        stack.codes.reshape(b * m, -1),
        stack.values.reshape(b * m, -1),
    )
    return target_distances(target, flat).reshape(b, m).astype(np.float32)


class DistanceAttack(ForestMembershipAttack):
    """Distances to the closest synthetic records + counts within radii, with a random forest.

    Parameters
    ----------
    k : int
        Number of nearest synthetic records whose distances are features.
    radii : tuple of float
        Count the synthetic records within each distance (0 = exact copies).
    n_estimators, max_depth : int
        Random forest size.

    References
    ----------
    Meeus et al. (2023), Sec. 3 and eq. (5).
    """

    name = "distance"
    _parameter_constraints = constraints(
        k=Interval(int, 1, None),
        radii=SequenceOf(Interval(float, 0, None)),
        n_estimators=Interval(int, 1, None),
        max_depth=Interval(int, 1, None),
        n_jobs=N_JOBS,
    )

    def __init__(
        self,
        k: int = 5,
        radii: tuple[float, ...] = DEFAULT_RADII,
        n_estimators: int = 100,
        max_depth: int = 5,
        n_jobs: int = 1,
    ) -> None:
        self.k = k
        self.radii = radii
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.n_jobs = n_jobs
        self.model_: RandomForestClassifier | None = None

    def features(self, datasets: Sequence[Table]) -> np.ndarray:
        """``(B, k + len(radii))`` features."""
        check_fitted(self, "target_")
        stack = stack_tables(datasets)
        d = stack_distances(stack, self.target_)
        k = min(int(self.k), d.shape[1])
        nearest = np.sort(np.partition(d, k - 1, axis=1)[:, :k], axis=1) if k > 0 else d[:, :0]
        r = np.asarray(self.radii, dtype=np.float32)
        counts = (d[:, :, None] <= r[None, None, :] + np.float32(1e-6)).sum(
            axis=1, dtype=np.float32
        )
        return np.concatenate([nearest, counts], axis=1).astype(np.float32)

    def _prepare(self, target: Table, rng: np.random.Generator) -> None:
        self.target_ = target


register_attack(
    AttackInfo(
        "distance",
        AttackFamily.MEMBERSHIP,
        DistanceAttack,
        "distances from the target to its closest synthetic records and counts within radii "
        "+ random forest",
        references=("meeus2023", "chen2020"),
    )
)
