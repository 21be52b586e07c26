"""scorekit — exact, fast evaluation for NLP and search systems, Korean and English alike.

Families live in sub-packages (``scorekit.retrieval``, ``scorekit.generation``, ``scorekit.neural``,
``scorekit.summarization``, ``scorekit.topics``, ``scorekit.absa``) over shared ``text``, ``io``,
``stats`` and ``report`` layers. Every score comes back as a :class:`scorekit.result.Result` that
carries a signature string pinning whatever changes its numbers.
"""

__version__ = "0.1.0"

from scorekit.errors import ScorekitError, InputError  # noqa: E402
from scorekit.result import Result, ResultSet  # noqa: E402

__all__ = ["__version__", "ScorekitError", "InputError", "Result", "ResultSet"]
