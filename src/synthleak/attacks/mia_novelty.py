"""The novelty attack: does a release hold a combination of the target's values that no other
training record has?

An attacker with exact knowledge knows every training record but the target (the worst case of
a DP audit). Some combinations of the target's categorical values are then *new*: no known
record holds them (a value only the target has, or a pair of values no known record combines).
A generator that did not see the target can release such a combination only by making it up; one
that saw it can also reproduce it. The attack takes the smallest new combinations (those of the
lowest order, up to ``max_order`` attributes, at which the target has any; the whole categorical
record when it has none up to that order) and scores a release by ``C``, the sum over them of the
release records holding each, as ``C / (C + 1/2)``: 0 for a release holding none, above 0.5 from
one on, so thresholding at 0.5 calls a release IN when it
holds any new combination.

Nothing is fitted: the shadow datasets are not used, and the direction of the score is fixed
before any release is seen. The fitted attacks (query, distance) see the same records but must
learn from the shadow datasets which counts matter; with the few shadow datasets a DP audit can
afford they can miss a value the generator should never have released. A DP generator that learns
its domain from the training records (synthleak's DP study found one) releases a value only the
target holds only when the target was trained on; this attack finds that at the first release.
A generator that invents new combinations freely (most do, at order 2 and above) gives OUT
releases that hold them too, and the attack measures only the difference in how often.

Continuous attributes are left out (a release rarely repeats a value exactly); a table without
categorical attributes, or a target whose categorical values equal a known record's, gives every
release the same score (no power, AUC 0.5).

References
----------
Houssiau et al. (2022), "TAPAS: a toolbox for adversarial privacy auditing of synthetic data"
(exact knowledge of the other training records).
Annamalai, Ganev and De Cristofaro (2024), "'What do you want from theory alone?' Experimenting
with tight auditing of differentially private synthetic data generation", USENIX Security
(worst-case audits of DP generators with exact knowledge).
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 5.1 (counting queries over subsets of the target's values).

Notes
-----
Threat model: the attacker knows the target, every other training record (and, under
substitution, the record that replaces the target: a combination it holds is not new), and
nothing of the generator. Only games with exact knowledge can give it the known records
(:func:`synthleak.attacks.base.fit_membership`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np

from synthleak.attacks.base import (
    AttackFamily,
    AttackInfo,
    KnownRecordsMembershipAttack,
    register_attack,
)
from synthleak.constraints import Interval, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError, check_fitted
from synthleak.queries import MAX_QUERY_BITS, n_attributes, stack_tables, subset_counts


class NoveltyAttack(KnownRecordsMembershipAttack):
    """Records of a release holding the smallest combinations of the target's values that no
    known training record holds.

    Parameters
    ----------
    max_order : int
        Largest combination looked for (attributes); beyond it, the whole categorical record.

    Attributes
    ----------
    subsets_ : ndarray of uint64
        The smallest new combinations (bit masks over the categorical attributes).
    order_ : int
        Their number of attributes (0 when the target has none: every score is 0).

    References
    ----------
    Houssiau et al. (2022) (exact knowledge); Annamalai et al. (2024) (worst-case DP audits).
    """

    name = "novelty"
    fixed_threshold = 0.5  # IN when the release holds any new combination
    _parameter_constraints = constraints(max_order=Interval(int, 1, None))

    def __init__(self, max_order: int = 3) -> None:
        self.max_order = max_order

    def fit(
        self,
        target: Table,
        datasets: Sequence[Table],
        labels: np.ndarray,
        *,
        rng: np.random.Generator,
        known: Table | None = None,
        other: Table | None = None,
    ) -> NoveltyAttack:
        self._check_fit_input(target, datasets, labels)
        if known is None:
            raise InputError("the novelty attack needs the known training records (known=)")
        if other is not None and len(other) != 1:
            raise InputError(f"other must be one record, got {len(other)}")
        self.target_ = target
        seen = known if other is None else Table.concat([known, other])
        n_cat = len(target.schema.categorical)
        if n_attributes(target.schema) > MAX_QUERY_BITS:
            raise InputError(
                f"the novelty attack counts combinations of at most {MAX_QUERY_BITS} attributes; "
                f"the data has {n_attributes(target.schema)}: select fewer columns"
            )
        self.subsets_, self.order_ = np.zeros(0, dtype=np.uint64), 0
        for order in sorted({*range(1, min(int(self.max_order), n_cat) + 1), n_cat} - {0}):
            masks = np.array(
                [sum(1 << j for j in c) for c in combinations(range(n_cat), order)],
                dtype=np.uint64,
            )
            new = masks[subset_counts(stack_tables([seen]), target, masks)[0] == 0]
            if new.size:
                self.subsets_, self.order_ = new, order
                break
        return self

    def holding(self, datasets: Sequence[Table]) -> np.ndarray:
        """``C`` per dataset: its records holding each new combination, summed."""
        check_fitted(self, "subsets_")
        if not self.subsets_.size:
            return np.zeros(len(datasets))
        c = subset_counts(stack_tables(datasets), self.target_, self.subsets_, dtype=np.float64)
        return np.asarray(c.sum(axis=1), dtype=np.float64)

    def score(self, datasets: Sequence[Table]) -> np.ndarray:
        """``C / (C + 1/2)``: above 0.5 when the release holds any new combination."""
        held = self.holding(datasets)
        return np.asarray(held / (held + 0.5), dtype=np.float64)


register_attack(
    AttackInfo(
        "novelty",
        AttackFamily.MEMBERSHIP,
        NoveltyAttack,
        "release records holding a combination of the target's values that no other training "
        "record holds (no fitting; exact knowledge only)",
        references=("houssiau2022", "annamalai2024auditing", "meeus2023"),
    )
)
