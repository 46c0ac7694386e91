"""Contract checks for your own attacks and generators (in the spirit of scikit-learn's
``check_estimator``).

:func:`check_attack` and :func:`check_generator` run the checks the project runs on every attack
and generator it registers, on an object of yours, and raise :class:`ContractError` (an
:class:`AssertionError`) naming the first broken clause, so a ``python:`` generator or a custom
attack is validated in seconds, before an audit that takes hours::

    from synthleak.testing import check_attack, check_generator

    check_generator("python:mypkg.synth:MyGenerator,epochs=2")
    check_attack(MyAttack(k=3))
"""

from synthleak.testing.attacks import ATTACK_CLAUSES, LINKABILITY_AUX, check_attack
from synthleak.testing.contract import ContractError
from synthleak.testing.generators import GENERATOR_CLAUSES, check_generator, contract_table

__all__ = [
    "ATTACK_CLAUSES",
    "GENERATOR_CLAUSES",
    "LINKABILITY_AUX",
    "ContractError",
    "check_attack",
    "check_generator",
    "contract_table",
]
