"""The modes and choices of the API, as enums, in one light module.

Each enum belongs to a game or an attack and is re-exported by the module that uses it
(``from synthleak.games.membership import PoolMode`` works). They live here so that the command
line can build its options from them without importing numerical libraries: ``synthleak --help``
stays fast (DESIGN.md convention 7: enums, not loose strings, for modes and formats).
"""

from __future__ import annotations

from enum import StrEnum


class PoolMode(StrEnum):
    """How shadow and test datasets are shared across targets (membership game)."""

    SHARED = "shared"
    SINGLE = "single"


class Knowledge(StrEnum):
    """What the attacker knows of the training data besides the target (membership game).

    ``auxiliary``: records of the same population, disjoint from the challenger's (the threat
    model of Meeus et al. (2023)); the training datasets are random, so the game measures the
    risk of a typical release. ``exact``: every training record but the target (TAPAS's exact
    knowledge, Houssiau et al. (2022)); IN and OUT datasets differ only in the target (IN = D plus
    the target, OUT = D: neighbouring datasets under addition/removal of one record), the
    worst case that tight differential-privacy audits need.
    """

    AUXILIARY = "auxiliary"
    EXACT = "exact"


class Budget(StrEnum):
    """How much compute the audit spends (more attacks and shadow models, narrower intervals)."""

    QUICK = "quick"
    STANDARD = "standard"
    PAPER = "paper"
    AUTO = "auto"  # the standard plan, with shadow and test datasets sized to max_time


class DistanceMetric(StrEnum):
    """Record distance: generalised cosine (eq. 5) or generalised Minkowski (eq. 6)."""

    COSINE = "cosine"
    MINKOWSKI = "minkowski"


class TargetMethod(StrEnum):
    """How to pick target records (Meeus et al. (2023), Sec. 4 and 5.2), one choice for the
    ranking functions (``rank_records``, ``Targets.top``) and the audit (``selector``).

    Every method but ``screen`` ranks from the data alone (:attr:`from_data`); ``screen``
    measures each candidate's risk with a cheap shadow-model screen and needs the generator
    (``games.twostage``). ``random`` is no ranking: the audit adds random records to its
    targets as a control group, so it is no audit selector (:data:`AUDIT_SELECTORS`).
    """

    SCREEN = "screen"  # two-stage audit: a cheap shadow-model screen of the rarest records
    DISTANCE = "distance"  # V_k, the paper's method
    RARE = "rare"  # rare value (Groundhog, Stadler et al.)
    LOGLIK = "loglik"  # lowest log-likelihood under independent marginals (TAPAS)
    RARITY = "rarity"  # cell rarity on single columns and pairs (validated on risk maps)
    RANDOM = "random"

    @property
    def from_data(self) -> bool:
        """Whether the method ranks records from the data alone (no generator)."""
        return self is not TargetMethod.SCREEN


#: The methods by which an audit picks the records its shadow-model game attacks (the first
#: is the default).
AUDIT_SELECTORS: tuple[TargetMethod, ...] = tuple(
    m for m in TargetMethod if m is not TargetMethod.RANDOM
)
#: The methods that rank records from the data alone (``vulnerable --method``).
DATA_METHODS: tuple[TargetMethod, ...] = tuple(m for m in TargetMethod if m.from_data)
#: The audit's name for the choice (``audit(selector=...)``): the same enum.
Selector = TargetMethod


class QueryMode(StrEnum):
    """How query answers are read off the synthetic data (Annamalai et al. (2024a), Sec. 4.2,
    6.6).

    ``conditional``: the fraction of synthetic records with the quasi-identifier values that
    have the secret, times the count of those values in ``X`` (the paper's attack);
    ``marginal``: the synthetic count rescaled by ``n / m`` (Kasiviswanathan et al.'s answers, as
    described in the paper's Sec. 4.2).
    """

    CONDITIONAL = "conditional"
    MARGINAL = "marginal"


class InferenceModel(StrEnum):
    """The classifier behind the ML-inference attribute attack."""

    RF = "rf"
    HGB = "hgb"
    LOGREG = "logreg"
    NB = "nb"


class BinStrategy(StrEnum):
    """How continuous columns are discretised."""

    UNIFORM = "uniform"
    QUANTILE = "quantile"


class ToleranceKind(StrEnum):
    """How a tolerance on a numeric secret is read: within ``t`` of the true value, or within
    ``t`` times its magnitude."""

    ABSOLUTE = "absolute"
    RELATIVE = "relative"


class Neighbouring(StrEnum):
    """Which datasets a differential-privacy guarantee calls neighbours."""

    SUBSTITUTE = "substitute"  # same size, one record replaced ("bounded" DP)
    ADD_REMOVE = "add_remove"  # one record added or removed ("unbounded" DP)
