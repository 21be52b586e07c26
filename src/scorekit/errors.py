"""User-facing errors.

Anything a user can cause (a missing file, a malformed line, an unknown metric, ids that do not
match) is raised as a :class:`ScorekitError`. The CLI turns it into one line on stderr and exit
status 2 — never a traceback. Programming errors stay ordinary exceptions.
"""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike


class ScorekitError(Exception):
    """A mistake in the user's input or invocation; the message is shown as is."""

    exit_code = 2


class InputError(ScorekitError):
    """A problem with one input file, optionally at one line.

    ``str(err)`` reads ``path:line: message`` (or ``path: message``) so editors can jump to it.
    """

    def __init__(self, message: str, path: str | PathLike | None = None, line: int | None = None):
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        where = "" if path is None else f"{path}: " if line is None else f"{path}:{line}: "
        super().__init__(where + message)


class UnknownNameError(ScorekitError):
    """An unknown metric/measure/tokeniser name, with the closest known names suggested."""

    def __init__(self, kind: str, name: str, known: Iterable[str]):
        import difflib   # the error path only: every command imports this module

        known = sorted(set(known))
        self.kind, self.name, self.known = kind, name, known
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hint = f" — did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        listing = ", ".join(known) if len(known) <= 30 else ", ".join(known[:30]) + ", …"
        super().__init__(f"unknown {kind} {name!r}{hint} (known: {listing})")


class MissingDependencyError(ScorekitError):
    """An optional dependency (torch, a model, a dataset) is not installed or not on disk."""
