"""What a failed contract check raises: :class:`ContractError`, naming the clause."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from synthleak.errors import MissingExtraError, SynthleakError


class ContractError(AssertionError, SynthleakError):
    """An attack or generator breaks a clause of its contract.

    An :class:`AssertionError` (so a test runner reports it as a failed check) whose message
    names the object, the clause and what was observed.

    Attributes
    ----------
    subject : str
        The object checked (its class name or spec).
    clause : str
        The clause it breaks, e.g. ``"fit returns self"``.
    detail : str
        What the check observed.
    """

    def __init__(self, subject: str, clause: str, detail: str) -> None:
        self.subject, self.clause, self.detail = subject, clause, detail
        super().__init__(f"{subject} breaks the contract clause {clause!r}: {detail}")

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:
        return type(self), (self.subject, self.clause, self.detail)


@contextmanager
def clause(subject: str, name: str) -> Iterator[None]:
    """Run one clause's checks: a failed ``assert`` or an unexpected exception inside becomes a
    :class:`ContractError` naming ``name`` (a missing optional extra is not a breach: its
    :class:`~synthleak.errors.MissingExtraError` passes through)."""
    try:
        yield
    except (ContractError, MissingExtraError):
        raise
    except AssertionError as exc:
        raise ContractError(subject, name, str(exc) or "an assertion failed") from exc
    except Exception as exc:
        raise ContractError(subject, name, f"raised {type(exc).__name__}: {exc}") from exc
