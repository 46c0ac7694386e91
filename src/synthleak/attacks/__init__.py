"""The adversaries: fit on shadow or auxiliary data, score released data.

Attacks never sample datasets. Importing this package registers every built-in attack (see
:mod:`synthleak.attacks.base`); the modules import their heavy optional dependencies (torch) only
when an attack is fitted.
"""

from synthleak.attacks import base  # noqa: I001  (the registry first)
from synthleak.attacks import (  # noqa: F401  (registration)
    aia_dcr,
    aia_inference,
    aia_reconstruction,
    contrastive,
    linkability,
    mia_attention,
    mia_distance,
    mia_groundhog,
    mia_lira,
    mia_meta,
    mia_nobox,
    mia_nobox_extra,
    mia_novelty,
    mia_query,
    mia_rmia,
    singling_out,
)
from synthleak.attacks.base import (
    Attack,
    AttackFamily,
    AttackInfo,
    attack_info,
    list_attacks,
    make_attack,
    register_attack,
    resolve_attack,
    resolve_attacks,
)

__all__ = [
    "Attack",
    "AttackFamily",
    "AttackInfo",
    "attack_info",
    "base",
    "list_attacks",
    "make_attack",
    "register_attack",
    "resolve_attack",
    "resolve_attacks",
]
