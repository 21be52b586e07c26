"""Reader for BERTScore baseline files (bert_score's ``rescale_baseline/<lang>/<model>.tsv``).

Despite the ``.tsv`` name the files are comma-separated: a header ``LAYER,P,R,F`` and one row per
layer (0 = the embedding layer). bert_score picks the row at *position* ``num_layers``
(``pd.read_csv(path).iloc[num_layers]``), and so do we.
"""

from __future__ import annotations

import csv
import io
from os import PathLike

import numpy as np

from scorekit.errors import InputError
from scorekit.io.atomic import read_text


def read_baseline(path: str | PathLike, num_layers: int) -> np.ndarray:
    """The (P, R, F) baseline for layer ``num_layers`` as float32 (bert_score rescales in float32)."""
    text = read_text(path)
    from scorekit.io.csvfields import allow_long_fields

    allow_long_fields()
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise InputError("empty baseline file (expected a header LAYER,P,R,F and one row per layer)", path)
    header = [h.strip() for h in rows[0]]
    if len(header) < 4 or [h.upper() for h in header[1:4]] != ["P", "R", "F"]:
        raise InputError(f"baseline header must be LAYER,P,R,F, got {','.join(header)!r}", path, 1)
    body = [r for r in rows[1:] if any(c.strip() for c in r)]
    if num_layers >= len(body):
        raise InputError(
            f"baseline has rows for layers 0..{len(body) - 1}, but layer {num_layers} was asked for", path
        )
    row = body[num_layers]
    line = rows.index(row) + 1
    try:
        values = [float(v) for v in row[1:4]]
    except ValueError:
        raise InputError(f"expected three numbers P,R,F, got {','.join(row)!r}", path, line) from None
    if len(values) != 3:
        raise InputError(f"expected three numbers P,R,F, got {','.join(row)!r}", path, line)
    return np.asarray(values, dtype=np.float32)
