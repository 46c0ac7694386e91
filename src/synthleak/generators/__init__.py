"""Synthetic data generators behind one protocol, and their registry.

Importing this package registers the built-in generators. Generators with optional dependencies
register anyway and raise :class:`~synthleak.errors.MissingExtraError` when made without them.
"""

from synthleak.generators import (  # noqa: F401  (registers built-ins)
    baynet,
    controls,
    ctgan,
    env,
    external,
    mbi,
    rap,
    realtabformer,
    sdv,
    simple,
    synthpop,
)
from synthleak.generators.base import (
    BaseGenerator,
    Generator,
    GeneratorInfo,
    Param,
    claimed_delta,
    claimed_epsilon,
    list_generators,
    make_generator,
    parse_spec,
    register_generator,
)

__all__ = [
    "BaseGenerator",
    "Generator",
    "GeneratorInfo",
    "Param",
    "claimed_delta",
    "claimed_epsilon",
    "list_generators",
    "make_generator",
    "parse_spec",
    "register_generator",
]
