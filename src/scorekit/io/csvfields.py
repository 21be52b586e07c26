"""CSV readers accept fields of any length.

Python's csv module refuses a field over 128 KiB (``_csv.Error: field larger than field limit``),
but a long caption, or a whole article given as a summarisation document, is legitimate text.
Every CSV reader of user data calls :func:`allow_long_fields` before reading.
"""

from __future__ import annotations

import csv

_LIMIT = 2**31 - 1    # the largest value the C field accepts on every platform


def allow_long_fields() -> None:
    """Raise the csv module's field size limit (process-wide) to its maximum."""
    if csv.field_size_limit() < _LIMIT:
        csv.field_size_limit(_LIMIT)
