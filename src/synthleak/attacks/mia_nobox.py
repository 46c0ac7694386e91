"""No-box membership signal: distance to the closest synthetic record (DCR).

Without shadow models, an attacker who sees only the released data can still score a candidate
record by how close the nearest synthetic record lies to it (Meeus et al.
(2023), eq. 5): generators that copy or barely perturb training records put
synthetic records closer to members than to non-members. The audit scores a sample of the
training records (members) and of the control records (non-members) and reports the AUC; 0.5 is
the baseline.

References
----------
Meeus et al. (2023), Sec. 3 (distance-based attacks) and Sec. 4, eq. (5).
Giomi et al. (2023) (Anonymeter), Sec. 3 (a control set as the baseline).
"""

from __future__ import annotations

import numpy as np

from synthleak.data.table import Table
from synthleak.errors import InputError, check_fitted
from synthleak.vulnerability import pairwise_distances


def closest_distances(records: Table, synthetic: Table, *, block: int = 128) -> np.ndarray:
    """Distance (eq. 5) from each record to its closest synthetic record, in blocks of rows."""
    if len(synthetic) == 0:
        raise InputError("the synthetic data has no records: give a non-empty table")
    out = np.empty(len(records), dtype=np.float64)
    step = max(1, min(block, 4_000_000 // max(len(synthetic), 1)))
    for start in range(0, len(records), step):
        part = records.take(np.arange(start, min(start + step, len(records))))
        out[start : start + len(part)] = pairwise_distances(part, synthetic).min(axis=1)
    return out


class ClosestRecordSignal:
    """Score records by closeness to the released synthetic data (higher = more likely a member).

    Notes
    -----
    Threat model: no-box. The attacker sees the released synthetic data and the candidate
    records, nothing of the generator.
    """

    def fit(self, synthetic: Table) -> ClosestRecordSignal:
        """Remember the released synthetic data; returns self."""
        if len(synthetic) == 0:
            raise InputError("the synthetic data has no records: give a non-empty table")
        self.synthetic_ = synthetic
        return self

    def score(self, records: Table) -> np.ndarray:
        """Membership score of each record: minus its distance to the closest synthetic record."""
        check_fitted(self, "synthetic_")
        return -closest_distances(records, self.synthetic_)
